/* Matrix multiply as the SDK's simple_matmult sample does it: C = A * B with A and B as
 * 2-D float textures, a pixel-shader kernel looping over k, one output pixel per C[y][x]. */
#include <stdio.h>
#include "cal.h"
#include "calcl.h"
#include "check.h"

static const char *kernel =
    "il_ps_2_0\n"
    "dcl_input_position_interp(linear_noperspective) v0.xy__\n"
    "dcl_output_generic o0\n"
    "dcl_cb cb0[1]\n"
    "dcl_resource_id(0)_type(2d,unnorm)_fmtx(float)_fmty(float)_fmtz(float)_fmtw(float)\n"
    "dcl_resource_id(1)_type(2d,unnorm)_fmtx(float)_fmty(float)_fmtz(float)_fmtw(float)\n"
    "dcl_literal l0, 0.5, 1.0, 0.0, 0.0\n"
    "mov r0.x, l0.z\n"
    "mov r1.x, l0.x\n"
    "whileloop\n"
    "  ge r2.x, r1.x, cb0[0].x\n"
    "  break_logicalnz r2.x\n"
    "  mov r3.x, r1.x\n"
    "  mov r3.y, v0.y\n"
    "  sample_resource(0)_sampler(0) r4, r3.xyxx\n"
    "  mov r5.x, v0.x\n"
    "  mov r5.y, r1.x\n"
    "  sample_resource(1)_sampler(1) r6, r5.xyxx\n"
    "  mad r0.x, r4.x, r6.x, r0.x\n"
    "  add r1.x, r1.x, l0.y\n"
    "endloop\n"
    "mov o0, r0.xxxx\n"
    "end\n";

enum { M = 40, K = 24, N = 33 }; /* C is M x N (rows x columns), A is M x K, B is K x N */

static float a_at(int i, int k) { return (float)((i * 3 + k * 5) % 7) - 3.0f; }
static float b_at(int k, int j) { return (float)((k * 2 + j * 3) % 5) - 2.0f; }

static int fill(CALresource r, int rows, int cols, float (*f)(int, int)) {
    float *p;
    CALuint pitch;
    CHECK(calResMap((void **)&p, &pitch, r, 0));
    for (int y = 0; y < rows; y++)
        for (int x = 0; x < cols; x++) p[y * (int)pitch + x] = f(y, x);
    CHECK(calResUnmap(r));
    return 0;
}

int main(void) {
    CALdevice dev;
    CALcontext ctx;
    CHECK(calInit());
    CHECK(calDeviceOpen(&dev, 0));
    CHECK(calCtxCreate(&ctx, dev));
    CALobject obj;
    CALimage img;
    CHECK(calclCompile(&obj, CAL_LANGUAGE_IL, kernel, CAL_TARGET_770));
    CHECK(calclLink(&img, &obj, 1));
    CALresource a, b, c, cb;
    CHECK(calResAllocRemote2D(&a, &dev, 1, K, M, CAL_FORMAT_FLOAT_1, 0));
    CHECK(calResAllocRemote2D(&b, &dev, 1, N, K, CAL_FORMAT_FLOAT_1, 0));
    CHECK(calResAllocRemote2D(&c, &dev, 1, N, M, CAL_FORMAT_FLOAT_1, 0));
    CHECK(calResAllocRemote1D(&cb, &dev, 1, 1, CAL_FORMAT_FLOAT_4, 0));
    if (fill(a, M, K, a_at) || fill(b, K, N, b_at)) return 1;
    float *p;
    CALuint pitch;
    CHECK(calResMap((void **)&p, &pitch, cb, 0));
    p[0] = (float)K;
    CHECK(calResUnmap(cb));
    CALmodule m;
    CHECK(calModuleLoad(&m, ctx, img));
    CALmem ma, mb, mc, mcb;
    CHECK(calCtxGetMem(&ma, ctx, a));
    CHECK(calCtxGetMem(&mb, ctx, b));
    CHECK(calCtxGetMem(&mc, ctx, c));
    CHECK(calCtxGetMem(&mcb, ctx, cb));
    const char *names[4] = {"i0", "i1", "o0", "cb0"};
    CALmem mems[4] = {ma, mb, mc, mcb};
    for (int i = 0; i < 4; i++) {
        CALname n;
        CHECK(calModuleGetName(&n, ctx, m, names[i]));
        CHECK(calCtxSetMem(ctx, n, mems[i]));
    }
    CALfunc f;
    CHECK(calModuleGetEntry(&f, ctx, m, "main"));
    CALdomain d = {0, 0, N, M};
    CALevent e;
    CHECK(calCtxRunProgram(&e, ctx, f, &d));
    while (calCtxIsEventDone(ctx, e) == CAL_RESULT_PENDING) {
    }
    CHECK(calResMap((void **)&p, &pitch, c, 0));
    double checksum = 0;
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            float want = 0;
            for (int k = 0; k < K; k++) want += a_at(i, k) * b_at(k, j);
            float got = p[i * (int)pitch + j];
            if (got != want) {
                fprintf(stderr, "C[%d][%d] = %f, want %f\n", i, j, got, want);
                return 1;
            }
            checksum += got;
        }
    CHECK(calResUnmap(c));
    CHECK(calShutdown());
    printf("matmul: ok (%dx%d * %dx%d, checksum %.0f)\n", M, K, K, N, checksum);
    return 0;
}
