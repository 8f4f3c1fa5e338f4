/* cuzk-bench micro: ns per operation of the CPU arithmetic.
 *
 * Each operation runs in a dependent chain (its output feeds its next input)
 * on random data, so the figure is the latency of one operation on one core.
 * The reported value is the best of several runs of about 50 ms each; the
 * spread between runs is printed so a noisy machine shows. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuzk/ec.h>
#include <cuzk/ff.h>
#include <cuzk/formats.h>
#include <cuzk/groth16.h>
#include <cuzk/pairing.h>

#include "bench.h"

static uint64_t rng_state;

static uint64_t rng64(void)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static void rand_fr(cuzk_fr *r)
{
    uint64_t v[CUZK_FR_LIMBS];
    for (int i = 0; i < CUZK_FR_LIMBS; i++) v[i] = rng64();
    cuzk_fr_from_limbs_reduce(r, v);
}

static void rand_fp(cuzk_fp *r)
{
    uint64_t v[CUZK_FP_LIMBS];
    do {
        for (int i = 0; i < CUZK_FP_LIMBS; i++) v[i] = rng64();
        v[CUZK_FP_LIMBS - 1] &= 0x1fffffffffffffffull;
    } while (cuzk_fp_from_limbs(r, v) != CUZK_OK);
}

#define VERIFY_PUB 21

/* Inputs shared by all operations. */
static struct {
    cuzk_fp fp[2];
    cuzk_fr fr[2];
    cuzk_fp2 fp2[2];
    cuzk_fp12 fp12[2];
    cuzk_g1_jac g1j[2];
    cuzk_g1_affine g1a[2];
    cuzk_g1_xyzz g1x;
    cuzk_g2_jac g2j[2];
    cuzk_g2_affine g2a[2];
    uint8_t g1c[48];
    uint8_t g2c[96];
    /* A verifying key and proof of random points, with porep-32g's 21
     * public inputs: the verification does all its work and says no. */
    cuzk_g1_affine ic[VERIFY_PUB + 1];
    cuzk_vk vk;
    cuzk_proof proof;
    cuzk_fr pub[VERIFY_PUB];
    cuzk_vk_prepared pvk; /* of vk */
    cuzk_g1_jac vk_x;     /* of pub */
} in;

static volatile uint64_t sink; /* keeps chains from being optimised away */

static void op_fp_add(size_t n) { cuzk_fp a = in.fp[0]; while (n--) cuzk_fp_add(&a, &a, &in.fp[1]); sink ^= a.l[0]; }
static void op_fp_mul(size_t n) { cuzk_fp a = in.fp[0]; while (n--) cuzk_fp_mul(&a, &a, &in.fp[1]); sink ^= a.l[0]; }
static void op_fp_sqr(size_t n) { cuzk_fp a = in.fp[0]; while (n--) cuzk_fp_sqr(&a, &a); sink ^= a.l[0]; }
static void op_fp_inv(size_t n) { cuzk_fp a = in.fp[0]; while (n--) cuzk_fp_inv(&a, &a); sink ^= a.l[0]; }
static void op_fp_inv_var(size_t n) { cuzk_fp a = in.fp[0]; while (n--) cuzk_fp_inv_var(&a, &a); sink ^= a.l[0]; }
static void op_fp_sqrt(size_t n) { cuzk_fp a = in.fp[0], s; while (n--) { cuzk_fp_sqr(&a, &a); cuzk_fp_sqrt(&s, &a); a.l[0] ^= s.l[0] & 1; } sink ^= a.l[0]; }
static void op_fr_mul(size_t n) { cuzk_fr a = in.fr[0]; while (n--) cuzk_fr_mul(&a, &a, &in.fr[1]); sink ^= a.l[0]; }
static void op_fr_sqr(size_t n) { cuzk_fr a = in.fr[0]; while (n--) cuzk_fr_sqr(&a, &a); sink ^= a.l[0]; }
static void op_fr_inv_var(size_t n) { cuzk_fr a = in.fr[0]; while (n--) cuzk_fr_inv_var(&a, &a); sink ^= a.l[0]; }
static void op_fp2_mul(size_t n) { cuzk_fp2 a = in.fp2[0]; while (n--) cuzk_fp2_mul(&a, &a, &in.fp2[1]); sink ^= a.c0.l[0]; }
static void op_fp2_sqr(size_t n) { cuzk_fp2 a = in.fp2[0]; while (n--) cuzk_fp2_sqr(&a, &a); sink ^= a.c0.l[0]; }
static void op_fp12_mul(size_t n) { cuzk_fp12 a = in.fp12[0]; while (n--) cuzk_fp12_mul(&a, &a, &in.fp12[1]); sink ^= a.c0.c0.c0.l[0]; }
static void op_g1_dbl(size_t n) { cuzk_g1_jac p = in.g1j[0]; while (n--) cuzk_g1_dbl(&p, &p); sink ^= p.x.l[0]; }
static void op_g1_add(size_t n) { cuzk_g1_jac p = in.g1j[0]; while (n--) cuzk_g1_add(&p, &p, &in.g1j[1]); sink ^= p.x.l[0]; }
static void op_g1_add_mixed(size_t n) { cuzk_g1_jac p = in.g1j[0]; while (n--) cuzk_g1_add_mixed(&p, &p, &in.g1a[1]); sink ^= p.x.l[0]; }
static void op_g1_xyzz_add_mixed(size_t n) { cuzk_g1_xyzz p = in.g1x; while (n--) cuzk_g1_xyzz_add_mixed(&p, &p, &in.g1a[1]); sink ^= p.x.l[0]; }
static void op_g1_mul(size_t n) { cuzk_g1_jac p = in.g1j[0]; while (n--) cuzk_g1_mul(&p, &p, &in.fr[1]); sink ^= p.x.l[0]; }
static void op_g1_decompress(size_t n) { cuzk_g1_affine p; while (n--) { if (cuzk_g1_from_compressed(&p, in.g1c, 0) != CUZK_OK) abort(); } sink ^= p.x.l[0]; }
static void op_g1_subgroup(size_t n) { int ok = 1; while (n--) ok &= cuzk_g1_affine_in_subgroup(&in.g1a[0]); sink ^= (uint64_t)ok; }
static void op_g2_add(size_t n) { cuzk_g2_jac p = in.g2j[0]; while (n--) cuzk_g2_add(&p, &p, &in.g2j[1]); sink ^= p.x.c0.l[0]; }
static void op_g2_add_mixed(size_t n) { cuzk_g2_jac p = in.g2j[0]; while (n--) cuzk_g2_add_mixed(&p, &p, &in.g2a[1]); sink ^= p.x.c0.l[0]; }
static void op_g2_mul(size_t n) { cuzk_g2_jac p = in.g2j[0]; while (n--) cuzk_g2_mul(&p, &p, &in.fr[1]); sink ^= p.x.c0.l[0]; }
static void op_g2_decompress(size_t n) { cuzk_g2_affine p; while (n--) { if (cuzk_g2_from_compressed(&p, in.g2c, 0) != CUZK_OK) abort(); } sink ^= p.x.c0.l[0]; }
static void op_g2_subgroup(size_t n) { int ok = 1; while (n--) ok &= cuzk_g2_affine_in_subgroup(&in.g2a[0]); sink ^= (uint64_t)ok; }
static void op_miller(size_t n) { cuzk_fp12 f; while (n--) cuzk_miller_loop(&f, &in.g1a[0], &in.g2a[0], 1); sink ^= f.c0.c0.c0.l[0]; }
static void op_final_exp(size_t n) { cuzk_fp12 f = in.fp12[0]; while (n--) cuzk_final_exp(&f, &f); sink ^= f.c0.c0.c0.l[0]; }
static void op_verify_prepared(size_t n) { int ok = 0; while (n--) ok |= cuzk_groth16_verify_prepared(&in.pvk, &in.proof, &in.vk_x) == CUZK_OK; sink ^= (uint64_t)ok; }
static void op_verify(size_t n) { int ok = 0; while (n--) ok |= cuzk_groth16_verify(&in.vk, &in.proof, in.pub, VERIFY_PUB) == CUZK_OK; sink ^= (uint64_t)ok; }
static void op_pairing(size_t n) { cuzk_fp12 f; while (n--) cuzk_pairing(&f, &in.g1a[0], &in.g2a[0]); sink ^= f.c0.c0.c0.l[0]; }

static const struct {
    const char *name;
    void (*fn)(size_t);
    const char *note;
} ops[] = {
    {"fp_add", op_fp_add, ""},
    {"fp_mul", op_fp_mul, "Montgomery, 6 limbs"},
    {"fp_sqr", op_fp_sqr, ""},
    {"fp_inv", op_fp_inv, "safegcd, constant time"},
    {"fp_inv_var", op_fp_inv_var, "safegcd, variable time"},
    {"fp_sqrt", op_fp_sqrt, "plus one fp_sqr"},
    {"fr_mul", op_fr_mul, "Montgomery, 4 limbs"},
    {"fr_sqr", op_fr_sqr, ""},
    {"fr_inv_var", op_fr_inv_var, ""},
    {"fp2_mul", op_fp2_mul, ""},
    {"fp2_sqr", op_fp2_sqr, ""},
    {"fp12_mul", op_fp12_mul, ""},
    {"g1_dbl", op_g1_dbl, "Jacobian"},
    {"g1_add", op_g1_add, "Jacobian + Jacobian"},
    {"g1_add_mixed", op_g1_add_mixed, "Jacobian + affine"},
    {"g1_xyzz_add_mixed", op_g1_xyzz_add_mixed, "XYZZ + affine"},
    {"g1_mul", op_g1_mul, "255-bit scalar, constant time"},
    {"g1_decompress", op_g1_decompress, "48 bytes, no subgroup check"},
    {"g1_subgroup", op_g1_subgroup, ""},
    {"g2_add", op_g2_add, "Jacobian + Jacobian"},
    {"g2_add_mixed", op_g2_add_mixed, "Jacobian + affine"},
    {"g2_mul", op_g2_mul, "255-bit scalar, constant time"},
    {"g2_decompress", op_g2_decompress, "96 bytes, no subgroup check"},
    {"g2_subgroup", op_g2_subgroup, ""},
    {"miller_loop", op_miller, "one pair"},
    {"final_exp", op_final_exp, ""},
    {"pairing", op_pairing, "Miller loop + final exp"},
    {"groth16_verify", op_verify, "21 public inputs (porep-32g's)"},
    {"groth16_verify_prepared", op_verify_prepared, "the prover's self-check: vk_x apart"},
};

static void setup(void)
{
    for (int i = 0; i < 2; i++) {
        rand_fp(&in.fp[i]);
        rand_fr(&in.fr[i]);
        rand_fp(&in.fp2[i].c0);
        rand_fp(&in.fp2[i].c1);
        cuzk_fp2 *c = &in.fp12[i].c0.c0;
        for (size_t k = 0; k < sizeof(cuzk_fp12) / sizeof(cuzk_fp2); k++) {
            rand_fp(&c[k].c0);
            rand_fp(&c[k].c1);
        }
        cuzk_fr k;
        cuzk_g1_jac g1;
        cuzk_g2_jac g2;
        rand_fr(&k);
        cuzk_g1_from_affine(&g1, &CUZK_G1_GENERATOR);
        cuzk_g1_mul(&in.g1j[i], &g1, &k);
        cuzk_g1_to_affine(&in.g1a[i], &in.g1j[i]);
        cuzk_g2_from_affine(&g2, &CUZK_G2_GENERATOR);
        cuzk_g2_mul(&in.g2j[i], &g2, &k);
        cuzk_g2_to_affine(&in.g2a[i], &in.g2j[i]);
    }
    for (int i = 0; i <= VERIFY_PUB; i++) {
        cuzk_fr k;
        cuzk_g1_jac g1;
        rand_fr(&k);
        cuzk_g1_from_affine(&g1, &CUZK_G1_GENERATOR);
        cuzk_g1_mul(&g1, &g1, &k);
        cuzk_g1_to_affine(&in.ic[i], &g1);
        if (i < VERIFY_PUB) rand_fr(&in.pub[i]);
    }
    in.vk.alpha_g1 = in.vk.beta_g1 = in.vk.delta_g1 = in.g1a[0];
    in.vk.beta_g2 = in.vk.gamma_g2 = in.vk.delta_g2 = in.g2a[0];
    in.vk.n_ic = VERIFY_PUB + 1;
    in.vk.ic = in.ic;
    in.proof.a = in.proof.c = in.g1a[1];
    in.proof.b = in.g2a[1];
    cuzk_vk_prepare(&in.pvk, &in.vk);
    if (cuzk_groth16_vk_x(&in.vk_x, &in.vk, in.pub, VERIFY_PUB, NULL, NULL) != CUZK_OK) abort();
    cuzk_g1_xyzz_from_affine(&in.g1x, &in.g1a[0]);
    cuzk_g1_to_compressed(in.g1c, &in.g1a[0]);
    cuzk_g2_to_compressed(in.g2c, &in.g2a[0]);
}

int bench_micro(int argc, char **argv)
{
    const char *only = NULL;
    int runs = 5;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            printf("usage: cuzk-bench micro [--runs N] [OPERATION]\n"
                   "Times each CPU operation in a dependent chain; prints the best of N runs\n"
                   "(default 5) and the spread. OPERATION restricts the table to one row.\n");
            return 0;
        } else if (!strcmp(argv[i], "--runs") && i + 1 < argc) {
            runs = atoi(argv[++i]);
            if (runs < 1 || runs > 1000) {
                fprintf(stderr, "cuzk-bench micro: --runs must be 1..1000\n");
                return 2;
            }
        } else if (argv[i][0] != '-' && !only) {
            only = argv[i];
        } else {
            fprintf(stderr, "cuzk-bench micro: unknown option '%s' (see --help)\n", argv[i]);
            return 2;
        }
    }
    rng_state = (uint64_t)bench_now_ns();
    setup();

    int shown = 0;
    printf("%-20s %12s %8s  %s\n", "operation", "ns/op", "spread", "note");
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
        if (only && strcmp(only, ops[i].name)) continue;
        /* Calibrate: double n until one run takes >= 50 ms. */
        size_t n = 1;
        double t;
        for (;;) {
            double t0 = bench_now_ns();
            ops[i].fn(n);
            t = bench_now_ns() - t0;
            if (t >= 5e7 || n >= ((size_t)1 << 40)) break;
            n *= t < 1e6 ? 16 : 2;
        }
        double best = t / (double)n, worst = best;
        for (int r = 1; r < runs; r++) {
            double t0 = bench_now_ns();
            ops[i].fn(n);
            double per = (bench_now_ns() - t0) / (double)n;
            if (per < best) best = per;
            if (per > worst) worst = per;
        }
        printf("%-20s %12.1f %7.1f%%  %s\n", ops[i].name, best, 100.0 * (worst - best) / best,
               ops[i].note);
        fflush(stdout);
        shown++;
    }
    if (only && !shown) {
        fprintf(stderr, "cuzk-bench micro: no operation named '%s'\n", only);
        return 2;
    }
    return 0;
}
