extern "C" __global__ void scale4(const float4 *x, float4 *y, float4 s, float4 o) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float4 v = x[i];
    y[i] = make_float4(fmaf(v.x, s.x, o.x), fmaf(v.y, s.y, o.y), fmaf(v.z, s.z, o.z), fmaf(v.w, s.w, o.w));
}
