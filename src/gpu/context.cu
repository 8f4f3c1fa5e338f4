/* cuzk — CUDA devices and contexts (see include/cuzk/gpu.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/gpu_internal.cuh"

static thread_local char last_error[512];

extern "C" const char *cuzk_gpu_last_error(void) { return last_error; }

cuzk_status cuzk_gpu_fail(cudaError_t e, const char *what, const char *file, int line)
{
    snprintf(last_error, sizeof last_error, "%s:%d: %s: %s (%s)", file, line, what,
             cudaGetErrorString(e), cudaGetErrorName(e));
    (void)cudaGetLastError(); /* clear a non-sticky error */
    switch (e) {
    case cudaErrorNoDevice:
    case cudaErrorInsufficientDriver:
    case cudaErrorInvalidDevice:
        return CUZK_ERR_NO_DEVICE;
    case cudaErrorMemoryAllocation:
        return CUZK_ERR_NO_MEMORY;
    default:
        return CUZK_ERR_CUDA;
    }
}

extern "C" cuzk_status cuzk_gpu_device_count(int *count)
{
    if (!count) return CUZK_ERR_INVALID_ARGUMENT;
    *count = 0;
    int c = 0;
    cudaError_t e = cudaGetDeviceCount(&c);
    if (e == cudaErrorNoDevice || e == cudaErrorInsufficientDriver) {
        (void)cudaGetLastError();
        return CUZK_OK;
    }
    CUZK_CUDA_TRY(e);
    *count = c;
    return CUZK_OK;
}

extern "C" cuzk_status cuzk_gpu_get_device_info(int device, cuzk_gpu_device_info *info)
{
    if (!info) return CUZK_ERR_INVALID_ARGUMENT;
    int count;
    cuzk_status st = cuzk_gpu_device_count(&count);
    if (st != CUZK_OK) return st;
    if (device < 0 || device >= count) return count ? CUZK_ERR_INVALID_ARGUMENT : CUZK_ERR_NO_DEVICE;
    cudaDeviceProp p;
    CUZK_CUDA_TRY(cudaGetDeviceProperties(&p, device));
    memset(info, 0, sizeof *info);
    snprintf(info->name, sizeof info->name, "%s", p.name);
    info->cc_major = p.major;
    info->cc_minor = p.minor;
    info->sm_count = p.multiProcessorCount;
    int clock = 0;
    CUZK_CUDA_TRY(cudaDeviceGetAttribute(&clock, cudaDevAttrClockRate, device));
    info->clock_khz = clock;
    info->global_mem = p.totalGlobalMem;
    return CUZK_OK;
}

extern "C" cuzk_status cuzk_gpu_ctx_create(cuzk_gpu_ctx **out, int device, size_t pool_bytes)
{
    if (!out) return CUZK_ERR_INVALID_ARGUMENT;
    int count;
    cuzk_status st = cuzk_gpu_device_count(&count);
    if (st != CUZK_OK) return st;
    if (count == 0) return CUZK_ERR_NO_DEVICE;
    if (device < 0 || device >= count) return CUZK_ERR_INVALID_ARGUMENT;
    if (pool_bytes == 0) pool_bytes = CUZK_GPU_DEFAULT_POOL;

    cuzk_gpu_ctx *ctx = (cuzk_gpu_ctx *)calloc(1, sizeof *ctx);
    if (!ctx) return CUZK_ERR_NO_MEMORY;
    ctx->device = device;
    ctx->pool_bytes = pool_bytes;
    cudaError_t e = cudaSetDevice(device);
    if (e == cudaSuccess) e = cudaStreamCreateWithFlags(&ctx->stream, cudaStreamNonBlocking);
    if (e == cudaSuccess) e = cudaEventCreate(&ctx->ev_start);
    if (e == cudaSuccess) e = cudaEventCreate(&ctx->ev_stop);
    if (e == cudaSuccess) e = cudaMalloc(&ctx->pool, pool_bytes);
    if (e != cudaSuccess) {
        st = cuzk_gpu_fail(e, "cuzk_gpu_ctx_create", __FILE__, __LINE__);
        cuzk_gpu_ctx_destroy(ctx);
        return st;
    }
    *out = ctx;
    return CUZK_OK;
}

extern "C" void cuzk_gpu_ctx_destroy(cuzk_gpu_ctx *ctx)
{
    if (!ctx) return;
    /* Errors here cannot be reported; each release is attempted. */
    (void)cudaSetDevice(ctx->device);
    if (ctx->stream) (void)cudaStreamSynchronize(ctx->stream);
    if (ctx->pool) (void)cudaFree(ctx->pool);
    if (ctx->ev_start) (void)cudaEventDestroy(ctx->ev_start);
    if (ctx->ev_stop) (void)cudaEventDestroy(ctx->ev_stop);
    if (ctx->stream) (void)cudaStreamDestroy(ctx->stream);
    (void)cudaGetLastError();
    free(ctx);
}
