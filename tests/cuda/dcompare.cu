// Double comparisons and min/max: flags[i] = (a<b) | (a<=b)<<1 | (a==b)<<2 | (a>b)<<3 | isnan(a)<<4;
// mm[2i] = fmin(a,b), mm[2i+1] = fmax(a,b).
extern "C" __global__ void dcompare(int *flags, double *mm, const double *a, const double *b, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        double x = a[i], y = b[i];
        flags[i] = (x < y) | ((x <= y) << 1) | ((x == y) << 2) | ((x > y) << 3) | ((isnan(x) ? 1 : 0) << 4);
        mm[2 * i] = fmin(x, y);
        mm[2 * i + 1] = fmax(x, y);
    }
}
