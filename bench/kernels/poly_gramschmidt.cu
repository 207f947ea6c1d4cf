extern "C" __global__ void poly_gramschmidt(float *a, float *r, const float *q, int k, int m, int n) {
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if ((j > k) && (j < n)) {
        float rkj = 0.0f;
        for (int i = 0; i < m; i++)
            rkj += q[i * n + k] * a[i * n + j];
        r[k * n + j] = rkj;
        for (int i = 0; i < m; i++)
            a[i * n + j] -= q[i * n + k] * rkj;
    }
}
