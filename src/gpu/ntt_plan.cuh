/* cuzk — the NTT over Fr on the GPU: host-side planning (see ntt.cuh).
 *
 * How a domain of 2^L points is cut into the three passes, the shape of each
 * pass's tiles and rounds, and the twiddle tables (computed on the host with
 * the CPU field code, so they are bit-identical to what the CPU NTT uses).
 * Host code only; shared by ntt.cu and the host emulation. Before including
 * this file, a C++ translation unit must have included cuzk/ff.h and
 * cuzk/poly.h inside extern "C" (they carry no C++ guards).
 */
#ifndef CUZK_GPU_NTT_PLAN_CUH
#define CUZK_GPU_NTT_PLAN_CUH

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/ntt.cuh"

/* L = k1 + k2 + k1. k2 <= 8 keeps the middle tile (2 G^2 2^k2 elements, G >= 2)
 * within 2048 elements; k1 <= 10 keeps a column tile (>= 2 columns of 2^k1)
 * within 2048. Among those, k2 closest to L/3 (the passes then have about
 * equal work). L = 27 -> (10, 7, 10); 28 -> (10, 8, 10); 26 -> (9, 8, 9);
 * 24 -> (8, 8, 8); 20 -> (7, 6, 7). Returns 0 for L < 3 (the tiny kernel). */
static inline int ntt_plan_digits(int L, int *k1, int *k2)
{
    int best = -1;
    for (int c = 1; c <= 8; c++) {
        if ((L - c) % 2 != 0 || L - c < 2 || (L - c) / 2 > 10) continue;
        if (best < 0 || abs(3 * c - L) < abs(3 * best - L)) best = c;
    }
    if (L < 3 || best < 0) return 0;
    *k2 = best;
    *k1 = (L - best) / 2;
    return 1;
}

/* Rounds for a DFT of k bits with 2^ub elements per thread: the first takes
 * k mod ub bits (if any), the others ub, from the top bit down; k < ub: one
 * round on all k bits. */
static inline void ntt_plan_rounds(NttPass *p)
{
    const int k = p->k, ub = p->ub;
    p->nrounds = 0;
    if (k < ub) {
        p->rnd[p->nrounds++] = NttRound{k, k - ub};
        return;
    }
    int r0 = k % ub, top = k;
    if (r0) {
        p->rnd[p->nrounds++] = NttRound{r0, k - ub};
        top -= r0;
    }
    for (; top > 0; top -= ub) p->rnd[p->nrounds++] = NttRound{ub, top - ub};
}

/* Pass shapes (tables are filled in by the caller); ub: log2 of elements
 * per thread, 3 or 2 (the kernel variant). */
static inline NttPass ntt_plan_col(int L, int k, int ub)
{
    NttPass p;
    memset(&p, 0, sizeof p);
    p.kind = NTT_COL;
    p.ub = ub;
    p.k = k;
    int gb = NTT_TILE_LOG - k;
    if (gb > L - k) gb = L - k;
    p.gb = gb;
    p.tbits = k + gb;
    p.lo_bits = L - k;
    p.kt = L < 10 ? L : 10;
    ntt_plan_rounds(&p);
    return p;
}

static inline NttPass ntt_plan_mid(int L, int k1, int k2, int ub)
{
    NttPass p;
    memset(&p, 0, sizeof p);
    p.kind = NTT_MID;
    p.ub = ub;
    p.k = k2;
    p.k1 = k1;
    int gy = (NTT_TILE_LOG - 1 - k2) / 2;
    if (gy > k1) gy = k1;
    p.gy = gy;
    p.gb = 2 * gy + 1;
    p.tbits = k2 + p.gb;
    p.kt = L < 10 ? L : 10;
    ntt_plan_rounds(&p);
    return p;
}

static inline size_t ntt_plan_blocks(const NttPass &p, int L)
{
    if (p.kind == NTT_COL) return (size_t)1 << (L - p.k - p.gb);
    size_t tiles = (size_t)1 << (p.k1 - p.gy);
    return tiles * (tiles + 1) / 2;
}

/* ------------------------------------------------------------ tables -- */

/* Pass 1's twiddles (full_twiddles of cuzk_gpu_ntt_domain_create_ex):
 * from two small tables, from the full table of w^e, or (forward
 * transforms; the inverse ones on two levels) from the positional table.
 * NTT_TW_COSET added to any of them: the coset table too (n + 1 entries
 * g^i), so the coset shifts are a load and one multiplication an element
 * instead of two: the coset forward's x *= g^pos in pass 1, and the coset
 * inverse's x *= g^-pos in pass 3 as g^(n - pos), its g^-n folded into the
 * 1/n of the pass that holds it (a scaled copy of that table, sc).
 * NTT_TW_SHOUP added to NTT_TW_FULL: those n-entry tables as Shoup pairs
 * (w, wq), twice the bytes, for ff_mul_shoup (8 elements per thread). */
enum { NTT_TW_2LVL = 0, NTT_TW_FULL = 1, NTT_TW_POS = 2, NTT_TW_COSET = 4, NTT_TW_SHOUP = 8 };

/* Offsets (in elements) of the tables in one buffer. The inverse's 1/n is
 * folded into the table of pass 1 (whi_i) or, with the full table, of pass
 * 2 (d_i: its store multiplies every element once, as pass 1's does, for
 * every split), since the full table serves both directions. */
struct NttTables {
    int L, k1, k2, kt, w;
    int tw;                           /* NTT_TW_2LVL, _FULL, _POS; 2LVL for L < 3 */
    bool coset;                       /* the coset table (NTT_TW_COSET; L >= 3) */
    bool sh;                          /* full and gtab as pairs (NTT_TW_SHOUP with
                                         NTT_TW_FULL; L >= 3) */
    size_t inner_f, inner_i;          /* 2^(kt-1) each */
    size_t inner_sf, inner_si;        /* the same as pairs (w, wq) for
                                         ff_mul_shoup: 2^kt elements each */
    size_t wlo_f, whi_f, wlo_i, whi_i; /* 2^w, 2^(L-w) */
    size_t d_f, d_i;                  /* 2^(L-k1) (L >= 3) */
    size_t d_sf, d_si;                /* the same as pairs (w, wq): 2^(L-k1+1) */
    size_t glo, ghi, gilo, gihi;      /* coset shift g^e, g^-e: 2^w, 2^(L-w)
                                         (ghi one more: g^n for gtab[n]) */
    size_t ninv;                      /* 1 element: 1/n */
    size_t sc;                        /* coset: d_i (full table) or whi_i times
                                         g^-n, for the coset inverse */
    size_t sc_s;                      /* coset, full table: sc as pairs */
    size_t full;                      /* pass 1's n-entry table (tw 1: w^e, 2:
                                         positional): n or 0 entries; from
                                         here on filled on the device */
    size_t gtab;                      /* coset: g^i, i <= n: n + 1 or 0 entries
                                         (full's and gtab's: 2 elements with sh) */
    size_t total;
};

/* Valid splits for L >= 3: 1 <= k1 <= 10, 1 <= k2 = L - 2 k1 <= 8. */
static inline bool ntt_split_ok(int L, int k1)
{
    return L >= 3 && k1 >= 1 && k1 <= 10 && L - 2 * k1 >= 1 && L - 2 * k1 <= 8;
}

/* force_k1 = 0: the planned split; otherwise that outer digit width (must
 * satisfy ntt_split_ok). tw: pass 1's twiddles, NTT_TW_* (an n-entry table
 * for L >= 3 only: the tiny kernel forms its factors). */
static inline NttTables ntt_tables_layout(int L, int force_k1, int tw)
{
    NttTables t;
    memset(&t, 0, sizeof t);
    t.L = L;
    t.tw = L >= 3 ? tw & 3 : NTT_TW_2LVL;
    t.coset = L >= 3 && (tw & NTT_TW_COSET);
    t.sh = L >= 3 && (tw & NTT_TW_SHOUP) && t.tw == NTT_TW_FULL;
    if (force_k1) {
        t.k1 = force_k1;
        t.k2 = L - 2 * force_k1;
    } else if (!ntt_plan_digits(L, &t.k1, &t.k2)) {
        t.k1 = t.k2 = 0;
    }
    t.kt = L < 10 ? L : 10;
    t.w = (L + 1) / 2;
    size_t o = 0, nin = (size_t)1 << (t.kt - 1), nlo = (size_t)1 << t.w,
           nhi = (size_t)1 << (L - t.w), nd = L >= 3 ? (size_t)1 << (L - t.k1) : 0;
    t.inner_f = o; o += nin;
    t.inner_i = o; o += nin;
    t.inner_sf = o; o += 2 * nin;
    t.inner_si = o; o += 2 * nin;
    t.wlo_f = o; o += nlo;
    t.whi_f = o; o += nhi;
    t.wlo_i = o; o += nlo;
    t.whi_i = o; o += nhi;
    t.d_f = o; o += nd;
    t.d_i = o; o += nd;
    t.d_sf = o; o += 2 * nd;
    t.d_si = o; o += 2 * nd;
    t.glo = o; o += nlo;
    t.ghi = o; o += nhi + 1;
    t.gilo = o; o += nlo;
    t.gihi = o; o += nhi;
    t.ninv = o; o += 1;
    t.sc = o; o += !t.coset ? 0 : t.tw == NTT_TW_FULL ? nd : nhi;
    t.sc_s = o; o += t.coset && t.tw == NTT_TW_FULL ? 2 * nd : 0;
    const size_t ent = t.sh ? 2 : 1;
    t.full = o; o += t.tw != NTT_TW_2LVL ? ent << L : 0;
    t.gtab = o; o += t.coset ? ent * (((size_t)1 << L) + 1) : 0;
    t.total = o;
    return t;
}

/* out[i] = first * base^i, i < count. */
static inline void ntt_powers(cuzk_fr *out, const cuzk_fr *first, const cuzk_fr *base,
                              size_t count)
{
    cuzk_fr x = *first;
    for (size_t i = 0; i < count; i++) {
        out[i] = x;
        cuzk_fr_mul(&x, &x, base);
    }
}

/* The pairs (w, wq) of ff_mul_shoup for count Montgomery-form elements: w
 * the plain residue, wq = floor(w 2^256 / r) (from the Montgomery form),
 * as raw limbs. */
static inline void ntt_shoup_pairs(cuzk_fr *out, const cuzk_fr *in, size_t count)
{
    enum { N = 2 * CUZK_FR_LIMBS };
    uint32_t m[N];
    ff_shoup_m(m, CUZK_FR_MODULUS, N);
    for (size_t i = 0; i < count; i++) {
        uint64_t w[CUZK_FR_LIMBS];
        uint32_t wm[N], wq[N];
        cuzk_fr_to_limbs(w, in + i);
        memcpy(wm, in[i].l, sizeof wm);
        ff_shoup_quot(wq, wm, m, N);
        memcpy(out[2 * i].l, w, sizeof w);
        memcpy(out[2 * i + 1].l, wq, sizeof wq);
    }
}

/* x^(2^s) */
static inline void ntt_sqr_n(cuzk_fr *r, const cuzk_fr *x, int s)
{
    *r = *x;
    for (int i = 0; i < s; i++) cuzk_fr_sqr(r, r);
}

/* Fills buf (t.full elements: all but the n-entry tables, whose 2^L host
 * multiplications would take seconds at 2^27; ntt.cu fills them on the
 * device, pass 1's from wlo_f, whi_f and the coset table from glo, ghi:
 * ntt_fills) from omega and the coset shift g of the CPU domain of
 * the same size and convention. */
static inline void ntt_tables_fill(cuzk_fr *buf, const NttTables &t, const cuzk_fr *omega,
                                   const cuzk_fr *g)
{
    const int L = t.L;
    cuzk_fr oi, gi, ninv, b;
    cuzk_fr_inv(&oi, omega);
    cuzk_fr_inv(&gi, g);
    cuzk_fr_from_u64(&ninv, (uint64_t)1 << L);
    cuzk_fr_inv(&ninv, &ninv);
    const cuzk_fr *one = &CUZK_FR_ONE;
    size_t nin = (size_t)1 << (t.kt - 1), nlo = (size_t)1 << t.w, nhi = (size_t)1 << (L - t.w);
    /* inner: w_{2^kt} = omega^(2^(L-kt)) */
    ntt_sqr_n(&b, omega, L - t.kt);
    ntt_powers(buf + t.inner_f, one, &b, nin);
    ntt_sqr_n(&b, &oi, L - t.kt);
    ntt_powers(buf + t.inner_i, one, &b, nin);
    ntt_shoup_pairs(buf + t.inner_sf, buf + t.inner_f, nin);
    ntt_shoup_pairs(buf + t.inner_si, buf + t.inner_i, nin);
    ntt_powers(buf + t.wlo_f, one, omega, nlo);
    ntt_sqr_n(&b, omega, t.w);
    ntt_powers(buf + t.whi_f, one, &b, nhi);
    ntt_powers(buf + t.wlo_i, one, &oi, nlo);
    ntt_sqr_n(&b, &oi, t.w);
    const bool full = t.tw == NTT_TW_FULL;
    ntt_powers(buf + t.whi_i, full ? one : &ninv, &b, nhi);
    if (L >= 3) {
        size_t nd = (size_t)1 << (L - t.k1);
        ntt_sqr_n(&b, omega, t.k1);
        ntt_powers(buf + t.d_f, one, &b, nd);
        ntt_sqr_n(&b, &oi, t.k1);
        ntt_powers(buf + t.d_i, full ? &ninv : one, &b, nd);
        ntt_shoup_pairs(buf + t.d_sf, buf + t.d_f, nd);
        ntt_shoup_pairs(buf + t.d_si, buf + t.d_i, nd);
    }
    ntt_powers(buf + t.glo, one, g, nlo);
    ntt_sqr_n(&b, g, t.w);
    ntt_powers(buf + t.ghi, one, &b, nhi + 1);
    ntt_powers(buf + t.gilo, one, &gi, nlo);
    ntt_sqr_n(&b, &gi, t.w);
    ntt_powers(buf + t.gihi, one, &b, nhi);
    buf[t.ninv] = ninv;
    if (t.coset) {
        /* the coset inverse's 1/n table times g^-n (L >= 3) */
        cuzk_fr f;
        ntt_sqr_n(&f, &gi, L);
        cuzk_fr_mul(&f, &f, &ninv);
        if (full) {
            ntt_sqr_n(&b, &oi, t.k1);
            ntt_powers(buf + t.sc, &f, &b, (size_t)1 << (L - t.k1));
            ntt_shoup_pairs(buf + t.sc_s, buf + t.sc, (size_t)1 << (L - t.k1));
        } else {
            ntt_sqr_n(&b, &oi, t.w);
            ntt_powers(buf + t.sc, &f, &b, nhi);
        }
    }
}

/* The device-filled regions of layout t as (table offset, entries,
 * pos_bits of ntt_full_entry, the two-level tables it multiplies): pass 1's
 * n-entry table, then the coset table; count = 0 where absent. */
struct NttFill {
    size_t off, count, lo, hi;
    int pos_bits;
};
static inline void ntt_fills(NttFill f[2], const NttTables &t)
{
    f[0].off = t.full;
    f[0].count = t.tw != NTT_TW_2LVL ? (size_t)1 << t.L : 0;
    f[0].lo = t.wlo_f;
    f[0].hi = t.whi_f;
    f[0].pos_bits = t.tw == NTT_TW_POS ? t.L - t.k1 : 0;
    f[1].off = t.gtab;
    f[1].count = t.coset ? ((size_t)1 << t.L) + 1 : 0;
    f[1].lo = t.glo;
    f[1].hi = t.ghi;
    f[1].pos_bits = 0;
}

/* The three passes of transform `kind` (0 forward, 1 inverse, 2 coset
 * forward, 3 coset inverse) over the tables at dev (device or host copy of
 * the buffer), with 2^ub elements per thread (3 or 2). Requires L >= 3. */
static inline void ntt_plan_passes(NttPass out[3], const NttTables &t, const uint4 *dev, int kind,
                                   int ub)
{
    const int L = t.L;
    const bool inv = kind == 1 || kind == 3;
#define NTT_TAB(off) (dev + 2 * (t.off))
    out[0] = ntt_plan_col(L, t.k1, ub);
    out[1] = ntt_plan_mid(L, t.k1, t.k2, ub);
    out[2] = ntt_plan_col(L, t.k1, ub);
    for (int i = 0; i < 3; i++) {
        out[i].w = t.w;
        out[i].inner = inv ? NTT_TAB(inner_i) : NTT_TAB(inner_f);
        out[i].inner_sh = inv ? NTT_TAB(inner_si) : NTT_TAB(inner_sf);
    }
    if (kind == 2 && t.coset) {
        out[0].pre_one = NTT_TAB(gtab);
    } else if (kind == 2) {
        out[0].pre_lo = NTT_TAB(glo);
        out[0].pre_hi = NTT_TAB(ghi);
    }
    /* the table that holds the inverse's 1/n, times g^-n for the coset
     * inverse with the coset table */
    const bool scaled = kind == 3 && t.coset;
    out[0].one_sh = t.sh;
    out[2].one_sh = t.sh && kind == 3 && t.coset;
    if (t.tw == NTT_TW_FULL) {
        out[0].tw_full = NTT_TAB(full);
        out[0].neg = inv ? ~0u : 0u;
    } else if (t.tw == NTT_TW_POS && !inv) {
        out[0].tw_pos = NTT_TAB(full);
    } else {
        out[0].tw_lo = inv ? NTT_TAB(wlo_i) : NTT_TAB(wlo_f);
        out[0].tw_hi = scaled ? NTT_TAB(sc) : inv ? NTT_TAB(whi_i) : NTT_TAB(whi_f);
    }
    /* 1/n in whi_i or d_i */
    out[1].tw_d = scaled && t.tw == NTT_TW_FULL ? NTT_TAB(sc) : inv ? NTT_TAB(d_i) : NTT_TAB(d_f);
    out[1].tw_dsh = scaled && t.tw == NTT_TW_FULL ? NTT_TAB(sc_s)
                    : inv                         ? NTT_TAB(d_si)
                                                  : NTT_TAB(d_sf);
    if (kind == 3 && t.coset) {
        out[2].post_one = NTT_TAB(gtab);
    } else if (kind == 3) {
        out[2].post_lo = NTT_TAB(gilo);
        out[2].post_hi = NTT_TAB(gihi);
    }
#undef NTT_TAB
}

/* The NTT_F_* flags of pass p: which kernel runs it. */
static inline int ntt_pass_flags(const NttPass &p)
{
    return (p.pre_lo ? NTT_F_PRE : 0) | (p.tw_lo ? NTT_F_TW : 0) | (p.tw_full ? NTT_F_TWF : 0) |
           (p.tw_pos ? NTT_F_TWP : 0) | (p.tw_d ? NTT_F_TWD : 0) | (p.post_lo ? NTT_F_POST : 0) |
           (p.pre_one ? NTT_F_PRE1 : 0) | (p.post_one ? NTT_F_POST1 : 0) |
           (p.one_sh ? NTT_F_SH1 : 0);
}

#endif /* CUZK_GPU_NTT_PLAN_CUH */
