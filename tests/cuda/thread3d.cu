// 3D thread indexing: gx, gy, gz global ids; for all in bounds (dims d0 x d1 x d2):
// out[(gz*d1 + gy)*d0 + gx] = gx | gy << 10 | gz << 20 | (threadIdx.x + threadIdx.y + threadIdx.z) << 28.
extern "C" __global__ void thread3d(unsigned *out, int d0, int d1, int d2) {
    unsigned gx = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned gy = blockIdx.y * blockDim.y + threadIdx.y;
    unsigned gz = blockIdx.z * blockDim.z + threadIdx.z;
    if (gx < (unsigned)d0 && gy < (unsigned)d1 && gz < (unsigned)d2)
        out[(gz * d1 + gy) * d0 + gx] =
            gx | (gy << 10) | (gz << 20) | ((threadIdx.x + threadIdx.y + threadIdx.z) << 28);
}
