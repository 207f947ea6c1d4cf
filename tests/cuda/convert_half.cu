// Half-precision conversions through inline PTX (no headers needed): from f = a[i]:
// h = cvt.rn.f16.f32(f) (round to nearest even, overflow to inf, NaN stays NaN);
// out[2i] = bits of h (low 16 bits, zero-extended); out[2i+1] = bits of (float)h (exact widening).
extern "C" __global__ void convert_half(unsigned *out, const float *a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned short h;
    float back;
    asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(a[i]));
    asm("cvt.f32.f16 %0, %1;" : "=f"(back) : "h"(h));
    out[2 * i] = h;
    out[2 * i + 1] = __float_as_uint(back);
}
