// Double conversions: from d = a[i]:
// f[i] = (float)d (round to nearest); l[3i] = (long long)d (trunc, saturating), l[3i+1] = (int)d
// (trunc, saturating, sign-extended to 64), l[3i+2] = (long long)(double)(int)(l of d) round trip:
// (long long)((double)(long long)d * 0.5); dd[2i] = (double)(float)d, dd[2i+1] = (double)(unsigned)(int)d.
extern "C" __global__ void dconvert(float *f, long long *l, double *dd, const double *a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        double d = a[i];
        f[i] = (float)d;
        long long q = (long long)d;
        l[3 * i + 0] = q;
        l[3 * i + 1] = (long long)(int)d;
        l[3 * i + 2] = (long long)((double)q * 0.5);
        dd[2 * i] = (double)(float)d;
        dd[2 * i + 1] = (double)(unsigned)(int)d;
    }
}
