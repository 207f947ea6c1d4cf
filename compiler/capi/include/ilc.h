/* ilc: AMD IL to SPA 5.0 (NVIDIA Maxwell) compiler, C interface.
 *
 * Link with libilc_capi.a (plus -lpthread -ldl -lm) or libilc_capi.so.
 * Handles are opaque. Everything the library returns is released with the matching
 * *_free function; strings returned through `error` with ilc_string_free. Pointers
 * returned by kernel accessors stay valid until ilc_kernel_free. A compiler handle may be
 * used from several threads at once; output is deterministic. No call ever unwinds:
 * failures are status codes with messages.
 *
 * Kept in sync with compiler/capi/src/lib.rs by compiler/capi/tests/header.rs. */
#ifndef ILC_H
#define ILC_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef int32_t ilc_status;
#define ILC_OK 0
#define ILC_ERROR_INVALID_ARGUMENT 1
#define ILC_ERROR_COMPILE 2
#define ILC_ERROR_INTERNAL 3

#define ILC_PARAM_UAV_POINTER 0
#define ILC_PARAM_UAV_SIZE 1
/* Every buffer a launch binds (UAV, SRV, g[], pixel output) holds at most
   ILC_MAX_BUFFER_BYTES: the code addresses it with sign-extended 32-bit offsets. */
#define ILC_MAX_BUFFER_BYTES 0x7f800000ull
#define ILC_PARAM_GLOBAL_POINTER 2
#define ILC_PARAM_GLOBAL_SIZE 3
#define ILC_PARAM_SRV_POINTER 4
#define ILC_PARAM_SRV_SIZE 5
#define ILC_PARAM_CONSTANT_BUFFER 6
#define ILC_PARAM_DOMAIN 7
#define ILC_PARAM_OUTPUT_POINTER 8
#define ILC_PARAM_OUTPUT_SIZE 9
#define ILC_PARAM_TEXTURE_DIMS 10
/* A 64-bit texture object handle; id = resource | sampler << 8 (0xff: none) | unnorm << 16 |
   float channel mask << 17 | shape << 21 (0 1d, 1 1darray, 2 2d, 3 2darray, 4 3d, 5 buffer). */
#define ILC_PARAM_TEXTURE_HANDLE 11
/* Address of a UAV's append/consume counter (one 32-bit word); id = the UAV id. */
#define ILC_PARAM_APPEND_COUNTER 12

typedef struct ilc_options {
    uint32_t opt_level;   /* 0..3 */
    uint32_t sm;          /* 50, 52 or 53 */
    uint32_t max_regs;    /* 0: no limit beyond the hardware's */
    uint64_t cache_bytes; /* 0: no compile cache */
    uint64_t max_source_bytes; /* 0: default (64 MiB) */
    uint64_t max_instructions; /* 0: default (1 million IL instructions, after inlining) */
    uint32_t max_nesting;      /* 0: default (1024) */
    uint64_t max_compile_ms;   /* 0: no compile time limit */
    uint32_t flags;            /* ILC_FLAG_* bits */
} ilc_options;

#define ILC_FLAG_ASSUME_IN_BOUNDS 1u /* skip the IL's out-of-range checks */
#define ILC_FLAG_LAUNCH_1D 2u        /* the launch grid is 1-D (recorded in the layout) */

typedef struct ilc_param {
    uint32_t offset; /* bytes from the start of the parameter area (c[0x0][0x140]) */
    uint32_t size;   /* bytes */
    int32_t kind;    /* ILC_PARAM_* */
    int32_t id;      /* UAV, SRV or constant buffer id; -1 for g[] */
} ilc_param;

typedef struct IlcCompiler ilc_compiler;
typedef struct IlcKernel ilc_kernel;

void ilc_options_default(ilc_options *options);
ilc_status ilc_compiler_new(const ilc_options *options, ilc_compiler **out);
void ilc_compiler_free(ilc_compiler *compiler);
ilc_status ilc_compile(const ilc_compiler *compiler, const uint8_t *source, size_t len,
                       ilc_kernel **kernel, char **error);
void ilc_string_free(char *s);
void ilc_kernel_free(ilc_kernel *kernel);
const uint8_t *ilc_kernel_cubin(const ilc_kernel *kernel, size_t *len);
const uint64_t *ilc_kernel_code(const ilc_kernel *kernel, size_t *words);
/* Constant bank 2 (the literal pool the code reads as c[0x2][..]); the cubin already carries
   it, a loader of the raw code must bind it. *len = 0 when the kernel needs none. */
const uint8_t *ilc_kernel_const_bank2(const ilc_kernel *kernel, size_t *len);
const char *ilc_kernel_asm(const ilc_kernel *kernel);
uint32_t ilc_kernel_param_count(const ilc_kernel *kernel);
ilc_status ilc_kernel_param(const ilc_kernel *kernel, uint32_t index, ilc_param *out);
ilc_status ilc_kernel_launch_info(const ilc_kernel *kernel, uint32_t *shared_bytes,
                                  uint32_t *registers, uint32_t *local_bytes, uint32_t *block);
uint32_t ilc_kernel_launch_flags(const ilc_kernel *kernel); /* ILC_FLAG_LAUNCH_1D if compiled for 1-D grids */
void ilc_cache_stats(const ilc_compiler *compiler, uint64_t *hits, uint64_t *misses,
                     uint64_t *evictions);
const char *ilc_version(void);

#ifdef __cplusplus
}
#endif
#endif /* ILC_H */
