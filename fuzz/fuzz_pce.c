/* libFuzzer target: the PCE reader (cuzk_pce_open).
 *
 * A hash-checked format is hard to fuzz from raw bytes: almost every
 * mutation fails the checksum, and the structural checks behind it are never
 * reached. So the first byte picks a mode:
 *
 *   even  the rest is a PCE image: opened as is, then again with
 *         CUZK_PCE_SKIP_HASH (the structural checks on their own);
 *   odd   the rest describes a small constraint system (sizes, then terms),
 *         which is compiled; its image must open and evaluate like the
 *         matrices. Then bytes of the input overwrite bytes of the image
 *         (positions and values from the input), the hashes are recomputed,
 *         and the damaged image is opened: it must be rejected with a
 *         message, or evaluate exactly like its own decompiled matrices.
 *
 * Every failure must come with an "pce: ..." message. Build: fuzz/run.sh
 * (add "pce" to its targets; the corpus starts empty: the odd mode makes
 * valid images by itself). */
#include <stdlib.h>
#include <string.h>

#include <cuzk/pce.h>

#include "r1cs/pce_internal.h"

static void naive(cuzk_fr *out, const cuzk_matrices *m, const cuzk_sparse *s, const cuzk_fr *w)
{
    for (uint64_t r = 0; r < m->n_rows; r++) {
        cuzk_fr acc = CUZK_FR_ZERO, t;
        if (s->row_start)
            for (uint64_t k = s->row_start[r]; k < s->row_start[r + 1]; k++) {
                cuzk_fr_mul(&t, &m->coeffs[s->coeff[k]], &w[s->wire[k]]);
                cuzk_fr_add(&acc, &acc, &t);
            }
        out[r] = acc;
    }
}

/* Evaluates p on a fixed witness (0, 1 and other values; half the columns
 * also given as bits) and compares with the naive evaluation of m. */
static void check_eval(const cuzk_pce *p, const cuzk_matrices *m)
{
    if (p->n_cols > 4096 || p->n_rows > 4096) return;
    uint64_t n = p->n_cols, nr = p->n_rows ? p->n_rows : 1;
    cuzk_fr *w = malloc(n * sizeof *w), *x = malloc(3 * nr * sizeof *x),
            *y = malloc(3 * nr * sizeof *y);
    uint64_t *isb = calloc(n / 64 + 1, 8), *bv = calloc(n / 64 + 1, 8);
    for (uint64_t i = 0; i < n; i++) {
        uint64_t v = i % 3 == 0 ? 0 : i % 3 == 1 ? 1 : i * 7 + 5;
        cuzk_fr_from_u64(&w[i], v);
        if (v < 2 && i % 2) {
            isb[i / 64] |= (uint64_t)1 << (i % 64);
            bv[i / 64] |= v << (i % 64);
        }
    }
    int hc = (p->flags & CUZK_PCE_HAS_C) != 0;
    naive(y, m, &m->a, w);
    naive(y + nr, m, &m->b, w);
    if (hc) naive(y + 2 * nr, m, &m->c, w);
    for (int mode = 0; mode < 2; mode++) {
        cuzk_pce_witness wit = {w, n, mode ? isb : NULL, mode ? bv : NULL};
        char err[CUZK_ERRMSG_LEN];
        if (cuzk_pce_eval(p, &wit, x, x + nr, hc ? x + 2 * nr : NULL, 2, err) != CUZK_OK) abort();
        for (int k = 0; k < 2 + hc; k++)
            if (p->n_rows && memcmp(x + k * nr, y + k * nr, p->n_rows * sizeof *x)) abort();
    }
    free(w);
    free(x);
    free(y);
    free(isb);
    free(bv);
}

/* Opens an image (in a fresh buffer of exactly its size, so ASan sees any
 * overread); if it opens, it must evaluate like its decompiled matrices. */
static void try_open(const uint8_t *data, size_t size, unsigned flags)
{
    uint8_t *b = malloc(size ? size : 1);
    memcpy(b, data, size);
    char err[CUZK_ERRMSG_LEN];
    cuzk_pce p;
    cuzk_status s = cuzk_pce_open(&p, b, size, flags, 1, err);
    if (s != CUZK_OK) {
        if (strncmp(err, "pce: ", 5) || !err[5]) abort();
    } else {
        cuzk_matrices m;
        if (p.n_cols <= 4096 && p.n_rows <= 4096 && cuzk_pce_to_matrices(&p, &m, NULL) == CUZK_OK) {
            check_eval(&p, &m);
            cuzk_pce_matrices_free(&m);
        }
        uint64_t bm[64 + 1];
        if (p.n_cols <= 64 * 64) cuzk_pce_boolean_vars(&p, bm, NULL, 1);
        cuzk_pce_free(&p);
    }
    free(b);
}

/* Reads bytes from the input as a little stream (zeros past the end). */
typedef struct {
    const uint8_t *p;
    size_t n, i;
} rd;

static uint32_t rd_u8(rd *r) { return r->i < r->n ? r->p[r->i++] : 0; }
static uint32_t rd_u16(rd *r) { return rd_u8(r) | rd_u8(r) << 8; }

static void compiled_mode(const uint8_t *data, size_t size)
{
    rd r = {data, size, 0};
    uint32_t n_rows = rd_u16(&r) % 600, n_in = 1 + rd_u8(&r) % 8, n_aux = rd_u16(&r) % 700;
    uint32_t n_coeffs = 2 + rd_u8(&r) % 40, flags = rd_u8(&r);
    cuzk_matrices m;
    memset(&m, 0, sizeof m);
    m.n_rows = n_rows;
    m.n_coeffs = n_coeffs;
    m.coeffs = malloc(n_coeffs * sizeof *m.coeffs);
    m.coeffs[0] = CUZK_FR_ONE;
    cuzk_fr_neg(&m.coeffs[1], &CUZK_FR_ONE);
    for (uint32_t i = 2; i < n_coeffs; i++) {
        uint32_t v = rd_u16(&r);
        cuzk_fr_from_u64(&m.coeffs[i], v % 5 == 0 ? 0 : v); /* zeros, duplicates */
        if (v & 1) cuzk_fr_neg(&m.coeffs[i], &m.coeffs[i]);
    }
    cuzk_sparse *sp[3] = {&m.a, &m.b, &m.c};
    uint64_t n_cols = (uint64_t)n_in + n_aux;
    for (int k = 0; k < 3; k++) {
        if (k == 2 && (flags & 1)) break; /* no C */
        sp[k]->row_start = malloc(((size_t)n_rows + 1) * 8);
        size_t cap = 64, n = 0;
        sp[k]->wire = malloc(cap * 4);
        sp[k]->coeff = malloc(cap * 4);
        sp[k]->row_start[0] = 0;
        for (uint32_t row = 0; row < n_rows; row++) {
            uint32_t len = rd_u8(&r);
            len = len < 200 ? len % 6 : len < 250 ? len - 190 : 300 + len; /* some long rows */
            for (uint32_t t = 0; t < len; t++, n++) {
                if (n == cap) {
                    cap *= 2;
                    sp[k]->wire = realloc(sp[k]->wire, cap * 4);
                    sp[k]->coeff = realloc(sp[k]->coeff, cap * 4);
                }
                sp[k]->wire[n] = (uint32_t)(rd_u16(&r) % n_cols);
                sp[k]->coeff[n] = rd_u8(&r) % n_coeffs;
            }
            sp[k]->row_start[row + 1] = n;
        }
        sp[k]->n_terms = n;
    }
    char err[CUZK_ERRMSG_LEN];
    cuzk_pce p;
    unsigned cflags = (flags & 2) ? CUZK_PCE_INPUT_ROWS : 0;
    if (cuzk_pce_compile(&p, &m, n_in, n_aux, cflags, 1 + (flags >> 6), err) != CUZK_OK) abort();
    cuzk_pce q;
    if (cuzk_pce_open(&q, p.image, p.image_size, 0, 2, err) != CUZK_OK) abort();
    cuzk_pce_free(&q);
    if (!cflags) check_eval(&p, &m);
    /* Damage: (position u16 * 8 + something, value) pairs from the rest. */
    size_t n = p.image_size;
    uint8_t *img = malloc(n);
    memcpy(img, p.image, n);
    int edits = 0;
    while (r.i + 3 <= r.n && edits < 8) {
        size_t at = ((size_t)rd_u16(&r) * 7 + rd_u8(&r)) % n;
        img[at] = (uint8_t)rd_u8(&r);
        edits++;
    }
    if (edits) {
        uint64_t bh;
        if (cuzk_body_hash(&bh, img + PCE_HEADER_BYTES, n - PCE_HEADER_BYTES, 1) == CUZK_OK) {
            pce_wr64(img + H_BODY_HASH, bh);
            memset(img + H_HEADER_HASH, 0, 8);
            pce_wr64(img + H_HEADER_HASH, cuzk_xxh64(img, PCE_HEADER_BYTES, 0));
        }
        try_open(img, n, 0);
        try_open(img, n / 2 + (n % 7), 0);
    }
    free(img);
    cuzk_pce_free(&p);
    cuzk_pce_matrices_free(&m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0) return 0;
    if (data[0] & 1) {
        compiled_mode(data + 1, size - 1);
    } else {
        /* An 8-byte-aligned copy: cuzk_pce_open requires the alignment. */
        try_open(data + 1, size - 1, 0);
        try_open(data + 1, size - 1, CUZK_PCE_SKIP_HASH);
    }
    return 0;
}
