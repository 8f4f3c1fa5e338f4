/* NTT tests: the transforms equal a naive evaluation, invert each other,
 * and use the right roots of unity for both key conventions. */
#include <stdlib.h>
#include <string.h>

#include <cuzk/poly.h>

#include "test_util.h"

static const cuzk_roots conventions[2] = {CUZK_ROOTS_BELLPERSON, CUZK_ROOTS_SNARKJS};

/* p(x) by Horner. */
static void eval(cuzk_fr *r, const cuzk_fr *coef, size_t n, const cuzk_fr *x)
{
    cuzk_fr acc = CUZK_FR_ZERO;
    for (size_t i = n; i-- > 0;) {
        cuzk_fr_mul(&acc, &acc, x);
        cuzk_fr_add(&acc, &acc, &coef[i]);
    }
    *r = acc;
}

static void test_roots(void)
{
    /* t = (r - 1) / 2^32 */
    uint64_t t[4];
    memcpy(t, CUZK_FR_MODULUS, sizeof t);
    t[0] -= 1;
    for (int i = 0; i < 4; i++) t[i] = (t[i] >> 32) | (i < 3 ? t[i + 1] << 32 : 0);
    for (int c = 0; c < 2; c++) {
        cuzk_fr gen, want, got, x, minus_one;
        cuzk_fr_from_u64(&gen, (uint64_t)conventions[c]);
        cuzk_fr_pow(&want, &gen, t, 4);
        cuzk_fr_root_of_unity(&got, conventions[c]);
        CHECK(cuzk_fr_eq(&want, &got));
        x = got; /* order exactly 2^32: x^(2^31) = -1 */
        for (int k = 0; k < 31; k++) cuzk_fr_sqr(&x, &x);
        cuzk_fr_neg(&minus_one, &CUZK_FR_ONE);
        CHECK(cuzk_fr_eq(&x, &minus_one));
    }
    /* The conventions agree up to n = 4 and differ from n = 8. */
    for (unsigned log_n = 1; log_n <= 12; log_n++) {
        cuzk_ntt_domain *b, *s;
        CHECK(cuzk_ntt_domain_create(&b, log_n, CUZK_ROOTS_BELLPERSON, 1) == CUZK_OK);
        CHECK(cuzk_ntt_domain_create(&s, log_n, CUZK_ROOTS_SNARKJS, 1) == CUZK_OK);
        int same = cuzk_fr_eq(cuzk_ntt_omega(b), cuzk_ntt_omega(s));
        CHECK(same == (log_n <= 2));
        /* snarkjs coset: g^2 = omega, g^n = -1. bellperson: g = 7. */
        cuzk_fr g2, gn, m1, seven;
        cuzk_fr_sqr(&g2, cuzk_ntt_coset_shift(s));
        CHECK(cuzk_fr_eq(&g2, cuzk_ntt_omega(s)));
        uint64_t n = (uint64_t)1 << log_n;
        cuzk_fr_pow(&gn, cuzk_ntt_coset_shift(s), &n, 1);
        cuzk_fr_neg(&m1, &CUZK_FR_ONE);
        CHECK(cuzk_fr_eq(&gn, &m1));
        cuzk_fr_from_u64(&seven, 7);
        CHECK(cuzk_fr_eq(cuzk_ntt_coset_shift(b), &seven));
        CHECK(cuzk_ntt_size(b) == n && cuzk_ntt_roots(s) == CUZK_ROOTS_SNARKJS);
        cuzk_ntt_domain_destroy(b);
        cuzk_ntt_domain_destroy(s);
    }
}

/* Forward and coset forward equal naive evaluation at omega^j, g omega^j. */
static void test_naive(unsigned log_n, cuzk_roots roots)
{
    size_t n = (size_t)1 << log_n;
    cuzk_ntt_domain *d;
    CHECK(cuzk_ntt_domain_create(&d, log_n, roots, 2) == CUZK_OK);
    cuzk_fr *coef = malloc(n * sizeof *coef), *a = malloc(n * sizeof *a),
           *c = malloc(n * sizeof *c);
    for (size_t i = 0; i < n; i++) test_rand_fr(&coef[i]);
    memcpy(a, coef, n * sizeof *a);
    memcpy(c, coef, n * sizeof *c);
    cuzk_ntt_forward(d, a);
    cuzk_ntt_coset_forward(d, c);
    cuzk_fr x = CUZK_FR_ONE, y, v;
    int bad = 0, badc = 0;
    for (size_t j = 0; j < n; j++) {
        eval(&v, coef, n, &x);
        bad += !cuzk_fr_eq(&v, &a[j]);
        cuzk_fr_mul(&y, &x, cuzk_ntt_coset_shift(d));
        eval(&v, coef, n, &y);
        badc += !cuzk_fr_eq(&v, &c[j]);
        cuzk_fr_mul(&x, &x, cuzk_ntt_omega(d));
    }
    CHECK_MSG(bad == 0, "forward, log_n %u, roots %d: %d of %zu wrong", log_n, roots, bad, n);
    CHECK_MSG(badc == 0, "coset forward, log_n %u, roots %d: %d wrong", log_n, roots, badc);
    CHECK(cuzk_fr_eq(&x, &CUZK_FR_ONE)); /* omega^n = 1 */
    free(coef);
    free(a);
    free(c);
    cuzk_ntt_domain_destroy(d);
}

/* inverse(forward(a)) = a, coset likewise, and thread counts agree. */
static void test_roundtrip(unsigned log_n, cuzk_roots roots)
{
    size_t n = (size_t)1 << log_n;
    cuzk_ntt_domain *d1, *d4;
    CHECK(cuzk_ntt_domain_create(&d1, log_n, roots, 1) == CUZK_OK);
    CHECK(cuzk_ntt_domain_create(&d4, log_n, roots, 4) == CUZK_OK);
    cuzk_fr *orig = malloc(n * sizeof *orig), *a = malloc(n * sizeof *a),
           *b = malloc(n * sizeof *b);
    for (size_t i = 0; i < n; i++) test_rand_fr(&orig[i]);
    memcpy(a, orig, n * sizeof *a);
    memcpy(b, orig, n * sizeof *b);
    cuzk_ntt_forward(d1, a);
    cuzk_ntt_forward(d4, b);
    CHECK(memcmp(a, b, n * sizeof *a) == 0);
    cuzk_ntt_inverse(d4, a);
    CHECK(memcmp(a, orig, n * sizeof *a) == 0);
    cuzk_ntt_coset_forward(d4, b);
    cuzk_ntt_coset_inverse(d1, b);
    cuzk_ntt_inverse(d1, b);
    CHECK(memcmp(b, orig, n * sizeof *b) == 0);
    /* Spot check the big forward against Horner at a few points. */
    memcpy(a, orig, n * sizeof *a);
    cuzk_ntt_forward(d4, a);
    for (int k = 0; k < 3; k++) {
        size_t j = (size_t)(test_rand64() % n);
        uint64_t e = j;
        cuzk_fr x, v;
        cuzk_fr_pow(&x, cuzk_ntt_omega(d4), &e, 1);
        eval(&v, orig, n, &x);
        CHECK_MSG(cuzk_fr_eq(&v, &a[j]), "log_n %u point %zu", log_n, j);
    }
    free(orig);
    free(a);
    free(b);
    cuzk_ntt_domain_destroy(d1);
    cuzk_ntt_domain_destroy(d4);
}

/* to_coset(a) = coset_forward(inverse(a)), on 1 and 4 threads (sizes below,
 * at and above the cache block, so with and without outer stages). */
static void test_to_coset(unsigned log_n, cuzk_roots roots)
{
    size_t n = (size_t)1 << log_n;
    cuzk_ntt_domain *d1, *d4;
    CHECK(cuzk_ntt_domain_create(&d1, log_n, roots, 1) == CUZK_OK);
    CHECK(cuzk_ntt_domain_create(&d4, log_n, roots, 4) == CUZK_OK);
    cuzk_fr *want = malloc(n * sizeof *want), *a = malloc(n * sizeof *a),
           *b = malloc(n * sizeof *b);
    for (size_t i = 0; i < n; i++) test_rand_fr(&want[i]);
    if (n > 2) want[1] = CUZK_FR_ZERO; /* a zero and a one among the values */
    if (n > 2) want[2] = CUZK_FR_ONE;
    memcpy(a, want, n * sizeof *a);
    memcpy(b, want, n * sizeof *b);
    cuzk_ntt_inverse(d1, want);
    cuzk_ntt_coset_forward(d1, want);
    CHECK(cuzk_ntt_to_coset(d1, a) == CUZK_OK);
    CHECK(cuzk_ntt_to_coset(d4, b) == CUZK_OK);
    CHECK_MSG(memcmp(a, want, n * sizeof *a) == 0, "to_coset, log_n %u, roots %d, 1 thread",
              log_n, roots);
    CHECK_MSG(memcmp(b, want, n * sizeof *b) == 0, "to_coset, log_n %u, roots %d, 4 threads",
              log_n, roots);
    free(want);
    free(a);
    free(b);
    cuzk_ntt_domain_destroy(d1);
    cuzk_ntt_domain_destroy(d4);
}

static void test_errors(void)
{
    cuzk_ntt_domain *d = (cuzk_ntt_domain *)&d;
    CHECK(cuzk_ntt_domain_create(&d, 0, CUZK_ROOTS_SNARKJS, 1) == CUZK_ERR_INVALID_ARGUMENT);
    CHECK(d == NULL);
    CHECK(cuzk_ntt_domain_create(&d, 29, CUZK_ROOTS_SNARKJS, 1) == CUZK_ERR_INVALID_ARGUMENT);
    CHECK(cuzk_ntt_domain_create(&d, 10, (cuzk_roots)3, 1) == CUZK_ERR_INVALID_ARGUMENT);
    CHECK(cuzk_ntt_domain_create(NULL, 10, CUZK_ROOTS_SNARKJS, 1) == CUZK_ERR_INVALID_ARGUMENT);
    cuzk_ntt_domain_destroy(NULL);
}

int main(void)
{
    test_seed("test_ntt");
    test_roots();
    test_errors();
    for (int c = 0; c < 2; c++) {
        for (unsigned k = 1; k <= 6; k++) test_naive(k, conventions[c]);
        test_naive(10, conventions[c]);
        test_roundtrip(13, conventions[c]);
        test_roundtrip(16, conventions[c]);
        for (unsigned k = 1; k <= 7; k++) test_to_coset(k, conventions[c]);
        test_to_coset(12, conventions[c]);
        test_to_coset(13, conventions[c]);
        test_to_coset(14, conventions[c]);
        test_to_coset(17, conventions[c]);
    }
    return test_done("test_ntt");
}
