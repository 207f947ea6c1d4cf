extern "C" __global__ void divergent(const int *in, int *out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int x = in[i], r;
    if (x < 0) {
        r = -x;
    } else if (x < 100) {
        r = x * 3;
    } else if (x & 1) {
        r = x;
        for (int k = x & 15; k != 0; k--) r += 7;
    } else {
        r = x >> 1;
    }
    out[i] = r;
}
