/* ilc: AMD IL to SPA 5.0 (NVIDIA Maxwell) compiler, C interface.
 *
 * Link with libilc_capi.a (plus -lpthread -ldl -lm) or libilc_capi.so (SONAME
 * libilc_capi.so.<ILC_ABI_VERSION>).
 *
 * Conventions for every function:
 * - Ownership: every handle the library returns is released with its *_free function, every
 *   string returned through a `log` or `error` argument with ilc_string_free (each exactly
 *   once; passing NULL to a *_free function does nothing). Pointers returned by kernel
 *   accessors belong to the kernel and stay valid until ilc_kernel_free. Strings documented as
 *   static are never freed.
 * - Threads: a compiler handle may be used from several threads at once (the compile cache is
 *   locked); a kernel is immutable, so its accessors may be called concurrently. Freeing a
 *   handle must not race with its use. Output is deterministic.
 * - Errors: no call ever unwinds into C. Failures are ilc_status codes; where a function has a
 *   `log` or `error` argument, the message is there (NULL argument: no message).
 *   Internal errors (a caught bug) are ILC_ERROR_INTERNAL with a message.
 *
 * ABI: ILC_ABI_VERSION numbers the binary interface; a program checks
 * ilc_abi_version() == ILC_ABI_VERSION at start-up. Within an ABI functions are only added and
 * ilc_options only grows at its end: its first member is the size the caller compiled it with
 * (ilc_options_init sets it), members past that size take their defaults, and a larger struct
 * (a newer header) is accepted when the members the library does not know are zero. ABI 1 is
 * the first versioned interface and is not compatible with the unversioned ilc 0.1 one.
 *
 * Kept in sync with compiler/capi/src/lib.rs by compiler/capi/tests/c_example.rs (functions,
 * their parameter counts, constants and the options layout); compiler/capi/tests/c/api_test.c
 * exercises the interface from C. */
#ifndef ILC_H
#define ILC_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define ILC_ABI_VERSION 1
#define ILC_VERSION_MAJOR 0
#define ILC_VERSION_MINOR 1
#define ILC_VERSION_PATCH 0
/* major * 1000000 + minor * 1000 + patch */
#define ILC_VERSION_NUMBER 1000

typedef int32_t ilc_status;
#define ILC_OK 0
#define ILC_ERROR_INVALID_ARGUMENT 1 /* a null pointer or a value out of range */
#define ILC_ERROR_COMPILE 2          /* the kernel does not compile; the log says why */
#define ILC_ERROR_INTERNAL 3         /* a bug in ilc, reported with a message */

/* Every buffer a launch binds (UAV, SRV, g[], pixel output) holds at most
   ILC_MAX_BUFFER_BYTES: the code addresses it with sign-extended 32-bit offsets. */
#define ILC_MAX_BUFFER_BYTES 0x7f800000ull

#define ILC_PARAM_UAV_POINTER 0
#define ILC_PARAM_UAV_SIZE 1
#define ILC_PARAM_GLOBAL_POINTER 2
#define ILC_PARAM_GLOBAL_SIZE 3
#define ILC_PARAM_SRV_POINTER 4
#define ILC_PARAM_SRV_SIZE 5
#define ILC_PARAM_CONSTANT_BUFFER 6
#define ILC_PARAM_DOMAIN 7 /* pixel-shader domain: width and height (two 32-bit words) */
#define ILC_PARAM_OUTPUT_POINTER 8
#define ILC_PARAM_OUTPUT_SIZE 9
#define ILC_PARAM_TEXTURE_DIMS 10
/* A 64-bit texture object handle; id = resource | sampler << 8 (0xff: none) | unnorm << 16 |
   float channel mask << 17 | shape << 21 (0 1d, 1 1darray, 2 2d, 3 2darray, 4 3d, 5 buffer). */
#define ILC_PARAM_TEXTURE_HANDLE 11
/* Address of a UAV's append/consume counter (one 32-bit word); id = the UAV id. */
#define ILC_PARAM_APPEND_COUNTER 12
/* The view of typed UAV `id`: four 32-bit words, components per element (1..4), width, height
   and depth in elements (without a resource shape: 1, size / 4, 1, 1). */
#define ILC_PARAM_UAV_VIEW 13
/* Pixel-shader domain origin: x and y of the domain's first pixel (two 32-bit words). */
#define ILC_PARAM_DOMAIN_ORIGIN 14

/* The storage of one texture resource (as `ilc --texture ID=FORMATxN`). */
typedef struct ilc_texture_format {
    uint32_t resource; /* resource id */
    uint32_t format;   /* ILC_TEXEL_* */
    uint32_t channels; /* 1..4 */
} ilc_texture_format;

#define ILC_TEXEL_F32 0
#define ILC_TEXEL_U32 1
#define ILC_TEXEL_S32 2
#define ILC_TEXEL_UNORM8 3
#define ILC_TEXEL_U8 4
#define ILC_TEXEL_UNORM16 5
#define ILC_TEXEL_U16 6

/* One sampler's state (as `ilc --sampler ID=FILTER,ADDRESS`). */
typedef struct ilc_sampler_state {
    uint32_t sampler; /* sampler id */
    uint32_t filter;  /* ILC_FILTER_* */
    uint32_t address; /* ILC_ADDRESS_*, for every axis */
} ilc_sampler_state;

#define ILC_FILTER_POINT 0
#define ILC_FILTER_LINEAR 1
#define ILC_ADDRESS_CLAMP 0
#define ILC_ADDRESS_WRAP 1
#define ILC_ADDRESS_MIRROR 2
#define ILC_ADDRESS_BORDER 3

/* Compiler options. Initialise with ilc_options_init(&o, sizeof o), then change members.
   Members are only ever appended (see ABI above). */
typedef struct ilc_options {
    uint32_t size;             /* sizeof(ilc_options) as compiled; set by ilc_options_init */
    uint32_t opt_level;        /* 0..3 (default 2) */
    uint32_t sm;               /* 50, 52 or 53 (default 50) */
    uint32_t max_regs;         /* 1..254 registers per thread; 0: the hardware's limit */
    uint64_t cache_bytes;      /* 0: no compile cache */
    uint64_t max_source_bytes; /* 0: default (64 MiB) */
    uint64_t max_instructions; /* 0: default (1 million IL instructions, after inlining) */
    uint64_t max_compile_ms;   /* 0: no compile time limit */
    uint32_t max_nesting;      /* 0: default (1024) */
    uint32_t flags;            /* ILC_FLAG_* bits */
    /* With ILC_FLAG_TEXTURE_LOADS, the texture storage and sampler states the code assumes
       (default: four channels of the declared type; point filtering, clamp). Arrays of the
       counts' entries, or NULL with a count of 0; ilc_compiler_new copies them. An unknown
       value or an id given twice is ILC_ERROR_INVALID_ARGUMENT. */
    const ilc_texture_format *texture_formats;
    uint32_t texture_format_count;
    uint32_t sampler_state_count;
    const ilc_sampler_state *sampler_states;
} ilc_options;

/* sizeof(ilc_options) in ABI 1 (64-bit targets): the smallest size ilc_options_init and
   ilc_compiler_new take. */
#define ILC_OPTIONS_SIZE_V1 80

#define ILC_FLAG_ASSUME_IN_BOUNDS 1u /* skip the IL's out-of-range checks */
#define ILC_FLAG_LAUNCH_1D 2u        /* the launch grid is 1-D (recorded in the layout) */
#define ILC_FLAG_NO_LITERAL_POOL 4u  /* no constant bank 2: constants in the code words */
#define ILC_FLAG_TEXTURE_LOADS 8u    /* textures read as plain buffers, filtered in code */

typedef struct ilc_param {
    uint32_t offset; /* bytes from the start of the parameter area (c[0x0][0x140]) */
    uint32_t size;   /* bytes */
    int32_t kind;    /* ILC_PARAM_* */
    int32_t id;      /* UAV, SRV or constant buffer id; -1 for g[] */
} ilc_param;

typedef struct IlcCompiler ilc_compiler;
typedef struct IlcKernel ilc_kernel;

/* Fills the first `size` bytes of *options with the defaults (-O2, sm_50, no register limit,
   no cache, default limits, no flags) and sets options->size = size. Pass sizeof(ilc_options).
   ILC_ERROR_INVALID_ARGUMENT if options is NULL or size < ILC_OPTIONS_SIZE_V1. */
ilc_status ilc_options_init(ilc_options *options, size_t size);

/* Creates a compiler from *options (NULL: the defaults) into *out. Refused options (a value out
   of range, unknown flag bits, bad texture settings, a size not set by ilc_options_init) are
   ILC_ERROR_INVALID_ARGUMENT with a message in *error (if error is not NULL; free it with
   ilc_string_free; NULL on success). The options (and the texture arrays) are copied: they may be changed or
   freed afterwards.
   Release the compiler with ilc_compiler_free once no thread uses it. */
ilc_status ilc_compiler_new(const ilc_options *options, ilc_compiler **out, char **error);

/* Releases a compiler and its cache (NULL: nothing). Kernels it produced stay valid. */
void ilc_compiler_free(ilc_compiler *compiler);

/* Compiles `len` bytes of AMD IL (text or the binary token stream, detected) into *kernel.
   kernel_name: the kernel's symbol in the cubin, a C identifier (NULL: "main"); another name is
   ILC_ERROR_INVALID_ARGUMENT. source_name: the file name diagnostics are labelled with (NULL:
   "<source>"). *log (if log is not NULL) receives the rendered diagnostics
   (`name:line:col: error[CODE]: ...` with the source line): on ILC_ERROR_COMPILE the errors and
   warnings, on ILC_OK the warnings, or NULL when there are none; free it with ilc_string_free.
   Thread-safe on one compiler. Release the kernel with ilc_kernel_free. */
ilc_status ilc_compile(const ilc_compiler *compiler, const uint8_t *source, size_t len,
                       const char *source_name, const char *kernel_name, ilc_kernel **kernel,
                       char **log);

/* Releases a string returned through a `log` or `error` argument (NULL: nothing). */
void ilc_string_free(char *s);

/* Releases a kernel (NULL: nothing); the pointers its accessors returned become invalid. */
void ilc_kernel_free(ilc_kernel *kernel);

/* The kernel's symbol in the cubin (what cuModuleGetFunction looks up). NULL for NULL. */
const char *ilc_kernel_name(const ilc_kernel *kernel);

/* The cubin (an sm_5x ELF for cuModuleLoadData); *len (if not NULL) receives its size. */
const uint8_t *ilc_kernel_cubin(const ilc_kernel *kernel, size_t *len);

/* The raw code words (a control word before every three instructions); *words receives their
   count. They read constant bank 2 (ilc_kernel_const_bank2) when it is not empty. */
const uint64_t *ilc_kernel_code(const ilc_kernel *kernel, size_t *words);

/* Constant bank 2 (the literal pool the code reads as c[0x2][..]); the cubin already carries
   it, a loader of the raw code must bind it. *len = 0 when the kernel needs none. */
const uint8_t *ilc_kernel_const_bank2(const ilc_kernel *kernel, size_t *len);

/* The assembly in nvdisasm syntax, NUL-terminated. */
const char *ilc_kernel_asm(const ilc_kernel *kernel);

/* Number of kernel parameters (0 for NULL). */
uint32_t ilc_kernel_param_count(const ilc_kernel *kernel);

/* Parameter `index` (in offset order) into *out; ILC_ERROR_INVALID_ARGUMENT past the end. */
ilc_status ilc_kernel_param(const ilc_kernel *kernel, uint32_t index, ilc_param *out);

/* Launch facts: static shared memory bytes, registers per thread, local memory bytes per thread
   and the required block size (block: three values, 0s if the kernel declares none). Any
   output may be NULL. */
ilc_status ilc_kernel_launch_info(const ilc_kernel *kernel, uint32_t *shared_bytes,
                                  uint32_t *registers, uint32_t *local_bytes, uint32_t *block);

/* ILC_FLAG_LAUNCH_1D if the kernel was compiled for 1-D grids (a driver recompiles without the
   flag for other launches); 0 otherwise or for NULL. */
uint32_t ilc_kernel_launch_flags(const ilc_kernel *kernel);

/* Compile cache counters (all 0 without a cache). Any output may be NULL. */
void ilc_cache_stats(const ilc_compiler *compiler, uint64_t *hits, uint64_t *misses,
                     uint64_t *evictions);

/* A static description of a status code ("ok", "invalid argument", "compile error",
   "internal compiler error", or "unknown status"); never NULL. */
const char *ilc_status_string(ilc_status status);

/* The library version, a static string ("0.1.0"). */
const char *ilc_version(void);

/* The library version as a number, major * 1000000 + minor * 1000 + patch. */
uint32_t ilc_version_number(void);

/* The binary interface version; compare with ILC_ABI_VERSION. */
uint32_t ilc_abi_version(void);

#ifdef __cplusplus
}
#endif
#endif /* ILC_H */
