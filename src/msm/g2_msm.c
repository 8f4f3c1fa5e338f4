/* MSM on G2: the code is msm_impl.h; this file sets its parameters. */
#include <cuzk/ec.h>
#include <cuzk/msm.h>

#include "common/parallel.h"
#include "msm/msm_field.h"
#include "msm/msm_internal.h"

/* 1 / (a0 + a1 u) = (a0 - a1 u) / (a0^2 + a1^2) (u^2 = -1): one Fp
 * inversion (variable time) + 2M + 2S. 1/0 = 0. */
static void fp2_inv_var(cuzk_fp2 *r, const cuzk_fp2 *a)
{
    cuzk_fp t0, t1;
    cuzk_fp_sqr(&t0, &a->c0);
    cuzk_fp_sqr(&t1, &a->c1);
    cuzk_fp_add(&t0, &t0, &t1);
    cuzk_fp_inv_var(&t0, &t0);
    cuzk_fp_mul(&r->c0, &a->c0, &t0);
    cuzk_fp_mul(&t1, &a->c1, &t0);
    cuzk_fp_neg(&r->c1, &t1);
}

#define FE cuzk_fp2
#define F(name) msm_fp2_##name /* msm_field.h: inline additions */
#define FE_ONE_ CUZK_FP2_ONE
#define FE_INV_VAR fp2_inv_var
#define G(name) cuzk_g2_##name
#define AFF cuzk_g2_affine
#define JAC cuzk_g2_jac
#define XYZZ cuzk_g2_xyzz
#define VEC cuzk_g2_msm_vec
/* Costs in G2 mixed additions (2.1 us on the 16-core Xeon, 2.7x a G1 one);
 * XYZZ additions and doublings keep about the G1 ratios, thread start is
 * relatively cheaper. ba_point: an Fp2 inversion is relatively cheaper
 * than an Fp one, so batches save a little more than on G1. */
#define MSM_COSTS {.ba_point = 0.55, .aff_bytes = sizeof(AFF), .bucket = 0.9, .dbl = 0.85, .thread = 15, .bucket_bytes = sizeof(XYZZ)}
/* An Fp2 inversion is an Fp one plus 4 multiplications, and a G2 pair
 * saves ~2.5x what a G1 pair saves: levels pay from about 24 points. */
#define BSUM_STOP 24

/* GLV on G2 through psi^2 (psi the untwist-Frobenius-twist endomorphism):
 * psi acts on G2 as [x] (x the BLS parameter; p = x mod r), so psi^2 is
 * [x^2] = [L], the same L as on G1, and on this curve psi^2(x, y) =
 * (omega x, -y) with omega = beta^2 (beta of g1_msm.c; the other cube root
 * beta gives [-L - 1] instead; checked by tests/test_msm.c). So the G1
 * split k = k1 + k2 L serves unchanged: [k] P = [k1] P + [k2] psi^2(P),
 * for 2 Fp multiplications per point. */
static const cuzk_fp MSM_G2_OMEGA = {{0xcd03c9e48671f071ull, 0x5dab22461fcda5d2ull,
                                      0x587042afd3851b95ull, 0x8eb60ebe01bacb9eull,
                                      0x03f97d6e83d050d2ull, 0x18f0206554638741ull}};

/* r = psi^2(p) = [L] p; infinity (0, 0) stays (0, 0). */
static inline void g2_psi2(cuzk_g2_affine *r, const cuzk_g2_affine *p)
{
    cuzk_fp_mul(&r->x.c0, &p->x.c0, &MSM_G2_OMEGA);
    cuzk_fp_mul(&r->x.c1, &p->x.c1, &MSM_G2_OMEGA);
    cuzk_fp2_neg(&r->y, &p->y);
}
#define GLV_NEG_PHI g2_psi2

/* Batch inversion over Fp norms (msm_impl.h, BI): 1/d = conj(d) / (d0^2 +
 * d1^2), so Montgomery's trick multiplies in Fp (3 M per addition) rather
 * than in Fp2 (3 Fp2 M, ~2.9 Fp M each), for 2 S to form each norm and 2 M
 * to undo it. Measured (2-core EPYC, 1 thread, CPU time, best of 3): G2
 * 5022 points, c = 11: 96.3 -> 91.2 ms. */
static inline void g2_norm(cuzk_fp *r, const cuzk_fp2 *d)
{
    cuzk_fp t;
    cuzk_fp_sqr(r, &d->c0);
    cuzk_fp_sqr(&t, &d->c1);
    msm_fp_add(r, r, &t);
}
static inline void g2_undo_norm(cuzk_fp2 *r, const cuzk_fp *t, const cuzk_fp2 *d)
{
    cuzk_fp_mul(&r->c0, &d->c0, t);
    cuzk_fp_mul(&r->c1, &d->c1, t);
    msm_fp_neg(&r->c1, &r->c1);
}
#define BI cuzk_fp
#define BI_OF g2_norm
#define BI_MUL cuzk_fp_mul
#define BI_INV_VAR cuzk_fp_inv_var
#define BI_UNDO g2_undo_norm
#define BI_STORE
#include "msm/msm_impl.h"
