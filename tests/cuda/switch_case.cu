// Switch over a[i] % 8 (values 0..7 after masking): 0 -> b+1, 1 -> b*2, 2 -> b-3, 3 -> b^0x55,
// 4 and 5 -> b<<2, 6 -> ~b, default (7) -> 42. All wrapping.
extern "C" __global__ void switch_case(int *out, const int *a, const int *b, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int y = b[i], r;
    switch (a[i] & 7) {
    case 0: r = y + 1; break;
    case 1: r = y * 2; break;
    case 2: r = y - 3; break;
    case 3: r = y ^ 0x55; break;
    case 4:
    case 5: r = y << 2; break;
    case 6: r = ~y; break;
    default: r = 42; break;
    }
    out[i] = r;
}
