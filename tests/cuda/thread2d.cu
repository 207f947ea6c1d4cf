// 2D thread indexing: x = blockIdx.x*blockDim.x + threadIdx.x, y likewise; for x < w, y < h:
// out[y*w + x] = in[y*w + x] * 2 + x * 1000 + y (wrapping). Block 16x8, grid covers w x h.
extern "C" __global__ void thread2d(int *out, const int *in, int w, int h) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < w && y < h) out[y * w + x] = in[y * w + x] * 2 + x * 1000 + y;
}
