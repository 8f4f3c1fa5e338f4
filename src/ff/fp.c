/* Fp, the 381-bit base field of BLS12-381. Shared operations come from
 * field_impl.h; this file holds the constants and what only Fp has. */
#include <string.h>

#include <cuzk/ff.h>

#include "ff/mont.h"
/* The x86-64 mulx/adx kernels of both fields are compiled here, once. */
#include "ff/mont_x86_64_impl.h"

const uint64_t CUZK_FP_MODULUS[CUZK_FP_LIMBS] = {
    0xb9feffffffffaaabull, 0x1eabfffeb153ffffull, 0x6730d2a0f6b0f624ull,
    0x64774b84f38512bfull, 0x4b1ba7b6434bacd7ull, 0x1a0111ea397fe69aull};
const cuzk_fp CUZK_FP_ZERO = {{0}};
const cuzk_fp CUZK_FP_ONE = {{/* 2^384 mod q */
    0x760900000002fffdull, 0xebf4000bc40c0002ull, 0x5f48985753c758baull,
    0x77ce585370525745ull, 0x5c071a97a256ec6dull, 0x15f65ec3fa80e493ull}};
static const uint64_t FP_R2[CUZK_FP_LIMBS] = { /* 2^768 mod q */
    0xf4df1f341c341746ull, 0x0a76e6a609d104f1ull, 0x8de5476c4c95b6d5ull,
    0x67eb88a9939d83c0ull, 0x9a793e85b519952dull, 0x11988fe592cae3aaull};
static const uint64_t FP_R3[CUZK_FP_LIMBS] = { /* 2^1152 mod q */
    0xed48ac6bd94ca1e0ull, 0x315f831e03a7adf8ull, 0x9a53352a615e29ddull,
    0x34c04e5e921e1761ull, 0x2512d43565724728ull, 0x0aa6346091755d4dull};

#define FIELD cuzk_fp
#define FN(name) cuzk_fp_##name
#define NL CUZK_FP_LIMBS
#define NB CUZK_FP_BYTES
#define P_ CUZK_FP_MODULUS
#define ONE_ CUZK_FP_ONE
#define N0 0x89f3fffcfffcfffdull
#define R2_ FP_R2
#define R3_ FP_R3
#include "ff/field_impl.h"

/* q = 3 mod 4, so a^((q+1)/4) is a root whenever one exists (one check
 * squaring decides). */
int cuzk_fp_sqrt(cuzk_fp *r, const cuzk_fp *a)
{
    uint64_t e[NL];
    uint64_t carry = 1;
    for (size_t i = 0; i < NL; i++) {
        e[i] = P_[i] + carry;
        carry = e[i] < carry;
    }
    for (size_t i = 0; i < NL; i++) e[i] = (e[i] >> 2) | (i + 1 < NL ? e[i + 1] << 62 : 0);
    cuzk_fp t, s;
    cuzk_fp_pow(&t, a, e, NL);
    cuzk_fp_sqr(&s, &t);
    if (!cuzk_fp_eq(&s, a)) return 0;
    *r = t;
    return 1;
}

/* Canonical value > (q-1)/2, i.e. 2v > q - 1, i.e. 2v >= q (v < q). */
int cuzk_fp_is_lexmax(const cuzk_fp *a)
{
    uint64_t v[NL], d[NL], borrow = 0;
    cuzk_fp_to_limbs(v, a);
    /* d = 2v - q: v < 2^381 so 2v fits in 6 limbs. */
    for (size_t i = NL; i-- > 1;) v[i] = (v[i] << 1) | (v[i - 1] >> 63);
    v[0] <<= 1;
    for (size_t i = 0; i < NL; i++) {
        mont_u128 x = (mont_u128)v[i] - P_[i] - borrow;
        d[i] = (uint64_t)x;
        borrow = (uint64_t)(x >> 64) & 1;
    }
    (void)d;
    return (int)(borrow ^ 1);
}
