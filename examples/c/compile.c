/* Compiles an AMD IL kernel with ilc's C interface and prints its warnings and launch layout.
 * Usage: compile KERNEL.il [NAME] (NAME: the kernel's symbol in the cubin, default main) */
#include <stdio.h>
#include <stdlib.h>

#include "ilc.h"

static const char *kind_name(int32_t k) {
    switch (k) {
    case ILC_PARAM_UAV_POINTER: return "uav pointer";
    case ILC_PARAM_UAV_SIZE: return "uav size";
    case ILC_PARAM_GLOBAL_POINTER: return "g[] pointer";
    case ILC_PARAM_GLOBAL_SIZE: return "g[] size";
    case ILC_PARAM_SRV_POINTER: return "srv pointer";
    case ILC_PARAM_SRV_SIZE: return "srv size";
    case ILC_PARAM_CONSTANT_BUFFER: return "constant buffer";
    case ILC_PARAM_DOMAIN: return "pixel domain";
    case ILC_PARAM_OUTPUT_POINTER: return "output pointer";
    case ILC_PARAM_OUTPUT_SIZE: return "output size";
    case ILC_PARAM_TEXTURE_DIMS: return "texture size";
    case ILC_PARAM_TEXTURE_HANDLE: return "texture object";
    case ILC_PARAM_APPEND_COUNTER: return "append counter pointer";
    default: return "?";
    }
}

int main(int argc, char **argv) {
    if (argc != 2 && argc != 3) {
        fprintf(stderr, "usage: %s KERNEL.il [NAME]\n", argv[0]);
        return 2;
    }
    if (ilc_abi_version() != ILC_ABI_VERSION) {
        fprintf(stderr, "libilc_capi has ABI %u, ilc.h %d\n", ilc_abi_version(), ILC_ABI_VERSION);
        return 1;
    }
    FILE *f = fopen(argv[1], "rb");
    if (!f) {
        perror(argv[1]);
        return 1;
    }
    static uint8_t src[1 << 20];
    size_t len = fread(src, 1, sizeof src, f);
    fclose(f);

    ilc_options opts;
    ilc_options_init(&opts, sizeof opts);
    ilc_compiler *compiler = NULL;
    char *error = NULL;
    ilc_status st = ilc_compiler_new(&opts, &compiler, &error);
    if (st != ILC_OK) {
        fprintf(stderr, "ilc_compiler_new: %s: %s\n", ilc_status_string(st), error ? error : "");
        ilc_string_free(error);
        return 1;
    }
    ilc_kernel *kernel = NULL;
    char *log = NULL;
    st = ilc_compile(compiler, src, len, argv[1], argc == 3 ? argv[2] : NULL, &kernel, &log);
    if (log) /* the errors on failure, the warnings on success */
        fputs(log, stderr);
    ilc_string_free(log);
    if (st != ILC_OK) {
        fprintf(stderr, "compile failed (%d: %s)\n", (int)st, ilc_status_string(st));
        ilc_compiler_free(compiler);
        return 1;
    }
    size_t cubin_len = 0;
    ilc_kernel_cubin(kernel, &cubin_len);
    uint32_t shared = 0, regs = 0, local = 0, block[3] = {0, 0, 0};
    ilc_kernel_launch_info(kernel, &shared, &regs, &local, block);
    printf("ilc %s: kernel %s: cubin %zu bytes, %u registers, %u bytes shared, %u bytes local, "
           "block %ux%ux%u\n",
           ilc_version(), ilc_kernel_name(kernel), cubin_len, regs, shared, local, block[0],
           block[1], block[2]);
    uint32_t n = ilc_kernel_param_count(kernel);
    for (uint32_t i = 0; i < n; i++) {
        ilc_param p;
        if (ilc_kernel_param(kernel, i, &p) == ILC_OK)
            printf("param %u: offset %u size %u %s %d\n", i, p.offset, p.size, kind_name(p.kind), p.id);
    }
    ilc_kernel_free(kernel);
    ilc_compiler_free(compiler);
    return 0;
}
