// Double arithmetic: out[5i..] = a+b, a*b, fma(a,b,c), a/b (correctly rounded), sqrt(|a|).
extern "C" __global__ void darith(double *out, const double *a, const double *b, const double *c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        double x = a[i], y = b[i], z = c[i];
        out[5 * i + 0] = x + y;
        out[5 * i + 1] = x * y;
        out[5 * i + 2] = fma(x, y, z);
        out[5 * i + 3] = x / y;
        out[5 * i + 4] = sqrt(fabs(x));
    }
}
