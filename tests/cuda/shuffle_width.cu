// Shuffles within sub-warp segments (full warps, n a multiple of 32): lane = threadIdx.x & 31, x = a[i].
// out[3i+0] = x of lane (lane & ~7) + ((lane + 1) & 7)   (__shfl_sync width 8: rotate within groups of 8)
// out[3i+1] = x of lane + 4 if (lane & 15) + 4 < 16, else own x   (__shfl_down_sync width 16)
// out[3i+2] = x of lane ^ 2   (__shfl_xor_sync width 4)
extern "C" __global__ void shuffle_width(int *out, const int *a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int x = i < n ? a[i] : 0;
    int lane = threadIdx.x & 31;
    int v0 = __shfl_sync(0xffffffffu, x, (lane + 1) & 7, 8);
    int v1 = __shfl_down_sync(0xffffffffu, x, 4, 16);
    int v2 = __shfl_xor_sync(0xffffffffu, x, 2, 4);
    if (i < n) {
        out[3 * i + 0] = v0;
        out[3 * i + 1] = v1;
        out[3 * i + 2] = v2;
    }
}
