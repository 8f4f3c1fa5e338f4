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

cuzk_status cuzk_groth16_verify_ws(const cuzk_vk *vk, const cuzk_proof *proof,
                                   const cuzk_fr *pub, size_t n_pub, cuzk_g1_msm_scratch *ws,
                                   cuzk_scalar *k)
{
    if (!vk || !proof || (n_pub && !pub) || vk->n_ic == 0 || n_pub != (size_t)vk->n_ic - 1)
        return CUZK_ERR_INVALID_ARGUMENT;
    /* A proof struct may come from anywhere: check its points here too. */
    if (!cuzk_g1_affine_on_curve(&proof->a) || !cuzk_g1_affine_on_curve(&proof->c) ||
        !cuzk_g2_affine_on_curve(&proof->b))
        return CUZK_ERR_NOT_ON_CURVE;
    if (!cuzk_g1_affine_in_subgroup(&proof->a) || !cuzk_g1_affine_in_subgroup(&proof->c) ||
        !cuzk_g2_affine_in_subgroup(&proof->b))
        return CUZK_ERR_NOT_IN_SUBGROUP;

    /* vk_x by one variable-time MSM (the inputs are public, so no
     * constant-time multiplications): its doublings are shared and its
     * scalars split by GLV. With porep-32g's 21 inputs the verification
     * took 3.83 ms with 21 constant-time multiplications on the EPYC
     * development machine, 1.78 ms with the MSM (`cuzk-bench micro
     * groth16_verify`; docs/perf.md). One thread: verifications run beside
     * the provers. */
    cuzk_g1_jac acc, t;
    cuzk_g1_from_affine(&acc, &vk->ic[0]);
    if (n_pub) {
        cuzk_scalar *own = NULL;
        if (!k && !(k = own = malloc(n_pub * sizeof *k))) return CUZK_ERR_NO_MEMORY;
        cuzk_scalar_from_fr(k, pub, n_pub, 1);
        cuzk_status s = cuzk_g1_msm_ws_var(&t, vk->ic + 1, k, n_pub, 1, ws, NULL);
        free(own);
        if (s != CUZK_OK) return s;
        cuzk_g1_add(&acc, &acc, &t);
    }
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
