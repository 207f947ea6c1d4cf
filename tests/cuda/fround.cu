// Rounding to integral values: out[5i..] = floorf(a), ceilf(a), truncf(a), rintf(a) (ties to even),
// roundf(a) (ties away from zero).
extern "C" __global__ void fround(float *out, const float *a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float x = a[i];
        out[5 * i + 0] = floorf(x);
        out[5 * i + 1] = ceilf(x);
        out[5 * i + 2] = truncf(x);
        out[5 * i + 3] = rintf(x);
        out[5 * i + 4] = roundf(x);
    }
}
