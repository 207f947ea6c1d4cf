// Divergent if/else on the thread index: odd threads compute a*a - 1, even threads a + 100 (when
// a >= 0) or -a (when a < 0); all wrapping.
extern "C" __global__ void branch_divergent(int *out, const int *a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int x = a[i];
    int r;
    if (threadIdx.x & 1) {
        r = x * x - 1;
    } else if (x >= 0) {
        r = x + 100;
    } else {
        r = -x;
    }
    out[i] = r;
}
