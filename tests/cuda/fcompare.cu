// Float comparisons and classification, as 0/1 ints: out[6i..] = a<b, a<=b, a==b, a!=b (true for NaN),
// isnan(a), isinf(a).
extern "C" __global__ void fcompare(int *out, const float *a, const float *b, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float x = a[i], y = b[i];
        out[6 * i + 0] = x < y;
        out[6 * i + 1] = x <= y;
        out[6 * i + 2] = x == y;
        out[6 * i + 3] = x != y;
        out[6 * i + 4] = isnan(x) ? 1 : 0;
        out[6 * i + 5] = isinf(x) ? 1 : 0;
    }
}
