// 64-bit atomics on shared memory (Maxwell has only a 64-bit shared CAS; ptxas builds the rest as
// CAS loops) and 64-bit global XOR. Per block (block size 128): s[0] += x, s[1] = umax, s[2] ^= x,
// s[3] via explicit atomicCAS loop += (x >> 32); then out[4*blockIdx.x + k] = s[k]. Also
// atomicXor(&gx[0], x) across all threads (gx[0] must start 0). x = a[i] (u64) for i < n, else 0.
extern "C" __global__ void atomic_shared64(unsigned long long *out, unsigned long long *gx,
                                           const unsigned long long *a, int n) {
    __shared__ unsigned long long s[4];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (threadIdx.x < 4) s[threadIdx.x] = 0;
    __syncthreads();
    unsigned long long x = i < n ? a[i] : 0ull;
    atomicAdd(&s[0], x);
    atomicMax(&s[1], x);
    atomicXor(&s[2], x);
    unsigned long long cur = s[3], prev;
    do {
        prev = cur;
        cur = atomicCAS(&s[3], prev, prev + (x >> 32));
    } while (cur != prev);
    atomicXor(&gx[0], x);
    __syncthreads();
    if (threadIdx.x < 4) out[4 * blockIdx.x + threadIdx.x] = s[threadIdx.x];
}
