/* cuzk — G1 and G2 MSM on the GPU with device-resident points
 * (include/cuzk/gpu.h, "MSM"): the host code both groups share: window
 * choice, the plan (all device memory of an MSM, from the context's pool),
 * start, finish and timing. The kernels and launch sequences are templates
 * in msm_impl.cuh, compiled per group in msm_g1.cu and msm_g2.cu and
 * reached through msm_group_ops. */
extern "C" {
#include <cuzk/ec.h>
#include <cuzk/ff.h>
#include <cuzk/msm.h>
}

#include <stdlib.h>
#include <string.h>

#include <cub/cub.cuh>

#include "gpu/gpu_testing.h"
#include "gpu/msm_plan.cuh"

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

extern "C" unsigned cuzk_gpu_msm_window(size_t n, unsigned flags)
{
    return flags & CUZK_GPU_MSM_PRECOMPUTE ? msm_choose_c_pre(n) : msm_choose_c(n);
}

static const msm_group_ops *group_ops(cuzk_gpu_group grp)
{
    return grp == CUZK_GPU_G1 ? &msm_g1_ops : &msm_g2_ops;
}

size_t gpu_msm_local_bytes(void)
{
    size_t g1 = msm_g1_ops.local_bytes(), g2 = msm_g2_ops.local_bytes();
    return g1 > g2 ? g1 : g2;
}

/* The plan's call is over (finished, or the plan destroyed). */
static void call_end(cuzk_gpu_msm_plan *p)
{
    if (p->shared && p->call != CALL_NONE && p->call_n) p->shared->busy--;
    p->call = CALL_NONE;
}

extern "C" void cuzk_gpu_msm_plan_destroy(cuzk_gpu_msm_plan *p)
{
    if (!p) return;
    /* Errors here cannot be reported; each release is attempted. */
    gpu_ctx_quiesce(p->ctx);
    call_end(p);
    gpu_pool_free(p->ctx, p->mem);
    if (p->host) (void)cudaFreeHost(p->host);
    for (int k = 0; k < PH_COUNT; k++)
        for (int i = 0; i < EV_COUNT; i++)
            if (p->ev[k][i]) (void)cudaEventDestroy(p->ev[k][i]);
    if (p->ev_done) (void)cudaEventDestroy(p->ev_done);
    (void)cudaGetLastError();
    free(p);
}

/* A plan's geometry and the sizes of its arrays, from its options. The
 * plan's own memory (own[]) holds what lives as long as the plan: points
 * (or the table), infinity flags, the live bitmap, the subset sums. The
 * scratch (scr[]) holds what one call uses: scalar staging, sort keys and
 * values, CUB's temporary, buckets, partial sums, the reduction's arrays,
 * the batch-affine pieces; it is the plan's own, or borrowed from a
 * cuzk_gpu_msm_scratch shared by several plans. */
enum { OWN_POINTS, OWN_INF, OWN_LIVE, OWN_BITS_TAB, OWN_COUNTER, OWN_COUNT };
enum { SCR_SCALARS, SCR_KEYS0, SCR_KEYS1, SCR_VALS0, SCR_VALS1, SCR_SORT_TMP, SCR_BUCKETS,
       SCR_PIECES, SCR_RED, SCR_AFF, SCR_COUNT };

typedef struct {
    cuzk_gpu_group group;
    unsigned flags;
    cuzk_gpu_msm_acc acc; /* never DEFAULT */
    unsigned fp64_share;
    msm_geom g, rg;
    unsigned win_batch;   /* windows sorted at once */
    size_t n, m, nchunks_max, aff_bytes, xyzz_bytes, sort_tmp_bytes; /* m: entries of one sort */
    size_t own[OWN_COUNT], scr[SCR_COUNT];
    size_t own_bytes, scr_bytes; /* the arrays, each 256-byte aligned */
} plan_layout;

/* The reduction's elements for the windows rg: its seg and tree (2 nwin t1
 * each, msm.cuh) and win (2 nwin: the S_w, then the U_w). */
static size_t red_elems(const msm_geom *rg)
{
    return (size_t)4 * rg->nwin * rg->t1 + (size_t)2 * rg->nwin;
}

/* seg, tree and win in p->red for the windows rg (red_elems(rg) <= red_n). */
static void red_layout(cuzk_gpu_msm_plan *p, const msm_geom *rg)
{
    size_t half = (size_t)2 * rg->nwin * rg->t1 * p->xyzz_bytes;
    p->seg = p->red;
    p->tree = (uint4 *)((char *)p->seg + half);
    p->win = (uint4 *)((char *)p->tree + half);
}

static cuzk_status layout_make(plan_layout *L, const cuzk_gpu_msm_opts *o, size_t n, char *err)
{
    if (!o || n == 0 || n > ((size_t)1 << 31))
        return cuzk_gpu_errf(err, CUZK_ERR_INVALID_ARGUMENT, "msm plan: %zu points", n);
    if (o->group != CUZK_GPU_G1 && o->group != CUZK_GPU_G2)
        return cuzk_gpu_errf(err, CUZK_ERR_INVALID_ARGUMENT, "msm plan: group %d",
                             (int)o->group);
    if (o->flags & ~(CUZK_GPU_MSM_PRECOMPUTE | CUZK_GPU_MSM_BITS_TABLE))
        return cuzk_gpu_errf(err, CUZK_ERR_INVALID_ARGUMENT, "msm plan: flags %#x", o->flags);
    if ((unsigned)o->acc > (unsigned)CUZK_GPU_MSM_BATCH_AFFINE)
        return cuzk_gpu_errf(err, CUZK_ERR_INVALID_ARGUMENT, "msm plan: accumulation %d",
                             (int)o->acc);
    if (o->fp64_share > CUZK_GPU_MSM_FP64_MAX)
        return cuzk_gpu_errf(err, CUZK_ERR_INVALID_ARGUMENT, "msm plan: fp64 share %u (at most %u)",
                             o->fp64_share, CUZK_GPU_MSM_FP64_MAX);
    if (o->fp64_share && o->acc == CUZK_GPU_MSM_XYZZ)
        return cuzk_gpu_errf(err, CUZK_ERR_INVALID_ARGUMENT,
                             "msm plan: an fp64 share is for batch-affine plans only");
    memset(L, 0, sizeof *L);
    unsigned flags = o->flags, c = o->c;
    int pre = (flags & CUZK_GPU_MSM_PRECOMPUTE) != 0;
    if (c == 0) c = pre ? msm_choose_c_pre(n) : msm_choose_c(n);
    if (c < 8 || c > (pre ? MSM_PRE_C_MAX : 23))
        return cuzk_gpu_errf(err, CUZK_ERR_INVALID_ARGUMENT, "msm plan: window %u", c);
    if (pre) {
        msm_geom_init_pre(&L->g, &L->rg, c, n, MSM_PRE_VBITS);
    } else {
        msm_geom_init(&L->g, c);
        L->rg = L->g;
    }
    size_t m = (size_t)L->g.nwin * n;
    /* A table entry's index takes 31 bits of a sort value: nwin n <= 2^31
     * (2^31 G1 points are 206 GB, more than any device holds). */
    if (pre && m > ((size_t)1 << 31))
        return cuzk_gpu_errf(err, CUZK_ERR_NO_MEMORY, "msm plan: table of %zu points", m);
    /* Windows in batches: a plain plan's only (a precomputed plan's windows
     * share their buckets), at least 2 windows a batch (the bitmap sums'
     * partials need the pieces of 2 n entries). */
    L->win_batch = L->g.nwin;
    if (o->window_batches > 1) {
        if (pre)
            return cuzk_gpu_errf(err, CUZK_ERR_INVALID_ARGUMENT,
                                 "msm plan: window batches with precomputed windows");
        unsigned wb = (L->g.nwin + o->window_batches - 1) / o->window_batches;
        L->win_batch = wb < 2 ? 2 : wb < L->g.nwin ? wb : L->g.nwin;
        m = (size_t)L->win_batch * n;
    }
    if (m > 0xffffffffull - MSM_CHUNK)
        return cuzk_gpu_errf(err, CUZK_ERR_INVALID_ARGUMENT, "msm plan: %zu sort entries", m);
    L->group = o->group;
    L->flags = flags;
    L->acc = o->acc == CUZK_GPU_MSM_XYZZ ? CUZK_GPU_MSM_XYZZ : CUZK_GPU_MSM_BATCH_AFFINE;
    L->fp64_share = o->fp64_share;
    L->aff_bytes = o->group == CUZK_GPU_G1 ? sizeof(cuzk_g1_affine) : sizeof(cuzk_g2_affine);
    L->xyzz_bytes = o->group == CUZK_GPU_G1 ? sizeof(cuzk_g1_xyzz) : sizeof(cuzk_g2_xyzz);
    L->n = n;
    L->m = m; /* of one batch */
    L->nchunks_max = (m + MSM_CHUNK - 1) / MSM_CHUNK;
    {
        /* CUB's scratch for the largest sort, and for the bitmap sum's scan
         * (the same memory: the two never run at once). Size queries only:
         * nothing runs on the stream. */
        cub::DoubleBuffer<uint32_t> dk(nullptr, nullptr), dv(nullptr, nullptr);
        size_t scan_bytes = 0;
        CUZK_CUDA_TRY(err, cub::DeviceRadixSort::SortPairs(nullptr, L->sort_tmp_bytes, dk, dv,
                                                            (uint32_t)m, 0, (int)L->g.keybits,
                                                            (cudaStream_t)0));
        CUZK_CUDA_TRY(err, cub::DeviceScan::ExclusiveSum(nullptr, scan_bytes, (uint32_t *)nullptr,
                                                          (uint32_t *)nullptr,
                                                          (int)((n + 63) / 64), (cudaStream_t)0));
        if (scan_bytes > L->sort_tmp_bytes) L->sort_tmp_bytes = scan_bytes;
    }
    const msm_geom &rg = L->rg;
    size_t X = L->xyzz_bytes;
    L->own[OWN_POINTS] = (pre ? m : n) * L->aff_bytes;
    L->own[OWN_INF] = n;
    L->own[OWN_LIVE] = (n + 63) / 64 * 8;
    L->own[OWN_BITS_TAB] =
        flags & CUZK_GPU_MSM_BITS_TABLE ? (n + 3) / 4 * MSM_SUBSETS * L->aff_bytes : 0;
    L->own[OWN_COUNTER] = sizeof(uint32_t);
    L->scr[SCR_SCALARS] = n * 32;
    L->scr[SCR_KEYS0] = L->scr[SCR_KEYS1] = L->scr[SCR_VALS0] = L->scr[SCR_VALS1] =
        (m + MSM_AFF_STEP_PAD) * 4;
    L->scr[SCR_SORT_TMP] = L->sort_tmp_bytes;
    L->scr[SCR_BUCKETS] = (size_t)rg.nwin * rg.nb * X;
    L->scr[SCR_PIECES] = 2 * L->nchunks_max * X;
    L->scr[SCR_RED] = red_elems(&rg) * X;
    L->scr[SCR_AFF] =
        L->acc == CUZK_GPU_MSM_BATCH_AFFINE ? 2 * msm_aff_streams_held(m) * L->aff_bytes : 0;
    for (int i = 0; i < OWN_COUNT; i++) L->own_bytes += msm_align256(L->own[i]);
    for (int i = 0; i < SCR_COUNT; i++) L->scr_bytes += msm_align256(L->scr[i]);
    return CUZK_OK;
}

extern "C" cuzk_status cuzk_gpu_msm_scratch_bytes(size_t *bytes, const cuzk_gpu_msm_opts *opts,
                                                  size_t n, char *err)
{
    gpu_err_clear(err);
    if (!bytes) return cuzk_gpu_errf(err, CUZK_ERR_INVALID_ARGUMENT, "msm scratch: NULL argument");
    plan_layout L;
    cuzk_status st = layout_make(&L, opts, n, err);
    if (st == CUZK_OK) *bytes = L.scr_bytes;
    return st;
}

extern "C" cuzk_status cuzk_gpu_msm_scratch_create(cuzk_gpu_msm_scratch **out, cuzk_gpu_ctx *ctx,
                                                   size_t bytes, char *err)
{
    gpu_err_clear(err);
    if (!out || !ctx || bytes == 0)
        return cuzk_gpu_errf(err, CUZK_ERR_INVALID_ARGUMENT, "msm scratch: bad argument");
    cuzk_gpu_msm_scratch *s = (cuzk_gpu_msm_scratch *)calloc(1, sizeof *s);
    if (!s) return cuzk_gpu_errf(err, CUZK_ERR_NO_MEMORY, "msm scratch: host memory");
    s->ctx = ctx;
    cuzk_status st = gpu_pool_alloc(ctx, &s->mem, bytes, "msm scratch", err);
    if (st != CUZK_OK) {
        free(s);
        return st;
    }
    s->bytes = bytes;
    *out = s;
    return CUZK_OK;
}

extern "C" void cuzk_gpu_msm_scratch_destroy(cuzk_gpu_msm_scratch *s)
{
    if (!s) return;
    gpu_ctx_quiesce(s->ctx);
    gpu_pool_free(s->ctx, s->mem);
    free(s);
}

/* Allocates a plan for n points (uninitialised points; a precomputed plan:
 * uninitialised table) with the options o: its own memory from the pool,
 * its scratch from the pool or from o->scratch. */
static cuzk_status plan_alloc(cuzk_gpu_msm_plan **out, cuzk_gpu_ctx *ctx,
                              const cuzk_gpu_msm_opts *o, size_t n, char *err)
{
    if (!ctx || !out)
        return cuzk_gpu_errf(err, CUZK_ERR_INVALID_ARGUMENT, "msm plan: NULL argument");
    plan_layout L;
    cuzk_status st = layout_make(&L, o, n, err);
    if (st != CUZK_OK) return st;
    cuzk_gpu_msm_scratch *shared = o->scratch;
    if (shared) {
        if (shared->ctx != ctx)
            return cuzk_gpu_errf(err, CUZK_ERR_INVALID_ARGUMENT,
                                 "msm plan: the scratch belongs to another context");
        if (shared->busy)
            return cuzk_gpu_errf(err, CUZK_ERR_INVALID_ARGUMENT,
                                 "msm plan: its scratch is in use by an MSM in flight");
        if (shared->bytes < L.scr_bytes)
            return cuzk_gpu_errf(err, CUZK_ERR_INVALID_ARGUMENT,
                                 "msm plan: the shared scratch has %zu bytes, %zu needed",
                                 shared->bytes, L.scr_bytes);
    }
    CUZK_CUDA_TRY(err, cudaSetDevice(ctx->device));

    cuzk_gpu_msm_plan *p = (cuzk_gpu_msm_plan *)calloc(1, sizeof *p);
    if (!p) return cuzk_gpu_errf(err, CUZK_ERR_NO_MEMORY, "msm plan: host memory");
    p->ctx = ctx;
    p->group = L.group;
    p->acc = L.acc;
    p->fp64_share = L.fp64_share;
    /* Step-major keys and values: the G1 accumulation -2%, G2 -0.8% on the
     * H200 (docs/perf.md, "The keys and values in step-major order"). */
    p->aff_step_major = true;
    p->aff_bytes = L.aff_bytes;
    p->xyzz_bytes = L.xyzz_bytes;
    p->n = n;
    p->flags = L.flags;
    p->g = L.g;
    p->rg = L.rg;
    p->win_batch = L.win_batch;
    p->nchunks_max = L.nchunks_max;
    p->sort_tmp_bytes = L.sort_tmp_bytes;
    p->shared = shared;

    int pre = (L.flags & CUZK_GPU_MSM_PRECOMPUTE) != 0;
    size_t X = p->xyzz_bytes;
    size_t nwin_host = pre ? 2 * (size_t)L.rg.nwin : L.g.nwin;
    if (nwin_host < MSM_NWIN_MAX) nwin_host = MSM_NWIN_MAX; /* a call's own windows */
    size_t win_bytes = msm_align256(nwin_host * X);
    cudaError_t e = cudaMallocHost(&p->host, win_bytes + MSM_HOST_SUMS * X + 256);
    for (int k = 0; k < PH_COUNT && e == cudaSuccess; k++)
        for (int i = 0; i < EV_COUNT && e == cudaSuccess; i++) e = cudaEventCreate(&p->ev[k][i]);
    if (e == cudaSuccess) e = cudaEventCreateWithFlags(&p->ev_done, cudaEventDisableTiming);
    if (e != cudaSuccess) {
        st = cuzk_gpu_fail(err, e, "msm plan: host buffers and events");
        cuzk_gpu_msm_plan_destroy(p);
        return st;
    }
    size_t total = L.own_bytes + (shared ? 0 : L.scr_bytes);
    if ((st = gpu_pool_alloc(ctx, &p->mem, total, "msm plan", err)) != CUZK_OK) {
        cuzk_gpu_msm_plan_destroy(p);
        return st;
    }
    p->mem_bytes = total;
    p->win_host = p->host;
    p->part_host = (char *)p->host + win_bytes;
    p->count_host = (uint32_t *)((char *)p->part_host + MSM_HOST_SUMS * X);
    char *b = (char *)p->mem, *own[OWN_COUNT], *scr[SCR_COUNT];
    for (int i = 0; i < OWN_COUNT; i++) own[i] = b, b += msm_align256(L.own[i]);
    p->scratch = shared ? shared->mem : b;
    p->scratch_bytes = shared ? shared->bytes : L.scr_bytes;
    b = (char *)p->scratch;
    for (int i = 0; i < SCR_COUNT; i++) scr[i] = b, b += msm_align256(L.scr[i]);
    p->points = (uint4 *)own[OWN_POINTS];
    p->inf = (uint8_t *)own[OWN_INF];
    p->live = (uint64_t *)own[OWN_LIVE];
    p->bits_tab = L.own[OWN_BITS_TAB] ? (uint4 *)own[OWN_BITS_TAB] : NULL;
    p->counter = (uint32_t *)own[OWN_COUNTER];
    p->scalars = (uint4 *)scr[SCR_SCALARS];
    p->keys[0] = (uint32_t *)scr[SCR_KEYS0];
    p->keys[1] = (uint32_t *)scr[SCR_KEYS1];
    p->vals[0] = (uint32_t *)scr[SCR_VALS0];
    p->vals[1] = (uint32_t *)scr[SCR_VALS1];
    p->sort_tmp = scr[SCR_SORT_TMP];
    p->buckets = (uint4 *)scr[SCR_BUCKETS];
    p->pieces = (uint4 *)scr[SCR_PIECES];
    p->red = (uint4 *)scr[SCR_RED];
    p->red_n = L.scr[SCR_RED] / X;
    red_layout(p, &L.rg);
    p->aff_pieces = L.scr[SCR_AFF] ? (uint4 *)scr[SCR_AFF] : NULL;
    p->aff_streams_max = L.scr[SCR_AFF] ? msm_aff_streams_held(L.m) : 0;
    *out = p;
    return CUZK_OK;
}

extern "C" cuzk_status cuzk_gpu_msm_plan_create(cuzk_gpu_msm_plan **plan, cuzk_gpu_ctx *ctx,
                                                const cuzk_gpu_msm_opts *opts, const void *points,
                                                size_t n, char *err)
{
    gpu_err_clear(err);
    if (!plan || !points)
        return cuzk_gpu_errf(err, CUZK_ERR_INVALID_ARGUMENT, "msm plan: NULL argument");
    cuzk_gpu_msm_plan *p = NULL;
    cuzk_status st = plan_alloc(&p, ctx, opts, n, err);
    if (st != CUZK_OK) return st;
    cudaError_t e = cudaMemcpyAsync(p->points, points, n * p->aff_bytes, cudaMemcpyHostToDevice,
                                    gpu_setup_stream(ctx));
    if (e != cudaSuccess) st = cuzk_gpu_fail(err, e, "msm plan: points upload");
    if (st == CUZK_OK) st = group_ops(p->group)->init(p, err);
    if (st != CUZK_OK) {
        cuzk_gpu_msm_plan_destroy(p);
        return st;
    }
    *plan = p;
    return CUZK_OK;
}

extern "C" cuzk_status cuzk_gpu_msm_plan_create_seq(cuzk_gpu_msm_plan **plan, cuzk_gpu_ctx *ctx,
                                                    const cuzk_gpu_msm_opts *opts, size_t n,
                                                    const void *base, const void *step, char *err)
{
    gpu_err_clear(err);
    if (!plan || !opts || !base || !step)
        return cuzk_gpu_errf(err, CUZK_ERR_INVALID_ARGUMENT, "msm plan: NULL argument");
    int inf = opts->group == CUZK_GPU_G1
                  ? cuzk_g1_affine_is_inf((const cuzk_g1_affine *)base) ||
                        cuzk_g1_affine_is_inf((const cuzk_g1_affine *)step)
                  : cuzk_g2_affine_is_inf((const cuzk_g2_affine *)base) ||
                        cuzk_g2_affine_is_inf((const cuzk_g2_affine *)step);
    if (inf) return cuzk_gpu_errf(err, CUZK_ERR_INVALID_ARGUMENT, "msm plan: base or step at infinity");
    cuzk_gpu_msm_plan *p = NULL;
    cuzk_status st = plan_alloc(&p, ctx, opts, n, err);
    if (st != CUZK_OK) return st;
    st = group_ops(p->group)->gen(p, base, step, err);
    if (st == CUZK_OK) st = group_ops(p->group)->init(p, err);
    if (st != CUZK_OK) {
        cuzk_gpu_msm_plan_destroy(p);
        return st;
    }
    *plan = p;
    return CUZK_OK;
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

extern "C" cuzk_gpu_msm_acc cuzk_gpu_msm_plan_acc(const cuzk_gpu_msm_plan *p)
{
    return p ? p->acc : CUZK_GPU_MSM_ACC_DEFAULT;
}

extern "C" float cuzk_gpu_msm_plan_table_ms(const cuzk_gpu_msm_plan *p)
{
    return p ? p->table_ms : 0;
}

extern "C" cuzk_status cuzk_gpu_msm_plan_timing(const cuzk_gpu_msm_plan *p,
                                                cuzk_gpu_msm_timing *t, char *err)
{
    gpu_err_clear(err);
    if (!p || !t) return cuzk_gpu_errf(err, CUZK_ERR_INVALID_ARGUMENT, "msm timing: NULL argument");
    *t = p->last;
    return CUZK_OK;
}

/* ------------------------------------------------------- start, finish -- */

/* The windows of the call p->call over n scalars: the plan's, except for a
 * compacted sparse call, whose rest (a witness: ~1% of n) is sorted and
 * reduced with the plain windows its bound chooses when that geometry's
 * arrays fit the plan's scratch. On a precomputed plan they read the
 * table's first part (the points), so such a call no longer reduces the
 * table's 2^(c-1) buckets for a few thousand entries: 2^20 31.5 -> 18.7
 * ms a proof, 2^24 180.0 -> 150.2 (docs/perf.md, "Own windows for compact
 * calls on precomputed plans"). The plan's c is chosen for n
 * (22 for porep-32g's 130 M variables), and the buckets of its windows
 * (12 x 2^21) cost ~30 ms of G1 reduction whatever the rest; its 1.43 M
 * rest gets c = 17, 15 x 2^16 buckets (msm_choose_c's cost model: 8.8e7
 * units against 2.4e7). Measured on the H200: the partition's MSMs 1043
 * -> 913 ms (docs/perf.md, "The sparse MSMs' rest on its own windows"). */
static void call_geometry(cuzk_gpu_msm_plan *p, size_t n)
{
    p->cg = p->g;
    p->crg = p->rg;
    p->call_wb = p->win_batch;
    red_layout(p, &p->rg);
    if (!p->call_compact) return;
    unsigned c = msm_choose_c(p->call_bound);
    if (c >= p->g.c) return;
    msm_geom g;
    msm_geom_init(&g, c);
    size_t b = p->call_bound, m = (size_t)g.nwin * b, room = (size_t)p->win_batch * n * 4;
    /* Every window at once: keys[0] holds the digits and, beyond them, the
     * compacted scalars and indices; the sort buffers, pieces and affine
     * pieces are then no larger than for the plan's batch of n rows. */
    if (msm_align256(m * 4) + msm_align256(b * 32) + b * 4 > room) return;
    if ((size_t)g.nwin * g.nb > (size_t)p->rg.nwin * p->rg.nb) return;
    /* The plan's reduction arrays are sized for its own windows: longer
     * segments where the call's would not fit (a compact call's windows
     * have more segments than a large plan's: session 12's full-size run
     * fell back to the plan's 2^21-bucket windows for the sparse rests,
     * +107 ms of MSMs). */
    while (red_elems(&g) > p->red_n && g.s1 < g.nb) msm_geom_set_s1(&g, 2 * g.s1);
    if (red_elems(&g) > p->red_n) return;
    size_t tmp = 0;
    cub::DoubleBuffer<uint32_t> dk(nullptr, nullptr), dv(nullptr, nullptr);
    if (cub::DeviceRadixSort::SortPairs(nullptr, tmp, dk, dv, (uint32_t)m, 0, (int)g.keybits,
                                        (cudaStream_t)0) != cudaSuccess ||
        tmp > p->sort_tmp_bytes) {
        (void)cudaGetLastError();
        return;
    }
    p->cg = p->crg = g;
    p->call_wb = g.nwin;
    red_layout(p, &g);
}

static cuzk_status msm_start(cuzk_gpu_msm_plan *p, unsigned stream, int call, const void *in,
                             size_t n, size_t bound, char *err)
{
    gpu_err_clear(err);
    if (!p || n > p->n || (n && !in))
        return cuzk_gpu_errf(err, CUZK_ERR_INVALID_ARGUMENT, "msm start: bad argument");
    if (p->call != CALL_NONE)
        return cuzk_gpu_errf(err, CUZK_ERR_INVALID_ARGUMENT,
                             "msm start: the plan's last MSM is not finished");
    cudaStream_t s = gpu_stream(p->ctx, stream, err);
    if (!s) return CUZK_ERR_INVALID_ARGUMENT;
    if (p->shared && p->shared->busy && p->shared->stream != stream)
        return cuzk_gpu_errf(err, CUZK_ERR_INVALID_ARGUMENT,
                             "msm start: a plan sharing this scratch has an MSM in flight on "
                             "stream %u, not %u",
                             p->shared->stream, stream);
    CUZK_CUDA_TRY(err, cudaSetDevice(p->ctx->device));
    memset(&p->last, 0, sizeof p->last);
    p->call = call;
    p->call_n = n;
    p->call_bound = bound;
    p->call_compact = call == CALL_SPARSE && msm_compact_fits(p->win_batch, n, bound);
    call_geometry(p, n);
    p->part_m = 0;
    if (n == 0) return CUZK_OK;
    cuzk_status st = group_ops(p->group)->enqueue(p, s, in, n, err);
    if (st != CUZK_OK) {
        /* What was enqueued may still run: wait for it before the plan is
         * used again. */
        (void)cudaStreamSynchronize(s);
        (void)cudaGetLastError();
        p->call = CALL_NONE;
    } else if (p->shared) {
        p->shared->busy++;
        p->shared->stream = stream;
    }
    return st;
}


extern "C" cuzk_status cuzk_gpu_msm_start_var(cuzk_gpu_msm_plan *p, unsigned stream,
                                          const cuzk_scalar *scalars, size_t n, char *err)
{
    return msm_start(p, stream, CALL_MSM, scalars, n, n, err);
}

extern "C" cuzk_status cuzk_gpu_msm_bits_start_var(cuzk_gpu_msm_plan *p, unsigned stream,
                                               const uint64_t *bits, size_t n, char *err)
{
    return msm_start(p, stream, CALL_BITS, bits, n, n, err);
}

extern "C" cuzk_status cuzk_gpu_msm_sparse_start_var(cuzk_gpu_msm_plan *p, unsigned stream,
                                                 const cuzk_scalar *scalars, size_t n, char *err)
{
    return msm_start(p, stream, CALL_SPARSE, scalars, n, n, err);
}

extern "C" cuzk_status cuzk_gpu_msm_sparse_start_bounded_var(cuzk_gpu_msm_plan *p,
                                                             unsigned stream,
                                                             const cuzk_scalar *scalars, size_t n,
                                                             size_t max_rest, char *err)
{
    return msm_start(p, stream, CALL_SPARSE, scalars, n, max_rest, err);
}

/* The stage times of phase ph into t (the layout of cuzk_gpu_msm_timing):
 * an MSM's five stages; a bitmap sum's upload, counting (as sort), partial
 * sums (accumulate) and folding (reduce); a split's upload and split (as
 * digits). */
static cuzk_status phase_times(const cuzk_gpu_msm_plan *p, int ph, cuzk_gpu_msm_timing *t,
                               char *err)
{
    cudaEvent_t const *ev = p->ev[ph];
    float ms[EV_COUNT] = {0};
    memset(t, 0, sizeof *t);
    for (int i = 1; i < EV_COUNT; i++) {
        if (ph == PH_SPLIT && i > EV_DIGITS) break;
        if (ph == PH_BITS && i == EV_DIGITS) continue;
        int from = ph == PH_BITS && i == EV_SORT ? EV_UPLOAD : i - 1;
        CUZK_CUDA_TRY(err, cudaEventElapsedTime(&ms[i], ev[from], ev[i]));
    }
    t->upload = ms[EV_UPLOAD];
    t->digits = ms[EV_DIGITS];
    t->sort = ms[EV_SORT];
    t->accumulate = ms[EV_ACC];
    t->reduce = ms[EV_REDUCE];
    return CUZK_OK;
}

static cuzk_status call_times(cuzk_gpu_msm_plan *p, char *err)
{
    cuzk_gpu_msm_timing a, b, *l = &p->last;
    cuzk_status st;
    memset(l, 0, sizeof *l);
    if (p->call == CALL_MSM || p->call == CALL_SPARSE) {
        if ((st = phase_times(p, PH_MSM, &a, err)) != CUZK_OK) return st;
        *l = a;
    }
    if (p->call == CALL_BITS || p->call == CALL_SPARSE) {
        if ((st = phase_times(p, PH_BITS, &b, err)) != CUZK_OK) return st;
        l->upload += b.upload;
        l->sort += b.sort;
        l->accumulate += b.accumulate;
        l->reduce += b.reduce;
    }
    if (p->call == CALL_SPARSE) {
        if ((st = phase_times(p, PH_SPLIT, &a, err)) != CUZK_OK) return st;
        l->upload += a.upload;
        l->digits += a.digits;
    }
    l->total = l->upload + l->digits + l->sort + l->accumulate + l->reduce;
    return CUZK_OK;
}

static cuzk_status msm_finish(void *r, cuzk_gpu_msm_plan *p, cuzk_gpu_group grp, char *err)
{
    gpu_err_clear(err);
    if (!p || !r || p->group != grp)
        return cuzk_gpu_errf(err, CUZK_ERR_INVALID_ARGUMENT, "msm finish: bad argument");
    if (p->call == CALL_NONE)
        return cuzk_gpu_errf(err, CUZK_ERR_INVALID_ARGUMENT, "msm finish: no MSM started");
    cuzk_status st = CUZK_OK;
    if (p->call_n == 0) {
        if (grp == CUZK_GPU_G1)
            cuzk_g1_jac_set_inf((cuzk_g1_jac *)r);
        else
            cuzk_g2_jac_set_inf((cuzk_g2_jac *)r);
    } else {
        cudaError_t e = cudaSetDevice(p->ctx->device);
        if (e == cudaSuccess) e = cudaEventSynchronize(p->ev_done);
        if (e != cudaSuccess)
            st = cuzk_gpu_fail(err, e, "msm finish");
        else if (p->call_compact && *p->count_host > p->call_bound)
            st = cuzk_gpu_errf(err, CUZK_ERR_INVALID_ARGUMENT,
                               "msm sparse: %u scalars are neither 0 nor 1, more than the bound "
                               "%zu",
                               *p->count_host, p->call_bound);
        else
            st = call_times(p, err);
        if (st == CUZK_OK) group_ops(grp)->result(p, r);
    }
    call_end(p);
    return st;
}

extern "C" cuzk_status cuzk_gpu_g1_msm_finish(cuzk_g1_jac *r, cuzk_gpu_msm_plan *p, char *err)
{
    return msm_finish(r, p, CUZK_GPU_G1, err);
}

extern "C" cuzk_status cuzk_gpu_g2_msm_finish(cuzk_g2_jac *r, cuzk_gpu_msm_plan *p, char *err)
{
    return msm_finish(r, p, CUZK_GPU_G2, err);
}

/* ------------------------------------------------- synchronous forms -- */

static cuzk_status msm_sync(void *r, cuzk_gpu_msm_plan *p, cuzk_gpu_group grp, unsigned stream,
                            int call, const void *in, size_t n, char *err)
{
    if (!r || !p || p->group != grp)
        return cuzk_gpu_errf(err, CUZK_ERR_INVALID_ARGUMENT, "msm: bad argument");
    cuzk_status st = msm_start(p, stream, call, in, n, n, err);
    if (st != CUZK_OK) return st;
    return msm_finish(r, p, grp, err);
}

extern "C" cuzk_status cuzk_gpu_g1_msm_var(cuzk_g1_jac *r, cuzk_gpu_msm_plan *p, unsigned stream,
                                       const cuzk_scalar *scalars, size_t n, char *err)
{
    return msm_sync(r, p, CUZK_GPU_G1, stream, CALL_MSM, scalars, n, err);
}

extern "C" cuzk_status cuzk_gpu_g2_msm_var(cuzk_g2_jac *r, cuzk_gpu_msm_plan *p, unsigned stream,
                                       const cuzk_scalar *scalars, size_t n, char *err)
{
    return msm_sync(r, p, CUZK_GPU_G2, stream, CALL_MSM, scalars, n, err);
}

extern "C" cuzk_status cuzk_gpu_g1_msm_bits_var(cuzk_g1_jac *r, cuzk_gpu_msm_plan *p, unsigned stream,
                                            const uint64_t *bits, size_t n, char *err)
{
    return msm_sync(r, p, CUZK_GPU_G1, stream, CALL_BITS, bits, n, err);
}

extern "C" cuzk_status cuzk_gpu_g2_msm_bits_var(cuzk_g2_jac *r, cuzk_gpu_msm_plan *p, unsigned stream,
                                            const uint64_t *bits, size_t n, char *err)
{
    return msm_sync(r, p, CUZK_GPU_G2, stream, CALL_BITS, bits, n, err);
}

extern "C" cuzk_status cuzk_gpu_g1_msm_sparse_var(cuzk_g1_jac *r, cuzk_gpu_msm_plan *p,
                                              unsigned stream, const cuzk_scalar *scalars,
                                              size_t n, char *err)
{
    return msm_sync(r, p, CUZK_GPU_G1, stream, CALL_SPARSE, scalars, n, err);
}

extern "C" cuzk_status cuzk_gpu_g2_msm_sparse_var(cuzk_g2_jac *r, cuzk_gpu_msm_plan *p,
                                              unsigned stream, const cuzk_scalar *scalars,
                                              size_t n, char *err)
{
    return msm_sync(r, p, CUZK_GPU_G2, stream, CALL_SPARSE, scalars, n, err);
}

/* ---------------------------------------------------- fault injection -- */

extern "C" cuzk_status cuzk_gpu_testing_msm_plan_step_major(cuzk_gpu_msm_plan *p, int on,
                                                            char *err)
{
    gpu_err_clear(err);
    if (!p) return cuzk_gpu_errf(err, CUZK_ERR_INVALID_ARGUMENT, "msm step-major: no plan");
    if (p->call != CALL_NONE)
        return cuzk_gpu_errf(err, CUZK_ERR_INVALID_ARGUMENT,
                             "msm step-major: an MSM is in flight");
    p->aff_step_major = on != 0;
    return CUZK_OK;
}

extern "C" cuzk_status cuzk_gpu_testing_msm_plan_flip(cuzk_gpu_msm_plan *p, size_t index,
                                                      unsigned bit, char *err)
{
    gpu_err_clear(err);
    if (!p || index >= p->n || bit >= 8 * p->aff_bytes)
        return cuzk_gpu_errf(err, CUZK_ERR_INVALID_ARGUMENT, "msm flip: bad argument");
    if (p->call != CALL_NONE)
        return cuzk_gpu_errf(err, CUZK_ERR_INVALID_ARGUMENT, "msm flip: an MSM is in flight");
    CUZK_CUDA_TRY(err, cudaSetDevice(p->ctx->device));
    uint8_t *at = (uint8_t *)p->points + index * p->aff_bytes + bit / 8, v = 0;
    CUZK_CUDA_TRY(err, cudaMemcpy(&v, at, 1, cudaMemcpyDeviceToHost));
    v ^= (uint8_t)(1u << (bit % 8));
    CUZK_CUDA_TRY(err, cudaMemcpy(at, &v, 1, cudaMemcpyHostToDevice));
    return CUZK_OK;
}
