// Bitfield extract/insert and byte permute.
// off = b & 15, len = 1 + ((b >> 4) & 15), mask = (1 << len) - 1:
// out[4i+0] = (a >> off) & mask                          (unsigned extract)
// out[4i+1] = sign-extend the len-bit field (a >> off)   (signed extract)
// out[4i+2] = (a & ~(mask << off)) | ((b & mask) << off)  (insert low bits of b)
// out[4i+3] = __byte_perm(a, b, 0x3715)
extern "C" __global__ void bitfield(unsigned *out, const unsigned *a, const unsigned *b, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        unsigned x = a[i], y = b[i];
        unsigned off = y & 15, len = 1 + ((y >> 4) & 15);
        unsigned mask = (1u << len) - 1u;
        unsigned field = (x >> off) & mask;
        out[4 * i + 0] = field;
        out[4 * i + 1] = (unsigned)(((int)(field << (32 - len))) >> (32 - len));
        out[4 * i + 2] = (x & ~(mask << off)) | ((y & mask) << off);
        out[4 * i + 3] = __byte_perm(x, y, 0x3715);
    }
}
