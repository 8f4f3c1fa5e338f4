/* Tests of src/msm: the signed-digit recoding, the GLV split and the G1/G2
 * endomorphisms, Pippenger MSM (G1 and G2) against the naive sum of scalar
 * multiplications, the batch affine sum against sequential additions, and
 * the sparse MSM and the sparse sum of several vectors against the dense
 * one, and the scratch (_ws) forms: same results, no allocation (malloc,
 * calloc and realloc are wrapped at link time and counted), limits refused.
 *
 * The test bodies are written once against a small table of per-group
 * operations (struct grp), filled for G1 and G2 by the GRP_WRAPPERS macro. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include <cuzk/ec.h>
#include <cuzk/msm.h>

#include "msm/msm_internal.h"
#include "test_util.h"

#include "alloc_count.h"

/* ------------------------------------------------------ per-group table -- */

struct grp {
    const char *name;
    size_t aff_size, jac_size;
    void (*gen_points)(void *aff, size_t n);
    void (*naive)(void *r, const void *aff, const cuzk_scalar *k, size_t n);
    void (*seq_sum)(void *r, const void *aff, const uint64_t *bitmap, size_t n);
    void (*aff_neg)(void *r, const void *p);
    void (*jac_neg)(void *r, const void *p);
    void (*jac_add)(void *r, const void *p, const void *q);
    int (*jac_eq)(const void *a, const void *b);
    int (*jac_is_inf)(const void *a);
    cuzk_status (*msm)(void *r, const void *p, const cuzk_scalar *k, size_t n, unsigned t);
    cuzk_status (*msm_c)(void *r, const void *p, const cuzk_scalar *k, size_t n, unsigned t,
                         unsigned c);
    cuzk_status (*msm_sparse)(void *r, const void *p, const cuzk_scalar *k, size_t n,
                              unsigned t);
    /* cuzk_gN_msm_sparse_sum over the n points cut into `parts` consecutive
     * vectors (parts <= CUZK_MSM_MAX_VECS + 1) */
    cuzk_status (*msm_sum)(void *r, const void *p, const cuzk_scalar *k, size_t n, unsigned t,
                           size_t parts);
    cuzk_status (*batch_sum)(void *r, const void *p, size_t n, unsigned t);
    cuzk_status (*batch_sum_bitmap)(void *r, const void *p, const uint64_t *bm, size_t n,
                                    unsigned t);
    unsigned (*window)(size_t n, unsigned t);
    /* the scratch API; ws is the group's cuzk_gN_msm_scratch */
    cuzk_status (*scratch_new)(void **ws, size_t max_n, unsigned t);
    size_t (*scratch_bytes)(size_t max_n, unsigned t);
    size_t (*scratch_size)(const void *ws);
    void (*scratch_free)(void *ws);
    cuzk_status (*msm_ws)(void *r, const void *p, const cuzk_scalar *k, size_t n, unsigned t,
                          void *ws, char *err);
    cuzk_status (*sparse_ws)(void *r, const void *p, const cuzk_scalar *k, size_t n,
                             unsigned t, void *ws, char *err);
    /* as msm_sum, parts <= CUZK_MSM_MAX_VECS + 1 */
    cuzk_status (*sum_ws)(void *r, const void *p, const cuzk_scalar *k, size_t n, unsigned t,
                          size_t parts, void *ws, char *err);
};

#define GRP_WRAPPERS(g, FE)                                                                  \
    /* Distinct pseudo-random points: P_0 = [a] G, P_i = P_(i-1) + [b] G. */                 \
    static void g##_gen_points(void *out, size_t n)                                          \
    {                                                                                        \
        if (n == 0) return;                                                                  \
        cuzk_##g##_jac *j = malloc(n * sizeof *j), base, step;                               \
        FE *scratch = malloc(n * sizeof *scratch);                                           \
        cuzk_fr a, b;                                                                        \
        test_rand_fr(&a);                                                                    \
        test_rand_fr(&b);                                                                    \
        cuzk_##g##_from_affine(&base, &CUZK_G_##g##_GEN);                                  \
        cuzk_##g##_mul(&j[0], &base, &a);                                                    \
        cuzk_##g##_mul(&step, &base, &b);                                                    \
        for (size_t i = 1; i < n; i++) cuzk_##g##_add(&j[i], &j[i - 1], &step);              \
        cuzk_##g##_batch_to_affine(out, j, n, scratch);                                      \
        free(j);                                                                             \
        free(scratch);                                                                       \
    }                                                                                        \
    static void g##_naive(void *r, const void *aff, const cuzk_scalar *k, size_t n)          \
    {                                                                                        \
        const cuzk_##g##_affine *p = aff;                                                    \
        cuzk_##g##_jac acc, pj, t;                                                           \
        cuzk_##g##_jac_set_inf(&acc);                                                        \
        for (size_t i = 0; i < n; i++) {                                                     \
            cuzk_fr f;                                                                       \
            cuzk_fr_from_limbs_reduce(&f, k[i].l); /* Montgomery form of k mod r */          \
            cuzk_##g##_from_affine(&pj, &p[i]);                                              \
            cuzk_##g##_mul(&t, &pj, &f);                                                     \
            cuzk_##g##_add(&acc, &acc, &t);                                                  \
        }                                                                                    \
        *(cuzk_##g##_jac *)r = acc;                                                          \
    }                                                                                        \
    static void g##_seq_sum(void *r, const void *aff, const uint64_t *bm, size_t n)          \
    {                                                                                        \
        const cuzk_##g##_affine *p = aff;                                                    \
        cuzk_##g##_jac acc;                                                                  \
        cuzk_##g##_jac_set_inf(&acc);                                                        \
        for (size_t i = 0; i < n; i++)                                                       \
            if (!bm || ((bm[i / 64] >> (i % 64)) & 1)) cuzk_##g##_add_mixed(&acc, &acc, &p[i]); \
        *(cuzk_##g##_jac *)r = acc;                                                          \
    }                                                                                        \
    static void g##_aff_neg(void *r, const void *p) { cuzk_##g##_affine_neg(r, p); }         \
    static void g##_jac_neg(void *r, const void *p) { cuzk_##g##_neg(r, p); }                \
    static void g##_jac_add(void *r, const void *p, const void *q) { cuzk_##g##_add(r, p, q); } \
    static int g##_jac_eq(const void *a, const void *b) { return cuzk_##g##_jac_eq(a, b); }  \
    static int g##_jac_is_inf(const void *a) { return cuzk_##g##_jac_is_inf(a); }            \
    static cuzk_status g##_msm(void *r, const void *p, const cuzk_scalar *k, size_t n,       \
                               unsigned t)                                                   \
    {                                                                                        \
        return cuzk_##g##_msm_var(r, p, k, n, t);                                                \
    }                                                                                        \
    static cuzk_status g##_msm_c(void *r, const void *p, const cuzk_scalar *k, size_t n,     \
                                 unsigned t, unsigned c)                                     \
    {                                                                                        \
        return cuzk_##g##_msm_c_var(r, p, k, n, t, c);                                           \
    }                                                                                        \
    static cuzk_status g##_msm_sparse(void *r, const void *p, const cuzk_scalar *k,          \
                                      size_t n, unsigned t)                                  \
    {                                                                                        \
        return cuzk_##g##_msm_sparse_var(r, p, k, n, t);                                         \
    }                                                                                        \
    static cuzk_status g##_msm_sum(void *r, const void *p, const cuzk_scalar *k, size_t n,   \
                                   unsigned t, size_t parts)                                 \
    {                                                                                        \
        cuzk_##g##_msm_vec v[CUZK_MSM_MAX_VECS + 1];                                         \
        const cuzk_##g##_affine *pp = p;                                                     \
        for (size_t q = 0; q < parts; q++) {                                                 \
            size_t b = n * q / parts, e = n * (q + 1) / parts;                               \
            v[q] = (cuzk_##g##_msm_vec){pp + b, k + b, e - b};                               \
        }                                                                                    \
        return cuzk_##g##_msm_sparse_sum_var(r, v, parts, t);                                    \
    }                                                                                        \
    static cuzk_status g##_batch_sum(void *r, const void *p, size_t n, unsigned t)           \
    {                                                                                        \
        return cuzk_##g##_batch_sum_var(r, p, n, t);                                             \
    }                                                                                        \
    static cuzk_status g##_batch_sum_bitmap(void *r, const void *p, const uint64_t *bm,      \
                                            size_t n, unsigned t)                            \
    {                                                                                        \
        return cuzk_##g##_batch_sum_bitmap_var(r, p, bm, n, t);                                  \
    }                                                                                        \
    static cuzk_status g##_scratch_new(void **ws, size_t max_n, unsigned t)                  \
    {                                                                                        \
        cuzk_##g##_msm_scratch *s;                                                           \
        cuzk_status st = cuzk_##g##_msm_scratch_new(&s, max_n, t);                           \
        *ws = s;                                                                             \
        return st;                                                                           \
    }                                                                                        \
    static size_t g##_scratch_size(const void *ws) { return cuzk_##g##_msm_scratch_size(ws); } \
    static void g##_scratch_free(void *ws) { cuzk_##g##_msm_scratch_free(ws); }              \
    static cuzk_status g##_msm_ws(void *r, const void *p, const cuzk_scalar *k, size_t n,    \
                                  unsigned t, void *ws, char *err)                           \
    {                                                                                        \
        return cuzk_##g##_msm_ws_var(r, p, k, n, t, ws, err);                                    \
    }                                                                                        \
    static cuzk_status g##_sparse_ws(void *r, const void *p, const cuzk_scalar *k, size_t n, \
                                     unsigned t, void *ws, char *err)                        \
    {                                                                                        \
        return cuzk_##g##_msm_sparse_ws_var(r, p, k, n, t, ws, err);                             \
    }                                                                                        \
    static cuzk_status g##_sum_ws(void *r, const void *p, const cuzk_scalar *k, size_t n,    \
                                  unsigned t, size_t parts, void *ws, char *err)             \
    {                                                                                        \
        cuzk_##g##_msm_vec v[CUZK_MSM_MAX_VECS + 1];                                         \
        const cuzk_##g##_affine *pp = p;                                                     \
        for (size_t q = 0; q < parts; q++) {                                                 \
            size_t b = n * q / parts, e = n * (q + 1) / parts;                               \
            v[q] = (cuzk_##g##_msm_vec){pp + b, k + b, e - b};                               \
        }                                                                                    \
        return cuzk_##g##_msm_sparse_sum_ws_var(r, v, parts, t, ws, err);                        \
    }                                                                                        \
    static const struct grp GRP_##g = {                                                      \
        #g, sizeof(cuzk_##g##_affine), sizeof(cuzk_##g##_jac), g##_gen_points, g##_naive,    \
        g##_seq_sum, g##_aff_neg, g##_jac_neg, g##_jac_add, g##_jac_eq, g##_jac_is_inf,      \
        g##_msm, g##_msm_c, g##_msm_sparse, g##_msm_sum, g##_batch_sum, g##_batch_sum_bitmap, \
        cuzk_##g##_msm_window, g##_scratch_new, cuzk_##g##_msm_scratch_bytes,                \
        g##_scratch_size, g##_scratch_free, g##_msm_ws, g##_sparse_ws, g##_sum_ws};

#define CUZK_G_g1_GEN CUZK_G1_GENERATOR
#define CUZK_G_g2_GEN CUZK_G2_GENERATOR
GRP_WRAPPERS(g1, cuzk_fp)
GRP_WRAPPERS(g2, cuzk_fp2)

/* Room for one Jacobian point of either group. */
typedef union { cuzk_g1_jac g1; cuzk_g2_jac g2; } jac_buf;

static void *aff_at(const struct grp *g, void *base, size_t i)
{
    return (unsigned char *)base + i * g->aff_size;
}

/* ---------------------------------------------------------- scalars -- */

static const cuzk_scalar R_MINUS_1 = {{0xffffffff00000000ull, 0x53bda402fffe5bfeull,
                                       0x3339d80809a1d805ull, 0x73eda753299d7d48ull}};

static void rand_scalar(cuzk_scalar *k)
{
    cuzk_fr f;
    test_rand_fr(&f);
    cuzk_fr_to_limbs(k->l, &f);
}

static void rand_scalars(cuzk_scalar *k, size_t n)
{
    for (size_t i = 0; i < n; i++) rand_scalar(&k[i]);
}

/* 2^e as a scalar (e < 256). */
static cuzk_scalar pow2(unsigned e)
{
    cuzk_scalar k = {{0, 0, 0, 0}};
    k.l[e / 64] = 1ull << (e % 64);
    return k;
}

/* k - 1 (k != 0). */
static cuzk_scalar dec(cuzk_scalar k)
{
    for (int i = 0; i < 4; i++)
        if (k.l[i]--) break;
    return k;
}

/* The digits of every window, recombined in a 5-limb two's-complement
 * accumulator, give the folded scalar back; every digit is within its
 * bucket range. nbits = MSM_SCALAR_BITS: k is any 256-bit value, folded
 * first; otherwise k < 2^nbits already (GLV halves). */
static void check_digits_bits(const uint64_t k[4], unsigned c, unsigned nbits)
{
    uint64_t f[4], acc[5] = {0};
    if (nbits == MSM_SCALAR_BITS) {
        msm_fold(f, k);
        CHECK(!msm_ge4(f, MSM_R_HALF) || memcmp(f, MSM_R_HALF, 32) == 0);
    } else {
        memcpy(f, k, sizeof f);
        CHECK(nbits == MSM_GLV_BITS && !f[2] && !f[3]);
    }
    unsigned W = msm_nwindows(c, nbits);
    for (unsigned w = 0; w < W; w++) {
        int64_t d = msm_digit(f, w, c);
        int64_t nb = (int64_t)msm_window_buckets(w, c, nbits);
        CHECK_MSG(d >= -nb && d <= nb, "c %u w %u digit %lld buckets %lld", c, w,
                  (long long)d, (long long)nb);
        if (w == W - 1) CHECK(d >= 0);
        /* acc += d * 2^(w c) */
        unsigned sh = w * c;
        uint64_t add[5] = {0};
        uint64_t mag = (uint64_t)(d < 0 ? -d : d);
        add[sh / 64] = mag << (sh % 64);
        if (sh % 64 && sh / 64 + 1 < 5) add[sh / 64 + 1] = mag >> (64 - sh % 64);
        if (d < 0) { /* negate add */
            unsigned carry = 1;
            for (int i = 0; i < 5; i++) {
                add[i] = ~add[i] + carry;
                carry = carry && add[i] == 0;
            }
        }
        unsigned __int128 cy = 0;
        for (int i = 0; i < 5; i++) {
            cy += (unsigned __int128)acc[i] + add[i];
            acc[i] = (uint64_t)cy;
            cy >>= 64;
        }
    }
    CHECK_MSG(acc[0] == f[0] && acc[1] == f[1] && acc[2] == f[2] && acc[3] == f[3] &&
                  acc[4] == 0,
              "recoding c = %u", c);
}

static void check_digits(const uint64_t k[4], unsigned c)
{
    check_digits_bits(k, c, MSM_SCALAR_BITS);
}

static void test_digits(void)
{
    cuzk_scalar ks[64];
    size_t m = 0;
    ks[m++] = (cuzk_scalar){{0, 0, 0, 0}};
    ks[m++] = (cuzk_scalar){{1, 0, 0, 0}};
    ks[m++] = R_MINUS_1;
    ks[m++] = (cuzk_scalar){{MSM_R[0], MSM_R[1], MSM_R[2], MSM_R[3]}};    /* r: 0 */
    ks[m++] = (cuzk_scalar){{MSM_R_HALF[0], MSM_R_HALF[1], MSM_R_HALF[2], MSM_R_HALF[3]}};
    ks[m] = ks[m - 1], ks[m].l[0]++, m++;                                   /* (r+1)/2 */
    ks[m++] = (cuzk_scalar){{~0ull, ~0ull, ~0ull, ~0ull}};                  /* 2^256-1 */
    ks[m++] = pow2(254);
    ks[m++] = dec(pow2(254));
    ks[m++] = pow2(253);
    while (m < 64) rand_scalar(&ks[m++]);
    for (unsigned c = 1; c <= MSM_MAX_C; c++)
        for (size_t i = 0; i < m; i++) check_digits(ks[i].l, c);
    /* fold: k and r - k give the same magnitude, opposite sign */
    for (size_t i = 10; i < m; i++) {
        uint64_t a[4], b[4], nk[4];
        msm_sub4(nk, MSM_R, ks[i].l);
        unsigned sa = msm_fold(a, ks[i].l), sb = msm_fold(b, nk);
        CHECK(memcmp(a, b, 32) == 0 && sa != sb);
    }
}

/* ------------------------------------------------------------- GLV (G1) -- */

/* L = x^2 (MSM_GLV_L) as a scalar, and lambda = r - L = -x^2. */
static cuzk_scalar glv_l(void)
{
    return (cuzk_scalar){{MSM_GLV_L[0], MSM_GLV_L[1], 0, 0}};
}

/* a * b for 2-limb a, b. */
static void mul2(uint64_t r[4], const uint64_t a[2], const uint64_t b[2])
{
    memset(r, 0, 32);
    for (int i = 0; i < 2; i++) {
        unsigned __int128 cy = 0;
        for (int j = 0; j < 2; j++) {
            cy += (unsigned __int128)a[i] * b[j] + r[i + j];
            r[i + j] = (uint64_t)cy;
            cy >>= 64;
        }
        r[i + 2] = (uint64_t)cy;
    }
}

/* r = a + b, 4 limbs; returns the carry. */
static unsigned add4(uint64_t r[4], const uint64_t a[4], const uint64_t b[4])
{
    unsigned __int128 cy = 0;
    for (int i = 0; i < 4; i++) {
        cy += (unsigned __int128)a[i] + b[i];
        r[i] = (uint64_t)cy;
        cy >>= 64;
    }
    return (unsigned)cy;
}

static void mod_r(uint64_t v[4])
{
    while (msm_ge4(v, MSM_R)) msm_sub4(v, v, MSM_R);
}

/* The edge scalars of the GLV tests; returns how many (<= 40). */
static size_t glv_edges(cuzk_scalar *ks)
{
    size_t m = 0;
    cuzk_scalar L = glv_l(), lam;
    msm_sub4(lam.l, MSM_R, L.l);
    ks[m++] = (cuzk_scalar){{0, 0, 0, 0}};
    ks[m++] = (cuzk_scalar){{1, 0, 0, 0}};
    ks[m++] = (cuzk_scalar){{2, 0, 0, 0}};
    ks[m++] = R_MINUS_1;
    ks[m++] = dec(R_MINUS_1);
    ks[m++] = (cuzk_scalar){{MSM_R[0], MSM_R[1], MSM_R[2], MSM_R[3]}};
    ks[m] = ks[m - 1], ks[m].l[0]++, m++;                                   /* r + 1 */
    ks[m++] = (cuzk_scalar){{MSM_R_HALF[0], MSM_R_HALF[1], MSM_R_HALF[2], MSM_R_HALF[3]}};
    ks[m] = ks[m - 1], ks[m].l[0]++, m++;                                   /* (r+1)/2 */
    ks[m++] = lam;
    ks[m] = lam, ks[m].l[0]++, m++;
    ks[m++] = dec(lam);
    ks[m++] = L;
    ks[m] = L, ks[m].l[0]++, m++;
    ks[m++] = dec(L);
    {
        uint64_t l2[4]; /* L^2, L^2 - 1, L^2 + 1 (all around r) */
        mul2(l2, MSM_GLV_L, MSM_GLV_L);
        memcpy(ks[m].l, l2, 32), m++;
        ks[m] = dec(ks[m - 1]), m++;
        ks[m] = ks[m - 2], ks[m].l[0]++, m++;
        uint64_t lm1[2] = {MSM_GLV_L[0] - 1, MSM_GLV_L[1]}; /* L (L - 1): k2 = L - 1 */
        mul2(ks[m].l, MSM_GLV_L, lm1), m++;
        ks[m] = dec(ks[m - 1]), m++;
    }
    ks[m++] = pow2(127);
    ks[m++] = pow2(128);
    ks[m++] = dec(pow2(128));
    ks[m] = pow2(128), ks[m].l[0]++, m++;
    ks[m++] = pow2(129);
    ks[m++] = pow2(254);
    ks[m++] = dec(pow2(254));
    ks[m++] = pow2(255);
    ks[m++] = dec(pow2(255));
    ks[m++] = (cuzk_scalar){{~0ull, ~0ull, ~0ull, ~0ull}}; /* 2^256 - 1 */
    ks[m++] = (cuzk_scalar){{~0ull, ~0ull, 0, 0}};         /* 2^128 - 1 */
    ks[m++] = (cuzk_scalar){{0, 0, ~0ull, ~0ull}};
    return m;
}

static void check_glv_split(const uint64_t k[4])
{
    uint64_t k1[2], k2[2], want[4], got[4];
    msm_glv_split(k1, k2, k);
    /* both halves in [0, L) (so < 2^128) */
    CHECK(k1[1] < MSM_GLV_L[1] || (k1[1] == MSM_GLV_L[1] && k1[0] < MSM_GLV_L[0]));
    CHECK(k2[1] < MSM_GLV_L[1] || (k2[1] == MSM_GLV_L[1] && k2[0] < MSM_GLV_L[0]));
    /* k1 + k2 L = k mod r (no carry: < L^2 < 2^256) */
    mul2(got, k2, MSM_GLV_L);
    uint64_t k1w[4] = {k1[0], k1[1], 0, 0};
    CHECK(add4(got, got, k1w) == 0);
    mod_r(got);
    memcpy(want, k, 32);
    mod_r(want);
    CHECK_MSG(memcmp(got, want, 32) == 0, "glv split %016llx%016llx%016llx%016llx",
              (unsigned long long)k[3], (unsigned long long)k[2], (unsigned long long)k[1],
              (unsigned long long)k[0]);
}

static void test_glv_split(void)
{
    /* r = L^2 - L + 1, so lambda = -L satisfies lambda^2 + lambda + 1 = 0 */
    uint64_t l2[4], one[4] = {1, 0, 0, 0}, Lw[4] = {MSM_GLV_L[0], MSM_GLV_L[1], 0, 0};
    mul2(l2, MSM_GLV_L, MSM_GLV_L);
    msm_sub4(l2, l2, Lw);
    add4(l2, l2, one);
    CHECK(memcmp(l2, MSM_R, 32) == 0);

    cuzk_scalar ks[40];
    size_t m = glv_edges(ks);
    for (size_t i = 0; i < m; i++) check_glv_split(ks[i].l);
    for (size_t i = 0; i < 100000; i++) {
        cuzk_scalar k;
        if (i & 1) {
            rand_scalar(&k);
        } else {
            for (int j = 0; j < 4; j++) k.l[j] = test_rand64();
        }
        check_glv_split(k.l);
        if (i < 64) {
            uint64_t k1[2], k2[2];
            msm_glv_split(k1, k2, k.l);
            uint64_t a[4] = {k1[0], k1[1], 0, 0}, b[4] = {k2[0], k2[1], 0, 0};
            for (unsigned c = 1; c <= MSM_MAX_C; c++) {
                check_digits_bits(a, c, MSM_GLV_BITS);
                check_digits_bits(b, c, MSM_GLV_BITS);
            }
        }
    }
    /* digits of the extreme halves */
    uint64_t hi[4] = {MSM_GLV_L[0] - 1, MSM_GLV_L[1], 0, 0}, top[4] = {~0ull, ~0ull, 0, 0};
    for (unsigned c = 1; c <= MSM_MAX_C; c++) {
        check_digits_bits(hi, c, MSM_GLV_BITS);
        check_digits_bits(top, c, MSM_GLV_BITS);
    }

    /* phi(G) = (beta x, y) = [lambda] G with lambda = -x^2 = r - L, for the
     * beta of src/ec/g1.c (and not the other root, L - 1). */
    static const cuzk_fp beta = {{0x30f1361b798a64e8ull, 0xf3b8ddab7ece5a2aull,
                                  0x16a8ca3ac61577f7ull, 0xc26a2ff874fd029bull,
                                  0x3636b76660701c6eull, 0x051ba4ab241b6160ull}};
    cuzk_g1_affine phi = CUZK_G1_GENERATOR;
    cuzk_fp_mul(&phi.x, &phi.x, &beta);
    cuzk_g1_jac want, got, other;
    cuzk_g1_from_affine(&want, &phi);
    cuzk_scalar lam, lm1 = dec(glv_l());
    msm_sub4(lam.l, MSM_R, glv_l().l);
    GRP_g1.naive(&got, &CUZK_G1_GENERATOR, &lam, 1);
    CHECK_MSG(cuzk_g1_jac_eq(&got, &want), "phi(G) = [-x^2] G");
    GRP_g1.naive(&other, &CUZK_G1_GENERATOR, &lm1, 1);
    CHECK(!cuzk_g1_jac_eq(&other, &want));

    /* G2: psi^2(x, y) = (omega x, -y) with omega = beta^2 is [L] = [x^2]
     * (psi acts as [x]), on the generator and on random points; the other
     * cube root, beta, is not. */
    cuzk_fp omega;
    cuzk_fp_sqr(&omega, &beta);
    cuzk_g2_affine q[4];
    q[0] = CUZK_G2_GENERATOR;
    GRP_g2.gen_points(q + 1, 3);
    cuzk_scalar L = glv_l();
    for (int i = 0; i < 4; i++) {
        cuzk_g2_affine psi2 = q[i], wrong = q[i];
        cuzk_fp_mul(&psi2.x.c0, &psi2.x.c0, &omega);
        cuzk_fp_mul(&psi2.x.c1, &psi2.x.c1, &omega);
        cuzk_fp2_neg(&psi2.y, &psi2.y);
        cuzk_fp_mul(&wrong.x.c0, &wrong.x.c0, &beta);
        cuzk_fp_mul(&wrong.x.c1, &wrong.x.c1, &beta);
        cuzk_fp2_neg(&wrong.y, &wrong.y);
        cuzk_g2_jac w2, g2, o2;
        cuzk_g2_from_affine(&w2, &psi2);
        cuzk_g2_from_affine(&o2, &wrong);
        GRP_g2.naive(&g2, &q[i], &L, 1);
        CHECK_MSG(cuzk_g2_jac_eq(&g2, &w2), "psi^2(Q) = [x^2] Q, point %d", i);
        CHECK(!cuzk_g2_jac_eq(&g2, &o2));
    }
}

static void test_scalar_from_fr(void)
{
    enum { N = 1000 };
    cuzk_fr *f = malloc(N * sizeof *f);
    cuzk_scalar *k = malloc(N * sizeof *k);
    for (size_t i = 0; i < N; i++) test_rand_fr(&f[i]);
    cuzk_scalar_from_fr(k, f, N, 4);
    int ok = 1;
    for (size_t i = 0; i < N; i++) {
        uint64_t v[4];
        cuzk_fr_to_limbs(v, &f[i]);
        ok &= memcmp(v, k[i].l, 32) == 0;
    }
    CHECK(ok);
    /* in place */
    cuzk_scalar_from_fr((cuzk_scalar *)(void *)f, f, N, 1);
    CHECK(memcmp(f, k, N * sizeof *k) == 0);
    free(f);
    free(k);
}

/* ------------------------------------------------------------ MSM tests -- */

/* Pippenger (threads 1 and 4), the sparse MSM and the naive sum agree. */
static void check_msm(const struct grp *g, const void *p, const cuzk_scalar *k, size_t n,
                      const char *what)
{
    jac_buf want, got;
    g->naive(&want, p, k, n);
    CHECK_MSG(g->msm(&got, p, k, n, 1) == CUZK_OK && g->jac_eq(&got, &want), "%s %s n=%zu t=1",
              g->name, what, n);
    CHECK_MSG(g->msm(&got, p, k, n, 4) == CUZK_OK && g->jac_eq(&got, &want), "%s %s n=%zu t=4",
              g->name, what, n);
    CHECK_MSG(g->msm_sparse(&got, p, k, n, 2) == CUZK_OK && g->jac_eq(&got, &want),
              "%s %s n=%zu sparse", g->name, what, n);
    /* the same sum cut into 1 .. CUZK_MSM_MAX_VECS vectors (some empty when
     * n is small), one Pippenger over all */
    for (size_t parts = 1; parts <= CUZK_MSM_MAX_VECS; parts++)
        CHECK_MSG(g->msm_sum(&got, p, k, n, 2, parts) == CUZK_OK && g->jac_eq(&got, &want),
                  "%s %s n=%zu sparse sum of %zu", g->name, what, n, parts);
    CHECK(g->msm_sum(&got, p, k, n, 2, CUZK_MSM_MAX_VECS + 1) == CUZK_ERR_INVALID_ARGUMENT);
}

/* GLV MSM with the edge scalars, at sizes 1, 2, 33 and maxn. */
static void test_glv_msm(const struct grp *g, size_t maxn)
{
    const size_t sizes[] = {1, 2, 33, maxn};
    cuzk_scalar e[40];
    size_t m = glv_edges(e);
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
        size_t n = sizes[si];
        for (size_t off = 0; off < m; off += (n >= m ? m : 1)) {
            void *p = malloc(n * g->aff_size);
            cuzk_scalar *k = malloc(n * sizeof *k);
            g->gen_points(p, n);
            for (size_t i = 0; i < n; i++) {
                if (i < m || (i & 1)) k[i] = e[(off + i) % m];
                else rand_scalar(&k[i]);
            }
            if (n > 2) memset(aff_at(g, p, n / 2), 0, g->aff_size); /* infinity */
            check_msm(g, p, k, n, "glv edges");
            if (n >= 33) {
                jac_buf want, got;
                g->naive(&want, p, k, n);
                for (unsigned c = 1; c <= 16; c += 3)
                    CHECK_MSG(g->msm_c(&got, p, k, n, 2, c) == CUZK_OK && g->jac_eq(&got, &want),
                              "glv n=%zu c=%u", n, c);
            }
            free(p);
            free(k);
            if (n > 2) break;
        }
    }
}

static void test_msm_random(const struct grp *g, size_t maxn)
{
    static const size_t sizes[] = {0, 1, 2, 3, 31, 32, 33, 100, 1000};
    void *p = malloc(1000 * g->aff_size);
    cuzk_scalar *k = malloc(1000 * sizeof *k);
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        size_t n = sizes[s];
        if (n > maxn) break;
        g->gen_points(p, n);
        rand_scalars(k, n);
        check_msm(g, p, k, n, "random");
    }
    free(p);
    free(k);
}

/* Every window size on a small input, including c = 1 (255 windows). */
static void test_msm_windows(const struct grp *g)
{
    enum { N = 33 };
    void *p = malloc(N * g->aff_size);
    cuzk_scalar k[N];
    g->gen_points(p, N);
    rand_scalars(k, N);
    k[0] = R_MINUS_1;
    k[1] = pow2(253);
    jac_buf want, got;
    g->naive(&want, p, k, N);
    for (unsigned c = 1; c <= 12; c++) {
        CHECK_MSG(g->msm_c(&got, p, k, N, 2, c) == CUZK_OK && g->jac_eq(&got, &want),
                  "%s c=%u", g->name, c);
    }
    CHECK(g->msm_c(&got, p, k, N, 2, MSM_MAX_C + 1) == CUZK_ERR_INVALID_ARGUMENT);
    free(p);
}

/* Scalar patterns: zeros, ones, r - 1, window borders for the chosen c and
 * its neighbours, top bits, values >= r. */
static void test_msm_edges(const struct grp *g)
{
    enum { N = 64 };
    void *p = malloc(N * g->aff_size);
    cuzk_scalar k[N];
    g->gen_points(p, N);

    memset(k, 0, sizeof k);
    jac_buf got;
    CHECK(g->msm(&got, p, k, N, 2) == CUZK_OK && g->jac_is_inf(&got));
    CHECK(g->msm_sparse(&got, p, k, N, 2) == CUZK_OK && g->jac_is_inf(&got));

    for (size_t i = 0; i < N; i++) k[i] = (cuzk_scalar){{1, 0, 0, 0}};
    check_msm(g, p, k, N, "all one");
    jac_buf sum;
    CHECK(g->batch_sum(&sum, p, N, 1) == CUZK_OK && g->msm(&got, p, k, N, 2) == CUZK_OK &&
          g->jac_eq(&sum, &got));

    for (size_t i = 0; i < N; i++) k[i] = R_MINUS_1;
    check_msm(g, p, k, N, "all r-1");
    jac_buf neg;
    g->jac_neg(&neg, &sum);
    CHECK(g->msm(&got, p, k, N, 2) == CUZK_OK && g->jac_eq(&got, &neg));

    /* 2^(c j) - 1, 2^(c j), 2^(c j - 1), (2^c - 1) 2^(c j) at the window
     * borders of the chosen c and c +- 1; N = 64 points choose c ~ 6. */
    unsigned c0 = g->window(N, 2);
    for (unsigned c = c0 > 1 ? c0 - 1 : 1; c <= c0 + 1; c++) {
        size_t m = 0;
        for (unsigned j = 1; j * c < 256 && m + 4 <= N; j++) {
            k[m++] = dec(pow2(j * c));
            k[m++] = pow2(j * c);
            k[m++] = pow2(j * c - 1);
            cuzk_scalar t = dec(pow2(c));
            unsigned e = (j - 1) * c; /* (2^c - 1) 2^((j-1) c) */
            cuzk_scalar u = {{0, 0, 0, 0}};
            for (int l = 0; l < 4; l++) {
                if (e % 64 == 0) {
                    if (l + e / 64 < 4) u.l[l + e / 64] |= t.l[l];
                } else {
                    if (l + e / 64 < 4) u.l[l + e / 64] |= t.l[l] << (e % 64);
                    if (l + e / 64 + 1 < 4) u.l[l + e / 64 + 1] |= t.l[l] >> (64 - e % 64);
                }
            }
            k[m++] = u;
        }
        while (m < N) rand_scalar(&k[m++]);
        jac_buf want;
        g->naive(&want, p, k, N);
        CHECK_MSG(g->msm_c(&got, p, k, N, 2, c) == CUZK_OK && g->jac_eq(&got, &want),
                  "%s borders c=%u", g->name, c);
    }

    /* top bits and the fold boundary; values >= r */
    size_t m = 0;
    k[m++] = dec(pow2(255));
    k[m++] = pow2(254);
    k[m++] = dec(pow2(254));
    k[m++] = pow2(253);
    k[m++] = (cuzk_scalar){{MSM_R_HALF[0], MSM_R_HALF[1], MSM_R_HALF[2], MSM_R_HALF[3]}};
    k[m] = k[m - 1], k[m].l[0]++, m++;
    k[m++] = R_MINUS_1;
    k[m] = R_MINUS_1, k[m].l[0]--, m++;
    k[m++] = (cuzk_scalar){{MSM_R[0], MSM_R[1], MSM_R[2], MSM_R[3]}}; /* r = 0 mod r */
    k[m] = k[m - 1], k[m].l[0] += 1, m++; /* r + 1 = 1 mod r: a "one" for the sparse path */
    k[m] = k[m - 2], k[m].l[0] += 5, m++;
    k[m++] = (cuzk_scalar){{~0ull, ~0ull, ~0ull, ~0ull}};
    k[m++] = (cuzk_scalar){{0, 0, 0, 0x8000000000000000ull}};
    for (size_t i = 0; i < 12; i++) { /* random with the top bits set */
        rand_scalar(&k[m]);
        k[m].l[3] |= 0x7000000000000000ull;
        m++;
    }
    check_msm(g, p, k, m, "top bits");
    free(p);
}

/* The same point many times (bucket additions hit P = Q), P and -P in the
 * same bucket, and points at infinity. */
static void test_msm_points(const struct grp *g)
{
    enum { N = 100 };
    void *p = malloc(N * g->aff_size);
    void *one = malloc(g->aff_size);
    cuzk_scalar k[N];
    g->gen_points(one, 1);

    for (size_t i = 0; i < N; i++) memcpy(aff_at(g, p, i), one, g->aff_size);
    rand_scalars(k, N);
    check_msm(g, p, k, N, "same point");
    for (size_t i = 0; i < N; i++) k[i] = k[0];
    check_msm(g, p, k, N, "same point, same scalar");

    /* P, -P alternating with equal scalars: everything cancels; then one
     * extra P. */
    for (size_t i = 1; i < N; i += 2) g->aff_neg(aff_at(g, p, i), one);
    jac_buf got;
    CHECK(g->msm(&got, p, k, N, 2) == CUZK_OK && g->jac_is_inf(&got));
    check_msm(g, p, k, N, "P, -P");
    check_msm(g, p, k, N - 1, "P, -P, P");
    rand_scalars(k, N);
    check_msm(g, p, k, N, "P, -P random scalars");

    /* infinity among random points */
    g->gen_points(p, N);
    rand_scalars(k, N);
    for (size_t i = 0; i < N; i += 7) memset(aff_at(g, p, i), 0, g->aff_size);
    check_msm(g, p, k, N, "with infinity");
    for (size_t i = 0; i < N; i++) memset(aff_at(g, p, i), 0, g->aff_size);
    CHECK(g->msm(&got, p, k, N, 2) == CUZK_OK && g->jac_is_inf(&got));
    free(p);
    free(one);
}

/* A larger MSM against a different window size and thread count. */
static void test_msm_large(const struct grp *g, size_t n)
{
    void *p = malloc(n * g->aff_size);
    cuzk_scalar *k = malloc(n * sizeof *k);
    g->gen_points(p, n);
    rand_scalars(k, n);
    unsigned c = g->window(n, 2);
    jac_buf a, b;
    CHECK(g->msm(&a, p, k, n, 2) == CUZK_OK);
    CHECK_MSG(g->msm_c(&b, p, k, n, 1, c > 3 ? c - 2 : c + 2) == CUZK_OK && g->jac_eq(&a, &b),
              "%s n=%zu c=%u vs c-2", g->name, n, c);
    /* sparse with mixed 0/1/other against the dense MSM */
    for (size_t i = 0; i < n; i++) {
        uint64_t r = test_rand64() % 8;
        if (r < 4) k[i] = (cuzk_scalar){{0, 0, 0, 0}};
        else if (r < 7) k[i] = (cuzk_scalar){{1, 0, 0, 0}};
    }
    CHECK(g->msm(&a, p, k, n, 4) == CUZK_OK);
    CHECK_MSG(g->msm_sparse(&b, p, k, n, 2) == CUZK_OK && g->jac_eq(&a, &b), "%s sparse n=%zu",
              g->name, n);
    free(p);
    free(k);
}

/* ------------------------------------------------------ batch sum tests -- */

static void check_bsum(const struct grp *g, const void *p, size_t n, const char *what)
{
    jac_buf want, got;
    g->seq_sum(&want, p, NULL, n);
    CHECK_MSG(g->batch_sum(&got, p, n, 1) == CUZK_OK && g->jac_eq(&got, &want),
              "%s batch_sum %s n=%zu t=1", g->name, what, n);
    CHECK_MSG(g->batch_sum(&got, p, n, 4) == CUZK_OK && g->jac_eq(&got, &want),
              "%s batch_sum %s n=%zu t=4", g->name, what, n);
}

static void test_batch_sum(const struct grp *g, size_t big)
{
    size_t n = big;
    void *p = malloc(n * g->aff_size);
    jac_buf got;
    CHECK(g->batch_sum(&got, NULL, 0, 1) == CUZK_OK && g->jac_is_inf(&got));

    static const size_t sizes[] = {1, 2, 3, 63, 64, 65, 1023, 1024, 1025, 3000};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        g->gen_points(p, sizes[s]);
        check_bsum(g, p, sizes[s], "random");
    }

    /* duplicates, negations and infinity sprinkled through a large input
     * (several threads, several refills of the buffer) */
    g->gen_points(p, n);
    for (size_t i = 0; i + 1 < n; i++) {
        uint64_t r = test_rand64() % 16;
        if (r == 0) memcpy(aff_at(g, p, i + 1), aff_at(g, p, i), g->aff_size);
        else if (r == 1) g->aff_neg(aff_at(g, p, i + 1), aff_at(g, p, i));
        else if (r == 2) memset(aff_at(g, p, i), 0, g->aff_size);
        else if (r == 3) memcpy(aff_at(g, p, i), aff_at(g, p, test_rand64() % n), g->aff_size);
    }
    check_bsum(g, p, n, "dup/neg/inf");

    /* one point n times: every level is all tangents */
    g->gen_points(p, 1);
    for (size_t i = 1; i < 2000; i++) memcpy(aff_at(g, p, i), p, g->aff_size);
    check_bsum(g, p, 2000, "same point");
    /* P, -P alternating: all pairs cancel; odd count leaves P */
    for (size_t i = 1; i < 2000; i += 2) g->aff_neg(aff_at(g, p, i), p);
    CHECK(g->batch_sum(&got, p, 2000, 2) == CUZK_OK && g->jac_is_inf(&got));
    check_bsum(g, p, 1999, "P, -P");
    /* all infinity */
    memset(p, 0, 3000 * g->aff_size);
    CHECK(g->batch_sum(&got, p, 3000, 2) == CUZK_OK && g->jac_is_inf(&got));

    /* bitmap selection */
    g->gen_points(p, n);
    size_t words = (n + 63) / 64;
    uint64_t *bm = malloc(words * sizeof *bm);
    for (size_t w = 0; w < words; w++) bm[w] = test_rand64() & test_rand64();
    bm[1] = 0, bm[2] = ~0ull; /* an empty and a full word */
    jac_buf want;
    size_t lens[] = {n, n - 1, 100, 64, 1};
    for (size_t s = 0; s < sizeof lens / sizeof lens[0]; s++) {
        g->seq_sum(&want, p, bm, lens[s]);
        CHECK_MSG(g->batch_sum_bitmap(&got, p, bm, lens[s], 4) == CUZK_OK &&
                      g->jac_eq(&got, &want),
                  "%s bitmap n=%zu", g->name, lens[s]);
    }
    memset(bm, 0, words * sizeof *bm);
    CHECK(g->batch_sum_bitmap(&got, p, bm, n, 2) == CUZK_OK && g->jac_is_inf(&got));
    free(bm);
    free(p);
}

/* Batch-affine bucket accumulation (windows of >= 128 buckets, c >= 8):
 * sizes around the batch size (nb / 8), random data, and inputs that crowd
 * a few buckets: the same point (P = Q in a batch), P and -P with equal
 * scalars (opposite points empty a bucket), a few distinct scalars (many
 * deferred points, queue overflow into the XYZZ fallback), points at
 * infinity. */
static void check_msm_c(const struct grp *g, const void *p, const cuzk_scalar *k, size_t n,
                        unsigned c, const char *what)
{
    jac_buf want, got;
    g->naive(&want, p, k, n);
    CHECK_MSG(g->msm_c(&got, p, k, n, 1, c) == CUZK_OK && g->jac_eq(&got, &want),
              "%s batch-affine %s n=%zu c=%u t=1", g->name, what, n, c);
    CHECK_MSG(g->msm_c(&got, p, k, n, 2, c) == CUZK_OK && g->jac_eq(&got, &want),
              "%s batch-affine %s n=%zu c=%u t=2", g->name, what, n, c);
}

static void test_msm_batch_affine(const struct grp *g, size_t maxn)
{
    static const unsigned cs[] = {8, 9, 11};
    void *p = malloc(maxn * g->aff_size);
    void *one = malloc(g->aff_size);
    cuzk_scalar *k = malloc(maxn * sizeof *k);
    g->gen_points(one, 1);
    for (size_t ci = 0; ci < sizeof cs / sizeof cs[0]; ci++) {
        unsigned c = cs[ci];
        size_t B = ((size_t)1 << (c - 1)) / 8;
        const size_t sizes[] = {B - 1, B, B + 1, 2 * B + 1, 3 * B, maxn};
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
            size_t n = sizes[s];
            if (n > maxn) continue;
            g->gen_points(p, n);
            rand_scalars(k, n);
            check_msm_c(g, p, k, n, c, "random");
            for (size_t i = 0; i < n; i += 5) memset(aff_at(g, p, i), 0, g->aff_size);
            check_msm_c(g, p, k, n, c, "with infinity");
            /* three distinct scalars over random points */
            g->gen_points(p, n);
            cuzk_scalar few[3];
            rand_scalars(few, 3);
            for (size_t i = 0; i < n; i++) k[i] = few[test_rand64() % 3];
            check_msm_c(g, p, k, n, c, "three scalars");
            /* the same point, random then equal scalars */
            for (size_t i = 0; i < n; i++) memcpy(aff_at(g, p, i), one, g->aff_size);
            rand_scalars(k, n);
            check_msm_c(g, p, k, n, c, "same point");
            for (size_t i = 0; i < n; i++) k[i] = few[0];
            check_msm_c(g, p, k, n, c, "same point, same scalar");
            /* P, -P alternating, equal scalars (cancel down to P or 0) */
            for (size_t i = 1; i < n; i += 2) g->aff_neg(aff_at(g, p, i), one);
            check_msm_c(g, p, k, n, c, "P, -P");
            for (size_t i = 0; i < n; i++) k[i] = few[test_rand64() % 2];
            check_msm_c(g, p, k, n, c, "P, -P two scalars");
        }
    }
    free(p);
    free(one);
    free(k);
}

/* The batch-affine bucket reduction on crafted buckets: scalars 1 .. n on
 * one point P (bucket d holds P, so the chains' running sums meet P = Q),
 * on P and -P alternating (they meet P = -Q and empty out), and with every
 * other scalar 0 (empty buckets in every chain); small scalars leave all
 * windows but the first empty. Windows of 2^(c-1) >= 128 buckets take the
 * affine reduction. */
static void test_msm_reduce_edges(const struct grp *g)
{
    enum { N = 1024 };
    void *p = malloc(N * g->aff_size), *q = malloc(2 * g->aff_size);
    cuzk_scalar *k = malloc(N * sizeof *k);
    g->gen_points(q, 1);
    g->aff_neg(aff_at(g, q, 1), q);
    for (int pattern = 0; pattern < 3; pattern++) {
        for (size_t i = 0; i < N; i++) {
            memcpy(aff_at(g, p, i), aff_at(g, q, pattern == 1 ? i & 1 : 0), g->aff_size);
            k[i] = (cuzk_scalar){{pattern == 2 && (i & 1) ? 0 : i + 1, 0, 0, 0}};
        }
        for (unsigned c = 9; c <= 11; c++) {
            size_t n = (size_t)1 << (c - 1); /* digits 1 .. 2^(c-1): every bucket */
            jac_buf want, got;
            g->naive(&want, p, k, n);
            CHECK_MSG(g->msm_c(&got, p, k, n, 2, c) == CUZK_OK && g->jac_eq(&got, &want),
                      "%s reduction edges, pattern %d, c=%u", g->name, pattern, c);
            CHECK_MSG(g->msm_c(&got, p, k, n / 2, 1, c) == CUZK_OK &&
                          (g->naive(&want, p, k, n / 2), g->jac_eq(&got, &want)),
                      "%s reduction edges, pattern %d, c=%u, half", g->name, pattern, c);
        }
    }
    free(p);
    free(q);
    free(k);
}

/* ---------------------------------------------------------- scratch -- */

/* want[i] = sum_{j<i} [k_j] P_j for i <= n (prefix sums of the naive
 * products), so each prefix length has its independent answer. Scalars 0
 * and 1 mod r skip the multiplication (inf and P). */
static void prefix_naive(const struct grp *g, void *want, const void *p, const cuzk_scalar *k,
                         size_t n)
{
    unsigned char *w = want;
    jac_buf term;
    g->naive(w, p, k, 0); /* infinity */
    for (size_t i = 0; i < n; i++) {
        uint64_t v[4];
        memcpy(v, k[i].l, sizeof v);
        mod_r(v);
        int small = !(v[1] | v[2] | v[3]) && v[0] <= 1;
        if (small) {
            g->seq_sum(&term, aff_at(g, (void *)p, i), NULL, v[0]); /* P, or inf */
        } else {
            g->naive(&term, aff_at(g, (void *)p, i), &k[i], 1);
        }
        g->jac_add(w + (i + 1) * g->jac_size, w + i * g->jac_size, &term);
    }
}

/* msm_plan_choose under a byte budget (what a scratch imposes; with the
 * scratch sizes of msm_impl.h the unconstrained plan always fits, so the
 * budget is exercised here with a simple size model that grows with the
 * window, threads and ranges, model_plan_bytes): the budget of
 * the unconstrained plan gives that plan, one byte less a different plan
 * within the budget, and nothing fits in 0 bytes. */
static size_t model_plan_bytes(const struct msm_plan *p, size_t n)
{
    return n + ((size_t)1 << (p->c - 1)) * p->nthreads + (size_t)p->nwin * p->nranges;
}

static void test_plan_budget(void)
{
    static const struct msm_costs costs = {.ba_point = 0.62, .aff_bytes = 96, .bucket = 0.9,
                                           .dbl = 0.85, .thread = 40, .bucket_bytes = 192};
    static const size_t ns[] = {1, 100, 5000, 200000};
    for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++)
        for (unsigned t = 1; t <= 4; t += 3) {
            struct msm_plan p, q;
            size_t n = ns[i];
            CHECK(msm_plan_choose(&p, n, MSM_GLV_BITS, t, 0, &costs, NULL, 0) == 1);
            size_t b = model_plan_bytes(&p, n);
            CHECK(msm_plan_choose(&q, n, MSM_GLV_BITS, t, 0, &costs, model_plan_bytes, b) == 1 &&
                  memcmp(&p, &q, sizeof p) == 0);
            if (b > model_plan_bytes(&(struct msm_plan){MSM_GLV_BITS, 1, 129, 1, 1}, n))
                CHECK_MSG(msm_plan_choose(&q, n, MSM_GLV_BITS, t, 0, &costs, model_plan_bytes,
                                          b - 1) == 1 &&
                              model_plan_bytes(&q, n) < b && memcmp(&p, &q, sizeof p) != 0,
                          "budget n=%zu t=%u", n, t);
            CHECK(msm_plan_choose(&q, n, MSM_GLV_BITS, t, 0, &costs, model_plan_bytes, 0) == 0);
        }
}

/* The _ws forms with one scratch reused across calls of sizes going down
 * and up to its limit, on random and on 0/1-heavy scalars, on 1..3 threads:
 * each result equals the independent sum and the no-scratch call's, and no
 * call with the scratch allocates. Then calls above the limits are refused
 * with a message, and a scratch for 0 points serves n = 0. */
static void test_scratch(const struct grp *g, size_t maxn)
{
    enum { T = 3 };
    const size_t sizes[] = {0, 1, 5, 64, 700 % maxn, maxn, 100, maxn - 1, 2, maxn / 2, 1, maxn};
    void *p = malloc(maxn * g->aff_size);
    void *want = malloc((maxn + 1) * g->jac_size);
    cuzk_scalar *k = malloc(maxn * sizeof *k);
    int counted = allocs_counted();
    if (!counted)
        printf("test_msm: allocations not counted (malloc is not wrapped in this build)\n");
    g->gen_points(p, maxn);
    for (size_t i = 0; i < maxn; i += 97) memset(aff_at(g, p, i), 0, g->aff_size);

    void *ws;
    CHECK(g->scratch_new(&ws, maxn, T) == CUZK_OK && ws);
    CHECK(g->scratch_size(ws) >= g->scratch_bytes(maxn, T) &&
          g->scratch_bytes(maxn, T) > maxn * (g->aff_size + sizeof(size_t)));
    char err[CUZK_ERRMSG_LEN];
    for (int kind = 0; kind < 2; kind++) {
        if (kind == 0) {
            rand_scalars(k, maxn);
        } else { /* witness-like: 0 and 1 mostly, r + 1 a "one" too */
            for (size_t i = 0; i < maxn; i++) {
                uint64_t r = test_rand64() % 20;
                if (r < 9) k[i] = (cuzk_scalar){{0, 0, 0, 0}};
                else if (r < 18) k[i] = (cuzk_scalar){{1, 0, 0, 0}};
                else if (r < 19) k[i] = (cuzk_scalar){{MSM_R[0] + 1, MSM_R[1], MSM_R[2], MSM_R[3]}};
                else rand_scalar(&k[i]);
            }
        }
        prefix_naive(g, want, p, k, maxn);
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
            size_t n = sizes[s];
            const void *w = (unsigned char *)want + n * g->jac_size;
            unsigned t = 1 + (unsigned)(s % T);
            size_t parts = 1 + s % CUZK_MSM_MAX_VECS;
            jac_buf got, ref;
            size_t a0 = atomic_load(&allocs);
            cuzk_status st = g->sparse_ws(&got, p, k, n, t, ws, err);
            size_t a1 = atomic_load(&allocs);
            CHECK_MSG(st == CUZK_OK && err[0] == 0 && g->jac_eq(&got, w),
                      "%s sparse_ws kind %d n=%zu t=%u", g->name, kind, n, t);
            CHECK(g->msm_sparse(&ref, p, k, n, t) == CUZK_OK && g->jac_eq(&ref, &got));
            size_t a2 = atomic_load(&allocs);
            st = g->sum_ws(&got, p, k, n, t, parts, ws, err);
            size_t a3 = atomic_load(&allocs);
            CHECK_MSG(st == CUZK_OK && g->jac_eq(&got, w), "%s sum_ws kind %d n=%zu t=%u parts=%zu",
                      g->name, kind, n, t, parts);
            CHECK(g->msm_sum(&ref, p, k, n, t, parts) == CUZK_OK && g->jac_eq(&ref, &got));
            size_t a4 = atomic_load(&allocs);
            st = g->msm_ws(&got, p, k, n, t, ws, err);
            size_t a5 = atomic_load(&allocs);
            CHECK_MSG(st == CUZK_OK && g->jac_eq(&got, w), "%s msm_ws kind %d n=%zu t=%u",
                      g->name, kind, n, t);
            if (counted) {
                CHECK_MSG(a1 == a0 && a3 == a2 && a5 == a4,
                          "%s n=%zu t=%u: %zu, %zu, %zu allocations with a scratch", g->name, n,
                          t, a1 - a0, a3 - a2, a5 - a4);
                /* and the counter sees the no-scratch calls' */
                if (n) CHECK(a2 > a1 && a4 > a3);
            }
        }
    }

    /* Beyond the limits: refused, with a message, result untouched. */
    jac_buf got, mark;
    memset(&mark, 0x5a, sizeof mark);
    got = mark;
    CHECK(g->sparse_ws(&got, p, k, maxn + 1, 1, ws, err) == CUZK_ERR_INVALID_ARGUMENT &&
          strstr(err, "msm: ") == err && memcmp(&got, &mark, sizeof got) == 0);
    CHECK(g->msm_ws(&got, p, k, maxn + 1, 1, ws, err) == CUZK_ERR_INVALID_ARGUMENT && err[0]);
    CHECK(g->sparse_ws(&got, p, k, 1, T + 1, ws, err) == CUZK_ERR_INVALID_ARGUMENT &&
          strstr(err, "threads") != NULL);
    CHECK(g->sum_ws(&got, p, k, maxn, 1, CUZK_MSM_MAX_VECS + 1, ws, err) ==
              CUZK_ERR_INVALID_ARGUMENT && err[0]);
    /* a sum whose vectors each fit but not together */
    void *p2 = malloc(2 * maxn * g->aff_size);
    cuzk_scalar *k2 = malloc(2 * maxn * sizeof *k2);
    memcpy(p2, p, maxn * g->aff_size);
    memcpy(aff_at(g, p2, maxn), p, maxn * g->aff_size);
    memcpy(k2, k, maxn * sizeof *k);
    memcpy(k2 + maxn, k, maxn * sizeof *k);
    CHECK(g->sum_ws(&got, p2, k2, 2 * maxn, 1, 2, ws, err) == CUZK_ERR_INVALID_ARGUMENT &&
          err[0] && memcmp(&got, &mark, sizeof got) == 0);
    /* still fine after the refusals */
    CHECK(g->sparse_ws(&got, p, k, maxn, 2, ws, err) == CUZK_OK &&
          g->jac_eq(&got, (unsigned char *)want + maxn * g->jac_size));
    g->scratch_free(ws);
    g->scratch_free(NULL);

    CHECK(g->scratch_new(&ws, 0, 1) == CUZK_OK);
    CHECK(g->sparse_ws(&got, p, k, 0, 1, ws, err) == CUZK_OK && g->jac_is_inf(&got));
    CHECK(g->sparse_ws(&got, p, k, 1, 1, ws, err) == CUZK_ERR_INVALID_ARGUMENT);
    g->scratch_free(ws);
    free(p2);
    free(k2);
    free(p);
    free(want);
    free(k);
}

int main(void)
{
    test_seed("test_msm");
    test_digits();
    test_scalar_from_fr();
    test_glv_split();
    test_plan_budget();

    test_msm_random(&GRP_g1, 1000);
    test_msm_windows(&GRP_g1);
    test_msm_edges(&GRP_g1);
    test_msm_points(&GRP_g1);
    test_msm_large(&GRP_g1, 1 << 12);
    test_glv_msm(&GRP_g1, 1000);
    test_msm_batch_affine(&GRP_g1, 700);
    test_msm_reduce_edges(&GRP_g1);
    test_batch_sum(&GRP_g1, 20000);
    test_scratch(&GRP_g1, 2500);

    test_msm_random(&GRP_g2, 100);
    test_msm_windows(&GRP_g2);
    test_msm_edges(&GRP_g2);
    test_msm_points(&GRP_g2);
    test_msm_large(&GRP_g2, 1 << 10);
    test_glv_msm(&GRP_g2, 300);
    test_msm_batch_affine(&GRP_g2, 200);
    test_msm_reduce_edges(&GRP_g2);
    test_batch_sum(&GRP_g2, 20000);
    test_scratch(&GRP_g2, 500);

    return test_done("test_msm");
}
