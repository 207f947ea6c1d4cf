// Warp votes (full warps): p = a[i] > 0. out[3i+0] = __ballot_sync(all, p) (bit L = p of lane L),
// out[3i+1] = __all_sync(all, p) ? 1 : 0, out[3i+2] = __any_sync(all, a[i] == 0) ? 1 : 0.
extern "C" __global__ void vote(unsigned *out, const int *a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int x = i < n ? a[i] : 1;
    unsigned b = __ballot_sync(0xffffffffu, x > 0);
    int all = __all_sync(0xffffffffu, x > 0);
    int any = __any_sync(0xffffffffu, x == 0);
    if (i < n) {
        out[3 * i + 0] = b;
        out[3 * i + 1] = all ? 1 : 0;
        out[3 * i + 2] = any ? 1 : 0;
    }
}
