/* Fp12 = Fp6[w] / (w^2 - v).
 *
 * Counts are in Fp6 operations unless stated (an Fp6 M is 6 Fp2 M = 18 Fp M).
 * Outputs may alias inputs. */
#include <cuzk/ff.h>

#include "ff/tower.h"

const cuzk_fp12 CUZK_FP12_ONE = {
    {{{{/* 2^384 mod q */
        0x760900000002fffdull, 0xebf4000bc40c0002ull, 0x5f48985753c758baull,
        0x77ce585370525745ull, 0x5c071a97a256ec6dull, 0x15f65ec3fa80e493ull}},
      {{0}}},
     {{{0}}, {{0}}},
     {{{0}}, {{0}}}},
    {{{{0}}, {{0}}}, {{{0}}, {{0}}}, {{{0}}, {{0}}}}};

/* w^(q^k - 1) = xi^((q^k - 1)/6); see tower.h. Recomputed in
 * tests/test_tower.c. */
const cuzk_fp2 cuzk_frob12_w[12] = {
    /* k=0 */
    {{{0x760900000002fffdull, 0xebf4000bc40c0002ull, 0x5f48985753c758baull,
       0x77ce585370525745ull, 0x5c071a97a256ec6dull, 0x15f65ec3fa80e493ull}},
     {{0x0000000000000000ull, 0x0000000000000000ull, 0x0000000000000000ull,
       0x0000000000000000ull, 0x0000000000000000ull, 0x0000000000000000ull}}},
    /* k=1 */
    {{{0x07089552b319d465ull, 0xc6695f92b50a8313ull, 0x97e83cccd117228full,
       0xa35baecab2dc29eeull, 0x1ce393ea5daace4dull, 0x08f2220fb0fb66ebull}},
     {{0xb2f66aad4ce5d646ull, 0x5842a06bfc497cecull, 0xcf4895d42599d394ull,
       0xc11b9cba40a8e8d0ull, 0x2e3813cbe5a0de89ull, 0x110eefda88847fafull}}},
    /* k=2 */
    {{{0xecfb361b798dba3aull, 0xc100ddb891865a2cull, 0x0ec08ff1232bda8eull,
       0xd5c13cc6f1ca4721ull, 0x47222a47bf7b5c04ull, 0x0110f184e51c5f59ull}},
     {{0x0000000000000000ull, 0x0000000000000000ull, 0x0000000000000000ull,
       0x0000000000000000ull, 0x0000000000000000ull, 0x0000000000000000ull}}},
    /* k=3 */
    {{{0x3e2f585da55c9ad1ull, 0x4294213d86c18183ull, 0x382844c88b623732ull,
       0x92ad2afd19103e18ull, 0x1d794e4fac7cf0b9ull, 0x0bd592fc7d825ec8ull}},
     {{0x7bcfa7a25aa30fdaull, 0xdc17dec12a927e7cull, 0x2f088dd86b4ebef1ull,
       0xd1ca2087da74d4a7ull, 0x2da2596696cebc1dull, 0x0e2b7eedbbfd87d2ull}}},
    /* k=4 */
    {{{0x30f1361b798a64e8ull, 0xf3b8ddab7ece5a2aull, 0x16a8ca3ac61577f7ull,
       0xc26a2ff874fd029bull, 0x3636b76660701c6eull, 0x051ba4ab241b6160ull}},
     {{0x0000000000000000ull, 0x0000000000000000ull, 0x0000000000000000ull,
       0x0000000000000000ull, 0x0000000000000000ull, 0x0000000000000000ull}}},
    /* k=5 */
    {{{0x3726c30af242c66cull, 0x7c2ac1aad1b6fe70ull, 0xa04007fbba4b14a2ull,
       0xef517c3266341429ull, 0x0095ba654ed2226bull, 0x02e370eccc86f7ddull}},
     {{0x82d83cf50dbce43full, 0xa2813e53df9d018full, 0xc6f0caa53c65e181ull,
       0x7525cf528d50fe95ull, 0x4a85ed50f4798a6bull, 0x171da0fd6cf8eebdull}}},
    /* k=6 */
    {{{0x43f5fffffffcaaaeull, 0x32b7fff2ed47fffdull, 0x07e83a49a2e99d69ull,
       0xeca8f3318332bb7aull, 0xef148d1ea0f4c069ull, 0x040ab3263eff0206ull}},
     {{0x0000000000000000ull, 0x0000000000000000ull, 0x0000000000000000ull,
       0x0000000000000000ull, 0x0000000000000000ull, 0x0000000000000000ull}}},
    /* k=7 */
    {{{0xb2f66aad4ce5d646ull, 0x5842a06bfc497cecull, 0xcf4895d42599d394ull,
       0xc11b9cba40a8e8d0ull, 0x2e3813cbe5a0de89ull, 0x110eefda88847fafull}},
     {{0x07089552b319d465ull, 0xc6695f92b50a8313ull, 0x97e83cccd117228full,
       0xa35baecab2dc29eeull, 0x1ce393ea5daace4dull, 0x08f2220fb0fb66ebull}}},
    /* k=8 */
    {{{0xcd03c9e48671f071ull, 0x5dab22461fcda5d2ull, 0x587042afd3851b95ull,
       0x8eb60ebe01bacb9eull, 0x03f97d6e83d050d2ull, 0x18f0206554638741ull}},
     {{0x0000000000000000ull, 0x0000000000000000ull, 0x0000000000000000ull,
       0x0000000000000000ull, 0x0000000000000000ull, 0x0000000000000000ull}}},
    /* k=9 */
    {{{0x7bcfa7a25aa30fdaull, 0xdc17dec12a927e7cull, 0x2f088dd86b4ebef1ull,
       0xd1ca2087da74d4a7ull, 0x2da2596696cebc1dull, 0x0e2b7eedbbfd87d2ull}},
     {{0x3e2f585da55c9ad1ull, 0x4294213d86c18183ull, 0x382844c88b623732ull,
       0x92ad2afd19103e18ull, 0x1d794e4fac7cf0b9ull, 0x0bd592fc7d825ec8ull}}},
    /* k=10 */
    {{{0x890dc9e4867545c3ull, 0x2af322533285a5d5ull, 0x50880866309b7e2cull,
       0xa20d1b8c7e881024ull, 0x14e4f04fe2db9068ull, 0x14e56d3f1564853aull}},
     {{0x0000000000000000ull, 0x0000000000000000ull, 0x0000000000000000ull,
       0x0000000000000000ull, 0x0000000000000000ull, 0x0000000000000000ull}}},
    /* k=11 */
    {{{0x82d83cf50dbce43full, 0xa2813e53df9d018full, 0xc6f0caa53c65e181ull,
       0x7525cf528d50fe95ull, 0x4a85ed50f4798a6bull, 0x171da0fd6cf8eebdull}},
     {{0x3726c30af242c66cull, 0x7c2ac1aad1b6fe70ull, 0xa04007fbba4b14a2ull,
       0xef517c3266341429ull, 0x0095ba654ed2226bull, 0x02e370eccc86f7ddull}}},
};

void cuzk_fp12_add(cuzk_fp12 *r, const cuzk_fp12 *a, const cuzk_fp12 *b)
{
    cuzk_fp6_add(&r->c0, &a->c0, &b->c0);
    cuzk_fp6_add(&r->c1, &a->c1, &b->c1);
}

void cuzk_fp12_sub(cuzk_fp12 *r, const cuzk_fp12 *a, const cuzk_fp12 *b)
{
    cuzk_fp6_sub(&r->c0, &a->c0, &b->c0);
    cuzk_fp6_sub(&r->c1, &a->c1, &b->c1);
}

/* Karatsuba, 3 Fp6 M = 54 Fp M (Devegili et al. 2006):
 *   c0 = a0 b0 + v a1 b1, c1 = (a0 + a1)(b0 + b1) - a0 b0 - a1 b1 */
void cuzk_fp12_mul(cuzk_fp12 *r, const cuzk_fp12 *a, const cuzk_fp12 *b)
{
    cuzk_fp6 t0, t1, s, u;
    cuzk_fp6_mul(&t0, &a->c0, &b->c0);
    cuzk_fp6_mul(&t1, &a->c1, &b->c1);
    cuzk_fp6_add(&s, &a->c0, &a->c1);
    cuzk_fp6_add(&u, &b->c0, &b->c1);
    cuzk_fp6_mul(&s, &s, &u);
    cuzk_fp6_sub(&s, &s, &t0);
    cuzk_fp6_sub(&r->c1, &s, &t1);
    cuzk_fp6_mul_v(&t1, &t1);
    cuzk_fp6_add(&r->c0, &t0, &t1);
}

/* Complex squaring, 2 Fp6 M = 36 Fp M (Devegili et al. 2006):
 *   t = a0 a1, c0 = (a0 + a1)(a0 + v a1) - t - v t, c1 = 2 t */
void cuzk_fp12_sqr(cuzk_fp12 *r, const cuzk_fp12 *a)
{
    cuzk_fp6 t, s, u;
    cuzk_fp6_mul(&t, &a->c0, &a->c1);
    cuzk_fp6_add(&s, &a->c0, &a->c1);
    cuzk_fp6_mul_v(&u, &a->c1);
    cuzk_fp6_add(&u, &u, &a->c0);
    cuzk_fp6_mul(&s, &s, &u);
    cuzk_fp6_sub(&s, &s, &t);
    cuzk_fp6_mul_v(&u, &t);
    cuzk_fp6_sub(&r->c0, &s, &u);
    cuzk_fp6_add(&r->c1, &t, &t);
}

/* Norm to Fp6, 2 Fp6 S + 2 Fp6 M + one Fp6 inversion:
 *   1/a = (a0 - a1 w) / (a0^2 - v a1^2) */
void cuzk_fp12_inv(cuzk_fp12 *r, const cuzk_fp12 *a)
{
    cuzk_fp6 t0, t1;
    cuzk_fp6_sqr(&t0, &a->c0);
    cuzk_fp6_sqr(&t1, &a->c1);
    cuzk_fp6_mul_v(&t1, &t1);
    cuzk_fp6_sub(&t0, &t0, &t1);
    cuzk_fp6_inv(&t0, &t0);
    cuzk_fp6_mul(&t1, &a->c1, &t0);
    cuzk_fp6_mul(&r->c0, &a->c0, &t0);
    cuzk_fp6_neg(&r->c1, &t1);
}

void cuzk_fp12_conj(cuzk_fp12 *r, const cuzk_fp12 *a)
{
    r->c0 = a->c0;
    cuzk_fp6_neg(&r->c1, &a->c1);
}

/* Left-to-right square and multiply; the exponent is public. */
void cuzk_fp12_pow(cuzk_fp12 *r, const cuzk_fp12 *a, const uint64_t *e, size_t n)
{
    cuzk_fp12 acc = CUZK_FP12_ONE, base = *a;
    for (size_t i = n; i-- > 0;) {
        for (int bit = 63; bit >= 0; bit--) {
            cuzk_fp12_sqr(&acc, &acc);
            if ((e[i] >> bit) & 1) cuzk_fp12_mul(&acc, &acc, &base);
        }
    }
    *r = acc;
}

int cuzk_fp12_is_one(const cuzk_fp12 *a)
{
    return cuzk_fp2_is_one(&a->c0.c0) & cuzk_fp2_is_zero(&a->c0.c1) &
           cuzk_fp2_is_zero(&a->c0.c2) & cuzk_fp6_is_zero(&a->c1);
}

int cuzk_fp12_eq(const cuzk_fp12 *a, const cuzk_fp12 *b)
{
    return cuzk_fp6_eq(&a->c0, &b->c0) & cuzk_fp6_eq(&a->c1, &b->c1);
}

/* (a0 + a1 w)^(q^k) = a0^(q^k) + a1^(q^k) w^(q^k - 1) w. */
void cuzk_fp12_frobenius(cuzk_fp12 *r, const cuzk_fp12 *a, unsigned power)
{
    unsigned k = power % 12;
    cuzk_fp6 c1;
    cuzk_fp6_frobenius(&c1, &a->c1, k);
    if (k & 1) {
        cuzk_fp6_mul_fp2(&c1, &c1, &cuzk_frob12_w[k]);
    } else { /* the constant lies in Fp */
        cuzk_fp2_mul_fp(&c1.c0, &c1.c0, &cuzk_frob12_w[k].c0);
        cuzk_fp2_mul_fp(&c1.c1, &c1.c1, &cuzk_frob12_w[k].c0);
        cuzk_fp2_mul_fp(&c1.c2, &c1.c2, &cuzk_frob12_w[k].c0);
    }
    cuzk_fp6_frobenius(&r->c0, &a->c0, k);
    r->c1 = c1;
}

/* Sparse line multiplication, 13 Fp2 M instead of 18 (the b = b0 + b1 w
 * with b0 = c0 + c1 v, b1 = c4 v case of Karatsuba):
 *   t0 = a0 b0 (5M), t1 = a1 b1 (3M),
 *   r0 = t0 + v t1, r1 = (a0 + a1)(b0 + b1) - t0 - t1 (5M) */
void cuzk_fp12_mul_by_014(cuzk_fp12 *r, const cuzk_fp12 *a, const cuzk_fp2 *c0,
                          const cuzk_fp2 *c1, const cuzk_fp2 *c4)
{
    cuzk_fp6 t0, t1, s;
    cuzk_fp2 b1;
    cuzk_fp6_mul_by_01(&t0, &a->c0, c0, c1);
    cuzk_fp6_mul_by_1(&t1, &a->c1, c4);
    cuzk_fp2_add(&b1, c1, c4);
    cuzk_fp6_add(&s, &a->c0, &a->c1);
    cuzk_fp6_mul_by_01(&s, &s, c0, &b1);
    cuzk_fp6_sub(&s, &s, &t0);
    cuzk_fp6_sub(&r->c1, &s, &t1);
    cuzk_fp6_mul_v(&t1, &t1);
    cuzk_fp6_add(&r->c0, &t0, &t1);
}

/* (x + y t)^2 in Fp4 = Fp2[t]/(t^2 - xi), 3 Fp2 S with lazy reduction
 * (6 wide Fp M + 4 REDC): x^2 + xi y^2 + ((x + y)^2 - x^2 - y^2) t. */
static void fp4_sqr(cuzk_fp2 *r0, cuzk_fp2 *r1, const cuzk_fp2 *x, const cuzk_fp2 *y)
{
    cuzk_fp2w t0, t1, s;
    cuzk_fp2 xy;
    cuzk_fp2w_sqr(&t0, x);
    cuzk_fp2w_sqr(&t1, y);
    cuzk_fp2_add(&xy, x, y);
    cuzk_fp2w_sqr(&s, &xy);
    cuzk_fp2w_sub(&s, &s, &t0);
    cuzk_fp2w_sub(&s, &s, &t1);
    cuzk_fp2w_redc(r1, &s);
    cuzk_fp2w_mul_nr(&t1, &t1);
    cuzk_fp2w_add(&t0, &t0, &t1);
    cuzk_fp2w_redc(r0, &t0);
}

/* r = 3 x - 2 g (sign = -1) or 3 x + 2 g (sign = +1), as 2 (x -+ g) + x. */
static void three_x_two_g(cuzk_fp2 *r, const cuzk_fp2 *x, const cuzk_fp2 *g, int plus)
{
    cuzk_fp2 t;
    if (plus)
        cuzk_fp2_add(&t, x, g);
    else
        cuzk_fp2_sub(&t, x, g);
    cuzk_fp2_dbl(&t, &t);
    cuzk_fp2_add(r, &t, x);
}

/* Granger-Scott 2010, "Faster squaring in the cyclotomic subgroup of sixth
 * degree extensions": 9 Fp2 S = 18 Fp M (vs 36 for cuzk_fp12_sqr).
 * View a as z0 + z1 s + z2 s^2 over Fp4 = Fp2[t], s = w, t = w^3:
 *   z0 = (c0.c0, c1.c1), z1 = (c1.c0, c0.c2), z2 = (c0.c1, c1.c2);
 *   a^2 = (3 z0^2 - 2 conj z0) + (3 t z2^2 + 2 conj z1) s
 *       + (3 z1^2 - 2 conj z2) s^2, conj(x + y t) = x - y t. */
void cuzk_fp12_cyclotomic_sqr(cuzk_fp12 *r, const cuzk_fp12 *a)
{
    cuzk_fp2 A0, A1, B0, B1, C0, C1;
    fp4_sqr(&A0, &A1, &a->c0.c0, &a->c1.c1);
    fp4_sqr(&B0, &B1, &a->c1.c0, &a->c0.c2);
    fp4_sqr(&C0, &C1, &a->c0.c1, &a->c1.c2);
    cuzk_fp2_mul_nr(&C1, &C1); /* t z2^2 = xi C1 + C0 t */

    three_x_two_g(&r->c0.c0, &A0, &a->c0.c0, 0);
    three_x_two_g(&r->c1.c1, &A1, &a->c1.c1, 1);
    three_x_two_g(&r->c1.c0, &C1, &a->c1.c0, 1);
    three_x_two_g(&r->c0.c2, &C0, &a->c0.c2, 0);
    three_x_two_g(&r->c0.c1, &B0, &a->c0.c1, 0);
    three_x_two_g(&r->c1.c2, &B1, &a->c1.c2, 1);
}
