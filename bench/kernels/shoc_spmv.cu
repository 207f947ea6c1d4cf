extern "C" __global__ void shoc_spmv(const float *__restrict__ val, const int *__restrict__ cols, const int *__restrict__ rowDelimiters,
                                     const float *__restrict__ vec, float *__restrict__ out, const int dim) {
    int myRow = blockIdx.x * blockDim.x + threadIdx.x;
    if (myRow < dim) {
        float t = 0.0f;
        int start = rowDelimiters[myRow];
        int end = rowDelimiters[myRow + 1];
        for (int j = start; j < end; j++) {
            int col = cols[j];
            t += val[j] * vec[col];
        }
        out[myRow] = t;
    }
}
