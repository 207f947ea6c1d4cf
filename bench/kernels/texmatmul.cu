extern "C" __global__ void texmatmul(cudaTextureObject_t A, cudaTextureObject_t B, float *C,
                                     int n) {
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    float acc = 0.0f;
    for (int k = 0; k < n; k++)
        acc = fmaf(tex2D<float>(A, k + 0.5f, row + 0.5f), tex2D<float>(B, col + 0.5f, k + 0.5f),
                   acc);
    C[row * n + col] = acc;
}
