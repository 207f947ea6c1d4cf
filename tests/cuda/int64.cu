// 64-bit integer arithmetic: out[6i..] = a+b, a-b, a*b, a>>(b&63) (signed), a<<(b&63),
// (unsigned)a / (b|1) (unsigned division by an odd divisor), all wrapping.
extern "C" __global__ void int64(long long *out, const long long *a, const long long *b, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        long long x = a[i], y = b[i];
        int s = (int)(y & 63);
        out[6 * i + 0] = x + y;
        out[6 * i + 1] = x - y;
        out[6 * i + 2] = (long long)((unsigned long long)x * (unsigned long long)y);
        out[6 * i + 3] = x >> s;
        out[6 * i + 4] = (long long)((unsigned long long)x << s);
        out[6 * i + 5] = (long long)((unsigned long long)x / ((unsigned long long)y | 1ull));
    }
}
