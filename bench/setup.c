/* cuzk-bench setup: Groth16 setup throughput (INSECURE keys: for tests and
 * benchmarks) on a synthetic circuit of 2^k - 2 constraints, so that the
 * domain is exactly 2^k: row j is x_j * x_j = x_{j+1} (+ ONE in C for every
 * fourth row, a coefficient 3 in A for every eighth), one public input.
 * Points per key: A and L (or IC) (G1) per variable, B (G1) and B (G2) per
 * variable of B's density (here all but ONE and the last) and 2^k H
 * (Lagrange, snarkjs roots) or 2^k - 1 (bellperson); the table counts G2 as
 * one point and also shows G1-equivalent points/s (a G2 point costs ~3 G1). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuzk/groth16.h>

#include "bench.h"
#include "common/parallel.h"

static int make(cuzk_matrices *m, uint64_t n_rows)
{
    memset(m, 0, sizeof *m);
    m->n_rows = n_rows;
    m->n_coeffs = 3;
    m->coeffs = malloc(3 * sizeof *m->coeffs);
    cuzk_sparse *s[3] = {&m->a, &m->b, &m->c};
    for (int k = 0; k < 3; k++) {
        s[k]->row_start = malloc((n_rows + 1) * sizeof(uint64_t));
        s[k]->wire = malloc(2 * n_rows * sizeof(uint32_t));
        s[k]->coeff = malloc(2 * n_rows * sizeof(uint32_t));
        if (!s[k]->row_start || !s[k]->wire || !s[k]->coeff) return 0;
    }
    if (!m->coeffs) return 0;
    m->coeffs[0] = CUZK_FR_ONE;
    cuzk_fr_neg(&m->coeffs[1], &CUZK_FR_ONE);
    cuzk_fr_from_u64(&m->coeffs[2], 3);
    uint64_t t[3] = {0, 0, 0};
    for (uint64_t j = 0; j < n_rows; j++) {
        uint32_t x = (uint32_t)(j + 1), y = (uint32_t)(j + 2); /* wire 1 is the public input */
        for (int k = 0; k < 3; k++) s[k]->row_start[j] = t[k];
        m->a.wire[t[0]] = x, m->a.coeff[t[0]++] = j % 8 ? CUZK_COEFF_ONE : 2;
        m->b.wire[t[1]] = x, m->b.coeff[t[1]++] = CUZK_COEFF_ONE;
        m->c.wire[t[2]] = y, m->c.coeff[t[2]++] = CUZK_COEFF_ONE;
        if (j % 4 == 0) m->c.wire[t[2]] = 0, m->c.coeff[t[2]++] = CUZK_COEFF_MINUS_ONE;
    }
    for (int k = 0; k < 3; k++) {
        s[k]->row_start[n_rows] = t[k];
        s[k]->n_terms = t[k];
    }
    return 1;
}

int bench_setup(int argc, char **argv)
{
    unsigned lo = 10, hi = 16, threads = 0;
    cuzk_roots roots = CUZK_ROOTS_SNARKJS;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            printf("usage: cuzk-bench setup [--min LOG] [--max LOG] [--threads N] "
                   "[--roots snarkjs|bellperson]\n"
                   "  Groth16 setup (insecure keys) on synthetic circuits of domain 2^LOG,\n"
                   "  LOG from --min (10) to --max (16): seconds and points/s.\n");
            return 0;
        } else if (v && !strcmp(a, "--min")) {
            lo = (unsigned)atoi(v), i++;
        } else if (v && !strcmp(a, "--max")) {
            hi = (unsigned)atoi(v), i++;
        } else if (v && !strcmp(a, "--threads")) {
            threads = (unsigned)atoi(v), i++;
        } else if (v && !strcmp(a, "--roots")) {
            roots = !strcmp(v, "bellperson") ? CUZK_ROOTS_BELLPERSON : CUZK_ROOTS_SNARKJS, i++;
        } else {
            fprintf(stderr, "cuzk-bench setup: unknown option '%s'\n", a);
            return 2;
        }
    }
    if (lo < 2 || hi > CUZK_NTT_MAX_LOG || lo > hi) {
        fprintf(stderr, "cuzk-bench setup: need 2 <= --min <= --max <= %d\n", CUZK_NTT_MAX_LOG);
        return 2;
    }
    unsigned nt = threads ? threads : cuzk_ncores();
    printf("Groth16 setup (INSECURE keys: for tests and benchmarks), %s roots, %u threads\n",
           roots == CUZK_ROOTS_SNARKJS ? "snarkjs" : "bellperson", nt);
    printf("%-6s %12s %12s %10s %14s %16s\n", "log n", "variables", "points", "seconds",
           "points/s", "G1-equiv pts/s");
    for (unsigned k = lo; k <= hi; k++) {
        uint64_t n_rows = ((uint64_t)1 << k) - 2; /* + 2 input rows = 2^k */
        cuzk_matrices m;
        if (!make(&m, n_rows)) {
            fprintf(stderr, "cuzk-bench setup: out of memory at 2^%u\n", k);
            cuzk_matrices_free(&m);
            return 2;
        }
        uint32_t n_in = 2, n_aux = (uint32_t)n_rows; /* wires 2..n_rows+1 */
        uint64_t seed = k;
        cuzk_setup_opts o = {roots, nt, &seed, NULL, NULL, NULL, NULL, NULL};
        cuzk_groth16_pk pk;
        char err[CUZK_ERRMSG_LEN];
        double t0 = bench_now_ns();
        cuzk_status s = cuzk_groth16_setup(&pk, &m, n_in, n_aux, &o, err);
        double sec = (bench_now_ns() - t0) / 1e9;
        cuzk_matrices_free(&m);
        if (s != CUZK_OK) {
            fprintf(stderr, "cuzk-bench setup: %s\n", err);
            return 2;
        }
        uint64_t nv = pk.n_vars, nb = pk.n_b;
        uint64_t nh = ((uint64_t)1 << k) - (roots == CUZK_ROOTS_BELLPERSON);
        uint64_t pts = 2 * nv + 2 * nb + nh, g1eq = pts + 2 * nb; /* IC within L's count */
        printf("%-6u %12llu %12llu %10.3f %14.0f %16.0f\n", k, (unsigned long long)nv,
               (unsigned long long)pts, sec, (double)pts / sec, (double)g1eq / sec);
        fflush(stdout);
        cuzk_groth16_pk_free(&pk);
    }
    return 0;
}
