// 32-bit conversions. From f = fa[i] and x = ia[i]:
// o[8i+0] = (int)f (trunc toward zero, saturating, NaN -> 0), o[8i+1] = (unsigned)fabsf(f) (trunc, saturating),
// o[8i+2] = __float2int_rn(f) (nearest even), o[8i+3] = __float2int_rd(f) (floor),
// o[8i+4] = bits of (float)x (signed, nearest), o[8i+5] = bits of (float)(unsigned)x,
// o[8i+6] = (int)(signed char)x, o[8i+7] = (int)(unsigned short)x.
extern "C" __global__ void convert(int *o, const float *fa, const int *ia, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float f = fa[i];
        int x = ia[i];
        o[8 * i + 0] = (int)f;
        o[8 * i + 1] = (int)(unsigned)fabsf(f);
        o[8 * i + 2] = __float2int_rn(f);
        o[8 * i + 3] = __float2int_rd(f);
        o[8 * i + 4] = __float_as_int((float)x);
        o[8 * i + 5] = __float_as_int((float)(unsigned)x);
        o[8 * i + 6] = (int)(signed char)x;
        o[8 * i + 7] = (int)(unsigned short)x;
    }
}
