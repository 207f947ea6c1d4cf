/* Compute-shader programs: a UAV kernel launched as a grid through the compute-shader
 * extension (calExtGetProc), and a g[] kernel launched over a domain with
 * calCtxRunProgram (one thread per domain point), in the style of the SDK's CS samples. */
#include <stdio.h>
#include <string.h>
#include "cal.h"
#include "calcl.h"
#include "check.h"
#include "cal_ext.h"

/* uav0[i] = i * cb0[0].x + uav1[i] for i < cb0[0].y (u32). */
static const char *uav_kernel =
    "il_cs_2_0\n"
    "dcl_num_thread_per_group 64, 1, 1\n"
    "dcl_raw_uav_id(0)\n"
    "dcl_raw_uav_id(1)\n"
    "dcl_cb cb0[1]\n"
    "dcl_literal l0, 2, 0, 0, 0\n"
    "mov r0.x, vAbsTidFlat.x\n"
    "uge r0.y, r0.x, cb0[0].y\n"
    "if_logicalz r0.y\n"
    "  ishl r1.x, r0.x, l0.x\n"
    "  uav_raw_load_id(1) r2.x, r1.x\n"
    "  imad r3.x, r0.x, cb0[0].x, r2.x\n"
    "  uav_raw_store_id(0) mem.x, r1.x, r3.x\n"
    "endif\n"
    "end\n";

/* g[i] = (i, 2i, 3i, 4i) for every thread of a 64-wide group, i = vaTid.x. */
static const char *global_kernel =
    "il_cs_2_0\n"
    "dcl_num_thread_per_group 64\n"
    "dcl_literal l0, 1, 2, 3, 4\n"
    "mov r0.x, vAbsTidFlat.x\n"
    "imul r1, r0.xxxx, l0\n"
    "mov g[r0.x], r1\n"
    "end\n";

static int lines;
static void count_line(const char *msg) {
    if (msg && strchr(msg, '\n')) lines++;
}

static int load(CALcontext ctx, const char *src, CALobject *obj, CALimage *img, CALmodule *m) {
    CHECK(calclCompile(obj, CAL_LANGUAGE_IL, src, CAL_TARGET_CYPRESS));
    CHECK(calclLink(img, obj, 1));
    CHECK(calModuleLoad(m, ctx, *img));
    return 0;
}

static int bind(CALcontext ctx, CALmodule m, const char *name, CALmem mem) {
    CALname n;
    CHECK(calModuleGetName(&n, ctx, m, name));
    CHECK(calCtxSetMem(ctx, n, mem));
    return 0;
}

int main(void) {
    enum { N = 1000, G = 256 };
    CALdevice dev;
    CALcontext ctx;
    CHECK(calInit());
    CHECK(calDeviceOpen(&dev, 0));
    CHECK(calCtxCreate(&ctx, dev));
    if (calExtSupported(CAL_EXT_COMPUTE_SHADER) != CAL_RESULT_OK) return 1;
    PFNCALCTXRUNPROGRAMGRID runGrid = 0;
    PFNCALMODULEGETFUNCINFO funcInfo = 0;
    CHECK(calExtGetProc((CALextproc *)&runGrid, CAL_EXT_COMPUTE_SHADER, "calCtxRunProgramGrid"));
    CHECK(calExtGetProc((CALextproc *)&funcInfo, CAL_EXT_COMPUTE_SHADER, "calModuleGetFuncInfo"));

    /* UAV kernel over a grid. */
    CALobject obj;
    CALimage img;
    CALmodule m;
    if (load(ctx, uav_kernel, &obj, &img, &m)) return 1;
    CALresource out, in, cb;
    CHECK(calResAllocLocal1D(&out, dev, N, CAL_FORMAT_UINT_1, 0));
    CHECK(calResAllocRemote1D(&in, &dev, 1, N, CAL_FORMAT_UINT_1, 0));
    CHECK(calResAllocRemote1D(&cb, &dev, 1, 1, CAL_FORMAT_UINT_4, 0));
    CALuint *p, pitch;
    CHECK(calResMap((void **)&p, &pitch, in, 0));
    for (int i = 0; i < N; i++) p[i] = 7u * (CALuint)i + 1u;
    CHECK(calResUnmap(in));
    CHECK(calResMap((void **)&p, &pitch, cb, 0));
    p[0] = 3;
    p[1] = N;
    CHECK(calResUnmap(cb));
    CALmem mo, mi, mc;
    CHECK(calCtxGetMem(&mo, ctx, out));
    CHECK(calCtxGetMem(&mi, ctx, in));
    CHECK(calCtxGetMem(&mc, ctx, cb));
    if (bind(ctx, m, "uav0", mo) || bind(ctx, m, "uav1", mi) || bind(ctx, m, "cb0", mc)) return 1;
    CALfunc f;
    CHECK(calModuleGetEntry(&f, ctx, m, "main"));
    CALfuncInfo fi;
    CHECK(funcInfo(&fi, ctx, m, f));
    if (fi.numThreadPerGroup != 64) {
        fprintf(stderr, "numThreadPerGroup %u\n", fi.numThreadPerGroup);
        return 1;
    }
    CALprogramGrid pg;
    memset(&pg, 0, sizeof(pg));
    pg.func = f;
    pg.gridBlock.width = 64;
    pg.gridBlock.height = pg.gridBlock.depth = 1;
    pg.gridSize.width = (N + 63) / 64;
    pg.gridSize.height = pg.gridSize.depth = 1;
    CALevent e;
    CHECK(runGrid(&e, ctx, &pg));
    while (calCtxIsEventDone(ctx, e) == CAL_RESULT_PENDING) {
    }
    CHECK(calResMap((void **)&p, &pitch, out, 0));
    for (int i = 0; i < N; i++)
        if (p[i] != 3u * (CALuint)i + 7u * (CALuint)i + 1u) {
            fprintf(stderr, "uav0[%d] = %u\n", i, p[i]);
            return 1;
        }
    CHECK(calResUnmap(out));
    /* The same launch twice through the grid-array entry point (zeroed output first). */
    PFNCALCTXRUNPROGRAMGRIDARRAY runGridArray = 0;
    CHECK(calExtGetProc((CALextproc *)&runGridArray, CAL_EXT_COMPUTE_SHADER,
                        "calCtxRunProgramGridArray"));
    CHECK(calResMap((void **)&p, &pitch, out, 0));
    memset(p, 0, N * sizeof(CALuint));
    CHECK(calResUnmap(out));
    CALprogramGrid grids[2] = {pg, pg};
    CALprogramGridArray ga = {grids, 2, 0};
    CHECK(runGridArray(&e, ctx, &ga));
    CHECK(calResMap((void **)&p, &pitch, out, 0));
    if (p[N - 1] != 10u * (N - 1) + 1u) {
        fprintf(stderr, "grid array: uav0[%d] = %u\n", N - 1, p[N - 1]);
        return 1;
    }
    CHECK(calResUnmap(out));
    calclDisassembleObject(&obj, count_line);
    if (lines < 3) {
        fprintf(stderr, "object disassembly has %d lines\n", lines);
        return 1;
    }
    /* A gridBlock that is not the kernel's group size is refused. */
    pg.gridBlock.width = 32;
    if (runGrid(&e, ctx, &pg) != CAL_RESULT_INVALID_PARAMETER) return 1;
    if (!strstr(calGetErrorString(), "dcl_num_thread_per_group")) return 1;

    /* g[] kernel over a 64 x 4 domain: thread (x, y) is number y * 64 + x. */
    CALobject obj2;
    CALimage img2;
    CALmodule m2;
    if (load(ctx, global_kernel, &obj2, &img2, &m2)) return 1;
    CALresource g;
    CHECK(calResAllocLocal1D(&g, dev, G, CAL_FORMAT_UINT_4, CAL_RESALLOC_GLOBAL_BUFFER));
    CALmem mg;
    CHECK(calCtxGetMem(&mg, ctx, g));
    if (bind(ctx, m2, "g[]", mg)) return 1;
    CALfunc f2;
    CHECK(calModuleGetEntry(&f2, ctx, m2, "main"));
    CALdomain d = {0, 0, 64, G / 64};
    CHECK(calCtxRunProgram(&e, ctx, f2, &d));
    CHECK(calResMap((void **)&p, &pitch, g, 0));
    for (CALuint i = 0; i < G; i++)
        for (CALuint c = 0; c < 4; c++)
            if (p[4 * i + c] != i * (c + 1)) {
                fprintf(stderr, "g[%u].%u = %u\n", i, c, p[4 * i + c]);
                return 1;
            }
    CHECK(calResUnmap(g));

    CHECK(calModuleUnload(ctx, m));
    CHECK(calModuleUnload(ctx, m2));
    calclFreeImage(img);
    calclFreeImage(img2);
    calclFreeObject(obj);
    calclFreeObject(obj2);
    CHECK(calCtxDestroy(ctx));
    CHECK(calDeviceClose(dev));
    CHECK(calShutdown());
    printf("compute: ok\n");
    return 0;
}
