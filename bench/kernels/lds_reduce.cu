extern "C" __global__ void lds_reduce(const float *in, float *out) {
    __shared__ float s[128];
    unsigned t = threadIdx.x;
    s[t] = in[blockIdx.x * blockDim.x + t];
    __syncthreads();
    for (unsigned k = 64; k != 0; k >>= 1) {
        if (t < k) s[t] = s[t] + s[t + k];
        __syncthreads();
    }
    if (t == 0) out[blockIdx.x] = s[0];
}
