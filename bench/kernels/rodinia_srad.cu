extern "C" __global__ void rodinia_srad(const float *d_I, const int *d_iN, const int *d_iS, const int *d_jW, const int *d_jE,
                                        float *d_dN, float *d_dS, float *d_dW, float *d_dE, float *d_c,
                                        int d_Nr, int d_Ne, float d_q0sqr) {
    int ei = blockIdx.x * blockDim.x + threadIdx.x;
    int row = (ei + 1) % d_Nr - 1;
    int col = (ei + 1) / d_Nr + 1 - 1;
    if ((ei + 1) % d_Nr == 0) {
        row = d_Nr - 1;
        col = col - 1;
    }
    if (ei < d_Ne) {
        float d_Jc = d_I[ei];
        float d_dN_loc = d_I[d_iN[row] + d_Nr * col] - d_Jc;
        float d_dS_loc = d_I[d_iS[row] + d_Nr * col] - d_Jc;
        float d_dW_loc = d_I[row + d_Nr * d_jW[col]] - d_Jc;
        float d_dE_loc = d_I[row + d_Nr * d_jE[col]] - d_Jc;
        float d_G2 = __fdividef(d_dN_loc * d_dN_loc + d_dS_loc * d_dS_loc + d_dW_loc * d_dW_loc + d_dE_loc * d_dE_loc, d_Jc * d_Jc);
        float d_L = __fdividef(d_dN_loc + d_dS_loc + d_dW_loc + d_dE_loc, d_Jc);
        float d_num = (0.5f * d_G2) - ((1.0f / 16.0f) * (d_L * d_L));
        float d_den = 1 + (0.25f * d_L);
        float d_qsqr = __fdividef(d_num, d_den * d_den);
        d_den = __fdividef(d_qsqr - d_q0sqr, d_q0sqr * (1 + d_q0sqr));
        float d_c_loc = __fdividef(1.0f, 1.0f + d_den);
        if (d_c_loc < 0)
            d_c_loc = 0;
        else if (d_c_loc > 1)
            d_c_loc = 1;
        d_dN[ei] = d_dN_loc;
        d_dS[ei] = d_dS_loc;
        d_dW[ei] = d_dW_loc;
        d_dE[ei] = d_dE_loc;
        d_c[ei] = d_c_loc;
    }
}
