/* The C interface from C: versions, options (init, refusal with a message, a newer header's
 * larger struct, texture settings), a compile with a warning (an info log on success), a compile error (an
 * error log labelled with the source name), kernel names in and out, status strings.
 * Prints "api_test: ok" and exits 0, or names the first failed check and exits 1.
 * Built and run by compiler/capi/tests/c_example.rs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ilc.h"

static int failures = 0;

#define CHECK(cond)                                                              \
    do {                                                                         \
        if (!(cond)) {                                                           \
            fprintf(stderr, "api_test.c:%d: check failed: %s\n", __LINE__, #cond); \
            failures++;                                                          \
        }                                                                        \
    } while (0)

static const char WARNS[] =
    "il_cs_2_0\n"
    "dcl_num_thread_per_group 64\n"
    "dcl_raw_uav_id(0)\n"
    "mov r0.x, vTidInGrp.x\n"
    "if_logicalnz r0.x\n"
    "fence_threads_lds\n"
    "endif\n"
    "uav_raw_store_id(0) mem.x, r0.x, r0.x\n"
    "end\n";

static const char BAD[] = "il_cs_2_0\nmov r0.x\nend\n";

int main(void) {
    /* Versions: the header and the library agree. */
    CHECK(ilc_abi_version() == ILC_ABI_VERSION);
    CHECK(ilc_version_number() == ILC_VERSION_NUMBER);
    char expect[32];
    snprintf(expect, sizeof expect, "%d.%d.%d", ILC_VERSION_MAJOR, ILC_VERSION_MINOR,
             ILC_VERSION_PATCH);
    CHECK(strcmp(ilc_version(), expect) == 0);
    CHECK(sizeof(ilc_options) == ILC_OPTIONS_SIZE_V1);

    /* Status strings. */
    CHECK(strcmp(ilc_status_string(ILC_OK), "ok") == 0);
    CHECK(strcmp(ilc_status_string(ILC_ERROR_COMPILE), "compile error") == 0);
    CHECK(strcmp(ilc_status_string(12345), "unknown status") == 0);

    /* Options: defaults, then a refused value with a message. */
    ilc_options opts;
    CHECK(ilc_options_init(&opts, sizeof opts) == ILC_OK);
    CHECK(opts.size == sizeof opts && opts.opt_level == 2 && opts.sm == 50);
    CHECK(ilc_options_init(&opts, 4) == ILC_ERROR_INVALID_ARGUMENT);
    CHECK(ilc_options_init(NULL, sizeof opts) == ILC_ERROR_INVALID_ARGUMENT);
    ilc_options_init(&opts, sizeof opts);
    opts.sm = 61;
    ilc_compiler *compiler = NULL;
    char *error = NULL;
    CHECK(ilc_compiler_new(&opts, &compiler, &error) == ILC_ERROR_INVALID_ARGUMENT);
    CHECK(compiler == NULL);
    CHECK(error != NULL && strstr(error, "sm 61") != NULL);
    ilc_string_free(error);
    error = NULL;
    ilc_options_init(&opts, sizeof opts);
    opts.max_regs = 300;
    CHECK(ilc_compiler_new(&opts, &compiler, NULL) == ILC_ERROR_INVALID_ARGUMENT);

    /* A newer header's struct: larger, its extra members zero (accepted) or set (refused). */
    struct {
        ilc_options base;
        uint64_t newer_member;
    } newer;
    CHECK(ilc_options_init(&newer.base, sizeof newer) == ILC_OK);
    CHECK(newer.newer_member == 0 && newer.base.size == sizeof newer);
    error = (char *)"stale";
    CHECK(ilc_compiler_new(&newer.base, &compiler, &error) == ILC_OK && error == NULL);
    ilc_compiler_free(compiler);
    compiler = NULL;
    newer.newer_member = 7;
    CHECK(ilc_compiler_new(&newer.base, &compiler, &error) == ILC_ERROR_INVALID_ARGUMENT);
    CHECK(error != NULL && strstr(error, "does not know") != NULL);
    ilc_string_free(error);
    error = NULL;

    /* Texture settings: copied by ilc_compiler_new, bad values refused. */
    ilc_texture_format formats[2] = {{0, ILC_TEXEL_UNORM8, 4}, {1, ILC_TEXEL_F32, 7}};
    ilc_sampler_state samplers[1] = {{0, ILC_FILTER_LINEAR, ILC_ADDRESS_WRAP}};
    ilc_options_init(&opts, sizeof opts);
    opts.flags = ILC_FLAG_TEXTURE_LOADS;
    opts.texture_formats = formats;
    opts.texture_format_count = 2;
    opts.sampler_states = samplers;
    opts.sampler_state_count = 1;
    CHECK(ilc_compiler_new(&opts, &compiler, &error) == ILC_ERROR_INVALID_ARGUMENT);
    CHECK(error != NULL && strstr(error, "7 channels") != NULL);
    ilc_string_free(error);
    error = NULL;
    formats[1].channels = 1;
    CHECK(ilc_compiler_new(&opts, &compiler, NULL) == ILC_OK);
    ilc_compiler_free(compiler);
    compiler = NULL;

    ilc_options_init(&opts, sizeof opts);
    opts.cache_bytes = 1 << 20;
    CHECK(ilc_compiler_new(&opts, &compiler, &error) == ILC_OK && error == NULL);
    if (!compiler)
        return 1;

    /* Success with a warning: the log holds it, labelled with the source name. */
    ilc_kernel *kernel = NULL;
    char *log = NULL;
    ilc_status st = ilc_compile(compiler, (const uint8_t *)WARNS, strlen(WARNS), "warns.il",
                                "my_kernel", &kernel, &log);
    CHECK(st == ILC_OK && kernel != NULL);
    CHECK(log != NULL && strstr(log, "warning[W0001]") != NULL && strstr(log, "--> warns.il:6:1") != NULL);
    ilc_string_free(log);
    log = NULL;
    CHECK(kernel && strcmp(ilc_kernel_name(kernel), "my_kernel") == 0);
    size_t cubin_len = 0;
    const uint8_t *cubin = ilc_kernel_cubin(kernel, &cubin_len);
    int found = 0;
    for (size_t i = 0; cubin && i + 10 <= cubin_len; i++)
        found |= memcmp(cubin + i, "my_kernel", 10) == 0;
    CHECK(found);
    ilc_kernel_free(kernel);
    kernel = NULL;

    /* No name: main. A name that is not a C identifier is refused, with a message. */
    CHECK(ilc_compile(compiler, (const uint8_t *)WARNS, strlen(WARNS), NULL, NULL, &kernel,
                      NULL) == ILC_OK);
    CHECK(kernel && strcmp(ilc_kernel_name(kernel), "main") == 0);
    ilc_kernel_free(kernel);
    kernel = NULL;
    CHECK(ilc_compile(compiler, (const uint8_t *)WARNS, strlen(WARNS), NULL, "bad name;x",
                      &kernel, &log) == ILC_ERROR_INVALID_ARGUMENT);
    CHECK(kernel == NULL && log != NULL && strstr(log, "C identifier") != NULL);
    ilc_string_free(log);
    log = NULL;

    /* A compile error: status, log with file:line:col and code. */
    st = ilc_compile(compiler, (const uint8_t *)BAD, strlen(BAD), "bad.il", NULL, &kernel, &log);
    CHECK(st == ILC_ERROR_COMPILE && kernel == NULL);
    CHECK(log != NULL && strstr(log, "bad.il:2:") != NULL && strstr(log, "error[") != NULL);
    ilc_string_free(log);
    log = NULL;
    CHECK(ilc_compile(NULL, (const uint8_t *)BAD, 1, NULL, NULL, &kernel, &log) ==
          ILC_ERROR_INVALID_ARGUMENT);
    ilc_string_free(log);

    uint64_t hits = 0, misses = 0;
    ilc_cache_stats(compiler, &hits, &misses, NULL);
    CHECK(hits == 0 && misses == 3);
    ilc_compiler_free(compiler);
    ilc_compiler_free(NULL);
    ilc_kernel_free(NULL);
    ilc_string_free(NULL);

    if (failures) {
        fprintf(stderr, "api_test: %d checks failed\n", failures);
        return 1;
    }
    printf("api_test: ok\n");
    return 0;
}
