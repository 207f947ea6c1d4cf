// Read-only cache loads (__ldg -> LDG.E.CI): out[i] = __ldg(&a[i]) * 3 + __ldg(&b[(i * 7) % n]) (wrapping)
// and fout[i] = __ldg(&f[i]) * 0.5f.
extern "C" __global__ void ldg(int *__restrict__ out, float *__restrict__ fout, const int *__restrict__ a,
                               const int *__restrict__ b, const float *__restrict__ f, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = __ldg(&a[i]) * 3 + __ldg(&b[(i * 7) % n]);
        fout[i] = __ldg(&f[i]) * 0.5f;
    }
}
