// Precise libdevice transcendentals (range reduction + polynomials):
// out[5i..] = sinf(a), cosf(a), exp2f(a), log2f(|a|+1), expf(a). Max error 2 ulp (CUDA docs).
extern "C" __global__ void ftrans_precise(float *out, const float *a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float x = a[i];
        out[5 * i + 0] = sinf(x);
        out[5 * i + 1] = cosf(x);
        out[5 * i + 2] = exp2f(x);
        out[5 * i + 3] = log2f(fabsf(x) + 1.0f);
        out[5 * i + 4] = expf(x);
    }
}
