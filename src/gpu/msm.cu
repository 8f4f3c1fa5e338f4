/* cuzk — G1 and G2 MSM on the GPU with device-resident points
 * (include/cuzk/gpu.h, "MSM"). The stages and their per-thread work are in msm.cuh; this file
 * holds the kernels, the plan (all device memory of an MSM, allocated once)
 * and the launch sequence. */
extern "C" {
#include <cuzk/ec.h>
#include <cuzk/ff.h>
#include <cuzk/msm.h>
}

#include <stdlib.h>
#include <string.h>

#include <cub/cub.cuh>

#include "gpu/gpu_internal.cuh"
#include "gpu/msm.cuh"
#include "gpu/msm_affine.cuh"

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

__global__ void msm_digits_kernel(msm_geom g, const uint4 *scalars, const uint8_t *inf,
                                  uint32_t n, uint32_t *keys, uint32_t *vals)
{
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    msm_digits_thread(g, scalars, inf, n, keys, vals, i);
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

/* One block of g.t2 threads per window; the tree steps are separated by
 * barriers (the nodes live in global memory; __syncthreads orders the
 * block's global accesses too). */
template <class F>
__global__ void __launch_bounds__(256) msm_reduce2_kernel(msm_geom g, const uint4 *seg, uint4 *tree, uint4 *win)
{
    size_t w = blockIdx.x, t = threadIdx.x;
    msm_reduce2_start<F>(g, seg, tree, w, t);
    for (unsigned lg_h = 0; ((size_t)1 << lg_h) < g.t2; lg_h++) {
        __syncthreads();
        msm_reduce2_merge<F>(g, tree, w, t, lg_h);
    }
    __syncthreads();
    if (t == 0) msm_reduce2_finish<F>(g, tree, win, w);
}

__global__ void msm_live_kernel(const uint8_t *inf, size_t n, uint64_t *live, size_t nw)
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
                    size_t nthreads)
{
    size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= nthreads) return;
    msm_bits_thread<F, TAB>(bits, live, n, cnt, off, nw, src, partial, t);
}

template <class F>
__global__ void msm_subset_kernel(const uint4 *points, const uint8_t *inf, size_t n, uint4 *tab,
                                  size_t ngroups)
{
    size_t q = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (q >= ngroups) return;
    msm_subset_thread<F>(points, inf, n, tab, q);
}

__global__ void msm_split_kernel(const uint4 *in, uint4 *rest, size_t n, uint64_t *ones, size_t nw)
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

/* ----------------------------------------------------------------- plan -- */

enum { EV_START, EV_UPLOAD, EV_DIGITS, EV_SORT, EV_ACC, EV_REDUCE, EV_COUNT };

struct cuzk_gpu_msm_plan {
    cuzk_gpu_ctx *ctx;
    cuzk_gpu_group group;
    size_t aff_bytes, xyzz_bytes; /* sizes of one point (G1 96/192, G2 192/384) */
    size_t n;              /* points */
    unsigned flags;        /* CUZK_GPU_MSM_PRECOMPUTE: points holds the table */
    msm_geom g;
    msm_geom rg;           /* the reduction's windows: g, or a precomputed
                              plan's virtual windows (msm.cuh) */
    float table_ms;        /* device time of the tables (precomputed, subset sums) */
    size_t nchunks_max;    /* accumulation chunks for n points */
    void *mem;             /* the one device allocation; the arrays below lie in it */
    size_t mem_bytes;
    uint4 *points;         /* n affine points; a precomputed plan: nwin n, the
                              table T[w][i] at w n + i (T[0]: the points) */
    uint8_t *inf;          /* n flags */
    uint64_t *live;        /* ceil(n / 64) words: bit i = point i is not infinity */
    uint4 *scalars;        /* n scalars (staging for host input; also bitmaps) */
    uint32_t *keys[2], *vals[2]; /* nwin n each: sort input/output buffers */
    void *sort_tmp;
    size_t sort_tmp_bytes;
    uint4 *buckets;        /* nwin nb XYZZ (precomputed: nb) */
    uint4 *pieces;         /* 2 nchunks_max XYZZ (also the bitmap sum's partials) */
    uint4 *seg;            /* 2 nwin t1 XYZZ (of rg, as tree and win) */
    uint4 *tree;           /* 3 nwin t2 XYZZ */
    uint4 *win;            /* nwin XYZZ */
    void *win_host;        /* pinned, max(nwin, MSM_HOST_SUMS) XYZZ (precomputed:
                              2 rg.nwin: the S_v, then the U_v) */
    void *scratch;         /* keys[0] .. win: free while the plan is made */
    size_t scratch_bytes;
    cudaEvent_t ev[EV_COUNT];
    cuzk_gpu_msm_timing last;
    cuzk_gpu_msm_acc acc;  /* accumulation method (cuzk_gpu_msm_plan_set_acc) */
    uint4 *aff_pieces;     /* batch-affine: 2 affine pieces per stream; own allocation */
    uint4 *bits_tab;       /* CUZK_GPU_MSM_BITS_TABLE: 15 ceil(n / 4) affine subset
                              sums (msm.cuh), else NULL */
};

/* The bitmap sum's GPU levels stop at this many partials; the host adds
 * them (~1 us each on the CPU, against a GPU level's ~0.1 ms launch and
 * serial tail). */
#define MSM_HOST_SUMS 256u

/* Cost model for the window size, in mixed additions (8M + 2S): the
 * accumulation does nwin n of them, the bucket reduction 2 XYZZ additions
 * (12M + 2S each, 1.4 units) per bucket, nwin 2^(c-1) buckets. Estimated
 * with the field rates measured on the H200 (docs/perf.md: Fp mul 26.4,
 * sqr 32.5 G/s): 2^26 points -> c = 22 (12 windows), 2^24 -> 20, 2^20 -> 16,
 * 2^16 -> 13. Measured on the H200 at 2^26 (docs/perf.md, "GPU G1 MSM"):
 * accumulation 383 ms, reduction 38 ms, i.e. 0.48 ns per mixed addition and
 * 0.76 ns per reduction addition, so a bucket costs 2 x 0.76 / 0.48 = 3.2
 * units rather than 2.8; with 3.2 the choice at 2^26 is still c = 22 (c = 20
 * is 1% worse). c = 23 keeps 12 windows and doubles the reduction; c = 24
 * (11 windows) saves ~32 ms of accumulation for ~100 ms more reduction.
 * G2's operations are all ~2.8x G1's (Fp2 M = 3 Fp M), so the same model
 * serves both groups. */
static unsigned msm_choose_c(size_t n)
{
    double best = -1;
    unsigned bc = 8;
    for (unsigned c = 8; c <= 23; c++) {
        double W = (double)((255 + c - 1) / c), nb = (double)((size_t)1 << (c - 1));
        double cost = W * (double)n + 2.8 * W * nb;
        if (best < 0 || cost < best) best = cost, bc = c;
    }
    return bc;
}

/* Precomputed plans: the accumulation does nwin n mixed additions as above,
 * but there is one set of 2^(c-1) buckets to reduce, whatever nwin, at the
 * measured 3.2 units a bucket. So c grows until the reduction outweighs the
 * windows it saves: 2^26 points -> c = 24 (11 windows: 7.38e8 + 2.7e7
 * units, against 8.05e8 + 6.7e6 at c = 22), 2^24 -> 22 (12 windows),
 * 2^20 -> 20 (13), 2^16 -> 16 (16). By this model the precomputed MSM costs
 * 0.87x the plain one at 2^24-2^26 (0.84x at 2^20). c stops at 24: the
 * digit reader takes c + 1 <= 25 bits, and c = 25 keeps 11 windows. Fewer
 * windows also mean a smaller table (nwin n points) and fewer key bits to
 * sort (c = 24 against 25 bits for a plain plan at 2^26). */
#define MSM_PRE_C_MAX 24u

static unsigned msm_choose_c_pre(size_t n)
{
    double best = -1;
    unsigned bc = 8;
    for (unsigned c = 8; c <= MSM_PRE_C_MAX; c++) {
        double W = (double)((255 + c - 1) / c), nb = (double)((size_t)1 << (c - 1));
        double cost = W * (double)n + 3.2 * nb;
        if (best < 0 || cost < best) best = cost, bc = c;
    }
    return bc;
}

extern "C" unsigned cuzk_gpu_msm_window(size_t n) { return msm_choose_c(n); }

extern "C" unsigned cuzk_gpu_msm_window_ex(size_t n, unsigned flags)
{
    return flags & CUZK_GPU_MSM_PRECOMPUTE ? msm_choose_c_pre(n) : msm_choose_c(n);
}

static size_t align256(size_t x) { return (x + 255) & ~(size_t)255; }

extern "C" void cuzk_gpu_msm_plan_destroy(cuzk_gpu_msm_plan *p)
{
    if (!p) return;
    /* Errors here cannot be reported; each release is attempted. */
    (void)cudaSetDevice(p->ctx->device);
    (void)cudaStreamSynchronize(p->ctx->stream);
    if (p->mem) (void)cudaFree(p->mem);
    if (p->aff_pieces) (void)cudaFree(p->aff_pieces);
    if (p->win_host) (void)cudaFreeHost(p->win_host);
    for (int i = 0; i < EV_COUNT; i++)
        if (p->ev[i]) (void)cudaEventDestroy(p->ev[i]);
    (void)cudaGetLastError();
    free(p);
}

/* Allocates a plan for n points of group grp (uninitialised points; a
 * precomputed plan: uninitialised table). */
static cuzk_status plan_alloc(cuzk_gpu_ctx *ctx, cuzk_gpu_msm_plan **out, cuzk_gpu_group grp,
                              size_t n, unsigned c, unsigned flags)
{
    if (!ctx || !out || n == 0 || n > ((size_t)1 << 31) ||
        (flags & ~(CUZK_GPU_MSM_PRECOMPUTE | CUZK_GPU_MSM_BITS_TABLE)))
        return CUZK_ERR_INVALID_ARGUMENT;
    int pre = (flags & CUZK_GPU_MSM_PRECOMPUTE) != 0;
    if (c == 0) c = pre ? msm_choose_c_pre(n) : msm_choose_c(n);
    if (c < 8 || c > (pre ? MSM_PRE_C_MAX : 23)) return CUZK_ERR_INVALID_ARGUMENT;
    msm_geom g, rg;
    if (pre) {
        msm_geom_init_pre(&g, &rg, c, n, MSM_PRE_VBITS);
    } else {
        msm_geom_init(&g, c);
        rg = g;
    }
    size_t m = (size_t)g.nwin * n;
    /* A table entry's index takes 31 bits of a sort value: nwin n <= 2^31
     * (2^31 G1 points are 206 GB, more than any device holds). */
    if (pre && m > ((size_t)1 << 31)) return CUZK_ERR_NO_MEMORY;
    if (m > 0xffffffffull - MSM_CHUNK) return CUZK_ERR_INVALID_ARGUMENT;
    CUZK_CUDA_TRY(cudaSetDevice(ctx->device));

    cuzk_gpu_msm_plan *p = (cuzk_gpu_msm_plan *)calloc(1, sizeof *p);
    if (!p) return CUZK_ERR_NO_MEMORY;
    p->ctx = ctx;
    p->group = grp;
    p->aff_bytes = grp == CUZK_GPU_G1 ? sizeof(cuzk_g1_affine) : sizeof(cuzk_g2_affine);
    p->xyzz_bytes = grp == CUZK_GPU_G1 ? sizeof(cuzk_g1_xyzz) : sizeof(cuzk_g2_xyzz);
    p->n = n;
    p->flags = flags;
    p->g = g;
    p->rg = rg;
    p->nchunks_max = (m + MSM_CHUNK - 1) / MSM_CHUNK;

    cuzk_status st = CUZK_OK;
    cudaError_t e = cudaSuccess;
    {
        /* CUB's scratch for the largest sort, and for the bitmap sum's scan
         * (the same memory: the two never run at once). */
        cub::DoubleBuffer<uint32_t> dk(nullptr, nullptr), dv(nullptr, nullptr);
        e = cub::DeviceRadixSort::SortPairs(nullptr, p->sort_tmp_bytes, dk, dv, (uint32_t)m, 0,
                                            (int)g.keybits, ctx->stream);
        size_t scan_bytes = 0;
        if (e == cudaSuccess)
            e = cub::DeviceScan::ExclusiveSum(nullptr, scan_bytes, (uint32_t *)nullptr,
                                              (uint32_t *)nullptr, (int)((n + 63) / 64),
                                              ctx->stream);
        if (scan_bytes > p->sort_tmp_bytes) p->sort_tmp_bytes = scan_bytes;
    }
    size_t X = p->xyzz_bytes;
    size_t sz[13] = {
        (pre ? m : n) * p->aff_bytes,        /* points (or table) */
        n,                                   /* inf */
        n * 32,                              /* scalars */
        m * 4, m * 4, m * 4, m * 4,          /* keys, vals x2 */
        p->sort_tmp_bytes,
        (size_t)rg.nwin * rg.nb * X,         /* buckets */
        2 * p->nchunks_max * X,              /* pieces */
        ((size_t)2 * rg.nwin * rg.t1 + (size_t)3 * rg.nwin * rg.t2 + rg.nwin) * X, /* seg, tree, win */
        (n + 63) / 64 * 8,                   /* live */
        flags & CUZK_GPU_MSM_BITS_TABLE ? (n + 3) / 4 * MSM_SUBSETS * p->aff_bytes : 0 /* bits_tab */
    };
    size_t off[13], total = 0;
    for (int i = 0; i < 13; i++) off[i] = total, total += align256(sz[i]);
    size_t nhost = pre ? 2 * (size_t)rg.nwin : g.nwin;
    if (nhost < MSM_HOST_SUMS) nhost = MSM_HOST_SUMS;
    if (e == cudaSuccess) e = cudaMalloc(&p->mem, total);
    if (e == cudaSuccess) e = cudaMallocHost(&p->win_host, nhost * X);
    for (int i = 0; i < EV_COUNT && e == cudaSuccess; i++) e = cudaEventCreate(&p->ev[i]);
    if (e != cudaSuccess) {
        st = cuzk_gpu_fail(e, "msm plan allocation", __FILE__, __LINE__);
        cuzk_gpu_msm_plan_destroy(p);
        return st;
    }
    char *b = (char *)p->mem;
    p->mem_bytes = total;
    p->points = (uint4 *)(b + off[0]);
    p->inf = (uint8_t *)(b + off[1]);
    p->scalars = (uint4 *)(b + off[2]);
    p->keys[0] = (uint32_t *)(b + off[3]);
    p->keys[1] = (uint32_t *)(b + off[4]);
    p->vals[0] = (uint32_t *)(b + off[5]);
    p->vals[1] = (uint32_t *)(b + off[6]);
    p->sort_tmp = b + off[7];
    p->buckets = (uint4 *)(b + off[8]);
    p->pieces = (uint4 *)(b + off[9]);
    p->seg = (uint4 *)(b + off[10]);
    p->live = (uint64_t *)(b + off[11]);
    p->bits_tab = flags & CUZK_GPU_MSM_BITS_TABLE ? (uint4 *)(b + off[12]) : NULL;
    p->tree = (uint4 *)((char *)p->seg + (size_t)2 * rg.nwin * rg.t1 * X);
    p->win = (uint4 *)((char *)p->tree + (size_t)3 * rg.nwin * rg.t2 * X);
    p->scratch = b + off[3];
    p->scratch_bytes = off[11] - off[3];
    *out = p;
    return CUZK_OK;
}

static unsigned blocks_for(size_t threads, unsigned block)
{
    return (unsigned)((threads + block - 1) / block);
}

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
static cuzk_status plan_table(cuzk_gpu_msm_plan *p)
{
    constexpr size_t A = ec_aff<F>::U4, E = F::U4 * sizeof(uint4);
    cudaStream_t s = p->ctx->stream;
    size_t n = p->n;
    /* Threads per launch: every point of the batch needs its 3 E bytes. The
     * scratch holds the buckets, >= 128 XYZZ points, so at least one thread
     * of MSM_TAB_K points fits. */
    size_t nthreads = (n + MSM_TAB_K - 1) / MSM_TAB_K;
    size_t fit = p->scratch_bytes / (3 * E) / MSM_TAB_K;
    if (nthreads > fit) nthreads = fit;
    if (nthreads == 0) return CUZK_ERR_NO_MEMORY; /* cannot happen: see above */
    size_t batch = nthreads * MSM_TAB_K;
    CUZK_CUDA_TRY(cudaEventRecord(p->ev[EV_START], s));
    for (unsigned w = 1; w < p->g.nwin; w++) {
        const uint4 *src = p->points + (size_t)(w - 1) * n * A;
        uint4 *dst = p->points + (size_t)w * n * A;
        for (size_t off = 0; off < n; off += batch) {
            msm_table_kernel<F><<<blocks_for(nthreads, 128), 128, 0, s>>>(
                src, dst, p->g.c, n, off, nthreads, (uint4 *)p->scratch);
            CUZK_CUDA_TRY_LAUNCH();
        }
    }
    CUZK_CUDA_TRY(cudaEventRecord(p->ev[EV_REDUCE], s));
    CUZK_CUDA_TRY(cudaEventSynchronize(p->ev[EV_REDUCE]));
    CUZK_CUDA_TRY(cudaEventElapsedTime(&p->table_ms, p->ev[EV_START], p->ev[EV_REDUCE]));
    return CUZK_OK;
}

/* Marks the points at infinity (inf, live), makes a precomputed plan's
 * table and the subset sums of a CUZK_GPU_MSM_BITS_TABLE plan (both timed
 * into table_ms); then waits for the stream. */
static cuzk_status plan_finish(cuzk_gpu_msm_plan *p)
{
    if (p->flags & CUZK_GPU_MSM_PRECOMPUTE) {
        cuzk_status st = p->group == CUZK_GPU_G1 ? plan_table<EcFp>(p) : plan_table<EcFp2>(p);
        if (st != CUZK_OK) return st;
    }
    size_t nw = (p->n + 63) / 64;
    if (p->group == CUZK_GPU_G1)
        msm_inf_kernel<EcFp><<<blocks_for(p->n, 256), 256, 0, p->ctx->stream>>>(p->points, p->n,
                                                                                 p->inf);
    else
        msm_inf_kernel<EcFp2><<<blocks_for(p->n, 256), 256, 0, p->ctx->stream>>>(p->points, p->n,
                                                                                  p->inf);
    CUZK_CUDA_TRY_LAUNCH();
    msm_live_kernel<<<blocks_for(nw, 256), 256, 0, p->ctx->stream>>>(p->inf, p->n, p->live, nw);
    CUZK_CUDA_TRY_LAUNCH();
    if (p->bits_tab) {
        cudaStream_t s = p->ctx->stream;
        size_t ng = (p->n + 3) / 4;
        float ms = 0;
        CUZK_CUDA_TRY(cudaEventRecord(p->ev[EV_START], s));
        if (p->group == CUZK_GPU_G1)
            msm_subset_kernel<EcFp><<<blocks_for(ng, 128), 128, 0, s>>>(p->points, p->inf, p->n,
                                                                          p->bits_tab, ng);
        else
            msm_subset_kernel<EcFp2><<<blocks_for(ng, 128), 128, 0, s>>>(p->points, p->inf, p->n,
                                                                           p->bits_tab, ng);
        CUZK_CUDA_TRY_LAUNCH();
        CUZK_CUDA_TRY(cudaEventRecord(p->ev[EV_REDUCE], s));
        CUZK_CUDA_TRY(cudaEventSynchronize(p->ev[EV_REDUCE]));
        CUZK_CUDA_TRY(cudaEventElapsedTime(&ms, p->ev[EV_START], p->ev[EV_REDUCE]));
        p->table_ms += ms;
    }
    CUZK_CUDA_TRY(cudaStreamSynchronize(p->ctx->stream));
    return CUZK_OK;
}

static cuzk_status plan_create(cuzk_gpu_ctx *ctx, cuzk_gpu_msm_plan **plan, cuzk_gpu_group grp,
                               const void *points, size_t n, unsigned c, unsigned flags)
{
    if (!points || !plan) return CUZK_ERR_INVALID_ARGUMENT;
    cuzk_gpu_msm_plan *p = NULL;
    cuzk_status st = plan_alloc(ctx, &p, grp, n, c, flags);
    if (st != CUZK_OK) return st;
    cudaError_t e = cudaMemcpyAsync(p->points, points, n * p->aff_bytes, cudaMemcpyHostToDevice,
                                    ctx->stream);
    if (e != cudaSuccess) st = cuzk_gpu_fail(e, "msm points upload", __FILE__, __LINE__);
    if (st == CUZK_OK) st = plan_finish(p);
    if (st != CUZK_OK) {
        cuzk_gpu_msm_plan_destroy(p);
        return st;
    }
    *plan = p;
    return CUZK_OK;
}

extern "C" cuzk_status cuzk_gpu_g1_msm_plan_create(cuzk_gpu_ctx *ctx, cuzk_gpu_msm_plan **plan,
                                                   const cuzk_g1_affine *points, size_t n,
                                                   unsigned c)
{
    return plan_create(ctx, plan, CUZK_GPU_G1, points, n, c, 0);
}

extern "C" cuzk_status cuzk_gpu_g1_msm_plan_create_ex(cuzk_gpu_ctx *ctx, cuzk_gpu_msm_plan **plan,
                                                      const cuzk_g1_affine *points, size_t n,
                                                      unsigned c, unsigned flags)
{
    return plan_create(ctx, plan, CUZK_GPU_G1, points, n, c, flags);
}

extern "C" cuzk_status cuzk_gpu_g2_msm_plan_create(cuzk_gpu_ctx *ctx, cuzk_gpu_msm_plan **plan,
                                                   const cuzk_g2_affine *points, size_t n,
                                                   unsigned c)
{
    return plan_create(ctx, plan, CUZK_GPU_G2, points, n, c, 0);
}

extern "C" cuzk_status cuzk_gpu_g2_msm_plan_create_ex(cuzk_gpu_ctx *ctx, cuzk_gpu_msm_plan **plan,
                                                      const cuzk_g2_affine *points, size_t n,
                                                      unsigned c, unsigned flags)
{
    return plan_create(ctx, plan, CUZK_GPU_G2, points, n, c, flags);
}

/* Points per generation batch: bounds the temporary (3 field elements a
 * point). */
#define MSM_GEN_BATCH ((size_t)1 << 22)

template <class F>
static cuzk_status plan_create_seq(cuzk_gpu_ctx *ctx, cuzk_gpu_msm_plan **plan,
                                   cuzk_gpu_group grp, size_t n, unsigned c, const void *base,
                                   const void *step, unsigned flags)
{
    cuzk_gpu_msm_plan *p = NULL;
    cuzk_status st = plan_alloc(ctx, &p, grp, n, c, flags);
    if (st != CUZK_OK) return st;
    ec_aff<F> b, s;
    memcpy(&b, base, sizeof b);
    memcpy(&s, step, sizeof s);
    size_t batch = n < MSM_GEN_BATCH ? n : MSM_GEN_BATCH;
    size_t nthreads = (batch + MSM_GEN_K - 1) / MSM_GEN_K;
    void *tmp = NULL;
    cudaError_t e = cudaMalloc(&tmp, nthreads * MSM_GEN_K * 3 * F::U4 * sizeof(uint4));
    for (size_t off = 0; e == cudaSuccess && off < n; off += batch) {
        msm_gen_kernel<F><<<blocks_for(nthreads, 128), 128, 0, ctx->stream>>>(
            b, s, n, off, nthreads, p->points, (uint4 *)tmp);
        e = cudaGetLastError();
    }
    if (e == cudaSuccess) e = cudaStreamSynchronize(ctx->stream);
    if (tmp) {
        cudaError_t e2 = cudaFree(tmp);
        if (e == cudaSuccess) e = e2;
    }
    if (e != cudaSuccess) st = cuzk_gpu_fail(e, "msm point generation", __FILE__, __LINE__);
    if (st == CUZK_OK) st = plan_finish(p);
    if (st != CUZK_OK) {
        cuzk_gpu_msm_plan_destroy(p);
        return st;
    }
    *plan = p;
    return CUZK_OK;
}

extern "C" cuzk_status cuzk_gpu_g1_msm_plan_create_seq_ex(cuzk_gpu_ctx *ctx,
                                                          cuzk_gpu_msm_plan **plan, size_t n,
                                                          unsigned c, const cuzk_g1_affine *base,
                                                          const cuzk_g1_affine *step,
                                                          unsigned flags)
{
    if (!plan || !base || !step || cuzk_g1_affine_is_inf(base) || cuzk_g1_affine_is_inf(step))
        return CUZK_ERR_INVALID_ARGUMENT;
    return plan_create_seq<EcFp>(ctx, plan, CUZK_GPU_G1, n, c, base, step, flags);
}

extern "C" cuzk_status cuzk_gpu_g2_msm_plan_create_seq_ex(cuzk_gpu_ctx *ctx,
                                                          cuzk_gpu_msm_plan **plan, size_t n,
                                                          unsigned c, const cuzk_g2_affine *base,
                                                          const cuzk_g2_affine *step,
                                                          unsigned flags)
{
    if (!plan || !base || !step || cuzk_g2_affine_is_inf(base) || cuzk_g2_affine_is_inf(step))
        return CUZK_ERR_INVALID_ARGUMENT;
    return plan_create_seq<EcFp2>(ctx, plan, CUZK_GPU_G2, n, c, base, step, flags);
}

extern "C" cuzk_status cuzk_gpu_g1_msm_plan_create_seq(cuzk_gpu_ctx *ctx,
                                                       cuzk_gpu_msm_plan **plan, size_t n,
                                                       unsigned c, const cuzk_g1_affine *base,
                                                       const cuzk_g1_affine *step)
{
    return cuzk_gpu_g1_msm_plan_create_seq_ex(ctx, plan, n, c, base, step, 0);
}

extern "C" cuzk_status cuzk_gpu_g2_msm_plan_create_seq(cuzk_gpu_ctx *ctx,
                                                       cuzk_gpu_msm_plan **plan, size_t n,
                                                       unsigned c, const cuzk_g2_affine *base,
                                                       const cuzk_g2_affine *step)
{
    return cuzk_gpu_g2_msm_plan_create_seq_ex(ctx, plan, n, c, base, step, 0);
}

extern "C" unsigned cuzk_gpu_msm_plan_window(const cuzk_gpu_msm_plan *p)
{
    return p ? p->g.c : 0;
}

extern "C" size_t cuzk_gpu_msm_plan_device_bytes(const cuzk_gpu_msm_plan *p)
{
    return p ? p->mem_bytes : 0;
}

extern "C" unsigned cuzk_gpu_msm_plan_flags(const cuzk_gpu_msm_plan *p)
{
    return p ? p->flags : 0;
}

extern "C" float cuzk_gpu_msm_plan_table_ms(const cuzk_gpu_msm_plan *p)
{
    return p ? p->table_ms : 0;
}

extern "C" cuzk_status cuzk_gpu_msm_plan_timing(const cuzk_gpu_msm_plan *p,
                                                cuzk_gpu_msm_timing *t)
{
    if (!p || !t) return CUZK_ERR_INVALID_ARGUMENT;
    *t = p->last;
    return CUZK_OK;
}

/* ----------------------------------------------------------------- MSM -- */


/* Host arrays are copied to dst through the stream (pinned memory copies at
 * full PCIe speed); device arrays are used in place. *src becomes the
 * pointer to read. */
static cuzk_status stage_input(cuzk_gpu_msm_plan *p, const void **src, size_t bytes)
{
    cudaPointerAttributes pa;
    CUZK_CUDA_TRY(cudaPointerGetAttributes(&pa, *src));
    if (pa.type != cudaMemoryTypeDevice && pa.type != cudaMemoryTypeManaged) {
        CUZK_CUDA_TRY(cudaMemcpyAsync(p->scalars, *src, bytes, cudaMemcpyHostToDevice,
                                      p->ctx->stream));
        *src = p->scalars;
    }
    return CUZK_OK;
}

/* ------------------------------------------ batch-affine accumulation --
 * Stage 3 (and 4) by affine additions sharing inversions (msm_affine.cuh),
 * on a plan switched to it by cuzk_gpu_msm_plan_set_acc. */

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
#define MSM_AFF_LEN 32u
#define MSM_AFF_BLOCK 128
/* The range pieces (2 XYZZ per thread) live in the plan's XYZZ pieces. */
static_assert(MSM_AFF_K * MSM_AFF_LEN >= MSM_CHUNK, "range pieces must fit the chunk pieces");

template <class F>
__global__ void __launch_bounds__(MSM_AFF_BLOCK)
    msm_aff_accumulate_kernel(msm_aff_args a, size_t nthreads)
{
    size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= nthreads) return;
    msm_aff_accumulate_thread<F, MSM_AFF_K>(a, t);
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

/* Streams for m sort entries. */
static size_t msm_aff_streams(size_t m) { return (m + MSM_AFF_LEN - 1) / MSM_AFF_LEN; }

template <class F>
static cuzk_status msm_aff_accumulate(cuzk_gpu_msm_plan *p, const msm_acc_args &x)
{
    msm_aff_args a;
    a.keys = x.keys;
    a.vals = x.vals;
    a.m = x.m;
    a.sentinel = x.sentinel;
    a.len = MSM_AFF_LEN;
    a.streams = MSM_AFF_K;
    a.points = x.points;
    a.buckets = x.buckets;
    a.pieces = p->aff_pieces;
    a.tpieces = x.pieces;
    size_t nthreads = (msm_aff_streams(x.m) + MSM_AFF_K - 1) / MSM_AFF_K;
    cudaStream_t s = p->ctx->stream;
    unsigned nb = blocks_for(nthreads, MSM_AFF_BLOCK);
    msm_aff_accumulate_kernel<F><<<nb, MSM_AFF_BLOCK, 0, s>>>(a, nthreads);
    CUZK_CUDA_TRY_LAUNCH();
    msm_aff_merge_kernel<F><<<nb, MSM_AFF_BLOCK, 0, s>>>(a, nthreads);
    CUZK_CUDA_TRY_LAUNCH();
    msm_aff_combine_kernel<F><<<nb, MSM_AFF_BLOCK, 0, s>>>(a, nthreads);
    CUZK_CUDA_TRY_LAUNCH();
    return CUZK_OK;
}

extern "C" cuzk_status cuzk_gpu_msm_plan_set_acc(cuzk_gpu_msm_plan *p, cuzk_gpu_msm_acc acc)
{
    if (!p || (acc != CUZK_GPU_MSM_XYZZ && acc != CUZK_GPU_MSM_BATCH_AFFINE))
        return CUZK_ERR_INVALID_ARGUMENT;
    if (acc == CUZK_GPU_MSM_BATCH_AFFINE && !p->aff_pieces) {
        CUZK_CUDA_TRY(cudaSetDevice(p->ctx->device));
        size_t bytes = 2 * msm_aff_streams((size_t)p->g.nwin * p->n) * p->aff_bytes;
        cudaError_t e = cudaMalloc(&p->aff_pieces, bytes);
        if (e != cudaSuccess) {
            p->aff_pieces = NULL;
            return cuzk_gpu_fail(e, "msm batch-affine pieces", __FILE__, __LINE__);
        }
        p->mem_bytes += bytes;
    }
    p->acc = acc;
    return CUZK_OK;
}

/* ------------------------------------------------------------------------ */

/* The device stages of an MSM; the window sums end up in p->win_host (a
 * precomputed plan: the virtual windows' S_v, then their U_v). */
template <class F>
static cuzk_status msm_run(cuzk_gpu_msm_plan *p, const cuzk_scalar *scalars, size_t n)
{
    const msm_geom &g = p->g, &rg = p->rg;
    cudaStream_t s = p->ctx->stream;
    const void *src = scalars;
    CUZK_CUDA_TRY(cudaEventRecord(p->ev[EV_START], s));
    cuzk_status st = stage_input(p, &src, n * sizeof(cuzk_scalar));
    if (st != CUZK_OK) return st;
    CUZK_CUDA_TRY(cudaEventRecord(p->ev[EV_UPLOAD], s));

    size_t m = (size_t)g.nwin * n;
    msm_digits_kernel<<<blocks_for(n, 256), 256, 0, s>>>(g, (const uint4 *)src, p->inf,
                                                         (uint32_t)n, p->keys[0], p->vals[0]);
    CUZK_CUDA_TRY_LAUNCH();
    size_t nbuckets = (size_t)rg.nwin * rg.nb;
    msm_clear_kernel<F><<<blocks_for(nbuckets, 256), 256, 0, s>>>(p->buckets, nbuckets);
    CUZK_CUDA_TRY_LAUNCH();
    CUZK_CUDA_TRY(cudaEventRecord(p->ev[EV_DIGITS], s));

    cub::DoubleBuffer<uint32_t> dk(p->keys[0], p->keys[1]), dv(p->vals[0], p->vals[1]);
    size_t tmp_bytes = p->sort_tmp_bytes;
    CUZK_CUDA_TRY(cub::DeviceRadixSort::SortPairs(p->sort_tmp, tmp_bytes, dk, dv, (uint32_t)m, 0,
                                                  (int)g.keybits, s));
    CUZK_CUDA_TRY_LAUNCH();
    CUZK_CUDA_TRY(cudaEventRecord(p->ev[EV_SORT], s));

    msm_acc_args a;
    a.keys = dk.Current();
    a.vals = dv.Current();
    a.m = m;
    a.sentinel = g.sentinel;
    a.points = p->points;
    a.buckets = p->buckets;
    a.pieces = p->pieces;
    size_t nchunks = (m + MSM_CHUNK - 1) / MSM_CHUNK;
    if (p->acc == CUZK_GPU_MSM_BATCH_AFFINE) {
        /* The batch-affine variant (msm_affine.cuh); same input and output. */
        if ((st = msm_aff_accumulate<F>(p, a)) != CUZK_OK) return st;
    } else {
        msm_accumulate_kernel<F><<<blocks_for(nchunks, MSM_ACC_BLOCK), MSM_ACC_BLOCK, 0, s>>>(
            a, nchunks);
        CUZK_CUDA_TRY_LAUNCH();
        msm_combine_kernel<F><<<blocks_for(nchunks, MSM_RED_BLOCK), MSM_RED_BLOCK, 0, s>>>(
            a, nchunks);
        CUZK_CUDA_TRY_LAUNCH();
    }
    CUZK_CUDA_TRY(cudaEventRecord(p->ev[EV_ACC], s));

    size_t nseg = (size_t)rg.nwin * rg.t1;
    msm_reduce1_kernel<F><<<blocks_for(nseg, MSM_RED_BLOCK), MSM_RED_BLOCK, 0, s>>>(rg, p->buckets,
                                                                                    p->seg);
    CUZK_CUDA_TRY_LAUNCH();
    msm_reduce2_kernel<F><<<rg.nwin, rg.t2, 0, s>>>(rg, p->seg, p->tree, p->win);
    CUZK_CUDA_TRY_LAUNCH();
    CUZK_CUDA_TRY(cudaEventRecord(p->ev[EV_REDUCE], s));
    CUZK_CUDA_TRY(cudaMemcpyAsync(p->win_host, p->win, rg.nwin * p->xyzz_bytes,
                                  cudaMemcpyDeviceToHost, s));
    if (p->flags & CUZK_GPU_MSM_PRECOMPUTE) /* U_v: the third point of tree node (v, 0) */
        CUZK_CUDA_TRY(cudaMemcpy2DAsync((char *)p->win_host + rg.nwin * p->xyzz_bytes,
                                        p->xyzz_bytes, (char *)p->tree + 2 * p->xyzz_bytes,
                                        3 * (size_t)rg.t2 * p->xyzz_bytes, p->xyzz_bytes,
                                        rg.nwin, cudaMemcpyDeviceToHost, s));
    CUZK_CUDA_TRY(cudaStreamSynchronize(s));

    float ms[EV_COUNT];
    for (int i = 1; i < EV_COUNT; i++)
        CUZK_CUDA_TRY(cudaEventElapsedTime(&ms[i], p->ev[i - 1], p->ev[i]));
    p->last.upload = ms[EV_UPLOAD];
    p->last.digits = ms[EV_DIGITS];
    p->last.sort = ms[EV_SORT];
    p->last.accumulate = ms[EV_ACC];
    p->last.reduce = ms[EV_REDUCE];
    CUZK_CUDA_TRY(cudaEventElapsedTime(&p->last.total, p->ev[EV_START], p->ev[EV_REDUCE]));
    return CUZK_OK;
}

static cuzk_status msm_check(cuzk_gpu_ctx *ctx, cuzk_gpu_msm_plan *p, cuzk_gpu_group grp,
                             const void *in, size_t n, const void *r)
{
    if (!ctx || !p || !r || p->ctx != ctx || p->group != grp || n > p->n || (n && !in))
        return CUZK_ERR_INVALID_ARGUMENT;
    memset(&p->last, 0, sizeof p->last);
    CUZK_CUDA_TRY(cudaSetDevice(ctx->device));
    return CUZK_OK;
}

/* The host side of each group, for the last steps of a call on the host. */
struct HostG1 {
    typedef EcFp F;
    typedef cuzk_g1_jac jac;
    typedef cuzk_g1_xyzz xyzz;
    static constexpr cuzk_gpu_group group = CUZK_GPU_G1;
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
    static constexpr cuzk_gpu_group group = CUZK_GPU_G2;
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
    if (p->flags & CUZK_GPU_MSM_PRECOMPUTE) {
        const typename H::xyzz *uv = sv + p->rg.nwin;
        typename H::xyzz acc, run, tot;
        H::x_inf(&acc);
        H::x_inf(&run);
        H::x_inf(&tot);
        for (unsigned v = p->rg.nwin; v-- > 1;) {
            H::x_add(&run, &uv[v]);
            H::x_add(&tot, &run);
        }
        for (unsigned i = 0; i + 1 < p->rg.c; i++) H::x_dbl(&tot);
        for (unsigned v = 0; v < p->rg.nwin; v++) H::x_add(&acc, &sv[v]);
        H::x_add(&acc, &tot);
        H::x_jac(r, &acc);
        return;
    }
    typename H::jac acc, t;
    H::inf(&acc);
    for (unsigned w = p->g.nwin; w-- > 0;) {
        if (w + 1 < p->g.nwin)
            for (unsigned i = 0; i < p->g.c; i++) H::dbl(&acc);
        H::x_jac(&t, &sv[w]);
        H::add(&acc, &t);
    }
    *r = acc;
}

template <class H>
static cuzk_status msm_call(cuzk_gpu_ctx *ctx, cuzk_gpu_msm_plan *p, const cuzk_scalar *scalars,
                            size_t n, typename H::jac *r)
{
    cuzk_status st = msm_check(ctx, p, H::group, scalars, n, r);
    if (st != CUZK_OK) return st;
    H::inf(r);
    if (n == 0) return CUZK_OK;
    if ((st = msm_run<typename H::F>(p, scalars, n)) != CUZK_OK) return st;
    msm_result<H>(p, r);
    return CUZK_OK;
}

extern "C" cuzk_status cuzk_gpu_g1_msm(cuzk_gpu_ctx *ctx, cuzk_gpu_msm_plan *p,
                                       const cuzk_scalar *scalars, size_t n, cuzk_g1_jac *r)
{
    return msm_call<HostG1>(ctx, p, scalars, n, r);
}

extern "C" cuzk_status cuzk_gpu_g2_msm(cuzk_gpu_ctx *ctx, cuzk_gpu_msm_plan *p,
                                       const cuzk_scalar *scalars, size_t n, cuzk_g2_jac *r)
{
    return msm_call<HostG2>(ctx, p, scalars, n, r);
}

/* ------------------------------------------------------------ bitmaps -- */

/* The device levels of a bitmap sum; *left partials end up in p->win_host. */
template <class F>
static cuzk_status bits_run(cuzk_gpu_msm_plan *p, const uint64_t *bits, size_t n, size_t *left)
{
    cudaStream_t s = p->ctx->stream;
    const void *src = bits;
    CUZK_CUDA_TRY(cudaEventRecord(p->ev[EV_START], s));
    cuzk_status st = stage_input(p, &src, (n + 63) / 64 * 8);
    if (st != CUZK_OK) return st;
    CUZK_CUDA_TRY(cudaEventRecord(p->ev[EV_UPLOAD], s));

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
    CUZK_CUDA_TRY_LAUNCH();
    size_t tmp_bytes = p->sort_tmp_bytes;
    CUZK_CUDA_TRY(cub::DeviceScan::ExclusiveSum(p->sort_tmp, tmp_bytes, p->keys[0], p->keys[1],
                                                (int)nw, s));
    CUZK_CUDA_TRY(cudaEventRecord(p->ev[EV_SORT], s));
    /* Threads for the most usable bits (or non-zero nibbles) there can be. */
    size_t most = p->bits_tab ? (n + 3) / 4 : n;
    size_t m = (most + MSM_BITS_PER_THREAD - 1) / MSM_BITS_PER_THREAD;
    if (p->bits_tab)
        msm_bits_kernel<F, true><<<blocks_for(m, MSM_ACC_BLOCK), MSM_ACC_BLOCK, 0, s>>>(
            bm, p->live, n, p->keys[0], p->keys[1], nw, p->bits_tab, p->pieces, m);
    else
        msm_bits_kernel<F, false><<<blocks_for(m, MSM_ACC_BLOCK), MSM_ACC_BLOCK, 0, s>>>(
            bm, p->live, n, p->keys[0], p->keys[1], nw, p->points, p->pieces, m);
    CUZK_CUDA_TRY_LAUNCH();
    CUZK_CUDA_TRY(cudaEventRecord(p->ev[EV_ACC], s));
    uint4 *in = p->pieces, *out = p->pieces + m * X;
    while (m > MSM_HOST_SUMS) {
        size_t next = (m + MSM_SUM_FAN - 1) / MSM_SUM_FAN;
        msm_sum_kernel<F><<<blocks_for(next, MSM_RED_BLOCK), MSM_RED_BLOCK, 0, s>>>(in, m, out, next);
        CUZK_CUDA_TRY_LAUNCH();
        uint4 *t = in;
        in = out;
        out = t;
        m = next;
    }
    CUZK_CUDA_TRY(cudaEventRecord(p->ev[EV_REDUCE], s));
    CUZK_CUDA_TRY(cudaMemcpyAsync(p->win_host, in, m * p->xyzz_bytes, cudaMemcpyDeviceToHost, s));
    CUZK_CUDA_TRY(cudaStreamSynchronize(s));
    float up, cnt, acc, red;
    CUZK_CUDA_TRY(cudaEventElapsedTime(&up, p->ev[EV_START], p->ev[EV_UPLOAD]));
    CUZK_CUDA_TRY(cudaEventElapsedTime(&cnt, p->ev[EV_UPLOAD], p->ev[EV_SORT]));
    CUZK_CUDA_TRY(cudaEventElapsedTime(&acc, p->ev[EV_SORT], p->ev[EV_ACC]));
    CUZK_CUDA_TRY(cudaEventElapsedTime(&red, p->ev[EV_ACC], p->ev[EV_REDUCE]));
    p->last.upload = up;
    p->last.sort = cnt;
    p->last.accumulate = acc;
    p->last.reduce = red;
    p->last.total = up + cnt + acc + red;
    *left = m;
    return CUZK_OK;
}

/* The host's last step of a bitmap sum: its m partials into *r. */
template <class H>
static void bits_result(const cuzk_gpu_msm_plan *p, size_t m, typename H::jac *r)
{
    const typename H::xyzz *part = (const typename H::xyzz *)p->win_host;
    typename H::xyzz acc;
    H::x_inf(&acc);
    for (size_t i = 0; i < m; i++) H::x_add(&acc, &part[i]);
    H::x_jac(r, &acc);
}

template <class H>
static cuzk_status bits_call(cuzk_gpu_ctx *ctx, cuzk_gpu_msm_plan *p, const uint64_t *bits,
                             size_t n, typename H::jac *r)
{
    cuzk_status st = msm_check(ctx, p, H::group, bits, n, r);
    if (st != CUZK_OK) return st;
    H::inf(r);
    size_t m = 0;
    if (n == 0) return CUZK_OK;
    if ((st = bits_run<typename H::F>(p, bits, n, &m)) != CUZK_OK) return st;
    bits_result<H>(p, m, r);
    return CUZK_OK;
}

extern "C" cuzk_status cuzk_gpu_g1_msm_bits(cuzk_gpu_ctx *ctx, cuzk_gpu_msm_plan *p,
                                            const uint64_t *bits, size_t n, cuzk_g1_jac *r)
{
    return bits_call<HostG1>(ctx, p, bits, n, r);
}

extern "C" cuzk_status cuzk_gpu_g2_msm_bits(cuzk_gpu_ctx *ctx, cuzk_gpu_msm_plan *p,
                                            const uint64_t *bits, size_t n, cuzk_g2_jac *r)
{
    return bits_call<HostG2>(ctx, p, bits, n, r);
}

/* ------------------------------------------------------ sparse vectors -- */

/* Stages a sparse MSM's scalars and splits them (msm_split_thread): the
 * ones' bitmap into vals[1] (free until the sort; n / 8 bytes <= its
 * 4 nwin n), the rest into the staging buffer (in place for host input).
 * t gets the upload and the split's device time (as upload and digits). */
static cuzk_status sparse_split(cuzk_gpu_msm_plan *p, const cuzk_scalar *scalars, size_t n,
                                cuzk_gpu_msm_timing *t)
{
    cudaStream_t s = p->ctx->stream;
    const void *src = scalars;
    memset(t, 0, sizeof *t);
    CUZK_CUDA_TRY(cudaEventRecord(p->ev[EV_START], s));
    cuzk_status st = stage_input(p, &src, n * sizeof(cuzk_scalar));
    if (st != CUZK_OK) return st;
    CUZK_CUDA_TRY(cudaEventRecord(p->ev[EV_UPLOAD], s));
    size_t nw = (n + 63) / 64;
    msm_split_kernel<<<blocks_for(nw, 128), 128, 0, s>>>((const uint4 *)src, p->scalars, n,
                                                         (uint64_t *)p->vals[1], nw);
    CUZK_CUDA_TRY_LAUNCH();
    CUZK_CUDA_TRY(cudaEventRecord(p->ev[EV_DIGITS], s));
    CUZK_CUDA_TRY(cudaEventSynchronize(p->ev[EV_DIGITS]));
    CUZK_CUDA_TRY(cudaEventElapsedTime(&t->upload, p->ev[EV_START], p->ev[EV_UPLOAD]));
    CUZK_CUDA_TRY(cudaEventElapsedTime(&t->digits, p->ev[EV_UPLOAD], p->ev[EV_DIGITS]));
    return CUZK_OK;
}

/* The stage times of a sparse MSM: split (t), bitmap sum (b), MSM (p->last). */
static void sparse_timing(cuzk_gpu_msm_plan *p, const cuzk_gpu_msm_timing *t,
                          const cuzk_gpu_msm_timing *b)
{
    cuzk_gpu_msm_timing *l = &p->last;
    l->upload += t->upload + b->upload;
    l->digits += t->digits;
    l->sort += b->sort;
    l->accumulate += b->accumulate;
    l->reduce += b->reduce;
    l->total = l->upload + l->digits + l->sort + l->accumulate + l->reduce;
}

template <class H>
static cuzk_status sparse_call(cuzk_gpu_ctx *ctx, cuzk_gpu_msm_plan *p,
                               const cuzk_scalar *scalars, size_t n, typename H::jac *r)
{
    cuzk_status st = msm_check(ctx, p, H::group, scalars, n, r);
    if (st != CUZK_OK) return st;
    H::inf(r);
    if (n == 0) return CUZK_OK;
    cuzk_gpu_msm_timing t, b;
    typename H::jac ones;
    size_t m = 0;
    if ((st = sparse_split(p, scalars, n, &t)) != CUZK_OK) return st;
    if ((st = bits_run<typename H::F>(p, (const uint64_t *)p->vals[1], n, &m)) != CUZK_OK)
        return st;
    bits_result<H>(p, m, &ones);
    b = p->last;
    if ((st = msm_run<typename H::F>(p, (const cuzk_scalar *)p->scalars, n)) != CUZK_OK) return st;
    msm_result<H>(p, r);
    H::add(r, &ones);
    sparse_timing(p, &t, &b);
    return CUZK_OK;
}

extern "C" cuzk_status cuzk_gpu_g1_msm_sparse(cuzk_gpu_ctx *ctx, cuzk_gpu_msm_plan *p,
                                              const cuzk_scalar *scalars, size_t n,
                                              cuzk_g1_jac *r)
{
    return sparse_call<HostG1>(ctx, p, scalars, n, r);
}

extern "C" cuzk_status cuzk_gpu_g2_msm_sparse(cuzk_gpu_ctx *ctx, cuzk_gpu_msm_plan *p,
                                              const cuzk_scalar *scalars, size_t n,
                                              cuzk_g2_jac *r)
{
    return sparse_call<HostG2>(ctx, p, scalars, n, r);
}

/* --------------------------------------------------------- pinned memory -- */

extern "C" cuzk_status cuzk_gpu_host_alloc(void **ptr, size_t bytes)
{
    if (!ptr || bytes == 0) return CUZK_ERR_INVALID_ARGUMENT;
    CUZK_CUDA_TRY(cudaMallocHost(ptr, bytes));
    return CUZK_OK;
}

extern "C" void cuzk_gpu_host_free(void *ptr)
{
    if (ptr) (void)cudaFreeHost(ptr);
    (void)cudaGetLastError();
}
