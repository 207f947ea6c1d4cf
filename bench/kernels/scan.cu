extern "C" __global__ void scan(const int *in, int *out) {
    __shared__ int s[64];
    unsigned t = threadIdx.x;
    unsigned i = blockIdx.x * blockDim.x + t;
    s[t] = in[i];
    __syncthreads();
    for (unsigned k = 1; k < 64; k <<= 1) {
        int v = 0;
        if (t >= k) v = s[t - k];
        __syncthreads();
        s[t] = s[t] + v;
        __syncthreads();
    }
    out[i] = s[t];
}
