extern "C" __global__ void bits(const unsigned *in, uint4 *out) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned x = in[i];
    unsigned hi = x ? 31u - __clz(x) : 0xffffffffu;
    hi = x ? 31u - hi : 0xffffffffu;
    unsigned e = (x >> 7) & 31u;
    unsigned mask = ((1u << 9) - 1u) << 3;
    unsigned ins = ((e << 3) & mask) | (x & ~mask);
    out[i] = make_uint4(__popc(x) + hi, hi, e, ins);
}
