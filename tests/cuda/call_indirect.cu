// Indirect calls and recursion: ptxas compiles a call through a function pointer to
// `PRET` (the return point) and `BRX Ra` (a branch to the address the jump table in
// .nv.constant2 gives), divergent when lanes pick different functions; a recursive function
// grows its stack below the frame (the driver's 1 KiB stack limit).
// ops[k](x): ops[0] = 3x + 1, ops[1] = x ^ 0x55, ops[2] = x - 7 (wrapping), the table a
// __device__ array of function pointers. With x = a[i]:
// out[2i] = ops[(x & 0x7fffffff) % 3](x ^ i),
// out[2i+1] = rec(x, i % 12), rec(v, d): d == 0 -> v; v odd -> rec(v / 2, d - 1) + d;
//   else rec(v + d, d - 1) * 3 (wrapping; signed division truncating).
typedef int (*op_t)(int);
__device__ __noinline__ int op_a(int x) { return (int)((unsigned)x * 3u + 1u); }
__device__ __noinline__ int op_b(int x) { return x ^ 0x55; }
__device__ __noinline__ int op_c(int x) { return (int)((unsigned)x - 7u); }
__device__ op_t ops[3] = {op_a, op_b, op_c};
__device__ __noinline__ int rec(int v, int d) {
    if (d == 0) return v;
    if (v & 1) return (int)((unsigned)rec(v / 2, d - 1) + (unsigned)d);
    return (int)((unsigned)rec((int)((unsigned)v + (unsigned)d), d - 1) * 3u);
}
extern "C" __global__ void call_indirect(int *out, const int *a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int x = a[i];
    out[2 * i] = ops[(x & 0x7fffffff) % 3](x ^ i);
    out[2 * i + 1] = rec(x, i % 12);
}
