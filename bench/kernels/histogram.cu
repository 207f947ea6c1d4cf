extern "C" __global__ void histogram(const unsigned *in, unsigned *hist) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    atomicAdd(&hist[in[i] & 255u], 1u);
}
