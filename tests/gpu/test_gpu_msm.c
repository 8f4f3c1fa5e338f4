/* GPU G1 MSM (cuzk_gpu_g1_msm) against the CPU MSM (cuzk_g1_msm).
 *
 * Fresh seeded random points and scalars for sizes 1 .. 2^16, several window
 * sizes (forced c exercises every shape of the bucket reduction), a plan
 * used for a prefix of its points, host scalars both pageable and pinned,
 * and edge cases: scalars all 0, all 1, all r - 1, all 2^256 - 1 (taken mod
 * r), small values (empty buckets), one point repeated (equal scalars force
 * the doubling branch of the bucket addition), P and -P with equal scalars
 * (cancellation to infinity), points at infinity. The device-generated
 * points of cuzk_gpu_g1_msm_plan_create_seq are checked through
 * sum k_j (B + j S) = [sum k_j] B + [sum j k_j] S.
 *
 * CUZK_TEST_QUICK=1 keeps sizes small (for compute-sanitizer). Exit 77
 * (ctest: skipped) without a GPU. Replay with CUZK_SEED=<n>. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuzk/ec.h>
#include <cuzk/gpu.h>
#include <cuzk/msm.h>

#include "gpu_test.h"

#define NAME "test_gpu_msm"

/* r, little-endian. */
static const uint64_t R_LIMBS[4] = {0xffffffff00000001ull, 0x53bda402fffe5bfeull,
                                    0x3339d80809a1d805ull, 0x73eda753299d7d48ull};

/* Distinct pseudo-random points: P_0 = [a] G, P_i = P_(i-1) + [b] G. */
static void gen_points(cuzk_g1_affine *out, size_t n)
{
    cuzk_g1_jac *j = malloc(n * sizeof *j), base, step;
    cuzk_fp *scratch = malloc(n * sizeof *scratch);
    if (!j || !scratch) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    cuzk_fr a, b;
    test_rand_fr(&a);
    test_rand_fr(&b);
    cuzk_g1_from_affine(&base, &CUZK_G1_GENERATOR);
    cuzk_g1_mul(&j[0], &base, &a);
    cuzk_g1_mul(&step, &base, &b);
    for (size_t i = 1; i < n; i++) cuzk_g1_add(&j[i], &j[i - 1], &step);
    cuzk_g1_batch_to_affine(out, j, n, scratch);
    free(j);
    free(scratch);
}

static void rand_scalar(cuzk_scalar *s)
{
    cuzk_fr f;
    test_rand_fr(&f); /* uniform below r; its raw limbs are as good */
    memcpy(s->l, f.l, sizeof s->l);
}

static cuzk_gpu_ctx *ctx;

/* GPU against CPU for points[0..n) with scalars k; plan holds >= n points
 * equal to points. */
static void compare(cuzk_gpu_g1_msm_plan *plan, const cuzk_g1_affine *points,
                    const cuzk_scalar *k, size_t n, const char *what)
{
    cuzk_g1_jac want, got;
    memset(&got, 0xa5, sizeof got); /* poison */
    cuzk_status st = cuzk_g1_msm(&want, points, k, n, 0);
    CHECK_MSG(st == CUZK_OK, "cpu msm %s", what);
    st = cuzk_gpu_g1_msm(ctx, plan, k, n, &got);
    CHECK_MSG(st == CUZK_OK, "gpu msm %s n=%zu: %s (%s)", what, n, cuzk_strerror(st),
              cuzk_gpu_last_error());
    if (st == CUZK_OK)
        CHECK_MSG(cuzk_g1_jac_eq(&want, &got), "%s n=%zu c=%u: GPU result differs from CPU",
                  what, n, cuzk_gpu_g1_msm_plan_window(plan));
}

static cuzk_gpu_g1_msm_plan *make_plan(const cuzk_g1_affine *points, size_t n, unsigned c)
{
    cuzk_gpu_g1_msm_plan *plan = NULL;
    cuzk_status st = cuzk_gpu_g1_msm_plan_create(ctx, &plan, points, n, c);
    CHECK_MSG(st == CUZK_OK, "plan n=%zu c=%u: %s (%s)", n, c, cuzk_strerror(st),
              cuzk_gpu_last_error());
    return st == CUZK_OK ? plan : NULL;
}

/* Random sizes, fresh points and scalars each, automatic window. */
static void test_sizes(int quick)
{
    static const size_t sizes[] = {1, 2, 31, 32, 33, 1000, 65536};
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
        size_t n = sizes[si];
        if (quick && n > 1000) continue;
        cuzk_g1_affine *p = malloc(n * sizeof *p);
        cuzk_scalar *k = malloc(n * sizeof *k);
        gen_points(p, n);
        cuzk_gpu_g1_msm_plan *plan = make_plan(p, n, 0);
        if (plan) {
            for (int rep = 0; rep < 2; rep++) { /* the plan is reused */
                for (size_t i = 0; i < n; i++) rand_scalar(&k[i]);
                compare(plan, p, k, n, "random");
            }
            /* Pinned host scalars. */
            cuzk_scalar *pk = NULL;
            if (cuzk_gpu_host_alloc((void **)&pk, n * sizeof *pk) == CUZK_OK) {
                for (size_t i = 0; i < n; i++) rand_scalar(&pk[i]);
                compare(plan, p, pk, n, "pinned");
                cuzk_gpu_host_free(pk);
            } else {
                CHECK_MSG(0, "cuzk_gpu_host_alloc");
            }
            cuzk_gpu_g1_msm_plan_destroy(plan);
        }
        printf("  n = %zu: done (%d failures so far)\n", n, test_failures);
        free(p);
        free(k);
    }
}

/* Forced windows on one point set; a plan used for a prefix. */
static void test_windows(int quick)
{
    size_t n = quick ? 600 : 65536;
    static const unsigned cs[] = {8, 11, 13, 16, 21};
    cuzk_g1_affine *p = malloc(n * sizeof *p);
    cuzk_scalar *k = malloc(n * sizeof *k);
    gen_points(p, n);
    for (size_t ci = 0; ci < sizeof cs / sizeof cs[0]; ci++) {
        if (quick && cs[ci] > 13) continue;
        cuzk_gpu_g1_msm_plan *plan = make_plan(p, n, cs[ci]);
        if (!plan) continue;
        CHECK(cuzk_gpu_g1_msm_plan_window(plan) == cs[ci]);
        for (size_t i = 0; i < n; i++) rand_scalar(&k[i]);
        compare(plan, p, k, n, "forced c");
        compare(plan, p, k, n / 3 + 1, "prefix");
        cuzk_gpu_g1_msm_plan_destroy(plan);
    }
    printf("  windows: done (%d failures so far)\n", test_failures);
    free(p);
    free(k);
}

enum {
    E_ZERO, E_ONE, E_RM1, E_MAX, E_SMALL, E_REPEAT_EQ, E_REPEAT, E_NEGPAIR, E_INF, E_ALLINF,
    E_COUNT
};
static const char *edge_names[] = {"all 0", "all 1", "all r-1", "all 2^256-1", "small",
                                   "repeated point, equal scalars", "repeated point",
                                   "P, -P pairs", "some infinity", "all infinity"};

static void test_edges(int quick)
{
    size_t n = quick ? 200 : 1000;
    cuzk_g1_affine *base = malloc(n * sizeof *base), *p = malloc(n * sizeof *p);
    cuzk_scalar *k = malloc(n * sizeof *k);
    gen_points(base, n);
    for (int e = 0; e < E_COUNT; e++) {
        memcpy(p, base, n * sizeof *p);
        cuzk_scalar one_k;
        rand_scalar(&one_k);
        for (size_t i = 0; i < n; i++) {
            rand_scalar(&k[i]);
            switch (e) {
            case E_ZERO: memset(&k[i], 0, sizeof k[i]); break;
            case E_ONE: memset(&k[i], 0, sizeof k[i]); k[i].l[0] = 1; break;
            case E_RM1: memcpy(k[i].l, R_LIMBS, sizeof k[i].l); k[i].l[0] -= 1; break;
            case E_MAX: memset(k[i].l, 0xff, sizeof k[i].l); break;
            case E_SMALL: memset(&k[i], 0, sizeof k[i]); k[i].l[0] = i % 7; break;
            case E_REPEAT_EQ: p[i] = base[0]; k[i] = one_k; break;
            case E_REPEAT: p[i] = base[i % 3]; break;
            case E_NEGPAIR:
                if (i & 1) {
                    cuzk_g1_affine_neg(&p[i], &p[i - 1]);
                    k[i] = k[i - 1];
                }
                break;
            case E_INF: if (i % 3 == 1) memset(&p[i], 0, sizeof p[i]); break;
            case E_ALLINF: memset(&p[i], 0, sizeof p[i]); break;
            default: break;
            }
        }
        cuzk_gpu_g1_msm_plan *plan = make_plan(p, n, e & 1 ? 8 : 0);
        if (plan) {
            compare(plan, p, k, n, edge_names[e]);
            if (e == E_ZERO || e == E_NEGPAIR || e == E_ALLINF) {
                cuzk_g1_jac got;
                if (cuzk_gpu_g1_msm(ctx, plan, k, n, &got) == CUZK_OK)
                    CHECK_MSG(cuzk_g1_jac_is_inf(&got), "%s: not infinity", edge_names[e]);
            }
            cuzk_gpu_g1_msm_plan_destroy(plan);
        }
    }
    printf("  edge cases: done (%d failures so far)\n", test_failures);
    free(base);
    free(p);
    free(k);
}

/* Points made on the device: B + j S. */
static void test_seq(int quick)
{
    size_t n = quick ? 100 : 5000; /* > one generation thread, not a multiple of 32 */
    cuzk_g1_affine bs[2];
    gen_points(bs, 2);
    cuzk_gpu_g1_msm_plan *plan = NULL;
    cuzk_status st = cuzk_gpu_g1_msm_plan_create_seq(ctx, &plan, n, 0, &bs[0], &bs[1]);
    CHECK_MSG(st == CUZK_OK, "seq plan: %s (%s)", cuzk_strerror(st), cuzk_gpu_last_error());
    if (!plan) return;
    cuzk_scalar *k = malloc(n * sizeof *k);
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
    cuzk_g1_jac jb, js, want, got;
    cuzk_g1_from_affine(&jb, &bs[0]);
    cuzk_g1_from_affine(&js, &bs[1]);
    cuzk_g1_mul(&jb, &jb, &m0);
    cuzk_g1_mul(&js, &js, &m1);
    cuzk_g1_add(&want, &jb, &js);
    st = cuzk_gpu_g1_msm(ctx, plan, k, n, &got);
    CHECK_MSG(st == CUZK_OK, "seq msm: %s", cuzk_strerror(st));
    if (st == CUZK_OK) CHECK_MSG(cuzk_g1_jac_eq(&want, &got), "seq plan n=%zu: wrong sum", n);
    cuzk_gpu_g1_msm_plan_destroy(plan);
    free(k);
    printf("  generated points: done (%d failures so far)\n", test_failures);
}

static void test_misuse(void)
{
    cuzk_g1_affine p[4];
    cuzk_scalar k[4];
    gen_points(p, 4);
    for (int i = 0; i < 4; i++) rand_scalar(&k[i]);
    cuzk_gpu_g1_msm_plan *plan = NULL;
    CHECK(cuzk_gpu_g1_msm_plan_create(ctx, &plan, p, 0, 0) == CUZK_ERR_INVALID_ARGUMENT);
    CHECK(cuzk_gpu_g1_msm_plan_create(ctx, &plan, p, 4, 7) == CUZK_ERR_INVALID_ARGUMENT);
    CHECK(plan == NULL);
    plan = make_plan(p, 4, 0);
    if (!plan) return;
    cuzk_g1_jac r;
    CHECK(cuzk_gpu_g1_msm(ctx, plan, k, 5, &r) == CUZK_ERR_INVALID_ARGUMENT);
    CHECK(cuzk_gpu_g1_msm(ctx, plan, k, 0, &r) == CUZK_OK && cuzk_g1_jac_is_inf(&r));
    cuzk_gpu_msm_timing tm;
    CHECK(cuzk_gpu_g1_msm(ctx, plan, k, 4, &r) == CUZK_OK);
    CHECK(cuzk_gpu_g1_msm_plan_timing(plan, &tm) == CUZK_OK && tm.total > 0);
    cuzk_gpu_g1_msm_plan_destroy(plan);
    cuzk_gpu_g1_msm_plan_destroy(NULL);
}

int main(void)
{
    int skip = gpu_test_start(NAME);
    if (skip) return skip;
    cuzk_status st = cuzk_gpu_ctx_create(&ctx, 0, 0);
    if (st != CUZK_OK) {
        fprintf(stderr, "%s: context: %s (%s)\n", NAME, cuzk_strerror(st), cuzk_gpu_last_error());
        return 1;
    }
    int quick = getenv("CUZK_TEST_QUICK") != NULL;
    test_misuse();
    test_sizes(quick);
    test_windows(quick);
    test_edges(quick);
    test_seq(quick);
    cuzk_gpu_ctx_destroy(ctx);
    return test_done(NAME);
}
