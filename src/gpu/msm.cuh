/* cuzk — G1 Pippenger MSM on the GPU: the per-thread work of each stage.
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
 *  5. reduce    per window, sum_j j B_j by running sums in two levels:
 *               level 1, a thread per segment of s1 buckets; level 2, a
 *               block per window whose t2 threads take s2 segments each and
 *               finish with a tree (see msm_reduce2_*).
 *  6. the host adds the W window sums with c doublings between them.
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
    uint32_t s2, t2;    /* level 2: segments per thread, threads per window */
    unsigned lg_s1, lg_s2;
};

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

/* Scalar i -> its W (key, value) entries at keys/vals[w n + i]. */
FF_INLINE void msm_digits_thread(const msm_geom &g, const uint4 *scalars, const uint8_t *inf,
                                 uint32_t n, uint32_t *keys, uint32_t *vals, uint32_t i)
{
    uint32_t k[8];
    uint4 a = scalars[2 * (size_t)i], b = scalars[2 * (size_t)i + 1];
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
    bool skip = inf[i] != 0;
    unsigned c = g.c;
    /* Window w: d = (bits [wc, wc + c)) + (bit wc - 1) - 2^c (bit wc + c - 1),
     * as msm_digit in src/msm/msm_internal.h. */
#pragma unroll 1
    for (unsigned w = 0; w < g.nwin; w++) {
        unsigned lo = w * c;
        uint32_t v = lo ? msm_bits(k, lo - 1, c + 1) : msm_bits(k, 0, c) << 1;
        uint32_t mid = v >> 1;
        int32_t d = (int32_t)(mid + (v & 1)) - (int32_t)((mid >> (c - 1)) << c);
        uint32_t key = g.sentinel, val = i;
        if (d != 0 && !skip) {
            uint32_t mag = d < 0 ? (uint32_t)-d : (uint32_t)d;
            key = w * g.nb + mag - 1;
            val = i | (((uint32_t)(d < 0) ^ neg) << 31);
        }
        keys[(size_t)w * n + i] = key;
        vals[(size_t)w * n + i] = val;
    }
}

/* -------------------------------------------------------- 3. accumulate -- */

struct msm_acc_args {
    const uint32_t *keys, *vals; /* sorted */
    size_t m;                    /* entries: nwin * n */
    uint32_t sentinel;
    const uint4 *points;         /* affine, 6 uint4 each */
    uint4 *buckets;              /* XYZZ, 12 uint4 each, indexed by key */
    uint4 *pieces;               /* XYZZ, 2 per chunk */
};

/* Where a finished run goes: the bucket when it holds the whole bucket; else
 * slot 0 of the chunk (the run continues from the previous chunk) or slot 1
 * (it starts in this chunk and continues into the next). */
FF_INLINE void msm_flush(const msm_acc_args &a, size_t t, uint32_t key, const ec_xyzz &acc,
                         bool before, bool after)
{
    uint4 *dst;
    if (!before && !after) dst = a.buckets + (size_t)key * 12;
    else dst = a.pieces + (2 * t + (before ? 0 : 1)) * 12;
    ec_store_xyzz(dst, acc);
}

/* Chunk t: entries [t MSM_CHUNK, (t + 1) MSM_CHUNK) of the sorted array. */
FF_INLINE void msm_accumulate_thread(const msm_acc_args &a, size_t t)
{
    size_t cs = t * MSM_CHUNK;
    if (cs >= a.m) return;
    size_t ce = cs + MSM_CHUNK < a.m ? cs + MSM_CHUNK : a.m;
    uint32_t prev = cs ? a.keys[cs - 1] : MSM_NO_KEY;
    uint32_t cur = MSM_NO_KEY;
    size_t run_start = cs, i;
    ec_xyzz acc;
    ec_set_inf(acc);
    for (i = cs; i < ce; i++) {
        uint32_t k = a.keys[i];
        if (k == a.sentinel) break; /* zero digits: all from here on */
        uint32_t v = a.vals[i];
        if (k != cur) {
            if (cur != MSM_NO_KEY) msm_flush(a, t, cur, acc, run_start == cs && prev == cur, false);
            cur = k;
            run_start = i;
            ec_set_inf(acc);
        }
        ec_aff p;
        ec_load_aff(p, a.points + (size_t)(v & 0x7fffffffu) * 6);
        if (v >> 31) ec_aff_neg(p);
        ec_madd(acc, p);
    }
    if (cur != MSM_NO_KEY) {
        bool after = i == ce && ce < a.m && a.keys[ce] == cur;
        msm_flush(a, t, cur, acc, run_start == cs && prev == cur, after);
    }
}

/* ----------------------------------------------------------- 4. combine -- */

/* If chunk t's last run is the start of a bucket that continues into later
 * chunks, adds the bucket's pieces (slot 1 here, slot 0 of each later chunk
 * it reaches) and stores the bucket. */
FF_INLINE void msm_combine_thread(const msm_acc_args &a, size_t t)
{
    size_t cs = t * MSM_CHUNK;
    if (cs >= a.m) return;
    size_t ce = cs + MSM_CHUNK;
    if (ce >= a.m) return;
    uint32_t k = a.keys[ce - 1];
    if (k == a.sentinel || a.keys[ce] != k) return;
    if (a.keys[cs] == k && cs > 0 && a.keys[cs - 1] == k) return; /* not its start */
    ec_xyzz acc, p;
    ec_load_xyzz(acc, a.pieces + (2 * t + 1) * 12);
    for (size_t u = t + 1;; u++) {
        ec_load_xyzz(p, a.pieces + (2 * u) * 12);
        ec_add(acc, p);
        size_t ue = (u + 1) * MSM_CHUNK;
        if (ue >= a.m || a.keys[ue] != k) break;
    }
    ec_store_xyzz(a.buckets + (size_t)k * 12, acc);
}

/* ------------------------------------------------------------ 5. reduce --
 *
 * Window w has buckets B_j, j = 1 .. nb (bucket j at index w nb + j - 1),
 * and needs S = sum_j j B_j. Level 1: segment q (j in q s1 + 1 .. q s1 + s1)
 * gives, by a running sum from the top (2 additions per bucket),
 *   tot_q = sum_{u < s1} (u + 1) B_{q s1 + u + 1},   sum_q = sum_u B_...,
 * and S = sum_q tot_q + s1 sum_q q sum_q.
 * Level 2, t2 threads: thread t takes q in [t s2, t s2 + s2) and forms
 *   A_t = sum tot_q,  U_t = sum sum_q,  E_t = sum (q - t s2) sum_q,
 * so S = sum_t V_t + s1 s2 sum_t t U_t with V_t = A_t + s1 E_t. The last
 * sum is a tree over t of triples (V, R, U), R = sum (t' - a) U_t' over the
 * range [a, b) a node covers; merging [a, m) and [m, b), h = m - a:
 *   V = V_L + V_R,  R = R_L + R_R + h U_R,  U = U_L + U_R,
 * and at the root S = V + s1 s2 R. All multipliers are powers of two
 * (doublings). */

/* Level 1, thread g = w t1 + q. seg gets tot_q, sum_q at 2g, 2g + 1. */
FF_INLINE void msm_reduce1_thread(const msm_geom &gm, const uint4 *buckets, uint4 *seg, size_t g)
{
    size_t w = g / gm.t1, q = g % gm.t1;
    const uint4 *bk = buckets + (w * gm.nb + q * gm.s1) * 12;
    ec_xyzz run, tot, b;
    ec_set_inf(run);
    ec_set_inf(tot);
#pragma unroll 1
    for (int u = (int)gm.s1 - 1; u >= 0; u--) {
        if (!ec_load_is_inf(bk + (size_t)u * 12)) {
            ec_load_xyzz(b, bk + (size_t)u * 12);
            ec_add(run, b);
        }
        ec_add(tot, run);
    }
    ec_store_xyzz(seg + 2 * g * 12, tot);
    ec_store_xyzz(seg + (2 * g + 1) * 12, run);
}

/* Level 2, first step, thread t of window w: its triple (V_t, 0, U_t) into
 * tree[3 (w t2 + t) + 0, 1, 2]. */
FF_INLINE void msm_reduce2_start(const msm_geom &gm, const uint4 *seg, uint4 *tree, size_t w,
                                 size_t t)
{
    ec_xyzz a, e, u, p;
    ec_set_inf(a);
    ec_set_inf(e);
    ec_set_inf(u);
    size_t base = w * gm.t1 + t * gm.s2;
#pragma unroll 1
    for (int kk = (int)gm.s2 - 1; kk >= 0; kk--) {
        ec_load_xyzz(p, seg + 2 * (base + kk) * 12);
        ec_add(a, p);
        ec_load_xyzz(p, seg + (2 * (base + kk) + 1) * 12);
        ec_add(u, p);
        if (kk > 0) ec_add(e, u);
    }
    ec_dbl_n(e, gm.lg_s1);
    ec_add(a, e);
    uint4 *node = tree + 3 * (w * gm.t2 + t) * 12;
    ec_set_inf(e);
    ec_store_xyzz(node, a);
    ec_store_xyzz(node + 12, e);
    ec_store_xyzz(node + 24, u);
}

/* Level 2, tree step with span h (a power of two): thread t with t % 2h == 0
 * merges node t + h into node t. */
FF_INLINE void msm_reduce2_merge(const msm_geom &gm, uint4 *tree, size_t w, size_t t,
                                 unsigned lg_h)
{
    size_t h = (size_t)1 << lg_h;
    if (t % (2 * h) != 0 || t + h >= gm.t2) return;
    uint4 *l = tree + 3 * (w * gm.t2 + t) * 12, *r = tree + 3 * (w * gm.t2 + t + h) * 12;
    ec_xyzz x, y;
    ec_load_xyzz(x, l);          /* V */
    ec_load_xyzz(y, r);
    ec_add(x, y);
    ec_store_xyzz(l, x);
    ec_load_xyzz(x, r + 24);     /* h U_R */
    ec_dbl_n(x, lg_h);
    ec_load_xyzz(y, l + 12);     /* R_L */
    ec_add(x, y);
    ec_load_xyzz(y, r + 12);     /* R_R */
    ec_add(x, y);
    ec_store_xyzz(l + 12, x);
    ec_load_xyzz(x, l + 24);     /* U */
    ec_load_xyzz(y, r + 24);
    ec_add(x, y);
    ec_store_xyzz(l + 24, x);
}

/* Level 2, last step (one thread per window): S = V + s1 s2 R into win[w]. */
FF_INLINE void msm_reduce2_finish(const msm_geom &gm, const uint4 *tree, uint4 *win, size_t w)
{
    const uint4 *node = tree + 3 * (w * gm.t2) * 12;
    ec_xyzz v, r;
    ec_load_xyzz(v, node);
    ec_load_xyzz(r, node + 12);
    ec_dbl_n(r, gm.lg_s1 + gm.lg_s2);
    ec_add(v, r);
    ec_store_xyzz(win + w * 12, v);
}

/* ------------------------------------------- benchmark points: B + i S --
 *
 * P_j = base + j step for j < n, written as affine points. Thread t of a
 * batch makes the cnt <= MSM_GEN_K points from j0 = off + t MSM_GEN_K:
 * P_j0 by double-and-add (31 doublings, <= 31 mixed additions, then + base),
 * then one mixed addition per point, all in XYZZ; then converts them with one
 * field inversion (Fermat, 380 S + ~190 M) for the thread by Montgomery's
 * trick: with I = 1/ZZZ, 1/Z = I ZZ and x = X (1/Z)^2, y = Y I (ZZ = Z^2,
 * ZZZ = Z^3 with Z = ZZZ/ZZ). Per point 8M + 2S (addition) + 3M (trick)
 * + 3M + 1S (conversion). tmp holds 9 uint4 per point of the batch (ZZ, ZZZ,
 * and the product of the earlier ZZZs). None of the P_j may be infinity. */
#define MSM_GEN_K 32u

/* Bit i of q - 2. */
FF_INLINE uint32_t msm_qm2_bit(unsigned i)
{
    unsigned limb = i >> 5;
    uint32_t v = 0;
#pragma unroll
    for (unsigned j = 0; j < 12; j++) v = j == limb ? ff_fp_imm((int)j) : v;
    if (limb == 0) v -= 2; /* q = ...aaab: no borrow */
    return (v >> (i & 31)) & 1;
}

/* r = a^(q-2) = 1/a (0 for 0). */
FF_INLINE void msm_fp_inv(uint32_t r[EC_N], const uint32_t a[EC_N])
{
    uint32_t x[EC_N];
    ec_fp_copy(x, a); /* bit 380 of q - 2 is set */
#pragma unroll 1
    for (int i = 379; i >= 0; i--) {
        ff_sqr<EcF>(x, x);
        if (msm_qm2_bit((unsigned)i)) ff_mul<EcF>(x, x, a);
    }
    ec_fp_copy(r, x);
}

FF_INLINE void msm_gen_thread(const ec_aff &base, const ec_aff &step, size_t n, size_t off,
                              size_t nthreads, uint4 *points, uint4 *tmp, size_t t)
{
    size_t j0 = off + t * MSM_GEN_K;
    if (j0 >= n) return;
    unsigned cnt = n - j0 < MSM_GEN_K ? (unsigned)(n - j0) : MSM_GEN_K;
    ec_xyzz acc;
    ec_set_inf(acc);
#pragma unroll 1
    for (int b = 31; b >= 0; b--) {
        ec_dbl(acc);
        if ((j0 >> b) & 1) ec_madd(acc, step);
    }
    ec_madd(acc, base);
    uint32_t pre[EC_N], inv[EC_N], t1[EC_N], t2[EC_N];
    ec_fp_set_one(pre);
#pragma unroll 1
    for (unsigned q = 0; q < cnt; q++) {
        uint4 *pt = points + (j0 + q) * 6, *tm = tmp + (q * nthreads + t) * 9;
        ff_store<EcF>(pt, acc.x);
        ff_store<EcF>(pt + 3, acc.y);
        ff_store<EcF>(tm, acc.zz);
        ff_store<EcF>(tm + 3, acc.zzz);
        ff_store<EcF>(tm + 6, pre);
        ff_mul<EcF>(pre, pre, acc.zzz);
        if (q + 1 < cnt) ec_madd(acc, step);
    }
    msm_fp_inv(inv, pre);
#pragma unroll 1
    for (int q = (int)cnt - 1; q >= 0; q--) {
        uint4 *pt = points + (j0 + q) * 6, *tm = tmp + ((size_t)q * nthreads + t) * 9;
        uint32_t zz[EC_N], zzz[EC_N], iq[EC_N];
        ff_load<EcF>(zz, tm);
        ff_load<EcF>(zzz, tm + 3);
        ff_load<EcF>(t1, tm + 6);
        ff_mul<EcF>(iq, inv, t1);       /* 1 / ZZZ_q */
        ff_mul<EcF>(inv, inv, zzz);
        ff_mul<EcF>(t2, iq, zz);        /* 1 / Z */
        ff_sqr<EcF>(t2, t2);            /* 1 / ZZ */
        ff_load<EcF>(t1, pt);
        ff_mul<EcF>(t1, t1, t2);
        ff_store<EcF>(pt, t1);
        ff_load<EcF>(t1, pt + 3);
        ff_mul<EcF>(t1, t1, iq);
        ff_store<EcF>(pt + 3, t1);
    }
}

#endif /* CUZK_GPU_MSM_CUH */
