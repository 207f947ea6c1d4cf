// fminf/fmaxf (NaN-ignoring as C99), fabsf, negation, copysign:
// out[5i..] = fminf(a,b), fmaxf(a,b), fabsf(a), -a, copysignf(a,b).
extern "C" __global__ void fminmax(float *out, const float *a, const float *b, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float x = a[i], y = b[i];
        out[5 * i + 0] = fminf(x, y);
        out[5 * i + 1] = fmaxf(x, y);
        out[5 * i + 2] = fabsf(x);
        out[5 * i + 3] = -x;
        out[5 * i + 4] = copysignf(x, y);
    }
}
