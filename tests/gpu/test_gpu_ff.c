/* GPU Fr/Fp arithmetic against the CPU backend (include/cuzk/ff.h).
 *
 * Every operation of cuzk_gpu_{fr,fp}_batch is run on fresh seeded random
 * inputs of several sizes (uniform, and "carry-heavy" ones whose 32-bit limbs
 * are often 0 or 0xffffffff), and on all pairs of edge values, and compared
 * bit for bit with cuzk_{fr,fp}_{mul,sqr,add,sub,neg}. The throughput kernel
 * of the benchmark is checked too. Exit 77 (ctest: skipped) without a GPU. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuzk/gpu.h>

#include "gpu_test.h"

#define NAME "test_gpu_ff"

static char gerr[CUZK_ERRMSG_LEN]; /* the last GPU call's message */

static const size_t sizes[] = {1, 2, 31, 32, 33, 1000, 65537};
static const char *op_names[] = {"mul", "sqr", "add", "sub", "neg"};

/* ------------------------------------------------ one field, generically -- */

/* The two fields differ only in these; elements are handled as raw limbs of
 * their Montgomery form, nlimbs 64-bit words each. */
typedef struct {
    const char *name;
    int nlimbs;
    size_t bytes;
    const uint64_t *modulus;
    const void *one;   /* Montgomery 1 */
    void (*cpu[5])(void *r, const void *a, const void *b);
    cuzk_status (*gpu)(cuzk_gpu_ctx *, cuzk_gpu_op, void *, const void *, const void *, size_t);
    cuzk_gpu_field field;
} field_t;

static void fr_mul_(void *r, const void *a, const void *b) { cuzk_fr_mul(r, a, b); }
static void fr_sqr_(void *r, const void *a, const void *b) { (void)b; cuzk_fr_sqr(r, a); }
static void fr_add_(void *r, const void *a, const void *b) { cuzk_fr_add(r, a, b); }
static void fr_sub_(void *r, const void *a, const void *b) { cuzk_fr_sub(r, a, b); }
static void fr_neg_(void *r, const void *a, const void *b) { (void)b; cuzk_fr_neg(r, a); }
static void fp_mul_(void *r, const void *a, const void *b) { cuzk_fp_mul(r, a, b); }
static void fp_sqr_(void *r, const void *a, const void *b) { (void)b; cuzk_fp_sqr(r, a); }
static void fp_add_(void *r, const void *a, const void *b) { cuzk_fp_add(r, a, b); }
static void fp_sub_(void *r, const void *a, const void *b) { cuzk_fp_sub(r, a, b); }
static void fp_neg_(void *r, const void *a, const void *b) { (void)b; cuzk_fp_neg(r, a); }

static cuzk_status fr_gpu(cuzk_gpu_ctx *c, cuzk_gpu_op op, void *r, const void *a, const void *b,
                          size_t n)
{
    return cuzk_gpu_fr_batch(r, c, op, a, b, n, gerr);
}
static cuzk_status fp_gpu(cuzk_gpu_ctx *c, cuzk_gpu_op op, void *r, const void *a, const void *b,
                          size_t n)
{
    return cuzk_gpu_fp_batch(r, c, op, a, b, n, gerr);
}

static const field_t FR = {"Fr", CUZK_FR_LIMBS, sizeof(cuzk_fr), CUZK_FR_MODULUS, &CUZK_FR_ONE,
                           {fr_mul_, fr_sqr_, fr_add_, fr_sub_, fr_neg_}, fr_gpu, CUZK_GPU_FR};
static const field_t FP = {"Fp", CUZK_FP_LIMBS, sizeof(cuzk_fp), CUZK_FP_MODULUS, &CUZK_FP_ONE,
                           {fp_mul_, fp_sqr_, fp_add_, fp_sub_, fp_neg_}, fp_gpu, CUZK_GPU_FP};

/* 1 if v < modulus (v and m little-endian, n limbs). */
static int below(const uint64_t *v, const uint64_t *m, int n)
{
    for (int i = n - 1; i >= 0; i--)
        if (v[i] != m[i]) return v[i] < m[i];
    return 0;
}

/* A random reduced raw element. heavy: each 32-bit half-limb is 0, all ones
 * or random with probability 1/4, 1/4, 1/2 (long carry and borrow chains). */
static void rand_elem(const field_t *f, uint64_t *v, int heavy)
{
    int top_bits = f->nlimbs == CUZK_FR_LIMBS ? 255 - 192 : 381 - 320;
    uint64_t top_mask = (1ull << top_bits) - 1;
    do {
        for (int i = 0; i < f->nlimbs; i++) {
            uint64_t x = test_rand64();
            if (heavy) {
                uint64_t sel = test_rand64();
                for (int h = 0; h < 2; h++) {
                    uint64_t half = 0xffffffffull << (32 * h);
                    switch ((sel >> (2 * h)) & 3) {
                    case 0: x &= ~half; break;
                    case 1: x |= half; break;
                    default: break;
                    }
                }
            }
            v[i] = x;
        }
        v[f->nlimbs - 1] &= top_mask;
    } while (!below(v, f->modulus, f->nlimbs));
}

/* Compares GPU and CPU results of op on n inputs; returns mismatches. */
static size_t run_op(cuzk_gpu_ctx *ctx, const field_t *f, cuzk_gpu_op op, const uint8_t *a,
                     const uint8_t *b, size_t n, const char *what)
{
    uint8_t *got = malloc(n * f->bytes), *want = malloc(n * f->bytes);
    if (!got || !want) {
        CHECK_MSG(0, "out of memory");
        free(got); free(want);
        return n;
    }
    memset(got, 0xa5, n * f->bytes); /* poison: every element must be written */
    cuzk_status st = f->gpu(ctx, op, got, a, b, n);
    CHECK_MSG(st == CUZK_OK, "%s %s %s n=%zu: %s (%s)", f->name, op_names[op], what, n,
              cuzk_strerror(st), gerr);
    size_t bad = 0;
    for (size_t i = 0; i < n; i++) {
        f->cpu[op](want + i * f->bytes, a + i * f->bytes, b + i * f->bytes);
        if (memcmp(got + i * f->bytes, want + i * f->bytes, f->bytes)) {
            if (bad++ < 3) {
                fprintf(stderr, "%s %s %s n=%zu: mismatch at %zu\n", f->name, op_names[op],
                        what, n, i);
                const uint64_t *g = (const uint64_t *)(got + i * f->bytes);
                const uint64_t *w = (const uint64_t *)(want + i * f->bytes);
                for (int k = f->nlimbs - 1; k >= 0; k--)
                    fprintf(stderr, "  limb %d got %016llx want %016llx\n", k,
                            (unsigned long long)g[k], (unsigned long long)w[k]);
            }
        }
    }
    CHECK_MSG(bad == 0, "%s %s %s n=%zu: %zu of %zu differ", f->name, op_names[op], what, n,
              bad, n);
    free(got);
    free(want);
    return bad;
}

/* CUZK_TEST_QUICK=1 (for compute-sanitizer runs) stops at 1000 elements. */
static void test_random(cuzk_gpu_ctx *ctx, const field_t *f)
{
    const char *quick = getenv("CUZK_TEST_QUICK");
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
        size_t n = sizes[si];
        if (quick && *quick && *quick != '0' && n > 1000) break;
        uint8_t *a = malloc(n * f->bytes), *b = malloc(n * f->bytes);
        if (!a || !b) { CHECK_MSG(0, "out of memory"); free(a); free(b); return; }
        for (int heavy = 0; heavy < 2; heavy++) {
            for (size_t i = 0; i < n; i++) {
                rand_elem(f, (uint64_t *)(a + i * f->bytes), heavy);
                rand_elem(f, (uint64_t *)(b + i * f->bytes), heavy);
            }
            for (int op = 0; op < 5; op++)
                run_op(ctx, f, (cuzk_gpu_op)op, a, b, n, heavy ? "carry-heavy" : "random");
        }
        free(a);
        free(b);
    }
}

/* Edge values, as raw Montgomery limbs: 0; raw 1 (the value R^-1); the
 * Montgomery one; p-1 and p-2 raw; -1 = p - R mod p (Montgomery form of p-1);
 * the largest element whose low limbs are all ones; 2^(top) boundaries. */
#define MAX_EDGES 12
static int edges(const field_t *f, uint64_t e[MAX_EDGES][CUZK_FP_LIMBS])
{
    int n = f->nlimbs, k = 0;
    memset(e, 0, sizeof(uint64_t) * MAX_EDGES * CUZK_FP_LIMBS);
    k++;                                            /* 0 */
    e[k++][0] = 1;                                  /* raw 1 = R^-1 */
    memcpy(e[k++], f->one, f->bytes);               /* Montgomery 1 */
    memcpy(e[k], f->modulus, f->bytes); e[k++][0] -= 1;   /* raw p-1 */
    memcpy(e[k], f->modulus, f->bytes); e[k++][0] -= 2;   /* raw p-2 */
    f->cpu[4](e[k], f->one, NULL); k++;             /* -1 in Montgomery form */
    for (int i = 0; i < n - 1; i++) e[k][i] = ~0ull;  /* all low limbs max, */
    e[k][n - 1] = f->modulus[n - 1] - 1; k++;       /* top limb just below p's */
    for (int i = 0; i < n - 1; i++) e[k][i] = 0xffffffff00000000ull; /* high halves set */
    e[k][n - 1] = f->modulus[n - 1] >> 1; k++;
    e[k][n - 1] = f->modulus[n - 1]; k++;           /* p's top limb, rest 0 (< p) */
    e[k][n / 2] = 1; k++;                           /* 2^(64 n/2) */
    for (int i = 0; i < n; i++) e[k][i] = 0x00000000ffffffffull; /* low halves set */
    k++;
    for (int i = 0; i < k; i++) CHECK(below(e[i], f->modulus, n));
    return k;
}

static void test_edges(cuzk_gpu_ctx *ctx, const field_t *f)
{
    uint64_t e[MAX_EDGES][CUZK_FP_LIMBS];
    int k = edges(f, e);
    size_t n = (size_t)k * k;
    uint8_t *a = malloc(n * f->bytes), *b = malloc(n * f->bytes);
    if (!a || !b) { CHECK_MSG(0, "out of memory"); free(a); free(b); return; }
    for (int i = 0; i < k; i++)
        for (int j = 0; j < k; j++) {
            memcpy(a + (size_t)(i * k + j) * f->bytes, e[i], f->bytes);
            memcpy(b + (size_t)(i * k + j) * f->bytes, e[j], f->bytes);
        }
    for (int op = 0; op < 5; op++) run_op(ctx, f, (cuzk_gpu_op)op, a, b, n, "edge pairs");
    free(a);
    free(b);
}

/* r aliasing a through the host API. */
static void test_alias(cuzk_gpu_ctx *ctx, const field_t *f)
{
    enum { N = 33 };
    uint8_t a[N * 48], b[N * 48], want[N * 48];
    for (int i = 0; i < N; i++) {
        rand_elem(f, (uint64_t *)(a + i * f->bytes), 0);
        rand_elem(f, (uint64_t *)(b + i * f->bytes), 0);
        f->cpu[CUZK_GPU_OP_MUL](want + i * f->bytes, a + i * f->bytes, b + i * f->bytes);
    }
    CHECK(f->gpu(ctx, CUZK_GPU_OP_MUL, a, a, b, N) == CUZK_OK);
    CHECK(!memcmp(a, want, N * f->bytes));
}

/* The benchmark's kernel: x = a * b^iters (mul) or a^(2^iters) (sqr). */
static void test_throughput_kernel(cuzk_gpu_ctx *ctx, const field_t *f)
{
    enum { N = 4096, ITERS = 5 };
    uint8_t *a = malloc(N * f->bytes), *b = malloc(N * f->bytes), *out = malloc(N * f->bytes);
    if (!a || !b || !out) { CHECK_MSG(0, "out of memory"); free(a); free(b); free(out); return; }
    for (int i = 0; i < N; i++) {
        rand_elem(f, (uint64_t *)(a + i * f->bytes), 0);
        rand_elem(f, (uint64_t *)(b + i * f->bytes), 0);
    }
    for (int op = 0; op < 2; op++)
        for (unsigned v = 0; v < 10; v++) {
            unsigned ilp = 1 + (v & 1);
            cuzk_gpu_bench_cfg cfg = {128, ilp, v >> 1};
            float ms[2];
            cuzk_gpu_kernel_info info;
            memset(out, 0xa5, N * f->bytes);
            cuzk_status st = cuzk_gpu_ff_throughput(ctx, f->field, (cuzk_gpu_op)op, a, b, N,
                                                    ITERS, cfg, 2, ms, out, &info, gerr);
            CHECK_MSG(st == CUZK_OK, "%s throughput %s: %s (%s)", f->name, op_names[op],
                      cuzk_strerror(st), gerr);
            CHECK(info.local_bytes == 0 && info.regs > 0 && info.blocks_per_sm > 0);
            size_t bad = 0;
            for (int i = 0; i < N; i++) {
                /* thread t = i mod (N/ilp) multiplies by its own b[t] */
                size_t t = (size_t)i % (N / ilp);
                uint8_t x[48];
                memcpy(x, a + i * f->bytes, f->bytes);
                for (int it = 0; it < ITERS; it++)
                    f->cpu[op](x, x, op == 0 ? b + t * f->bytes : x);
                bad += memcmp(x, out + i * f->bytes, f->bytes) != 0;
            }
            CHECK_MSG(bad == 0, "%s throughput %s ilp %u variant %u: %zu of %d differ",
                      f->name, op_names[op], ilp, cfg.variant, bad, N);
        }
    free(a);
    free(b);
    free(out);
}

static void test_misuse(cuzk_gpu_ctx *ctx)
{
    cuzk_fr x[1] = {CUZK_FR_ONE};
    CHECK(cuzk_gpu_fr_batch(x, NULL, CUZK_GPU_OP_MUL, x, x, 1, gerr) ==
              CUZK_ERR_INVALID_ARGUMENT &&
          strncmp(gerr, "gpu: ", 5) == 0);
    CHECK(cuzk_gpu_fr_batch(x, ctx, CUZK_GPU_OP_MUL, x, NULL, 1, NULL) ==
          CUZK_ERR_INVALID_ARGUMENT);
    CHECK(cuzk_gpu_fr_batch(x, ctx, (cuzk_gpu_op)9, x, x, 1, gerr) == CUZK_ERR_INVALID_ARGUMENT);
    CHECK(cuzk_gpu_fr_batch(x, ctx, CUZK_GPU_OP_SQR, x, NULL, 0, gerr) == CUZK_OK &&
          gerr[0] == 0);
    float ms[1];
    cuzk_gpu_bench_cfg cfg = {100, 1, 0}; /* not a multiple of 32 */
    CHECK(cuzk_gpu_ff_throughput(ctx, CUZK_GPU_FR, CUZK_GPU_OP_MUL, x, x, 1, 1, cfg, 1, ms,
                                 NULL, NULL, gerr) == CUZK_ERR_INVALID_ARGUMENT);
    cuzk_gpu_ctx *c2 = NULL;
    cuzk_gpu_ctx_opts o = {1 << 20, 0, 1};
    CHECK(cuzk_gpu_ctx_create(&c2, &o, gerr) == CUZK_ERR_INVALID_ARGUMENT && c2 == NULL);
}

int main(void)
{
    int skip = gpu_test_start(NAME);
    if (skip) return skip;

    /* A 4 MiB pool: the 65537-element Fp batches go through it in chunks. */
    cuzk_gpu_ctx *ctx = NULL;
    cuzk_gpu_ctx_opts o = {0, (size_t)4 << 20, 1};
    cuzk_status st = cuzk_gpu_ctx_create(&ctx, &o, gerr);
    CHECK_MSG(st == CUZK_OK, "ctx_create: %s (%s)", cuzk_strerror(st), gerr);
    if (st != CUZK_OK) return test_done(NAME);

    const field_t *fields[] = {&FR, &FP};
    for (int i = 0; i < 2; i++) {
        test_edges(ctx, fields[i]);
        test_alias(ctx, fields[i]);
        test_random(ctx, fields[i]);
    }
    /* The throughput kernel needs 3 x 4096 elements: a pool of its own. */
    cuzk_gpu_ctx_destroy(ctx);
    o.pool_bytes = (size_t)1 << 20;
    st = cuzk_gpu_ctx_create(&ctx, &o, gerr);
    CHECK(st == CUZK_OK);
    if (st == CUZK_OK) {
        for (int i = 0; i < 2; i++) test_throughput_kernel(ctx, fields[i]);
        test_misuse(ctx);
    }
    cuzk_gpu_ctx_destroy(ctx);
    return test_done(NAME);
}
