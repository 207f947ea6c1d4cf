__device__ float cnd(float d) {
    float k = __fdividef(1.0f, fmaf(fabsf(d), 0.2316419f, 1.0f));
    float p = fmaf(k, 1.330274429f, -1.821255978f);
    p = fmaf(p, k, 1.781477937f);
    p = fmaf(p, k, -0.356563782f);
    p = fmaf(p, k, 0.31938153f);
    p = p * k;
    float e = exp2f(d * d * -0.5f * 1.44269504f) * 0.398942280f;
    float c = fmaf(e, -p, 1.0f);
    return d < 0.0f ? 1.0f - c : c;
}
extern "C" __global__ void blackscholes(const float *S, const float *K, const float *T, float *price, float r, float v) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float s = S[i], k = K[i], t = T[i];
    float l = __log2f(__fdividef(s, k)) * 0.69314718f;
    float vs = sqrtf(t) * v;
    float d1 = __fdividef(fmaf(fmaf(v * v, 0.5f, r), t, l), vs);
    float d2 = d1 - vs;
    float e = exp2f(r * t * -1.44269504f);
    float ke = k * e;
    price[i] = fmaf(s, cnd(d1), -(ke * cnd(d2)));
}
