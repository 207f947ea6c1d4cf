#define NUM_BINS 20
#define BLOCK_SIZE 128
#define NUM_HISTOGRAMS 8

// The bin boundaries, one per 16 bytes (the IL's one constant per cb1 element).
__constant__ float dev_binb[4 * (NUM_BINS + 1)];

extern "C" __global__ void parboil_tpacf(unsigned int *histograms, const float *all_x_data, const float *all_y_data,
                                         const float *all_z_data, int n) {
    __shared__ unsigned int warp_hists[(NUM_BINS + 2) * NUM_HISTOGRAMS];
    __shared__ float data_x[BLOCK_SIZE], data_y[BLOCK_SIZE], data_z[BLOCK_SIZE];
    unsigned int tid = threadIdx.x;
    int i = blockIdx.x * BLOCK_SIZE + tid;
    for (unsigned int w = tid; w < (NUM_BINS + 2) * NUM_HISTOGRAMS; w += BLOCK_SIZE)
        warp_hists[w] = 0;
    float x = all_x_data[i], y = all_y_data[i], z = all_z_data[i];
    for (int j0 = 0; j0 < n; j0 += BLOCK_SIZE) {
        __syncthreads();
        data_x[tid] = all_x_data[j0 + tid];
        data_y[tid] = all_y_data[j0 + tid];
        data_z[tid] = all_z_data[j0 + tid];
        __syncthreads();
        for (int t = 0; t < BLOCK_SIZE; t++) {
            if (j0 + t > i) {
                float dot = x * data_x[t] + y * data_y[t] + z * data_z[t];
                int min = 0, max = NUM_BINS;
                while (max > min + 1) {
                    int k = (min + max) / 2;
                    if (dot >= dev_binb[4 * k])
                        max = k;
                    else
                        min = k;
                }
                int bin_index;
                if (dot >= dev_binb[4 * min])
                    bin_index = min;
                else if (dot < dev_binb[4 * max])
                    bin_index = max + 1;
                else
                    bin_index = max;
                atomicAdd(&warp_hists[bin_index * NUM_HISTOGRAMS + (tid & (NUM_HISTOGRAMS - 1))], 1);
            }
        }
    }
    __syncthreads();
    for (unsigned int w = tid; w < NUM_BINS + 2; w += BLOCK_SIZE) {
        unsigned int sum = 0;
        for (int h = 0; h < NUM_HISTOGRAMS; h++)
            sum += warp_hists[w * NUM_HISTOGRAMS + h];
        atomicAdd(&histograms[w], sum);
    }
}
