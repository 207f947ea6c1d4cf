#define BLOCK_SIZE 16

// Group b factorises the diagonal tile at offset 16 b (the suite passes the offset and launches
// one group); the division is the approximate one the IL's `div` is.
extern "C" __global__ void rodinia_lud(float *m, int matrix_dim) {
    int i, j;
    __shared__ float shadow[BLOCK_SIZE][BLOCK_SIZE];
    int offset = blockIdx.x * BLOCK_SIZE;
    int array_offset = offset * matrix_dim + offset;
    for (i = 0; i < BLOCK_SIZE; i++) {
        shadow[i][threadIdx.x] = m[array_offset + threadIdx.x];
        array_offset += matrix_dim;
    }
    __syncthreads();
    for (i = 0; i < BLOCK_SIZE - 1; i++) {
        if (threadIdx.x > i) {
            for (j = 0; j < i; j++)
                shadow[threadIdx.x][i] -= shadow[threadIdx.x][j] * shadow[j][i];
            shadow[threadIdx.x][i] = __fdividef(shadow[threadIdx.x][i], shadow[i][i]);
        }
        __syncthreads();
        if (threadIdx.x > i) {
            for (j = 0; j < i + 1; j++)
                shadow[i + 1][threadIdx.x] -= shadow[i + 1][j] * shadow[j][threadIdx.x];
        }
        __syncthreads();
    }
    array_offset = (offset + 1) * matrix_dim + offset;
    for (i = 1; i < BLOCK_SIZE; i++) {
        m[array_offset + threadIdx.x] = shadow[i][threadIdx.x];
        array_offset += matrix_dim;
    }
}
