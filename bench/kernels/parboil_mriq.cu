#define PIx2 6.2831853f

struct kValues {
    float Kx, Ky, Kz, PhiMag;
};
__constant__ kValues ck[64];

extern "C" __global__ void parboil_mriq(int numK, const float *x, const float *y, const float *z, float *Qr, float *Qi) {
    int xIndex = blockIdx.x * blockDim.x + threadIdx.x;
    float sX = x[xIndex], sY = y[xIndex], sZ = z[xIndex];
    float sQr = Qr[xIndex], sQi = Qi[xIndex];
    int kIndex = 0;
    if (numK % 2) {
        float expArg = PIx2 * (ck[0].Kx * sX + ck[0].Ky * sY + ck[0].Kz * sZ);
        sQr += ck[0].PhiMag * __cosf(expArg);
        sQi += ck[0].PhiMag * __sinf(expArg);
        kIndex++;
    }
    for (; kIndex < numK; kIndex += 2) {
        float expArg = PIx2 * (ck[kIndex].Kx * sX + ck[kIndex].Ky * sY + ck[kIndex].Kz * sZ);
        sQr += ck[kIndex].PhiMag * __cosf(expArg);
        sQi += ck[kIndex].PhiMag * __sinf(expArg);
        int kIndex1 = kIndex + 1;
        float expArg1 = PIx2 * (ck[kIndex1].Kx * sX + ck[kIndex1].Ky * sY + ck[kIndex1].Kz * sZ);
        sQr += ck[kIndex1].PhiMag * __cosf(expArg1);
        sQi += ck[kIndex1].PhiMag * __sinf(expArg1);
    }
    Qr[xIndex] = sQr;
    Qi[xIndex] = sQi;
}
