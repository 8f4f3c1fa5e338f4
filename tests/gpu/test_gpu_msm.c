/* GPU G1 and G2 MSM (cuzk_gpu_g1_msm_var, cuzk_gpu_g2_msm_var) and the 0/1 bitmap
 * sums (cuzk_gpu_g*_msm_bits) against the CPU (cuzk_g*_msm,
 * cuzk_g*_batch_sum_bitmap).
 *
 * Fresh seeded random points and scalars for sizes 1 .. 2^16 (G2 to 2^14),
 * several window sizes (forced c exercises every shape of the bucket
 * reduction), a plan used for a prefix of its points, host scalars both
 * pageable and pinned, and edge cases: scalars all 0, all 1, all r - 1, all
 * 2^256 - 1 (taken mod r), small values (empty buckets), one point repeated
 * (equal scalars force the doubling branch of the bucket addition), P and -P
 * with equal scalars (cancellation to infinity), points at infinity. Bitmaps:
 * densities 0, 1/64, 1/2, 1, runs, sizes not a multiple of 64, P and -P,
 * repeated points, points at infinity. The device-generated points of
 * cuzk_gpu_msm_plan_create_seq are checked through
 * sum k_j (B + j S) = [sum k_j] B + [sum j k_j] S.
 *
 * The two groups run the same checks through a table of functions (grp),
 * all of them four times: on plain and on precomputed plans
 * (CUZK_GPU_MSM_PRECOMPUTE; there the forced windows include c = 24, and
 * the bitmap sums use the table's first points), each with the default
 * XYZZ bucket accumulation and then (except the bitmap sums, which do not
 * accumulate buckets) with batch-affine plans (cuzk_gpu_msm_opts.acc, the
 * default); the edge cases add equal scalars on
 * distinct points (one bucket per window gets every entry). Then the
 * bitmap sums and edge cases again on plans with subset-sum tables
 * (CUZK_GPU_MSM_BITS_TABLE, alone and with CUZK_GPU_MSM_PRECOMPUTE).
 * Sparse vectors (cuzk_gpu_g*_msm_sparse: mixes of 0, 1 and other scalars)
 * on every kind of plan, unbounded and bounded (the rest compacted; a bound
 * below the rest is refused by the finish); test_sparse_witness, in quick
 * mode too, the prover's shape: witness-shaped vectors on batch-affine
 * plans of 2^16 (G2 2^14) points of every kind.
 * test_window_batches runs them on plain plans whose windows are sorted in
 * batches (cuzk_gpu_msm_opts.window_batches).
 * test_fp64 runs the MSM checks (sizes, windows, edge cases, sparse,
 * device-generated points) on batch-affine plans, plain and precomputed,
 * with every FP64 share (cuzk_gpu_msm_opts.fp64_share: part of the Fp
 * products on the FP64 pipe; G1 all of them, G2 the most and least), and
 * the options it refuses.
 * test_sorted_order runs them on batch-affine plans that read their
 * sorted keys and values in sorted order instead of step-major copies (the
 * path of the FP64 shares and compacted calls; gpu_testing.h).
 * test_shared runs the checks again with every plan borrowing one scratch
 * (cuzk_gpu_msm_opts.scratch), two plans in flight on one stream, and the
 * rules of sharing.
 * test_precompute checks what only precomputed plans have: the window
 * range, flags, table time, and CUZK_ERR_NO_MEMORY for a table larger
 * than the device.
 * CUZK_TEST_QUICK=1 keeps sizes small (for compute-sanitizer). Exit 77
 * (ctest: skipped) without a GPU. Replay with CUZK_SEED=<n>. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuzk/ec.h>
#include <cuzk/gpu.h>
#include <cuzk/msm.h>

#include "gpu_test.h"
#include "msm_cases.h"
#include "test_points.h"

#define NAME "test_gpu_msm"


static cuzk_gpu_ctx *ctx;
static char gerr[CUZK_ERRMSG_LEN]; /* the last GPU call's message */
static unsigned plan_flags; /* of every plan the checks make: CUZK_GPU_MSM_* flags */

static const char *flags_name(void)
{
    static const char *names[4] = {"", " pre", " tab", " pre+tab"};
    return names[plan_flags & 3];
}

/* The accumulation method of every plan the checks make. */
static cuzk_gpu_msm_acc acc_mode = CUZK_GPU_MSM_XYZZ;

/* The scratch every plan the checks make borrows, or NULL: their own. */
static cuzk_gpu_msm_scratch *shared;
/* The window batches of every plan the checks make (0: all at once). */
static unsigned win_batches;
/* The FP64 share of every plan the checks make. */
static unsigned fp64_share;
/* Batch-affine plans read their keys and values in step-major copies (1,
 * the library's default) or in sorted order (0; gpu_testing.h,
 * test_sorted_order). */
static int step_major = 1;

/* The options of the checks' plans: group, window c, plan_flags, acc_mode,
 * shared, win_batches, fp64_share. */
static cuzk_gpu_msm_opts opts(cuzk_gpu_group grp, unsigned c)
{
    cuzk_gpu_msm_opts o = {grp, c, plan_flags, acc_mode, shared, win_batches, fp64_share};
    return o;
}

/* Plans of the misuse checks: explicit options. */
static cuzk_status plan_of(cuzk_gpu_msm_plan **pl, cuzk_gpu_group grp, const void *p, size_t n,
                           unsigned c, unsigned flags)
{
    cuzk_gpu_msm_opts o = {grp, c, flags, CUZK_GPU_MSM_ACC_DEFAULT, NULL, 0, 0};
    return cuzk_gpu_msm_plan_create(pl, ctx, &o, p, n, gerr);
}


/* ------------------------------------------------- the two groups -- */

static cuzk_status g1_cpu(void *r, const void *p, const cuzk_scalar *k, size_t n)
{
    return cuzk_g1_msm_var(r, p, k, n, 0);
}
static cuzk_status g2_cpu(void *r, const void *p, const cuzk_scalar *k, size_t n)
{
    return cuzk_g2_msm_var(r, p, k, n, 0);
}
static cuzk_status g1_cpu_bits(void *r, const void *p, const uint64_t *b, size_t n)
{
    return cuzk_g1_batch_sum_bitmap_var(r, p, b, n, 0);
}
static cuzk_status g2_cpu_bits(void *r, const void *p, const uint64_t *b, size_t n)
{
    return cuzk_g2_batch_sum_bitmap_var(r, p, b, n, 0);
}
/* A plan just made (status st) in the order step_major asks for. */
static cuzk_status ordered(cuzk_status st, cuzk_gpu_msm_plan *pl)
{
    return st == CUZK_OK && !step_major ? cuzk_gpu_testing_msm_plan_step_major(pl, 0, gerr) : st;
}
static cuzk_status g1_plan(cuzk_gpu_msm_plan **pl, const void *p, size_t n, unsigned c)
{
    cuzk_gpu_msm_opts o = opts(CUZK_GPU_G1, c);
    cuzk_status st = cuzk_gpu_msm_plan_create(pl, ctx, &o, p, n, gerr);
    return ordered(st, *pl);
}
static cuzk_status g2_plan(cuzk_gpu_msm_plan **pl, const void *p, size_t n, unsigned c)
{
    cuzk_gpu_msm_opts o = opts(CUZK_GPU_G2, c);
    cuzk_status st = cuzk_gpu_msm_plan_create(pl, ctx, &o, p, n, gerr);
    return ordered(st, *pl);
}
static cuzk_status g1_plan_seq(cuzk_gpu_msm_plan **pl, size_t n, const void *b, const void *s)
{
    cuzk_gpu_msm_opts o = opts(CUZK_GPU_G1, 0);
    cuzk_status st = cuzk_gpu_msm_plan_create_seq(pl, ctx, &o, n, b, s, gerr);
    return ordered(st, *pl);
}
static cuzk_status g2_plan_seq(cuzk_gpu_msm_plan **pl, size_t n, const void *b, const void *s)
{
    cuzk_gpu_msm_opts o = opts(CUZK_GPU_G2, 0);
    cuzk_status st = cuzk_gpu_msm_plan_create_seq(pl, ctx, &o, n, b, s, gerr);
    return ordered(st, *pl);
}
static cuzk_status g1_gpu(cuzk_gpu_msm_plan *pl, const cuzk_scalar *k, size_t n, void *r)
{
    return cuzk_gpu_g1_msm_var(r, pl, 0, k, n, gerr);
}
static cuzk_status g2_gpu(cuzk_gpu_msm_plan *pl, const cuzk_scalar *k, size_t n, void *r)
{
    return cuzk_gpu_g2_msm_var(r, pl, 0, k, n, gerr);
}
static cuzk_status g1_gpu_bits(cuzk_gpu_msm_plan *pl, const uint64_t *b, size_t n, void *r)
{
    return cuzk_gpu_g1_msm_bits_var(r, pl, 0, b, n, gerr);
}
static cuzk_status g2_gpu_bits(cuzk_gpu_msm_plan *pl, const uint64_t *b, size_t n, void *r)
{
    return cuzk_gpu_g2_msm_bits_var(r, pl, 0, b, n, gerr);
}
/* The sparse calls' bound on scalars neither 0 nor 1 (0: the unbounded
 * form; else cuzk_gpu_msm_sparse_start_bounded_var, then the finish). */
static size_t sparse_bound;

static cuzk_status g1_gpu_sparse(cuzk_gpu_msm_plan *pl, const cuzk_scalar *k, size_t n, void *r)
{
    if (!sparse_bound) return cuzk_gpu_g1_msm_sparse_var(r, pl, 0, k, n, gerr);
    cuzk_status st = cuzk_gpu_msm_sparse_start_bounded_var(pl, 0, k, n, sparse_bound, gerr);
    return st != CUZK_OK ? st : cuzk_gpu_g1_msm_finish(r, pl, gerr);
}
static cuzk_status g2_gpu_sparse(cuzk_gpu_msm_plan *pl, const cuzk_scalar *k, size_t n, void *r)
{
    if (!sparse_bound) return cuzk_gpu_g2_msm_sparse_var(r, pl, 0, k, n, gerr);
    cuzk_status st = cuzk_gpu_msm_sparse_start_bounded_var(pl, 0, k, n, sparse_bound, gerr);
    return st != CUZK_OK ? st : cuzk_gpu_g2_msm_finish(r, pl, gerr);
}
static int g1_eq(const void *a, const void *b) { return cuzk_g1_jac_eq(a, b); }
static int g2_eq(const void *a, const void *b) { return cuzk_g2_jac_eq(a, b); }
static int g1_is_inf(const void *a) { return cuzk_g1_jac_is_inf(a); }
static int g2_is_inf(const void *a) { return cuzk_g2_jac_is_inf(a); }
static void g1_neg(void *r, const void *a) { cuzk_g1_affine_neg(r, a); }
static void g2_neg(void *r, const void *a) { cuzk_g2_affine_neg(r, a); }
/* r = [m0] b + [m1] s (Montgomery-form multipliers). */
static void g1_lin(void *r, const void *b, const cuzk_fr *m0, const void *s, const cuzk_fr *m1)
{
    cuzk_g1_jac jb, js;
    cuzk_g1_from_affine(&jb, b);
    cuzk_g1_from_affine(&js, s);
    cuzk_g1_mul(&jb, &jb, m0);
    cuzk_g1_mul(&js, &js, m1);
    cuzk_g1_add(r, &jb, &js);
}
static void g2_lin(void *r, const void *b, const cuzk_fr *m0, const void *s, const cuzk_fr *m1)
{
    cuzk_g2_jac jb, js;
    cuzk_g2_from_affine(&jb, b);
    cuzk_g2_from_affine(&js, s);
    cuzk_g2_mul(&jb, &jb, m0);
    cuzk_g2_mul(&js, &js, m1);
    cuzk_g2_add(r, &jb, &js);
}

typedef struct {
    const char *name;
    size_t aff, jac;  /* sizeof the affine and Jacobian point */
    size_t max_n;     /* largest random size tested */
    void (*gen)(void *out, size_t n);
    cuzk_status (*cpu)(void *r, const void *p, const cuzk_scalar *k, size_t n);
    cuzk_status (*cpu_bits)(void *r, const void *p, const uint64_t *b, size_t n);
    cuzk_status (*plan)(cuzk_gpu_msm_plan **pl, const void *p, size_t n, unsigned c);
    cuzk_status (*plan_seq)(cuzk_gpu_msm_plan **pl, size_t n, const void *b, const void *s);
    cuzk_status (*gpu)(cuzk_gpu_msm_plan *pl, const cuzk_scalar *k, size_t n, void *r);
    cuzk_status (*gpu_bits)(cuzk_gpu_msm_plan *pl, const uint64_t *b, size_t n, void *r);
    cuzk_status (*gpu_sparse)(cuzk_gpu_msm_plan *pl, const cuzk_scalar *k, size_t n, void *r);
    int (*eq)(const void *a, const void *b);
    int (*is_inf)(const void *a);
    void (*neg)(void *r, const void *a);
    void (*lin)(void *r, const void *b, const cuzk_fr *m0, const void *s, const cuzk_fr *m1);
} grp;

static const grp G1 = {"G1", sizeof(cuzk_g1_affine), sizeof(cuzk_g1_jac), 65536, test_g1_points,
                       g1_cpu, g1_cpu_bits, g1_plan, g1_plan_seq, g1_gpu, g1_gpu_bits,
                       g1_gpu_sparse, g1_eq,
                       g1_is_inf, g1_neg, g1_lin};
static const grp G2 = {"G2", sizeof(cuzk_g2_affine), sizeof(cuzk_g2_jac), 16384, test_g2_points,
                       g2_cpu, g2_cpu_bits, g2_plan, g2_plan_seq, g2_gpu, g2_gpu_bits,
                       g2_gpu_sparse, g2_eq,
                       g2_is_inf, g2_neg, g2_lin};

#define PT(g, base, i) ((char *)(base) + (size_t)(i) * (g)->aff)

/* ------------------------------------------------------------ checks -- */

typedef cuzk_status (*gpu_msm_fn)(cuzk_gpu_msm_plan *pl, const cuzk_scalar *k, size_t n,
                                  void *r);

/* GPU (fn: g->gpu or g->gpu_sparse) against CPU for points[0..n) with
 * scalars k; plan holds >= n points equal to points. */
static void compare_with(const grp *g, gpu_msm_fn fn, cuzk_gpu_msm_plan *plan,
                         const void *points, const cuzk_scalar *k, size_t n, const char *what)
{
    cuzk_g2_jac want, got; /* room for either group */
    memset(&got, 0xa5, sizeof got); /* poison */
    cuzk_status st = g->cpu(&want, points, k, n);
    CHECK_MSG(st == CUZK_OK, "%s cpu msm %s", g->name, what);
    st = fn(plan, k, n, &got);
    CHECK_MSG(st == CUZK_OK, "%s gpu msm %s n=%zu: %s (%s)", g->name, what, n,
              cuzk_strerror(st), gerr);
    if (st == CUZK_OK)
        CHECK_MSG(g->eq(&want, &got), "%s %s n=%zu c=%u flags=%u: GPU result differs from CPU",
                  g->name, what, n, cuzk_gpu_msm_plan_window(plan),
                  cuzk_gpu_msm_plan_flags(plan));
}

static void compare(const grp *g, cuzk_gpu_msm_plan *plan, const void *points,
                    const cuzk_scalar *k, size_t n, const char *what)
{
    compare_with(g, g->gpu, plan, points, k, n, what);
}

static void compare_bits(const grp *g, cuzk_gpu_msm_plan *plan, const void *points,
                         const uint64_t *bits, size_t n, const char *what)
{
    cuzk_g2_jac want, got;
    memset(&got, 0xa5, sizeof got);
    cuzk_status st = g->cpu_bits(&want, points, bits, n);
    CHECK_MSG(st == CUZK_OK, "%s cpu bitmap sum %s", g->name, what);
    st = g->gpu_bits(plan, bits, n, &got);
    CHECK_MSG(st == CUZK_OK, "%s gpu bitmap sum %s n=%zu: %s (%s)", g->name, what, n,
              cuzk_strerror(st), gerr);
    if (st == CUZK_OK)
        CHECK_MSG(g->eq(&want, &got), "%s bitmap %s n=%zu flags=%u: GPU result differs from CPU",
                  g->name, what, n, cuzk_gpu_msm_plan_flags(plan));
}

static cuzk_gpu_msm_plan *make_plan(const grp *g, const void *points, size_t n, unsigned c)
{
    cuzk_gpu_msm_plan *plan = NULL;
    cuzk_status st = g->plan(&plan, points, n, c);
    CHECK_MSG(st == CUZK_OK, "%s plan n=%zu c=%u flags=%u: %s (%s)", g->name, n, c, plan_flags,
              cuzk_strerror(st), gerr);
    if (st == CUZK_OK)
        CHECK_MSG(cuzk_gpu_msm_plan_flags(plan) == plan_flags, "%s plan flags", g->name);
    return st == CUZK_OK ? plan : NULL;
}

/* Random sizes, fresh points and scalars each, automatic window. */
static void test_sizes(const grp *g, int quick)
{
    static const size_t sizes[] = {1, 2, 31, 32, 33, 1000, 16384, 65536};
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
        size_t n = sizes[si];
        if ((quick && n > 1000) || n > g->max_n) continue;
        void *p = test_xmalloc(n * g->aff);
        cuzk_scalar *k = test_xmalloc(n * sizeof *k);
        g->gen(p, n);
        cuzk_gpu_msm_plan *plan = make_plan(g, p, n, 0);
        if (plan) {
            for (int rep = 0; rep < 2; rep++) { /* the plan is reused */
                for (size_t i = 0; i < n; i++) rand_scalar(&k[i]);
                compare(g, plan, p, k, n, "random");
            }
            /* Pinned host scalars. */
            cuzk_scalar *pk = NULL;
            if (cuzk_gpu_host_alloc((void **)&pk, n * sizeof *pk, gerr) == CUZK_OK) {
                for (size_t i = 0; i < n; i++) rand_scalar(&pk[i]);
                compare(g, plan, p, pk, n, "pinned");
                cuzk_gpu_host_free(pk);
            } else {
                CHECK_MSG(0, "cuzk_gpu_host_alloc");
            }
            cuzk_gpu_msm_plan_destroy(plan);
        }
        printf("  %s%s n = %zu: done (%d failures so far)\n", g->name, flags_name(),
               n, test_failures);
        free(p);
        free(k);
    }
}

/* Forced windows on one point set; a plan used for a prefix. */
static void test_windows(const grp *g, int quick)
{
    size_t n = quick ? 600 : g->max_n;
    static const unsigned cs[] = {8, 11, 13, 16, 21, 24};
    void *p = test_xmalloc(n * g->aff);
    cuzk_scalar *k = test_xmalloc(n * sizeof *k);
    g->gen(p, n);
    for (size_t ci = 0; ci < sizeof cs / sizeof cs[0]; ci++) {
        if (quick && cs[ci] > 13) continue;
        if (cs[ci] > 23 && !plan_flags) continue; /* precomputed plans only */
        cuzk_gpu_msm_plan *plan = make_plan(g, p, n, cs[ci]);
        if (!plan) continue;
        CHECK(cuzk_gpu_msm_plan_window(plan) == cs[ci]);
        for (size_t i = 0; i < n; i++) rand_scalar(&k[i]);
        compare(g, plan, p, k, n, "forced c");
        compare(g, plan, p, k, n / 3 + 1, "prefix");
        cuzk_gpu_msm_plan_destroy(plan);
    }
    printf("  %s%s windows: done (%d failures so far)\n", g->name, flags_name(),
           test_failures);
    free(p);
    free(k);
}

/* Point set `base` changed as edge case e needs (into p); scalars too. */
static void edge_points(const grp *g, int e, const void *base, void *p, cuzk_scalar *k, size_t n)
{
    memcpy(p, base, n * g->aff);
    cuzk_scalar one_k;
    rand_scalar(&one_k);
    for (size_t i = 0; i < n; i++) {
        edge_scalar(e, i, &one_k, &k[i]);
        switch (e) {
        case E_REPEAT_EQ: memcpy(PT(g, p, i), base, g->aff); break;
        case E_REPEAT: memcpy(PT(g, p, i), PT(g, base, i % 3), g->aff); break;
        case E_NEGPAIR:
            if (i & 1) {
                g->neg(PT(g, p, i), PT(g, p, i - 1));
                k[i] = k[i - 1];
            }
            break;
        case E_INF: if (i % 3 == 1) memset(PT(g, p, i), 0, g->aff); break;
        case E_ALLINF: memset(PT(g, p, i), 0, g->aff); break;
        default: break;
        }
    }
}

static void test_edges(const grp *g, int quick)
{
    size_t n = quick ? 200 : 1000;
    void *base = test_xmalloc(n * g->aff), *p = test_xmalloc(n * g->aff);
    cuzk_scalar *k = test_xmalloc(n * sizeof *k);
    g->gen(base, n);
    for (int e = 0; e < E_COUNT; e++) {
        edge_points(g, e, base, p, k, n);
        cuzk_gpu_msm_plan *plan = make_plan(g, p, n, e & 1 ? 8 : 0);
        if (plan) {
            compare(g, plan, p, k, n, edge_names[e]);
            if (e == E_ZERO || e == E_NEGPAIR || e == E_ALLINF) {
                cuzk_g2_jac got;
                if (g->gpu(plan, k, n, &got) == CUZK_OK)
                    CHECK_MSG(g->is_inf(&got), "%s %s: not infinity", g->name, edge_names[e]);
            }
            cuzk_gpu_msm_plan_destroy(plan);
        }
    }
    printf("  %s%s edge cases: done (%d failures so far)\n", g->name, flags_name(),
           test_failures);
    free(base);
    free(p);
    free(k);
}

/* Bitmap sums: densities, runs, sizes around word and thread boundaries,
 * and the point-set edge cases (repeats, P and -P, infinity). */
static void test_bits(const grp *g, int quick)
{
    size_t nmax = quick ? 1000 : g->max_n;
    void *base = test_xmalloc(nmax * g->aff), *p = test_xmalloc(nmax * g->aff);
    cuzk_scalar *k = test_xmalloc(nmax * sizeof *k);
    uint64_t *bits = test_xmalloc((nmax + 63) / 64 * 8);
    g->gen(base, nmax);
    cuzk_gpu_msm_plan *plan = make_plan(g, base, nmax, 0);
    if (plan) {
        static const size_t sizes[] = {1, 63, 64, 65, 255, 256, 257, 1000, 16384, 65536};
        static const char *dens[] = {"none", "1/64", "1/2", "all", "runs"};
        for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
            size_t n = sizes[si];
            if (n > nmax) continue;
            for (int d = 0; d < 5; d++) {
                for (size_t w = 0; w < (n + 63) / 64; w++) {
                    uint64_t r = test_rand64(), x = 0;
                    switch (d) {
                    case 0: x = 0; break;
                    case 1: x = (uint64_t)1 << (r & 63); break;
                    case 2: x = r; break;
                    case 3: x = ~(uint64_t)0; break;
                    case 4: x = (w / 3) & 1 ? ~(uint64_t)0 : 0; break;
                    }
                    /* Garbage beyond n must be ignored. */
                    bits[w] = x;
                }
                if (n & 63) bits[n / 64] |= ~(((uint64_t)1 << (n & 63)) - 1);
                compare_bits(g, plan, base, bits, n, dens[d]);
            }
        }
        cuzk_gpu_msm_plan_destroy(plan);
    }
    /* Point-set edge cases with every bit set and with half. */
    size_t n = quick ? 300 : 1000;
    for (int e = E_REPEAT_EQ; e < E_COUNT; e++) {
        if (e == E_EQ_SCALARS) continue; /* the same points as "random" */
        edge_points(g, e, base, p, k, n);
        cuzk_gpu_msm_plan *pl = make_plan(g, p, n, 0);
        if (!pl) continue;
        for (size_t w = 0; w < (n + 63) / 64; w++) bits[w] = ~(uint64_t)0;
        compare_bits(g, pl, p, bits, n, edge_names[e]);
        for (size_t w = 0; w < (n + 63) / 64; w++) bits[w] = test_rand64();
        compare_bits(g, pl, p, bits, n, edge_names[e]);
        cuzk_gpu_msm_plan_destroy(pl);
    }
    printf("  %s%s bitmaps: done (%d failures so far)\n", g->name, flags_name(),
           test_failures);
    free(base);
    free(p);
    free(k);
    free(bits);
}

/* Sparse vectors (cuzk_gpu_g*_msm_sparse) against the CPU MSM: mixes of
 * zeros, ones and other scalars (random, r - 1, r + 1 = 1 mod r, 2^256 - 1),
 * all ones, all zeros, none of either; sizes around words; a prefix; pinned
 * scalars; points at infinity and P, -P pairs. */
static void test_sparse(const grp *g, int quick)
{
    size_t nmax = quick ? 1000 : g->max_n;
    void *base = test_xmalloc(nmax * g->aff), *p = test_xmalloc(nmax * g->aff);
    cuzk_scalar *k = test_xmalloc(nmax * sizeof *k), *pk = NULL;
    g->gen(base, nmax);
    static const char *mixes[] = {"1/2 ones, 1/4 zeros", "all ones", "all zeros",
                                  "no 0 or 1", "ones and other forms of 1"};
    cuzk_gpu_msm_plan *plan = make_plan(g, base, nmax, 0);
    if (plan) {
        static const size_t sizes[] = {1, 63, 64, 65, 1000, 16384, 65536};
        for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
            size_t n = sizes[si];
            if (n > nmax) continue;
            for (int mx = 0; mx < 5; mx++) {
                for (size_t i = 0; i < n; i++) {
                    uint64_t r = test_rand64() & 7;
                    memset(&k[i], 0, sizeof k[i]);
                    if (mx == 1 || (mx == 0 && r < 4) || (mx == 4 && r < 3)) k[i].l[0] = 1;
                    else if ((mx == 0 && r >= 6) || mx == 3) rand_scalar(&k[i]);
                    else if (mx == 4 && r == 3) { /* r + 1 */
                        memcpy(k[i].l, R_LIMBS, sizeof k[i].l);
                        k[i].l[0] += 1;
                    } else if (mx == 4 && r == 4) {
                        memcpy(k[i].l, R_LIMBS, sizeof k[i].l);
                        k[i].l[0] -= 1;
                    } else if (mx == 4 && r == 5) {
                        memset(k[i].l, 0xff, sizeof k[i].l);
                    }
                }
                compare_with(g, g->gpu_sparse, plan, base, k, n, mixes[mx]);
                /* Bounded: the count of scalars not literally 0 or 1 (an
                 * upper bound on the rest), then one less than the rest
                 * (a refusal at the finish, never a wrong sum). */
                size_t other = 0;
                for (size_t i = 0; i < n; i++) {
                    int lit01 = k[i].l[0] <= 1 && !k[i].l[1] && !k[i].l[2] && !k[i].l[3];
                    other += !lit01;
                }
                sparse_bound = other ? other : 1;
                compare_with(g, g->gpu_sparse, plan, base, k, n, "bounded");
                if (mx == 0 && other >= 2 && other < n / 2 && n >= 1000) {
                    cuzk_g2_jac got;
                    sparse_bound = other - 1;
                    cuzk_status st = g->gpu_sparse(plan, k, n, &got);
                    CHECK_MSG(st == CUZK_ERR_INVALID_ARGUMENT && strstr(gerr, "bound"),
                              "%s n=%zu: a bound below the rest: %s (%s)", g->name, n,
                              cuzk_strerror(st), gerr);
                    sparse_bound = other;
                    compare_with(g, g->gpu_sparse, plan, base, k, n, "after a refusal");
                }
                sparse_bound = 0;
            }
        }
        /* A prefix, and pinned host scalars. */
        compare_with(g, g->gpu_sparse, plan, base, k, nmax / 3 + 1, "prefix");
        if (cuzk_gpu_host_alloc((void **)&pk, nmax * sizeof *pk, gerr) == CUZK_OK) {
            memcpy(pk, k, nmax * sizeof *pk);
            compare_with(g, g->gpu_sparse, plan, base, pk, nmax, "pinned");
            cuzk_gpu_host_free(pk);
        }
        cuzk_gpu_msm_plan_destroy(plan);
    }
    /* Point-set edge cases, half of the scalars 1. */
    size_t n = quick ? 300 : 1000;
    for (int e = E_REPEAT_EQ; e < E_COUNT; e++) {
        if (e == E_EQ_SCALARS) continue;
        edge_points(g, e, base, p, k, n);
        for (size_t i = 0; i < n; i += 2) {
            memset(&k[i], 0, sizeof k[i]);
            k[i].l[0] = 1;
        }
        cuzk_gpu_msm_plan *pl = make_plan(g, p, n, 0);
        if (!pl) continue;
        compare_with(g, g->gpu_sparse, pl, p, k, n, edge_names[e]);
        cuzk_gpu_msm_plan_destroy(pl);
    }
    printf("  %s%s sparse: done (%d failures so far)\n", g->name, flags_name(), test_failures);
    free(base);
    free(p);
    free(k);
}

/* Points made on the device: B + j S. */
static void test_seq(const grp *g, int quick)
{
    size_t n = quick ? 100 : 5000; /* > one generation thread, not a multiple of 32 */
    void *bs = test_xmalloc(2 * g->aff);
    g->gen(bs, 2);
    cuzk_gpu_msm_plan *plan = NULL;
    cuzk_status st = g->plan_seq(&plan, n, bs, PT(g, bs, 1));
    CHECK_MSG(st == CUZK_OK, "%s seq plan: %s (%s)", g->name, cuzk_strerror(st),
              gerr);
    if (!plan) {
        free(bs);
        return;
    }
    cuzk_scalar *k = test_xmalloc(n * sizeof *k);
    for (size_t i = 0; i < n; i++) rand_scalar(&k[i]);
    /* S0 = sum k_j, S1 = sum j k_j = sum_{j >= 1} (sum_{i >= j} k_i), mod r;
     * addition mod r is the same on canonical and Montgomery values. */
    cuzk_fr s0 = {{0}}, s1 = {{0}}, t;
    for (size_t j = n; j-- > 0;) {
        memcpy(t.l, k[j].l, sizeof t.l);
        cuzk_fr_add(&s0, &s0, &t);
        if (j) cuzk_fr_add(&s1, &s1, &s0);
    }
    cuzk_fr m0, m1;
    CHECK(cuzk_fr_from_limbs(&m0, s0.l) == CUZK_OK);
    CHECK(cuzk_fr_from_limbs(&m1, s1.l) == CUZK_OK);
    cuzk_g2_jac want, got;
    g->lin(&want, bs, &m0, PT(g, bs, 1), &m1);
    st = g->gpu(plan, k, n, &got);
    CHECK_MSG(st == CUZK_OK, "%s seq msm: %s", g->name, cuzk_strerror(st));
    if (st == CUZK_OK)
        CHECK_MSG(g->eq(&want, &got), "%s seq plan n=%zu: wrong sum", g->name, n);
    cuzk_gpu_msm_plan_destroy(plan);
    free(k);
    free(bs);
    printf("  %s%s generated points: done (%d failures so far)\n", g->name,
           flags_name(), test_failures);
}

static void test_misuse(void)
{
    cuzk_g1_affine p[4];
    cuzk_g2_affine q[4];
    cuzk_scalar k[4];
    uint64_t bits[1] = {0xf};
    test_g1_points(p, 4);
    test_g2_points(q, 4);
    for (int i = 0; i < 4; i++) rand_scalar(&k[i]);
    cuzk_gpu_msm_plan *plan = NULL, *plan2 = NULL;
    CHECK(plan_of(&plan, CUZK_GPU_G1, p, 0, 0, 0) == CUZK_ERR_INVALID_ARGUMENT &&
          strncmp(gerr, "gpu: ", 5) == 0);
    CHECK(plan_of(&plan, CUZK_GPU_G1, p, 4, 7, 0) == CUZK_ERR_INVALID_ARGUMENT);
    CHECK(plan_of(&plan, CUZK_GPU_G2, q, 4, 24, 0) == CUZK_ERR_INVALID_ARGUMENT);
    CHECK(plan_of(&plan, (cuzk_gpu_group)3, q, 4, 0, 0) == CUZK_ERR_INVALID_ARGUMENT);
    cuzk_gpu_msm_opts bad = {CUZK_GPU_G1, 0, 0, (cuzk_gpu_msm_acc)7, NULL, 0, 0};
    CHECK(cuzk_gpu_msm_plan_create(&plan, ctx, &bad, p, 4, gerr) == CUZK_ERR_INVALID_ARGUMENT);
    CHECK(cuzk_gpu_msm_plan_create(&plan, ctx, NULL, p, 4, gerr) == CUZK_ERR_INVALID_ARGUMENT);
    CHECK(plan == NULL);
    plan = make_plan(&G1, p, 4, 0);
    plan2 = make_plan(&G2, q, 4, 0);
    if (plan && plan2) {
        cuzk_g1_jac r;
        cuzk_g2_jac r2;
        CHECK(cuzk_gpu_g1_msm_var(&r, plan, 0, k, 5, gerr) == CUZK_ERR_INVALID_ARGUMENT);
        CHECK(cuzk_gpu_g1_msm_bits_var(&r, plan, 0, bits, 5, gerr) == CUZK_ERR_INVALID_ARGUMENT);
        CHECK(cuzk_gpu_g1_msm_var(&r, plan, 0, k, 0, gerr) == CUZK_OK && cuzk_g1_jac_is_inf(&r));
        CHECK(cuzk_gpu_g1_msm_bits_var(&r, plan, 0, bits, 0, gerr) == CUZK_OK &&
              cuzk_g1_jac_is_inf(&r));
        /* A plan of the other group. */
        CHECK(cuzk_gpu_g2_msm_var(&r2, plan, 0, k, 4, gerr) == CUZK_ERR_INVALID_ARGUMENT);
        CHECK(cuzk_gpu_g1_msm_var(&r, plan2, 0, k, 4, gerr) == CUZK_ERR_INVALID_ARGUMENT);
        CHECK(cuzk_gpu_g1_msm_bits_var(&r, plan2, 0, bits, 4, gerr) == CUZK_ERR_INVALID_ARGUMENT);
        cuzk_gpu_msm_timing tm;
        CHECK(cuzk_gpu_g1_msm_var(&r, plan, 0, k, 4, gerr) == CUZK_OK);
        CHECK(cuzk_gpu_msm_plan_timing(plan, &tm, gerr) == CUZK_OK && tm.total > 0);
        CHECK(cuzk_gpu_g2_msm_bits_var(&r2, plan2, 0, bits, 4, gerr) == CUZK_OK);
        CHECK(cuzk_gpu_msm_plan_timing(plan2, &tm, gerr) == CUZK_OK && tm.total > 0);
        /* Start and finish misuse: no MSM started, the other group's
         * finish, a busy plan. */
        CHECK(cuzk_gpu_g1_msm_finish(&r, plan, gerr) == CUZK_ERR_INVALID_ARGUMENT);
        CHECK(cuzk_gpu_msm_start_var(plan, 0, k, 4, gerr) == CUZK_OK);
        CHECK(cuzk_gpu_msm_bits_start_var(plan, 0, bits, 4, gerr) == CUZK_ERR_INVALID_ARGUMENT);
        CHECK(cuzk_gpu_g2_msm_finish(&r2, plan, gerr) == CUZK_ERR_INVALID_ARGUMENT);
        CHECK(cuzk_gpu_g1_msm_finish(&r, plan, gerr) == CUZK_OK);
        compare(&G1, plan, p, k, 4, "after misuse");
        /* The default accumulation is batch-affine; XYZZ plans need less
         * memory and give the same sums. */
        cuzk_gpu_msm_plan *px = NULL, *pd = NULL;
        cuzk_gpu_msm_opts ox = {CUZK_GPU_G1, 0, 0, CUZK_GPU_MSM_XYZZ, NULL, 0, 0};
        cuzk_gpu_msm_opts od = {CUZK_GPU_G1, 0, 0, 0, NULL, 0, 0};
        CHECK(cuzk_gpu_msm_plan_create(&px, ctx, &ox, p, 4, gerr) == CUZK_OK);
        CHECK(cuzk_gpu_msm_plan_create(&pd, ctx, &od, p, 4, gerr) == CUZK_OK);
        if (px && pd) {
            CHECK(cuzk_gpu_msm_plan_acc(pd) == CUZK_GPU_MSM_BATCH_AFFINE);
            CHECK(cuzk_gpu_msm_plan_acc(px) == CUZK_GPU_MSM_XYZZ);
            CHECK(cuzk_gpu_msm_plan_device_bytes(px) < cuzk_gpu_msm_plan_device_bytes(pd));
            compare(&G1, px, p, k, 4, "xyzz");
            compare(&G1, pd, p, k, 4, "default accumulation");
        }
        cuzk_gpu_msm_plan_destroy(px);
        cuzk_gpu_msm_plan_destroy(pd);
        compare(&G2, plan2, q, k, 4, "batch-affine");
    }
    cuzk_gpu_msm_plan_destroy(plan);
    cuzk_gpu_msm_plan_destroy(plan2);
    cuzk_gpu_msm_plan_destroy(NULL);
}

/* What only precomputed plans have. */
static void test_precompute(void)
{
    const unsigned PRE = CUZK_GPU_MSM_PRECOMPUTE;
    cuzk_g1_affine p[64], bs[2];
    cuzk_g2_affine q[64];
    cuzk_scalar k[64];
    test_g1_points(p, 64);
    test_g2_points(q, 64);
    test_g1_points(bs, 2);
    for (int i = 0; i < 64; i++) rand_scalar(&k[i]);
    cuzk_gpu_msm_plan *plan = NULL;
    /* Windows: up to 24 precomputed, 23 plain; unknown flags. */
    CHECK(plan_of(&plan, CUZK_GPU_G1, p, 64, 25, PRE) == CUZK_ERR_INVALID_ARGUMENT);
    CHECK(plan_of(&plan, CUZK_GPU_G1, p, 64, 7, PRE) == CUZK_ERR_INVALID_ARGUMENT);
    CHECK(plan_of(&plan, CUZK_GPU_G1, p, 64, 24, 0) == CUZK_ERR_INVALID_ARGUMENT);
    CHECK(plan_of(&plan, CUZK_GPU_G1, p, 64, 0, 4) == CUZK_ERR_INVALID_ARGUMENT);
    CHECK(plan_of(&plan, CUZK_GPU_G2, q, 0, 0, PRE) == CUZK_ERR_INVALID_ARGUMENT);
    CHECK(plan == NULL);
    /* The model's choices quoted in gpu.h and docs/perf.md. */
    CHECK(cuzk_gpu_msm_window((size_t)1 << 24, PRE) == 22);
    CHECK(cuzk_gpu_msm_window((size_t)1 << 26, PRE) == 24);
    /* Plain and precomputed plans of the same points: same results, the
     * table's time and memory reported. */
    cuzk_gpu_msm_plan *pl0 = NULL, *pl1 = NULL;
    CHECK(plan_of(&pl0, CUZK_GPU_G2, q, 64, 0, 0) == CUZK_OK);
    CHECK(plan_of(&pl1, CUZK_GPU_G2, q, 64, 0, PRE) == CUZK_OK);
    if (pl0 && pl1) {
        cuzk_g2_jac r0, r1;
        CHECK(cuzk_gpu_msm_plan_flags(pl0) == 0 && cuzk_gpu_msm_plan_flags(pl1) == PRE);
        CHECK(cuzk_gpu_msm_plan_window(pl1) == cuzk_gpu_msm_window(64, PRE));
        CHECK(cuzk_gpu_msm_plan_table_ms(pl0) == 0 && cuzk_gpu_msm_plan_table_ms(pl1) > 0);
        /* the table: W = ceil(255 / c) copies of the 64 points (at this
         * size the plain plan's buckets can outweigh it, so no comparison) */
        unsigned c1 = cuzk_gpu_msm_plan_window(pl1);
        CHECK(cuzk_gpu_msm_plan_device_bytes(pl1) >=
              (size_t)((255 + c1 - 1) / c1) * 64 * sizeof(cuzk_g2_affine));
        CHECK(cuzk_gpu_g2_msm_var(&r0, pl0, 0, k, 64, gerr) == CUZK_OK);
        CHECK(cuzk_gpu_g2_msm_var(&r1, pl1, 0, k, 64, gerr) == CUZK_OK);
        CHECK(cuzk_g2_jac_eq(&r0, &r1));
        CHECK(cuzk_gpu_g1_msm_var((cuzk_g1_jac *)&r1, pl1, 0, k, 64, gerr) ==
              CUZK_ERR_INVALID_ARGUMENT);
    }
    cuzk_gpu_msm_plan_destroy(pl0);
    cuzk_gpu_msm_plan_destroy(pl1);
    /* A subset-sum table: flag, time and memory (15 points per 4) reported. */
    pl0 = NULL;
    CHECK(plan_of(&pl0, CUZK_GPU_G1, p, 64, 0, CUZK_GPU_MSM_BITS_TABLE) == CUZK_OK);
    if (pl0) {
        CHECK(cuzk_gpu_msm_plan_flags(pl0) == CUZK_GPU_MSM_BITS_TABLE);
        CHECK(cuzk_gpu_msm_plan_table_ms(pl0) > 0);
        CHECK(cuzk_gpu_msm_plan_device_bytes(pl0) >= 16 * 15 * sizeof(cuzk_g1_affine));
        cuzk_gpu_msm_plan_destroy(pl0);
    }
    /* Tables beyond the device: 2^27 points at c = 8 are 32 x 2^27 > 2^31
     * entries (refused before any allocation); 2^26 at c = 9 are 29 x 2^26
     * G1 points, 187 GB (the allocation fails, unless the device is larger).
     * Either way NO_MEMORY, nothing is set, and the context still works. */
    plan = NULL;
    cuzk_gpu_msm_opts o8 = {CUZK_GPU_G1, 8, PRE, CUZK_GPU_MSM_ACC_DEFAULT, NULL, 0, 0};
    CHECK(cuzk_gpu_msm_plan_create_seq(&plan, ctx, &o8, (size_t)1 << 27, &bs[0], &bs[1],
                                       gerr) == CUZK_ERR_NO_MEMORY);
    size_t pool = 0;
    cuzk_gpu_ctx_pool(ctx, &pool, NULL);
    if (pool < (size_t)29 * ((size_t)1 << 26) * sizeof(cuzk_g1_affine)) {
        cuzk_gpu_msm_opts o9 = {CUZK_GPU_G1, 9, PRE, CUZK_GPU_MSM_ACC_DEFAULT, NULL, 0, 0};
        cuzk_status st = cuzk_gpu_msm_plan_create_seq(&plan, ctx, &o9, (size_t)1 << 26, &bs[0],
                                                      &bs[1], gerr);
        CHECK_MSG(st == CUZK_ERR_NO_MEMORY, "187 GB table: %s (%s)", cuzk_strerror(st),
                  gerr);
    }
    CHECK(plan == NULL);
    CHECK(plan_of(&plan, CUZK_GPU_G1, p, 64, 0, PRE) == CUZK_OK);
    if (plan) {
        cuzk_g1_jac want, got;
        CHECK(cuzk_g1_msm_var(&want, p, k, 64, 0) == CUZK_OK);
        CHECK(cuzk_gpu_g1_msm_var(&got, plan, 0, k, 64, gerr) == CUZK_OK &&
              cuzk_g1_jac_eq(&want, &got));
        cuzk_gpu_msm_plan_destroy(plan);
    }
    printf("  precomputed plans: done (%d failures so far)\n", test_failures);
}

/* The scratch of a plan of group grp, n points, window c, plan_flags. */
static size_t scratch_need(cuzk_gpu_group grp, size_t n, unsigned c)
{
    size_t b = 0;
    cuzk_gpu_msm_opts o = opts(grp, c);
    CHECK_MSG(cuzk_gpu_msm_scratch_bytes(&b, &o, n, gerr) == CUZK_OK, "scratch bytes: %s", gerr);
    return b;
}

/* Sparse calls shaped like a witness (51% zeros, 47.5% ones, the rest
 * random), bounded by the count of the rest as the prover bounds them, on
 * plans large enough that the rest's own windows fit beside every kind of
 * plan's buckets (a precomputed one's included: 2^16 points, c = 16, one
 * window of 2^15 buckets, against the rest's 32 x 2^7): the prover's
 * shape, which the sizes of test_sparse in quick mode do not reach.
 * Session 12 lost a change to this path that test_sparse passed. */
static void test_sparse_witness(const grp *g)
{
    size_t n = g->max_n < 65536 ? g->max_n : 65536;
    void *base = test_xmalloc(n * g->aff);
    cuzk_scalar *k = test_xmalloc(n * sizeof *k);
    g->gen(base, n);
    static const unsigned flags[] = {0, CUZK_GPU_MSM_PRECOMPUTE,
                                     CUZK_GPU_MSM_PRECOMPUTE | CUZK_GPU_MSM_BITS_TABLE,
                                     CUZK_GPU_MSM_BITS_TABLE};
    unsigned saved = plan_flags;
    cuzk_gpu_msm_acc saved_acc = acc_mode;
    acc_mode = CUZK_GPU_MSM_BATCH_AFFINE; /* the prover's */
    for (size_t f = 0; f < sizeof flags / sizeof flags[0]; f++) {
        plan_flags = flags[f];
        cuzk_gpu_msm_plan *plan = make_plan(g, base, n, 0);
        if (!plan) continue;
        for (int rep = 0; rep < 2; rep++) {
            size_t other = 0;
            for (size_t i = 0; i < n; i++) {
                uint64_t r = test_rand64() % 1000;
                memset(&k[i], 0, sizeof k[i]);
                if (r >= 510 && r < 985) k[i].l[0] = 1;
                else if (r >= 985) rand_scalar(&k[i]), other++;
            }
            sparse_bound = other ? other : 1;
            compare_with(g, g->gpu_sparse, plan, base, k, n, "witness-shaped, bounded");
            sparse_bound = 0;
            compare_with(g, g->gpu_sparse, plan, base, k, n, "witness-shaped");
        }
        cuzk_gpu_msm_plan_destroy(plan);
    }
    plan_flags = saved;
    acc_mode = saved_acc;
    printf("  %s witness-shaped sparse calls: done (%d failures so far)\n", g->name,
           test_failures);
    free(base);
    free(k);
}

/* Plans sharing one scratch (cuzk_gpu_msm_opts.scratch): the checks again
 * with every plan borrowing it, then MSMs of two plans in flight at once
 * on one stream, and the rules: another stream while one is in flight, a
 * plan made while one is in flight, a scratch too small, a scratch of
 * another context. */
static void test_shared(int quick)
{
    plan_flags = 0;
    acc_mode = CUZK_GPU_MSM_BATCH_AFFINE;
    size_t most = 0;
    for (int f = 0; f < 2; f++) {
        plan_flags = f ? CUZK_GPU_MSM_PRECOMPUTE | CUZK_GPU_MSM_BITS_TABLE : 0;
        size_t needs[4] = {scratch_need(CUZK_GPU_G1, G1.max_n, 0),
                           scratch_need(CUZK_GPU_G2, G2.max_n, 0),
                           scratch_need(CUZK_GPU_G1, 1000, 8), scratch_need(CUZK_GPU_G2, 1000, 8)};
        for (int i = 0; i < 4; i++)
            if (needs[i] > most) most = needs[i];
    }
    cuzk_status st = cuzk_gpu_msm_scratch_create(&shared, ctx, most, gerr);
    CHECK_MSG(st == CUZK_OK, "scratch of %zu bytes: %s (%s)", most, cuzk_strerror(st), gerr);
    if (st != CUZK_OK) return;
    printf("  one scratch of %.1f MB shared by every plan:\n", most / 1e6);
    const grp *groups[2] = {&G1, &G2};
    for (int f = 0; f < 2; f++) {
        plan_flags = f ? CUZK_GPU_MSM_PRECOMPUTE | CUZK_GPU_MSM_BITS_TABLE : 0;
        for (int gi = 0; gi < 2; gi++) {
            test_sizes(groups[gi], quick);
            test_edges(groups[gi], quick);
            test_bits(groups[gi], quick);
            test_sparse(groups[gi], quick);
        }
    }

    /* Two plans in flight on one stream, then the rules. */
    plan_flags = 0;
    size_t n = 3000;
    cuzk_g1_affine *p = test_xmalloc(n * sizeof *p);
    cuzk_g2_affine *q = test_xmalloc(n * sizeof *q);
    cuzk_scalar *k1 = test_xmalloc(n * sizeof *k1), *k2 = test_xmalloc(n * sizeof *k2);
    test_g1_points(p, n);
    test_g2_points(q, n);
    for (size_t i = 0; i < n; i++) rand_scalar(&k1[i]), rand_scalar(&k2[i]);
    cuzk_g1_jac w1, r1;
    cuzk_g2_jac w2, r2;
    CHECK(cuzk_g1_msm_var(&w1, p, k1, n, 0) == CUZK_OK && cuzk_g2_msm_var(&w2, q, k2, n, 0) == CUZK_OK);
    cuzk_gpu_msm_plan *a = make_plan(&G1, p, n, 0), *b = make_plan(&G2, q, n, 0), *c = NULL;
    if (a && b) {
        unsigned two = cuzk_gpu_ctx_streams(ctx) > 1;
        CHECK(cuzk_gpu_msm_start_var(a, 0, k1, n, gerr) == CUZK_OK);
        if (two)
            CHECK_MSG(cuzk_gpu_msm_start_var(b, 1, k2, n, gerr) == CUZK_ERR_INVALID_ARGUMENT,
                      "a start on another stream while a plan sharing the scratch is busy");
        CHECK(cuzk_gpu_msm_sparse_start_var(b, 0, k2, n, gerr) == CUZK_OK);
        cuzk_gpu_msm_opts o = opts(CUZK_GPU_G1, 0);
        CHECK_MSG(cuzk_gpu_msm_plan_create(&c, ctx, &o, p, n, gerr) == CUZK_ERR_INVALID_ARGUMENT &&
                      c == NULL,
                  "a plan made on a scratch in use");
        CHECK(cuzk_gpu_g2_msm_finish(&r2, b, gerr) == CUZK_OK && cuzk_g2_jac_eq(&r2, &w2));
        CHECK(cuzk_gpu_g1_msm_finish(&r1, a, gerr) == CUZK_OK && cuzk_g1_jac_eq(&r1, &w1));
        if (two) { /* idle again: any stream */
            CHECK(cuzk_gpu_g1_msm_var(&r1, a, 1, k1, n, gerr) == CUZK_OK &&
                  cuzk_g1_jac_eq(&r1, &w1));
        }
    }
    cuzk_gpu_msm_plan_destroy(a);
    cuzk_gpu_msm_plan_destroy(b);
    cuzk_gpu_msm_scratch_destroy(shared);
    shared = NULL;

    /* Too small: refused, naming the sizes. */
    cuzk_gpu_msm_scratch *tiny = NULL;
    CHECK(cuzk_gpu_msm_scratch_create(&tiny, ctx, 4096, gerr) == CUZK_OK);
    cuzk_gpu_msm_opts o = opts(CUZK_GPU_G1, 0);
    o.scratch = tiny;
    CHECK(cuzk_gpu_msm_plan_create(&c, ctx, &o, p, n, gerr) == CUZK_ERR_INVALID_ARGUMENT &&
          c == NULL && strstr(gerr, "scratch") != NULL);
    /* Another context's scratch. */
    cuzk_gpu_ctx *other = NULL;
    cuzk_gpu_ctx_opts co;
    memset(&co, 0, sizeof co);
    co.pool_bytes = (size_t)64 << 20;
    if (cuzk_gpu_ctx_create(&other, &co, gerr) == CUZK_OK) {
        CHECK(cuzk_gpu_msm_plan_create(&c, other, &o, p, 16, gerr) == CUZK_ERR_INVALID_ARGUMENT);
        cuzk_gpu_ctx_destroy(other);
    } else {
        CHECK_MSG(0, "a second context: %s", gerr);
    }
    cuzk_gpu_msm_scratch_destroy(tiny);
    CHECK(cuzk_gpu_msm_scratch_create(&tiny, ctx, 0, gerr) == CUZK_ERR_INVALID_ARGUMENT);
    size_t nb = 0;
    CHECK(cuzk_gpu_msm_scratch_bytes(&nb, &o, 0, gerr) == CUZK_ERR_INVALID_ARGUMENT);
    free(p);
    free(q);
    free(k1);
    free(k2);
    printf("  shared scratch: done (%d failures so far)\n", test_failures);
}

/* Windows sorted in batches (cuzk_gpu_msm_opts.window_batches): the checks
 * again on plain plans in 2, 3 and 5 batches, both accumulations; less
 * scratch than one batch; refused with precomputed windows. */
static void test_window_batches(int quick)
{
    const grp *groups[2] = {&G1, &G2};
    static const unsigned ks[3] = {2, 3, 5};
    plan_flags = 0;
    for (int ba = 0; ba < 2; ba++) {
        acc_mode = ba ? CUZK_GPU_MSM_BATCH_AFFINE : CUZK_GPU_MSM_XYZZ;
        for (int ki = 0; ki < 3; ki++) {
            win_batches = ks[ki];
            printf("  windows in %u batches%s:\n", win_batches, ba ? ", batch-affine" : "");
            for (int gi = 0; gi < 2; gi++) {
                test_sizes(groups[gi], quick);
                if (ki == 1) {
                    test_windows(groups[gi], quick);
                    test_edges(groups[gi], quick);
                }
                test_sparse(groups[gi], quick);
            }
        }
    }
    win_batches = 0;
    size_t one = 0, three = 0;
    cuzk_gpu_msm_opts o = opts(CUZK_GPU_G1, 16);
    CHECK(cuzk_gpu_msm_scratch_bytes(&one, &o, 1 << 16, gerr) == CUZK_OK);
    o.window_batches = 3;
    CHECK(cuzk_gpu_msm_scratch_bytes(&three, &o, 1 << 16, gerr) == CUZK_OK);
    CHECK_MSG(three < one, "scratch in 3 batches %zu, at once %zu", three, one);
    o.flags = CUZK_GPU_MSM_PRECOMPUTE;
    CHECK(cuzk_gpu_msm_scratch_bytes(&three, &o, 1 << 16, gerr) == CUZK_ERR_INVALID_ARGUMENT &&
          strstr(gerr, "batches"));
    printf("  window batches: done (%d failures so far)\n", test_failures);
}

/* The FP64 shares (cuzk_gpu_msm_opts.fp64_share) of the batch-affine
 * accumulation: the checks with each share (G2: shares 1 and 4), on plain
 * and precomputed plans; the options refused. */
static void test_fp64(int quick)
{
    const grp *groups[2] = {&G1, &G2};
    acc_mode = CUZK_GPU_MSM_BATCH_AFFINE;
    win_batches = 0;
    for (unsigned sh = 1; sh <= CUZK_GPU_MSM_FP64_MAX; sh++) {
        fp64_share = sh;
        printf("  fp64 share %u:\n", sh);
        for (int pre = 0; pre < 2; pre++) {
            plan_flags = pre ? CUZK_GPU_MSM_PRECOMPUTE : 0;
            for (int gi = 0; gi < 2; gi++) {
                const grp *g = groups[gi];
                if (g == &G2 && sh != 1 && sh != CUZK_GPU_MSM_FP64_MAX) continue;
                test_sizes(g, quick);
                if (sh == 3 || sh == CUZK_GPU_MSM_FP64_MAX || quick) test_windows(g, quick);
                test_edges(g, quick);
                test_sparse(g, quick);
                test_seq(g, quick);
            }
        }
    }
    plan_flags = 0;
    /* A share with the default accumulation (batch-affine) is taken. */
    cuzk_g1_affine p[40];
    cuzk_g2_affine q[4];
    cuzk_scalar k[40];
    test_g1_points(p, 40);
    test_g2_points(q, 4);
    for (int i = 0; i < 40; i++) rand_scalar(&k[i]);
    cuzk_gpu_msm_plan *plan = NULL;
    cuzk_gpu_msm_opts o = {CUZK_GPU_G1, 0, 0, CUZK_GPU_MSM_ACC_DEFAULT, NULL, 0, 2};
    CHECK(cuzk_gpu_msm_plan_create(&plan, ctx, &o, p, 40, gerr) == CUZK_OK);
    if (plan) compare(&G1, plan, p, k, 40, "fp64 share, default accumulation");
    cuzk_gpu_msm_plan_destroy(plan);
    plan = NULL;
    /* Refused: a share above the largest, on XYZZ plans (either group). */
    o.fp64_share = CUZK_GPU_MSM_FP64_MAX + 1;
    CHECK(cuzk_gpu_msm_plan_create(&plan, ctx, &o, p, 40, gerr) == CUZK_ERR_INVALID_ARGUMENT &&
          strstr(gerr, "fp64"));
    o.fp64_share = 1;
    o.acc = CUZK_GPU_MSM_XYZZ;
    CHECK(cuzk_gpu_msm_plan_create(&plan, ctx, &o, p, 40, gerr) == CUZK_ERR_INVALID_ARGUMENT &&
          strstr(gerr, "fp64"));
    o.group = CUZK_GPU_G2;
    CHECK(cuzk_gpu_msm_plan_create(&plan, ctx, &o, q, 4, gerr) == CUZK_ERR_INVALID_ARGUMENT &&
          strstr(gerr, "fp64"));
    size_t bytes = 0;
    CHECK(cuzk_gpu_msm_scratch_bytes(&bytes, &o, 4, gerr) == CUZK_ERR_INVALID_ARGUMENT);
    CHECK(plan == NULL);
    fp64_share = 0;
    printf("  fp64 shares: done (%d failures so far)\n", test_failures);
}

/* The checks on plain and precomputed plans of both groups, with the
 * accumulation, share and key order set as they are (bits: the bitmap
 * sums too). */
static void test_plans(int quick, int bits)
{
    const grp *groups[2] = {&G1, &G2};
    for (int pre = 0; pre < 2; pre++) {
        plan_flags = pre ? CUZK_GPU_MSM_PRECOMPUTE : 0;
        for (int gi = 0; gi < 2; gi++) {
            test_sizes(groups[gi], quick);
            test_windows(groups[gi], quick);
            test_edges(groups[gi], quick);
            if (bits) test_bits(groups[gi], quick);
            test_sparse(groups[gi], quick);
            test_seq(groups[gi], quick);
        }
    }
}

/* Batch-affine plans reading their keys and values in sorted order, not in
 * the step-major copies of the default (a transposing kernel after each
 * sort): the checks on plain and precomputed plans, and with windows in 3
 * batches; the hook refuses no plan. */
static void test_sorted_order(int quick)
{
    const grp *groups[2] = {&G1, &G2};
    acc_mode = CUZK_GPU_MSM_BATCH_AFFINE;
    step_major = 0;
    printf("  sorted-order keys and values:\n");
    test_plans(quick, 0);
    plan_flags = 0;
    win_batches = 3;
    for (int gi = 0; gi < 2; gi++) test_sizes(groups[gi], quick);
    win_batches = 0;
    step_major = 1;
    CHECK(cuzk_gpu_testing_msm_plan_step_major(NULL, 0, gerr) == CUZK_ERR_INVALID_ARGUMENT);
    printf("  sorted order: done (%d failures so far)\n", test_failures);
}

int main(void)
{
    int skip = gpu_test_start(NAME);
    if (skip) return skip;
    cuzk_gpu_ctx_opts co;
    memset(&co, 0, sizeof co);
    co.streams = 2; /* test_shared: a second stream */
    cuzk_status st = cuzk_gpu_ctx_create(&ctx, &co, gerr);
    if (st != CUZK_OK) {
        fprintf(stderr, "%s: context: %s (%s)\n", NAME, cuzk_strerror(st), gerr);
        return 1;
    }
    int quick = getenv("CUZK_TEST_QUICK") != NULL;
    test_misuse();
    test_precompute();
    const grp *groups[2] = {&G1, &G2};
    for (int ba = 0; ba < 2; ba++) {
        acc_mode = ba ? CUZK_GPU_MSM_BATCH_AFFINE : CUZK_GPU_MSM_XYZZ;
        if (ba) printf("  batch-affine accumulation:\n");
        test_plans(quick, !ba);
    }
    /* Subset-sum tables: the bitmap sums read them, MSMs must not change. */
    acc_mode = CUZK_GPU_MSM_XYZZ;
    for (int pre = 0; pre < 2; pre++) {
        plan_flags = CUZK_GPU_MSM_BITS_TABLE | (pre ? CUZK_GPU_MSM_PRECOMPUTE : 0);
        for (int gi = 0; gi < 2; gi++) {
            test_bits(groups[gi], quick);
            test_sparse(groups[gi], quick);
            if (!pre) test_edges(groups[gi], quick);
        }
    }
    for (int gi = 0; gi < 2; gi++) test_sparse_witness(groups[gi]);
    test_shared(quick);
    test_window_batches(quick);
    test_fp64(quick);
    test_sorted_order(quick);
    cuzk_gpu_ctx_destroy(ctx);
    return test_done(NAME);
}
