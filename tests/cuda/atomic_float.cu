// Float atomics: every thread i < n adds x = a[i] to acc[0] (global atomicAdd) and to a shared
// per-block sum that thread 0 then adds to acc[1]; acc[2] gets atomicExch-free max via CAS loop on
// the float bits (max of all x). Inputs are multiples of 0.25 in [-64, 64], so every partial sum is
// exact in f32 whatever the order: acc[0] = acc[1] = sum x, acc[2] = max x (acc must start 0, 0, -inf).
extern "C" __global__ void atomic_float(float *acc, const float *a, int n) {
    __shared__ float s;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (threadIdx.x == 0) s = 0.0f;
    __syncthreads();
    if (i < n) {
        float x = a[i];
        atomicAdd(&acc[0], x);
        atomicAdd(&s, x);
        int *p = (int *)&acc[2];
        int cur = *p, prev;
        while (__int_as_float(cur) < x) {
            prev = cur;
            cur = atomicCAS(p, prev, __float_as_int(x));
            if (cur == prev) break;
        }
    }
    __syncthreads();
    if (threadIdx.x == 0) atomicAdd(&acc[1], s);
}
