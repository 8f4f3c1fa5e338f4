/* cuzk — the CUDA backend's launch API (pure C; no CUDA headers).
 *
 * Host code reaches the GPU only through this header. Every function returns
 * a cuzk_status: CUZK_ERR_NO_DEVICE when there is no usable CUDA device,
 * CUZK_ERR_CUDA when a CUDA call fails (the CUDA error text goes to
 * cuzk_gpu_last_error()), CUZK_ERR_NO_MEMORY when a request does not fit the
 * context's device pool, CUZK_ERR_INVALID_ARGUMENT for misuse. Nothing here
 * aborts or exits.
 *
 * Field elements cross the API in the CPU layout of include/cuzk/ff.h
 * (Montgomery form, little-endian limbs); the device reads the same bytes as
 * 8 (Fr) or 12 (Fp) little-endian 32-bit limbs. Inputs must be fully reduced.
 *
 * A context is bound to one device and owns one CUDA stream, two timing
 * events and one device memory pool, all allocated in cuzk_gpu_ctx_create and
 * released in cuzk_gpu_ctx_destroy; the functions below allocate no device
 * memory of their own. A context is used by one host thread at a time.
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
 * and CUZK_OK (so callers can skip); other failures give CUZK_ERR_CUDA. */
cuzk_status cuzk_gpu_device_count(int *count);

typedef struct {
    char name[256];
    int cc_major, cc_minor;   /* compute capability */
    int sm_count;
    int clock_khz;            /* maximum SM clock */
    size_t global_mem;        /* bytes */
} cuzk_gpu_device_info;

cuzk_status cuzk_gpu_get_device_info(int device, cuzk_gpu_device_info *info);

/* A short description of the last CUDA failure seen by this library in this
 * host thread ("" if none). Static storage; never NULL. */
const char *cuzk_gpu_last_error(void);

/* ------------------------------------------------------------ context -- */

typedef struct cuzk_gpu_ctx cuzk_gpu_ctx;

/* Default pool size when pool_bytes is 0: 256 MiB. */
#define CUZK_GPU_DEFAULT_POOL ((size_t)256 << 20)

/* Creates a context on `device` with a device pool of pool_bytes (0: the
 * default). *ctx is set on success only; free it with cuzk_gpu_ctx_destroy. */
cuzk_status cuzk_gpu_ctx_create(cuzk_gpu_ctx **ctx, int device, size_t pool_bytes);

/* Waits for the context's stream, then frees everything it owns. NULL is a
 * no-op. */
void cuzk_gpu_ctx_destroy(cuzk_gpu_ctx *ctx);

/* ------------------------------------------------------ field kernels -- */

typedef enum {
    CUZK_GPU_FR = 0,   /* elements are cuzk_fr (32 bytes) */
    CUZK_GPU_FP = 1    /* elements are cuzk_fp (48 bytes) */
} cuzk_gpu_field;

typedef enum {
    CUZK_GPU_OP_MUL = 0,  /* r = a * b */
    CUZK_GPU_OP_SQR = 1,  /* r = a^2   (b unused, may be NULL) */
    CUZK_GPU_OP_ADD = 2,  /* r = a + b */
    CUZK_GPU_OP_SUB = 3,  /* r = a - b */
    CUZK_GPU_OP_NEG = 4   /* r = -a    (b unused, may be NULL) */
} cuzk_gpu_op;

/* Elementwise r[i] = a[i] op b[i] for i < n on the GPU, host arrays in and
 * out (copied through the context's pool in chunks; synchronous). r may
 * equal a or b. For testing the kernels against the CPU, not for speed. */
cuzk_status cuzk_gpu_fr_batch(cuzk_gpu_ctx *ctx, cuzk_gpu_op op, cuzk_fr *r,
                              const cuzk_fr *a, const cuzk_fr *b, size_t n);
cuzk_status cuzk_gpu_fp_batch(cuzk_gpu_ctx *ctx, cuzk_gpu_op op, cuzk_fp *r,
                              const cuzk_fp *a, const cuzk_fp *b, size_t n);

/* -------------------------------------------------- throughput kernel -- */

/* Launch shape for the throughput kernel; zeros pick the defaults. */
typedef struct {
    unsigned block;   /* threads per block (default 256) */
    unsigned ilp;     /* independent chains per thread, 1 or 2 (default 1) */
    unsigned variant; /* 0: the library's mul and sqr. For comparison: 1:
                         mul = product then reduction ("SOS"), sqr = mul(x, x);
                         2, 3, 4: the library's code with the modulus constants
                         as immediates / only M0 from constant memory / all
                         from constant memory (see src/gpu/ff.cuh) */
} cuzk_gpu_bench_cfg;

typedef struct {
    int regs;            /* registers per thread of the kernel */
    int local_bytes;     /* local memory (spills) per thread; 0 expected */
    int blocks_per_sm;   /* resident blocks per SM at this block size */
    unsigned block, ilp, variant; /* the shape used */
} cuzk_gpu_kernel_info;

/* Device-resident throughput run for op in {MUL, SQR} over `field`.
 * Uploads a and b (n elements each, host, layout of ff.h; non-zero random
 * values recommended) once; then each of n / ilp threads keeps ilp elements
 * x_k = a[.] in registers and does `iters` dependent steps x_k = x_k * b[t]
 * (MUL; b[t] of its thread) or x_k = x_k^2 (SQR), and writes x back. n must be
 * a multiple of ilp; 3 n elements must fit in the pool. One untimed warm-up
 * launch, then `reps` launches, each timed with CUDA events: ms[k] gets
 * launch k's time. Operations per launch: n * iters. If out is not NULL it
 * receives the n results of the last launch (for checking). info (optional)
 * receives the kernel's resources. */
cuzk_status cuzk_gpu_ff_throughput(cuzk_gpu_ctx *ctx, cuzk_gpu_field field, cuzk_gpu_op op,
                                   const void *a, const void *b, size_t n, unsigned iters,
                                   cuzk_gpu_bench_cfg cfg, unsigned reps, float *ms,
                                   void *out, cuzk_gpu_kernel_info *info);

/* Calibration: the rate of one integer multiply-add form on this GPU, in
 * 32x32-bit products per second, at full occupancy (src/gpu/calibrate.cu):
 * kind 0 IMAD, 1 IMAD.HI, 2 IMAD.WIDE, 3 IMAD.WIDE.X from a mad.lo.cc /
 * madc.hi.cc pair, 4 IMAD.WIDE with two ALU additions beside it. *desc
 * (optional) receives a static description. Median of 5 timed launches. */
cuzk_status cuzk_gpu_imad_probe(cuzk_gpu_ctx *ctx, int kind, unsigned iters,
                                double *products_per_s, const char **desc);

/* ========================================================= G1/G2 MSM ====
 * (src/gpu/msm.cu, msm.cuh, ec.cuh)
 *
 *   r = sum_{i<n} [k_i] P_i   on G1 or G2, the points resident on the device.
 *
 * The same functions as cuzk_g1_msm / cuzk_g2_msm (include/cuzk/msm.h), with
 * the same inputs: affine points with infinity = (0, 0) (skipped), in the
 * order-r subgroup; canonical scalars (cuzk_scalar; any 256-bit value is
 * taken mod r). Pippenger with signed c-bit digits, a radix sort of
 * (bucket, point) pairs, bucket accumulation in XYZZ coordinates balanced
 * over equal-size chunks of the sorted pairs, and a two-level running-sum
 * bucket reduction, all on the device; the host adds the ~12-32 window sums.
 * G2 runs the same code over Fp2 (each operation ~2.8x G1's).
 *
 * For 0/1 scalars (a witness's bits) the _bits functions sum the points
 * whose bit is set, with no digits, sort or buckets: one mixed addition per
 * set bit (or, with CUZK_GPU_MSM_BITS_TABLE, per non-zero group of 4 bits),
 * in equal shares per thread (a prefix sum of the bitmap's popcounts), then
 * a tree of partial sums.
 *
 * A plan holds a fixed point set of one group (a proving key's bases) and
 * every buffer an MSM over it needs, allocated once in device memory when
 * the plan is made (not from the context's pool): per point 96 B (G1) or
 * 192 B (G2), 32 B per scalar, 16 B per (window, point) sort entry, and one
 * XYZZ point (192 / 384 B) per bucket; for 2^26 G1 points and c = 22, ~28 GB
 * (cuzk_gpu_msm_plan_device_bytes). The MSM functions allocate nothing. A
 * plan belongs to the context it was made on and is used by one host thread
 * at a time, like its context. Destroy plans before their context. Using a
 * plan with the other group's function is CUZK_ERR_INVALID_ARGUMENT. */
#include <cuzk/ec.h>
#include <cuzk/msm.h>

typedef struct cuzk_gpu_msm_plan cuzk_gpu_msm_plan;

typedef enum { CUZK_GPU_G1 = 1, CUZK_GPU_G2 = 2 } cuzk_gpu_group;

/* Device time of the last MSM call on a plan, milliseconds, from CUDA events
 * on the context's stream: scalar (or bitmap) upload (0 for device input),
 * digits (and bucket clearing), sort (a bitmap sum: counting and the prefix
 * sum), accumulate (with the combination of split buckets; a bitmap sum:
 * the balanced partial sums), reduce (a bitmap sum: folding the partials);
 * total = their sum (the final copy and the host's last additions are not
 * included). */
typedef struct {
    float upload, digits, sort, accumulate, reduce, total;
} cuzk_gpu_msm_timing;

/* The window size a plan for n points gets with c = 0 (a cost model, see
 * msm.cu; the same for both groups). */
unsigned cuzk_gpu_msm_window(size_t n);

/* Plan options, the flags of the _ex functions below.
 *
 * CUZK_GPU_MSM_PRECOMPUTE: the plan also holds T[w][i] = [2^(c w)] P_i for
 * every window w (the bases of a proving key never change), made on the
 * device when the plan is made. Every window's digit of scalar i then
 * indexes the same 2^(c-1) buckets with point T[w][i], so there is one
 * window's buckets to reduce instead of W, no doublings between windows,
 * and room for a larger window (fewer windows, fewer additions):
 * cuzk_gpu_msm_window_ex gives c = 22 (12 windows) at 2^24 points, c = 24
 * (11 windows) at 2^26; c <= 24. The cost: W n affine points of device
 * memory for the table (W = ceil(255 / c); 2^26 G1 points at c = 24:
 * 71 GB, ~88 GB for the whole plan against ~28 GB for a plain one), and c
 * doublings per table point to make it (cuzk_gpu_msm_plan_table_ms;
 * estimated 6-8 s at 2^26 on an H200). When it does not fit the device (or
 * W n > 2^31), the _ex functions return CUZK_ERR_NO_MEMORY with nothing left
 * allocated: make a plain plan instead. All else is as for a plain plan:
 * the same results, prefixes, and the _bits functions (over T[0], the
 * points). */
#define CUZK_GPU_MSM_PRECOMPUTE 1u

/* CUZK_GPU_MSM_BITS_TABLE: the plan also holds the sums of every non-empty
 * subset of each group of 4 consecutive points (15 affine points a group,
 * made on the device when the plan is made: 3.75 n points, 24 GB for 2^26
 * G1 points). The _bits functions then read a bitmap 4 bits at a time and
 * add one table point per non-zero nibble: 15/64 n mixed additions at
 * density 1/2 instead of n / 2. MSMs with scalars are unaffected. May be
 * combined with CUZK_GPU_MSM_PRECOMPUTE. */
#define CUZK_GPU_MSM_BITS_TABLE 2u

/* cuzk_gpu_msm_window, or with CUZK_GPU_MSM_PRECOMPUTE in flags the window
 * size of a precomputed plan for n points. */
unsigned cuzk_gpu_msm_window_ex(size_t n, unsigned flags);

/* Makes a plan for points[0..n) (host memory, copied; 1 <= n <= 2^31) with
 * window size c (8..23; 0 = cuzk_gpu_msm_window(n)). *plan is set on
 * success only. Synchronous. CUZK_ERR_NO_MEMORY if the device is too small. */
cuzk_status cuzk_gpu_g1_msm_plan_create(cuzk_gpu_ctx *ctx, cuzk_gpu_msm_plan **plan,
                                        const cuzk_g1_affine *points, size_t n, unsigned c);
cuzk_status cuzk_gpu_g2_msm_plan_create(cuzk_gpu_ctx *ctx, cuzk_gpu_msm_plan **plan,
                                        const cuzk_g2_affine *points, size_t n, unsigned c);

/* The same with options (flags: 0, or CUZK_GPU_MSM_PRECOMPUTE and/or
 * CUZK_GPU_MSM_BITS_TABLE; other bits are CUZK_ERR_INVALID_ARGUMENT). A precomputed plan takes c in 8..24
 * (0 = cuzk_gpu_msm_window_ex(n, flags)). */
cuzk_status cuzk_gpu_g1_msm_plan_create_ex(cuzk_gpu_ctx *ctx, cuzk_gpu_msm_plan **plan,
                                           const cuzk_g1_affine *points, size_t n, unsigned c,
                                           unsigned flags);
cuzk_status cuzk_gpu_g2_msm_plan_create_ex(cuzk_gpu_ctx *ctx, cuzk_gpu_msm_plan **plan,
                                           const cuzk_g2_affine *points, size_t n, unsigned c,
                                           unsigned flags);

/* For benchmarks: a plan whose points P_j = base + j step (j < n) are made
 * on the device (~40 multiplications per point). base and step must not be
 * infinity, and no P_j may be (true for random base and step with
 * overwhelming probability). With these points sum_j k_j P_j =
 * [sum k_j] base + [sum j k_j] step, which a benchmark can check cheaply. */
cuzk_status cuzk_gpu_g1_msm_plan_create_seq(cuzk_gpu_ctx *ctx, cuzk_gpu_msm_plan **plan,
                                            size_t n, unsigned c, const cuzk_g1_affine *base,
                                            const cuzk_g1_affine *step);
cuzk_status cuzk_gpu_g2_msm_plan_create_seq(cuzk_gpu_ctx *ctx, cuzk_gpu_msm_plan **plan,
                                            size_t n, unsigned c, const cuzk_g2_affine *base,
                                            const cuzk_g2_affine *step);
cuzk_status cuzk_gpu_g1_msm_plan_create_seq_ex(cuzk_gpu_ctx *ctx, cuzk_gpu_msm_plan **plan,
                                               size_t n, unsigned c, const cuzk_g1_affine *base,
                                               const cuzk_g1_affine *step, unsigned flags);
cuzk_status cuzk_gpu_g2_msm_plan_create_seq_ex(cuzk_gpu_ctx *ctx, cuzk_gpu_msm_plan **plan,
                                               size_t n, unsigned c, const cuzk_g2_affine *base,
                                               const cuzk_g2_affine *step, unsigned flags);

/* Waits for the context's stream, then frees the plan. NULL is a no-op. */
void cuzk_gpu_msm_plan_destroy(cuzk_gpu_msm_plan *plan);

unsigned cuzk_gpu_msm_plan_window(const cuzk_gpu_msm_plan *plan);
size_t cuzk_gpu_msm_plan_device_bytes(const cuzk_gpu_msm_plan *plan);
/* The plan's flags, and the device time it took to make its tables
 * (precomputed windows, subset sums), ms (0 for a plain plan). */
unsigned cuzk_gpu_msm_plan_flags(const cuzk_gpu_msm_plan *plan);
float cuzk_gpu_msm_plan_table_ms(const cuzk_gpu_msm_plan *plan);

/* *r = sum_{i<n} [scalars[i]] P_i over the plan's first n points
 * (n <= the plan's size; n = 0 gives infinity). scalars may be device
 * memory (read in place) or host memory (copied; pinned memory, e.g. from
 * cuzk_gpu_host_alloc, copies at full PCIe speed). Synchronous: returns when
 * the result is on the host. Allocates nothing. */
cuzk_status cuzk_gpu_g1_msm(cuzk_gpu_ctx *ctx, cuzk_gpu_msm_plan *plan,
                            const cuzk_scalar *scalars, size_t n, cuzk_g1_jac *r);
cuzk_status cuzk_gpu_g2_msm(cuzk_gpu_ctx *ctx, cuzk_gpu_msm_plan *plan,
                            const cuzk_scalar *scalars, size_t n, cuzk_g2_jac *r);

/* *r = sum of P_i over the i < n whose bit is set in bits (bit i of word
 * i / 64, the layout of the witness bitmaps of pce.h; bits from n on are
 * ignored). bits may be device or host memory, as scalars above.
 * Synchronous; allocates nothing. */
cuzk_status cuzk_gpu_g1_msm_bits(cuzk_gpu_ctx *ctx, cuzk_gpu_msm_plan *plan,
                                 const uint64_t *bits, size_t n, cuzk_g1_jac *r);
cuzk_status cuzk_gpu_g2_msm_bits(cuzk_gpu_ctx *ctx, cuzk_gpu_msm_plan *plan,
                                 const uint64_t *bits, size_t n, cuzk_g2_jac *r);

/* The same sum as cuzk_gpu_g*_msm, for witness-like vectors where many
 * scalars are 0 or 1: the scalars equal to 1 are summed as a bitmap (as the
 * _bits functions, through the plan's subset-sum table if it has one), and
 * Pippenger runs over the rest with those set to 0, so zeros and ones cost
 * no bucket additions (they still pass through the digit sort as empty
 * entries). The split runs on the device after the scalars are staged.
 * Scalars and timing as cuzk_gpu_g*_msm (the bitmap sum's stages are added
 * to the MSM's). Synchronous; allocates nothing. */
cuzk_status cuzk_gpu_g1_msm_sparse(cuzk_gpu_ctx *ctx, cuzk_gpu_msm_plan *plan,
                                   const cuzk_scalar *scalars, size_t n, cuzk_g1_jac *r);
cuzk_status cuzk_gpu_g2_msm_sparse(cuzk_gpu_ctx *ctx, cuzk_gpu_msm_plan *plan,
                                   const cuzk_scalar *scalars, size_t n, cuzk_g2_jac *r);

/* How an MSM on the plan fills its buckets (stage "accumulate"); both give
 * the same results, and plans start with CUZK_GPU_MSM_XYZZ.
 *   XYZZ          mixed additions into XYZZ buckets (8M + 2S each).
 *   BATCH_AFFINE  affine additions (2M + 1S) that share one field inversion
 *                 per 64 additions by Montgomery's trick (+3M each), 64
 *                 independent streams of sorted entries per thread
 *                 (src/gpu/msm_affine.cuh). It needs 2 more affine points of
 *                 device memory per 32 sort entries (n * windows entries:
 *                 4.8 GB for 2^26 G1 points at c = 22), allocated by the
 *                 first switch to it (and counted by
 *                 cuzk_gpu_msm_plan_device_bytes), freed with the plan.
 * Set before an MSM call on the plan's thread; bitmap sums are unaffected.
 * CUZK_ERR_INVALID_ARGUMENT for an unknown method, CUZK_ERR_NO_MEMORY if the
 * device has no room (the plan is then unchanged). */
typedef enum { CUZK_GPU_MSM_XYZZ = 0, CUZK_GPU_MSM_BATCH_AFFINE = 1 } cuzk_gpu_msm_acc;
cuzk_status cuzk_gpu_msm_plan_set_acc(cuzk_gpu_msm_plan *plan, cuzk_gpu_msm_acc acc);

/* The stage times of the plan's last MSM call. */
cuzk_status cuzk_gpu_msm_plan_timing(const cuzk_gpu_msm_plan *plan, cuzk_gpu_msm_timing *t);

/* Pinned (page-locked) host memory, for scalars and other transfers.
 * Free with cuzk_gpu_host_free (NULL is a no-op). */
cuzk_status cuzk_gpu_host_alloc(void **ptr, size_t bytes);
void cuzk_gpu_host_free(void *ptr);
/* ===================================================== end G1/G2 MSM ==== */

/* ==================================================== PCE evaluation ====
 * (src/gpu/spmv.cu) a = A w, b = B w, c = C w on the GPU from a compiled
 * PCE (include/cuzk/pce.h), bit-identical to cuzk_pce_eval.
 *
 * A device PCE is a copy of the PCE's arrays in device memory, made once
 * (terms stay bit-packed; cuzk_gpu_pce_device_bytes ~ the image size), and
 * bound to the context it was made on. One thread decodes one 256-row block
 * of one matrix. */
#include <cuzk/pce.h>

typedef struct cuzk_gpu_pce cuzk_gpu_pce;

/* Copies p to the device (synchronous; cudaMalloc). p may be freed
 * afterwards. p must have been checked when it was opened (not opened with
 * CUZK_PCE_TRUST from an untrusted file): the kernel does not re-check
 * codes and columns. */
cuzk_status cuzk_gpu_pce_create(cuzk_gpu_ctx *ctx, cuzk_gpu_pce **d, const cuzk_pce *p);
void cuzk_gpu_pce_destroy(cuzk_gpu_pce *d);
size_t cuzk_gpu_pce_device_bytes(const cuzk_gpu_pce *d);

/* All pointers DEVICE memory: w (n_cols values, Montgomery form), optional
 * is_bit / bit_val bitmaps (both or neither; as in cuzk_pce_witness), and
 * outputs a, b, c of n_rows values (any may be NULL; c must be NULL without
 * a C matrix). Enqueued on the context's stream, asynchronous; allocates
 * nothing. */
cuzk_status cuzk_gpu_pce_eval(const cuzk_gpu_pce *d, const cuzk_fr *w, const uint64_t *is_bit,
                              const uint64_t *bit_val, cuzk_fr *a, cuzk_fr *b, cuzk_fr *c);

/* For tests and benchmarks: host witness in, host a, b, c out, through a
 * temporary device allocation (cudaMalloc/cudaFree; not for the hot path).
 * Runs the evaluation 1 + reps times; ms[k] (reps entries) gets the CUDA-event
 * time of run k + 1. Synchronous. */
cuzk_status cuzk_gpu_pce_eval_host(const cuzk_gpu_pce *d, const cuzk_pce_witness *wit,
                                   cuzk_fr *a, cuzk_fr *b, cuzk_fr *c, unsigned reps, float *ms);

/* ================================================ end PCE evaluation ==== */

/* ================================================================ NTT == */
/* Number-theoretic transforms over Fr on the GPU, bit-identical to the CPU
 * backend (include/cuzk/poly.h: same conventions, same omega and coset shift
 * g, natural order in and out, in place, the inverse includes 1/n).
 *
 * A GPU domain holds the twiddle tables of one size and convention in device
 * memory (computed once, when it is created; about 21 MiB at 2^28) and is
 * bound to the context it was created on: transforms run on that context's
 * stream. n = 2^log_n elements of 32 bytes (cuzk_fr layout) are transformed
 * in three passes over device memory (src/gpu/ntt.cuh says how).
 *
 * Tuning / benchmark knob: the environment variable CUZK_NTT_VARIANT picks
 * the pass kernels, read when a domain is created (a domain keeps its
 * choice): "8" (the default, also when unset or empty): 8 elements per
 * thread, radix-8 rounds, 256 threads per block; "4": 4 elements per thread,
 * radix-4 rounds, 512 threads per block (fewer registers per thread, twice
 * the warps per SM; measured 1-3% slower on the H200, docs/perf.md). Both
 * give the same results. Any other value makes domain creation fail with
 * CUZK_ERR_INVALID_ARGUMENT. cuzk_gpu_ntt_get_info reports the choice. */

#include <cuzk/poly.h> /* cuzk_roots; inside extern "C" for C++ includers */

typedef struct cuzk_gpu_ntt_domain cuzk_gpu_ntt_domain;

typedef enum {
    CUZK_GPU_NTT_FORWARD = 0,        /* cuzk_ntt_forward */
    CUZK_GPU_NTT_INVERSE = 1,        /* cuzk_ntt_inverse */
    CUZK_GPU_NTT_COSET_FORWARD = 2,  /* cuzk_ntt_coset_forward */
    CUZK_GPU_NTT_COSET_INVERSE = 3   /* cuzk_ntt_coset_inverse */
} cuzk_gpu_ntt_kind;

/* Creates a domain of 2^log_n points (1 <= log_n <= 28) on ctx: allocates
 * and fills its tables (cudaMalloc; synchronous). *d is set on success only;
 * free it with cuzk_gpu_ntt_domain_destroy, before the context. Errors:
 * CUZK_ERR_INVALID_ARGUMENT (log_n, roots, an unknown CUZK_NTT_VARIANT),
 * CUZK_ERR_NO_MEMORY, CUDA errors. */
cuzk_status cuzk_gpu_ntt_domain_create(cuzk_gpu_ctx *ctx, cuzk_gpu_ntt_domain **d,
                                       unsigned log_n, cuzk_roots roots);

/* For tests and tuning: the same, with the split of log_n into digits
 * forced: log_n = k1 + k2 + k1 with 1 <= k1 <= 10 and 1 <= k2 <= 8
 * (cuzk_gpu_ntt_domain_create picks k2 near log_n / 3). */
cuzk_status cuzk_gpu_ntt_domain_create_split(cuzk_gpu_ctx *ctx, cuzk_gpu_ntt_domain **d,
                                             unsigned log_n, cuzk_roots roots, unsigned k1);

/* Waits for the context's stream, then frees the domain. NULL is a no-op. */
void cuzk_gpu_ntt_domain_destroy(cuzk_gpu_ntt_domain *d);

/* n = 2^log_n (0 for NULL). */
size_t cuzk_gpu_ntt_size(const cuzk_gpu_ntt_domain *d);

/* Transforms n elements at dev_a, a DEVICE pointer (16-byte aligned), in
 * place. Enqueued on the context's stream and asynchronous: it returns
 * before the work is done, and errors of the running kernels show at the
 * next synchronizing call. Allocates nothing; no device-wide syncs. */
cuzk_status cuzk_gpu_ntt(const cuzk_gpu_ntt_domain *d, cuzk_gpu_ntt_kind kind, cuzk_fr *dev_a);

/* Convenience for tests: a is a HOST array of n elements, copied through the
 * context's pool (n * 32 bytes must fit, else CUZK_ERR_NO_MEMORY),
 * transformed and copied back; synchronous. */
cuzk_status cuzk_gpu_ntt_host(const cuzk_gpu_ntt_domain *d, cuzk_gpu_ntt_kind kind, cuzk_fr *a);

/* For benchmarks: uploads host array a (n elements) into the pool (2 n * 32
 * bytes must fit), then runs warmup + reps transforms, each on a fresh
 * device-to-device copy of a; ms[k] gets the time of timed run k (CUDA
 * events around the transform only). out (optional, host, n elements)
 * receives the last run's result, i.e. the transform of a. Synchronous. */
cuzk_status cuzk_gpu_ntt_time(const cuzk_gpu_ntt_domain *d, cuzk_gpu_ntt_kind kind,
                              const cuzk_fr *a, unsigned warmup, unsigned reps, float *ms,
                              cuzk_fr *out);

typedef struct {
    int k1, k2;              /* digits: log_n = k1 + k2 + k1 (0, 0 for n <= 4) */
    int elems_per_thread;    /* the pass kernels' variant: 8 or 4 (0 for n <= 4) */
    int regs, local_bytes;   /* the pass kernel's registers and spills per thread */
    unsigned threads[3];     /* per pass: threads per block */
    size_t smem[3];          /*   dynamic shared memory per block */
    size_t blocks[3];        /*   blocks */
    int blocks_per_sm[3];    /*   resident blocks per SM */
    size_t table_bytes;      /* device memory of the twiddle tables */
} cuzk_gpu_ntt_info;

cuzk_status cuzk_gpu_ntt_get_info(const cuzk_gpu_ntt_domain *d, cuzk_gpu_ntt_info *info);

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
 * A multiplier owns its device memory (the table: G1 624 MiB, G2 1.2 GiB at
 * w = 20; plus two batch slots, ~0.6 GiB; cuzk_gpu_fixed_get_info), two CUDA
 * streams, and, from the first call that needs them, ~0.25 GiB of pinned
 * host staging buffers; none of it comes from the context's pool. It
 * belongs to the context it was made on, is used by one host thread at a
 * time, and must be destroyed before its context. */

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
cuzk_status cuzk_gpu_fixed_create(cuzk_gpu_ctx *ctx, cuzk_gpu_fixed **f, cuzk_gpu_group grp,
                                  const void *base);

/* The same with window w (2..22; 0 = CUZK_GPU_FIXED_WINDOW), for tuning and
 * tests: fewer additions per point (ceil(256 / w)) for a table of
 * ceil(256 / w) 2^(w-1) points (w = 20: 13 additions, 650 MB for G1,
 * 1.3 GB for G2). */
cuzk_status cuzk_gpu_fixed_create_window(cuzk_gpu_ctx *ctx, cuzk_gpu_fixed **f,
                                         cuzk_gpu_group grp, const void *base, unsigned w);

/* out[i] = [s[i]] base for i < n. s: n scalars in Montgomery form, fully
 * reduced (the cuzk_fr of the CPU library); out: n points, cuzk_g1_affine or
 * cuzk_g2_affine by the multiplier's group; a zero scalar gives infinity,
 * (0, 0) (all-zero bytes). Host arrays, each either pageable (staged
 * through the pinned buffers, copied on all cores) or pinned (e.g.
 * cuzk_gpu_host_alloc: copied directly, the fastest). Any n (0 is a
 * no-op), in device batches of cuzk_gpu_fixed_info's `batch` points, two
 * in flight so that copies overlap the kernel.
 * Synchronous: returns when out is written; on an error out may be partly
 * written, but no copy is pending. */
cuzk_status cuzk_gpu_fixed_mul(cuzk_gpu_fixed *f, void *out, const cuzk_fr *s, size_t n);

/* Waits for the multiplier's work, then frees it. NULL is a no-op. */
void cuzk_gpu_fixed_destroy(cuzk_gpu_fixed *f);

typedef struct {
    unsigned window, windows;  /* w, and ceil(256 / w) additions per point */
    size_t batch;              /* points per device batch (kernel launch) */
    size_t threads;            /* threads of a full batch (one wave) */
    size_t device_bytes;       /* all device memory of the multiplier */
    size_t table_bytes;        /* of which the table */
    int regs, local_bytes;     /* the kernel's registers and spills per thread */
    int blocks_per_sm;         /* its resident blocks (of 128 threads) per SM */
    float device_ms;           /* the last cuzk_gpu_fixed_mul's device time
                                  from its first kernel's start to its last
                                  kernel's end (CUDA events; the copies in
                                  between overlap the kernels, the first
                                  upload and the last download are outside) */
} cuzk_gpu_fixed_info;

cuzk_status cuzk_gpu_fixed_get_info(const cuzk_gpu_fixed *f, cuzk_gpu_fixed_info *info);

/* ====================================== end fixed-base multiplication ==== */

#ifdef __cplusplus
}
#endif

#endif /* CUZK_GPU_H */
