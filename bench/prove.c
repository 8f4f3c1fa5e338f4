/* cuzk-bench prove: per-stage times of the Groth16 prover (--backend cpu,
 * gpu or auto) on a snarkjs key and witness, or on a .cuzk key with a
 * built-in circuit's PCE and jobs (a witness each run, not timed in the
 * prover total), the median of several runs after one warm-up run. Every run is a
 * cuzk_prove job on one workspace, as an engine proves. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuzk/formats.h>
#include <cuzk/groth16.h>
#include <cuzk/pce.h>
#include <cuzk/prove.h>
#ifdef CUZK_HAVE_GPU
#include <cuzk/gpu.h>
#endif

#include "bench.h"

static double now_ms(void) { return (double)bench_now_ns() / 1e6; }

int bench_prove(int argc, char **argv)
{
    const char *zkey = NULL, *wtns = NULL, *backend = "cpu";
    const char *keyfile = NULL, *pce_path = NULL, *circuit = NULL;
    unsigned size = 0;
    int runs = 5;
    unsigned threads = 0, gpu_streams = 0, gpu_msm_flags = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--zkey") && i + 1 < argc) {
            zkey = argv[++i];
        } else if (!strcmp(argv[i], "--wtns") && i + 1 < argc) {
            wtns = argv[++i];
        } else if (!strcmp(argv[i], "--key") && i + 1 < argc) {
            keyfile = argv[++i];
        } else if (!strcmp(argv[i], "--pce") && i + 1 < argc) {
            pce_path = argv[++i];
        } else if (!strcmp(argv[i], "--circuit") && i + 1 < argc) {
            circuit = argv[++i];
        } else if (!strcmp(argv[i], "--size") && i + 1 < argc) {
            i++;
            size = strcmp(argv[i], "full") ? (unsigned)atoi(argv[i]) : 0;
        } else if (!strcmp(argv[i], "--backend") && i + 1 < argc) {
            backend = argv[++i];
        } else if (!strcmp(argv[i], "--runs") && i + 1 < argc) {
            runs = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "--threads") && i + 1 < argc) {
            threads = (unsigned)atoi(argv[++i]);
        } else if (!strcmp(argv[i], "--gpu-streams") && i + 1 < argc) {
            gpu_streams = (unsigned)strtoul(argv[++i], NULL, 0);
        } else if (!strcmp(argv[i], "--gpu-msm-flags") && i + 1 < argc) {
            gpu_msm_flags = (unsigned)strtoul(argv[++i], NULL, 0);
        } else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            printf("usage: cuzk-bench prove (--zkey K.zkey --wtns W.wtns\n"
                   "                        | --key K.cuzk --pce P.pce --circuit ID [--size full|N])\n"
                   "                        [--runs N] [--threads T] [--backend cpu|gpu|auto]\n"
                   "                        [--gpu-streams N] [--gpu-msm-flags F]\n"
                   "Median per-stage times of N proofs (default 5) after one warm-up, on the\n"
                   "CPU (the default) or the GPU backend (auto: the GPU when present).\n"
                   "--gpu-streams 2: the GPU's five MSMs share one scratch and run in turn;\n"
                   "3: two scratches (H | the sparse MSMs, windows sorted in batches); the\n"
                   "default: each its own stream while they fit; --gpu-msm-flags: the\n"
                   "plans' flags as cuzk_config.gpu_msm_flags (0x100: plain, no upgrades).\n");
            return 0;
        } else {
            fprintf(stderr, "cuzk-bench prove: unknown option '%s' (see --help)\n", argv[i]);
            return 2;
        }
    }
    if (!(zkey && wtns && !keyfile) && !(keyfile && pce_path && circuit && !zkey && !wtns)) {
        fprintf(stderr, "cuzk-bench prove: give --zkey and --wtns, or --key, --pce and "
                        "--circuit\n");
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
    cuzk_pce pce = {0};
    cuzk_workspace *ws = NULL;
    double t_key = 0, t_ws = 0;
    cuzk_config cfg;
    cuzk_config_default(&cfg);
    cfg.backend = backend;
    cfg.nthreads = threads;
    cfg.gpu_streams = gpu_streams;
    cfg.gpu_msm_flags = gpu_msm_flags;
    int rc = 2;
    char label[64];
    t_key = now_ms();
    if (keyfile ? cuzk_keyfile_map_pk(&pk, keyfile, 0, threads, label, err) != CUZK_OK ||
                      cuzk_pce_load(&pce, pce_path, 0, threads, err) != CUZK_OK
                : cuzk_blob_map(&zb, zkey, err) != CUZK_OK ||
                      cuzk_blob_read(&wb, wtns, err) != CUZK_OK ||
                      cuzk_zkey_parse(&z, zb.data, zb.size, CUZK_FMT_TRUST_POINTS, err) !=
                          CUZK_OK ||
                      cuzk_wtns_parse(&w, wb.data, wb.size, err) != CUZK_OK ||
                      cuzk_groth16_pk_from_zkey(&pk, &z, threads, err) != CUZK_OK) {
        fprintf(stderr, "cuzk-bench prove: %s\n", err);
        goto out;
    }
    t_key = now_ms() - t_key;
    t_ws = now_ms();
    if (cuzk_workspace_create(&ws, &pk, &cfg, err) != CUZK_OK) {
        fprintf(stderr, "cuzk-bench prove: workspace (backend %s): %s\n", backend, err);
        goto out;
    }
    t_ws = now_ms() - t_ws;
    /* "MSM C": L, H and r B1, which the prover runs as one MSM. */
    /* The stages witness .. self-check, then the total (DONE). */
    enum { FIRST = CUZK_STAGE_WITNESS, STAGES = CUZK_STAGE_DONE - CUZK_STAGE_WITNESS + 1 };
    double *ms = calloc((size_t)runs * STAGES, sizeof *ms);
    if (!ms) goto out;
    for (int r = -1; r < runs; r++) {
        cuzk_prove_job job = {0};
        if (keyfile) {
            job.witness = CUZK_WITNESS_CIRCUIT;
            job.circuit = (cuzk_circuit_job){circuit, size, NULL, 0, 1000 + (uint64_t)(r + 1), 0};
            job.pce = &pce;
        } else {
            job.witness = CUZK_WITNESS_DENSE;
            job.w = w.w;
            job.n_w = w.n;
        }
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
    printf("%s: %u variables, %u public, domain 2^%u, %d runs, backend %s\n",
           keyfile ? keyfile : zkey, pk.n_vars, pk.n_public, pk.log_domain, runs,
           cuzk_workspace_backend(ws));
    /* The key's points as a GPU workspace uploads them (A, B1, L, H in G1,
     * B2 in G2), and the workspace's creation time: the key's load rate
     * from the mapping (page cache, or the disk for a cold file). */
    double pts = ((double)pk.n_vars + 3.0 * pk.n_b + (pk.n_vars - pk.n_public - 1) +
                  ((size_t)1 << pk.log_domain)) * sizeof(cuzk_g1_affine);
    printf("key load %.1f ms; workspace %.1f ms, %.2f GB of points, %.2f GB/s; %.2f GB held\n",
           t_key, t_ws, pts / 1e9, pts / 1e6 / (t_ws > 0 ? t_ws : 1),
           (double)cuzk_workspace_bytes(ws) / 1e9);
    printf("%-14s %12s %12s %12s\n", "stage", "median ms", "min ms", "max ms");
    for (int s = 0; s < STAGES; s++) {
        double *x = ms + s * runs;
        qsort(x, (size_t)runs, sizeof *x, bench_cmp_double);
        cuzk_prove_stage st = (cuzk_prove_stage)(FIRST + s);
        printf("%-14s %12.2f %12.2f %12.2f\n", st == CUZK_STAGE_DONE ? "prover total" : cuzk_prove_stage_name(st), x[runs / 2], x[0], x[runs - 1]);
    }
    free(ms);
    rc = 0;
out:
    cuzk_workspace_destroy(ws);
    cuzk_pce_free(&pce);
    cuzk_groth16_pk_free(&pk);
    cuzk_wtns_free(&w);
    cuzk_zkey_free(&z);
    cuzk_blob_release(&zb);
    cuzk_blob_release(&wb);
    return rc;
}
