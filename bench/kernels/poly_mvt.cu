extern "C" __global__ void poly_mvt(const float *a, float *x1, float *x2, const float *y1, const float *y2, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float s1 = x1[i];
        float s2 = x2[i];
        for (int j = 0; j < n; j++)
            s1 += a[i * n + j] * y1[j];
        x1[i] = s1;
        for (int j = 0; j < n; j++)
            s2 += a[j * n + i] * y2[j];
        x2[i] = s2;
    }
}
