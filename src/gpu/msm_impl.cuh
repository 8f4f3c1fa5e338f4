/* cuzk — the G1/G2 MSM kernels and their launch sequences, as templates
 * over the group (internal). Included once by msm_g1.cu and once by
 * msm_g2.cu, so the two groups compile as separate units; each defines its
 * msm_group_ops (msm_plan.cuh) from MSM_GROUP_OPS. The stages' per-thread
 * work is in msm.cuh and msm_affine.cuh; the plan and the shared host code
 * in msm_plan.cuh and msm.cu. Kernels without a group parameter are static:
 * each unit has its own copy. */
#ifndef CUZK_GPU_MSM_IMPL_CUH
#define CUZK_GPU_MSM_IMPL_CUH

extern "C" {
#include <cuzk/ec.h>
#include <cuzk/ff.h>
#include <cuzk/msm.h>
}

#include <stdlib.h>
#include <string.h>

#include <cub/cub.cuh>

#include "gpu/msm_plan.cuh"
#include "gpu/msm_affine.cuh"

#define blocks_for msm_blocks_for

/* ------------------------------------------------------------- kernels -- */

/* Block sizes. Accumulation: 128 threads; the G1 kernel takes 164 registers
 * per thread (ptxas, sm_90, no spills), so 3 blocks (12 warps) fit an SM
 * (see msm_tune).
 * The reduction kernels take 255 registers with small spills (ec_add on two
 * XYZZ points in registers); not tuned. */
#define MSM_ACC_BLOCK 128
#define MSM_RED_BLOCK 128

/* inf[i] = 1 iff point i is (0, 0). */
template <class F>
__global__ void msm_inf_kernel(const uint4 *points, size_t n, uint8_t *inf)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    ec_aff<F> a;
    ec_load_aff<F>(a, points + i * ec_aff<F>::U4);
    inf[i] = ec_aff_is_inf<F>(a) ? 1 : 0;
}

/* Windows [w0, w1) of every scalar (msm_digits_of). */
static __global__ void msm_digits_kernel(msm_geom g, const uint4 *scalars, const uint8_t *inf,
                                  uint32_t n, unsigned w0, unsigned w1, uint32_t *keys,
                                  uint32_t *vals)
{
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    msm_digits_of(g, scalars[2 * (size_t)i], scalars[2 * (size_t)i + 1], inf[i] != 0, i, n, i, w0,
                  w1, keys, vals);
}

/* ZZ = 0 (infinity) in every bucket. */
template <class F>
__global__ void msm_clear_kernel(uint4 *buckets, size_t count)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= count) return;
    typename F::E z;
    F::set_zero(z);
    F::store(buckets + i * ec_xyzz<F>::U4 + 2 * F::U4, z);
}

/* Minimum resident blocks (of MSM_ACC_BLOCK threads) asked of ptxas, which
 * caps the registers at 65536 / (128 x blocks). Measured on the H200
 * (docs/perf.md, "GPU G1 MSM"): capping the G1 accumulation at 128
 * registers (4 blocks instead of 3) made it 1.6% slower at 2^26, and the
 * G1 bitmap sum 3% faster (16.19 -> 15.72 ms); G2 kernels keep their 255. */
template <class F>
struct msm_tune {
    static constexpr int acc_blocks = 1;  /* G1 accumulation: uncapped, 164 registers */
    static constexpr int bits_blocks = 4; /* G1 bitmap sum: 128 registers */
};
template <>
struct msm_tune<EcFp2> {
    static constexpr int acc_blocks = 1, bits_blocks = 1;
};

template <class F>
__global__ void __launch_bounds__(MSM_ACC_BLOCK, msm_tune<F>::acc_blocks)
    msm_accumulate_kernel(msm_acc_args a, size_t nchunks)
{
    size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= nchunks) return;
    msm_accumulate_thread<F>(a, t);
}

template <class F>
__global__ void msm_combine_kernel(msm_acc_args a, size_t nchunks)
{
    size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= nchunks) return;
    msm_combine_thread<F>(a, t);
}

template <class F>
__global__ void msm_reduce1_kernel(msm_geom g, const uint4 *buckets, uint4 *seg)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= (size_t)g.nwin * g.t1) return;
    msm_reduce1_thread<F>(g, buckets, seg, i);
}

template <class F>
__global__ void msm_reduce2_kernel(msm_geom g, const uint4 *in, uint4 *out, unsigned l,
                                   size_t nthreads)
{
    size_t j = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= nthreads) return;
    msm_reduce2_thread<F>(g, in, out, l, j);
}

template <class F>
__global__ void msm_reduce2_finish_kernel(msm_geom g, const uint4 *buf, uint4 *win)
{
    size_t w = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (w >= g.nwin) return;
    msm_reduce2_finish<F>(g, buf, win, w);
}

static __global__ void msm_live_kernel(const uint8_t *inf, size_t n, uint64_t *live, size_t nw)
{
    size_t w = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (w >= nw) return;
    msm_live_thread(inf, n, live, w);
}

template <bool TAB>
__global__ void msm_bits_count_kernel(const uint64_t *bits, const uint64_t *live, size_t n,
                                      uint32_t *cnt, size_t nw)
{
    size_t w = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (w >= nw) return;
    msm_bits_count_thread<TAB>(bits, live, n, cnt, w);
}

template <class F, bool TAB>
__global__ void __launch_bounds__(MSM_ACC_BLOCK, msm_tune<F>::bits_blocks)
    msm_bits_kernel(const uint64_t *bits, const uint64_t *live, size_t n, const uint32_t *cnt,
                    const uint32_t *off, size_t nw, const uint4 *src, uint4 *partial,
                    uint32_t K, size_t nthreads)
{
    size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= nthreads) return;
    msm_bits_thread<F, TAB>(bits, live, n, cnt, off, nw, src, partial, K, t);
}

template <class F>
__global__ void msm_subset_kernel(const uint4 *points, const uint8_t *inf, size_t n, uint4 *tab,
                                  size_t ngroups)
{
    size_t q = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (q >= ngroups) return;
    msm_subset_thread<F>(points, inf, n, tab, q);
}

/* A sparse MSM's rest, compacted: for each i < n whose scalar is not 0,
 * slot j = atomicAdd(count) gets cscal[j] = rest[i], cidx[j] = i, if
 * j < bound (a larger *count is reported by the finish, never summed
 * wrongly). Slots come in any order: the sum does not depend on it. One
 * atomic per warp. */
static __global__ void msm_compact_kernel(const uint4 *rest, size_t n, uint4 *cscal,
                                          uint32_t *cidx, uint32_t *count, uint32_t bound)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    uint4 a = make_uint4(0, 0, 0, 0), b = a;
    if (i < n) a = rest[2 * i], b = rest[2 * i + 1];
    bool nz = (a.x | a.y | a.z | a.w | b.x | b.y | b.z | b.w) != 0;
    unsigned mask = __ballot_sync(0xffffffffu, nz);
    if (!mask) return;
    unsigned lane = threadIdx.x & 31, leader = __ffs(mask) - 1;
    uint32_t base = 0;
    if (lane == leader) base = atomicAdd(count, (uint32_t)__popc(mask));
    base = __shfl_sync(0xffffffffu, base, leader);
    if (!nz) return;
    uint32_t j = base + (uint32_t)__popc(mask & ((1u << lane) - 1));
    if (j >= bound) return;
    cscal[2 * (size_t)j] = a;
    cscal[2 * (size_t)j + 1] = b;
    cidx[j] = (uint32_t)i;
}

/* Digits of the compacted rest, windows [w0, w1): slots j < min(*count,
 * nb) from cscal/cidx, the others (up to nb) sentinels. */
static __global__ void msm_digits_compact_kernel(msm_geom g, const uint4 *cscal,
                                                 const uint32_t *cidx, const uint32_t *count,
                                                 const uint8_t *inf, uint32_t nb, unsigned w0,
                                                 unsigned w1, uint32_t *keys, uint32_t *vals)
{
    uint32_t j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= nb) return;
    if (j >= *count) {
        for (unsigned w = w0; w < w1; w++) {
            keys[(size_t)(w - w0) * nb + j] = g.sentinel;
            vals[(size_t)(w - w0) * nb + j] = 0;
        }
        return;
    }
    uint32_t i = cidx[j];
    msm_digits_of(g, cscal[2 * (size_t)j], cscal[2 * (size_t)j + 1], inf[i] != 0, i, nb, j, w0,
                  w1, keys, vals);
}

static __global__ void msm_split_kernel(const uint4 *in, uint4 *rest, size_t n, uint64_t *ones, size_t nw)
{
    size_t w = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (w >= nw) return;
    msm_split_thread(in, rest, n, ones, w);
}

template <class F>
__global__ void msm_sum_kernel(const uint4 *in, size_t m, uint4 *out, size_t nthreads)
{
    size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= nthreads) return;
    msm_sum_thread<F>(in, m, out, t);
}

template <class F>
__global__ void msm_gen_kernel(ec_aff<F> base, ec_aff<F> step, size_t n, size_t off,
                               size_t nthreads, uint4 *points, uint4 *tmp)
{
    size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= nthreads) return;
    msm_gen_thread<F>(base, step, n, off, nthreads, points, tmp, t);
}

template <class F>
__global__ void msm_table_kernel(const uint4 *src, uint4 *dst, unsigned c, size_t n, size_t off,
                                 size_t nthreads, uint4 *tmp)
{
    size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= nthreads) return;
    msm_table_thread<F>(src, dst, c, n, off, nthreads, tmp, t);
}
/* ------------------------------------------ batch-affine accumulation --
 * Stage 3 (and 4) by affine additions sharing inversions (msm_affine.cuh),
 * on plans made with it (cuzk_gpu_msm_opts.acc, the default). */

/* Streams per thread and entries per stream. K: the inversion (~30-50 Fp
 * multiplications' worth) costs 1/K of it per addition, the thread's local
 * state is 3 K field elements (K <= 64: the stream masks are 64-bit).
 * Measured on the H200 (docs/perf.md, "GPU G1 MSM"): K = 64 against 32
 * made the accumulation 6.7% faster for G1 at 2^26 (306.4 -> 286.0 ms) and
 * 3.7% for G2 at 2^24. MSM_AFF_LEN: a bucket cut by a stream boundary costs
 * one mixed addition more (merge) and 2 affine pieces of memory per stream;
 * at 2^26 G1 points, c = 22, runs are ~32 entries long (not tuned). */
#ifndef MSM_AFF_K /* -DMSM_AFF_K=32 to compare */
#define MSM_AFF_K 64
#endif
#define MSM_AFF_BLOCK 128
static_assert(MSM_AFF_K <= MSM_AFF_K_MAX && MSM_AFF_BLOCK % 32 == 0,
              "step-major order: the padding (msm_plan.cuh) and whole warps");
/* The range pieces (2 XYZZ per thread) live in the plan's XYZZ pieces. */
static_assert(MSM_AFF_K * MSM_AFF_LEN >= MSM_CHUNK, "range pieces must fit the chunk pieces");

template <class F, bool SM> /* SM: the keys and values in step-major order */
__global__ void __launch_bounds__(MSM_AFF_BLOCK, msm_aff_field<F>::blocks)
    msm_aff_accumulate_kernel(msm_aff_args a, size_t nthreads)
{
    size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= nthreads) return;
    msm_aff_accumulate_thread<F, MSM_AFF_K, 0, SM>(a, t);
}

/* The same with the products of mask M (msm_aff_fp64_mask, M != 0) on the
 * FP64 pipe. ptxas (sm_90, CUDA 13.0; session 7, before G1's integer
 * products became calls, EC_FP_CALL), G1: 124 registers without FP64
 * products (4 blocks per SM); shares 1-2 164, shares 3-4 168 (the FP64
 * product's samples and column sums), so 3 blocks, no spills. Capped at 128
 * registers (-DMSM_AFF_FP64_BLOCKS=4: 4 blocks) they spill 96 (share 2) to
 * 160 (share 3) bytes; which is faster is for the H200 to say (docs/perf.md,
 * "FP64 share of the batch-affine accumulation"). A minimum of 1 block is
 * not the same as none: ptxas then takes 198-206 registers (2 blocks), so
 * without the define the bound names no minimum. G2: 255 registers with or
 * without, 104-300 bytes of spill stores (share 0: 96). */
#ifdef MSM_AFF_FP64_BLOCKS
#define MSM_AFF_FP64_BOUNDS __launch_bounds__(MSM_AFF_BLOCK, MSM_AFF_FP64_BLOCKS)
#else
#define MSM_AFF_FP64_BOUNDS __launch_bounds__(MSM_AFF_BLOCK)
#endif
template <class F, unsigned M>
__global__ void MSM_AFF_FP64_BOUNDS msm_aff_accumulate64_kernel(msm_aff_args a, size_t nthreads)
{
    size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= nthreads) return;
    msm_aff_accumulate_thread<F, MSM_AFF_K, M>(a, t);
}

/* Step-major copies of the sorted keys and values (msm_aff_step_major):
 * block (32, 8) moves a tile of 32 threads x 32 entries of warp blockIdx.x's
 * range through shared memory (msm_aff_step_major_load, _store). Grid
 * (warps, ceil(Q / 32)). */
static __global__ void msm_aff_step_major_kernel(const uint32_t *keys, const uint32_t *vals,
                                                 size_t m, uint32_t sentinel, uint32_t Q,
                                                 uint32_t *sk, uint32_t *sv)
{
    __shared__ uint32_t tk[32][33], tv[32][33]; /* 33: no bank conflicts either way */
    const uint32_t q0 = blockIdx.y * 32;
    msm_aff_step_major_load(keys, vals, m, sentinel, Q, blockIdx.x, q0, threadIdx.x, threadIdx.y,
                            tk, tv);
    __syncthreads();
    msm_aff_step_major_store(Q, blockIdx.x, q0, threadIdx.x, threadIdx.y, tk, tv, sk, sv);
}

template <class F>
__global__ void msm_aff_merge_kernel(msm_aff_args a, size_t nthreads)
{
    size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= nthreads) return;
    msm_aff_merge_thread<F>(a, t);
}

template <class F>
__global__ void msm_aff_combine_kernel(msm_aff_args a, size_t nthreads)
{
    size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= nthreads) return;
    msm_aff_combine_thread<F>(a, t);
}


/* ------------------------------------------------------- plan creation -- */

/* A precomputed plan's table T[1 .. nwin) from T[0] (the points): nwin - 1
 * steps of c doublings a point (msm_table_thread), each step one launch per
 * batch of points (the temporary, 3 field elements a point, lies in the
 * plan's scratch: 16 nwin n bytes or more, so G1 steps take 1 launch, G2
 * steps 1-2). Records its device time in table_ms.
 * Estimate (not yet measured) from the field rates of docs/perf.md (Fp mul
 * 26.4, sqr 32.5 G/s): a point step costs ~(c - 1) 9 + 32 Fp products (the
 * thread's inversion shared by MSM_TAB_K points), 8.5 ns of the chip at
 * c = 24, so 2^26 G1 points at c = 24 (10 steps) take 5.7 s at the field
 * kernels' rate, ~6-8 s in practice; 2^24 at c = 22 ~1.5-2 s; G2 ~2.7x
 * per point. */
template <class F>
static cuzk_status plan_table(cuzk_gpu_msm_plan *p, char *err)
{
    constexpr size_t A = ec_aff<F>::U4, E = F::U4 * sizeof(uint4);
    cudaStream_t s = gpu_setup_stream(p->ctx);
    cudaEvent_t *ev = p->ev[PH_MSM];
    size_t n = p->n;
    /* Threads per launch: every point of the batch needs its 3 E bytes. The
     * scratch holds the buckets, >= 128 XYZZ points, so at least one thread
     * of MSM_TAB_K points fits. */
    size_t nthreads = (n + MSM_TAB_K - 1) / MSM_TAB_K;
    size_t fit = p->scratch_bytes / (3 * E) / MSM_TAB_K;
    if (nthreads > fit) nthreads = fit;
    if (nthreads == 0) /* cannot happen: see above */
        return cuzk_gpu_errf(err, CUZK_ERR_NO_MEMORY, "msm plan: no scratch for the table");
    size_t batch = nthreads * MSM_TAB_K;
    CUZK_CUDA_TRY(err, cudaEventRecord(ev[EV_START], s));
    for (unsigned w = 1; w < p->g.nwin; w++) {
        const uint4 *src = p->points + (size_t)(w - 1) * n * A;
        uint4 *dst = p->points + (size_t)w * n * A;
        for (size_t off = 0; off < n; off += batch) {
            msm_table_kernel<F><<<blocks_for(nthreads, 128), 128, 0, s>>>(
                src, dst, p->g.c, n, off, nthreads, (uint4 *)p->scratch);
            CUZK_CUDA_TRY_LAUNCH(err);
        }
    }
    CUZK_CUDA_TRY(err, cudaEventRecord(ev[EV_REDUCE], s));
    CUZK_CUDA_TRY(err, cudaEventSynchronize(ev[EV_REDUCE]));
    CUZK_CUDA_TRY(err, cudaEventElapsedTime(&p->table_ms, ev[EV_START], ev[EV_REDUCE]));
    return CUZK_OK;
}

template <class F>
static cuzk_status plan_init(cuzk_gpu_msm_plan *p, char *err)
{
    cudaStream_t s = gpu_setup_stream(p->ctx);
    cudaEvent_t *ev = p->ev[PH_MSM];
    if (p->flags & CUZK_GPU_MSM_PRECOMPUTE) {
        cuzk_status st = plan_table<F>(p, err);
        if (st != CUZK_OK) return st;
    }
    size_t nw = (p->n + 63) / 64;
    msm_inf_kernel<F><<<blocks_for(p->n, 256), 256, 0, s>>>(p->points, p->n, p->inf);
    CUZK_CUDA_TRY_LAUNCH(err);
    msm_live_kernel<<<blocks_for(nw, 256), 256, 0, s>>>(p->inf, p->n, p->live, nw);
    CUZK_CUDA_TRY_LAUNCH(err);
    if (p->bits_tab) {
        size_t ng = (p->n + 3) / 4;
        float ms = 0;
        CUZK_CUDA_TRY(err, cudaEventRecord(ev[EV_START], s));
        msm_subset_kernel<F><<<blocks_for(ng, 128), 128, 0, s>>>(p->points, p->inf, p->n,
                                                                   p->bits_tab, ng);
        CUZK_CUDA_TRY_LAUNCH(err);
        CUZK_CUDA_TRY(err, cudaEventRecord(ev[EV_REDUCE], s));
        CUZK_CUDA_TRY(err, cudaEventSynchronize(ev[EV_REDUCE]));
        CUZK_CUDA_TRY(err, cudaEventElapsedTime(&ms, ev[EV_START], ev[EV_REDUCE]));
        p->table_ms += ms;
    }
    CUZK_CUDA_TRY(err, cudaStreamSynchronize(s));
    return CUZK_OK;
}

/* Points per generation batch at most: bounds the launch. The temporary (3
 * field elements a point) lies in the plan's scratch, as for plan_table. */
#define MSM_GEN_BATCH ((size_t)1 << 22)

template <class F>
static cuzk_status plan_gen(cuzk_gpu_msm_plan *p, const void *base, const void *step, char *err)
{
    constexpr size_t E = F::U4 * sizeof(uint4);
    cudaStream_t s = gpu_setup_stream(p->ctx);
    ec_aff<F> b, st;
    memcpy(&b, base, sizeof b);
    memcpy(&st, step, sizeof st);
    size_t n = p->n;
    size_t batch = n < MSM_GEN_BATCH ? n : MSM_GEN_BATCH;
    size_t nthreads = (batch + MSM_GEN_K - 1) / MSM_GEN_K;
    size_t fit = p->scratch_bytes / (3 * E) / MSM_GEN_K;
    if (nthreads > fit) nthreads = fit;
    if (nthreads == 0) return cuzk_gpu_errf(err, CUZK_ERR_NO_MEMORY, "msm plan: no scratch");
    batch = nthreads * MSM_GEN_K;
    for (size_t off = 0; off < n; off += batch) {
        msm_gen_kernel<F><<<blocks_for(nthreads, 128), 128, 0, s>>>(b, st, n, off, nthreads,
                                                                    p->points,
                                                                    (uint4 *)p->scratch);
        CUZK_CUDA_TRY_LAUNCH(err);
    }
    return CUZK_OK;
}

/* ----------------------------------------------------------------- MSM -- */

/* Host arrays are copied to the plan's staging buffer on s (pinned memory
 * copies at full PCIe speed); device arrays are used in place. *src becomes
 * the pointer to read. */
static cuzk_status stage_input(cuzk_gpu_msm_plan *p, cudaStream_t s, const void **src,
                               size_t bytes, char *err)
{
    cudaPointerAttributes pa;
    CUZK_CUDA_TRY(err, cudaPointerGetAttributes(&pa, *src));
    if (pa.type != cudaMemoryTypeDevice && pa.type != cudaMemoryTypeManaged) {
        CUZK_CUDA_TRY(err, cudaMemcpyAsync(p->scalars, *src, bytes, cudaMemcpyHostToDevice, s));
        *src = p->scalars;
    }
    return CUZK_OK;
}


/* The shape of a call of m entries: entries per stream, MSM_AFF_LEN,
 * halved while the call's threads (m / (K len)) would not fill the device
 * once at MSM_AFF_FILL threads per SM (msm_plan.cuh); then, at one entry a
 * stream, streams per thread K, MSM_AFF_K, halved likewise down to
 * MSM_AFF_K_MIN. A short call, e.g. a sparse MSM's compacted rest (21 M
 * entries at full size: 82 blocks of 128 threads at len 32, on 82 of the
 * H200's 132 SMs; 122 k at 2^20: one block, 17 ms), otherwise runs 2048
 * entries a thread on a few SMs. Shorter streams cut more runs into
 * pieces (the merge's mixed additions), which such calls' short runs
 * hardly have. At one entry a stream there are no affine additions left:
 * every entry is a piece, and the merge's serial chain of 2 K pieces a
 * thread is the time (0.70 ms for each G1 sparse rest at 2^20 and 2.19
 * for G2's on 30 blocks, session 13's trace, against 0.14 and 0.21 for the
 * accumulation), so fewer streams a thread there give shorter chains on
 * more threads, but only for calls that would fill less than
 * 1/MSM_AFF_SHORT of the device at MSM_AFF_K streams. Never more streams
 * than the plan holds pieces for (msm_aff_streams_held), nor more threads
 * than it holds 2 XYZZ range pieces for (one per MSM_CHUNK entries).
 * MSM_AFF_SHORT, measured in the prover (H200, session 13):
 * at 2^20 the sparse rests (3.8 k threads at K = 64) went to K = 4, and a
 * proof 18.33 -> 16.37 ms (B2's stream was the longest); at 2^24 (49 k
 * threads, K = 32) the sparse MSMs took SMs from H's accumulation, the
 * proof's critical path, and a proof went 148.91 -> 149.91 ms, so calls
 * that fill a quarter of the device keep K. */
#define MSM_AFF_K_MIN 4u
#define MSM_AFF_SHORT 4u

static size_t msm_aff_threads(size_t m, uint32_t k, uint32_t len)
{
    return (m + (size_t)k * len - 1) / ((size_t)k * len);
}

/* Threads that fill the device once (MSM_AFF_FILL a SM). */
static size_t msm_fill_threads(const cuzk_gpu_msm_plan *p)
{
    return (size_t)(p->ctx->sm_count > 0 ? p->ctx->sm_count : 1) * MSM_AFF_FILL;
}

static void msm_aff_shape(const cuzk_gpu_msm_plan *p, size_t m, uint32_t *len_out,
                          uint32_t *k_out)
{
    const size_t want = msm_fill_threads(p);
    uint32_t len = MSM_AFF_LEN, k = MSM_AFF_K;
    while (len > 1 && msm_aff_threads(m, k, len) < want) {
        uint32_t h = len / 2;
        if ((m + h - 1) / h > p->aff_streams_max || msm_aff_threads(m, k, h) > p->nchunks_max)
            break;
        len = h;
    }
    if (len == 1 && msm_aff_threads(m, k, 1) * MSM_AFF_SHORT < want)
        while (k > MSM_AFF_K_MIN && msm_aff_threads(m, k, 1) < want &&
               msm_aff_threads(m, k / 2, 1) <= p->nchunks_max)
            k /= 2;
    *len_out = len;
    *k_out = k;
}

template <class F>
static cuzk_status msm_aff_accumulate(cuzk_gpu_msm_plan *p, cudaStream_t s, const msm_acc_args &x,
                                      char *err)
{
    msm_aff_args a;
    a.keys = x.keys;
    a.vals = x.vals;
    a.m = x.m;
    a.sentinel = x.sentinel;
    msm_aff_shape(p, x.m, &a.len, &a.streams);
    a.points = x.points;
    a.buckets = x.buckets;
    a.pieces = p->aff_pieces;
    a.tpieces = x.pieces;
    size_t nthreads = msm_aff_threads(x.m, a.streams, a.len);
    unsigned nb = blocks_for(nthreads, MSM_AFF_BLOCK);
    /* The FP64 share: a kernel per share (0 on XYZZ plans, which do not
     * come here); step-major order with share 0 only. */
    unsigned share = 0;
    if constexpr (msm_aff_field<F>::fp64) share = p->fp64_share;
    a.skeys = a.svals = NULL;
    /* The copies' slots: whole warps of Q entries, warps 32 Q < m + 32 Q <=
     * m + MSM_AFF_STEP_PAD (Q <= MSM_AFF_K MSM_AFF_LEN), what the spare
     * buffers hold. */
    const size_t Q = (size_t)a.streams * a.len, warps = (nthreads + 31) / 32;
    if (x.spare_keys && share == 0) {
        msm_aff_step_major_kernel<<<dim3((unsigned)warps, (unsigned)((Q + 31) / 32)), dim3(32, 8),
                                    0, s>>>(x.keys, x.vals, x.m, x.sentinel, (uint32_t)Q,
                                            x.spare_keys, x.spare_vals);
        CUZK_CUDA_TRY_LAUNCH(err);
        a.skeys = x.spare_keys;
        a.svals = x.spare_vals;
    }
    switch (share) {
    case 0:
        if (a.skeys)
            msm_aff_accumulate_kernel<F, true><<<nb, MSM_AFF_BLOCK, 0, s>>>(a, nthreads);
        else
            msm_aff_accumulate_kernel<F, false><<<nb, MSM_AFF_BLOCK, 0, s>>>(a, nthreads);
        break;
#define MSM_AFF_FP64_CASE(k)                                                                  \
    case k:                                                                                   \
        if constexpr (msm_aff_field<F>::fp64)                                                 \
            msm_aff_accumulate64_kernel<F, msm_aff_fp64_mask(k)><<<nb, MSM_AFF_BLOCK, 0, s>>>( \
                a, nthreads);                                                                 \
        break;
    MSM_AFF_FP64_CASE(1)
    MSM_AFF_FP64_CASE(2)
    MSM_AFF_FP64_CASE(3)
    MSM_AFF_FP64_CASE(4)
#undef MSM_AFF_FP64_CASE
    default:
        return cuzk_gpu_errf(err, CUZK_ERR_INVALID_ARGUMENT, "msm: fp64 share %u", share);
    }
    static_assert(CUZK_GPU_MSM_FP64_MAX == 4, "a kernel for every share");
    CUZK_CUDA_TRY_LAUNCH(err);
    msm_aff_merge_kernel<F><<<nb, MSM_AFF_BLOCK, 0, s>>>(a, nthreads);
    CUZK_CUDA_TRY_LAUNCH(err);
    msm_aff_combine_kernel<F><<<nb, MSM_AFF_BLOCK, 0, s>>>(a, nthreads);
    CUZK_CUDA_TRY_LAUNCH(err);
    return CUZK_OK;
}

/* Enqueues the device stages of an MSM on s; the window sums end up in
 * p->win_host (a precomputed plan: the virtual windows' S_v, then their
 * U_v) once the stream gets there. */
template <class F>
static cuzk_status msm_run(cuzk_gpu_msm_plan *p, cudaStream_t s, const void *src, size_t n,
                           char *err)
{
    const msm_geom &g = p->cg, &rg = p->crg; /* the call's windows (call_geometry) */
    cudaEvent_t *ev = p->ev[PH_MSM];
    CUZK_CUDA_TRY(err, cudaEventRecord(ev[EV_START], s));
    cuzk_status st = stage_input(p, s, &src, n * sizeof(cuzk_scalar), err);
    if (st != CUZK_OK) return st;
    CUZK_CUDA_TRY(err, cudaEventRecord(ev[EV_UPLOAD], s));

    /* The windows in batches of p->win_batch (all at once unless the plan
     * was made with window_batches): each batch's digits, sort and
     * accumulation; a plain plan's windows have buckets of their own, so
     * the batches never meet in a bucket. A compacted sparse call's rest is
     * compacted once, into keys[0] beyond any batch's entries. The events
     * time the first batch's digits and sort, and every accumulation. */
    const unsigned wb = p->call_wb;
    size_t nrow = n; /* entries per window */
    uint4 *cscal = NULL;
    uint32_t *cidx = NULL;
    if (p->call_compact) {
        nrow = p->call_bound;
        cscal = (uint4 *)((char *)p->keys[0] + msm_align256((size_t)wb * nrow * 4));
        cidx = (uint32_t *)((char *)cscal + msm_align256(nrow * 32));
        CUZK_CUDA_TRY(err, cudaMemsetAsync(p->counter, 0, sizeof(uint32_t), s));
        msm_compact_kernel<<<blocks_for(n, 256), 256, 0, s>>>((const uint4 *)src, n, cscal, cidx,
                                                              p->counter, (uint32_t)nrow);
        CUZK_CUDA_TRY_LAUNCH(err);
        CUZK_CUDA_TRY(err, cudaMemcpyAsync(p->count_host, p->counter, sizeof(uint32_t),
                                           cudaMemcpyDeviceToHost, s));
    }
    size_t nbuckets = (size_t)rg.nwin * rg.nb;
    msm_clear_kernel<F><<<blocks_for(nbuckets, 256), 256, 0, s>>>(p->buckets, nbuckets);
    CUZK_CUDA_TRY_LAUNCH(err);
    for (unsigned w0 = 0; w0 < g.nwin; w0 += wb) {
        unsigned w1 = w0 + wb < g.nwin ? w0 + wb : g.nwin;
        size_t m = (size_t)(w1 - w0) * nrow;
        if (cscal)
            msm_digits_compact_kernel<<<blocks_for(nrow, 256), 256, 0, s>>>(
                g, cscal, cidx, p->counter, p->inf, (uint32_t)nrow, w0, w1, p->keys[0],
                p->vals[0]);
        else
            msm_digits_kernel<<<blocks_for(n, 256), 256, 0, s>>>(
                g, (const uint4 *)src, p->inf, (uint32_t)n, w0, w1, p->keys[0], p->vals[0]);
        CUZK_CUDA_TRY_LAUNCH(err);
        if (w0 == 0) CUZK_CUDA_TRY(err, cudaEventRecord(ev[EV_DIGITS], s));

        cub::DoubleBuffer<uint32_t> dk(p->keys[0], p->keys[1]), dv(p->vals[0], p->vals[1]);
        size_t tmp_bytes = p->sort_tmp_bytes;
        CUZK_CUDA_TRY(err, cub::DeviceRadixSort::SortPairs(p->sort_tmp, tmp_bytes, dk, dv,
                                                           (uint32_t)m, 0, (int)g.keybits, s));
        CUZK_CUDA_TRY_LAUNCH(err);
        if (w0 == 0) CUZK_CUDA_TRY(err, cudaEventRecord(ev[EV_SORT], s));

        msm_acc_args a;
        a.keys = dk.Current();
        a.vals = dv.Current();
        a.m = m;
        a.sentinel = g.sentinel;
        a.points = p->points;
        a.buckets = p->buckets;
        a.pieces = p->pieces;
        /* The sort's other buffers are free now, but for a compacted call's
         * scalars, which lie in keys[0] right after its entries. */
        const bool sm = p->aff_step_major && !cscal;
        a.spare_keys = sm ? dk.Alternate() : NULL;
        a.spare_vals = sm ? dv.Alternate() : NULL;
        size_t nchunks = (m + MSM_CHUNK - 1) / MSM_CHUNK;
        if (p->acc == CUZK_GPU_MSM_BATCH_AFFINE) {
            /* The batch-affine variant (msm_affine.cuh); same input and output. */
            if ((st = msm_aff_accumulate<F>(p, s, a, err)) != CUZK_OK) return st;
        } else {
            msm_accumulate_kernel<F><<<blocks_for(nchunks, MSM_ACC_BLOCK), MSM_ACC_BLOCK, 0, s>>>(
                a, nchunks);
            CUZK_CUDA_TRY_LAUNCH(err);
            msm_combine_kernel<F><<<blocks_for(nchunks, MSM_RED_BLOCK), MSM_RED_BLOCK, 0, s>>>(
                a, nchunks);
            CUZK_CUDA_TRY_LAUNCH(err);
        }
    }
    CUZK_CUDA_TRY(err, cudaEventRecord(ev[EV_ACC], s));

    size_t nseg = (size_t)rg.nwin * rg.t1;
    msm_reduce1_kernel<F><<<blocks_for(nseg, MSM_RED_BLOCK), MSM_RED_BLOCK, 0, s>>>(rg, p->buckets,
                                                                                    p->seg);
    CUZK_CUDA_TRY_LAUNCH(err);
    uint4 *in = p->seg, *out = p->tree;
    for (unsigned l = 0; l < rg.lg_t1; l++) {
        size_t nt = msm_reduce2_threads(rg, l);
        msm_reduce2_kernel<F><<<blocks_for(nt, MSM_RED_BLOCK), MSM_RED_BLOCK, 0, s>>>(rg, in, out,
                                                                                    l, nt);
        CUZK_CUDA_TRY_LAUNCH(err);
        uint4 *t = in;
        in = out;
        out = t;
    }
    msm_reduce2_finish_kernel<F><<<blocks_for(rg.nwin, MSM_RED_BLOCK), MSM_RED_BLOCK, 0, s>>>(
        rg, in, p->win);
    CUZK_CUDA_TRY_LAUNCH(err);
    CUZK_CUDA_TRY(err, cudaEventRecord(ev[EV_REDUCE], s));
    /* The window sums, and a precomputed plan's U_v after them. */
    size_t nw = msm_geom_pre(g) ? 2 * (size_t)rg.nwin : rg.nwin;
    CUZK_CUDA_TRY(err, cudaMemcpyAsync(p->win_host, p->win, nw * p->xyzz_bytes,
                                       cudaMemcpyDeviceToHost, s));
    return CUZK_OK;
}

/* The host side of each group, for the last steps of a call on the host. */
struct HostG1 {
    typedef EcFp F;
    typedef cuzk_g1_jac jac;
    typedef cuzk_g1_xyzz xyzz;
    static void inf(jac *r) { cuzk_g1_jac_set_inf(r); }
    static void dbl(jac *r) { cuzk_g1_dbl(r, r); }
    static void add(jac *r, const jac *a) { cuzk_g1_add(r, r, a); }
    static void x_inf(xyzz *r) { cuzk_g1_xyzz_set_inf(r); }
    static void x_dbl(xyzz *r) { cuzk_g1_xyzz_dbl(r, r); }
    static void x_add(xyzz *r, const xyzz *a) { cuzk_g1_xyzz_add(r, r, a); }
    static void x_jac(jac *r, const xyzz *a) { cuzk_g1_xyzz_to_jac(r, a); }
};

struct HostG2 {
    typedef EcFp2 F;
    typedef cuzk_g2_jac jac;
    typedef cuzk_g2_xyzz xyzz;
    static void inf(jac *r) { cuzk_g2_jac_set_inf(r); }
    static void dbl(jac *r) { cuzk_g2_dbl(r, r); }
    static void add(jac *r, const jac *a) { cuzk_g2_add(r, r, a); }
    static void x_inf(xyzz *r) { cuzk_g2_xyzz_set_inf(r); }
    static void x_dbl(xyzz *r) { cuzk_g2_xyzz_dbl(r, r); }
    static void x_add(xyzz *r, const xyzz *a) { cuzk_g2_xyzz_add(r, r, a); }
    static void x_jac(jac *r, const xyzz *a) { cuzk_g2_xyzz_to_jac(r, a); }
};

/* The host's last step of an MSM on the plan: its window sums into *r.
 * A precomputed plan's V virtual windows of nbv buckets give
 * sum_v S_v + nbv sum_v v U_v, the last sum by running sums from the top
 * (2 V additions), then lg nbv doublings; a plain plan's windows, top
 * first, acc = 2^c acc + S_w (c Jacobian doublings each). */
template <class H>
static void msm_result(const cuzk_gpu_msm_plan *p, typename H::jac *r)
{
    const typename H::xyzz *sv = (const typename H::xyzz *)p->win_host;
    const msm_geom &rg = p->crg; /* the call's windows */
    if (msm_geom_pre(p->cg)) {
        const typename H::xyzz *uv = sv + rg.nwin;
        typename H::xyzz acc, run, tot;
        H::x_inf(&acc);
        H::x_inf(&run);
        H::x_inf(&tot);
        for (unsigned v = rg.nwin; v-- > 1;) {
            H::x_add(&run, &uv[v]);
            H::x_add(&tot, &run);
        }
        for (unsigned i = 0; i + 1 < rg.c; i++) H::x_dbl(&tot);
        for (unsigned v = 0; v < rg.nwin; v++) H::x_add(&acc, &sv[v]);
        H::x_add(&acc, &tot);
        H::x_jac(r, &acc);
        return;
    }
    typename H::jac acc, t;
    H::inf(&acc);
    for (unsigned w = p->cg.nwin; w-- > 0;) {
        if (w + 1 < p->cg.nwin)
            for (unsigned i = 0; i < p->cg.c; i++) H::dbl(&acc);
        H::x_jac(&t, &sv[w]);
        H::add(&acc, &t);
    }
    *r = acc;
}

/* ------------------------------------------------------------ bitmaps -- */

/* Bits a thread of a bitmap sum over `most` usable bits: MSM_BITS_PER_THREAD,
 * halved (to MSM_BITS_PER_THREAD_MIN) while the threads would not fill the
 * device once (msm_fill_threads) and their partials, with the fold's first
 * level (1/MSM_SUM_FAN as many), fit in the pieces. A thread's mixed
 * additions are one dependent chain, so a short sum on few threads takes
 * the chain's latency: session 11's trace at 2^20 gave 1.4 ms (G1) and
 * 4.2 ms (G2) for sums on 4-15 blocks. */
static uint32_t msm_bits_len(const cuzk_gpu_msm_plan *p, size_t most)
{
    size_t fill = msm_fill_threads(p);
    uint32_t K = MSM_BITS_PER_THREAD;
    while (K > MSM_BITS_PER_THREAD_MIN && (most + K - 1) / K < fill) {
        size_t m = (most + K / 2 - 1) / (K / 2);
        if (m + (m + MSM_SUM_FAN - 1) / MSM_SUM_FAN > 2 * p->nchunks_max) break;
        K /= 2;
    }
    return K;
}

/* Enqueues the device levels of a bitmap sum on s; p->part_m partials end
 * up in p->part_host once the stream gets there. */
template <class F>
static cuzk_status bits_run(cuzk_gpu_msm_plan *p, cudaStream_t s, const void *src, size_t n,
                            char *err)
{
    cudaEvent_t *ev = p->ev[PH_BITS];
    CUZK_CUDA_TRY(err, cudaEventRecord(ev[EV_START], s));
    cuzk_status st = stage_input(p, s, &src, (n + 63) / 64 * 8, err);
    if (st != CUZK_OK) return st;
    CUZK_CUDA_TRY(err, cudaEventRecord(ev[EV_UPLOAD], s));

    /* Counts into keys[0], offsets into keys[1] (free outside an MSM); the
     * partials into pieces, and each later level folds MSM_SUM_FAN of them
     * into the other end of the same array (the pieces hold
     * 2 nchunks_max >= 2 nwin n / 256 points, more than the n / 128
     * partials plus their sums). */
    constexpr int X = ec_xyzz<F>::U4;
    size_t nw = (n + 63) / 64;
    const uint64_t *bm = (const uint64_t *)src;
    if (p->bits_tab)
        msm_bits_count_kernel<true><<<blocks_for(nw, 256), 256, 0, s>>>(bm, p->live, n,
                                                                        p->keys[0], nw);
    else
        msm_bits_count_kernel<false><<<blocks_for(nw, 256), 256, 0, s>>>(bm, p->live, n,
                                                                         p->keys[0], nw);
    CUZK_CUDA_TRY_LAUNCH(err);
    size_t tmp_bytes = p->sort_tmp_bytes;
    CUZK_CUDA_TRY(err, cub::DeviceScan::ExclusiveSum(p->sort_tmp, tmp_bytes, p->keys[0],
                                                     p->keys[1], (int)nw, s));
    CUZK_CUDA_TRY(err, cudaEventRecord(ev[EV_SORT], s));
    /* Threads for the most usable bits (or non-zero nibbles) there can be. */
    size_t most = p->bits_tab ? (n + 3) / 4 : n;
    uint32_t K = msm_bits_len(p, most);
    size_t m = (most + K - 1) / K;
    if (p->bits_tab)
        msm_bits_kernel<F, true><<<blocks_for(m, MSM_ACC_BLOCK), MSM_ACC_BLOCK, 0, s>>>(
            bm, p->live, n, p->keys[0], p->keys[1], nw, p->bits_tab, p->pieces, K, m);
    else
        msm_bits_kernel<F, false><<<blocks_for(m, MSM_ACC_BLOCK), MSM_ACC_BLOCK, 0, s>>>(
            bm, p->live, n, p->keys[0], p->keys[1], nw, p->points, p->pieces, K, m);
    CUZK_CUDA_TRY_LAUNCH(err);
    CUZK_CUDA_TRY(err, cudaEventRecord(ev[EV_ACC], s));
    uint4 *in = p->pieces, *out = p->pieces + m * X;
    while (m > MSM_HOST_SUMS) {
        size_t next = (m + MSM_SUM_FAN - 1) / MSM_SUM_FAN;
        msm_sum_kernel<F><<<blocks_for(next, MSM_RED_BLOCK), MSM_RED_BLOCK, 0, s>>>(in, m, out, next);
        CUZK_CUDA_TRY_LAUNCH(err);
        uint4 *t = in;
        in = out;
        out = t;
        m = next;
    }
    CUZK_CUDA_TRY(err, cudaEventRecord(ev[EV_REDUCE], s));
    CUZK_CUDA_TRY(err, cudaMemcpyAsync(p->part_host, in, m * p->xyzz_bytes,
                                       cudaMemcpyDeviceToHost, s));
    p->part_m = m;
    return CUZK_OK;
}

/* The host's last step of a bitmap sum: its partials into *r. */
template <class H>
static void bits_result(const cuzk_gpu_msm_plan *p, typename H::jac *r)
{
    const typename H::xyzz *part = (const typename H::xyzz *)p->part_host;
    typename H::xyzz acc;
    H::x_inf(&acc);
    for (size_t i = 0; i < p->part_m; i++) H::x_add(&acc, &part[i]);
    H::x_jac(r, &acc);
}

/* ------------------------------------------------------ sparse vectors -- */

/* Stages a sparse MSM's scalars and splits them (msm_split_thread): the
 * ones' bitmap into vals[1] (free until the sort; n / 8 bytes <= its
 * 4 nwin n), the rest into the staging buffer (in place for host input). */
static cuzk_status sparse_split(cuzk_gpu_msm_plan *p, cudaStream_t s, const void *src, size_t n,
                                char *err)
{
    cudaEvent_t *ev = p->ev[PH_SPLIT];
    CUZK_CUDA_TRY(err, cudaEventRecord(ev[EV_START], s));
    cuzk_status st = stage_input(p, s, &src, n * sizeof(cuzk_scalar), err);
    if (st != CUZK_OK) return st;
    CUZK_CUDA_TRY(err, cudaEventRecord(ev[EV_UPLOAD], s));
    size_t nw = (n + 63) / 64;
    msm_split_kernel<<<blocks_for(nw, 128), 128, 0, s>>>((const uint4 *)src, p->scalars, n,
                                                         (uint64_t *)p->vals[1], nw);
    CUZK_CUDA_TRY_LAUNCH(err);
    CUZK_CUDA_TRY(err, cudaEventRecord(ev[EV_DIGITS], s));
    return CUZK_OK;
}

/* -------------------------------------------------------- the group ops -- */

/* Everything of the call p->call on s, in stream order: a sparse MSM is the
 * split, then the ones' bitmap sum (reading vals[1] before the MSM's sort
 * overwrites it), then the MSM over the rest; ev_done after the copies. */
template <class F>
static cuzk_status msm_enqueue(cuzk_gpu_msm_plan *p, cudaStream_t s, const void *in, size_t n,
                               char *err)
{
    cuzk_status st = CUZK_OK;
    switch (p->call) {
    case CALL_MSM:
        st = msm_run<F>(p, s, in, n, err);
        break;
    case CALL_BITS:
        st = bits_run<F>(p, s, in, n, err);
        break;
    default:
        if ((st = sparse_split(p, s, in, n, err)) != CUZK_OK) break;
        if ((st = bits_run<F>(p, s, p->vals[1], n, err)) != CUZK_OK) break;
        st = msm_run<F>(p, s, p->scalars, n, err);
        break;
    }
    if (st != CUZK_OK) return st;
    CUZK_CUDA_TRY(err, cudaEventRecord(p->ev_done, s));
    return CUZK_OK;
}

template <class H>
static void msm_host_result(const cuzk_gpu_msm_plan *p, void *out)
{
    typename H::jac *r = (typename H::jac *)out, ones;
    switch (p->call) {
    case CALL_MSM:
        msm_result<H>(p, r);
        break;
    case CALL_BITS:
        bits_result<H>(p, r);
        break;
    default:
        bits_result<H>(p, &ones);
        msm_result<H>(p, r);
        H::add(r, &ones);
        break;
    }
}

/* The largest stack frame of the group's kernels: the accumulations hold
 * their batch state there (msm_affine.cuh), the reductions their spills.
 * The FP64-share accumulations (G1 only, a benchmark option) are left out:
 * their state is G1's, smaller than G2's, which sets the reservation. */
template <class F>
static size_t msm_local_bytes(void)
{
    const void *fns[] = {
        (const void *)msm_accumulate_kernel<F>,
        (const void *)msm_aff_accumulate_kernel<F, false>,
        (const void *)msm_aff_accumulate_kernel<F, true>,
        (const void *)msm_aff_merge_kernel<F>, (const void *)msm_reduce1_kernel<F>,
        (const void *)msm_reduce2_kernel<F>, (const void *)msm_reduce2_finish_kernel<F>,
        (const void *)msm_bits_kernel<F, true>,
        (const void *)msm_bits_kernel<F, false>};
    size_t most = 0;
    for (size_t i = 0; i < sizeof fns / sizeof fns[0]; i++) {
        cudaFuncAttributes fa;
        if (cudaFuncGetAttributes(&fa, fns[i]) != cudaSuccess) {
            (void)cudaGetLastError();
            continue;
        }
        if (fa.localSizeBytes > most) most = fa.localSizeBytes;
    }
    return most;
}

#define MSM_GROUP_OPS(H)                                                                       \
    {plan_init<H::F>, plan_gen<H::F>, msm_enqueue<H::F>, msm_host_result<H>,                  \
     msm_local_bytes<H::F>}

#undef blocks_for

#endif /* CUZK_GPU_MSM_IMPL_CUH */
