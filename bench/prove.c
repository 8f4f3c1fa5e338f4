/* cuzk-bench prove: per-stage times of the Groth16 prover (--backend cpu,
 * gpu or auto) on a snarkjs key and witness, or on a .cuzk key with a
 * built-in circuit's PCE and jobs (a witness each run, not timed in the
 * prover total), the median of several runs after one warm-up run. Every run is a
 * cuzk_prove job on one workspace, as an engine proves.
 *
 * Beside each stage's times: the bytes the stage must move and the GB/s
 * that makes, and its floor at a device model (bench/floors.c: the H200's
 * measured rates by default on a device backend, none on the CPU unless
 * --model or a rate is given) with the stage's ratio to it. The witness's
 * counts of 0, 1 and other values, which the MSM floors need, are counted
 * on the host before the runs (a built-in circuit: on the warm-up job's
 * witness, computed once more here). --json prints the same as one JSON
 * object instead of the table. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuzk/formats.h>
#include <cuzk/groth16.h>
#include <cuzk/pce.h>
#include <cuzk/prove.h>
#ifdef CUZK_HAVE_GPU
#include <cuzk/gpu.h>

#include "gpu/gpu_testing.h"
#endif

#include <jansson.h>

#include "bench.h"

static double now_ms(void) { return (double)bench_now_ns() / 1e6; }

/* A positive finite number from opt's argument, scaled by unit; else an
 * error naming opt. */
static int parse_rate(const char *opt, const char *arg, double unit, double *out)
{
    char *end = NULL;
    errno = 0;
    double v = strtod(arg, &end);
    if (errno || end == arg || *end || !isfinite(v) || v <= 0) {
        fprintf(stderr, "cuzk-bench prove: %s expects a positive number, not '%s'\n", opt, arg);
        return 0;
    }
    *out = v * unit;
    return 1;
}

/* Classes of the witness's values: 0, 1, other (2). */
static uint8_t value_class(const cuzk_fr *x)
{
    return cuzk_fr_is_zero(x) ? 0 : cuzk_fr_is_one(x) ? 1 : 2;
}

/* The counts over A's (all), L's (private) and B's variables, from a class
 * a variable (cls[i] for i < n_vars). */
static void count_classes(bench_shape *sh, const cuzk_groth16_pk *pk, const uint8_t *cls)
{
    bench_wcount *all = &sh->w_all, *priv = &sh->w_priv, *b = &sh->w_b;
    memset(all, 0, sizeof *all);
    memset(priv, 0, sizeof *priv);
    memset(b, 0, sizeof *b);
    for (uint32_t i = 0; i < pk->n_vars; i++) {
        uint64_t *c = cls[i] == 0 ? &all->zeros : cls[i] == 1 ? &all->ones : &all->other;
        (*c)++;
        if (i > pk->n_public) {
            c = cls[i] == 0 ? &priv->zeros : cls[i] == 1 ? &priv->ones : &priv->other;
            (*c)++;
        }
    }
    for (uint32_t j = 0; j < pk->n_b; j++) {
        uint8_t k = cls[pk->b_var[j]];
        (*(k == 0 ? &b->zeros : k == 1 ? &b->ones : &b->other))++;
    }
}

/* The witness of the warm-up job (seed 1000) of a built-in circuit, its
 * values classed from the compact view (no dense copy: ~45 MB at full
 * porep-32g size). Returns 0 with err set on failure. */
static int circuit_classes(uint8_t *cls, const cuzk_groth16_pk *pk, const char *id,
                           unsigned size, unsigned threads, char *err)
{
    cuzk_circuit *ci = NULL;
    cuzk_cs cs = {0};
    int ok = 0;
    cuzk_circuit_job cj = {id, size, NULL, 0, 1000, 0};
    /* The key check first: a wrong key fails before the witness work. */
    if (cuzk_circuit_open(&ci, id, size, err) != CUZK_OK ||
        cuzk_circuit_key_check(pk, ci, err) != CUZK_OK ||
        cuzk_circuit_job_witness(ci, &cj, &cs, threads, err) != CUZK_OK)
        goto out;
    cuzk_witness_view v;
    cuzk_cs_witness_view(&cs, &v);
    if ((uint64_t)v.n_inputs + v.n_aux != pk->n_vars) {
        snprintf(err, CUZK_ERRMSG_LEN, "the circuit's witness has %llu values, the key %u",
                 (unsigned long long)v.n_inputs + v.n_aux, pk->n_vars);
        goto out;
    }
    for (uint32_t i = 0; i < v.n_inputs; i++) cls[i] = value_class(&v.inputs[i]);
    uint32_t bi = 0, fi = 0;
    for (uint32_t j = 0; j < v.n_aux; j++) {
        if ((v.layout[j >> 6] >> (j & 63)) & 1) {
            cls[v.n_inputs + j] = (uint8_t)((v.bits[bi >> 6] >> (bi & 63)) & 1);
            bi++;
        } else {
            cls[v.n_inputs + j] = value_class(&v.fields[fi++]);
        }
    }
    ok = 1;
out:
    cuzk_cs_free(&cs);
    cuzk_circuit_close(ci);
    return ok;
}

/* Bytes of the key's CSR matrices as the CPU's SpMV reads them: 8 a term
 * (wire and coefficient index), 8 a row start, 32 a distinct coefficient
 * (formats.h, cuzk_sparse). */
static double csr_bytes(const cuzk_matrices *m)
{
    const cuzk_sparse *x[3] = {&m->a, &m->b, &m->c};
    double b = 32.0 * m->n_coeffs;
    for (int i = 0; i < 3; i++)
        if (x[i]->row_start) b += 8.0 * (double)x[i]->n_terms + 8.0 * (double)(m->n_rows + 1);
    return b;
}

#ifdef CUZK_HAVE_GPU
/* The multiplier pipe's product rate on device 0, as `cuzk-bench kernels
 * --calibrate` measures it: probe 3, the mad.lo.cc / madc.hi.cc pair the
 * field code compiles to (src/gpu/calibrate.cu). */
static int calibrate_rate(double *rate, const char **desc)
{
    char err[CUZK_ERRMSG_LEN];
    cuzk_gpu_ctx *ctx = NULL;
    cuzk_gpu_ctx_opts o = {0, (size_t)64 << 20, 1};
    cuzk_status st = cuzk_gpu_ctx_create(&ctx, &o, err);
    if (st == CUZK_OK) st = cuzk_gpu_imad_probe(ctx, 3, 4096, rate, desc, err);
    cuzk_gpu_ctx_destroy(ctx);
    if (st != CUZK_OK) {
        fprintf(stderr, "cuzk-bench prove: --calibrate: %s (%s)\n", cuzk_strerror(st), err);
        return 0;
    }
    return 1;
}
#endif

/* The NTT tables a GPU workspace took, as gpu_ntt_full_twiddles numbers
 * them (it may take less than asked, by the pool's room); -1: not a GPU
 * workspace. */
static int ws_ntt_tables(cuzk_workspace *ws)
{
#ifdef CUZK_HAVE_GPU
    char err[CUZK_ERRMSG_LEN];
    cuzk_gpu_ntt_info ni;
    if (strcmp(cuzk_workspace_backend(ws), "gpu") || cuzk_gpu_testing_ws_ntt(ws, &ni, err))
        return -1;
    return ni.full_twiddles + 4 * ni.coset_table + 8 * ni.shoup_tables;
#else
    (void)ws;
    return -1;
#endif
}

/* Keys of the stages for --json, by cuzk_prove_stage. */
static const char *const stage_key[BENCH_STAGES] = {
    "witness", "abc", "h", "msm_a", "msm_b2", "msm_c", "assemble", "verify"};

/* null for a missing value (< 0), else the number. */
static json_t *jnum(double x) { return x < 0 ? json_null() : json_real(x); }


/* One row of the table: a stage (or a sum of stages) with its times. */
typedef struct {
    const char *name, *key;
    double med, min, max;    /* ms */
    double bytes, floor_ms;  /* < 0: no model */
    const bench_work *work;  /* its parts, or NULL */
} row_t;

static void print_row(const row_t *r)
{
    printf("%-14s %12.2f %12.2f %12.2f", r->name, r->med, r->min, r->max);
    if (r->bytes >= 0)
        printf(" %10.4g %9.4g", r->bytes / 1e9, r->med > 0 ? r->bytes / 1e6 / r->med : 0.0);
    else
        printf(" %10s %9s", "-", "-");
    if (r->floor_ms >= 0)
        printf(" %10.4g %8.3g\n", r->floor_ms, r->floor_ms > 0 ? r->med / r->floor_ms : 0.0);
    else
        printf(" %10s %8s\n", "-", "-");
}

static void print_parts(const bench_work *w, const bench_model *m)
{
    if (!w || w->n < 2) return;
    for (unsigned i = 0; i < w->n; i++) {
        char name[32];
        snprintf(name, sizeof name, "  %s", w->part[i].name);
        printf("%-14s %12s %12s %12s %10.4g %9s", name, "-", "-", "-", w->part[i].bytes / 1e9,
               "-");
        if (m) printf(" %10.4g %8s\n", bench_part_floor_ms(&w->part[i], m), "-");
        else printf(" %10s %8s\n", "-", "-");
    }
}

static json_t *json_row(const row_t *r, const bench_model *m)
{
    json_t *o = json_object();
    json_object_set_new(o, "stage", json_string(r->key));
    json_object_set_new(o, "name", json_string(r->name));
    json_object_set_new(o, "median_ms", json_real(r->med));
    json_object_set_new(o, "min_ms", json_real(r->min));
    json_object_set_new(o, "max_ms", json_real(r->max));
    json_object_set_new(o, "bytes", jnum(r->bytes));
    json_object_set_new(o, "gb_per_s",
                        r->bytes >= 0 && r->med > 0 ? json_real(r->bytes / 1e6 / r->med)
                                                    : json_null());
    json_object_set_new(o, "floor_ms", jnum(r->floor_ms));
    json_object_set_new(o, "floor_ratio", r->floor_ms > 0 ? json_real(r->med / r->floor_ms)
                                                          : json_null());
    json_t *parts = json_array();
    for (unsigned i = 0; r->work && i < r->work->n; i++) {
        const bench_part *p = &r->work->part[i];
        json_t *q = json_object();
        json_object_set_new(q, "name", json_string(p->name));
        json_object_set_new(q, "products", json_real(p->products));
        json_object_set_new(q, "bytes", json_real(p->bytes));
        json_object_set_new(q, "link", json_string(p->h2d ? "host->device" : "device memory"));
        if (p->c) json_object_set_new(q, "window", json_integer(p->c));
        json_object_set_new(q, "floor_ms", m ? json_real(bench_part_floor_ms(p, m)) : json_null());
        json_array_append_new(parts, q);
    }
    json_object_set_new(o, "parts", parts);
    return o;
}

static json_t *json_count(const bench_wcount *k)
{
    json_t *o = json_object();
    json_object_set_new(o, "zeros", json_integer((json_int_t)k->zeros));
    json_object_set_new(o, "ones", json_integer((json_int_t)k->ones));
    json_object_set_new(o, "other", json_integer((json_int_t)k->other));
    return o;
}

int bench_prove(int argc, char **argv)
{
    const char *zkey = NULL, *wtns = NULL, *backend = "cpu";
    const char *keyfile = NULL, *pce_path = NULL, *circuit = NULL, *model_name = NULL;
    unsigned size = 0;
    int runs = 5, json = 0, calibrate = 0;
    unsigned threads = 0, gpu_streams = 0, gpu_msm_flags = 0, ntt_fp64 = 0, msm_fp64 = 0, sparse_early = 0,
             full_tw = ~0u; /* ~0: cuzk_config_default's */
    uint64_t pool_bytes = 0; /* cuzk_config_default's: the context's default pool */
    double o_rate = 0, o_hbm = 0, o_h2d = 0; /* 0: the model's */
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
        } else if ((!strcmp(argv[i], "--gpu-ntt-fp64") || !strcmp(argv[i], "--gpu-msm-fp64")) &&
                   i + 1 < argc) {
            const char *o = argv[i++];
            char *end;
            unsigned long v = strtoul(argv[i], &end, 10);
            if (end == argv[i] || *end || v > 4) {
                fprintf(stderr, "cuzk-bench prove: %s expects 0..4, not '%s'\n", o, argv[i]);
                return 2;
            }
            *(strstr(o, "ntt") ? &ntt_fp64 : &msm_fp64) = (unsigned)v;
        } else if (!strcmp(argv[i], "--gpu-sparse-early")) {
            sparse_early = 1;
        } else if (!strcmp(argv[i], "--gpu-pool") && i + 1 < argc) {
            char *end;
            double gb = strtod(argv[++i], &end);
            if (end == argv[i] || *end || !(gb > 0) || gb > 1e6) {
                fprintf(stderr, "cuzk-bench prove: --gpu-pool expects GB (10^9 bytes) above 0, "
                                "not '%s'\n", argv[i]);
                return 2;
            }
            pool_bytes = (uint64_t)(gb * 1e9);
        } else if (!strcmp(argv[i], "--gpu-ntt-full-tw")) {
            /* an optional value: the next argument unless it is an option */
            full_tw = 1;
            if (i + 1 < argc && argv[i + 1][0] != '-') {
                char *end;
                unsigned long v = strtoul(argv[++i], &end, 10);
                if (end == argv[i] || *end || v > 15 || !cuzk_ntt_tables_valid((unsigned)v)) {
                    fprintf(stderr,
                            "cuzk-bench prove: --gpu-ntt-full-tw expects " CUZK_NTT_TABLES_VALUES
                            ", not '%s'\n", argv[i]);
                    return 2;
                }
                full_tw = (unsigned)v;
            }
        } else if (!strcmp(argv[i], "--json")) {
            json = 1;
        } else if (!strcmp(argv[i], "--calibrate")) {
            calibrate = 1;
        } else if (!strcmp(argv[i], "--model") && i + 1 < argc) {
            model_name = argv[++i];
        } else if (!strcmp(argv[i], "--product-rate") && i + 1 < argc) {
            if (!parse_rate("--product-rate", argv[++i], 1e12, &o_rate)) return 2;
        } else if (!strcmp(argv[i], "--hbm") && i + 1 < argc) {
            if (!parse_rate("--hbm", argv[++i], 1e9, &o_hbm)) return 2;
        } else if (!strcmp(argv[i], "--h2d") && i + 1 < argc) {
            if (!parse_rate("--h2d", argv[++i], 1e9, &o_h2d)) return 2;
        } else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            printf("usage: cuzk-bench prove (--zkey K.zkey --wtns W.wtns\n"
                   "                        | --key K.cuzk --pce P.pce --circuit ID [--size full|N])\n"
                   "                        [--runs N] [--threads T] [--backend cpu|gpu|auto]\n"
                   "                        [--gpu-streams N] [--gpu-msm-flags F] [--json]\n"
                   "                        [--gpu-ntt-fp64 S] [--gpu-msm-fp64 S] [--gpu-sparse-early]\n"
                   "                        [--gpu-pool GB]\n"
                   "                        [--gpu-ntt-full-tw [0|1|2|4|5|6|9|13]]\n"
                   "                        [--model h200|none] [--product-rate T] [--hbm GB/s]\n"
                   "                        [--h2d GB/s] [--calibrate]\n"
                   "Median per-stage times of N proofs (default 5) after one warm-up, on the\n"
                   "CPU (the default) or the GPU backend (auto: the GPU when present).\n"
                   "--gpu-streams 2: the GPU's five MSMs share one scratch and run in turn;\n"
                   "3: two scratches (H | the sparse MSMs, windows sorted in batches); the\n"
                   "default: each its own stream while they fit; --gpu-msm-flags: the\n"
                   "plans' flags as cuzk_config.gpu_msm_flags (0x100: plain, no upgrades);\n"
                   "--gpu-ntt-fp64, --gpu-msm-fp64 S: S (0..4) of the NTTs' products (of 4)\n"
                   "and of each MSM addition's (of 6) on the FP64 pipe (default 0).\n"
                   "--gpu-sparse-early: the sparse MSMs start before the NTTs, beside them.\n"
                   "--gpu-pool GB: the workspace's device pool (default: the free memory less\n"
                   "a sixteenth, at least 4 GiB, after the kernels' local memory).\n"
                   "--gpu-ntt-full-tw N: the NTTs' pass 1 twiddles from a full table\n"
                   "(n x 32 B; 1, the flag alone, where the pool has room after the MSMs'\n"
                   "upgrades), a positional one (2: as large, read like the data, forward\n"
                   "transforms only), or two small tables (0); plus 4: the coset table too\n"
                   "(n x 32 B more, where room is left; one multiplication less an element\n"
                   "in the coset transforms' shifts); plus 8 (with 1): both as Shoup pairs\n"
                   "(twice the bytes, where room is left; cheaper products). Default 13.\n"
                   "Each stage's bytes, GB/s and ratio to its compute floor at a device model\n"
                   "(docs/bench.md): h200 by default on a device backend, none on the CPU\n"
                   "unless --model or a rate is given. --product-rate: 32x32-bit products per\n"
                   "second, in T (the IMAD.WIDE.U32.X row of `cuzk-bench kernels --calibrate`,\n"
                   "G/s / 1000); --hbm, --h2d: device memory and pinned host->device GB/s;\n"
                   "--calibrate: measure the product rate on the GPU first (CUDA builds).\n"
                   "--json: one JSON object instead of the table.\n");
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
    int overrides = o_rate > 0 || o_hbm > 0 || o_h2d > 0 || calibrate;
    if (model_name && strcmp(model_name, "h200") && strcmp(model_name, "none")) {
        fprintf(stderr, "cuzk-bench prove: --model expects h200 or none, not '%s'\n", model_name);
        return 2;
    }
    if (model_name && !strcmp(model_name, "none") && overrides) {
        fprintf(stderr, "cuzk-bench prove: --model none takes no --product-rate, --hbm, --h2d "
                        "or --calibrate\n");
        return 2;
    }
#ifdef CUZK_HAVE_GPU
    (void)cuzk_gpu_backend_register();
#else
    if (!strcmp(backend, "gpu")) {
        fprintf(stderr, "cuzk-bench prove: built without CUDA: no gpu backend\n");
        return 2;
    }
    if (calibrate) {
        fprintf(stderr, "cuzk-bench prove: built without CUDA: --calibrate measures a GPU\n");
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
    uint8_t *cls = NULL;
    double *ms = NULL;
    double t_key = 0, t_ws = 0;
    cuzk_config cfg;
    cuzk_config_default(&cfg);
    cfg.backend = backend;
    cfg.nthreads = threads;
    cfg.gpu_streams = gpu_streams;
    cfg.gpu_msm_flags = gpu_msm_flags;
    cfg.gpu_ntt_fp64 = ntt_fp64;
    cfg.gpu_msm_fp64 = msm_fp64;
    cfg.gpu_sparse_early = sparse_early;
    cfg.gpu_pool_bytes = pool_bytes;
    if (full_tw != ~0u) cfg.gpu_ntt_full_twiddles = full_tw;
    int rc = 2;
    char label[64];
    /* The model: measured first, so that a failed calibration costs no key load. */
    bench_model model;
    bench_model_h200(&model);
    const char *calib_desc = NULL;
#ifdef CUZK_HAVE_GPU
    double calib_rate = 0;
    if (calibrate) {
        if (!calibrate_rate(&calib_rate, &calib_desc)) return 1;
        model.product_rate = calib_rate;
        model.product_src = "measured here (--calibrate)";
    }
#endif
    if (o_rate > 0) model.product_rate = o_rate, model.product_src = "--product-rate";
    if (o_hbm > 0) model.hbm = o_hbm, model.hbm_src = "--hbm";
    if (o_h2d > 0) model.h2d = o_h2d, model.h2d_src = "--h2d";
    if (overrides) model.name = "h200 + overrides";
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
    const char *used = cuzk_workspace_backend(ws);
    const bench_model *m = NULL; /* the model the floors use, or none */
    if (model_name ? !strcmp(model_name, "h200") : overrides || strcmp(used, "cpu")) m = &model;

    /* The shape of the work: the key's sizes, the witness's values, the
     * rows' source as this backend reads it. */
    bench_shape sh;
    memset(&sh, 0, sizeof sh);
    sh.log_domain = pk.log_domain;
    sh.n_vars = pk.n_vars;
    sh.h_points = ((uint64_t)1 << pk.log_domain) - (pk.h_form == CUZK_H_LAGRANGE ? 0 : 1);
    sh.device = strcmp(used, "cpu") != 0;
    int counted = 0;
    if (!(cls = malloc(pk.n_vars ? pk.n_vars : 1))) {
        fprintf(stderr, "cuzk-bench prove: out of memory for the witness's classes\n");
        goto out;
    }
    if (keyfile) {
        if (!circuit_classes(cls, &pk, circuit, size, threads, err)) {
            fprintf(stderr, "cuzk-bench prove: %s\n", err);
            goto out;
        }
        counted = 1;
    } else if (w.n == pk.n_vars) {
        for (uint32_t i = 0; i < pk.n_vars; i++) cls[i] = value_class(&w.w[i]);
        counted = 1;
    } /* else cuzk_prove refuses the witness below, naming its length */
    if (counted) {
        count_classes(&sh, &pk, cls);
    } else { /* the dense bound: every value "other" */
        sh.w_all.other = pk.n_vars;
        sh.w_priv.other = pk.n_vars - pk.n_public - 1;
        sh.w_b.other = pk.n_b;
    }
    free(cls);
    cls = NULL;
    const char *rows_src;
    if (keyfile) {
        sh.rows_bytes = pce.image_size;
        rows_src = "PCE image";
    } else if (!sh.device) {
        sh.rows_bytes = (uint64_t)csr_bytes(&pk.m);
        rows_src = "the key's CSR matrices";
    } else { /* a device backend compiles the key's matrices into a PCE (gpu/prover.cu) */
        cuzk_pce hp = {0};
        uint64_t n_in = (uint64_t)pk.n_public + 1;
        if (cuzk_pce_compile(&hp, &pk.m, n_in, pk.n_vars - n_in, 0, threads, err) != CUZK_OK) {
            fprintf(stderr, "cuzk-bench prove: the key's matrices as a PCE: %s\n", err);
            goto out;
        }
        sh.rows_bytes = hp.image_size;
        cuzk_pce_free(&hp);
        rows_src = "the key's matrices compiled to a PCE";
    }
    bench_work work[BENCH_STAGES];
    bench_floor_work(&sh, work);

    /* "MSM C": L, H and r B1, which the prover runs as one MSM. Rows: the
     * stages witness .. self-check, then the total (DONE), then the three
     * MSM stages' sum (a device backend overlaps them). */
    enum { FIRST = CUZK_STAGE_WITNESS, STAGES = CUZK_STAGE_DONE - CUZK_STAGE_WITNESS + 1,
           SUM = STAGES, ROWS = STAGES + 1 };
    ms = calloc((size_t)runs * ROWS, sizeof *ms);
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
            goto out;
        }
        if (r < 0) continue; /* warm-up */
        const cuzk_prove_timings t = res.t;
        for (int s = 0; s < STAGES; s++)
            ms[s * runs + r] = cuzk_prove_stage_ms(&t, (cuzk_prove_stage)(FIRST + s));
        ms[SUM * runs + r] = t.msm_a_ms + t.msm_b2_ms + t.msm_c_ms;
    }
    /* The key's points as a GPU workspace uploads them (A, B1, L, H in G1,
     * B2 in G2), and the workspace's creation time: the key's load rate
     * from the mapping (page cache, or the disk for a cold file). */
    double pts = ((double)pk.n_vars + 3.0 * pk.n_b + (pk.n_vars - pk.n_public - 1) +
                  ((size_t)1 << pk.log_domain)) * sizeof(cuzk_g1_affine);
    row_t rows[ROWS];
    double floor_sum = 0, bytes_sum = 0;
    for (int s = 0; s < ROWS; s++) {
        double *x = ms + s * runs;
        qsort(x, (size_t)runs, sizeof *x, bench_cmp_double);
        row_t *rw = &rows[s];
        rw->med = x[runs / 2], rw->min = x[0], rw->max = x[runs - 1];
        rw->work = NULL;
        rw->bytes = rw->floor_ms = -1;
        if (s < STAGES - 1) { /* a stage; the total and the sum below */
            cuzk_prove_stage st = (cuzk_prove_stage)(FIRST + s);
            rw->name = cuzk_prove_stage_name(st);
            rw->key = stage_key[st];
            if (work[st].n) {
                rw->work = &work[st];
                rw->bytes = bench_work_bytes(&work[st]);
                if (m) rw->floor_ms = bench_work_floor_ms(&work[st], m);
                if (st != CUZK_STAGE_WITNESS) { /* the total excludes the witness */
                    bytes_sum += rw->bytes;
                    if (m) floor_sum += rw->floor_ms;
                }
            }
        }
    }
    rows[STAGES - 1].name = "prover total";
    rows[STAGES - 1].key = "total";
    rows[STAGES - 1].bytes = bytes_sum;
    rows[STAGES - 1].floor_ms = m ? floor_sum : -1;
    rows[SUM].name = "MSMs (sum)";
    rows[SUM].key = "msm_sum";
    rows[SUM].bytes = rows[CUZK_STAGE_MSM_A].bytes + rows[CUZK_STAGE_MSM_B2].bytes +
                      rows[CUZK_STAGE_MSM_C].bytes;
    rows[SUM].floor_ms = m ? rows[CUZK_STAGE_MSM_A].floor_ms + rows[CUZK_STAGE_MSM_B2].floor_ms +
                                 rows[CUZK_STAGE_MSM_C].floor_ms
                           : -1;

    if (json) {
        json_t *o = json_object(), *k = json_object(), *wc = json_object(), *st = json_array();
        json_object_set_new(o, "source", json_string(keyfile ? keyfile : zkey));
        json_object_set_new(o, "backend", json_string(used));
        json_object_set_new(o, "runs", json_integer(runs));
        json_object_set_new(k, "n_vars", json_integer(pk.n_vars));
        json_object_set_new(k, "n_public", json_integer(pk.n_public));
        json_object_set_new(k, "n_b", json_integer(pk.n_b));
        json_object_set_new(k, "log_domain", json_integer(pk.log_domain));
        json_object_set_new(k, "h_points", json_integer((json_int_t)sh.h_points));
        json_object_set_new(k, "rows_bytes", json_integer((json_int_t)sh.rows_bytes));
        json_object_set_new(k, "rows_source", json_string(rows_src));
        json_object_set_new(o, "key", k);
        json_object_set_new(wc, "counted", json_boolean(counted));
        json_object_set_new(wc, "all", json_count(&sh.w_all));
        json_object_set_new(wc, "private", json_count(&sh.w_priv));
        json_object_set_new(wc, "b", json_count(&sh.w_b));
        json_object_set_new(o, "witness", wc);
        if (m) {
            json_t *mo = json_object();
            json_object_set_new(mo, "name", json_string(m->name));
            json_object_set_new(mo, "product_rate", json_real(m->product_rate));
            json_object_set_new(mo, "product_rate_source", json_string(m->product_src));
            json_object_set_new(mo, "hbm_bytes_per_s", json_real(m->hbm));
            json_object_set_new(mo, "hbm_source", json_string(m->hbm_src));
            json_object_set_new(mo, "h2d_bytes_per_s", json_real(m->h2d));
            json_object_set_new(mo, "h2d_source", json_string(m->h2d_src));
            if (calib_desc) json_object_set_new(mo, "calibrated_form", json_string(calib_desc));
            json_object_set_new(o, "model", mo);
        } else {
            json_object_set_new(o, "model", json_null());
        }
        json_object_set_new(o, "key_load_ms", json_real(t_key));
        json_object_set_new(o, "workspace_ms", json_real(t_ws));
        json_object_set_new(o, "workspace_points_bytes", json_real(pts));
        json_object_set_new(o, "workspace_points_floor_ms",
                            m && sh.device ? json_real(1e3 * pts / m->h2d) : json_null());
        json_object_set_new(o, "workspace_held_bytes",
                            json_integer((json_int_t)cuzk_workspace_bytes(ws)));
        const int tabs = ws_ntt_tables(ws);
        json_object_set_new(o, "gpu_ntt_tables", tabs < 0 ? json_null() : json_integer(tabs));
        for (int s = 0; s < ROWS; s++) json_array_append_new(st, json_row(&rows[s], m));
        json_object_set_new(o, "stages", st);
        json_dumpf(o, stdout, JSON_INDENT(1) | JSON_REAL_PRECISION(9));
        printf("\n");
        json_decref(o);
    } else {
        printf("%s: %u variables, %u public, domain 2^%u, %d runs, backend %s\n",
               keyfile ? keyfile : zkey, pk.n_vars, pk.n_public, pk.log_domain, runs, used);
        printf("key load %.1f ms; workspace %.1f ms, %.2f GB of points, %.2f GB/s; %.2f GB held\n",
               t_key, t_ws, pts / 1e9, pts / 1e6 / (t_ws > 0 ? t_ws : 1),
               (double)cuzk_workspace_bytes(ws) / 1e9);
        const int tabs = ws_ntt_tables(ws);
        if (tabs >= 0) printf("GPU NTT tables %d (gpu_ntt_full_twiddles as taken)\n", tabs);
        printf("%-14s %12s %12s %12s %10s %9s %10s %8s\n", "stage", "median ms", "min ms",
               "max ms", "GB", "GB/s", "floor ms", "x floor");
        for (int s = 0; s < ROWS; s++) {
            print_row(&rows[s]);
            print_parts(rows[s].work, m);
        }
        printf("bytes: the model's least traffic (rows from %s, %.4g GB); witness %s: "
               "%llu zeros, %llu ones, %llu other\n",
               rows_src, (double)sh.rows_bytes / 1e9,
               counted ? (keyfile ? "of the warm-up job" : "counted") : "unknown (dense bound)",
               (unsigned long long)sh.w_all.zeros, (unsigned long long)sh.w_all.ones,
               (unsigned long long)sh.w_all.other);
        if (m)
            printf("floors at %s: %.3g T products/s (%s), %.4g GB/s device memory (%s), "
                   "%.4g GB/s host->device (%s)\n",
                   m->name, m->product_rate / 1e12, m->product_src, m->hbm / 1e9, m->hbm_src,
                   m->h2d / 1e9, m->h2d_src);
        else
            printf("floors: no model on the %s backend (--model h200 or a rate gives one)\n",
                   used);
        if (sh.device)
            printf("the %s backend starts all five MSMs in MSM A and finishes them in turn: "
                   "read MSMs (sum) against its floor\n", used);
    }
    rc = 0;
out:
    free(ms);
    free(cls);
    cuzk_workspace_destroy(ws);
    cuzk_pce_free(&pce);
    cuzk_groth16_pk_free(&pk);
    cuzk_wtns_free(&w);
    cuzk_zkey_free(&z);
    cuzk_blob_release(&zb);
    cuzk_blob_release(&wb);
    return rc;
}
