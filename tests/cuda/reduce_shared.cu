// Block sum reduction in shared memory (tree, __syncthreads between steps); block size must be 256.
// out[blockIdx.x] = sum of a[blockIdx.x*256 .. +256] (wrapping i32); elements at index >= n count as 0.
extern "C" __global__ void reduce_shared(int *out, const int *a, int n) {
    __shared__ int buf[256];
    int t = threadIdx.x;
    int i = blockIdx.x * 256 + t;
    buf[t] = i < n ? a[i] : 0;
    __syncthreads();
    for (int s = 128; s > 0; s >>= 1) {
        if (t < s) buf[t] += buf[t + s];
        __syncthreads();
    }
    if (t == 0) out[blockIdx.x] = buf[0];
}
