// SAXPY: y[i] = alpha * x[i] + y[i] for i < n (contracted to one fused multiply-add, as ptxas does).
extern "C" __global__ void saxpy(float *y, const float *x, float alpha, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = fmaf(alpha, x[i], y[i]);
}
