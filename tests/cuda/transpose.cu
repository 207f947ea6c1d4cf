// Matrix transpose through a padded shared tile (32x33), block 32x8, n a multiple of 32:
// out[c*n + r] = in[r*n + c] for an n x n u32 matrix.
#define T 32
extern "C" __global__ void transpose(unsigned *out, const unsigned *in, int n) {
    __shared__ unsigned tile[T][T + 1];
    int x = blockIdx.x * T + threadIdx.x;
    int y = blockIdx.y * T + threadIdx.y;
    for (int j = 0; j < T; j += 8) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * n + x];
    __syncthreads();
    x = blockIdx.y * T + threadIdx.x;
    y = blockIdx.x * T + threadIdx.y;
    for (int j = 0; j < T; j += 8) out[(y + j) * n + x] = tile[threadIdx.x][threadIdx.y + j];
}
