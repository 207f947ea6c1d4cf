// 1D 5-point stencil with a shared-memory halo (block 128): out[i] = in[i-2] + 2*in[i-1] + 4*in[i]
// + 2*in[i+1] + in[i+2] (wrapping i32), with in[j] = 0 outside 0..n.
#define R 2
#define B 128
extern "C" __global__ void stencil1d(int *out, const int *in, int n) {
    __shared__ int s[B + 2 * R];
    int i = blockIdx.x * B + threadIdx.x;
    int t = threadIdx.x + R;
    s[t] = i < n ? in[i] : 0;
    if (threadIdx.x < R) {
        int l = i - R, r = i + B;
        s[t - R] = l >= 0 && l < n ? in[l] : 0;
        s[t + B] = r < n ? in[r] : 0;
    }
    __syncthreads();
    if (i < n) out[i] = s[t - 2] + 2 * s[t - 1] + 4 * s[t] + 2 * s[t + 1] + s[t + 2];
}
