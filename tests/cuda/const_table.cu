// __constant__ memory with a dynamic index: table[k] = k * k * 3 + 1 for k < 64 (initialised data in the
// cubin's constant bank 3 section); out[i] = table[a[i] & 63] + table[i & 63] * 2 + scale[0] (scale is
// written by the host; 0 unless the test sets it).
__constant__ int table[64] = {
    1, 4, 13, 28, 49, 76, 109, 148, 193, 244, 301, 364, 433, 508, 589, 676,
    769, 868, 973, 1084, 1201, 1324, 1453, 1588, 1729, 1876, 2029, 2188, 2353, 2524, 2701, 2884,
    3073, 3268, 3469, 3676, 3889, 4108, 4333, 4564, 4801, 5044, 5293, 5548, 5809, 6076, 6349, 6628,
    6913, 7204, 7501, 7804, 8113, 8428, 8749, 9076, 9409, 9748, 10093, 10444, 10801, 11164, 11533, 11908};
__constant__ int scale[1];
extern "C" __global__ void const_table(int *out, const int *a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = table[a[i] & 63] + table[i & 63] * 2 + scale[0];
}
