/* The MSM stage bodies of src/gpu/msm.cuh compiled for the host, with the
 * PTX carry chains emulated (CUZK_FF_HOST_EMULATION), each kernel launch of
 * src/gpu/msm.cu replaced by a loop over its threads, against the CPU MSM
 * (cuzk_g1_msm_var, cuzk_g2_msm_var). It checks the device code's logic on machines
 * without a GPU, so it runs with the CPU tests; test_gpu_msm checks the real
 * kernels and their driver on a GPU.
 *
 * Plain plans, and precomputed ones (CUZK_GPU_MSM_PRECOMPUTE): the table
 * steps (msm_table_thread, every entry against [2^(c w)] P_i by the CPU, in
 * several batches), digits that index one set of buckets, and the reduction
 * in virtual windows (also with small ones, so that several windows and
 * every level-2 shape are used at these sizes), and plain windows over a
 * precomputed plan's table (its first part). G1 and G2; random scalars
 * at several sizes and windows, the edge cases of msm_cases.h (scalars 0, 1,
 * r - 1, 2^256 - 1, small ones, equal ones; points at infinity, repeated
 * points with equal scalars (the doubling branch), P and -P), and a prefix
 * n < N of a plan's points.
 * Bitmap sums (0/1 scalars), one bit at a time and through the subset-sum
 * table of CUZK_GPU_MSM_BITS_TABLE (msm_subset_thread, every entry checked
 * against the CPU's sum), against cuzk_g*_batch_sum_bitmap: densities 0,
 * 1/64, 1/2, 1, garbage beyond n, prefixes, and the point-set edge cases;
 * and sparse vectors split into ones and the rest (msm_split_thread).
 * Seeded: replay with CUZK_SEED=<n>. */
#define CUZK_FF_HOST_EMULATION 1
#include "gpu/msm.cuh"

#include <string.h>

#include <algorithm>
#include <vector>

extern "C" {
#include <cuzk/ec.h>
#include <cuzk/msm.h>

#include "test_points.h"
#include "test_util.h"
}
#include "msm_cases.h"

#define NAME "test_gpu_msm_emu"

/* ------------------------------------------------------ the two groups -- */

struct G1T {
    typedef EcFp F;
    typedef cuzk_g1_affine aff;
    typedef cuzk_g1_jac jac;
    typedef cuzk_g1_xyzz xyzz;
    static const char *name() { return "G1"; }
    static void base(jac *r) { cuzk_g1_from_affine(r, &CUZK_G1_GENERATOR); }
    static void mul(jac *r, const jac *p, const cuzk_fr *k) { cuzk_g1_mul(r, p, k); }
    static void add(jac *r, const jac *p, const jac *q) { cuzk_g1_add(r, p, q); }
    static void dbl(jac *r, const jac *p) { cuzk_g1_dbl(r, p); }
    static void from_aff(jac *r, const aff *p) { cuzk_g1_from_affine(r, p); }
    static void to_aff(aff *r, const jac *p) { cuzk_g1_to_affine(r, p); }
    static void neg(aff *r, const aff *p) { cuzk_g1_affine_neg(r, p); }
    static int eq(const jac *a, const jac *b) { return cuzk_g1_jac_eq(a, b); }
    static void x_inf(xyzz *r) { cuzk_g1_xyzz_set_inf(r); }
    static void x_add(xyzz *r, const xyzz *p, const xyzz *q) { cuzk_g1_xyzz_add(r, p, q); }
    static void x_dbl(xyzz *r, const xyzz *p) { cuzk_g1_xyzz_dbl(r, p); }
    static void x_jac(jac *r, const xyzz *p) { cuzk_g1_xyzz_to_jac(r, p); }
    static void x_aff(xyzz *r, const aff *p) { cuzk_g1_xyzz_from_affine(r, p); }
    static cuzk_status msm(jac *r, const aff *p, const cuzk_scalar *k, size_t n)
    {
        return cuzk_g1_msm_var(r, p, k, n, 1);
    }
    static cuzk_status bits(jac *r, const aff *p, const uint64_t *b, size_t n)
    {
        return cuzk_g1_batch_sum_bitmap_var(r, p, b, n, 1);
    }
};

struct G2T {
    typedef EcFp2 F;
    typedef cuzk_g2_affine aff;
    typedef cuzk_g2_jac jac;
    typedef cuzk_g2_xyzz xyzz;
    static const char *name() { return "G2"; }
    static void base(jac *r) { cuzk_g2_from_affine(r, &CUZK_G2_GENERATOR); }
    static void mul(jac *r, const jac *p, const cuzk_fr *k) { cuzk_g2_mul(r, p, k); }
    static void add(jac *r, const jac *p, const jac *q) { cuzk_g2_add(r, p, q); }
    static void dbl(jac *r, const jac *p) { cuzk_g2_dbl(r, p); }
    static void from_aff(jac *r, const aff *p) { cuzk_g2_from_affine(r, p); }
    static void to_aff(aff *r, const jac *p) { cuzk_g2_to_affine(r, p); }
    static void neg(aff *r, const aff *p) { cuzk_g2_affine_neg(r, p); }
    static int eq(const jac *a, const jac *b) { return cuzk_g2_jac_eq(a, b); }
    static void x_inf(xyzz *r) { cuzk_g2_xyzz_set_inf(r); }
    static void x_add(xyzz *r, const xyzz *p, const xyzz *q) { cuzk_g2_xyzz_add(r, p, q); }
    static void x_dbl(xyzz *r, const xyzz *p) { cuzk_g2_xyzz_dbl(r, p); }
    static void x_jac(jac *r, const xyzz *p) { cuzk_g2_xyzz_to_jac(r, p); }
    static void x_aff(xyzz *r, const aff *p) { cuzk_g2_xyzz_from_affine(r, p); }
    static cuzk_status msm(jac *r, const aff *p, const cuzk_scalar *k, size_t n)
    {
        return cuzk_g2_msm_var(r, p, k, n, 1);
    }
    static cuzk_status bits(jac *r, const aff *p, const uint64_t *b, size_t n)
    {
        return cuzk_g2_batch_sum_bitmap_var(r, p, b, n, 1);
    }
};

/* Device-layout arrays: uint4 words, as cudaMalloc'ed memory is. */
typedef std::vector<uint4> dvec;

template <class G>
static size_t aff_u4() { return ec_aff<typename G::F>::U4; }
template <class G>
static size_t xyzz_u4() { return ec_xyzz<typename G::F>::U4; }

/* Distinct pseudo-random points (test_points.h). */
static void gen_points(cuzk_g1_affine *out, size_t n) { test_g1_points(out, n); }
static void gen_points(cuzk_g2_affine *out, size_t n) { test_g2_points(out, n); }


/* ------------------------------------------------ the emulated plan -- */

/* A plan's device arrays: points (a precomputed plan: the table, nwin N
 * points) and the infinity flags. */
template <class G>
struct emu_plan {
    size_t N;
    bool pre;
    msm_geom g, rg;
    dvec points;
    std::vector<uint8_t> inf;
};

/* plan_alloc + plan_finish of msm.cu, with nthreads table threads per
 * launch (msm.cu takes as many as its scratch holds). */
template <class G>
static void emu_plan_make(emu_plan<G> &pl, const typename G::aff *pts, size_t N, unsigned c,
                          bool pre, unsigned vbits, size_t nthreads)
{
    typedef typename G::F F;
    const size_t A = aff_u4<G>();
    pl.N = N;
    pl.pre = pre;
    if (pre) {
        msm_geom_init_pre(&pl.g, &pl.rg, c, N, vbits);
    } else {
        msm_geom_init(&pl.g, c);
        pl.rg = pl.g;
    }
    pl.points.assign((pre ? pl.g.nwin : 1) * N * A, uint4{0, 0, 0, 0});
    memcpy(pl.points.data(), pts, N * sizeof *pts);
    pl.inf.assign(N, 0);
    for (size_t i = 0; i < N; i++) {
        ec_aff<F> a;
        ec_load_aff<F>(a, pl.points.data() + i * A);
        pl.inf[i] = ec_aff_is_inf<F>(a) ? 1 : 0;
    }
    if (!pre) return;
    size_t batch = nthreads * MSM_TAB_K;
    dvec tmp(batch * 3 * F::U4, uint4{0xdeadbeef, 0xdeadbeef, 0xdeadbeef, 0xdeadbeef});
    for (unsigned w = 1; w < pl.g.nwin; w++)
        for (size_t off = 0; off < N; off += batch)
            for (size_t t = 0; t < nthreads; t++)
                msm_table_thread<F>(pl.points.data() + (w - 1) * N * A,
                                    pl.points.data() + w * N * A, c, N, off, nthreads,
                                    tmp.data(), t);
}

/* msm_run of msm_impl.cuh, then the host's last step: the windows sorted
 * wb at a time (0: all at once, as msm_digits_thread; a plain plan's
 * window_batches), each batch's digits, sort, accumulation and combine into
 * the one set of buckets. */
template <class G>
static void emu_msm(const emu_plan<G> &pl, const cuzk_scalar *k, size_t n, typename G::jac *r,
                    unsigned wb = 0)
{
    typedef typename G::F F;
    const size_t X = xyzz_u4<G>();
    const msm_geom &g = pl.g, &rg = pl.rg;
    size_t nbuckets = (size_t)rg.nwin * rg.nb;
    dvec buckets(nbuckets * X, uint4{0, 0, 0, 0}); /* msm_clear_kernel: ZZ = 0 */
    if (!wb) wb = g.nwin;
    for (unsigned w0 = 0; w0 < g.nwin; w0 += wb) {
        unsigned w1 = w0 + wb < g.nwin ? w0 + wb : g.nwin;
        size_t m = (size_t)(w1 - w0) * n;
        std::vector<uint32_t> keys(m), vals(m);
        const uint4 *ks = (const uint4 *)k;
        for (size_t i = 0; i < n; i++) {
            if (w0 == 0 && w1 == g.nwin)
                msm_digits_thread(g, ks, pl.inf.data(), (uint32_t)n, keys.data(), vals.data(),
                                  (uint32_t)i);
            else
                msm_digits_of(g, ks[2 * i], ks[2 * i + 1], pl.inf[i] != 0, (uint32_t)i,
                              (uint32_t)n, (uint32_t)i, w0, w1, keys.data(), vals.data());
        }
        /* The sort: CUB's is stable by key; any order within a key is fine. */
        std::vector<uint64_t> kv(m);
        size_t bad = 0;
        for (size_t i = 0; i < m; i++) {
            bad += keys[i] > g.sentinel || (keys[i] < g.sentinel && (vals[i] & 0x7fffffffu) >=
                                            pl.points.size() / aff_u4<G>());
            kv[i] = (uint64_t)keys[i] << 32 | vals[i];
        }
        CHECK_MSG(bad == 0, "%s: %zu digit entries out of range", G::name(), bad);
        std::stable_sort(kv.begin(), kv.end(),
                         [](uint64_t a, uint64_t b) { return (a >> 32) < (b >> 32); });
        for (size_t i = 0; i < m; i++)
            keys[i] = (uint32_t)(kv[i] >> 32), vals[i] = (uint32_t)kv[i];

        size_t nchunks = (m + MSM_CHUNK - 1) / MSM_CHUNK;
        dvec pieces(2 * (nchunks + 1) * X, uint4{1, 2, 3, 4});
        msm_acc_args a;
        a.keys = keys.data();
        a.vals = vals.data();
        a.m = m;
        a.sentinel = g.sentinel;
        a.points = pl.points.data();
        a.buckets = buckets.data();
        a.pieces = pieces.data();
        for (size_t t = 0; t < nchunks; t++) msm_accumulate_thread<F>(a, t);
        for (size_t t = 0; t < nchunks; t++) msm_combine_thread<F>(a, t);
    }

    dvec seg(2 * (size_t)rg.nwin * rg.t1 * X), tree(2 * (size_t)rg.nwin * rg.t1 * X),
        win(2 * (size_t)rg.nwin * X);
    msm_reduce_emulate<F>(rg, buckets.data(), seg.data(), tree.data(), win.data());

    const typename G::xyzz *sw = (const typename G::xyzz *)win.data();
    if (!pl.pre) {
        /* Windows, top first: acc = 2^c acc + S_w. */
        typename G::jac acc, t;
        G::x_jac(&acc, &sw[g.nwin - 1]);
        for (unsigned w = g.nwin - 1; w-- > 0;) {
            for (unsigned i = 0; i < g.c; i++) G::dbl(&acc, &acc);
            G::x_jac(&t, &sw[w]);
            G::add(&acc, &acc, &t);
        }
        *r = acc;
        return;
    }
    /* Virtual windows: sum_v S_v + nbv sum_v v U_v, U_v after the S_v (as
     * the host's result in msm_impl.cuh). */
    const typename G::xyzz *uv = sw + rg.nwin;
    typename G::xyzz acc, run, tot;
    G::x_inf(&acc);
    G::x_inf(&run);
    G::x_inf(&tot);
    for (unsigned v = rg.nwin; v-- > 1;) {
        G::x_add(&run, &run, &uv[v]);
        G::x_add(&tot, &tot, &run);
    }
    for (unsigned i = 0; i + 1 < rg.c; i++) G::x_dbl(&tot, &tot);
    for (unsigned v = 0; v < rg.nwin; v++) G::x_add(&acc, &acc, &sw[v]);
    G::x_add(&acc, &acc, &tot);
    G::x_jac(r, &acc);
}

/* The subset-sum table of a CUZK_GPU_MSM_BITS_TABLE plan (plan_finish). */
template <class G>
static dvec emu_subsets(const emu_plan<G> &pl)
{
    const size_t ng = (pl.N + 3) / 4;
    dvec tab(ng * MSM_SUBSETS * aff_u4<G>(), uint4{7, 7, 7, 7});
    for (size_t q = 0; q < ng; q++)
        msm_subset_thread<typename G::F>(pl.points.data(), pl.inf.data(), pl.N, tab.data(), q);
    return tab;
}

/* bits_run of msm_impl.cuh at K bits a thread (through the table if tab is
 * given), then the host's last additions. */
template <class G>
static void emu_bits(const emu_plan<G> &pl, const dvec *tab, const uint64_t *bits, size_t n,
                     typename G::jac *r, uint32_t K = MSM_BITS_PER_THREAD)
{
    typedef typename G::F F;
    const size_t X = xyzz_u4<G>();
    const size_t nw = (n + 63) / 64;
    std::vector<uint64_t> live((pl.N + 63) / 64);
    for (size_t w = 0; w < live.size(); w++) msm_live_thread(pl.inf.data(), pl.N, live.data(), w);
    std::vector<uint32_t> cnt(nw), off(nw);
    for (size_t w = 0; w < nw; w++) {
        if (tab) msm_bits_count_thread<true>(bits, live.data(), n, cnt.data(), w);
        else msm_bits_count_thread<false>(bits, live.data(), n, cnt.data(), w);
    }
    for (size_t w = 0, acc = 0; w < nw; w++) off[w] = (uint32_t)acc, acc += cnt[w];
    size_t most = tab ? (n + 3) / 4 : n, m = (most + K - 1) / K;
    dvec in(m * X, uint4{9, 9, 9, 9});
    for (size_t t = 0; t < m; t++) {
        if (tab)
            msm_bits_thread<F, true>(bits, live.data(), n, cnt.data(), off.data(), nw,
                                     tab->data(), in.data(), K, t);
        else
            msm_bits_thread<F, false>(bits, live.data(), n, cnt.data(), off.data(), nw,
                                      pl.points.data(), in.data(), K, t);
    }
    while (m > 1) { /* the GPU folds to MSM_HOST_SUMS; all the way here */
        size_t next = (m + MSM_SUM_FAN - 1) / MSM_SUM_FAN;
        dvec out(next * X);
        for (size_t t = 0; t < next; t++) msm_sum_thread<F>(in.data(), m, out.data(), t);
        in.swap(out);
        m = next;
    }
    G::x_jac(r, (const typename G::xyzz *)in.data());
}

/* ------------------------------------------------------------ checks -- */

/* Every subset sum of the table against the CPU's. */
template <class G>
static void check_subsets(const emu_plan<G> &pl, const dvec &tab, const typename G::aff *pts)
{
    int bad = 0;
    for (size_t q = 0; q < (pl.N + 3) / 4; q++) {
        size_t cnt = pl.N - 4 * q < 4 ? pl.N - 4 * q : 4;
        for (unsigned s = 1; s < 16; s++) {
            uint64_t b = s;
            typename G::aff e;
            typename G::jac want, got;
            CHECK(G::bits(&want, pts + 4 * q, &b, cnt) == CUZK_OK);
            memcpy(&e, tab.data() + (q * MSM_SUBSETS + s - 1) * aff_u4<G>(), sizeof e);
            G::from_aff(&got, &e);
            bad += !G::eq(&want, &got);
        }
    }
    CHECK_MSG(bad == 0, "%s subset table N=%zu: %d of %zu entries wrong", G::name(), pl.N, bad,
              (pl.N + 3) / 4 * MSM_SUBSETS);
}

/* A bitmap sum, one bit at a time and through the table, against the CPU. */
template <class G>
static void compare_bits(const emu_plan<G> &pl, const dvec &tab, const typename G::aff *pts,
                         const uint64_t *bits, size_t n, const char *what)
{
    typename G::jac want, got;
    CHECK(G::bits(&want, pts, bits, n) == CUZK_OK);
    /* The longest and the shortest thread lengths bits_run takes. */
    for (uint32_t K : {MSM_BITS_PER_THREAD, MSM_BITS_PER_THREAD_MIN}) {
        emu_bits<G>(pl, NULL, bits, n, &got, K);
        CHECK_MSG(G::eq(&want, &got), "%s bitmap %s n=%zu N=%zu K=%u: differs from the CPU",
                  G::name(), what, n, pl.N, K);
        emu_bits<G>(pl, &tab, bits, n, &got, K);
        CHECK_MSG(G::eq(&want, &got),
                  "%s bitmap (subset table) %s n=%zu N=%zu K=%u: differs from the CPU", G::name(),
                  what, n, pl.N, K);
    }
}

/* Every table entry T[w][i] against [2^(c w)] P_i. */
template <class G>
static void check_table(const emu_plan<G> &pl, const typename G::aff *pts)
{
    const size_t A = aff_u4<G>();
    int bad = 0;
    for (size_t i = 0; i < pl.N; i++) {
        typename G::jac p;
        G::from_aff(&p, &pts[i]);
        for (unsigned w = 0; w < pl.g.nwin; w++) {
            if (w)
                for (unsigned b = 0; b < pl.g.c; b++) G::dbl(&p, &p);
            typename G::aff want;
            G::to_aff(&want, &p);
            bad += memcmp(&want, pl.points.data() + (w * pl.N + i) * A, sizeof want) != 0;
        }
    }
    CHECK_MSG(bad == 0, "%s table N=%zu c=%u: %d of %zu entries wrong", G::name(), pl.N,
              pl.g.c, bad, pl.N * pl.g.nwin);
}

template <class G>
static void compare(const emu_plan<G> &pl, const typename G::aff *pts, const cuzk_scalar *k,
                    size_t n, const char *what)
{
    typename G::jac want, got;
    CHECK(G::msm(&want, pts, k, n) == CUZK_OK);
    emu_msm<G>(pl, k, n, &got);
    CHECK_MSG(G::eq(&want, &got), "%s %s %s n=%zu N=%zu c=%u V=%u: differs from the CPU",
              G::name(), pl.pre ? "precomputed" : "plain", what, n, pl.N, pl.g.c, pl.rg.nwin);
    if (pl.pre) return; /* a precomputed plan's windows share buckets: no batches */
    /* The windows in batches of 2 and of 5 (window_batches). */
    for (unsigned wb : {2u, 5u}) {
        if (wb >= pl.g.nwin) continue;
        emu_msm<G>(pl, k, n, &got, wb);
        CHECK_MSG(G::eq(&want, &got), "%s plain %s n=%zu c=%u, windows %u at a time: differs "
                  "from the CPU", G::name(), what, n, pl.g.c, wb);
    }
}


/* One point set of N points: plans of each shape, random scalars for all N
 * and for a prefix, then the edge cases on smaller sets. */
template <class G>
static void run_group(size_t nmax, int quick)
{
    std::vector<typename G::aff> base(nmax), p(nmax);
    std::vector<cuzk_scalar> k(nmax);
    gen_points(base.data(), nmax);
    /* (N, c, precomputed, vbits, table threads per launch). vbits 17 is the
     * library's; small ones give several virtual windows (and level-2
     * shapes t2 = 1 .. 256) at these sizes. */
    struct shape {
        size_t N;
        unsigned c;
        bool pre;
        unsigned vbits;
        size_t nthreads;
    };
    const shape shapes[] = {
        {nmax, 8, false, 0, 0},       {nmax / 3 + 1, 10, false, 0, 0},
        {1, 8, true, MSM_PRE_VBITS, 1}, {2, 9, true, 2, 1},
        {nmax, 8, true, MSM_PRE_VBITS, 5}, {nmax, 8, true, 3, 1000},
        {nmax, 11, true, 6, 2},       {nmax / 2 + 1, 13, true, 12, 7},
        {nmax, 10, true, 9, 3},       {nmax, 15, true, 14, 4},
    };
    for (const shape &s : shapes) {
        if (quick && s.c > 11) continue;
        if (G::name()[1] == '2' && s.c > 13) continue; /* slow in emulation */
        emu_plan<G> pl;
        emu_plan_make<G>(pl, base.data(), s.N, s.c, s.pre, s.vbits, s.nthreads);
        if (s.pre) check_table<G>(pl, base.data());
        for (size_t i = 0; i < s.N; i++) rand_scalar(&k[i]);
        compare<G>(pl, base.data(), k.data(), s.N, "random");
        if (s.N > 2) compare<G>(pl, base.data(), k.data(), s.N / 3 + 1, "prefix");
        if (s.pre) {
            /* Plain windows over the table's first part (the points), as a
             * compact call on a precomputed plan would take them. */
            emu_plan<G> pp = pl;
            pp.pre = false;
            msm_geom_init(&pp.g, 8);
            pp.rg = pp.g;
            compare<G>(pp, base.data(), k.data(), s.N / 3 + 1, "plain windows over a table");
        }
        printf("  %s %s N = %zu c = %u (%u windows, %u reduction windows of %u buckets):"
               " done (%d failures so far)\n",
               G::name(), s.pre ? "precomputed" : "plain", s.N, s.c, pl.g.nwin, pl.rg.nwin,
               pl.rg.nb, test_failures);
    }
    size_t n = quick ? 40 : nmax < 200 ? nmax : 200;
    for (int e = 0; e < E_COUNT; e++) {
        edge_case<G>(e, base.data(), p.data(), k.data(), n);
        for (int pre = 0; pre < 2; pre++) {
            emu_plan<G> pl;
            emu_plan_make<G>(pl, p.data(), n, e & 1 ? 8 : 9, pre != 0, 4, 3);
            if (pre && e == E_INF) check_table<G>(pl, p.data());
            compare<G>(pl, p.data(), k.data(), n, edge_names[e]);
        }
    }
    printf("  %s edge cases: done (%d failures so far)\n", G::name(), test_failures);
}

/* A sparse MSM (cuzk_gpu_g*_msm_sparse): the split, the ones' bitmap sum
 * (through the table if given) and the MSM of the rest, against the CPU. */
template <class G>
static void compare_sparse(const emu_plan<G> &pl, const dvec *tab, const typename G::aff *pts,
                           const cuzk_scalar *k, size_t n, const char *what)
{
    size_t nw = (n + 63) / 64;
    std::vector<uint64_t> ones(nw, 0xdeadbeefull);
    std::vector<cuzk_scalar> rest(n);
    for (size_t w = 0; w < nw; w++)
        msm_split_thread((const uint4 *)k, (uint4 *)rest.data(), n, ones.data(), w);
    typename G::jac want, a, b;
    CHECK(G::msm(&want, pts, k, n) == CUZK_OK);
    emu_bits<G>(pl, tab, ones.data(), n, &a);
    emu_msm<G>(pl, rest.data(), n, &b);
    G::add(&a, &a, &b);
    CHECK_MSG(G::eq(&want, &a), "%s sparse%s %s n=%zu N=%zu: differs from the CPU", G::name(),
              tab ? " (subset table)" : "", what, n, pl.N);
}

/* Bitmap sums: sizes around groups of 4 and words, densities, prefixes,
 * and point sets with repeats, P and -P in one group, infinity. */
template <class G>
static void run_bits(size_t nmax, int quick)
{
    std::vector<typename G::aff> base(nmax), p(nmax);
    std::vector<cuzk_scalar> k(nmax);
    std::vector<uint64_t> bits((nmax + 63) / 64);
    gen_points(base.data(), nmax);
    static const size_t sizes[] = {1, 3, 4, 5, 63, 64, 65, 130, 257, 1000};
    static const char *dens[] = {"none", "1/64", "1/2", "all", "runs"};
    for (size_t N : sizes) {
        if (N > nmax) continue;
        emu_plan<G> pl;
        emu_plan_make<G>(pl, base.data(), N, 8, false, 0, 0);
        dvec tab = emu_subsets<G>(pl);
        check_subsets<G>(pl, tab, base.data());
        for (int d = 0; d < 5; d++) {
            for (size_t w = 0; w < (N + 63) / 64; w++) {
                uint64_t r = test_rand64();
                bits[w] = d == 0 ? 0 : d == 1 ? (uint64_t)1 << (r & 63) : d == 2 ? r
                        : d == 3 ? ~(uint64_t)0 : (w & 1 ? ~(uint64_t)0 : r & 0xf0f0ff00ff0ff00full);
            }
            if (N & 63) bits[N / 64] |= ~(((uint64_t)1 << (N & 63)) - 1); /* garbage */
            compare_bits<G>(pl, tab, base.data(), bits.data(), N, dens[d]);
            if (N > 2) compare_bits<G>(pl, tab, base.data(), bits.data(), N / 2 + 1, "prefix");
        }
        /* Sparse: 1/2 ones, 1/4 zeros, 1/4 random, and 1 + r (not split). */
        for (size_t i = 0; i < N; i++) {
            uint64_t r = test_rand64() & 7;
            memset(&k[i], 0, sizeof k[i]);
            if (r < 4) k[i].l[0] = 1;
            else if (r == 4) memcpy(k[i].l, R_LIMBS, sizeof k[i].l), k[i].l[0] += 1;
            else if (r >= 6) rand_scalar(&k[i]);
        }
        compare_sparse<G>(pl, NULL, base.data(), k.data(), N, "mix");
        compare_sparse<G>(pl, &tab, base.data(), k.data(), N, "mix");
    }
    size_t n = quick ? 40 : 200;
    if (n > nmax) n = nmax;
    for (int e = E_REPEAT_EQ; e < E_COUNT; e++) {
        edge_case<G>(e, base.data(), p.data(), k.data(), n);
        emu_plan<G> pl;
        emu_plan_make<G>(pl, p.data(), n, 8, false, 0, 0);
        dvec tab = emu_subsets<G>(pl);
        check_subsets<G>(pl, tab, p.data());
        for (size_t w = 0; w < (n + 63) / 64; w++) bits[w] = ~(uint64_t)0;
        compare_bits<G>(pl, tab, p.data(), bits.data(), n, edge_names[e]);
        for (size_t w = 0; w < (n + 63) / 64; w++) bits[w] = test_rand64();
        compare_bits<G>(pl, tab, p.data(), bits.data(), n, edge_names[e]);
    }
    printf("  %s bitmaps: done (%d failures so far)\n", G::name(), test_failures);
}

/* The reduction alone (msm_reduce_emulate: level 1, the tree's launches,
 * the finish) on random buckets, some at infinity, some with Z != 1: every
 * window's S = sum_j j B_j and U = sum_j B_j against the CPU's running sums,
 * at segment lengths from 1 to the whole window and trees of 0 to 7 levels,
 * beside the shapes msm_geom_red picks. */
template <class G>
static void check_reduce(const typename G::aff *pts, size_t npts)
{
    typedef typename G::F F;
    const size_t X = xyzz_u4<G>();
    static const struct { unsigned c, nwin; uint32_t s1; } shapes[] = {
        {2, 1, 1}, {2, 3, 2}, {4, 1, 1}, {4, 2, 8}, {5, 3, 2}, {6, 2, 4}, {7, 1, 32}, {8, 2, 1},
        {8, 1, 16}, {9, 2, 0}};
    for (const auto &sh : shapes) {
        int bad = 0;
        msm_geom g;
        msm_geom_init(&g, sh.c);
        g.nwin = sh.nwin;
        if (sh.s1) {
            msm_geom_set_s1(&g, sh.s1);
        } else {
            msm_geom_red(&g);
        }
        dvec buckets((size_t)g.nwin * g.nb * X), seg(2 * (size_t)g.nwin * g.t1 * X),
            tree(2 * (size_t)g.nwin * g.t1 * X), win(2 * (size_t)g.nwin * X);
        std::vector<typename G::xyzz> b((size_t)g.nwin * g.nb);
        for (size_t i = 0; i < b.size(); i++) {
            uint64_t r = test_rand64();
            if (r % 5 == 0) {
                G::x_inf(&b[i]);
            } else {
                G::x_aff(&b[i], &pts[(r >> 8) % npts]);
                if (r & 0x10) G::x_dbl(&b[i], &b[i]);
            }
        }
        memcpy(buckets.data(), b.data(), b.size() * sizeof b[0]);
        msm_reduce_emulate<F>(g, buckets.data(), seg.data(), tree.data(), win.data());
        const typename G::xyzz *got = (const typename G::xyzz *)win.data();
        for (size_t w = 0; w < g.nwin; w++) {
            typename G::xyzz run, tot;
            G::x_inf(&run);
            G::x_inf(&tot);
            for (size_t j = g.nb; j-- > 0;) {
                G::x_add(&run, &run, &b[w * g.nb + j]);
                G::x_add(&tot, &tot, &run);
            }
            typename G::jac a, e;
            G::x_jac(&a, &got[w]);
            G::x_jac(&e, &tot);
            bad += !G::eq(&a, &e);
            G::x_jac(&a, &got[g.nwin + w]);
            G::x_jac(&e, &run);
            bad += !G::eq(&a, &e);
        }
        CHECK_MSG(bad == 0, "%s reduction c=%u nwin=%u s1=%u t1=%u: %d sums differ from the CPU",
                  G::name(), sh.c, sh.nwin, g.s1, g.t1, bad);
    }
}

int main(void)
{
    test_seed(NAME);
    int quick = getenv("CUZK_TEST_QUICK") != NULL;
    {
        std::vector<cuzk_g1_affine> p1(64);
        std::vector<cuzk_g2_affine> p2(64);
        gen_points(p1.data(), p1.size());
        gen_points(p2.data(), p2.size());
        check_reduce<G1T>(p1.data(), p1.size());
        check_reduce<G2T>(p2.data(), p2.size());
        printf("  reductions: done (%d failures so far)\n", test_failures);
    }
    run_group<G1T>(quick ? 100 : 600, quick);
    run_group<G2T>(quick ? 40 : 150, quick);
    run_bits<G1T>(quick ? 100 : 1000, quick);
    run_bits<G2T>(quick ? 100 : 300, quick);
    return test_done(NAME);
}
