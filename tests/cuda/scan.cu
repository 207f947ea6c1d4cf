// Block-wide inclusive prefix sum (Hillis-Steele, double-buffered in shared memory), block 256:
// out[i] = sum of a[blockIdx.x*256 .. i] (wrapping i32); elements at index >= n count as 0 and are not stored.
extern "C" __global__ void scan(int *out, const int *a, int n) {
    __shared__ int buf[2][256];
    int t = threadIdx.x;
    int i = blockIdx.x * 256 + t;
    int cur = 0;
    buf[0][t] = i < n ? a[i] : 0;
    __syncthreads();
    for (int off = 1; off < 256; off <<= 1) {
        int v = buf[cur][t];
        if (t >= off) v += buf[cur][t - off];
        buf[cur ^ 1][t] = v;
        cur ^= 1;
        __syncthreads();
    }
    if (i < n) out[i] = buf[cur][t];
}
