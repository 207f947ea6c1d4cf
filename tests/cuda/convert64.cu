// 64-bit integer <-> float conversions: from x = a[i] (int64) and f = fa[i]:
// o[2i] = bits of (float)x (nearest), o[2i+1] = bits of (float)(unsigned long long)x;
// l[2i] = (long long)f (trunc, saturating), l[2i+1] = (long long)(unsigned long long)fabsf(f).
extern "C" __global__ void convert64(int *o, long long *l, const long long *a, const float *fa, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        long long x = a[i];
        float f = fa[i];
        o[2 * i] = __float_as_int((float)x);
        o[2 * i + 1] = __float_as_int((float)(unsigned long long)x);
        l[2 * i] = (long long)f;
        l[2 * i + 1] = (long long)(unsigned long long)fabsf(f);
    }
}
