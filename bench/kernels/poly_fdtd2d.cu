extern "C" __global__ void poly_fdtd2d(const float *ex, const float *ey, float *hz, int nx, int ny) {
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i < ny && j < nx)
        hz[i * nx + j] = hz[i * nx + j] - 0.7f * (ex[i * (nx + 1) + (j + 1)] - ex[i * (nx + 1) + j]
                                                  + ey[(i + 1) * nx + j] - ey[i * nx + j]);
}
