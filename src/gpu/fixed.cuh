/* cuzk — fixed-base multiplication out[i] = [s_i] B on the GPU: the
 * per-thread bodies of the kernel of src/gpu/fixed.cu, and the host helpers
 * that make its tables with the CPU library. Everything on the device side
 * is FF_INLINE, so CUZK_FF_HOST_EMULATION compiles it for the host too
 * (tests/gpu/test_gpu_fixed_emu.cu runs it there, with fixed_emulate below
 * standing in for the kernel).
 *
 * Method. B is fixed, so its multiples are tabulated once: with w-bit
 * signed digits, T[k][d - 1] = d 2^(w k) B for 1 <= d <= H = 2^(w-1) and
 * k < nwin = ceil(256 / w) (affine). A canonical scalar s < r < 2^255 is
 * written s = sum_k d_k 2^(w k) with -H < d_k <= H (a digit above H borrows
 * 2^w from the next window); nwin w >= 256 leaves the top digit <= H, so no
 * carry is left over. Then [s] B = sum_k sign(d_k) T[k][|d_k| - 1]: nwin
 * mixed additions (XYZZ += affine, madd-2008-s, 8M + 2S; ec.cuh) and no
 * doublings. A zero digit costs nothing; a negative one negates y.
 *
 * The additions are complete (ec_madd branches to doubling or infinity),
 * and both branches can happen: the partial sum before window k is below
 * 2^(w k) in absolute value, so it never equals +-T[k][.] for k below the
 * top, but for the top window the integers may differ by r (for example
 * s = r - 2 (r mod 2^(w (nwin - 1))) when the lower digits carry into the
 * top one). A zero scalar leaves the accumulator at infinity.
 *
 * To affine, with one inversion per block of FIXED_BLOCK threads. Each
 * thread handles K points i = t, t + T, t + 2T, ... (T threads in the
 * launch: consecutive threads touch consecutive points, so every load and
 * store is coalesced). Forward: for each point it writes X, Y into the
 * output slot and ZZ, ZZZ and the running product of the earlier ZZZ into
 * a scratch array, and keeps the product of all its ZZZ (points at infinity
 * count 1). The block then inverts its FIXED_BLOCK products with
 * Montgomery's trick over a binary tree in shared memory (7 levels up, one
 * inversion, 7 levels down). Backward: with 1/ZZZ_i from the running
 * products, Z^-1 = ZZ / ZZZ (ZZ^3 = ZZZ^2 makes ZZ = Z^2, ZZZ = Z^3 with
 * Z = ZZZ / ZZ), so x = X (ZZ / ZZZ)^2, y = Y / ZZZ: 6M + 1S per point in
 * all, against ~10 per madd. Affine coordinates are unique, so the bytes
 * equal the CPU's cuzk_g*_to_affine; infinity is written as (0, 0).
 *
 * Why one inversion per block and not per thread: an Fp inversion is ~610
 * dependent operations (EcFp::inv: 380 S + 228 M). Per thread it would cost
 * ~610 / K per point (K ~ 20: +20% over the 16 madds); per warp it costs
 * the same issue slots (the other lanes idle through it). Per block of 128
 * threads it is well under 1% of the slots; what is left is its latency,
 * ~0.2 ms at the end of a ~8 ms batch while the SM runs only 3 inverting
 * warps (estimated, not yet measured).
 *
 * The table is made on the device by the same code (fixed.cu): a host
 * bootstrap table (w = 8, 32 windows x 128 points, ~4096 additions on the
 * CPU) multiplies the scalars d 2^(w k) mod r, given to the kernel as
 * d x c_k with c_k = 2^(w k) R mod r (one Montgomery multiplication of the
 * integer d by c_k gives the canonical d 2^(w k) mod r).
 */
#ifndef CUZK_GPU_FIXED_CUH
#define CUZK_GPU_FIXED_CUH

#include <stdlib.h>
#include <string.h>

extern "C" {
#include <cuzk/ec.h>
#include <cuzk/ff.h>
}

#include "gpu/ec.cuh"

/* Threads per block, and so points per inversion tree (x K). */
#define FIXED_BLOCK 128

/* The bootstrap table that makes the real one: 8-bit signed digits cover a
 * canonical scalar (< 2^255) in 32 windows of 128 points. */
#define FIXED_BOOT_W 8u
#define FIXED_BOOT_NWIN 32u
#define FIXED_BOOT_HALF 128u

/* ceil(256 / w): windows of w-bit signed digits for scalars below 2^255. */
static inline unsigned fixed_nwin(unsigned w) { return (256 + w - 1) / w; }

struct fixed_args {
    const uint4 *table;   /* nwin x 2^(w-1) affine points (T[k][d-1] above) */
    unsigned w, nwin;     /* the table's window and window count */
    const uint4 *scalars; /* n Fr in Montgomery form (cuzk_fr bytes), or NULL:
                             table-making mode, scalars from ck below */
    const uint4 *ck;      /* table-making: c_k = 2^(gen_w k) R mod r, as Fr */
    size_t gen_first;     /* table-making: table index of point 0 */
    unsigned gen_w;       /* table-making: the window of the table being made */
    size_t n;             /* points */
    size_t T;             /* threads in the launch (a multiple of FIXED_BLOCK) */
    unsigned K;           /* points per thread: ceil(n / T) */
    uint4 *out;           /* n affine points (also X, Y between the passes) */
    uint4 *scratch;       /* n x 3 coordinate-field elements: ZZ, ZZZ, prefix */
};

/* The arguments of a table-making launch: entries [first, first + n) of the
 * gen_w-bit table, from the base's bootstrap table boot (FIXED_BOOT_W bits,
 * FIXED_BOOT_NWIN windows) and the constants ck; T and K are the launch's. */
static inline fixed_args fixed_gen_args(const uint4 *boot, const uint4 *ck, unsigned gen_w,
                                        size_t first, size_t n, uint4 *out, uint4 *scratch)
{
    fixed_args a;
    memset(&a, 0, sizeof a);
    a.table = boot;
    a.w = FIXED_BOOT_W;
    a.nwin = FIXED_BOOT_NWIN;
    a.scalars = NULL;
    a.ck = ck;
    a.gen_first = first;
    a.gen_w = gen_w;
    a.n = n;
    a.out = out;
    a.scratch = scratch;
    return a;
}

/* Launch shape for n points on at most tfull threads (a multiple of
 * FIXED_BLOCK, one full wave of the kernel on the device): the fewest
 * points per thread, then the fewest threads for them, so that all threads
 * but a few do K points and finish together. */
static inline void fixed_shape(size_t n, size_t tfull, size_t *T, unsigned *K)
{
    size_t k = n == 0 ? 1 : (n + tfull - 1) / tfull;
    size_t t = (n + k - 1) / k;
    t = (t + FIXED_BLOCK - 1) / FIXED_BLOCK * FIXED_BLOCK;
    if (t == 0) t = FIXED_BLOCK;
    *T = t;
    *K = (unsigned)k;
}

/* ------------------------------------------------------ device bodies -- */

/* c = the canonical scalar of point i (8 little-endian 32-bit limbs, < r):
 * one Montgomery multiplication, s R * 1 / R, or d * 2^(w k) R / R. */
FF_INLINE void fixed_scalar(const fixed_args &a, size_t i, uint32_t c[8])
{
    uint32_t x[8], y[8];
#pragma unroll
    for (int q = 0; q < 8; q++) y[q] = 0;
    if (a.scalars) {
        ff_load<FfFr>(x, a.scalars + 2 * i);
        y[0] = 1;
    } else {
        size_t e = a.gen_first + i;
        unsigned lg = a.gen_w - 1;
        size_t k = e >> lg;
#pragma unroll
        for (int q = 0; q < 8; q++) x[q] = 0;
        x[0] = (uint32_t)(e & (((size_t)1 << lg) - 1)) + 1; /* d */
        ff_load<FfFr>(y, a.ck + 2 * k);
    }
    ff_mul<FfFr>(c, x, y);
}

/* acc = [c] B from the table (w-bit signed digits, see the header). c is
 * consumed (shifted right w bits per window). 1 <= w <= 31. */
template <class F>
FF_INLINE void fixed_point(ec_xyzz<F> &acc, const uint4 *table, unsigned w, unsigned nwin,
                           uint32_t c[8])
{
    const uint32_t half = 1u << (w - 1), mask = (1u << w) - 1;
    uint32_t carry = 0;
    ec_set_inf<F>(acc);
#pragma unroll 1
    for (unsigned k = 0; k < nwin; k++) {
        uint32_t d = (c[0] & mask) + carry;
#pragma unroll
        for (int q = 0; q < 7; q++) c[q] = (c[q] >> w) | (c[q + 1] << (32 - w));
        c[7] >>= w;
        bool neg = d > half;
        carry = neg ? 1u : 0u;
        if (neg) d = (1u << w) - d; /* digit d - 2^w, then 0 when d = 2^w */
        if (d == 0) continue;
        ec_aff<F> p;
        ec_load_aff<F>(p, table + ((size_t)k * half + d - 1) * ec_aff<F>::U4);
        if (neg) ec_aff_neg<F>(p);
        ec_madd<F>(acc, p);
    }
}

/* Forward pass of thread t: the XYZZ result of each of its points, X and Y
 * into the output slot, ZZ (0: infinity), ZZZ and the product of the
 * earlier ZZZ into scratch; prod = the product of all its ZZZ (1 if none).
 * The kernel passes the thread's tree leaf in shared memory as prod, which
 * keeps 12 registers free in the loop. */
template <class F>
FF_INLINE void fixed_forward(const fixed_args &a, size_t t, typename F::E &prod)
{
    constexpr int E4 = F::U4;
    F::set_one(prod);
#pragma unroll 1
    for (unsigned j = 0; j < a.K; j++) {
        size_t i = (size_t)j * a.T + t;
        if (i >= a.n) break;
        uint32_t c[8];
        fixed_scalar(a, i, c);
        ec_xyzz<F> acc;
        fixed_point<F>(acc, a.table, a.w, a.nwin, c);
        uint4 *o = a.out + i * 2 * E4, *s = a.scratch + i * 3 * E4;
        F::store(s, acc.zz);
        if (ec_is_inf<F>(acc)) continue;
        F::store(o, acc.x);
        F::store(o + E4, acc.y);
        F::store(s + E4, acc.zzz);
        F::store(s + 2 * E4, prod);
        F::mul(prod, prod, acc.zzz);
    }
}

/* Backward pass of thread t, given inv = 1 / (its prod): the affine
 * points, last first (ec_unbatch_affine; infinity (0, 0)). */
template <class F>
FF_INLINE void fixed_backward(const fixed_args &a, size_t t, typename F::E inv)
{
    constexpr int E4 = F::U4;
#pragma unroll 1
    for (unsigned j = a.K; j-- > 0;) {
        size_t i = (size_t)j * a.T + t;
        if (i >= a.n) continue;
        ec_unbatch_affine<F>(a.out + i * 2 * E4, a.scratch + i * 3 * E4, inv);
    }
}

/* The block's inversion tree, heap order: node 1 the root, node p has
 * children 2p and 2p + 1, the threads' products are the leaves
 * FIXED_BLOCK + t. One level of the up pass (s nodes, s = FIXED_BLOCK / 2,
 * ..., 1): node s + t = the product of its children. */
template <class F>
FF_INLINE void fixed_tree_up(typename F::E *tree, unsigned s, unsigned t)
{
    if (t >= s) return;
    unsigned p = s + t;
    F::mul(tree[p], tree[2 * p], tree[2 * p + 1]);
}

/* After the root was inverted: one level of the down pass (s = 1, 2, ...,
 * FIXED_BLOCK / 2): node p holds 1 / (its product), its children their
 * values; they become 1 / (their values): 1/L = (1/P) R, 1/R = (1/P) L. */
template <class F>
FF_INLINE void fixed_tree_down(typename F::E *tree, unsigned s, unsigned t)
{
    if (t >= s) return;
    unsigned p = s + t;
    typename F::E l = tree[2 * p], r = tree[2 * p + 1], ip = tree[p];
    F::mul(tree[2 * p], ip, r);
    F::mul(tree[2 * p + 1], ip, l);
}

#ifdef CUZK_FF_HOST_EMULATION
/* The kernel of fixed.cu run on the host, block after block, thread after
 * thread, with the barriers between the loops (a.T, a.K set). */
template <class F>
static void fixed_emulate(const fixed_args &a)
{
    typedef typename F::E E;
    E *tree = (E *)malloc(2 * FIXED_BLOCK * sizeof(E));
    if (!tree) abort();
    for (size_t b = 0; b < a.T / FIXED_BLOCK; b++) {
        for (unsigned t = 0; t < FIXED_BLOCK; t++)
            fixed_forward<F>(a, b * FIXED_BLOCK + t, tree[FIXED_BLOCK + t]);
        for (unsigned s = FIXED_BLOCK / 2; s >= 1; s >>= 1)
            for (unsigned t = 0; t < FIXED_BLOCK; t++) fixed_tree_up<F>(tree, s, t);
        F::inv(tree[1], tree[1]);
        for (unsigned s = 1; s < FIXED_BLOCK; s <<= 1)
            for (unsigned t = 0; t < FIXED_BLOCK; t++) fixed_tree_down<F>(tree, s, t);
        for (unsigned t = 0; t < FIXED_BLOCK; t++)
            fixed_backward<F>(a, b * FIXED_BLOCK + t, tree[FIXED_BLOCK + t]);
    }
    free(tree);
}
#endif

/* -------------------------------------------- host helpers (CPU library) -- */

/* The CPU group of each coordinate field. */
template <class F>
struct fixed_cpu;
template <>
struct fixed_cpu<EcFp> {
    typedef cuzk_g1_affine aff;
    typedef cuzk_g1_jac jac;
    typedef cuzk_fp fe;
    static void from_affine(jac *r, const aff *p) { cuzk_g1_from_affine(r, p); }
    static void add(jac *r, const jac *p, const jac *q) { cuzk_g1_add(r, p, q); }
    static void dbl(jac *r, const jac *p) { cuzk_g1_dbl(r, p); }
    static void batch_to_affine(aff *r, const jac *p, size_t n, fe *s)
    {
        cuzk_g1_batch_to_affine(r, p, n, s);
    }
};
template <>
struct fixed_cpu<EcFp2> {
    typedef cuzk_g2_affine aff;
    typedef cuzk_g2_jac jac;
    typedef cuzk_fp2 fe;
    static void from_affine(jac *r, const aff *p) { cuzk_g2_from_affine(r, p); }
    static void add(jac *r, const jac *p, const jac *q) { cuzk_g2_add(r, p, q); }
    static void dbl(jac *r, const jac *p) { cuzk_g2_dbl(r, p); }
    static void batch_to_affine(aff *r, const jac *p, size_t n, fe *s)
    {
        cuzk_g2_batch_to_affine(r, p, n, s);
    }
};

/* out[k half + d - 1] = d 2^(w k) base for k < nwin, 1 <= d <= half =
 * 2^(w-1), affine (a table of the layout above, by CPU additions: for the
 * bootstrap table, and as the reference in tests). base must be in the
 * order-r subgroup and not infinity, so no entry is infinity. Returns 0, or
 * -1 when out of host memory. */
template <class F>
static int fixed_cpu_table(typename fixed_cpu<F>::aff *out, const typename fixed_cpu<F>::aff *base,
                           unsigned w, unsigned nwin)
{
    typedef fixed_cpu<F> G;
    size_t half = (size_t)1 << (w - 1), total = (size_t)nwin * half;
    typename G::jac *tmp = (typename G::jac *)malloc(total * sizeof *tmp);
    typename G::fe *scr = (typename G::fe *)malloc(total * sizeof *scr);
    if (!tmp || !scr) {
        free(tmp);
        free(scr);
        return -1;
    }
    typename G::jac b;
    G::from_affine(&b, base);
    for (unsigned k = 0; k < nwin; k++) {
        typename G::jac *row = tmp + (size_t)k * half;
        row[0] = b;
        for (size_t d = 1; d < half; d++) G::add(&row[d], &row[d - 1], &b);
        for (unsigned q = 0; q < w; q++) G::dbl(&b, &b);
    }
    G::batch_to_affine(out, tmp, total, scr);
    free(tmp);
    free(scr);
    return 0;
}

/* ck[k] = 2^(w k) in Montgomery form (2^(w k) R mod r), k < nwin. */
static inline void fixed_window_consts(cuzk_fr *ck, unsigned w, unsigned nwin)
{
    cuzk_fr x = CUZK_FR_ONE;
    for (unsigned k = 0; k < nwin; k++) {
        ck[k] = x;
        for (unsigned q = 0; q < w; q++) cuzk_fr_dbl(&x, &x);
    }
}

#endif /* CUZK_GPU_FIXED_CUH */
