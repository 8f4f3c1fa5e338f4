/* Modular inversion by Bernstein-Yang "safegcd" divsteps (Bernstein, Yang:
 * "Fast constant-time gcd computation and modular inversion", 2019), in
 * batches of 62 divsteps as in their paper and libsecp256k1's design notes.
 * Shared by Fp (n = 6) and Fr (n = 4); included by field_impl.h.
 *
 * State: f, g (f = p, g = x at the start) as signed integers in m = n + 1
 * limbs of 62 bits (the top limb carries the sign); d, e in [0, p) with
 *   d * x = f * K,  e * x = g * K  (mod p),
 * where K starts as e0 (d0 = 0 fits f0 = p = 0 mod p) and gains a factor
 * 2^-2 per batch. A batch runs 62 divsteps on the low 64 bits of f and g
 * only, collecting the transition matrix [u v; q r] (scaled by 2^62,
 * |u|+|v| <= 2^62 and |q|+|r| <= 2^62), then applies it to the full f, g (an
 * exact division by 2^62) and to d, e (a division by 2^64 done as one
 * Montgomery round: hence 2^-2). At the end g = 0 and f = +-1 (x != 0), so
 * after k batches x^-1 = +-d 2^(2k) / e0.
 *
 * With x = a R (R = 2^(64n)) the Montgomery form of a^-1 is
 * x^-1 R^2 = +-d 2^(2k) R^2 / e0; starting from e0 = R^3 mod p that is
 * +-d 2^(2k) / R, one Montgomery multiplication of +-d by the plain integer
 * 2^(2k). For x = 0, g stays 0 (no divstep ever swaps), d stays 0, and the
 * result is 0 as the API wants.
 *
 * ns per inversion (gcc 12 -O3, best of runs on noisy machines; the C and
 * the mulx builds are within noise of each other):
 *                                   fp_inv  fp_inv_var  fr_inv  fr_inv_var
 *   Intel Xeon, ~2.6 GHz:
 *     before (Fermat; binary Euclid) 47171      13133   17694        5217
 *     safegcd                         5003       2496    3232        1606
 *   AMD EPYC Zen 4 (dev machine):
 *     before                         50971      20859   15386        6830
 *     safegcd                         4117       1869    2616        1167
 * A constant-time Fp batch costs ~330 TSC of divsteps (throughput-bound:
 * ~30 simple operations per step), ~150 for d, e and ~40 for f, g; the
 * variable-time one needs ~13 batches of ~230 TSC of divsteps. */
#ifndef CUZK_FF_SAFEGCD_H
#define CUZK_FF_SAFEGCD_H

#include <stddef.h>
#include <stdint.h>

#include "ff/mont.h"

#define SG_MAX_LIMBS (MONT_MAX_LIMBS + 1)
#define SG_M62 (UINT64_MAX >> 2)

typedef __int128 sg_i128;

/* Transition matrix of one batch: f' = (u f + v g) / 2^62,
 * g' = (q f + r g) / 2^62. */
typedef struct { int64_t u, v, q, r; } sg_mat;

/* 62 divsteps, constant time. delta is the paper's delta (1 at the start);
 * f (odd) and g are the low 64 bits of the current values, of which the low
 * 62 decide the 62 steps. One divstep:
 *   delta > 0 and g odd: (delta, f, g) <- (1 - delta, g, (g - f) / 2)
 *   otherwise:           (delta, f, g) <- (1 + delta, f, (g + (g & 1) f) / 2)
 * Branch-free without a swap: if g is odd, g += f, or g -= f when delta > 0;
 * then in the swap case f += (the new g) = g - f gives f = old g. The rows of
 * the matrix follow f and g; instead of halving the second row each step the
 * first is doubled (hence the 2^62 scale). The chain through g is 5 simple
 * operations per step. */
static inline int64_t sg_divsteps_ct(int64_t delta, uint64_t f, uint64_t g, sg_mat *t)
{
    uint64_t u = 1, v = 0, q = 0, r = 1;
    int64_t eta = -delta; /* delta > 0 is then one shift: eta >> 63 */
    /* Unrolled twice: gcc 12 392 -> 329 TSC per batch (clang 14 317 -> 312). */
    _Pragma("GCC unroll 2")
    for (int i = 0; i < 62; i++) {
        uint64_t pos = (uint64_t)(eta >> 63);
        uint64_t odd = 0 - (g & 1);
        uint64_t swap = pos & odd;
        g += ((f ^ pos) - pos) & odd;
        q += ((u ^ pos) - pos) & odd;
        r += ((v ^ pos) - pos) & odd;
        f += g & swap;
        u += q & swap;
        v += r & swap;
        eta = (eta ^ (int64_t)swap) + (int64_t)~swap; /* swap ? -eta - 1 : eta - 1 */
        g >>= 1;
        u <<= 1;
        v <<= 1;
    }
    t->u = (int64_t)u;
    t->v = (int64_t)v;
    t->q = (int64_t)q;
    t->r = (int64_t)r;
    return -eta;
}

/* The same 62 divsteps, variable time, with eta = -delta. Runs of even g are
 * skipped with one count of trailing zeros. With g odd, a step swaps iff
 * eta < 0; after that eta >= 0, so the next min(eta + 1, left) steps cannot
 * swap and together add w f to g for the w < 2^L that makes g + w f
 * divisible by 2^L; w = -g / f mod 2^L, L <= 6 (f (f^2 - 2) = f^-1 mod 64). */
static inline int64_t sg_divsteps_var(int64_t eta, uint64_t f, uint64_t g, sg_mat *t)
{
    uint64_t u = 1, v = 0, q = 0, r = 1, x;
    int left = 62;
    for (;;) {
        int z = __builtin_ctzll(g | (UINT64_MAX << left));
        g >>= z;
        u <<= z;
        v <<= z;
        eta -= z;
        left -= z;
        if (left == 0) break;
        if (eta < 0) {
            eta = -eta;
            x = f; f = g; g = 0 - x;
            x = u; u = q; q = 0 - x;
            x = v; v = r; r = 0 - x;
        }
        int lim = eta + 1 < left ? (int)eta + 1 : left;
        if (lim > 6) lim = 6;
        uint64_t w = (f * g * (f * f - 2)) & (UINT64_MAX >> (64 - lim));
        g += f * w;
        q += u * w;
        r += v * w;
    }
    t->u = (int64_t)u;
    t->v = (int64_t)v;
    t->q = (int64_t)q;
    t->r = (int64_t)r;
    return eta;
}

/* f, g <- (u f + v g) / 2^62, (q f + r g) / 2^62, m limbs of 62 bits; the
 * divisions are exact. |u f_i| <= 2^124, so the 128-bit sums cannot
 * overflow. Arithmetic right shift of a negative __int128 is what gcc and
 * clang do. */
static inline void sg_update_fg(int64_t *f, int64_t *g, const sg_mat *t, size_t m)
{
    sg_i128 cf = (sg_i128)t->u * f[0] + (sg_i128)t->v * g[0];
    sg_i128 cg = (sg_i128)t->q * f[0] + (sg_i128)t->r * g[0];
    cf >>= 62;
    cg >>= 62;
    MONT_UNROLL
    for (size_t i = 1; i < m; i++) {
        cf += (sg_i128)t->u * f[i] + (sg_i128)t->v * g[i];
        cg += (sg_i128)t->q * f[i] + (sg_i128)t->r * g[i];
        f[i - 1] = (int64_t)((uint64_t)cf & SG_M62);
        g[i - 1] = (int64_t)((uint64_t)cg & SG_M62);
        cf >>= 62;
        cg >>= 62;
    }
    f[m - 1] = (int64_t)cf;
    g[m - 1] = (int64_t)cg;
}

/* out = (a x + b y) / 2^64 mod p for a + b <= 2^62 and x, y <= p: one
 * Montgomery round. The sum S = a x + b y <= 2^62 p; adding m p with
 * m = -S / p mod 2^64 makes it divisible by 2^64, and the quotient is
 * < (2^62 + 2^64) p / 2^64 < 2p, so one conditional subtraction ends in
 * [0, p). Two carries: a x_j + b y_j + c1 < 2^127 + 2^64 and
 * m p_j + lo + c2 < 2^128. (Three multiply-accumulate rows instead were no
 * faster with gcc 12 or clang 14.) */
MONT_INLINE void sg_lincomb(uint64_t *out, uint64_t a, const uint64_t *x, uint64_t b,
                            const uint64_t *y, const uint64_t *p, uint64_t n0, size_t n)
{
    uint64_t t[MONT_MAX_LIMBS];
    mont_u128 s = (mont_u128)a * x[0] + (mont_u128)b * y[0];
    uint64_t c1 = (uint64_t)(s >> 64), lo = (uint64_t)s;
    uint64_t m = lo * n0;
    mont_u128 z = (mont_u128)m * p[0] + lo; /* low word 0 by the choice of m */
    uint64_t c2 = (uint64_t)(z >> 64);
    for (size_t j = 1; j < n; j++) {
        s = (mont_u128)a * x[j] + (mont_u128)b * y[j] + c1;
        c1 = (uint64_t)(s >> 64);
        z = (mont_u128)m * p[j] + (uint64_t)s + c2;
        c2 = (uint64_t)(z >> 64);
        t[j - 1] = (uint64_t)z;
    }
    t[n - 1] = c1 + c2;
    mont_reduce_once(out, t, p, n);
}

/* r = p - x for x <= p (p - 0 = p is fine for sg_lincomb). Borrows by
 * comparison: gcc's code for 128-bit differences is longer. */
MONT_INLINE void sg_p_minus(uint64_t *r, const uint64_t *x, const uint64_t *p, size_t n)
{
    uint64_t borrow = 0;
    MONT_UNROLL
    for (size_t i = 0; i < n; i++) {
        uint64_t d = p[i] - x[i], b1 = p[i] < x[i];
        uint64_t b2 = d < borrow;
        r[i] = d - borrow;
        borrow = b1 | b2;
    }
}

/* r = mask ? y : x, limb by limb, mask 0 or all ones. */
MONT_INLINE void sg_select(uint64_t *r, const uint64_t *x, const uint64_t *y, uint64_t mask, size_t n)
{
    for (size_t i = 0; i < n; i++) r[i] = x[i] ^ ((x[i] ^ y[i]) & mask);
}

/* d, e <- (u d + v e) / 2^64, (q d + r e) / 2^64 mod p, constant time: the
 * signs of the matrix entries are moved onto d and e (as p - d, p - e). */
static inline void sg_update_de(uint64_t *d, uint64_t *e, const sg_mat *t, const uint64_t *p,
                                uint64_t n0, size_t n)
{
    uint64_t su = (uint64_t)(t->u >> 63), sv = (uint64_t)(t->v >> 63);
    uint64_t sq = (uint64_t)(t->q >> 63), sr = (uint64_t)(t->r >> 63);
    uint64_t au = ((uint64_t)t->u ^ su) - su, av = ((uint64_t)t->v ^ sv) - sv;
    uint64_t aq = ((uint64_t)t->q ^ sq) - sq, ar = ((uint64_t)t->r ^ sr) - sr;
    uint64_t nd[MONT_MAX_LIMBS], ne[MONT_MAX_LIMBS], x[MONT_MAX_LIMBS], y[MONT_MAX_LIMBS];
    sg_p_minus(nd, d, p, n);
    sg_p_minus(ne, e, p, n);
    sg_select(x, d, nd, su, n);
    sg_select(y, e, ne, sv, n);
    sg_select(nd, d, nd, sq, n); /* d is read again below: nd takes the q side */
    sg_select(ne, e, ne, sr, n);
    sg_lincomb(d, au, x, av, y, p, n0, n);
    sg_lincomb(e, aq, nd, ar, ne, p, n0, n);
}

/* n 64-bit limbs -> n + 1 limbs of 62 bits (value < 2^(64n), non-negative). */
MONT_INLINE void sg_to62(int64_t *out, const uint64_t *in, size_t n)
{
    for (size_t i = 0; i <= n; i++) {
        size_t bit = 62 * i, w = bit / 64, sh = bit % 64;
        uint64_t v = w < n ? in[w] >> sh : 0;
        if (sh > 2 && w + 1 < n) v |= in[w + 1] << (64 - sh);
        out[i] = (int64_t)(v & SG_M62);
    }
}

/* Number of 62-divstep batches that always reach g = 0 for p of this size:
 * Bernstein-Yang theorem 11.2 bounds the divsteps for f, g < 2^b (b >= 46)
 * by floor((49 b + 57) / 17): 1101 for b = 381 (18 batches), 738 for
 * b = 255 (12 batches). */
MONT_INLINE unsigned sg_ct_batches(const uint64_t *p, size_t n)
{
    unsigned b = (unsigned)(64 * n) - (unsigned)__builtin_clzll(p[n - 1]);
    unsigned steps = (49 * b + 57) / 17;
    return (steps + 61) / 62;
}

/* r = canonical x^-1 R^2 (Montgomery form of a^-1 for x = a R), or 0 for
 * x = 0. ct = 1: a fixed number of batches and no branch on x; ct = 0:
 * variable-time divsteps and an early exit once g = 0. */
static inline void sg_inverse(uint64_t *r, const uint64_t *x, const uint64_t *p, uint64_t n0,
                              const uint64_t *r3, size_t n, int ct)
{
    size_t m = n + 1;
    int64_t f[SG_MAX_LIMBS], g[SG_MAX_LIMBS];
    uint64_t d[MONT_MAX_LIMBS] = {0}, e[MONT_MAX_LIMBS];
    sg_mat t;
    sg_to62(f, p, n);
    sg_to62(g, x, n);
    memcpy(e, r3, n * sizeof(uint64_t));
    unsigned k = 0;
    if (ct) {
        int64_t delta = 1;
        unsigned batches = sg_ct_batches(p, n);
        for (; k < batches; k++) {
            uint64_t f0 = (uint64_t)f[0] | (uint64_t)f[1] << 62;
            uint64_t g0 = (uint64_t)g[0] | (uint64_t)g[1] << 62;
            delta = sg_divsteps_ct(delta, f0, g0, &t);
            sg_update_fg(f, g, &t, m);
            sg_update_de(d, e, &t, p, n0, n);
        }
    } else {
        int64_t eta = -1; /* -delta */
        for (;;) {
            uint64_t nz = 0;
            for (size_t i = 0; i < m; i++) nz |= (uint64_t)g[i];
            if (nz == 0) break;
            uint64_t f0 = (uint64_t)f[0] | (uint64_t)f[1] << 62;
            uint64_t g0 = (uint64_t)g[0] | (uint64_t)g[1] << 62;
            eta = sg_divsteps_var(eta, f0, g0, &t);
            sg_update_fg(f, g, &t, m);
            sg_update_de(d, e, &t, p, n0, n);
            k++;
        }
    }
    /* f = +-1: take the sign into d, then multiply by 2^(2k) (k <= 18, so it
     * is a valid input < p). */
    uint64_t nd[MONT_MAX_LIMBS], two[MONT_MAX_LIMBS] = {0};
    mont_neg(nd, d, p, n);
    mont_cmov(d, nd, (uint64_t)f[m - 1] >> 63, n);
    two[0] = (uint64_t)1 << (2 * k);
    mont_mul(r, d, two, p, n0, n);
}

#endif /* CUZK_FF_SAFEGCD_H */
