/* A HelloCAL-style program: a pixel-shader kernel reads a 2-D texture (i0), scales it by a
 * constant (cb0) and writes o0 over a domain. Also: the image round trip through
 * calclImageWrite / calImageRead, the disassembly callback, events, and cleanup. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cal.h"
#include "calcl.h"
#include "check.h"

static const char *kernel =
    "il_ps_2_0\n"
    "dcl_input_position_interp(linear_noperspective) v0.xy__\n"
    "dcl_output_generic o0\n"
    "dcl_cb cb0[1]\n"
    "dcl_resource_id(0)_type(2d,unnorm)_fmtx(float)_fmty(float)_fmtz(float)_fmtw(float)\n"
    "sample_resource(0)_sampler(0) r0, v0.xyxx\n"
    "mul r1.x, r0.x, cb0[0].x\n"
    "add r1.x, r1.x, cb0[0].y\n"
    "mov o0, r1.xxxx\n"
    "end\n";

static int lines;
static void count_line(const char *msg) {
    if (msg && strchr(msg, '\n')) lines++;
}

int main(void) {
    const CALuint W = 100, H = 37;
    CALuint major, minor, imp, count;
    CHECK(calInit());
    CHECK(calGetVersion(&major, &minor, &imp));
    CHECK(calDeviceGetCount(&count));
    if (count < 1) {
        fprintf(stderr, "no device\n");
        return 1;
    }
    CALdeviceinfo info;
    CHECK(calDeviceGetInfo(&info, 0));
    CALdeviceattribs attribs;
    attribs.struct_size = sizeof(attribs);
    CHECK(calDeviceGetAttribs(&attribs, 0));
    if (!attribs.computeShader || attribs.wavefrontSize == 0) return 1;
    CALdevice dev;
    CHECK(calDeviceOpen(&dev, 0));
    CALdevicestatus status;
    status.struct_size = sizeof(status);
    CHECK(calDeviceGetStatus(&status, dev));
    CALcontext ctx;
    CHECK(calCtxCreate(&ctx, dev));

    /* Compile, link, serialize and read back the image. */
    CALobject obj;
    CALimage linked, image;
    if (calclCompile(&obj, CAL_LANGUAGE_IL, kernel, info.target) != CAL_RESULT_OK) {
        fprintf(stderr, "compile: %s\n", calclGetErrorString());
        return 1;
    }
    if (calclLink(&linked, &obj, 1) != CAL_RESULT_OK) {
        fprintf(stderr, "link: %s\n", calclGetErrorString());
        return 1;
    }
    calclDisassembleImage(linked, count_line);
    if (lines < 3) {
        fprintf(stderr, "disassembly has %d lines\n", lines);
        return 1;
    }
    CALuint size = 0;
    if (calclImageGetSize(&size, linked) != CAL_RESULT_OK || size == 0) return 1;
    void *bytes = malloc(size);
    if (calclImageWrite(bytes, size, linked) != CAL_RESULT_OK) return 1;
    CHECK(calImageRead(&image, bytes, size));
    free(bytes);

    /* Resources: input texture (local, filled through a remote copy), cb, output. */
    CALresource in_local, in_remote, cb, out;
    CHECK(calResAllocLocal2D(&in_local, dev, W, H, CAL_FORMAT_FLOAT_1, 0));
    CHECK(calResAllocRemote2D(&in_remote, &dev, 1, W, H, CAL_FORMAT_FLOAT_1, 0));
    CHECK(calResAllocRemote1D(&cb, &dev, 1, 1, CAL_FORMAT_FLOAT_4, 0));
    CHECK(calResAllocRemote2D(&out, &dev, 1, W, H, CAL_FORMAT_FLOAT_1, 0));
    float *p;
    CALuint pitch;
    CHECK(calResMap((void **)&p, &pitch, in_remote, 0));
    for (CALuint y = 0; y < H; y++)
        for (CALuint x = 0; x < W; x++) p[y * pitch + x] = (float)(x + 1000 * y);
    CHECK(calResUnmap(in_remote));
    CHECK(calResMap((void **)&p, &pitch, cb, 0));
    p[0] = 2.0f;
    p[1] = 0.5f;
    p[2] = p[3] = 0.0f;
    CHECK(calResUnmap(cb));

    CALmem m_in_local, m_in_remote, m_cb, m_out;
    CHECK(calCtxGetMem(&m_in_local, ctx, in_local));
    CHECK(calCtxGetMem(&m_in_remote, ctx, in_remote));
    CHECK(calCtxGetMem(&m_cb, ctx, cb));
    CHECK(calCtxGetMem(&m_out, ctx, out));
    CALevent e;
    CHECK(calMemCopy(&e, ctx, m_in_remote, m_in_local, 0));
    while (calCtxIsEventDone(ctx, e) == CAL_RESULT_PENDING) {
    }

    CALmodule module;
    CHECK(calModuleLoad(&module, ctx, image));
    CALfunc func;
    CALname n_in, n_cb, n_out;
    CHECK(calModuleGetEntry(&func, ctx, module, "main"));
    CHECK(calModuleGetName(&n_in, ctx, module, "i0"));
    CHECK(calModuleGetName(&n_cb, ctx, module, "cb0"));
    CHECK(calModuleGetName(&n_out, ctx, module, "o0"));
    CHECK(calCtxSetMem(ctx, n_in, m_in_local));
    CHECK(calCtxSetMem(ctx, n_cb, m_cb));
    CHECK(calCtxSetMem(ctx, n_out, m_out));
    CALdomain domain = {0, 0, W, H};
    CHECK(calCtxRunProgram(&e, ctx, func, &domain));
    CHECK(calCtxFlush(ctx));
    while (calCtxIsEventDone(ctx, e) == CAL_RESULT_PENDING) {
    }

    CHECK(calResMap((void **)&p, &pitch, out, 0));
    int bad = 0;
    for (CALuint y = 0; y < H; y++)
        for (CALuint x = 0; x < W; x++) {
            float want = (float)(x + 1000 * y) * 2.0f + 0.5f;
            if (p[y * pitch + x] != want && bad++ < 5)
                fprintf(stderr, "(%u,%u): %f, want %f\n", x, y, p[y * pitch + x], want);
        }
    CHECK(calResUnmap(out));
    if (bad) return 1;

    CHECK(calModuleUnload(ctx, module));
    CHECK(calCtxReleaseMem(ctx, m_in_local));
    CHECK(calCtxReleaseMem(ctx, m_in_remote));
    CHECK(calCtxReleaseMem(ctx, m_cb));
    CHECK(calCtxReleaseMem(ctx, m_out));
    CHECK(calResFree(in_local));
    CHECK(calResFree(in_remote));
    CHECK(calResFree(cb));
    CHECK(calResFree(out));
    CHECK(calImageFree(image));
    if (calclFreeImage(linked) != CAL_RESULT_OK || calclFreeObject(obj) != CAL_RESULT_OK) return 1;
    CHECK(calCtxDestroy(ctx));
    CHECK(calDeviceClose(dev));
    CHECK(calShutdown());
    printf("hello_ps: ok (%ux%u domain, CAL %u.%u.%u)\n", W, H, major, minor, imp);
    return 0;
}
