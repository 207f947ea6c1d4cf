// Integer min/max/abs/sad: out[6i..] = min(a,b) signed, max(a,b) signed, min unsigned,
// max unsigned, abs(a) (wrapping for INT_MIN), __sad(a,b,7) = |a-b| + 7 (signed difference, mod 2^32).
extern "C" __global__ void iminmax(int *out, const int *a, const int *b, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        int x = a[i], y = b[i];
        out[6 * i + 0] = min(x, y);
        out[6 * i + 1] = max(x, y);
        out[6 * i + 2] = (int)umin((unsigned)x, (unsigned)y);
        out[6 * i + 3] = (int)umax((unsigned)x, (unsigned)y);
        out[6 * i + 4] = abs(x);
        out[6 * i + 5] = (int)__sad(x, y, 7u);
    }
}
