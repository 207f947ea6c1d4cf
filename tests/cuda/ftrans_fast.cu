// Fast (MUFU-based) transcendentals: out[5i..] = __sinf(a), __cosf(a), exp2 via __expf(a*ln2)
// i.e. __expf(a), __log2f(a), __logf(a). Tolerance: absolute 2^-21.41 for sin/cos on [-pi,pi],
// 2 + 1.16*|a| ulp for __expf, 2^-22 abs/2 ulp for __log2f/__logf.
extern "C" __global__ void ftrans_fast(float *out, const float *a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float x = a[i];
        out[5 * i + 0] = __sinf(x);
        out[5 * i + 1] = __cosf(x);
        out[5 * i + 2] = __expf(x);
        out[5 * i + 3] = __log2f(fabsf(x) + 1.0f);
        out[5 * i + 4] = __logf(fabsf(x) + 1.0f);
    }
}
