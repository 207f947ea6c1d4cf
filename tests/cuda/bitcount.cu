// Bit counting: out[5i..] = popc(a), clz(a), brev(a), ffs(a) (1-based, 0 for 0), popc of 64-bit (a:b).
extern "C" __global__ void bitcount(int *out, const unsigned *a, const unsigned *b, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        unsigned x = a[i];
        unsigned long long w = ((unsigned long long)x << 32) | b[i];
        out[5 * i + 0] = __popc(x);
        out[5 * i + 1] = __clz((int)x);
        out[5 * i + 2] = (int)__brev(x);
        out[5 * i + 3] = __ffs((int)x);
        out[5 * i + 4] = __popcll(w);
    }
}
