// Unsigned 32-bit division and remainder; divisor 0 yields 0xffffffff and the dividend.
extern "C" __global__ void idiv_unsigned(unsigned *out, const unsigned *a, const unsigned *b, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        unsigned x = a[i], y = b[i];
        out[2 * i] = y ? x / y : 0xffffffffu;
        out[2 * i + 1] = y ? x % y : x;
    }
}
