/* What the G1 and G2 MSMs share and what does not depend on the group:
 * scalar normalisation and signed-digit recoding, the cost model that picks
 * the window size and the work split, and the scalar classification of the
 * sparse path. Implemented in msm_common.c, except the inline helpers. */
#ifndef CUZK_MSM_INTERNAL_H
#define CUZK_MSM_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include <cuzk/msm.h>

/* Largest window size accepted; the cost model never gets close (c = 24
 * would mean 2^23 buckets, 1.5 GiB of G2 buckets per thread). */
#define MSM_MAX_C 24

/* Most ranges one call is cut into (the limit of common/parallel.c). */
#define MSM_MAX_THREADS 256

/* Scalars are reduced mod r and then "folded": k > (r - 1) / 2 becomes
 * r - k with the point negated, so k < 2^254 and ceil(255 / c) signed
 * windows suffice (see msm_digit). The Pippenger core takes the scalar
 * bit length nbits as a parameter (every scalar < 2^nbits after folding):
 * MSM_SCALAR_BITS for plain scalars, MSM_GLV_BITS for the halves of the
 * GLV decomposition (msm_glv_split), which every MSM now uses. */
#define MSM_SCALAR_BITS 254
#define MSM_GLV_BITS 128

extern const uint64_t MSM_R[4];      /* r */
extern const uint64_t MSM_R_HALF[4]; /* (r - 1) / 2 */

/* a >= b for 4-limb values (variable time). */
static inline int msm_ge4(const uint64_t a[4], const uint64_t b[4])
{
    for (int i = 3; i >= 0; i--)
        if (a[i] != b[i]) return a[i] > b[i];
    return 1;
}

/* r = a - b for 4-limb values, a >= b. */
static inline void msm_sub4(uint64_t r[4], const uint64_t a[4], const uint64_t b[4])
{
    unsigned __int128 borrow = 0;
    for (int i = 0; i < 4; i++) {
        unsigned __int128 d = (unsigned __int128)a[i] - b[i] - borrow;
        r[i] = (uint64_t)d;
        borrow = (d >> 64) & 1;
    }
}

/* out = k mod r, folded to |k| <= (r - 1) / 2; returns 1 if folded (the
 * point is then to be negated). Any 256-bit k: 2^256 < 3r, so at most two
 * subtractions of r. */
static inline unsigned msm_fold(uint64_t out[4], const uint64_t k[4])
{
    out[0] = k[0], out[1] = k[1], out[2] = k[2], out[3] = k[3];
    while (msm_ge4(out, MSM_R)) msm_sub4(out, out, MSM_R);
    if (!msm_ge4(MSM_R_HALF, out)) {
        msm_sub4(out, MSM_R, out);
        return 1;
    }
    return 0;
}

/* len (<= 32) bits of k starting at bit pos < 256; bits from 256 on read
 * as zero. */
static inline uint64_t msm_bits(const uint64_t k[4], unsigned pos, unsigned len)
{
    if (pos + len > 256) len = 256 - pos;
    unsigned limb = pos >> 6, sh = pos & 63;
    uint64_t x = k[limb] >> sh;
    if (sh + len > 64) x |= k[limb + 1] << (64 - sh);
    return x & ((1ull << len) - 1);
}

/* The signed digit of window w (bits [w c, w c + c)) of a folded k < 2^nbits:
 *   d_w = (bits of window w) + (top bit of window w - 1)
 *         - 2^c (top bit of window w).
 * Each digit depends only on c + 1 bits of k, so windows are recoded
 * independently, and sum_w d_w 2^(w c) = k - 2^(W c) (bit W c - 1 of k);
 * with W c >= nbits + 1 that bit is zero, so the digits give k exactly.
 * |d_w| <= 2^(c-1): buckets 1 .. 2^(c-1) suffice. */
static inline int64_t msm_digit(const uint64_t k[4], unsigned w, unsigned c)
{
    unsigned lo = w * c;
    uint64_t v = lo ? msm_bits(k, lo - 1, c + 1) : msm_bits(k, 0, c) << 1;
    uint64_t mid = v >> 1;
    return (int64_t)(mid + (v & 1)) - (int64_t)((mid >> (c - 1)) << c);
}

/* Number of windows for window size c and scalars < 2^nbits:
 * ceil((nbits + 1) / c). */
static inline unsigned msm_nwindows(unsigned c, unsigned nbits)
{
    return (nbits + 1 + c - 1) / c;
}

/* Buckets needed by window w: 2^(c-1), except the top window, whose live
 * bits (below nbits) number t <= c - 1, so its digits are non-negative and
 * at most 2^t. */
static inline size_t msm_window_buckets(unsigned w, unsigned c, unsigned nbits)
{
    unsigned lo = w * c;
    if (lo + c > nbits) {
        unsigned t = nbits - lo;
        return (size_t)1 << (t < c - 1 ? t : c - 1);
    }
    return (size_t)1 << (c - 1);
}

/* How a Pippenger call is cut: scalars of nbits bits, window size c, nwin
 * windows, the points in nranges contiguous ranges, nwin * nranges tasks
 * run by nthreads threads. */
struct msm_plan {
    unsigned nbits, c, nwin, nranges, nthreads;
};

/* Windows with at least this many buckets accumulate them in affine form,
 * in batches sharing one inversion (msm_impl.h); smaller ones in XYZZ. */
#define MSM_BA_MIN_BUCKETS 128

/* Relative costs of the group's operations, in (variable-time XYZZ) mixed
 * additions. */
struct msm_costs {
    double ba_point; /* one batch-affine bucket addition */
    size_t aff_bytes; /* an affine bucket */
    double bucket; /* reducing one bucket (running sum: two additions) */
    double dbl;    /* one Jacobian doubling (window combination) */
    double thread; /* starting a thread */
    size_t bucket_bytes;
};

/* Bytes of working memory a plan needs for n points (msm_impl.h). */
typedef size_t (*msm_plan_bytes_fn)(const struct msm_plan *p, size_t n);

/* Chooses c (or takes c_forced if nonzero) and the split for n points with
 * scalars < 2^nbits and nthreads threads (0 = all cores); see the cost
 * model in msm_common.c. With bytes non-NULL only plans with
 * bytes(plan, n) <= max_bytes are considered (a caller's scratch): the
 * cheapest of those. Returns 0 if no plan fits (*p is then unusable),
 * else 1. */
int msm_plan_choose(struct msm_plan *p, size_t n, unsigned nbits, unsigned nthreads,
                    unsigned c_forced, const struct msm_costs *costs, msm_plan_bytes_fn bytes,
                    size_t max_bytes);

/* GLV (G1 here; G2 uses the same L through psi^2, see g2_msm.c).
 * phi(x, y) = (beta x, y) acts on G1 as [-L] with
 * L = x^2 = MSM_GLV_L (x the BLS parameter; r = L^2 - L + 1, so L is a
 * root of l^2 - l + 1 and -L one of l^2 + l + 1 mod r; the beta of
 * src/ec/g1.c picks -L, checked by tests/test_msm.c). Any k mod r is k = k1 + k2 L with k2 = floor(k' / L),
 * k1 = k' mod L (k' = k mod r < r < L^2), so 0 <= k1, k2 < L < 2^128, and
 *   [k] P = [k1] P + [k2] (-phi(P)).
 * msm_glv_split writes k1 and k2 (2 limbs each) for any 256-bit k. */
extern const uint64_t MSM_GLV_L[2];
void msm_glv_split(uint64_t k1[2], uint64_t k2[2], const uint64_t k[4]);

unsigned msm_threads(unsigned nthreads);

/* Classifies scalars for the sparse path: sets bit i of ones (ceil(n/64)
 * words, caller-owned, fully written) iff scalars[i] = 1 mod r, and writes
 * the indices of the scalars that are neither 0 nor 1 mod r to rest (n
 * entries of room, caller-owned). Returns how many went to rest. */
size_t msm_classify(uint64_t *ones, size_t *rest, const cuzk_scalar *scalars, size_t n);

#endif /* CUZK_MSM_INTERNAL_H */
