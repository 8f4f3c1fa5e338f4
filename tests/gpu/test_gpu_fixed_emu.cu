/* The fixed-base multiplier's device bodies (src/gpu/fixed.cuh) compiled
 * for the host with the PTX carry chains emulated (CUZK_FF_HOST_EMULATION),
 * against the CPU library, on machines without a GPU; test_gpu_fixed checks
 * the real kernel on a GPU.
 *
 * fixed_emulate runs the kernel's blocks and threads in turn with the
 * barriers between its phases. Checked, for G1 and G2:
 *   - table making (the device path of cuzk_gpu_fixed_create): from the
 *     bootstrap table (w = 8), every entry of a w = 7 table of a random base
 *     in two launches (the second at an offset), and ranges of the default
 *     w = 16 table of the generator (first, middle, last entries: the last
 *     window's scalars d 2^240 are reduced mod r), against tables made by
 *     CPU additions;
 *   - multiplication: random scalars and the edge scalars of fixed_cases.h
 *     (zero -> (0, 0), the doubling branch at w = 7) with several launch
 *     shapes (points per thread K = 1 .. 7, partial blocks), each point
 *     against cuzk_g*_mul + cuzk_g*_to_affine, byte for byte.
 * Seeded: replay with CUZK_SEED=<n>. */
#define CUZK_FF_HOST_EMULATION 1
#include "gpu/fixed.cuh"

#include <string.h>

extern "C" {
#include "test_util.h"
}
#include "gpu/fixed_cases.h"

#define NAME "test_gpu_fixed_emu"

/* CPU reference multiplication of each group. */
static void cpu_mul(cuzk_g1_affine *r, const cuzk_g1_affine *b, const cuzk_fr *s)
{
    cuzk_g1_jac j;
    cuzk_g1_from_affine(&j, b);
    cuzk_g1_mul(&j, &j, s);
    cuzk_g1_to_affine(r, &j);
}

static void cpu_mul(cuzk_g2_affine *r, const cuzk_g2_affine *b, const cuzk_fr *s)
{
    cuzk_g2_jac j;
    cuzk_g2_from_affine(&j, b);
    cuzk_g2_mul(&j, &j, s);
    cuzk_g2_to_affine(r, &j);
}

static const cuzk_g1_affine *generator(cuzk_g1_affine *) { return &CUZK_G1_GENERATOR; }
static const cuzk_g2_affine *generator(cuzk_g2_affine *) { return &CUZK_G2_GENERATOR; }

/* Emulated launch over n points of a with at most tfull threads. */
template <class F>
static void launch(fixed_args a, size_t n, size_t tfull)
{
    a.n = n;
    fixed_shape(n, tfull, &a.T, &a.K);
    fixed_emulate<F>(a);
}

/* Makes entries [first, first + n) of the w-table of the base whose
 * bootstrap table is boot, and compares them with ref (the whole table). */
template <class F>
static void check_gen(const char *g, const void *boot, const void *ref, unsigned w, size_t first,
                      size_t n, size_t tfull)
{
    typedef typename fixed_cpu<F>::aff aff;
    unsigned nwin = fixed_nwin(w);
    cuzk_fr *ck = (cuzk_fr *)test_xmalloc(nwin * sizeof *ck);
    fixed_window_consts(ck, w, nwin);
    aff *out = (aff *)test_xmalloc(n * sizeof *out);
    uint4 *scr = (uint4 *)test_xmalloc(n * 3 * F::U4 * sizeof(uint4));
    fixed_args a = fixed_gen_args((const uint4 *)boot, (const uint4 *)ck, w, first, n,
                                  (uint4 *)out, scr);
    launch<F>(a, n, tfull);
    size_t bad = 0, first_bad = 0;
    for (size_t i = 0; i < n; i++)
        if (memcmp(&out[i], (const aff *)ref + first + i, sizeof(aff))) {
            if (!bad) first_bad = first + i;
            bad++;
        }
    CHECK_MSG(bad == 0, "%s table w=%u entries [%zu, %zu): %zu differ (first %zu)", g, w, first,
              first + n, bad, first_bad);
    free(ck);
    free(out);
    free(scr);
}

/* out = [s_i] base through the emulated kernel with the table tab (window
 * w), compared with the CPU. */
template <class F>
static void check_mul(const char *g, const void *tab, unsigned w,
                      const typename fixed_cpu<F>::aff *base, const cuzk_fr *s, size_t n,
                      size_t tfull)
{
    typedef typename fixed_cpu<F>::aff aff;
    aff *out = (aff *)test_xmalloc(n * sizeof *out), want;
    memset(out, 0x5a, n * sizeof *out); /* not zero: infinity must be written */
    uint4 *scr = (uint4 *)test_xmalloc(n * 3 * F::U4 * sizeof(uint4));
    fixed_args a;
    memset(&a, 0, sizeof a);
    a.table = (const uint4 *)tab;
    a.w = w;
    a.nwin = fixed_nwin(w);
    a.scalars = (const uint4 *)s;
    a.out = (uint4 *)out;
    a.scratch = scr;
    launch<F>(a, n, tfull);
    size_t bad = 0, first_bad = 0;
    for (size_t i = 0; i < n; i++) {
        cpu_mul(&want, base, &s[i]);
        if (memcmp(&out[i], &want, sizeof want)) {
            if (!bad) first_bad = i;
            bad++;
        }
    }
    CHECK_MSG(bad == 0, "%s mul w=%u n=%zu tfull=%zu: %zu differ (first %zu)", g, w, n, tfull, bad,
              first_bad);
    free(out);
    free(scr);
}

template <class F>
static void run_group(const char *g, int rand_base, unsigned w, int full_gen, size_t nrand)
{
    typedef typename fixed_cpu<F>::aff aff;
    aff base;
    if (rand_base) {
        cuzk_fr k;
        test_rand_fr(&k);
        cpu_mul(&base, generator((aff *)NULL), &k);
    } else {
        base = *generator((aff *)NULL);
    }
    unsigned nwin = fixed_nwin(w);
    size_t half = (size_t)1 << (w - 1), total = nwin * half;
    aff *boot = (aff *)test_xmalloc(FIXED_BOOT_NWIN * FIXED_BOOT_HALF * sizeof *boot);
    aff *ref = (aff *)test_xmalloc(total * sizeof *ref);
    CHECK(fixed_cpu_table<F>(boot, &base, FIXED_BOOT_W, FIXED_BOOT_NWIN) == 0);
    CHECK(fixed_cpu_table<F>(ref, &base, w, nwin) == 0);

    /* Table making. */
    if (full_gen) {
        size_t cut = total / 3;
        check_gen<F>(g, boot, ref, w, 0, cut, 256);
        check_gen<F>(g, boot, ref, w, cut, total - cut, 384);
    } else {
        check_gen<F>(g, boot, ref, w, 0, 150, 128);
        check_gen<F>(g, boot, ref, w, total / 2 - 77, 150, 256);
        check_gen<F>(g, boot, ref, w, total - 150, 150, 128);
        size_t r0 = test_rand64() % (total - 100);
        check_gen<F>(g, boot, ref, w, r0, 100, 128);
    }

    /* Multiplication with the reference table. */
    cuzk_fr *s = (cuzk_fr *)test_xmalloc((FIXED_MAX_EDGES + nrand) * sizeof *s);
    size_t ne = fixed_edges(s, w);
    for (size_t i = 0; i < nrand; i++) test_rand_fr(&s[ne + i]);
    size_t n = ne + nrand;
    check_mul<F>(g, ref, w, &base, s, n, 128);        /* K up to ~ n / 128 */
    check_mul<F>(g, ref, w, &base, s, n, 1024);       /* K = 1, a partial block */
    check_mul<F>(g, ref, w, &base, s + 1, 1, 128);    /* one point */
    check_mul<F>(g, ref, w, &base, s, 1, 128);        /* zero alone: the block's product is 1 */
    check_mul<F>(g, ref, w, &base, s, 33, 128);
    free(s);
    free(boot);
    free(ref);
}

int main(void)
{
    test_seed(NAME);
    run_group<EcFp>("G1", 1, 7, 1, 300);
    run_group<EcFp>("G1", 0, 16, 0, 200);
    run_group<EcFp2>("G2", 1, 7, 1, 200);
    run_group<EcFp2>("G2", 0, 16, 0, 120);
    return test_done(NAME);
}
