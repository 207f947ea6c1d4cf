extern "C" __global__ void poly_gemm(const float *a, const float *b, float *c, float alpha, float beta, int n) {
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i < n && j < n) {
        float acc = c[i * n + j] * beta;
        for (int k = 0; k < n; k++)
            acc += alpha * a[i * n + k] * b[k * n + j];
        c[i * n + j] = acc;
    }
}
