/* Inline Fp and Fp2 additions for the MSM's inner loops.
 *
 * The bucket work calls a modular addition or subtraction for every
 * multiplication or so (a batch-affine addition: 5 M + 1 S and 5
 * subtractions); as calls into fp.c they took ~10% of a prover's time in
 * `perf` (cuzk_fp_sub alone), mostly call and spill overhead around a
 * dozen instructions. These wrappers inline the same adc/sbb chains of
 * ff/mont.h; multiplication and squaring stay calls (to the mulx/adx
 * kernels). Used as F(name) by g1_msm.c (msm_fp_) and g2_msm.c (msm_fp2_). */
#ifndef CUZK_MSM_FIELD_H
#define CUZK_MSM_FIELD_H

#include <cuzk/ff.h>

#include "ff/mont.h"

#define MSM_FIELD_INLINE static inline __attribute__((always_inline))

MSM_FIELD_INLINE void msm_fp_add(cuzk_fp *r, const cuzk_fp *a, const cuzk_fp *b)
{
    mont_add(r->l, a->l, b->l, CUZK_FP_MODULUS, CUZK_FP_LIMBS);
}
MSM_FIELD_INLINE void msm_fp_sub(cuzk_fp *r, const cuzk_fp *a, const cuzk_fp *b)
{
    mont_sub(r->l, a->l, b->l, CUZK_FP_MODULUS, CUZK_FP_LIMBS);
}
MSM_FIELD_INLINE void msm_fp_dbl(cuzk_fp *r, const cuzk_fp *a)
{
    mont_add(r->l, a->l, a->l, CUZK_FP_MODULUS, CUZK_FP_LIMBS);
}
MSM_FIELD_INLINE void msm_fp_neg(cuzk_fp *r, const cuzk_fp *a)
{
    mont_neg(r->l, a->l, CUZK_FP_MODULUS, CUZK_FP_LIMBS);
}
MSM_FIELD_INLINE int msm_fp_is_zero(const cuzk_fp *a)
{
    return (int)mont_is_zero(a->l, CUZK_FP_LIMBS);
}
MSM_FIELD_INLINE int msm_fp_eq(const cuzk_fp *a, const cuzk_fp *b)
{
    return (int)mont_eq(a->l, b->l, CUZK_FP_LIMBS);
}
MSM_FIELD_INLINE void msm_fp_mul(cuzk_fp *r, const cuzk_fp *a, const cuzk_fp *b)
{
    cuzk_fp_mul(r, a, b);
}
MSM_FIELD_INLINE void msm_fp_sqr(cuzk_fp *r, const cuzk_fp *a) { cuzk_fp_sqr(r, a); }

MSM_FIELD_INLINE void msm_fp2_add(cuzk_fp2 *r, const cuzk_fp2 *a, const cuzk_fp2 *b)
{
    msm_fp_add(&r->c0, &a->c0, &b->c0);
    msm_fp_add(&r->c1, &a->c1, &b->c1);
}
MSM_FIELD_INLINE void msm_fp2_sub(cuzk_fp2 *r, const cuzk_fp2 *a, const cuzk_fp2 *b)
{
    msm_fp_sub(&r->c0, &a->c0, &b->c0);
    msm_fp_sub(&r->c1, &a->c1, &b->c1);
}
MSM_FIELD_INLINE void msm_fp2_dbl(cuzk_fp2 *r, const cuzk_fp2 *a)
{
    msm_fp_dbl(&r->c0, &a->c0);
    msm_fp_dbl(&r->c1, &a->c1);
}
MSM_FIELD_INLINE void msm_fp2_neg(cuzk_fp2 *r, const cuzk_fp2 *a)
{
    msm_fp_neg(&r->c0, &a->c0);
    msm_fp_neg(&r->c1, &a->c1);
}
MSM_FIELD_INLINE int msm_fp2_is_zero(const cuzk_fp2 *a)
{
    return msm_fp_is_zero(&a->c0) & msm_fp_is_zero(&a->c1);
}
MSM_FIELD_INLINE int msm_fp2_eq(const cuzk_fp2 *a, const cuzk_fp2 *b)
{
    return msm_fp_eq(&a->c0, &b->c0) & msm_fp_eq(&a->c1, &b->c1);
}
MSM_FIELD_INLINE void msm_fp2_mul(cuzk_fp2 *r, const cuzk_fp2 *a, const cuzk_fp2 *b)
{
    cuzk_fp2_mul(r, a, b);
}
MSM_FIELD_INLINE void msm_fp2_sqr(cuzk_fp2 *r, const cuzk_fp2 *a) { cuzk_fp2_sqr(r, a); }

#endif /* CUZK_MSM_FIELD_H */
