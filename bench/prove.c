/* cuzk-bench prove: per-stage times of the Groth16 prover (--backend cpu,
 * gpu or auto) on a snarkjs key, the median of several runs after one
 * warm-up run. Every run is a
 * cuzk_prove job on one workspace, as an engine proves. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuzk/formats.h>
#include <cuzk/groth16.h>
#include <cuzk/prove.h>
#ifdef CUZK_HAVE_GPU
#include <cuzk/gpu.h>
#endif

#include "bench.h"

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int bench_prove(int argc, char **argv)
{
    const char *zkey = NULL, *wtns = NULL, *backend = "cpu";
    int runs = 5;
    unsigned threads = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--zkey") && i + 1 < argc) {
            zkey = argv[++i];
        } else if (!strcmp(argv[i], "--wtns") && i + 1 < argc) {
            wtns = argv[++i];
        } else if (!strcmp(argv[i], "--backend") && i + 1 < argc) {
            backend = argv[++i];
        } else if (!strcmp(argv[i], "--runs") && i + 1 < argc) {
            runs = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "--threads") && i + 1 < argc) {
            threads = (unsigned)atoi(argv[++i]);
        } else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            printf("usage: cuzk-bench prove --zkey K.zkey --wtns W.wtns [--runs N] [--threads T]\n"
                   "                        [--backend cpu|gpu|auto]\n"
                   "Median per-stage times of N proofs (default 5) after one warm-up, on the\n"
                   "CPU (the default) or the GPU backend (auto: the GPU when present).\n");
            return 0;
        } else {
            fprintf(stderr, "cuzk-bench prove: unknown option '%s' (see --help)\n", argv[i]);
            return 2;
        }
    }
    if (!zkey || !wtns) {
        fprintf(stderr, "cuzk-bench prove: --zkey and --wtns are required\n");
        return 2;
    }
    if (strcmp(backend, "cpu") && strcmp(backend, "gpu") && strcmp(backend, "auto")) {
        fprintf(stderr, "cuzk-bench prove: --backend expects cpu, gpu or auto\n");
        return 2;
    }
#ifdef CUZK_HAVE_GPU
    (void)cuzk_gpu_backend_register();
#else
    if (!strcmp(backend, "gpu")) {
        fprintf(stderr, "cuzk-bench prove: built without CUDA: no gpu backend\n");
        return 2;
    }
#endif
    if (runs < 1 || runs > 1000) {
        fprintf(stderr, "cuzk-bench prove: --runs must be 1..1000\n");
        return 2;
    }
    char err[CUZK_ERRMSG_LEN];
    cuzk_blob zb = {0}, wb = {0};
    cuzk_zkey z = {0};
    cuzk_wtns w = {0};
    cuzk_groth16_pk pk = {0};
    cuzk_workspace *ws = NULL;
    cuzk_config cfg;
    cuzk_config_default(&cfg);
    cfg.backend = backend;
    cfg.nthreads = threads;
    int rc = 2;
    if (cuzk_blob_map(&zb, zkey, err) != CUZK_OK || cuzk_blob_read(&wb, wtns, err) != CUZK_OK ||
        cuzk_zkey_parse(&z, zb.data, zb.size, CUZK_FMT_TRUST_POINTS, err) != CUZK_OK ||
        cuzk_wtns_parse(&w, wb.data, wb.size, err) != CUZK_OK ||
        cuzk_groth16_pk_from_zkey(&pk, &z, threads, err) != CUZK_OK ||
        cuzk_workspace_create(&ws, &pk, &cfg, err) != CUZK_OK) {
        fprintf(stderr, "cuzk-bench prove: %s\n", err);
        goto out;
    }
    /* "MSM C": L, H and r B1, which the prover runs as one MSM. */
    /* The stages a, b, c .. self-check, then the total (DONE). */
    enum { FIRST = CUZK_STAGE_ROWS, STAGES = CUZK_STAGE_DONE - CUZK_STAGE_ROWS + 1 };
    double *ms = calloc((size_t)runs * STAGES, sizeof *ms);
    if (!ms) goto out;
    for (int r = -1; r < runs; r++) {
        cuzk_prove_job job = {0};
        job.witness = CUZK_WITNESS_DENSE;
        job.w = w.w;
        job.n_w = w.n;
        cuzk_prove_result res;
        if (cuzk_prove(ws, &job, &res, err) != CUZK_OK) {
            fprintf(stderr, "cuzk-bench prove: %s\n", err);
            free(ms);
            goto out;
        }
        if (r < 0) continue; /* warm-up */
        const cuzk_prove_timings t = res.t;
        for (int s = 0; s < STAGES; s++)
            ms[s * runs + r] = cuzk_prove_stage_ms(&t, (cuzk_prove_stage)(FIRST + s));
    }
    printf("%s: %u variables, %u public, domain 2^%u, %d runs, backend %s\n", zkey, pk.n_vars,
           pk.n_public, pk.log_domain, runs, cuzk_workspace_backend(ws));
    printf("%-14s %12s %12s %12s\n", "stage", "median ms", "min ms", "max ms");
    for (int s = 0; s < STAGES; s++) {
        double *x = ms + s * runs;
        qsort(x, (size_t)runs, sizeof *x, cmp_double);
        cuzk_prove_stage st = (cuzk_prove_stage)(FIRST + s);
        printf("%-14s %12.2f %12.2f %12.2f\n", st == CUZK_STAGE_DONE ? "prover total" : cuzk_prove_stage_name(st), x[runs / 2], x[0], x[runs - 1]);
    }
    free(ms);
    rc = 0;
out:
    cuzk_workspace_destroy(ws);
    cuzk_groth16_pk_free(&pk);
    cuzk_wtns_free(&w);
    cuzk_zkey_free(&z);
    cuzk_blob_release(&zb);
    cuzk_blob_release(&wb);
    return rc;
}
