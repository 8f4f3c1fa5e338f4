/* Generic n-limb Montgomery arithmetic, shared by Fp (n = 6) and Fr (n = 4).
 *
 * Every routine is static inline and takes n as an argument; the callers in
 * fp.c and fr.c pass a constant, so the compiler unrolls each loop for its
 * field. Limbs are little-endian 64-bit words; values are < p on entry and on
 * exit. Nothing here branches on the value of an operand.
 *
 * Both BLS12-381 moduli leave the top bit of their top limb clear with room
 * to spare (q < 2^381, r < 2^255), which allows the "no-carry" CIOS variant
 * of Montgomery multiplication: the running sum never needs an extra limb.
 */
#ifndef CUZK_FF_MONT_H
#define CUZK_FF_MONT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define MONT_MAX_LIMBS 6

typedef unsigned __int128 mont_u128;

#define MONT_INLINE static inline __attribute__((always_inline))

/* r = t - p if t >= p else t; t < 2p. */
MONT_INLINE void mont_reduce_once(uint64_t *r, const uint64_t *t, const uint64_t *p, size_t n)
{
    uint64_t s[MONT_MAX_LIMBS];
    uint64_t borrow = 0;
    for (size_t i = 0; i < n; i++) {
        mont_u128 d = (mont_u128)t[i] - p[i] - borrow;
        s[i] = (uint64_t)d;
        borrow = (uint64_t)(d >> 64) & 1;
    }
    uint64_t keep = 0 - borrow; /* all ones: t < p, keep t */
    for (size_t i = 0; i < n; i++)
        r[i] = (t[i] & keep) | (s[i] & ~keep);
}

/* r = a + b mod p. The sum cannot overflow n limbs since p < 2^(64n-1). */
MONT_INLINE void mont_add(uint64_t *r, const uint64_t *a, const uint64_t *b,
                          const uint64_t *p, size_t n)
{
    uint64_t t[MONT_MAX_LIMBS];
    uint64_t carry = 0;
    for (size_t i = 0; i < n; i++) {
        mont_u128 s = (mont_u128)a[i] + b[i] + carry;
        t[i] = (uint64_t)s;
        carry = (uint64_t)(s >> 64);
    }
    mont_reduce_once(r, t, p, n);
}

/* r = a - b mod p. */
MONT_INLINE void mont_sub(uint64_t *r, const uint64_t *a, const uint64_t *b,
                          const uint64_t *p, size_t n)
{
    uint64_t t[MONT_MAX_LIMBS];
    uint64_t borrow = 0;
    for (size_t i = 0; i < n; i++) {
        mont_u128 d = (mont_u128)a[i] - b[i] - borrow;
        t[i] = (uint64_t)d;
        borrow = (uint64_t)(d >> 64) & 1;
    }
    uint64_t mask = 0 - borrow, carry = 0;
    for (size_t i = 0; i < n; i++) {
        mont_u128 s = (mont_u128)t[i] + (p[i] & mask) + carry;
        r[i] = (uint64_t)s;
        carry = (uint64_t)(s >> 64);
    }
}

MONT_INLINE uint64_t mont_is_zero(const uint64_t *a, size_t n)
{
    uint64_t acc = 0;
    for (size_t i = 0; i < n; i++) acc |= a[i];
    return 1 & ((acc | (0 - acc)) >> 63 ^ 1);
}

/* r = -a mod p (0 stays 0). */
MONT_INLINE void mont_neg(uint64_t *r, const uint64_t *a, const uint64_t *p, size_t n)
{
    uint64_t mask = 0 - (mont_is_zero(a, n) ^ 1);
    uint64_t borrow = 0;
    for (size_t i = 0; i < n; i++) {
        mont_u128 d = (mont_u128)p[i] - a[i] - borrow;
        r[i] = (uint64_t)d & mask;
        borrow = (uint64_t)(d >> 64) & 1;
    }
}

/* r = a * b / 2^(64n) mod p: no-carry CIOS (Koç, Acar, Kaliski 1996, with
 * the carry elimination of gnark-crypto's field generator). 2n^2 + n
 * 64x64-bit multiplications. Needs p[n-1] < 2^63 - 1, true for q and r. */
MONT_INLINE void mont_mul(uint64_t *r, const uint64_t *a, const uint64_t *b,
                          const uint64_t *p, uint64_t n0, size_t n)
{
    uint64_t t[MONT_MAX_LIMBS] = {0};
    for (size_t i = 0; i < n; i++) {
        mont_u128 x = (mont_u128)a[0] * b[i] + t[0];
        uint64_t A = (uint64_t)(x >> 64);
        t[0] = (uint64_t)x;
        uint64_t m = t[0] * n0;
        mont_u128 y = (mont_u128)m * p[0] + t[0];
        uint64_t C = (uint64_t)(y >> 64);
        for (size_t j = 1; j < n; j++) {
            x = (mont_u128)a[j] * b[i] + t[j] + A;
            A = (uint64_t)(x >> 64);
            y = (mont_u128)m * p[j] + (uint64_t)x + C;
            C = (uint64_t)(y >> 64);
            t[j - 1] = (uint64_t)y;
        }
        t[n - 1] = C + A;
    }
    mont_reduce_once(r, t, p, n);
}

/* a < b as canonical integers (public values only: branches). */
MONT_INLINE int mont_lt_var(const uint64_t *a, const uint64_t *b, size_t n)
{
    for (size_t i = n; i-- > 0;) {
        if (a[i] != b[i]) return a[i] < b[i];
    }
    return 0;
}

/* r = c if flag else r; flag in {0, 1}. */
MONT_INLINE void mont_cmov(uint64_t *r, const uint64_t *c, uint64_t flag, size_t n)
{
    uint64_t mask = 0 - flag;
    for (size_t i = 0; i < n; i++) r[i] ^= (r[i] ^ c[i]) & mask;
}

MONT_INLINE uint64_t mont_eq(const uint64_t *a, const uint64_t *b, size_t n)
{
    uint64_t acc = 0;
    for (size_t i = 0; i < n; i++) acc |= a[i] ^ b[i];
    return 1 & ((acc | (0 - acc)) >> 63 ^ 1);
}

/* Binary extended Euclid on canonical values: r = a^-1 mod p, variable time.
 * a = 0 gives 0. Intermediate x1, x2 stay < p, and x + p < 2^(64n). */
static void mont_inv_canonical_var(uint64_t *r, const uint64_t *a, const uint64_t *p, size_t n)
{
    uint64_t u[MONT_MAX_LIMBS], v[MONT_MAX_LIMBS], x1[MONT_MAX_LIMBS] = {1}, x2[MONT_MAX_LIMBS] = {0};
    if (mont_is_zero(a, n)) {
        memset(r, 0, n * sizeof(uint64_t));
        return;
    }
    memcpy(u, a, n * sizeof(uint64_t));
    memcpy(v, p, n * sizeof(uint64_t));
    const uint64_t one[MONT_MAX_LIMBS] = {1};
    for (;;) {
        if (mont_eq(u, one, n)) { memcpy(r, x1, n * sizeof(uint64_t)); return; }
        if (mont_eq(v, one, n)) { memcpy(r, x2, n * sizeof(uint64_t)); return; }
        /* Halve u (and x1 mod p) while u is even; likewise v and x2. */
        uint64_t *w[2] = {u, v}, *x[2] = {x1, x2};
        for (int k = 0; k < 2; k++) {
            while ((w[k][0] & 1) == 0) {
                for (size_t i = 0; i + 1 < n; i++) w[k][i] = (w[k][i] >> 1) | (w[k][i + 1] << 63);
                w[k][n - 1] >>= 1;
                uint64_t carry = 0;
                if (x[k][0] & 1) {
                    for (size_t i = 0; i < n; i++) {
                        mont_u128 s = (mont_u128)x[k][i] + p[i] + carry;
                        x[k][i] = (uint64_t)s;
                        carry = (uint64_t)(s >> 64);
                    }
                }
                for (size_t i = 0; i + 1 < n; i++) x[k][i] = (x[k][i] >> 1) | (x[k][i + 1] << 63);
                x[k][n - 1] = (x[k][n - 1] >> 1) | (carry << 63);
            }
        }
        /* Subtract the smaller of u, v from the larger (both odd now). */
        if (mont_lt_var(u, v, n)) {
            mont_sub(v, v, u, p, n); /* v > u: plain difference, no wrap */
            mont_sub(x2, x2, x1, p, n);
        } else {
            mont_sub(u, u, v, p, n);
            mont_sub(x1, x1, x2, p, n);
        }
    }
}

#endif /* CUZK_FF_MONT_H */
