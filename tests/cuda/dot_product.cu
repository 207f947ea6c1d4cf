// Float dot product partials: block 256; each block reduces x[i]*y[i] over its 256 elements in shared memory
// with the tree order of reduce_shared (pairs (t, t+s) for s = 128, 64, ..., 1, each a plain IEEE add of
// round-to-nearest products __fmul_rn(x,y)); out[blockIdx.x] = the block's sum. Missing elements (>= n) are 0.
extern "C" __global__ void dot_product(float *out, const float *x, const float *y, int n) {
    __shared__ float buf[256];
    int t = threadIdx.x;
    int i = blockIdx.x * 256 + t;
    buf[t] = i < n ? __fmul_rn(x[i], y[i]) : 0.0f;
    __syncthreads();
    for (int s = 128; s > 0; s >>= 1) {
        if (t < s) buf[t] = __fadd_rn(buf[t], buf[t + s]);
        __syncthreads();
    }
    if (t == 0) out[blockIdx.x] = buf[0];
}
