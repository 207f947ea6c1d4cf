extern "C" __global__ void matmul(const float *A, const float *B, float *C, int n) {
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    float acc = 0.0f;
    for (int k = 0; k < n; k++) acc = fmaf(A[row * n + k], B[k * n + col], acc);
    C[row * n + col] = acc;
}
