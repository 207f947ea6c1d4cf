// 64-bit bit operations: from x = a[i] (u64): out[4i..] = __brevll(x), __clzll(x), __popcll(x),
// __ffsll(x) (1-based, 0 for 0), as u64.
extern "C" __global__ void brev64_clz64(unsigned long long *out, const unsigned long long *a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned long long x = a[i];
    out[4 * i + 0] = __brevll(x);
    out[4 * i + 1] = (unsigned long long)__clzll((long long)x);
    out[4 * i + 2] = (unsigned long long)__popcll(x);
    out[4 * i + 3] = (unsigned long long)__ffsll((long long)x);
}
