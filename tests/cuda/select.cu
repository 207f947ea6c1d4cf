// Predicates and selects: out[i] = (a < b && b != 7) ? a*3 : ((a ^ b) & 1 ? b : a + b),
// then out[n+i] = (a > 0 || b < 0) ? 1 : -1 (all signed, wrapping).
extern "C" __global__ void select(int *out, const int *a, const int *b, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        int x = a[i], y = b[i];
        out[i] = (x < y && y != 7) ? x * 3 : (((x ^ y) & 1) ? y : x + y);
        out[n + i] = (x > 0 || y < 0) ? 1 : -1;
    }
}
