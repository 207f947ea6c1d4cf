// Warp shuffles (full warps; n must be a multiple of 32 and block size a multiple of 32).
// With lane = threadIdx.x & 31 and x = a[i]: out[4i+0] = x of lane (lane + 3) & 31 (__shfl_sync idx),
// out[4i+1] = x of lane ^ 5 (__shfl_xor_sync), out[4i+2] = x of lane - 2 or own x if lane < 2 (__shfl_up_sync),
// out[4i+3] = warp sum of x (butterfly reduction, wrapping).
extern "C" __global__ void shuffle(int *out, const int *a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int x = i < n ? a[i] : 0;
    int lane = threadIdx.x & 31;
    int v0 = __shfl_sync(0xffffffffu, x, (lane + 3) & 31);
    int v1 = __shfl_xor_sync(0xffffffffu, x, 5);
    int v2 = __shfl_up_sync(0xffffffffu, x, 2);
    int s = x;
    for (int off = 16; off > 0; off >>= 1) s += __shfl_down_sync(0xffffffffu, s, off);
    s = __shfl_sync(0xffffffffu, s, 0);
    if (i < n) {
        out[4 * i + 0] = v0;
        out[4 * i + 1] = v1;
        out[4 * i + 2] = v2;
        out[4 * i + 3] = s;
    }
}
