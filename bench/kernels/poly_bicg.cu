extern "C" __global__ void poly_bicg(const float *a, const float *r, float *s, int nx, int ny) {
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j < ny) {
        float acc = 0.0f;
        for (int i = 0; i < nx; i++)
            acc += a[i * ny + j] * r[i];
        s[j] = acc;
    }
}
