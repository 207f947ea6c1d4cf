extern "C" __global__ void poly_atax(const float *a, const float *x, float *tmp, int nx, int ny) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < nx) {
        float s = 0.0f;
        for (int j = 0; j < ny; j++)
            s += a[i * ny + j] * x[j];
        tmp[i] = s;
    }
}
