#define NUM_STEPS 256
#define THREADBLOCK_SIZE 64
#define ELEMS_PER_THREAD (NUM_STEPS / THREADBLOCK_SIZE)
typedef double real;

__device__ inline real expiryCallValue(real S, real X, real vDt, int i) {
    real d = S * (real)exp2f((float)vDt * (float)(2 * i - NUM_STEPS)) - X;
    return (d > 0.0) ? d : 0.0;
}

extern "C" __global__ void cuda_binomial(const real *d_S, const real *d_X, const real *d_vDt, const real *d_puByDf,
                                         const real *d_pdByDf, real *d_CallValue) {
    __shared__ real call_exchange[THREADBLOCK_SIZE + 1];
    const int tid = threadIdx.x;
    const real S = d_S[blockIdx.x];
    const real X = d_X[blockIdx.x];
    const real vDt = d_vDt[blockIdx.x];
    const real puByDf = d_puByDf[blockIdx.x];
    const real pdByDf = d_pdByDf[blockIdx.x];
    real call[ELEMS_PER_THREAD + 1];
#pragma unroll
    for (int i = 0; i < ELEMS_PER_THREAD; ++i)
        call[i] = expiryCallValue(S, X, vDt, tid * ELEMS_PER_THREAD + i);
    if (tid == 0)
        call_exchange[THREADBLOCK_SIZE] = expiryCallValue(S, X, vDt, NUM_STEPS);
    int final_it = max(0, tid * ELEMS_PER_THREAD - 1);
#pragma unroll 16
    for (int i = NUM_STEPS; i > 0; --i) {
        call_exchange[tid] = call[0];
        __syncthreads();
        call[ELEMS_PER_THREAD] = call_exchange[tid + 1];
        __syncthreads();
        if (i > final_it) {
#pragma unroll
            for (int j = 0; j < ELEMS_PER_THREAD; ++j)
                call[j] = puByDf * call[j + 1] + pdByDf * call[j];
        }
    }
    if (tid == 0)
        d_CallValue[blockIdx.x] = call[0];
}
