/* G1: y^2 = x^3 + 4 over Fp. The group law comes from ec_internal.h; this
 * file holds the constants and the subgroup check. */
#include <cuzk/ec.h>

/* Montgomery form (a * 2^384 mod q) of canonical values; tests/test_ec.c
 * checks each against its canonical hex. */

/* The zcash / IETF generator:
 *   x = 0x17f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac58
 *         6c55e83ff97a1aeffb3af00adb22c6bb
 *   y = 0x08b3f481e3aaa0f1a09e30ed741d8ae4fcf5e095d5d00af600db18cb2c04b3ed
 *         d03cc744a2888ae40caa232946c5e7e1 */
const cuzk_g1_affine CUZK_G1_GENERATOR = {
    {{0x5cb38790fd530c16ull, 0x7817fc679976fff5ull, 0x154f95c7143ba1c1ull,
      0xf0ae6acdf3d0e747ull, 0xedce6ecc21dbf440ull, 0x120177419e0bfb75ull}},
    {{0xbaac93d50ce72271ull, 0x8c22631a7918fd8eull, 0xdd595f13570725ceull,
      0x51ac582950405194ull, 0x0e1c8c3fad0059c0ull, 0x0bbc3efc5008a26aull}}};

/* b = 4 */
static const cuzk_fp G1_B = {{0xaa270000000cfff3ull, 0x53cc0032fc34000aull,
                              0x478fe97a6b0a807full, 0xb1d37ebee6ba24d7ull,
                              0x8ec9733bbf78ab2full, 0x09d645513d83de7eull}};

/* beta, a primitive cube root of unity in Fp, chosen so that the
 * endomorphism phi(x, y) = (beta x, y) acts on G1 as multiplication by
 * -x^2 (x the BLS parameter; -x^2 is a root of l^2 + l + 1 mod r):
 *   beta = 0x5f19672fdf76ce51ba69c6076a0f77eaddb3a93be6f89688de17d813620a0002
 *            2e01fffffffefffe */
static const cuzk_fp G1_BETA = {{0x30f1361b798a64e8ull, 0xf3b8ddab7ece5a2aull,
                                 0x16a8ca3ac61577f7ull, 0xc26a2ff874fd029bull,
                                 0x3636b76660701c6eull, 0x051ba4ab241b6160ull}};

/* |x| for the BLS parameter x = -0xd201000000010000. */
static const uint64_t BLS_X_ABS = 0xd201000000010000ull;

#define FE cuzk_fp
#define F(name) cuzk_fp_##name
#define FE_ZERO_ CUZK_FP_ZERO
#define FE_ONE_ CUZK_FP_ONE
#define G(name) cuzk_g1_##name
#define AFF cuzk_g1_affine
#define JAC cuzk_g1_jac
#define XYZZ cuzk_g1_xyzz
#define CURVE_B_ G1_B
#include "ec/ec_internal.h"

/* Scott, "A note on group membership tests for G1, G2 and GT on BLS
 * pairing-friendly curves" (ePrint 2021/1130), building on Bowe (ePrint
 * 2019/814): a point P of E(Fp) lies in G1 iff phi(P) = [-x^2] P. We test
 * [x^2] P = -phi(P), comparing both coordinates (an "is P + Q = O" test
 * through the addition formula would only compare x, accepting
 * [x^2] P = +phi(P) as well). [x^2] is two multiplications by |x| (the
 * signs cancel), 126 doublings and 10 additions in all, against ~255
 * doublings and ~128 additions for [r] P. Infinity passes. */
int cuzk_g1_affine_in_subgroup(const cuzk_g1_affine *p)
{
    cuzk_g1_jac t, phi;
    cuzk_g1_affine a;
    cuzk_g1_from_affine(&t, p);
    cuzk_g1_mul_limbs(&t, &t, &BLS_X_ABS, 1);
    cuzk_g1_mul_limbs(&t, &t, &BLS_X_ABS, 1);
    /* -phi(P) = (beta x, -y); (0, 0) stays infinity. */
    cuzk_fp_mul(&a.x, &p->x, &G1_BETA);
    cuzk_fp_neg(&a.y, &p->y);
    cuzk_g1_from_affine(&phi, &a);
    return cuzk_g1_jac_eq(&t, &phi);
}
