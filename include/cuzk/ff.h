/* cuzk — finite fields of BLS12-381 on the CPU.
 *
 *   Fp   base field, 381-bit prime q, 6 x 64-bit limbs
 *   Fr   scalar field, 255-bit prime r, 4 x 64-bit limbs
 *   Fp2  = Fp[u]  / (u^2 + 1)
 *   Fp6  = Fp2[v] / (v^3 - (u + 1))
 *   Fp12 = Fp6[w] / (w^2 - v)
 *
 * Representation: Montgomery form (a * 2^384 mod q, a * 2^256 mod r), limbs
 * little-endian. On a little-endian machine the bytes of a cuzk_fp equal
 * twelve 32-bit limbs, so buffers go to the GPU unchanged.
 *
 * Every element passed in must be fully reduced (< modulus); every element
 * returned is. Outputs may alias inputs. Functions are constant-time unless
 * their name ends in _var. No function here allocates.
 *
 * Argument order: outputs first, then inputs; array lengths follow arrays.
 */
#ifndef CUZK_FF_H
#define CUZK_FF_H

#include <stddef.h>
#include <stdint.h>

#include <cuzk/status.h>

#define CUZK_FP_LIMBS 6
#define CUZK_FR_LIMBS 4
#define CUZK_FP_BYTES 48
#define CUZK_FR_BYTES 32

typedef struct { uint64_t l[CUZK_FP_LIMBS]; } cuzk_fp;
typedef struct { uint64_t l[CUZK_FR_LIMBS]; } cuzk_fr;
typedef struct { cuzk_fp c0, c1; } cuzk_fp2;          /* c0 + c1 u */
typedef struct { cuzk_fp2 c0, c1, c2; } cuzk_fp6;     /* c0 + c1 v + c2 v^2 */
typedef struct { cuzk_fp6 c0, c1; } cuzk_fp12;        /* c0 + c1 w */

/* ---------------------------------------------------------------- Fp -- */

extern const cuzk_fp CUZK_FP_ZERO;
extern const cuzk_fp CUZK_FP_ONE;                 /* Montgomery form of 1 */
extern const uint64_t CUZK_FP_MODULUS[CUZK_FP_LIMBS];

void cuzk_fp_add(cuzk_fp *r, const cuzk_fp *a, const cuzk_fp *b);
void cuzk_fp_sub(cuzk_fp *r, const cuzk_fp *a, const cuzk_fp *b);
void cuzk_fp_neg(cuzk_fp *r, const cuzk_fp *a);
void cuzk_fp_dbl(cuzk_fp *r, const cuzk_fp *a);
void cuzk_fp_mul(cuzk_fp *r, const cuzk_fp *a, const cuzk_fp *b);
void cuzk_fp_sqr(cuzk_fp *r, const cuzk_fp *a);
/* r = a^e, e given as n little-endian 64-bit limbs (public exponent). */
void cuzk_fp_pow(cuzk_fp *r, const cuzk_fp *a, const uint64_t *e, size_t n);
/* r = 1/a, constant time (a fixed number of safegcd steps); 1/0 is 0. */
void cuzk_fp_inv(cuzk_fp *r, const cuzk_fp *a);
/* r = 1/a, variable time (safegcd with early exit); 1/0 is 0. */
void cuzk_fp_inv_var(cuzk_fp *r, const cuzk_fp *a);
/* out[i] = 1/in[i] for i < n by Montgomery's trick (one inversion, 3(n-1)
 * multiplications). Zero inputs give zero outputs. scratch holds n elements,
 * caller-owned. out may equal in; scratch must not overlap either. */
void cuzk_fp_batch_inv_var(cuzk_fp *out, const cuzk_fp *in, size_t n, cuzk_fp *scratch);
/* If a is a square, r = a square root of a and returns 1; else returns 0
 * and r is unspecified. Uses q = 3 mod 4: sqrt = a^((q+1)/4). */
int cuzk_fp_sqrt(cuzk_fp *r, const cuzk_fp *a);
/* Legendre symbol: 1 for a nonzero square, -1 for a non-square, 0 for 0. */
int cuzk_fp_legendre(const cuzk_fp *a);
int cuzk_fp_is_zero(const cuzk_fp *a);
int cuzk_fp_is_one(const cuzk_fp *a);
int cuzk_fp_eq(const cuzk_fp *a, const cuzk_fp *b);
/* 1 if the canonical value of a is > (q-1)/2 (zcash "lexicographically largest"). */
int cuzk_fp_is_lexmax(const cuzk_fp *a);
/* r = c if flag, else r unchanged; flag is 0 or 1. */
void cuzk_fp_cmov(cuzk_fp *r, const cuzk_fp *c, int flag);
void cuzk_fp_from_u64(cuzk_fp *r, uint64_t v);

/* Conversions between Montgomery form and canonical limbs. from_limbs
 * returns CUZK_ERR_NOT_CANONICAL (r untouched) if v >= q. */
cuzk_status cuzk_fp_from_limbs(cuzk_fp *r, const uint64_t v[CUZK_FP_LIMBS]);
void cuzk_fp_to_limbs(uint64_t v[CUZK_FP_LIMBS], const cuzk_fp *a);
/* Canonical 48-byte big-endian (zcash) and little-endian encodings. */
cuzk_status cuzk_fp_from_be(cuzk_fp *r, const uint8_t in[CUZK_FP_BYTES]);
void cuzk_fp_to_be(uint8_t out[CUZK_FP_BYTES], const cuzk_fp *a);
cuzk_status cuzk_fp_from_le(cuzk_fp *r, const uint8_t in[CUZK_FP_BYTES]);
void cuzk_fp_to_le(uint8_t out[CUZK_FP_BYTES], const cuzk_fp *a);
/* snarkjs "LEM": little-endian bytes of the Montgomery form itself. */
cuzk_status cuzk_fp_from_lem(cuzk_fp *r, const uint8_t in[CUZK_FP_BYTES]);
void cuzk_fp_to_lem(uint8_t out[CUZK_FP_BYTES], const cuzk_fp *a);

/* ---------------------------------------------------------------- Fr -- */

extern const cuzk_fr CUZK_FR_ZERO;
extern const cuzk_fr CUZK_FR_ONE;
extern const uint64_t CUZK_FR_MODULUS[CUZK_FR_LIMBS];

void cuzk_fr_add(cuzk_fr *r, const cuzk_fr *a, const cuzk_fr *b);
void cuzk_fr_sub(cuzk_fr *r, const cuzk_fr *a, const cuzk_fr *b);
void cuzk_fr_neg(cuzk_fr *r, const cuzk_fr *a);
void cuzk_fr_dbl(cuzk_fr *r, const cuzk_fr *a);
void cuzk_fr_mul(cuzk_fr *r, const cuzk_fr *a, const cuzk_fr *b);
void cuzk_fr_sqr(cuzk_fr *r, const cuzk_fr *a);
void cuzk_fr_pow(cuzk_fr *r, const cuzk_fr *a, const uint64_t *e, size_t n);
void cuzk_fr_inv(cuzk_fr *r, const cuzk_fr *a);
void cuzk_fr_inv_var(cuzk_fr *r, const cuzk_fr *a);
void cuzk_fr_batch_inv_var(cuzk_fr *out, const cuzk_fr *in, size_t n, cuzk_fr *scratch);
/* Tonelli-Shanks (r - 1 = 2^32 t). Returns 1 and a root if a is a square. */
int cuzk_fr_sqrt_var(cuzk_fr *r, const cuzk_fr *a);
int cuzk_fr_legendre(const cuzk_fr *a);
int cuzk_fr_is_zero(const cuzk_fr *a);
int cuzk_fr_is_one(const cuzk_fr *a);
int cuzk_fr_eq(const cuzk_fr *a, const cuzk_fr *b);
void cuzk_fr_cmov(cuzk_fr *r, const cuzk_fr *c, int flag);
void cuzk_fr_from_u64(cuzk_fr *r, uint64_t v);
cuzk_status cuzk_fr_from_limbs(cuzk_fr *r, const uint64_t v[CUZK_FR_LIMBS]);
void cuzk_fr_to_limbs(uint64_t v[CUZK_FR_LIMBS], const cuzk_fr *a);
cuzk_status cuzk_fr_from_be(cuzk_fr *r, const uint8_t in[CUZK_FR_BYTES]);
void cuzk_fr_to_be(uint8_t out[CUZK_FR_BYTES], const cuzk_fr *a);
/* Little-endian canonical: the .r1cs/.wtns scalar encoding. */
cuzk_status cuzk_fr_from_le(cuzk_fr *r, const uint8_t in[CUZK_FR_BYTES]);
void cuzk_fr_to_le(uint8_t out[CUZK_FR_BYTES], const cuzk_fr *a);
cuzk_status cuzk_fr_from_lem(cuzk_fr *r, const uint8_t in[CUZK_FR_BYTES]);
void cuzk_fr_to_lem(uint8_t out[CUZK_FR_BYTES], const cuzk_fr *a);
/* r = v mod r for any 256-bit little-endian v (reduces instead of rejecting). */
void cuzk_fr_from_limbs_reduce(cuzk_fr *r, const uint64_t v[CUZK_FR_LIMBS]);

/* --------------------------------------------------------------- Fp2 -- */

extern const cuzk_fp2 CUZK_FP2_ZERO;
extern const cuzk_fp2 CUZK_FP2_ONE;

void cuzk_fp2_add(cuzk_fp2 *r, const cuzk_fp2 *a, const cuzk_fp2 *b);
void cuzk_fp2_sub(cuzk_fp2 *r, const cuzk_fp2 *a, const cuzk_fp2 *b);
void cuzk_fp2_neg(cuzk_fp2 *r, const cuzk_fp2 *a);
void cuzk_fp2_dbl(cuzk_fp2 *r, const cuzk_fp2 *a);
void cuzk_fp2_mul(cuzk_fp2 *r, const cuzk_fp2 *a, const cuzk_fp2 *b);
void cuzk_fp2_sqr(cuzk_fp2 *r, const cuzk_fp2 *a);
void cuzk_fp2_mul_fp(cuzk_fp2 *r, const cuzk_fp2 *a, const cuzk_fp *b);
/* r = a * (u + 1), the Fp6 non-residue. */
void cuzk_fp2_mul_nr(cuzk_fp2 *r, const cuzk_fp2 *a);
void cuzk_fp2_conj(cuzk_fp2 *r, const cuzk_fp2 *a);
void cuzk_fp2_inv(cuzk_fp2 *r, const cuzk_fp2 *a);
void cuzk_fp2_pow(cuzk_fp2 *r, const cuzk_fp2 *a, const uint64_t *e, size_t n);
/* Returns 1 and a root if a is a square in Fp2, else 0. */
int cuzk_fp2_sqrt(cuzk_fp2 *r, const cuzk_fp2 *a);
int cuzk_fp2_is_zero(const cuzk_fp2 *a);
int cuzk_fp2_is_one(const cuzk_fp2 *a);
int cuzk_fp2_eq(const cuzk_fp2 *a, const cuzk_fp2 *b);
/* zcash: c1 > (q-1)/2, or c1 = 0 and c0 > (q-1)/2. */
int cuzk_fp2_is_lexmax(const cuzk_fp2 *a);
void cuzk_fp2_cmov(cuzk_fp2 *r, const cuzk_fp2 *c, int flag);
/* r = a^(q^power) (power taken mod 2). */
void cuzk_fp2_frobenius(cuzk_fp2 *r, const cuzk_fp2 *a, unsigned power);

/* --------------------------------------------------------------- Fp6 -- */

void cuzk_fp6_add(cuzk_fp6 *r, const cuzk_fp6 *a, const cuzk_fp6 *b);
void cuzk_fp6_sub(cuzk_fp6 *r, const cuzk_fp6 *a, const cuzk_fp6 *b);
void cuzk_fp6_neg(cuzk_fp6 *r, const cuzk_fp6 *a);
void cuzk_fp6_mul(cuzk_fp6 *r, const cuzk_fp6 *a, const cuzk_fp6 *b);
void cuzk_fp6_sqr(cuzk_fp6 *r, const cuzk_fp6 *a);
/* r = a * v. */
void cuzk_fp6_mul_v(cuzk_fp6 *r, const cuzk_fp6 *a);
void cuzk_fp6_inv(cuzk_fp6 *r, const cuzk_fp6 *a);
int cuzk_fp6_is_zero(const cuzk_fp6 *a);
int cuzk_fp6_eq(const cuzk_fp6 *a, const cuzk_fp6 *b);
/* r = a^(q^power), power in 0..5 (taken mod 6). */
void cuzk_fp6_frobenius(cuzk_fp6 *r, const cuzk_fp6 *a, unsigned power);

/* -------------------------------------------------------------- Fp12 -- */

extern const cuzk_fp12 CUZK_FP12_ONE;

void cuzk_fp12_add(cuzk_fp12 *r, const cuzk_fp12 *a, const cuzk_fp12 *b);
void cuzk_fp12_sub(cuzk_fp12 *r, const cuzk_fp12 *a, const cuzk_fp12 *b);
void cuzk_fp12_mul(cuzk_fp12 *r, const cuzk_fp12 *a, const cuzk_fp12 *b);
void cuzk_fp12_sqr(cuzk_fp12 *r, const cuzk_fp12 *a);
void cuzk_fp12_inv(cuzk_fp12 *r, const cuzk_fp12 *a);
/* r = a^(q^6): the inverse for elements of the cyclotomic subgroup. */
void cuzk_fp12_conj(cuzk_fp12 *r, const cuzk_fp12 *a);
void cuzk_fp12_pow(cuzk_fp12 *r, const cuzk_fp12 *a, const uint64_t *e, size_t n);
int cuzk_fp12_is_one(const cuzk_fp12 *a);
int cuzk_fp12_eq(const cuzk_fp12 *a, const cuzk_fp12 *b);
/* r = a^(q^power), power in 0..11 (taken mod 12). */
void cuzk_fp12_frobenius(cuzk_fp12 *r, const cuzk_fp12 *a, unsigned power);

#endif /* CUZK_FF_H */
