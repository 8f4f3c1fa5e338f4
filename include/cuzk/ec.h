/* cuzk — the groups G1 and G2 of BLS12-381 on the CPU, and their encodings.
 *
 *   G1: y^2 = x^3 + 4           over Fp
 *   G2: y^2 = x^3 + 4 (u + 1)   over Fp2 (the M-type sextic twist)
 *
 * Forms:
 *   affine    (x, y); the point at infinity is x = y = 0 (not on the curve,
 *             and the snarkjs in-memory convention, so buffers need no flag).
 *   Jacobian  (X, Y, Z) = (X/Z^2, Y/Z^3); infinity has Z = 0.
 *   XYZZ      (X, Y, ZZ, ZZZ) = (X/ZZ, Y/ZZZ) with ZZ^3 = ZZZ^2; infinity
 *             has ZZ = 0. Used by MSM bucket accumulation.
 *
 * All point inputs must be on the curve (decoders check that). Outputs may
 * alias inputs. Functions ending in _var may branch on their inputs; the
 * others are constant-time in their scalar/point values.
 */
#ifndef CUZK_EC_H
#define CUZK_EC_H

#include <stddef.h>
#include <stdint.h>

#include <cuzk/ff.h>
#include <cuzk/status.h>

typedef struct { cuzk_fp x, y; } cuzk_g1_affine;
typedef struct { cuzk_fp x, y, z; } cuzk_g1_jac;
typedef struct { cuzk_fp x, y, zz, zzz; } cuzk_g1_xyzz;

typedef struct { cuzk_fp2 x, y; } cuzk_g2_affine;
typedef struct { cuzk_fp2 x, y, z; } cuzk_g2_jac;
typedef struct { cuzk_fp2 x, y, zz, zzz; } cuzk_g2_xyzz;

extern const cuzk_g1_affine CUZK_G1_GENERATOR;
extern const cuzk_g2_affine CUZK_G2_GENERATOR;

/* ---------------------------------------------------------------- G1 -- */

int cuzk_g1_affine_is_inf(const cuzk_g1_affine *p);
int cuzk_g1_jac_is_inf(const cuzk_g1_jac *p);
/* 1 if p is infinity or satisfies the curve equation. */
int cuzk_g1_affine_on_curve(const cuzk_g1_affine *p);
int cuzk_g1_jac_on_curve(const cuzk_g1_jac *p);
/* 1 if p is in the order-r subgroup (infinity included). p must be on the
 * curve. Checks [r]p = 0 via the endomorphism test psi/phi where available. */
int cuzk_g1_affine_in_subgroup(const cuzk_g1_affine *p);
int cuzk_g1_affine_eq(const cuzk_g1_affine *a, const cuzk_g1_affine *b);
int cuzk_g1_jac_eq(const cuzk_g1_jac *a, const cuzk_g1_jac *b);

void cuzk_g1_jac_set_inf(cuzk_g1_jac *r);
void cuzk_g1_from_affine(cuzk_g1_jac *r, const cuzk_g1_affine *p);
void cuzk_g1_to_affine(cuzk_g1_affine *r, const cuzk_g1_jac *p);
/* Converts n points with one field inversion. scratch: n elements of Fp,
 * caller-owned. */
void cuzk_g1_batch_to_affine(cuzk_g1_affine *r, const cuzk_g1_jac *p, size_t n,
                             cuzk_fp *scratch);
void cuzk_g1_neg(cuzk_g1_jac *r, const cuzk_g1_jac *p);
void cuzk_g1_affine_neg(cuzk_g1_affine *r, const cuzk_g1_affine *p);
void cuzk_g1_dbl(cuzk_g1_jac *r, const cuzk_g1_jac *p);
/* Complete: handles infinity and p = q, p = -q. */
void cuzk_g1_add(cuzk_g1_jac *r, const cuzk_g1_jac *p, const cuzk_g1_jac *q);
void cuzk_g1_add_mixed(cuzk_g1_jac *r, const cuzk_g1_jac *p, const cuzk_g1_affine *q);
/* r = [k] p, k a scalar in Fr (windowed, fixed 4-bit windows). */
void cuzk_g1_mul(cuzk_g1_jac *r, const cuzk_g1_jac *p, const cuzk_fr *k);
/* r = [k] p for k given as n little-endian 64-bit limbs (any size).
 * Variable time in k (double-and-add over its bits): k must be public
 * (cofactors, the BLS parameter, r); constant-time in p. */
void cuzk_g1_mul_limbs(cuzk_g1_jac *r, const cuzk_g1_jac *p, const uint64_t *k, size_t n);

void cuzk_g1_xyzz_set_inf(cuzk_g1_xyzz *r);
void cuzk_g1_xyzz_from_affine(cuzk_g1_xyzz *r, const cuzk_g1_affine *p);
void cuzk_g1_xyzz_to_jac(cuzk_g1_jac *r, const cuzk_g1_xyzz *p);
void cuzk_g1_xyzz_dbl(cuzk_g1_xyzz *r, const cuzk_g1_xyzz *p);
void cuzk_g1_xyzz_add(cuzk_g1_xyzz *r, const cuzk_g1_xyzz *p, const cuzk_g1_xyzz *q);
void cuzk_g1_xyzz_add_mixed(cuzk_g1_xyzz *r, const cuzk_g1_xyzz *p, const cuzk_g1_affine *q);

/* ---------------------------------------------------------------- G2 -- */

int cuzk_g2_affine_is_inf(const cuzk_g2_affine *p);
int cuzk_g2_jac_is_inf(const cuzk_g2_jac *p);
int cuzk_g2_affine_on_curve(const cuzk_g2_affine *p);
int cuzk_g2_jac_on_curve(const cuzk_g2_jac *p);
int cuzk_g2_affine_in_subgroup(const cuzk_g2_affine *p);
int cuzk_g2_affine_eq(const cuzk_g2_affine *a, const cuzk_g2_affine *b);
int cuzk_g2_jac_eq(const cuzk_g2_jac *a, const cuzk_g2_jac *b);

void cuzk_g2_jac_set_inf(cuzk_g2_jac *r);
void cuzk_g2_from_affine(cuzk_g2_jac *r, const cuzk_g2_affine *p);
void cuzk_g2_to_affine(cuzk_g2_affine *r, const cuzk_g2_jac *p);
void cuzk_g2_batch_to_affine(cuzk_g2_affine *r, const cuzk_g2_jac *p, size_t n,
                             cuzk_fp2 *scratch);
void cuzk_g2_neg(cuzk_g2_jac *r, const cuzk_g2_jac *p);
void cuzk_g2_affine_neg(cuzk_g2_affine *r, const cuzk_g2_affine *p);
void cuzk_g2_dbl(cuzk_g2_jac *r, const cuzk_g2_jac *p);
void cuzk_g2_add(cuzk_g2_jac *r, const cuzk_g2_jac *p, const cuzk_g2_jac *q);
void cuzk_g2_add_mixed(cuzk_g2_jac *r, const cuzk_g2_jac *p, const cuzk_g2_affine *q);
void cuzk_g2_mul(cuzk_g2_jac *r, const cuzk_g2_jac *p, const cuzk_fr *k);
void cuzk_g2_mul_limbs(cuzk_g2_jac *r, const cuzk_g2_jac *p, const uint64_t *k, size_t n);

void cuzk_g2_xyzz_set_inf(cuzk_g2_xyzz *r);
void cuzk_g2_xyzz_from_affine(cuzk_g2_xyzz *r, const cuzk_g2_affine *p);
void cuzk_g2_xyzz_to_jac(cuzk_g2_jac *r, const cuzk_g2_xyzz *p);
void cuzk_g2_xyzz_dbl(cuzk_g2_xyzz *r, const cuzk_g2_xyzz *p);
void cuzk_g2_xyzz_add(cuzk_g2_xyzz *r, const cuzk_g2_xyzz *p, const cuzk_g2_xyzz *q);
void cuzk_g2_xyzz_add_mixed(cuzk_g2_xyzz *r, const cuzk_g2_xyzz *p, const cuzk_g2_affine *q);

/* --------------------------------------------------------- encodings -- */

/* Decoder flags. Canonical coordinates and the curve equation are always
 * checked; subgroup membership only with CUZK_DECODE_SUBGROUP (zcash
 * "checked" readers, Filecoin proofs and .vk) — .params are read without it. */
#define CUZK_DECODE_SUBGROUP 1u

/* zcash encodings (bellperson, Filecoin, blst): big-endian, flags in the top
 * three bits of byte 0 (0x80 compressed, 0x40 infinity, 0x20 y is largest).
 * Encoders write the canonical form, including infinity (0x40.. / 0xc0..). */
void cuzk_g1_to_compressed(uint8_t out[48], const cuzk_g1_affine *p);
void cuzk_g1_to_uncompressed(uint8_t out[96], const cuzk_g1_affine *p);
cuzk_status cuzk_g1_from_compressed(cuzk_g1_affine *r, const uint8_t in[48], unsigned flags);
cuzk_status cuzk_g1_from_uncompressed(cuzk_g1_affine *r, const uint8_t in[96], unsigned flags);
void cuzk_g2_to_compressed(uint8_t out[96], const cuzk_g2_affine *p);
void cuzk_g2_to_uncompressed(uint8_t out[192], const cuzk_g2_affine *p);
cuzk_status cuzk_g2_from_compressed(cuzk_g2_affine *r, const uint8_t in[96], unsigned flags);
cuzk_status cuzk_g2_from_uncompressed(cuzk_g2_affine *r, const uint8_t in[192], unsigned flags);

/* snarkjs in-file "LEM" encoding (.zkey): x || y, each coordinate 48 bytes
 * little-endian Montgomery, Fp2 as c0 || c1; infinity is all-zero bytes. */
void cuzk_g1_to_lem(uint8_t out[96], const cuzk_g1_affine *p);
cuzk_status cuzk_g1_from_lem(cuzk_g1_affine *r, const uint8_t in[96], unsigned flags);
void cuzk_g2_to_lem(uint8_t out[192], const cuzk_g2_affine *p);
cuzk_status cuzk_g2_from_lem(cuzk_g2_affine *r, const uint8_t in[192], unsigned flags);

#endif /* CUZK_EC_H */
