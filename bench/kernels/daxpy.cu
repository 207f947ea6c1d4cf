extern "C" __global__ void daxpy(const double *x, double *y, double a) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    y[i] = fma(a, x[i], y[i]);
}
