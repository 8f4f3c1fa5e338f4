/* cuzk — field-arithmetic kernels and their C launchers (include/cuzk/gpu.h).
 * The arithmetic itself is in ff.cuh. */
#include <stdint.h>

#include "gpu/ff.cuh"
#include "gpu/gpu_internal.cuh"

/* Elements are read and written as 16-byte vectors: Fr 2, Fp 3 per element. */
template <class F> struct FfVec { static constexpr int V = F::N / 4; };

/* ------------------------------------------------------- batch kernels -- */

template <class F, int OP>
__global__ void ff_batch_kernel(uint4 *r, const uint4 *a, const uint4 *b, size_t n)
{
    constexpr int V = FfVec<F>::V;
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    uint32_t x[F::N], y[F::N], z[F::N];
    ff_load<F>(x, a + i * V);
    if (OP == CUZK_GPU_OP_MUL || OP == CUZK_GPU_OP_ADD || OP == CUZK_GPU_OP_SUB)
        ff_load<F>(y, b + i * V);
    switch (OP) {
    case CUZK_GPU_OP_MUL: ff_mul<F>(z, x, y); break;
    case CUZK_GPU_OP_SQR: ff_sqr<F>(z, x); break;
    case CUZK_GPU_OP_ADD: ff_add<F>(z, x, y); break;
    case CUZK_GPU_OP_SUB: ff_sub<F>(z, x, y); break;
    default:              ff_neg<F>(z, x); break;
    }
    ff_store<F>(r + i * V, z);
}

template <class F, int OP>
static cuzk_status launch_batch(cudaStream_t s, uint4 *r, const uint4 *a, const uint4 *b,
                                size_t n)
{
    const unsigned block = 128;
    unsigned grid = (unsigned)((n + block - 1) / block);
    ff_batch_kernel<F, OP><<<grid, block, 0, s>>>(r, a, b, n);
    CUZK_CUDA_TRY_LAUNCH();
    return CUZK_OK;
}

template <class F>
static cuzk_status batch(cuzk_gpu_ctx *ctx, cuzk_gpu_op op, void *r, const void *a,
                         const void *b, size_t n)
{
    constexpr size_t elem = F::N * 4;
    int needs_b = op == CUZK_GPU_OP_MUL || op == CUZK_GPU_OP_ADD || op == CUZK_GPU_OP_SUB;
    if (!ctx || !r || !a || (needs_b && !b) || (unsigned)op > CUZK_GPU_OP_NEG)
        return CUZK_ERR_INVALID_ARGUMENT;
    if (n == 0) return CUZK_OK;
    /* Three regions of `chunk` elements in the pool: a, b, r. */
    size_t chunk = ctx->pool_bytes / (3 * elem);
    chunk &= ~(size_t)63; /* keep regions 16-byte aligned (any multiple of 16 B) */
    if (chunk == 0) return CUZK_ERR_NO_MEMORY;
    uint4 *da = (uint4 *)ctx->pool;
    uint4 *db = da + chunk * FfVec<F>::V;
    uint4 *dr = db + chunk * FfVec<F>::V;
    CUZK_CUDA_TRY(cudaSetDevice(ctx->device));
    for (size_t off = 0; off < n; off += chunk) {
        size_t m = n - off < chunk ? n - off : chunk;
        CUZK_CUDA_TRY(cudaMemcpyAsync(da, (const char *)a + off * elem, m * elem,
                                      cudaMemcpyHostToDevice, ctx->stream));
        if (needs_b)
            CUZK_CUDA_TRY(cudaMemcpyAsync(db, (const char *)b + off * elem, m * elem,
                                          cudaMemcpyHostToDevice, ctx->stream));
        cuzk_status st;
        switch (op) {
        case CUZK_GPU_OP_MUL: st = launch_batch<F, CUZK_GPU_OP_MUL>(ctx->stream, dr, da, db, m); break;
        case CUZK_GPU_OP_SQR: st = launch_batch<F, CUZK_GPU_OP_SQR>(ctx->stream, dr, da, db, m); break;
        case CUZK_GPU_OP_ADD: st = launch_batch<F, CUZK_GPU_OP_ADD>(ctx->stream, dr, da, db, m); break;
        case CUZK_GPU_OP_SUB: st = launch_batch<F, CUZK_GPU_OP_SUB>(ctx->stream, dr, da, db, m); break;
        default:              st = launch_batch<F, CUZK_GPU_OP_NEG>(ctx->stream, dr, da, db, m); break;
        }
        if (st != CUZK_OK) return st;
        CUZK_CUDA_TRY(cudaMemcpyAsync((char *)r + off * elem, dr, m * elem,
                                      cudaMemcpyDeviceToHost, ctx->stream));
        CUZK_CUDA_TRY(cudaStreamSynchronize(ctx->stream));
    }
    return CUZK_OK;
}

extern "C" cuzk_status cuzk_gpu_fr_batch(cuzk_gpu_ctx *ctx, cuzk_gpu_op op, cuzk_fr *r,
                                         const cuzk_fr *a, const cuzk_fr *b, size_t n)
{
    return batch<FfFr>(ctx, op, r, a, b, n);
}

extern "C" cuzk_status cuzk_gpu_fp_batch(cuzk_gpu_ctx *ctx, cuzk_gpu_op op, cuzk_fp *r,
                                         const cuzk_fp *a, const cuzk_fp *b, size_t n)
{
    return batch<FfFp>(ctx, op, r, a, b, n);
}

/* -------------------------------------------------- throughput kernel -- */

/* Thread t keeps ILP elements x_k = a[t + k T] (T threads) in registers and
 * does `iters` dependent steps on each; the ILP chains are independent, so
 * their instructions can overlap. Results go to out. */
template <class F, int OP, int ILP, int VAR>
__global__ void ff_throughput_kernel(uint4 *out, const uint4 *a, const uint4 *b,
                                     size_t nthreads, unsigned iters)
{
    constexpr int V = FfVec<F>::V;
    size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= nthreads) return;
    uint32_t x[ILP][F::N], y[F::N];
#pragma unroll
    for (int k = 0; k < ILP; k++) ff_load<F>(x[k], a + (t + k * nthreads) * V);
    if (OP == CUZK_GPU_OP_MUL) ff_load<F>(y, b + t * V);
#pragma unroll 1
    for (unsigned it = 0; it < iters; it++) {
#pragma unroll
        for (int k = 0; k < ILP; k++) {
            if (OP == CUZK_GPU_OP_MUL && VAR == 0) ff_mul<F>(x[k], x[k], y);
            else if (OP == CUZK_GPU_OP_MUL)    ff_mul_sos<F>(x[k], x[k], y);
            else if (VAR == 0)                 ff_sqr<F>(x[k], x[k]);
            else                               ff_mul<F>(x[k], x[k], x[k]);
        }
    }
#pragma unroll
    for (int k = 0; k < ILP; k++) ff_store<F>(out + (t + k * nthreads) * V, x[k]);
}

template <class F, int OP, int ILP, int VAR>
static cuzk_status throughput(cuzk_gpu_ctx *ctx, const void *a, const void *b, size_t n,
                              unsigned iters, unsigned block, unsigned reps, float *ms,
                              void *out, cuzk_gpu_kernel_info *info)
{
    constexpr int V = FfVec<F>::V;
    constexpr size_t elem = F::N * 4;
    auto kernel = ff_throughput_kernel<F, OP, ILP, VAR>;
    if (info) {
        cudaFuncAttributes fa;
        CUZK_CUDA_TRY(cudaFuncGetAttributes(&fa, kernel));
        int bps = 0;
        CUZK_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&bps, kernel, (int)block, 0));
        info->regs = fa.numRegs;
        info->local_bytes = (int)fa.localSizeBytes;
        info->blocks_per_sm = bps;
        info->block = block;
        info->ilp = ILP;
        info->variant = VAR;
    }
    uint4 *da = (uint4 *)ctx->pool;
    uint4 *db = da + n * V;
    uint4 *dx = db + n * V;
    CUZK_CUDA_TRY(cudaMemcpyAsync(da, a, n * elem, cudaMemcpyHostToDevice, ctx->stream));
    if (OP == CUZK_GPU_OP_MUL)
        CUZK_CUDA_TRY(cudaMemcpyAsync(db, b, n * elem, cudaMemcpyHostToDevice, ctx->stream));
    size_t nthreads = n / ILP;
    unsigned grid = (unsigned)((nthreads + block - 1) / block);
    kernel<<<grid, block, 0, ctx->stream>>>(dx, da, db, nthreads, iters); /* warm-up */
    CUZK_CUDA_TRY_LAUNCH();
    for (unsigned k = 0; k < reps; k++) {
        CUZK_CUDA_TRY(cudaEventRecord(ctx->ev_start, ctx->stream));
        kernel<<<grid, block, 0, ctx->stream>>>(dx, da, db, nthreads, iters);
        CUZK_CUDA_TRY_LAUNCH();
        CUZK_CUDA_TRY(cudaEventRecord(ctx->ev_stop, ctx->stream));
        CUZK_CUDA_TRY(cudaEventSynchronize(ctx->ev_stop));
        CUZK_CUDA_TRY(cudaEventElapsedTime(&ms[k], ctx->ev_start, ctx->ev_stop));
    }
    if (out)
        CUZK_CUDA_TRY(cudaMemcpyAsync(out, dx, n * elem, cudaMemcpyDeviceToHost, ctx->stream));
    CUZK_CUDA_TRY(cudaStreamSynchronize(ctx->stream));
    return CUZK_OK;
}

template <class F, int OP, int VAR>
static cuzk_status throughput_ilp(cuzk_gpu_ctx *ctx, const void *a, const void *b, size_t n,
                                  unsigned iters, unsigned block, unsigned ilp, unsigned reps,
                                  float *ms, void *out, cuzk_gpu_kernel_info *info)
{
    if (ilp == 2) return throughput<F, OP, 2, VAR>(ctx, a, b, n, iters, block, reps, ms, out, info);
    return throughput<F, OP, 1, VAR>(ctx, a, b, n, iters, block, reps, ms, out, info);
}

/* Variants (cuzk_gpu_bench_cfg.variant): 0 the library's field and code;
 * 1 the library's field with the comparison code (SOS mul, sqr = mul);
 * 2, 3, 4 the library's code with the modulus constants as immediates, with
 * only M0 from constant memory, and all from constant memory (ff.cuh). */
template <template <int> class FT, class LIB, int OP>
static cuzk_status throughput_var(cuzk_gpu_ctx *ctx, const void *a, const void *b, size_t n,
                                  unsigned iters, unsigned block, unsigned ilp, unsigned var,
                                  unsigned reps, float *ms, void *out,
                                  cuzk_gpu_kernel_info *info)
{
    switch (var) {
    case 0: return throughput_ilp<LIB, OP, 0>(ctx, a, b, n, iters, block, ilp, reps, ms, out, info);
    case 1: return throughput_ilp<LIB, OP, 1>(ctx, a, b, n, iters, block, ilp, reps, ms, out, info);
    case 2: return throughput_ilp<FT<FF_CONST_IMM>, OP, 0>(ctx, a, b, n, iters, block, ilp, reps, ms, out, info);
    case 3: return throughput_ilp<FT<FF_CONST_M0>, OP, 0>(ctx, a, b, n, iters, block, ilp, reps, ms, out, info);
    default: return throughput_ilp<FT<FF_CONST_MEM>, OP, 0>(ctx, a, b, n, iters, block, ilp, reps, ms, out, info);
    }
}

extern "C" cuzk_status cuzk_gpu_ff_throughput(cuzk_gpu_ctx *ctx, cuzk_gpu_field field,
                                              cuzk_gpu_op op, const void *a, const void *b,
                                              size_t n, unsigned iters, cuzk_gpu_bench_cfg cfg,
                                              unsigned reps, float *ms, void *out,
                                              cuzk_gpu_kernel_info *info)
{
    unsigned block = cfg.block ? cfg.block : 256;
    unsigned ilp = cfg.ilp ? cfg.ilp : 1;
    if (!ctx || !a || !ms || n == 0 || reps == 0 || (op == CUZK_GPU_OP_MUL && !b))
        return CUZK_ERR_INVALID_ARGUMENT;
    if (op != CUZK_GPU_OP_MUL && op != CUZK_GPU_OP_SQR) return CUZK_ERR_INVALID_ARGUMENT;
    if (field != CUZK_GPU_FR && field != CUZK_GPU_FP) return CUZK_ERR_INVALID_ARGUMENT;
    if ((ilp != 1 && ilp != 2) || cfg.variant > 4 || n % ilp || block == 0 || block > 1024 ||
        block % 32)
        return CUZK_ERR_INVALID_ARGUMENT;
    size_t elem = field == CUZK_GPU_FR ? CUZK_FR_BYTES : CUZK_FP_BYTES;
    if (n > ctx->pool_bytes / (3 * elem)) return CUZK_ERR_NO_MEMORY;
    if ((n / ilp + block - 1) / block > 0x7fffffff) return CUZK_ERR_INVALID_ARGUMENT;
    CUZK_CUDA_TRY(cudaSetDevice(ctx->device));
    unsigned var = cfg.variant;
    if (field == CUZK_GPU_FR) {
        if (op == CUZK_GPU_OP_MUL)
            return throughput_var<FfFrT, FfFr, CUZK_GPU_OP_MUL>(ctx, a, b, n, iters, block, ilp, var, reps, ms, out, info);
        return throughput_var<FfFrT, FfFr, CUZK_GPU_OP_SQR>(ctx, a, b, n, iters, block, ilp, var, reps, ms, out, info);
    }
    if (op == CUZK_GPU_OP_MUL)
        return throughput_var<FfFpT, FfFp, CUZK_GPU_OP_MUL>(ctx, a, b, n, iters, block, ilp, var, reps, ms, out, info);
    return throughput_var<FfFpT, FfFp, CUZK_GPU_OP_SQR>(ctx, a, b, n, iters, block, ilp, var, reps, ms, out, info);
}
