/* Groth16 setup: a proving key from R1CS matrices and fresh toxic waste.
 * INSECURE: FOR TESTS AND BENCHMARKS (see include/cuzk/groth16.h).
 *
 * Stages (docs/keys.md):
 *   1. rows      the constraints plus one input row per input (A = 1 x_i)
 *   2. lagrange  L_j(tau) = (tau^N - 1)/N * w^j / (tau - w^j) for the used
 *                rows, by chunked batch inversion (3 multiplications and a
 *                share of one inversion per row)
 *   3. accumulate  A_i(tau) = sum_j a_ji L_j(tau) (and B, C): each thread
 *                owns a range of wires (balanced by term counts) and scans
 *                all rows, so no two threads write the same variable
 *   4. K_i = (beta A_i + alpha B_i + C_i) / (gamma | delta)
 *   5. fixed-base multiplications of the generators by every scalar (B
 *      only for the variables of B's density, pk->b_var), with a table of
 *      d 2^(wk) G per w-bit window k, XYZZ accumulation by mixed additions
 *      (657 ns against 918 for Jacobian mixed, G1, cuzk-bench micro on the
 *      2-core dev box) and one batch inversion per 1024 points to affine;
 *      or, with opts->fixed_mul, the scalars in batches of
 *      CUZK_SETUP_MUL_BATCH handed to that callback (a GPU) instead.
 * Scalars and multiplications are variable time: the toxic waste of an
 * insecure key needs no protection. */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuzk/groth16.h>

#include "common/errmsg.h"
#include "common/parallel.h"
#include "groth16/groth16_internal.h"

#define fail(err, s, ...) cuzk_errf((err), (s), "setup: ", __VA_ARGS__)

/* ------------------------------------------------------- randomness -- */

typedef struct {
    const uint64_t *seed;
    uint64_t state;
} rng;

static uint64_t splitmix64(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* A uniform nonzero Fr, by rejection, from the OS or from the seed. */
static cuzk_status rng_fr(rng *g, cuzk_fr *r)
{
    for (;;) {
        uint64_t v[4];
        if (g->seed) {
            for (int i = 0; i < 4; i++) v[i] = splitmix64(&g->state);
        } else {
            cuzk_status s = g16_os_random(v, sizeof v);
            if (s != CUZK_OK) return s;
        }
        v[3] &= 0x7fffffffffffffffull; /* r < 2^255: accepts ~45% */
        if (cuzk_fr_from_limbs(r, v) == CUZK_OK && !cuzk_fr_is_zero(r)) return CUZK_OK;
    }
}

/* ------------------------------------------------------ matrices -- */

static cuzk_status check_sparse(const cuzk_sparse *s, uint64_t n_rows, uint64_t n_vars,
                                uint32_t n_coeffs, char name, char *err)
{
    if (!s->row_start)
        return fail(err, CUZK_ERR_INVALID_ARGUMENT,
                    "matrix %c is absent (setup needs A, B and C)", name);
    if (s->row_start[0] != 0 || s->row_start[n_rows] != s->n_terms ||
        (s->n_terms && (!s->wire || !s->coeff)))
        return fail(err, CUZK_ERR_INVALID_ARGUMENT, "matrix %c: bad row table", name);
    for (uint64_t j = 0; j < n_rows; j++)
        if (s->row_start[j + 1] < s->row_start[j])
            return fail(err, CUZK_ERR_INVALID_ARGUMENT, "matrix %c: row %llu ends before it "
                        "starts", name, (unsigned long long)j);
    for (uint64_t t = 0; t < s->n_terms; t++) {
        if (s->wire[t] >= n_vars)
            return fail(err, CUZK_ERR_INVALID_ARGUMENT, "matrix %c: term %llu names wire %u "
                        "of %llu", name, (unsigned long long)t, s->wire[t],
                        (unsigned long long)n_vars);
        if (s->coeff[t] >= n_coeffs)
            return fail(err, CUZK_ERR_INVALID_ARGUMENT, "matrix %c: term %llu names "
                        "coefficient %u of %u", name, (unsigned long long)t, s->coeff[t],
                        n_coeffs);
    }
    return CUZK_OK;
}

/* ------------------------------------------------------ lagrange -- */

#define CHUNK 1024u /* points per batch inversion / batch to affine */

struct lagrange_job {
    cuzk_fr *out;       /* n_used values */
    size_t n_used;
    cuzk_fr omega, scale; /* scale = (tau^N - 1) / N */
    cuzk_fr tau;
    atomic_int oom;
};

/* out[j] = scale * w^j / (tau - w^j) for chunks [b, e). */
static void lagrange_range(void *vctx, size_t b, size_t e)
{
    struct lagrange_job *j = vctx;
    cuzk_fr *num = malloc(2 * CHUNK * sizeof *num), *tmp = num + CHUNK;
    if (!num) {
        atomic_store(&j->oom, 1);
        return;
    }
    for (size_t c = b; c < e; c++) {
        size_t lo = c * CHUNK, n = j->n_used - lo < CHUNK ? j->n_used - lo : CHUNK;
        cuzk_fr w;
        uint64_t ex = lo;
        cuzk_fr_pow(&w, &j->omega, &ex, 1);
        for (size_t i = 0; i < n; i++) {
            num[i] = w;
            cuzk_fr_sub(&j->out[lo + i], &j->tau, &w);
            cuzk_fr_mul(&w, &w, &j->omega);
        }
        cuzk_fr_batch_inv_var(j->out + lo, j->out + lo, n, tmp);
        for (size_t i = 0; i < n; i++) {
            cuzk_fr_mul(&j->out[lo + i], &j->out[lo + i], &num[i]);
            cuzk_fr_mul(&j->out[lo + i], &j->out[lo + i], &j->scale);
        }
    }
    free(num);
}

/* ---------------------------------------------------- accumulation -- */

struct acc_job {
    const cuzk_matrices *m;   /* rows with the input rows */
    const cuzk_fr *lag;
    const uint8_t *kind;      /* per coefficient: 0 = 1, 1 = -1, 2 = other */
    cuzk_fr *acc[3];          /* A_i(tau), B_i(tau), C_i(tau) */
    const uint32_t *bounds;   /* nparts + 1 wire boundaries */
};

/* Part p owns wires [bounds[p], bounds[p+1]) of all three matrices. */
static void acc_range(void *vctx, size_t b, size_t e)
{
    const struct acc_job *j = vctx;
    const cuzk_sparse *s3[3] = {&j->m->a, &j->m->b, &j->m->c};
    for (size_t p = b; p < e; p++) {
        uint32_t lo = j->bounds[p], hi = j->bounds[p + 1];
        if (lo == hi) continue;
        for (int k = 0; k < 3; k++) {
            const cuzk_sparse *s = s3[k];
            cuzk_fr *acc = j->acc[k];
            for (uint64_t r = 0; r < j->m->n_rows; r++) {
                for (uint64_t t = s->row_start[r]; t < s->row_start[r + 1]; t++) {
                    uint32_t w = s->wire[t];
                    if (w < lo || w >= hi) continue;
                    uint32_t c = s->coeff[t];
                    if (j->kind[c] == 0) {
                        cuzk_fr_add(&acc[w], &acc[w], &j->lag[r]);
                    } else if (j->kind[c] == 1) {
                        cuzk_fr_sub(&acc[w], &acc[w], &j->lag[r]);
                    } else {
                        cuzk_fr v;
                        cuzk_fr_mul(&v, &j->m->coeffs[c], &j->lag[r]);
                        cuzk_fr_add(&acc[w], &acc[w], &v);
                    }
                }
            }
        }
    }
}

#define HIST_BUCKETS 65536u

struct hist_job {
    const cuzk_matrices *m;
    uint64_t n_vars;
    uint64_t *hist;           /* nparts x HIST_BUCKETS */
    unsigned nparts;
    uint64_t total_terms;
};

/* Histogram of the wires of all terms (flat arrays split in nparts). */
static void hist_range(void *vctx, size_t b, size_t e)
{
    struct hist_job *j = vctx;
    const cuzk_sparse *s3[3] = {&j->m->a, &j->m->b, &j->m->c};
    for (size_t p = b; p < e; p++) {
        uint64_t *h = j->hist + p * HIST_BUCKETS;
        uint64_t lo = j->total_terms * p / j->nparts, hi = j->total_terms * (p + 1) / j->nparts;
        uint64_t base = 0;
        for (int k = 0; k < 3; k++) {
            uint64_t n = s3[k]->n_terms;
            uint64_t a = lo > base ? lo - base : 0, z = hi > base ? hi - base : 0;
            if (z > n) z = n;
            for (uint64_t t = a; t < z; t++)
                h[(uint64_t)s3[k]->wire[t] * HIST_BUCKETS / j->n_vars]++;
            base += n;
        }
    }
}

/* Splits [0, n_vars) into nparts wire ranges of about equal term counts. */
static cuzk_status balance(uint32_t *bounds, unsigned nparts, const cuzk_matrices *m,
                           uint64_t n_vars, unsigned nthreads)
{
    struct hist_job hj = {m, n_vars, calloc((size_t)nparts * HIST_BUCKETS, 8), nparts,
                          m->a.n_terms + m->b.n_terms + m->c.n_terms};
    if (!hj.hist) return CUZK_ERR_NO_MEMORY;
    cuzk_parallel_for(nparts, 1, nthreads, hist_range, &hj);
    for (unsigned p = 1; p < nparts; p++)
        for (unsigned i = 0; i < HIST_BUCKETS; i++) hj.hist[i] += hj.hist[(size_t)p * HIST_BUCKETS + i];
    uint64_t cum = 0;
    unsigned p = 1;
    bounds[0] = 0;
    for (unsigned i = 0; i < HIST_BUCKETS && p < nparts; i++) {
        cum += hj.hist[i];
        while (p < nparts && cum * nparts >= hj.total_terms * p) {
            /* first wire of bucket i + 1 */
            uint64_t w = ((uint64_t)(i + 1) * n_vars + HIST_BUCKETS - 1) / HIST_BUCKETS;
            bounds[p++] = (uint32_t)(w > n_vars ? n_vars : w);
        }
    }
    while (p <= nparts) bounds[p++] = (uint32_t)n_vars;
    for (p = 1; p <= nparts; p++)
        if (bounds[p] < bounds[p - 1]) bounds[p] = bounds[p - 1];
    free(hj.hist);
    return CUZK_OK;
}

/* K_i = (beta A_i + alpha B_i + C_i) * (i < n_in ? 1/gamma : 1/delta), into c. */
struct k_job {
    cuzk_fr *a, *b, *c;
    cuzk_fr alpha, beta, gamma_inv, delta_inv;
    uint32_t n_in;
};

static void k_range(void *vctx, size_t b, size_t e)
{
    struct k_job *j = vctx;
    for (size_t i = b; i < e; i++) {
        cuzk_fr t, u;
        cuzk_fr_mul(&t, &j->beta, &j->a[i]);
        cuzk_fr_mul(&u, &j->alpha, &j->b[i]);
        cuzk_fr_add(&t, &t, &u);
        cuzk_fr_add(&t, &t, &j->c[i]);
        cuzk_fr_mul(&j->c[i], &t, i < j->n_in ? &j->gamma_inv : &j->delta_inv);
    }
}

/* ------------------------------------------------------ fixed base -- */

/* Table of a generator: T[k][d - 1] = d 2^(w k) G, d = 1 .. 2^w - 1,
 * k < nwin = ceil(255 / w); affine. */
typedef struct {
    int g2;
    unsigned w, nwin;
    void *pts;
} fb_table;

/* The window minimising the additions of building the table (nwin 2^w)
 * plus multiplying n points (nwin each), capped at 16 bits (a window of
 * the G2 table is then 12 MiB, 192 MiB in all): at n = 2^27 the choice
 * is 16 (16 additions a point); at n = 2^12 it is 8. */
static unsigned fb_window(uint64_t n)
{
    unsigned best = 1;
    double best_cost = 1e300;
    for (unsigned w = 1; w <= 16; w++) {
        double nwin = (255 + w - 1) / w;
        double cost = nwin * ((double)((uint64_t)1 << w) + (double)n);
        if (cost < best_cost) {
            best_cost = cost;
            best = w;
        }
    }
    return best;
}

struct table_job {
    fb_table *t;
    const void *bases; /* nwin Jacobian points: 2^(w k) G */
    atomic_int oom;
};

static void table_range(void *vctx, size_t b, size_t e)
{
    struct table_job *j = vctx;
    fb_table *t = j->t;
    size_t per = ((size_t)1 << t->w) - 1;
    if (t->g2) {
        cuzk_g2_jac *tmp = malloc(per * sizeof *tmp);
        cuzk_fp2 *scr = malloc(per * sizeof *scr);
        if (!tmp || !scr) {
            atomic_store(&j->oom, 1);
        } else {
            for (size_t k = b; k < e; k++) {
                const cuzk_g2_jac *base = (const cuzk_g2_jac *)j->bases + k;
                tmp[0] = *base;
                for (size_t d = 1; d < per; d++) cuzk_g2_add(&tmp[d], &tmp[d - 1], base);
                cuzk_g2_batch_to_affine((cuzk_g2_affine *)t->pts + k * per, tmp, per, scr);
            }
        }
        free(tmp);
        free(scr);
    } else {
        cuzk_g1_jac *tmp = malloc(per * sizeof *tmp);
        cuzk_fp *scr = malloc(per * sizeof *scr);
        if (!tmp || !scr) {
            atomic_store(&j->oom, 1);
        } else {
            for (size_t k = b; k < e; k++) {
                const cuzk_g1_jac *base = (const cuzk_g1_jac *)j->bases + k;
                tmp[0] = *base;
                for (size_t d = 1; d < per; d++) cuzk_g1_add(&tmp[d], &tmp[d - 1], base);
                cuzk_g1_batch_to_affine((cuzk_g1_affine *)t->pts + k * per, tmp, per, scr);
            }
        }
        free(tmp);
        free(scr);
    }
}

static cuzk_status fb_table_build(fb_table *t, int g2, unsigned w, unsigned nthreads)
{
    t->g2 = g2;
    t->w = w;
    t->nwin = (255 + w - 1) / w;
    size_t per = ((size_t)1 << w) - 1, es = g2 ? sizeof(cuzk_g2_affine) : sizeof(cuzk_g1_affine);
    t->pts = malloc(t->nwin * per * es);
    void *bases = malloc(t->nwin * (g2 ? sizeof(cuzk_g2_jac) : sizeof(cuzk_g1_jac)));
    if (!t->pts || !bases) {
        free(bases);
        free(t->pts);
        t->pts = NULL;
        return CUZK_ERR_NO_MEMORY;
    }
    if (g2) {
        cuzk_g2_jac *bs = bases;
        cuzk_g2_from_affine(&bs[0], &CUZK_G2_GENERATOR);
        for (unsigned k = 1; k < t->nwin; k++) {
            bs[k] = bs[k - 1];
            for (unsigned i = 0; i < w; i++) cuzk_g2_dbl(&bs[k], &bs[k]);
        }
    } else {
        cuzk_g1_jac *bs = bases;
        cuzk_g1_from_affine(&bs[0], &CUZK_G1_GENERATOR);
        for (unsigned k = 1; k < t->nwin; k++) {
            bs[k] = bs[k - 1];
            for (unsigned i = 0; i < w; i++) cuzk_g1_dbl(&bs[k], &bs[k]);
        }
    }
    struct table_job j = {t, bases, 0};
    cuzk_parallel_for(t->nwin, 1, nthreads, table_range, &j);
    free(bases);
    if (atomic_load(&j.oom)) {
        free(t->pts);
        t->pts = NULL;
        return CUZK_ERR_NO_MEMORY;
    }
    return CUZK_OK;
}

static inline unsigned digit(const uint64_t l[4], unsigned pos, unsigned w)
{
    unsigned i = pos / 64, sh = pos % 64;
    uint64_t v = l[i] >> sh;
    if (sh + w > 64 && i < 3) v |= l[i + 1] << (64 - sh);
    return (unsigned)(v & (((uint64_t)1 << w) - 1));
}

/* Scalar source: fills s[0..n) with the scalars of points [start, start+n)
 * (n <= CHUNK); scratch holds 2 CHUNK elements. */
typedef void (*scalar_fn)(const void *ctx, size_t start, size_t n, cuzk_fr *s, cuzk_fr *scratch);

struct mul_job {
    const fb_table *t;
    scalar_fn gen;
    const void *gctx;
    void *out;         /* affine output, points [0, n) */
    size_t base;       /* first point of this round */
    size_t n;          /* points in this round */
    atomic_int oom;
};

static void mul_range(void *vctx, size_t b, size_t e)
{
    struct mul_job *j = vctx;
    const fb_table *t = j->t;
    size_t per = ((size_t)1 << t->w) - 1;
    cuzk_fr *s = malloc(3 * CHUNK * sizeof *s);
    void *jac = malloc(CHUNK * (t->g2 ? sizeof(cuzk_g2_jac) : sizeof(cuzk_g1_jac)));
    void *scr = malloc(CHUNK * (t->g2 ? sizeof(cuzk_fp2) : sizeof(cuzk_fp)));
    if (!s || !jac || !scr) {
        atomic_store(&j->oom, 1);
        goto out;
    }
    for (size_t c = b; c < e; c++) {
        size_t lo = c * CHUNK, n = j->n - lo < CHUNK ? j->n - lo : CHUNK;
        j->gen(j->gctx, j->base + lo, n, s, s + CHUNK);
        for (size_t i = 0; i < n; i++) {
            uint64_t l[4];
            cuzk_fr_to_limbs(l, &s[i]);
            if (!(l[0] | l[1] | l[2] | l[3])) { /* the identity: no table lookups */
                if (t->g2) cuzk_g2_jac_set_inf((cuzk_g2_jac *)jac + i);
                else cuzk_g1_jac_set_inf((cuzk_g1_jac *)jac + i);
                continue;
            }
            if (t->g2) {
                cuzk_g2_xyzz acc;
                const cuzk_g2_affine *tab = t->pts;
                cuzk_g2_xyzz_set_inf(&acc);
                for (unsigned k = 0; k < t->nwin; k++) {
                    unsigned d = digit(l, k * t->w, t->w);
                    if (d) cuzk_g2_xyzz_add_mixed(&acc, &acc, &tab[k * per + d - 1]);
                }
                cuzk_g2_xyzz_to_jac((cuzk_g2_jac *)jac + i, &acc);
            } else {
                cuzk_g1_xyzz acc;
                const cuzk_g1_affine *tab = t->pts;
                cuzk_g1_xyzz_set_inf(&acc);
                for (unsigned k = 0; k < t->nwin; k++) {
                    unsigned d = digit(l, k * t->w, t->w);
                    if (d) cuzk_g1_xyzz_add_mixed(&acc, &acc, &tab[k * per + d - 1]);
                }
                cuzk_g1_xyzz_to_jac((cuzk_g1_jac *)jac + i, &acc);
            }
        }
        if (t->g2)
            cuzk_g2_batch_to_affine((cuzk_g2_affine *)j->out + j->base + lo, jac, n, scr);
        else
            cuzk_g1_batch_to_affine((cuzk_g1_affine *)j->out + j->base + lo, jac, n, scr);
    }
out:
    free(s);
    free(jac);
    free(scr);
}

typedef struct {
    unsigned nthreads;
    cuzk_progress_fn progress;
    void *pctx;
    cuzk_fixed_mul_fn fixed_mul; /* NULL: the tables */
    void *fixed_mul_ctx;
} runner;

/* Scalars only, for the offload: s[i] = gen(base + i), i < n. */
struct gen_job {
    scalar_fn gen;
    const void *gctx;
    cuzk_fr *s;
    size_t base, n;
    atomic_int oom;
};

static void gen_range(void *vctx, size_t b, size_t e)
{
    struct gen_job *j = vctx;
    cuzk_fr *scratch = malloc(2 * CHUNK * sizeof *scratch);
    if (!scratch) {
        atomic_store(&j->oom, 1);
        return;
    }
    for (size_t c = b; c < e; c++) {
        size_t lo = c * CHUNK, n = j->n - lo < CHUNK ? j->n - lo : CHUNK;
        j->gen(j->gctx, j->base + lo, n, j->s + lo, scratch);
    }
    free(scratch);
}

/* out[i] = gen(i) G for i < n (G1, or G2 when g2), by opts->fixed_mul in
 * batches of CUZK_SETUP_MUL_BATCH points, progress after each. */
static cuzk_status fb_mul_offload(const runner *r, int g2, void *out, size_t n, scalar_fn gen,
                                  const void *gctx, const char *stage, char *err)
{
    size_t cap = n < CUZK_SETUP_MUL_BATCH ? n : CUZK_SETUP_MUL_BATCH;
    size_t es = g2 ? sizeof(cuzk_g2_affine) : sizeof(cuzk_g1_affine);
    cuzk_fr *s = malloc((cap ? cap : 1) * sizeof *s);
    if (!s) return fail(err, CUZK_ERR_NO_MEMORY, "%s: out of memory (%zu scalars)", stage, cap);
    cuzk_status st = CUZK_OK;
    for (size_t base = 0; base < n; base += cap) {
        size_t k = n - base < cap ? n - base : cap;
        struct gen_job j = {gen, gctx, s, base, k, 0};
        cuzk_parallel_for((k + CHUNK - 1) / CHUNK, 1, r->nthreads, gen_range, &j);
        if (atomic_load(&j.oom)) {
            st = fail(err, CUZK_ERR_NO_MEMORY, "%s: out of memory", stage);
            break;
        }
        char cb[CUZK_ERRMSG_LEN];
        cb[0] = 0;
        st = r->fixed_mul(r->fixed_mul_ctx, g2, (uint8_t *)out + base * es, s, k, cb);
        if (st != CUZK_OK) {
            cb[CUZK_ERRMSG_LEN - 1] = 0;
            fail(err, st, "%s: fixed-base multiplication offload, points %zu..%zu of %zu: %s",
                 stage, base, base + k - 1, n, cb[0] ? cb : cuzk_strerror(st));
            break;
        }
        if (r->progress) r->progress(r->pctx, stage, base + k, n);
    }
    free(s);
    return st;
}

/* out[i] = gen(i) G for i < n: by the offload when there is one, else with
 * table t (of G1, or G2 when g2) in rounds of 64 Ki points a thread so that
 * progress can be reported between rounds (a round takes ~0.2 s). */
static cuzk_status fb_mul(const runner *r, const fb_table *t, int g2, void *out, size_t n,
                          scalar_fn gen, const void *gctx, const char *stage, char *err)
{
    if (r->fixed_mul) return fb_mul_offload(r, g2, out, n, gen, gctx, stage, err);
    size_t round = (size_t)r->nthreads * 64 * CHUNK;
    for (size_t base = 0; base < n; base += round) {
        size_t k = n - base < round ? n - base : round;
        struct mul_job j = {t, gen, gctx, out, base, k, 0};
        cuzk_parallel_for((k + CHUNK - 1) / CHUNK, 1, r->nthreads, mul_range, &j);
        if (atomic_load(&j.oom)) return fail(err, CUZK_ERR_NO_MEMORY, "%s: out of memory", stage);
        if (r->progress) r->progress(r->pctx, stage, base + k, n);
    }
    return CUZK_OK;
}

/* Scalars from an array. */
static void gen_array(const void *ctx, size_t start, size_t n, cuzk_fr *s, cuzk_fr *scratch)
{
    (void)scratch;
    memcpy(s, (const cuzk_fr *)ctx + start, n * sizeof *s);
}

/* Scalars from an array at a list of indices (B_i(tau) of B's variables). */
struct gather_ctx {
    const cuzk_fr *v;
    const uint32_t *idx;
};

static void gen_gather(const void *vctx, size_t start, size_t n, cuzk_fr *s, cuzk_fr *scratch)
{
    (void)scratch;
    const struct gather_ctx *g = vctx;
    for (size_t i = 0; i < n; i++) s[i] = g->v[g->idx[start + i]];
}

/* snarkjs H: H_j = c2 x_j / (tau - x_j), x_j = g w^j, c2 = (tau^2N - 1) / (2N delta):
 * L^(2N)_(2j+1)(tau) / delta, since x_j = zeta^(2j+1) for zeta = g, a
 * primitive 2N-th root (formats.md §9.5, §11). */
struct h_ctx {
    cuzk_fr omega, shift, tau, c;
};

static void gen_h_lagrange(const void *vctx, size_t start, size_t n, cuzk_fr *s, cuzk_fr *scratch)
{
    const struct h_ctx *h = vctx;
    cuzk_fr x;
    uint64_t e = start;
    cuzk_fr_pow(&x, &h->omega, &e, 1);
    cuzk_fr_mul(&x, &x, &h->shift);
    for (size_t i = 0; i < n; i++) {
        scratch[i] = x;
        cuzk_fr_sub(&s[i], &h->tau, &x);
        cuzk_fr_mul(&x, &x, &h->omega);
    }
    cuzk_fr_batch_inv_var(s, s, n, scratch + CHUNK);
    for (size_t i = 0; i < n; i++) {
        cuzk_fr_mul(&s[i], &s[i], &scratch[i]);
        cuzk_fr_mul(&s[i], &s[i], &h->c);
    }
}

/* bellperson H: h_i = tau^i c, c = Z(tau) / delta. */
static void gen_h_monomial(const void *vctx, size_t start, size_t n, cuzk_fr *s, cuzk_fr *scratch)
{
    (void)scratch;
    const struct h_ctx *h = vctx;
    cuzk_fr x;
    uint64_t e = start;
    cuzk_fr_pow(&x, &h->tau, &e, 1);
    cuzk_fr_mul(&x, &x, &h->c);
    for (size_t i = 0; i < n; i++) {
        s[i] = x;
        cuzk_fr_mul(&x, &x, &h->tau);
    }
}

/* ------------------------------------------------------------ setup -- */

cuzk_status cuzk_groth16_setup(cuzk_groth16_pk *pk, const cuzk_matrices *m, uint32_t n_inputs,
                               uint32_t n_aux, const cuzk_setup_opts *opts, char *err)
{
    if (err) err[0] = 0;
    if (!pk || !m || !opts) return fail(err, CUZK_ERR_INVALID_ARGUMENT, "NULL argument");
    memset(pk, 0, sizeof *pk);
    if (opts->roots != CUZK_ROOTS_SNARKJS && opts->roots != CUZK_ROOTS_BELLPERSON)
        return fail(err, CUZK_ERR_INVALID_ARGUMENT, "unknown roots %d (5: snarkjs, 7: "
                    "bellperson)", (int)opts->roots);
    if (n_inputs == 0)
        return fail(err, CUZK_ERR_INVALID_ARGUMENT, "no inputs (input 0 is ONE)");
    uint64_t n_vars = (uint64_t)n_inputs + n_aux;
    if (n_vars > UINT32_MAX)
        return fail(err, CUZK_ERR_INVALID_ARGUMENT, "%llu variables (at most 2^32 - 1)",
                    (unsigned long long)n_vars);
    uint64_t n_rows = m->n_rows + n_inputs;
    unsigned log_n = 1;
    while (((uint64_t)1 << log_n) < n_rows && log_n <= CUZK_NTT_MAX_LOG) log_n++;
    if (log_n > CUZK_NTT_MAX_LOG)
        return fail(err, CUZK_ERR_INVALID_ARGUMENT, "%llu rows need a domain above 2^%u",
                    (unsigned long long)n_rows, CUZK_NTT_MAX_LOG);
    if (m->n_coeffs && !m->coeffs)
        return fail(err, CUZK_ERR_INVALID_ARGUMENT, "NULL coefficient table");
    cuzk_status s;
    if ((s = check_sparse(&m->a, m->n_rows, n_vars, m->n_coeffs, 'A', err)) != CUZK_OK ||
        (s = check_sparse(&m->b, m->n_rows, n_vars, m->n_coeffs, 'B', err)) != CUZK_OK ||
        (s = check_sparse(&m->c, m->n_rows, n_vars, m->n_coeffs, 'C', err)) != CUZK_OK)
        return s;
    /* CUZK_COEFF_ONE must exist for the input rows. */
    if (m->n_coeffs < 1 || !cuzk_fr_is_one(&m->coeffs[CUZK_COEFF_ONE]))
        return fail(err, CUZK_ERR_INVALID_ARGUMENT, "coefficient 0 must be 1");

    unsigned nt = opts->nthreads ? opts->nthreads : cuzk_ncores();
    runner run = {nt, opts->progress, opts->progress_ctx, opts->fixed_mul, opts->fixed_mul_ctx};
    size_t N = (size_t)1 << log_n;
    cuzk_ntt_domain *dom = NULL;
    cuzk_fr *acc = NULL, *lag = NULL;
    uint8_t *kind = NULL;
    uint32_t *bounds = NULL;
    fb_table t1 = {0}, t2 = {0};

    /* Toxic waste: tau outside the 2N-th roots (so no denominator vanishes). */
    rng g = {opts->seed, opts->seed ? *opts->seed : 0};
    cuzk_toxic_waste tw;
    cuzk_fr tN, t2N;
    uint64_t eN = N;
    for (;;) {
        if ((s = rng_fr(&g, &tw.tau)) != CUZK_OK) goto io;
        cuzk_fr_pow(&tN, &tw.tau, &eN, 1);
        cuzk_fr_sqr(&t2N, &tN);
        if (!cuzk_fr_is_one(&t2N)) break;
    }
    if ((s = rng_fr(&g, &tw.alpha)) != CUZK_OK || (s = rng_fr(&g, &tw.beta)) != CUZK_OK ||
        (s = rng_fr(&g, &tw.gamma)) != CUZK_OK || (s = rng_fr(&g, &tw.delta)) != CUZK_OK)
        goto io;
    if (opts->toxic_out) *opts->toxic_out = tw;

    pk->roots = opts->roots;
    pk->h_form = opts->roots == CUZK_ROOTS_SNARKJS ? CUZK_H_LAGRANGE : CUZK_H_MONOMIAL;
    pk->n_vars = (uint32_t)n_vars;
    pk->n_public = n_inputs - 1;
    pk->log_domain = log_n;

    /* 1. rows */
    if (g16_matrices_with_input_rows(&pk->m, m, n_inputs) != CUZK_OK) goto oom;

    if ((s = cuzk_ntt_domain_create(&dom, log_n, opts->roots, 1)) != CUZK_OK) {
        fail(err, s, "NTT domain 2^%u: %s", log_n, cuzk_strerror(s));
        goto out;
    }

    /* 2. Lagrange basis at tau over the used rows. */
    lag = malloc(n_rows * sizeof *lag);
    acc = calloc(3 * n_vars, sizeof *acc);
    kind = malloc(m->n_coeffs);
    if (!lag || !acc || !kind) goto oom;
    {
        struct lagrange_job lj = {lag, n_rows, *cuzk_ntt_omega(dom), CUZK_FR_ZERO, tw.tau, 0};
        cuzk_fr ninv;
        cuzk_fr_from_u64(&ninv, N);
        cuzk_fr_inv(&ninv, &ninv);
        cuzk_fr_sub(&lj.scale, &tN, &CUZK_FR_ONE);
        cuzk_fr_mul(&lj.scale, &lj.scale, &ninv);
        cuzk_parallel_for((n_rows + CHUNK - 1) / CHUNK, 1, nt, lagrange_range, &lj);
        if (atomic_load(&lj.oom)) goto oom;
        if (run.progress) run.progress(run.pctx, "Lagrange basis", n_rows, n_rows);
    }

    /* 3. A_i(tau), B_i(tau), C_i(tau). */
    {
        cuzk_fr m1;
        cuzk_fr_neg(&m1, &CUZK_FR_ONE);
        for (uint32_t c = 0; c < m->n_coeffs; c++)
            kind[c] = cuzk_fr_is_one(&m->coeffs[c]) ? 0 : cuzk_fr_eq(&m->coeffs[c], &m1) ? 1 : 2;
        unsigned parts = nt;
        bounds = malloc((parts + 1) * sizeof *bounds);
        if (!bounds || balance(bounds, parts, &pk->m, n_vars, nt) != CUZK_OK) goto oom;
        struct acc_job aj = {&pk->m, lag, kind, {acc, acc + n_vars, acc + 2 * n_vars}, bounds};
        cuzk_parallel_for(parts, 1, nt, acc_range, &aj);
        free(lag);
        lag = NULL;
        if (run.progress)
            run.progress(run.pctx, "QAP polynomials at tau", n_vars, n_vars);
    }
    cuzk_fr *av = acc, *bv = acc + n_vars, *kv = acc + 2 * n_vars;

    /* 4. K_i. */
    {
        struct k_job kj = {av, bv, kv, tw.alpha, tw.beta, CUZK_FR_ZERO, CUZK_FR_ZERO, n_inputs};
        cuzk_fr_inv(&kj.gamma_inv, &tw.gamma);
        cuzk_fr_inv(&kj.delta_inv, &tw.delta);
        cuzk_parallel_for(n_vars, 4096, nt, k_range, &kj);
    }

    /* 5. Points; B only over its density (a variable in no B row has
     * B_i = 0: its points would be the identity). */
    if (g16_b_density(&pk->b_var, &pk->n_b, &pk->m, (uint32_t)n_vars) != CUZK_OK) goto oom;
    size_t n_b = pk->n_b;
    size_t n_h = pk->h_form == CUZK_H_LAGRANGE ? N : N - 1, n_l = n_vars - n_inputs;
    if (!run.fixed_mul) {
        if ((s = fb_table_build(&t1, 0, fb_window(2 * n_vars + n_b + n_h), nt)) != CUZK_OK ||
            (s = fb_table_build(&t2, 1, fb_window(n_b), nt)) != CUZK_OK)
            goto oom;
        if (run.progress) run.progress(run.pctx, "fixed-base tables", 1, 1);
    }
    pk->a = malloc(n_vars * sizeof *pk->a);
    pk->b1 = malloc((n_b ? n_b : 1) * sizeof *pk->b1);
    pk->b2 = malloc((n_b ? n_b : 1) * sizeof *pk->b2);
    pk->l = malloc((n_l ? n_l : 1) * sizeof *pk->l);
    pk->h = malloc(n_h * sizeof *pk->h);
    pk->vk.ic = malloc(n_inputs * sizeof *pk->vk.ic);
    if (!pk->a || !pk->b1 || !pk->b2 || !pk->l || !pk->h || !pk->vk.ic) goto oom;
    pk->vk.n_ic = n_inputs;
    struct h_ctx hc = {*cuzk_ntt_omega(dom), *cuzk_ntt_coset_shift(dom), tw.tau, CUZK_FR_ZERO};
    {
        cuzk_fr dinv, t;
        cuzk_fr_inv(&dinv, &tw.delta);
        if (pk->h_form == CUZK_H_LAGRANGE) {
            cuzk_fr_from_u64(&t, 2 * (uint64_t)N);
            cuzk_fr_inv(&t, &t);
            cuzk_fr_sub(&hc.c, &t2N, &CUZK_FR_ONE);
            cuzk_fr_mul(&hc.c, &hc.c, &t);
        } else {
            cuzk_fr_sub(&hc.c, &tN, &CUZK_FR_ONE);
        }
        cuzk_fr_mul(&hc.c, &hc.c, &dinv);
    }
    struct gather_ctx bg = {bv, pk->b_var};
    if ((s = fb_mul(&run, &t1, 0, pk->a, n_vars, gen_array, av, "A (G1)", err)) != CUZK_OK ||
        (s = fb_mul(&run, &t1, 0, pk->b1, n_b, gen_gather, &bg, "B (G1)", err)) != CUZK_OK ||
        (s = fb_mul(&run, &t2, 1, pk->b2, n_b, gen_gather, &bg, "B (G2)", err)) != CUZK_OK ||
        (s = fb_mul(&run, &t1, 0, pk->vk.ic, n_inputs, gen_array, kv, "IC (G1)", err)) !=
            CUZK_OK ||
        (s = fb_mul(&run, &t1, 0, pk->l, n_l, gen_array, kv + n_inputs, "L (G1)", err)) !=
            CUZK_OK ||
        (s = fb_mul(&run, &t1, 0, pk->h, n_h,
                    pk->h_form == CUZK_H_LAGRANGE ? gen_h_lagrange : gen_h_monomial, &hc,
                    "H (G1)", err)) != CUZK_OK)
        goto out; /* err written by fb_mul */

    /* The verifying key. */
    {
        cuzk_g1_jac g1, p1;
        cuzk_g2_jac g2, p2;
        cuzk_g1_from_affine(&g1, &CUZK_G1_GENERATOR);
        cuzk_g2_from_affine(&g2, &CUZK_G2_GENERATOR);
        cuzk_g1_mul(&p1, &g1, &tw.alpha);
        cuzk_g1_to_affine(&pk->vk.alpha_g1, &p1);
        cuzk_g1_mul(&p1, &g1, &tw.beta);
        cuzk_g1_to_affine(&pk->vk.beta_g1, &p1);
        cuzk_g1_mul(&p1, &g1, &tw.delta);
        cuzk_g1_to_affine(&pk->vk.delta_g1, &p1);
        cuzk_g2_mul(&p2, &g2, &tw.beta);
        cuzk_g2_to_affine(&pk->vk.beta_g2, &p2);
        cuzk_g2_mul(&p2, &g2, &tw.gamma);
        cuzk_g2_to_affine(&pk->vk.gamma_g2, &p2);
        cuzk_g2_mul(&p2, &g2, &tw.delta);
        cuzk_g2_to_affine(&pk->vk.delta_g2, &p2);
        pk->vk.has_g1_extras = 1;
    }
    s = CUZK_OK;
    goto out;

io:
    fail(err, s, "reading randomness from the OS: %s", cuzk_strerror(s));
    goto out;
oom:
    s = CUZK_ERR_NO_MEMORY;
    fail(err, s, "out of memory (%llu variables, domain 2^%u)", (unsigned long long)n_vars,
         log_n);
out:
    memset(&tw, 0, sizeof tw);
    cuzk_ntt_domain_destroy(dom);
    free(acc);
    free(lag);
    free(kind);
    free(bounds);
    free(t1.pts);
    free(t2.pts);
    if (s != CUZK_OK) cuzk_groth16_pk_free(pk);
    return s;
}
