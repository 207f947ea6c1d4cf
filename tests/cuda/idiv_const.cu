// Division and remainder by constants (compiled to multiply-high sequences).
// out[4i..4i+3] = a/7 (signed), a%7 (signed), (unsigned)a/10, (unsigned)a%1000.
extern "C" __global__ void idiv_const(int *out, const int *a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        int x = a[i];
        out[4 * i + 0] = x / 7;
        out[4 * i + 1] = x % 7;
        out[4 * i + 2] = (int)((unsigned)x / 10u);
        out[4 * i + 3] = (int)((unsigned)x % 1000u);
    }
}
