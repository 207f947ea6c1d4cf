// Integer hashing: out[2i] = murmur3 fmix32(a[i] ^ seed); out[2i+1] = 8 rounds of xorshift32 starting
// from (a[i] | 1): x ^= x << 13; x ^= x >> 17; x ^= x << 5.
extern "C" __global__ void hash(unsigned *out, const unsigned *a, unsigned seed, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned h = a[i] ^ seed;
    h ^= h >> 16;
    h *= 0x85ebca6bu;
    h ^= h >> 13;
    h *= 0xc2b2ae35u;
    h ^= h >> 16;
    out[2 * i] = h;
    unsigned x = a[i] | 1u;
    for (int r = 0; r < 8; r++) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
    }
    out[2 * i + 1] = x;
}
