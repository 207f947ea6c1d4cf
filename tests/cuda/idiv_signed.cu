// Signed 32-bit division and remainder (C semantics: truncate toward zero, remainder takes the
// dividend's sign). Divisor 0 yields 0 for both; INT_MIN / -1 yields INT_MIN and remainder 0.
extern "C" __global__ void idiv_signed(int *out, const int *a, const int *b, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        int x = a[i], y = b[i];
        int q = 0, r = 0;
        if (y == -1) {
            q = (int)(0u - (unsigned)x);
            r = 0;
        } else if (y != 0) {
            q = x / y;
            r = x % y;
        }
        out[2 * i] = q;
        out[2 * i + 1] = r;
    }
}
