typedef struct latLong {
    float lat;
    float lng;
} LatLong;

extern "C" __global__ void rodinia_nn(const LatLong *d_locations, float *d_distances, int numRecords, float lat, float lng) {
    int globalId = blockDim.x * (gridDim.x * blockIdx.y + blockIdx.x) + threadIdx.x;
    const LatLong *latLong = d_locations + globalId;
    if (globalId < numRecords) {
        float *dist = d_distances + globalId;
        *dist = sqrtf((lat - latLong->lat) * (lat - latLong->lat) + (lng - latLong->lng) * (lng - latLong->lng));
    }
}
