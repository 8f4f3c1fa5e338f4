/* cuzk — CUDA devices, contexts, streams and the device-memory pool (see
 * include/cuzk/gpu.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern "C" {
#include "common/errmsg.h"
}

#include "gpu/gpu_internal.cuh"

cuzk_status cuzk_gpu_fail(char *err, cudaError_t e, const char *what)
{
    /* what is the call's text: keep the function's name only. */
    int len = (int)strcspn(what, "(");
    cuzk_status st;
    switch (e) {
    case cudaErrorNoDevice:
    case cudaErrorInsufficientDriver:
    case cudaErrorInvalidDevice:
        st = CUZK_ERR_NO_DEVICE;
        break;
    case cudaErrorMemoryAllocation:
        st = CUZK_ERR_NO_MEMORY;
        break;
    default:
        st = CUZK_ERR_CUDA;
        break;
    }
    cuzk_errf(err, st, "gpu: ", "%.*s: %s (%s)", len, what, cudaGetErrorString(e),
              cudaGetErrorName(e));
    (void)cudaGetLastError(); /* clear a non-sticky error */
    return st;
}

cuzk_status cuzk_gpu_errf(char *err, cuzk_status s, const char *fmt, ...)
{
    if (!err) return s;
    char msg[CUZK_ERRMSG_LEN];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return cuzk_errf(err, s, "gpu: ", "%s", msg);
}

cudaStream_t gpu_stream(const cuzk_gpu_ctx *ctx, unsigned i, char *err)
{
    if (i >= ctx->nstreams) {
        cuzk_gpu_errf(err, CUZK_ERR_INVALID_ARGUMENT, "stream %u of a context of %u streams", i,
                      ctx->nstreams);
        return NULL;
    }
    return ctx->streams[i];
}

/* ------------------------------------------------------------- devices -- */

extern "C" cuzk_status cuzk_gpu_device_count(int *count, char *err)
{
    gpu_err_clear(err);
    if (!count) return cuzk_gpu_errf(err, CUZK_ERR_INVALID_ARGUMENT, "device_count: NULL count");
    *count = 0;
    int c = 0;
    cudaError_t e = cudaGetDeviceCount(&c);
    if (e == cudaErrorNoDevice || e == cudaErrorInsufficientDriver) {
        (void)cudaGetLastError();
        return CUZK_OK;
    }
    /* Any other failure is a real error on a machine that has a driver:
     * CUZK_ERR_CUDA, never "no device". */
    if (e != cudaSuccess) {
        cuzk_gpu_fail(err, e, "cudaGetDeviceCount");
        return CUZK_ERR_CUDA;
    }
    *count = c;
    return CUZK_OK;
}

extern "C" cuzk_status cuzk_gpu_get_device_info(cuzk_gpu_device_info *info, int device,
                                                char *err)
{
    gpu_err_clear(err);
    if (!info) return cuzk_gpu_errf(err, CUZK_ERR_INVALID_ARGUMENT, "device_info: NULL info");
    int count;
    cuzk_status st = cuzk_gpu_device_count(&count, err);
    if (st != CUZK_OK) return st;
    if (count == 0) return cuzk_gpu_errf(err, CUZK_ERR_NO_DEVICE, "no CUDA device");
    if (device < 0 || device >= count)
        return cuzk_gpu_errf(err, CUZK_ERR_INVALID_ARGUMENT, "device %d of %d", device, count);
    cudaDeviceProp p;
    CUZK_CUDA_TRY(err, cudaGetDeviceProperties(&p, device));
    memset(info, 0, sizeof *info);
    snprintf(info->name, sizeof info->name, "%s", p.name);
    info->cc_major = p.major;
    info->cc_minor = p.minor;
    info->sm_count = p.multiProcessorCount;
    int clock = 0;
    CUZK_CUDA_TRY(err, cudaDeviceGetAttribute(&clock, cudaDevAttrClockRate, device));
    info->clock_khz = clock;
    info->global_mem = p.totalGlobalMem;
    return CUZK_OK;
}

/* ------------------------------------------------------------ context -- */

/* What a default pool leaves free on the device: a sixteenth of what is
 * free, and at least GPU_POOL_HEADROOM (an eighth of a card smaller than
 * 32 GiB), for CUDA's own needs. The kernels' local memory is not left to
 * that: gpu_reserve_local (below) takes it before the pool is sized. On
 * the H200 the device used 5185 MiB before the pool (the context and that
 * local memory) and nothing more than 10 MiB beside it while proving a
 * full porep-32g partition (nvidia-smi every 250 ms), so an eighth (~17
 * GiB) lay idle while the coset table (4.3 GB, H 263.3 -> 255.8 ms) did
 * not fit; a sixteenth (~8.5 GiB) leaves it room (docs/perf.md, "The
 * coset table"). A second context gets what the first left, less this. */
#define GPU_POOL_HEADROOM ((size_t)4 << 30)

static size_t gpu_pool_keep(size_t free_b, size_t total_b)
{
    size_t keep = free_b / 16;
    size_t least = total_b / 8 < GPU_POOL_HEADROOM ? total_b / 8 : GPU_POOL_HEADROOM;
    return keep > least ? keep : least;
}

/* The driver gives a kernel its local memory (the stack frame: the MSMs'
 * batch state and spills; G2's batch-affine accumulation has 19,040 bytes,
 * 5.1 GB for the 2048 x 132 threads of an H200) for every thread the device
 * can hold, when a launch first needs more than it has, and by default
 * gives it back after that launch. So pools sized in between can leave too
 * little: on the H200 the daemon's second key's pool left ~4.3 GB free, and
 * every launch of that accumulation failed with cudaErrorMemoryAllocation
 * (docs/perf.md, "The benchmark protocol at full size"). Here the device
 * keeps what it grew to (cudaDeviceLmemResizeToMax) and the stack limit is
 * raised to the largest frame, which reserves that memory now, before any
 * pool. */
static cuzk_status gpu_reserve_local(int device, char *err)
{
    unsigned flags = 0;
    if (cudaGetDeviceFlags(&flags) == cudaSuccess && !(flags & cudaDeviceLmemResizeToMax) &&
        cudaSetDeviceFlags(flags | cudaDeviceLmemResizeToMax) != cudaSuccess)
        (void)cudaGetLastError(); /* only a policy: the stack limit below is what counts */
    size_t need = gpu_msm_local_bytes(), have = 0;
    CUZK_CUDA_TRY(err, cudaDeviceGetLimit(&have, cudaLimitStackSize));
    if (need <= have) return CUZK_OK;
    cudaError_t e = cudaDeviceSetLimit(cudaLimitStackSize, need);
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        return cuzk_gpu_errf(err, e == cudaErrorMemoryAllocation ? CUZK_ERR_NO_MEMORY
                                                                  : CUZK_ERR_CUDA,
                             "device %d: cannot reserve the kernels' local memory (%zu bytes "
                             "a thread): %s", device, need, cudaGetErrorString(e));
    }
    return CUZK_OK;
}

extern "C" cuzk_status cuzk_gpu_ctx_create(cuzk_gpu_ctx **out, const cuzk_gpu_ctx_opts *opts,
                                           char *err)
{
    gpu_err_clear(err);
    if (!out) return cuzk_gpu_errf(err, CUZK_ERR_INVALID_ARGUMENT, "ctx_create: NULL ctx");
    cuzk_gpu_ctx_opts o;
    memset(&o, 0, sizeof o);
    if (opts) o = *opts;
    if (o.streams == 0) o.streams = 1;
    if (o.streams > CUZK_GPU_MAX_STREAMS)
        return cuzk_gpu_errf(err, CUZK_ERR_INVALID_ARGUMENT, "ctx_create: %u streams (max %d)",
                             o.streams, CUZK_GPU_MAX_STREAMS);
    int count;
    cuzk_status st = cuzk_gpu_device_count(&count, err);
    if (st != CUZK_OK) return st;
    if (count == 0) return cuzk_gpu_errf(err, CUZK_ERR_NO_DEVICE, "no CUDA device");
    if (o.device < 0 || o.device >= count)
        return cuzk_gpu_errf(err, CUZK_ERR_INVALID_ARGUMENT, "device %d of %d", o.device, count);
    CUZK_CUDA_TRY(err, cudaSetDevice(o.device));
    st = gpu_reserve_local(o.device, err);
    if (st != CUZK_OK) return st;
    size_t pool = o.pool_bytes;
    if (pool == 0) {
        size_t free_b = 0, total_b = 0;
        CUZK_CUDA_TRY(err, cudaMemGetInfo(&free_b, &total_b));
        size_t keep = gpu_pool_keep(free_b, total_b);
        if (free_b <= keep + ((size_t)1 << 20))
            return cuzk_gpu_errf(err, CUZK_ERR_NO_MEMORY,
                                 "device %d has %.2f GiB free, all of it kept for CUDA's own "
                                 "needs (at least %.2f GiB)",
                                 o.device, (double)free_b / (1u << 30), (double)keep / (1u << 30));
        pool = free_b - keep;
    }
    pool = (pool + 255) & ~(size_t)255;

    cuzk_gpu_ctx *ctx = (cuzk_gpu_ctx *)calloc(1, sizeof *ctx);
    if (!ctx) return cuzk_gpu_errf(err, CUZK_ERR_NO_MEMORY, "ctx_create: host memory");
    ctx->device = o.device;
    if (cudaDeviceGetAttribute(&ctx->sm_count, cudaDevAttrMultiProcessorCount, o.device) !=
        cudaSuccess)
        ctx->sm_count = 0; /* unknown: callers take their defaults */
    ctx->nstreams = o.streams;
    ctx->pool_bytes = pool;
    if (pthread_mutex_init(&ctx->lock, NULL) != 0) {
        free(ctx);
        return cuzk_gpu_errf(err, CUZK_ERR_NO_MEMORY, "ctx_create: mutex");
    }
    ctx->streams = (cudaStream_t *)calloc(o.streams + 1, sizeof(cudaStream_t));
    ctx->order_ev = (cudaEvent_t *)calloc(o.streams, sizeof(cudaEvent_t));
    if (!ctx->streams || !ctx->order_ev) {
        cuzk_gpu_ctx_destroy(ctx);
        return cuzk_gpu_errf(err, CUZK_ERR_NO_MEMORY, "ctx_create: host memory");
    }
    cudaError_t e = cudaSuccess;
    for (unsigned i = 0; i <= o.streams && e == cudaSuccess; i++)
        e = cudaStreamCreateWithFlags(&ctx->streams[i], cudaStreamNonBlocking);
    for (unsigned i = 0; i < o.streams && e == cudaSuccess; i++)
        e = cudaEventCreateWithFlags(&ctx->order_ev[i], cudaEventDisableTiming);
    if (e == cudaSuccess) e = cudaEventCreate(&ctx->ev_start);
    if (e == cudaSuccess) e = cudaEventCreate(&ctx->ev_stop);
    if (e != cudaSuccess) {
        st = cuzk_gpu_fail(err, e, "ctx_create: streams and events");
        cuzk_gpu_ctx_destroy(ctx);
        return st;
    }
    e = cudaMalloc((void **)&ctx->pool, pool);
    if (e != cudaSuccess) {
        ctx->pool = NULL;
        st = cuzk_gpu_fail(err, e, "ctx_create: device pool");
        if (e == cudaErrorMemoryAllocation)
            cuzk_gpu_errf(err, st, "ctx_create: a device pool of %zu bytes does not fit", pool);
        cuzk_gpu_ctx_destroy(ctx);
        return st;
    }
    *out = ctx;
    return CUZK_OK;
}

void gpu_ctx_quiesce(cuzk_gpu_ctx *ctx)
{
    (void)cudaSetDevice(ctx->device);
    for (unsigned i = 0; ctx->streams && i <= ctx->nstreams; i++)
        if (ctx->streams[i]) (void)cudaStreamSynchronize(ctx->streams[i]);
    (void)cudaGetLastError();
}

extern "C" void cuzk_gpu_ctx_destroy(cuzk_gpu_ctx *ctx)
{
    if (!ctx) return;
    /* Errors here cannot be reported; each release is attempted. */
    gpu_ctx_quiesce(ctx);
    if (ctx->pool) (void)cudaFree(ctx->pool);
    if (ctx->ev_start) (void)cudaEventDestroy(ctx->ev_start);
    if (ctx->ev_stop) (void)cudaEventDestroy(ctx->ev_stop);
    for (unsigned i = 0; ctx->order_ev && i < ctx->nstreams; i++)
        if (ctx->order_ev[i]) (void)cudaEventDestroy(ctx->order_ev[i]);
    for (unsigned i = 0; ctx->streams && i <= ctx->nstreams; i++)
        if (ctx->streams[i]) (void)cudaStreamDestroy(ctx->streams[i]);
    (void)cudaGetLastError();
    pthread_mutex_destroy(&ctx->lock);
    free(ctx->blocks);
    free(ctx->order_ev);
    free(ctx->streams);
    free(ctx);
}

extern "C" unsigned cuzk_gpu_ctx_streams(const cuzk_gpu_ctx *ctx)
{
    return ctx ? ctx->nstreams : 0;
}

extern "C" void cuzk_gpu_ctx_pool(const cuzk_gpu_ctx *ctx, size_t *total, size_t *used)
{
    size_t t = 0, u = 0;
    if (ctx) {
        pthread_mutex_lock((pthread_mutex_t *)&ctx->lock);
        t = ctx->pool_bytes;
        u = ctx->pool_used;
        pthread_mutex_unlock((pthread_mutex_t *)&ctx->lock);
    }
    if (total) *total = t;
    if (used) *used = u;
}

/* ------------------------------------------------------------- streams -- */

extern "C" cuzk_status cuzk_gpu_stream_wait(cuzk_gpu_ctx *ctx, unsigned stream, char *err)
{
    gpu_err_clear(err);
    if (!ctx) return cuzk_gpu_errf(err, CUZK_ERR_INVALID_ARGUMENT, "stream_wait: NULL ctx");
    cudaStream_t s = gpu_stream(ctx, stream, err);
    if (!s) return CUZK_ERR_INVALID_ARGUMENT;
    CUZK_CUDA_TRY(err, cudaSetDevice(ctx->device));
    CUZK_CUDA_TRY(err, cudaStreamSynchronize(s));
    return CUZK_OK;
}

extern "C" cuzk_status cuzk_gpu_stream_order(cuzk_gpu_ctx *ctx, unsigned later, unsigned earlier,
                                             char *err)
{
    gpu_err_clear(err);
    if (!ctx) return cuzk_gpu_errf(err, CUZK_ERR_INVALID_ARGUMENT, "stream_order: NULL ctx");
    cudaStream_t sl = gpu_stream(ctx, later, err), se = gpu_stream(ctx, earlier, err);
    if (!sl || !se) return CUZK_ERR_INVALID_ARGUMENT;
    if (later == earlier) return CUZK_OK;
    CUZK_CUDA_TRY(err, cudaSetDevice(ctx->device));
    /* The wait takes the event's state now, so the event may be recorded
     * again right after. */
    CUZK_CUDA_TRY(err, cudaEventRecord(ctx->order_ev[earlier], se));
    CUZK_CUDA_TRY(err, cudaStreamWaitEvent(sl, ctx->order_ev[earlier], 0));
    return CUZK_OK;
}

extern "C" cuzk_status cuzk_gpu_memcpy(cuzk_gpu_ctx *ctx, unsigned stream, void *dst,
                                       const void *src, size_t bytes, char *err)
{
    gpu_err_clear(err);
    if (!ctx || (bytes && (!dst || !src)))
        return cuzk_gpu_errf(err, CUZK_ERR_INVALID_ARGUMENT, "memcpy: NULL argument");
    cudaStream_t s = gpu_stream(ctx, stream, err);
    if (!s) return CUZK_ERR_INVALID_ARGUMENT;
    if (bytes == 0) return CUZK_OK;
    CUZK_CUDA_TRY(err, cudaSetDevice(ctx->device));
    CUZK_CUDA_TRY(err, cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, s));
    return CUZK_OK;
}

/* ---------------------------------------------------------------- pool -- */

cuzk_status gpu_pool_alloc(cuzk_gpu_ctx *ctx, void *p, size_t bytes, const char *what,
                           char *err)
{
    void **out = (void **)p;
    *out = NULL;
    bytes = (bytes + 255) & ~(size_t)255;
    if (bytes == 0) bytes = 256;
    pthread_mutex_lock(&ctx->lock);
    /* First fit: the gap before each block, then the one after the last. */
    size_t at = 0, i = 0;
    for (; i < ctx->nblocks; i++) {
        if (ctx->blocks[i].off - at >= bytes) break;
        at = ctx->blocks[i].off + ctx->blocks[i].size;
    }
    int fits = i < ctx->nblocks || (at <= ctx->pool_bytes && ctx->pool_bytes - at >= bytes);
    if (fits && ctx->nblocks == ctx->cap_blocks) {
        size_t cap = ctx->cap_blocks ? 2 * ctx->cap_blocks : 16;
        gpu_pool_block *nb =
            (gpu_pool_block *)realloc(ctx->blocks, cap * sizeof(gpu_pool_block));
        if (!nb) {
            pthread_mutex_unlock(&ctx->lock);
            return cuzk_gpu_errf(err, CUZK_ERR_NO_MEMORY, "%s: host memory", what);
        }
        ctx->blocks = nb;
        ctx->cap_blocks = cap;
    }
    if (!fits) {
        size_t total = ctx->pool_bytes, used = ctx->pool_used;
        pthread_mutex_unlock(&ctx->lock);
        return cuzk_gpu_errf(err, CUZK_ERR_NO_MEMORY,
                             "%s: %zu bytes do not fit the device pool (%zu of %zu bytes in use)",
                             what, bytes, used, total);
    }
    memmove(&ctx->blocks[i + 1], &ctx->blocks[i], (ctx->nblocks - i) * sizeof(gpu_pool_block));
    ctx->blocks[i].off = at;
    ctx->blocks[i].size = bytes;
    ctx->nblocks++;
    ctx->pool_used += bytes;
    pthread_mutex_unlock(&ctx->lock);
    *out = ctx->pool + at;
    return CUZK_OK;
}

void gpu_pool_free(cuzk_gpu_ctx *ctx, void *p)
{
    if (!p) return;
    size_t off = (size_t)((char *)p - ctx->pool);
    pthread_mutex_lock(&ctx->lock);
    for (size_t i = 0; i < ctx->nblocks; i++)
        if (ctx->blocks[i].off == off) {
            ctx->pool_used -= ctx->blocks[i].size;
            memmove(&ctx->blocks[i], &ctx->blocks[i + 1],
                    (ctx->nblocks - i - 1) * sizeof(gpu_pool_block));
            ctx->nblocks--;
            break;
        }
    pthread_mutex_unlock(&ctx->lock);
}

extern "C" cuzk_status cuzk_gpu_buf_alloc(void **ptr, cuzk_gpu_ctx *ctx, size_t bytes, char *err)
{
    gpu_err_clear(err);
    if (!ptr || !ctx || bytes == 0)
        return cuzk_gpu_errf(err, CUZK_ERR_INVALID_ARGUMENT, "buf_alloc: bad argument");
    return gpu_pool_alloc(ctx, ptr, bytes, "buf_alloc", err);
}

extern "C" void cuzk_gpu_buf_free(cuzk_gpu_ctx *ctx, void *ptr)
{
    if (!ctx || !ptr) return;
    gpu_ctx_quiesce(ctx);
    gpu_pool_free(ctx, ptr);
}

/* ------------------------------------------------------- pinned memory -- */

extern "C" cuzk_status cuzk_gpu_host_alloc(void **ptr, size_t bytes, char *err)
{
    gpu_err_clear(err);
    if (!ptr || bytes == 0)
        return cuzk_gpu_errf(err, CUZK_ERR_INVALID_ARGUMENT, "host_alloc: bad argument");
    CUZK_CUDA_TRY(err, cudaMallocHost(ptr, bytes));
    return CUZK_OK;
}

extern "C" void cuzk_gpu_host_free(void *ptr)
{
    if (ptr) (void)cudaFreeHost(ptr);
    (void)cudaGetLastError();
}
