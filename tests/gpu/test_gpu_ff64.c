/* GPU FP64-pipe field multiplication (src/gpu/ff_fp64.cuh) against the CPU
 * backend, bit for bit: cuzk_gpu_{fr,fp}_batch with CUZK_GPU_OP_MUL_FP64,
 * CUZK_GPU_OP_SQR_FP64 and CUZK_GPU_OP_MUL_MIXED (even elements on the integer pipe, odd ones on the
 * FP64 pipe, in one kernel) on 1e6 fresh random products per field (uniform,
 * carry-heavy, and with all-zero / all-one samples) and on all pairs of edge
 * values; then the benchmark's throughput kernel in its FP64 and mixed
 * variants (5-10), mul and sqr. Exit 77 (ctest: skipped) without a GPU.
 * CUZK_TEST_QUICK=1 uses 1e4 products. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuzk/ff.h>
#include <cuzk/gpu.h>

#include "gpu_test.h"
#include "ff64_cases.h"

#define NAME "test_gpu_ff64"

static char gerr[CUZK_ERRMSG_LEN]; /* the last GPU call's message */

typedef struct {
    const char *name;
    int nlimbs, bits;
    size_t bytes;
    const uint64_t *modulus;
    const void *one;
    void (*mul)(void *r, const void *a, const void *b);
    cuzk_gpu_field field;
} field_t;

static void fr_mul_(void *r, const void *a, const void *b) { cuzk_fr_mul(r, a, b); }
static void fp_mul_(void *r, const void *a, const void *b) { cuzk_fp_mul(r, a, b); }

static const field_t FR = {"Fr", CUZK_FR_LIMBS, 255, sizeof(cuzk_fr), CUZK_FR_MODULUS,
                           &CUZK_FR_ONE, fr_mul_, CUZK_GPU_FR};
static const field_t FP = {"Fp", CUZK_FP_LIMBS, 381, sizeof(cuzk_fp), CUZK_FP_MODULUS,
                           &CUZK_FP_ONE, fp_mul_, CUZK_GPU_FP};

static cuzk_status gpu_batch(cuzk_gpu_ctx *ctx, const field_t *f, cuzk_gpu_op op, void *r,
                             const void *a, const void *b, size_t n)
{
    if (f->field == CUZK_GPU_FR) return cuzk_gpu_fr_batch(r, ctx, op, a, b, n, gerr);
    return cuzk_gpu_fp_batch(r, ctx, op, a, b, n, gerr);
}

/* op on n pairs against the CPU's multiplication; returns mismatches. */
static size_t run_op(cuzk_gpu_ctx *ctx, const field_t *f, cuzk_gpu_op op, const uint8_t *a,
                     const uint8_t *b, size_t n, const char *what)
{
    const char *opn = op == CUZK_GPU_OP_MUL_FP64   ? "mul_fp64"
                      : op == CUZK_GPU_OP_SQR_FP64 ? "sqr_fp64"
                                                   : "mul_mixed";
    uint8_t *got = malloc(n * f->bytes), *want = malloc(n * f->bytes);
    if (!got || !want) {
        CHECK_MSG(0, "out of memory");
        free(got); free(want);
        return n;
    }
    memset(got, 0xa5, n * f->bytes); /* poison: every element must be written */
    cuzk_status st = gpu_batch(ctx, f, op, got, a, b, n);
    CHECK_MSG(st == CUZK_OK, "%s %s %s n=%zu: %s (%s)", f->name, opn, what, n,
              cuzk_strerror(st), gerr);
    size_t bad = 0;
    for (size_t i = 0; i < n; i++) {
        /* the CPU's mul(a, a) is its squaring: the same Montgomery product */
        f->mul(want + i * f->bytes, a + i * f->bytes,
               (op == CUZK_GPU_OP_SQR_FP64 ? a : b) + i * f->bytes);
        if (memcmp(got + i * f->bytes, want + i * f->bytes, f->bytes) && bad++ < 3)
            fprintf(stderr, "%s %s %s: mismatch at %zu\n", f->name, opn, what, i);
    }
    CHECK_MSG(bad == 0, "%s %s %s n=%zu: %zu of %zu differ", f->name, opn, what, n, bad, n);
    free(got);
    free(want);
    return bad;
}

static void test_random(cuzk_gpu_ctx *ctx, const field_t *f, size_t n)
{
    uint8_t *a = malloc(n * f->bytes), *b = malloc(n * f->bytes);
    if (!a || !b) { CHECK_MSG(0, "out of memory"); free(a); free(b); return; }
    for (size_t i = 0; i < n; i++) {
        ff64c_rand((uint64_t *)(a + i * f->bytes), f->modulus, f->nlimbs, f->bits, (int)(i % 3));
        ff64c_rand((uint64_t *)(b + i * f->bytes), f->modulus, f->nlimbs, f->bits,
                   (int)((i / 3) % 3));
    }
    run_op(ctx, f, CUZK_GPU_OP_MUL_FP64, a, b, n, "random");
    run_op(ctx, f, CUZK_GPU_OP_MUL_MIXED, a, b, n, "random");
    run_op(ctx, f, CUZK_GPU_OP_MUL_FP64, a, a, n, "a = b");
    run_op(ctx, f, CUZK_GPU_OP_SQR_FP64, a, NULL, n, "random");
    free(a);
    free(b);
}

static void test_edges(cuzk_gpu_ctx *ctx, const field_t *f)
{
    uint64_t e[FF64C_MAX_EDGES][CUZK_FP_LIMBS];
    int k = ff64c_edges(e, f->modulus, f->one, f->nlimbs, f->bits);
    size_t n = (size_t)k * k;
    uint8_t *a = malloc(n * f->bytes), *b = malloc(n * f->bytes);
    if (!a || !b) { CHECK_MSG(0, "out of memory"); free(a); free(b); return; }
    for (int i = 0; i < k; i++) {
        CHECK(ff64c_below(e[i], f->modulus, f->nlimbs));
        for (int j = 0; j < k; j++) {
            memcpy(a + (size_t)(i * k + j) * f->bytes, e[i], f->bytes);
            memcpy(b + (size_t)(i * k + j) * f->bytes, e[j], f->bytes);
        }
    }
    run_op(ctx, f, CUZK_GPU_OP_MUL_FP64, a, b, n, "edge pairs");
    run_op(ctx, f, CUZK_GPU_OP_MUL_MIXED, a, b, n, "edge pairs");
    run_op(ctx, f, CUZK_GPU_OP_SQR_FP64, a, NULL, n, "edges");
    free(a);
    free(b);
}

/* The benchmark's kernel in variants 5-8: x = a * b^iters or a^(2^iters). */
static void test_throughput_kernel(cuzk_gpu_ctx *ctx, const field_t *f)
{
    enum { N = 3 * 2048, ITERS = 5 };
    uint8_t *a = malloc(N * f->bytes), *b = malloc(N * f->bytes), *out = malloc(N * f->bytes);
    if (!a || !b || !out) { CHECK_MSG(0, "out of memory"); free(a); free(b); free(out); return; }
    for (int i = 0; i < N; i++) {
        ff64c_rand((uint64_t *)(a + i * f->bytes), f->modulus, f->nlimbs, f->bits, 0);
        ff64c_rand((uint64_t *)(b + i * f->bytes), f->modulus, f->nlimbs, f->bits, 0);
    }
    static const unsigned vars[][2] = {{5, 1}, {5, 2}, {6, 2}, {7, 3}, {8, 3},
                                       {9, 1}, {9, 2}, {10, 2}};
    for (int op = 0; op < 2; op++)
        for (size_t v = 0; v < sizeof vars / sizeof vars[0]; v++) {
            unsigned ilp = vars[v][1];
            cuzk_gpu_bench_cfg cfg = {128, ilp, vars[v][0]};
            float ms[2];
            cuzk_gpu_kernel_info info;
            memset(out, 0xa5, N * f->bytes);
            cuzk_status st = cuzk_gpu_ff_throughput(ctx, f->field, (cuzk_gpu_op)op, a, b, N,
                                                    ITERS, cfg, 2, ms, out, &info, gerr);
            CHECK_MSG(st == CUZK_OK, "%s throughput variant %u: %s (%s)", f->name,
                      cfg.variant, cuzk_strerror(st), gerr);
            CHECK(info.local_bytes == 0 && info.regs > 0 && info.blocks_per_sm > 0);
            size_t bad = 0;
            for (int i = 0; i < N; i++) {
                size_t t = (size_t)i % (N / ilp); /* thread t multiplies by b[t] */
                uint8_t x[48];
                memcpy(x, a + i * f->bytes, f->bytes);
                for (int it = 0; it < ITERS; it++) f->mul(x, x, op == 0 ? b + t * f->bytes : x);
                bad += memcmp(x, out + i * f->bytes, f->bytes) != 0;
            }
            CHECK_MSG(bad == 0, "%s throughput %s variant %u: %zu of %d differ", f->name,
                      op ? "sqr" : "mul", cfg.variant, bad, N);
        }
    /* a mixed variant with the wrong number of chains is refused */
    float ms;
    cuzk_gpu_bench_cfg bad_cfg = {128, 2, 7};
    CHECK(cuzk_gpu_ff_throughput(ctx, f->field, CUZK_GPU_OP_MUL, a, b, N, 1, bad_cfg, 1, &ms,
                                 NULL, NULL, gerr) == CUZK_ERR_INVALID_ARGUMENT);
    free(a);
    free(b);
    free(out);
}

int main(void)
{
    int rc = gpu_test_start(NAME);
    if (rc) return rc;
    cuzk_gpu_ctx *ctx = NULL;
    cuzk_gpu_ctx_opts o = {0, (size_t)256 << 20, 1}; /* 3 x 64 MiB batch chunks */
    cuzk_status st = cuzk_gpu_ctx_create(&ctx, &o, gerr);
    CHECK_MSG(st == CUZK_OK, "ctx_create: %s (%s)", cuzk_strerror(st), gerr);
    if (st != CUZK_OK) return test_done(NAME);
    const char *quick = getenv("CUZK_TEST_QUICK");
    size_t n = quick && *quick && *quick != '0' ? 10000 : 1000000;
    const field_t *fields[2] = {&FR, &FP};
    for (int fi = 0; fi < 2; fi++) {
        test_random(ctx, fields[fi], n);
        test_edges(ctx, fields[fi]);
        test_throughput_kernel(ctx, fields[fi]);
    }
    cuzk_gpu_ctx_destroy(ctx);
    return test_done(NAME);
}
