/* Radix-2 NTT over Fr, cache-blocked and multithreaded.
 *
 * forward: decimation in frequency (natural order in, bit-reversed out),
 *          then a bit-reversal permutation.
 * inverse: bit-reversal permutation, then decimation in time with the
 *          inverse roots; 1/n is folded into a final scaling pass (with g^-i
 *          for the coset variant).
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

    d->tw = malloc(2 * d->block * sizeof(cuzk_fr));
    if (!d->tw) {
        free(d);
        return CUZK_ERR_NO_MEMORY;
    }
    d->tw_inv = d->tw + d->block;
    fill_inner(d->tw, &d->omega, log_n, d->block);
    fill_inner(d->tw_inv, &d->omega_inv, log_n, d->block);
    *out = d;
    return CUZK_OK;
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
    int inverse;
    size_t h;            /* outer stage: half-width of its butterflies */
    cuzk_fr scale_start; /* scaling passes: factor for element 0 */
    cuzk_fr scale_step;  /* ... multiplied by this per element */
};

static unsigned threads_for(const cuzk_ntt_domain *d)
{
    return d->log_n < NTT_SERIAL_LOG ? 1 : d->nthreads;
}

/* Decimation in frequency on one block: stages h = block/2 .. 1. */
static void inner_dif(const cuzk_ntt_domain *d, cuzk_fr *blk)
{
    for (size_t h = d->block >> 1; h >= 1; h >>= 1) {
        const cuzk_fr *tw = d->tw + h;
        for (size_t g0 = 0; g0 < d->block; g0 += 2 * h) {
            cuzk_fr *x = blk + g0, *y = x + h;
            for (size_t j = 0; j < h; j++) {
                cuzk_fr u = x[j], v = y[j];
                cuzk_fr_add(&x[j], &u, &v);
                cuzk_fr_sub(&v, &u, &v);
                cuzk_fr_mul(&y[j], &v, &tw[j]);
            }
        }
    }
}

/* Decimation in time on one block: stages h = 1 .. block/2. */
static void inner_dit(const cuzk_ntt_domain *d, cuzk_fr *blk)
{
    for (size_t h = 1; h < d->block; h <<= 1) {
        const cuzk_fr *tw = d->tw_inv + h;
        for (size_t g0 = 0; g0 < d->block; g0 += 2 * h) {
            cuzk_fr *x = blk + g0, *y = x + h;
            for (size_t j = 0; j < h; j++) {
                cuzk_fr u = x[j], v;
                cuzk_fr_mul(&v, &y[j], &tw[j]);
                cuzk_fr_add(&x[j], &u, &v);
                cuzk_fr_sub(&y[j], &u, &v);
            }
        }
    }
}

static void inner_range(void *ctx, size_t b, size_t e)
{
    struct pass *p = ctx;
    for (size_t k = b; k < e; k++) {
        cuzk_fr *blk = p->a + k * p->d->block;
        if (p->inverse)
            inner_dit(p->d, blk);
        else
            inner_dif(p->d, blk);
    }
}

/* One outer stage over twiddle indices j in [b, e) (in chunks), for every
 * butterfly group of the stage. */
static void outer_range(void *ctx, size_t b, size_t e)
{
    struct pass *p = ctx;
    const cuzk_ntt_domain *d = p->d;
    size_t h = p->h;
    cuzk_fr w = p->inverse ? d->omega_inv : d->omega; /* -> omega_2h */
    for (size_t k = d->n; k > 2 * h; k >>= 1) cuzk_fr_sqr(&w, &w);
    cuzk_fr tw[NTT_TW_CHUNK];
    for (size_t j0 = b; j0 < e; j0 += NTT_TW_CHUNK) {
        size_t c = e - j0 < NTT_TW_CHUNK ? e - j0 : NTT_TW_CHUNK;
        powers(tw, &w, j0, c);
        for (size_t g0 = 0; g0 < d->n; g0 += 2 * h) {
            cuzk_fr *x = p->a + g0 + j0, *y = x + h;
            if (p->inverse) {
                for (size_t j = 0; j < c; j++) {
                    cuzk_fr u = x[j], v;
                    cuzk_fr_mul(&v, &y[j], &tw[j]);
                    cuzk_fr_add(&x[j], &u, &v);
                    cuzk_fr_sub(&y[j], &u, &v);
                }
            } else {
                for (size_t j = 0; j < c; j++) {
                    cuzk_fr u = x[j], v = y[j];
                    cuzk_fr_add(&x[j], &u, &v);
                    cuzk_fr_sub(&v, &u, &v);
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

static void run_dif(const cuzk_ntt_domain *d, cuzk_fr *a)
{
    struct pass p = {.d = d, .a = a, .inverse = 0};
    unsigned t = threads_for(d);
    for (p.h = d->n >> 1; p.h >= d->block; p.h >>= 1)
        cuzk_parallel_for(p.h, NTT_TW_CHUNK, t, outer_range, &p);
    cuzk_parallel_for(d->n / d->block, 1, t, inner_range, &p);
    cuzk_parallel_for(d->n, 4096, t, bitrev_range, &p);
}

static void run_dit(const cuzk_ntt_domain *d, cuzk_fr *a)
{
    struct pass p = {.d = d, .a = a, .inverse = 1};
    unsigned t = threads_for(d);
    cuzk_parallel_for(d->n, 4096, t, bitrev_range, &p);
    cuzk_parallel_for(d->n / d->block, 1, t, inner_range, &p);
    for (p.h = d->block; p.h < d->n; p.h <<= 1)
        cuzk_parallel_for(p.h, NTT_TW_CHUNK, t, outer_range, &p);
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
