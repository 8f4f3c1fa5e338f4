/* Fp6 = Fp2[v] / (v^3 - xi), xi = u + 1.
 *
 * Counts are in Fp2 operations (M = multiplication, S = squaring; additions
 * and multiplications by xi, which cost two Fp additions, not counted).
 * Outputs may alias inputs. */
#include <cuzk/ff.h>

#include "ff/tower.h"

/* Frobenius constants; see tower.h. Recomputed in tests/test_tower.c. */
const cuzk_fp cuzk_frob6_v[6] = {
    /* k=0: 1 */
    {{0x760900000002fffdull, 0xebf4000bc40c0002ull, 0x5f48985753c758baull,
      0x77ce585370525745ull, 0x5c071a97a256ec6dull, 0x15f65ec3fa80e493ull}},
    /* k=1: c1, constant = c1 u */
    {{0xcd03c9e48671f071ull, 0x5dab22461fcda5d2ull, 0x587042afd3851b95ull,
      0x8eb60ebe01bacb9eull, 0x03f97d6e83d050d2ull, 0x18f0206554638741ull}},
    /* k=2 */
    {{0x30f1361b798a64e8ull, 0xf3b8ddab7ece5a2aull, 0x16a8ca3ac61577f7ull,
      0xc26a2ff874fd029bull, 0x3636b76660701c6eull, 0x051ba4ab241b6160ull}},
    /* k=3: constant = u */
    {{0x760900000002fffdull, 0xebf4000bc40c0002ull, 0x5f48985753c758baull,
      0x77ce585370525745ull, 0x5c071a97a256ec6dull, 0x15f65ec3fa80e493ull}},
    /* k=4 */
    {{0xcd03c9e48671f071ull, 0x5dab22461fcda5d2ull, 0x587042afd3851b95ull,
      0x8eb60ebe01bacb9eull, 0x03f97d6e83d050d2ull, 0x18f0206554638741ull}},
    /* k=5: constant = c1 u */
    {{0x30f1361b798a64e8ull, 0xf3b8ddab7ece5a2aull, 0x16a8ca3ac61577f7ull,
      0xc26a2ff874fd029bull, 0x3636b76660701c6eull, 0x051ba4ab241b6160ull}},
};
const cuzk_fp cuzk_frob6_v2[6] = {
    /* k=0: 1 */
    {{0x760900000002fffdull, 0xebf4000bc40c0002ull, 0x5f48985753c758baull,
      0x77ce585370525745ull, 0x5c071a97a256ec6dull, 0x15f65ec3fa80e493ull}},
    /* k=1 */
    {{0x890dc9e4867545c3ull, 0x2af322533285a5d5ull, 0x50880866309b7e2cull,
      0xa20d1b8c7e881024ull, 0x14e4f04fe2db9068ull, 0x14e56d3f1564853aull}},
    /* k=2 */
    {{0xcd03c9e48671f071ull, 0x5dab22461fcda5d2ull, 0x587042afd3851b95ull,
      0x8eb60ebe01bacb9eull, 0x03f97d6e83d050d2ull, 0x18f0206554638741ull}},
    /* k=3: -1 */
    {{0x43f5fffffffcaaaeull, 0x32b7fff2ed47fffdull, 0x07e83a49a2e99d69ull,
      0xeca8f3318332bb7aull, 0xef148d1ea0f4c069ull, 0x040ab3263eff0206ull}},
    /* k=4 */
    {{0x30f1361b798a64e8ull, 0xf3b8ddab7ece5a2aull, 0x16a8ca3ac61577f7ull,
      0xc26a2ff874fd029bull, 0x3636b76660701c6eull, 0x051ba4ab241b6160ull}},
    /* k=5 */
    {{0xecfb361b798dba3aull, 0xc100ddb891865a2cull, 0x0ec08ff1232bda8eull,
      0xd5c13cc6f1ca4721ull, 0x47222a47bf7b5c04ull, 0x0110f184e51c5f59ull}},
};

void cuzk_fp6_add(cuzk_fp6 *r, const cuzk_fp6 *a, const cuzk_fp6 *b)
{
    cuzk_fp2_add(&r->c0, &a->c0, &b->c0);
    cuzk_fp2_add(&r->c1, &a->c1, &b->c1);
    cuzk_fp2_add(&r->c2, &a->c2, &b->c2);
}

void cuzk_fp6_sub(cuzk_fp6 *r, const cuzk_fp6 *a, const cuzk_fp6 *b)
{
    cuzk_fp2_sub(&r->c0, &a->c0, &b->c0);
    cuzk_fp2_sub(&r->c1, &a->c1, &b->c1);
    cuzk_fp2_sub(&r->c2, &a->c2, &b->c2);
}

void cuzk_fp6_neg(cuzk_fp6 *r, const cuzk_fp6 *a)
{
    cuzk_fp2_neg(&r->c0, &a->c0);
    cuzk_fp2_neg(&r->c1, &a->c1);
    cuzk_fp2_neg(&r->c2, &a->c2);
}

/* Karatsuba-style interpolation, 6M (Devegili, O hEigeartaigh, Scott,
 * Dahab 2006, "Multiplication and squaring on pairing-friendly fields"),
 * with lazy reduction: 18 wide Fp M + 6 REDC (Aranha et al. 2011; see tower.h):
 *   c0 = a0 b0 + xi ((a1 + a2)(b1 + b2) - a1 b1 - a2 b2)
 *   c1 = (a0 + a1)(b0 + b1) - a0 b0 - a1 b1 + xi a2 b2
 *   c2 = (a0 + a2)(b0 + b2) - a0 b0 - a2 b2 + a1 b1 */
void cuzk_fp6_mul(cuzk_fp6 *r, const cuzk_fp6 *a, const cuzk_fp6 *b)
{
    cuzk_fp2w t0, t1, t2, x, y;
    cuzk_fp2 s, u, c0, c1;
    cuzk_fp2w_mul(&t0, &a->c0, &b->c0);
    cuzk_fp2w_mul(&t1, &a->c1, &b->c1);
    cuzk_fp2w_mul(&t2, &a->c2, &b->c2);

    cuzk_fp2_add(&s, &a->c1, &a->c2);
    cuzk_fp2_add(&u, &b->c1, &b->c2);
    cuzk_fp2w_mul(&x, &s, &u);
    cuzk_fp2w_sub(&x, &x, &t1);
    cuzk_fp2w_sub(&x, &x, &t2);
    cuzk_fp2w_mul_nr(&x, &x);
    cuzk_fp2w_add(&x, &x, &t0);
    cuzk_fp2w_redc(&c0, &x);

    cuzk_fp2_add(&s, &a->c0, &a->c1);
    cuzk_fp2_add(&u, &b->c0, &b->c1);
    cuzk_fp2w_mul(&x, &s, &u);
    cuzk_fp2w_sub(&x, &x, &t0);
    cuzk_fp2w_sub(&x, &x, &t1);
    cuzk_fp2w_mul_nr(&y, &t2);
    cuzk_fp2w_add(&x, &x, &y);
    cuzk_fp2w_redc(&c1, &x);

    cuzk_fp2_add(&s, &a->c0, &a->c2);
    cuzk_fp2_add(&u, &b->c0, &b->c2);
    cuzk_fp2w_mul(&x, &s, &u);
    cuzk_fp2w_sub(&x, &x, &t0);
    cuzk_fp2w_sub(&x, &x, &t2);
    cuzk_fp2w_add(&x, &x, &t1);
    cuzk_fp2w_redc(&r->c2, &x);

    r->c0 = c0;
    r->c1 = c1;
}

/* Chung-Hasan SQR2, 2M + 3S (Chung & Hasan 2007, "Asymmetric squaring
 * formulae"; as in Devegili et al. 2006), with lazy reduction: 12 wide Fp M
 * + 6 REDC:
 *   s0 = a0^2, s1 = 2 a0 a1, s2 = (a0 - a1 + a2)^2, s3 = 2 a1 a2, s4 = a2^2
 *   c0 = s0 + xi s3, c1 = s1 + xi s4, c2 = s1 + s2 + s3 - s0 - s4 */
void cuzk_fp6_sqr(cuzk_fp6 *r, const cuzk_fp6 *a)
{
    cuzk_fp2w s0, s1, s2, s3, s4, t;
    cuzk_fp2 d, c0, c1;
    cuzk_fp2w_sqr(&s0, &a->c0);
    cuzk_fp2_dbl(&d, &a->c0);
    cuzk_fp2w_mul(&s1, &d, &a->c1);
    cuzk_fp2_sub(&d, &a->c0, &a->c1);
    cuzk_fp2_add(&d, &d, &a->c2);
    cuzk_fp2w_sqr(&s2, &d);
    cuzk_fp2_dbl(&d, &a->c2);
    cuzk_fp2w_mul(&s3, &a->c1, &d);
    cuzk_fp2w_sqr(&s4, &a->c2);

    cuzk_fp2w_mul_nr(&t, &s3);
    cuzk_fp2w_add(&t, &t, &s0);
    cuzk_fp2w_redc(&c0, &t);
    cuzk_fp2w_mul_nr(&t, &s4);
    cuzk_fp2w_add(&t, &t, &s1);
    cuzk_fp2w_redc(&c1, &t);
    cuzk_fp2w_add(&t, &s1, &s2);
    cuzk_fp2w_add(&t, &t, &s3);
    cuzk_fp2w_sub(&t, &t, &s0);
    cuzk_fp2w_sub(&t, &t, &s4);
    cuzk_fp2w_redc(&r->c2, &t);
    r->c0 = c0;
    r->c1 = c1;
}

/* 0M: (a0 + a1 v + a2 v^2) v = xi a2 + a0 v + a1 v^2. */
void cuzk_fp6_mul_v(cuzk_fp6 *r, const cuzk_fp6 *a)
{
    cuzk_fp2 t;
    cuzk_fp2_mul_nr(&t, &a->c2);
    r->c2 = a->c1;
    r->c1 = a->c0;
    r->c0 = t;
}

/* 5M with lazy reduction (15 wide Fp M + 6 REDC): a (b0 + b1 v),
 * Karatsuba on the (0, 1) coefficients:
 *   c0 = a0 b0 + xi a2 b1, c1 = (a0 + a1)(b0 + b1) - a0 b0 - a1 b1,
 *   c2 = a1 b1 + a2 b0 */
void cuzk_fp6_mul_by_01(cuzk_fp6 *r, const cuzk_fp6 *a, const cuzk_fp2 *b0, const cuzk_fp2 *b1)
{
    cuzk_fp2w t0, t1, x;
    cuzk_fp2 s, u, c0, c1;
    cuzk_fp2w_mul(&t0, &a->c0, b0);
    cuzk_fp2w_mul(&t1, &a->c1, b1);

    cuzk_fp2w_mul(&x, &a->c2, b1);
    cuzk_fp2w_mul_nr(&x, &x);
    cuzk_fp2w_add(&x, &x, &t0);
    cuzk_fp2w_redc(&c0, &x);

    cuzk_fp2_add(&s, &a->c0, &a->c1);
    cuzk_fp2_add(&u, b0, b1);
    cuzk_fp2w_mul(&x, &s, &u);
    cuzk_fp2w_sub(&x, &x, &t0);
    cuzk_fp2w_sub(&x, &x, &t1);
    cuzk_fp2w_redc(&c1, &x);

    cuzk_fp2w_mul(&x, &a->c2, b0);
    cuzk_fp2w_add(&x, &x, &t1);
    cuzk_fp2w_redc(&r->c2, &x);

    r->c0 = c0;
    r->c1 = c1;
}

/* 3M: a (b1 v) = xi a2 b1 + a0 b1 v + a1 b1 v^2. */
void cuzk_fp6_mul_by_1(cuzk_fp6 *r, const cuzk_fp6 *a, const cuzk_fp2 *b1)
{
    cuzk_fp2 c0, c1, c2;
    cuzk_fp2_mul(&c0, &a->c2, b1);
    cuzk_fp2_mul_nr(&c0, &c0);
    cuzk_fp2_mul(&c1, &a->c0, b1);
    cuzk_fp2_mul(&c2, &a->c1, b1);
    r->c0 = c0;
    r->c1 = c1;
    r->c2 = c2;
}

/* 3M. */
void cuzk_fp6_mul_fp2(cuzk_fp6 *r, const cuzk_fp6 *a, const cuzk_fp2 *b)
{
    cuzk_fp2 t = *b;
    cuzk_fp2_mul(&r->c0, &a->c0, &t);
    cuzk_fp2_mul(&r->c1, &a->c1, &t);
    cuzk_fp2_mul(&r->c2, &a->c2, &t);
}

/* Norm to Fp2, 9M + 3S + one Fp2 inversion (e.g. Scott 2007, "Implementing
 * cryptographic pairings"):
 *   A = a0^2 - xi a1 a2, B = xi a2^2 - a0 a1, C = a1^2 - a0 a2,
 *   F = a0 A + xi (a2 B + a1 C), 1/a = (A + B v + C v^2) / F */
void cuzk_fp6_inv(cuzk_fp6 *r, const cuzk_fp6 *a)
{
    cuzk_fp2 A, B, C, F, t;
    cuzk_fp2_sqr(&A, &a->c0);
    cuzk_fp2_mul(&t, &a->c1, &a->c2);
    cuzk_fp2_mul_nr(&t, &t);
    cuzk_fp2_sub(&A, &A, &t);

    cuzk_fp2_sqr(&B, &a->c2);
    cuzk_fp2_mul_nr(&B, &B);
    cuzk_fp2_mul(&t, &a->c0, &a->c1);
    cuzk_fp2_sub(&B, &B, &t);

    cuzk_fp2_sqr(&C, &a->c1);
    cuzk_fp2_mul(&t, &a->c0, &a->c2);
    cuzk_fp2_sub(&C, &C, &t);

    cuzk_fp2_mul(&F, &a->c2, &B);
    cuzk_fp2_mul(&t, &a->c1, &C);
    cuzk_fp2_add(&F, &F, &t);
    cuzk_fp2_mul_nr(&F, &F);
    cuzk_fp2_mul(&t, &a->c0, &A);
    cuzk_fp2_add(&F, &F, &t);

    cuzk_fp2_inv(&F, &F);
    cuzk_fp2_mul(&r->c0, &A, &F);
    cuzk_fp2_mul(&r->c1, &B, &F);
    cuzk_fp2_mul(&r->c2, &C, &F);
}

int cuzk_fp6_is_zero(const cuzk_fp6 *a)
{
    return cuzk_fp2_is_zero(&a->c0) & cuzk_fp2_is_zero(&a->c1) & cuzk_fp2_is_zero(&a->c2);
}

int cuzk_fp6_eq(const cuzk_fp6 *a, const cuzk_fp6 *b)
{
    return cuzk_fp2_eq(&a->c0, &b->c0) & cuzk_fp2_eq(&a->c1, &b->c1) &
           cuzk_fp2_eq(&a->c2, &b->c2);
}

/* (a0 + a1 v + a2 v^2)^(q^k) = a0^(q^k) + a1^(q^k) v^(q^k - 1) v
 * + a2^(q^k) v^(2(q^k - 1)) v^2: 4 Fp multiplications. */
void cuzk_fp6_frobenius(cuzk_fp6 *r, const cuzk_fp6 *a, unsigned power)
{
    unsigned k = power % 6;
    cuzk_fp2 c0, c1, c2;
    cuzk_fp2_frobenius(&c0, &a->c0, k);
    cuzk_fp2_frobenius(&c1, &a->c1, k);
    cuzk_fp2_frobenius(&c2, &a->c2, k);
    if (k & 1) {
        /* (x0 + x1 u) (c u) = -c x1 + c x0 u */
        cuzk_fp t;
        fp_mul_(&t, &c1.c1, &cuzk_frob6_v[k]);
        fp_mul_(&c1.c1, &c1.c0, &cuzk_frob6_v[k]);
        fp_neg_(&c1.c0, &t);
    } else {
        cuzk_fp2_mul_fp(&c1, &c1, &cuzk_frob6_v[k]);
    }
    cuzk_fp2_mul_fp(&c2, &c2, &cuzk_frob6_v2[k]);
    r->c0 = c0;
    r->c1 = c1;
    r->c2 = c2;
}
