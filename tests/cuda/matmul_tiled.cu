// Tiled matrix multiply C = A * B (row-major n x n floats, n a multiple of 16), 16x16 tiles in shared
// memory, block 16x16, grid (n/16, n/16). Each C element accumulates A[r][k]*B[k][c] for k ascending
// with one fmaf per k (so a CPU reference using fmaf in the same order is bit exact).
#define TILE 16
extern "C" __global__ void matmul_tiled(float *C, const float *A, const float *B, int n) {
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
    float acc = 0.0f;
    for (int t = 0; t < n; t += TILE) {
        As[ty][tx] = A[row * n + t + tx];
        Bs[ty][tx] = B[(t + ty) * n + col];
        __syncthreads();
#pragma unroll
        for (int k = 0; k < TILE; k++) acc = fmaf(As[ty][k], Bs[k][tx], acc);
        __syncthreads();
    }
    C[row * n + col] = acc;
}
