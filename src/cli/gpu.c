/* cuzk — the GPU behind the command line: setup's fixed-base
 * multiplications (cuzk_setup_opts.fixed_mul) run on device 0 when the tool
 * is built with CUDA and a device is present; otherwise, or with --cpu,
 * they stay on the CPU. The prover's GPU backend is registered here too
 * (cli_gpu_register), so that `prove --backend gpu|auto` finds it. */
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"

#ifdef CUZK_HAVE_GPU
#include <cuzk/gpu.h>

struct cli_gpu {
    cuzk_gpu_ctx *ctx;
    cuzk_gpu_fixed *fixed[2]; /* G1, G2 generators */
};

static cuzk_status gpu_fixed_mul(void *vctx, int g2, void *out, const cuzk_fr *s, size_t n,
                                 char *err)
{
    cli_gpu *g = vctx;
    return cuzk_gpu_fixed_mul(out, g->fixed[g2 != 0], s, n, err);
}

cli_gpu *cli_gpu_open(int quiet)
{
    char err[CUZK_ERRMSG_LEN] = "";
    int count = 0;
    if (cuzk_gpu_device_count(&count, err) != CUZK_OK || count == 0) {
        if (!quiet)
            fprintf(stderr, "gpu: no CUDA device%s%s; using the CPU\n", *err ? ": " : "", err);
        return NULL;
    }
    /* The multipliers' tables (G1 624 MiB, G2 1.2 GiB) and batch slots come
     * from the context's pool: 4 GiB covers both. */
    cuzk_gpu_ctx_opts opts = {0, (size_t)4 << 30, 1};
    cli_gpu *g = calloc(1, sizeof *g);
    cuzk_status st = CUZK_ERR_NO_MEMORY;
    if (!g || (st = cuzk_gpu_ctx_create(&g->ctx, &opts, err)) != CUZK_OK ||
        (st = cuzk_gpu_fixed_create(&g->fixed[0], g->ctx, CUZK_GPU_G1, NULL, err)) != CUZK_OK ||
        (st = cuzk_gpu_fixed_create(&g->fixed[1], g->ctx, CUZK_GPU_G2, NULL, err)) != CUZK_OK) {
        fprintf(stderr, "%s (%s); using the CPU\n", *err ? err : "gpu: device 0 unusable",
                cuzk_strerror(st));
        cli_gpu_close(g);
        return NULL;
    }
    if (!quiet) {
        cuzk_gpu_device_info info;
        if (cuzk_gpu_get_device_info(&info, 0, NULL) == CUZK_OK)
            fprintf(stderr, "gpu: device 0, %s\n", info.name);
    }
    return g;
}

int cli_gpu_register(void) { return cuzk_gpu_backend_register() == CUZK_OK; }

void cli_gpu_close(cli_gpu *g)
{
    if (!g) return;
    cuzk_gpu_fixed_destroy(g->fixed[0]);
    cuzk_gpu_fixed_destroy(g->fixed[1]);
    cuzk_gpu_ctx_destroy(g->ctx);
    free(g);
}

void cli_gpu_setup_hook(cli_gpu *g, cuzk_setup_opts *o)
{
    if (!g) return;
    o->fixed_mul = gpu_fixed_mul;
    o->fixed_mul_ctx = g;
}

#else /* built without CUDA */

cli_gpu *cli_gpu_open(int quiet)
{
    if (!quiet) fprintf(stderr, "gpu: built without CUDA; using the CPU\n");
    return NULL;
}

int cli_gpu_register(void) { return 0; }

void cli_gpu_close(cli_gpu *g) { (void)g; }

void cli_gpu_setup_hook(cli_gpu *g, cuzk_setup_opts *o)
{
    (void)g;
    (void)o;
}

#endif
