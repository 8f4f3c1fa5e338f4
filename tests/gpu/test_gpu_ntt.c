/* GPU NTT (include/cuzk/gpu.h, NTT section) against the CPU backend
 * (include/cuzk/poly.h), bit for bit.
 *
 * For both conventions and all five transforms (the four, and the inverse
 * then coset forward of CUZK_GPU_NTT_TO_COSET), on fresh seeded random
 * inputs: every size 2^1 .. 2^12, then 2^16, 2^20, 2^21, 2^22, and forced
 * digit splits with the column passes that the automatic plan uses only at
 * 2^26 .. 2^28 (9 and 10 bits) at 2^19 and 2^21; edge inputs (one 1 among
 * zeros, all r - 1); round trips at sizes not compared otherwise; misuse.
 * Then the other pass-kernel variants (4 elements per thread; the FP64
 * shares 1 .. 4 of the 8-element kernels) at a few sizes each, and pass 1
 * with the full and with the positional twiddle table, and each of the
 * three with the coset table (8 and 4 elements per thread) at the sizes
 * and splits of the default.
 * Exit 77 (ctest: skipped) without a GPU. CUZK_TEST_QUICK=1 (for
 * compute-sanitizer) stops at 2^12. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuzk/gpu.h>
#include <cuzk/poly.h>

#include "gpu_test.h"

#define NAME "test_gpu_ntt"

static char gerr[CUZK_ERRMSG_LEN]; /* the last GPU call's message */
/* The pass kernels' variant of test_size's domains: elements per thread 0
 * (the default, 8) or 4, the FP64 share 0 (the default) .. 4, and pass 1's
 * twiddle table (full_twiddles: 0, the default, two small tables; 1 the
 * full table; 2 the positional one; plus 4, 8: the coset table, Shoup
 * pairs). */
static unsigned ept, f64, full;
static const char *tw_names[3] = {"2lvl", "full", "pos"}; /* full & 3 */

static const char *kind_names[5] = {"forward", "inverse", "coset_forward", "coset_inverse",
                                    "to_coset"};

static void cpu_ntt(const cuzk_ntt_domain *d, int kind, cuzk_fr *a)
{
    switch (kind) {
    case 0: cuzk_ntt_forward(d, a); break;
    case 1: cuzk_ntt_inverse(d, a); break;
    case 2: cuzk_ntt_coset_forward(d, a); break;
    case 3: cuzk_ntt_coset_inverse(d, a); break;
    default: /* CUZK_GPU_NTT_TO_COSET */
        cuzk_ntt_inverse(d, a);
        cuzk_ntt_coset_forward(d, a);
        break;
    }
}

/* A uniformly random reduced element (raw Montgomery limbs below r). */
static void rand_fr(cuzk_fr *x)
{
    for (;;) {
        for (int i = 0; i < 4; i++) x->l[i] = test_rand64();
        x->l[3] &= 0x7fffffffffffffffull;
        int lt = 0;
        for (int i = 3; i >= 0; i--)
            if (x->l[i] != CUZK_FR_MODULUS[i]) { lt = x->l[i] < CUZK_FR_MODULUS[i]; break; }
        if (lt) return;
    }
}

/* Compares GPU and CPU results of one transform of `in`; returns 1 if equal. */
static int compare_one(cuzk_gpu_ntt_domain *gd, const cuzk_ntt_domain *cd, int kind,
                       const cuzk_fr *in, size_t n, const char *what)
{
    cuzk_fr *want = malloc(n * sizeof *want), *got = malloc(n * sizeof *got);
    if (!want || !got) {
        CHECK_MSG(0, "out of memory");
        free(want);
        free(got);
        return 0;
    }
    memcpy(want, in, n * sizeof *want);
    memcpy(got, in, n * sizeof *got);
    cpu_ntt(cd, kind, want);
    cuzk_status st = cuzk_gpu_ntt_host(gd, (cuzk_gpu_ntt_kind)kind, got, gerr);
    CHECK_MSG(st == CUZK_OK, "%s n=%zu %s: %s (%s)", what, n, kind_names[kind], cuzk_strerror(st),
              gerr);
    size_t bad = 0, first = 0;
    for (size_t i = 0; i < n; i++)
        if (memcmp(&got[i], &want[i], sizeof got[i])) {
            if (!bad++) first = i;
        }
    CHECK_MSG(bad == 0, "%s n=%zu %s (%s): %zu of %zu differ, first at %zu", what, n,
              kind_names[kind], cuzk_ntt_roots(cd) == CUZK_ROOTS_SNARKJS ? "snarkjs" : "bellperson",
              bad, n, first);
    free(want);
    free(got);
    return bad == 0;
}

/* All four transforms of fresh random inputs at 2^log_n (split k1, 0 = auto). */
static void test_size(cuzk_gpu_ctx *ctx, unsigned log_n, cuzk_roots roots, unsigned k1)
{
    size_t n = (size_t)1 << log_n;
    cuzk_gpu_ntt_domain *gd = NULL;
    cuzk_ntt_domain *cd = NULL;
    cuzk_status st = k1 || ept || f64 || full
                         ? cuzk_gpu_ntt_domain_create_ex(&gd, ctx, log_n, roots, k1, ept, f64, full,
                                                         gerr)
                         : cuzk_gpu_ntt_domain_create(&gd, ctx, log_n, roots, gerr);
    CHECK_MSG(st == CUZK_OK, "gpu domain 2^%u k1 %u: %s (%s)", log_n, k1, cuzk_strerror(st),
              gerr);
    CHECK(cuzk_ntt_domain_create(&cd, log_n, roots, 0) == CUZK_OK);
    cuzk_fr *in = malloc(n * sizeof *in);
    if (st == CUZK_OK && cd && in) {
        CHECK(cuzk_gpu_ntt_size(gd) == n);
        int ok = 1;
        for (int kind = 0; kind < 5; kind++) {
            for (size_t i = 0; i < n; i++) rand_fr(&in[i]);
            ok &= compare_one(gd, cd, kind, in, n, k1 ? "forced split" : "random");
        }
        cuzk_gpu_ntt_info info;
        if (cuzk_gpu_ntt_get_info(gd, &info, gerr) == CUZK_OK && log_n >= 3) {
            CHECK(info.fp64_share == (int)f64 && info.elems_per_thread == (ept ? (int)ept : 8) &&
                  info.full_twiddles == (int)(full & 3) && info.coset_table == !!(full & 4) &&
                  info.shoup_tables == !!(full & 8));
            printf("%s: 2^%-2u %-10s split (%d, %d, %d), %d elements per thread, FP64 %d/4, "
                   "twiddles %s%s%s: %s\n", NAME, log_n,
                   roots == CUZK_ROOTS_SNARKJS ? "snarkjs" : "bellperson", info.k1, info.k2,
                   info.k1, info.elems_per_thread, info.fp64_share,
                   tw_names[info.full_twiddles], info.coset_table ? " + coset table" : "",
                   info.shoup_tables ? " as Shoup pairs" : "", ok ? "ok" : "MISMATCH");
        }
    }
    free(in);
    cuzk_ntt_domain_destroy(cd);
    cuzk_gpu_ntt_domain_destroy(gd);
}

/* 2^16, 2^20 and the tile shapes of 2^26 (9, 8, 9), 2^27 (10, 7, 10) and
 * 2^28 (10, 8, 10) at sizes a test affords: middle passes of 7 and 8 bits
 * at 2^21 (7, 7, 7) and 2^22 (7, 8, 7), column passes of 9 and 10 bits by
 * forced splits. */
static void test_shapes(cuzk_gpu_ctx *ctx, cuzk_roots roots)
{
    test_size(ctx, 16, roots, 0);
    test_size(ctx, 20, roots, 0);
    test_size(ctx, 21, roots, 0);
    test_size(ctx, 22, roots, 0);
    test_size(ctx, 19, roots, 9);
    test_size(ctx, 21, roots, 10);
}

/* One 1 among zeros (at 0, n - 1 and a random place), and all r - 1. */
static void test_edges(cuzk_gpu_ctx *ctx, unsigned log_n, cuzk_roots roots)
{
    size_t n = (size_t)1 << log_n;
    cuzk_gpu_ntt_domain *gd = NULL;
    cuzk_ntt_domain *cd = NULL;
    CHECK(cuzk_gpu_ntt_domain_create(&gd, ctx, log_n, roots, gerr) == CUZK_OK);
    CHECK(cuzk_ntt_domain_create(&cd, log_n, roots, 0) == CUZK_OK);
    cuzk_fr *in = malloc(n * sizeof *in);
    if (gd && cd && in) {
        size_t where[3] = {0, n - 1, (size_t)(test_rand64() % n)};
        for (int w = 0; w < 3; w++) {
            memset(in, 0, n * sizeof *in);
            in[where[w]] = CUZK_FR_ONE;
            for (int kind = 0; kind < 5; kind++) compare_one(gd, cd, kind, in, n, "one-hot");
        }
        cuzk_fr m1;
        cuzk_fr_neg(&m1, &CUZK_FR_ONE);
        for (size_t i = 0; i < n; i++) in[i] = m1;
        for (int kind = 0; kind < 5; kind++) compare_one(gd, cd, kind, in, n, "all r-1");
    }
    free(in);
    cuzk_ntt_domain_destroy(cd);
    cuzk_gpu_ntt_domain_destroy(gd);
}

/* inverse(forward(x)) = x and coset_inverse(coset_forward(x)) = x, GPU only. */
static void test_roundtrip(cuzk_gpu_ctx *ctx, unsigned log_n, cuzk_roots roots)
{
    size_t n = (size_t)1 << log_n;
    cuzk_gpu_ntt_domain *gd = NULL;
    CHECK(cuzk_gpu_ntt_domain_create(&gd, ctx, log_n, roots, gerr) == CUZK_OK);
    cuzk_fr *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
    if (gd && x && y) {
        for (int coset = 0; coset < 2; coset++) {
            for (size_t i = 0; i < n; i++) rand_fr(&x[i]);
            memcpy(y, x, n * sizeof *x);
            CHECK(cuzk_gpu_ntt_host(gd, coset ? CUZK_GPU_NTT_COSET_FORWARD : CUZK_GPU_NTT_FORWARD,
                                    y, gerr) == CUZK_OK);
            CHECK(memcmp(x, y, n * sizeof *x) != 0);
            CHECK(cuzk_gpu_ntt_host(gd, coset ? CUZK_GPU_NTT_COSET_INVERSE : CUZK_GPU_NTT_INVERSE,
                                    y, gerr) == CUZK_OK);
            CHECK_MSG(memcmp(x, y, n * sizeof *x) == 0, "round trip 2^%u %s%s", log_n,
                      coset ? "coset " : "", roots == CUZK_ROOTS_SNARKJS ? "snarkjs" : "bellperson");
        }
    }
    free(x);
    free(y);
    cuzk_gpu_ntt_domain_destroy(gd);
}

static void test_misuse(cuzk_gpu_ctx *ctx)
{
    cuzk_gpu_ntt_domain *gd = (cuzk_gpu_ntt_domain *)&gd;
    CHECK(cuzk_gpu_ntt_domain_create(&gd, ctx, 0, CUZK_ROOTS_SNARKJS, gerr) ==
          CUZK_ERR_INVALID_ARGUMENT && strncmp(gerr, "gpu: ", 5) == 0);
    CHECK(gd == NULL);
    CHECK(cuzk_gpu_ntt_domain_create(&gd, ctx, 29, CUZK_ROOTS_SNARKJS, gerr) ==
          CUZK_ERR_INVALID_ARGUMENT);
    CHECK(cuzk_gpu_ntt_domain_create(&gd, ctx, 10, (cuzk_roots)3, gerr) ==
          CUZK_ERR_INVALID_ARGUMENT);
    CHECK(cuzk_gpu_ntt_domain_create(&gd, NULL, 10, CUZK_ROOTS_SNARKJS, gerr) ==
          CUZK_ERR_INVALID_ARGUMENT);
    CHECK(cuzk_gpu_ntt_domain_create(NULL, ctx, 10, CUZK_ROOTS_SNARKJS, NULL) ==
          CUZK_ERR_INVALID_ARGUMENT);
    /* The variant is 8 or 4 elements per thread; the FP64 share 0 .. 4, and
     * above 0 only with 8. */
    CHECK(cuzk_gpu_ntt_domain_create_ex(&gd, ctx, 12, CUZK_ROOTS_SNARKJS, 0, 2, 0, 0, gerr) ==
          CUZK_ERR_INVALID_ARGUMENT);
    CHECK(cuzk_gpu_ntt_domain_create_ex(&gd, ctx, 12, CUZK_ROOTS_SNARKJS, 0, 0, 5, 0, gerr) ==
          CUZK_ERR_INVALID_ARGUMENT && strstr(gerr, "FP64 share"));
    CHECK(cuzk_gpu_ntt_domain_create_ex(&gd, ctx, 12, CUZK_ROOTS_SNARKJS, 0, 4, 2, 0, gerr) ==
          CUZK_ERR_INVALID_ARGUMENT);
    /* full twiddles: 0, 1 or 2, plus 4 for the coset table, and above 0
     * only with FP64 share 0 */
    CHECK(cuzk_gpu_ntt_domain_create_ex(&gd, ctx, 12, CUZK_ROOTS_SNARKJS, 0, 0, 0, 3, gerr) ==
          CUZK_ERR_INVALID_ARGUMENT && strstr(gerr, "full twiddles"));
    CHECK(cuzk_gpu_ntt_domain_create_ex(&gd, ctx, 12, CUZK_ROOTS_SNARKJS, 0, 0, 0, 7, gerr) ==
          CUZK_ERR_INVALID_ARGUMENT && strstr(gerr, "full twiddles"));
    CHECK(cuzk_gpu_ntt_domain_create_ex(&gd, ctx, 12, CUZK_ROOTS_SNARKJS, 0, 0, 0, 8, gerr) ==
          CUZK_ERR_INVALID_ARGUMENT && strstr(gerr, "full twiddles"));
    CHECK(cuzk_gpu_ntt_domain_create_ex(&gd, ctx, 12, CUZK_ROOTS_SNARKJS, 0, 8, 1, 4, gerr) ==
          CUZK_ERR_INVALID_ARGUMENT && strstr(gerr, "full twiddles"));
    CHECK(cuzk_gpu_ntt_domain_create_ex(&gd, ctx, 12, CUZK_ROOTS_SNARKJS, 0, 0, 1, 1, gerr) ==
          CUZK_ERR_INVALID_ARGUMENT && strstr(gerr, "full twiddles"));
    CHECK(cuzk_gpu_ntt_domain_create_ex(&gd, ctx, 12, CUZK_ROOTS_SNARKJS, 0, 8, 4, 1, gerr) ==
          CUZK_ERR_INVALID_ARGUMENT);
    CHECK(cuzk_gpu_ntt_domain_create_ex(&gd, ctx, 12, CUZK_ROOTS_SNARKJS, 0, 8, 2, 2, gerr) ==
          CUZK_ERR_INVALID_ARGUMENT && strstr(gerr, "full twiddles"));
    /* Shoup pairs (+ 8): with the full table and 8 elements per thread only */
    static const unsigned no_sh[4][2] = {{10, 0}, {12, 0}, {14, 0}, {9, 4}};
    for (int i = 0; i < 4; i++)
        CHECK(cuzk_gpu_ntt_domain_create_ex(&gd, ctx, 12, CUZK_ROOTS_SNARKJS, 0, no_sh[i][1], 0,
                                            no_sh[i][0], gerr) == CUZK_ERR_INVALID_ARGUMENT &&
              strstr(gerr, "full twiddles"));
    CHECK(gd == NULL);
    /* splits: 12 = 4 + 4 + 4 is fine, 12 = 6 + 0 + 6 and 12 = 1 + 10 + 1 are not */
    CHECK(cuzk_gpu_ntt_domain_create_ex(&gd, ctx, 12, CUZK_ROOTS_SNARKJS, 6, 0, 0, 0, gerr) ==
          CUZK_ERR_INVALID_ARGUMENT);
    CHECK(cuzk_gpu_ntt_domain_create_ex(&gd, ctx, 12, CUZK_ROOTS_SNARKJS, 1, 0, 0, 0, gerr) ==
          CUZK_ERR_INVALID_ARGUMENT);
    /* k1 = 0, elems_per_thread = 0 and fp64_share = 0: the defaults */
    CHECK(cuzk_gpu_ntt_domain_create_ex(&gd, ctx, 12, CUZK_ROOTS_SNARKJS, 0, 0, 0, 0, gerr) ==
          CUZK_OK);
    cuzk_gpu_ntt_info di;
    memset(&di, 0xff, sizeof di);
    CHECK(cuzk_gpu_ntt_get_info(gd, &di, gerr) == CUZK_OK && di.elems_per_thread == 8 &&
          di.fp64_share == 0 && di.full_twiddles == 0);
    size_t bytes_2lvl = di.table_bytes;
    cuzk_gpu_ntt_domain_destroy(gd);
    gd = NULL;
    /* the full and the positional table: n more elements of tables each */
    for (unsigned tw = 1; tw <= 2; tw++) {
        CHECK(cuzk_gpu_ntt_domain_create_ex(&gd, ctx, 12, CUZK_ROOTS_SNARKJS, 0, 4, 0, tw,
                                            gerr) == CUZK_OK);
        memset(&di, 0xff, sizeof di);
        CHECK(cuzk_gpu_ntt_get_info(gd, &di, gerr) == CUZK_OK && di.elems_per_thread == 4 &&
              di.full_twiddles == (int)tw &&
              di.table_bytes == bytes_2lvl + 4096 * sizeof(cuzk_fr));
        cuzk_gpu_ntt_domain_destroy(gd);
        gd = NULL;
    }
    /* the coset table: n + 1 elements more, and the scaled copy of the
     * table that holds 1/n (d_i of 2^(12-4) entries with the full table,
     * and its 2^(12-4) Shoup pairs; whi_i of 2^(12-6) otherwise); 9 and 13:
     * the n-entry tables as pairs, twice their elements */
    static const unsigned coset_modes[5] = {4, 5, 6, 9, 13};
    for (int i = 0; i < 5; i++) {
        const unsigned tw = coset_modes[i], c = tw & 4 ? 1 : 0, sh = tw & 8 ? 2 : 1;
        CHECK(cuzk_gpu_ntt_domain_create_ex(&gd, ctx, 12, CUZK_ROOTS_SNARKJS, 0, 0, 0, tw,
                                            gerr) == CUZK_OK);
        memset(&di, 0xff, sizeof di);
        size_t more = sh * ((tw & 3 ? 4096 : 0) + (c ? 4097 : 0)) +
                      (c ? ((tw & 3) == 1 ? 3 * 256 : 64) : 0);
        CHECK(cuzk_gpu_ntt_get_info(gd, &di, gerr) == CUZK_OK &&
              di.full_twiddles == (int)(tw & 3) && di.coset_table == (int)c &&
              di.shoup_tables == (sh == 2) &&
              di.table_bytes == bytes_2lvl + more * sizeof(cuzk_fr));
        cuzk_gpu_ntt_domain_destroy(gd);
        gd = NULL;
    }
    CHECK(cuzk_gpu_ntt_domain_create_ex(&gd, ctx, 12, CUZK_ROOTS_SNARKJS, 4, 0, 0, 0, gerr) ==
          CUZK_OK);
    cuzk_fr x[4096];
    memset(x, 0, sizeof x);
    CHECK(cuzk_gpu_ntt_host(gd, (cuzk_gpu_ntt_kind)5, x, gerr) == CUZK_ERR_INVALID_ARGUMENT);
    CHECK(cuzk_gpu_ntt_host(NULL, CUZK_GPU_NTT_FORWARD, x, gerr) == CUZK_ERR_INVALID_ARGUMENT);
    CHECK(cuzk_gpu_ntt_host(gd, CUZK_GPU_NTT_FORWARD, NULL, gerr) == CUZK_ERR_INVALID_ARGUMENT);
    CHECK(cuzk_gpu_ntt(gd, 0, CUZK_GPU_NTT_FORWARD, NULL, gerr) == CUZK_ERR_INVALID_ARGUMENT);
    CHECK(cuzk_gpu_ntt(gd, 0, CUZK_GPU_NTT_FORWARD, (cuzk_fr *)(uintptr_t)8, gerr) ==
          CUZK_ERR_INVALID_ARGUMENT); /* misaligned */
    CHECK(cuzk_gpu_ntt_size(NULL) == 0);
    cuzk_gpu_ntt_info info;
    memset(&info, 0, sizeof info);
    CHECK(cuzk_gpu_ntt_get_info(gd, &info, gerr) == CUZK_OK);
    cuzk_gpu_ntt_domain_destroy(gd);
    cuzk_gpu_ntt_domain_destroy(NULL);
    /* a pool with room for a 2^12 domain's tables but not for the host
     * convenience's 2^12 elements (128 KiB) */
    cuzk_gpu_ctx *small = NULL;
    cuzk_gpu_ctx_opts so = {0, ((info.table_bytes + 255) & ~(size_t)255) + (64 << 10), 1};
    CHECK(cuzk_gpu_ctx_create(&small, &so, gerr) == CUZK_OK);
    if (small) {
        gd = NULL;
        CHECK(cuzk_gpu_ntt_domain_create(&gd, small, 12, CUZK_ROOTS_BELLPERSON, gerr) ==
              CUZK_OK);
        CHECK(cuzk_gpu_ntt_host(gd, CUZK_GPU_NTT_FORWARD, x, gerr) == CUZK_ERR_NO_MEMORY);
        cuzk_gpu_ntt_domain_destroy(gd);
        cuzk_gpu_ctx_destroy(small);
    }
}

int main(void)
{
    int skip = gpu_test_start(NAME);
    if (skip) return skip;
    const char *q = getenv("CUZK_TEST_QUICK");
    int quick = q && *q && *q != '0';

    /* Pool: 1 GiB, for the domains and the host convenience's data. */
    cuzk_gpu_ctx *ctx = NULL;
    cuzk_gpu_ctx_opts o = {0, (size_t)1 << 30, 1};
    cuzk_status st = cuzk_gpu_ctx_create(&ctx, &o, gerr);
    CHECK_MSG(st == CUZK_OK, "ctx_create: %s (%s)", cuzk_strerror(st), gerr);
    if (st != CUZK_OK) return test_done(NAME);

    static const cuzk_roots conv[2] = {CUZK_ROOTS_BELLPERSON, CUZK_ROOTS_SNARKJS};
    for (int c = 0; c < 2; c++) {
        for (unsigned L = 1; L <= 12; L++) test_size(ctx, L, conv[c], 0);
        test_edges(ctx, 5, conv[c]);
        test_edges(ctx, 11, conv[c]);
        test_roundtrip(ctx, 2, conv[c]);
        test_roundtrip(ctx, 10, conv[c]);
        if (quick) continue;
        test_shapes(ctx, conv[c]);
        test_edges(ctx, 16, conv[c]);
        test_roundtrip(ctx, 13, conv[c]);
        test_roundtrip(ctx, 17, conv[c]);
    }
    /* The 4-elements-per-thread pass kernels. */
    ept = 4;
    test_size(ctx, 12, CUZK_ROOTS_BELLPERSON, 0);
    if (!quick) {
        test_size(ctx, 16, CUZK_ROOTS_SNARKJS, 0);
        test_size(ctx, 21, CUZK_ROOTS_BELLPERSON, 0);
    }
    ept = 0;
    /* The FP64 shares (8 elements per thread): every size up to 2^12, then
     * the tile shapes. */
    for (f64 = 1; f64 <= 4; f64++) {
        const cuzk_roots r = conv[f64 % 2];
        for (unsigned L = 3; L <= 12; L++) test_size(ctx, L, r, 0);
        if (!quick) test_shapes(ctx, r);
    }
    f64 = 0;
    /* Pass 1 from the full and from the positional twiddle table, and each
     * of the three with the coset table (full + 4), both variants; the
     * full table without and with the coset table as Shoup pairs (+ 8), 8
     * elements per thread: the default's sizes and splits with 8 elements
     * per thread, a few with 4. */
    static const unsigned modes[] = {1, 2, 4, 5, 6, 9, 13};
    for (size_t mi = 0; mi < sizeof modes / sizeof modes[0]; mi++) {
        full = modes[mi];
        for (int c = 0; c < 2; c++) {
            for (unsigned L = 1; L <= 12; L++) test_size(ctx, L, conv[c], 0);
            if (!quick) test_shapes(ctx, conv[c]);
        }
        if (full & 8) continue;
        ept = 4;
        for (unsigned L = 3; L <= 12; L++) test_size(ctx, L, conv[L % 2], 0);
        if (!quick) {
            test_size(ctx, 16, CUZK_ROOTS_SNARKJS, 0);
            test_size(ctx, 21, CUZK_ROOTS_BELLPERSON, 0);
            test_size(ctx, 21, CUZK_ROOTS_SNARKJS, 10);
        }
        ept = 0;
    }
    full = 0;
    test_misuse(ctx);
    cuzk_gpu_ctx_destroy(ctx);
    return test_done(NAME);
}
