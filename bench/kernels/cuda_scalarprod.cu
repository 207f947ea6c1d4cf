#define ACCUM_N 1024

extern "C" __global__ void cuda_scalarprod(float *d_C, const float *d_A, const float *d_B, int vectorN, int elementN, int groups) {
    // groups (= gridDim.x) only mirrors the IL side, which reads it from cb0
    __shared__ float accumResult[ACCUM_N];
    for (int vec = blockIdx.x; vec < vectorN; vec += gridDim.x) {
        int vectorBase = elementN * vec;
        int vectorEnd = vectorBase + elementN;
        for (int iAccum = threadIdx.x; iAccum < ACCUM_N; iAccum += blockDim.x) {
            float sum = 0;
            for (int pos = vectorBase + iAccum; pos < vectorEnd; pos += ACCUM_N)
                sum += d_A[pos] * d_B[pos];
            accumResult[iAccum] = sum;
        }
        for (int stride = ACCUM_N / 2; stride > 0; stride >>= 1) {
            __syncthreads();
            for (int iAccum = threadIdx.x; iAccum < stride; iAccum += blockDim.x)
                accumResult[iAccum] += accumResult[stride + iAccum];
        }
        __syncthreads();
        if (threadIdx.x == 0)
            d_C[vec] = accumResult[0];
        __syncthreads();
    }
}
