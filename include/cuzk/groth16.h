/* cuzk — Groth16 over BLS12-381: proving key, prover and verifier (CPU).
 *
 * The prover follows the algebra of shared/research/formats.md §5.3
 * (bellperson) and §10 (snarkjs); the two differ only in the roots of unity
 * and in the form of the H query:
 *
 *   CUZK_H_LAGRANGE (snarkjs .zkey): n points; the scalars are
 *     a(x_j) b(x_j) - c(x_j) on the odd coset x_j = g omega^j, g^2 = omega,
 *     with no division by Z (the key folds Z(x_j) = -2 in).
 *   CUZK_H_MONOMIAL (bellperson .params): n - 1 points tau^i Z(tau)/delta;
 *     the scalars are the coefficients of (ab - c)/Z, computed on the coset
 *     of 7 and brought back by an inverse coset NTT.
 *
 * The proof: with fresh random r, s from the OS CSPRNG,
 *   A = alpha + sum w_i A_i + r delta
 *   B = beta + sum w_i B_i + s delta                       (G2; and in G1)
 *   C = sum_{private} w_i L_i + H + s A + r B_G1 - r s delta
 */
#ifndef CUZK_GROTH16_H
#define CUZK_GROTH16_H

#include <stddef.h>
#include <stdint.h>

#include <cuzk/ec.h>
#include <cuzk/formats.h>
#include <cuzk/ff.h>
#include <cuzk/poly.h>
#include <cuzk/status.h>

typedef enum {
    CUZK_H_LAGRANGE = 0, /* snarkjs */
    CUZK_H_MONOMIAL = 1  /* bellperson */
} cuzk_h_form;

/* A proving key as the prover uses it, whichever file it came from. It owns
 * every array it points to; free it with cuzk_groth16_pk_free. */
typedef struct {
    cuzk_roots roots;
    cuzk_h_form h_form;
    uint32_t n_vars;      /* witness length, ONE (w_0 = 1) included */
    uint32_t n_public;    /* public inputs and outputs, ONE not counted */
    unsigned log_domain;  /* the domain has 2^log_domain points */
    cuzk_vk vk;           /* has_g1_extras = 1 (beta_g1, delta_g1 known) */
    /* Dense bases over all n_vars variables (identity where the variable's
     * polynomial is zero). */
    cuzk_g1_affine *a, *b1;
    cuzk_g2_affine *b2;
    cuzk_g1_affine *l;    /* n_vars - n_public - 1: variables n_public + 1.. */
    cuzk_g1_affine *h;    /* 2^log_domain (LAGRANGE) or 2^log_domain - 1 */
    /* Rows of A and B (and C if m.c.row_start != NULL) over the domain's
     * first m.n_rows points, input rows included. Without C the prover uses
     * c = a o b row by row, as snarkjs does; a witness that does not satisfy
     * the circuit then yields a proof that fails the self-check. */
    cuzk_matrices m;
} cuzk_groth16_pk;

/* Builds a proving key from a parsed .zkey: decodes (and so checks: on the
 * curve, canonical) every point on up to nthreads threads, copies the
 * matrices. The zkey and its buffer may be released afterwards. */
cuzk_status cuzk_groth16_pk_from_zkey(cuzk_groth16_pk *pk, const cuzk_zkey *z,
                                      unsigned nthreads, char *err);
/* Builds a proving key from a parsed bellperson .params and the circuit it
 * belongs to. The A, B and C rows come from r1cs, with one input row
 * A = 1 * input_i appended per input (formats.md §5.1). Filtered vectors are
 * expanded to dense ones by the densities of r1cs (a variable is in the A
 * (B) density when it has a nonzero coefficient in some A (B) row; inputs
 * are always in A); the counts must match the file. The roots are those the
 * params carry; the H query is monomial. params and its buffer may be
 * released afterwards. */
cuzk_status cuzk_groth16_pk_from_params(cuzk_groth16_pk *pk, const cuzk_bp_params *params,
                                        const cuzk_r1cs *r1cs, unsigned nthreads, char *err);
void cuzk_groth16_pk_free(cuzk_groth16_pk *pk);
/* Writes a snarkjs-form proving key (roots CUZK_ROOTS_SNARKJS, h_form
 * CUZK_H_LAGRANGE; others are CUZK_ERR_INVALID_ARGUMENT) as a .zkey at path
 * (atomically, see cuzk_zkey_write): pk->m (A and B rows, input rows
 * included) becomes section 4, pk->l section 8. mpc/mpc_len: section 10 as
 * in cuzk_zkey_src (NULL: an empty contribution section, zero csHash). */
cuzk_status cuzk_zkey_write_pk(const char *path, const cuzk_groth16_pk *pk, const uint8_t *mpc,
                               size_t mpc_len, char *err);

/* Wall-clock milliseconds of each prover stage. */
typedef struct {
    double abc_ms;      /* a, b, c = A w, B w, C w */
    double ntt_ms;      /* the H polynomial's NTTs and pointwise work */
    double msm_a_ms, msm_b1_ms, msm_b2_ms, msm_l_ms, msm_h_ms;
    double assemble_ms; /* blinding with r, s and conversion to affine */
    double verify_ms;   /* the self-check (0 when not run) */
    double total_ms;
} cuzk_groth16_timings;

/* Prover flags. */
#define CUZK_PROVE_NO_SELF_CHECK 1u /* skip verifying the proof before returning */

/* Proves with witness w (n_w = pk->n_vars values, Montgomery form, w[0] = 1)
 * on up to nthreads threads (0 = all cores). Unless flags say otherwise the
 * proof is verified against pk->vk before it is returned: a witness that
 * does not satisfy the circuit gives CUZK_ERR_UNSATISFIED, never a bad proof.
 * Allocates its working memory (about 10 field elements per domain point)
 * and frees it before returning. t may be NULL. err as in formats.h. */
cuzk_status cuzk_groth16_prove(cuzk_proof *proof, const cuzk_groth16_pk *pk, const cuzk_fr *w,
                               size_t n_w, unsigned nthreads, unsigned flags,
                               cuzk_groth16_timings *t, char *err);

/* Verifies proof against vk and the public inputs pub[0..n_pub) (without the
 * leading ONE): CUZK_OK if valid, CUZK_ERR_PROOF_INVALID if not,
 * CUZK_ERR_INVALID_ARGUMENT if n_pub != vk->n_ic - 1, or the decoder status
 * when a proof point is off the curve or outside the subgroup. */
cuzk_status cuzk_groth16_verify(const cuzk_vk *vk, const cuzk_proof *proof, const cuzk_fr *pub,
                                size_t n_pub);

#endif /* CUZK_GROTH16_H */
