// Uniform branch on a kernel parameter: mode 0 -> out = a*2, mode 1 -> out = a+k, otherwise out = a^k.
extern "C" __global__ void branch_uniform(int *out, const int *a, int mode, int k, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int x = a[i];
    if (mode == 0) {
        out[i] = x * 2;
    } else if (mode == 1) {
        out[i] = x + k;
    } else {
        out[i] = x ^ k;
    }
}
