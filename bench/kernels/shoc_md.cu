extern "C" __global__ void shoc_md(float4 *__restrict__ force3, const float4 *__restrict__ position, const int *__restrict__ neighList,
                                   float cutsq, float lj1, float lj2, int neighCount, int inum) {
    unsigned idx = blockIdx.x * blockDim.x + threadIdx.x;
    float4 ipos = position[idx];
    float4 f = {0.0f, 0.0f, 0.0f, 0.0f};
    int j = 0;
    while (j < neighCount) {
        int jidx = neighList[j * inum + idx];
        float4 jpos = position[jidx];
        float delx = ipos.x - jpos.x;
        float dely = ipos.y - jpos.y;
        float delz = ipos.z - jpos.z;
        float r2inv = delx * delx + dely * dely + delz * delz;
        if (r2inv < cutsq) {
            r2inv = __fdividef(1.0f, r2inv);
            float r6inv = r2inv * r2inv * r2inv;
            float forceC = r2inv * r6inv * (lj1 * r6inv - lj2);
            f.x += delx * forceC;
            f.y += dely * forceC;
            f.z += delz * forceC;
        }
        j++;
    }
    force3[idx] = f;
}
