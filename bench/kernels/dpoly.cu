extern "C" __global__ void dpoly(const double *x, double *out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    double v = x[i];
    double p = fma(1.0 / 720.0, v, 1.0 / 120.0);
    p = fma(p, v, 1.0 / 24.0);
    p = fma(p, v, 1.0 / 6.0);
    p = fma(p, v, 0.5);
    p = fma(p, v, 1.0);
    p = fma(p, v, 1.0);
    out[i] = p / fma(v, v, 1.0);
}
