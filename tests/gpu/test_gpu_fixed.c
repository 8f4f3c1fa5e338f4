/* GPU fixed-base multiplication (cuzk_gpu_fixed_mul) against the CPU, byte
 * for byte on the affine output, G1 and G2:
 *   - random scalars at n = 1, 2, 31, 32, 33, 1000, each point against
 *     cuzk_g*_mul + cuzk_g*_to_affine;
 *   - the edge scalars of fixed_cases.h (0 -> all-zero bytes, digits of
 *     exactly 2^(w-1), carry chains, r - 1, the doubling branch at w = 7);
 *   - batch boundaries (batch - 1, batch, batch + 1, 2 batch + 1) and 10^5
 *     .. 3 10^5 points with scalars a + i b, every point against
 *     [a] B + i [b] B by CPU additions, plus random scalars checked on a
 *     sample of points;
 *   - a random (non-generator) base, and another window (w = 7, 37
 *     windows);
 *   - pinned arrays (the direct copy path), one pinned and one pageable;
 *   - nothing written past out[n - 1]; bad arguments rejected.
 * Exit 77 (skipped) without a GPU. CUZK_TEST_QUICK=1 keeps the sizes small
 * (for compute-sanitizer). Replay with CUZK_SEED=<n>. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuzk/ec.h>
#include <cuzk/gpu.h>

#include "fixed_cases.h"
#include "gpu_test.h"

#define NAME "test_gpu_fixed"

static cuzk_gpu_ctx *ctx;
static char gerr[CUZK_ERRMSG_LEN]; /* the last GPU call's message */
static int quick;

/* ------------------------------------------------- the two groups -- */

static void g1_mul(void *r, const void *b, const cuzk_fr *s)
{
    cuzk_g1_jac j;
    cuzk_g1_from_affine(&j, b);
    cuzk_g1_mul(&j, &j, s);
    cuzk_g1_to_affine(r, &j);
}

static void g2_mul(void *r, const void *b, const cuzk_fr *s)
{
    cuzk_g2_jac j;
    cuzk_g2_from_affine(&j, b);
    cuzk_g2_mul(&j, &j, s);
    cuzk_g2_to_affine(r, &j);
}

/* out[i] = [a + i d] b for i < n, by additions. */
static void g1_prog(void *out, const void *b, const cuzk_fr *a, const cuzk_fr *d, size_t n)
{
    cuzk_g1_jac *j = test_xmalloc(n * sizeof *j), base, step;
    cuzk_fp *scr = test_xmalloc(n * sizeof *scr);
    cuzk_g1_from_affine(&base, b);
    cuzk_g1_mul(&j[0], &base, a);
    cuzk_g1_mul(&step, &base, d);
    for (size_t i = 1; i < n; i++) cuzk_g1_add(&j[i], &j[i - 1], &step);
    cuzk_g1_batch_to_affine(out, j, n, scr);
    free(j);
    free(scr);
}

static void g2_prog(void *out, const void *b, const cuzk_fr *a, const cuzk_fr *d, size_t n)
{
    cuzk_g2_jac *j = test_xmalloc(n * sizeof *j), base, step;
    cuzk_fp2 *scr = test_xmalloc(n * sizeof *scr);
    cuzk_g2_from_affine(&base, b);
    cuzk_g2_mul(&j[0], &base, a);
    cuzk_g2_mul(&step, &base, d);
    for (size_t i = 1; i < n; i++) cuzk_g2_add(&j[i], &j[i - 1], &step);
    cuzk_g2_batch_to_affine(out, j, n, scr);
    free(j);
    free(scr);
}

typedef struct {
    const char *name;
    cuzk_gpu_group grp;
    size_t aff;
    const void *gen;
    size_t big; /* largest progression size (beyond 2 batches + 1) */
    void (*mul)(void *r, const void *b, const cuzk_fr *s);
    void (*prog)(void *out, const void *b, const cuzk_fr *a, const cuzk_fr *d, size_t n);
} grp;

static const grp G1 = {"G1", CUZK_GPU_G1, sizeof(cuzk_g1_affine), &CUZK_G1_GENERATOR, 300000,
                       g1_mul, g1_prog};
static const grp G2 = {"G2", CUZK_GPU_G2, sizeof(cuzk_g2_affine), &CUZK_G2_GENERATOR, 100000,
                       g2_mul, g2_prog};

#define PT(g, base, i) ((char *)(base) + (size_t)(i) * (g)->aff)

/* ------------------------------------------------------------ checks -- */

/* GPU out = [s_i] B for i < n into out (n + 1 points, out[n] a guard),
 * then compares each of `idx` (all i < n when idx is NULL) with want (or,
 * when want is NULL, with the CPU's multiplication). */
static void compare(const grp *g, cuzk_gpu_fixed *f, const void *base, const cuzk_fr *s,
                    size_t n, void *out, const void *want, const size_t *idx, size_t nidx,
                    const char *what)
{
    memset(out, 0x5a, (n + 1) * g->aff); /* not zero: infinity must be written */
    cuzk_status st = cuzk_gpu_fixed_mul(out, f, s, n, gerr);
    CHECK_MSG(st == CUZK_OK, "%s %s n=%zu: %s (%s)", g->name, what, n, cuzk_strerror(st),
              gerr);
    if (st != CUZK_OK) return;
    size_t m = idx ? nidx : n, bad = 0, first = 0;
    cuzk_g2_affine w; /* room for either group */
    for (size_t q = 0; q < m; q++) {
        size_t i = idx ? idx[q] : q;
        const void *wi = want ? PT(g, want, i) : (g->mul(&w, base, &s[i]), (const void *)&w);
        if (memcmp(PT(g, out, i), wi, g->aff)) {
            if (!bad) first = i;
            bad++;
        }
    }
    CHECK_MSG(bad == 0, "%s %s n=%zu: %zu of %zu points differ (first %zu)", g->name, what, n,
              bad, m, first);
    int guard = 1;
    for (size_t k = 0; k < g->aff; k++) guard &= ((unsigned char *)PT(g, out, n))[k] == 0x5a;
    CHECK_MSG(guard, "%s %s n=%zu: written past the end", g->name, what, n);
}

/* Random scalars at small sizes and the edge scalars: every point. */
static void check_small(const grp *g, cuzk_gpu_fixed *f, const void *base, unsigned w,
                        const char *what)
{
    static const size_t sizes[] = {1, 2, 31, 32, 33, 1000};
    cuzk_fr *s = test_xmalloc(1000 * sizeof *s);
    void *out = test_xmalloc(1001 * g->aff);
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        for (size_t i = 0; i < sizes[k]; i++) test_rand_fr(&s[i]);
        compare(g, f, base, s, sizes[k], out, NULL, NULL, 0, what);
    }
    size_t ne = fixed_edges(s, w);
    compare(g, f, base, s, ne, out, NULL, NULL, 0, what);
    /* Zeros only: every block's product is 1. */
    memset(s, 0, 300 * sizeof *s);
    compare(g, f, base, s, 300, out, NULL, NULL, 0, what);
    free(s);
    free(out);
}

/* Batch boundaries and large n: scalars a + i d, against CPU additions;
 * then the same in pinned memory (direct copies) and mixed. */
static void check_large(const grp *g, cuzk_gpu_fixed *f, const void *base)
{
    cuzk_gpu_fixed_info info;
    CHECK(cuzk_gpu_fixed_get_info(f, &info, gerr) == CUZK_OK);
    size_t bt = info.batch, big = 2 * bt + 1;
    if (g->big > big) big = g->big;
    if (quick) big = 5000;
    cuzk_fr a, d, one = CUZK_FR_ONE;
    test_rand_fr(&a);
    test_rand_fr(&d);
    cuzk_fr *s = test_xmalloc(big * sizeof *s);
    s[0] = a;
    for (size_t i = 1; i < big; i++) cuzk_fr_add(&s[i], &s[i - 1], &d);
    void *want = test_xmalloc(big * g->aff), *out = test_xmalloc((big + 1) * g->aff);
    g->prog(want, base, &a, &d, big);
    const size_t sizes[] = {bt - 1, bt, bt + 1, 2 * bt + 1, 100000, big};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++)
        if (sizes[k] <= big) compare(g, f, base, s, sizes[k], out, want, NULL, 0, "a + i d");

    /* Pinned in and out; pinned in, pageable out; pageable in, pinned out. */
    cuzk_fr *ps = NULL;
    void *pout = NULL;
    size_t np = bt + 1 < big ? bt + 1 : big;
    cuzk_status st = cuzk_gpu_host_alloc((void **)&ps, np * sizeof *ps, gerr);
    if (st == CUZK_OK) st = cuzk_gpu_host_alloc(&pout, (np + 1) * g->aff, gerr);
    CHECK_MSG(st == CUZK_OK, "pinned: %s", cuzk_strerror(st));
    if (st == CUZK_OK) {
        memcpy(ps, s, np * sizeof *ps);
        compare(g, f, base, ps, np, pout, want, NULL, 0, "pinned");
        compare(g, f, base, ps, np, out, want, NULL, 0, "pinned in");
        compare(g, f, base, s, np, pout, want, NULL, 0, "pinned out");
    }
    cuzk_gpu_host_free(ps);
    cuzk_gpu_host_free(pout);

    /* Random scalars, checked on a sample (with both ends). */
    size_t n = quick ? 5000 : (big < 200000 ? big : 200000), idx[256];
    for (size_t i = 0; i < n; i++) test_rand_fr(&s[i]);
    s[n / 2] = one;
    memset(&s[n / 3], 0, sizeof s[0]);
    idx[0] = 0, idx[1] = n - 1, idx[2] = n / 2, idx[3] = n / 3;
    for (size_t q = 4; q < 256; q++) idx[q] = test_rand64() % n;
    compare(g, f, base, s, n, out, NULL, idx, 256, "random, sampled");
    free(s);
    free(want);
    free(out);
}

static void check_group(const grp *g)
{
    cuzk_gpu_fixed *f = NULL;
    cuzk_status st = cuzk_gpu_fixed_create(&f, ctx, g->grp, NULL, gerr);
    CHECK_MSG(st == CUZK_OK, "%s create: %s (%s)", g->name, cuzk_strerror(st),
              gerr);
    if (st != CUZK_OK) return;
    cuzk_gpu_fixed_info info;
    CHECK(cuzk_gpu_fixed_get_info(f, &info, gerr) == CUZK_OK);
    CHECK(info.window == CUZK_GPU_FIXED_WINDOW &&
          info.windows == (256 + CUZK_GPU_FIXED_WINDOW - 1) / CUZK_GPU_FIXED_WINDOW && info.batch > 0);
    printf("%s: w %u, %u windows, batch %zu, %zu threads, %d regs, %d B spills, %d blocks/SM,"
           " %.1f MB device (table %.1f MB)\n",
           g->name, info.window, info.windows, info.batch, info.threads, info.regs,
           info.local_bytes, info.blocks_per_sm, info.device_bytes / 1e6, info.table_bytes / 1e6);
    check_small(g, f, g->gen, CUZK_GPU_FIXED_WINDOW, "generator");
    check_large(g, f, g->gen);
    cuzk_gpu_fixed_destroy(f);

    /* A random base: the default window, and w = 7. */
    cuzk_g2_affine base;
    cuzk_fr k;
    test_rand_fr(&k);
    g->mul(&base, g->gen, &k);
    f = NULL;
    st = cuzk_gpu_fixed_create(&f, ctx, g->grp, &base, gerr);
    CHECK_MSG(st == CUZK_OK, "%s create (random base): %s", g->name, cuzk_strerror(st));
    if (st == CUZK_OK) check_small(g, f, &base, CUZK_GPU_FIXED_WINDOW, "random base");
    cuzk_gpu_fixed_destroy(f);
    f = NULL;
    st = cuzk_gpu_fixed_create_window(&f, ctx, g->grp, &base, 7, gerr);
    CHECK_MSG(st == CUZK_OK, "%s create w=7: %s", g->name, cuzk_strerror(st));
    if (st == CUZK_OK) {
        CHECK(cuzk_gpu_fixed_get_info(f, &info, gerr) == CUZK_OK && info.window == 7 &&
              info.windows == 37);
        check_small(g, f, &base, 7, "random base, w=7");
    }
    cuzk_gpu_fixed_destroy(f);
}

static void check_args(void)
{
    cuzk_gpu_fixed *f = NULL;
    cuzk_g2_affine bad;
    memset(&bad, 0, sizeof bad); /* infinity */
    CHECK(cuzk_gpu_fixed_create(&f, ctx, CUZK_GPU_G1, &bad, gerr) == CUZK_ERR_INVALID_ARGUMENT);
    CHECK(cuzk_gpu_fixed_create(&f, ctx, CUZK_GPU_G2, &bad, gerr) == CUZK_ERR_INVALID_ARGUMENT);
    cuzk_g1_affine off = CUZK_G1_GENERATOR;
    cuzk_fp_add(&off.y, &off.y, &off.x); /* off the curve */
    CHECK(cuzk_gpu_fixed_create(&f, ctx, CUZK_GPU_G1, &off, gerr) == CUZK_ERR_INVALID_ARGUMENT);
    CHECK(cuzk_gpu_fixed_create(&f, ctx, (cuzk_gpu_group)3, NULL, gerr) ==
          CUZK_ERR_INVALID_ARGUMENT);
    CHECK(cuzk_gpu_fixed_create(&f, NULL, CUZK_GPU_G1, NULL, gerr) == CUZK_ERR_INVALID_ARGUMENT &&
          strncmp(gerr, "gpu: ", 5) == 0);
    CHECK(cuzk_gpu_fixed_create(NULL, ctx, CUZK_GPU_G1, NULL, NULL) == CUZK_ERR_INVALID_ARGUMENT);
    CHECK(cuzk_gpu_fixed_create_window(&f, ctx, CUZK_GPU_G1, NULL, 1, gerr) ==
          CUZK_ERR_INVALID_ARGUMENT);
    CHECK(cuzk_gpu_fixed_create_window(&f, ctx, CUZK_GPU_G1, NULL, 23, gerr) ==
          CUZK_ERR_INVALID_ARGUMENT);
    CHECK(f == NULL);
    CHECK(cuzk_gpu_fixed_create(&f, ctx, CUZK_GPU_G1, NULL, gerr) == CUZK_OK);
    cuzk_fr s = CUZK_FR_ONE;
    cuzk_g1_affine out;
    CHECK(cuzk_gpu_fixed_mul(NULL, f, &s, 1, gerr) == CUZK_ERR_INVALID_ARGUMENT);
    CHECK(cuzk_gpu_fixed_mul(&out, f, NULL, 1, gerr) == CUZK_ERR_INVALID_ARGUMENT);
    CHECK(cuzk_gpu_fixed_mul(&out, NULL, &s, 1, gerr) == CUZK_ERR_INVALID_ARGUMENT);
    CHECK(cuzk_gpu_fixed_mul(NULL, f, NULL, 0, gerr) == CUZK_OK);
    CHECK(cuzk_gpu_fixed_get_info(NULL, NULL, gerr) == CUZK_ERR_INVALID_ARGUMENT);
    cuzk_gpu_fixed_destroy(f);
    cuzk_gpu_fixed_destroy(NULL);
}

int main(void)
{
    int rc = gpu_test_start(NAME);
    if (rc) return rc;
    quick = getenv("CUZK_TEST_QUICK") != NULL;
    /* The default pool (most of the device): the multipliers' tables come
     * from it. */
    cuzk_status st = cuzk_gpu_ctx_create(&ctx, NULL, gerr);
    CHECK_MSG(st == CUZK_OK, "context: %s (%s)", cuzk_strerror(st), gerr);
    if (st != CUZK_OK) return test_done(NAME);
    check_args();
    check_group(&G1);
    check_group(&G2);
    cuzk_gpu_ctx_destroy(ctx);
    return test_done(NAME);
}
