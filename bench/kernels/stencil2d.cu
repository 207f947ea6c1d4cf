extern "C" __global__ void stencil2d(const float *in, float *out, int w) {
    int x = blockIdx.x * blockDim.x + threadIdx.x + 1;
    int y = blockIdx.y * blockDim.y + threadIdx.y + 1;
    int c = y * w + x;
    float s = in[c + w] + in[c - w];
    s = s + in[c - 1];
    s = s + in[c + 1];
    out[c] = fmaf(s, -0.25f, in[c]);
}
