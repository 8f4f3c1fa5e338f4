/* cuzk — the optimal ate pairing of BLS12-381 on the CPU.
 *
 * e(P, Q) = f_{|x|,Q}(P)^(3 (q^12 - 1)/r) with x = -0xd201000000010000, the
 * Miller loop conjugated for the negative x. The factor 3 comes from the
 * x-chain of the hard part (eprint 2020/875); it is the value @noble/curves
 * and zkcrypto return (e(G1, G2) equals zkcrypto's Gt::generator()), so GT
 * elements compare across those implementations (tests/vectors). Since 3 is
 * prime to r, product checks are unaffected.
 *
 * Inputs are affine points already known to be in G1 and G2; a point at
 * infinity contributes the factor 1. Nothing here allocates except where a
 * function says so.
 */
#ifndef CUZK_PAIRING_H
#define CUZK_PAIRING_H

#include <stddef.h>

#include <cuzk/ec.h>
#include <cuzk/ff.h>

/* Line coefficients of the Miller loop for one fixed G2 point, so that
 * verifying many proofs against one key skips the G2 arithmetic. */
#define CUZK_G2_PREPARED_LINES 68 /* 63 doublings + 5 additions of |x| */
typedef struct {
    cuzk_fp2 ell[CUZK_G2_PREPARED_LINES][3];
    int inf;
} cuzk_g2_prepared;

void cuzk_g2_prepare(cuzk_g2_prepared *r, const cuzk_g2_affine *q);

/* f = prod_i MillerLoop(p[i], q[i]) — one shared squaring chain. */
void cuzk_miller_loop(cuzk_fp12 *f, const cuzk_g1_affine *p, const cuzk_g2_affine *q,
                      size_t n);
void cuzk_miller_loop_prepared(cuzk_fp12 *f, const cuzk_g1_affine *p,
                               const cuzk_g2_prepared *q, size_t n);
/* r = f^(3 (q^12 - 1)/r): easy part, then the hard part by the x-chain. */
void cuzk_final_exp(cuzk_fp12 *r, const cuzk_fp12 *f);
/* r = e(p, q). */
void cuzk_pairing(cuzk_fp12 *r, const cuzk_g1_affine *p, const cuzk_g2_affine *q);
/* 1 if prod_i e(p[i], q[i]) = 1 (one Miller loop, one final exponentiation). */
int cuzk_pairing_product_is_one(const cuzk_g1_affine *p, const cuzk_g2_affine *q, size_t n);

#endif /* CUZK_PAIRING_H */
