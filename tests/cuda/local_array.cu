// Local memory: a 32-entry per-thread array with dynamic indexing.
// t[j] = a[i] * j + j*j for j < 32 (wrapping); then for k < 8: idx = (a[i] + k*5) & 31, t[idx] ^= k;
// out[i] = t[a[i] & 31] + t[(a[i] >> 5) & 31] (wrapping).
extern "C" __global__ void local_array(int *out, const int *a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int x = a[i];
    int t[32];
    for (int j = 0; j < 32; j++) t[j] = x * j + j * j;
    for (int k = 0; k < 8; k++) t[(x + k * 5) & 31] ^= k;
    out[i] = t[x & 31] + t[(x >> 5) & 31];
}
