/* cuzk — BLS12-381 Fr and Fp Montgomery arithmetic on the GPU (device code).
 *
 * Layout: an element is N little-endian 32-bit limbs (Fr: N = 8, Fp: N = 12),
 * in Montgomery form with R = 2^(32N), i.e. the same bytes as the CPU's
 * cuzk_fr / cuzk_fp (4 / 6 little-endian 64-bit limbs). Inputs must be fully
 * reduced (< modulus) and every result is.
 *
 * The two fields are two instances of one set of templates over a parameter
 * struct (FfFr, FfFp) that gives N, the modulus limbs p(i) (instruction
 * immediates or constant-bank operands) and m0() = -p^-1 mod 2^32.
 * Every loop has a constant trip count and is fully unrolled, so limb arrays
 * live in registers (check: `-Xptxas -v` reports no stack frame).
 *
 * How the multiplication maps onto the hardware. Hopper's IMAD.WIDE.U32(.X)
 * computes a 32x32-bit product plus a 64-bit addend held in an aligned
 * register pair, with carry in and out. ptxas fuses a PTX pair
 * "mad.lo.cc d0, a, b, d0; madc.hi.cc d1, a, b, d1" into one such
 * instruction, provided every product lands on a pair of words (k, k+1) that
 * the compiler can keep in one aligned register pair. Measured on the H200
 * (cuzk-bench kernels --calibrate, docs/perf.md): IMAD runs at 64 per clock
 * per SM, but IMAD.WIDE and IMAD.HI at half that, so every 32x32 -> 64
 * product costs two IMAD issue slots whichever form computes it; the
 * multiplier pipe, not latency or issue, bounds these routines.
 *
 * The product a*b_i has its pieces a_j*b_i at word offsets j: for even j they
 * tile the words (0,1), (2,3), ... without overlap, and for odd j they tile
 * (1,2), (3,4), .... So each row of the schoolbook product is two carry
 * chains: the even-j products are added into the running sum s (pairs at even
 * words), and the odd-j products go into a second accumulator o that is kept
 * one word up (o[k] is word k+1), so its pairs are also aligned. The two
 * chains are independent, which doubles the instruction-level parallelism.
 * After the Montgomery step of the row (m = s[0]*M0; s += m*p, again as an
 * even chain into s and an odd chain into o) the low word of s is zero and
 * the new running sum is (s >> 32) + o: one chain of N 32-bit additions on the
 * integer ALU pipe, which runs beside the multiplier.
 *
 * Counts: 32x32-bit partial products (research/gpu-sota.md §5.2), mul
 * 2N^2 + N (Fr 136, Fp 300), sqr N(N-1)/2 + N + N^2 + N (Fr 108, Fp 234);
 * N of them (the quotient digits m) need only the low half (a plain IMAD).
 * Fr's steps can drop 2N of them (its low limb is 1, FF_CONST_MEM_P0ONE
 * below): mul 120, sqr 92; a benchmark variant until it measures faster.
 * In the SASS on the H200 (per operation, in the throughput loop): Fr mul
 * 120 IMAD.WIDE + 8 IMAD.HI + 8 IMAD, Fp mul 276 IMAD.WIDE + 12 IMAD.HI +
 * 12 IMAD. Plus, per row, N + 2 additions, and 3N ALU instructions for the
 * final conditional subtraction, on the ALU pipe beside the multiplier.
 *
 * Bounds (why no extra carry words are needed): both moduli satisfy
 * 2p < 2^(32N) (Fr has exactly one spare bit, Fp three). The CIOS running sum
 * stays below 2p before the shift (Montgomery's bound: s < (2p + 2(W-1)p)/W
 * after each row, W = 2^32), so the pre-shift value is below 2Wp < W^(N+1)
 * and the post-shift value below 2p < W^N. The odd accumulator alone is a
 * part of that value, so it never needs a word above N.
 *
 * PTX carry flags: each instruction of a chain is its own `asm volatile`
 * statement. Volatile asm statements are emitted in program order and nothing
 * the compiler generates in PTX between them touches the carry flag (it only
 * uses .cc inside such statements), so the chains are intact in the PTX; ptxas
 * then turns the flag into predicate registers and schedules freely.
 */
#ifndef CUZK_GPU_FF_CUH
#define CUZK_GPU_FF_CUH

#include <stdint.h>

/* CUZK_FF_HOST_EMULATION (for checking the limb logic on a machine without
 * a GPU) also compiles everything for the host, with the PTX carry-chain
 * instructions emulated in C below; device builds never define it. */
#ifdef CUZK_FF_HOST_EMULATION
#define FF_INLINE __host__ __device__ inline
#else
#define FF_INLINE __device__ __forceinline__
#endif

/* ------------------------------------------------------- the two fields -- */

/* Where the modulus limbs and M0 come from. Immediates are free operands, but
 * ptxas specialises multiplications by Fr's 1 and 0xffffffff (p0, p1 and M0)
 * and then no longer fuses the lo/hi pairs of the reduction chains into
 * IMAD.WIDE (seen in the SASS on the H200: 48 IMAD.X + 48 IMAD.HI.U32.X per
 * Fr multiplication instead of 48 IMAD.WIDE.U32.X). Constants read from
 * __constant__ memory are opaque to it, and a constant-bank operand is as
 * cheap as an immediate. The benchmark compares these choices (Fr mul on
 * the H200: immediates 52.1, M0 only from memory 58.6, all from memory
 * 58.7 G/s).
 *
 * The same SASS showed why: ptxas fuses the pairs of a carry chain into
 * IMAD.WIDE only when the chain starts with a multiply-add. A chain that
 * starts with a plain add (for instance after replacing m*p0 = m*1 by an add,
 * tried by hand: 55.8 G/s) loses the fusion for all its later pairs. */
enum { FF_CONST_IMM = 0, FF_CONST_M0 = 1, FF_CONST_MEM = 2, FF_CONST_MEM_P0ONE = 3,
       FF_CONST_MEM_P01 = 4 };

/* FF_CONST_MEM_P0ONE (Fr only; benchmark variant 11, or the library's Fr in a
 * build with -DCUZK_FR_P0ONE_STEPS): the constants from memory, and the Montgomery
 * steps specialised to r's low limb r0 = 1. Then M0 = -r^-1 = -1 mod 2^32, so
 * the quotient digit is m = -s0 (no product), and s0 + m*r0 = c0*W with
 * c0 = (s0 != 0): word 0 of the step needs no product either, and c0 rides
 * into word 1 as the free addend of a wide product that starts there (the
 * row's a1*b_i, or m*r1 in a reduction). So a row costs 15 products instead
 * of 17: Fr mul 120 instead of 136 (240 IMAD issue slots instead of 264),
 * sqr 92 instead of 108. The even chain of m*r now starts at
 * word 2 with a multiply-add, so ptxas still fuses its pairs (a chain that
 * starts with a plain add loses the fusion, see above).
 * FF_CONST_MEM_P01 (Fr only; variant 13, -DCUZK_FR_P01_STEPS) also uses r1 = 2^32 - 1:
 * m*r1 + c0 is formed on the ALU, so a row costs 14 products (Fr mul 112,
 * sqr 84), for ~6 more ALU instructions a row (ff_mul's comment). */

static FF_INLINE constexpr uint32_t ff_fr_imm(int i)
{
    /* r = 0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001 */
    return i == 0 ? 0x00000001u : i == 1 ? 0xffffffffu : i == 2 ? 0xfffe5bfeu
         : i == 3 ? 0x53bda402u : i == 4 ? 0x09a1d805u : i == 5 ? 0x3339d808u
         : i == 6 ? 0x299d7d48u : i == 7 ? 0x73eda753u
         : 0xffffffffu; /* [8]: M0 = -r^-1 mod 2^32 */
}

static FF_INLINE constexpr uint32_t ff_fp_imm(int i)
{
    /* q = 0x1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f624
     *       1eabfffeb153ffffb9feffffffffaaab */
    return i == 0 ? 0xffffaaabu : i == 1 ? 0xb9feffffu : i == 2 ? 0xb153ffffu
         : i == 3 ? 0x1eabfffeu : i == 4 ? 0xf6b0f624u : i == 5 ? 0x6730d2a0u
         : i == 6 ? 0xf38512bfu : i == 7 ? 0x64774b84u : i == 8 ? 0x434bacd7u
         : i == 9 ? 0x4b1ba7b6u : i == 10 ? 0x397fe69au : i == 11 ? 0x1a0111eau
         : 0xfffcfffdu; /* [12]: M0 = -q^-1 mod 2^32 */
}

static __constant__ uint32_t ff_fr_cmem[9] = {
    ff_fr_imm(0), ff_fr_imm(1), ff_fr_imm(2), ff_fr_imm(3), ff_fr_imm(4),
    ff_fr_imm(5), ff_fr_imm(6), ff_fr_imm(7), ff_fr_imm(8)};
static __constant__ uint32_t ff_fp_cmem[13] = {
    ff_fp_imm(0), ff_fp_imm(1), ff_fp_imm(2), ff_fp_imm(3), ff_fp_imm(4),
    ff_fp_imm(5), ff_fp_imm(6), ff_fp_imm(7), ff_fp_imm(8), ff_fp_imm(9),
    ff_fp_imm(10), ff_fp_imm(11), ff_fp_imm(12)};

/* A field: N limbs, p(i) the modulus limbs, m0() = -p^-1 mod 2^32. */
template <int K>
struct FfFrT {
    static constexpr int N = 8;
    /* P0_ONE: the steps use r0 = 1; P1_MAX (which implies it): r1 = W - 1 too */
    static constexpr bool P1_MAX = K == FF_CONST_MEM_P01;
    static constexpr bool P0_ONE = K == FF_CONST_MEM_P0ONE || P1_MAX;
    /* r0 = 1 and r1 = W - 1, whatever the steps use: ff_mul_shoup's q*r
     * takes its rows 0 and 1 as q - q W + q W^2, no products */
    static constexpr int SHOUP_ROWS = 2;
    static FF_INLINE uint32_t p(int i)
    {
#ifdef __CUDA_ARCH__
        if (K >= FF_CONST_MEM) return ff_fr_cmem[i];
#endif
        return ff_fr_imm(i);
    }
    static FF_INLINE uint32_t m0()
    {
#ifdef __CUDA_ARCH__
        if (K != FF_CONST_IMM) return ff_fr_cmem[N];
#endif
        return ff_fr_imm(N);
    }
};

template <int K>
struct FfFpT {
    static constexpr int N = 12;
    static constexpr bool P0_ONE = false;
    static constexpr bool P1_MAX = false;
    static constexpr int SHOUP_ROWS = 0;
    static FF_INLINE uint32_t p(int i)
    {
#ifdef __CUDA_ARCH__
        if (K == FF_CONST_MEM) return ff_fp_cmem[i];
#endif
        return ff_fp_imm(i);
    }
    static FF_INLINE uint32_t m0()
    {
#ifdef __CUDA_ARCH__
        if (K != FF_CONST_IMM) return ff_fp_cmem[N];
#endif
        return ff_fp_imm(N);
    }
};

/* The library's choices (see docs/perf.md for the measurements). */
#if defined(CUZK_FR_P0ONE_STEPS) /* benchmark builds only: Fr skipping r0 */
typedef FfFrT<FF_CONST_MEM_P0ONE> FfFr;
#elif defined(CUZK_FR_P01_STEPS) /* benchmark builds only: Fr skipping r0 and r1 */
typedef FfFrT<FF_CONST_MEM_P01> FfFr;
#else
typedef FfFrT<FF_CONST_MEM> FfFr;
#endif
typedef FfFpT<FF_CONST_IMM> FfFp;

/* ------------------------------------------------- carry-chain primitives -- */
/* One PTX instruction each. The ".cc" forms write the carry flag, the "c"
 * forms read it. */

#if defined(CUZK_FF_HOST_EMULATION) && !defined(__CUDA_ARCH__)
/* Host emulation of the PTX semantics: one carry flag per thread. */
static thread_local uint32_t ff_emu_cf;
#define FF_EMU_ADD(d, x, y, cin, setcc)                                        \
    do {                                                                       \
        uint64_t t_ = (uint64_t)(x) + (y) + (cin);                             \
        d = (uint32_t)t_;                                                      \
        if (setcc) ff_emu_cf = (uint32_t)(t_ >> 32);                           \
    } while (0)
#define FF_EMU_SUB(d, x, y, bin, setcc)                                        \
    do {                                                                       \
        uint64_t t_ = (uint64_t)(x) - (y) - (bin);                             \
        d = (uint32_t)t_;                                                      \
        if (setcc) ff_emu_cf = (uint32_t)(t_ >> 63);                           \
    } while (0)
static inline uint32_t ff_emu_lo(uint32_t a, uint32_t b) { return (uint32_t)((uint64_t)a * b); }
static inline uint32_t ff_emu_hi(uint32_t a, uint32_t b) { return (uint32_t)(((uint64_t)a * b) >> 32); }
FF_INLINE void ff_mad_lo_cc(uint32_t &d, uint32_t a, uint32_t b) { FF_EMU_ADD(d, d, ff_emu_lo(a, b), 0, 1); }
FF_INLINE void ff_madc_lo_cc(uint32_t &d, uint32_t a, uint32_t b) { FF_EMU_ADD(d, d, ff_emu_lo(a, b), ff_emu_cf, 1); }
FF_INLINE void ff_madc_hi_cc(uint32_t &d, uint32_t a, uint32_t b) { FF_EMU_ADD(d, d, ff_emu_hi(a, b), ff_emu_cf, 1); }
FF_INLINE void ff_mad_hi_cc(uint32_t &d, uint32_t a, uint32_t b) { FF_EMU_ADD(d, d, ff_emu_hi(a, b), 0, 1); }
FF_INLINE void ff_madc_hi(uint32_t &d, uint32_t a, uint32_t b) { FF_EMU_ADD(d, d, ff_emu_hi(a, b), ff_emu_cf, 0); }
FF_INLINE uint32_t ff_add_cc(uint32_t a, uint32_t b) { uint32_t d; FF_EMU_ADD(d, a, b, 0, 1); return d; }
FF_INLINE uint32_t ff_addc_cc(uint32_t a, uint32_t b) { uint32_t d; FF_EMU_ADD(d, a, b, ff_emu_cf, 1); return d; }
FF_INLINE uint32_t ff_addc(uint32_t a, uint32_t b) { uint32_t d; FF_EMU_ADD(d, a, b, ff_emu_cf, 0); return d; }
FF_INLINE uint32_t ff_sub_cc(uint32_t a, uint32_t b) { uint32_t d; FF_EMU_SUB(d, a, b, 0, 1); return d; }
FF_INLINE uint32_t ff_subc_cc(uint32_t a, uint32_t b) { uint32_t d; FF_EMU_SUB(d, a, b, ff_emu_cf, 1); return d; }
FF_INLINE uint32_t ff_subc(uint32_t a, uint32_t b) { uint32_t d; FF_EMU_SUB(d, a, b, ff_emu_cf, 0); return d; }
FF_INLINE uint32_t ff_shl1_funnel(uint32_t lo, uint32_t hi) { return (hi << 1) | (lo >> 31); }
#else
FF_INLINE void ff_mad_lo_cc(uint32_t &d, uint32_t a, uint32_t b)
{ asm volatile("mad.lo.cc.u32 %0, %1, %2, %0;" : "+r"(d) : "r"(a), "r"(b)); }
FF_INLINE void ff_madc_lo_cc(uint32_t &d, uint32_t a, uint32_t b)
{ asm volatile("madc.lo.cc.u32 %0, %1, %2, %0;" : "+r"(d) : "r"(a), "r"(b)); }
FF_INLINE void ff_madc_hi_cc(uint32_t &d, uint32_t a, uint32_t b)
{ asm volatile("madc.hi.cc.u32 %0, %1, %2, %0;" : "+r"(d) : "r"(a), "r"(b)); }
FF_INLINE void ff_mad_hi_cc(uint32_t &d, uint32_t a, uint32_t b)
{ asm volatile("mad.hi.cc.u32 %0, %1, %2, %0;" : "+r"(d) : "r"(a), "r"(b)); }
FF_INLINE void ff_madc_hi(uint32_t &d, uint32_t a, uint32_t b)
{ asm volatile("madc.hi.u32 %0, %1, %2, %0;" : "+r"(d) : "r"(a), "r"(b)); }

FF_INLINE uint32_t ff_add_cc(uint32_t a, uint32_t b)
{ uint32_t d; asm volatile("add.cc.u32 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b)); return d; }
FF_INLINE uint32_t ff_addc_cc(uint32_t a, uint32_t b)
{ uint32_t d; asm volatile("addc.cc.u32 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b)); return d; }
FF_INLINE uint32_t ff_addc(uint32_t a, uint32_t b)
{ uint32_t d; asm volatile("addc.u32 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b)); return d; }
FF_INLINE uint32_t ff_sub_cc(uint32_t a, uint32_t b)
{ uint32_t d; asm volatile("sub.cc.u32 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b)); return d; }
FF_INLINE uint32_t ff_subc_cc(uint32_t a, uint32_t b)
{ uint32_t d; asm volatile("subc.cc.u32 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b)); return d; }
FF_INLINE uint32_t ff_subc(uint32_t a, uint32_t b)
{ uint32_t d; asm volatile("subc.u32 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b)); return d; }

/* (hi:lo << 1) >> 32, one SHF. */
FF_INLINE uint32_t ff_shl1_funnel(uint32_t lo, uint32_t hi) { return __funnelshift_l(lo, hi, 1); }
#endif

/* (hi, lo) = a * b: one IMAD.WIDE.U32 with a zero addend. Written in PTX
 * because the C form (uint64_t)a * b reached PTX as a 64-bit mul.lo.s64. */
FF_INLINE void ff_mul_wide(uint32_t &lo, uint32_t &hi, uint32_t a, uint32_t b)
{
#if defined(CUZK_FF_HOST_EMULATION) && !defined(__CUDA_ARCH__)
    uint64_t t = (uint64_t)a * b;
    lo = (uint32_t)t;
    hi = (uint32_t)(t >> 32);
#else
    asm("{\n\t.reg .b64 t;\n\tmul.wide.u32 t, %2, %3;\n\tmov.b64 {%0, %1}, t;\n\t}"
        : "=r"(lo), "=r"(hi) : "r"(a), "r"(b));
#endif
}

/* (hi, lo) = a * b + c: one IMAD.WIDE.U32 with a 64-bit addend. a*b <=
 * (W - 1)^2, so any c <= 2W - 2 keeps the sum below W^2 = 2^64. */
FF_INLINE void ff_mul_wide_add(uint32_t &lo, uint32_t &hi, uint32_t a, uint32_t b, uint64_t c)
{
#if defined(CUZK_FF_HOST_EMULATION) && !defined(__CUDA_ARCH__)
    uint64_t t = (uint64_t)a * b + c;
    lo = (uint32_t)t;
    hi = (uint32_t)(t >> 32);
#else
    asm("{\n\t.reg .b64 t;\n\tmad.wide.u32 t, %2, %3, %4;\n\tmov.b64 {%0, %1}, t;\n\t}"
        : "=r"(lo), "=r"(hi) : "r"(a), "r"(b), "l"(c));
#endif
}

/* ---------------------------------------------------- small helpers -- */

/* r = t - p if t >= p, else t. Requires t < 2p. 2N + N ALU instructions:
 * a borrow chain for t - p, then a select on the final borrow. */
template <class F>
FF_INLINE void ff_reduce_once(uint32_t r[F::N], const uint32_t t[F::N])
{
    constexpr int n = F::N;
    uint32_t d[n];
    d[0] = ff_sub_cc(t[0], F::p(0));
#pragma unroll
    for (int k = 1; k < n; k++) d[k] = ff_subc_cc(t[k], F::p(k));
    uint32_t borrow = ff_subc(0, 0); /* 0 or 0xffffffff: t < p */
#pragma unroll
    for (int k = 0; k < n; k++) r[k] = borrow ? t[k] : d[k];
}

/* ------------------------------------------------------------ add, sub -- */

/* r = a + b mod 2^(32N), unreduced: one carry chain. */
template <class F>
FF_INLINE void ff_add_words(uint32_t r[F::N], const uint32_t a[F::N], const uint32_t b[F::N])
{
    constexpr int n = F::N;
    r[0] = ff_add_cc(a[0], b[0]);
#pragma unroll
    for (int k = 1; k < n - 1; k++) r[k] = ff_addc_cc(a[k], b[k]);
    r[n - 1] = ff_addc(a[n - 1], b[n - 1]);
}

/* r = a + b mod p. a + b < 2p < 2^(32N): no carry out of the top word. */
template <class F>
FF_INLINE void ff_add(uint32_t r[F::N], const uint32_t a[F::N], const uint32_t b[F::N])
{
    uint32_t t[F::N];
    ff_add_words<F>(t, a, b);
    ff_reduce_once<F>(r, t);
}

/* r = 2a mod p. */
template <class F>
FF_INLINE void ff_dbl(uint32_t r[F::N], const uint32_t a[F::N])
{
    ff_add<F>(r, a, a);
}

/* r = a - b mod p: the difference, plus p when it borrowed. */
template <class F>
FF_INLINE void ff_sub(uint32_t r[F::N], const uint32_t a[F::N], const uint32_t b[F::N])
{
    constexpr int n = F::N;
    uint32_t t[n];
    t[0] = ff_sub_cc(a[0], b[0]);
#pragma unroll
    for (int k = 1; k < n; k++) t[k] = ff_subc_cc(a[k], b[k]);
    uint32_t mask = ff_subc(0, 0); /* all ones when a < b */
    r[0] = ff_add_cc(t[0], F::p(0) & mask);
#pragma unroll
    for (int k = 1; k < n - 1; k++) r[k] = ff_addc_cc(t[k], F::p(k) & mask);
    r[n - 1] = ff_addc(t[n - 1], F::p(n - 1) & mask);
}

/* r = a - b + p, in [1, 2p) for a, b < p: a difference left unreduced,
 * for ff_mul_shoup, which takes a < 2p. 2N ALU instructions against
 * ff_sub's 3N + 1: no mask, no select. */
template <class F>
FF_INLINE void ff_sub_lazy(uint32_t r[F::N], const uint32_t a[F::N], const uint32_t b[F::N])
{
    constexpr int n = F::N;
    uint32_t t[n], pr[n];
    t[0] = ff_sub_cc(a[0], b[0]);
#pragma unroll
    for (int k = 1; k < n - 1; k++) t[k] = ff_subc_cc(a[k], b[k]);
    t[n - 1] = ff_subc(a[n - 1], b[n - 1]);
#pragma unroll
    for (int k = 0; k < n; k++) pr[k] = F::p(k);
    ff_add_words<F>(r, t, pr);
}

/* r = -a mod p: p - a, or 0 when a = 0. */
template <class F>
FF_INLINE void ff_neg(uint32_t r[F::N], const uint32_t a[F::N])
{
    constexpr int n = F::N;
    uint32_t nz = 0;
#pragma unroll
    for (int k = 0; k < n; k++) nz |= a[k];
    uint32_t mask = nz ? 0xffffffffu : 0u;
    uint32_t t[n];
    t[0] = ff_sub_cc(F::p(0), a[0]);
#pragma unroll
    for (int k = 1; k < n - 1; k++) t[k] = ff_subc_cc(F::p(k), a[k]);
    t[n - 1] = ff_subc(F::p(n - 1), a[n - 1]);
#pragma unroll
    for (int k = 0; k < n; k++) r[k] = t[k] & mask;
}

/* --------------------------------------------------------- multiplication -- */

/* The quotient digit of a Montgomery step on a sum whose word 0 is s0,
 * m = s0 * M0 mod W, and u = the 2-word value that the skipped products of
 * the step leave at words 1 and 2 (the caller adds u_lo at word 1, as the
 * addend of the wide product that starts there):
 * - generic: no product is skipped, u = 0;
 * - P0_ONE (p0 = 1, so M0 = -1): m = -s0, and s0 + m*p0 = c0*W with
 *   c0 = (s0 != 0): u = c0;
 * - P1_MAX (also p1 = W - 1): u = c0 + m*p1 = c0 + m*W - m, which is 0 for
 *   s0 = 0 and (~s0)*W + s0 + 1 otherwise; no product either. */
template <class F>
FF_INLINE uint32_t ff_redc_digit(uint32_t s0, uint32_t &u_lo, uint32_t &u_hi)
{
    /* -s0 as (s0 ^ M0) + 1, M0 = 0xffffffff read from constant memory: when
     * ptxas can see that m = -s0 it folds the negation into the products
     * of m*p and then no longer fuses their lo/hi pairs into IMAD.WIDE (the
     * SASS on the H200 with m = 0u - s0: all 56 pairs of the reduction
     * unfused, 53.2 G/s against the generic code's 58.8). */
    if (F::P1_MAX) {
        uint64_t u = s0 ? ((uint64_t)~s0 << 32) + s0 + 1 : 0;
        u_lo = (uint32_t)u;
        u_hi = (uint32_t)(u >> 32);
        return (s0 ^ F::m0()) + 1;
    }
    u_hi = 0;
    if (F::P0_ONE) {
        u_lo = s0 != 0;
        return (s0 ^ F::m0()) + 1;
    }
    u_lo = 0;
    return s0 * F::m0();
}

/* One Montgomery step on the pre-shift sum held in s (words 0..N, s[N] a
 * carry word) and o (o[k] is word k+1, k < N): adds m*p, m from
 * ff_redc_digit (so word 0 becomes zero) and returns the shifted sum
 * (s >> 32) + o in s[0..N-1]. N + 1 products (N - 1 with P0_ONE, N - 2 with
 * P1_MAX: the skipped ones are u), N + 2 ALU. With O_EMPTY the odd
 * accumulator is taken as zero (o is only written): its products are then
 * plain wide multiplications, and u goes into its first pair; otherwise the
 * caller has already added u at word 1 (o[0], see ff_mul). */
template <class F, bool O_EMPTY>
FF_INLINE void ff_redc_step(uint32_t s[F::N + 1], uint32_t o[F::N], uint32_t m, uint32_t u_lo,
                            uint32_t u_hi)
{
    constexpr int n = F::N;
    /* s += m * p_even: pairs (j, j+1), j even; carry into s[n]. With P0_ONE
     * the chain starts at j = 2 (still with a multiply-add): word 0 is
     * dropped by the shift, and m*p0 = m < W adds nothing to word 1 but the
     * carry in u. */
    constexpr int je = F::P0_ONE ? 2 : 0;
    ff_mad_lo_cc(s[je], m, F::p(je));
    ff_madc_hi_cc(s[je + 1], m, F::p(je));
#pragma unroll
    for (int j = je + 2; j < n; j += 2) {
        ff_madc_lo_cc(s[j], m, F::p(j));
        ff_madc_hi_cc(s[j + 1], m, F::p(j));
    }
    s[n] = ff_addc(s[n], 0);
    /* o += m * p_odd: pairs (j, j+1) of words, stored at o[j-1], o[j]. The
     * carry out of the top is zero by the bound in the header comment. With
     * P1_MAX the pair of j = 1 is u, and the chain starts at j = 3. */
    constexpr int jo = F::P1_MAX ? 3 : 1;
    if (O_EMPTY) {
        if (F::P1_MAX) {
            o[0] = u_lo;
            o[1] = u_hi;
        } else {
            ff_mul_wide_add(o[0], o[1], m, F::p(1), u_lo);
        }
#pragma unroll
        for (int j = 3; j < n; j += 2) ff_mul_wide(o[j - 1], o[j], m, F::p(j));
    } else {
        ff_mad_lo_cc(o[jo - 1], m, F::p(jo));
        ff_madc_hi_cc(o[jo], m, F::p(jo));
#pragma unroll
        for (int j = jo + 2; j < n - 1; j += 2) {
            ff_madc_lo_cc(o[j - 1], m, F::p(j));
            ff_madc_hi_cc(o[j], m, F::p(j));
        }
        ff_madc_lo_cc(o[n - 2], m, F::p(n - 1));
        ff_madc_hi(o[n - 1], m, F::p(n - 1));
    }
    /* shift: s = (s >> 32) + o; the top carry is zero (result < 2p). */
    s[0] = ff_add_cc(s[1], o[0]);
#pragma unroll
    for (int k = 1; k < n - 1; k++) s[k] = ff_addc_cc(s[k + 1], o[k]);
    s[n - 1] = ff_addc(s[n], o[n - 1]);
}

/* o = a_odd * bi as disjoint pairs (o[k] is word k+1), plus w at word 1
 * (w < 2W - 1: then a1*bi + w < W^2, one wide product with its addend). */
template <class F>
FF_INLINE void ff_row_odd(uint32_t o[F::N], const uint32_t a[F::N], uint32_t bi, uint64_t w)
{
    if (F::P0_ONE) ff_mul_wide_add(o[0], o[1], a[1], bi, w);
    else           ff_mul_wide(o[0], o[1], a[1], bi);
#pragma unroll
    for (int j = 3; j < F::N; j += 2) ff_mul_wide(o[j - 1], o[j], a[j], bi);
}

/* r = a * b * R^-1 mod p (operand-scanning, interleaved Montgomery, see the
 * header comment). r may alias a or b. Fr: 136 products (120 with P0_ONE,
 * 112 with P1_MAX), Fp: 300.
 *
 * The skipped products' u (ff_redc_digit) is added at word 1 of its row as
 * the addend of the row's fresh product a1*b_i. With P1_MAX u has two words,
 * and a1*b_i + u could overflow the pair, so its high word (word 2 of this
 * row, word 1 after the shift) is carried to the next row's addend instead,
 * g: the next quotient depends on word 0 only, and the addend u_lo + g <
 * 2W - 1 fits. The last row's g is added after the loop. What the
 * accumulators hold is the exact sum less g*W^2 (pre-shift): no larger than
 * the generic code's, so its bounds hold. */
template <class F>
FF_INLINE void ff_mul(uint32_t r[F::N], const uint32_t a[F::N], const uint32_t b[F::N])
{
    constexpr int n = F::N;
    uint32_t s[n + 1], o[n], m, u_lo, u_hi, g = 0;
    /* Row 0: the sum is empty, so the products go straight into their pairs. */
    uint32_t b0 = b[0];
#pragma unroll
    for (int j = 0; j < n; j += 2) ff_mul_wide(s[j], s[j + 1], a[j], b0);
    s[n] = 0;
    m = ff_redc_digit<F>(s[0], u_lo, u_hi);
    ff_row_odd<F>(o, a, b0, u_lo);
    ff_redc_step<F, false>(s, o, m, u_lo, u_hi);
    g = u_hi;
#pragma unroll
    for (int i = 1; i < n; i++) {
        uint32_t bi = b[i];
        /* s += a_even * b_i, carry into the fresh top word s[n]. */
        ff_mad_lo_cc(s[0], a[0], bi);
        ff_madc_hi_cc(s[1], a[0], bi);
#pragma unroll
        for (int j = 2; j < n; j += 2) {
            ff_madc_lo_cc(s[j], a[j], bi);
            ff_madc_hi_cc(s[j + 1], a[j], bi);
        }
        s[n] = ff_addc(0, 0);
        /* o = a_odd * b_i: disjoint pairs, no carries. */
        m = ff_redc_digit<F>(s[0], u_lo, u_hi);
        ff_row_odd<F>(o, a, bi, (uint64_t)u_lo + g);
        ff_redc_step<F, false>(s, o, m, u_lo, u_hi);
        g = u_hi;
    }
    if (F::P1_MAX) { /* s += g*W: the exact sum, < 2p */
        s[1] = ff_add_cc(s[1], g);
#pragma unroll
        for (int k = 2; k < n - 1; k++) s[k] = ff_addc_cc(s[k], 0);
        s[n - 1] = ff_addc(s[n - 1], 0);
    }
    ff_reduce_once<F>(r, s);
}

/* r = t * R^-1 mod p for a 2N-word t < p * W^N (a product of two reduced
 * elements): Montgomery reduction of the low half, s = (t_lo + m*p) / W^N
 * by N steps of ff_redc_step with an empty odd accumulator (N^2 + N products),
 * then s + t_hi < 2p and one conditional subtraction. */
template <class F>
FF_INLINE void ff_redc_wide(uint32_t r[F::N], const uint32_t t[2 * F::N])
{
    constexpr int n = F::N;
    uint32_t s[n + 1], od[n];
#pragma unroll
    for (int k = 0; k < n; k++) s[k] = t[k];
    s[n] = 0;
#pragma unroll
    for (int i = 0; i < n; i++) {
        uint32_t u_lo, u_hi, m = ff_redc_digit<F>(s[0], u_lo, u_hi);
        ff_redc_step<F, true>(s, od, m, u_lo, u_hi);
        s[n] = 0;
    }
    /* s <= p and t_hi < p: s + t_hi < 2p < W^n. */
    uint32_t u[n];
    u[0] = ff_add_cc(s[0], t[n]);
#pragma unroll
    for (int k = 1; k < n - 1; k++) u[k] = ff_addc_cc(s[k], t[n + k]);
    u[n - 1] = ff_addc(s[n - 1], t[2 * n - 1]);
    ff_reduce_once<F>(r, u);
}

/* t = a * b for h-limb a, b (h even), all 2h words: the schoolbook product
 * in the pair layout of the header comment. e holds words 0..2h-1 (pairs at
 * even words), o[k] word k+1 (pairs at odd words); row i adds a_j*b_i at
 * word i+j as two carry chains, one per parity; then t = e + o*W. */
template <int h>
FF_INLINE void ff_prod(uint32_t t[2 * h], const uint32_t a[h], const uint32_t b[h])
{
    static_assert(h % 2 == 0, "the pair layout assumes an even limb count");
    uint32_t e[2 * h], o[2 * h - 1];
    /* Row 0: disjoint pairs: e words 0..h-1, o words 1..h. */
#pragma unroll
    for (int j = 0; j < h; j += 2) ff_mul_wide(e[j], e[j + 1], a[j], b[0]);
#pragma unroll
    for (int j = 1; j < h; j += 2) ff_mul_wide(o[j - 1], o[j], a[j], b[0]);
#pragma unroll
    for (int q = h; q < 2 * h; q++) e[q] = 0;
#pragma unroll
    for (int q = h + 1; q < 2 * h; q++) o[q - 1] = 0;
#pragma unroll
    for (int i = 1; i < h; i++) {
#pragma unroll
        for (int jp = 0; jp < 2; jp++) {
            /* j = jp, jp+2, ...: words i+j of parity (i + jp); even -> e. */
            bool to_e = ((i + jp) & 1) == 0;
            int jl = jp + ((h - 1 - jp) & ~1); /* last j of this parity */
            int top = i + jl + 2;              /* word receiving the carry */
#pragma unroll
            for (int j = jp; j < h; j += 2) {
                int w = i + j;
                uint32_t &lo = to_e ? e[w] : o[w - 1];
                uint32_t &hi = to_e ? e[w + 1] : o[w];
                if (j == jp) ff_mad_lo_cc(lo, a[j], b[i]);
                else         ff_madc_lo_cc(lo, a[j], b[i]);
                ff_madc_hi_cc(hi, a[j], b[i]);
            }
            if (top < 2 * h) {
                uint32_t &c = to_e ? e[top] : o[top - 1];
                c = ff_addc(c, 0);
            }
        }
    }
    t[0] = e[0];
    t[1] = ff_add_cc(e[1], o[0]);
#pragma unroll
    for (int k = 2; k < 2 * h - 1; k++) t[k] = ff_addc_cc(e[k], o[k - 1]);
    t[2 * h - 1] = ff_addc(e[2 * h - 1], o[2 * h - 2]);
}

/* r = a * b * R^-1 mod p, product first, then reduction ("SOS"): the same
 * 2N^2 + N products as ff_mul but a different dependency structure (the N
 * rows of the product do not wait for quotient digits). Kept for comparison
 * in the throughput benchmark (it is no faster: both are bound by the
 * multiplier pipe). r may alias a or b. */
template <class F>
FF_INLINE void ff_mul_sos(uint32_t r[F::N], const uint32_t a[F::N], const uint32_t b[F::N])
{
    uint32_t t[2 * F::N];
    ff_prod<F::N>(t, a, b);
    ff_redc_wide<F>(r, t);
}

/* r = a^2 * R^-1 mod p: the off-diagonal products once, doubled, plus the
 * squares, then a separate Montgomery reduction of the 2N-word square.
 * Fr: 108 products, Fp: 234. r may alias a. */
template <class F>
FF_INLINE void ff_sqr(uint32_t r[F::N], const uint32_t a[F::N])
{
    constexpr int n = F::N;
    static_assert(n % 2 == 0, "the pair layout assumes an even limb count");
    /* e: words 0..2n-1, pairs at even words. o: o[k] is word k+1, pairs at odd
     * words. Off-diagonal row i adds a_i*a_j (j > i) at word i+j: the ones
     * with i+j even go to e, the others to o, each as one carry chain. */
    uint32_t e[2 * n], o[2 * n - 1];
    /* Row 0 writes disjoint pairs: e words 2..n(+1), o words 1..n. */
#pragma unroll
    for (int j = 1; j < n; j++) {
        if (j & 1) ff_mul_wide(o[j - 1], o[j], a[0], a[j]);
        else       ff_mul_wide(e[j], e[j + 1], a[0], a[j]);
    }
    /* Words not written by row 0 start at zero (n is even: row 0 wrote e
     * words 2..n-1 and o words 1..n); the compiler folds these. */
    e[0] = e[1] = 0;
#pragma unroll
    for (int q = n; q < 2 * n; q++) e[q] = 0;
#pragma unroll
    for (int q = n + 1; q < 2 * n; q++) o[q - 1] = 0;
#pragma unroll
    for (int i = 1; i < n - 1; i++) {
        /* Two chains: j = i+1, i+3, ... (words 2i+1, ...: odd, into o) and
         * j = i+2, i+4, ... (even words, into e). */
#pragma unroll
        for (int par = 0; par < 2; par++) {
            int j0 = i + 1 + par;    /* par 0: word 2i+1 (odd, o); 1: 2i+2 (e) */
            if (j0 >= n) continue;
            int jl = j0;
            while (jl + 2 < n) jl += 2;
            int top = i + jl + 2; /* word receiving the carry */
#pragma unroll
            for (int j = j0; j < n; j += 2) {
                int w = i + j;
                uint32_t &lo = par ? e[w] : o[w - 1];
                uint32_t &hi = par ? e[w + 1] : o[w];
                if (j == j0) ff_mad_lo_cc(lo, a[i], a[j]);
                else         ff_madc_lo_cc(lo, a[i], a[j]);
                ff_madc_hi_cc(hi, a[i], a[j]);
            }
            if (top < 2 * n) {
                uint32_t &c = par ? e[top] : o[top - 1];
                c = ff_addc(c, 0);
            }
        }
    }
    /* t = 2 * (e + o*W) + sum a_i^2 W^(2i). */
    uint32_t t[2 * n];
    t[0] = e[0];
    t[1] = ff_add_cc(e[1], o[0]);
#pragma unroll
    for (int k = 2; k < 2 * n - 1; k++) t[k] = ff_addc_cc(e[k], o[k - 1]);
    t[2 * n - 1] = ff_addc(e[2 * n - 1], o[2 * n - 2]);
    /* Double: funnel shifts (the sum of off-diagonal terms is < W^(2n)/2). */
#pragma unroll
    for (int k = 2 * n - 1; k > 0; k--) t[k] = ff_shl1_funnel(t[k - 1], t[k]);
    t[0] <<= 1;
    /* Diagonal: pairs (2i, 2i+1), one chain; no carry out (a^2 < W^(2n)). */
    ff_mad_lo_cc(t[0], a[0], a[0]);
    ff_madc_hi_cc(t[1], a[0], a[0]);
#pragma unroll
    for (int i = 1; i < n - 1; i++) {
        ff_madc_lo_cc(t[2 * i], a[i], a[i]);
        ff_madc_hi_cc(t[2 * i + 1], a[i], a[i]);
    }
    ff_madc_lo_cc(t[2 * n - 2], a[n - 1], a[n - 1]);
    ff_madc_hi(t[2 * n - 1], a[n - 1], a[n - 1]);

    ff_redc_wide<F>(r, t);
}

/* ------------------------------------------ multiplication by a constant -- */

/* Words W0..W1 of the product a*b of h-limb a, b, into t[W0..W1] (t is
 * indexed by word; the other words are left alone). The pair layout of
 * ff_prod, with each partial product a_j*b_i (low word i+j, high word
 * i+j+1) cut to the window: dropped when both its words are outside, only
 * its high word (IMAD.HI) when its low word is W0 - 1, only its low word
 * (IMAD) when that is W1. So above W1 the result is mod W^(W1+1), and for
 * W0 > 0 it lacks the carries of what was dropped below W0 (the caller
 * bounds them). R0 > 0: rows 0 .. R0 - 1 (the products by b_0 .. b_R0-1)
 * are not formed: the caller's init[W0..W1] holds their sum (W0 = 0). */
template <int h, int W0, int W1, int R0>
FF_INLINE void ff_prod_win(uint32_t t[2 * h], const uint32_t a[h], const uint32_t b[h],
                           const uint32_t *init)
{
    static_assert(0 <= W0 && W0 <= W1 && W1 < 2 * h, "a window of the product's words");
    static_assert(R0 == 0 || W0 == 0, "rows given only for a window from word 0");
    /* e: pairs at even words, o: pairs at odd words; both indexed by word */
    uint32_t e[2 * h + 2], o[2 * h + 2];
#pragma unroll
    for (int w = 0; w < 2 * h + 2; w++) e[w] = o[w] = 0;
    if (R0 > 0) {
#pragma unroll
        for (int w = W0; w <= W1; w++) e[w] = init[w];
    }
#pragma unroll
    for (int i = R0; i < h; i++) {
#pragma unroll
        for (int jp = 0; jp < 2; jp++) {
            uint32_t *acc = ((i + jp) & 1) == 0 ? e : o;
            bool first = true;
            int top = 2 * h;
#pragma unroll
            for (int j = jp; j < h; j += 2) {
                const int w = i + j;
                const bool lo = w >= W0 && w <= W1, hi = w + 1 >= W0 && w + 1 <= W1;
                if (lo) {
                    if (first) ff_mad_lo_cc(acc[w], a[j], b[i]);
                    else       ff_madc_lo_cc(acc[w], a[j], b[i]);
                    first = false;
                }
                if (hi) {
                    if (first) ff_mad_hi_cc(acc[w + 1], a[j], b[i]);
                    else       ff_madc_hi_cc(acc[w + 1], a[j], b[i]);
                    first = false;
                }
                if (lo || hi) top = w + 2;
            }
            /* the chain's carry: out of the window, or into a word that
             * holds only carries so far (as in ff_prod; W0 > 0 so R0 = 0
             * there: in a window from word 0 every chain runs to W1 - 1 or
             * W1 once h - 1 <= W1, so its carry leaves the window) */
            if (!first && top <= W1) acc[top] = ff_addc(acc[top], 0);
        }
    }
    if (W0 == W1) {
        t[W0] = e[W0] + o[W0];
        return;
    }
    t[W0] = ff_add_cc(e[W0], o[W0]);
#pragma unroll
    for (int w = W0 + 1; w < W1; w++) t[w] = ff_addc_cc(e[w], o[w]);
    t[W1] = ff_addc(e[W1], o[W1]);
}

/* r = a * w mod p for a constant w given as the pair (w, wq), wq =
 * floor(w W^N / p) (Shoup's method; ff_shoup_quot forms wq). w is the
 * plain residue, not its Montgomery form, so for a Montgomery-form a the
 * result is the Montgomery form of the product, as ff_mul gives with w's
 * Montgomery form: the same bits. w < p and a < 2p (ff_sub_lazy's
 * differences), the result reduced; r may alias a.
 *
 * q = floor(a wq / W^N) estimates the quotient of a w by p, and r = a w -
 * q p is then computed mod W^N: the low halves of a w and of q p only, and
 * of a wq the high half only, less its lowest columns. Fr (N = 8): 28 wide
 * products and 8 low ones for a w, 36 wide and 7 IMAD.HI for q, 15 wide and
 * 6 low for q p (its rows 0 and 1 are q - q W + q W^2 on the ALU: r0 = 1,
 * r1 = W - 1): 186 IMAD issue slots against ff_mul's 264 (an IMAD.WIDE or
 * IMAD.HI takes 2, an IMAD 1), and
 * the three parts are two independent chains and a third, where each of
 * ff_mul's rows waits on the last.
 *
 * Why one conditional subtraction ends it (B = W^N). Write wq = w B / p -
 * th with 0 <= th < 1. The exact quotient q* = floor(a wq / B) gives
 * a w / p - q* = frac(a wq / B) + a th / B < 1 + a / B, so a w - q* p <
 * p (1 + 2p / B). The estimate q drops, of the columns of a wq below word
 * N - 1 (word N - 1 is the fraction's top word), column N - 2's low words
 * and every column below it: less than 2N W^(N-1) in all, so q = q* or
 * q* - 1, and q* - 1 only when the dropped part carried into word N, that
 * is when frac(a wq / B) < 2N / W. Then a w - q p = p (1 + frac(a wq / B) +
 * a th / B) < p (1 + 2N / W + 2p / B). Either way r < p (1 + 2p / B +
 * 2^-27) < 2p, and below B, since p / B < 0.454 for Fr (p (1 + 2p / B) <
 * 0.87 B) and < 0.11 for Fp: computing mod B loses nothing, and r - p when
 * r >= p is the reduced result. */
template <class F>
FF_INLINE void ff_mul_shoup(uint32_t r[F::N], const uint32_t a[F::N], const uint32_t w[F::N],
                            const uint32_t wq[F::N])
{
    constexpr int n = F::N;
    uint32_t lo[2 * n], hi[2 * n], qp[2 * n], pr[n];
    ff_prod_win<n, 0, n - 1, 0>(lo, a, w, nullptr);
    ff_prod_win<n, n - 1, 2 * n - 1, 0>(hi, a, wq, nullptr);
    const uint32_t *q = hi + n;
#pragma unroll
    for (int k = 0; k < n; k++) pr[k] = F::p(k);
    if constexpr (F::SHOUP_ROWS == 2) {
        /* rows 0 and 1 of q p (p0 = 1, p1 = W - 1): q - q W + q W^2, on
         * the ALU: y = q + q W^2, then y - q W (mod W^n) */
        uint32_t y[n], x[n];
        y[0] = q[0];
        y[1] = q[1];
        y[2] = ff_add_cc(q[2], q[0]);
#pragma unroll
        for (int k = 3; k < n - 1; k++) y[k] = ff_addc_cc(q[k], q[k - 2]);
        y[n - 1] = ff_addc(q[n - 1], q[n - 3]);
        x[0] = y[0];
        x[1] = ff_sub_cc(y[1], q[0]);
#pragma unroll
        for (int k = 2; k < n - 1; k++) x[k] = ff_subc_cc(y[k], q[k - 1]);
        x[n - 1] = ff_subc(y[n - 1], q[n - 2]);
        ff_prod_win<n, 0, n - 1, 2>(qp, q, pr, x);
    } else {
        ff_prod_win<n, 0, n - 1, 0>(qp, q, pr, nullptr);
    }
    uint32_t t[n];
    t[0] = ff_sub_cc(lo[0], qp[0]);
#pragma unroll
    for (int k = 1; k < n - 1; k++) t[k] = ff_subc_cc(lo[k], qp[k]);
    t[n - 1] = ff_subc(lo[n - 1], qp[n - 1]);
    ff_reduce_once<F>(r, t);
}

/* Host code for ff_mul_shoup's pairs (the NTT's tables, the emulation
 * tests), n <= 12 32-bit limbs. The quotient needs no division: w W^n =
 * wq p + wm, where wm = w W^n mod p is w's Montgomery form (what the
 * tables already hold), so wq = -wm p^-1 mod W^n (wq < W^n as w < p): a
 * low-half product by the constant m = -p^-1 mod W^n. */

/* r = a b mod W^n. r may alias a or b. */
static inline void ff_host_mul_lo(uint32_t *r, const uint32_t *a, const uint32_t *b, int n)
{
    uint32_t t[12] = {0};
    for (int i = 0; i < n; i++) {
        uint64_t c = 0;
        for (int j = 0; i + j < n; j++) {
            c += (uint64_t)a[i] * b[j] + t[i + j];
            t[i + j] = (uint32_t)c;
            c >>= 32;
        }
    }
    for (int k = 0; k < n; k++) r[k] = t[k];
}

/* r = -a mod W^n. */
static inline void ff_host_neg(uint32_t *r, const uint32_t *a, int n)
{
    uint64_t c = 1;
    for (int k = 0; k < n; k++) {
        c += (uint32_t)~a[k];
        r[k] = (uint32_t)c;
        c >>= 32;
    }
}

/* m = -p^-1 mod W^n for an odd p given as n / 2 little-endian 64-bit limbs
 * (CUZK_FR_MODULUS): Newton's x <- x (2 - p x), which doubles the correct
 * low bits, from x = p (p p = 1 mod 8). */
static inline void ff_shoup_m(uint32_t *m, const uint64_t *p, int n)
{
    uint32_t pl[12], x[12], t[12];
    for (int k = 0; k < n; k++) x[k] = pl[k] = (uint32_t)(p[k / 2] >> (32 * (k % 2)));
    for (int bits = 3; bits < 32 * n; bits *= 2) {
        ff_host_mul_lo(t, pl, x, n);
        ff_host_neg(t, t, n); /* 2 - p x */
        uint64_t c = 2;
        for (int k = 0; k < n; k++) {
            c += t[k];
            t[k] = (uint32_t)c;
            c >>= 32;
        }
        ff_host_mul_lo(x, x, t, n);
    }
    ff_host_neg(m, x, n);
}

/* wq = floor(w W^n / p) from wm, w's Montgomery form, and m of ff_shoup_m. */
static inline void ff_shoup_quot(uint32_t *wq, const uint32_t *wm, const uint32_t *m, int n)
{
    ff_host_mul_lo(wq, wm, m, n);
}

/* ------------------------------------------------------------ load/store -- */

/* Elements are 16-byte aligned in device memory (Fr 32 B, Fp 48 B). */
template <class F>
FF_INLINE void ff_load(uint32_t x[F::N], const uint4 *p)
{
#pragma unroll
    for (int k = 0; k < F::N / 4; k++) {
        uint4 v = p[k];
        x[4 * k] = v.x; x[4 * k + 1] = v.y; x[4 * k + 2] = v.z; x[4 * k + 3] = v.w;
    }
}

template <class F>
FF_INLINE void ff_store(uint4 *p, const uint32_t x[F::N])
{
#pragma unroll
    for (int k = 0; k < F::N / 4; k++)
        p[k] = make_uint4(x[4 * k], x[4 * k + 1], x[4 * k + 2], x[4 * k + 3]);
}

#endif /* CUZK_GPU_FF_CUH */
