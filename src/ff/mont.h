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

#if defined(__x86_64__)
#include <x86intrin.h>
#endif

#include "ff/mont_x86_64.h"

#define MONT_MAX_LIMBS 6

typedef unsigned __int128 mont_u128;

#define MONT_INLINE static inline __attribute__((always_inline))

/* One step of an add-with-carry / subtract-with-borrow chain. On x86-64 the
 * intrinsics compile to one adc / sbb each; the 128-bit formulation took
 * several instructions per limb (a 6-limb modular addition measured 12 ns
 * against 2.3 ns with the intrinsics on the development EPYC). */
MONT_INLINE unsigned char mont_addc(unsigned char c, uint64_t a, uint64_t b, uint64_t *r)
{
#if defined(__x86_64__)
    unsigned long long t;
    c = _addcarry_u64(c, a, b, &t);
    *r = t;
    return c;
#else
    mont_u128 s = (mont_u128)a + b + c;
    *r = (uint64_t)s;
    return (unsigned char)(s >> 64);
#endif
}

MONT_INLINE unsigned char mont_subb(unsigned char c, uint64_t a, uint64_t b, uint64_t *r)
{
#if defined(__x86_64__)
    unsigned long long t;
    c = _subborrow_u64(c, a, b, &t);
    *r = t;
    return c;
#else
    mont_u128 d = (mont_u128)a - b - c;
    *r = (uint64_t)d;
    return (unsigned char)((d >> 64) & 1);
#endif
}

/* r = t - p if t >= p else t; t < 2p; r may be t. Computed as t - p,
 * plus p again when that borrowed: two carry chains. The select
 * (t & keep) | (t - p & ~keep) it replaced was vectorised by gcc 12 -O3
 * through the stack; with the store-forwarding stalls a dependent chain
 * of cuzk_fr_add cost 22.5 ns an add on the (loaded) dev box, more than
 * an fr product, against 5.5 ns now (docs/perf.md, "Poseidon"). */
MONT_INLINE void mont_reduce_once(uint64_t *r, const uint64_t *t, const uint64_t *p, size_t n)
{
    uint64_t s[MONT_MAX_LIMBS];
    unsigned char borrow = 0, carry = 0;
    for (size_t i = 0; i < n; i++) borrow = mont_subb(borrow, t[i], p[i], &s[i]);
    uint64_t mask = 0 - (uint64_t)borrow; /* all ones: t < p, add p back */
    for (size_t i = 0; i < n; i++) carry = mont_addc(carry, s[i], p[i] & mask, &r[i]);
}

/* r = a + b mod p. The sum cannot overflow n limbs since p < 2^(64n-1). */
MONT_INLINE void mont_add(uint64_t *r, const uint64_t *a, const uint64_t *b,
                          const uint64_t *p, size_t n)
{
    uint64_t t[MONT_MAX_LIMBS];
    unsigned char carry = 0;
    for (size_t i = 0; i < n; i++) carry = mont_addc(carry, a[i], b[i], &t[i]);
    mont_reduce_once(r, t, p, n);
}

/* r = a - b mod p. */
MONT_INLINE void mont_sub(uint64_t *r, const uint64_t *a, const uint64_t *b,
                          const uint64_t *p, size_t n)
{
    uint64_t t[MONT_MAX_LIMBS];
    unsigned char borrow = 0;
    for (size_t i = 0; i < n; i++) borrow = mont_subb(borrow, a[i], b[i], &t[i]);
    uint64_t mask = 0 - (uint64_t)borrow;
    unsigned char carry = 0;
    for (size_t i = 0; i < n; i++) carry = mont_addc(carry, t[i], p[i] & mask, &r[i]);
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
    unsigned char borrow = 0;
    for (size_t i = 0; i < n; i++) {
        borrow = mont_subb(borrow, p[i], a[i], &r[i]);
        r[i] &= mask;
    }
}

/* GCC keeps the limbs of the C multiplication in registers only when its
 * loops are fully unrolled; clang does that by itself and is slower with the
 * pragma (gcc 12: 81 -> 60 ns per Fp product; clang 14: 52 ns without the
 * pragma, 69 ns with it). */
#if defined(__GNUC__) && !defined(__clang__)
#define MONT_UNROLL _Pragma("GCC unroll 8")
#else
#define MONT_UNROLL
#endif

/* (hi, *lo) = a * b + c + d; cannot overflow 128 bits. */
MONT_INLINE uint64_t mont_mac(uint64_t *lo, uint64_t a, uint64_t b, uint64_t c, uint64_t d)
{
    mont_u128 x = (mont_u128)a * b + c + d;
    *lo = (uint64_t)x;
    return (uint64_t)(x >> 64);
}

/* Portable r = a * b / 2^(64n) mod p: no-carry CIOS (Koç, Acar, Kaliski
 * 1996, with the carry elimination of gnark-crypto's field generator).
 * 2n^2 + n 64x64-bit multiplications. Needs p[n-1] < 2^63 - 1, true for q and
 * r. Of the layouts tried (this one; full product then reduction; product
 * scanning), this was the fastest with both gcc and clang. */
MONT_INLINE void mont_mul_c(uint64_t *r, const uint64_t *a, const uint64_t *b,
                            const uint64_t *p, uint64_t n0, size_t n)
{
    uint64_t t[MONT_MAX_LIMBS] = {0};
    MONT_UNROLL
    for (size_t i = 0; i < n; i++) {
        uint64_t lo, A, C, m;
        A = mont_mac(&lo, a[0], b[i], t[0], 0);
        m = lo * n0;
        C = mont_mac(&lo, m, p[0], lo, 0);
        MONT_UNROLL
        for (size_t j = 1; j < n; j++) {
            uint64_t x;
            A = mont_mac(&x, a[j], b[i], t[j], A);
            C = mont_mac(&t[j - 1], m, p[j], x, C);
        }
        t[n - 1] = C + A;
    }
    mont_reduce_once(r, t, p, n);
}

/* r = a * b / 2^(64n) mod p. With CUZK_MONT_ASM the 6- and 4-limb cases go to
 * the mulx/adx kernels when the CPU has them (one well-predicted branch on a
 * flag set at load time); n is a constant at every call site, so the other
 * cases fold away. */
MONT_INLINE void mont_mul(uint64_t *r, const uint64_t *a, const uint64_t *b,
                          const uint64_t *p, uint64_t n0, size_t n)
{
#if CUZK_MONT_ASM
    if (n == 6 && cuzk_mont_adx) {
        cuzk_mont_mul6_adx(r, a, b, p, n0);
        return;
    }
    if (n == 4 && cuzk_mont_adx) {
        cuzk_mont_mul4_adx(r, a, b, p, n0);
        return;
    }
#endif
    mont_mul_c(r, a, b, p, n0, n);
}

/* r = a^2 / 2^(64n) mod p. The asm kernels square with n(n-1)/2 + n
 * products instead of n^2 (see mont_x86_64_impl.h). In C the same dedicated
 * squaring was not faster than mont_mul_c(a, a) (Fp: gcc 12 161 vs 141 TSC,
 * clang 14 133 vs 134), so the C path multiplies. */
MONT_INLINE void mont_sqr(uint64_t *r, const uint64_t *a, const uint64_t *p, uint64_t n0, size_t n)
{
#if CUZK_MONT_ASM
    if (n == 6 && cuzk_mont_adx) {
        cuzk_mont_sqr6_adx(r, a, p, n0);
        return;
    }
    if (n == 4 && cuzk_mont_adx) {
        cuzk_mont_sqr4_adx(r, a, p, n0);
        return;
    }
#endif
    mont_mul_c(r, a, a, p, n0, n);
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

#endif /* CUZK_FF_MONT_H */
