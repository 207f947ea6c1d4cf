extern "C" __global__ void hash(const unsigned *in, unsigned *out, unsigned key) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned h = in[i] ^ key;
    h ^= h >> 16; h *= 0x85ebca6bu; h ^= h >> 13; h *= 0xc2b2ae35u; h ^= h >> 16;
    h += 0x9e3779b9u;
    h ^= h >> 16; h *= 0x85ebca6bu; h ^= h >> 13;
    out[i] = h;
}
