// __device__ variables: initialised tables (.nv.global.init) and a zero-initialised scratch array
// (.nv.global), whose addresses ptxas puts into constant bank 4 through relocations.
// For i < n with x = a[i]: scratch[i] = x * 2; out[i] = scratch[i] + (int)dtab[x & 3] * 10 + itab[(unsigned)x % 3]
// where dtab = {1.5, 2.5, 3.5, 4.5} ((int) truncates: 1, 2, 3, 4) and itab = {7, 8, 9}; all wrapping.
__device__ double dtab[4] = {1.5, 2.5, 3.5, 4.5};
__device__ int itab[3] = {7, 8, 9};
__device__ int scratch[256];
extern "C" __global__ void device_globals(int *out, const int *a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n || i >= 256) return;
    int x = a[i];
    scratch[i] = x * 2;
    __threadfence();
    out[i] = scratch[i] + (int)dtab[x & 3] * 10 + itab[(unsigned)x % 3u];
}
