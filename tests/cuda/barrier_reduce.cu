// Barrier reductions (BAR.RED): per block of 128 threads, with p = a[i] > 0 (threads i >= n vote
// false): out[3*blockIdx.x + 0] = __syncthreads_count(p), out[.. + 1] = __syncthreads_and(p),
// out[.. + 2] = __syncthreads_or(p), written by thread 0.
extern "C" __global__ void barrier_reduce(int *out, const int *a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int p = i < n && a[i] > 0;
    int count = __syncthreads_count(p);
    int all = __syncthreads_and(p);
    int any = __syncthreads_or(p);
    if (threadIdx.x == 0) {
        out[3 * blockIdx.x + 0] = count;
        out[3 * blockIdx.x + 1] = all != 0;
        out[3 * blockIdx.x + 2] = any != 0;
    }
}
