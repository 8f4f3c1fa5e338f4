/* cuzk — field multiplication with one level of Karatsuba on the product
 * (device code; a benchmark variant of ff.cuh's ff_mul, not yet used by the
 * library).
 *
 * a*b over N limbs as three products of N/2 limbs: L = a_lo*b_lo,
 * H = a_hi*b_hi, M = (a_lo + a_hi)(b_lo + b_hi), and a*b = L + H W^N +
 * (M - L - H) W^(N/2); then the separate Montgomery reduction of ff.cuh
 * (ff_redc_wide). Products: 3 (N/2)^2 + the reduction's N^2 + N (Fp: 108 +
 * 156 = 264 instead of 300; Fr: 48 + 72 = 120 instead of 136), paid with ALU
 * additions: the half sums and their carries, M's carry corrections,
 * M - L - H and its addition, ~7N. Measured on the H200 (docs/perf.md, "Fr's
 * low limb is 1"): Fr 56.5 against 58.7 G/s, Fp 26.6 against 26.4. */
#ifndef CUZK_GPU_FF_KARA_CUH
#define CUZK_GPU_FF_KARA_CUH

#include "gpu/ff.cuh"

/* r = a * b * R^-1 mod p through one Karatsuba level. r may alias a or b. */
template <class F>
FF_INLINE void ff_mul_kara(uint32_t r[F::N], const uint32_t a[F::N], const uint32_t b[F::N])
{
    constexpr int n = F::N, h = n / 2;
    uint32_t t[2 * n], sa[h], sb[h], m[n + 1];
    ff_prod<h>(t, a, b);             /* L at words 0 .. n-1 */
    ff_prod<h>(t + n, a + h, b + h); /* H at words n .. 2n-1 */
    /* half sums: sa + ca W^h = a_lo + a_hi, sb + cb W^h likewise */
    sa[0] = ff_add_cc(a[0], a[h]);
#pragma unroll
    for (int k = 1; k < h; k++) sa[k] = ff_addc_cc(a[k], a[h + k]);
    uint32_t ca = ff_addc(0, 0);
    sb[0] = ff_add_cc(b[0], b[h]);
#pragma unroll
    for (int k = 1; k < h; k++) sb[k] = ff_addc_cc(b[k], b[h + k]);
    uint32_t cb = ff_addc(0, 0);
    /* M = sa*sb + (ca sb + cb sa) W^h + ca cb W^n: n + 1 words */
    ff_prod<h>(m, sa, sb);
    m[n] = ca & cb;
    uint32_t mask_a = 0u - ca, mask_b = 0u - cb;
    m[h] = ff_add_cc(m[h], sb[0] & mask_a);
#pragma unroll
    for (int k = 1; k < h; k++) m[h + k] = ff_addc_cc(m[h + k], sb[k] & mask_a);
    m[n] = ff_addc(m[n], 0);
    m[h] = ff_add_cc(m[h], sa[0] & mask_b);
#pragma unroll
    for (int k = 1; k < h; k++) m[h + k] = ff_addc_cc(m[h + k], sa[k] & mask_b);
    m[n] = ff_addc(m[n], 0);
    /* M - L - H = a_lo b_hi + a_hi b_lo >= 0 */
    m[0] = ff_sub_cc(m[0], t[0]);
#pragma unroll
    for (int k = 1; k < n; k++) m[k] = ff_subc_cc(m[k], t[k]);
    m[n] = ff_subc(m[n], 0);
    m[0] = ff_sub_cc(m[0], t[n]);
#pragma unroll
    for (int k = 1; k < n; k++) m[k] = ff_subc_cc(m[k], t[n + k]);
    m[n] = ff_subc(m[n], 0);
    /* t += (M - L - H) W^h; the sum is a*b < W^(2n) */
    t[h] = ff_add_cc(t[h], m[0]);
#pragma unroll
    for (int k = 1; k <= n; k++) t[h + k] = ff_addc_cc(t[h + k], m[k]);
#pragma unroll
    for (int k = h + n + 1; k < 2 * n - 1; k++) t[k] = ff_addc_cc(t[k], 0);
    t[2 * n - 1] = ff_addc(t[2 * n - 1], 0);
    ff_redc_wide<F>(r, t);
}

#endif /* CUZK_GPU_FF_KARA_CUH */
