// 32-bit global atomics. acc[0..7] must start as {0, INT_MAX, INT_MIN, 0xffffffff, 0, 0, 0, 0}.
// Every thread i < n with x = a[i]: atomicAdd(acc[0], x), atomicMin(acc[1], x), atomicMax(acc[2], x),
// atomicAnd(acc[3], x), atomicOr(acc[4], x), atomicXor(acc[5], x), an atomicCAS retry loop adding
// (x & 0xff) to acc[6], and atomicAdd(acc[7], 1).
// Final: acc[0] = sum x, acc[1] = min x, acc[2] = max x, acc[3] = AND of x, acc[4] = OR, acc[5] = XOR,
// acc[6] = sum (x & 0xff), acc[7] = n. Also old[i] = atomicExch(&slot[i], x) returns slot's initial value.
extern "C" __global__ void atomic_global(int *acc, int *old, int *slot, const int *a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int x = a[i];
    atomicAdd(&acc[0], x);
    atomicMin(&acc[1], x);
    atomicMax(&acc[2], x);
    atomicAnd(&acc[3], x);
    atomicOr(&acc[4], x);
    atomicXor(&acc[5], x);
    int cur = acc[6], prev;
    do {
        prev = cur;
        cur = atomicCAS(&acc[6], prev, prev + (x & 0xff));
    } while (cur != prev);
    atomicAdd(&acc[7], 1);
    old[i] = atomicExch(&slot[i], x);
}
