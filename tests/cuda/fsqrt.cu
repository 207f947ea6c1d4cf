// Square roots: out[3i..] = sqrtf(a) (correctly rounded), rsqrtf(a) (approx, 2 ulp),
// __fsqrt_rn(a) * 2 (correctly rounded sqrt, then exact doubling).
extern "C" __global__ void fsqrt(float *out, const float *a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float x = a[i];
        out[3 * i + 0] = sqrtf(x);
        out[3 * i + 1] = rsqrtf(x);
        out[3 * i + 2] = __fsqrt_rn(x) * 2.0f;
    }
}
