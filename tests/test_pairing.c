/* Property tests of the optimal ate pairing: a known answer (zkcrypto's
 * e(G1, G2)), bilinearity, non-degeneracy, order r, multi-pairing products,
 * prepared = unprepared Miller loops, points at infinity, and both final
 * exponentiations against a plain cuzk_fp12_pow by (q^12 - 1)/r (exponent
 * built here with a small bignum). */
#include <string.h>

#include <cuzk/ec.h>
#include <cuzk/pairing.h>

#include "pairing/pairing_internal.h"
#include "test_big.h"
#include "test_util.h"

/* ------------------------------------------------------------ bignum -- */

/* q = (a - 1) / m by schoolbook binary long division (m has mn limbs);
 * returns 1 if the division is exact. */
static int big_div_exact_minus_one(big *q, const big *a, const uint64_t *m, size_t mn)
{
    big x = *a;
    uint64_t k = 1;
    for (size_t i = 0; i < x.n && k; i++) { /* x = a - 1 */
        uint64_t old = x.l[i];
        x.l[i] = old - k;
        k = old < k;
    }
    uint64_t rem[8] = {0};
    memset(q, 0, sizeof *q);
    q->n = x.n;
    for (size_t bit = x.n * 64; bit-- > 0;) {
        /* rem = 2 rem + bit */
        uint64_t in = (x.l[bit / 64] >> (bit % 64)) & 1;
        for (size_t i = 0; i <= mn; i++) {
            uint64_t out = rem[i] >> 63;
            rem[i] = (rem[i] << 1) | in;
            in = out;
        }
        /* if rem >= m: rem -= m */
        int ge = 1;
        for (size_t i = mn + 1; i-- > 0;) {
            uint64_t mi = i < mn ? m[i] : 0;
            if (rem[i] != mi) { ge = rem[i] > mi; break; }
        }
        if (ge) {
            uint64_t borrow = 0;
            for (size_t i = 0; i <= mn; i++) {
                uint64_t mi = i < mn ? m[i] : 0;
                unsigned __int128 d = (unsigned __int128)rem[i] - mi - borrow;
                rem[i] = (uint64_t)d;
                borrow = (uint64_t)(d >> 64) & 1;
            }
            q->l[bit / 64] |= 1ull << (bit % 64);
        }
    }
    while (q->n > 1 && q->l[q->n - 1] == 0) q->n--;
    uint64_t acc = 0;
    for (size_t i = 0; i <= mn; i++) acc |= rem[i];
    return acc == 0;
}

/* ----------------------------------------------------------- helpers -- */

static void fp_hex(cuzk_fp *r, const char *hex)
{
    uint8_t be[CUZK_FP_BYTES];
    for (size_t i = 0; i < CUZK_FP_BYTES; i++) {
        unsigned v;
        sscanf(hex + 2 * i, "%2x", &v);
        be[i] = (uint8_t)v;
    }
    CHECK(cuzk_fp_from_be(r, be) == CUZK_OK);
}

static void g1_mul(cuzk_g1_affine *r, const cuzk_g1_affine *p, const cuzk_fr *k)
{
    cuzk_g1_jac j;
    cuzk_g1_from_affine(&j, p);
    cuzk_g1_mul(&j, &j, k);
    cuzk_g1_to_affine(r, &j);
}

static void g2_mul(cuzk_g2_affine *r, const cuzk_g2_affine *p, const cuzk_fr *k)
{
    cuzk_g2_jac j;
    cuzk_g2_from_affine(&j, p);
    cuzk_g2_mul(&j, &j, k);
    cuzk_g2_to_affine(r, &j);
}

static void fp12_pow_fr(cuzk_fp12 *r, const cuzk_fp12 *a, const cuzk_fr *k)
{
    uint64_t e[CUZK_FR_LIMBS];
    cuzk_fr_to_limbs(e, k);
    cuzk_fp12_pow(r, a, e, CUZK_FR_LIMBS);
}

static void rand_fp12(cuzk_fp12 *r)
{
    test_rand_fp2(&r->c0.c0);
    test_rand_fp2(&r->c0.c1);
    test_rand_fp2(&r->c0.c2);
    test_rand_fp2(&r->c1.c0);
    test_rand_fp2(&r->c1.c1);
    test_rand_fp2(&r->c1.c2);
}

static void rand_g1(cuzk_g1_affine *r)
{
    cuzk_fr k;
    test_rand_fr(&k);
    g1_mul(r, &CUZK_G1_GENERATOR, &k);
}

static void rand_g2(cuzk_g2_affine *r)
{
    cuzk_fr k;
    test_rand_fr(&k);
    g2_mul(r, &CUZK_G2_GENERATOR, &k);
}

/* e(G1, G2) as zkcrypto (github.com/zkcrypto/bls12_381, Gt::generator()),
 * noble and blst compute it, tower order c0.c0.c0, c0.c0.c1, c0.c1.c0, ... */
static const char *const GT_GEN_HEX[12] = {
    "1250ebd871fc0a92a7b2d83168d0d727272d441befa15c503dd8e90ce98db3e7b6d194f60839c508a84305aaca1789b6",
    "089a1c5b46e5110b86750ec6a532348868a84045483c92b7af5af689452eafabf1a8943e50439f1d59882a98eaa0170f",
    "1368bb445c7c2d209703f239689ce34c0378a68e72a6b3b216da0e22a5031b54ddff57309396b38c881c4c849ec23e87",
    "193502b86edb8857c273fa075a50512937e0794e1e65a7617c90d8bd66065b1fffe51d7a579973b1315021ec3c19934f",
    "01b2f522473d171391125ba84dc4007cfbf2f8da752f7c74185203fcca589ac719c34dffbbaad8431dad1c1fb597aaa5",
    "018107154f25a764bd3c79937a45b84546da634b8f6be14a8061e55cceba478b23f7dacaa35c8ca78beae9624045b4b6",
    "19f26337d205fb469cd6bd15c3d5a04dc88784fbb3d0b2dbdea54d43b2b73f2cbb12d58386a8703e0f948226e47ee89d",
    "06fba23eb7c5af0d9f80940ca771b6ffd5857baaf222eb95a7d2809d61bfe02e1bfd1b68ff02f0b8102ae1c2d5d5ab1a",
    "11b8b424cd48bf38fcef68083b0b0ec5c81a93b330ee1a677d0d15ff7b984e8978ef48881e32fac91b93b47333e2ba57",
    "03350f55a7aefcd3c31b4fcb6ce5771cc6a0e9786ab5973320c806ad360829107ba810c5a09ffdd9be2291a0c25a99a2",
    "04c581234d086a9902249b64728ffd21a189e87935a954051c7cdba7b3872629a4fafc05066245cb9108f0242d0fe3ef",
    "0f41e58663bf08cf068672cbd01a7ec73baca4d72ca93544deff686bfd6df543d48eaa24afe47e1efde449383b676631",
};

static void fp12_from_hex(cuzk_fp12 *r, const char *const hex[12])
{
    cuzk_fp2 *c[6] = {&r->c0.c0, &r->c0.c1, &r->c0.c2, &r->c1.c0, &r->c1.c1, &r->c1.c2};
    for (int i = 0; i < 6; i++) {
        fp_hex(&c[i]->c0, hex[2 * i]);
        fp_hex(&c[i]->c1, hex[2 * i + 1]);
    }
}

/* ------------------------------------------------------------- tests -- */

static void test_known_answer(void)
{
    cuzk_fp12 want, e, f, x;
    fp12_from_hex(&want, GT_GEN_HEX);
    cuzk_pairing(&e, &CUZK_G1_GENERATOR, &CUZK_G2_GENERATOR);
    CHECK_MSG(cuzk_fp12_eq(&e, &want), "e(G1, G2) != zkcrypto Gt::generator()");
    /* the textbook value is its cube root */
    cuzk_miller_loop(&f, &CUZK_G1_GENERATOR, &CUZK_G2_GENERATOR, 1);
    cuzk_final_exp_exact(&x, &f);
    CHECK(!cuzk_fp12_eq(&x, &want));
    uint64_t three = 3;
    cuzk_fp12_pow(&x, &x, &three, 1);
    CHECK(cuzk_fp12_eq(&x, &want));
}

static void test_final_exp(void)
{
    big q, q12, E, E3;
    big_set(&q, CUZK_FP_MODULUS, CUZK_FP_LIMBS);
    uint64_t one = 1, three = 3;
    big_set(&q12, &one, 1);
    for (int i = 0; i < 12; i++) big_mul(&q12, &q12, &q);
    CHECK(big_div_exact_minus_one(&E, &q12, CUZK_FR_MODULUS, CUZK_FR_LIMBS));
    big b3;
    big_set(&b3, &three, 1);
    big_mul(&E3, &E, &b3);

    for (int it = 0; it < 3; it++) {
        cuzk_fp12 f, want, got;
        if (it == 0)
            cuzk_miller_loop(&f, &CUZK_G1_GENERATOR, &CUZK_G2_GENERATOR, 1);
        else
            rand_fp12(&f);
        cuzk_fp12_pow(&want, &f, E.l, E.n);
        cuzk_final_exp_exact(&got, &f);
        CHECK_MSG(cuzk_fp12_eq(&got, &want), "final_exp_exact != f^((q^12-1)/r), it %d", it);
        cuzk_fp12_pow(&want, &f, E3.l, E3.n);
        got = f;
        cuzk_final_exp(&got, &got); /* in place */
        CHECK_MSG(cuzk_fp12_eq(&got, &want), "final_exp != f^(3(q^12-1)/r), it %d", it);
        /* the result has order r */
        cuzk_fp12_pow(&got, &got, CUZK_FR_MODULUS, CUZK_FR_LIMBS);
        CHECK(cuzk_fp12_is_one(&got));
    }
}

static void test_bilinear(void)
{
    const cuzk_g1_affine *G = &CUZK_G1_GENERATOR;
    const cuzk_g2_affine *H = &CUZK_G2_GENERATOR;
    cuzk_fp12 e, x, y;
    cuzk_pairing(&e, G, H);
    CHECK(!cuzk_fp12_is_one(&e)); /* non-degenerate */
    cuzk_fp12_pow(&x, &e, CUZK_FR_MODULUS, CUZK_FR_LIMBS);
    CHECK(cuzk_fp12_is_one(&x)); /* e^r = 1 */

    for (int it = 0; it < 4; it++) {
        cuzk_fr a, b, ab;
        test_rand_fr(&a);
        test_rand_fr(&b);
        cuzk_fr_mul(&ab, &a, &b);
        cuzk_g1_affine aP, abP, P;
        cuzk_g2_affine bQ, aQ, Q;
        g1_mul(&aP, G, &a);
        g1_mul(&abP, G, &ab);
        g2_mul(&bQ, H, &b);
        g2_mul(&aQ, H, &a);

        /* e(aG, bH) = e(G, H)^(ab) = e(abG, H) */
        cuzk_pairing(&x, &aP, &bQ);
        fp12_pow_fr(&y, &e, &ab);
        CHECK(cuzk_fp12_eq(&x, &y));
        cuzk_pairing(&y, &abP, H);
        CHECK(cuzk_fp12_eq(&x, &y));
        /* e(aG, H) = e(G, aH) */
        cuzk_pairing(&x, &aP, H);
        cuzk_pairing(&y, G, &aQ);
        CHECK(cuzk_fp12_eq(&x, &y));

        /* random points: e(aP, Q) = e(P, aQ) = e(P, Q)^a, order r */
        rand_g1(&P);
        rand_g2(&Q);
        cuzk_fp12 pq;
        cuzk_pairing(&pq, &P, &Q);
        CHECK(!cuzk_fp12_is_one(&pq));
        cuzk_fp12_pow(&x, &pq, CUZK_FR_MODULUS, CUZK_FR_LIMBS);
        CHECK(cuzk_fp12_is_one(&x));
        g1_mul(&aP, &P, &a);
        g2_mul(&aQ, &Q, &a);
        cuzk_pairing(&x, &aP, &Q);
        cuzk_pairing(&y, &P, &aQ);
        CHECK(cuzk_fp12_eq(&x, &y));
        fp12_pow_fr(&y, &pq, &a);
        CHECK(cuzk_fp12_eq(&x, &y));
        /* e(P + P', Q) = e(P, Q) e(P', Q) */
        cuzk_g1_jac s;
        cuzk_g1_affine sum;
        cuzk_g1_from_affine(&s, &P);
        cuzk_g1_add_mixed(&s, &s, &aP);
        cuzk_g1_to_affine(&sum, &s);
        cuzk_pairing(&x, &sum, &Q);
        cuzk_pairing(&y, &aP, &Q);
        cuzk_fp12_mul(&y, &y, &pq);
        CHECK(cuzk_fp12_eq(&x, &y));
        /* the textbook pairing is bilinear too */
        cuzk_fp12 f;
        cuzk_miller_loop(&f, &P, &aQ, 1);
        cuzk_final_exp_exact(&x, &f);
        cuzk_miller_loop(&f, &P, &Q, 1);
        cuzk_final_exp_exact(&y, &f);
        fp12_pow_fr(&y, &y, &a);
        CHECK(cuzk_fp12_eq(&x, &y));
    }
}

static void test_multi(void)
{
    enum { N = 11 }; /* more than one chunk of the multi-Miller loop */
    cuzk_g1_affine p[N + 1];
    cuzk_g2_affine q[N + 1];
    cuzk_fp12 prod = CUZK_FP12_ONE, x, f;

    /* e(P, Q) e(-P, Q) = 1, e(P, Q) e(P, -Q) = 1, e(P, Q)^2 != 1 */
    rand_g1(&p[0]);
    rand_g2(&q[0]);
    cuzk_g1_affine_neg(&p[1], &p[0]);
    q[1] = q[0];
    CHECK(cuzk_pairing_product_is_one(p, q, 2));
    p[1] = p[0];
    cuzk_g2_affine_neg(&q[1], &q[0]);
    CHECK(cuzk_pairing_product_is_one(p, q, 2));
    q[1] = q[0];
    CHECK(!cuzk_pairing_product_is_one(p, q, 2));
    CHECK(!cuzk_pairing_product_is_one(p, q, 1));

    /* prod_i e(a_i G, b_i H) e(-(sum a_i b_i) G, H) = 1, and the Miller
     * loop of the product equals the product of the pairings */
    cuzk_fr acc = CUZK_FR_ZERO;
    for (int i = 0; i < N; i++) {
        cuzk_fr a, b, ab;
        test_rand_fr(&a);
        test_rand_fr(&b);
        cuzk_fr_mul(&ab, &a, &b);
        cuzk_fr_add(&acc, &acc, &ab);
        g1_mul(&p[i], &CUZK_G1_GENERATOR, &a);
        g2_mul(&q[i], &CUZK_G2_GENERATOR, &b);
        cuzk_pairing(&x, &p[i], &q[i]);
        cuzk_fp12_mul(&prod, &prod, &x);
    }
    cuzk_miller_loop(&f, p, q, N);
    cuzk_final_exp(&x, &f);
    CHECK(cuzk_fp12_eq(&x, &prod));
    cuzk_fr_neg(&acc, &acc);
    g1_mul(&p[N], &CUZK_G1_GENERATOR, &acc);
    q[N] = CUZK_G2_GENERATOR;
    CHECK(cuzk_pairing_product_is_one(p, q, N + 1));
    CHECK(!cuzk_pairing_product_is_one(p, q, N));

    /* prepared = unprepared, value for value (same line formulas) */
    static cuzk_g2_prepared prep[N + 1];
    for (int i = 0; i <= N; i++) cuzk_g2_prepare(&prep[i], &q[i]);
    cuzk_fp12 f2;
    cuzk_miller_loop(&f, p, q, N + 1);
    cuzk_miller_loop_prepared(&f2, p, prep, N + 1);
    CHECK(cuzk_fp12_eq(&f, &f2));
    cuzk_final_exp(&f2, &f2);
    CHECK(cuzk_fp12_is_one(&f2));
    cuzk_miller_loop(&f, p, q, 1);
    cuzk_miller_loop_prepared(&f2, p, prep, 1);
    CHECK(cuzk_fp12_eq(&f, &f2));
}

static void test_infinity(void)
{
    cuzk_g1_affine p[3], inf1;
    cuzk_g2_affine q[3], inf2;
    memset(&inf1, 0, sizeof inf1);
    memset(&inf2, 0, sizeof inf2);
    cuzk_fp12 x, y, f;

    cuzk_pairing(&x, &inf1, &CUZK_G2_GENERATOR);
    CHECK(cuzk_fp12_is_one(&x));
    cuzk_pairing(&x, &CUZK_G1_GENERATOR, &inf2);
    CHECK(cuzk_fp12_is_one(&x));
    cuzk_pairing(&x, &inf1, &inf2);
    CHECK(cuzk_fp12_is_one(&x));
    cuzk_miller_loop(&f, p, q, 0);
    CHECK(cuzk_fp12_is_one(&f));
    CHECK(cuzk_pairing_product_is_one(p, q, 0));

    /* pairs with a point at infinity do not change the product */
    rand_g1(&p[0]);
    rand_g2(&q[0]);
    p[1] = inf1;
    rand_g2(&q[1]);
    rand_g1(&p[2]);
    q[2] = inf2;
    cuzk_miller_loop(&f, p, q, 3);
    cuzk_final_exp(&x, &f);
    cuzk_pairing(&y, &p[0], &q[0]);
    CHECK(cuzk_fp12_eq(&x, &y));

    cuzk_g2_prepared prep[3];
    for (int i = 0; i < 3; i++) cuzk_g2_prepare(&prep[i], &q[i]);
    CHECK(!prep[0].inf && !prep[1].inf && prep[2].inf);
    cuzk_fp12 f2;
    cuzk_miller_loop_prepared(&f2, p, prep, 3);
    CHECK(cuzk_fp12_eq(&f, &f2));
    cuzk_miller_loop_prepared(&f2, p + 1, prep + 1, 2);
    CHECK(cuzk_fp12_is_one(&f2));
    CHECK(cuzk_pairing_product_is_one(p + 1, q + 1, 2));
}

int main(void)
{
    test_seed("test_pairing");
    test_known_answer();
    test_final_exp();
    test_bilinear();
    test_multi();
    test_infinity();
    return test_done("test_pairing");
}
