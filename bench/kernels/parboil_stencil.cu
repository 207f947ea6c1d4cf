#define Index3D(nx, ny, i, j, k) ((i) + (nx) * ((j) + (ny) * (k)))

extern "C" __global__ void parboil_stencil(const float *A0, float *Anext, float c0, float c1, int nx, int ny, int nz) {
    int i = blockIdx.x * blockDim.x + threadIdx.x + 1;
    int j = blockIdx.y * blockDim.y + threadIdx.y + 1;
    if (i < nx - 1 && j < ny - 1) {
        float bottom = A0[Index3D(nx, ny, i, j, 0)];
        float current = A0[Index3D(nx, ny, i, j, 1)];
        for (int k = 1; k < nz - 1; k++) {
            float top = A0[Index3D(nx, ny, i, j, k + 1)];
            Anext[Index3D(nx, ny, i, j, k)] = c1 * (top + bottom + A0[Index3D(nx, ny, i, j + 1, k)] + A0[Index3D(nx, ny, i, j - 1, k)]
                                                    + A0[Index3D(nx, ny, i + 1, j, k)] + A0[Index3D(nx, ny, i - 1, j, k)])
                                            - current * c0;
            bottom = current;
            current = top;
        }
    }
}
