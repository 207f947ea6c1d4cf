#define SIZE_X 32
#define SIZE_Y 32
#define SIZE_Z 16
#define N_CELLS (SIZE_X * SIZE_Y * SIZE_Z)
#define IDX(e, x, y, z) ((e) * N_CELLS + (x) + (y) * SIZE_X + (z) * SIZE_X * SIZE_Y)
#define DFL1 (1.0f / 3.0f)
#define DFL2 (1.0f / 18.0f)
#define DFL3 (1.0f / 36.0f)

// Relaxation of one distribution f towards its equilibrium w rho (1 + eu (4.5 eu + 3) - u2)
// (w carries omega rho).
__device__ __forceinline__ float relax(float f, float w, float eu, float om1, float u2) {
    return om1 * f + w * (eu * (eu * 4.5f + 3.0f) + 1.0f - u2);
}

// Velocity components divided with the approximate division the IL's `div` is.
extern "C" __global__ void parboil_lbm(const float *srcGrid, float *dstGrid, float omega) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    int z = blockIdx.z * blockDim.z + threadIdx.z;
    float fC = srcGrid[IDX(0, x, y, z)];
    float fE = srcGrid[IDX(1, x, y, z)];
    float fW = srcGrid[IDX(2, x, y, z)];
    float fN = srcGrid[IDX(3, x, y, z)];
    float fS = srcGrid[IDX(4, x, y, z)];
    float fT = srcGrid[IDX(5, x, y, z)];
    float fB = srcGrid[IDX(6, x, y, z)];
    float fNE = srcGrid[IDX(7, x, y, z)];
    float fNW = srcGrid[IDX(8, x, y, z)];
    float fSE = srcGrid[IDX(9, x, y, z)];
    float fSW = srcGrid[IDX(10, x, y, z)];
    float fET = srcGrid[IDX(11, x, y, z)];
    float fWT = srcGrid[IDX(12, x, y, z)];
    float fEB = srcGrid[IDX(13, x, y, z)];
    float fWB = srcGrid[IDX(14, x, y, z)];
    float fNT = srcGrid[IDX(15, x, y, z)];
    float fST = srcGrid[IDX(16, x, y, z)];
    float fNB = srcGrid[IDX(17, x, y, z)];
    float fSB = srcGrid[IDX(18, x, y, z)];
    float rho = fC + fE + fW + fN + fS + fT + fB + fNE + fNW + fSE + fSW + fET + fWT + fEB + fWB + fNT + fST + fNB + fSB;
    float ux = fE - fW + fNE - fNW + fSE - fSW + fET - fWT + fEB - fWB;
    float uy = fN - fS + fNE - fSE + fNW - fSW + fNT - fST + fNB - fSB;
    float uz = fT - fB + fET - fEB + fWT - fWB + fNT - fNB + fST - fSB;
    ux = __fdividef(ux, rho);
    uy = __fdividef(uy, rho);
    uz = __fdividef(uz, rho);
    float u2 = 1.5f * (ux * ux + uy * uy + uz * uz);
    float om1 = 1.0f - omega;
    float orho = omega * rho;
    float w1 = DFL1 * orho, w2 = DFL2 * orho, w3 = DFL3 * orho;
    int xp = (x + 1) & (SIZE_X - 1), xm = (x - 1) & (SIZE_X - 1);
    int yp = (y + 1) & (SIZE_Y - 1), ym = (y - 1) & (SIZE_Y - 1);
    int zp = (z + 1) & (SIZE_Z - 1), zm = (z - 1) & (SIZE_Z - 1);
    dstGrid[IDX(0, x, y, z)] = om1 * fC + w1 * (1.0f - u2);
    dstGrid[IDX(1, xp, y, z)] = relax(fE, w2, ux, om1, u2);
    dstGrid[IDX(2, xm, y, z)] = relax(fW, w2, -ux, om1, u2);
    dstGrid[IDX(3, x, yp, z)] = relax(fN, w2, uy, om1, u2);
    dstGrid[IDX(4, x, ym, z)] = relax(fS, w2, -uy, om1, u2);
    dstGrid[IDX(5, x, y, zp)] = relax(fT, w2, uz, om1, u2);
    dstGrid[IDX(6, x, y, zm)] = relax(fB, w2, -uz, om1, u2);
    dstGrid[IDX(7, xp, yp, z)] = relax(fNE, w3, ux + uy, om1, u2);
    dstGrid[IDX(8, xm, yp, z)] = relax(fNW, w3, -ux + uy, om1, u2);
    dstGrid[IDX(9, xp, ym, z)] = relax(fSE, w3, ux - uy, om1, u2);
    dstGrid[IDX(10, xm, ym, z)] = relax(fSW, w3, -ux - uy, om1, u2);
    dstGrid[IDX(11, xp, y, zp)] = relax(fET, w3, ux + uz, om1, u2);
    dstGrid[IDX(12, xm, y, zp)] = relax(fWT, w3, -ux + uz, om1, u2);
    dstGrid[IDX(13, xp, y, zm)] = relax(fEB, w3, ux - uz, om1, u2);
    dstGrid[IDX(14, xm, y, zm)] = relax(fWB, w3, -ux - uz, om1, u2);
    dstGrid[IDX(15, x, yp, zp)] = relax(fNT, w3, uy + uz, om1, u2);
    dstGrid[IDX(16, x, ym, zp)] = relax(fST, w3, -uy + uz, om1, u2);
    dstGrid[IDX(17, x, yp, zm)] = relax(fNB, w3, uy - uz, om1, u2);
    dstGrid[IDX(18, x, ym, zm)] = relax(fSB, w3, -uy - uz, om1, u2);
}
