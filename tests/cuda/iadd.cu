// 32-bit integer add/sub with wraparound: out[i] = a[i] + b[i], out[n+i] = a[i] - b[i].
extern "C" __global__ void iadd(int *out, const int *a, const int *b, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = a[i] + b[i];
        out[n + i] = a[i] - b[i];
    }
}
