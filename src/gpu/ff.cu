/* cuzk — field-arithmetic kernels and their C launchers (include/cuzk/gpu.h).
 * The arithmetic itself is in ff.cuh (integer pipe) and ff_fp64.cuh (FP64
 * pipe). */
#include <stdint.h>

#include "gpu/ff.cuh"
#include "gpu/ff_fp64.cuh"
#include "gpu/ff_kara.cuh"
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
    if (OP != CUZK_GPU_OP_SQR && OP != CUZK_GPU_OP_NEG && OP != CUZK_GPU_OP_SQR_FP64)
        ff_load<F>(y, b + i * V);
    switch (OP) {
    case CUZK_GPU_OP_MUL: ff_mul<F>(z, x, y); break;
    case CUZK_GPU_OP_MUL_FP64: ff64_mul<typename Ff64Of<F>::P>(z, x, y); break;
    case CUZK_GPU_OP_SQR_FP64: ff64_sqr<typename Ff64Of<F>::P>(z, x); break;
    case CUZK_GPU_OP_MUL_MIXED: /* for testing both in one kernel: lanes diverge */
        if (i & 1) ff64_mul<typename Ff64Of<F>::P>(z, x, y);
        else       ff_mul<F>(z, x, y);
        break;
    case CUZK_GPU_OP_SQR: ff_sqr<F>(z, x); break;
    case CUZK_GPU_OP_ADD: ff_add<F>(z, x, y); break;
    case CUZK_GPU_OP_SUB: ff_sub<F>(z, x, y); break;
    default:              ff_neg<F>(z, x); break;
    }
    ff_store<F>(r + i * V, z);
}

template <class F, int OP>
static cuzk_status launch_batch(cudaStream_t s, uint4 *r, const uint4 *a, const uint4 *b,
                                size_t n, char *err)
{
    const unsigned block = 128;
    unsigned grid = (unsigned)((n + block - 1) / block);
    ff_batch_kernel<F, OP><<<grid, block, 0, s>>>(r, a, b, n);
    CUZK_CUDA_TRY_LAUNCH(err);
    return CUZK_OK;
}

/* Chunk of the batch functions: 64 MiB per region at most (a quarter of
 * the pool at most). */
#define FF_BATCH_CHUNK_BYTES ((size_t)64 << 20)

template <class F>
static cuzk_status batch_chunks(cuzk_gpu_ctx *ctx, cuzk_gpu_op op, void *r, const void *a,
                                const void *b, size_t n, uint4 *da, size_t chunk, char *err);

template <class F>
static cuzk_status batch(cuzk_gpu_ctx *ctx, cuzk_gpu_op op, void *r, const void *a,
                         const void *b, size_t n, char *err)
{
    constexpr size_t elem = F::N * 4;
    gpu_err_clear(err);
    int needs_b = op != CUZK_GPU_OP_SQR && op != CUZK_GPU_OP_NEG && op != CUZK_GPU_OP_SQR_FP64;
    if (!ctx || !r || !a || (needs_b && !b) || (unsigned)op > CUZK_GPU_OP_SQR_FP64)
        return cuzk_gpu_errf(err, CUZK_ERR_INVALID_ARGUMENT, "field batch: bad argument");
    if (n == 0) return CUZK_OK;
    /* Three regions of `chunk` elements from the pool: a, b, r. */
    size_t cb = ctx->pool_bytes / 4 < FF_BATCH_CHUNK_BYTES ? ctx->pool_bytes / 4
                                                           : FF_BATCH_CHUNK_BYTES;
    size_t chunk = cb / elem & ~(size_t)63; /* regions stay 16-byte aligned */
    if (chunk > ((n + 63) & ~(size_t)63)) chunk = (n + 63) & ~(size_t)63;
    if (chunk == 0) return cuzk_gpu_errf(err, CUZK_ERR_NO_MEMORY, "field batch: pool too small");
    uint4 *da = NULL;
    cuzk_status st = gpu_pool_alloc(ctx, &da, 3 * chunk * elem, "field batch", err);
    if (st != CUZK_OK) return st;
    st = batch_chunks<F>(ctx, op, r, a, b, n, da, chunk, err);
    if (st != CUZK_OK) (void)cudaStreamSynchronize(ctx->streams[0]);
    gpu_pool_free(ctx, da);
    return st;
}

template <class F>
static cuzk_status batch_chunks(cuzk_gpu_ctx *ctx, cuzk_gpu_op op, void *r, const void *a,
                                const void *b, size_t n, uint4 *da, size_t chunk, char *err)
{
    constexpr size_t elem = F::N * 4;
    int needs_b = op != CUZK_GPU_OP_SQR && op != CUZK_GPU_OP_NEG && op != CUZK_GPU_OP_SQR_FP64;
    uint4 *db = da + chunk * FfVec<F>::V;
    uint4 *dr = db + chunk * FfVec<F>::V;
    cudaStream_t s = ctx->streams[0];
    CUZK_CUDA_TRY(err, cudaSetDevice(ctx->device));
    for (size_t off = 0; off < n; off += chunk) {
        size_t m = n - off < chunk ? n - off : chunk;
        CUZK_CUDA_TRY(err, cudaMemcpyAsync(da, (const char *)a + off * elem, m * elem,
                                           cudaMemcpyHostToDevice, s));
        if (needs_b)
            CUZK_CUDA_TRY(err, cudaMemcpyAsync(db, (const char *)b + off * elem, m * elem,
                                               cudaMemcpyHostToDevice, s));
        cuzk_status st;
        switch (op) {
        case CUZK_GPU_OP_MUL: st = launch_batch<F, CUZK_GPU_OP_MUL>(s, dr, da, db, m, err); break;
        case CUZK_GPU_OP_SQR: st = launch_batch<F, CUZK_GPU_OP_SQR>(s, dr, da, db, m, err); break;
        case CUZK_GPU_OP_ADD: st = launch_batch<F, CUZK_GPU_OP_ADD>(s, dr, da, db, m, err); break;
        case CUZK_GPU_OP_SUB: st = launch_batch<F, CUZK_GPU_OP_SUB>(s, dr, da, db, m, err); break;
        case CUZK_GPU_OP_MUL_FP64:
            st = launch_batch<F, CUZK_GPU_OP_MUL_FP64>(s, dr, da, db, m, err);
            break;
        case CUZK_GPU_OP_MUL_MIXED:
            st = launch_batch<F, CUZK_GPU_OP_MUL_MIXED>(s, dr, da, db, m, err);
            break;
        case CUZK_GPU_OP_SQR_FP64:
            st = launch_batch<F, CUZK_GPU_OP_SQR_FP64>(s, dr, da, db, m, err);
            break;
        default:              st = launch_batch<F, CUZK_GPU_OP_NEG>(s, dr, da, db, m, err); break;
        }
        if (st != CUZK_OK) return st;
        CUZK_CUDA_TRY(err, cudaMemcpyAsync((char *)r + off * elem, dr, m * elem,
                                           cudaMemcpyDeviceToHost, s));
        CUZK_CUDA_TRY(err, cudaStreamSynchronize(s));
    }
    return CUZK_OK;
}

extern "C" cuzk_status cuzk_gpu_fr_batch(cuzk_fr *r, cuzk_gpu_ctx *ctx, cuzk_gpu_op op,
                                         const cuzk_fr *a, const cuzk_fr *b, size_t n, char *err)
{
    return batch<FfFr>(ctx, op, r, a, b, n, err);
}

extern "C" cuzk_status cuzk_gpu_fp_batch(cuzk_fp *r, cuzk_gpu_ctx *ctx, cuzk_gpu_op op,
                                         const cuzk_fp *a, const cuzk_fp *b, size_t n, char *err)
{
    return batch<FfFp>(ctx, op, r, a, b, n, err);
}

/* -------------------------------------------------- throughput kernel -- */

/* Thread t keeps ILP elements x_k = a[t + k T] (T threads) in registers and
 * does `iters` dependent steps on each; the ILP chains are independent, so
 * their instructions can overlap. Results go to out. Variants 5-8 put the
 * first ff64_chains(VAR, ILP) chains on the FP64 pipe (ff64_mul, ff64_sqr)
 * and the others on the integer pipe (the library's
 * ff_mul / ff_sqr): one instruction stream with both kinds of work, so each
 * warp keeps both pipes fed. */
static __host__ __device__ constexpr int ff64_chains(int var, int ilp)
{
    return var == 5 || var == 9 ? ilp : var == 6 || var == 10 ? 1 : var == 7 ? 2 : var == 8 ? 1 : 0;
}

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
            if (VAR == 12 && OP == CUZK_GPU_OP_MUL) ff_mul_kara<F>(x[k], x[k], y);
            else if (VAR == 12) ff_sqr<F>(x[k], x[k]);
            else if (k < ff64_chains(VAR, ILP) && OP == CUZK_GPU_OP_MUL && VAR >= 9)
                ff64_mul_fc_or<typename Ff64Of<F>::P>(x[k], x[k], y);
            else if (k < ff64_chains(VAR, ILP) && OP == CUZK_GPU_OP_MUL)
                ff64_mul<typename Ff64Of<F>::P>(x[k], x[k], y);
            else if (k < ff64_chains(VAR, ILP)) ff64_sqr<typename Ff64Of<F>::P>(x[k], x[k]);
            else if (VAR >= 5 && OP == CUZK_GPU_OP_MUL) ff_mul<F>(x[k], x[k], y);
            else if (VAR >= 5)                 ff_sqr<F>(x[k], x[k]);
            else if (OP == CUZK_GPU_OP_MUL && VAR == 0) ff_mul<F>(x[k], x[k], y);
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
                              void *out, cuzk_gpu_kernel_info *info, uint4 *mem, char *err)
{
    constexpr int V = FfVec<F>::V;
    constexpr size_t elem = F::N * 4;
    auto kernel = ff_throughput_kernel<F, OP, ILP, VAR>;
    if (info) {
        cudaFuncAttributes fa;
        CUZK_CUDA_TRY(err, cudaFuncGetAttributes(&fa, kernel));
        int bps = 0;
        CUZK_CUDA_TRY(err, cudaOccupancyMaxActiveBlocksPerMultiprocessor(&bps, kernel, (int)block, 0));
        info->regs = fa.numRegs;
        info->local_bytes = (int)fa.localSizeBytes;
        info->blocks_per_sm = bps;
        info->block = block;
        info->ilp = ILP;
        info->variant = VAR;
    }
    uint4 *da = mem;
    uint4 *db = da + n * V;
    uint4 *dx = db + n * V;
    CUZK_CUDA_TRY(err, cudaMemcpyAsync(da, a, n * elem, cudaMemcpyHostToDevice, ctx->streams[0]));
    if (OP == CUZK_GPU_OP_MUL)
        CUZK_CUDA_TRY(err, cudaMemcpyAsync(db, b, n * elem, cudaMemcpyHostToDevice, ctx->streams[0]));
    size_t nthreads = n / ILP;
    unsigned grid = (unsigned)((nthreads + block - 1) / block);
    kernel<<<grid, block, 0, ctx->streams[0]>>>(dx, da, db, nthreads, iters); /* warm-up */
    CUZK_CUDA_TRY_LAUNCH(err);
    for (unsigned k = 0; k < reps; k++) {
        CUZK_CUDA_TRY(err, cudaEventRecord(ctx->ev_start, ctx->streams[0]));
        kernel<<<grid, block, 0, ctx->streams[0]>>>(dx, da, db, nthreads, iters);
        CUZK_CUDA_TRY_LAUNCH(err);
        CUZK_CUDA_TRY(err, cudaEventRecord(ctx->ev_stop, ctx->streams[0]));
        CUZK_CUDA_TRY(err, cudaEventSynchronize(ctx->ev_stop));
        CUZK_CUDA_TRY(err, cudaEventElapsedTime(&ms[k], ctx->ev_start, ctx->ev_stop));
    }
    if (out)
        CUZK_CUDA_TRY(err, cudaMemcpyAsync(out, dx, n * elem, cudaMemcpyDeviceToHost, ctx->streams[0]));
    CUZK_CUDA_TRY(err, cudaStreamSynchronize(ctx->streams[0]));
    return CUZK_OK;
}

template <class F, int OP, int VAR>
static cuzk_status throughput_ilp(cuzk_gpu_ctx *ctx, const void *a, const void *b, size_t n,
                                  unsigned iters, unsigned block, unsigned ilp, unsigned reps,
                                  float *ms, void *out, cuzk_gpu_kernel_info *info, uint4 *mem,
                                  char *err)
{
    if (ilp == 2) return throughput<F, OP, 2, VAR>(ctx, a, b, n, iters, block, reps, ms, out, info, mem, err);
    return throughput<F, OP, 1, VAR>(ctx, a, b, n, iters, block, reps, ms, out, info, mem, err);
}

/* Variants (cuzk_gpu_bench_cfg.variant): 0 the library's field and code;
 * 1 the library's field with the comparison code (SOS mul, sqr = mul);
 * 2, 3, 4 the library's code with the modulus constants as immediates, with
 * only M0 from constant memory, and all from constant memory (ff.cuh);
 * 5 the FP64 pipe (ff_fp64.cuh); 6, 7, 8 mixed, 1 + 1, 1 + 2, 2 + 1 integer
 * + FP64 chains per thread (ilp 2, 3, 3: checked by the caller); 9, 10 as 5
 * and 6 with Fp's column sums in doubles (ff64_mul_fc; Fr: as 5 and 6);
 * 11, 13 (Fr only) the steps that skip r0 = 1 (FF_CONST_MEM_P0ONE), and r1 =
 * 2^32 - 1 too (FF_CONST_MEM_P01); 12 mul with one Karatsuba level on the
 * product (ff_kara.cuh; sqr as 0). */
template <template <int> class FT, class LIB, int OP>
static cuzk_status throughput_var(cuzk_gpu_ctx *ctx, const void *a, const void *b, size_t n,
                                  unsigned iters, unsigned block, unsigned ilp, unsigned var,
                                  unsigned reps, float *ms, void *out,
                                  cuzk_gpu_kernel_info *info, uint4 *mem, char *err)
{
    switch (var) {
    case 0: return throughput_ilp<LIB, OP, 0>(ctx, a, b, n, iters, block, ilp, reps, ms, out, info, mem, err);
    case 1: return throughput_ilp<LIB, OP, 1>(ctx, a, b, n, iters, block, ilp, reps, ms, out, info, mem, err);
    case 2: return throughput_ilp<FT<FF_CONST_IMM>, OP, 0>(ctx, a, b, n, iters, block, ilp, reps, ms, out, info, mem, err);
    case 3: return throughput_ilp<FT<FF_CONST_M0>, OP, 0>(ctx, a, b, n, iters, block, ilp, reps, ms, out, info, mem, err);
    case 4: return throughput_ilp<FT<FF_CONST_MEM>, OP, 0>(ctx, a, b, n, iters, block, ilp, reps, ms, out, info, mem, err);
    case 5: return throughput_ilp<LIB, OP, 5>(ctx, a, b, n, iters, block, ilp, reps, ms, out, info, mem, err);
    case 6: return throughput<LIB, OP, 2, 6>(ctx, a, b, n, iters, block, reps, ms, out, info, mem, err);
    case 7: return throughput<LIB, OP, 3, 7>(ctx, a, b, n, iters, block, reps, ms, out, info, mem, err);
    case 8: return throughput<LIB, OP, 3, 8>(ctx, a, b, n, iters, block, reps, ms, out, info, mem, err);
    case 9: return throughput_ilp<LIB, OP, 9>(ctx, a, b, n, iters, block, ilp, reps, ms, out, info, mem, err);
    case 10: return throughput<LIB, OP, 2, 10>(ctx, a, b, n, iters, block, reps, ms, out, info, mem, err);
    case 11: return throughput_ilp<FT<FF_CONST_MEM_P0ONE>, OP, 0>(ctx, a, b, n, iters, block, ilp, reps, ms, out, info, mem, err);
    case 12: return throughput_ilp<LIB, OP, 12>(ctx, a, b, n, iters, block, ilp, reps, ms, out, info, mem, err);
    default: return throughput_ilp<FT<FF_CONST_MEM_P01>, OP, 0>(ctx, a, b, n, iters, block, ilp, reps, ms, out, info, mem, err);
    }
}

static cuzk_status throughput_field(cuzk_gpu_ctx *ctx, cuzk_gpu_field field, cuzk_gpu_op op,
                                    const void *a, const void *b, size_t n, unsigned iters,
                                    unsigned block, unsigned ilp, unsigned var, unsigned reps,
                                    float *ms, void *out, cuzk_gpu_kernel_info *info, uint4 *mem,
                                    char *err)
{
    if (field == CUZK_GPU_FR) {
        if (op == CUZK_GPU_OP_MUL)
            return throughput_var<FfFrT, FfFr, CUZK_GPU_OP_MUL>(ctx, a, b, n, iters, block, ilp, var, reps, ms, out, info, mem, err);
        return throughput_var<FfFrT, FfFr, CUZK_GPU_OP_SQR>(ctx, a, b, n, iters, block, ilp, var, reps, ms, out, info, mem, err);
    }
    if (op == CUZK_GPU_OP_MUL)
        return throughput_var<FfFpT, FfFp, CUZK_GPU_OP_MUL>(ctx, a, b, n, iters, block, ilp, var, reps, ms, out, info, mem, err);
    return throughput_var<FfFpT, FfFp, CUZK_GPU_OP_SQR>(ctx, a, b, n, iters, block, ilp, var, reps, ms, out, info, mem, err);
}

extern "C" cuzk_status cuzk_gpu_ff_throughput(cuzk_gpu_ctx *ctx, cuzk_gpu_field field,
                                              cuzk_gpu_op op, const void *a, const void *b,
                                              size_t n, unsigned iters, cuzk_gpu_bench_cfg cfg,
                                              unsigned reps, float *ms, void *out,
                                              cuzk_gpu_kernel_info *info, char *err)
{
    gpu_err_clear(err);
    unsigned block = cfg.block ? cfg.block : 256;
    /* variants 6-8 have a fixed number of chains per thread */
    unsigned fixed_ilp = cfg.variant == 6 || cfg.variant == 10 ? 2
                       : cfg.variant == 7 || cfg.variant == 8 ? 3 : 0;
    unsigned ilp = cfg.ilp ? cfg.ilp : fixed_ilp ? fixed_ilp : 1;
    if (!ctx || !a || !ms || n == 0 || reps == 0 || (op == CUZK_GPU_OP_MUL && !b) ||
        (op != CUZK_GPU_OP_MUL && op != CUZK_GPU_OP_SQR) ||
        (field != CUZK_GPU_FR && field != CUZK_GPU_FP) ||
        (fixed_ilp ? ilp != fixed_ilp : ilp != 1 && ilp != 2) ||
        cfg.variant > 13 || ((cfg.variant == 11 || cfg.variant == 13) && field != CUZK_GPU_FR) ||
        n % ilp || block == 0 || block > 1024 || block % 32)
        return cuzk_gpu_errf(err, CUZK_ERR_INVALID_ARGUMENT, "ff_throughput: bad argument");
    size_t elem = field == CUZK_GPU_FR ? CUZK_FR_BYTES : CUZK_FP_BYTES;
    if ((n / ilp + block - 1) / block > 0x7fffffff)
        return cuzk_gpu_errf(err, CUZK_ERR_INVALID_ARGUMENT, "ff_throughput: n too large");
    CUZK_CUDA_TRY(err, cudaSetDevice(ctx->device));
    uint4 *mem = NULL;
    cuzk_status st = gpu_pool_alloc(ctx, &mem, 3 * n * elem, "ff_throughput", err);
    if (st != CUZK_OK) return st;
    st = throughput_field(ctx, field, op, a, b, n, iters, block, ilp, cfg.variant, reps, ms, out,
                          info, mem, err);
    (void)cudaStreamSynchronize(ctx->streams[0]);
    gpu_pool_free(ctx, mem);
    return st;
}
