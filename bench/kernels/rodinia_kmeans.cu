__constant__ float4 c_clusters[32];

extern "C" __global__ void rodinia_kmeans(const float *features, int nf4, int npoints, int nclusters, int *membership) {
    unsigned point_id = blockIdx.x * blockDim.x + threadIdx.x;
    int index = -1;
    if (point_id < npoints) {
        float min_dist = 3.402823466e+38f;
        for (int i = 0; i < nclusters; i++) {
            float ans = 0.0f;
            for (int j = 0; j < nf4; j++) {
                float4 c = c_clusters[i * nf4 + j];
                int addr = point_id + 4 * j * npoints;
                float dx = features[addr] - c.x;
                float dy = features[addr + npoints] - c.y;
                float dz = features[addr + 2 * npoints] - c.z;
                float dw = features[addr + 3 * npoints] - c.w;
                ans += dx * dx + dy * dy + dz * dz + dw * dw;
            }
            if (ans < min_dist) {
                min_dist = ans;
                index = i;
            }
        }
        membership[point_id] = index;
    }
}
