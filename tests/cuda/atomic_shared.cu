// Shared-memory atomics per block (block size 128): s[0] += x, s[1] = min, s[2] = max, s[3] ^= x,
// s[4] |= x, s[5] &= x, s[6] via CAS loop += (x & 15), s[7] = exch (only thread 0 writes i; final = block id).
// out[8*blockIdx.x + k] = s[k] after the block; x = a[i] for i < n, else 0 (still participates).
extern "C" __global__ void atomic_shared(int *out, const int *a, int n) {
    __shared__ int s[8];
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    if (t == 0) {
        s[0] = 0; s[1] = 0x7fffffff; s[2] = (int)0x80000000; s[3] = 0;
        s[4] = 0; s[5] = -1; s[6] = 0; s[7] = -1;
    }
    __syncthreads();
    int x = i < n ? a[i] : 0;
    atomicAdd(&s[0], x);
    atomicMin(&s[1], x);
    atomicMax(&s[2], x);
    atomicXor(&s[3], x);
    atomicOr(&s[4], x);
    atomicAnd(&s[5], x);
    int cur = s[6], prev;
    do {
        prev = cur;
        cur = atomicCAS(&s[6], prev, prev + (x & 15));
    } while (cur != prev);
    if (t == 0) atomicExch(&s[7], (int)blockIdx.x);
    __syncthreads();
    if (t < 8) out[8 * blockIdx.x + t] = s[t];
}
