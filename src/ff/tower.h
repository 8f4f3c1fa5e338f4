/* Private to the ff and pairing layers: inlined Fp helpers for the tower
 * code, lazy-reduction ("wide") arithmetic, the Frobenius constants, and
 * the sparse / cyclotomic operations the pairing needs beyond the public
 * API of <cuzk/ff.h>.
 *
 * Fp arithmetic goes through mont.h (mulx/adx kernels of fp.c where the CPU
 * has them, adc/sbb chains for additions), inlined here with a file-local
 * copy of the modulus instead of one library call per operation.
 */
#ifndef CUZK_FF_TOWER_H
#define CUZK_FF_TOWER_H

#include <stdint.h>

#include <cuzk/ff.h>

#include "ff/mont.h"

static const uint64_t TOWER_Q[CUZK_FP_LIMBS] = {
    0xb9feffffffffaaabull, 0x1eabfffeb153ffffull, 0x6730d2a0f6b0f624ull,
    0x64774b84f38512bfull, 0x4b1ba7b6434bacd7ull, 0x1a0111ea397fe69aull};
#define TOWER_N0 0x89f3fffcfffcfffdull /* -q^-1 mod 2^64 */

/* Fp additions inlined with the modulus as a file-local constant, instead of
 * one library call per addition. */
MONT_INLINE void fp_add_(cuzk_fp *r, const cuzk_fp *a, const cuzk_fp *b)
{
    mont_add(r->l, a->l, b->l, TOWER_Q, CUZK_FP_LIMBS);
}

MONT_INLINE void fp_sub_(cuzk_fp *r, const cuzk_fp *a, const cuzk_fp *b)
{
    mont_sub(r->l, a->l, b->l, TOWER_Q, CUZK_FP_LIMBS);
}

MONT_INLINE void fp_dbl_(cuzk_fp *r, const cuzk_fp *a)
{
    fp_add_(r, a, a);
}

MONT_INLINE void fp_neg_(cuzk_fp *r, const cuzk_fp *a)
{
    mont_neg(r->l, a->l, TOWER_Q, CUZK_FP_LIMBS);
}
MONT_INLINE void fp_mul_(cuzk_fp *r, const cuzk_fp *a, const cuzk_fp *b)
{
    mont_mul(r->l, a->l, b->l, TOWER_Q, TOWER_N0, CUZK_FP_LIMBS);
}

/* ------------------------------------------------ lazy reduction --
 *
 * Double-width ("wide") values: 12 limbs holding an integer in [0, q R),
 * R = 2^384, congruent to the intended value times R mod q — i.e. the raw
 * product of two Montgomery representatives. Sums and differences of wide
 * values are taken mod q R (a correction touches only the upper 6 limbs),
 * and one Montgomery reduction (REDC, valid for any input < q R) brings a
 * wide value back to a reduced Montgomery element. This is the lazy
 * reduction of Aranha, Karabina, Longa, Gebotys, Lopez 2011, "Faster
 * explicit formulas for computing pairings over ordinary curves": an
 * Fp2 product costs 3 wide multiplications + 2 REDC instead of 3 full
 * Montgomery multiplications, and an Fp6 product 18 wide multiplications +
 * 6 REDC instead of 18. Products of inputs < 2q are < 4 q^2 < q R (q < 2^381).
 */
typedef struct { uint64_t l[2 * CUZK_FP_LIMBS]; } cuzk_fpw;
typedef struct { cuzk_fpw c0, c1; } cuzk_fp2w;

#if CUZK_MONT_ASM
/* BMI2/ADX kernels in fp2.c, used when cuzk_mont_adx is set. */
MONT_HIDDEN void cuzk_fpw_mul6_adx(uint64_t r[12], const uint64_t a[6], const uint64_t b[6]);
MONT_HIDDEN void cuzk_fpw_redc6_adx(uint64_t r[6], const uint64_t t[12], const uint64_t p[6],
                                    uint64_t n0);
#endif

/* r = a b as a 768-bit integer (a, b < 2^384); 36 word multiplications.
 * r must not overlap a or b. */
MONT_INLINE void fpw_mul_(cuzk_fpw *r, const cuzk_fp *a, const cuzk_fp *b)
{
#if CUZK_MONT_ASM
    if (cuzk_mont_adx) {
        cuzk_fpw_mul6_adx(r->l, a->l, b->l);
        return;
    }
#endif
    uint64_t t[2 * CUZK_FP_LIMBS];
    uint64_t c = 0;
    for (int j = 0; j < CUZK_FP_LIMBS; j++) { /* row 0 */
        mont_u128 x = (mont_u128)a->l[j] * b->l[0] + c;
        t[j] = (uint64_t)x;
        c = (uint64_t)(x >> 64);
    }
    t[CUZK_FP_LIMBS] = c;
    for (int i = 1; i < CUZK_FP_LIMBS; i++) {
        c = 0;
        for (int j = 0; j < CUZK_FP_LIMBS; j++) {
            mont_u128 x = (mont_u128)a->l[j] * b->l[i] + t[i + j] + c;
            t[i + j] = (uint64_t)x;
            c = (uint64_t)(x >> 64);
        }
        t[i + CUZK_FP_LIMBS] = c;
    }
    for (int i = 0; i < 2 * CUZK_FP_LIMBS; i++) r->l[i] = t[i];
}

/* r = a + b mod q R (a, b < q R): the sum is < 2 q R < 2^768, and a
 * correction touches only the upper half. */
MONT_INLINE void fpw_add_(cuzk_fpw *r, const cuzk_fpw *a, const cuzk_fpw *b)
{
    uint64_t hi[CUZK_FP_LIMBS];
    unsigned char c = 0;
    for (int i = 0; i < CUZK_FP_LIMBS; i++) c = mont_addc(c, a->l[i], b->l[i], &r->l[i]);
    for (int i = 0; i < CUZK_FP_LIMBS; i++)
        c = mont_addc(c, a->l[CUZK_FP_LIMBS + i], b->l[CUZK_FP_LIMBS + i], &hi[i]);
    mont_reduce_once(r->l + CUZK_FP_LIMBS, hi, TOWER_Q, CUZK_FP_LIMBS);
}

/* r = a - b mod q R (a, b < q R). */
MONT_INLINE void fpw_sub_(cuzk_fpw *r, const cuzk_fpw *a, const cuzk_fpw *b)
{
    uint64_t hi[CUZK_FP_LIMBS];
    unsigned char c = 0;
    for (int i = 0; i < CUZK_FP_LIMBS; i++) c = mont_subb(c, a->l[i], b->l[i], &r->l[i]);
    for (int i = 0; i < CUZK_FP_LIMBS; i++)
        c = mont_subb(c, a->l[CUZK_FP_LIMBS + i], b->l[CUZK_FP_LIMBS + i], &hi[i]);
    uint64_t mask = 0 - (uint64_t)c;
    c = 0;
    for (int i = 0; i < CUZK_FP_LIMBS; i++)
        c = mont_addc(c, hi[i], TOWER_Q[i] & mask, &r->l[CUZK_FP_LIMBS + i]);
}

/* r = a - b as plain integers; the caller knows a >= b. */
MONT_INLINE void fpw_sub_nowrap_(cuzk_fpw *r, const cuzk_fpw *a, const cuzk_fpw *b)
{
    unsigned char c = 0;
    for (int i = 0; i < 2 * CUZK_FP_LIMBS; i++) c = mont_subb(c, a->l[i], b->l[i], &r->l[i]);
}

/* r = t R^-1 mod q for t < q R: Montgomery reduction (REDC), 36 word
 * multiplications; the pre-subtraction result is < 2q. */
MONT_INLINE void fpw_redc_(cuzk_fp *r, const cuzk_fpw *a)
{
#if CUZK_MONT_ASM
    if (cuzk_mont_adx) {
        cuzk_fpw_redc6_adx(r->l, a->l, TOWER_Q, TOWER_N0);
        return;
    }
#endif
    uint64_t t[2 * CUZK_FP_LIMBS], hi = 0;
    for (int i = 0; i < 2 * CUZK_FP_LIMBS; i++) t[i] = a->l[i];
    for (int i = 0; i < CUZK_FP_LIMBS; i++) {
        uint64_t m = t[i] * TOWER_N0, c = 0;
        for (int j = 0; j < CUZK_FP_LIMBS; j++) {
            mont_u128 x = (mont_u128)m * TOWER_Q[j] + t[i + j] + c;
            t[i + j] = (uint64_t)x;
            c = (uint64_t)(x >> 64);
        }
        mont_u128 x = (mont_u128)t[i + CUZK_FP_LIMBS] + c + hi;
        t[i + CUZK_FP_LIMBS] = (uint64_t)x;
        hi = (uint64_t)(x >> 64);
    }
    mont_reduce_once(r->l, t + CUZK_FP_LIMBS, TOWER_Q, CUZK_FP_LIMBS);
}

/* Wide Fp2, defined in fp2.c. Inputs of mul / sqr are reduced elements;
 * outputs and the other operations stay in [0, q R) per coordinate. */
void cuzk_fp2w_mul(cuzk_fp2w *r, const cuzk_fp2 *a, const cuzk_fp2 *b);
void cuzk_fp2w_sqr(cuzk_fp2w *r, const cuzk_fp2 *a);
void cuzk_fp2w_add(cuzk_fp2w *r, const cuzk_fp2w *a, const cuzk_fp2w *b);
void cuzk_fp2w_sub(cuzk_fp2w *r, const cuzk_fp2w *a, const cuzk_fp2w *b);
void cuzk_fp2w_mul_nr(cuzk_fp2w *r, const cuzk_fp2w *a);
void cuzk_fp2w_redc(cuzk_fp2 *r, const cuzk_fp2w *a);

/* Frobenius constants (Montgomery form; tests/test_tower.c recomputes each
 * from its definition). xi = u + 1.
 *   cuzk_frob12_w[k]  = xi^((q^k - 1)/6) = w^(q^k - 1), k = 0..11: in Fp for
 *                       even k, a full Fp2 element for odd k.
 *   cuzk_frob6_v[k]   = xi^((q^k - 1)/3) = v^(q^k - 1), k = 0..5: stored as
 *                       its one nonzero Fp coordinate — c0 for even k, c1
 *                       (the constant is c * u) for odd k.
 *   cuzk_frob6_v2[k]  = xi^(2(q^k - 1)/3) = v^(2(q^k - 1)), k = 0..5: in Fp. */
extern const cuzk_fp2 cuzk_frob12_w[12];
extern const cuzk_fp cuzk_frob6_v[6];
extern const cuzk_fp cuzk_frob6_v2[6];

/* r = a * (b0 + b1 v). */
void cuzk_fp6_mul_by_01(cuzk_fp6 *r, const cuzk_fp6 *a, const cuzk_fp2 *b0, const cuzk_fp2 *b1);
/* r = a * (b1 v). */
void cuzk_fp6_mul_by_1(cuzk_fp6 *r, const cuzk_fp6 *a, const cuzk_fp2 *b1);
/* r = a * b, b in Fp2. */
void cuzk_fp6_mul_fp2(cuzk_fp6 *r, const cuzk_fp6 *a, const cuzk_fp2 *b);
/* r = a * (c0 + c1 w^2 + c4 w^3): the tower slots 0 (c0.c0), 1 (c0.c1) and
 * 4 (c1.c1) — the shape of an M-type-twist line. */
void cuzk_fp12_mul_by_014(cuzk_fp12 *r, const cuzk_fp12 *a, const cuzk_fp2 *c0,
                          const cuzk_fp2 *c1, const cuzk_fp2 *c4);
/* r = a^2 for a in the cyclotomic subgroup (a^Phi_12(q) = 1, e.g. any
 * output of the easy part of the final exponentiation): Granger-Scott.
 * Wrong for other elements. */
void cuzk_fp12_cyclotomic_sqr(cuzk_fp12 *r, const cuzk_fp12 *a);

#endif /* CUZK_FF_TOWER_H */
