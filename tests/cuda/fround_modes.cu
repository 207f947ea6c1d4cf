// IEEE rounding-mode intrinsics and saturation (all bit exact): from x = a[i], y = b[i], z = c[i]:
// out[8i..] = __fadd_rz(x,y), __fadd_ru(x,y), __fadd_rd(x,y), __fmul_rz(x,y), __fmul_ru(x,y),
// __fmaf_rz(x,y,z), __fmaf_rd(x,y,z), __saturatef(x) (clamp to [0,1], NaN -> 0).
extern "C" __global__ void fround_modes(float *out, const float *a, const float *b, const float *c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float x = a[i], y = b[i], z = c[i];
    out[8 * i + 0] = __fadd_rz(x, y);
    out[8 * i + 1] = __fadd_ru(x, y);
    out[8 * i + 2] = __fadd_rd(x, y);
    out[8 * i + 3] = __fmul_rz(x, y);
    out[8 * i + 4] = __fmul_ru(x, y);
    out[8 * i + 5] = __fmaf_rz(x, y, z);
    out[8 * i + 6] = __fmaf_rd(x, y, z);
    out[8 * i + 7] = __saturatef(x);
}
