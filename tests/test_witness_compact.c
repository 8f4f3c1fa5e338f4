/* The compact witness (cuzk_witness_compact of prove.h; its layout in
 * src/prove/wcompact.h, which the GPU prover uploads and its device kernel
 * reads with wc_source), against the dense witness:
 *   - the passes of wcompact.h: lengths around the word boundaries,
 *     witnesses of all zeros, all ones, no bits, random mixes, split over
 *     ranges of words as threads split them;
 *   - cuzk_wc_from_dense, cuzk_wc_expand and cuzk_wc_value;
 *   - cuzk_wc_from_cs (from a constraint system's bit-aware storage, no
 *     dense vector) byte for byte against cuzk_wc_from_dense of
 *     cuzk_cs_witness's vector: random systems (input counts around the
 *     word size, bits and fields interleaved, fields that are 0 or 1) and
 *     a built-in circuit's witness; on 1 and 4 threads; a buffer reused
 *     for a witness with more other values, then fewer.
 * Replay with CUZK_SEED=<n>. */
#include <stdlib.h>
#include <string.h>

#include <cuzk/circuits.h>
#include <cuzk/ff.h>
#include <cuzk/prove.h>
#include <cuzk/r1cs.h>

#include "prove/wcompact.h"
#include "test_util.h"

/* kind 0: random mix of 0, 1 and other values; 1: all 0; 2: all 1; 3: no
 * 0 or 1; 4: runs of each (whole words of one kind). */
static void fill(cuzk_fr *w, size_t n, int kind)
{
    for (size_t i = 0; i < n; i++) {
        int t = kind == 0 ? (int)(test_rand64() % 3)
              : kind == 1 ? 0
              : kind == 2 ? 1
              : kind == 3 ? 2
                          : (int)((i / 64) % 3);
        if (t == 0) memset(&w[i], 0, sizeof w[i]);
        else if (t == 1) w[i] = CUZK_FR_ONE;
        else {
            uint64_t v[4] = {test_rand64(), test_rand64(), test_rand64(), test_rand64() >> 4};
            if (v[0] < 2) v[0] = 2; /* never 0 or 1 */
            cuzk_fr_from_limbs(&w[i], v);
        }
    }
}

static void check(size_t n, int kind, size_t parts)
{
    size_t nw = wc_words(n);
    cuzk_fr *w = malloc((n ? n : 1) * sizeof *w), *vals = malloc((n ? n : 1) * sizeof *vals);
    uint64_t *ib = malloc((nw ? nw : 1) * 8), *bv = malloc((nw ? nw : 1) * 8);
    uint32_t *off = malloc((nw ? nw : 1) * 4);
    CHECK(w && vals && ib && bv && off);
    if (!w || !vals || !ib || !bv || !off) goto out;
    fill(w, n, kind);
    for (size_t p = 0; p < parts; p++)
        wc_classify(w, n, nw * p / parts, nw * (p + 1) / parts, ib, bv, off);
    size_t n_other = wc_offsets(off, nw);
    for (size_t p = parts; p-- > 0;) /* the other order: ranges are independent */
        wc_gather(w, n, nw * p / parts, nw * (p + 1) / parts, ib, off, vals);
    size_t want_other = 0, bad = n;
    for (size_t i = 0; i < n; i++) {
        int is0 = cuzk_fr_is_zero(&w[i]), is1 = cuzk_fr_is_one(&w[i]);
        want_other += !is0 && !is1;
        int64_t src = wc_source(i, ib, bv, off);
        int ok = is0 ? src == WC_ZERO
               : is1 ? src == WC_ONE
                     : src >= 0 && (size_t)src < n_other && cuzk_fr_eq(&vals[src], &w[i]);
        if (!ok && bad == n) bad = i;
    }
    CHECK_MSG(bad == n, "n %zu kind %d parts %zu: value %zu not recovered", n, kind, parts, bad);
    CHECK_MSG(n_other == want_other, "n %zu kind %d: %zu other values, want %zu", n, kind,
              n_other, want_other);
    /* the bits past n are 0 in both bitmaps (the SpMV never sees them set) */
    if (n % 64) {
        uint64_t past = ~(((uint64_t)1 << (n % 64)) - 1);
        CHECK((ib[nw - 1] & past) == 0 && (bv[nw - 1] & past) == 0);
    }
    /* bit_val only where is_bit */
    for (size_t k = 0; k < nw; k++) CHECK((bv[k] & ~ib[k]) == 0);
out:
    free(w);
    free(vals);
    free(ib);
    free(bv);
    free(off);
}

/* Two filled compact witnesses hold the same bytes. */
static int wc_same(const cuzk_witness_compact *a, const cuzk_witness_compact *b)
{
    size_t nw = wc_words(a->n);
    return a->n == b->n && a->n_other == b->n_other &&
           !memcmp(a->bits, b->bits, 2 * nw * sizeof *a->bits) &&
           !memcmp(a->off, b->off, nw * sizeof *a->off) &&
           (!a->n_other || !memcmp(a->vals, b->vals, a->n_other * sizeof *a->vals));
}

/* The public functions on a dense witness: fill, expand, look up. */
static void check_dense(size_t n, int kind, unsigned nthreads)
{
    cuzk_fr *w = malloc((n ? n : 1) * sizeof *w), *back = malloc((n ? n : 1) * sizeof *back);
    cuzk_witness_compact wc;
    CHECK(w && back && cuzk_wc_init(&wc, n) == CUZK_OK);
    if (!w || !back || !wc.bits) goto out;
    fill(w, n, kind);
    CHECK(n == 0 || !cuzk_wc_filled(&wc)); /* made, not filled */
    CHECK(cuzk_wc_from_dense(&wc, w, n, nthreads) == CUZK_OK);
    CHECK(cuzk_wc_filled(&wc));
    CHECK(cuzk_wc_bytes(&wc) == cuzk_wc_bytes_for(n, wc.cap_vals) && wc.cap_vals >= wc.n_other);
    memset(back, 0xa5, (n ? n : 1) * sizeof *back);
    CHECK(cuzk_wc_expand(&wc, back, n, nthreads) == CUZK_OK);
    CHECK_MSG(!memcmp(back, w, n * sizeof *w), "n %zu kind %d: expand", n, kind);
    for (size_t k = 0; k < 16 && n; k++) {
        size_t i = test_rand64() % n;
        cuzk_fr v;
        cuzk_wc_value(&wc, i, &v);
        CHECK_MSG(cuzk_fr_eq(&v, &w[i]), "n %zu kind %d: value %zu", n, kind, i);
    }
    /* misuse: another count */
    CHECK(cuzk_wc_from_dense(&wc, w, n + 1, 1) == CUZK_ERR_INVALID_ARGUMENT);
    CHECK(cuzk_wc_expand(&wc, back, n + 1, 1) == CUZK_ERR_INVALID_ARGUMENT);
out:
    cuzk_wc_free(&wc);
    free(w);
    free(back);
}

/* A value for a cs field or input: 0, 1 or random, by weight. */
static void rand_value(cuzk_fr *x)
{
    unsigned t = (unsigned)(test_rand64() % 8);
    if (t == 0) memset(x, 0, sizeof *x);
    else if (t == 1) *x = CUZK_FR_ONE;
    else {
        uint64_t v[4] = {test_rand64(), test_rand64(), test_rand64(), test_rand64() >> 4};
        cuzk_fr_from_limbs(x, v);
    }
}

/* cs's compact form, straight and through the dense vector, on nthreads;
 * also into a reused buffer (reuse, whose old contents must not matter). */
static void check_cs(cuzk_cs *cs, const char *what, unsigned nthreads,
                     cuzk_witness_compact *reuse)
{
    cuzk_cs_shape sh;
    cuzk_cs_get_shape(cs, &sh);
    size_t n = (size_t)sh.n_inputs + sh.n_aux;
    cuzk_fr *w = malloc(n * sizeof *w);
    cuzk_witness_compact a, b, small;
    memset(&small, 0, sizeof small);
    CHECK(w && cuzk_wc_init(&a, n) == CUZK_OK && cuzk_wc_init(&b, n) == CUZK_OK);
    if (!w || !a.bits || !b.bits) goto out;
    CHECK(cuzk_cs_witness(cs, w, n) == CUZK_OK);
    CHECK(cuzk_wc_from_dense(&a, w, n, 1) == CUZK_OK);
    CHECK(cuzk_wc_from_cs(&b, cs, nthreads) == CUZK_OK);
    CHECK_MSG(wc_same(&a, &b), "%s (%zu values, %u inputs, %u bits, %u fields, %u threads)",
              what, n, sh.n_inputs, sh.n_aux_bits, sh.n_aux_fields, nthreads);
    if (reuse) {
        CHECK(cuzk_wc_from_cs(reuse, cs, nthreads) == CUZK_OK);
        CHECK_MSG(wc_same(&a, reuse), "%s: a reused buffer", what);
    }
    CHECK(cuzk_wc_init(&small, n - 1) == CUZK_OK);
    CHECK(cuzk_wc_from_cs(&small, cs, 1) == CUZK_ERR_INVALID_ARGUMENT);
out:
    cuzk_wc_free(&small);
    cuzk_wc_free(&a);
    cuzk_wc_free(&b);
    free(w);
}

/* A witness-mode cs of n_in inputs (ONE first) and n_aux aux variables,
 * a bit with probability pbit / 8. */
static int make_cs(cuzk_cs *cs, uint32_t n_in, uint32_t n_aux, unsigned pbit)
{
    if (cuzk_cs_init(cs, CUZK_CS_WITNESS, NULL) != CUZK_OK) return 0;
    for (uint32_t i = 1; i < n_in; i++) {
        cuzk_fr x;
        rand_value(&x);
        cuzk_cs_alloc_input(cs, &x);
    }
    for (uint32_t j = 0; j < n_aux; j++) {
        if (test_rand64() % 8 < pbit) {
            cuzk_cs_alloc_bit(cs, (unsigned)(test_rand64() & 1));
        } else {
            cuzk_fr x;
            rand_value(&x);
            cuzk_cs_alloc(cs, &x);
        }
    }
    return cs->status == CUZK_OK;
}

static void test_from_cs(void)
{
    static const uint32_t ins[] = {1, 2, 63, 64, 65, 130};
    static const uint32_t auxs[] = {0, 1, 62, 63, 64, 65, 200, 5000};
    char what[64];
    for (size_t a = 0; a < sizeof ins / sizeof ins[0]; a++)
        for (size_t b = 0; b < sizeof auxs / sizeof auxs[0]; b++)
            for (unsigned pbit = 0; pbit <= 8; pbit += 4) {
                cuzk_cs cs;
                CHECK(make_cs(&cs, ins[a], auxs[b], pbit));
                snprintf(what, sizeof what, "random cs, bits %u/8", pbit);
                check_cs(&cs, what, 1 + (unsigned)(b % 2) * 3, NULL);
                cuzk_cs_free(&cs);
            }
    /* > 2 x 1024 words, so 4 threads take several ranges; one buffer for
     * a witness of mostly fields (its vals grow), then mostly bits */
    cuzk_witness_compact reuse;
    CHECK(cuzk_wc_init(&reuse, 300000 + 65) == CUZK_OK);
    for (unsigned pbit = 1; pbit <= 7; pbit += 6) {
        cuzk_cs cs;
        CHECK(make_cs(&cs, 65, 300000, pbit));
        snprintf(what, sizeof what, "300000 aux, bits %u/8", pbit);
        check_cs(&cs, what, 4, &reuse);
        cuzk_cs_free(&cs);
    }
    cuzk_wc_free(&reuse);
}

/* A built-in circuit's real witness (SHA-256 bits, Poseidon fields). */
static void test_circuit(void)
{
    char err[CUZK_ERRMSG_LEN];
    cuzk_circuit *ci = NULL;
    CHECK_MSG(cuzk_circuit_open(&ci, "porep-32g", 12, err) == CUZK_OK, "%s", err);
    if (!ci) return;
    char *js = NULL;
    cuzk_cs cs;
    memset(&cs, 0, sizeof cs);
    CHECK(cuzk_circuit_inputs_json(ci, test_rand64() >> 1, 0, &js, err) == CUZK_OK);
    if (js && cuzk_circuit_witness(ci, js, strlen(js), &cs, 2, err) == CUZK_OK)
        check_cs(&cs, "porep-32g at 2^12", 2, NULL);
    else
        CHECK_MSG(0, "porep-32g witness: %s", err);
    free(js);
    cuzk_cs_free(&cs);
    cuzk_circuit_close(ci);
}

int main(void)
{
    test_seed("test_witness_compact");
    static const size_t sizes[] = {0, 1, 2, 63, 64, 65, 127, 128, 129, 1000, 4096, 70001};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (int kind = 0; kind < 5; kind++)
            for (size_t parts = 1; parts <= 7; parts += 3) check(sizes[s], kind, parts);
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (int kind = 0; kind < 5; kind++) check_dense(sizes[s], kind, 1 + (unsigned)(s % 4));
    check_dense(200000, 0, 4);
    cuzk_witness_compact big;
    CHECK(cuzk_wc_init(&big, (size_t)UINT32_MAX + 1) == CUZK_ERR_INVALID_ARGUMENT && !big.bits);
    test_from_cs();
    test_circuit();
    return test_done("test_witness_compact");
}
