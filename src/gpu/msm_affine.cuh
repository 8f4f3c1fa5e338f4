/* cuzk — batch-affine bucket accumulation for the GPU MSM (the variant of
 * stage 3 of msm.cuh that cuzk_gpu_msm_opts.acc selects), and the fast
 * field inversion it needs. Per-thread bodies, templates over the coordinate
 * field (ec.cuh: EcFp, EcFp2), compiled for the host too under
 * CUZK_FF_HOST_EMULATION (tests/gpu/test_gpu_msm_emu.cu runs them there).
 *
 * Why. A mixed XYZZ addition costs 8M + 2S. An affine addition
 *   l = (y2 - y1) / (x2 - x1),  x3 = l^2 - x1 - x2,  y3 = l (x1 - x3) - y1
 * costs 2M + 1S and an inversion; with Montgomery's trick over K independent
 * additions (prefix products of the denominators, one inversion, then back
 * substitution: 3M each) that is 5M + 1S + 1/K inversion per addition.
 * On a GPU every SIMT lane pays the whole inversion, so the K additions
 * must be independent within one thread: each accumulation thread runs K
 * streams side by side.
 *
 * Layout of the work. The sorted (key, point) entries are cut into streams
 * of a.len entries (MSM_AFF_LEN, or fewer for short calls); thread t owns
 * streams t K .. t K + K - 1 (K = a.streams: MSM_AFF_K, or fewer for calls
 * too short to fill the device at one entry a stream; msm_impl.cuh,
 * msm_aff_shape), i.e. K a.len consecutive entries.
 * Stream g is exactly a chunk of msm.cuh's scheme with chunk size a.len: it
 * sums each run of equal keys into one affine accumulator; a run that is a
 * whole bucket is stored into the bucket (XYZZ with ZZ = ZZZ = 1, the form
 * the reduction reads), a run cut by the stream's start or end into the
 * stream's piece slot 0 or 1 (affine, (0, 0) = infinity); afterwards
 * msm_aff_merge_thread adds up the pieces of runs cut inside a thread's
 * range and msm_aff_combine_thread those of runs cut between ranges.
 * The thread advances its K streams one entry per step: in step j every
 * stream either starts a run (copies the point: no addition), or has one
 * addition pending; the pending additions share one inversion.
 *
 * Exceptions inside a batch: x1 = x2 with y1 = y2 is a doubling (slope
 * 3 x1^2 / 2 y1; y1 != 0 as neither group has a point of order 2); x1 = x2
 * with y1 != y2 is P + (-P): the accumulator becomes infinity (no
 * denominator in the batch), and the next point of the run is copied into
 * it. Points at infinity never reach here (their digits get the sentinel
 * key, msm.cuh).
 *
 * State per stream (thread-local arrays, so in local memory): x, y and the
 * prefix product (3 field elements), the current key and the pending
 * point's value. K = 64 on G1: 9.7 KB per thread.
 *
 * Inversion: Bernstein-Yang "safegcd" divsteps (Bernstein, Yang, "Fast
 * constant-time gcd computation and modular inversion", 2019), written here
 * for 32-bit lanes: numbers as 13 signed limbs of 30 bits, 30 divsteps at a
 * time on the low 30 bits (the transition matrix of N divsteps depends only
 * on the low N bits of f and g), the matrix then applied to f, g and to the
 * Bezout coefficients d, e (kept in (-2p, p), divided by 2^30 mod p by
 * adding a multiple of p). At most 37 batches of 30 (1110 divsteps; the
 * paper's Theorem 11.2 bounds 381-bit inputs by floor((49 * 381 + 57) / 17)
 * = 1101); a lane stops as soon as g = 0 (later divsteps change neither f
 * nor d mod p), so uniform inputs take fewer: 26.9 batches on average, 28
 * at most in 20000 (test_gpu_msm_emu). Cost estimate per inversion: ~28
 * batches of 30 divsteps x ~20 integer instructions and ~130 32x32->64
 * products: ~36 k instructions per lane, ~30-50 Fp multiplications' worth
 * (docs/perf.md, "GPU G1 MSM"), against ~490 for a^(p-2). Not yet measured.
 */
#ifndef CUZK_GPU_MSM_AFFINE_CUH
#define CUZK_GPU_MSM_AFFINE_CUH

#include <stddef.h>
#include <stdint.h>

#include "gpu/ec.cuh"
#include "gpu/ff_fp64.cuh"
#include "gpu/msm.cuh"

/* ----------------------------------------------------- Fp inversion -- */

#define MSM_INV_M30 0x3fffffffu
#define MSM_INV_BATCHES 37 /* 37 x 30 = 1110 >= 1101 divsteps */
#define MSM_INV_PINV30 0x30003u /* p^-1 mod 2^30 */

/* p in 13 limbs of 30 bits. */
static FF_INLINE constexpr int32_t msm_inv_p30(int i)
{
    return i == 0 ? 0x3fffaaab : i == 1 ? 0x27fbffff : i == 2 ? 0x153ffffb
         : i == 3 ? 0x2affffac : i == 4 ? 0x30f6241e : i == 5 ? 0x034a83da
         : i == 6 ? 0x112bf673 : i == 7 ? 0x12e13ce1 : i == 8 ? 0x2cd76477
         : i == 9 ? 0x1ed90d2e : i == 10 ? 0x29a4b1ba : i == 11 ? 0x3a8e5ff9
         : 0x001a0111;
}

/* R^2 mod p (R = 2^384) in 13 limbs of 30 bits: the start value of e, so
 * that the result comes out in Montgomery form (see msm_fp_inv). */
static FF_INLINE constexpr int32_t msm_inv_r2(int i)
{
    return i == 0 ? 0x1c341746 : i == 1 ? 0x137c7cd0 : i == 2 ? 0x1d104f1f
         : i == 3 ? 0x1db9a982 : i == 4 ? 0x15b6d50a : i == 5 ? 0x151db132
         : i == 6 ? 0x183c08de : i == 7 ? 0x222a64e7 : i == 8 ? 0x152d67eb
         : i == 9 ? 0x3a16d466 : i == 10 ? 0x3aa9a793 : i == 11 ? 0x3964b2b8
         : 0x0011988f;
}

/* 30 divsteps from (delta, f, g), of which only the low 30 bits of f and g
 * are needed (f odd). Returns the new delta and the transition matrix
 * m = (u v; q r), scaled by 2^30: 2^30 f' = u f + v g, 2^30 g' = q f + r g,
 * with |u| + |v| <= 2^30 and |q| + |r| <= 2^30.
 * One divstep: if delta > 0 and g odd, (delta, f, g) -> (1 - delta, g,
 * (g - f) / 2); else (1 + delta, f, (g + (g mod 2) f) / 2). Branch-free:
 * sw (swap) and odd are all-ones masks; ((f ^ sw) & odd) - sw is f, -f or 0.
 * The f row (u, v) doubles every step instead of halving the g row. The
 * matrix entries are computed mod 2^32; their true values fit in int32. */
FF_INLINE int32_t msm_divsteps30(int32_t delta, uint32_t f, uint32_t g, int32_t m[4])
{
    uint32_t u = 1, v = 0, q = 0, r = 1;
#pragma unroll
    for (int i = 0; i < 30; i++) {
        uint32_t odd = 0u - (g & 1);
        uint32_t sw = (uint32_t)((0 - delta) >> 31) & odd;
        uint32_t f2 = f ^ ((f ^ g) & sw), u2 = u ^ ((u ^ q) & sw), v2 = v ^ ((v ^ r) & sw);
        g += ((f ^ sw) & odd) - sw;
        q += ((u ^ sw) & odd) - sw;
        r += ((v ^ sw) & odd) - sw;
        delta = 1 + ((delta ^ (int32_t)sw) - (int32_t)sw);
        f = f2;
        u = u2 << 1;
        v = v2 << 1;
        g >>= 1;
    }
    m[0] = (int32_t)u;
    m[1] = (int32_t)v;
    m[2] = (int32_t)q;
    m[3] = (int32_t)r;
    return delta;
}

/* a * b as 64 bits, one IMAD.WIDE. In PTX because from the C form nvcc made
 * 64 x 64-bit multiplications (3 IMAD) of limbs it kept in 64-bit registers. */
FF_INLINE int64_t msm_mulw(int32_t a, int32_t b)
{
#if defined(CUZK_FF_HOST_EMULATION) && !defined(__CUDA_ARCH__)
    return (int64_t)a * b;
#else
    int64_t r;
    asm("mul.wide.s32 %0, %1, %2;" : "=l"(r) : "r"(a), "r"(b));
    return r;
#endif
}

/* (f, g) = (u f + v g, q f + r g) / 2^30; the division is exact. |f|, |g| <= p
 * stay true (a divstep never increases max(|f|, |g|)), so the top limb holds
 * the sign and < 22 bits, and every 64-bit sum stays below 2^62. */
FF_INLINE void msm_inv_update_fg(int32_t f[13], int32_t g[13], const int32_t m[4])
{
    const int32_t u = m[0], v = m[1], q = m[2], r = m[3];
    int64_t cf = msm_mulw(u, f[0]) + msm_mulw(v, g[0]);
    int64_t cg = msm_mulw(q, f[0]) + msm_mulw(r, g[0]);
    cf >>= 30;
    cg >>= 30;
#pragma unroll
    for (int i = 1; i < 13; i++) {
        cf += msm_mulw(u, f[i]) + msm_mulw(v, g[i]);
        cg += msm_mulw(q, f[i]) + msm_mulw(r, g[i]);
        f[i - 1] = (int32_t)((uint32_t)cf & MSM_INV_M30);
        g[i - 1] = (int32_t)((uint32_t)cg & MSM_INV_M30);
        cf >>= 30;
        cg >>= 30;
    }
    f[12] = (int32_t)cf;
    g[12] = (int32_t)cg;
}

/* (d, e) = (u d + v e, q d + r e) / 2^30 mod p, keeping d, e in (-2p, p).
 * d~ = d (+ p if d < 0) lies in (-p, p), so |u d~ + v e~| < 2^30 p; adding
 * md p with md = (u or 0) + (v or 0) - k, k in [0, 2^30) chosen to make the
 * sum divisible by 2^30, gives a quotient in (-2p, p) again. md lies in
 * (-2^31, 2^30]; every 64-bit sum stays below 2^63. */
FF_INLINE void msm_inv_update_de(int32_t d[13], int32_t e[13], const int32_t m[4])
{
    const int32_t u = m[0], v = m[1], q = m[2], r = m[3];
    const int32_t sd = d[12] >> 31, se = e[12] >> 31;
    int32_t md = (u & sd) + (v & se), me = (q & sd) + (r & se);
    uint32_t lo_d = (uint32_t)u * (uint32_t)d[0] + (uint32_t)v * (uint32_t)e[0];
    uint32_t lo_e = (uint32_t)q * (uint32_t)d[0] + (uint32_t)r * (uint32_t)e[0];
    md -= (int32_t)((MSM_INV_PINV30 * lo_d + (uint32_t)md) & MSM_INV_M30);
    me -= (int32_t)((MSM_INV_PINV30 * lo_e + (uint32_t)me) & MSM_INV_M30);
    int64_t cd = msm_mulw(u, d[0]) + msm_mulw(v, e[0]) + msm_mulw(md, msm_inv_p30(0));
    int64_t ce = msm_mulw(q, d[0]) + msm_mulw(r, e[0]) + msm_mulw(me, msm_inv_p30(0));
    cd >>= 30;
    ce >>= 30;
#pragma unroll
    for (int i = 1; i < 13; i++) {
        cd += msm_mulw(u, d[i]) + msm_mulw(v, e[i]) + msm_mulw(md, msm_inv_p30(i));
        ce += msm_mulw(q, d[i]) + msm_mulw(r, e[i]) + msm_mulw(me, msm_inv_p30(i));
        d[i - 1] = (int32_t)((uint32_t)cd & MSM_INV_M30);
        e[i - 1] = (int32_t)((uint32_t)ce & MSM_INV_M30);
        cd >>= 30;
        ce >>= 30;
    }
    d[12] = (int32_t)cd;
    e[12] = (int32_t)ce;
}

/* x = x + (p & mask), limbwise with carries (limbs 0..11 in [0, 2^30)). */
FF_INLINE void msm_inv_add_p(int32_t x[13], int32_t mask)
{
    int32_t c = 0;
#pragma unroll
    for (int i = 0; i < 12; i++) {
        c += x[i] + (msm_inv_p30(i) & mask);
        x[i] = c & (int32_t)MSM_INV_M30;
        c >>= 30;
    }
    x[12] += c + (msm_inv_p30(12) & mask);
}

/* r = 1 / a in Fp, Montgomery form in and out (a R -> a^-1 R), 0 for 0;
 * a reduced (< p). Invariants: f = d y, g = e y (mod p) for y = a / R^2,
 * from f = p, d = 0, g = a, e = R^2; at the end g = 0 and f = +-1 (a != 0),
 * so 1 / y = R^2 / a = f d. Returns the number of 30-divstep batches run
 * (for tests; EARLY = false always runs all MSM_INV_BATCHES). */
template <bool EARLY = true>
FF_INLINE int msm_fp_inv(uint32_t r[12], const uint32_t a[12])
{
    int32_t f[13], g[13], d[13], e[13];
#pragma unroll
    for (int i = 0; i < 13; i++) {
        const int pos = 30 * i, w = pos / 32, sh = pos % 32;
        uint32_t x = a[w] >> sh;
        if (sh > 2 && w + 1 < 12) x |= a[w + 1] << (32 - sh);
        g[i] = (int32_t)(x & MSM_INV_M30);
        f[i] = msm_inv_p30(i);
        d[i] = 0;
        e[i] = msm_inv_r2(i);
    }
    int32_t delta = 1;
    int b;
#pragma unroll 1
    for (b = 0; b < MSM_INV_BATCHES; b++) {
        if (EARLY) {
            int32_t nz = 0;
#pragma unroll
            for (int i = 0; i < 13; i++) nz |= g[i];
            if (nz == 0) break;
        }
        int32_t m[4];
        delta = msm_divsteps30(delta, (uint32_t)f[0], (uint32_t)g[0], m);
        msm_inv_update_fg(f, g, m);
        msm_inv_update_de(d, e, m);
    }
    /* d in (-2p, p): add p if negative (-> (-p, p)), negate if f = -1, add p
     * if negative (-> [0, p)). */
    msm_inv_add_p(d, d[12] >> 31);
    const int32_t sf = f[12] >> 31;
    int32_t c = 0;
#pragma unroll
    for (int i = 0; i < 12; i++) {
        c += (d[i] ^ sf) - sf;
        d[i] = c & (int32_t)MSM_INV_M30;
        c >>= 30;
    }
    d[12] = c + ((d[12] ^ sf) - sf);
    msm_inv_add_p(d, d[12] >> 31);
    /* 30-bit limbs -> 32-bit limbs (word k starts in limb 32k / 30, at an
     * even offset <= 22, so two limbs cover it). */
#pragma unroll
    for (int k = 0; k < 12; k++) {
        const int pos = 32 * k, i = pos / 30, sh = pos % 30;
        r[k] = ((uint32_t)d[i] >> sh) | ((uint32_t)d[i + 1] << (30 - sh));
    }
    return b;
}

/* Per coordinate field: the integer product and squaring the accumulation
 * uses, the inversion, whether the multiplication has an FP64 route (fp64
 * true: mul64, bit for bit mul), and the accumulation kernel's minimum
 * blocks per SM (its __launch_bounds__). */
template <class F>
struct msm_aff_field;

template <>
struct msm_aff_field<EcFp> {
    static constexpr bool fp64 = true;
    /* 4 blocks of 128 threads: 128 registers (12 bytes of spills) with the
     * products as calls (EC_FP_CALL, on in msm_g1.cu: the accumulation's
     * code 91 -> 62 KB and -11% on the H200, docs/perf.md, "The
     * accumulation's code"). Uncapped, the calls' register convention
     * takes 140 (3 blocks a SM), and the accumulation gained 0-7% instead
     * of 10-12%; 5 blocks (96 registers, 288 bytes of spills) made it
     * 8-11% slower (session 16). */
    static constexpr int blocks = 4;
    static FF_INLINE void mul(EcFp::E &r, const EcFp::E &a, const EcFp::E &b) { EcFp::mul(r, a, b); }
    static FF_INLINE void sqr(EcFp::E &r, const EcFp::E &a) { EcFp::sqr(r, a); }
    static FF_INLINE void inv(EcFp::E &r, const EcFp::E &a) { (void)msm_fp_inv(r.l, a.l); }
    static FF_INLINE void mul64(EcFp::E &r, const EcFp::E &a, const EcFp::E &b)
    {
        ff64_mul_fc_or<Ff64Of<FfFp>::P>(r.l, a.l, b.l);
    }
};

/* ec_fp2_mul (Karatsuba) with a0 b0 and a1 b1 on the FP64 pipe and the
 * middle product (a0 + a1)(b0 + b1) on the integer pipe: the three are
 * independent, so one thread feeds both pipes. A real call, as ec_fp2_mul
 * (ec.cuh says why). */
EC_NOINLINE ec_fp2_e msm_fp2_mul64(ec_fp2_e a, ec_fp2_e b)
{
    EcFp::E t0, t1, s, t;
    ec_fp2_e r;
    msm_aff_field<EcFp>::mul64(t0, a.c0, b.c0);
    msm_aff_field<EcFp>::mul64(t1, a.c1, b.c1);
    EcFp::add(s, a.c0, a.c1);
    EcFp::add(t, b.c0, b.c1);
    EcFp::mul(s, s, t);
    EcFp::sub(r.c0, t0, t1);
    EcFp::sub(s, s, t0);
    EcFp::sub(r.c1, s, t1);
    return r;
}

/* 1 / (a0 + a1 u) = (a0 - a1 u) / (a0^2 + a1^2): one Fp inversion. mul64:
 * 2 of the 3 Fp products on the FP64 pipe (msm_fp2_mul64). */
template <>
struct msm_aff_field<EcFp2> {
    static constexpr bool fp64 = true;
    static constexpr int blocks = 1; /* 255 registers with or without a bound */
    /* Calls, and their Fp products calls too (ec_fp2_mul_fc, ec_fp2_sqr_fc):
     * the accumulation's code 130 -> 81 KB and -6% on the H200 (session 17,
     * docs/perf.md "The full size with the calls, and two more variants"). */
    static FF_INLINE void mul(EcFp2::E &r, const EcFp2::E &a, const EcFp2::E &b)
    {
        r = ec_fp2_mul_fc(a, b);
    }
    static FF_INLINE void sqr(EcFp2::E &r, const EcFp2::E &a) { r = ec_fp2_sqr_fc(a); }
    static FF_INLINE void mul64(EcFp2::E &r, const EcFp2::E &a, const EcFp2::E &b)
    {
        r = msm_fp2_mul64(a, b);
    }
    static FF_INLINE void inv(EcFp2::E &r, const EcFp2::E &a)
    {
        EcFp::E n, t;
        EcFp::sqr(n, a.c0);
        EcFp::sqr(t, a.c1);
        EcFp::add(n, n, t);
        (void)msm_fp_inv(t.l, n.l);
        EcFp::mul(r.c0, a.c0, t);
        EcFp::mul(n, a.c1, t);
        EcFp::neg(r.c1, n);
    }
};

/* ------------------------------------------------ the FP64 share --
 *
 * An affine addition has 6 products (5M + 1S), numbered in program order:
 *   0  phase 1: prod = prod * den         (the running product: one serial
 *                                          chain through the thread's streams)
 *   1  phase 2: w = inv * prefix          (1 / den)
 *   2  phase 2: inv = inv * den           (independent of 1: both read inv)
 *   3  lam = (y2 - y1) * w
 *   4  lam^2                              (a squaring: ff_sqr, 471 IMAD slots
 *                                          against 588 for ff_mul)
 *   5  y3 = (x1 - x3) * lam
 * Bit i of a mask M sends product i to the FP64 pipe (msm_aff_field::mul64:
 * ff64_mul_fc, bit for bit ff_mul, docs/perf.md "FP64 field multiplication";
 * G2: msm_fp2_mul64, 2 of the Fp2 product's 3 Fp products) instead of the
 * integer multiplier. Per Fp product on an SM (per thread, in clocks of one
 * SM: IMAD slots / 64, FP64 instructions / 58.9): ff_mul 9.2 IMAD;
 * ff64_mul_fc 8.7 FP64 + 0.5 IMAD (its quotient digits). So 3 of G1's 6 on
 * FP64 balance the two pipes (G2: 4 of its 6 Fp2 products, 8 of 17 Fp); the
 * shares (cuzk_gpu_msm_opts.fp64_share) take them in this order: 2 first
 * (it runs beside 1 in the same thread), then 0, 5, 3. The squaring stays
 * on the integer pipe (cheaper there, and ff64's squaring sums its columns
 * as integers: ALU-heavy). The inversion (integer safegcd) and the rare
 * doubling's squaring are unchanged. */
static FF_INLINE constexpr unsigned msm_aff_fp64_mask(unsigned share)
{
    return share == 0 ? 0u : share == 1 ? 0x04u : share == 2 ? 0x05u
         : share == 3 ? 0x25u : 0x2du;
}

/* r = a * b (product number I of the addition; a squaring when I is 4, b = a)
 * on the pipe that mask M gives it. r may alias a or b. */
template <class F, unsigned M, int I>
FF_INLINE void msm_aff_mul(typename F::E &r, const typename F::E &a, const typename F::E &b)
{
    if constexpr ((M >> I) & 1u) {
        static_assert(msm_aff_field<F>::fp64, "no FP64 route for this field");
        msm_aff_field<F>::mul64(r, a, b);
    } else if constexpr (I == 4) {
        msm_aff_field<F>::sqr(r, a);
    } else {
        msm_aff_field<F>::mul(r, a, b);
    }
}

/* ------------------------------------------------- 3'. accumulate -- */

struct msm_aff_args {
    const uint32_t *keys, *vals; /* sorted */
    const uint32_t *skeys, *svals; /* the same in step-major order, or NULL */
    size_t m;                    /* entries: nwin * n */
    uint32_t sentinel;
    uint32_t len;                /* entries per stream (>= 1) */
    uint32_t streams;            /* streams per thread, <= the kernel's K (fewer for
                                    short calls: msm_aff_shape, msm_impl.cuh) */
    const uint4 *points;         /* affine, ec_aff<F>::U4 uint4 each */
    uint4 *buckets;              /* XYZZ, indexed by key */
    uint4 *pieces;               /* affine, 2 per stream; (0, 0) = infinity */
    uint4 *tpieces;              /* XYZZ, 2 per range of `streams` streams */
};

/* Step-major order of the sorted entries (a.skeys, a.svals): thread t's
 * Q = a.streams a.len entries, t Q .. t Q + Q - 1, with entry q = s len + j
 * (stream s, step j) at ((t / 32) Q + q) 32 + t mod 32, so the 32 lanes of
 * a warp read one 128-byte line for a stream's step instead of 32 lone
 * sectors (docs/perf.md, "its DRAM bytes"); slots of entries past the end
 * hold the sentinel. Warps are 32 consecutive threads (blocks of
 * MSM_AFF_BLOCK, a multiple of 32). */
FF_INLINE size_t msm_aff_step_major(size_t t, size_t q, size_t Q)
{
    return (((t >> 5) * Q + q) << 5) | (t & 31);
}

/* The transposing kernel's two halves (msm_aff_step_major_kernel in
 * msm_impl.cuh), for thread (x, y) of a block of (32, 8) that moves the
 * tile of entries q0 .. q0 + 31 of warp w's 32 threads: its loads into the
 * block's tiles tk, tv (one thread's 32 entries a row: 128-byte lines),
 * then, after the block's barrier, its stores (one entry of 32 threads a
 * row: 128-byte lines again). */
FF_INLINE void msm_aff_step_major_load(const uint32_t *keys, const uint32_t *vals, size_t m,
                                       uint32_t sentinel, uint32_t Q, size_t w, uint32_t q0,
                                       uint32_t x, uint32_t y, uint32_t (*tk)[33],
                                       uint32_t (*tv)[33])
{
    for (uint32_t l = y; l < 32; l += 8) {
        const size_t e = (w * 32 + l) * Q + q0 + x;
        const bool in = q0 + x < Q && e < m;
        tk[l][x] = in ? keys[e] : sentinel;
        tv[l][x] = in ? vals[e] : 0;
    }
}

FF_INLINE void msm_aff_step_major_store(uint32_t Q, size_t w, uint32_t q0, uint32_t x, uint32_t y,
                                        const uint32_t (*tk)[33], const uint32_t (*tv)[33],
                                        uint32_t *sk, uint32_t *sv)
{
    for (uint32_t r = y; r < 32 && q0 + r < Q; r += 8) {
        const size_t o = msm_aff_step_major(w * 32 + x, q0 + r, Q);
        sk[o] = tk[x][r];
        sv[o] = tv[x][r];
    }
}

/* Point v & 0x7fffffff, negated if bit 31 of v is set. */
template <class F>
FF_INLINE void msm_aff_load(const msm_aff_args &a, uint32_t v, typename F::E &x,
                            typename F::E &y)
{
    const uint4 *pt = a.points + (size_t)(v & 0x7fffffffu) * ec_aff<F>::U4;
    F::load(x, pt);
    F::load(y, pt + F::U4);
    if (v >> 31) F::neg(y, y);
}

/* A finished run of key `key` of stream g, (x, y) or infinity (!live): the
 * bucket when it holds the whole bucket, else piece slot 0 (the run
 * continues from the previous stream) or 1 (it continues into the next). */
template <class F>
FF_INLINE void msm_aff_flush(const msm_aff_args &a, size_t g, uint32_t key,
                             const typename F::E &x, const typename F::E &y, bool live,
                             bool before, bool after)
{
    if (!before && !after) {
        ec_xyzz<F> b;
        if (live) {
            b.x = x;
            b.y = y;
            F::set_one(b.zz);
            F::set_one(b.zzz);
        } else {
            ec_set_inf<F>(b);
        }
        ec_store_xyzz<F>(a.buckets + (size_t)key * ec_xyzz<F>::U4, b);
        return;
    }
    ec_aff<F> p;
    if (live) {
        p.x = x;
        p.y = y;
    } else {
        F::set_zero(p.x);
        F::set_zero(p.y);
    }
    ec_store_aff<F>(a.pieces + (2 * g + (before ? 0 : 1)) * ec_aff<F>::U4, p);
}

/* Thread t: streams t S .. t S + S - 1 with S = a.streams <= K, the
 * capacity of its state arrays (see the header comment). Per step,
 * phase 1 (streams in order) flushes finished runs, starts new ones and
 * multiplies each pending denominator into the running product, storing
 * the product before it; one inversion; phase 2 (streams in reverse)
 * peels each 1 / denominator off the inverse and finishes the addition.
 * The stream loops run in step across the warp's lanes (same s), so the
 * local-memory state is accessed coalesced. */
template <class F, int K, unsigned M = 0, bool SM = false> /* SM: read a.skeys, a.svals */
FF_INLINE void msm_aff_accumulate_thread(const msm_aff_args &a, size_t t)
{
    static_assert(K >= 1 && K <= 64, "stream masks are 64-bit");
    static_assert(M < 64, "6 products"); /* M: the FP64 mask (msm_aff_fp64_mask) */
    typedef typename F::E E;
    constexpr int U = F::U4;
    const int ns = (int)a.streams; /* 1 <= ns <= K: the host's promise */
    const size_t len = a.len, g0 = t * (size_t)ns;
    if (g0 * len >= a.m) return;
    uint4 sx[K * U], sy[K * U], sp[K * U]; /* x, y, prefix product */
    uint32_t cur[K], pv[K];                /* current key, pending point */
    uint64_t live = 0, first = ~(uint64_t)0, done = 0;
#pragma unroll 1
    for (int s = 0; s < ns; s++) {
        cur[s] = MSM_NO_KEY;
        if ((g0 + s) * len >= a.m) done |= (uint64_t)1 << s;
    }
#pragma unroll 1
    for (size_t j = 0; j < len; j++) {
        uint64_t pend = 0, dbl = 0;
        E prod;
        F::set_one(prod);
#pragma unroll 1
        for (int s = 0; s < ns; s++) {
            const uint64_t bit = (uint64_t)1 << s;
            if (done & bit) continue;
            const size_t gs = (g0 + s) * len, e = gs + j;
            const uint32_t c = cur[s];
            uint32_t k = a.sentinel, v = 0;
            if (e < a.m) { /* both loads at once: v is needed on most paths */
                if constexpr (SM) {
                    const size_t i = msm_aff_step_major(t, (size_t)s * len + j, (size_t)ns * len);
                    k = a.skeys[i];
                    v = a.svals[i];
                } else {
                    k = a.keys[e];
                    v = a.vals[e];
                }
            }
            E x, y;
            if (k != c) {
                if (c != MSM_NO_KEY) {
                    F::load(x, sx + s * U);
                    F::load(y, sy + s * U);
                    bool before = (first & bit) && gs > 0 && a.keys[gs - 1] == c;
                    msm_aff_flush<F>(a, g0 + s, c, x, y, (live & bit) != 0, before, false);
                    first &= ~bit;
                }
                if (k == a.sentinel) { /* zero digits (or the end) from here on */
                    done |= bit;
                    continue;
                }
                cur[s] = k;
                msm_aff_load<F>(a, v, x, y);
                F::store(sx + s * U, x);
                F::store(sy + s * U, y);
                live |= bit;
                continue;
            }
            if (!(live & bit)) { /* the run summed to infinity so far */
                msm_aff_load<F>(a, v, x, y);
                F::store(sx + s * U, x);
                F::store(sy + s * U, y);
                live |= bit;
                continue;
            }
            E px, den;
            F::load(x, sx + s * U);
            F::load(px, a.points + (size_t)(v & 0x7fffffffu) * ec_aff<F>::U4);
            F::sub(den, px, x);
            if (F::is_zero(den)) {
                E py;
                msm_aff_load<F>(a, v, px, py);
                F::load(y, sy + s * U);
                F::sub(den, py, y);
                if (!F::is_zero(den)) { /* P + (-P) */
                    live &= ~bit;
                    continue;
                }
                F::dbl(den, y); /* P + P: slope 3 x^2 / 2 y */
                dbl |= bit;
            }
            F::store(sp + s * U, prod);
            msm_aff_mul<F, M, 0>(prod, prod, den);
            pv[s] = v;
            pend |= bit;
        }
        if (!pend) continue;
        E inv;
        msm_aff_field<F>::inv(inv, prod);
#pragma unroll 1
        for (int s = ns - 1; s >= 0; s--) {
            const uint64_t bit = (uint64_t)1 << s;
            if (!(pend & bit)) continue;
            E x1, y1, px, py, w, t1, lam;
            F::load(x1, sx + s * U);
            F::load(y1, sy + s * U);
            msm_aff_load<F>(a, pv[s], px, py);
            F::load(w, sp + s * U);
            msm_aff_mul<F, M, 1>(w, inv, w); /* 1 / den_s */
            if (dbl & bit) F::dbl(t1, y1);
            else F::sub(t1, px, x1);
            msm_aff_mul<F, M, 2>(inv, inv, t1); /* 1 / (den_0 ... den_(s-1)) */
            if (dbl & bit) {
                F::sqr(t1, x1);
                ec_mul3<F>(t1, t1);
            } else {
                F::sub(t1, py, y1);
            }
            msm_aff_mul<F, M, 3>(lam, t1, w);
            msm_aff_mul<F, M, 4>(w, lam, lam);
            F::sub(w, w, x1);
            F::sub(w, w, px); /* x3 = l^2 - x1 - x2 */
            F::sub(t1, x1, w);
            msm_aff_mul<F, M, 5>(t1, t1, lam);
            F::sub(t1, t1, y1); /* y3 = l (x1 - x3) - y1 */
            F::store(sx + s * U, w);
            F::store(sy + s * U, t1);
        }
    }
    /* Streams that ran their whole length: the last run may go on. */
#pragma unroll 1
    for (int s = 0; s < ns; s++) {
        const uint64_t bit = (uint64_t)1 << s;
        if ((done & bit) || cur[s] == MSM_NO_KEY) continue;
        const size_t gs = (g0 + s) * len, ge = gs + len;
        const uint32_t c = cur[s];
        E x, y;
        F::load(x, sx + s * U);
        F::load(y, sy + s * U);
        bool before = (first & bit) && gs > 0 && a.keys[gs - 1] == c;
        bool after = ge < a.m && a.keys[ge] == c;
        msm_aff_flush<F>(a, g0 + s, c, x, y, (live & bit) != 0, before, after);
    }
}

/* ------------------------------------------------ 4'. merge, combine --
 *
 * Buckets cut by stream boundaries: first inside each thread's range of K
 * streams (merge: one thread per range, as the accumulation, adds the
 * affine pieces of each run that crosses its streams' boundaries), then
 * across ranges (combine: msm.cuh's stage 4 with the range as the chunk,
 * on XYZZ range pieces). So a bucket of E entries costs at most K mixed
 * additions per range and E / (K len) additions in one combine thread, not
 * E / len. */

/* Range t (streams t K .. t K + K - 1). Each run that crosses a stream
 * boundary inside the range is summed from its stream pieces: a run that
 * starts in the range and ends in it goes to its bucket; one that came from
 * the previous range goes to range slot 0 (whether it ends here or runs on),
 * one that starts here and goes on to the next range to range slot 1. */
template <class F>
FF_INLINE void msm_aff_merge_thread(const msm_aff_args &a, size_t t)
{
    constexpr int A = ec_aff<F>::U4, X = ec_xyzz<F>::U4;
    const size_t len = a.len, g0 = t * a.streams;
    ec_xyzz<F> acc;
    ec_aff<F> p;
    ec_set_inf<F>(acc);
    bool open = false, from_prev = false;
    for (size_t g = g0; g < g0 + a.streams; g++) {
        const size_t gs = g * len;
        if (gs >= a.m) break;
        const size_t ge = gs + len < a.m ? gs + len : a.m;
        const uint32_t k0 = a.keys[gs], kl = a.keys[ge - 1];
        if (k0 == a.sentinel) break; /* zero digits from here on */
        const bool before = gs > 0 && a.keys[gs - 1] == k0;
        const bool after = kl != a.sentinel && ge < a.m && a.keys[ge] == kl;
        if (before) { /* the stream's first run, in its slot 0 */
            if (g == g0) {
                open = from_prev = true;
                ec_set_inf<F>(acc);
            }
            ec_load_aff<F>(p, a.pieces + 2 * g * A);
            if (!ec_aff_is_inf<F>(p)) ec_madd<F>(acc, p);
            if (!(after && kl == k0)) { /* it ends in this stream */
                if (from_prev) ec_store_xyzz<F>(a.tpieces + 2 * t * X, acc);
                else ec_store_xyzz<F>(a.buckets + (size_t)k0 * X, acc);
                open = false;
            }
        }
        if (after && !(before && kl == k0)) { /* its last run starts here, in slot 1 */
            open = true;
            from_prev = false;
            ec_set_inf<F>(acc);
            ec_load_aff<F>(p, a.pieces + (2 * g + 1) * A);
            if (!ec_aff_is_inf<F>(p)) ec_madd<F>(acc, p);
        }
    }
    if (open) ec_store_xyzz<F>(a.tpieces + (2 * t + (from_prev ? 0 : 1)) * X, acc);
}

/* If range t's last run is the start of a bucket that continues into later
 * ranges, adds the bucket's range pieces (slot 1 here, slot 0 of each later
 * range it reaches) and stores the bucket (msm_combine_thread with ranges of
 * streams * len entries). */
template <class F>
FF_INLINE void msm_aff_combine_thread(const msm_aff_args &a, size_t t)
{
    constexpr int X = ec_xyzz<F>::U4;
    const size_t rl = (size_t)a.streams * a.len, cs = t * rl;
    if (cs >= a.m) return;
    const size_t ce = cs + rl;
    if (ce >= a.m) return;
    const uint32_t k = a.keys[ce - 1];
    if (k == a.sentinel || a.keys[ce] != k) return;
    if (a.keys[cs] == k && cs > 0 && a.keys[cs - 1] == k) return; /* not its start */
    ec_xyzz<F> acc, p;
    ec_load_xyzz<F>(acc, a.tpieces + (2 * t + 1) * X);
    for (size_t u = t + 1;; u++) {
        ec_load_xyzz<F>(p, a.tpieces + 2 * u * X);
        ec_add<F>(acc, p);
        size_t ue = (u + 1) * rl;
        if (ue >= a.m || a.keys[ue] != k) break;
    }
    ec_store_xyzz<F>(a.buckets + (size_t)k * X, acc);
}

#endif /* CUZK_GPU_MSM_AFFINE_CUH */
