/* cuzk — the CUDA backend's launch API (pure C; no CUDA headers).
 *
 * Host code reaches the GPU only through this header (tests and benchmarks
 * also through src/gpu/gpu_testing.h). Every function that can fail returns
 * a cuzk_status and takes `char *err` last (NULL, or CUZK_ERRMSG_LEN bytes,
 * status.h): on failure one line "gpu: ..." (with the CUDA error text where
 * CUDA failed), on success an empty string. CUZK_ERR_NO_DEVICE: no usable
 * CUDA device; CUZK_ERR_CUDA: a CUDA call failed; CUZK_ERR_NO_MEMORY: a
 * request does not fit the context's device pool (or host memory);
 * CUZK_ERR_INVALID_ARGUMENT: misuse. Nothing here aborts or exits.
 *
 * Field elements cross the API in the CPU layout of include/cuzk/ff.h
 * (Montgomery form, little-endian limbs); the device reads the same bytes as
 * 8 (Fr) or 12 (Fp) little-endian 32-bit limbs. Inputs must be fully reduced.
 *
 * Contexts, memory and streams (the rules every section below follows):
 *  - A context is bound to one device. It owns `streams` CUDA streams
 *    (numbered 0 .. streams - 1), one more internal stream on which the
 *    create functions run, and one device-memory pool of a fixed byte
 *    budget, allocated (cudaMalloc) once in cuzk_gpu_ctx_create and freed in
 *    cuzk_gpu_ctx_destroy. MSM plans, NTT domains, device PCEs, fixed-base
 *    multipliers and cuzk_gpu_buf_alloc buffers take their device memory
 *    from the pool when they are created and give it back when destroyed;
 *    an object that does not fit is CUZK_ERR_NO_MEMORY with a message.
 *    Nothing else allocates device memory, and no call synchronizes the
 *    whole device.
 *  - Work functions (MSM start, NTT, PCE evaluation, copies) take a stream
 *    index, enqueue their work on that stream and return. Work on one
 *    stream runs in order; on different streams it may overlap. Completion:
 *    cuzk_gpu_stream_wait (everything enqueued on the stream), or for an
 *    MSM its finish call (that MSM only). Errors of running kernels show at
 *    the next wait. cuzk_gpu_stream_order makes one stream wait for another
 *    on the device.
 *  - Threads: each stream is used by one host thread at a time; objects
 *    (plans, domains, ...) by one host thread at a time; create and destroy
 *    calls may come from any thread (the pool is locked). Destroy objects
 *    before their context; destroy waits for the context's streams.
 */
#ifndef CUZK_GPU_H
#define CUZK_GPU_H

#include <stddef.h>
#include <stdint.h>

#include <cuzk/ff.h>
#include <cuzk/status.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------ devices -- */

/* *count = number of CUDA devices. No driver or no device gives *count = 0
 * and CUZK_OK (so callers can skip); any other failure gives CUZK_ERR_CUDA
 * (a machine with a GPU whose CUDA does not work is an error, not a skip). */
cuzk_status cuzk_gpu_device_count(int *count, char *err);

typedef struct {
    char name[256];
    int cc_major, cc_minor;   /* compute capability */
    int sm_count;
    int clock_khz;            /* maximum SM clock */
    size_t global_mem;        /* bytes */
} cuzk_gpu_device_info;

cuzk_status cuzk_gpu_get_device_info(cuzk_gpu_device_info *info, int device, char *err);

/* ------------------------------------------------------------ context -- */

typedef struct cuzk_gpu_ctx cuzk_gpu_ctx;

#define CUZK_GPU_MAX_STREAMS 16

/* Context options; all-zero (or a NULL pointer) picks the defaults. */
typedef struct {
    int device;          /* CUDA device index */
    size_t pool_bytes;   /* device pool budget; 0: what the device has
                            free at creation less max(1/16 of it, 4 GiB or
                            1/8 of a smaller card), which stays for CUDA's
                            own needs (the kernels' local memory, ...):
                            CUZK_ERR_NO_MEMORY when nothing is left */
    unsigned streams;    /* work streams, 1 .. CUZK_GPU_MAX_STREAMS; 0: 1 */
} cuzk_gpu_ctx_opts;

/* Creates a context: its streams, events and the device pool (one
 * cudaMalloc). *ctx is set on success only; free it with
 * cuzk_gpu_ctx_destroy. */
cuzk_status cuzk_gpu_ctx_create(cuzk_gpu_ctx **ctx, const cuzk_gpu_ctx_opts *opts, char *err);

/* Waits for the context's streams, then frees everything it owns. NULL is a
 * no-op. */
void cuzk_gpu_ctx_destroy(cuzk_gpu_ctx *ctx);

/* The number of work streams (0 for NULL). */
unsigned cuzk_gpu_ctx_streams(const cuzk_gpu_ctx *ctx);

/* The pool's budget and the bytes now allocated from it (optional outputs). */
void cuzk_gpu_ctx_pool(const cuzk_gpu_ctx *ctx, size_t *total, size_t *used);

/* Waits until everything enqueued so far on `stream` is done; an idle
 * stream returns at once. Reports errors of the work that ran. */
cuzk_status cuzk_gpu_stream_wait(cuzk_gpu_ctx *ctx, unsigned stream, char *err);

/* Work enqueued on stream `later` after this call waits (on the device; the
 * host does not block) for everything enqueued on `earlier` before it. */
cuzk_status cuzk_gpu_stream_order(cuzk_gpu_ctx *ctx, unsigned later, unsigned earlier,
                                  char *err);

/* Device memory from the context's pool (256-byte aligned), for the device
 * arrays of cuzk_gpu_ntt and cuzk_gpu_pce_eval. Allocate once, not per
 * proof: cuzk_gpu_buf_free waits for the context's streams. */
cuzk_status cuzk_gpu_buf_alloc(void **ptr, cuzk_gpu_ctx *ctx, size_t bytes, char *err);
void cuzk_gpu_buf_free(cuzk_gpu_ctx *ctx, void *ptr);

/* Enqueues a copy of `bytes` from src to dst on `stream` (any direction:
 * host (pinned memory copies at full PCIe speed; pageable memory may make
 * the call wait for the copy) or device). */
cuzk_status cuzk_gpu_memcpy(cuzk_gpu_ctx *ctx, unsigned stream, void *dst, const void *src,
                            size_t bytes, char *err);

/* Pinned (page-locked) host memory, for scalars and other transfers.
 * Free with cuzk_gpu_host_free (NULL is a no-op). */
cuzk_status cuzk_gpu_host_alloc(void **ptr, size_t bytes, char *err);
void cuzk_gpu_host_free(void *ptr);

/* ========================================================= G1/G2 MSM ====
 * (src/gpu/msm.cu (shared host code), msm_g1.cu, msm_g2.cu, msm_impl.cuh,
 * msm.cuh, msm_affine.cuh, ec.cuh)
 *
 *   r = sum_{i<n} [k_i] P_i   on G1 or G2, the points resident on the device.
 *
 * The same sums as cuzk_g1_msm_var / cuzk_g2_msm_var (include/cuzk/msm.h), with
 * the same inputs: affine points with infinity = (0, 0) (skipped), in the
 * order-r subgroup; canonical scalars (cuzk_scalar; any 256-bit value is
 * taken mod r). Pippenger with signed c-bit digits, a radix sort of
 * (bucket, point) pairs, bucket accumulation (batch-affine or XYZZ, below)
 * balanced over equal-size chunks of the sorted pairs, and a two-level
 * running-sum bucket reduction, all on the device; the host adds the
 * ~12-32 window sums. G2 runs the same code over Fp2 (~2.8x G1's cost).
 *
 * For 0/1 scalars (a witness's bits) the bits calls sum the points whose
 * bit is set, with no digits, sort or buckets: one mixed addition per set
 * bit (or, with CUZK_GPU_MSM_BITS_TABLE, per non-zero group of 4 bits).
 *
 * A plan holds a fixed point set of one group (a proving key's bases) and
 * every buffer an MSM over it needs, taken from the context's pool when the
 * plan is made: per point 96 B (G1) or 192 B (G2), 32 B per scalar, 16 B per
 * (window, point) sort entry, one XYZZ point (192 / 384 B) per bucket, and
 * with batch-affine accumulation 2 affine points per 32 sort entries; for
 * 2^26 G1 points and c = 22, ~33 GB (cuzk_gpu_msm_plan_device_bytes). MSM
 * calls allocate nothing. A plan runs one MSM at a time (start to finish);
 * MSMs on different plans may run at once on different streams. */
#include <cuzk/ec.h>
#include <cuzk/msm.h>

typedef struct cuzk_gpu_msm_plan cuzk_gpu_msm_plan;

typedef enum { CUZK_GPU_G1 = 1, CUZK_GPU_G2 = 2 } cuzk_gpu_group;

/* CUZK_GPU_MSM_PRECOMPUTE: the plan also holds T[w][i] = [2^(c w)] P_i for
 * every window w (the bases of a proving key never change), made on the
 * device when the plan is made. Every window's digit of scalar i then
 * indexes the same 2^(c-1) buckets with point T[w][i], so there is one
 * window's buckets to reduce instead of W, no doublings between windows,
 * and room for a larger window: cuzk_gpu_msm_window gives c = 22 (12
 * windows) at 2^24 points, c = 24 (11 windows) at 2^26; c <= 24. The cost:
 * W n affine points of device memory for the table (W = ceil(255 / c);
 * 2^26 G1 points at c = 24: 71 GB), and c doublings per table point to make
 * it (estimated 6-8 s at 2^26 on an H200). When it does not fit the pool (or
 * W n > 2^31), creation fails with CUZK_ERR_NO_MEMORY: make a plain plan
 * instead. All else is as for a plain plan. */
#define CUZK_GPU_MSM_PRECOMPUTE 1u

/* CUZK_GPU_MSM_BITS_TABLE: the plan also holds the sums of every non-empty
 * subset of each group of 4 consecutive points (15 affine points a group:
 * 3.75 n points, 24 GB for 2^26 G1 points). Bitmap sums then add one table
 * point per non-zero nibble: 15/64 n mixed additions at density 1/2 instead
 * of n / 2. MSMs with scalars are unaffected. */
#define CUZK_GPU_MSM_BITS_TABLE 2u

/* How an MSM fills its buckets (stage "accumulate"); both give the same
 * results.
 *   DEFAULT       BATCH_AFFINE (measured faster for every MSM on the H200,
 *                 docs/perf.md).
 *   XYZZ          mixed additions into XYZZ buckets (8M + 2S each).
 *   BATCH_AFFINE  affine additions (2M + 1S) that share one field inversion
 *                 per 64 additions by Montgomery's trick (+3M each)
 *                 (src/gpu/msm_affine.cuh); 2 more affine points of device
 *                 memory per 32 sort entries (4.8 GB for 2^26 G1 points at
 *                 c = 22). Bitmap sums are unaffected. */
typedef enum {
    CUZK_GPU_MSM_ACC_DEFAULT = 0,
    CUZK_GPU_MSM_XYZZ = 1,
    CUZK_GPU_MSM_BATCH_AFFINE = 2
} cuzk_gpu_msm_acc;

/* A scratch several plans share. A plan keeps its points (and tables) for
 * its whole life, but the rest of its memory (scalar staging, sort keys and
 * values, buckets, partial sums: 32 + 16 W + ~7.5 W bytes a G1 point with
 * batch-affine accumulation, W windows) serves one MSM at a time. Plans
 * made with opts.scratch borrow that memory from one cuzk_gpu_msm_scratch
 * instead: five plans of a 2^27-domain proving key need ~216 GB with their
 * own, ~121 GB with one shared (docs/gpu-prover.md). The rules: the MSMs
 * of plans sharing a scratch are started on one stream (their device work
 * then runs in turn; a start on another stream while one of them is in
 * flight is CUZK_ERR_INVALID_ARGUMENT), a plan is made with a scratch only
 * while none of them is in flight, and they are used from one thread. */
typedef struct cuzk_gpu_msm_scratch cuzk_gpu_msm_scratch;

/* Plan options; zero fields pick the defaults (except group). */
typedef struct {
    cuzk_gpu_group group;  /* CUZK_GPU_G1 or CUZK_GPU_G2 */
    unsigned c;            /* window bits: 8..23 (8..24 with PRECOMPUTE);
                              0 = cuzk_gpu_msm_window(n, flags) */
    unsigned flags;        /* CUZK_GPU_MSM_PRECOMPUTE | CUZK_GPU_MSM_BITS_TABLE */
    cuzk_gpu_msm_acc acc;  /* accumulation method */
    cuzk_gpu_msm_scratch *scratch; /* borrowed (outlives the plan), or NULL:
                                      the plan's own */
    unsigned window_batches; /* 0, 1: every window's digits sorted at once;
                                k > 1: in k batches (at least 2 windows
                                each), so the sort keys and values and the
                                batch-affine pieces (22 W bytes a G1 point)
                                shrink about k-fold, for k smaller sorts.
                                Plain plans only (not PRECOMPUTE). */
    unsigned fp64_share;   /* 0: every Fp multiplication on the integer
                              pipe (the default). 1..CUZK_GPU_MSM_FP64_MAX:
                              that many of the 6 field products of each
                              affine addition run on the FP64 pipe instead
                              (src/gpu/ff_fp64.cuh; G2: 2 of the 3 Fp
                              products of each such Fp2 product; same
                              results, bit for bit), so both multipliers
                              work. Batch-affine plans only; not yet
                              measured (docs/perf.md, "FP64 share of the
                              batch-affine accumulation"). */
} cuzk_gpu_msm_opts;

/* The largest cuzk_gpu_msm_opts.fp64_share. */
#define CUZK_GPU_MSM_FP64_MAX 4u

/* *bytes = the scratch a plan with opts over n points uses (the same with
 * opts->scratch set or not); CUZK_ERR_INVALID_ARGUMENT for options that
 * cuzk_gpu_msm_plan_create refuses. */
cuzk_status cuzk_gpu_msm_scratch_bytes(size_t *bytes, const cuzk_gpu_msm_opts *opts, size_t n,
                                       char *err);
/* A scratch of `bytes` from ctx's pool (at least the largest
 * cuzk_gpu_msm_scratch_bytes of the plans that will share it). Destroy it
 * after every plan made with it. */
cuzk_status cuzk_gpu_msm_scratch_create(cuzk_gpu_msm_scratch **scratch, cuzk_gpu_ctx *ctx,
                                        size_t bytes, char *err);
void cuzk_gpu_msm_scratch_destroy(cuzk_gpu_msm_scratch *scratch);

/* The window size a plan for n points with these flags gets with c = 0 (a
 * cost model, see msm.cu; the same for both groups). */
unsigned cuzk_gpu_msm_window(size_t n, unsigned flags);

/* Makes a plan for points[0..n) (host memory: cuzk_g1_affine or
 * cuzk_g2_affine by opts->group; copied; 1 <= n <= 2^31) on ctx.
 * Synchronous (on the context's internal stream). *plan is set on success
 * only; free it with cuzk_gpu_msm_plan_destroy. */
cuzk_status cuzk_gpu_msm_plan_create(cuzk_gpu_msm_plan **plan, cuzk_gpu_ctx *ctx,
                                     const cuzk_gpu_msm_opts *opts, const void *points, size_t n,
                                     char *err);

/* Waits for the plan's MSM in flight (if any) and the context's streams,
 * then returns its memory to the pool. NULL is a no-op. */
void cuzk_gpu_msm_plan_destroy(cuzk_gpu_msm_plan *plan);

unsigned cuzk_gpu_msm_plan_window(const cuzk_gpu_msm_plan *plan);
size_t cuzk_gpu_msm_plan_device_bytes(const cuzk_gpu_msm_plan *plan);
unsigned cuzk_gpu_msm_plan_flags(const cuzk_gpu_msm_plan *plan);
cuzk_gpu_msm_acc cuzk_gpu_msm_plan_acc(const cuzk_gpu_msm_plan *plan);

/* Starting an MSM on the plan: the calls below enqueue all of its device
 * work on `stream` of the plan's context (the copy of host input first) and
 * return; the plan is then busy until its finish call, which waits for
 * this MSM only and does the host's last additions. Input (scalars or
 * bitmap) may be device memory (read in place, it must stay unchanged until
 * the finish) or host memory (copied into the plan; pinned memory, e.g.
 * from cuzk_gpu_host_alloc, is copied at full PCIe speed, pageable memory
 * makes the start wait for its copy). n <= the plan's size; n = 0 gives
 * infinity. Starting a busy plan is CUZK_ERR_INVALID_ARGUMENT.
 *
 *   cuzk_gpu_msm_start_var:        sum [scalars[i]] P_i over the first n points.
 *   cuzk_gpu_msm_bits_start_var:   sum of P_i over the i < n whose bit is set in
 *                              bits (bit i of word i / 64, the witness bitmaps
 *                              of pce.h; bits from n on are ignored).
 *   cuzk_gpu_msm_sparse_start_var: the sum of cuzk_gpu_msm_start_var for
 *                              witness-like vectors where many scalars are 0
 *                              or 1: the ones are summed as a bitmap on the
 *                              device (through the plan's subset-sum table if
 *                              it has one), Pippenger runs over the rest with
 *                              those set to 0. */
cuzk_status cuzk_gpu_msm_start_var(cuzk_gpu_msm_plan *plan, unsigned stream,
                               const cuzk_scalar *scalars, size_t n, char *err);
cuzk_status cuzk_gpu_msm_bits_start_var(cuzk_gpu_msm_plan *plan, unsigned stream,
                                    const uint64_t *bits, size_t n, char *err);
cuzk_status cuzk_gpu_msm_sparse_start_var(cuzk_gpu_msm_plan *plan, unsigned stream,
                                      const cuzk_scalar *scalars, size_t n, char *err);
/* cuzk_gpu_msm_sparse_start_var when at most max_rest of the scalars are
 * neither 0 nor 1 (a witness: the count of its other values): Pippenger
 * then runs over those alone, compacted on the device, so its sort and
 * accumulation take W max_rest entries instead of W n (porep-32g: ~1% of
 * them). More than max_rest such scalars is reported by the finish as
 * CUZK_ERR_INVALID_ARGUMENT, never a wrong sum. A bound of n / 2 or more
 * runs as the unbounded form. */
cuzk_status cuzk_gpu_msm_sparse_start_bounded_var(cuzk_gpu_msm_plan *plan, unsigned stream,
                                              const cuzk_scalar *scalars, size_t n,
                                              size_t max_rest, char *err);

/* Waits for the plan's started MSM and writes its result; the plan is then
 * free again (also after an error). A finish call with the other group's
 * output type, or with no MSM started, is CUZK_ERR_INVALID_ARGUMENT. */
cuzk_status cuzk_gpu_g1_msm_finish(cuzk_g1_jac *r, cuzk_gpu_msm_plan *plan, char *err);
cuzk_status cuzk_gpu_g2_msm_finish(cuzk_g2_jac *r, cuzk_gpu_msm_plan *plan, char *err);

/* Synchronous forms: start, then finish. */
cuzk_status cuzk_gpu_g1_msm_var(cuzk_g1_jac *r, cuzk_gpu_msm_plan *plan, unsigned stream,
                            const cuzk_scalar *scalars, size_t n, char *err);
cuzk_status cuzk_gpu_g2_msm_var(cuzk_g2_jac *r, cuzk_gpu_msm_plan *plan, unsigned stream,
                            const cuzk_scalar *scalars, size_t n, char *err);
cuzk_status cuzk_gpu_g1_msm_bits_var(cuzk_g1_jac *r, cuzk_gpu_msm_plan *plan, unsigned stream,
                                 const uint64_t *bits, size_t n, char *err);
cuzk_status cuzk_gpu_g2_msm_bits_var(cuzk_g2_jac *r, cuzk_gpu_msm_plan *plan, unsigned stream,
                                 const uint64_t *bits, size_t n, char *err);
cuzk_status cuzk_gpu_g1_msm_sparse_var(cuzk_g1_jac *r, cuzk_gpu_msm_plan *plan, unsigned stream,
                                   const cuzk_scalar *scalars, size_t n, char *err);
cuzk_status cuzk_gpu_g2_msm_sparse_var(cuzk_g2_jac *r, cuzk_gpu_msm_plan *plan, unsigned stream,
                                   const cuzk_scalar *scalars, size_t n, char *err);
/* ===================================================== end G1/G2 MSM ==== */

/* ==================================================== PCE evaluation ====
 * (src/gpu/spmv.cu) a = A w, b = B w, c = C w on the GPU from a compiled
 * PCE (include/cuzk/pce.h), bit-identical to cuzk_pce_eval.
 *
 * A device PCE is a copy of the PCE's arrays in the context's pool, made
 * once (terms stay bit-packed; cuzk_gpu_pce_device_bytes ~ the image
 * size). One warp decodes one 256-row block of one matrix, 8 rows a lane. */
#include <cuzk/pce.h>

typedef struct cuzk_gpu_pce cuzk_gpu_pce;

/* Copies p to the device (synchronous). p may be freed afterwards. p must
 * have been checked when it was opened (not opened with CUZK_PCE_TRUST from
 * an untrusted file): the kernel does not re-check codes and columns. */
cuzk_status cuzk_gpu_pce_create(cuzk_gpu_pce **d, cuzk_gpu_ctx *ctx, const cuzk_pce *p,
                                char *err);
void cuzk_gpu_pce_destroy(cuzk_gpu_pce *d);
size_t cuzk_gpu_pce_device_bytes(const cuzk_gpu_pce *d);

/* All pointers DEVICE memory: w (n_cols values, Montgomery form), optional
 * is_bit / bit_val bitmaps (both or neither; as in cuzk_pce_witness), and
 * outputs a, b, c of n_rows values (any may be NULL; c must be NULL without
 * a C matrix). Enqueued on `stream`; allocates nothing. */
cuzk_status cuzk_gpu_pce_eval(const cuzk_gpu_pce *d, unsigned stream, const cuzk_fr *w,
                              const uint64_t *is_bit, const uint64_t *bit_val, cuzk_fr *a,
                              cuzk_fr *b, cuzk_fr *c, char *err);

/* ================================================ end PCE evaluation ==== */

/* ================================================================ NTT == */
/* Number-theoretic transforms over Fr on the GPU, bit-identical to the CPU
 * backend (include/cuzk/poly.h: same conventions, same omega and coset shift
 * g, natural order in and out, in place, the inverse includes 1/n).
 *
 * A GPU domain holds the twiddle tables of one size and convention in the
 * context's pool (computed once, when it is created; about 21 MiB at 2^28).
 * n = 2^log_n elements of 32 bytes (cuzk_fr layout) are transformed in
 * three passes over device memory (src/gpu/ntt.cuh says how). A domain only
 * reads its tables during a transform, so transforms with one domain may run
 * on several streams at once. */

#include <cuzk/poly.h> /* cuzk_roots; inside extern "C" for C++ includers */

typedef struct cuzk_gpu_ntt_domain cuzk_gpu_ntt_domain;

typedef enum {
    CUZK_GPU_NTT_FORWARD = 0,        /* cuzk_ntt_forward */
    CUZK_GPU_NTT_INVERSE = 1,        /* cuzk_ntt_inverse */
    CUZK_GPU_NTT_COSET_FORWARD = 2,  /* cuzk_ntt_coset_forward */
    CUZK_GPU_NTT_COSET_INVERSE = 3,  /* cuzk_ntt_coset_inverse */
    /* cuzk_ntt_inverse, then cuzk_ntt_coset_forward (values on the domain
     * to values on the coset), with the inverse's last pass and the coset
     * forward's first in one kernel: one read and one write of the array
     * less (integer kernels; with an FP64 share, the two apart) */
    CUZK_GPU_NTT_TO_COSET = 4
} cuzk_gpu_ntt_kind;

/* Creates a domain of 2^log_n points (1 <= log_n <= 28) on ctx: its tables
 * from the pool, filled synchronously. *d is set on success only; free it
 * with cuzk_gpu_ntt_domain_destroy, before the context. */
cuzk_status cuzk_gpu_ntt_domain_create(cuzk_gpu_ntt_domain **d, cuzk_gpu_ctx *ctx,
                                       unsigned log_n, cuzk_roots roots, char *err);

/* Waits for the context's streams, then frees the domain. NULL is a no-op. */
void cuzk_gpu_ntt_domain_destroy(cuzk_gpu_ntt_domain *d);

/* n = 2^log_n (0 for NULL). */
size_t cuzk_gpu_ntt_size(const cuzk_gpu_ntt_domain *d);

/* Transforms n elements at dev_a, a DEVICE pointer (16-byte aligned; e.g.
 * from cuzk_gpu_buf_alloc), in place. Enqueued on `stream` of the domain's
 * context; allocates nothing. */
cuzk_status cuzk_gpu_ntt(const cuzk_gpu_ntt_domain *d, unsigned stream, cuzk_gpu_ntt_kind kind,
                         cuzk_fr *dev_a, char *err);

/* ============================================================ end NTT == */

/* ========================================== fixed-base multiplication ====
 * (src/gpu/fixed.cu, fixed.cuh)
 *
 *   out[i] = [s_i] B   for one fixed point B of G1 or G2 (setup's bases),
 *
 * bit-identical to cuzk_g*_mul followed by cuzk_g*_to_affine on the CPU.
 * A multiplier holds a table of d 2^(w k) B (1 <= d <= 2^(w-1), k <
 * ceil(256 / w); affine), made on the device when it is created; a point
 * then costs ceil(256 / w) mixed additions in XYZZ coordinates with w-bit
 * signed digits of the scalar (no doublings), and the conversion to affine
 * shares one field inversion among the points of a 128-thread block
 * (fixed.cuh says how).
 *
 * A multiplier takes its device memory from the context's pool (the table:
 * G1 624 MiB, G2 1.2 GiB at w = 20; plus two batch slots, ~0.6 GiB), owns
 * two CUDA streams of its own (its copies overlap its kernels) and ~0.25
 * GiB of pinned host staging buffers for pageable arrays, all allocated
 * when it is created. It is used by one host thread at a time, and must be
 * destroyed before its context. */

typedef struct cuzk_gpu_fixed cuzk_gpu_fixed;

/* The window of cuzk_gpu_fixed_create: 13 windows of 20 bits, a table of
 * 6.8e6 points. Measured on the H200 (cuzk-bench kernels --fixed 24
 * [--fixed-w 20], commit 7d3effb): w = 16 (a 50 MB table, L2-sized) 101 M
 * G1 / 35.8 M G2 points/s; w = 20 122 M / 43.2 M: the 3 fewer additions
 * win; the random table reads outside L2 cost little. */
#define CUZK_GPU_FIXED_WINDOW 20

/* A multiplier for base (host, affine: cuzk_g1_affine or cuzk_g2_affine by
 * grp; NULL = the group's generator). base must be on the curve, in the
 * order-r subgroup and not infinity (else CUZK_ERR_INVALID_ARGUMENT).
 * Synchronous. *f is set on success only; free it with
 * cuzk_gpu_fixed_destroy. */
cuzk_status cuzk_gpu_fixed_create(cuzk_gpu_fixed **f, cuzk_gpu_ctx *ctx, cuzk_gpu_group grp,
                                  const void *base, char *err);

/* out[i] = [s[i]] base for i < n. s: n scalars in Montgomery form, fully
 * reduced (the cuzk_fr of the CPU library); out: n points, cuzk_g1_affine or
 * cuzk_g2_affine by the multiplier's group; a zero scalar gives infinity,
 * (0, 0) (all-zero bytes). Host arrays, each either pageable (staged
 * through the pinned buffers, copied on all cores) or pinned (e.g.
 * cuzk_gpu_host_alloc: copied directly, the fastest). Any n (0 is a
 * no-op), in device batches, two in flight so that copies overlap the
 * kernel. Synchronous: returns when out is written; on an error out may be
 * partly written, but no copy is pending. */
cuzk_status cuzk_gpu_fixed_mul(void *out, cuzk_gpu_fixed *f, const cuzk_fr *s, size_t n,
                               char *err);

/* Waits for the multiplier's work, then frees it. NULL is a no-op. */
void cuzk_gpu_fixed_destroy(cuzk_gpu_fixed *f);

/* ====================================== end fixed-base multiplication ==== */

/* ==================================================== prover backend ====
 * (src/gpu/prover.cu) The whole Groth16 proof on one device, behind the
 * backend interface of include/cuzk/prove.h ("gpu"). The library cuzk does
 * not link CUDA, so a program that wants it registers it once:
 *
 *   cuzk_gpu_backend_register();   then cfg.backend = "gpu" (or "auto")
 *
 * A workspace holds, in the pool of its own context (device
 * cuzk_config.gpu_device, cuzk_config.gpu_pool_bytes or the default pool,
 * cuzk_config.gpu_streams or 6 streams): MSM plans over the key's A, B1,
 * B2, L and H points (batch-affine; with cuzk_config.gpu_msm_flags = 0 they
 * are upgraded to precomputed windows and subset-sum tables while the pool
 * has room, leaving 32 bytes a domain point for the job's PCE; other flags
 * are used for every plan as given, H without the table; a value without
 * either plan flag, e.g. 0x100, gives plain plans), the NTT domain, the key's matrices as
 * a device PCE (keys with matrices), a, b, c (96 bytes a domain point), the
 * witness and its scalars (64 bytes a variable), B's scalars, and pinned
 * host staging for the compact witness (32 bytes a variable). The job's
 * PCE is copied to the device at the first job that gives it, and kept
 * while the next jobs give the same one. A key that does not fit is
 * CUZK_ERR_NO_MEMORY ("gpu: the key does not fit in device memory: ...");
 * no device is CUZK_ERR_NO_DEVICE ("auto" then proves on the CPU).
 * docs/gpu-prover.md has the memory plan at full size. */
#include <cuzk/prove.h>

/* Registers the "gpu" backend (cuzk_backend_register); again is a no-op.
 * Thread-safe. */
cuzk_status cuzk_gpu_backend_register(void);

/* The backend itself (a static object). */
const cuzk_prover_backend *cuzk_gpu_backend(void);

/* ================================================ end prover backend ==== */

#ifdef __cplusplus
}
#endif

#endif /* CUZK_GPU_H */
