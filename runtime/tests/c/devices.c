/* Lists the CAL devices; with none, prints why (the error of opening device 0). */
#include <stdio.h>
#include "cal.h"

int main(void) {
    CALuint n = 0;
    if (calInit() != CAL_RESULT_OK || calDeviceGetCount(&n) != CAL_RESULT_OK) return 1;
    printf("devices: %u\n", n);
    for (CALuint i = 0; i < n; i++) {
        CALdeviceattribs a;
        a.struct_size = sizeof(a);
        if (calDeviceGetAttribs(&a, i) != CAL_RESULT_OK) return 1;
        printf("device %u: target %d, %u MiB, %u SIMDs, wavefront %u\n", i, (int)a.target,
               a.localRAM, a.numberOfSIMD, a.wavefrontSize);
    }
    if (n == 0) {
        CALdevice d;
        CALresult r = calDeviceOpen(&d, 0);
        printf("open 0: %d: %s\n", (int)r, calGetErrorString());
    }
    calShutdown();
    return 0;
}
