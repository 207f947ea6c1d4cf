// 64-bit division and remainder (ptxas calls an internal subroutine): from x = a[i], y = b[i] (i64):
// out[4i+0] = x / y, out[4i+1] = x % y (signed, truncating; y == 0 gives 0 and 0; y == -1 gives
// -x wrapping and 0); out[4i+2] = (u64)x / (u64)y, out[4i+3] = (u64)x % (u64)y (y == 0 gives
// all-ones and x).
extern "C" __global__ void int64_divrem(long long *out, const long long *a, const long long *b, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    long long x = a[i], y = b[i];
    long long q = 0, r = 0;
    if (y == -1) {
        q = (long long)(0ull - (unsigned long long)x);
    } else if (y != 0) {
        q = x / y;
        r = x % y;
    }
    unsigned long long ux = (unsigned long long)x, uy = (unsigned long long)y;
    out[4 * i + 0] = q;
    out[4 * i + 1] = r;
    out[4 * i + 2] = (long long)(uy ? ux / uy : ~0ull);
    out[4 * i + 3] = (long long)(uy ? ux % uy : ux);
}
