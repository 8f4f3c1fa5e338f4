/* Property tests of Fp and Fr (known answers are in test_vectors.c). */
#include <string.h>

#include <cuzk/ff.h>

#include "test_util.h"

#define ITERS 200

/* The same checks for both fields, instantiated by macro. */
#define FIELD_TESTS(T, F, NL, NB, MODULUS, RAND, SQRT)                                       \
    static void test_##F(void)                                                          \
    {                                                                                   \
        T a, b, c, x, y, z;                                                             \
        for (int it = 0; it < ITERS; it++) {                                            \
            RAND(&a); RAND(&b); RAND(&c);                                               \
            /* commutativity, associativity, distributivity */                          \
            F##_add(&x, &a, &b); F##_add(&y, &b, &a); CHECK(F##_eq(&x, &y));            \
            F##_mul(&x, &a, &b); F##_mul(&y, &b, &a); CHECK(F##_eq(&x, &y));            \
            F##_mul(&x, &a, &b); F##_mul(&x, &x, &c);                                   \
            F##_mul(&y, &b, &c); F##_mul(&y, &a, &y); CHECK(F##_eq(&x, &y));            \
            F##_add(&x, &b, &c); F##_mul(&x, &a, &x);                                   \
            F##_mul(&y, &a, &b); F##_mul(&z, &a, &c); F##_add(&y, &y, &z);              \
            CHECK(F##_eq(&x, &y));                                                      \
            /* sub, neg, dbl */                                                         \
            F##_sub(&x, &a, &b); F##_add(&x, &x, &b); CHECK(F##_eq(&x, &a));            \
            F##_neg(&x, &a); F##_add(&x, &x, &a); CHECK(F##_is_zero(&x));               \
            F##_dbl(&x, &a); F##_add(&y, &a, &a); CHECK(F##_eq(&x, &y));                \
            F##_sqr(&x, &a); F##_mul(&y, &a, &a); CHECK(F##_eq(&x, &y));                \
            /* aliasing: r = a op r */                                                  \
            x = b; F##_mul(&x, &a, &x); F##_mul(&y, &a, &b); CHECK(F##_eq(&x, &y));     \
            /* inverses agree and invert */                                             \
            F##_inv(&x, &a); F##_inv_var(&y, &a); CHECK(F##_eq(&x, &y));                \
            F##_mul(&x, &x, &a); CHECK(F##_is_one(&x));                                 \
            /* sqrt of a square; legendre of square and of square * non-residue */     \
            F##_sqr(&x, &a);                                                            \
            CHECK(SQRT(&y, &x) == 1);                                               \
            F##_sqr(&y, &y); CHECK(F##_eq(&y, &x));                                     \
            CHECK(F##_legendre(&x) == (F##_is_zero(&a) ? 0 : 1));                       \
            /* byte round trips */                                                      \
            uint8_t buf[NB];                                                            \
            F##_to_be(buf, &a); CHECK(F##_from_be(&x, buf) == CUZK_OK && F##_eq(&x, &a)); \
            F##_to_le(buf, &a); CHECK(F##_from_le(&x, buf) == CUZK_OK && F##_eq(&x, &a)); \
            F##_to_lem(buf, &a); CHECK(F##_from_lem(&x, buf) == CUZK_OK && F##_eq(&x, &a)); \
            uint64_t v[NL];                                                             \
            F##_to_limbs(v, &a); CHECK(F##_from_limbs(&x, v) == CUZK_OK && F##_eq(&x, &a)); \
            /* cmov */                                                                  \
            x = a; F##_cmov(&x, &b, 0); CHECK(F##_eq(&x, &a));                          \
            F##_cmov(&x, &b, 1); CHECK(F##_eq(&x, &b));                                 \
        }                                                                               \
        /* small integers: 2 * 3 = 6, 7 - 9 = -2, (2^64 - 1)^2 */                       \
        F##_from_u64(&a, 2); F##_from_u64(&b, 3); F##_mul(&x, &a, &b);                  \
        F##_from_u64(&y, 6); CHECK(F##_eq(&x, &y));                                     \
        F##_from_u64(&a, 7); F##_from_u64(&b, 9); F##_sub(&x, &a, &b); F##_neg(&x, &x); \
        F##_from_u64(&y, 2); CHECK(F##_eq(&x, &y));                                     \
        {                                                                               \
            uint64_t v[NL] = {0};                                                       \
            F##_from_u64(&a, ~0ull); F##_sqr(&x, &a); F##_to_limbs(v, &x);              \
            CHECK(v[0] == 1 && v[1] == ~0ull - 1);                                      \
            for (int i = 2; i < NL; i++) CHECK(v[i] == 0);                              \
        }                                                                               \
        /* p - 1 = -1: (-1)^2 = 1, from_limbs accepts p - 1 and rejects p */            \
        {                                                                               \
            uint64_t v[NL];                                                             \
            memcpy(v, MODULUS, sizeof v);                                               \
            CHECK(F##_from_limbs(&x, v) == CUZK_ERR_NOT_CANONICAL);                     \
            v[0] -= 1;                                                                  \
            CHECK(F##_from_limbs(&x, v) == CUZK_OK);                                    \
            F##_neg(&y, &F##_ONE_C); CHECK(F##_eq(&x, &y));                             \
            F##_sqr(&x, &x); CHECK(F##_is_one(&x));                                     \
            uint8_t buf[NB];                                                            \
            memset(buf, 0xff, sizeof buf);                                              \
            CHECK(F##_from_le(&x, buf) == CUZK_ERR_NOT_CANONICAL);                      \
            CHECK(F##_from_be(&x, buf) == CUZK_ERR_NOT_CANONICAL);                      \
            CHECK(F##_from_lem(&x, buf) == CUZK_ERR_NOT_CANONICAL);                     \
        }                                                                               \
        /* zero: inverse 0, sqrt 0, legendre 0 */                                       \
        a = F##_ZERO_C;                                                                 \
        F##_inv(&x, &a); CHECK(F##_is_zero(&x));                                        \
        F##_inv_var(&x, &a); CHECK(F##_is_zero(&x));                                    \
        CHECK(SQRT(&x, &a) == 1 && F##_is_zero(&x));                                \
        CHECK(F##_legendre(&a) == 0);                                                   \
        /* batch inversion, with zeros in the middle and at the ends */                 \
        {                                                                               \
            enum { N = 37 };                                                            \
            T in[N], out[N], scratch[N];                                                \
            for (int i = 0; i < N; i++) RAND(&in[i]);                                   \
            in[0] = in[17] = in[N - 1] = F##_ZERO_C;                                    \
            F##_batch_inv_var(out, in, N, scratch);                                         \
            for (int i = 0; i < N; i++) {                                               \
                F##_inv_var(&x, &in[i]); CHECK(F##_eq(&x, &out[i]));                    \
            }                                                                           \
            F##_batch_inv_var(in, in, N, scratch); /* in place */                          \
            for (int i = 0; i < N; i++) CHECK(F##_eq(&in[i], &out[i]));                 \
            F##_batch_inv_var(out, in, 0, scratch);                                         \
        }                                                                               \
        /* non-squares: count of legendre -1 among randoms, and sqrt refuses them */    \
        {                                                                               \
            int nonsq = 0;                                                              \
            for (int it = 0; it < 64; it++) {                                           \
                RAND(&a);                                                               \
                int l = F##_legendre(&a);                                               \
                CHECK(SQRT(&x, &a) == (l >= 0));                                    \
                nonsq += l < 0;                                                         \
            }                                                                           \
            CHECK(nonsq > 10 && nonsq < 54);                                            \
        }                                                                               \
    }

#define cuzk_fp_ONE_C CUZK_FP_ONE
#define cuzk_fp_ZERO_C CUZK_FP_ZERO
#define cuzk_fr_ONE_C CUZK_FR_ONE
#define cuzk_fr_ZERO_C CUZK_FR_ZERO
FIELD_TESTS(cuzk_fp, cuzk_fp, CUZK_FP_LIMBS, CUZK_FP_BYTES, CUZK_FP_MODULUS, test_rand_fp, cuzk_fp_sqrt)
FIELD_TESTS(cuzk_fr, cuzk_fr, CUZK_FR_LIMBS, CUZK_FR_BYTES, CUZK_FR_MODULUS, test_rand_fr, cuzk_fr_sqrt_var)

/* Fp-only: lexicographic order around (q-1)/2; Fr-only: reduction of 256-bit values. */
static void test_fp_lexmax(void)
{
    uint64_t half[CUZK_FP_LIMBS];
    memcpy(half, CUZK_FP_MODULUS, sizeof half);
    for (int i = 0; i < CUZK_FP_LIMBS; i++) /* (q-1)/2 = q >> 1 as q is odd */
        half[i] = (half[i] >> 1) | (i + 1 < CUZK_FP_LIMBS ? half[i + 1] << 63 : 0);
    cuzk_fp a, one, b;
    CHECK(cuzk_fp_from_limbs(&a, half) == CUZK_OK);
    CHECK(!cuzk_fp_is_lexmax(&a));
    cuzk_fp_from_u64(&one, 1);
    cuzk_fp_add(&b, &a, &one);
    CHECK(cuzk_fp_is_lexmax(&b));
    CHECK(!cuzk_fp_is_lexmax(&CUZK_FP_ZERO));
    CHECK(!cuzk_fp_is_lexmax(&one));
    cuzk_fp_neg(&b, &one);
    CHECK(cuzk_fp_is_lexmax(&b));
    for (int it = 0; it < ITERS; it++) { /* exactly one of a, -a is largest */
        test_rand_fp(&a);
        cuzk_fp_neg(&b, &a);
        CHECK(cuzk_fp_is_lexmax(&a) + cuzk_fp_is_lexmax(&b) == !cuzk_fp_is_zero(&a));
    }
}

static void test_fr_reduce(void)
{
    uint64_t v[CUZK_FR_LIMBS] = {~0ull, ~0ull, ~0ull, ~0ull}, w[CUZK_FR_LIMBS];
    cuzk_fr a, b, two64;
    cuzk_fr_from_limbs_reduce(&a, v); /* 2^256 - 1 = R - 1 mod r */
    cuzk_fr_from_u64(&b, 1);
    memcpy(w, CUZK_FR_ONE.l, sizeof w); /* the raw limbs of ONE are R mod r */
    cuzk_fr_from_limbs(&two64, w);
    cuzk_fr_sub(&b, &two64, &b);
    CHECK(cuzk_fr_eq(&a, &b));
    for (int it = 0; it < ITERS; it++) { /* v and v - r agree */
        for (int i = 0; i < 4; i++) v[i] = test_rand64();
        v[3] &= 0x7fffffffffffffffull;
        cuzk_fr_from_limbs_reduce(&a, v);
        if (cuzk_fr_from_limbs(&b, v) == CUZK_OK) CHECK(cuzk_fr_eq(&a, &b));
    }
}

int main(void)
{
    test_seed("test_ff");
    test_cuzk_fp();
    test_cuzk_fr();
    test_fp_lexmax();
    test_fr_reduce();
    return test_done("test_ff");
}
