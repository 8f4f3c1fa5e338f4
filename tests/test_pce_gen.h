/* Random constraint systems for the PCE tests (tests/test_pce.c and the GPU
 * evaluation test tests/gpu/test_gpu_spmv.c): shapes that exercise every
 * part of the compact form (row lengths around the length-field limits,
 * long rows, every coefficient class, escapes), and witnesses of zeros, ones
 * and random values with their bit bitmaps. Seeded through test_util.h. */
#ifndef CUZK_TEST_PCE_GEN_H
#define CUZK_TEST_PCE_GEN_H

#include <stdlib.h>
#include <string.h>

#include <cuzk/formats.h>

#include "test_util.h"

static void fr_int(cuzk_fr *r, int64_t v)
{
    cuzk_fr_from_u64(r, v < 0 ? (uint64_t)(-(v + 1)) + 1 : (uint64_t)v);
    if (v < 0) cuzk_fr_neg(r, r);
}

static uint64_t rnd(uint64_t n) { return n ? test_rand64() % n : 0; }

/* ---------------------------------------------------------- generator -- */

typedef struct {
    uint64_t n_rows, n_inputs, n_aux;
    int len_mode;  /* 0 short, 1 mostly empty, 2 one huge row, 3 long rows, 4 boundary lengths */
    int coef_mode; /* 0 mostly +-1 (escapes), 1 every class, 2 many distinct, 3 only +1 */
    int has_c;
    uint64_t huge;
} shape;

#define POOL_FIXED 16

/* Coefficient table: fixed slots for every class, duplicates, a zero, then
 * random values. */
static void make_coeffs(cuzk_matrices *m, uint32_t n_random)
{
    m->n_coeffs = POOL_FIXED + n_random;
    m->coeffs = malloc(m->n_coeffs * sizeof *m->coeffs);
    static const int64_t fixed[POOL_FIXED] = {
        1, -1, 0, 2, -3, (int64_t)1 << 40, -((int64_t)1 << 61), ((int64_t)1 << 62) - 1,
        (int64_t)1 << 62, -(((int64_t)1 << 62) - 1), -((int64_t)1 << 62), 1, -1, 64, -65, 0};
    for (int i = 0; i < POOL_FIXED; i++) fr_int(&m->coeffs[i], fixed[i]);
    for (uint32_t i = 0; i < n_random; i++) test_rand_fr(&m->coeffs[POOL_FIXED + i]);
    if (n_random >= 2) m->coeffs[POOL_FIXED + 1] = m->coeffs[POOL_FIXED]; /* duplicate */
}

static uint32_t pick_coeff(const shape *sh, const cuzk_matrices *m)
{
    uint64_t u = rnd(100);
    switch (sh->coef_mode) {
    case 0:
        if (u < 85) return (uint32_t)rnd(2);
        if (u < 95) return 3 + (uint32_t)rnd(POOL_FIXED - 3);
        return (uint32_t)rnd(m->n_coeffs);
    case 1:
        return (uint32_t)rnd(m->n_coeffs);
    case 2:
        return POOL_FIXED + (uint32_t)rnd(m->n_coeffs - POOL_FIXED);
    default:
        return 0;
    }
}

static uint64_t pick_len(const shape *sh, uint64_t r)
{
    switch (sh->len_mode) {
    case 0:
        return rnd(5);
    case 1:
        return rnd(10) < 8 ? 0 : 1 + rnd(3);
    case 2:
        return r == sh->n_rows / 2 ? sh->huge : rnd(4);
    case 3:
        return rnd(4) ? rnd(6) : 200 + rnd(400);
    default: {
        static const uint64_t b[] = {0, 1, 2, 3, 14, 15, 16, 254, 255, 256};
        return b[rnd(sizeof b / sizeof b[0])];
    }
    }
}

static void gen_matrices(cuzk_matrices *m, const shape *sh)
{
    memset(m, 0, sizeof *m);
    m->n_rows = sh->n_rows;
    uint32_t n_random = sh->coef_mode == 2 ? 70000 : sh->coef_mode == 3 ? 0 : 3000;
    make_coeffs(m, n_random);
    uint64_t n_cols = sh->n_inputs + sh->n_aux;
    cuzk_sparse *s[3] = {&m->a, &m->b, &m->c};
    for (int k = 0; k < 3; k++) {
        if (k == 2 && !sh->has_c) break;
        uint64_t cap = 1024, n = 0;
        s[k]->row_start = malloc((sh->n_rows + 1) * sizeof(uint64_t));
        s[k]->wire = malloc(cap * 4);
        s[k]->coeff = malloc(cap * 4);
        s[k]->row_start[0] = 0;
        for (uint64_t r = 0; r < sh->n_rows; r++) {
            uint64_t len = pick_len(sh, r);
            if (n + len > cap) {
                while (n + len > cap) cap *= 2;
                s[k]->wire = realloc(s[k]->wire, cap * 4);
                s[k]->coeff = realloc(s[k]->coeff, cap * 4);
            }
            for (uint64_t i = 0; i < len; i++, n++) {
                /* Mostly near the row (as circuits are), some anywhere, some ONE. */
                uint64_t u = rnd(10);
                uint64_t col = u < 6 ? (r * n_cols / (sh->n_rows + 1) + rnd(64)) % n_cols
                             : u < 9 ? rnd(n_cols) : 0;
                s[k]->wire[n] = (uint32_t)col;
                s[k]->coeff[n] = pick_coeff(sh, m);
            }
            s[k]->row_start[r + 1] = n;
        }
        s[k]->n_terms = n;
    }
}

/* A witness: ONE at 0, then zeros, ones and random values; the bitmap of
 * the 0/1 columns (all of them, or a random half). */
static void gen_witness(cuzk_fr *w, uint64_t *is_bit, uint64_t *bit_val, uint64_t n,
                        int mark_all)
{
    uint64_t words = n / 64 + 1;
    memset(is_bit, 0, words * 8);
    memset(bit_val, 0, words * 8);
    for (uint64_t i = 0; i < n; i++) {
        uint64_t u = i == 0 ? 1 : rnd(10);
        if (u < 4) {
            w[i] = CUZK_FR_ZERO;
        } else if (u < 7) {
            w[i] = CUZK_FR_ONE;
            bit_val[i >> 6] |= (uint64_t)1 << (i & 63);
        } else {
            test_rand_fr(&w[i]);
            continue;
        }
        if (mark_all || rnd(2)) is_bit[i >> 6] |= (uint64_t)1 << (i & 63);
    }
}

/* The shapes both PCE tests run: n_rows, n_inputs, n_aux, len_mode,
 * coef_mode, has_c, huge. */
static const struct {
    const char *name;
    shape sh;
} PCE_TEST_SHAPES[] = {
    {"empty (0 rows)", {0, 1, 0, 0, 0, 1, 0}},
    {"one row, one column", {1, 1, 0, 0, 0, 1, 0}},
    {"255 rows, no C", {255, 3, 40, 0, 1, 0, 0}},
    {"256 rows", {256, 2, 300, 0, 0, 1, 0}},
    {"257 rows, mostly empty", {257, 5, 1000, 1, 1, 1, 0}},
    {"4097 rows, only +1", {4097, 1, 5000, 0, 3, 1, 0}},
    {"one huge row", {3000, 4, 3000, 2, 0, 1, 200000}},
    {"long rows", {2000, 7, 2500, 3, 1, 1, 0}},
    {"boundary lengths", {3000, 9, 4000, 4, 0, 1, 0}},
    {"many distinct (escapes)", {30000, 3, 30000, 0, 2, 1, 0}},
    {"all classes", {20000, 11, 25000, 0, 1, 1, 0}},
    {"mostly +-1, 2^16 rows", {65536, 300, 65536, 0, 0, 1, 0}},
    {"2^16 rows, no C", {65536, 2, 70000, 0, 0, 0, 0}},
    {"wide columns (2^20)", {5000, 1, (1u << 20) - 1, 0, 1, 1, 0}},
};
#define PCE_TEST_SHAPES_N (sizeof PCE_TEST_SHAPES / sizeof PCE_TEST_SHAPES[0])

#endif /* CUZK_TEST_PCE_GEN_H */
