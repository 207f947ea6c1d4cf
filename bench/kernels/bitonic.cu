extern "C" __global__ void bitonic(unsigned *keys, unsigned j, unsigned k) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned p = i ^ j;
    if (i < p) {
        unsigned a = keys[i], b = keys[p];
        bool up = (i & k) == 0;
        if (up ? (b < a) : (a < b)) { keys[i] = b; keys[p] = a; }
    }
}
