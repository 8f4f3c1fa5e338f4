/* cuzk — GPU test and benchmark knobs (internal; C-callable).
 *
 * What tests/gpu and bench/kernels.c need beyond include/cuzk/gpu.h: field
 * kernels on host arrays, throughput and calibration kernels, forced NTT
 * shapes and variants, MSM plans over generated points, stage timings and
 * kernel resources. The rules of gpu.h hold (err last, memory from the
 * context's pool); every call here is synchronous and runs on stream 0 of
 * the context unless it says otherwise. Not for the proving path: these
 * take temporary pool memory per call.
 */
#ifndef CUZK_GPU_TESTING_H
#define CUZK_GPU_TESTING_H

#include <cuzk/gpu.h>

#ifdef __cplusplus
extern "C" {
#endif

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
    CUZK_GPU_OP_NEG = 4,  /* r = -a    (b unused, may be NULL) */
    CUZK_GPU_OP_MUL_FP64 = 5, /* r = a * b with the products on the FP64 pipe
                                 (src/gpu/ff_fp64.cuh); same results as MUL */
    CUZK_GPU_OP_MUL_MIXED = 6, /* r = a * b, even i on the integer pipe (ff.cuh),
                                  odd i on the FP64 pipe, in one kernel */
    CUZK_GPU_OP_SQR_FP64 = 7  /* r = a^2 on the FP64 pipe (b unused) */
} cuzk_gpu_op;

/* Elementwise r[i] = a[i] op b[i] for i < n on the GPU, host arrays in and
 * out (through up to 3 x 64 MiB of the pool, in chunks). r may equal a or
 * b. For testing the kernels against the CPU, not for speed. */
cuzk_status cuzk_gpu_fr_batch(cuzk_fr *r, cuzk_gpu_ctx *ctx, cuzk_gpu_op op, const cuzk_fr *a,
                              const cuzk_fr *b, size_t n, char *err);
cuzk_status cuzk_gpu_fp_batch(cuzk_fp *r, cuzk_gpu_ctx *ctx, cuzk_gpu_op op, const cuzk_fp *a,
                              const cuzk_fp *b, size_t n, char *err);

/* Launch shape for the throughput kernel; zeros pick the defaults. */
typedef struct {
    unsigned block;   /* threads per block (default 256) */
    unsigned ilp;     /* independent chains per thread, 1 or 2 (default 1);
                         variants 6-8 and 10 fix it (2, 3, 3, 2; 0 picks
                         that) */
    unsigned variant; /* 0: the library's mul and sqr. For comparison: 1:
                         mul = product then reduction ("SOS"), sqr = mul(x, x);
                         2, 3, 4: the library's code with the modulus constants
                         as immediates / only M0 from constant memory / all
                         from constant memory, with the generic Montgomery
                         steps (Fr's library code specialises them to
                         r0 = 1: FF_CONST_MEM_P0ONE in src/gpu/ff.cuh).
                         FP64 pipe (src/gpu/ff_fp64.cuh): 5: every chain on the FP64 pipe; mixed
                         (the thread's chains split between the pipes, in the
                         same instruction stream): 6: 1 integer + 1 FP64
                         chain (ilp 2); 7: 1 integer + 2 FP64 (ilp 3); 8: 2
                         integer + 1 FP64 (ilp 3); 9, 10: as 5 and 6 with
                         Fp's column sums in doubles (ff64_mul_fc; Fr: the
                         same as 5 and 6); 11, 13 (Fr only): steps that
                         skip r0 = 1 (FF_CONST_MEM_P0ONE), and r1 = 2^32 - 1
                         too (FF_CONST_MEM_P01); 12: mul with one Karatsuba
                         level on the product (src/gpu/ff_kara.cuh; sqr as
                         0) */
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
 * a multiple of ilp (variants 6-8, 10: of their ilp); 3 n elements must fit in the pool. One untimed warm-up
 * launch, then `reps` launches, each timed with CUDA events: ms[k] gets
 * launch k's time. Operations per launch: n * iters. If out is not NULL it
 * receives the n results of the last launch (for checking). info (optional)
 * receives the kernel's resources. */
cuzk_status cuzk_gpu_ff_throughput(cuzk_gpu_ctx *ctx, cuzk_gpu_field field, cuzk_gpu_op op,
                                   const void *a, const void *b, size_t n, unsigned iters,
                                   cuzk_gpu_bench_cfg cfg, unsigned reps, float *ms,
                                   void *out, cuzk_gpu_kernel_info *info, char *err);

/* Calibration: the rate of one integer multiply-add form on this GPU, in
 * 32x32-bit products per second, at full occupancy (src/gpu/calibrate.cu):
 * kind 0 IMAD, 1 IMAD.HI, 2 IMAD.WIDE, 3 IMAD.WIDE.X from a mad.lo.cc /
 * madc.hi.cc pair, 4 IMAD.WIDE with two ALU additions beside it. *desc
 * (optional) receives a static description. Median of 5 timed launches. */
cuzk_status cuzk_gpu_imad_probe(cuzk_gpu_ctx *ctx, int kind, unsigned iters,
                                double *products_per_s, const char **desc, char *err);

/* ---------------------------------------------------------------- MSM -- */

/* For benchmarks: a plan whose points P_j = base + j step (j < n) are made
 * on the device (~40 multiplications per point); base and step are affine
 * points of opts->group. base and step must not be infinity, and no P_j may
 * be (true for random base and step with overwhelming probability). With
 * these points sum_j k_j P_j = [sum k_j] base + [sum j k_j] step, which a
 * benchmark can check cheaply. */
cuzk_status cuzk_gpu_msm_plan_create_seq(cuzk_gpu_msm_plan **plan, cuzk_gpu_ctx *ctx,
                                         const cuzk_gpu_msm_opts *opts, size_t n,
                                         const void *base, const void *step, char *err);

/* Device time of the last finished MSM on a plan, milliseconds, from CUDA
 * events on its stream: scalar (or bitmap) upload (0 for device input),
 * digits (and bucket clearing; a sparse MSM: and the split), sort (a bitmap
 * sum: counting and the prefix sum), accumulate (with the combination of
 * split buckets; a bitmap sum: the balanced partial sums), reduce (a bitmap
 * sum: folding the partials); total = their sum (the final copy and the
 * host's last additions are not included). */
typedef struct {
    float upload, digits, sort, accumulate, reduce, total;
} cuzk_gpu_msm_timing;

cuzk_status cuzk_gpu_msm_plan_timing(const cuzk_gpu_msm_plan *plan, cuzk_gpu_msm_timing *t,
                                     char *err);

/* The device time it took to make the plan's tables (precomputed windows,
 * subset sums), ms (0 for a plain plan). */
float cuzk_gpu_msm_plan_table_ms(const cuzk_gpu_msm_plan *plan);

/* ---------------------------------------------------------------- NTT -- */

/* Domain creation with the shape forced. k1: log_n = k1 + k2 + k1 with
 * 1 <= k1 <= 10 and 1 <= k2 <= 8 (0: the default, k2 near log_n / 3).
 * elems_per_thread: the pass kernels' variant: 8 (the default, also for 0):
 * radix-8 rounds, 256 threads per block; 4: radix-4 rounds, 512 threads per
 * block (fewer registers per thread, twice the warps per SM; measured 1-3%
 * slower on the H200, docs/perf.md). fp64_share: of every 4 Fr
 * multiplications of the pass kernels, how many run on the FP64 pipe
 * (src/gpu/ff_fp64.cuh) instead of the integer one, 0 (the default) .. 4;
 * above 0 only with 8 elements per thread (docs/perf.md, "GPU NTT", "FP64
 * share"). full_twiddles: 1: pass 1 reads its twiddle w^e from a full
 * table of n entries (n x 32 bytes more device memory, 4 GiB at 2^27, in
 * the domain's tables) instead of forming it from two small tables (one
 * multiplication per element less); 2: the same from a positional table
 * (as large), whose entry at position pos is the factor of the element
 * that pass 1 stores there, so the factor loads are coalesced like the
 * data's where the full table's scatter; forward and coset forward only,
 * the inverse transforms as with 0; 1 and 2 only with fp64_share 0; 0 (the
 * default): the two small tables. Plus 4 (with fp64_share 0): the coset
 * table as well, n + 1 entries g^i (n x 32 bytes more), so the coset
 * transforms shift by one load and one multiplication an element instead
 * of two (n >= 8; smaller domains ignore it). Plus 8 (with 1, and 8
 * elements per thread): the full table and the coset table as Shoup pairs
 * (w, wq), twice their bytes, so their products are ff_mul_shoup's instead
 * of Montgomery's. All give the same results; any other value is
 * CUZK_ERR_INVALID_ARGUMENT. */
cuzk_status cuzk_gpu_ntt_domain_create_ex(cuzk_gpu_ntt_domain **d, cuzk_gpu_ctx *ctx,
                                          unsigned log_n, cuzk_roots roots, unsigned k1,
                                          unsigned elems_per_thread, unsigned fp64_share,
                                          unsigned full_twiddles, char *err);

/* a is a HOST array of n elements, copied through the pool (n * 32 bytes
 * must be free there, else CUZK_ERR_NO_MEMORY), transformed on stream 0 and
 * copied back. */
cuzk_status cuzk_gpu_ntt_host(const cuzk_gpu_ntt_domain *d, cuzk_gpu_ntt_kind kind, cuzk_fr *a,
                              char *err);

/* Uploads host array a (n elements) into the pool (2 n * 32 bytes must be
 * free), then runs warmup + reps transforms, each on a fresh
 * device-to-device copy of a; ms[k] gets the time of timed run k (CUDA
 * events around the transform only). out (optional, host, n elements)
 * receives the last run's result, i.e. the transform of a. */
cuzk_status cuzk_gpu_ntt_time(const cuzk_gpu_ntt_domain *d, cuzk_gpu_ntt_kind kind,
                              const cuzk_fr *a, unsigned warmup, unsigned reps, float *ms,
                              cuzk_fr *out, char *err);

typedef struct {
    int k1, k2;              /* digits: log_n = k1 + k2 + k1 (0, 0 for n <= 4) */
    int elems_per_thread;    /* the pass kernels' variant: 8 or 4 (0 for n <= 4) */
    int fp64_share;          /*   and of every 4 multiplications, those on the FP64
                                  pipe (0 .. 4; 0 for n <= 4) */
    int regs, local_bytes;   /* the pass kernel's registers and spills per thread */
    unsigned threads[3];     /* per pass: threads per block */
    size_t smem[3];          /*   dynamic shared memory per block */
    size_t blocks[3];        /*   blocks */
    int blocks_per_sm[3];    /*   resident blocks per SM */
    size_t table_bytes;      /* device memory of the twiddle tables */
    int full_twiddles;       /* pass 1's table: 1 full, 2 positional (in table_bytes);
                                  0 two small ones (and for n <= 4) */
    int coset_table;         /* 1: the coset table too (full_twiddles + 4; n >= 8) */
    int shoup_tables;        /* 1: the full and coset tables as Shoup pairs
                                (full_twiddles + 8: twice their bytes) */
} cuzk_gpu_ntt_info;

cuzk_status cuzk_gpu_ntt_get_info(const cuzk_gpu_ntt_domain *d, cuzk_gpu_ntt_info *info,
                                  char *err);

/* ---------------------------------------------------------------- PCE -- */

/* Host witness in, host a, b, c out, through temporary pool memory. Runs
 * the evaluation 1 + reps times on stream 0; ms[k] (reps entries) gets the
 * CUDA-event time of run k + 1. */
cuzk_status cuzk_gpu_pce_eval_host(const cuzk_gpu_pce *d, const cuzk_pce_witness *wit,
                                   cuzk_fr *a, cuzk_fr *b, cuzk_fr *c, unsigned reps, float *ms,
                                   char *err);

/* --------------------------------------------------------- fixed base -- */

/* cuzk_gpu_fixed_create with window w (2..22; 0 = CUZK_GPU_FIXED_WINDOW):
 * fewer additions per point (ceil(256 / w)) for a table of
 * ceil(256 / w) 2^(w-1) points (w = 20: 13 additions, 650 MB for G1,
 * 1.3 GB for G2). */
cuzk_status cuzk_gpu_fixed_create_window(cuzk_gpu_fixed **f, cuzk_gpu_ctx *ctx,
                                         cuzk_gpu_group grp, const void *base, unsigned w,
                                         char *err);

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

cuzk_status cuzk_gpu_fixed_get_info(const cuzk_gpu_fixed *f, cuzk_gpu_fixed_info *info,
                                    char *err);

/* ---------------------------------------------------- fault injection -- */

/* Flips bit `bit` (0 .. 8 x the affine point size - 1) of point `index` of
 * the plan's points in device memory (a precomputed plan: of its table's
 * first window), as a memory fault would. Flipping it again restores it. */
cuzk_status cuzk_gpu_testing_msm_plan_flip(cuzk_gpu_msm_plan *plan, size_t index, unsigned bit,
                                           char *err);

/* A batch-affine plan's accumulation reads a step-major copy of each
 * batch's sorted keys and values (on != 0, the default; made after the
 * sort, in its spare buffers) or the sorted order (0): for tests of the
 * sorted order's path and for A/B rows (cuzk-bench kernels:
 * CUZK_MSM_STEP_MAJOR=0). Calls with a compacted rest keep the sorted
 * order. */
cuzk_status cuzk_gpu_testing_msm_plan_step_major(cuzk_gpu_msm_plan *plan, int on, char *err);

/* The same on a GPU workspace (backend "gpu", include/cuzk/prove.h) in the
 * key's points of `which`: "H", "L", "A", "B2" or "B1". */
typedef struct cuzk_workspace cuzk_workspace;
cuzk_status cuzk_gpu_testing_ws_flip(cuzk_workspace *ws, const char *which, size_t index,
                                     unsigned bit, char *err);

/* The NTT domain's info of a GPU workspace (which twiddle tables it got). */
cuzk_status cuzk_gpu_testing_ws_ntt(cuzk_workspace *ws, cuzk_gpu_ntt_info *info, char *err);

#ifdef __cplusplus
}
#endif

#endif /* CUZK_GPU_TESTING_H */
