// Shifts with the amount taken modulo 32, plus funnel shifts and rotates.
// s = b & 31: out[5i+0] = a << s, out[5i+1] = (unsigned)a >> s, out[5i+2] = (signed)a >> s,
// out[5i+3] = rotate-left(a, s) (= __funnelshift_l(a, a, s)),
// out[5i+4] = __funnelshift_r(a, b, s) = low 32 bits of ((b:a) >> s).
extern "C" __global__ void shifts(unsigned *out, const unsigned *a, const unsigned *b, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        unsigned x = a[i], y = b[i], s = y & 31;
        out[5 * i + 0] = x << s;
        out[5 * i + 1] = x >> s;
        out[5 * i + 2] = (unsigned)((int)x >> s);
        out[5 * i + 3] = __funnelshift_l(x, x, s);
        out[5 * i + 4] = __funnelshift_r(x, y, s);
    }
}
