// 64-bit global atomics. acc[0..5] must start as {0, 0xffffffffffffffff, 0, 0xffffffffffffffff, 0, 0}.
// For every thread i < n with x = a[i] (u64): atomicAdd(acc[0], x), atomicMin(acc[1], x) (unsigned),
// atomicMax(acc[2], x) (unsigned), atomicAnd(acc[3], x), atomicOr(acc[4], x), CAS loop adding
// (x & 0xffff) to acc[5]. Final: sum, umin, umax, AND, OR of all x; acc[5] = sum (x & 0xffff).
// old[i] = atomicExch(&slot[i], x) returns slot's initial value.
extern "C" __global__ void atomic_global64(unsigned long long *acc, unsigned long long *old,
                                           unsigned long long *slot, const unsigned long long *a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned long long x = a[i];
    atomicAdd(&acc[0], x);
    atomicMin(&acc[1], x);
    atomicMax(&acc[2], x);
    atomicAnd(&acc[3], x);
    atomicOr(&acc[4], x);
    unsigned long long cur = acc[5], prev;
    do {
        prev = cur;
        cur = atomicCAS(&acc[5], prev, prev + (x & 0xffffull));
    } while (cur != prev);
    old[i] = atomicExch(&slot[i], x);
}
