/* MSM on G1: the code is msm_impl.h; this file sets its parameters. */
#include <cuzk/ec.h>
#include <cuzk/msm.h>

#include "common/parallel.h"
#include "msm/msm_field.h"
#include "msm/msm_internal.h"

#define FE cuzk_fp
#define F(name) msm_fp_##name /* msm_field.h: inline additions */
#define FE_ONE_ CUZK_FP_ONE
#define FE_INV_VAR cuzk_fp_inv_var
#define G(name) cuzk_g1_##name
#define AFF cuzk_g1_affine
#define JAC cuzk_g1_jac
#define XYZZ cuzk_g1_xyzz
#define VEC cuzk_g1_msm_vec
/* Costs in G1 mixed additions (0.79 us on the 16-core Xeon with the
 * constant-time formulas, see msm_common.c): XYZZ addition 1.02 us (a
 * bucket is two of them), Jacobian doubling 0.67 us, thread start ~30 us.
 * With the variable-time additions and batch-affine buckets (the reduction
 * adds affine buckets by mixed additions) ba_point and bucket were refitted
 * on the 2-core EPYC (msm_common.c). */
#define MSM_COSTS {.ba_point = 0.62, .aff_bytes = sizeof(AFF), .bucket = 0.9, .dbl = 0.85, .thread = 40, .bucket_bytes = sizeof(XYZZ)}
/* An Fp inversion (binary Euclid) costs 3.5 us on the Xeon (~70 M) and up
 * to ~35 us on the loaded development machine; a pair added in affine
 * saves ~5 M over a mixed addition, so a level of k points pays for its
 * inversion from k ~ 30-150. Below BSUM_STOP points the rest are mixed-added
 * (at most 64 additions per thread and call, so the choice barely shows). */
#define BSUM_STOP 64

/* beta of src/ec/g1.c (Montgomery form): phi(x, y) = (beta x, y) = [-x^2] P
 * on G1, so -phi(P) = (beta x, -y) = [L] P with L = x^2 (MSM_GLV_L). */
static const cuzk_fp MSM_G1_BETA = {{0x30f1361b798a64e8ull, 0xf3b8ddab7ece5a2aull,
                                     0x16a8ca3ac61577f7ull, 0xc26a2ff874fd029bull,
                                     0x3636b76660701c6eull, 0x051ba4ab241b6160ull}};

/* r = -phi(p); infinity (0, 0) stays (0, 0). */
static inline void g1_neg_phi(cuzk_g1_affine *r, const cuzk_g1_affine *p)
{
    cuzk_fp_mul(&r->x, &p->x, &MSM_G1_BETA);
    cuzk_fp_neg(&r->y, &p->y);
}
#define GLV_NEG_PHI g1_neg_phi
#include "msm/msm_impl.h"
