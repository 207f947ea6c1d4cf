// Double rounding, min/max, abs/neg and rounding-mode arithmetic (bit exact): from x = a[i], y = b[i]:
// out[8i..] = floor(x), ceil(x), trunc(x), rint(x) (ties to even), fmin(x,y), -fabs(x),
// __dadd_rz(x,y), __dmul_ru(x,y).
extern "C" __global__ void dround(double *out, const double *a, const double *b, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    double x = a[i], y = b[i];
    out[8 * i + 0] = floor(x);
    out[8 * i + 1] = ceil(x);
    out[8 * i + 2] = trunc(x);
    out[8 * i + 3] = rint(x);
    out[8 * i + 4] = fmin(x, y);
    out[8 * i + 5] = -fabs(x);
    out[8 * i + 6] = __dadd_rz(x, y);
    out[8 * i + 7] = __dmul_ru(x, y);
}
