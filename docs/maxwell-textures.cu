extern "C" __global__ void texobj(float *out, cudaTextureObject_t t, cudaTextureObject_t t1, int w, int h) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < w && y < h) {
        float4 v = tex2D<float4>(t, x + 0.5f, y + 0.5f);
        float s = tex1Dfetch<float>(t1, x);
        float l = tex2DLod<float>(t1, x * 0.1f, y * 0.1f, 0.0f);
        out[y * w + x] = v.x + v.y * 2.0f + v.z + v.w + s + l;
    }
}
