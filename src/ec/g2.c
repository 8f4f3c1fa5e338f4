/* G2: y^2 = x^3 + 4 (u + 1) over Fp2, the M-type sextic twist. The group
 * law comes from ec_internal.h; this file holds the constants and the
 * subgroup check. */
#include <cuzk/ec.h>

/* Montgomery form (a * 2^384 mod q) of canonical values; tests/test_ec.c
 * checks each against its canonical hex. */

/* The zcash / IETF generator:
 *   x.c0 = 0x024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d177
 *            0bac0326a805bbefd48056c8c121bdb8
 *   x.c1 = 0x13e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049
 *            334cf11213945d57e5ac7d055d042b7e
 *   y.c0 = 0x0ce5d527727d6e118cc9cdc6da2e351aadfd9baa8cbdd3a76d429a695160d12c
 *            923ac9cc3baca289e193548608b82801
 *   y.c1 = 0x0606c4a02ea734cc32acd2b02bc28b99cb3e287e85a763af267492ab572e99ab
 *            3f370d275cec1da1aaa9075ff05f79be */
const cuzk_g2_affine CUZK_G2_GENERATOR = {
    {{{0xf5f28fa202940a10ull, 0xb3f5fb2687b4961aull, 0xa1a893b53e2ae580ull,
       0x9894999d1a3caee9ull, 0x6f67b7631863366bull, 0x058191924350bcd7ull}},
     {{0xa5a9c0759e23f606ull, 0xaaa0c59dbccd60c3ull, 0x3bb17e18e2867806ull,
       0x1b1ab6cc8541b367ull, 0xc2b6ed0ef2158547ull, 0x11922a097360edf3ull}}},
    {{{0x4c730af860494c4aull, 0x597cfa1f5e369c5aull, 0xe7e6856caa0a635aull,
       0xbbefb5e96e0d495full, 0x07d3a975f0ef25a2ull, 0x0083fd8e7e80dae5ull}},
     {{0xadc0fc92df64b05dull, 0x18aa270a2b1461dcull, 0x86adac6a3be4eba0ull,
       0x79495c4ec93da33aull, 0xe7175850a43ccaedull, 0x0b2bc2a163de1bf2ull}}}};

/* b = 4 (u + 1) = 4 + 4u */
static const cuzk_fp2 G2_B = {
    {{0xaa270000000cfff3ull, 0x53cc0032fc34000aull, 0x478fe97a6b0a807full,
      0xb1d37ebee6ba24d7ull, 0x8ec9733bbf78ab2full, 0x09d645513d83de7eull}},
    {{0xaa270000000cfff3ull, 0x53cc0032fc34000aull, 0x478fe97a6b0a807full,
      0xb1d37ebee6ba24d7ull, 0x8ec9733bbf78ab2full, 0x09d645513d83de7eull}}};

/* The untwist-Frobenius-twist endomorphism
 *   psi(x, y) = (conj(x) * PSI_CX, conj(y) * PSI_CY),
 *   PSI_CX = 1 / (u + 1)^((q - 1) / 3)
 *          = 0x1a0111ea397fe699ec02408663d4de85aa0d857d89759ad4897d29650fb85f9b
 *              409427eb4f49fffd8bfd00000000aaad u
 *   PSI_CY = 1 / (u + 1)^((q - 1) / 2)
 *          = 0x135203e60180a68ee2e9c448d77a2cd91c3dedd930b1cf60ef396489f61eb45e
 *              304466cf3e67fa0af1ee7b04121bdea2
 *          + 0x06af0e0437ff400b6831e36d6bd17ffe48395dabc2d3435e77f76e17009241c5
 *              ee67992f72ec05f4c81084fbede3cc09 u */
static const cuzk_fp2 PSI_CX = {
    {{0, 0, 0, 0, 0, 0}},
    {{0x890dc9e4867545c3ull, 0x2af322533285a5d5ull, 0x50880866309b7e2cull,
      0xa20d1b8c7e881024ull, 0x14e4f04fe2db9068ull, 0x14e56d3f1564853aull}}};
static const cuzk_fp2 PSI_CY = {
    {{0x3e2f585da55c9ad1ull, 0x4294213d86c18183ull, 0x382844c88b623732ull,
      0x92ad2afd19103e18ull, 0x1d794e4fac7cf0b9ull, 0x0bd592fc7d825ec8ull}},
    {{0x7bcfa7a25aa30fdaull, 0xdc17dec12a927e7cull, 0x2f088dd86b4ebef1ull,
      0xd1ca2087da74d4a7ull, 0x2da2596696cebc1dull, 0x0e2b7eedbbfd87d2ull}}};

/* |x| for the BLS parameter x = -0xd201000000010000. */
static const uint64_t BLS_X_ABS = 0xd201000000010000ull;

#define FE cuzk_fp2
#define F(name) cuzk_fp2_##name
#define FE_ZERO_ CUZK_FP2_ZERO
#define FE_ONE_ CUZK_FP2_ONE
#define G(name) cuzk_g2_##name
#define AFF cuzk_g2_affine
#define JAC cuzk_g2_jac
#define XYZZ cuzk_g2_xyzz
#define CURVE_B_ G2_B
#include "ec/ec_internal.h"

/* Scott, "A note on group membership tests for G1, G2 and GT on BLS
 * pairing-friendly curves" (ePrint 2021/1130): a point P of E'(Fp2) lies in
 * G2 iff psi(P) = [x] P. With x < 0 we test [|x|] P = -psi(P), comparing
 * both coordinates (not "P + Q = O" through the addition formula, which
 * would only compare x). 63 doublings and 5 additions, against ~255
 * doublings and ~128 additions for [r] P. Infinity passes. */
int cuzk_g2_affine_in_subgroup(const cuzk_g2_affine *p)
{
    cuzk_g2_jac t, psi;
    cuzk_g2_affine a;
    cuzk_g2_from_affine(&t, p);
    cuzk_g2_mul_limbs(&t, &t, &BLS_X_ABS, 1);
    /* -psi(P) = (conj(x) PSI_CX, -conj(y) PSI_CY); (0, 0) stays infinity. */
    cuzk_fp2_conj(&a.x, &p->x);
    cuzk_fp2_mul(&a.x, &a.x, &PSI_CX);
    cuzk_fp2_conj(&a.y, &p->y);
    cuzk_fp2_mul(&a.y, &a.y, &PSI_CY);
    cuzk_fp2_neg(&a.y, &a.y);
    cuzk_g2_from_affine(&psi, &a);
    return cuzk_g2_jac_eq(&t, &psi);
}
