/* cuzk-bench witness: the built-in circuits (circuits.h). Per circuit and
 * size: record time, PCE bytes/nnz, witness constraints/s on one thread
 * and on all, and the SpMV a, b, c from the compact witness (ns/nnz, GB/s
 * of PCE image read). A second table: the witness handed to a prover as
 * the engine hands it, compact straight from the constraint system
 * (cuzk_wc_from_cs), against the dense way (cuzk_cs_witness, then the
 * classify pass a GPU backend makes of a dense witness), with the bytes
 * each holds.
 *
 *   cuzk-bench witness [--circuit ID|all] [--size N|full]... [--threads T]
 *                      [--runs R] [--no-record]
 *
 * --no-record skips recording and the PCE (witness only): recording a
 * full-size Poseidon-heavy circuit (wpost, snap) takes minutes (~0.4 M
 * constraints/s on one core) and ~8 GB. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuzk/circuits.h>
#include <cuzk/pce.h>
#include <cuzk/prove.h>

#include "bench.h"
#include "common/parallel.h"

static double best_witness(cuzk_circuit *c, const char *js, cuzk_cs *cs, unsigned t, int runs)
{
    char err[CUZK_ERRMSG_LEN];
    double best = 1e300;
    for (int r = 0; r < runs; r++) {
        double t0 = bench_now_ns();
        if (cuzk_circuit_witness(c, js, strlen(js), cs, t, err) != CUZK_OK) {
            fprintf(stderr, "witness: %s\n", err);
            return -1;
        }
        double dt = bench_now_ns() - t0;
        if (dt < best) best = dt;
    }
    return best;
}

/* Milliseconds, best of runs: the witness in cs to compact form, straight
 * (dense 0), through a dense vector w (dense 1), or from w as it is
 * (dense 2: the classify pass alone, what a GPU backend given a dense
 * witness does on its host thread). */
static double best_compact(const cuzk_cs *cs, cuzk_fr *w, cuzk_witness_compact *wc, int dense,
                           unsigned t, int runs)
{
    double best = 1e300;
    for (int r = 0; r < runs; r++) {
        double t0 = bench_now_ns();
        cuzk_status s = dense == 1 ? cuzk_cs_witness(cs, w, wc->n) : CUZK_OK;
        if (s == CUZK_OK)
            s = dense ? cuzk_wc_from_dense(wc, w, wc->n, t) : cuzk_wc_from_cs(wc, cs, t);
        if (s != CUZK_OK) {
            fprintf(stderr, "compact witness: %s\n", cuzk_strerror(s));
            return -1;
        }
        double dt = (bench_now_ns() - t0) / 1e6;
        if (dt < best) best = dt;
    }
    return best;
}

/* The second table's row for the witness in cs. */
static int run_compact(const char *id, const char *sz, const cuzk_cs *cs, unsigned t, int runs)
{
    cuzk_cs_shape sh;
    cuzk_cs_get_shape(cs, &sh);
    size_t n = (size_t)sh.n_inputs + sh.n_aux;
    cuzk_fr *w = malloc(n * sizeof *w);
    cuzk_witness_compact wc;
    int rc = 1;
    if (!w || cuzk_wc_init(&wc, n) != CUZK_OK) {
        fprintf(stderr, "compact witness: out of memory\n");
        free(w);
        return 1;
    }
    double straight = best_compact(cs, w, &wc, 0, t, runs);
    double dense = best_compact(cs, w, &wc, 1, t, runs);
    double classify = best_compact(cs, w, &wc, 2, t, runs);
    if (straight >= 0 && dense >= 0 && classify >= 0) {
        printf("%-12s %-6s %11zu %8.2f %10.1f %10.1f %11.2f %11.1f %11.1f\n", id, sz, n,
               100.0 * (double)wc.n_other / (double)n,
               (double)cuzk_wc_bytes_for(n, wc.n_other) / 1e6, (double)n * 32 / 1e6, straight,
               dense, classify);
        rc = 0;
    }
    cuzk_wc_free(&wc);
    free(w);
    return rc;
}

static int run(const char *id, unsigned size, unsigned threads, int runs, int record,
               cuzk_cs *keep)
{
    char err[CUZK_ERRMSG_LEN], *js = NULL;
    cuzk_circuit *c = NULL;
    cuzk_cs cs = {0};
    cuzk_pce p = {0};
    cuzk_fr *abc = NULL;
    int rc = 1;
    if (cuzk_circuit_open(&c, id, size, err) != CUZK_OK) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    const cuzk_circuit_info *in = cuzk_circuit_describe(c);
    double rec_ms = 0, bpn = 0;
    if (record) {
        cuzk_matrices m;
        cuzk_cs_shape sh;
        double t0 = bench_now_ns();
        if (cuzk_circuit_record(c, &m, &sh, err) != CUZK_OK) {
            fprintf(stderr, "record: %s\n", err);
            goto out;
        }
        rec_ms = (bench_now_ns() - t0) / 1e6;
        cuzk_status s = cuzk_pce_compile(&p, &m, sh.n_inputs, sh.n_aux, 0, threads, err);
        cuzk_matrices_free(&m);
        if (s != CUZK_OK) {
            fprintf(stderr, "pce: %s\n", err);
            goto out;
        }
        bpn = cuzk_pce_bytes_per_nnz(&p);
    }
    double n = (double)in->n_constraints;
    if (cuzk_circuit_inputs_json(c, 1, 0, &js, err) != CUZK_OK ||
        best_witness(c, js, &cs, threads, 1) < 0) /* learns the shape, allocates */
        goto out;
    double t1 = best_witness(c, js, &cs, 1, runs), tt = best_witness(c, js, &cs, threads, runs);
    if (t1 < 0 || tt < 0) goto out;
    char sz[8];
    snprintf(sz, sizeof sz, size ? "2^%u" : "full", size);
    printf("%-12s %-6s %11.0f %9.1f %8.2f %10.1f %10.1f %10.1f", id, sz, n,
           rec_ms, bpn, n / t1 * 1e3, n / tt * 1e3, tt / 1e6);
    if (record) {
        abc = malloc(3 * p.n_rows * sizeof *abc);
        cuzk_witness_view v;
        cuzk_cs_witness_view(&cs, &v);
        double best = 1e300;
        for (int r = 0; r < runs && abc; r++) {
            double t0 = bench_now_ns();
            if (cuzk_pce_eval_view(&p, &v, abc, abc + p.n_rows, abc + 2 * p.n_rows, threads,
                                   err) != CUZK_OK) {
                fprintf(stderr, "eval: %s\n", err);
                goto out;
            }
            double dt = bench_now_ns() - t0;
            if (dt < best) best = dt;
        }
        printf(" %9.2f %8.2f", best / (double)cuzk_pce_nnz(&p), p.image_size / best);
    }
    printf("\n");
    rc = 0;
    *keep = cs; /* for the second table */
    memset(&cs, 0, sizeof cs);
out:
    free(abc);
    free(js);
    cuzk_pce_free(&p);
    cuzk_cs_free(&cs);
    cuzk_circuit_close(c);
    return rc;
}

int bench_witness(int argc, char **argv)
{
    const char *id = "all";
    unsigned sizes[16], n_sizes = 0, threads = cuzk_ncores();
    int runs = 3, record = 1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--circuit") && v) id = argv[++i];
        else if (!strcmp(a, "--size") && v && n_sizes < 16) {
            /* full or 10..27, as the tool: 0 would silently be full size */
            int lg = strcmp(v, "full") ? atoi(v) : 0;
            if (strcmp(v, "full") && (lg < 10 || lg > 27)) {
                fprintf(stderr, "cuzk-bench witness: --size expects full or 10..27\n");
                return 2;
            }
            sizes[n_sizes++] = (unsigned)lg;
            i++;
        } else if (!strcmp(a, "--threads") && v) threads = (unsigned)atoi(argv[++i]);
        else if (!strcmp(a, "--runs") && v) runs = atoi(argv[++i]);
        else if (!strcmp(a, "--no-record")) record = 0;
        else {
            int help = !strcmp(a, "--help") || !strcmp(a, "-h");
            fprintf(help ? stdout : stderr,
                    "usage: cuzk-bench witness [--circuit ID|all] [--size N|full]... "
                    "[--threads T] [--runs R] [--no-record]\n");
            return help ? 0 : 2;
        }
    }
    if (!n_sizes) sizes[n_sizes++] = 18, sizes[n_sizes++] = 20;
    if (threads < 1) threads = 1;
    if (runs < 1) runs = 1;
    printf("witness generation (best of %d), %u threads; rate = constraints/s (M)\n", runs,
           threads);
    printf("%-12s %-6s %11s %9s %8s %10s %10s %10s %9s %8s\n", "circuit", "size", "constraints",
           "record ms", "B/nnz", "M/s 1 thr", "M/s all", "witness ms", "SpMV ns/nnz", "GB/s");
    int rc = 0;
    unsigned nc = cuzk_circuit_count(), n_cs = 0;
    cuzk_cs *css = calloc((size_t)nc * n_sizes, sizeof *css);
    const char **ids = calloc((size_t)nc * n_sizes, sizeof *ids);
    unsigned *szs = calloc((size_t)nc * n_sizes, sizeof *szs);
    if (!css || !ids || !szs) {
        fprintf(stderr, "cuzk-bench witness: out of memory\n");
        rc = 1;
        goto out;
    }
    for (unsigned k = 0; k < nc; k++) {
        const char *cid = cuzk_circuit_id(k);
        if (strcmp(id, "all") && strcmp(id, cid)) continue;
        for (unsigned s = 0; s < n_sizes; s++) {
            ids[n_cs] = cid;
            szs[n_cs] = sizes[s];
            int r = run(cid, sizes[s], threads, runs, record, &css[n_cs]);
            rc |= r;
            n_cs += !r;
        }
    }
    printf("\nthe witness to compact form (best of %d, %u threads): straight from the cs, "
           "or dense first (cuzk_cs_witness + the classify pass of a dense witness; that pass alone)\n",
           runs, threads);
    printf("%-12s %-6s %11s %8s %10s %10s %11s %11s %11s\n", "circuit", "size", "values",
           "other %", "compact MB", "dense MB", "straight ms", "dense ms", "classify ms");
    for (unsigned k = 0; k < n_cs; k++) {
        char sz[8];
        snprintf(sz, sizeof sz, szs[k] ? "2^%u" : "full", szs[k]);
        rc |= run_compact(ids[k], sz, &css[k], threads, runs);
    }
out:
    for (unsigned k = 0; css && k < n_cs; k++) cuzk_cs_free(&css[k]);
    free(css);
    free(ids);
    free(szs);
    return rc ? 1 : 0;
}
