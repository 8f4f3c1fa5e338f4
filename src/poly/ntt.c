/* Radix-2 NTT over Fr, cache-blocked and multithreaded.
 *
 * forward: decimation in frequency (natural order in, bit-reversed out),
 *          then a bit-reversal permutation.
 * inverse: bit-reversal permutation, then decimation in time with the
 *          inverse roots; 1/n is folded into a final scaling pass (with g^-i
 *          for the coset variant).
 * to_coset: decimation in frequency with the inverse roots (natural in,
 *          bit-reversed out), one scaling pass by g^i / n in bit-reversed
 *          order, decimation in time with the forward roots (bit-reversed
 *          in, natural out): no permutation at all, one scaling pass
 *          instead of two.
 *
 * Stages whose butterflies span less than NTT_BLOCK elements run block by
 * block, all such stages on one block before moving on, so each block is read
 * from memory once for those stages. Wider ("outer") stages run one at a time,
 * split over threads by ranges of the twiddle index j, so each thread computes
 * its twiddles once and applies them to every butterfly group of the stage.
 */
#include <stdlib.h>
#include <string.h>

#include <cuzk/poly.h>

#include "common/parallel.h"
#include "ff/mont.h"

/* Butterflies narrower than this stay inside one block: 2^12 elements =
 * 128 KiB, half of a typical 256 KiB-1 MiB L2. */
#define NTT_BLOCK_LOG 12
/* Work below this size runs on the caller's thread only. */
#define NTT_SERIAL_LOG 14
/* Twiddles computed per task slice of an outer stage. */
#define NTT_TW_CHUNK 256

struct cuzk_ntt_domain {
    unsigned log_n;
    size_t n;
    cuzk_roots roots;
    unsigned nthreads;
    cuzk_fr omega, omega_inv, g, g_inv, n_inv;
    /* Inner stages: tw[h + j] = omega_2h^j for 1 <= h < block, j < h
     * (index 0 unused); the same with inverse roots in tw_inv. */
    size_t block;
    cuzk_fr *tw, *tw_inv;
    /* cuzk_ntt_to_coset's scaling, made once here so that the transform
     * allocates nothing (a prover calls it three times a proof):
     * co_lo[bitrev(i)] = (g^(2^hi))^i, i < 2^lo, and
     * co_hi[bitrev(i)] = n^-1 g^i, i < 2^hi (lo = log_n / 2, hi = log_n - lo). */
    cuzk_fr *co_lo, *co_hi;
};

/* 7^t and 5^t, canonical, with r - 1 = 2^32 t (test_ntt recomputes both). */
static const uint64_t ROOT_7[4] = {0x3829971f439f0d2bull, 0xb63683508c2280b9ull,
                                   0xd09b681922c813b4ull, 0x16a2a19edfe81f20ull};
static const uint64_t ROOT_5[4] = {0x1b788f500b912f1full, 0xc4024ff270b3e094ull,
                                   0x0fd56dc8d168d6c0ull, 0x0212d79e5b416b6full};

void cuzk_fr_root_of_unity(cuzk_fr *r, cuzk_roots roots)
{
    cuzk_fr_from_limbs(r, roots == CUZK_ROOTS_SNARKJS ? ROOT_5 : ROOT_7);
}

size_t cuzk_ntt_size(const cuzk_ntt_domain *d) { return d->n; }
cuzk_roots cuzk_ntt_roots(const cuzk_ntt_domain *d) { return d->roots; }
const cuzk_fr *cuzk_ntt_omega(const cuzk_ntt_domain *d) { return &d->omega; }
const cuzk_fr *cuzk_ntt_coset_shift(const cuzk_ntt_domain *d) { return &d->g; }

/* Fr addition and subtraction inlined into the butterflies rather than
 * called in fr.c: inverse + coset forward of 2^14 elements, 1 thread,
 * 8.3-8.8 -> 7.9 ms (2-core EPYC). */
static inline void fr_add_(cuzk_fr *r, const cuzk_fr *a, const cuzk_fr *b)
{
    mont_add(r->l, a->l, b->l, CUZK_FR_MODULUS, CUZK_FR_LIMBS);
}
static inline void fr_sub_(cuzk_fr *r, const cuzk_fr *a, const cuzk_fr *b)
{
    mont_sub(r->l, a->l, b->l, CUZK_FR_MODULUS, CUZK_FR_LIMBS);
}

/* out[j] = w^j for j < n, starting from w^start. */
static void powers(cuzk_fr *out, const cuzk_fr *w, size_t start, size_t n)
{
    cuzk_fr x;
    uint64_t e = start;
    cuzk_fr_pow(&x, w, &e, 1);
    for (size_t j = 0; j < n; j++) {
        out[j] = x;
        cuzk_fr_mul(&x, &x, w);
    }
}

static void fill_inner(cuzk_fr *tw, const cuzk_fr *omega, unsigned log_n, size_t block)
{
    for (size_t h = 1; h < block; h <<= 1) {
        /* omega_2h = omega^(n / 2h) */
        cuzk_fr w = *omega;
        for (size_t k = (size_t)1 << log_n; k > 2 * h; k >>= 1) cuzk_fr_sqr(&w, &w);
        powers(tw + h, &w, 0, h);
    }
}

static void powers_bitrev(cuzk_fr *t, const cuzk_fr *w, const cuzk_fr *start, unsigned bits);

cuzk_status cuzk_ntt_domain_create(cuzk_ntt_domain **out, unsigned log_n, cuzk_roots roots,
                                   unsigned nthreads)
{
    if (!out) return CUZK_ERR_INVALID_ARGUMENT;
    *out = NULL;
    if (log_n < 1 || log_n > CUZK_NTT_MAX_LOG) return CUZK_ERR_INVALID_ARGUMENT;
    if (roots != CUZK_ROOTS_BELLPERSON && roots != CUZK_ROOTS_SNARKJS)
        return CUZK_ERR_INVALID_ARGUMENT;
    cuzk_ntt_domain *d = calloc(1, sizeof *d);
    if (!d) return CUZK_ERR_NO_MEMORY;
    d->log_n = log_n;
    d->n = (size_t)1 << log_n;
    d->roots = roots;
    d->nthreads = nthreads ? nthreads : cuzk_ncores();
    d->block = d->n < ((size_t)1 << NTT_BLOCK_LOG) ? d->n : (size_t)1 << NTT_BLOCK_LOG;

    /* omega_2n = root^(2^(32 - log_n - 1)), omega = omega_2n^2. */
    cuzk_fr w2n;
    cuzk_fr_root_of_unity(&w2n, roots);
    for (unsigned k = 32; k > log_n + 1; k--) cuzk_fr_sqr(&w2n, &w2n);
    cuzk_fr_sqr(&d->omega, &w2n);
    cuzk_fr_inv(&d->omega_inv, &d->omega);
    if (roots == CUZK_ROOTS_BELLPERSON)
        cuzk_fr_from_u64(&d->g, 7);
    else
        d->g = w2n;
    cuzk_fr_inv(&d->g_inv, &d->g);
    cuzk_fr_from_u64(&d->n_inv, d->n);
    cuzk_fr_inv(&d->n_inv, &d->n_inv);

    unsigned lo = log_n / 2, hi = log_n - lo;
    d->tw = malloc((2 * d->block + ((size_t)1 << lo) + ((size_t)1 << hi)) * sizeof(cuzk_fr));
    if (!d->tw) {
        free(d);
        return CUZK_ERR_NO_MEMORY;
    }
    d->tw_inv = d->tw + d->block;
    fill_inner(d->tw, &d->omega, log_n, d->block);
    fill_inner(d->tw_inv, &d->omega_inv, log_n, d->block);
    d->co_lo = d->tw + 2 * d->block;
    d->co_hi = d->co_lo + ((size_t)1 << lo);
    cuzk_fr g_hi = d->g;
    for (unsigned k = 0; k < hi; k++) cuzk_fr_sqr(&g_hi, &g_hi);
    powers_bitrev(d->co_lo, &g_hi, &CUZK_FR_ONE, lo);
    powers_bitrev(d->co_hi, &d->g, &d->n_inv, hi);
    *out = d;
    return CUZK_OK;
}

size_t cuzk_ntt_domain_bytes(const cuzk_ntt_domain *d)
{
    unsigned lo = d->log_n / 2, hi = d->log_n - lo;
    return sizeof *d + (2 * d->block + ((size_t)1 << lo) + ((size_t)1 << hi)) * sizeof(cuzk_fr);
}

void cuzk_ntt_domain_destroy(cuzk_ntt_domain *d)
{
    if (!d) return;
    free(d->tw);
    free(d);
}

/* ------------------------------------------------------------ passes -- */

struct pass {
    const cuzk_ntt_domain *d;
    cuzk_fr *a;
    int dit;             /* butterflies: decimation in time (else frequency) */
    int inv_roots;       /* with the inverse roots */
    size_t h;            /* outer stage: half-width of its butterflies */
    cuzk_fr scale_start; /* scaling passes: factor for element 0 */
    cuzk_fr scale_step;  /* ... multiplied by this per element */
};

static unsigned threads_for(const cuzk_ntt_domain *d)
{
    return d->log_n < NTT_SERIAL_LOG ? 1 : d->nthreads;
}

/* Decimation in frequency on one block: stages h = block/2 .. 1, with the
 * twiddle table tw0 (d->tw or d->tw_inv). */
static void inner_dif(const cuzk_ntt_domain *d, cuzk_fr *blk, const cuzk_fr *tw0)
{
    for (size_t h = d->block >> 1; h >= 1; h >>= 1) {
        const cuzk_fr *tw = tw0 + h;
        for (size_t g0 = 0; g0 < d->block; g0 += 2 * h) {
            cuzk_fr *x = blk + g0, *y = x + h;
            /* j = 0: twiddle 1, no multiplication (all of stage h = 1,
             * half of h = 2, ...: 1/7 of a 2^14 transform's; to_coset of
             * 2^14, 1 thread: 7.1 -> 6.4 ms) */
            cuzk_fr u = x[0], v = y[0];
            fr_add_(&x[0], &u, &v);
            fr_sub_(&y[0], &u, &v);
            for (size_t j = 1; j < h; j++) {
                cuzk_fr u = x[j], v = y[j];
                fr_add_(&x[j], &u, &v);
                fr_sub_(&v, &u, &v);
                cuzk_fr_mul(&y[j], &v, &tw[j]);
            }
        }
    }
}

/* Decimation in time on one block: stages h = 1 .. block/2. */
static void inner_dit(const cuzk_ntt_domain *d, cuzk_fr *blk, const cuzk_fr *tw0)
{
    for (size_t h = 1; h < d->block; h <<= 1) {
        const cuzk_fr *tw = tw0 + h;
        for (size_t g0 = 0; g0 < d->block; g0 += 2 * h) {
            cuzk_fr *x = blk + g0, *y = x + h;
            cuzk_fr u = x[0], v = y[0]; /* j = 0: twiddle 1 */
            fr_add_(&x[0], &u, &v);
            fr_sub_(&y[0], &u, &v);
            for (size_t j = 1; j < h; j++) {
                cuzk_fr u = x[j], v;
                cuzk_fr_mul(&v, &y[j], &tw[j]);
                fr_add_(&x[j], &u, &v);
                fr_sub_(&y[j], &u, &v);
            }
        }
    }
}

static void inner_range(void *ctx, size_t b, size_t e)
{
    struct pass *p = ctx;
    const cuzk_fr *tw = p->inv_roots ? p->d->tw_inv : p->d->tw;
    for (size_t k = b; k < e; k++) {
        cuzk_fr *blk = p->a + k * p->d->block;
        if (p->dit)
            inner_dit(p->d, blk, tw);
        else
            inner_dif(p->d, blk, tw);
    }
}

/* One outer stage over twiddle indices j in [b, e) (in chunks), for every
 * butterfly group of the stage. */
static void outer_range(void *ctx, size_t b, size_t e)
{
    struct pass *p = ctx;
    const cuzk_ntt_domain *d = p->d;
    size_t h = p->h;
    cuzk_fr w = p->inv_roots ? d->omega_inv : d->omega; /* -> omega_2h */
    for (size_t k = d->n; k > 2 * h; k >>= 1) cuzk_fr_sqr(&w, &w);
    cuzk_fr tw[NTT_TW_CHUNK];
    for (size_t j0 = b; j0 < e; j0 += NTT_TW_CHUNK) {
        size_t c = e - j0 < NTT_TW_CHUNK ? e - j0 : NTT_TW_CHUNK;
        powers(tw, &w, j0, c);
        for (size_t g0 = 0; g0 < d->n; g0 += 2 * h) {
            cuzk_fr *x = p->a + g0 + j0, *y = x + h;
            if (p->dit) {
                for (size_t j = 0; j < c; j++) {
                    cuzk_fr u = x[j], v;
                    cuzk_fr_mul(&v, &y[j], &tw[j]);
                    fr_add_(&x[j], &u, &v);
                    fr_sub_(&y[j], &u, &v);
                }
            } else {
                for (size_t j = 0; j < c; j++) {
                    cuzk_fr u = x[j], v = y[j];
                    fr_add_(&x[j], &u, &v);
                    fr_sub_(&v, &u, &v);
                    cuzk_fr_mul(&y[j], &v, &tw[j]);
                }
            }
        }
    }
}

static size_t bitrev(size_t i, unsigned bits)
{
    size_t r = 0;
    for (unsigned k = 0; k < bits; k++, i >>= 1) r = (r << 1) | (i & 1);
    return r;
}

static void bitrev_range(void *ctx, size_t b, size_t e)
{
    struct pass *p = ctx;
    for (size_t i = b; i < e; i++) {
        size_t r = bitrev(i, p->d->log_n);
        if (i < r) {
            cuzk_fr t = p->a[i];
            p->a[i] = p->a[r];
            p->a[r] = t;
        }
    }
}

/* a[i] *= scale_start * scale_step^i */
static void scale_range(void *ctx, size_t b, size_t e)
{
    struct pass *p = ctx;
    cuzk_fr x;
    uint64_t eb = b;
    cuzk_fr_pow(&x, &p->scale_step, &eb, 1);
    cuzk_fr_mul(&x, &x, &p->scale_start);
    for (size_t i = b; i < e; i++) {
        cuzk_fr_mul(&p->a[i], &p->a[i], &x);
        cuzk_fr_mul(&x, &x, &p->scale_step);
    }
}

static void run_scale(const cuzk_ntt_domain *d, cuzk_fr *a, const cuzk_fr *start,
                      const cuzk_fr *step)
{
    struct pass p = {.d = d, .a = a, .scale_start = *start, .scale_step = *step};
    cuzk_parallel_for(d->n, 4096, threads_for(d), scale_range, &p);
}

static void run_bitrev(const cuzk_ntt_domain *d, cuzk_fr *a)
{
    struct pass p = {.d = d, .a = a};
    cuzk_parallel_for(d->n, 4096, threads_for(d), bitrev_range, &p);
}

/* Decimation in frequency: natural order in, bit-reversed out. */
static void dif_stages(const cuzk_ntt_domain *d, cuzk_fr *a, int inv_roots)
{
    struct pass p = {.d = d, .a = a, .dit = 0, .inv_roots = inv_roots};
    unsigned t = threads_for(d);
    for (p.h = d->n >> 1; p.h >= d->block; p.h >>= 1)
        cuzk_parallel_for(p.h, NTT_TW_CHUNK, t, outer_range, &p);
    cuzk_parallel_for(d->n / d->block, 1, t, inner_range, &p);
}

/* Decimation in time: bit-reversed order in, natural out. */
static void dit_stages(const cuzk_ntt_domain *d, cuzk_fr *a, int inv_roots)
{
    struct pass p = {.d = d, .a = a, .dit = 1, .inv_roots = inv_roots};
    unsigned t = threads_for(d);
    cuzk_parallel_for(d->n / d->block, 1, t, inner_range, &p);
    for (p.h = d->block; p.h < d->n; p.h <<= 1)
        cuzk_parallel_for(p.h, NTT_TW_CHUNK, t, outer_range, &p);
}

static void run_dif(const cuzk_ntt_domain *d, cuzk_fr *a)
{
    dif_stages(d, a, 0);
    run_bitrev(d, a);
}

static void run_dit(const cuzk_ntt_domain *d, cuzk_fr *a)
{
    run_bitrev(d, a);
    dit_stages(d, a, 1);
}

void cuzk_ntt_forward(const cuzk_ntt_domain *d, cuzk_fr *a) { run_dif(d, a); }

void cuzk_ntt_inverse(const cuzk_ntt_domain *d, cuzk_fr *a)
{
    run_dit(d, a);
    run_scale(d, a, &d->n_inv, &CUZK_FR_ONE);
}

void cuzk_ntt_coset_forward(const cuzk_ntt_domain *d, cuzk_fr *a)
{
    run_scale(d, a, &CUZK_FR_ONE, &d->g);
    run_dif(d, a);
}

void cuzk_ntt_coset_inverse(const cuzk_ntt_domain *d, cuzk_fr *a)
{
    run_dit(d, a);
    run_scale(d, a, &d->n_inv, &d->g_inv);
}

/* ------------------------------------------------------------ to_coset --
 *
 * After the inverse-root DIF, position p holds n c_k for k = bitrev(p) (c
 * the coefficients); it is scaled by g^k / n. With p = ph 2^lo + pl (lo
 * low bits), bitrev(p) = bitrev_lo(pl) 2^hi + bitrev_hi(ph) (hi = log_n -
 * lo), so the factor is A[pl] B[ph] with A[pl] = (g^(2^hi))^bitrev_lo(pl)
 * and B[ph] = g^bitrev_hi(ph) / n: two tables of ~sqrt(n) elements and two
 * multiplications per element. */

struct coset_scale {
    cuzk_fr *a;
    const cuzk_fr *ta, *tb; /* A (2^lo entries), B (2^hi entries) */
    unsigned lo;
};

static void coset_scale_range(void *ctx, size_t b, size_t e)
{
    struct coset_scale *x = ctx;
    size_t nlo = (size_t)1 << x->lo;
    for (size_t ph = b; ph < e; ph++) {
        cuzk_fr *row = x->a + ph * nlo;
        for (size_t pl = 0; pl < nlo; pl++) {
            cuzk_fr f;
            cuzk_fr_mul(&f, &x->ta[pl], &x->tb[ph]);
            cuzk_fr_mul(&row[pl], &row[pl], &f);
        }
    }
}

/* t[bitrev_bits(i)] = start w^i for i < 2^bits. */
static void powers_bitrev(cuzk_fr *t, const cuzk_fr *w, const cuzk_fr *start, unsigned bits)
{
    cuzk_fr x = *start;
    for (size_t i = 0; i < ((size_t)1 << bits); i++) {
        t[bitrev(i, bits)] = x;
        cuzk_fr_mul(&x, &x, w);
    }
}

cuzk_status cuzk_ntt_to_coset(const cuzk_ntt_domain *d, cuzk_fr *a)
{
    unsigned lo = d->log_n / 2, hi = d->log_n - lo;
    dif_stages(d, a, 1);
    struct coset_scale x = {a, d->co_lo, d->co_hi, lo};
    cuzk_parallel_for((size_t)1 << hi, 4096 >> lo ? 4096 >> lo : 1, threads_for(d),
                      coset_scale_range, &x);
    dit_stages(d, a, 0);
    return CUZK_OK;
}
