extern "C" __global__ void poly_corr(const float *data, const float *mean, float *std, float float_n, float eps, int m, int n) {
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j < m) {
        float mu = mean[j], s = 0.0f;
        for (int i = 0; i < n; i++) {
            float d = data[i * m + j] - mu;
            s += d * d;
        }
        s = sqrtf(__fdividef(s, float_n));
        std[j] = s <= eps ? 1.0f : s;
    }
}
