/* GPU PCE evaluation (cuzk_gpu_pce_eval) against the CPU (cuzk_pce_eval).
 *
 * The random shapes of tests/test_pce_gen.h (row lengths at the limits of
 * the length fields, long rows, one huge row, every coefficient class,
 * escapes, systems without C, 2^20 columns), each with a witness of zeros,
 * ones and random values, evaluated plain and with the bit bitmaps; and a
 * real circuit (porep-32g of circuits.h at 2^16 constraints: SHA-256 and
 * Merkle rows) with its witness. Then misuse.
 *
 * CUZK_TEST_QUICK=1 keeps sizes small (for compute-sanitizer). Exit 77
 * (ctest: skipped) without a GPU. Replay with CUZK_SEED=<n>. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuzk/circuits.h>
#include <cuzk/gpu.h>
#include <cuzk/pce.h>
#include <cuzk/r1cs.h>

#include "gpu_test.h"
#include "test_pce_gen.h"

#define NAME "test_gpu_spmv"

static cuzk_gpu_ctx *ctx;
static char gerr[CUZK_ERRMSG_LEN]; /* the last GPU call's message */

/* CPU and GPU on p with witness wit; a, b, c compared. */
static void compare(const cuzk_pce *p, const cuzk_pce_witness *wit, const char *what)
{
    char err[CUZK_ERRMSG_LEN];
    uint64_t n = p->n_rows ? p->n_rows : 1;
    int has_c = (p->flags & CUZK_PCE_HAS_C) != 0;
    cuzk_fr *want = malloc(3 * n * sizeof *want), *got = malloc(3 * n * sizeof *got);
    if (!want || !got) {
        CHECK_MSG(0, "out of memory");
        free(want);
        free(got);
        return;
    }
    memset(got, 0xa5, 3 * n * sizeof *got); /* poison */
    cuzk_status st = cuzk_pce_eval(p, wit, want, want + n, has_c ? want + 2 * n : NULL, 0, err);
    CHECK_MSG(st == CUZK_OK, "%s: cpu eval: %s", what, err);
    cuzk_gpu_pce *d = NULL;
    st = cuzk_gpu_pce_create(&d, ctx, p, gerr);
    CHECK_MSG(st == CUZK_OK, "%s: gpu pce: %s (%s)", what, cuzk_strerror(st), gerr);
    if (st == CUZK_OK) {
        float ms[1];
        st = cuzk_gpu_pce_eval_host(d, wit, got, got + n, has_c ? got + 2 * n : NULL, 1, ms,
                                    gerr);
        CHECK_MSG(st == CUZK_OK, "%s: gpu eval: %s (%s)", what, cuzk_strerror(st),
                  gerr);
        if (st == CUZK_OK)
            for (int k = 0; k < 2 + has_c; k++) {
                uint64_t bad = p->n_rows;
                for (uint64_t r = 0; r < p->n_rows && bad == p->n_rows; r++)
                    if (memcmp(&want[k * n + r], &got[k * n + r], sizeof(cuzk_fr))) bad = r;
                CHECK_MSG(bad == p->n_rows, "%s: matrix %c row %llu: GPU differs from CPU", what,
                          "ABC"[k], (unsigned long long)bad);
            }
        cuzk_gpu_pce_destroy(d);
    }
    free(want);
    free(got);
}

static void test_shapes(int quick)
{
    char err[CUZK_ERRMSG_LEN];
    for (size_t i = 0; i < PCE_TEST_SHAPES_N; i++) {
        const shape *sh = &PCE_TEST_SHAPES[i].sh;
        const char *name = PCE_TEST_SHAPES[i].name;
        if (sh->n_rows == 0 || (quick && sh->n_rows > 5000)) continue; /* no empty PCE on the GPU */
        cuzk_matrices m;
        gen_matrices(&m, sh);
        cuzk_pce p;
        cuzk_status st = cuzk_pce_compile(&p, &m, sh->n_inputs, sh->n_aux, 0, 0, err);
        CHECK_MSG(st == CUZK_OK, "%s: compile: %s", name, err);
        cuzk_pce_matrices_free(&m);
        if (st != CUZK_OK) continue;
        uint64_t n = sh->n_inputs + sh->n_aux, words = n / 64 + 1;
        cuzk_fr *w = malloc(n * sizeof *w);
        uint64_t *is_bit = malloc(words * 8), *bit_val = malloc(words * 8);
        gen_witness(w, is_bit, bit_val, n, 0);
        cuzk_pce_witness wit = {w, n, NULL, NULL};
        compare(&p, &wit, name);
        wit.is_bit = is_bit;
        wit.bit_val = bit_val;
        compare(&p, &wit, name);
        free(w);
        free(is_bit);
        free(bit_val);
        cuzk_pce_free(&p);
        printf("  %s: done (%d failures so far)\n", name, test_failures);
    }
}

/* porep-32g at 2^16: the bits of the witness as bitmaps (the split form). */
static void test_circuit(void)
{
    char err[CUZK_ERRMSG_LEN];
    cuzk_circuit *c = NULL;
    cuzk_matrices m = {0};
    cuzk_cs_shape shp;
    cuzk_cs cs;
    memset(&cs, 0, sizeof cs);
    char *json = NULL;
    cuzk_pce p = {0};
    cuzk_status st = cuzk_circuit_open(&c, "porep-32g", 16, err);
    if (st == CUZK_OK) st = cuzk_circuit_record(c, &m, &shp, err);
    if (st == CUZK_OK)
        st = cuzk_pce_compile(&p, &m, shp.n_inputs, shp.n_aux, CUZK_PCE_INPUT_ROWS, 0, err);
    if (st == CUZK_OK) st = cuzk_circuit_inputs_json(c, 7, 0, &json, err);
    if (st == CUZK_OK) st = cuzk_circuit_witness(c, json, strlen(json), &cs, 0, err);
    CHECK_MSG(st == CUZK_OK, "porep-32g: %s", err);
    if (st == CUZK_OK) {
        size_t n = (size_t)p.n_cols, words = (n + 63) / 64;
        cuzk_fr *w = calloc(n, sizeof *w);
        uint64_t *is_bit = malloc(words * 8), *bit_val = malloc(words * 8);
        st = cuzk_cs_witness_split(&cs, w, is_bit, bit_val, n);
        CHECK(st == CUZK_OK);
        cuzk_pce_witness wit = {w, n, is_bit, bit_val};
        if (st == CUZK_OK) compare(&p, &wit, "porep-32g 2^16, bits");
        st = cuzk_cs_witness(&cs, w, n);
        CHECK(st == CUZK_OK);
        wit.is_bit = wit.bit_val = NULL;
        if (st == CUZK_OK) compare(&p, &wit, "porep-32g 2^16, dense");
        free(w);
        free(is_bit);
        free(bit_val);
    }
    cuzk_cs_free(&cs);
    free(json);
    cuzk_pce_free(&p);
    cuzk_matrices_free(&m);
    cuzk_circuit_close(c);
    printf("  porep-32g: done (%d failures so far)\n", test_failures);
}

static void test_misuse(void)
{
    char err[CUZK_ERRMSG_LEN];
    shape sh = {300, 2, 100, 0, 1, 0, 0}; /* no C */
    cuzk_matrices m;
    gen_matrices(&m, &sh);
    cuzk_pce p;
    if (cuzk_pce_compile(&p, &m, sh.n_inputs, sh.n_aux, 0, 0, err) != CUZK_OK) {
        CHECK_MSG(0, "compile: %s", err);
        cuzk_pce_matrices_free(&m);
        return;
    }
    cuzk_pce_matrices_free(&m);
    cuzk_gpu_pce *d = NULL;
    CHECK(cuzk_gpu_pce_create(NULL, ctx, &p, gerr) == CUZK_ERR_INVALID_ARGUMENT);
    CHECK(cuzk_gpu_pce_create(&d, NULL, &p, gerr) == CUZK_ERR_INVALID_ARGUMENT);
    if (cuzk_gpu_pce_create(&d, ctx, &p, gerr) == CUZK_OK) {
        CHECK(cuzk_gpu_pce_device_bytes(d) >= p.image_size / 2);
        size_t n = sh.n_inputs + sh.n_aux;
        cuzk_fr *w = calloc(n, sizeof *w), *o = calloc(3 * sh.n_rows, sizeof *o);
        uint64_t bm[8] = {0};
        cuzk_pce_witness wit = {w, n, NULL, NULL};
        /* c without a C matrix; wrong witness length; bit_val without is_bit */
        CHECK(cuzk_gpu_pce_eval_host(d, &wit, o, o + sh.n_rows, o + 2 * sh.n_rows, 0, NULL,
                                     gerr) ==
              CUZK_ERR_INVALID_ARGUMENT);
        wit.n_w = n - 1;
        CHECK(cuzk_gpu_pce_eval_host(d, &wit, o, NULL, NULL, 0, NULL, gerr) ==
              CUZK_ERR_INVALID_ARGUMENT);
        wit.n_w = n;
        wit.bit_val = bm;
        CHECK(cuzk_gpu_pce_eval_host(d, &wit, o, NULL, NULL, 0, NULL, gerr) ==
              CUZK_ERR_INVALID_ARGUMENT);
        wit.bit_val = NULL;
        CHECK(cuzk_gpu_pce_eval_host(d, &wit, o, NULL, NULL, 0, NULL, gerr) == CUZK_OK);
        free(w);
        free(o);
        cuzk_gpu_pce_destroy(d);
    } else {
        CHECK_MSG(0, "create: %s", gerr);
    }
    cuzk_gpu_pce_destroy(NULL);
    cuzk_pce_free(&p);
}

int main(void)
{
    int skip = gpu_test_start(NAME);
    if (skip) return skip;
    cuzk_status st = cuzk_gpu_ctx_create(&ctx, NULL, gerr);
    if (st != CUZK_OK) {
        fprintf(stderr, "%s: context: %s (%s)\n", NAME, cuzk_strerror(st), gerr);
        return 1;
    }
    int quick = getenv("CUZK_TEST_QUICK") != NULL;
    test_misuse();
    test_shapes(quick);
    if (!quick) test_circuit();
    cuzk_gpu_ctx_destroy(ctx);
    return test_done(NAME);
}
