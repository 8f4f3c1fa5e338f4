/* The GPU MSM's per-thread bodies (src/gpu/msm.cuh, msm_affine.cuh) compiled
 * for the host, with the PTX carry chains emulated (CUZK_FF_HOST_EMULATION,
 * as test_gpu_ff_emu), driven by host loops in place of the kernel launches
 * (digits, sort, clear, accumulate, combine, the two reduction levels, then
 * the host's window sum as msm.cu does it), against the CPU MSM
 * (cuzk_g1_msm_var, cuzk_g2_msm_var). It checks the stage logic on machines without
 * a GPU; test_gpu_msm runs the real kernels.
 *
 * Checked: the safegcd inversion against cuzk_fp_inv / cuzk_fp2_inv
 * (random values and 0, 1, 2, p - 1, p - 2, R, small and sparse values, with
 * and without its early exit); MSMs by both accumulation methods, XYZZ and
 * batch-affine, the latter with several stream counts K and lengths (K = 1
 * and length 1 put every run boundary on a stream boundary), on random
 * points and scalars of several sizes and windows, and on edge cases: all
 * scalars 0, 1, r - 1, 2^256 - 1, small; one point repeated with equal
 * scalars (one bucket per window doubles), one point repeated, P and -P with
 * equal scalars (buckets cancel to infinity mid-run), points at infinity,
 * equal scalars on distinct points (one bucket gets every entry: runs span
 * many streams and threads). The same for the FP64 shares of the
 * batch-affine accumulation (cuzk_gpu_msm_opts.fp64_share: 1-4 of its 6
 * field products through ff_fp64.cuh's ff64_mul_fc, G2 through
 * msm_fp2_mul64, emulated as in test_gpu_ff64_emu: the host's fma()
 * rounding toward zero, hence -frounding-math), on the random inputs and
 * every edge case, both groups, bit for bit against the CPU MSM. Seeded:
 * replay with CUZK_SEED=<n>. */
#define CUZK_FF_HOST_EMULATION 1
#include "gpu/msm.cuh"
#include "gpu/msm_affine.cuh"

#include <fenv.h>
#include <string.h>

#include <algorithm>
#include <utility>
#include <vector>

extern "C" {
#include <cuzk/ec.h>
#include <cuzk/msm.h>

#include "test_points.h"
#include "test_util.h"
}
#include "msm_cases.h"

#define NAME "test_gpu_msm_affine_emu"


/* ---------------------------------------------------------- inversion -- */

static void check_inv(void)
{
    const int iters = 20000;
    int bad = 0, bad_ct = 0, maxb = 0;
    double sumb = 0;
    for (int it = 0; it < iters; it++) {
        cuzk_fp a, want, got;
        uint64_t v[CUZK_FP_LIMBS] = {0};
        if (it < 16) {
            /* Edge values as raw (Montgomery) limbs: 0, 1, 2, p - 1, p - 2,
             * 2^k, then small and sparse ones. */
            switch (it) {
            case 0: break;
            case 1: v[0] = 1; break;
            case 2: v[0] = 2; break;
            case 3: case 4:
                memcpy(v, CUZK_FP_MODULUS, sizeof v);
                v[0] -= (uint64_t)(it - 2);
                break;
            case 5: v[5] = (uint64_t)1 << 60; break;
            case 6: v[3] = 1; break;
            default: v[it % 6] = test_rand64() >> (it % 60); break;
            }
            memcpy(a.l, v, sizeof v);
        } else if (it == 16) {
            cuzk_fp_from_u64(&a, 1); /* R */
        } else {
            test_rand_fp(&a);
        }
        cuzk_fp_inv(&want, &a);
        uint32_t x[12], y[12];
        memcpy(x, a.l, sizeof x);
        int b = msm_fp_inv(y, x);
        memcpy(got.l, y, sizeof y);
        bad += !cuzk_fp_eq(&got, &want);
        if (b > maxb) maxb = b;
        sumb += b;
        if (it < 2000) {
            msm_fp_inv<false>(y, x);
            memcpy(got.l, y, sizeof y);
            bad_ct += !cuzk_fp_eq(&got, &want);
        }
    }
    CHECK_MSG(bad == 0, "Fp inverse: %d of %d differ", bad, iters);
    CHECK_MSG(bad_ct == 0, "Fp inverse, all %d batches: %d of 2000 differ", MSM_INV_BATCHES, bad_ct);
    CHECK_MSG(maxb <= MSM_INV_BATCHES, "Fp inverse: %d batches", maxb);
    printf("  Fp inverse: %d values, 30-divstep batches: mean %.2f, max %d (bound %d)\n", iters,
           sumb / iters, maxb, MSM_INV_BATCHES);
    int bad2 = 0;
    for (int it = 0; it < 2000; it++) {
        cuzk_fp2 a, want;
        test_rand_fp2(&a);
        if (it == 0) memset(&a.c1, 0, sizeof a.c1);
        if (it == 1) memset(&a.c0, 0, sizeof a.c0);
        cuzk_fp2_inv(&want, &a);
        EcFp2::E x, y;
        memcpy(&x, &a, sizeof a);
        msm_aff_field<EcFp2>::inv(y, x);
        bad2 += memcmp(&y, &want, sizeof want) != 0;
    }
    CHECK_MSG(bad2 == 0, "Fp2 inverse: %d of 2000 differ", bad2);
}

/* ------------------------------------------------------ the two groups -- */

template <class F>
struct grp;

template <>
struct grp<EcFp> {
    typedef cuzk_g1_affine aff;
    typedef cuzk_g1_jac jac;
    typedef cuzk_g1_xyzz xyzz;
    static const char *name() { return "G1"; }
    static void gen(aff *out, size_t n) { test_g1_points(out, n); }
    static cuzk_status msm(jac *r, const aff *p, const cuzk_scalar *k, size_t n)
    {
        return cuzk_g1_msm_var(r, p, k, n, 0);
    }
    static void neg(aff *r, const aff *a) { cuzk_g1_affine_neg(r, a); }
    static int eq(const jac *a, const jac *b) { return cuzk_g1_jac_eq(a, b); }
    static void set_inf(jac *r) { cuzk_g1_jac_set_inf(r); }
    static void dbl(jac *r) { cuzk_g1_dbl(r, r); }
    static void add_xyzz(jac *r, const xyzz *p)
    {
        jac t;
        cuzk_g1_xyzz_to_jac(&t, p);
        cuzk_g1_add(r, r, &t);
    }
};

template <>
struct grp<EcFp2> {
    typedef cuzk_g2_affine aff;
    typedef cuzk_g2_jac jac;
    typedef cuzk_g2_xyzz xyzz;
    static const char *name() { return "G2"; }
    static void gen(aff *out, size_t n) { test_g2_points(out, n); }
    static cuzk_status msm(jac *r, const aff *p, const cuzk_scalar *k, size_t n)
    {
        return cuzk_g2_msm_var(r, p, k, n, 0);
    }
    static void neg(aff *r, const aff *a) { cuzk_g2_affine_neg(r, a); }
    static int eq(const jac *a, const jac *b) { return cuzk_g2_jac_eq(a, b); }
    static void set_inf(jac *r) { cuzk_g2_jac_set_inf(r); }
    static void dbl(jac *r) { cuzk_g2_dbl(r, r); }
    static void add_xyzz(jac *r, const xyzz *p)
    {
        jac t;
        cuzk_g2_xyzz_to_jac(&t, p);
        cuzk_g2_add(r, r, &t);
    }
};

/* ------------------------------------------------- the emulated MSM -- */

/* An accumulation method: XYZZ (k = 0) or batch-affine with k streams per
 * thread of len entries, fp64 of its products on the FP64 pipe
 * (msm_aff_fp64_mask; fields with that route only). */
struct method {
    int k;
    uint32_t len;
    unsigned fp64;
    int step_major; /* the keys and values read in step-major order */
};

/* Thread t of the batch-affine accumulation with k streams, FP64 mask M,
 * step-major keys and values (SM). */
template <class F, unsigned M, bool SM = false>
static void aff_acc_k(const msm_aff_args &a, size_t t, int k)
{
    switch (k) {
    case 1: msm_aff_accumulate_thread<F, 1, M, SM>(a, t); break;
    case 4: msm_aff_accumulate_thread<F, 4, M, SM>(a, t); break;
    case 32: msm_aff_accumulate_thread<F, 32, M, SM>(a, t); break;
    case 64: msm_aff_accumulate_thread<F, 64, M, SM>(a, t); break;
    /* Other counts run on the 64 instance with fewer streams (a.streams),
     * as short calls do on the device (msm_aff_shape). */
    default: msm_aff_accumulate_thread<F, 64, M, SM>(a, t); break;
    }
}

/* ... with the FP64 share `share` (as msm_impl.cuh's launch). */
template <class F>
static void aff_acc(const msm_aff_args &a, size_t t, int k, unsigned share)
{
    if (a.skeys) { /* step-major order: share 0 only, as the launch */
        if (share) CHECK_MSG(0, "step-major order with share %u", share);
        else aff_acc_k<F, 0, true>(a, t, k);
        return;
    }
    if constexpr (msm_aff_field<F>::fp64) {
        switch (share) {
        case 0: aff_acc_k<F, 0>(a, t, k); break;
        case 1: aff_acc_k<F, msm_aff_fp64_mask(1)>(a, t, k); break;
        case 2: aff_acc_k<F, msm_aff_fp64_mask(2)>(a, t, k); break;
        case 3: aff_acc_k<F, msm_aff_fp64_mask(3)>(a, t, k); break;
        case 4: aff_acc_k<F, msm_aff_fp64_mask(4)>(a, t, k); break;
        default: CHECK_MSG(0, "no instance for share %u", share); break;
        }
    } else {
        CHECK_MSG(share == 0, "no FP64 route for this field");
        aff_acc_k<F, 0>(a, t, k);
    }
}

/* The plain geometry, as msm.cu makes it. */
static msm_geom geom(unsigned c)
{
    msm_geom g;
    msm_geom_init(&g, c);
    return g;
}

/* *r = sum [k_i] P_i by the device stages, run as host loops. */
template <class F>
static void emu_msm(typename grp<F>::jac *r, const typename grp<F>::aff *pts,
                    const cuzk_scalar *k, size_t n, unsigned c, method me)
{
    typedef grp<F> G;
    constexpr int A = ec_aff<F>::U4, X = ec_xyzz<F>::U4;
    static_assert(sizeof(typename G::aff) == A * sizeof(uint4), "affine layout");
    static_assert(sizeof(typename G::xyzz) == X * sizeof(uint4), "xyzz layout");
    const msm_geom g = geom(c);
    std::vector<uint4> points(n * A), scalars(2 * n);
    memcpy(points.data(), pts, n * sizeof *pts);
    memcpy(scalars.data(), k, n * sizeof *k);
    std::vector<uint8_t> inf(n);
    for (size_t i = 0; i < n; i++) {
        ec_aff<F> p;
        ec_load_aff<F>(p, &points[i * A]);
        inf[i] = ec_aff_is_inf<F>(p) ? 1 : 0;
    }
    /* 1-2. digits, then a stable sort by key (as CUB's radix sort). */
    size_t m = (size_t)g.nwin * n;
    std::vector<uint32_t> keys(m), vals(m);
    for (size_t i = 0; i < n; i++)
        msm_digits_thread(g, scalars.data(), inf.data(), (uint32_t)n, keys.data(), vals.data(),
                          (uint32_t)i);
    std::vector<std::pair<uint32_t, uint32_t> > kv(m);
    for (size_t i = 0; i < m; i++) kv[i] = std::make_pair(keys[i], vals[i]);
    std::stable_sort(kv.begin(), kv.end(),
                     [](const std::pair<uint32_t, uint32_t> &x,
                        const std::pair<uint32_t, uint32_t> &y) { return x.first < y.first; });
    for (size_t i = 0; i < m; i++) keys[i] = kv[i].first, vals[i] = kv[i].second;
    /* Buckets: garbage, with ZZ = 0 (msm_clear_kernel). */
    size_t nbk = (size_t)g.nwin * g.nb;
    std::vector<uint4> buckets(nbk * X);
    memset(buckets.data(), 0xa5, buckets.size() * sizeof(uint4));
    for (size_t i = 0; i < nbk; i++) {
        typename F::E z;
        F::set_zero(z);
        F::store(&buckets[i * X + 2 * F::U4], z);
    }
    /* 3-4. Pieces start as garbage: a slot read before it is written
     * poisons the sum. */
    if (me.k == 0) {
        size_t nchunks = (m + MSM_CHUNK - 1) / MSM_CHUNK;
        std::vector<uint4> pieces(2 * nchunks * X);
        memset(pieces.data(), 0xa5, pieces.size() * sizeof(uint4));
        msm_acc_args a;
        a.keys = keys.data();
        a.vals = vals.data();
        a.m = m;
        a.sentinel = g.sentinel;
        a.points = points.data();
        a.buckets = buckets.data();
        a.pieces = pieces.data();
        for (size_t t = 0; t < nchunks; t++) msm_accumulate_thread<F>(a, t);
        for (size_t t = 0; t < nchunks; t++) msm_combine_thread<F>(a, t);
    } else {
        size_t nstreams = (m + me.len - 1) / me.len, nthreads = (nstreams + me.k - 1) / me.k;
        std::vector<uint4> pieces(2 * nstreams * A), tpieces(2 * nthreads * X);
        memset(pieces.data(), 0xa5, pieces.size() * sizeof(uint4));
        memset(tpieces.data(), 0xa5, tpieces.size() * sizeof(uint4));
        msm_aff_args a;
        a.keys = keys.data();
        a.vals = vals.data();
        a.m = m;
        a.sentinel = g.sentinel;
        a.len = me.len;
        a.streams = (uint32_t)me.k;
        /* Step-major copies made by msm_aff_step_major_kernel's two halves,
         * block by block, every thread's loads before the barrier, then its
         * stores; every slot of the whole warps must be written once, with
         * the sentinel past the end. */
        const uint32_t Q = (uint32_t)me.k * me.len;
        const size_t warps = (nthreads + 31) / 32, nslots = warps * 32 * Q;
        std::vector<uint32_t> skeys(me.step_major ? nslots : 0, 0xdeadbeefu),
            svals(skeys.size(), 0xdeadbeefu);
        for (size_t w = 0; w < (me.step_major ? warps : 0); w++)
            for (uint32_t q0 = 0; q0 < Q; q0 += 32) {
                uint32_t tk[32][33], tv[32][33];
                for (uint32_t y = 0; y < 8; y++)
                    for (uint32_t x = 0; x < 32; x++)
                        msm_aff_step_major_load(keys.data(), vals.data(), m, g.sentinel, Q, w,
                                                q0, x, y, tk, tv);
                for (uint32_t y = 0; y < 8; y++)
                    for (uint32_t x = 0; x < 32; x++)
                        msm_aff_step_major_store(Q, w, q0, x, y, tk, tv, skeys.data(),
                                                 svals.data());
            }
        bool slots = true;
        for (size_t t = 0; t < skeys.size() / Q; t++)
            for (size_t q = 0; q < Q; q++) {
                size_t e = t * Q + q, i = msm_aff_step_major(t, q, Q);
                slots = slots && i < nslots && skeys[i] == (e < m ? keys[e] : g.sentinel) &&
                        svals[i] == (e < m ? vals[e] : 0u);
            }
        if (me.step_major && !slots) { /* its garbage keys would index outside the buckets */
            CHECK(slots);
            G::set_inf(r);
            return;
        }
        a.skeys = me.step_major ? skeys.data() : NULL;
        a.svals = me.step_major ? svals.data() : NULL;
        a.points = points.data();
        a.buckets = buckets.data();
        a.pieces = pieces.data();
        a.tpieces = tpieces.data();
        /* The FP64 products need the device's rounding toward zero. */
        const int round = fegetround();
        if (me.fp64) CHECK(fesetround(FE_TOWARDZERO) == 0);
        for (size_t t = 0; t < nthreads; t++) aff_acc<F>(a, t, me.k, me.fp64);
        CHECK(fesetround(round) == 0);
        for (size_t t = 0; t < nthreads; t++) msm_aff_merge_thread<F>(a, t);
        for (size_t t = 0; t < nthreads; t++) msm_aff_combine_thread<F>(a, t);
    }
    /* 5. reduction, both levels. */
    std::vector<uint4> seg(2 * (size_t)g.nwin * g.t1 * X), tree(2 * (size_t)g.nwin * g.t1 * X),
        win(2 * (size_t)g.nwin * X);
    msm_reduce_emulate<F>(g, buckets.data(), seg.data(), tree.data(), win.data());
    /* 6. windows, top first (msm.cu). */
    const typename G::xyzz *ws = (const typename G::xyzz *)win.data();
    G::set_inf(r);
    for (unsigned w = g.nwin; w-- > 0;) {
        if (w + 1 < g.nwin)
            for (unsigned i = 0; i < g.c; i++) G::dbl(r);
        G::add_xyzz(r, &ws[w]);
    }
}

/* The first 7 use the integer multiplication only; the next 7 the FP64
 * shares, each share at the built K = 64 and stream length 32, and some at
 * shapes that put run boundaries on stream boundaries; the next 5 the
 * 64-stream instance with fewer streams a thread (short calls' shape, and
 * two odd counts); the last 5 read the keys and values in step-major
 * order. */
static const method METHODS[] = {
    {0, 0, 0, 0},   {64, 32, 0, 0}, {32, 32, 0, 0}, {4, 3, 0, 0},   {4, 1, 0, 0},
    {1, 7, 0, 0},   {64, 5, 0, 0},  {64, 32, 1, 0}, {64, 32, 2, 0}, {64, 32, 3, 0},
    {64, 32, 4, 0}, {4, 3, 3, 0},   {4, 1, 4, 0},   {1, 7, 2, 0},   {16, 1, 0, 0},
    {8, 1, 0, 0},   {2, 4, 0, 0},   {3, 2, 0, 0},   {5, 3, 0, 0},   {64, 32, 0, 1},
    {4, 3, 0, 1},   {1, 7, 0, 1},   {5, 3, 0, 1},   {32, 32, 0, 1}};
#define NMETHODS (sizeof METHODS / sizeof METHODS[0])

/* MSMs checked with an FP64 share. */
static int fp64_checks;

/* The methods ms[0 .. nm) against the CPU MSM. */
template <class F>
static void compare_list(const typename grp<F>::aff *p, const cuzk_scalar *k, size_t n,
                         unsigned c, const char *what, const method *ms, size_t nm)
{
    typedef grp<F> G;
    typename G::jac want, got;
    CHECK(G::msm(&want, p, k, n) == CUZK_OK);
    for (size_t mi = 0; mi < nm; mi++) {
        method me = ms[mi];
        if (me.fp64 && !msm_aff_field<F>::fp64) continue;
        memset(&got, 0xa5, sizeof got);
        emu_msm<F>(&got, p, k, n, c, me);
        CHECK_MSG(G::eq(&want, &got),
                  "%s %s n=%zu c=%u %s K=%d len=%u fp64 share %u: differs from the CPU",
                  G::name(), what, n, c, me.k ? "batch-affine" : "xyzz", me.k, me.len, me.fp64);
        fp64_checks += me.fp64 != 0;
    }
}

/* The first nmethods of METHODS. */
template <class F>
static void compare(const typename grp<F>::aff *p, const cuzk_scalar *k, size_t n, unsigned c,
                    const char *what, size_t nmethods)
{
    compare_list<F>(p, k, n, c, what, METHODS, nmethods);
}


template <class F>
static void test_group(size_t nmax, int quick)
{
    typedef grp<F> G;
    std::vector<typename G::aff> base(nmax), p(nmax);
    std::vector<cuzk_scalar> k(nmax);
    G::gen(base.data(), nmax);
    const int fp64_before = fp64_checks;
    /* Random inputs. */
    static const size_t sizes[] = {1, 2, 3, 33, 300, 1500};
    static const unsigned cs[] = {8, 8, 8, 8, 11, 13};
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
        size_t n = sizes[si];
        if (n > nmax || (quick && n > 300)) continue;
        for (size_t i = 0; i < n; i++) rand_scalar(&k[i]);
        compare<F>(base.data(), k.data(), n, cs[si], "random", n > 1000 ? 3 : NMETHODS);
        if (n > 1000) { /* the FP64 shares and step-major order at the built K and length */
            static const method big[] = {
                {64, 32, 1, 0}, {64, 32, 2, 0}, {64, 32, 3, 0}, {64, 32, 4, 0}, {64, 32, 0, 1}};
            compare_list<F>(base.data(), k.data(), n, cs[si], "random", big, 5);
        }
        if (n == 300 && F::U4 == EcFp::U4) /* a large reduction, G1 only (time) */
            compare<F>(base.data(), k.data(), n, 16, "random", 2);
    }
    /* Edge cases. */
    size_t n = nmax < 300 ? nmax : 300;
    for (int e = 0; e < E_COUNT; e++) {
        edge_case<grp<F>>(e, base.data(), p.data(), k.data(), n);
        compare<F>(p.data(), k.data(), n, e & 1 ? 8 : 10, edge_names[e], NMETHODS);
    }
    printf("  %s: done (%d failures so far; %d MSMs with an FP64 share)\n", G::name(),
           test_failures, fp64_checks - fp64_before);
}

int main(void)
{
    test_seed(NAME);
    int quick = getenv("CUZK_TEST_QUICK") != NULL;
    check_inv();
    test_group<EcFp>(1500, quick);
    test_group<EcFp2>(quick ? 40 : 300, quick);
    return test_done(NAME);
}
