extern "C" __global__ void shoc_reduction(const float *__restrict__ g_idata, float *__restrict__ g_odata, const unsigned int n,
                                          const unsigned int gridSize) {
    const unsigned int blockSize = 256;
    const unsigned int tid = threadIdx.x;
    __shared__ float sdata[blockSize];
    unsigned int i = (blockIdx.x * (blockDim.x * 2)) + tid;
    float sum = 0.0f;
    while (i < n) {
        sum += g_idata[i] + g_idata[i + blockDim.x];
        i += gridSize;
    }
    sdata[tid] = sum;
    __syncthreads();
    for (unsigned int s = blockSize / 2; s > 0; s >>= 1) {
        if (tid < s)
            sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0)
        g_odata[blockIdx.x] = sdata[0];
}
