/* Error paths: every failure is a CAL_RESULT_* code with a message in calGetErrorString /
 * calclGetErrorString, never a crash. Bad handles, out-of-range sizes, unsupported formats,
 * compile errors (ilc's diagnostic in the string), unbound names, mapped resources. */
#include <stdio.h>
#include <string.h>
#include "cal.h"
#include "calcl.h"
#include "cal_ext.h"

static int failures;

static void expect(int line, CALresult got, CALresult want, const char *msg, const char *needle) {
    if (got != want || (needle && !strstr(msg, needle))) {
        fprintf(stderr, "line %d: result %d (want %d), message \"%s\" (want \"%s\")\n", line,
                (int)got, (int)want, msg, needle ? needle : "");
        failures++;
    }
}
/* The call runs before its error string is read. */
#define EXPECT(call, want, needle)                                \
    do {                                                          \
        CALresult r_ = (call);                                    \
        expect(__LINE__, r_, (want), calGetErrorString(), needle); \
    } while (0)
#define EXPECT_CL(call, want, needle)                               \
    do {                                                            \
        CALresult r_ = (call);                                      \
        expect(__LINE__, r_, (want), calclGetErrorString(), needle); \
    } while (0)

static const char *ps =
    "il_ps_2_0\n"
    "dcl_output_generic o0\n"
    "dcl_literal l0, 1.0, 2.0, 3.0, 4.0\n"
    "mov o0, l0\n"
    "end\n";

int main(void) {
    CALuint n = 99;
    EXPECT(calDeviceGetCount(&n), CAL_RESULT_NOT_INITIALIZED, "calInit");
    if (n != 0) failures++;
    EXPECT(calInit(), CAL_RESULT_OK, NULL);
    EXPECT(calInit(), CAL_RESULT_ALREADY, "already");
    CALdevice dev = 77;
    EXPECT(calDeviceOpen(&dev, 5), CAL_RESULT_ERROR, "ordinal 5");
    if (dev != 0) failures++;
    EXPECT(calDeviceOpen(&dev, 0), CAL_RESULT_OK, NULL);
    CALdevice again;
    EXPECT(calDeviceOpen(&again, 0), CAL_RESULT_ERROR, "already open");
    CALdeviceattribs attribs;
    attribs.struct_size = 0;
    EXPECT(calDeviceGetAttribs(&attribs, 0), CAL_RESULT_INVALID_PARAMETER, "struct_size");

    /* Resources. */
    CALresource r = 5;
    EXPECT(calResAllocLocal2D(&r, dev + 1000, 4, 4, CAL_FORMAT_FLOAT_4, 0), CAL_RESULT_BAD_HANDLE,
           "CALdevice");
    if (r != 0) failures++;
    EXPECT(calResAllocLocal2D(&r, dev, 0, 4, CAL_FORMAT_FLOAT_4, 0), CAL_RESULT_INVALID_PARAMETER,
           "out of range");
    EXPECT(calResAllocLocal1D(&r, dev, 100000, CAL_FORMAT_FLOAT_1, 0),
           CAL_RESULT_INVALID_PARAMETER, "out of range");
    EXPECT(calResAllocLocal2D(&r, dev, 4, 4, (CALformat)99, 0), CAL_RESULT_INVALID_PARAMETER,
           "not a CALformat");
    EXPECT(calResAllocLocal1D(&r, dev, 0x7fffffff, CAL_FORMAT_FLOAT_4, CAL_RESALLOC_GLOBAL_BUFFER),
           CAL_RESULT_ERROR, "bytes");
    EXPECT(calResAllocRemote2D(&r, NULL, 1, 4, 4, CAL_FORMAT_FLOAT_4, 0),
           CAL_RESULT_INVALID_PARAMETER, "null");
    EXPECT(calResFree(12345), CAL_RESULT_BAD_HANDLE, "CALresource");
    CALresource out, packed;
    EXPECT(calResAllocLocal2D(&out, dev, 16, 16, CAL_FORMAT_FLOAT_4, 0), CAL_RESULT_OK, NULL);
    EXPECT(calResAllocLocal2D(&packed, dev, 16, 16, CAL_FORMAT_UNORM_SHORT_565, 0), CAL_RESULT_OK,
           NULL);
    void *ptr;
    CALuint pitch;
    EXPECT(calResMap(&ptr, &pitch, out, 0), CAL_RESULT_OK, NULL);
    EXPECT(calResMap(&ptr, &pitch, out, 0), CAL_RESULT_ERROR, "already mapped");
    if (ptr != NULL) failures++;

    /* Compiler. */
    CALobject obj = (CALobject)1;
    EXPECT_CL(calclCompile(&obj, CAL_LANGUAGE_IL, "il_ps_2_0\nmov o0, r99.q\nend\n",
                           CAL_TARGET_CYPRESS),
              CAL_RESULT_ERROR, "<calclCompile>:2:");
    if (obj != NULL) failures++;
    EXPECT_CL(calclCompile(&obj, (CALlanguage)2, ps, CAL_TARGET_CYPRESS), CAL_RESULT_NOT_SUPPORTED,
              "CAL_LANGUAGE_IL");
    EXPECT_CL(calclFreeObject((CALobject)&n), CAL_RESULT_BAD_HANDLE, "CALobject");
    EXPECT_CL(calclLink(NULL, &obj, 1), CAL_RESULT_INVALID_PARAMETER, "null");
    CALimage img;
    EXPECT_CL(calclCompile(&obj, CAL_LANGUAGE_IL, ps, CAL_TARGET_CYPRESS), CAL_RESULT_OK, NULL);
    CALobject two[2] = {obj, obj};
    EXPECT_CL(calclLink(&img, two, 2), CAL_RESULT_NOT_SUPPORTED, "one kernel");
    EXPECT_CL(calclLink(&img, &obj, 1), CAL_RESULT_OK, NULL);
    char junk[64] = "not an image";
    CALimage bad;
    EXPECT(calImageRead(&bad, junk, sizeof junk), CAL_RESULT_ERROR, "not an ilc image");

    /* Contexts, modules, names. */
    CALcontext ctx;
    EXPECT(calCtxCreate(&ctx, dev), CAL_RESULT_OK, NULL);
    CALmodule m;
    EXPECT(calModuleLoad(&m, ctx, (CALimage)junk), CAL_RESULT_BAD_HANDLE, "CALimage");
    EXPECT(calModuleLoad(&m, ctx + 99, img), CAL_RESULT_BAD_HANDLE, "CALcontext");
    EXPECT(calModuleLoad(&m, ctx, img), CAL_RESULT_OK, NULL);
    CALfunc f;
    EXPECT(calModuleGetEntry(&f, ctx, m, "nosuch"), CAL_RESULT_ERROR, "no entry point");
    EXPECT(calModuleGetEntry(&f, ctx, m, "main"), CAL_RESULT_OK, NULL);
    CALname name;
    EXPECT(calModuleGetName(&name, ctx, m, "x0"), CAL_RESULT_ERROR, "not a CAL name");
    EXPECT(calModuleGetName(&name, ctx, m, "o0"), CAL_RESULT_OK, NULL);
    EXPECT(calCtxSetMem(ctx, name + 1000, 1), CAL_RESULT_BAD_HANDLE, "CALname");
    EXPECT(calCtxSetMem(ctx, name, 4242), CAL_RESULT_BAD_HANDLE, "CALmem");
    CALdomain d = {0, 0, 16, 16};
    CALevent e = 9;
    EXPECT(calCtxRunProgram(&e, ctx, f, &d), CAL_RESULT_ERROR, "`o0`");
    if (e != 0) failures++;
    CALmem mo, mp;
    EXPECT(calCtxGetMem(&mo, ctx, out), CAL_RESULT_OK, NULL);
    EXPECT(calCtxGetMem(&mp, ctx, packed), CAL_RESULT_OK, NULL);
    EXPECT(calCtxSetMem(ctx, name, mo), CAL_RESULT_OK, NULL);
    EXPECT(calCtxRunProgram(&e, ctx, f, &d), CAL_RESULT_ERROR, "mapped");
    EXPECT(calResUnmap(out), CAL_RESULT_OK, NULL);
    EXPECT(calResUnmap(out), CAL_RESULT_ERROR, "not mapped");
    CALdomain far = {0, 0, 17, 16};
    EXPECT(calCtxRunProgram(&e, ctx, f, &far), CAL_RESULT_ERROR, "does not hold");
    CALdomain moved = {4, 0, 8, 8};
    EXPECT(calCtxRunProgram(&e, ctx, f, &moved), CAL_RESULT_OK, NULL);
    CALdomain past = {12, 0, 8, 8};
    EXPECT(calCtxRunProgram(&e, ctx, f, &past), CAL_RESULT_ERROR, "8x8 domain at (12, 0)");
    EXPECT(calCtxRunProgram(&e, ctx, f + 1000, &d), CAL_RESULT_BAD_HANDLE, "CALfunc");
    EXPECT(calCtxRunProgram(&e, ctx, f, &d), CAL_RESULT_OK, NULL);
    EXPECT(calCtxIsEventDone(ctx, e), CAL_RESULT_OK, NULL);
    EXPECT(calCtxIsEventDone(ctx, e + 100), CAL_RESULT_BAD_HANDLE, "CALevent");
    float *px;
    EXPECT(calResMap((void **)&px, &pitch, out, 0), CAL_RESULT_OK, NULL);
    if (px[0] != 1.0f || px[3] != 4.0f || px[4 * (16 * 16 - 1) + 2] != 3.0f) failures++;
    EXPECT(calResUnmap(out), CAL_RESULT_OK, NULL);
    EXPECT(calCtxSetMem(ctx, name, mp), CAL_RESULT_OK, NULL);
    EXPECT(calCtxRunProgram(&e, ctx, f, &d), CAL_RESULT_NOT_SUPPORTED, "UNORM_SHORT_565");
    EXPECT(calMemCopy(&e, ctx, mo, mp, 0), CAL_RESULT_ERROR, "element sizes differ");
    EXPECT(calResFree(out), CAL_RESULT_BUSY, "memory handle");
    CALextproc proc;
    EXPECT(calExtGetProc(&proc, CAL_EXT_D3D9, "calD3D9Associate"), CAL_RESULT_NOT_SUPPORTED,
           "not supported");
    EXPECT(calExtGetProc(&proc, CAL_EXT_COMPUTE_SHADER, "nosuch"), CAL_RESULT_NOT_SUPPORTED,
           "nosuch");
    EXPECT(calCtxReleaseMem(ctx, mo), CAL_RESULT_OK, NULL);
    EXPECT(calResFree(out), CAL_RESULT_OK, NULL);
    EXPECT(calResFree(out), CAL_RESULT_BAD_HANDLE, "CALresource");
    EXPECT(calCtxDestroy(ctx), CAL_RESULT_OK, NULL);
    EXPECT(calCtxDestroy(ctx), CAL_RESULT_BAD_HANDLE, "CALcontext");
    EXPECT_CL(calclFreeImage(img), CAL_RESULT_OK, NULL);
    EXPECT_CL(calclFreeImage(img), CAL_RESULT_BAD_HANDLE, "CALimage");
    EXPECT_CL(calclFreeObject(obj), CAL_RESULT_OK, NULL);
    EXPECT(calShutdown(), CAL_RESULT_OK, NULL);
    EXPECT(calShutdown(), CAL_RESULT_NOT_INITIALIZED, "calInit");
    if (failures) {
        fprintf(stderr, "%d failures\n", failures);
        return 1;
    }
    printf("errors: ok\n");
    return 0;
}
