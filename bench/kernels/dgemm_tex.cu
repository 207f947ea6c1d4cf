static __device__ double lo_hi(float lo, float hi) {
    return __hiloint2double(__float_as_int(hi), __float_as_int(lo));
}
extern "C" __global__ void dgemm_tex(cudaTextureObject_t A, cudaTextureObject_t B, double *C,
                                     int n) {
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    double acc0 = 0.0, acc1 = 0.0;
    for (int k = 0; k < n; k += 2) {
        float4 a = tex2D<float4>(A, k * 0.5f + 0.5f, row + 0.5f);
        float4 b0 = tex2D<float4>(B, c + 0.5f, k + 0.5f);
        float4 b1 = tex2D<float4>(B, c + 0.5f, k + 1.5f);
        double a0 = lo_hi(a.x, a.y), a1 = lo_hi(a.z, a.w);
        acc0 = fma(a0, lo_hi(b0.x, b0.y), acc0);
        acc0 = fma(a1, lo_hi(b1.x, b1.y), acc0);
        acc1 = fma(a0, lo_hi(b0.z, b0.w), acc1);
        acc1 = fma(a1, lo_hi(b1.z, b1.w), acc1);
    }
    C[row * n + 2 * c] = acc0;
    C[row * n + 2 * c + 1] = acc1;
}
