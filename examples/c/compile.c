/* Compiles an AMD IL kernel with ilc's C interface and prints its launch layout.
 * Usage: compile KERNEL.il */
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
    if (argc != 2) {
        fprintf(stderr, "usage: %s KERNEL.il\n", argv[0]);
        return 2;
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
    ilc_options_default(&opts);
    ilc_compiler *compiler = NULL;
    if (ilc_compiler_new(&opts, &compiler) != ILC_OK) {
        fprintf(stderr, "ilc_compiler_new failed\n");
        return 1;
    }
    ilc_kernel *kernel = NULL;
    char *error = NULL;
    ilc_status st = ilc_compile(compiler, src, len, &kernel, &error);
    if (st != ILC_OK) {
        fprintf(stderr, "compile failed (%d): %s\n", (int)st, error ? error : "");
        ilc_string_free(error);
        ilc_compiler_free(compiler);
        return 1;
    }
    size_t cubin_len = 0;
    ilc_kernel_cubin(kernel, &cubin_len);
    uint32_t shared = 0, regs = 0, local = 0, block[3] = {0, 0, 0};
    ilc_kernel_launch_info(kernel, &shared, &regs, &local, block);
    printf("ilc %s: cubin %zu bytes, %u registers, %u bytes shared, %u bytes local, block %ux%ux%u\n",
           ilc_version(), cubin_len, regs, shared, local, block[0], block[1], block[2]);
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
