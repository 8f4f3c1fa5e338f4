/* cuzk — G1 and G2 Pippenger MSM on the GPU: the per-thread work of each
 * stage, as templates over the coordinate field (ec.cuh: EcFp, EcFp2).
 *
 * msm.cu wraps each function here in a kernel (thread index -> one call) and
 * drives the stages; keeping the bodies apart lets them be compiled for the
 * host too (CUZK_FF_HOST_EMULATION, see ff.cuh) and checked there against
 * the CPU MSM with a host loop in place of each launch.
 *
 * The computation, for n points P_i and scalars k_i (canonical, any 256-bit
 * value, taken mod r), window size c, W = ceil(255 / c) windows and
 * nb = 2^(c-1) buckets per window (the CPU's layout, src/msm/msm_internal.h):
 *
 *  1. digits    k_i mod r is folded to |k_i| <= (r-1)/2 (negating P_i) and
 *               cut into W signed (Booth) digits d in [-2^(c-1), 2^(c-1)].
 *               Entry (w, i) gets key w nb + |d| - 1 and value
 *               i | sign << 31; a zero digit, or a point at infinity, gets
 *               the sentinel key W nb, which sorts after every bucket.
 *  2. sort      the W n (key, value) pairs by key (CUB radix sort).
 *  3. accumulate  the sorted array is cut into chunks of MSM_CHUNK entries,
 *               one thread each, so every thread does the same number of
 *               mixed additions however uneven the buckets are. A thread sums
 *               each run of equal keys in its chunk into an XYZZ point; a run
 *               that is a whole bucket goes straight to the bucket array, a
 *               run cut by the chunk's start or end goes to one of the
 *               chunk's two piece slots.
 *  4. combine   for each bucket cut by chunk boundaries, the thread of the
 *               chunk where it starts adds up its pieces into the bucket.
 *  5. reduce    per window, sum_j j B_j: level 1, a thread per segment of
 *               s1 buckets (running sums); level 2, a tree over the
 *               segments, a launch per level (see msm_reduce2_*).
 *  6. the host adds the W window sums with c doublings between them.
 *
 * Precomputed plans (CUZK_GPU_MSM_PRECOMPUTE) also hold the table
 * T[w][i] = [2^(c w)] P_i for every window w, at w N + i (N the plan's size;
 * T[0] = the points), made once by msm_table_thread. As
 * sum_w d_w 2^(c w) P_i = sum_w d_w T[w][i], every window's digit can index
 * the same nb buckets: entry (w, i) gets key |d| - 1 and value
 * (w N + i) | sign << 31, the sentinel is nb (msm_geom: wkey = 0,
 * wval = N), and there is one window's buckets to reduce, with no doublings
 * between windows. Stages 2-4 are unchanged. The reduction (5) cuts the nb
 * buckets into V virtual windows of nbv = nb / V buckets, reduced as the
 * plain windows are (as many threads); with S_v the weighted sum of virtual
 * window v and U_v the sum of its buckets (the root of its level-2 tree):
 *   S = sum_{j <= nb} j B_j = sum_v S_v + nbv sum_v v U_v,
 * which the host forms (6).
 */
#ifndef CUZK_GPU_MSM_CUH
#define CUZK_GPU_MSM_CUH

#include <stddef.h>
#include <stdint.h>

#include "gpu/ec.cuh"

/* Entries per accumulation thread. The work per thread is MSM_CHUNK mixed
 * additions; pieces cost one XYZZ addition per chunk boundary inside a
 * bucket (2 stores, then 1 addition in combine), i.e. < 1% at 256. */
#define MSM_CHUNK 256u

#define MSM_NO_KEY 0xffffffffu

/* Everything the stages need to know about the shape of one MSM. */
struct msm_geom {
    unsigned c;         /* window bits */
    unsigned nwin;      /* windows, ceil(255 / c) */
    uint32_t nb;        /* buckets per window, 2^(c-1) */
    uint32_t sentinel;  /* nwin * nb: key of zero digits */
    unsigned keybits;   /* bits of the largest key (the sentinel) */
    uint32_t s1, t1;    /* level 1: buckets per segment, segments per window */
    unsigned lg_s1, lg_t1;
    /* Entry (w, i) gets key w wkey + |d| - 1 and value w wval + i (with the
     * sign bit): nb and 0, or for a precomputed table 0 and the plan's size. */
    uint32_t wkey, wval;
};

/* ---------------------------------------------------------- geometry --
 * Host functions (msm.cu, and the host emulation test). */

static inline unsigned msm_lg2(size_t x)
{
    unsigned l = 0;
    while (((size_t)1 << l) < x) l++;
    return l;
}

/* Level 1's segments, from nwin and nb. Its thread runs 2 s1 dependent
 * additions, a tree level (level 2) 2, so a short segment shortens the
 * reduction's serial tail but adds tree work (~3 additions a segment
 * against 2 a bucket): segments are as short as leave MSM_RED_FILL of them
 * in all (a thread each: ~1000 a SM of the H200) or fewer, and at most 16
 * buckets unless a window has over 2^17 (then 2^13 segments a window).
 * A lone chain's G1 addition takes ~23 us on the H200 (docs/perf.md, "The
 * small MSMs' tails"), so at small sizes the chains, not the additions'
 * count, are the time. */
#define MSM_RED_FILL ((size_t)1 << 17)

/* Segments of s1 buckets (a power of two, <= nb). */
static inline void msm_geom_set_s1(msm_geom *g, uint32_t s1)
{
    g->s1 = s1;
    g->t1 = g->nb / s1;
    g->lg_s1 = msm_lg2(g->s1);
    g->lg_t1 = msm_lg2(g->t1);
}

static inline void msm_geom_red(msm_geom *g)
{
    uint32_t s1 = g->nb >> 13;
    if (s1 < 16) {
        uint32_t mx = g->nb < 16 ? g->nb : 16;
        for (s1 = 1; s1 < mx && (size_t)g->nwin * (g->nb / s1) > MSM_RED_FILL;) s1 *= 2;
    }
    msm_geom_set_s1(g, s1);
}

/* A precomputed plan's windows: digits index one set of buckets. */
static inline bool msm_geom_pre(const msm_geom &g) { return g.wkey == 0; }

static inline void msm_geom_init(msm_geom *g, unsigned c)
{
    g->c = c;
    g->nwin = (255 + c - 1) / c;
    g->nb = 1u << (c - 1);
    g->sentinel = g->nwin * g->nb;
    g->keybits = msm_lg2((size_t)g->sentinel + 1);
    msm_geom_red(g);
    g->wkey = g->nb;
    g->wval = 0;
}

/* Virtual windows of a precomputed plan's reduction: at most 2^MSM_PRE_VBITS
 * buckets each, so each has the plain reduction's shape at c = 18 (2^13
 * segments of 16 buckets), and the
 * 2^21 buckets of c = 22 make 16 of them: 2^17 level-1 threads, as the
 * plain reduction of 12 windows has ~2^17. Not yet measured. */
#define MSM_PRE_VBITS 17u

/* A precomputed plan of N points, window size c: g for the digits, the sort
 * and the accumulation (one set of nb buckets), rg for the reduction (the
 * same buckets as rg.nwin virtual windows of at most 2^vbits). */
static inline void msm_geom_init_pre(msm_geom *g, msm_geom *rg, unsigned c, size_t N,
                                     unsigned vbits)
{
    msm_geom_init(g, c);
    g->sentinel = g->nb;
    g->keybits = msm_lg2((size_t)g->nb + 1);
    g->wkey = 0;
    g->wval = (uint32_t)N;
    unsigned cv = c - 1 > vbits ? vbits + 1 : c;
    msm_geom_init(rg, cv);
    rg->nwin = 1u << (c - cv);
    msm_geom_red(rg);
    rg->sentinel = g->sentinel;
    rg->keybits = g->keybits;
}

/* ------------------------------------------------------------ 1. digits -- */

/* (r - 1) / 2 in 32-bit limbs (MSM_R_HALF of src/msm). */
static FF_INLINE constexpr uint32_t msm_rhalf(int i)
{
    return i == 0 ? 0x80000000u : i == 1 ? 0x7fffffffu : i == 2 ? 0x7fff2dffu
         : i == 3 ? 0xa9ded201u : i == 4 ? 0x04d0ec02u : i == 5 ? 0x199cec04u
         : i == 6 ? 0x94cebea4u : 0x39f6d3a9u;
}

/* k[idx] for a run-time idx, 0 from 8 on, without an indexed (local-memory)
 * access. */
FF_INLINE uint32_t msm_limb(const uint32_t k[8], unsigned idx)
{
    uint32_t r = 0;
#pragma unroll
    for (unsigned j = 0; j < 8; j++) r = j == idx ? k[j] : r;
    return r;
}

/* len <= 25 bits of k from bit pos; bits from 256 on read as zero. */
FF_INLINE uint32_t msm_bits(const uint32_t k[8], unsigned pos, unsigned len)
{
    if (pos >= 256) return 0;
    unsigned limb = pos >> 5, sh = pos & 31;
    uint64_t x = ((uint64_t)msm_limb(k, limb + 1) << 32 | msm_limb(k, limb)) >> sh;
    return (uint32_t)x & ((1u << len) - 1);
}

/* k = k - r if k >= r. */
FF_INLINE void msm_sub_r_if_ge(uint32_t k[8])
{
    uint32_t d[8];
    d[0] = ff_sub_cc(k[0], ff_fr_imm(0));
#pragma unroll
    for (int j = 1; j < 8; j++) d[j] = ff_subc_cc(k[j], ff_fr_imm(j));
    uint32_t borrow = ff_subc(0, 0);
#pragma unroll
    for (int j = 0; j < 8; j++) k[j] = borrow ? k[j] : d[j];
}

/* Scalar (a, b) of point i (skip: at infinity) -> its (key, value) entries
 * of windows w0 <= w < w1 at keys/vals[(w - w0) n + slot]: slot = i, or a
 * compacted sparse MSM's. */
FF_INLINE void msm_digits_of(const msm_geom &g, uint4 a, uint4 b, bool skip, uint32_t i,
                             uint32_t n, uint32_t slot, unsigned w0, unsigned w1,
                             uint32_t *keys, uint32_t *vals)
{
    uint32_t k[8];
    k[0] = a.x; k[1] = a.y; k[2] = a.z; k[3] = a.w;
    k[4] = b.x; k[5] = b.y; k[6] = b.z; k[7] = b.w;
    /* 2^256 < 3r: two conditional subtractions reduce any 256-bit value. */
    msm_sub_r_if_ge(k);
    msm_sub_r_if_ge(k);
    /* Fold: k > (r-1)/2 becomes r - k, and the point is negated. */
    uint32_t t[8];
    (void)ff_sub_cc(msm_rhalf(0), k[0]);
#pragma unroll
    for (int j = 1; j < 8; j++) (void)ff_subc_cc(msm_rhalf(j), k[j]);
    uint32_t neg = ff_subc(0, 0) & 1; /* borrow: k > (r-1)/2 */
    if (neg) {
        t[0] = ff_sub_cc(ff_fr_imm(0), k[0]);
#pragma unroll
        for (int j = 1; j < 8; j++) t[j] = ff_subc_cc(ff_fr_imm(j), k[j]);
#pragma unroll
        for (int j = 0; j < 8; j++) k[j] = t[j];
    }
    unsigned c = g.c;
    /* Window w: d = (bits [wc, wc + c)) + (bit wc - 1) - 2^c (bit wc + c - 1),
     * as msm_digit in src/msm/msm_internal.h. */
#pragma unroll 1
    for (unsigned w = w0; w < w1; w++) {
        unsigned lo = w * c;
        uint32_t v = lo ? msm_bits(k, lo - 1, c + 1) : msm_bits(k, 0, c) << 1;
        uint32_t mid = v >> 1;
        int32_t d = (int32_t)(mid + (v & 1)) - (int32_t)((mid >> (c - 1)) << c);
        uint32_t key = g.sentinel, val = i;
        if (d != 0 && !skip) {
            uint32_t mag = d < 0 ? (uint32_t)-d : (uint32_t)d;
            key = w * g.wkey + mag - 1;
            val = (w * g.wval + i) | (((uint32_t)(d < 0) ^ neg) << 31);
        }
        keys[(size_t)(w - w0) * n + slot] = key;
        vals[(size_t)(w - w0) * n + slot] = val;
    }
}

/* Scalar i -> its W (key, value) entries at keys/vals[w n + i]. */
FF_INLINE void msm_digits_thread(const msm_geom &g, const uint4 *scalars, const uint8_t *inf,
                                 uint32_t n, uint32_t *keys, uint32_t *vals, uint32_t i)
{
    msm_digits_of(g, scalars[2 * (size_t)i], scalars[2 * (size_t)i + 1], inf[i] != 0, i, n, i, 0,
                  g.nwin, keys, vals);
}

/* -------------------------------------------------------- 3. accumulate -- */

struct msm_acc_args {
    const uint32_t *keys, *vals; /* sorted */
    size_t m;                    /* entries: nwin * n */
    uint32_t sentinel;
    const uint4 *points;         /* affine, ec_aff<F>::U4 uint4 each */
    uint4 *buckets;              /* XYZZ, ec_xyzz<F>::U4 uint4 each, indexed by key */
    uint4 *pieces;               /* XYZZ, 2 per chunk */
    uint32_t *spare_keys;        /* batch-affine: free buffers of m + MSM_AFF_STEP_PAD */
    uint32_t *spare_vals;        /* entries for step-major copies, or NULL for none */
};

/* Where a finished run goes: the bucket when it holds the whole bucket; else
 * slot 0 of the chunk (the run continues from the previous chunk) or slot 1
 * (it starts in this chunk and continues into the next). */
template <class F>
FF_INLINE void msm_flush(const msm_acc_args &a, size_t t, uint32_t key, const ec_xyzz<F> &acc,
                         bool before, bool after)
{
    constexpr int X = ec_xyzz<F>::U4;
    uint4 *dst;
    if (!before && !after) dst = a.buckets + (size_t)key * X;
    else dst = a.pieces + (2 * t + (before ? 0 : 1)) * X;
    ec_store_xyzz<F>(dst, acc);
}

/* Chunk t: entries [t MSM_CHUNK, (t + 1) MSM_CHUNK) of the sorted array. */
template <class F>
FF_INLINE void msm_accumulate_thread(const msm_acc_args &a, size_t t)
{
    size_t cs = t * MSM_CHUNK;
    if (cs >= a.m) return;
    size_t ce = cs + MSM_CHUNK < a.m ? cs + MSM_CHUNK : a.m;
    uint32_t prev = cs ? a.keys[cs - 1] : MSM_NO_KEY;
    uint32_t cur = MSM_NO_KEY;
    size_t run_start = cs, i;
    ec_xyzz<F> acc;
    ec_set_inf<F>(acc);
    for (i = cs; i < ce; i++) {
        uint32_t k = a.keys[i];
        if (k == a.sentinel) break; /* zero digits: all from here on */
        uint32_t v = a.vals[i];
        if (k != cur) {
            if (cur != MSM_NO_KEY)
                msm_flush<F>(a, t, cur, acc, run_start == cs && prev == cur, false);
            cur = k;
            run_start = i;
            ec_set_inf<F>(acc);
        }
        ec_aff<F> p;
        ec_load_aff<F>(p, a.points + (size_t)(v & 0x7fffffffu) * ec_aff<F>::U4);
        if (v >> 31) ec_aff_neg<F>(p);
        ec_madd<F>(acc, p);
    }
    if (cur != MSM_NO_KEY) {
        bool after = i == ce && ce < a.m && a.keys[ce] == cur;
        msm_flush<F>(a, t, cur, acc, run_start == cs && prev == cur, after);
    }
}

/* ----------------------------------------------------------- 4. combine -- */

/* If chunk t's last run is the start of a bucket that continues into later
 * chunks, adds the bucket's pieces (slot 1 here, slot 0 of each later chunk
 * it reaches) and stores the bucket. */
template <class F>
FF_INLINE void msm_combine_thread(const msm_acc_args &a, size_t t)
{
    constexpr int X = ec_xyzz<F>::U4;
    size_t cs = t * MSM_CHUNK;
    if (cs >= a.m) return;
    size_t ce = cs + MSM_CHUNK;
    if (ce >= a.m) return;
    uint32_t k = a.keys[ce - 1];
    if (k == a.sentinel || a.keys[ce] != k) return;
    if (a.keys[cs] == k && cs > 0 && a.keys[cs - 1] == k) return; /* not its start */
    ec_xyzz<F> acc, p;
    ec_load_xyzz<F>(acc, a.pieces + (2 * t + 1) * X);
    for (size_t u = t + 1;; u++) {
        ec_load_xyzz<F>(p, a.pieces + (2 * u) * X);
        ec_add<F>(acc, p);
        size_t ue = (u + 1) * MSM_CHUNK;
        if (ue >= a.m || a.keys[ue] != k) break;
    }
    ec_store_xyzz<F>(a.buckets + (size_t)k * X, acc);
}

/* ------------------------------------------------------------ 5. reduce --
 *
 * Window w has buckets B_j, j = 1 .. nb (bucket j at index w nb + j - 1),
 * and needs S = sum_j j B_j. Level 1: segment q (j in q s1 + 1 .. q s1 + s1)
 * gives, by a running sum from the top (2 additions per bucket),
 *   tot_q = sum_{u < s1} (u + 1) B_{q s1 + u + 1},   sum_q = sum_u B_...,
 * and S = sum_q tot_q + s1 sum_q q sum_q.
 * Level 2 is a tree over the t1 segments (a power of two), a launch per
 * level. A node covering segments [a, a + H) holds
 *   V = sum tot_q,  R = sum (q - a) sum_q,  D = H sum sum_q,  U = sum sum_q;
 * a segment is the node (tot_q, 0, sum_q, sum_q), and merging [a, a + h)
 * and [a + h, a + 2h) gives
 *   V = V_L + V_R,  R = R_L + R_R + D_R,  D = 2 (D_L + D_R),  U = U_L + U_R
 * (D_R = h U_R is the shift of the right half's weights). Each of the four
 * is its own warp's work, so a level's serial tail is two operations (R's
 * two additions; D's addition and doubling), 2 lg t1 in all, where a
 * running sum over the segments would take 2 t1 and a tree of (V, R, U)
 * alone lg h doublings at span h. The root gives S = V + s1 R, and U, the
 * window's bucket sum (a precomputed plan's host needs it: msm.cuh's
 * header).
 *
 * Layout: seg holds the segments (tot_q, sum_q at 2g, 2g + 1, g = w t1 + q);
 * level l >= 1 holds t1 >> l nodes a window, node (w, i) at 4 (w (t1 >> l)
 * + i): V, R, D, U. The levels go seg -> tree -> seg -> ..., both of
 * 2 nwin t1 points. */

/* Level 1, thread g = w t1 + q. seg gets tot_q, sum_q at 2g, 2g + 1. */
template <class F>
FF_INLINE void msm_reduce1_thread(const msm_geom &gm, const uint4 *buckets, uint4 *seg, size_t g)
{
    constexpr int X = ec_xyzz<F>::U4;
    size_t w = g / gm.t1, q = g % gm.t1;
    const uint4 *bk = buckets + (w * gm.nb + q * gm.s1) * X;
    ec_xyzz<F> run, tot, b;
    ec_set_inf<F>(run);
    ec_set_inf<F>(tot);
#pragma unroll 1
    for (int u = (int)gm.s1 - 1; u >= 0; u--) {
        if (!ec_load_is_inf<F>(bk + (size_t)u * X)) {
            ec_load_xyzz<F>(b, bk + (size_t)u * X);
            ec_add<F>(run, b);
        }
        ec_add<F>(tot, run);
    }
    ec_store_xyzz<F>(seg + 2 * g * X, tot);
    ec_store_xyzz<F>(seg + (2 * g + 1) * X, run);
}

enum { MSM_NODE_V, MSM_NODE_R, MSM_NODE_D, MSM_NODE_U };

/* Component `comp` of node `node` (w (t1 >> l) + i) at level l, or (l = 0)
 * of segment `node`; NULL for a segment's R (zero). */
template <class F>
FF_INLINE const uint4 *msm_node(const uint4 *buf, unsigned l, size_t node, unsigned comp)
{
    constexpr int X = ec_xyzz<F>::U4;
    if (l) return buf + (4 * node + comp) * X;
    if (comp == MSM_NODE_R) return nullptr;
    return buf + (2 * node + (comp != MSM_NODE_V)) * X;
}

/* The threads of the step from level l to l + 1: a warp's 32 nodes take
 * four warps, one per component, so that a warp runs one path. */
static inline size_t msm_reduce2_threads(const msm_geom &gm, unsigned l)
{
    size_t nodes = (size_t)gm.nwin * (gm.t1 >> (l + 1));
    return (nodes + 31) / 32 * 128;
}

/* Level l -> l + 1, thread j: one component of one node of `out`. */
template <class F>
FF_INLINE void msm_reduce2_thread(const msm_geom &gm, const uint4 *in, uint4 *out, unsigned l,
                                  size_t j)
{
    constexpr int X = ec_xyzz<F>::U4;
    size_t node = (j >> 7) * 32 + (j & 31);
    unsigned comp = (unsigned)(j >> 5) & 3;
    if (node >= (size_t)gm.nwin * (gm.t1 >> (l + 1))) return;
    size_t left = 2 * node; /* the same window: t1 >> l is even */
    ec_xyzz<F> x, y;
    const uint4 *pl = msm_node<F>(in, l, left, comp), *pr = msm_node<F>(in, l, left + 1, comp);
    if (pl) {
        ec_load_xyzz<F>(x, pl);
        ec_load_xyzz<F>(y, pr);
        ec_add<F>(x, y);
    } else {
        ec_set_inf<F>(x); /* a segment's R_L + R_R */
    }
    if (comp == MSM_NODE_R) {
        ec_load_xyzz<F>(y, msm_node<F>(in, l, left + 1, MSM_NODE_D));
        ec_add<F>(x, y);
    } else if (comp == MSM_NODE_D) {
        ec_dbl<F>(x);
    }
    ec_store_xyzz<F>(out + (4 * node + comp) * X, x);
}

/* The last step, thread w: from the root at level lg t1 in buf,
 * S = V + s1 R into win[w] and U into win[nwin + w]. */
template <class F>
FF_INLINE void msm_reduce2_finish(const msm_geom &gm, const uint4 *buf, uint4 *win, size_t w)
{
    constexpr int X = ec_xyzz<F>::U4;
    unsigned l = gm.lg_t1;
    ec_xyzz<F> v, r;
    ec_load_xyzz<F>(v, msm_node<F>(buf, l, w, MSM_NODE_V));
    if (l) {
        ec_load_xyzz<F>(r, msm_node<F>(buf, l, w, MSM_NODE_R));
        ec_dbl_n<F>(r, gm.lg_s1);
        ec_add<F>(v, r);
    }
    ec_store_xyzz<F>(win + w * X, v);
    ec_load_xyzz<F>(r, msm_node<F>(buf, l, w, MSM_NODE_U));
    ec_store_xyzz<F>(win + (gm.nwin + w) * X, r);
}

#ifdef CUZK_FF_HOST_EMULATION
/* Both levels on the host, as msm_impl.cuh launches them: win gets the
 * window sums S_w, then the bucket sums U_w (2 nwin points). seg and tree
 * hold 2 nwin t1 points each. */
template <class F>
static void msm_reduce_emulate(const msm_geom &gm, const uint4 *buckets, uint4 *seg, uint4 *tree,
                               uint4 *win)
{
    for (size_t g = 0; g < (size_t)gm.nwin * gm.t1; g++) msm_reduce1_thread<F>(gm, buckets, seg, g);
    uint4 *in = seg, *out = tree;
    for (unsigned l = 0; l < gm.lg_t1; l++) {
        for (size_t j = 0; j < msm_reduce2_threads(gm, l); j++)
            msm_reduce2_thread<F>(gm, in, out, l, j);
        uint4 *t = in;
        in = out;
        out = t;
    }
    for (size_t w = 0; w < gm.nwin; w++) msm_reduce2_finish<F>(gm, in, win, w);
}
#endif

/* ------------------------------------------------- 0/1 scalars: bitmaps --
 *
 * sum_{i < n, bit i set} P_i: the sum of the bases of scalar-one entries
 * (a witness's bits), with no digits, no sort and no buckets, and balanced
 * like the accumulation above: every thread does the same number of mixed
 * additions whatever the bitmap looks like.
 *  1. count   cnt[w] = the usable bits of word w: set in the bitmap and in
 *             the plan's `live` map (point not at infinity, index < n).
 *  2. scan    off = exclusive prefix sums of cnt (CUB).
 *  3. sum     thread t takes usable bits [t K, t K + K) in index order
 *             (K = MSM_BITS_PER_THREAD, or fewer for a short sum: see
 *             msm_impl.cuh, bits_run): it finds its first word by binary
 *             search in off and sums the points into one XYZZ partial.
 *  4. fold    msm_sum_thread adds MSM_SUM_FAN partials into one, level by
 *             level, until few enough are left for the host. */
#define MSM_BITS_PER_THREAD 128u
#define MSM_BITS_PER_THREAD_MIN 16u
/* A fold level is a few thousand threads or fewer, each a serial chain of
 * FAN additions, so its time is that chain's latency: 8 makes the chains
 * short at the cost of a level more. Measured (docs/perf.md): the fold of
 * a G1 2^26 table sum 0.88 ms with 32, 0.32 with 8; G2 2^24 2.89 -> 1.01. */
#define MSM_SUM_FAN 8u
#define MSM_SUBSETS 15u /* table points per group of 4 (see below) */

FF_INLINE unsigned msm_ctz64(uint64_t x) /* x != 0 */
{
#ifdef __CUDA_ARCH__
    return (unsigned)__ffsll((long long)x) - 1;
#else
    return (unsigned)__builtin_ctzll(x);
#endif
}

FF_INLINE uint32_t msm_popc64(uint64_t x)
{
#ifdef __CUDA_ARCH__
    return (uint32_t)__popcll(x);
#else
    return (uint32_t)__builtin_popcountll(x);
#endif
}

/* live word w: bit j set iff point 64 w + j exists (< n) and is not (0, 0). */
FF_INLINE void msm_live_thread(const uint8_t *inf, size_t n, uint64_t *live, size_t w)
{
    uint64_t v = 0;
    for (unsigned j = 0; j < 64; j++) {
        size_t i = w * 64 + j;
        if (i < n && !inf[i]) v |= (uint64_t)1 << j;
    }
    live[w] = v;
}

/* The usable bits of bitmap word w: those below n, and unless TAB (the
 * subset-sum table accounts for points at infinity) only of live points. */
template <bool TAB>
FF_INLINE uint64_t msm_bits_word(const uint64_t *bits, const uint64_t *live, size_t n, size_t w)
{
    uint64_t b = bits[w];
    if (w == n / 64 && (n & 63)) b &= ((uint64_t)1 << (n & 63)) - 1;
    return TAB ? b : b & live[w];
}

/* Bit 4j set iff nibble j of b is not zero. */
FF_INLINE uint64_t msm_nibbles(uint64_t b)
{
    return (b | b >> 1 | b >> 2 | b >> 3) & 0x1111111111111111ull;
}

/* cnt[w]: the usable bits of word w, or (TAB) its non-zero nibbles. */
template <bool TAB>
FF_INLINE void msm_bits_count_thread(const uint64_t *bits, const uint64_t *live, size_t n,
                                     uint32_t *cnt, size_t w)
{
    uint64_t b = msm_bits_word<TAB>(bits, live, n, w);
    cnt[w] = msm_popc64(TAB ? msm_nibbles(b) : b);
}

/* The last word w with off[w] <= first: it holds usable bit number `first`
 * (first < the total; words with none share their offset with the next). */
FF_INLINE size_t msm_bits_find(const uint32_t *off, size_t nw, uint64_t first)
{
    size_t lo = 0, hi = nw;
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (off[mid] <= first) lo = mid;
        else hi = mid;
    }
    return lo;
}

/* Thread t: usable bits (TAB: non-zero nibbles) [t K, t K + K) in index
 * order into one XYZZ partial; src is the points, or (TAB) the subset-sum
 * table, whose entries at infinity are skipped. */
template <class F, bool TAB>
FF_INLINE void msm_bits_thread(const uint64_t *bits, const uint64_t *live, size_t n,
                               const uint32_t *cnt, const uint32_t *off, size_t nw,
                               const uint4 *src, uint4 *partial, uint32_t K, size_t t)
{
    constexpr int A = ec_aff<F>::U4;
    ec_xyzz<F> acc;
    ec_set_inf<F>(acc);
    uint32_t total = off[nw - 1] + cnt[nw - 1];
    uint64_t first = (uint64_t)t * K;
    if (first < total) {
        size_t w = msm_bits_find(off, nw, first);
        uint64_t b = msm_bits_word<TAB>(bits, live, n, w), z = TAB ? msm_nibbles(b) : b;
        for (uint32_t skip = (uint32_t)first - off[w]; skip; skip--) z &= z - 1;
        uint32_t left = total - (uint32_t)first;
        if (left > K) left = K;
        for (; left; left--) {
            while (!z) {
                w++;
                b = msm_bits_word<TAB>(bits, live, n, w);
                z = TAB ? msm_nibbles(b) : b;
            }
            unsigned j = msm_ctz64(z); /* TAB: 4 x the nibble's index */
            z &= z - 1;
            ec_aff<F> p;
            if (TAB) {
                size_t q = w * 16 + j / 4, s = (b >> j) & 15;
                ec_load_aff<F>(p, src + (q * MSM_SUBSETS + s - 1) * A);
                if (ec_aff_is_inf<F>(p)) continue;
            } else {
                ec_load_aff<F>(p, src + (w * 64 + j) * A);
            }
            ec_madd<F>(acc, p);
        }
    }
    ec_store_xyzz<F>(partial + t * ec_xyzz<F>::U4, acc);
}

/* Sparse vectors (cuzk_gpu_g*_msm_sparse): bit j of ones[w] = scalar
 * 64 w + j is exactly 1 (those < n); rest[i] = scalar i, or 0 where it is
 * 1 (rest may be in: each thread reads its 64 scalars before writing
 * them). Other representatives of 1 (1 + r, ...) stay in rest: either way
 * the sum is right. */
FF_INLINE void msm_split_thread(const uint4 *in, uint4 *rest, size_t n, uint64_t *ones, size_t w)
{
    uint64_t b = 0;
    for (unsigned j = 0; j < 64; j++) {
        size_t i = w * 64 + j;
        if (i >= n) break;
        uint4 lo = in[2 * i], hi = in[2 * i + 1];
        bool one = lo.x == 1 && (lo.y | lo.z | lo.w | hi.x | hi.y | hi.z | hi.w) == 0;
        if (one) {
            b |= (uint64_t)1 << j;
            lo.x = 0;
        }
        rest[2 * i] = lo;
        rest[2 * i + 1] = hi;
    }
    ones[w] = b;
}

/* out[t] = in[t FAN] + ... + in[t FAN + FAN - 1] (those < m). */
template <class F>
FF_INLINE void msm_sum_thread(const uint4 *in, size_t m, uint4 *out, size_t t)
{
    constexpr int X = ec_xyzz<F>::U4;
    ec_xyzz<F> acc, p;
    ec_set_inf<F>(acc);
    for (size_t i = t * MSM_SUM_FAN; i < (t + 1) * MSM_SUM_FAN && i < m; i++) {
        if (ec_load_is_inf<F>(in + i * X)) continue;
        ec_load_xyzz<F>(p, in + i * X);
        ec_add<F>(acc, p);
    }
    ec_store_xyzz<F>(out + t * X, acc);
}

/* ------------------------------------------- benchmark points: B + i S --
 *
 * P_j = base + j step for j < n, written as affine points. Thread t of a
 * batch makes the cnt <= MSM_GEN_K points from j0 = off + t MSM_GEN_K:
 * P_j0 by double-and-add (31 doublings, <= 31 mixed additions, then + base),
 * then one mixed addition per point, all in XYZZ; then converts them with one
 * field inversion for the thread by Montgomery's trick: with I = 1/ZZZ,
 * 1/Z = I ZZ and x = X (1/Z)^2, y = Y I (ZZ = Z^2, ZZZ = Z^3 with
 * Z = ZZZ/ZZ). Per point 8M + 2S (addition) + 3M (trick) + 3M + 1S
 * (conversion). tmp holds 3 field elements per point of the batch (ZZ, ZZZ,
 * and the product of the earlier ZZZs). None of the P_j may be infinity. */
#define MSM_GEN_K 32u

template <class F>
FF_INLINE void msm_gen_thread(const ec_aff<F> &base, const ec_aff<F> &step, size_t n, size_t off,
                              size_t nthreads, uint4 *points, uint4 *tmp, size_t t)
{
    constexpr int A = ec_aff<F>::U4, E = F::U4;
    size_t j0 = off + t * MSM_GEN_K;
    if (j0 >= n) return;
    unsigned cnt = n - j0 < MSM_GEN_K ? (unsigned)(n - j0) : MSM_GEN_K;
    ec_xyzz<F> acc;
    ec_set_inf<F>(acc);
#pragma unroll 1
    for (int b = 31; b >= 0; b--) {
        ec_dbl<F>(acc);
        if ((j0 >> b) & 1) ec_madd<F>(acc, step);
    }
    ec_madd<F>(acc, base);
    typename F::E pre, inv;
    F::set_one(pre);
#pragma unroll 1
    for (unsigned q = 0; q < cnt; q++) {
        uint4 *pt = points + (j0 + q) * A, *tm = tmp + (q * nthreads + t) * 3 * E;
        F::store(pt, acc.x);
        F::store(pt + E, acc.y);
        F::store(tm, acc.zz);
        F::store(tm + E, acc.zzz);
        F::store(tm + 2 * E, pre);
        F::mul(pre, pre, acc.zzz);
        if (q + 1 < cnt) ec_madd<F>(acc, step);
    }
    F::inv(inv, pre);
#pragma unroll 1
    for (int q = (int)cnt - 1; q >= 0; q--)
        ec_unbatch_affine<F>(points + (j0 + q) * A, tmp + ((size_t)q * nthreads + t) * 3 * E,
                              inv);
}

/* ------------------------------------------ precomputed table: a step --
 *
 * T[w] = 2^c T[w - 1] for one window's n points (src = T[w - 1],
 * dst = T[w]). Thread t of a batch of nthreads threads takes the points
 * j = off + q nthreads + t, q < MSM_TAB_K, j < n (neighbouring threads read
 * neighbouring points), each by one doubling from affine and c - 1 in XYZZ;
 * then converts them with one field inversion for the thread by Montgomery's
 * trick, as msm_gen_thread. tmp holds 3 field elements (ZZ, ZZZ, the product
 * of the earlier ZZZs) for each point of the batch, at slot j - off. A point
 * at infinity (or, for points outside the subgroup, a multiple that is)
 * gives (0, 0). Per point: (4M + 3S) + (c - 1)(6M + 3S) + 6M + 1S, plus a
 * share of the thread's inversion (~570 M for Fp): with MSM_TAB_K = 32,
 * ~18 M, 8% of a point's work at c = 22 (not yet measured). */
#define MSM_TAB_K 32u

template <class F>
FF_INLINE void msm_table_thread(const uint4 *src, uint4 *dst, unsigned c, size_t n, size_t off,
                                size_t nthreads, uint4 *tmp, size_t t)
{
    constexpr int A = ec_aff<F>::U4, E = F::U4;
    typename F::E pre, inv;
    F::set_one(pre);
    unsigned cnt = 0;
#pragma unroll 1
    for (unsigned q = 0; q < MSM_TAB_K; q++) {
        size_t j = off + q * nthreads + t;
        if (j >= n) break;
        ec_aff<F> a;
        ec_xyzz<F> p;
        ec_load_aff<F>(a, src + j * A);
        if (ec_aff_is_inf<F>(a)) {
            ec_set_inf<F>(p);
        } else {
            ec_mdbl<F>(p, a);
            ec_dbl_n<F>(p, c - 1);
        }
        uint4 *pt = dst + j * A, *tm = tmp + (j - off) * 3 * E;
        F::store(pt, p.x);
        F::store(pt + E, p.y);
        F::store(tm, p.zz);
        F::store(tm + E, p.zzz);
        F::store(tm + 2 * E, pre);
        if (!ec_is_inf<F>(p)) F::mul(pre, pre, p.zzz);
        cnt++;
    }
    if (cnt == 0) return;
    F::inv(inv, pre);
#pragma unroll 1
    for (int q = (int)cnt - 1; q >= 0; q--) {
        size_t j = off + (size_t)q * nthreads + t;
        ec_unbatch_affine<F>(dst + j * A, tmp + (j - off) * 3 * E, inv);
    }
}

/* ------------------------------- 0/1 scalars: a table of subset sums --
 *
 * A plan made with CUZK_GPU_MSM_BITS_TABLE also holds, for each group q of 4
 * consecutive points (4q .. 4q + 3), the sums of its 15 non-empty subsets:
 * tab[15 q + s - 1] = sum of P_(4q+j) over the set bits j of s (affine,
 * (0, 0) for infinity; points at infinity and indices >= n are left out).
 * Nibble q of a bitmap (bits 4q .. 4q + 3, in word q / 16) names one table
 * point, so a sum takes one mixed addition per non-zero nibble: 15/64 n at
 * density 1/2, against n / 2 one bit at a time, for 3.75 n points of table.
 * Counting, scan, sums and fold are the levels above, over non-zero nibbles
 * instead of usable bits. */

/* Thread q: group q's 15 sums, each from a smaller one (s without its lowest
 * bit) by one mixed addition (11 additions, 4 copies), in XYZZ; then all 15
 * to affine with one inversion by Montgomery's trick (ec_unbatch_affine,
 * ZZ, ZZZ and the prefix products in thread-local memory). Set-up work:
 * ~11 madds + 15 x 7M + one Fermat inversion (~570 M) per group. */
template <class F>
FF_INLINE void msm_subset_thread(const uint4 *points, const uint8_t *inf, size_t n, uint4 *tab,
                                 size_t q)
{
    constexpr int A = ec_aff<F>::U4, E = F::U4;
    ec_aff<F> pt[4];
    bool have[4];
    for (unsigned j = 0; j < 4; j++) {
        size_t i = 4 * q + j;
        have[j] = i < n && !inf[i];
        if (have[j]) ec_load_aff<F>(pt[j], points + i * A);
    }
    ec_xyzz<F> sum[16];
    uint4 tm[MSM_SUBSETS * 3 * E];
    typename F::E pre, inv;
    F::set_one(pre);
    ec_set_inf<F>(sum[0]);
#pragma unroll 1
    for (unsigned s = 1; s < 16; s++) {
        unsigned j = msm_ctz64(s);
        sum[s] = sum[s & (s - 1)];
        if (have[j]) ec_madd<F>(sum[s], pt[j]);
        uint4 *o = tab + (q * MSM_SUBSETS + s - 1) * A, *t = tm + (s - 1) * 3 * E;
        F::store(o, sum[s].x);
        F::store(o + E, sum[s].y);
        F::store(t, sum[s].zz);
        F::store(t + E, sum[s].zzz);
        F::store(t + 2 * E, pre);
        if (!ec_is_inf<F>(sum[s])) F::mul(pre, pre, sum[s].zzz);
    }
    F::inv(inv, pre);
#pragma unroll 1
    for (unsigned s = MSM_SUBSETS; s >= 1; s--)
        ec_unbatch_affine<F>(tab + (q * MSM_SUBSETS + s - 1) * A, tm + (s - 1) * 3 * E, inv);
}

#endif /* CUZK_GPU_MSM_CUH */
