/* Groth16 verification: e(-A, B) e(vk_x, gamma) e(C, delta) e(alpha, beta) = 1
 * with vk_x = IC_0 + sum_i x_i IC_{i+1}, as one multi-pairing. */
#include <stdlib.h>

#include <cuzk/groth16.h>
#include <cuzk/msm.h>
#include <cuzk/pairing.h>

cuzk_status cuzk_groth16_verify(const cuzk_vk *vk, const cuzk_proof *proof, const cuzk_fr *pub,
                                size_t n_pub)
{
    return cuzk_groth16_verify_ws(vk, proof, pub, n_pub, NULL, NULL);
}

static cuzk_status check_g1(const cuzk_g1_affine *p)
{
    if (!cuzk_g1_affine_on_curve(p)) return CUZK_ERR_NOT_ON_CURVE;
    return cuzk_g1_affine_in_subgroup(p) ? CUZK_OK : CUZK_ERR_NOT_IN_SUBGROUP;
}

static cuzk_status check_g2(const cuzk_g2_affine *p)
{
    if (!cuzk_g2_affine_on_curve(p)) return CUZK_ERR_NOT_ON_CURVE;
    return cuzk_g2_affine_in_subgroup(p) ? CUZK_OK : CUZK_ERR_NOT_IN_SUBGROUP;
}

/* The proof's points: on the curve and in their subgroups (a proof struct
 * may come from anywhere), A, B, C in turn as the parts below check them. */
static cuzk_status check_points(const cuzk_proof *proof)
{
    cuzk_status s = check_g1(&proof->a);
    if (s == CUZK_OK) s = check_g2(&proof->b);
    if (s == CUZK_OK) s = check_g1(&proof->c);
    return s;
}

cuzk_status cuzk_groth16_vk_x(cuzk_g1_jac *r, const cuzk_vk *vk, const cuzk_fr *pub, size_t n_pub,
                              cuzk_g1_msm_scratch *ws, cuzk_scalar *k)
{
    if (!r || !vk || (n_pub && !pub) || vk->n_ic == 0 || n_pub != (size_t)vk->n_ic - 1)
        return CUZK_ERR_INVALID_ARGUMENT;
    /* One variable-time MSM (the inputs are public, so no constant-time
     * multiplications): its doublings are shared and its scalars split by
     * GLV. With porep-32g's 21 inputs the verification took 3.83 ms with
     * 21 constant-time multiplications on the EPYC development machine,
     * 1.78 ms with the MSM (`cuzk-bench micro groth16_verify`;
     * docs/perf.md). One thread: verifications run beside the provers. */
    cuzk_g1_from_affine(r, &vk->ic[0]);
    if (n_pub == 0) return CUZK_OK;
    cuzk_g1_jac t;
    cuzk_scalar *own = NULL;
    if (!k && !(k = own = malloc(n_pub * sizeof *k))) return CUZK_ERR_NO_MEMORY;
    cuzk_scalar_from_fr(k, pub, n_pub, 1);
    cuzk_status s = cuzk_g1_msm_ws_var(&t, vk->ic + 1, k, n_pub, 1, ws, NULL);
    free(own);
    if (s == CUZK_OK) cuzk_g1_add(r, r, &t);
    return s;
}

cuzk_status cuzk_groth16_verify_ws(const cuzk_vk *vk, const cuzk_proof *proof,
                                   const cuzk_fr *pub, size_t n_pub, cuzk_g1_msm_scratch *ws,
                                   cuzk_scalar *k)
{
    if (!vk || !proof || (n_pub && !pub) || vk->n_ic == 0 || n_pub != (size_t)vk->n_ic - 1)
        return CUZK_ERR_INVALID_ARGUMENT;
    cuzk_status s = check_points(proof);
    if (s != CUZK_OK) return s;
    cuzk_g1_jac acc;
    if ((s = cuzk_groth16_vk_x(&acc, vk, pub, n_pub, ws, k)) != CUZK_OK) return s;
    cuzk_g1_affine p[4];
    cuzk_g2_affine q[4];
    cuzk_g1_affine_neg(&p[0], &proof->a);
    q[0] = proof->b;
    cuzk_g1_to_affine(&p[1], &acc);
    q[1] = vk->gamma_g2;
    p[2] = proof->c;
    q[2] = vk->delta_g2;
    p[3] = vk->alpha_g1;
    q[3] = vk->beta_g2;
    return cuzk_pairing_product_is_one(p, q, 4) ? CUZK_OK : CUZK_ERR_PROOF_INVALID;
}

void cuzk_vk_prepare(cuzk_vk_prepared *r, const cuzk_vk *vk)
{
    cuzk_g2_prepare(&r->lines[0], &vk->gamma_g2);
    cuzk_g2_prepare(&r->lines[1], &vk->delta_g2);
    cuzk_pairing(&r->ab_inv, &vk->alpha_g1, &vk->beta_g2);
    cuzk_fp12_conj(&r->ab_inv, &r->ab_inv); /* GT is unitary: the inverse */
}

cuzk_status cuzk_groth16_verify_begin(cuzk_verify_parts *v, const cuzk_vk_prepared *pvk,
                                      const cuzk_g1_jac *vk_x)
{
    if (!v || !pvk || !vk_x) return CUZK_ERR_INVALID_ARGUMENT;
    cuzk_g1_affine x;
    cuzk_g1_to_affine(&x, vk_x);
    cuzk_miller_loop_prepared(&v->f, &x, &pvk->lines[0], 1);
    return CUZK_OK;
}

cuzk_status cuzk_groth16_verify_ab(cuzk_verify_parts *v, const cuzk_g1_affine *a,
                                   const cuzk_g2_affine *b)
{
    if (!v || !a || !b) return CUZK_ERR_INVALID_ARGUMENT;
    cuzk_status s = check_g1(a);
    if (s == CUZK_OK) s = check_g2(b);
    if (s != CUZK_OK) return s;
    cuzk_g1_affine na;
    cuzk_fp12 g;
    cuzk_g1_affine_neg(&na, a);
    cuzk_miller_loop(&g, &na, b, 1);
    cuzk_fp12_mul(&v->f, &v->f, &g);
    return CUZK_OK;
}

cuzk_status cuzk_groth16_verify_end(cuzk_verify_parts *v, const cuzk_vk_prepared *pvk,
                                    const cuzk_g1_affine *c)
{
    if (!v || !pvk || !c) return CUZK_ERR_INVALID_ARGUMENT;
    cuzk_status s = check_g1(c);
    if (s != CUZK_OK) return s;
    cuzk_fp12 g;
    cuzk_miller_loop_prepared(&g, c, &pvk->lines[1], 1);
    cuzk_fp12_mul(&g, &g, &v->f);
    cuzk_final_exp(&g, &g);
    return cuzk_fp12_eq(&g, &pvk->ab_inv) ? CUZK_OK : CUZK_ERR_PROOF_INVALID;
}

/* e(-A, B) e(vk_x, gamma) e(C, delta) = e(alpha, beta)^-1 in its three
 * parts: three Miller loops where one would share the squarings (0.94
 * against 0.75 ms on the development machine, `cuzk-bench micro
 * groth16_verify_prepared`), for one code path. */
cuzk_status cuzk_groth16_verify_prepared(const cuzk_vk_prepared *pvk, const cuzk_proof *proof,
                                         const cuzk_g1_jac *vk_x)
{
    if (!proof) return CUZK_ERR_INVALID_ARGUMENT;
    cuzk_verify_parts v;
    cuzk_status s = cuzk_groth16_verify_begin(&v, pvk, vk_x);
    if (s == CUZK_OK) s = cuzk_groth16_verify_ab(&v, &proof->a, &proof->b);
    if (s != CUZK_OK) return s;
    return cuzk_groth16_verify_end(&v, pvk, &proof->c);
}
