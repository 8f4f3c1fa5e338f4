/* MSM on G2: the code is msm_impl.h; this file sets its parameters. */
#include <cuzk/ec.h>
#include <cuzk/msm.h>

#include "common/parallel.h"
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
#define F(name) cuzk_fp2_##name
#define FE_ONE_ CUZK_FP2_ONE
#define FE_INV_VAR fp2_inv_var
#define G(name) cuzk_g2_##name
#define AFF cuzk_g2_affine
#define JAC cuzk_g2_jac
#define XYZZ cuzk_g2_xyzz
/* Costs in G2 mixed additions (2.1 us on the 16-core Xeon, 2.7x a G1 one);
 * XYZZ additions and doublings keep about the G1 ratios, thread start is
 * relatively cheaper. ba_point: an Fp2 inversion is relatively cheaper
 * than an Fp one, so batches save a little more than on G1. */
#define MSM_COSTS {.ba_point = 0.55, .aff_bytes = sizeof(AFF), .bucket = 2.0, .dbl = 0.85, .thread = 15, .bucket_bytes = sizeof(XYZZ)}
/* An Fp2 inversion is an Fp one plus 4 multiplications, and a G2 pair
 * saves ~2.5x what a G1 pair saves: levels pay from about 24 points. */
#define BSUM_STOP 24
#include "msm/msm_impl.h"
