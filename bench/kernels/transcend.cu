extern "C" __global__ void transcend(const float *x, float *out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = x[i];
    float e = exp2f(__sinf(v) * 0.5f);
    out[i] = fmaf(__log2f(fmaf(v, v, 1.0f)), __cosf(v), e);
}
