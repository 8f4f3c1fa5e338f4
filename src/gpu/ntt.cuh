/* cuzk — the NTT over Fr on the GPU: one pass of the transform (device code).
 *
 * The transform of n = 2^L points (natural order in and out, in place) is
 * three passes over device memory, each a batch of small DFTs done in shared
 * memory (the "four-step" decomposition with three digits). Write a position
 * as three digits (a, b, c) of k1, k2, k1 bits, a the most significant, so
 * i = a 2^(k2+k1) + b 2^k1 + c, and a frequency as k = ka + kb 2^k1 + kc
 * 2^(k1+k2). Then, with w = omega (n-th root) and w_m a primitive m-th root,
 *
 *   X[k] = sum_c w_{2^k1}^(c kc) w^(c kb 2^k1)
 *          sum_b w_{2^k2}^(b kb) w^((b 2^k1 + c) ka)
 *          sum_a w_{2^k1}^(a ka) x[a, b, c]
 *
 * (every other cross term is a multiple of n in the exponent). So:
 *
 *   pass 1 ("column", COL): for every lo = (b, c): the 2^k1-point DFT over a,
 *     times w^(lo ka); result ka stored at (ka, b, c).
 *   pass 2 ("middle", MID): for every (ka, c): the 2^k2-point DFT over b,
 *     times w^(c kb 2^k1); result stored at (c, kb, ka): the digits a and c
 *     trade places, which is the permutation that natural output needs.
 *   pass 3 (COL again): for every lo = (kb, ka): the 2^k1-point DFT over the
 *     top digit, result kc stored at (kc, kb, ka) = natural position k.
 *
 * Each pass reads and writes every element once (3 passes over HBM in all,
 * no separate bit reversal). All three passes are in place: a block's set of
 * positions read equals its set written. For COL that is plain (a block owns
 * whole columns). For MID the group (x, y) (positions (x, *, y)) writes to
 * (y, *, x), the positions of group (y, x): a MID block owns a G x G square
 * of groups (x in X, y in Y) and its transpose (Y, X), or one square on the
 * diagonal (X = Y).
 *
 * One block (a "tile" of T = 2^tbits <= 2048 elements, 64 KiB of shared
 * memory) holds 2^gb groups of 2^k elements each (k = k1 or k2). Tile address
 * a = t 2^gb + gi: t is the element's index in its group's DFT, gi the group.
 *   load phase:  global -> (coset: x *= g^pos) -> shared memory
 *   rounds:      each thread takes 8 (or 4: UB below) elements of one or
 *                more groups from shared memory, does up to 3 (2) radix-2
 *                decimation-in-frequency stages on them in registers, writes them
 *                back; the rounds take the t bits from the top down. The last
 *                round writes each result to its output slot: t -> rev(t)
 *                (DIF leaves the DFT bit-reversed) and, in MID, the group
 *                transposed.
 *   store phase: shared memory -> (x *= the pass's twiddle, or the inverse's
 *                scaling) -> global.
 * Twiddles of the small DFTs come from one table inner[m] = w_{2^kt}^m
 * (m < 2^(kt-1), kt = min(L, 10)): stage on bit beta uses w_{2^(beta+1)}^j
 * = inner[j 2^(kt-1-beta)]. The inter-pass twiddles: pass 1 w^e (e < n) from
 * two tables, w^e = lo[e mod 2^w] hi[e >> w] (one extra multiplication per
 * element), or, with full tables (an option: n x 32 bytes of device memory),
 * from one n-entry table of w^e, a load and no multiplication (the inverse
 * reads w^(n-e) there, so one table serves all four transforms, and its 1/n
 * moves to pass 2), or, with a positional table (the other option, as
 * large), a load from P[pos] = w^(lo ka) at the position pos = ka 2^lo_bits
 * + lo that the factor's element is stored to: read like the data,
 * coalesced, where the full table's w^e scatters (forward transforms only;
 * the inverse stays on two levels); pass 2 w^(e 2^k1) from one table of
 * 2^(L-k1) entries.
 *
 * Shared memory holds the tile as 8 planes of 32-bit limbs (limb l of slot s
 * at word l T + s), so one warp instruction touches one plane and is free of
 * bank conflicts when the 32 lanes' slots differ mod 32; slots are the tile
 * addresses with higher bits folded onto bits 1-4 (ntt_slot), which keeps
 * the rounds' access patterns (nearly) conflict-free for the tile shapes used
 * (counted by tests/gpu/test_gpu_ntt_emu.cu, a host emulation of this file).
 *
 * Everything here also compiles for the host under CUZK_FF_HOST_EMULATION,
 * with the phases as functions of (block, thread), so the index logic can be
 * run and checked on a machine without a GPU.
 */
#ifndef CUZK_GPU_NTT_CUH
#define CUZK_GPU_NTT_CUH

#include <math.h>
#include <stdint.h>

#include "gpu/ff.cuh"
#include "gpu/ff_fp64.cuh"

#if defined(CUZK_FF_HOST_EMULATION) && !defined(__CUDA_ARCH__)
#define NTT_LDG(p) (*(p))
#else
#define NTT_LDG(p) __ldg(p)
#endif

/* A basic-block boundary: a uniform branch on a condition that is never
 * true but that the compiler cannot prove false. ptxas schedules within
 * basic blocks, so this bounds how many multiplications it interleaves
 * (and the registers they hold). Nothing in the host emulation. */
#if defined(CUZK_FF_HOST_EMULATION) && !defined(__CUDA_ARCH__)
#define NTT_BLOCK_FENCE(never) ((void)0)
#else
#define NTT_BLOCK_FENCE(never) \
    do {                        \
        if (never) __trap();    \
    } while (0)
#endif

/* Hook for the host emulation (bank-conflict and ownership checks). */
#ifndef NTT_SM_HOOK
#define NTT_SM_HOOK(slot, write) ((void)0)
#endif

typedef FfFr NttF;

enum { NTT_COL = 0, NTT_MID = 1 };
enum { NTT_TILE_LOG = 11 };        /* tile <= 2048 elements = 64 KiB */
enum { NTT_MAX_ROUNDS = 5 };        /* k <= 10: 1 + 3 + 3 + 3 (UB 3), 2 x 5 (UB 2) */

/* Two variants of every pass, chosen at run time (CUZK_NTT_VARIANT, see
 * include/cuzk/gpu.h): a thread holds 2^UB elements, UB = 3 (8 elements,
 * radix-8 rounds, 256 threads per 2048-element tile) or UB = 2 (4 elements,
 * radix-4 rounds, 512 threads: half the registers per thread, so twice the
 * warps per SM). The index logic below is written for any UB. The 8-element
 * kernels also come with part of their multiplications on the FP64 pipe
 * (F64 quarters, CUZK_NTT_FP64; ntt_f64_mask below). */

/* One round: the thread's 2^UB elements are u = 0..2^UB - 1; u bit m is tile
 * t bit gamma + m (gamma < 0: the low -gamma bits of u are group bits, used
 * when the DFT has fewer than UB bits); the round's butterflies are on the
 * top r bits of u. */
struct NttRound {
    int r, gamma;
};

/* One pass, passed by value to the kernel. Table pointers are device
 * pointers (host pointers in the emulation); NULL = not used. */
struct NttPass {
    int kind;        /* NTT_COL or NTT_MID */
    int k;           /* bits of the small DFTs */
    int gb;          /* log2 of groups per tile */
    int tbits;       /* log2 of tile elements = k + gb */
    int nrounds;
    NttRound rnd[NTT_MAX_ROUNDS];
    int kt;          /* inner[m] = w_{2^kt}^m, m < 2^(kt-1) */
    int lo_bits;     /* COL: L - k (columns are 2^lo_bits elements apart) */
    int k1, gy;      /* MID: outer digit bits, log2 G */
    int w;           /* two-level tables: f(e) = lo[e mod 2^w] * hi[e >> w] */
    const uint4 *inner;
    const uint4 *pre_lo, *pre_hi;    /* load:  x *= f(pos) (coset shift^pos) */
    const uint4 *tw_lo, *tw_hi;      /* store, COL: x *= f(lo * t) */
    const uint4 *tw_d;               /* store, MID: x *= tw_d[x-digit * t] */
    const uint4 *post_lo, *post_hi;  /* store: x *= f(pos) (coset inverse) */
    /* Last: ptxas's register allocation of the 8-element kernels turned
     * out sensitive to the offsets of the fields above (102-124 registers
     * as measured with this order; 108-125 with ub second). */
    int ub;          /* log2 of elements per thread: 3 or 2 (the kernel's UB) */
    /* Full tables (in place of tw_lo, tw_hi): store, COL: x *= tw_full[i],
     * i = -e mod n for the inverse (neg = ~0), e for the forward (neg = 0),
     * e = lo * t. */
    const uint4 *tw_full;
    uint32_t neg;
    /* The positional table (in place of tw_lo, tw_hi; forward only): store,
     * COL: x *= tw_pos[pos]. */
    const uint4 *tw_pos;
    /* The coset table g^i, i <= n (in place of pre_lo, pre_hi or post_lo,
     * post_hi): load, x *= pre_one[pos]; store, x *= post_one[n - pos]. */
    const uint4 *pre_one, *post_one;
    /* inner and tw_d as pairs (w, wq) for ff_mul_shoup (the integer
     * rounds, the integer store of pass 2) */
    const uint4 *inner_sh, *tw_dsh;
    /* 1: tw_full, pre_one and post_one hold pairs (w, wq) for ff_mul_shoup
     * (NTT_TW_SHOUP: twice their entries' bytes) */
    int one_sh;
};

/* Which part of the transform a block owns. */
struct NttBlock {
    uint32_t lo_base; /* COL: first column */
    uint32_t X, Y;    /* MID: the square of tiles (X <= Y) */
    bool offdiag;     /* MID: X != Y, so the tile holds two squares */
};

/* The thread's 2^UB elements between reading and writing shared memory. */
template <int UB>
struct NttRegs {
    uint32_t x[1 << UB][8];
    uint32_t abase; /* tile address of element u = 0 */
    bool active;
};

FF_INLINE uint32_t ntt_brev(uint32_t x, int bits)
{
    if (bits == 0) return 0;
#if defined(CUZK_FF_HOST_EMULATION) && !defined(__CUDA_ARCH__)
    uint32_t r = 0;
    for (int i = 0; i < 32; i++) r |= ((x >> i) & 1u) << (31 - i);
    return r >> (32 - bits);
#else
    return __brev(x) >> (32 - bits);
#endif
}

template <int KIND>
FF_INLINE NttBlock ntt_block(const NttPass &p, uint32_t b)
{
    NttBlock B;
    B.lo_base = 0;
    B.X = B.Y = 0;
    B.offdiag = false;
    if (KIND == NTT_COL) {
        B.lo_base = b << p.gb;
        return B;
    }
    /* b = Y (Y + 1) / 2 + X with X <= Y */
    uint32_t Y = (uint32_t)((sqrt(8.0 * (double)b + 1.0) - 1.0) * 0.5);
    while ((uint64_t)Y * (Y + 1) / 2 > b) Y--;
    while ((uint64_t)(Y + 1) * (Y + 2) / 2 <= b) Y++;
    B.Y = Y;
    B.X = b - (uint32_t)((uint64_t)Y * (Y + 1) / 2);
    B.offdiag = B.X != B.Y;
    return B;
}

/* Global position of tile element a; *active is false for the absent second
 * square of a MID block on the diagonal. *xdig (MID) gets the group's top
 * digit. */
template <int KIND>
FF_INLINE uint32_t ntt_pos(const NttPass &p, const NttBlock &B, uint32_t a, bool *active,
                           uint32_t *xdig)
{
    uint32_t gi = a & ((1u << p.gb) - 1), t = a >> p.gb;
    if (KIND == NTT_COL) {
        *active = true;
        *xdig = 0;
        return (t << p.lo_bits) + B.lo_base + gi;
    }
    uint32_t G = 1u << p.gy;
    uint32_t yi = gi & (G - 1), xi = (gi >> p.gy) & (G - 1), half = gi >> (2 * p.gy);
    *active = half == 0 || B.offdiag;
    uint32_t x = (half ? B.Y : B.X) * G + xi, y = (half ? B.X : B.Y) * G + yi;
    *xdig = x;
    return (x << (p.k + p.k1)) + (t << p.k1) + y;
}

/* Where the last round writes tile element a: t -> rev_k(t); in MID the
 * group (half, xi, yi) -> (half ^ offdiag, yi, xi). */
template <int KIND>
FF_INLINE uint32_t ntt_out_addr(const NttPass &p, const NttBlock &B, uint32_t a)
{
    uint32_t gi = a & ((1u << p.gb) - 1), t = a >> p.gb;
    uint32_t t2 = ntt_brev(t, p.k);
    if (KIND == NTT_MID) {
        uint32_t G = 1u << p.gy;
        uint32_t yi = gi & (G - 1), xi = (gi >> p.gy) & (G - 1), half = gi >> (2 * p.gy);
        half ^= B.offdiag ? 1u : 0u;
        gi = xi | (yi << p.gy) | (half << (2 * p.gy));
    }
    return (t2 << p.gb) | gi;
}

/* Shared-memory slot of tile address a: the low 5 bits (the bank) XORed
 * with a function of the bits above, chosen so that the 32 lanes of every
 * warp-wide access hit 32 banks for the planned tile shapes (k1 = 7 .. 10,
 * k2 = 6 .. 8). 8 elements per thread: bits 5-7 folded onto bits 2-4; two
 * cases conflict 2-way (the last round of k1 = 10 and of k2 = 7, and one
 * earlier read of k1 = 10). 4 elements per thread: that fold would leave 12
 * 2-way cases (rounds whose 2 element bits are address bits 1-2 or 3-4
 * spread the lanes over bits 5-6), so bits 5 and 6 go to 1 ^ 3 and 2 ^ 4,
 * bits 7 and 8 to 3 and 4: no conflicts (found by a search over such
 * folds; counted by tests/gpu/test_gpu_ntt_emu.cu). */
template <int UB>
FF_INLINE uint32_t ntt_slot(uint32_t a)
{
    if (UB == 3) return a ^ (((a >> 5) & 7u) << 2);
    return a ^ (((a >> 5) & 15u) << 1) ^ (((a >> 5) & 3u) << 3);
}

FF_INLINE void ntt_sm_read(uint32_t x[8], const uint32_t *sm, int tbits, uint32_t slot)
{
    NTT_SM_HOOK(slot, 0);
#pragma unroll
    for (int l = 0; l < 8; l++) x[l] = sm[((uint32_t)l << tbits) + slot];
}

FF_INLINE void ntt_sm_write(uint32_t *sm, int tbits, uint32_t slot, const uint32_t x[8])
{
    NTT_SM_HOOK(slot, 1);
#pragma unroll
    for (int l = 0; l < 8; l++) sm[((uint32_t)l << tbits) + slot] = x[l];
}

FF_INLINE void ntt_ldg(uint32_t x[8], const uint4 *p)
{
    uint4 v0 = NTT_LDG(p), v1 = NTT_LDG(p + 1);
    x[0] = v0.x; x[1] = v0.y; x[2] = v0.z; x[3] = v0.w;
    x[4] = v1.x; x[5] = v1.y; x[6] = v1.z; x[7] = v1.w;
}

/* The two factors of f(e) = lo[e mod 2^w] * hi[e >> w] (loads only, so a
 * loop can fetch them one element ahead). */
FF_INLINE void ntt_two_level_ld(uint32_t u[8], uint32_t v[8], const uint4 *lo, const uint4 *hi,
                                int w, uint32_t e)
{
    ntt_ldg(u, lo + 2 * (size_t)(e & ((1u << w) - 1)));
    ntt_ldg(v, hi + 2 * (size_t)(e >> w));
}

/* f = lo[e mod 2^w] * hi[e >> w]: one multiplication. */
FF_INLINE void ntt_two_level(uint32_t f[8], const uint4 *lo, const uint4 *hi, int w, uint32_t e)
{
    uint32_t u[8], v[8];
    ntt_two_level_ld(u, v, lo, hi, w, e);
    ff_mul<NttF>(f, u, v);
}

/* -p^-1 mod 2^256 (ff_shoup_m), for Shoup pairs formed on the device. */
struct NttShoupM {
    uint32_t m[8];
};

/* Entry i of an n-entry table, from two-level tables lo, hi: pass 1's
 * full table's w^i (the forward ones, pos_bits = 0), its positional
 * table's w^(lo ka), lo = i mod 2^pos_bits, ka = i >> pos_bits (pos_bits =
 * lo_bits: pass 1 stores output ka of column lo at i), or the coset
 * table's g^i (glo, ghi, pos_bits = 0). With m (NTT_TW_SHOUP) as the pair
 * (w, wq) of ff_mul_shoup: w the plain residue (the Montgomery form f
 * times 1 by ff_mul), wq = f m mod 2^256 (ff.cuh, ff_shoup_quot). The
 * device fill (ntt.cu) and the host emulation share it. */
FF_INLINE void ntt_full_entry(uint4 *full, const uint4 *lo, const uint4 *hi, int w, int pos_bits,
                              uint32_t i, const NttShoupM *m)
{
    uint32_t f[8], e = pos_bits ? (i & ((1u << pos_bits) - 1)) * (i >> pos_bits) : i;
    ntt_two_level(f, lo, hi, w, e);
    if (!m) {
        ff_store<NttF>(full + 2 * (size_t)i, f);
        return;
    }
    const uint32_t one[8] = {1, 0, 0, 0, 0, 0, 0, 0};
    uint32_t pw[8], wq[16];
    ff_mul<NttF>(pw, f, one);
    ff_prod_win<8, 0, 7, 0>(wq, f, m->m, nullptr);
    ff_store<NttF>(full + 4 * (size_t)i, pw);
    ff_store<NttF>(full + 4 * (size_t)i + 2, wq);
}

/* The index of pass 1's factor w^(+-e) in the full table: e = lo * t < n,
 * its negation mod n (n = 2^(lo_bits + k)) when neg is all ones. */
FF_INLINE size_t ntt_full_idx(const NttPass &p, uint32_t e)
{
    return ((e ^ p.neg) - p.neg) & ((1u << (p.lo_bits + p.k)) - 1);
}

/* ---------------------------------------------- the two multipliers -- */
/* The FP64 share (template parameter F64 of the phases and the kernel, 0 ..
 * 4): of every 4 multiplications, F64 go through ff64_mul (ff_fp64.cuh: the
 * partial products on the FP64 FMA pipe, which the integer NTT leaves idle)
 * and the rest through ff_mul (the IMAD pipe); both give the same bits, so
 * the share changes only which pipe does the work. Chosen by position, never
 * by data, so a warp never diverges on it:
 *  - a round's body (the 2^(UB-1) = 4 butterflies of one stage): butterfly i
 *    is on the FP64 pipe iff bit i of ntt_f64_mask<F64>, so every stage of
 *    every thread issues both kinds (each product still behind its own
 *    twiddle-1 branch, so one at a time: unbranched, these kernels spill
 *    250-400 bytes at the 128-register cap; ntt_stages);
 *  - the load-side coset shift and the store phase (one element per
 *    iteration, one or two multiplications each): element j's are on the
 *    FP64 pipe iff bit (j mod 4) of the mask.
 * The masks: 1 {1}, 2 {1, 2}, 3 {0, 2, 3}. In a last radix-8 round the
 * butterflies with a twiddle are i = 1, 2, 3 (stage 0) and 2, 3 (stage 1),
 * so these put 1, 3, 4 of its 5 multiplications on the FP64 pipe (20, 60,
 * 80%), the nearest to the nominal 25, 50, 75% that a fixed set reaches;
 * other rounds get nearly F64 / 4 (their few twiddle-1 skips fall more on
 * low i). Over a whole transform: 24, 52, 76% (docs/perf.md, "FP64 share").
 * Only the 8-element kernels (UB = 3) have FP64 instances: the 4-element
 * ones are at their 64-register cap. */
template <int F64>
FF_INLINE constexpr uint32_t ntt_f64_mask()
{
    static_assert(F64 >= 0 && F64 <= 4, "FP64 share in quarters");
    return F64 == 0 ? 0u : F64 == 1 ? 0x2u : F64 == 2 ? 0x6u : F64 == 3 ? 0xdu : 0xfu;
}

/* Which FP64 shares take the unbranched stages above the last round
 * (ntt_round_compute): the integer kernels; unbranched, the FP64 ones spill
 * (see above). A build define, to compare: share 2 fits in 128 registers
 * with 0-52 bytes of spills so (its last round keeps the branches: with
 * that round unrolled too, 260-368). */
#ifndef NTT_F64_UNBRANCHED
#define NTT_F64_UNBRANCHED(f64) ((f64) == 0)
#endif

/* r = a b (Montgomery) on the FP64 pipe (FP64 true) or the IMAD pipe. */
template <bool FP64>
FF_INLINE void ntt_mul(uint32_t r[8], const uint32_t a[8], const uint32_t b[8])
{
    if constexpr (FP64) ff64_mul<Ff64Of<NttF>::P>(r, a, b);
    else ff_mul<NttF>(r, a, b);
}

/* r = a b for element j of a thread's 2^UB in the coset and store phases
 * (j is the same in every lane: a uniform branch, none for F64 = 0 or 4). */
template <int F64>
FF_INLINE void ntt_mul_elem(int j, uint32_t r[8], const uint32_t a[8], const uint32_t b[8])
{
    constexpr uint32_t m = ntt_f64_mask<F64>();
    if constexpr (m == 0) ntt_mul<false>(r, a, b);
    else if constexpr (m == 0xf) ntt_mul<true>(r, a, b);
    else if ((m >> (j & 3)) & 1) ntt_mul<true>(r, a, b);
    else ntt_mul<false>(r, a, b);
}

/* The integer products by the rounds' twiddles and by pass 2's factors:
 * Shoup's multiplication (ff_mul_shoup: 186 IMAD issue slots a product
 * against ff_mul's 264) with the factors as pairs (w, wq) from inner_sh
 * and tw_dsh, or (NTT_SHOUP 0, NTT_SHOUP_TWD 0: to compare) Montgomery's
 * with inner and tw_d. The FP64 products stay Montgomery, and so do the
 * factors from the tables of 2^L entries (pass 1's full table, the coset
 * table) unless the domain holds them as pairs too (NTT_TW_SHOUP, twice
 * their bytes: one_sh, NTT_F_SH1). docs/perf.md, "Shoup's
 * multiplication", "The n-entry tables as Shoup pairs". */
#ifndef NTT_SHOUP
#define NTT_SHOUP 1
#endif
#ifndef NTT_SHOUP_TWD
#define NTT_SHOUP_TWD NTT_SHOUP
#endif

/* A butterfly's difference (x - y) w with Shoup's product: x - y + p
 * unreduced (ff_sub_lazy; ff_mul_shoup takes a < 2p), 16 ALU instructions
 * against ff_sub's 25. NTT_LAZY_SUB 0 keeps ff_sub, to compare. */
#ifndef NTT_LAZY_SUB
#define NTT_LAZY_SUB 1
#endif

/* Products of a stage in one basic block (ntt_stages): half the stage's. */
#ifndef NTT_STAGE_BLOCK
#define NTT_STAGE_BLOCK(nh) ((nh) / 2)
#endif

/* Entry m of a table of Shoup pairs. */
FF_INLINE void ntt_inner_pair_ld(uint32_t w[8], uint32_t wq[8], const uint4 *tab, size_t m)
{
    ntt_ldg(w, tab + 4 * m);
    ntt_ldg(wq, tab + 4 * m + 2);
}

/* Entry i of a table of one factor an element: the pair (u, v) = (w, wq)
 * where the table holds Shoup pairs (SH), else u = the Montgomery form. */
template <bool SH>
FF_INLINE void ntt_one_ld(uint32_t u[8], uint32_t v[8], const uint4 *tab, size_t i)
{
    if (SH) ntt_inner_pair_ld(u, v, tab, i);
    else ntt_ldg(u, tab + 2 * i);
}

/* The twiddle inner[m] for the product on pipe FP64: w, and wq for Shoup. */
template <bool FP64>
FF_INLINE void ntt_inner_ld(const NttPass &p, size_t m, uint32_t w[8], uint32_t wq[8])
{
    if constexpr (!FP64 && NTT_SHOUP) {
        ntt_inner_pair_ld(w, wq, p.inner_sh, m);
    } else {
        ntt_ldg(w, p.inner + 2 * m);
    }
}

/* d *= the twiddle that ntt_inner_ld<FP64> loaded. */
template <bool FP64>
FF_INLINE void ntt_inner_mul(uint32_t d[8], const uint32_t w[8], const uint32_t wq[8])
{
    if constexpr (!FP64 && NTT_SHOUP) ff_mul_shoup<NttF>(d, d, w, wq);
    else ntt_mul<FP64>(d, d, w);
}

/* DIF butterfly: (x, y) <- (x + y, (x - y) w). One multiplication. */
FF_INLINE void ntt_bfly(uint32_t x[8], uint32_t y[8], const uint32_t w[8])
{
    uint32_t s[8], d[8];
    ff_add<NttF>(s, x, y);
    ff_sub<NttF>(d, x, y);
    ff_mul<NttF>(y, d, w);
#pragma unroll
    for (int l = 0; l < 8; l++) x[l] = s[l];
}

/* ---------------------------------------------------------- phases -- */
/* Code size is what these are shaped by: a fully unrolled pass was 20,224
 * SASS instructions (316 KiB, 10x the L1 instruction cache) and stalled on
 * instruction fetch more than on anything else (docs/perf.md, "GPU NTT").
 * So every loop that multiplies is rolled (#pragma unroll 1) with a body of
 * at most 4 multiplications (the last round's 3 stages, 5 products, are
 * unrolled: ntt_stage_last), and each kernel (one per pass kind, flags as
 * template parameters) holds only its own phases: 2,528 .. 3,376
 * instructions, no spills, 15% faster at 2^27 (53.0 -> 44.8 ms on the
 * H200). Unrolling the store and coset loops by 2 (more ILP, 3,040 .. 4,336
 * instructions) measured the same, so they stay rolled. Loops that only
 * move data stay unrolled (more loads in flight, little code). The
 * unbranched stages and the unrolled last round (session 14) took the 8-
 * element kernels to 89-102 KB of code; unrolling the other 3-stage rounds
 * too (144-158 KB, session 16) was level (docs/perf.md). */

/* Pass flags (template parameter FL of the phases and the kernel). */
enum {
    NTT_F_PRE = 1,  /* load: x *= pre(pos) (coset forward, pass 1) */
    NTT_F_TW = 2,   /* store, COL: x *= w^(lo * t) (pass 1) */
    NTT_F_TWD = 4,  /* store, MID: x *= tw_d[xdig * t] (pass 2) */
    NTT_F_POST = 8, /* store: x *= post(pos) (coset inverse, pass 3) */
    NTT_F_TWF = 16, /* store, COL: x *= tw_full[+-lo * t] (pass 1, full tables) */
    NTT_F_TWP = 32, /* store, COL: x *= tw_pos[pos] (pass 1 forward, positional table) */
    NTT_F_PRE1 = 64,  /* load: x *= pre_one[pos] (coset forward, coset table) */
    NTT_F_POST1 = 128, /* store: x *= post_one[n - pos] (coset inverse, coset table) */
    NTT_F_SH1 = 256    /* with TWF, PRE1, POST1: their tables as Shoup pairs (one_sh) */
};

/* global -> shared memory. Thread tid of 2^(tbits-UB) moves elements
 * a = tid + j 2^(tbits-UB), j < 2^UB: 32 consecutive lanes take consecutive
 * groups (contiguous columns in COL). All loads are issued before the first
 * store to shared memory (nothing else is live yet). */
template <int KIND, int UB>
FF_INLINE void ntt_load_phase(const NttPass &p, const NttBlock &B, uint32_t tid,
                              const uint4 *data, uint32_t *sm)
{
    constexpr int NE = 1 << UB;
    const uint32_t nthr = 1u << (p.tbits - UB);
    uint32_t x[NE][8];
    bool act[NE];
#pragma unroll
    for (int j = 0; j < NE; j++) {
        uint32_t xd;
        uint32_t pos = ntt_pos<KIND>(p, B, tid + j * nthr, &act[j], &xd);
        if (act[j]) ff_load<NttF>(x[j], data + 2 * (size_t)pos);
    }
#pragma unroll
    for (int j = 0; j < NE; j++)
        if (act[j]) ntt_sm_write(sm, p.tbits, ntt_slot<UB>(tid + j * nthr), x[j]);
}

/* Coset shift of pass 1 (COL only), after the load phase, on the thread's
 * own slots (so no barrier in between): x *= g^pos, the factor formed from
 * the two-level table (2 multiplications per element) or, ONE, loaded from
 * the coset table (1; SH: as Shoup pairs). Rolled; the table entries of
 * element j + 1 are fetched before element j is multiplied. */
template <int UB, int F64, bool ONE, bool SH>
FF_INLINE void ntt_pre_phase(const NttPass &p, const NttBlock &B, uint32_t tid, uint32_t *sm)
{
    constexpr int NE = 1 << UB;
    const uint32_t nthr = 1u << (p.tbits - UB);
    uint32_t u[8], v[8];
    bool act;
    uint32_t xd, pos = ntt_pos<NTT_COL>(p, B, tid, &act, &xd);
    static_assert(!SH || (ONE && F64 == 0), "Shoup pairs: the coset table, integer kernels");
    if (ONE) ntt_one_ld<SH>(u, v, p.pre_one, pos);
    else ntt_two_level_ld(u, v, p.pre_lo, p.pre_hi, p.w, pos);
#pragma unroll 1
    for (int j = 0; j < NE; j++) {
        uint32_t a = tid + j * nthr, x[8], f[8], fq[8];
        if (ONE) {
#pragma unroll
            for (int l = 0; l < 8; l++) f[l] = u[l];
            if (SH) {
#pragma unroll
                for (int l = 0; l < 8; l++) fq[l] = v[l];
            }
        } else {
            ntt_mul_elem<F64>(j, f, u, v);
        }
        if (j < NE - 1) {
            uint32_t pn = ntt_pos<NTT_COL>(p, B, a + nthr, &act, &xd);
            if (ONE) ntt_one_ld<SH>(u, v, p.pre_one, pn);
            else ntt_two_level_ld(u, v, p.pre_lo, p.pre_hi, p.w, pn);
        }
        ntt_sm_read(x, sm, p.tbits, ntt_slot<UB>(a));
        if (SH) ff_mul_shoup<NttF>(x, x, f, fq);
        else ntt_mul_elem<F64>(j, x, x, f);
        ntt_sm_write(sm, p.tbits, ntt_slot<UB>(a), x);
    }
}

/* The end of a stage: the butterflies' outputs become the registers. */
template <int UB>
FF_INLINE void ntt_regs_set(NttRegs<UB> &R, const uint32_t y[1 << UB][8])
{
#pragma unroll
    for (int v = 0; v < (1 << UB); v++)
#pragma unroll
        for (int l = 0; l < 8; l++) R.x[v][l] = y[v][l];
}

/* A round's r stages on the thread's 2^UB elements (in registers). SKIP:
 * a butterfly whose twiddle index j is 0 (twiddle 1) branches around its
 * multiplication; otherwise every butterfly multiplies (by inner[0] = 1
 * where j = 0: the same result). */
template <int UB, int F64, bool SKIP>
FF_INLINE void ntt_stages(const NttPass &p, int r, int gamma, int eg, int gp, uint32_t tbase,
                          NttRegs<UB> &R)
{
    constexpr int NE = 1 << UB, NH = NE / 2;
#pragma unroll 1
    for (int s = 0; s < r; s++) {
        /* u bit UB - 1 - s: t bit beta = gamma + UB - 1 - s, twiddle
         * w_{2^(beta+1)}^j, j = t mod 2^beta = inner[j 2^(kt-1-beta)]. */
        const int beta = gamma + UB - 1 - s;
        const uint32_t bmask = (1u << beta) - 1;
        int sh[UB - 1]; /* v bit b (b < UB - 1) is u bit sh[b] = (b - s) mod UB */
#pragma unroll
        for (int b = 0; b < UB - 1; b++) sh[b] = (UB + b - s) % UB;
        uint32_t y[NE][8];
#pragma unroll
        for (int i = 0; i < NH; i++) {
            uint32_t u = 0;
#pragma unroll
            for (int b = 0; b < UB - 1; b++) u |= (((uint32_t)i >> b) & 1u) << sh[b];
            uint32_t j = (tbase + ((u >> eg) << gp)) & bmask;
            /* i is a constant once unrolled: each butterfly has one pipe */
            const bool on64 = (ntt_f64_mask<F64>() >> i) & 1;
            const size_t m = (size_t)j << (p.kt - 1 - beta);
            uint32_t w[8], wq[8], *d = y[2 * i + 1];
            if (on64) ntt_inner_ld<true>(p, m, w, wq);
            else ntt_inner_ld<false>(p, m, w, wq);
            /* Two products at a time: four in one block took ptxas past
             * the 128-register cap (8-200 bytes of spills, 2^27 forward
             * 41.26 ms); two fit without spills (40.67 ms). With Shoup's
             * products two spill 24-32 bytes, and one a block (fewer
             * spills) measured 0.6% slower (37.62 against 37.39 ms). */
            if (!SKIP && i > 0 && i % NTT_STAGE_BLOCK(NH) == 0)
                NTT_BLOCK_FENCE(p.nrounds > NTT_MAX_ROUNDS);
            ff_add<NttF>(y[2 * i], R.x[i], R.x[i + NH]);
            /* unreduced only where a Shoup product always follows */
            if (!SKIP && !on64 && NTT_SHOUP && NTT_LAZY_SUB)
                ff_sub_lazy<NttF>(d, R.x[i], R.x[i + NH]);
            else
                ff_sub<NttF>(d, R.x[i], R.x[i + NH]);
            if (!SKIP || j) {
                if (on64) ntt_inner_mul<true>(d, w, wq);
                else ntt_inner_mul<false>(d, w, wq);
            }
        }
        ntt_regs_set(R, y);
    }
}

/* Stage S of the last round (gamma = 0, r = UB), for the integer kernels:
 * t's bits below the stage bit are the thread's own u bits, so the twiddle
 * index j = u mod 2^beta is a constant once the loops are unrolled, and the
 * stage holds only its multiplications that are not by 1 (3, 2 and 0 of
 * the 4 for UB = 3), without branches, for the scheduler to interleave
 * across stages. Same result as ntt_stages. */
template <int UB, int S>
FF_INLINE void ntt_stage_last(const NttPass &p, NttRegs<UB> &R)
{
    constexpr int NE = 1 << UB, NH = NE / 2, beta = UB - 1 - S;
    uint32_t y[NE][8];
#pragma unroll
    for (int i = 0; i < NH; i++) {
        uint32_t u = 0;
#pragma unroll
        for (int b = 0; b < UB - 1; b++) u |= (((uint32_t)i >> b) & 1u) << ((UB + b - S) % UB);
        const uint32_t j = u & ((1u << beta) - 1);
        uint32_t *d = y[2 * i + 1];
        ff_add<NttF>(y[2 * i], R.x[i], R.x[i + NH]);
        if (j && NTT_SHOUP && NTT_LAZY_SUB) ff_sub_lazy<NttF>(d, R.x[i], R.x[i + NH]);
        else ff_sub<NttF>(d, R.x[i], R.x[i + NH]);
        if (j) {
            uint32_t w[8], wq[8];
            ntt_inner_ld<false>(p, (size_t)j << (p.kt - 1 - beta), w, wq);
            ntt_inner_mul<false>(d, w, wq);
        }
    }
    ntt_regs_set(R, y);
}

/* Round q: read the thread's 2^UB elements and do the round's stages.
 *
 * A stage (ntt_stages, a rolled loop; ntt_stage_last, unrolled) is the
 * 2^(UB-1) butterflies (i, i + 2^(UB-1)) with the outputs of butterfly i
 * placed at 2i and 2i+1 (a Stockham step in registers): after s stages,
 * register v holds the element u whose bit (b - s) mod UB is bit b of v, so
 * the next stage's pairs are again (i, i + 2^(UB-1)), on u bit UB - 1 - s.
 * Register indices stay compile-time constants; the round's end maps v back
 * to u when it writes. */
template <int KIND, int UB, int F64>
FF_INLINE void ntt_round_compute(const NttPass &p, int q, const NttBlock &B, uint32_t tid,
                                 const uint32_t *sm, NttRegs<UB> &R)
{
    constexpr int NE = 1 << UB;
    static_assert(F64 == 0 || UB == 3, "FP64 shares: 8-element kernels only");
    const int r = p.rnd[q].r, gamma = p.rnd[q].gamma;
    const int eg = gamma < 0 ? -gamma : 0;  /* low u bits that are group bits */
    const int gp = gamma < 0 ? 0 : gamma;   /* t bit of the first u bit above them */
    const int split = p.gb + gp - eg;
    /* Thread bits fill the tile address bits outside the thread's UB (lowest
     * first, so lanes vary the low address bits). */
    R.abase = ((tid & ((1u << split) - 1)) << eg) | ((tid >> split) << (p.gb + gp + UB - eg));
    R.active = true;
    /* The absent second square of a diagonal MID block: skipped with 8
     * elements per thread; with 4, transformed too (garbage that the store
     * phase never stores: its lanes share warps with active ones, so it
     * costs no time), since the test cost 64 bytes of spills at the 64
     * register cap. */
    if (KIND == NTT_MID && UB == 3) {
        uint32_t half = (R.abase >> (p.gb - 1)) & 1u;
        R.active = half == 0 || B.offdiag;
    }
    if (!R.active) return;
    const uint32_t gmask = (1u << eg) - 1;
    const int ushift = p.gb + gp;
#pragma unroll
    for (int u = 0; u < NE; u++) {
        uint32_t a = R.abase | ((uint32_t)u & gmask) | (((uint32_t)u >> eg) << ushift);
        ntt_sm_read(R.x[u], sm, p.tbits, ntt_slot<UB>(a));
    }
    const uint32_t tbase = R.abase >> p.gb;
    /* Above the last round (gamma > 0) the twiddle index j takes thread
     * bits, so the lanes of a warp differ and j = 0 for all 32 of them
     * (the only case a branch could skip) almost never happens; there the
     * stage multiplies by inner[0] = 1 instead of branching, which keeps a
     * stage's 4 multiplications in one basic block for the scheduler to
     * interleave (docs/perf.md, "Where the NTT's time goes"). In the last
     * round j is the same in every lane and 7 of its 12 twiddles are 1:
     * those stay skipped. */
    if constexpr (UB == 3 && NTT_F64_UNBRANCHED(F64)) {
        if (gamma == 0 && F64 == 0) {
            ntt_stage_last<UB, 0>(p, R);
            ntt_stage_last<UB, 1>(p, R);
            ntt_stage_last<UB, 2>(p, R);
            return;
        }
        if (gamma > 0) {
            ntt_stages<UB, F64, false>(p, r, gamma, eg, gp, tbase, R);
            return;
        }
    }
    ntt_stages<UB, F64, true>(p, r, gamma, eg, gp, tbase, R);
}

/* Round q: write the elements back (the last round: to their output slots,
 * which other threads may still be reading before a barrier). After r
 * stages register v holds u = v with its UB bits rotated by r. */
template <int KIND, int UB>
FF_INLINE void ntt_round_write(const NttPass &p, int q, const NttBlock &B, const NttRegs<UB> &R,
                               uint32_t *sm)
{
    constexpr int NE = 1 << UB;
    if (!R.active) return;
    const int r = p.rnd[q].r, gamma = p.rnd[q].gamma;
    const int eg = gamma < 0 ? -gamma : 0;
    const int gp = gamma < 0 ? 0 : gamma;
    const uint32_t gmask = (1u << eg) - 1;
    const int ushift = p.gb + gp;
    const bool last = q == p.nrounds - 1;
    const int rs = r % UB; /* v bit b is u bit (b - r) mod UB */
#pragma unroll
    for (int v = 0; v < NE; v++) {
        uint32_t u = (((uint32_t)v << (UB - rs)) | ((uint32_t)v >> rs)) & (NE - 1u);
        uint32_t a = R.abase | (u & gmask) | ((u >> eg) << ushift);
        if (last) a = ntt_out_addr<KIND>(p, B, a);
        ntt_sm_write(sm, p.tbits, ntt_slot<UB>(a), R.x[v]);
    }
}

/* shared memory -> (twiddle / scaling) -> global, same element order as the
 * load phase. Without multiplications: unrolled. With them: rolled, the
 * table entries of element j + 1 fetched before element j is multiplied.
 * The one-table factors (TWD, TWF, TWP, POST1) are a load; the others are
 * formed from two tables, one more multiplication. */
template <int KIND, int FL, int UB, int F64>
FF_INLINE void ntt_store_phase(const NttPass &p, const NttBlock &B, uint32_t tid, uint4 *data,
                               const uint32_t *sm)
{
    constexpr int NE = 1 << UB;
    const uint32_t nthr = 1u << (p.tbits - UB);
    constexpr int ONE_FL = NTT_F_TWD | NTT_F_TWF | NTT_F_TWP | NTT_F_POST1;
    constexpr bool MUL = (FL & (ONE_FL | NTT_F_TW | NTT_F_POST)) != 0;
    /* POST1's index n - pos (COL: n = 2^(lo_bits + k)) */
    const size_t n = (size_t)1 << (p.lo_bits + p.k);
    constexpr bool ONE = (FL & ONE_FL) != 0;
    /* the factors as Shoup pairs, the second of each pair in v: pass 2's,
     * and the n-entry tables' with NTT_TW_SHOUP (SH1) */
    constexpr bool SH = F64 == 0 && ((NTT_SHOUP_TWD && (FL & NTT_F_TWD)) ||
                                     ((FL & NTT_F_SH1) && (FL & (NTT_F_TWF | NTT_F_POST1))));
    if (!MUL) {
#pragma unroll
        for (int j = 0; j < NE; j++) {
            uint32_t a = tid + j * nthr, xd, x[8];
            bool act;
            uint32_t pos = ntt_pos<KIND>(p, B, a, &act, &xd);
            if (!act) continue;
            ntt_sm_read(x, sm, p.tbits, ntt_slot<UB>(a));
            ff_store<NttF>(data + 2 * (size_t)pos, x);
        }
        return;
    }
    static_assert(((FL & NTT_F_TW) != 0) + ((FL & NTT_F_TWF) != 0) + ((FL & NTT_F_TWP) != 0) +
                      ((FL & NTT_F_TWD) != 0) + ((FL & NTT_F_POST) != 0) +
                      ((FL & NTT_F_POST1) != 0) <= 1,
                  "one store factor per pass");
    const uint4 *lo = FL & NTT_F_TW ? p.tw_lo : p.post_lo;
    const uint4 *hi = FL & NTT_F_TW ? p.tw_hi : p.post_hi;
    const uint32_t gmask = (1u << p.gb) - 1;
    /* The factor's table index of element a at pos: pass 1 lo * t (lo the
     * column, t = ka) or, positional, pos; pass 2 xdig * t (t = kb); pass 3
     * (coset) pos, or n - pos in the coset table. */
    uint32_t u[8], v[8];
    /* element a's factor into u (and v) */
    auto factor_ld = [&](uint32_t a) {
        bool act;
        uint32_t xd, pos = ntt_pos<KIND>(p, B, a, &act, &xd), t = a >> p.gb;
        if (FL & NTT_F_TWD) ntt_one_ld<SH>(u, v, SH ? p.tw_dsh : p.tw_d, (size_t)(xd * t));
        else if (FL & NTT_F_TWF)
            ntt_one_ld<SH>(u, v, p.tw_full, ntt_full_idx(p, (B.lo_base + (a & gmask)) * t));
        else if (FL & NTT_F_TWP) ntt_ldg(u, p.tw_pos + 2 * (size_t)pos);
        else if (FL & NTT_F_POST1) ntt_one_ld<SH>(u, v, p.post_one, n - pos);
        else ntt_two_level_ld(u, v, lo, hi, p.w,
                              FL & NTT_F_TW ? (B.lo_base + (a & gmask)) * t : pos);
    };
    factor_ld(tid);
#pragma unroll 1
    for (int j = 0; j < NE; j++) {
        uint32_t a = tid + j * nthr, xd, x[8], f[8], fq[8];
        bool act;
        uint32_t pos = ntt_pos<KIND>(p, B, a, &act, &xd);
        if (ONE) {
#pragma unroll
            for (int l = 0; l < 8; l++) f[l] = u[l];
            if (SH) {
#pragma unroll
                for (int l = 0; l < 8; l++) fq[l] = v[l];
            }
        } else {
            ntt_mul_elem<F64>(j, f, u, v);
        }
        if (j < NE - 1) factor_ld(a + nthr);
        if (!act) continue;
        ntt_sm_read(x, sm, p.tbits, ntt_slot<UB>(a));
        if (SH) ff_mul_shoup<NttF>(x, x, f, fq);
        else ntt_mul_elem<F64>(j, x, x, f);
        ff_store<NttF>(data + 2 * (size_t)pos, x);
    }
}

/* Transforms of n <= 4 points (L = 1, 2), one thread: radix-2 DIF, then the
 * bit reversal, pre/post scaling as in the passes, and post * scale[0] if
 * scale is set (1/n of the inverse). */
FF_INLINE void ntt_tiny(uint4 *data, int L, const uint4 *inner, int kt, int w,
                        const uint4 *pre_lo, const uint4 *pre_hi, const uint4 *post_lo,
                        const uint4 *post_hi, const uint4 *scale)
{
    const int n = 1 << L;
    uint32_t x[4][8], f[8];
    for (int i = 0; i < n; i++) {
        ff_load<NttF>(x[i], data + 2 * i);
        if (pre_lo) {
            ntt_two_level(f, pre_lo, pre_hi, w, (uint32_t)i);
            ff_mul<NttF>(x[i], x[i], f);
        }
    }
    for (int lh = L - 1; lh >= 0; lh--) {
        int h = 1 << lh;
        for (int g = 0; g < n; g += 2 * h)
            for (int j = 0; j < h; j++) {
                ntt_ldg(f, inner + 2 * ((size_t)j << (kt - 1 - lh)));
                ntt_bfly(x[g + j], x[g + j + h], f);
            }
    }
    for (int i = 0; i < n; i++) {
        uint32_t y[8];
        int src = (int)ntt_brev((uint32_t)i, L);
        for (int l = 0; l < 8; l++) y[l] = x[src][l];
        if (post_lo) {
            ntt_two_level(f, post_lo, post_hi, w, (uint32_t)i);
            ff_mul<NttF>(y, y, f);
        }
        if (scale) {
            ntt_ldg(f, scale);
            ff_mul<NttF>(y, y, f);
        }
        ff_store<NttF>(data + 2 * i, y);
    }
}

#endif /* CUZK_GPU_NTT_CUH */
