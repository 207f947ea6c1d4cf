// Vector loads/stores: o4[i] = int4(a.w, a.z+1, a.y*2, a.x^b.x) for a = a4[i], b = b2[i];
// o2[i] = int2(b.x + b.y, b.x - b.y); of[i] = float4(f.x+f.y, f.y*f.z, f.z-f.w, f.w) for f = f4[i].
extern "C" __global__ void vector_ldst(int4 *o4, int2 *o2, float4 *of, const int4 *a4, const int2 *b2,
                                       const float4 *f4, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        int4 a = a4[i];
        int2 b = b2[i];
        float4 f = f4[i];
        o4[i] = make_int4(a.w, a.z + 1, a.y * 2, a.x ^ b.x);
        o2[i] = make_int2(b.x + b.y, b.x - b.y);
        of[i] = make_float4(f.x + f.y, f.y * f.z, f.z - f.w, f.w);
    }
}
