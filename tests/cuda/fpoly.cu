// Horner polynomial with explicit fmaf (bit-reproducible): p(x) = ((((0.5x + -1.25)x + 2)x + -0.75)x + 3),
// each step fmaf(acc, x, c); out[i] = p(a[i]); out[n+i] = (float)i * 0.125f + a[i] (fmaf).
extern "C" __global__ void fpoly(float *out, const float *a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float x = a[i];
    float p = 0.5f;
    p = fmaf(p, x, -1.25f);
    p = fmaf(p, x, 2.0f);
    p = fmaf(p, x, -0.75f);
    p = fmaf(p, x, 3.0f);
    out[i] = p;
    out[n + i] = fmaf((float)i, 0.125f, x);
}
