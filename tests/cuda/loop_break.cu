// Data-dependent loop with break and continue: for j in 0..(a & 63): skip j where j % 3 == 0,
// add j * (i + 1) to s (wrapping), stop after the step where s > limit. out[i] = s * 1000 + last j seen
// (last j = the j at the break, or the final j taken, 0 if none), wrapping.
extern "C" __global__ void loop_break(int *out, const int *a, int limit, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int cnt = a[i] & 63;
    int s = 0, last = 0;
    for (int j = 0; j < cnt; j++) {
        if (j % 3 == 0) continue;
        s += j * (i + 1);
        last = j;
        if (s > limit) break;
    }
    out[i] = s * 1000 + last;
}
