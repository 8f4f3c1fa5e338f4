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
enum { FF_CONST_IMM = 0, FF_CONST_M0 = 1, FF_CONST_MEM = 2 };

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
    static FF_INLINE uint32_t p(int i)
    {
#ifdef __CUDA_ARCH__
        if (K == FF_CONST_MEM) return ff_fr_cmem[i];
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
typedef FfFrT<FF_CONST_MEM> FfFr;
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

/* r = a + b mod p. a + b < 2p < 2^(32N): no carry out of the top word. */
template <class F>
FF_INLINE void ff_add(uint32_t r[F::N], const uint32_t a[F::N], const uint32_t b[F::N])
{
    constexpr int n = F::N;
    uint32_t t[n];
    t[0] = ff_add_cc(a[0], b[0]);
#pragma unroll
    for (int k = 1; k < n - 1; k++) t[k] = ff_addc_cc(a[k], b[k]);
    t[n - 1] = ff_addc(a[n - 1], b[n - 1]);
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

/* One Montgomery step on the pre-shift sum held in s (words 0..N, s[N] a
 * carry word) and o (o[k] is word k+1, k < N): adds m*p with
 * m = s[0]*M0 (so word 0 becomes zero) and returns the shifted sum
 * (s >> 32) + o in s[0..N-1]. N + 1 products, N + 2 ALU. With O_EMPTY the odd
 * accumulator is taken as zero (o is only written): its products are then
 * plain wide multiplications. */
template <class F, bool O_EMPTY>
FF_INLINE void ff_redc_step(uint32_t s[F::N + 1], uint32_t o[F::N])
{
    constexpr int n = F::N;
    uint32_t m = s[0] * F::m0();
    /* s += m * p_even: pairs (j, j+1), j even; carry into s[n]. */
    ff_mad_lo_cc(s[0], m, F::p(0));
    ff_madc_hi_cc(s[1], m, F::p(0));
#pragma unroll
    for (int j = 2; j < n; j += 2) {
        ff_madc_lo_cc(s[j], m, F::p(j));
        ff_madc_hi_cc(s[j + 1], m, F::p(j));
    }
    s[n] = ff_addc(s[n], 0);
    /* o += m * p_odd: pairs (j, j+1) of words, stored at o[j-1], o[j]. The
     * carry out of the top is zero by the bound in the header comment. */
    if (O_EMPTY) {
#pragma unroll
        for (int j = 1; j < n; j += 2) ff_mul_wide(o[j - 1], o[j], m, F::p(j));
    } else {
        ff_mad_lo_cc(o[0], m, F::p(1));
        ff_madc_hi_cc(o[1], m, F::p(1));
#pragma unroll
        for (int j = 3; j < n - 1; j += 2) {
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

/* r = a * b * R^-1 mod p (operand-scanning, interleaved Montgomery, see the
 * header comment). r may alias a or b. Fr: 136 products, Fp: 300. */
template <class F>
FF_INLINE void ff_mul(uint32_t r[F::N], const uint32_t a[F::N], const uint32_t b[F::N])
{
    constexpr int n = F::N;
    uint32_t s[n + 1], o[n];
    /* Row 0: the sum is empty, so the products go straight into their pairs. */
    uint32_t b0 = b[0];
#pragma unroll
    for (int j = 0; j < n; j += 2) ff_mul_wide(s[j], s[j + 1], a[j], b0);
    s[n] = 0;
#pragma unroll
    for (int j = 1; j < n; j += 2) ff_mul_wide(o[j - 1], o[j], a[j], b0);
    ff_redc_step<F, false>(s, o);
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
#pragma unroll
        for (int j = 1; j < n; j += 2) ff_mul_wide(o[j - 1], o[j], a[j], bi);
        ff_redc_step<F, false>(s, o);
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
        ff_redc_step<F, true>(s, od);
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

/* r = a * b * R^-1 mod p, product first, then reduction ("SOS"): the same
 * 2N^2 + N products as ff_mul but a different dependency structure (the N
 * rows of the product do not wait for quotient digits). Kept for comparison
 * in the throughput benchmark (it is no faster: both are bound by the
 * multiplier pipe). r may alias a or b. */
template <class F>
FF_INLINE void ff_mul_sos(uint32_t r[F::N], const uint32_t a[F::N], const uint32_t b[F::N])
{
    constexpr int n = F::N;
    static_assert(n % 2 == 0, "the pair layout assumes an even limb count");
    /* e: words 0..2n-1 (pairs at even words); o[k] is word k+1 (pairs at odd
     * words). Row i adds a_j*b_i at word i+j. */
    uint32_t e[2 * n], o[2 * n - 1];
    /* Row 0: disjoint pairs: e words 0..n-1, o words 1..n. */
#pragma unroll
    for (int j = 0; j < n; j += 2) ff_mul_wide(e[j], e[j + 1], a[j], b[0]);
#pragma unroll
    for (int j = 1; j < n; j += 2) ff_mul_wide(o[j - 1], o[j], a[j], b[0]);
#pragma unroll
    for (int q = n; q < 2 * n; q++) e[q] = 0;
#pragma unroll
    for (int q = n + 1; q < 2 * n; q++) o[q - 1] = 0;
#pragma unroll
    for (int i = 1; i < n; i++) {
#pragma unroll
        for (int jp = 0; jp < 2; jp++) {
            /* j = jp, jp+2, ...: words i+j of parity (i + jp); even -> e. */
            bool to_e = ((i + jp) & 1) == 0;
            int jl = jp + ((n - 1 - jp) & ~1); /* last j of this parity */
            int top = i + jl + 2;              /* word receiving the carry */
#pragma unroll
            for (int j = jp; j < n; j += 2) {
                int w = i + j;
                uint32_t &lo = to_e ? e[w] : o[w - 1];
                uint32_t &hi = to_e ? e[w + 1] : o[w];
                if (j == jp) ff_mad_lo_cc(lo, a[j], b[i]);
                else         ff_madc_lo_cc(lo, a[j], b[i]);
                ff_madc_hi_cc(hi, a[j], b[i]);
            }
            if (top < 2 * n) {
                uint32_t &c = to_e ? e[top] : o[top - 1];
                c = ff_addc(c, 0);
            }
        }
    }
    uint32_t t[2 * n];
    t[0] = e[0];
    t[1] = ff_add_cc(e[1], o[0]);
#pragma unroll
    for (int k = 2; k < 2 * n - 1; k++) t[k] = ff_addc_cc(e[k], o[k - 1]);
    t[2 * n - 1] = ff_addc(e[2 * n - 1], o[2 * n - 2]);
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
