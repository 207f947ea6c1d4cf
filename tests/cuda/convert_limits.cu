// Conversions at their limits (saturation, NaN, infinities, rounding modes, every width).
// From f = a[i] (f32), x = d[i] (f64), L = l[i] (i64); float-to-integer conversions saturate
// to the destination range and give 0 for NaN (PTX cvt rules):
// oi[12i+0..11] = (int)f, (int)(unsigned)f, __float2int_rn(f), __float2int_ru(f),
//   (int)__float2uint_rd(f), (int)x, (int)(unsigned)x, __double2int_rn(x),
//   (int)(short)f, (int)(unsigned short)f, (int)(signed char)f (NVVM converts to int, or to
//   unsigned for unsigned short, first, then wraps to the narrow type), (int)(short)L (wraps);
// ol[6i+0..5] = (long long)f, (long long)(unsigned long long)f, (long long)x,
//   (long long)(unsigned long long)x, __double2ll_rn(x), __float2ll_ru(f);
// of[8i+0..7] = bits of (float)L, __ll2float_rz(L), __ull2float_rd(L), (float)x,
//   __double2float_rz(x), __double2float_ru(x), __int2float_rz((int)L), __uint2float_ru((unsigned)L);
// od[4i+0..3] = bits of (double)L, __ll2double_rz(L), __ull2double_ru(L), (double)f.
extern "C" __global__ void convert_limits(int *oi, long long *ol, unsigned *of, unsigned long long *od,
                                          const float *a, const double *d, const long long *l, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float f = a[i];
        double x = d[i];
        long long L = l[i];
        oi[12 * i + 0] = (int)f;
        oi[12 * i + 1] = (int)(unsigned)f;
        oi[12 * i + 2] = __float2int_rn(f);
        oi[12 * i + 3] = __float2int_ru(f);
        oi[12 * i + 4] = (int)__float2uint_rd(f);
        oi[12 * i + 5] = (int)x;
        oi[12 * i + 6] = (int)(unsigned)x;
        oi[12 * i + 7] = __double2int_rn(x);
        oi[12 * i + 8] = (int)(short)f;
        oi[12 * i + 9] = (int)(unsigned short)f;
        oi[12 * i + 10] = (int)(signed char)f;
        oi[12 * i + 11] = (int)(short)L;
        ol[6 * i + 0] = (long long)f;
        ol[6 * i + 1] = (long long)(unsigned long long)f;
        ol[6 * i + 2] = (long long)x;
        ol[6 * i + 3] = (long long)(unsigned long long)x;
        ol[6 * i + 4] = __double2ll_rn(x);
        ol[6 * i + 5] = __float2ll_ru(f);
        of[8 * i + 0] = __float_as_uint((float)L);
        of[8 * i + 1] = __float_as_uint(__ll2float_rz(L));
        of[8 * i + 2] = __float_as_uint(__ull2float_rd((unsigned long long)L));
        of[8 * i + 3] = __float_as_uint((float)x);
        of[8 * i + 4] = __float_as_uint(__double2float_rz(x));
        of[8 * i + 5] = __float_as_uint(__double2float_ru(x));
        of[8 * i + 6] = __float_as_uint(__int2float_rz((int)L));
        of[8 * i + 7] = __float_as_uint(__uint2float_ru((unsigned)L));
        od[4 * i + 0] = (unsigned long long)__double_as_longlong((double)L);
        od[4 * i + 1] = (unsigned long long)__double_as_longlong(__ll2double_rz(L));
        od[4 * i + 2] = (unsigned long long)__double_as_longlong(__ull2double_ru((unsigned long long)L));
        od[4 * i + 3] = (unsigned long long)__double_as_longlong((double)f);
    }
}
