/*
 * cal.h: the CAL runtime API of the ATI Stream SDK, as implemented by ilc's CAL runtime
 * (libaticalrt, crate `ilc-calrt`). Types, enumeration values, structure layouts and the
 * calling convention follow the published SDK headers, so programs written against them
 * build unchanged; the declarations and comments here are ilc's own.
 * See runtime/README.md for what each call does on ilc's devices.
 */
#ifndef __CAL_H__
#define __CAL_H__

#ifdef __cplusplus
extern "C" {
#define CALAPI
#else
#define CALAPI extern
#endif

#ifdef _WIN32
#define CALAPIENTRY __stdcall
#else
#define CALAPIENTRY
#endif

typedef void CALvoid;
typedef char CALchar;
typedef signed char CALbyte;
typedef unsigned char CALubyte;
typedef signed short CALshort;
typedef unsigned short CALushort;
typedef signed int CALint;
typedef unsigned int CALuint;
typedef float CALfloat;
typedef double CALdouble;
typedef signed long CALlong;
typedef unsigned long CALulong;
#if defined(_MSC_VER)
typedef signed __int64 CALint64;
typedef unsigned __int64 CALuint64;
#else
typedef signed long long CALint64;
typedef unsigned long long CALuint64;
#endif

typedef enum CALbooleanEnum { CAL_FALSE = 0, CAL_TRUE = 1 } CALboolean;

/* Result of every call; calGetErrorString explains the last one that failed. */
typedef enum CALresultEnum {
    CAL_RESULT_OK = 0,
    CAL_RESULT_ERROR = 1,
    CAL_RESULT_INVALID_PARAMETER = 2,
    CAL_RESULT_NOT_SUPPORTED = 3,
    CAL_RESULT_ALREADY = 4,
    CAL_RESULT_NOT_INITIALIZED = 5,
    CAL_RESULT_BAD_HANDLE = 6,
    CAL_RESULT_BAD_NAME_TYPE = 7,
    CAL_RESULT_PENDING = 8,
    CAL_RESULT_BUSY = 9,
    CAL_RESULT_WARNING = 10
} CALresult;

/* Element formats of resources (the SDK 2.x names; the older names are aliases below). */
typedef enum CALformatEnum {
    CAL_FORMAT_UNORM_INT8_1, CAL_FORMAT_UNORM_INT8_2, CAL_FORMAT_UNORM_INT8_4,
    CAL_FORMAT_UNORM_INT16_1, CAL_FORMAT_UNORM_INT16_2, CAL_FORMAT_UNORM_INT16_4,
    CAL_FORMAT_UNORM_INT32_4,
    CAL_FORMAT_SNORM_INT8_4,
    CAL_FORMAT_SNORM_INT16_1, CAL_FORMAT_SNORM_INT16_2, CAL_FORMAT_SNORM_INT16_4,
    CAL_FORMAT_FLOAT32_1, CAL_FORMAT_FLOAT32_2, CAL_FORMAT_FLOAT32_4,
    CAL_FORMAT_FLOAT64_1, CAL_FORMAT_FLOAT64_2,
    CAL_FORMAT_UNORM_INT32_1, CAL_FORMAT_UNORM_INT32_2,
    CAL_FORMAT_SNORM_INT8_1, CAL_FORMAT_SNORM_INT8_2,
    CAL_FORMAT_SNORM_INT32_1, CAL_FORMAT_SNORM_INT32_2, CAL_FORMAT_SNORM_INT32_4,
    CAL_FORMAT_UNSIGNED_INT8_1, CAL_FORMAT_UNSIGNED_INT8_2, CAL_FORMAT_UNSIGNED_INT8_4,
    CAL_FORMAT_SIGNED_INT8_1, CAL_FORMAT_SIGNED_INT8_2, CAL_FORMAT_SIGNED_INT8_4,
    CAL_FORMAT_UNSIGNED_INT16_1, CAL_FORMAT_UNSIGNED_INT16_2, CAL_FORMAT_UNSIGNED_INT16_4,
    CAL_FORMAT_SIGNED_INT16_1, CAL_FORMAT_SIGNED_INT16_2, CAL_FORMAT_SIGNED_INT16_4,
    CAL_FORMAT_UNSIGNED_INT32_1, CAL_FORMAT_UNSIGNED_INT32_2, CAL_FORMAT_UNSIGNED_INT32_4,
    CAL_FORMAT_SIGNED_INT32_1, CAL_FORMAT_SIGNED_INT32_2, CAL_FORMAT_SIGNED_INT32_4,
    CAL_FORMAT_UNORM_SHORT_565, CAL_FORMAT_UNORM_SHORT_555, CAL_FORMAT_UNORM_INT10_3,
    CAL_FORMAT_FLOAT16_1, CAL_FORMAT_FLOAT16_2, CAL_FORMAT_FLOAT16_4,

    CAL_FORMAT_UBYTE_1 = CAL_FORMAT_UNORM_INT8_1,
    CAL_FORMAT_UBYTE_2 = CAL_FORMAT_UNORM_INT8_2,
    CAL_FORMAT_UBYTE_4 = CAL_FORMAT_UNORM_INT8_4,
    CAL_FORMAT_USHORT_1 = CAL_FORMAT_UNORM_INT16_1,
    CAL_FORMAT_USHORT_2 = CAL_FORMAT_UNORM_INT16_2,
    CAL_FORMAT_USHORT_4 = CAL_FORMAT_UNORM_INT16_4,
    CAL_FORMAT_UINT_4 = CAL_FORMAT_UNORM_INT32_4,
    CAL_FORMAT_BYTE_4 = CAL_FORMAT_SNORM_INT8_4,
    CAL_FORMAT_SHORT_1 = CAL_FORMAT_SNORM_INT16_1,
    CAL_FORMAT_SHORT_2 = CAL_FORMAT_SNORM_INT16_2,
    CAL_FORMAT_SHORT_4 = CAL_FORMAT_SNORM_INT16_4,
    CAL_FORMAT_FLOAT_1 = CAL_FORMAT_FLOAT32_1,
    CAL_FORMAT_FLOAT_2 = CAL_FORMAT_FLOAT32_2,
    CAL_FORMAT_FLOAT_4 = CAL_FORMAT_FLOAT32_4,
    CAL_FORMAT_DOUBLE_1 = CAL_FORMAT_FLOAT64_1,
    CAL_FORMAT_DOUBLE_2 = CAL_FORMAT_FLOAT64_2,
    CAL_FORMAT_UINT_1 = CAL_FORMAT_UNORM_INT32_1,
    CAL_FORMAT_UINT_2 = CAL_FORMAT_UNORM_INT32_2,
    CAL_FORMAT_BYTE_1 = CAL_FORMAT_SNORM_INT8_1,
    CAL_FORMAT_BYTE_2 = CAL_FORMAT_SNORM_INT8_2,
    CAL_FORMAT_INT_1 = CAL_FORMAT_SNORM_INT32_1,
    CAL_FORMAT_INT_2 = CAL_FORMAT_SNORM_INT32_2,
    CAL_FORMAT_INT_4 = CAL_FORMAT_SNORM_INT32_4,
    CAL_FORMAT_32BIT_TYPELESS = CAL_FORMAT_UNSIGNED_INT32_1,
    CAL_FORMAT_LAST = CAL_FORMAT_FLOAT16_4
} CALformat;

/* Resource dimension (for the SDK's view functions; not used by this runtime's calls). */
typedef enum CALdimensionEnum {
    CAL_DIM_BUFFER, CAL_DIM_1D, CAL_DIM_2D, CAL_DIM_3D, CAL_DIM_CUBEMAP
} CALdimension;

/* Device instruction sets. ilc compiles every target to SPA 5.0 (sm_50) code. */
typedef enum CALtargetEnum {
    CAL_TARGET_600, CAL_TARGET_610, CAL_TARGET_630, CAL_TARGET_670,
    CAL_TARGET_7XX, CAL_TARGET_770, CAL_TARGET_710, CAL_TARGET_730,
    CAL_TARGET_CYPRESS, CAL_TARGET_JUNIPER, CAL_TARGET_REDWOOD, CAL_TARGET_CEDAR,
    CAL_TARGET_SUMO, CAL_TARGET_SUPERSUMO, CAL_TARGET_WRESTLER, CAL_TARGET_CAYMAN,
    CAL_TARGET_KAUAI, CAL_TARGET_BARTS, CAL_TARGET_TURKS, CAL_TARGET_CAICOS,
    /* The names some SDK releases give the same values. */
    CAL_TARGET_RESERVED0 = CAL_TARGET_SUMO,
    CAL_TARGET_RESERVED1 = CAL_TARGET_SUPERSUMO,
    CAL_TARGET_RESERVED2 = CAL_TARGET_KAUAI
} CALtarget;

typedef struct CALobjectRec *CALobject; /* compiled object (calclCompile) */
typedef struct CALimageRec *CALimage;   /* linked image (calclLink, calImageRead) */

typedef CALuint CALdevice;
typedef CALuint CALcontext;
typedef CALuint CALresource;
typedef CALuint CALmem;
typedef CALuint CALfunc;
typedef CALuint CALname;
typedef CALuint CALmodule;
typedef CALuint CALevent;

/* A rectangle of the output (pixel-shader programs run once per point of it). */
typedef struct CALdomainRec {
    CALuint x;
    CALuint y;
    CALuint width;
    CALuint height;
} CALdomain;

typedef struct CALdeviceinfoRec {
    CALtarget target;
    CALuint maxResource1DWidth;
    CALuint maxResource2DWidth;
    CALuint maxResource2DHeight;
} CALdeviceinfo;

/* Set struct_size before calDeviceGetAttribs; only that many bytes are written. */
typedef struct CALdeviceattribsRec {
    CALuint struct_size;
    CALtarget target;
    CALuint localRAM;          /* MiB */
    CALuint uncachedRemoteRAM; /* MiB */
    CALuint cachedRemoteRAM;   /* MiB */
    CALuint engineClock;       /* MHz */
    CALuint memoryClock;       /* MHz */
    CALuint wavefrontSize;
    CALuint numberOfSIMD;
    CALboolean doublePrecision;
    CALboolean localDataShare;
    CALboolean globalDataShare;
    CALboolean globalGPR;
    CALboolean computeShader;
    CALboolean memExport;
    CALuint pitch_alignment;   /* elements */
    CALuint surface_alignment; /* bytes */
    CALuint numberOfUAVs;
    CALboolean bUAVMemExport;
    CALboolean b3dProgramGrid;
    CALuint numberOfShaderEngines;
    CALuint targetRevision;
    CALuint totalVisibleHeap; /* MiB */
    CALuint totalInvisibleHeap;
    CALuint totalDirectHeap;
    CALuint totalCoherentHeap;
    CALuint totalRemoteSharedHeap;
    CALuint totalCachedRemoteSharedHeap;
} CALdeviceattribs;

typedef struct CALdevicestatusRec {
    CALuint struct_size;
    CALuint availLocalRAM;
    CALuint availUncachedRemoteRAM;
    CALuint availCachedRemoteRAM;
    CALuint availVisibleHeap; /* MiB */
    CALuint availInvisibleHeap;
    CALuint availDirectHeap;
    CALuint availCoherentHeap;
    CALuint availRemoteSharedHeap;
    CALuint availCachedRemoteSharedHeap;
} CALdevicestatus;

typedef enum CALresallocflagsEnum {
    CAL_RESALLOC_GLOBAL_BUFFER = 1,
    CAL_RESALLOC_CACHEABLE = 2
} CALresallocflags;

typedef struct CALdomain3DRec {
    CALuint width;
    CALuint height;
    CALuint depth;
} CALdomain3D;

/* A compute-shader launch: gridSize groups of gridBlock threads each. */
typedef struct CALprogramGridRec {
    CALfunc func;
    CALdomain3D gridBlock;
    CALdomain3D gridSize;
    CALuint flags;
} CALprogramGrid;

typedef struct CALprogramGridArrayRec {
    CALprogramGrid *gridArray;
    CALuint num;
    CALuint flags;
} CALprogramGridArray;

typedef struct CALfuncInfoRec {
    CALuint maxScratchRegsNeeded;
    CALuint numSharedGPRUser;
    CALuint numSharedGPRTotal;
    CALboolean eCsSetupMode;
    CALuint numThreadPerGroup; /* threads per group, all dimensions */
    CALuint numThreadPerGroupX;
    CALuint numThreadPerGroupY;
    CALuint numThreadPerGroupZ;
    CALuint totalNumThreadGroup;
    CALuint numWavefrontPerSIMD;
    CALboolean isMaxNumWavePerSIMD;
    CALboolean setBufferForNumGroup;
    CALuint wavefrontSize;
    CALuint numGPRsAvailable;
    CALuint numGPRsUsed;
    CALuint LDSSizeAvailable; /* bytes */
    CALuint LDSSizeUsed;      /* bytes */
    CALuint stackSizeAvailable;
    CALuint stackSizeUsed;
} CALfuncInfo;

/* Subsystem */
CALAPI CALresult CALAPIENTRY calInit(void);
CALAPI CALresult CALAPIENTRY calGetVersion(CALuint *major, CALuint *minor, CALuint *imp);
CALAPI CALresult CALAPIENTRY calShutdown(void);

/* Devices */
CALAPI CALresult CALAPIENTRY calDeviceGetCount(CALuint *count);
CALAPI CALresult CALAPIENTRY calDeviceGetInfo(CALdeviceinfo *info, CALuint ordinal);
CALAPI CALresult CALAPIENTRY calDeviceGetAttribs(CALdeviceattribs *attribs, CALuint ordinal);
CALAPI CALresult CALAPIENTRY calDeviceGetStatus(CALdevicestatus *status, CALdevice dev);
CALAPI CALresult CALAPIENTRY calDeviceOpen(CALdevice *dev, CALuint ordinal);
CALAPI CALresult CALAPIENTRY calDeviceClose(CALdevice dev);

/* Resources (width and height in elements; the pitch calResMap returns is in elements) */
CALAPI CALresult CALAPIENTRY calResAllocLocal2D(CALresource *res, CALdevice dev, CALuint width,
                                                CALuint height, CALformat format, CALuint flags);
CALAPI CALresult CALAPIENTRY calResAllocRemote2D(CALresource *res, CALdevice *dev,
                                                 CALuint deviceCount, CALuint width,
                                                 CALuint height, CALformat format, CALuint flags);
CALAPI CALresult CALAPIENTRY calResAllocLocal1D(CALresource *res, CALdevice dev, CALuint width,
                                                CALformat format, CALuint flags);
CALAPI CALresult CALAPIENTRY calResAllocRemote1D(CALresource *res, CALdevice *dev,
                                                 CALuint deviceCount, CALuint width,
                                                 CALformat format, CALuint flags);
CALAPI CALresult CALAPIENTRY calResFree(CALresource res);
CALAPI CALresult CALAPIENTRY calResMap(CALvoid **pPtr, CALuint *pitch, CALresource res,
                                       CALuint flags);
CALAPI CALresult CALAPIENTRY calResUnmap(CALresource res);

/* Contexts and memory handles */
CALAPI CALresult CALAPIENTRY calCtxCreate(CALcontext *ctx, CALdevice dev);
CALAPI CALresult CALAPIENTRY calCtxDestroy(CALcontext ctx);
CALAPI CALresult CALAPIENTRY calCtxGetMem(CALmem *mem, CALcontext ctx, CALresource res);
CALAPI CALresult CALAPIENTRY calCtxReleaseMem(CALcontext ctx, CALmem mem);
CALAPI CALresult CALAPIENTRY calCtxSetMem(CALcontext ctx, CALname name, CALmem mem);

/* Execution */
CALAPI CALresult CALAPIENTRY calCtxRunProgram(CALevent *event, CALcontext ctx, CALfunc func,
                                              const CALdomain *domain);
CALAPI CALresult CALAPIENTRY calCtxIsEventDone(CALcontext ctx, CALevent event);
CALAPI CALresult CALAPIENTRY calCtxFlush(CALcontext ctx);
CALAPI CALresult CALAPIENTRY calMemCopy(CALevent *event, CALcontext ctx, CALmem srcMem,
                                        CALmem dstMem, CALuint flags);
/* Compute-shader launches: gridSize groups of the kernel's group size (also available
 * through calExtGetProc(CAL_EXT_COMPUTE_SHADER), see cal_ext.h). */
CALAPI CALresult CALAPIENTRY calCtxRunProgramGrid(CALevent *event, CALcontext ctx,
                                                  CALprogramGrid *pProgramGrid);
CALAPI CALresult CALAPIENTRY calCtxRunProgramGridArray(CALevent *event, CALcontext ctx,
                                                       CALprogramGridArray *pGridArray);

/* Images and modules */
CALAPI CALresult CALAPIENTRY calImageRead(CALimage *image, const CALvoid *buffer, CALuint size);
CALAPI CALresult CALAPIENTRY calImageFree(CALimage image);
CALAPI CALresult CALAPIENTRY calModuleLoad(CALmodule *module, CALcontext ctx, CALimage image);
CALAPI CALresult CALAPIENTRY calModuleUnload(CALcontext ctx, CALmodule module);
CALAPI CALresult CALAPIENTRY calModuleGetEntry(CALfunc *func, CALcontext ctx, CALmodule module,
                                               const CALchar *procName);
CALAPI CALresult CALAPIENTRY calModuleGetName(CALname *name, CALcontext ctx, CALmodule module,
                                              const CALchar *varName);

CALAPI CALresult CALAPIENTRY calModuleGetFuncInfo(CALfuncInfo *pInfo, CALcontext ctx,
                                                  CALmodule module, CALfunc func);

/* The text of the last error of this thread's CAL runtime calls. */
CALAPI const CALchar *CALAPIENTRY calGetErrorString(void);

#ifdef __cplusplus
}
#endif

#endif /* __CAL_H__ */
