/* Tests of the constraint-system core (include/cuzk/r1cs.h): wire order,
 * bit-aware storage, canonical rows, the coefficient dictionary, the two
 * modes against each other, fixed-shape buffers, sticky errors. */
#include <stdlib.h>
#include <string.h>

#include <cuzk/r1cs.h>

#include "test_util.h"

static cuzk_fr fr_u64(uint64_t v)
{
    cuzk_fr r;
    cuzk_fr_from_u64(&r, v);
    return r;
}

/* Checks the witness of cs against the system r (cuzk_r1cs_check). */
static cuzk_status check_witness(const cuzk_r1cs *r, const cuzk_cs *cs, uint64_t *bad)
{
    size_t n = (size_t)cs->n_inputs + cs->n_aux;
    cuzk_fr *w = malloc(n * sizeof *w);
    if (!w) return CUZK_ERR_NO_MEMORY;
    cuzk_status s = cuzk_cs_witness(cs, w, n);
    if (s == CUZK_OK) s = cuzk_r1cs_check(r, w, n, bad, NULL);
    free(w);
    return s;
}

/* ------------------------------------------------------------------------
 * A small circuit that interleaves inputs, bits and field variables:
 *   x (aux), b (bit), y = x^3 + b x + 5 (input, allocated late), z = x b.
 */
static void cubic(cuzk_cs *cs, uint64_t xv, unsigned bv)
{
    cuzk_fr x = fr_u64(xv), x2, x3, y, bx;
    cuzk_var vx = cuzk_cs_alloc(cs, &x);
    cuzk_var vb = cuzk_cs_alloc_bit(cs, bv);
    if (cuzk_cs_recording(cs)) { /* b (1 - b) = 0 */
        cuzk_cs_begin(cs);
        cuzk_cs_term(cs, CUZK_A, vb, CUZK_COEFF_ONE);
        cuzk_cs_term(cs, CUZK_B, CUZK_VAR_ONE, CUZK_COEFF_ONE);
        cuzk_cs_term(cs, CUZK_B, vb, CUZK_COEFF_MINUS_ONE);
        cuzk_cs_end(cs);
    }
    cuzk_fr_sqr(&x2, &x);
    cuzk_var v2 = cuzk_cs_alloc(cs, &x2);
    if (cuzk_cs_recording(cs)) { /* x x = x2, with an LC */
        cuzk_term ta[2], tb[2], tc[2];
        cuzk_lc a = CUZK_LC_INIT(ta), b = CUZK_LC_INIT(tb), c = CUZK_LC_INIT(tc);
        cuzk_lc_add(&a, vx, CUZK_COEFF_ONE);
        cuzk_lc_add(&b, vx, CUZK_COEFF_ONE);
        cuzk_lc_add(&c, v2, CUZK_COEFF_ONE);
        cuzk_cs_enforce(cs, &a, &b, &c);
    }
    cuzk_fr_mul(&x3, &x2, &x);
    bx = bv ? x : CUZK_FR_ZERO;
    cuzk_var vz = cuzk_cs_alloc(cs, &bx);
    if (cuzk_cs_recording(cs)) { /* x b = z, written with repeated terms that merge */
        cuzk_cs_begin(cs);
        cuzk_cs_term(cs, CUZK_A, vx, cuzk_cs_coeff_i64(cs, 3));
        cuzk_cs_term(cs, CUZK_A, vx, cuzk_cs_coeff_i64(cs, -2)); /* 3x - 2x = x */
        cuzk_cs_term(cs, CUZK_B, vb, CUZK_COEFF_ONE);
        cuzk_cs_term(cs, CUZK_B, vx, CUZK_COEFF_ONE);
        cuzk_cs_term(cs, CUZK_B, vx, CUZK_COEFF_MINUS_ONE); /* cancels: dropped */
        cuzk_cs_term(cs, CUZK_C, vz, CUZK_COEFF_ONE);
        cuzk_cs_end(cs);
    }
    cuzk_fr_add(&y, &x3, &bx);
    cuzk_fr five = fr_u64(5);
    cuzk_fr_add(&y, &y, &five);
    cuzk_var vy = cuzk_cs_alloc_input(cs, &y);
    if (cuzk_cs_recording(cs)) { /* x2 x = y - z - 5 */
        cuzk_cs_begin(cs);
        cuzk_cs_term(cs, CUZK_A, v2, CUZK_COEFF_ONE);
        cuzk_cs_term(cs, CUZK_B, vx, CUZK_COEFF_ONE);
        cuzk_cs_term(cs, CUZK_C, vy, CUZK_COEFF_ONE);
        cuzk_cs_term(cs, CUZK_C, vz, CUZK_COEFF_MINUS_ONE);
        cuzk_cs_term(cs, CUZK_C, CUZK_VAR_ONE, cuzk_cs_coeff_i64(cs, -5));
        cuzk_cs_end(cs);
    }
}

static void test_cubic(void)
{
    cuzk_cs rec, wit;
    CHECK(cuzk_cs_init(&rec, CUZK_CS_RECORD | CUZK_CS_CHECK, NULL) == CUZK_OK);
    cubic(&rec, 7, 1);
    CHECK(cuzk_cs_status(&rec, NULL) == CUZK_OK);
    cuzk_cs_shape sh;
    cuzk_cs_get_shape(&rec, &sh);
    CHECK(sh.n_inputs == 2 && sh.n_aux == 4 && sh.n_aux_bits == 1 && sh.n_aux_fields == 3);
    CHECK(sh.n_constraints == 4);
    cuzk_r1cs r;
    CHECK(cuzk_cs_take_r1cs(&rec, &r) == CUZK_OK);
    cuzk_cs_free(&rec);
    CHECK(r.n_wires == 6 && r.n_pub_in == 1 && r.n_public == 1 && r.n_constraints == 4);
    /* wires: 0 ONE, 1 y (input, allocated last), then x=2, b=3, x2=4, z=5 */
    const cuzk_sparse *A = &r.m.a, *B = &r.m.b, *C = &r.m.c;
    /* row 2: A = x (merged 3x - 2x: coefficient 1), B = b only */
    CHECK(A->row_start[3] - A->row_start[2] == 1 && A->wire[A->row_start[2]] == 2 &&
          A->coeff[A->row_start[2]] == CUZK_COEFF_ONE);
    CHECK(B->row_start[3] - B->row_start[2] == 1 && B->wire[B->row_start[2]] == 3);
    /* row 3: C = -5 ONE + y - z, sorted by wire */
    uint64_t k = C->row_start[3];
    CHECK(C->row_start[4] - k == 3 && C->wire[k] == 0 && C->wire[k + 1] == 1 && C->wire[k + 2] == 5);
    CHECK(C->coeff[k + 1] == CUZK_COEFF_ONE && C->coeff[k + 2] == CUZK_COEFF_MINUS_ONE);
    cuzk_fr m5 = fr_u64(5);
    cuzk_fr_neg(&m5, &m5);
    CHECK(C->coeff[k] < r.m.n_coeffs && cuzk_fr_eq(&r.m.coeffs[C->coeff[k]], &m5));
    CHECK(cuzk_fr_is_one(&r.m.coeffs[CUZK_COEFF_ONE]));
    /* every row sorted by strictly increasing wire */
    int sorted = 1;
    const cuzk_sparse *ms[3] = {A, B, C};
    for (int m = 0; m < 3; m++)
        for (uint64_t j = 0; j < r.m.n_rows; j++)
            for (uint64_t t = ms[m]->row_start[j] + 1; t < ms[m]->row_start[j + 1]; t++)
                sorted &= ms[m]->wire[t - 1] < ms[m]->wire[t];
    CHECK(sorted);

    /* witness mode, other inputs, fixed shape: satisfies the recorded system */
    for (uint64_t x = 0; x < 6; x++)
        for (unsigned b = 0; b < 2; b++) {
            CHECK(cuzk_cs_init(&wit, CUZK_CS_WITNESS, &sh) == CUZK_OK);
            cubic(&wit, x * 1000003 + 1, b);
            CHECK(cuzk_cs_status(&wit, NULL) == CUZK_OK);
            uint64_t bad;
            CHECK(check_witness(&r, &wit, &bad) == CUZK_OK);
            /* a wrong value is caught: y, then x2 */
            wit.inputs[1] = fr_u64(x + 123);
            CHECK(check_witness(&r, &wit, &bad) == CUZK_ERR_UNSATISFIED && bad == 3);
            cuzk_cs_reset(&wit);
            cubic(&wit, x, b);
            wit.fields[1] = fr_u64(x * x + 1);
            CHECK(check_witness(&r, &wit, &bad) == CUZK_ERR_UNSATISFIED && bad == 1);
            /* the bit holds 1 for 0: caught by b (1 - b) = 0 or x b = z */
            cuzk_cs_reset(&wit);
            cubic(&wit, x + 2, b);
            wit.bits[0] ^= 1;
            CHECK(check_witness(&r, &wit, &bad) == CUZK_ERR_UNSATISFIED);
            cuzk_cs_free(&wit);
        }
    cuzk_r1cs_free(&r);
}

/* ------------------------------------------------------------------------
 * Many variables: growth past the first buffers, the layout of bits and
 * fields, the dense witness against the view, reset without reallocation.
 */
static void many(cuzk_cs *cs, uint64_t seed, uint32_t n)
{
    uint64_t s = seed;
    for (uint32_t i = 0; i < n; i++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        unsigned kind = (unsigned)(s >> 61) % 3; /* 0, 1: bit; 2: field */
        if (kind < 2) {
            cuzk_var v = cuzk_cs_alloc_bit(cs, (unsigned)(s >> 40) & 1);
            if (cuzk_cs_recording(cs)) { /* v v = v */
                cuzk_cs_begin(cs);
                cuzk_cs_term(cs, CUZK_A, v, CUZK_COEFF_ONE);
                cuzk_cs_term(cs, CUZK_B, v, CUZK_COEFF_ONE);
                cuzk_cs_term(cs, CUZK_C, v, CUZK_COEFF_ONE);
                cuzk_cs_end(cs);
            }
        } else {
            cuzk_fr x = fr_u64(s >> 8), one = CUZK_FR_ONE;
            cuzk_var v = cuzk_cs_alloc(cs, &x);
            cuzk_fr_add(&x, &x, &one);
            cuzk_var u = cuzk_cs_alloc(cs, &x);
            if (cuzk_cs_recording(cs)) { /* (v + 1) 1 = u */
                cuzk_cs_begin(cs);
                cuzk_cs_term(cs, CUZK_A, v, CUZK_COEFF_ONE);
                cuzk_cs_term(cs, CUZK_A, CUZK_VAR_ONE, CUZK_COEFF_ONE);
                cuzk_cs_term(cs, CUZK_B, CUZK_VAR_ONE, CUZK_COEFF_ONE);
                cuzk_cs_term(cs, CUZK_C, u, CUZK_COEFF_ONE);
                cuzk_cs_end(cs);
            }
        }
    }
}

static void test_many(void)
{
    const uint32_t n = 20000;
    cuzk_cs rec, wit;
    CHECK(cuzk_cs_init(&rec, CUZK_CS_RECORD, NULL) == CUZK_OK);
    many(&rec, 1, n);
    cuzk_cs_shape sh;
    cuzk_cs_get_shape(&rec, &sh);
    CHECK(sh.n_aux == sh.n_aux_bits + sh.n_aux_fields && sh.n_aux_bits > 5000 &&
          sh.n_aux_fields > 5000);
    cuzk_r1cs r;
    CHECK(cuzk_cs_take_r1cs(&rec, &r) == CUZK_OK);
    /* the recording cs still gives its witness */
    uint64_t bad;
    CHECK(check_witness(&r, &rec, &bad) == CUZK_OK);
    cuzk_cs_free(&rec);

    /* growing witness mode, then fixed-shape reuse */
    CHECK(cuzk_cs_init(&wit, CUZK_CS_WITNESS, NULL) == CUZK_OK);
    many(&wit, 1, n);
    cuzk_cs_shape sw;
    cuzk_cs_get_shape(&wit, &sw);
    CHECK(sw.n_aux_bits == sh.n_aux_bits && sw.n_aux_fields == sh.n_aux_fields);
    CHECK(check_witness(&r, &wit, &bad) == CUZK_OK);
    cuzk_cs_free(&wit);

    CHECK(cuzk_cs_init(&wit, CUZK_CS_WITNESS, &sh) == CUZK_OK);
    const void *pb = wit.bits, *pf = wit.fields, *pl = wit.layout;
    for (int rep = 0; rep < 3; rep++) {
        cuzk_cs_reset(&wit);
        many(&wit, 1, n);
        CHECK(cuzk_cs_status(&wit, NULL) == CUZK_OK);
        CHECK(check_witness(&r, &wit, &bad) == CUZK_OK);
    }
    CHECK(wit.bits == pb && wit.fields == pf && wit.layout == pl); /* no reallocation */

    /* the view agrees with the dense witness */
    cuzk_witness_view v;
    cuzk_cs_witness_view(&wit, &v);
    size_t nw = (size_t)v.n_inputs + v.n_aux;
    cuzk_fr *w = malloc(nw * sizeof *w);
    CHECK(w && cuzk_cs_witness(&wit, w, nw) == CUZK_OK);
    CHECK(cuzk_cs_witness(&wit, w, nw - 1) == CUZK_ERR_INVALID_ARGUMENT);
    uint32_t bi = 0, fi = 0;
    int same = 1;
    for (uint32_t j = 0; j < v.n_aux && w; j++) {
        if ((v.layout[j >> 6] >> (j & 63)) & 1) {
            unsigned bit = (unsigned)(v.bits[bi >> 6] >> (bi & 63)) & 1;
            same &= cuzk_fr_eq(&w[v.n_inputs + j], bit ? &CUZK_FR_ONE : &CUZK_FR_ZERO);
            bi++;
        } else {
            same &= cuzk_fr_eq(&w[v.n_inputs + j], &v.fields[fi++]);
        }
    }
    CHECK(same && bi == v.n_bits && fi == v.n_fields);
    /* the split form: fields in place, bits in the bitmaps only */
    size_t nwd = (nw + 63) / 64;
    cuzk_fr *ws = malloc(nw * sizeof *ws);
    uint64_t *isb = malloc(nwd * 8), *bv = malloc(nwd * 8);
    CHECK(ws && isb && bv);
    if (ws && isb && bv && w) {
        cuzk_fr poison;
        test_rand_fr(&poison);
        for (size_t i = 0; i < nw; i++) ws[i] = poison;
        CHECK(cuzk_cs_witness_split(&wit, ws, isb, bv, nw) == CUZK_OK);
        int split_ok = 1;
        for (size_t i = 0; i < nw; i++) {
            int b = (isb[i >> 6] >> (i & 63)) & 1, val = (bv[i >> 6] >> (i & 63)) & 1;
            int lay = i >= v.n_inputs &&
                      ((v.layout[(i - v.n_inputs) >> 6] >> ((i - v.n_inputs) & 63)) & 1);
            split_ok &= b == lay;
            if (b) split_ok &= cuzk_fr_eq(&w[i], val ? &CUZK_FR_ONE : &CUZK_FR_ZERO) &&
                               cuzk_fr_eq(&ws[i], &poison);
            else split_ok &= !val && cuzk_fr_eq(&ws[i], &w[i]);
        }
        CHECK(split_ok);
        CHECK(cuzk_cs_witness_split(&wit, ws, isb, bv, nw + 1) == CUZK_ERR_INVALID_ARGUMENT);
    }
    free(ws);
    free(isb);
    free(bv);
    free(w);

    /* more variables than the shape: an error, no overrun, no growth */
    cuzk_cs_reset(&wit);
    many(&wit, 1, n + 2000);
    const char *msg;
    CHECK(cuzk_cs_status(&wit, &msg) == CUZK_ERR_INVALID_ARGUMENT);
    CHECK(strstr(msg, "shape") != NULL);
    CHECK(wit.bits == pb && wit.fields == pf);
    cuzk_cs_free(&wit);
    cuzk_r1cs_free(&r);
}

/* ------------------------------------------------------------------------
 * Errors: non-bit values, CHECK mode, misuse.
 */
static void test_errors(void)
{
    cuzk_cs cs;
    const char *msg;
    /* a bit variable given 2 */
    CHECK(cuzk_cs_init(&cs, CUZK_CS_WITNESS, NULL) == CUZK_OK);
    cuzk_cs_alloc_bit(&cs, 1);
    cuzk_var v = cuzk_cs_alloc_bit(&cs, 2);
    CHECK(cuzk_cs_status(&cs, &msg) == CUZK_ERR_UNSATISFIED && strstr(msg, "non-bit"));
    CHECK(cuzk_cs_bit(&cs, v) == 0);
    cuzk_cs_reset(&cs);
    CHECK(cuzk_cs_status(&cs, NULL) == CUZK_OK);
    cuzk_cs_free(&cs);
    cuzk_cs_free(&cs); /* twice is fine */

    /* CHECK mode names the failing constraint; the first error stays */
    CHECK(cuzk_cs_init(&cs, CUZK_CS_RECORD | CUZK_CS_CHECK, NULL) == CUZK_OK);
    cuzk_fr three = fr_u64(3), nine = fr_u64(10);
    cuzk_var x = cuzk_cs_alloc(&cs, &three), y = cuzk_cs_alloc(&cs, &nine);
    for (int i = 0; i < 3; i++) {
        cuzk_cs_begin(&cs); /* x x = y: 9 != 10 */
        cuzk_cs_term(&cs, CUZK_A, x, CUZK_COEFF_ONE);
        cuzk_cs_term(&cs, CUZK_B, x, CUZK_COEFF_ONE);
        cuzk_cs_term(&cs, i == 0 ? CUZK_A : CUZK_C, i == 0 ? CUZK_VAR_ONE : y,
                     i == 0 ? CUZK_COEFF_MINUS_ONE : CUZK_COEFF_ONE);
        cuzk_cs_end(&cs);
    }
    /* row 0: (x - 1) x = 0, i.e. 6 != 0 */
    CHECK(cuzk_cs_status(&cs, &msg) == CUZK_ERR_UNSATISFIED && strstr(msg, "constraint 0"));
    cuzk_matrices m;
    CHECK(cuzk_cs_take_matrices(&cs, &m) == CUZK_ERR_UNSATISFIED);
    cuzk_cs_free(&cs);

    /* misuse: unknown variable, term outside a row, overflowing LC, bad flags */
    CHECK(cuzk_cs_init(&cs, CUZK_CS_RECORD, NULL) == CUZK_OK);
    cuzk_cs_begin(&cs);
    cuzk_cs_term(&cs, CUZK_A, CUZK_VAR_FIELD | 5, CUZK_COEFF_ONE);
    cuzk_cs_end(&cs);
    CHECK(cuzk_cs_status(&cs, &msg) == CUZK_ERR_INVALID_ARGUMENT && strstr(msg, "never allocated"));
    cuzk_cs_reset(&cs);
    cuzk_cs_term(&cs, CUZK_A, CUZK_VAR_ONE, CUZK_COEFF_ONE);
    CHECK(cuzk_cs_status(&cs, NULL) == CUZK_ERR_INVALID_ARGUMENT);
    cuzk_cs_reset(&cs);
    cuzk_term t1[1];
    cuzk_lc lc = CUZK_LC_INIT(t1);
    cuzk_lc_add(&lc, CUZK_VAR_ONE, CUZK_COEFF_ONE);
    cuzk_lc_add(&lc, CUZK_VAR_ONE, CUZK_COEFF_ONE);
    cuzk_cs_enforce(&cs, &lc, &lc, &lc);
    CHECK(cuzk_cs_status(&cs, &msg) == CUZK_ERR_INVALID_ARGUMENT && strstr(msg, "overflowed"));
    /* a linear combination (the one-copy path of scale 1) with a variable
     * never allocated, or an unknown coefficient index */
    cuzk_term t2[3];
    for (int bad = 0; bad < 2; bad++) {
        cuzk_cs_reset(&cs);
        cuzk_fr one = CUZK_FR_ONE;
        cuzk_var a = cuzk_cs_alloc(&cs, &one);
        lc = (cuzk_lc)CUZK_LC_INIT(t2);
        cuzk_lc_add(&lc, CUZK_VAR_ONE, CUZK_COEFF_ONE);
        cuzk_lc_add(&lc, bad ? a : CUZK_VAR_FIELD | 7, bad ? 999 : CUZK_COEFF_ONE);
        cuzk_lc_add(&lc, a, CUZK_COEFF_MINUS_ONE);
        cuzk_cs_begin(&cs);
        cuzk_cs_term_lc(&cs, CUZK_A, &lc, CUZK_COEFF_ONE);
        cuzk_cs_end(&cs);
        CHECK(cuzk_cs_status(&cs, &msg) == CUZK_ERR_INVALID_ARGUMENT &&
              strstr(msg, bad ? "unknown coefficient" : "never allocated"));
    }
    cuzk_cs_free(&cs);
    CHECK(cuzk_cs_init(&cs, CUZK_CS_CHECK, NULL) == CUZK_ERR_INVALID_ARGUMENT);
    CHECK(cuzk_cs_init(&cs, CUZK_CS_WITNESS, NULL) == CUZK_OK);
    CHECK(cuzk_cs_take_matrices(&cs, &m) == CUZK_ERR_INVALID_ARGUMENT);
    cuzk_cs_free(&cs);
}

/* ------------------------------------------------------------------------
 * The coefficient dictionary: interning, negation, products, powers of 2.
 */
static void test_coeffs(void)
{
    cuzk_cs cs;
    CHECK(cuzk_cs_init(&cs, CUZK_CS_RECORD, NULL) == CUZK_OK);
    cuzk_fr x, y;
    int ok = 1;
    for (int i = 0; i < 3000; i++) { /* forces several rehashes */
        test_rand_fr(&x);
        cuzk_coeff c = cuzk_cs_coeff(&cs, &x);
        ok &= cuzk_cs_coeff(&cs, &x) == c;
        cuzk_cs_coeff_value(&cs, c, &y);
        ok &= cuzk_fr_eq(&x, &y);
        cuzk_cs_coeff_value(&cs, cuzk_cs_coeff_neg(&cs, c), &y);
        cuzk_fr_add(&y, &y, &x);
        ok &= cuzk_fr_is_zero(&y);
    }
    CHECK(ok);
    CHECK(cuzk_cs_coeff(&cs, &CUZK_FR_ZERO) == CUZK_COEFF_ZERO);
    CHECK(cuzk_cs_coeff(&cs, &CUZK_FR_ONE) == CUZK_COEFF_ONE);
    CHECK(cuzk_cs_coeff_i64(&cs, -1) == CUZK_COEFF_MINUS_ONE);
    CHECK(cuzk_cs_coeff_neg(&cs, CUZK_COEFF_ONE) == CUZK_COEFF_MINUS_ONE);
    CHECK(cuzk_cs_coeff_pow2(&cs, 0) == CUZK_COEFF_ONE);
    CHECK(cuzk_cs_coeff_neg_pow2(&cs, 0) == CUZK_COEFF_MINUS_ONE);
    CHECK(cuzk_cs_coeff_pow2(&cs, 10) == cuzk_cs_coeff_i64(&cs, 1024));
    CHECK(cuzk_cs_coeff_neg_pow2(&cs, 62) == cuzk_cs_coeff_i64(&cs, -(INT64_C(1) << 62)));
    CHECK(cuzk_cs_coeff_mul(&cs, cuzk_cs_coeff_pow2(&cs, 100), cuzk_cs_coeff_pow2(&cs, 155)) ==
          cuzk_cs_coeff_pow2(&cs, 255));
    CHECK(cuzk_cs_coeff_mul(&cs, cuzk_cs_coeff_i64(&cs, -3), cuzk_cs_coeff_i64(&cs, 5)) ==
          cuzk_cs_coeff_i64(&cs, -15));
    cuzk_cs_free(&cs);
}

/* ------------------------------------------------------------------------
 * Row canonicalisation for the orders flush_row meets: sorted, a few terms
 * out of place, a Poseidon-like row (t inputs, then sorted), two
 * interleaved sorted runs (one descent, many moves), reversed, random with
 * repeats, short rows; repeated wires summed, zero sums dropped.
 */
static cuzk_fr fr_i64(int64_t v)
{
    cuzk_fr r = fr_u64(v < 0 ? (uint64_t)-v : (uint64_t)v);
    if (v < 0) cuzk_fr_neg(&r, &r);
    return r;
}

static void test_row_orders(void)
{
    enum { NV = 3000, NSHAPE = 9, REP = 3, NMAX = 2 * NV };
    cuzk_cs cs;
    CHECK(cuzk_cs_init(&cs, CUZK_CS_RECORD, NULL) == CUZK_OK);
    cuzk_var *v = malloc(NV * sizeof *v);
    uint32_t *idx = malloc(NMAX * sizeof *idx);
    int64_t *sum = malloc(NSHAPE * REP * (size_t)NV * sizeof *sum);
    CHECK(v && idx && sum);
    if (!v || !idx || !sum) goto out;
    memset(sum, 0, NSHAPE * REP * (size_t)NV * sizeof *sum);
    for (uint32_t i = 0; i < NV; i++) {
        cuzk_fr x = fr_u64(i);
        v[i] = cuzk_cs_alloc(&cs, &x); /* wire 1 + i */
    }
    for (unsigned row = 0; row < NSHAPE * REP; row++) {
        unsigned shape = row % NSHAPE;
        uint32_t n = 0;
        switch (shape) {
        case 0: /* sorted */
            for (uint32_t i = 0; i < 1000; i++) idx[n++] = i;
            break;
        case 1: /* sorted, then 5 terms moved to random places */
        case 2: /* Poseidon-like: 9 inputs anywhere, then sorted outputs */
            for (uint32_t i = 0; i < 1000; i++) idx[n++] = 500 + i;
            for (int k = 0; k < (shape == 1 ? 5 : 9); k++) {
                uint32_t a = (uint32_t)(test_rand64() % n);
                uint32_t b = shape == 1 ? (uint32_t)(test_rand64() % n) : (uint32_t)k;
                uint32_t x = idx[a];
                idx[a] = idx[b], idx[b] = x;
            }
            break;
        case 3: /* evens, then odds */
            for (uint32_t i = 0; i < NV; i += 2) idx[n++] = i;
            for (uint32_t i = 1; i < NV; i += 2) idx[n++] = i;
            break;
        case 4: /* reversed */
            for (uint32_t i = NV; i-- > 0;) idx[n++] = i;
            break;
        case 5: /* random, many repeats */
            for (uint32_t i = 0; i < 1500; i++) idx[n++] = (uint32_t)(test_rand64() % 500);
            break;
        case 6: /* short and random */
            for (uint32_t i = 0; i < 20; i++) idx[n++] = (uint32_t)(test_rand64() % 30);
            break;
        case 7: /* sorted, each wire twice, every other pair cancelling */
        case 8: /* 30 terms, 20 sorted then 10 smaller: few descents, over 24 terms */
            if (shape == 7) {
                for (uint32_t i = 0; i < 800; i++) idx[n++] = i, idx[n++] = i;
            } else {
                for (uint32_t i = 0; i < 20; i++) idx[n++] = 100 + i;
                for (uint32_t i = 0; i < 10; i++) idx[n++] = 10 * i;
            }
            break;
        }
        int64_t *want = &sum[(size_t)row * NV];
        cuzk_cs_begin(&cs);
        for (uint32_t k = 0; k < n; k++) {
            int64_t c = (int64_t)(test_rand64() % 7) - 3;
            if (c == 0) c = 4;
            if (shape == 7 && (k & 1)) c = (idx[k] & 1) ? -want[idx[k]] : c;
            want[idx[k]] += c;
            cuzk_cs_term(&cs, CUZK_A, v[idx[k]], cuzk_cs_coeff_i64(&cs, c));
        }
        cuzk_cs_term(&cs, CUZK_B, CUZK_VAR_ONE, CUZK_COEFF_ONE);
        cuzk_cs_end(&cs);
    }
    CHECK(cuzk_cs_status(&cs, NULL) == CUZK_OK);
    cuzk_matrices m;
    CHECK(cuzk_cs_take_matrices(&cs, &m) == CUZK_OK);
    CHECK(m.n_rows == NSHAPE * REP);
    for (unsigned row = 0; row < NSHAPE * REP && m.n_rows == NSHAPE * REP; row++) {
        const int64_t *want = &sum[(size_t)row * NV];
        uint64_t k = m.a.row_start[row], end = m.a.row_start[row + 1];
        int ok = 1;
        for (uint32_t i = 0; i < NV && ok; i++) {
            if (want[i] == 0) continue;
            cuzk_fr c = fr_i64(want[i]);
            ok = k < end && m.a.wire[k] == 1 + i && cuzk_fr_eq(&m.coeffs[m.a.coeff[k]], &c);
            k++;
        }
        CHECK_MSG(ok && k == end, "row %u (shape %u): not the canonical row", row, row % NSHAPE);
    }
    cuzk_matrices_free(&m);
out:
    cuzk_cs_free(&cs);
    free(v);
    free(idx);
    free(sum);
}

/* ------------------------------------------------------------------------
 * Coefficient memos: a new array is all UNSET, a key gives its array back,
 * keys are unique, misuse is an error, witness mode has none.
 */
static void test_memo(void)
{
    uint64_t k1 = cuzk_cs_memo_key(), k2 = cuzk_cs_memo_key(), k3 = cuzk_cs_memo_key();
    CHECK(k1 && k2 && k3 && k1 != k2 && k2 != k3 && k1 != k3);
    cuzk_cs cs;
    const char *msg;
    CHECK(cuzk_cs_init(&cs, CUZK_CS_WITNESS, NULL) == CUZK_OK);
    CHECK(cuzk_cs_memo(&cs, k1, 4) == NULL && cuzk_cs_status(&cs, NULL) == CUZK_OK);
    cuzk_cs_free(&cs);
    CHECK(cuzk_cs_init(&cs, CUZK_CS_RECORD, NULL) == CUZK_OK);
    cuzk_coeff *a = cuzk_cs_memo(&cs, k1, 5);
    CHECK(a != NULL);
    if (a) {
        int unset = 1;
        for (int k = 0; k < 5; k++) unset &= a[k] == CUZK_COEFF_UNSET;
        CHECK(unset);
        cuzk_fr x = fr_u64(77);
        a[2] = cuzk_cs_coeff(&cs, &x);
        CHECK(cuzk_cs_memo(&cs, k1, 5) == a && a[2] == cuzk_cs_coeff(&cs, &x));
    }
    cuzk_coeff *b = cuzk_cs_memo(&cs, k2, 3), *c = cuzk_cs_memo(&cs, k3, 0);
    CHECK(b && c && b != a && b[0] == CUZK_COEFF_UNSET);
    for (int i = 0; i < 10; i++) /* grows the memo table */
        CHECK(cuzk_cs_memo(&cs, cuzk_cs_memo_key(), 1) != NULL);
    CHECK(cuzk_cs_memo(&cs, k1, 5) == a && cuzk_cs_memo(&cs, k2, 3) == b);
    CHECK(cuzk_cs_status(&cs, NULL) == CUZK_OK);
    CHECK(cuzk_cs_memo(&cs, k1, 6) == NULL); /* another length */
    CHECK(cuzk_cs_status(&cs, &msg) == CUZK_ERR_INVALID_ARGUMENT && strstr(msg, "memo"));
    cuzk_cs_free(&cs);
}

/* ------------------------------------------------------------------------
 * Repeated rows: flush_row copies the result of a row whose terms equal
 * those of the last row it canonicalised. The same constraints recorded
 * with every repeat in another term order (reversed: a copy seldom matches)
 * and term by term give the same matrices and coefficient table, bit for
 * bit; so does recording again after cuzk_cs_reset (which must forget the
 * remembered row: its result's position is gone).
 */
static void repeated_circuit(cuzk_cs *cs, uint64_t seed, int reorder)
{
    enum { NV = 40, NROW = 400, NT = 14 };
    uint64_t s = seed;
#define NEXT() (s = s * 6364136223846793005ull + 1442695040888963407ull, s >> 33)
    cuzk_var v[NV];
    for (unsigned i = 0; i < NV; i++) {
        cuzk_fr x = fr_u64(i + 5);
        v[i] = i % 3 == 0 ? cuzk_cs_alloc_bit(cs, i & 1)
             : i == 20    ? cuzk_cs_alloc_input(cs, &x) /* an input after aux */
                          : cuzk_cs_alloc(cs, &x);
    }
    cuzk_coeff pool[6] = {CUZK_COEFF_ONE, CUZK_COEFF_MINUS_ONE, cuzk_cs_coeff_i64(cs, 3),
                          cuzk_cs_coeff_i64(cs, -3), CUZK_COEFF_ZERO, 0};
    cuzk_term t[NT];
    for (unsigned row = 0; row < NROW; row++) {
        /* the row X: 0 to NT terms over few variables (repeats merge), a
         * pair that cancels, ZERO terms (skipped), a new value now and then */
        cuzk_fr nv = fr_u64(1000 + NEXT() % 50);
        pool[5] = cuzk_cs_coeff(cs, &nv);
        uint32_t n = (uint32_t)(NEXT() % (NT + 1));
        for (uint32_t k = 0; k < n; k++)
            t[k] = (cuzk_term){v[NEXT() % 12], pool[NEXT() % 6]};
        if (n >= 4 && NEXT() % 3 == 0) {
            t[1] = (cuzk_term){t[0].var, cuzk_cs_coeff_neg(cs, t[0].coeff)};
            if (t[0].coeff == CUZK_COEFF_ZERO) t[1].coeff = CUZK_COEFF_ZERO;
        }
        cuzk_lc x = {t, n, NT};
        cuzk_var o = v[NEXT() % NV];
        /* X in A and B, then in B and C: the copy's target is the same
         * matrix and another one, its source A */
        for (int c = 0; c < 2; c++) {
            cuzk_cs_begin(cs);
            for (int m = 0; m < 3; m++) {
                int has_x = c == 0 ? m < 2 : m > 0;
                if (!has_x) {
                    cuzk_cs_term(cs, (cuzk_abc)m, o, CUZK_COEFF_ONE);
                } else if (!reorder) {
                    cuzk_cs_term_lc(cs, (cuzk_abc)m, &x, CUZK_COEFF_ONE);
                } else {
                    int rev = !(c == 0 && m == 0); /* the first time as given */
                    for (uint32_t k = 0; k < n; k++) {
                        const cuzk_term *tk = &t[rev ? n - 1 - k : k];
                        cuzk_cs_term(cs, (cuzk_abc)m, tk->var, tk->coeff);
                    }
                }
            }
            cuzk_cs_end(cs);
        }
    }
#undef NEXT
}

static int same_matrices(const cuzk_matrices *a, const cuzk_matrices *b)
{
    if (a->n_rows != b->n_rows || a->n_coeffs != b->n_coeffs ||
        memcmp(a->coeffs, b->coeffs, (size_t)a->n_coeffs * sizeof *a->coeffs))
        return 0;
    const cuzk_sparse *x[3] = {&a->a, &a->b, &a->c}, *y[3] = {&b->a, &b->b, &b->c};
    for (int m = 0; m < 3; m++)
        if (x[m]->n_terms != y[m]->n_terms ||
            memcmp(x[m]->row_start, y[m]->row_start, (a->n_rows + 1) * sizeof(uint64_t)) ||
            memcmp(x[m]->wire, y[m]->wire, x[m]->n_terms * sizeof(uint32_t)) ||
            memcmp(x[m]->coeff, y[m]->coeff, x[m]->n_terms * sizeof(uint32_t)))
            return 0;
    return 1;
}

static void test_repeated_rows(void)
{
    uint64_t seed = test_rand64();
    cuzk_matrices m[3];
    memset(m, 0, sizeof m);
    cuzk_cs cs;
    for (int k = 0; k < 3; k++) { /* 0: copies; 1: none; 2: copies after a reset */
        CHECK(cuzk_cs_init(&cs, CUZK_CS_RECORD, NULL) == CUZK_OK);
        repeated_circuit(&cs, seed, k == 1);
        if (k == 2) {
            cuzk_cs_reset(&cs);
            repeated_circuit(&cs, seed, 0);
        }
        CHECK(cuzk_cs_status(&cs, NULL) == CUZK_OK);
        CHECK(cuzk_cs_take_matrices(&cs, &m[k]) == CUZK_OK);
        cuzk_cs_free(&cs);
    }
    CHECK(m[0].n_rows == 800 && m[0].a.n_terms > 1000);
    CHECK_MSG(same_matrices(&m[0], &m[1]), "copied rows differ from rows made again");
    CHECK_MSG(same_matrices(&m[0], &m[2]), "recording after a reset differs");
    for (int k = 0; k < 3; k++) cuzk_matrices_free(&m[k]);

    /* after a reset the same handles can name other wires: the row
     * remembered before must not be copied */
    CHECK(cuzk_cs_init(&cs, CUZK_CS_RECORD, NULL) == CUZK_OK);
    for (int k = 0; k < 2; k++) {
        cuzk_fr one = CUZK_FR_ONE;
        if (k == 1) {
            cuzk_cs_reset(&cs);
            cuzk_cs_alloc_bit(&cs, 1); /* aux 0 now */
        }
        cuzk_var x = cuzk_cs_alloc(&cs, &one), y = cuzk_cs_alloc(&cs, &one);
        cuzk_cs_begin(&cs); /* (x + y) 1 = x */
        cuzk_cs_term(&cs, CUZK_A, x, CUZK_COEFF_ONE);
        cuzk_cs_term(&cs, CUZK_A, y, CUZK_COEFF_ONE);
        cuzk_cs_term(&cs, CUZK_B, CUZK_VAR_ONE, CUZK_COEFF_ONE);
        cuzk_cs_term(&cs, CUZK_C, x, CUZK_COEFF_ONE);
        cuzk_cs_end(&cs);
    }
    CHECK(cuzk_cs_take_matrices(&cs, &m[0]) == CUZK_OK);
    CHECK(m[0].n_rows == 1 && m[0].a.n_terms == 2 && m[0].a.wire[0] == 2 && m[0].a.wire[1] == 3);
    cuzk_matrices_free(&m[0]);
    cuzk_cs_free(&cs);
}

int main(void)
{
    test_seed("test_cs");
    test_cubic();
    test_many();
    test_errors();
    test_coeffs();
    test_row_orders();
    test_memo();
    test_repeated_rows();
    return test_done("test_cs");
}
