extern "C" __global__ void transpose(const float *in, float *out, int n) {
    __shared__ float t[16][17];
    int tx = threadIdx.x, ty = threadIdx.y;
    int x = blockIdx.x * 16 + tx, y = blockIdx.y * 16 + ty;
    t[ty][tx] = in[y * n + x];
    __syncthreads();
    int ox = blockIdx.y * 16 + tx, oy = blockIdx.x * 16 + ty;
    out[oy * n + ox] = t[tx][ty];
}
