/* cuzk — what the CUDA sources of the backend share: the context, its
 * device-memory pool, error reporting and the checked-call macros.
 * Internal; host code outside src/gpu uses cuzk/gpu.h (and, for tests and
 * benchmarks, gpu/gpu_testing.h). */
#ifndef CUZK_GPU_INTERNAL_CUH
#define CUZK_GPU_INTERNAL_CUH

#include <pthread.h>

#include <cuda_runtime.h>

#include <cuzk/gpu.h>

#include "gpu/gpu_testing.h"

/* One allocation of the pool: bytes [off, off + size). */
struct gpu_pool_block {
    size_t off, size;
};

struct cuzk_gpu_ctx {
    int device;
    int sm_count;                  /* the device's multiprocessors */
    unsigned nstreams;
    cudaStream_t *streams;         /* nstreams + 1: the last is the setup
                                      stream of the create functions */
    cudaEvent_t *order_ev;         /* nstreams: for cuzk_gpu_stream_order */
    cudaEvent_t ev_start, ev_stop; /* timing, for the synchronous test helpers */
    char *pool;                    /* device memory, pool_bytes, 256-aligned */
    size_t pool_bytes;
    /* The pool's allocations, sorted by offset (first fit); guarded by lock
     * so that threads on different streams may create and free objects. */
    pthread_mutex_t lock;
    struct gpu_pool_block *blocks;
    size_t nblocks, cap_blocks;
    size_t pool_used;
};

/* The setup stream: plan, domain, PCE and multiplier creation. */
static inline cudaStream_t gpu_setup_stream(const cuzk_gpu_ctx *ctx)
{
    return ctx->streams[ctx->nstreams];
}

/* Writes "gpu: <what>: <CUDA text> (<CUDA name>)" to err and maps e to a
 * status: no device / no driver -> CUZK_ERR_NO_DEVICE, out of device memory
 * -> CUZK_ERR_NO_MEMORY, anything else -> CUZK_ERR_CUDA. Also clears CUDA's
 * non-sticky last error. */
cuzk_status cuzk_gpu_fail(char *err, cudaError_t e, const char *what);

/* Writes "gpu: " and the formatted message to err; returns s. */
cuzk_status cuzk_gpu_errf(char *err, cuzk_status s, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Clears err (success leaves an empty message). */
static inline void gpu_err_clear(char *err)
{
    if (err) err[0] = 0;
}

/* bytes (256-aligned) from the context's pool into *p; CUZK_ERR_NO_MEMORY
 * with a message naming `what` when no gap is large enough. No CUDA call.
 * Thread-safe. */
cuzk_status gpu_pool_alloc(cuzk_gpu_ctx *ctx, void *p, size_t bytes, const char *what,
                           char *err);
/* Returns p (from gpu_pool_alloc; NULL is a no-op) to the pool. The caller
 * has made sure no queued work still uses it. */
void gpu_pool_free(cuzk_gpu_ctx *ctx, void *p);

/* Waits for every stream of the context (destroy functions, before memory
 * returns to the pool). Errors cannot be reported there and are dropped. */
void gpu_ctx_quiesce(cuzk_gpu_ctx *ctx);

/* The largest local memory (stack frame) a thread of the MSM kernels takes,
 * in bytes (msm.cu); the context reserves it for every resident thread. */
size_t gpu_msm_local_bytes(void);

/* The CUDA stream for stream index i, or NULL with a message in err if i is
 * out of range. */
cudaStream_t gpu_stream(const cuzk_gpu_ctx *ctx, unsigned i, char *err);

/* Evaluates a CUDA runtime call; on failure returns from the enclosing
 * function with the mapped status and the message in err. */
#define CUZK_CUDA_TRY(err, call)                                               \
    do {                                                                       \
        cudaError_t cuzk_e_ = (call);                                          \
        if (cuzk_e_ != cudaSuccess)                                            \
            return cuzk_gpu_fail((err), cuzk_e_, #call);                       \
    } while (0)

/* After a kernel launch: the launch error, if any. */
#define CUZK_CUDA_TRY_LAUNCH(err) CUZK_CUDA_TRY(err, cudaGetLastError())

#endif /* CUZK_GPU_INTERNAL_CUH */
