extern "C" __global__ void mandelbrot(int *out, float x0, float y0, float step, float w) {
    int px = blockIdx.x * blockDim.x + threadIdx.x;
    int py = blockIdx.y * blockDim.y + threadIdx.y;
    float cx = fmaf((float)px, step, x0), cy = fmaf((float)py, step, y0);
    float x = 0.0f, y = 0.0f;
    int n = 0;
    for (; n < 64; n++) {
        float xx = x * x, yy = y * y;
        if (4.0f < xx + yy) break;
        float xy = x * y;
        y = fmaf(xy, 2.0f, cy);
        x = (xx - yy) + cx;
    }
    out[py * (int)w + px] = n;
}
