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

#ifdef __cplusplus
}
#endif

#endif /* CUZK_GPU_H */
