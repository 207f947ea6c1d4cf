extern "C" __global__ void poly_gesummv(const float4 *a, const float4 *b, const float4 *x, float *y,
                                        float alpha, float beta, unsigned n4, unsigned rows) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < rows) {
        float t = 0.0f, s = 0.0f;
        for (unsigned j = 0; j < n4; j++) {
            float4 v = x[j], p = a[i * n4 + j], q = b[i * n4 + j];
            t += p.x * v.x + p.y * v.y + p.z * v.z + p.w * v.w;
            s += q.x * v.x + q.y * v.y + q.z * v.z + q.w * v.w;
        }
        y[i] = alpha * t + beta * s;
    }
}
