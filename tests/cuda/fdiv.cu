// Single-precision division: out[2i] = a/b correctly rounded (IEEE), out[2i+1] = __fdividef(a,b)
// (approximate, within 2 ulp for |b| in [2^-126, 2^126]).
extern "C" __global__ void fdiv(float *out, const float *a, const float *b, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float x = a[i], y = b[i];
        out[2 * i] = x / y;
        out[2 * i + 1] = __fdividef(x, y);
    }
}
