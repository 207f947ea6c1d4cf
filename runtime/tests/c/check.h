/* CHECK(call): a CAL call that must succeed. On any other result it prints the place, the
 * call, the result and the last error texts of the runtime and of the compiler, and returns
 * 1 from the calling function (main of the test programs). */
#ifndef ILC_TEST_CHECK_H
#define ILC_TEST_CHECK_H

#include <stdio.h>
#include "cal.h"
#include "calcl.h"

#define CHECK(call)                                                                  \
    do {                                                                             \
        CALresult r_ = (call);                                                       \
        if (r_ != CAL_RESULT_OK) {                                                   \
            fprintf(stderr, "%s:%d: %s failed (%d): %s / %s\n", __FILE__, __LINE__,  \
                    #call, (int)r_, calGetErrorString(), calclGetErrorString());     \
            return 1;                                                                \
        }                                                                            \
    } while (0)

#endif
