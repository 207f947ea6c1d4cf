// Dynamic shared memory (extern __shared__, size given at launch: blockDim.x * 4 bytes) used to
// reverse each block's slice: out[b*B + t] = a[b*B + (B-1-t)] + b, where B = blockDim.x; elements
// with index >= n read as 0 and are not stored.
extern "C" __global__ void dyn_shared(int *out, const int *a, int n) {
    extern __shared__ int buf[];
    int t = threadIdx.x, b = blockIdx.x, B = blockDim.x;
    int i = b * B + t;
    buf[t] = i < n ? a[i] : 0;
    __syncthreads();
    if (i < n) out[i] = buf[B - 1 - t] + b;
}
