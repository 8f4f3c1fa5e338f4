/* cuzk — the compact witness (cuzk_witness_compact of prove.h): filled
 * from a dense vector or straight from a constraint system's bit-aware
 * storage, expanded back, read value by value.
 *
 * Both fills run in two passes over ranges of 64-value words on the thread
 * pool: the bitmaps and each word's count of other values, then (with the
 * counts summed into offsets and vals grown once) the other values. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <cuzk/prove.h>

#include "common/parallel.h"
#include "prove/wcompact.h"

/* Ranges of at least this many words (64 K values: ~1 ms of a dense
 * classify), so a split pays for its wake-ups. */
#define WC_MIN_WORDS 1024

uint64_t cuzk_wc_bytes_for(size_t n, size_t n_other)
{
    uint64_t nw = wc_words(n);
    return nw * (2 * sizeof(uint64_t) + sizeof(uint32_t)) + (uint64_t)n_other * sizeof(cuzk_fr);
}

cuzk_status cuzk_wc_init(cuzk_witness_compact *wc, size_t n)
{
    if (!wc) return CUZK_ERR_INVALID_ARGUMENT;
    memset(wc, 0, sizeof *wc);
    if (n > UINT32_MAX) return CUZK_ERR_INVALID_ARGUMENT; /* off[] is 32-bit */
    size_t nw = wc_words(n) ? wc_words(n) : 1;
    wc->bits = calloc(2 * nw, sizeof *wc->bits);
    wc->off = calloc(nw, sizeof *wc->off);
    if (!wc->bits || !wc->off) {
        cuzk_wc_free(wc);
        return CUZK_ERR_NO_MEMORY;
    }
    wc->n = n;
    return CUZK_OK;
}

void cuzk_wc_free(cuzk_witness_compact *wc)
{
    if (!wc) return;
    free(wc->bits);
    free(wc->off);
    free(wc->vals);
    memset(wc, 0, sizeof *wc);
}

uint64_t cuzk_wc_bytes(const cuzk_witness_compact *wc)
{
    return wc->bits ? cuzk_wc_bytes_for(wc->n, wc->cap_vals) : 0;
}

/* Room for need values in vals, with 1/8 to spare so that the next
 * witness of the same circuit (a few more values) does not move it. */
static cuzk_status wc_grow(cuzk_witness_compact *wc, size_t need)
{
    if (need <= wc->cap_vals) return CUZK_OK;
    size_t cap = need + need / 8;
    if (cap > wc->n) cap = wc->n;
    cuzk_fr *v = realloc(wc->vals, cap * sizeof *v);
    if (!v) return CUZK_ERR_NO_MEMORY;
    wc->vals = v;
    wc->cap_vals = cap;
    return CUZK_OK;
}

/* The two passes of a fill over wc's words: classify (bitmaps, counts),
 * the counts to offsets, vals grown once, gather. */
static cuzk_status wc_fill(cuzk_witness_compact *wc, unsigned nthreads, cuzk_range_fn classify,
                           cuzk_range_fn gather, void *ctx)
{
    size_t nw = wc_words(wc->n);
    wc->n_other = 0;
    cuzk_parallel_for(nw, WC_MIN_WORDS, nthreads, classify, ctx);
    size_t n_other = wc_offsets(wc->off, nw);
    if (wc_grow(wc, n_other) != CUZK_OK) return CUZK_ERR_NO_MEMORY;
    cuzk_parallel_for(nw, WC_MIN_WORDS, nthreads, gather, ctx);
    wc->n_other = n_other;
    return CUZK_OK;
}

/* ------------------------------------------------------- from dense -- */

typedef struct {
    cuzk_witness_compact *wc;
    const cuzk_fr *w;
} dense_job;

static void dense_classify(void *ctx, size_t b, size_t e)
{
    dense_job *j = ctx;
    size_t nw = wc_words(j->wc->n);
    wc_classify(j->w, j->wc->n, b, e, j->wc->bits, j->wc->bits + nw, j->wc->off);
}

static void dense_gather(void *ctx, size_t b, size_t e)
{
    dense_job *j = ctx;
    wc_gather(j->w, j->wc->n, b, e, j->wc->bits, j->wc->off, j->wc->vals);
}

cuzk_status cuzk_wc_from_dense(cuzk_witness_compact *wc, const cuzk_fr *w, size_t n,
                               unsigned nthreads)
{
    if (!wc || !wc->bits || wc->n != n || (!w && n)) return CUZK_ERR_INVALID_ARGUMENT;
    dense_job j = {wc, w};
    return wc_fill(wc, nthreads, dense_classify, dense_gather, &j);
}

/* ---------------------------------------------------------- from cs -- */

/* Bits [b, b + 64) of a bitmap of nbits bits (0 at and beyond nbits); a
 * word past the last is never read. */
static inline uint64_t bits_at(const uint64_t *a, size_t b, size_t nbits)
{
    if (b >= nbits) return 0;
    size_t k = b >> 6;
    unsigned s = (unsigned)(b & 63);
    uint64_t v = a[k] >> s;
    if (s && (k + 1) * 64 < nbits) v |= a[k + 1] << (64 - s);
    if (nbits - b < 64) v &= ((uint64_t)1 << (nbits - b)) - 1;
    return v;
}

/* The low popcount(mask) bits of src, placed at mask's set bits in order
 * (x86's PDEP; a loop over the set bits, so no BMI2 is assumed). */
static inline uint64_t deposit(uint64_t src, uint64_t mask)
{
    uint64_t r = 0;
    for (uint64_t m = mask; m; m &= m - 1, src >>= 1)
        if (src & 1) r |= m & (~m + 1);
    return r;
}

/* Set bits of layout[0..j): the cs's bit variables before aux variable j.
 * Counted from the start for each range of words (a full partition: ~2 M
 * popcounts, about a millisecond, per range; a range is >= 64 K values). */
static size_t rank_bits(const uint64_t *layout, size_t j)
{
    size_t r = 0;
    for (size_t k = 0; k < j / 64; k++) r += (size_t)__builtin_popcountll(layout[k]);
    if (j & 63) r += (size_t)__builtin_popcountll(layout[j / 64] & (((uint64_t)1 << (j & 63)) - 1));
    return r;
}

typedef struct {
    cuzk_witness_compact *wc;
    cuzk_witness_view v;
} cs_job;

/* Words [kb, ke) of the wires: w[0..n_in) are the inputs, then aux
 * variable j is wire n_in + j, a bit (layout bit j: the next bit of `bits`)
 * or the next field value. gather 0: bitmaps and counts; 1: the values. */
static void cs_words(cs_job *j, size_t kb, size_t ke, int gather)
{
    cuzk_witness_compact *wc = j->wc;
    const cuzk_witness_view *v = &j->v;
    size_t n = wc->n, n_in = v->n_inputs, nw = wc_words(n);
    uint64_t *is_bit = wc->bits, *bit_val = wc->bits + nw;
    size_t w0 = kb * 64, js = w0 > n_in ? w0 - n_in : 0;
    size_t bi = rank_bits(v->layout, js), fi = js - bi;
    for (size_t k = kb; k < ke; k++) {
        w0 = k * 64;
        uint64_t valid = n - w0 >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << (n - w0)) - 1;
        size_t pin = n_in > w0 ? (n_in - w0 < 64 ? n_in - w0 : 64) : 0; /* inputs here */
        uint64_t aux = pin < 64 ? valid & (~(uint64_t)0 << pin) : 0;
        uint64_t lay = pin < 64 ? (bits_at(v->layout, w0 + pin - n_in, v->n_aux) << pin) & aux : 0;
        uint64_t ib = lay, bv = 0, other = 0;
        if (!gather) bv = deposit(bits_at(v->bits, bi, v->n_bits), lay);
        bi += (size_t)__builtin_popcountll(lay);
        size_t dst = gather ? wc->off[k] : 0;
        /* The inputs, then the field values, by value as the dense classify. */
        for (uint64_t m = (valid & ~aux) | (aux & ~lay); m; m &= m - 1) {
            unsigned p = (unsigned)__builtin_ctzll(m);
            const cuzk_fr *x = w0 + p < n_in ? &v->inputs[w0 + p] : &v->fields[fi++];
            uint64_t bit = (uint64_t)1 << p;
            if (cuzk_fr_is_zero(x)) ib |= bit;
            else if (cuzk_fr_is_one(x)) ib |= bit, bv |= bit;
            else if (gather) memcpy(&wc->vals[dst++], x, sizeof *x);
            else other++;
        }
        if (!gather) {
            is_bit[k] = ib;
            bit_val[k] = bv;
            wc->off[k] = (uint32_t)other;
        }
    }
}

static void cs_classify(void *ctx, size_t b, size_t e) { cs_words(ctx, b, e, 0); }
static void cs_gather(void *ctx, size_t b, size_t e) { cs_words(ctx, b, e, 1); }

cuzk_status cuzk_wc_from_cs(cuzk_witness_compact *wc, const cuzk_cs *cs, unsigned nthreads)
{
    if (!wc || !wc->bits || !cs) return CUZK_ERR_INVALID_ARGUMENT;
    cs_job j = {wc, {0}};
    cuzk_cs_witness_view(cs, &j.v);
    if (wc->n != (size_t)j.v.n_inputs + j.v.n_aux || j.v.n_bits + j.v.n_fields != j.v.n_aux)
        return CUZK_ERR_INVALID_ARGUMENT;
    return wc_fill(wc, nthreads, cs_classify, cs_gather, &j);
}

/* ----------------------------------------------------------- expand -- */

typedef struct {
    const cuzk_witness_compact *wc;
    cuzk_fr *w;
} expand_job;

static void expand_words(void *ctx, size_t kb, size_t ke)
{
    expand_job *j = ctx;
    const cuzk_witness_compact *wc = j->wc;
    size_t n = wc->n, nw = wc_words(n);
    for (size_t k = kb; k < ke; k++) {
        uint64_t ib = wc->bits[k], bv = wc->bits[nw + k];
        size_t src = wc->off[k], e = (k + 1) * 64 < n ? (k + 1) * 64 : n;
        for (size_t i = k * 64; i < e; i++) {
            uint64_t bit = (uint64_t)1 << (i & 63);
            if (!(ib & bit)) j->w[i] = wc->vals[src++];
            else if (bv & bit) j->w[i] = CUZK_FR_ONE;
            else memset(&j->w[i], 0, sizeof j->w[i]);
        }
    }
}

cuzk_status cuzk_wc_expand(const cuzk_witness_compact *wc, cuzk_fr *w, size_t n_w,
                           unsigned nthreads)
{
    if (!wc || !wc->bits || wc->n != n_w || (!w && n_w)) return CUZK_ERR_INVALID_ARGUMENT;
    expand_job j = {wc, w};
    cuzk_parallel_for(wc_words(n_w), WC_MIN_WORDS, nthreads, expand_words, &j);
    return CUZK_OK;
}

int cuzk_wc_filled(const cuzk_witness_compact *wc)
{
    if (!wc || !wc->bits || !wc->off || wc->n_other > wc->cap_vals || (wc->n_other && !wc->vals))
        return 0;
    size_t nw = wc_words(wc->n);
    if (nw == 0) return wc->n_other == 0;
    unsigned tail = (unsigned)(wc->n - (nw - 1) * 64);
    uint64_t valid = tail == 64 ? ~(uint64_t)0 : ((uint64_t)1 << tail) - 1;
    return (size_t)wc->off[nw - 1] + (size_t)__builtin_popcountll(~wc->bits[nw - 1] & valid) ==
           wc->n_other;
}

void cuzk_wc_value(const cuzk_witness_compact *wc, size_t i, cuzk_fr *out)
{
    int64_t src = wc_source(i, wc->bits, wc->bits + wc_words(wc->n), wc->off);
    if (src == WC_ONE) *out = CUZK_FR_ONE;
    else if (src == WC_ZERO) memset(out, 0, sizeof *out);
    else *out = wc->vals[src];
}
