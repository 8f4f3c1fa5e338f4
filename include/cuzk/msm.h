/* cuzk — multi-scalar multiplication on G1 and G2 on the CPU.
 *
 *   r = sum_i [k_i] P_i
 *
 * The CPU backend of the prover and the reference the GPU kernels are
 * tested against. Algorithms:
 *   - GLV on both groups: k = k1 + k2 x^2 with 128-bit halves over P and
 *     [x^2] P, an endomorphism of each group (-phi on G1, psi^2 on G2);
 *   - Pippenger's bucket method with signed (Booth-recoded) c-bit digits,
 *     computed once per call for every window, buckets filled in batches of
 *     affine additions sharing one inversion (windows of >= 128 buckets;
 *     XYZZ mixed additions otherwise and when a batch cannot fill), the
 *     running-sum bucket reduction in affine batches as well (XYZZ where
 *     the buckets are not all affine), and window combination by doubling;
 *     the additions are variable time; c is chosen from a cost model
 *     (src/msm/msm_common.c) together with how the work is split between
 *     threads;
 *   - batch affine summation (a pairwise tree, one shared inversion per
 *     level by Montgomery's trick) for sums of bases with scalar 1;
 *   - a sparse entry point that skips scalar 0, batch-sums scalar 1 and runs
 *     Pippenger on the rest (witness vectors are mostly 0 and 1), and its
 *     form for a sum of several vectors (one Pippenger over all).
 *
 * Points are affine with infinity = (0, 0) (the ec.h convention); points at
 * infinity are skipped. Points must lie in the order-r subgroup (as every
 * proving-key base does): scalars act modulo r.
 *
 * Timing: everything here is variable-time in the scalars (the bucket a
 * point lands in depends on them), as every Pippenger MSM is.
 *
 * Memory: the caller owns every array passed in and the result; nothing
 * passed in is modified. Functions that need working memory allocate it with
 * malloc at the start of the call and free it before they return; each
 * function's comment says how much. On allocation failure they return
 * CUZK_ERR_NO_MEMORY with *r untouched; they never abort. The _ws forms
 * take that memory from a scratch made once instead (a long-lived prover:
 * no allocation per proof); see "Scratch" below.
 *
 * Threads: nthreads = 0 means one per online core. The work runs on the
 * process's thread pool (cuzk/pool.h) and the caller's thread; nthreads is
 * how many parts it is split into.
 */
#ifndef CUZK_MSM_H
#define CUZK_MSM_H

#include <stddef.h>
#include <stdint.h>

#include <cuzk/ec.h>
#include <cuzk/ff.h>
#include <cuzk/status.h>

/* A scalar in canonical (not Montgomery) form: 4 little-endian 64-bit limbs.
 * Groth16 provers convert each witness vector once and reuse it for several
 * MSMs. Values should be < r; any 256-bit value is accepted and taken mod r. */
typedef struct { uint64_t l[4]; } cuzk_scalar;

/* out[i] = canonical form of in[i] for i < n (one Montgomery multiplication
 * each), on up to nthreads threads (0 = all cores). out may equal in (the
 * conversion is element by element); otherwise they must not overlap.
 * Allocates nothing. */
void cuzk_scalar_from_fr(cuzk_scalar *out, const cuzk_fr *in, size_t n, unsigned nthreads);

/* The window size (bits per digit) cuzk_g1_msm_var / cuzk_g2_msm_var would choose for
 * n points on nthreads threads (0 = all cores). For benchmarks and tests. */
unsigned cuzk_g1_msm_window(size_t n, unsigned nthreads);
unsigned cuzk_g2_msm_window(size_t n, unsigned nthreads);

/* ----------------------------------------------------------- Scratch --
 *
 * A scratch holds all the working memory of the _ws calls of one group
 * (cuzk_g1_msm_ws_var, cuzk_g1_msm_sparse_ws_var, cuzk_g1_msm_sparse_sum_ws_var and
 * their G2 twins): the sparse path's bitmaps and index lists, the batch
 * sums' buffers, and Pippenger's GLV points, digits, buckets and batch
 * state. It is made for a limit max_n on the points of one call (for a
 * sum: of all its vectors together, any nv <= CUZK_MSM_MAX_VECS) and a
 * thread count (0 = one per online core, resolved when it is made); a call
 * within both performs no malloc, calloc or realloc. A call above either
 * returns CUZK_ERR_INVALID_ARGUMENT and says which in err.
 *
 * The window is the one a call without scratch would choose for max_n and
 * for sizes near max_n / 2^j; for other sizes, if that plan would not fit,
 * the cheapest plan that does (the result is the same: only the speed can
 * differ, and one always fits).
 *
 * Size: about 8.1 bytes per point for the sparse path plus, for the
 * Pippenger call, 2 x (affine point + 4 ceil(129 / c) bytes) per point
 * (G1 at c = 16: ~264 bytes per point; G2 ~456) and per thread the
 * buckets and ~100-200 KiB of batch state. cuzk_gN_msm_scratch_bytes
 * gives the exact figure before making one. Memory is not touched when
 * made: pages are faulted in by the first call that uses them.
 *
 * A scratch serves one call at a time: calls that share one must not
 * overlap (a G1 and a G2 scratch are independent). It keeps nothing
 * between calls. */
typedef struct cuzk_g1_msm_scratch cuzk_g1_msm_scratch;
typedef struct cuzk_g2_msm_scratch cuzk_g2_msm_scratch;

/* Bytes a scratch for max_n points and nthreads threads takes (SIZE_MAX if
 * that does not fit in a size_t). */
size_t cuzk_g1_msm_scratch_bytes(size_t max_n, unsigned nthreads);
size_t cuzk_g2_msm_scratch_bytes(size_t max_n, unsigned nthreads);

/* *s = a new scratch (owned by the caller: cuzk_gN_msm_scratch_free); one
 * allocation of cuzk_gN_msm_scratch_bytes plus a small header.
 * CUZK_ERR_NO_MEMORY (and *s = NULL) if it cannot be had. */
cuzk_status cuzk_g1_msm_scratch_new(cuzk_g1_msm_scratch **s, size_t max_n, unsigned nthreads);
cuzk_status cuzk_g2_msm_scratch_new(cuzk_g2_msm_scratch **s, size_t max_n, unsigned nthreads);

/* Bytes s holds (0 for NULL). */
size_t cuzk_g1_msm_scratch_size(const cuzk_g1_msm_scratch *s);
size_t cuzk_g2_msm_scratch_size(const cuzk_g2_msm_scratch *s);

/* Frees s and its memory; NULL is ignored. */
void cuzk_g1_msm_scratch_free(cuzk_g1_msm_scratch *s);
void cuzk_g2_msm_scratch_free(cuzk_g2_msm_scratch *s);

/* ---------------------------------------------------------------- G1 -- */

/* *r = sum_{i<n} [scalars[i]] points[i]; n = 0 gives infinity.
 * Allocates per call: one bucket array of 2^(c-1) XYZZ points per thread
 * (c the window size: 96 KiB per thread at c = 10, 3 MiB at c = 15) plus
 * about 4 bytes per bucket and ~85 KiB (G2: ~160 KiB) of batch state per
 * thread, and one XYZZ point per (window, point range) task; all freed on
 * return. GLV: each scalar k is split as k1 + k2 L (L = x^2, both halves
 * < 2^128) over P_i and [L] P_i = -phi(P_i) (G2: psi^2(P_i)), so the call
 * also allocates 2n affine points and the 2n x ceil(129 / c) signed digits
 * (4 bytes each: ~290 bytes per input point at c = 11-13, G2 ~480), and
 * the window is chosen for 2n points with 128-bit scalars
 * (cuzk_g1_msm_window reports it). The same holds for
 * cuzk_g1_msm_c_var and for the Pippenger part of the sparse MSMs (per scalar
 * that is neither 0 nor 1). */
cuzk_status cuzk_g1_msm_var(cuzk_g1_jac *r, const cuzk_g1_affine *points,
                        const cuzk_scalar *scalars, size_t n, unsigned nthreads);

/* cuzk_g1_msm_var with its working memory from ws (NULL: allocated as
 * cuzk_g1_msm_var does). err: NULL or CUZK_ERRMSG_LEN bytes, says why a call
 * failed (CUZK_ERR_INVALID_ARGUMENT: n or nthreads above ws's limits). */
cuzk_status cuzk_g1_msm_ws_var(cuzk_g1_jac *r, const cuzk_g1_affine *points,
                           const cuzk_scalar *scalars, size_t n, unsigned nthreads,
                           cuzk_g1_msm_scratch *ws, char *err);

/* cuzk_g1_msm_var with the window size forced to c (1 <= c <= 24; 0 = choose as
 * cuzk_g1_msm_var does). For tests and tuning: CUZK_ERR_INVALID_ARGUMENT if c is
 * out of range. */
cuzk_status cuzk_g1_msm_c_var(cuzk_g1_jac *r, const cuzk_g1_affine *points,
                          const cuzk_scalar *scalars, size_t n, unsigned nthreads,
                          unsigned c);

/* The same sum for sparse scalar vectors: scalars equal to 0 are skipped,
 * points with scalar 1 are summed by cuzk_g1_batch_sum_bitmap_var, and Pippenger
 * runs over the remaining points not at infinity only (its window chosen
 * for their count). Allocates, besides what those two allocate: a bitmap of
 * n bits and n size_t indices. */
cuzk_status cuzk_g1_msm_sparse_var(cuzk_g1_jac *r, const cuzk_g1_affine *points,
                               const cuzk_scalar *scalars, size_t n, unsigned nthreads);

/* cuzk_g1_msm_sparse_var with its working memory from ws (NULL: allocated);
 * err as for cuzk_g1_msm_ws_var. */
cuzk_status cuzk_g1_msm_sparse_ws_var(cuzk_g1_jac *r, const cuzk_g1_affine *points,
                                  const cuzk_scalar *scalars, size_t n, unsigned nthreads,
                                  cuzk_g1_msm_scratch *ws, char *err);

/* One vector of a sum of MSMs. */
typedef struct {
    const cuzk_g1_affine *points;
    const cuzk_scalar *scalars;
    size_t n;
} cuzk_g1_msm_vec;

/* Most vectors one cuzk_g1_msm_sparse_sum_var / cuzk_g2_msm_sparse_sum_var takes. */
#define CUZK_MSM_MAX_VECS 4

/* *r = sum over v[0..nv) of sum_{i < v[q].n} [v[q].scalars[i]] v[q].points[i],
 * nv <= CUZK_MSM_MAX_VECS (else CUZK_ERR_INVALID_ARGUMENT), each vector
 * handled as by cuzk_g1_msm_sparse_var but with one Pippenger call over the
 * remaining points of all of them: one bucket reduction per window instead
 * of one per vector, and a window chosen for the total. For MSMs needed
 * only as a sum (the L, H and r B terms of a Groth16 C). Allocates what the
 * nv cuzk_g1_msm_sparse_var calls would. */
cuzk_status cuzk_g1_msm_sparse_sum_var(cuzk_g1_jac *r, const cuzk_g1_msm_vec *v, size_t nv,
                                   unsigned nthreads);

/* cuzk_g1_msm_sparse_sum_var with its working memory from ws (NULL:
 * allocated); ws limits the points of all nv vectors together; err as for
 * cuzk_g1_msm_ws_var (also for nv > CUZK_MSM_MAX_VECS). */
cuzk_status cuzk_g1_msm_sparse_sum_ws_var(cuzk_g1_jac *r, const cuzk_g1_msm_vec *v, size_t nv,
                                      unsigned nthreads, cuzk_g1_msm_scratch *ws, char *err);

/* *r = sum_{i<n} points[i] by batch affine addition: pairs are added in
 * affine coordinates with one inversion per level of a pairwise tree
 * (Montgomery's trick), about 6 multiplications per addition against 11 for
 * an XYZZ mixed addition. P = Q, P = -Q and points at infinity are handled.
 * Allocates a working buffer of CUZK_BATCH_SUM_CHUNK affine points and
 * CUZK_BATCH_SUM_CHUNK / 2 field elements per thread used (120 KiB per
 * thread for G1, 240 KiB for G2); a thread is used per 8 buffers of input
 * at most, so small sums run on one. */
cuzk_status cuzk_g1_batch_sum_var(cuzk_g1_jac *r, const cuzk_g1_affine *points, size_t n,
                              unsigned nthreads);

/* *r = sum of the points[i], i < n, whose bit i is set in bitmap: bit i is
 * bit (i % 64) of bitmap[i / 64]; bits at or beyond n are ignored, and the
 * bitmap holds ceil(n / 64) words. Allocates as cuzk_g1_batch_sum_var. */
cuzk_status cuzk_g1_batch_sum_bitmap_var(cuzk_g1_jac *r, const cuzk_g1_affine *points,
                                     const uint64_t *bitmap, size_t n, unsigned nthreads);

/* ---------------------------------------------------------------- G2 -- */

/* The G2 twins of the G1 functions above; same contracts. Buckets and
 * buffers are twice the size (Fp2 coordinates). */
cuzk_status cuzk_g2_msm_var(cuzk_g2_jac *r, const cuzk_g2_affine *points,
                        const cuzk_scalar *scalars, size_t n, unsigned nthreads);
cuzk_status cuzk_g2_msm_ws_var(cuzk_g2_jac *r, const cuzk_g2_affine *points,
                           const cuzk_scalar *scalars, size_t n, unsigned nthreads,
                           cuzk_g2_msm_scratch *ws, char *err);
cuzk_status cuzk_g2_msm_c_var(cuzk_g2_jac *r, const cuzk_g2_affine *points,
                          const cuzk_scalar *scalars, size_t n, unsigned nthreads,
                          unsigned c);
cuzk_status cuzk_g2_msm_sparse_var(cuzk_g2_jac *r, const cuzk_g2_affine *points,
                               const cuzk_scalar *scalars, size_t n, unsigned nthreads);
cuzk_status cuzk_g2_msm_sparse_ws_var(cuzk_g2_jac *r, const cuzk_g2_affine *points,
                                  const cuzk_scalar *scalars, size_t n, unsigned nthreads,
                                  cuzk_g2_msm_scratch *ws, char *err);
typedef struct {
    const cuzk_g2_affine *points;
    const cuzk_scalar *scalars;
    size_t n;
} cuzk_g2_msm_vec;
cuzk_status cuzk_g2_msm_sparse_sum_var(cuzk_g2_jac *r, const cuzk_g2_msm_vec *v, size_t nv,
                                   unsigned nthreads);
cuzk_status cuzk_g2_msm_sparse_sum_ws_var(cuzk_g2_jac *r, const cuzk_g2_msm_vec *v, size_t nv,
                                      unsigned nthreads, cuzk_g2_msm_scratch *ws, char *err);
cuzk_status cuzk_g2_batch_sum_var(cuzk_g2_jac *r, const cuzk_g2_affine *points, size_t n,
                              unsigned nthreads);
cuzk_status cuzk_g2_batch_sum_bitmap_var(cuzk_g2_jac *r, const cuzk_g2_affine *points,
                                     const uint64_t *bitmap, size_t n, unsigned nthreads);

/* Points per batch-sum working buffer (per thread); see cuzk_g1_batch_sum_var. */
#define CUZK_BATCH_SUM_CHUNK 1024

#endif /* CUZK_MSM_H */
