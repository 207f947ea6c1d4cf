// Nested loops with data-dependent trip counts: out[i] = sum over r < (a & 7), c < (a >> 3 & 7)
// of (r * 8 + c) ^ i (wrapping), plus 1000 * number of iterations of the inner body.
extern "C" __global__ void loop_nested(int *out, const int *a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int x = a[i];
    int rows = x & 7, cols = (x >> 3) & 7;
    int s = 0, iters = 0;
    for (int r = 0; r < rows; r++) {
        for (int c = 0; c < cols; c++) {
            s += (r * 8 + c) ^ i;
            iters++;
        }
    }
    out[i] = s + 1000 * iters;
}
