/* cuzk — Fr and Fp Montgomery multiplication with the partial products on the
 * FP64 FMA pipe (device code; the method of Emmart, Zheng and Weems, "Faster
 * Modular Exponentiation Using Double Precision Floating Point Arithmetic on
 * the GPU", ARITH 2018; research/gpu-sota.md §6 item 8).
 *
 * Interface: ff64_mul<P>(r, a, b) takes and returns the layout of ff.cuh
 * (F::N little-endian 32-bit limbs, fully reduced, Montgomery form with
 * R = 2^(32N): 2^256 for Fr, 2^384 for Fp) and gives bit for bit the same
 * result as ff_mul<F>; ff64_sqr<P>(r, a) as ff_sqr<F>. r may alias a or b.
 * P is Ff64Fr or Ff64Fp (Ff64Of<F>::P for an ff.cuh field F).
 *
 * Why: the integer products of ff.cuh run on the IMAD pipe, where a 32x32->64
 * product takes two issue slots (docs/perf.md, "GPU field arithmetic"). The
 * H200's FP64 FMA pipe is a second multiplier of 64 lanes per SM that nothing
 * else uses. A 52x52-bit product there costs three FP64 instructions; the
 * 32x32 ones it replaces are (52/32)^2 = 2.6 of them, i.e. 5.3 IMAD slots.
 *
 * ------------------------------------------------------------ the method --
 * Samples. An element is cut into S samples of W bits, each held exactly in
 * a double: Fr W = 52, S = 5 (260 bits); Fp W = 48, S = 8 (384 bits). A
 * sample x < 2^W becomes a double by setting the exponent of 2^52 above it
 * (bits 0x433 << 52 | x is the double 2^52 + x) and subtracting 2^52.
 *
 * One product x*y (x, y < 2^W, so x*y < 2^(2W) <= 2^(52+W)) is two FMAs
 * rounding toward zero and one subtraction, with the alignment constants
 * C_HI = 2^(52+W) and C_LO = 2^(52+W) + 2^52:
 *     hi  = fma_rz(x, y, C_HI)     = 2^(52+W) + H 2^W,  H = floor(xy / 2^W)
 *     lo  = fma_rz(x, y, C_LO - hi) = 2^52 + L,         L = xy - H 2^W
 * Exactness: x*y + C_HI lies in [2^(52+W), 2^(53+W)), where doubles are the
 * multiples of 2^W, so rounding toward zero keeps exactly floor(xy/2^W) 2^W
 * above C_HI. C_LO - hi = 2^52 - H 2^W is a multiple of 2^W below 2^(2W) in
 * magnitude, so a double, and the subtraction is exact. x*y + 2^52 - H 2^W
 * = 2^52 + L with 0 <= L < 2^W <= 2^52: an integer in [2^52, 2^53), a double,
 * so the second FMA does not round either. (Rounding toward zero makes H a
 * floor and L non-negative; with rounding to nearest L would be signed and
 * the carry shortcut below would not hold.)
 *
 * Column sums. Both results sit at a fixed exponent, so their bit patterns
 * are linear in H and L: bits(hi) = E_HI + H with E_HI = (1023+52+W) << 52,
 * bits(lo) = E_LO + L with E_LO = (1023+52) << 52. The column sums are kept
 * as 64-bit integers: the product's L is added to column i+j and its H to
 * column i+j+1, as raw bit patterns; each column starts at minus the sum of
 * the E's it will receive (ff64_offset, ff64_redc_init), so after the last
 * term it holds the exact sum (all arithmetic mod 2^64, and the true sums
 * are far below 2^64: see the bounds). The column sums are not kept in doubles: a double
 * is exact only below 2^53, and a column of up to 4S terms of up to W bits
 * needs W + log2(4S) = 56.3 (Fr) / 53 (Fp) bits. The additions run on the
 * integer ALU pipe (IADD3 with two carry outputs takes two terms per pair of
 * instructions), beside the FP64 pipe.
 *
 * Montgomery reduction in the sample domain (separated: the S^2 products of
 * a*b first, then S reduction steps). Step i takes the column value
 * v = c_i + carry (exact, every term of column i is in by then), the
 * quotient digit q_i = (v mod 2^W) * m' mod 2^W with m' = -p^-1 mod 2^W
 * (integer multiply: one IMAD.WIDE and two IMAD), and adds q_i * p_j for all
 * j, p_j the W-bit samples of the modulus. Then v + q_i p_0 = 0 mod 2^W, so
 * with q_i p_0 = H 2^W + L the column's carry into column i+1 is
 * (v + L) / 2^W = ceil(v / 2^W) (v mod 2^W + L is 0 or 2^W, and 0 only when
 * v mod 2^W = 0; L in [0, 2^W) by rounding toward zero): L(q_i p_0) is never
 * computed, only H (one FMA), and the carry is (v + 2^W - 1) >> W.
 * The digits add up to exactly the R of ff.cuh: Fp 8 x 48 = 384 bits; Fr
 * 4 x 52 + 48 = 256 bits, the last digit taken mod 2^48 (DL = 48), whose
 * q_4 p_0 is computed in full because column 4 must then be 0 mod 2^48, not
 * mod 2^52: its value v' is divisible by 2^48 and v' >> 48 is the result's
 * bit 0. So the result is (T + Q p) / R with Q < R, T = a*b < p^2, i.e.
 * below p^2/R + p < 2p, as for ff_mul: one conditional subtraction of p.
 *
 * Back to 32-bit limbs: the result is a sum of the remaining columns c_k
 * (each up to 57 bits) at bit offsets W apart (Fr: v' >> 48 at bit 0, c_k at
 * 52(k-5)+4; Fp: c_k at 48(k-8)). Parts two apart do not overlap (57 < 2W),
 * so the even parts and the odd parts are each placed into N words by shifts
 * and ORs, and the two N-word numbers are added in one carry chain.
 *
 * ------------------------------------------------------ error analysis --
 * Every floating-point operation above is exact (shown with the method), so
 * the only thing left to prove is that no integer sum wraps or overlaps:
 * - Inputs are reduced: a, b < p. Fp: p < 2^381, so the top sample is below
 *   2^(381-336) = 2^45 and all samples are below 2^W = 2^48. Fr: r < 2^255,
 *   the top sample below 2^(255-208) = 2^47, all below 2^52. Quotient digits
 *   are taken mod 2^W (mod 2^DL for the last), modulus samples are < 2^W.
 *   So every factor is < 2^W and every product < 2^(2W) <= 2^(52+W): the
 *   condition for hi's binade above.
 * - Column k receives at most S terms L and S terms H from a*b (one per
 *   (i, j) with i + j = k, resp. k - 1) and as many from Q*p, so at most 4S
 *   terms, each below 2^W, plus the carry. Carries: column i < S is below
 *   4S 2^W + carry_i, so carry_(i+1) <= 4S + 1 + carry_i / 2^W: below 4S + 2.
 *   Fr: 20 terms below 2^52 plus 22: below 2^56.33 + 22 < 2^57.
 *   Fp: 32 terms below 2^48 plus 34: below 2^53 + 34 < 2^54.
 *   Both far below 2^64: the mod-2^64 column sums (offsets included) are the
 *   exact sums once all offsets are subtracted, and every partial sum of the
 *   true terms is too (the offsets are multiples of 2^52 >= 2^W, so they
 *   never change a column's low W bits, which is all that q_i reads; the
 *   carry reads a column only after its last term). ff64_sqr makes the same
 *   column sums as ff64_mul(a, a) (each off-diagonal H and L twice, by the
 *   doubling), so the same bounds hold.
 * - Quotient: v mod 2^W times m' mod 2^64 keeps the low 64 >= W bits exact.
 * - Packing: parts are below 2^57 (Fr; 2^54 Fp) and two parts apart are 104
 *   (96) bits apart: no overlap inside the even or odd group, so the shifts
 *   and ORs place exact bits. Fr's first part v' >> 48 is below 2^9 and sits
 *   at bits 0..8, the second even part (c_6) starts at bit 56. The sum of the
 *   two groups is the result, below 2p < 2^(32N): the carry chain cannot
 *   carry out of the top word.
 *
 * ------------------------------------------------------------- counts --
 * Per multiplication (per thread): S^2 products for a*b and S^2 for Q*p, each
 * 2 DFMA + 1 DADD except the carry-only q_i p_0 (1 DFMA; all S of them for
 * Fp, the first S - 1 for Fr); S + S DADD to make the samples of a and of
 * the quotient digits (S more for b's when b changes). Fr: 46 full products
 * + 4 carry-only = 142 FP64 instructions + 10 conversions = 152; Fp: 120
 * full + 8 = 368 + 16 = 384. The squaring has S(S+1)/2 products for a*b (Fr
 * 15 instead of 25, Fp 36 instead of 64): Fr 122, Fp 300. ff64_mul_fc (Fp,
 * column sums in doubles, at the end of this file): 504 FP64 and only the
 * per-column integer additions. The PTX and SASS counts are in
 * docs/perf.md.
 *
 * Host emulation (CUZK_FF_HOST_EMULATION, tests/gpu/test_gpu_ff64_emu.cu):
 * the same code compiled for the host, fma() of <math.h> for __fma_rz. C's
 * fma rounds in the current rounding mode, so the caller must have set
 * fesetround(FE_TOWARDZERO) (and compile with -frounding-math); the test
 * checks that it has. */
#ifndef CUZK_GPU_FF_FP64_CUH
#define CUZK_GPU_FF_FP64_CUH

#include <stdint.h>

#include "gpu/ff.cuh"

#if defined(CUZK_FF_HOST_EMULATION) && !defined(__CUDA_ARCH__)
#include <math.h>
#include <string.h>
#endif

/* ------------------------------------------------------------ primitives -- */

/* a*b + c rounded toward zero (one DFMA.RZ). */
FF_INLINE double ff64_fma_rz(double a, double b, double c)
{
#if defined(CUZK_FF_HOST_EMULATION) && !defined(__CUDA_ARCH__)
    return fma(a, b, c); /* the caller has set FE_TOWARDZERO */
#else
    return __fma_rz(a, b, c);
#endif
}

/* a - b; only ever used where the difference is exact (one DADD). */
FF_INLINE double ff64_sub(double a, double b)
{
#if defined(CUZK_FF_HOST_EMULATION) && !defined(__CUDA_ARCH__)
    return a - b;
#else
    return __dsub_rn(a, b);
#endif
}

/* a + b; only ever used where the sum is exact (one DADD). */
FF_INLINE double ff64_add(double a, double b)
{
#if defined(CUZK_FF_HOST_EMULATION) && !defined(__CUDA_ARCH__)
    return a + b;
#else
    return __dadd_rn(a, b);
#endif
}

FF_INLINE uint64_t ff64_bits(double x)
{
#if defined(CUZK_FF_HOST_EMULATION) && !defined(__CUDA_ARCH__)
    uint64_t u;
    memcpy(&u, &x, sizeof u);
    return u;
#else
    return (uint64_t)__double_as_longlong(x);
#endif
}

FF_INLINE double ff64_from_bits(uint64_t u)
{
#if defined(CUZK_FF_HOST_EMULATION) && !defined(__CUDA_ARCH__)
    double x;
    memcpy(&x, &u, sizeof x);
    return x;
#else
    return __longlong_as_double((long long)u);
#endif
}

/* The double 2^52 and its bit pattern: E52 | x is the double 2^52 + x for
 * x < 2^52. */
#define FF64_E52 0x4330000000000000ull
#define FF64_TWO52 4503599627370496.0

/* x < 2^52 as a double: one LOP3 (on the high word) and one DADD. */
FF_INLINE double ff64_int_to_double(uint64_t x)
{
    return ff64_sub(ff64_from_bits(x | FF64_E52), FF64_TWO52);
}

/* ------------------------------------------------------ the two fields -- */

/* A field for the FP64 route: F (ff.cuh's parameters, for the limb count and
 * the final conditional subtraction), S samples of W bits, the last
 * quotient digit of DL bits ((S-1) W + DL = 32 F::N, so the Montgomery
 * radix is ff.cuh's R), the modulus samples p(j) and MP = -p^-1 mod 2^64.
 * Constants: the moduli of ff.cuh cut into W-bit pieces, and MP from them
 * (both checked by tests/gpu/test_gpu_ff64_emu.cu against the CPU's
 * moduli: the pieces rebuild it, MP p = -1 mod 2^64). */
struct Ff64Fr {
    typedef FfFr F;
    static constexpr int S = 5, W = 52, DL = 48;
    static constexpr uint64_t MP = 0xfffffffeffffffffull;
    static FF_INLINE constexpr uint64_t p(int j)
    {
        /* r = 0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001 */
        return j == 0 ? 0xfffff00000001ull : j == 1 ? 0x2fffe5bfefffull
             : j == 2 ? 0x9a1d80553bda4ull : j == 3 ? 0x7d483339d8080ull
             : 0x73eda753299dull;
    }
};

struct Ff64Fp {
    typedef FfFp F;
    static constexpr int S = 8, W = 48, DL = 48;
    static constexpr uint64_t MP = 0x89f3fffcfffcfffdull;
    static FF_INLINE constexpr uint64_t p(int j)
    {
        /* q = 0x1a0111ea...ffffaaab (ff.cuh) */
        return j == 0 ? 0xffffffffaaabull : j == 1 ? 0xb153ffffb9feull
             : j == 2 ? 0xf6241eabfffeull : j == 3 ? 0x6730d2a0f6b0ull
             : j == 4 ? 0x4b84f38512bfull : j == 5 ? 0x434bacd76477ull
             : j == 6 ? 0xe69a4b1ba7b6ull : 0x1a0111ea397full;
    }
};

/* FP64 parameters of an ff.cuh field (any constant placement). */
template <class F> struct Ff64Of;
template <int K> struct Ff64Of<FfFrT<K>> { typedef Ff64Fr P; };
template <int K> struct Ff64Of<FfFpT<K>> { typedef Ff64Fp P; };

/* 2^e as a double, e in [0, 1023]. */
FF_INLINE constexpr double ff64_pow2(int e)
{
    return e == 0 ? 1.0 : 2.0 * ff64_pow2(e - 1);
}

/* Number of (i, j) with 0 <= i, j < S and i + j = k. */
FF_INLINE constexpr uint64_t ff64_pairs(int S, int k)
{
    return k < 0 || k > 2 * S - 2 ? 0 : k < S ? (uint64_t)k + 1 : (uint64_t)(2 * S - 1 - k);
}

/* Minus the exponent bits of nlo L terms and nhi H terms (mod 2^64). */
template <class P>
FF_INLINE constexpr uint64_t ff64_offset(uint64_t nlo, uint64_t nhi)
{
    return 0 - (nlo * ((uint64_t)(1023 + 52) << 52) + nhi * ((uint64_t)(1023 + 52 + P::W) << 52));
}

/* Column k's starting value for the reduction's terms (ff64_redc): L of
 * Q*p's products with j >= 1 and i + j = k, plus the last step's full q p_0
 * when DL < W; H of every Q*p product with i + j = k - 1. */
template <class P>
FF_INLINE constexpr uint64_t ff64_redc_init(int k)
{
    return ff64_offset<P>(ff64_pairs(P::S, k) - (k >= 0 && k < P::S ? 1 : 0) +
                              (P::DL != P::W && k == P::S - 1 ? 1 : 0),
                          ff64_pairs(P::S, k - 1));
}

/* --------------------------------------------------------- the pieces -- */

/* The S W-bit samples of a reduced element (F::N 32-bit limbs) as doubles. */
template <class P>
FF_INLINE void ff64_split(double x[P::S], const uint32_t a[P::F::N])
{
    constexpr int n = P::F::N;
#pragma unroll
    for (int k = 0; k < P::S; k++) {
        const int bit = P::W * k, w = bit / 32, o = bit % 32;
        uint64_t v = (uint64_t)a[w] | (w + 1 < n ? (uint64_t)a[w + 1] << 32 : 0);
        v >>= o;
        if (o > 0 && w + 2 < n) v |= (uint64_t)a[w + 2] << (64 - o);
        v &= (1ull << P::W) - 1;
        x[k] = ff64_int_to_double(v);
    }
}

/* Adds x*y to the columns: L to lo_col, H to hi_col (as raw bit patterns;
 * the column's starting value removes the exponents). 2 DFMA + 1 DADD. */
template <class P>
FF_INLINE void ff64_prod(uint64_t &lo_col, uint64_t &hi_col, double x, double y)
{
    constexpr double C_HI = ff64_pow2(52 + P::W);
    constexpr double C_LO = ff64_pow2(52 + P::W) + ff64_pow2(52);
    double hi = ff64_fma_rz(x, y, C_HI);
    double lo = ff64_fma_rz(x, y, ff64_sub(C_LO, hi));
    lo_col += ff64_bits(lo);
    hi_col += ff64_bits(hi);
}

/* ---------------------------------------------------- multiplication -- */

/* r from the columns after the reduction (exact integer sums; c[S-1] the
 * last step's v' when DL < W, else unused and `carry` the last step's
 * carry into column S): the conversion to 32-bit limbs and the conditional
 * subtraction (see the header comment). */
template <class P>
FF_INLINE void ff64_finish(uint32_t r[P::F::N], const uint64_t c[2 * P::S], uint64_t carry)
{
    typedef typename P::F F;
    constexpr int S = P::S, W = P::W, DL = P::DL, n = F::N;
    /* The result's parts: part m at bit pos(m). DL < W: part 0 is column
     * S-1 >> DL at bit 0, part m >= 1 column S-1+m at W m - DL. DL = W:
     * part m is column S+m (the last carry added) at W m. */
    constexpr int NP = DL != W ? S + 1 : S;
    constexpr int BASE = DL != W ? S - 1 : S;
    uint64_t part[NP];
#pragma unroll
    for (int m = 0; m < NP; m++) part[m] = c[BASE + m];
    if (DL != W) part[0] >>= DL;
    else part[0] += carry;

    /* Even and odd parts each tile without overlap: place them by shifts. */
    uint32_t g[2][n];
#pragma unroll
    for (int par = 0; par < 2; par++)
#pragma unroll
        for (int w = 0; w < n; w++) {
            uint32_t acc = 0;
#pragma unroll
            for (int m = par; m < NP; m += 2) {
                const int pos = DL != W ? (m == 0 ? 0 : W * m - DL) : W * m;
                const int sh = pos - 32 * w;
                if (sh >= 0 && sh < 32) acc |= (uint32_t)(part[m] << sh);
                else if (sh < 0 && sh > -64) acc |= (uint32_t)(part[m] >> -sh);
            }
            g[par][w] = acc;
        }
    uint32_t t[n];
    t[0] = ff_add_cc(g[0][0], g[1][0]);
#pragma unroll
    for (int k = 1; k < n - 1; k++) t[k] = ff_addc_cc(g[0][k], g[1][k]);
    t[n - 1] = ff_addc(g[0][n - 1], g[1][n - 1]);
    ff_reduce_once<F>(r, t);
}

/* r = (T + Q p) / R for the product T held in the columns c (exact integer
 * sums, plus the reduction's offsets ff64_redc_init): the S reduction steps,
 * then ff64_finish (see the header comment). T < p^2 required. */
template <class P>
FF_INLINE void ff64_redc(uint32_t r[P::F::N], uint64_t c[2 * P::S])
{
    constexpr int S = P::S, W = P::W, DL = P::DL, n = P::F::N;
    constexpr double C_HI = ff64_pow2(52 + W);
    constexpr uint64_t MW = (1ull << W) - 1;
    static_assert((S - 1) * W + DL == 32 * n, "the digits must add up to R");
    static_assert(W <= 52 && DL <= W, "samples must fit a double's mantissa");

    /* T + Q p, digit by digit; column i is complete when step i reads it. */
    uint64_t carry = 0;
#pragma unroll
    for (int i = 0; i < S; i++) {
        const bool last = i == S - 1;
        uint64_t v = c[i] + carry;
        uint64_t q = v * P::MP & (last ? (1ull << DL) - 1 : MW);
        double qd = ff64_int_to_double(q);
        if (last && DL != W) {
            /* Column i must become 0 mod 2^DL: q p_0 in full. */
            ff64_prod<P>(v, c[i + 1], qd, (double)P::p(0));
            c[i] = v;
        } else {
            /* Only H of q p_0; the column's carry is ceil(v / 2^W). */
            c[i + 1] += ff64_bits(ff64_fma_rz(qd, (double)P::p(0), C_HI));
            carry = (v + MW) >> W;
        }
#pragma unroll
        for (int j = 1; j < S; j++) ff64_prod<P>(c[i + j], c[i + j + 1], qd, (double)P::p(j));
    }

    ff64_finish<P>(r, c, carry);
}

/* r = a * b * R^-1 mod p, R = 2^(32 F::N) as in ff.cuh (see the header
 * comment). r may alias a or b. */
template <class P>
FF_INLINE void ff64_mul(uint32_t r[P::F::N], const uint32_t a[P::F::N],
                        const uint32_t b[P::F::N])
{
    constexpr int S = P::S;
    double x[S], y[S];
    ff64_split<P>(x, a);
    ff64_split<P>(y, b);
    uint64_t c[2 * S];
#pragma unroll
    for (int k = 0; k < 2 * S; k++)
        c[k] = ff64_redc_init<P>(k) + ff64_offset<P>(ff64_pairs(S, k), ff64_pairs(S, k - 1));
    /* T = a*b: S^2 products. */
#pragma unroll
    for (int i = 0; i < S; i++)
#pragma unroll
        for (int j = 0; j < S; j++) ff64_prod<P>(c[i + j], c[i + j + 1], x[i], y[j]);
    ff64_redc<P>(r, c);
}

/* r = a^2 * R^-1 mod p, as ff64_mul(r, a, a) but with the S(S-1)/2 products
 * x_i x_j (i < j) once, in their own columns d that are then doubled
 * (2 d_k is exact: it is part of the square's column sum, bounded as in the
 * header comment), and the S squares x_i^2: S(S+1)/2 products instead of S^2
 * (Fr 15 of 25, Fp 36 of 64), for 2S doublings (a 64-bit add each). r may
 * alias a. */
template <class P>
FF_INLINE void ff64_sqr(uint32_t r[P::F::N], const uint32_t a[P::F::N])
{
    constexpr int S = P::S;
    double x[S];
    ff64_split<P>(x, a);
    uint64_t c[2 * S], d[2 * S];
    /* Off-diagonal pairs with i < j and i + j = k: (pairs(k) - [k even]) / 2;
     * squares: one L at each even k < 2S, one H at each odd k. */
#pragma unroll
    for (int k = 0; k < 2 * S; k++) {
        uint64_t sq = k % 2 == 0 && k < 2 * S - 1 ? 1 : 0;
        uint64_t sqh = k % 2 == 1 ? 1 : 0;
        uint64_t offl = (ff64_pairs(S, k) - sq) / 2, offh = (ff64_pairs(S, k - 1) - sqh) / 2;
        c[k] = ff64_redc_init<P>(k) + ff64_offset<P>(sq, sqh);
        d[k] = ff64_offset<P>(offl, offh);
    }
#pragma unroll
    for (int i = 0; i < S; i++) {
        ff64_prod<P>(c[2 * i], c[2 * i + 1], x[i], x[i]);
#pragma unroll
        for (int j = i + 1; j < S; j++) ff64_prod<P>(d[i + j], d[i + j + 1], x[i], x[j]);
    }
#pragma unroll
    for (int k = 0; k < 2 * S; k++) c[k] += d[k] << 1;
    ff64_redc<P>(r, c);
}

/* ------------------------------------- column sums in doubles (Fp only) -- */

/* True when a column's 2S terms of W bits fit the exact range of a double
 * column sum: 2S (2^W - 1) < 2^52. Fp (S 8, W 48): 16 (2^48 - 1) < 2^52;
 * Fr (W 52) does not. */
template <class P>
FF_INLINE constexpr bool ff64_fc_ok()
{
    return 2 * P::S <= (1 << (52 - P::W));
}

/* r = a * b * R^-1 mod p as ff64_mul, with the column sums kept in doubles
 * instead of integers (for the case where the integer additions, not the
 * FP64 pipe, bound ff64_mul). Column k is two doubles:
 *   h_k = 2^(52+W) + (sum of its H) 2^W, summed by the products' own FMAs:
 *         h_k = fma_rz(x, y, h_k) adds exactly floor(xy / 2^W) 2^W while
 *         the result stays below 2^(53+W), i.e. while the sum of H is below
 *         2^52: true for 2S terms of W bits (ff64_fc_ok);
 *   l_k = 2^52 + (sum of its L): L = fma_rz(x, y, h_before - h_after)
 *         (h_before - h_after = -H 2^W exactly: both are multiples of 2^W in
 *         one binade), then l_k += L (exact: 2S terms below 2^W keep l_k
 *         below 2^53).
 * So a product is 2 DFMA + 2 DADD and no integer addition (ff64_mul: 2 DFMA
 * + 1 DADD + 2 integer terms); the carry-only q_i p_0 is 1 DFMA. A column
 * is read as an integer once: (bits(h_k) - E_HI) + (bits(l_k) - E_LO), the
 * linear bit patterns of the method. Requires DL = W (Fp). */
template <class P>
FF_INLINE void ff64_mul_fc(uint32_t r[P::F::N], const uint32_t a[P::F::N],
                           const uint32_t b[P::F::N])
{
    constexpr int S = P::S, W = P::W;
    static_assert(ff64_fc_ok<P>() && P::DL == W, "column sums must fit a double");
    constexpr double C_HI = ff64_pow2(52 + W);
    constexpr uint64_t MW = (1ull << W) - 1;
    constexpr uint64_t E_HI = (uint64_t)(1023 + 52 + W) << 52, E_LO = FF64_E52;
    double x[S], y[S];
    ff64_split<P>(x, a);
    ff64_split<P>(y, b);
    double h[2 * S], l[2 * S];
#pragma unroll
    for (int k = 0; k < 2 * S; k++) {
        h[k] = C_HI;
        l[k] = FF64_TWO52;
    }
#pragma unroll
    for (int i = 0; i < S; i++)
#pragma unroll
        for (int j = 0; j < S; j++) {
            double hn = ff64_fma_rz(x[i], y[j], h[i + j + 1]);
            l[i + j] = ff64_add(l[i + j], ff64_fma_rz(x[i], y[j], ff64_sub(h[i + j + 1], hn)));
            h[i + j + 1] = hn;
        }
    uint64_t carry = 0, c[2 * S];
#pragma unroll
    for (int i = 0; i < S; i++) {
        uint64_t v = ff64_bits(h[i]) + ff64_bits(l[i]) + (carry - E_HI - E_LO);
        uint64_t q = v * P::MP & MW;
        double qd = ff64_int_to_double(q);
        h[i + 1] = ff64_fma_rz(qd, (double)P::p(0), h[i + 1]); /* H of q p_0 */
        carry = (v + MW) >> W;
#pragma unroll
        for (int j = 1; j < S; j++) {
            const int k = i + j;
            double pj = (double)P::p(j);
            double hn = ff64_fma_rz(qd, pj, h[k + 1]);
            l[k] = ff64_add(l[k], ff64_fma_rz(qd, pj, ff64_sub(h[k + 1], hn)));
            h[k + 1] = hn;
        }
    }
#pragma unroll
    for (int k = 0; k < 2 * S; k++) c[k] = ff64_bits(h[k]) + ff64_bits(l[k]) - E_HI - E_LO;
    ff64_finish<P>(r, c, carry);
}

/* ff64_mul_fc where the field allows it (Fp), else ff64_mul. */
template <class P>
FF_INLINE void ff64_mul_fc_or(uint32_t r[P::F::N], const uint32_t a[P::F::N],
                              const uint32_t b[P::F::N])
{
    if constexpr (ff64_fc_ok<P>()) ff64_mul_fc<P>(r, a, b);
    else ff64_mul<P>(r, a, b);
}

#endif /* CUZK_GPU_FF_FP64_CUH */
