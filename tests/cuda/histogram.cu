// 64-bin histogram: shared per-block counts with shared atomics, merged with global atomicAdd.
// hist[b] (pre-zeroed) ends as the number of i < n with (a[i] & 63) == b. Block size 256.
extern "C" __global__ void histogram(unsigned *hist, const unsigned *a, int n) {
    __shared__ unsigned h[64];
    int t = threadIdx.x;
    if (t < 64) h[t] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + t; i < n; i += blockDim.x * gridDim.x) atomicAdd(&h[a[i] & 63], 1u);
    __syncthreads();
    if (t < 64 && h[t]) atomicAdd(&hist[t], h[t]);
}
