// 32-bit multiplies: low product, signed and unsigned high halves, and multiply-add.
// out[4i+0] = a*b (wrapping), out[4i+1] = __mulhi(a,b), out[4i+2] = __umulhi(a,b),
// out[4i+3] = a*b + a (wrapping).
extern "C" __global__ void imul(int *out, const int *a, const int *b, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        int x = a[i], y = b[i];
        out[4 * i + 0] = x * y;
        out[4 * i + 1] = __mulhi(x, y);
        out[4 * i + 2] = (int)__umulhi((unsigned)x, (unsigned)y);
        out[4 * i + 3] = x * y + x;
    }
}
