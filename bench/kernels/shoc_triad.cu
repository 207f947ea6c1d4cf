extern "C" __global__ void shoc_triad(float4 *g, float s, int offB, int offC) {
    int gid = threadIdx.x + (blockIdx.x * blockDim.x);
    float4 a = g[gid], b = g[gid + offB];
    g[gid + offC] = make_float4(a.x + s * b.x, a.y + s * b.y, a.z + s * b.z, a.w + s * b.w);
}
