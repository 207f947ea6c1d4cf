#define SIZE_X 32
#define SIZE_Y 32
#define SIZE_Z 16
#define N_CELLS (SIZE_X * SIZE_Y * SIZE_Z)
#define IDX(e, x, y, z) ((e) * N_CELLS + (x) + (y) * SIZE_X + (z) * SIZE_X * SIZE_Y)
#define DFL1 (1.0f / 3.0f)
#define DFL2 (1.0f / 18.0f)
#define DFL3 (1.0f / 36.0f)

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
    { float eu = ux;
      dstGrid[IDX(1, xp, y, z)] = om1 * fE + w2 * (eu * (eu * 4.5f + 3.0f) + 1.0f - u2); }
    { float eu = -ux;
      dstGrid[IDX(2, xm, y, z)] = om1 * fW + w2 * (eu * (eu * 4.5f + 3.0f) + 1.0f - u2); }
    { float eu = uy;
      dstGrid[IDX(3, x, yp, z)] = om1 * fN + w2 * (eu * (eu * 4.5f + 3.0f) + 1.0f - u2); }
    { float eu = -uy;
      dstGrid[IDX(4, x, ym, z)] = om1 * fS + w2 * (eu * (eu * 4.5f + 3.0f) + 1.0f - u2); }
    { float eu = uz;
      dstGrid[IDX(5, x, y, zp)] = om1 * fT + w2 * (eu * (eu * 4.5f + 3.0f) + 1.0f - u2); }
    { float eu = -uz;
      dstGrid[IDX(6, x, y, zm)] = om1 * fB + w2 * (eu * (eu * 4.5f + 3.0f) + 1.0f - u2); }
    { float eu = ux + uy;
      dstGrid[IDX(7, xp, yp, z)] = om1 * fNE + w3 * (eu * (eu * 4.5f + 3.0f) + 1.0f - u2); }
    { float eu = -ux + uy;
      dstGrid[IDX(8, xm, yp, z)] = om1 * fNW + w3 * (eu * (eu * 4.5f + 3.0f) + 1.0f - u2); }
    { float eu = ux - uy;
      dstGrid[IDX(9, xp, ym, z)] = om1 * fSE + w3 * (eu * (eu * 4.5f + 3.0f) + 1.0f - u2); }
    { float eu = -ux - uy;
      dstGrid[IDX(10, xm, ym, z)] = om1 * fSW + w3 * (eu * (eu * 4.5f + 3.0f) + 1.0f - u2); }
    { float eu = ux + uz;
      dstGrid[IDX(11, xp, y, zp)] = om1 * fET + w3 * (eu * (eu * 4.5f + 3.0f) + 1.0f - u2); }
    { float eu = -ux + uz;
      dstGrid[IDX(12, xm, y, zp)] = om1 * fWT + w3 * (eu * (eu * 4.5f + 3.0f) + 1.0f - u2); }
    { float eu = ux - uz;
      dstGrid[IDX(13, xp, y, zm)] = om1 * fEB + w3 * (eu * (eu * 4.5f + 3.0f) + 1.0f - u2); }
    { float eu = -ux - uz;
      dstGrid[IDX(14, xm, y, zm)] = om1 * fWB + w3 * (eu * (eu * 4.5f + 3.0f) + 1.0f - u2); }
    { float eu = uy + uz;
      dstGrid[IDX(15, x, yp, zp)] = om1 * fNT + w3 * (eu * (eu * 4.5f + 3.0f) + 1.0f - u2); }
    { float eu = -uy + uz;
      dstGrid[IDX(16, x, ym, zp)] = om1 * fST + w3 * (eu * (eu * 4.5f + 3.0f) + 1.0f - u2); }
    { float eu = uy - uz;
      dstGrid[IDX(17, x, yp, zm)] = om1 * fNB + w3 * (eu * (eu * 4.5f + 3.0f) + 1.0f - u2); }
    { float eu = -uy - uz;
      dstGrid[IDX(18, x, ym, zm)] = om1 * fSB + w3 * (eu * (eu * 4.5f + 3.0f) + 1.0f - u2); }
}
