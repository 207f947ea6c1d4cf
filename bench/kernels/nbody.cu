extern "C" __global__ void nbody(const float4 *pos, float4 *acc, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float4 p = pos[i];
    float ax = 0.0f, ay = 0.0f, az = 0.0f;
    for (int j = 0; j < n; j++) {
        float4 q = pos[j];
        float dx = q.x - p.x, dy = q.y - p.y, dz = q.z - p.z;
        float d2 = fmaf(dz, dz, fmaf(dy, dy, fmaf(dx, dx, 0.01f)));
        float inv = rsqrtf(d2);
        float s = inv * inv * inv * q.w;
        ax = fmaf(dx, s, ax); ay = fmaf(dy, s, ay); az = fmaf(dz, s, az);
    }
    acc[i] = make_float4(ax, ay, az, 0.0f);
}
