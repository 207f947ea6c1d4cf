// Three kernels in one module, for the multi-kernel cubin layout (ptxas lists them in reverse
// order), __launch_bounds__ (EIATTR_MAX_THREADS, MAXREG_COUNT) and per-kernel shared memory.
// stage_a: out[t] = s[(t + 1) & 63] where every s[k] = v (block of <= 64 threads): out[t] = v.
// stage_b (<= 128 threads): out[t] = x * 1.5f for every t.
// stage_c (<= 256 threads, 2 blocks per SM): out[blockIdx.x] = 1.
extern "C" __global__ void stage_a(int *out, int v) {
    __shared__ int s[64];
    s[threadIdx.x & 63] = v;
    __syncthreads();
    out[threadIdx.x] = s[(threadIdx.x + 1) & 63];
}
extern "C" __global__ void __launch_bounds__(128) stage_b(float *out, float x) {
    __shared__ float t[32];
    t[threadIdx.x & 31] = x;
    __syncthreads();
    out[threadIdx.x] = t[(threadIdx.x + 3) & 31] * 1.5f;
}
extern "C" __global__ void __launch_bounds__(256, 2) stage_c(int *out) { out[blockIdx.x] = 1; }
