// A non-inlined device function called under divergence, with early returns inside it.
// walk(v, k): s = v; for j in 0..k { if s & 1 == 0 and s > 1000 return s - j;  s = s * 3 + 1 (wrapping);
//   if s % 7 == 0 return -s; }; return s ^ k.  With x = a[i], k = i % 5:
// out[2i] = x < 0 ? x : walk(x, k) (call only on the lanes with x >= 0),
// out[2i+1] = walk(x ^ i, 3) when i % 3 != 0, else 0 (a second call site under other divergence).
// out[2n+i] = x % 4 != 0 ? early(x, i) : 7, where early(v, j): v < 0 -> return j; t = v >> 3;
//   t odd -> return t + j; return v - j (branches, no loop).
// out[3n+i] = tag(x, i): a void function writing through a pointer, out[3n+i] = x * 3 when
//   x >= 0 (else left 0), then + 5 unless x & 8 (ptxas returns early with predicated RETs);
//   called when i % 2 == 0, else out[3n+i] = -1.
__device__ __noinline__ int walk(int v, int k) {
    int s = v;
    for (int j = 0; j < k; j++) {
        if ((s & 1) == 0 && s > 1000) return s - j;
        s = (int)((unsigned)s * 3u + 1u);
        if (s % 7 == 0) return -s;
    }
    return s ^ k;
}
__device__ __noinline__ int early(int v, int j) {
    if (v < 0) return j;
    int t = v >> 3;
    if (t & 1) return t + j;
    return v - j;
}
__device__ __noinline__ void tag(int *p, int v) {
    if (v < 0) return;
    *p = v * 3;
    if (v & 8) return;
    *p += 5;
}
extern "C" __global__ void call_divergent(int *out, const int *a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        int x = a[i];
        int r = x;
        if (x >= 0) r = walk(x, i % 5);
        out[2 * i] = r;
        int q = 0;
        if (i % 3 != 0) q = walk(x ^ i, 3);
        out[2 * i + 1] = q;
        out[2 * n + i] = (x % 4 != 0) ? early(x, i) : 7;
        if (i % 2 == 0) tag(&out[3 * n + i], x);
        else out[3 * n + i] = -1;
    }
}
