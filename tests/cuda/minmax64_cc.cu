// 64-bit min/max and sign tests through the condition code: ptxas compiles a 64-bit
// min/max to `IMNMX.XHI Rd.CC` on the high words and `IMNMX.U32.XLO` on the low words, and
// llabs's sign test to `I2I.S32.S32 RZ.CC, Rhi` + `CSETP.LT`. With x = a[i], y = b[i]
// (i64) and u = (u64)x, v = (u64)y:
// out[6i] = min(x, y), out[6i+1] = max(x, y), out[6i+2] = min(u, v), out[6i+3] = max(u, v),
// out[6i+4] = llabs(x) (wrapping: llabs(INT64_MIN) = INT64_MIN), out[6i+5] = x < 0 ? 1 : 2.
extern "C" __global__ void minmax64_cc(long long *out, const long long *a, const long long *b, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    long long x = a[i], y = b[i];
    unsigned long long u = (unsigned long long)x, v = (unsigned long long)y;
    out[6 * i] = min(x, y);
    out[6 * i + 1] = max(x, y);
    out[6 * i + 2] = (long long)min(u, v);
    out[6 * i + 3] = (long long)max(u, v);
    out[6 * i + 4] = llabs(x);
    out[6 * i + 5] = x < 0 ? 1 : 2;
}
