/* cuzk — integer multiply-add rates of the GPU, measured (cuzk_gpu_imad_probe).
 *
 * The field kernels are bound by the integer multiply-add pipe; what one
 * 32x32-bit product costs there decides their peak. Each probe kernel runs
 * independent chains of one instruction form, 8 per thread, at full
 * occupancy, so latency is hidden and the pipe's rate shows:
 *   0  mad.lo.u32                        -> IMAD            (32-bit result)
 *   1  mad.hi.u32                        -> IMAD.HI
 *   2  mad.wide.u32                      -> IMAD.WIDE.U32   (64-bit result)
 *   3  mad.lo.cc + madc.hi.cc pairs      -> IMAD.WIDE.U32.X (carry chains)
 *   4  mad.wide.u32 + 2 add.u32 beside   -> IMAD.WIDE plus IADD3 (ALU pipe)
 * Rates are reported per product (kinds 0-4: one product per IMAD-family
 * instruction). */
#include <stdint.h>
#include <stdlib.h>

#include "gpu/gpu_internal.cuh"

#define PROBE_CHAINS 8
#define PROBE_UNROLL 8

template <int KIND>
__global__ void imad_probe_kernel(uint32_t *out, unsigned iters, uint32_t seed)
{
    uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
    uint32_t x = seed ^ (t * 0x9e3779b9u), y = (seed + t) | 1u;
    uint32_t a[PROBE_CHAINS], c[PROBE_CHAINS];
    uint64_t w[PROBE_CHAINS];
#pragma unroll
    for (int k = 0; k < PROBE_CHAINS; k++) {
        a[k] = x + 17u * k;
        c[k] = y ^ (uint32_t)k;
        w[k] = ((uint64_t)a[k] << 32) | c[k];
    }
#pragma unroll 1
    for (unsigned it = 0; it < iters; it++) {
#pragma unroll
        for (int u = 0; u < PROBE_UNROLL; u++) {
#pragma unroll
            for (int k = 0; k < PROBE_CHAINS; k++) {
                if (KIND == 0) {
                    asm("mad.lo.u32 %0, %0, %1, %2;" : "+r"(a[k]) : "r"(y), "r"(x));
                } else if (KIND == 1) {
                    asm("mad.hi.u32 %0, %0, %1, %2;" : "+r"(a[k]) : "r"(y), "r"(x));
                } else if (KIND == 2) {
                    asm("mad.wide.u32 %0, %1, %2, %0;" : "+l"(w[k]) : "r"((uint32_t)w[k]), "r"(y));
                } else if (KIND == 3) {
                    /* one product as a lo/hi pair into (a, c), carry in and out */
                    asm volatile("madc.lo.cc.u32 %0, %2, %3, %0;\n\t"
                                 "madc.hi.cc.u32 %1, %2, %3, %1;"
                                 : "+r"(a[k]), "+r"(c[k]) : "r"(c[k]), "r"(y));
                } else {
                    uint32_t lo = (uint32_t)w[k];
                    asm("mad.wide.u32 %0, %1, %2, %0;" : "+l"(w[k]) : "r"(lo), "r"(y));
                    asm("add.u32 %0, %0, %1;" : "+r"(a[k]) : "r"(lo));
                    asm("add.u32 %0, %0, %1;" : "+r"(c[k]) : "r"(a[k]));
                }
            }
        }
    }
    uint32_t r = 0;
#pragma unroll
    for (int k = 0; k < PROBE_CHAINS; k++) r ^= a[k] ^ c[k] ^ (uint32_t)w[k] ^ (uint32_t)(w[k] >> 32);
    out[t] = r;
}

static const char *probe_desc[] = {
    "IMAD (mad.lo.u32)",
    "IMAD.HI (mad.hi.u32)",
    "IMAD.WIDE.U32 (mad.wide.u32)",
    "IMAD.WIDE.U32.X (mad.lo.cc+madc.hi.cc pair)",
    "IMAD.WIDE.U32 + 2 IADD3 beside",
};

static cuzk_status probe_run(cuzk_gpu_ctx *ctx, int kind, unsigned iters, unsigned grid,
                             unsigned block, uint32_t *out, float *ms, char *err);

extern "C" cuzk_status cuzk_gpu_imad_probe(cuzk_gpu_ctx *ctx, int kind, unsigned iters,
                                           double *products_per_s, const char **desc, char *err)
{
    gpu_err_clear(err);
    if (!ctx || !products_per_s || kind < 0 || kind > 4 || iters == 0)
        return cuzk_gpu_errf(err, CUZK_ERR_INVALID_ARGUMENT, "imad_probe: bad argument");
    if (desc) *desc = probe_desc[kind];
    CUZK_CUDA_TRY(err, cudaSetDevice(ctx->device));
    int sms = 0;
    CUZK_CUDA_TRY(err, cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, ctx->device));
    const unsigned block = 256, grid = (unsigned)sms * 8; /* 2048 threads per SM */
    uint32_t *out = NULL;
    float ms[5];
    cuzk_status st = gpu_pool_alloc(ctx, &out, (size_t)grid * block * sizeof(uint32_t),
                                    "imad_probe", err);
    if (st != CUZK_OK) return st;
    st = probe_run(ctx, kind, iters, grid, block, out, ms, err);
    (void)cudaStreamSynchronize(ctx->streams[0]);
    gpu_pool_free(ctx, out);
    if (st != CUZK_OK) return st;
    /* median of 5 */
    for (int i = 1; i < 5; i++)
        for (int j = i; j > 0 && ms[j] < ms[j - 1]; j--) {
            float tmp = ms[j]; ms[j] = ms[j - 1]; ms[j - 1] = tmp;
        }
    double products = (double)grid * block * iters * PROBE_UNROLL * PROBE_CHAINS;
    *products_per_s = products / (ms[2] * 1e-3);
    return CUZK_OK;
}

/* The warm-up and 5 timed launches on stream 0; ms gets their times. */
static cuzk_status probe_run(cuzk_gpu_ctx *ctx, int kind, unsigned iters, unsigned grid,
                             unsigned block, uint32_t *out, float *ms, char *err)
{
    cudaStream_t s = ctx->streams[0];
    void (*kernels[5])(uint32_t *, unsigned, uint32_t) = {
        imad_probe_kernel<0>, imad_probe_kernel<1>, imad_probe_kernel<2>,
        imad_probe_kernel<3>, imad_probe_kernel<4>};
    kernels[kind]<<<grid, block, 0, s>>>(out, iters, 12345u); /* warm-up */
    CUZK_CUDA_TRY_LAUNCH(err);
    for (int r = 0; r < 5; r++) {
        CUZK_CUDA_TRY(err, cudaEventRecord(ctx->ev_start, s));
        kernels[kind]<<<grid, block, 0, s>>>(out, iters, 777u + r);
        CUZK_CUDA_TRY_LAUNCH(err);
        CUZK_CUDA_TRY(err, cudaEventRecord(ctx->ev_stop, s));
        CUZK_CUDA_TRY(err, cudaEventSynchronize(ctx->ev_stop));
        CUZK_CUDA_TRY(err, cudaEventElapsedTime(&ms[r], ctx->ev_start, ctx->ev_stop));
    }
    return CUZK_OK;
}
