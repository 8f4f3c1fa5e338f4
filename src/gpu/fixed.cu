/* cuzk — fixed-base multiplication on the GPU (include/cuzk/gpu.h,
 * "Fixed-base multiplication"). The method and the per-thread bodies are in
 * fixed.cuh; this file holds the kernel, the table making, and the batch
 * pipeline that moves scalars in and points out. */
extern "C" {
#include <cuzk/ec.h>
#include <cuzk/ff.h>

#include "common/parallel.h"
}

#include <stdlib.h>
#include <string.h>

#include "gpu/fixed.cuh"
#include "gpu/gpu_internal.cuh"

/* Points per device batch. A batch is one launch of one full wave
 * (FIXED_BLOCK x resident blocks x SMs threads, ~K = 21 points a thread for
 * G1 on the H200 at 3 blocks per SM), so the block inversions' latency
 * (~0.2 ms, fixed.cuh) is paid once per ~8 ms (G1, estimated) of
 * additions. Per slot (two slots): 32 B of scalars, one affine point and
 * three field elements of scratch per point on the device (G1 272 MiB,
 * G2 256 MiB), and when staging, scalars and points in pinned host memory
 * (G1 128 MiB, G2 112 MiB). Not yet measured against other sizes. */
#define FIXED_BATCH_G1 ((size_t)1 << 20)
#define FIXED_BATCH_G2 ((size_t)1 << 19)

/* The bootstrap table and the constants c_k (w >= 2: at most 128) are
 * staged in slot 0's scalar buffer while the table is made. */
static_assert((size_t)FIXED_BOOT_NWIN * FIXED_BOOT_HALF * sizeof(cuzk_g2_affine) + 256 +
                      128 * sizeof(cuzk_fr) <=
                  FIXED_BATCH_G2 * sizeof(cuzk_fr),
              "the bootstrap table must fit a scalar buffer");

/* Staging copies between the caller's pageable arrays and the pinned
 * buffers run on all cores above this size (a single thread copies ~5-10
 * GB/s, below the PCIe rate and the kernel's output rate: G1 ~14 GB/s of
 * points, estimated). */
#define FIXED_PAR_COPY ((size_t)8 << 20)
#define FIXED_COPY_CHUNK ((size_t)1 << 20)

/* ------------------------------------------------------------- kernel -- */

/* Minimum resident blocks asked of ptxas (it caps the registers at
 * 65536 / (128 x blocks)). Uncapped, the G1 kernel takes 180 registers
 * (ptxas, sm_90), which leaves 2 blocks (8 warps) per SM; capped for 3
 * blocks it takes 168 with no spills (the thread's running product lives
 * in its shared-memory leaf, not in registers). 12 warps per SM is what
 * the MSM accumulation, the same mixed additions, runs with (docs/perf.md).
 * G2 takes 255 registers and a 512-byte stack frame either way (2 blocks).
 * Not yet measured against the uncapped kernel. */
template <class F>
struct fixed_tune {
    static constexpr int min_blocks = 3;
};
template <>
struct fixed_tune<EcFp2> {
    static constexpr int min_blocks = 1;
};

/* One block: the forward pass of each thread, the block's inversion tree
 * in shared memory (G1 12 KiB, G2 24 KiB), the backward pass. Every thread
 * of the launch takes part in the tree (threads without points give 1). */
template <class F>
__global__ void __launch_bounds__(FIXED_BLOCK, fixed_tune<F>::min_blocks)
    fixed_kernel(fixed_args a)
{
    __shared__ typename F::E tree[2 * FIXED_BLOCK];
    unsigned t = threadIdx.x;
    size_t g = (size_t)blockIdx.x * FIXED_BLOCK + t;
    fixed_forward<F>(a, g, tree[FIXED_BLOCK + t]);
    for (unsigned s = FIXED_BLOCK / 2; s >= 1; s >>= 1) {
        __syncthreads();
        fixed_tree_up<F>(tree, s, t);
    }
    __syncthreads();
    if (t == 0) {
        typename F::E r = tree[1];
        F::inv(r, r);
        tree[1] = r;
    }
    for (unsigned s = 1; s < FIXED_BLOCK; s <<= 1) {
        __syncthreads();
        fixed_tree_down<F>(tree, s, t);
    }
    __syncthreads();
    fixed_backward<F>(a, g, tree[FIXED_BLOCK + t]);
}

/* ----------------------------------------------------------- the object -- */

struct cuzk_gpu_fixed {
    cuzk_gpu_ctx *ctx;
    cuzk_gpu_group grp;
    unsigned w, nwin;
    size_t aff_bytes, elem_bytes; /* G1 96 / 48, G2 192 / 96 */
    size_t batch;                 /* points per device batch */
    size_t tfull;                 /* threads of one full wave of the kernel */
    int regs, local_bytes, blocks_per_sm;
    void *dmem;                   /* one pool allocation: the arrays below */
    size_t dmem_bytes, table_bytes;
    uint4 *table;                 /* nwin 2^(w-1) affine points */
    uint4 *d_scal[2], *d_out[2], *d_scr[2]; /* per slot: batch scalars, points, 3 elements */
    void *hmem;                   /* pinned staging for pageable arrays, owned */
    void *h_scal[2], *h_out[2];
    cudaStream_t st[2];           /* slot s's copies and kernel */
    cudaEvent_t ev_first;         /* before the first kernel of a call */
    cudaEvent_t ev_end[2];        /* after slot s's latest kernel */
    float device_ms;
};

static size_t align256(size_t x) { return (x + 255) & ~(size_t)255; }

extern "C" void cuzk_gpu_fixed_destroy(cuzk_gpu_fixed *f)
{
    if (!f) return;
    /* Errors here cannot be reported; each release is attempted. */
    (void)cudaSetDevice(f->ctx->device);
    for (int s = 0; s < 2; s++)
        if (f->st[s]) (void)cudaStreamSynchronize(f->st[s]);
    gpu_pool_free(f->ctx, f->dmem);
    if (f->hmem) (void)cudaFreeHost(f->hmem);
    if (f->ev_first) (void)cudaEventDestroy(f->ev_first);
    for (int s = 0; s < 2; s++) {
        if (f->ev_end[s]) (void)cudaEventDestroy(f->ev_end[s]);
        if (f->st[s]) (void)cudaStreamDestroy(f->st[s]);
    }
    (void)cudaGetLastError();
    free(f);
}

/* Launches the kernel on slot's stream for a.n points (a.T, a.K set here). */
template <class F>
static cuzk_status fixed_launch(cuzk_gpu_fixed *f, int slot, fixed_args a, char *err)
{
    fixed_shape(a.n, f->tfull, &a.T, &a.K);
    fixed_kernel<F><<<(unsigned)(a.T / FIXED_BLOCK), FIXED_BLOCK, 0, f->st[slot]>>>(a);
    CUZK_CUDA_TRY_LAUNCH(err);
    return CUZK_OK;
}

/* The kernel's resources, and the threads of one full wave. */
template <class F>
static cuzk_status fixed_occupancy(cuzk_gpu_fixed *f, char *err)
{
    cudaFuncAttributes fa;
    CUZK_CUDA_TRY(err, cudaFuncGetAttributes(&fa, fixed_kernel<F>));
    int bpsm = 0, sms = 0;
    CUZK_CUDA_TRY(err, cudaOccupancyMaxActiveBlocksPerMultiprocessor(&bpsm, fixed_kernel<F>,
                                                                     FIXED_BLOCK, 0));
    CUZK_CUDA_TRY(err, cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, f->ctx->device));
    if (bpsm < 1 || sms < 1)
        return cuzk_gpu_fail(err, cudaErrorInvalidConfiguration, "fixed kernel occupancy");
    f->regs = fa.numRegs;
    f->local_bytes = (int)fa.localSizeBytes;
    f->blocks_per_sm = bpsm;
    f->tfull = (size_t)sms * (size_t)bpsm * FIXED_BLOCK;
    return CUZK_OK;
}

/* Makes the table: the bootstrap table (CPU) and the constants c_k go into
 * slot 0's scalar buffer, then the kernel computes the entries
 * d 2^(w k) base in batches straight into the table. Synchronous. */
template <class F>
static cuzk_status fixed_make_table(cuzk_gpu_fixed *f, const void *base, char *err)
{
    typedef typename fixed_cpu<F>::aff aff;
    const size_t nboot = (size_t)FIXED_BOOT_NWIN * FIXED_BOOT_HALF;
    size_t boot_bytes = align256(nboot * sizeof(aff)), ck_bytes = f->nwin * sizeof(cuzk_fr);
    aff *boot = (aff *)malloc(nboot * sizeof(aff));
    cuzk_fr *ck = (cuzk_fr *)malloc(ck_bytes);
    if (!boot || !ck || fixed_cpu_table<F>(boot, (const aff *)base, FIXED_BOOT_W,
                                           FIXED_BOOT_NWIN) != 0) {
        free(boot);
        free(ck);
        return cuzk_gpu_errf(err, CUZK_ERR_NO_MEMORY, "fixed_create: host memory");
    }
    fixed_window_consts(ck, f->w, f->nwin);
    char *dst = (char *)f->d_scal[0];
    cudaError_t e = cudaMemcpyAsync(dst, boot, nboot * sizeof(aff), cudaMemcpyHostToDevice,
                                    f->st[0]);
    if (e == cudaSuccess)
        e = cudaMemcpyAsync(dst + boot_bytes, ck, ck_bytes, cudaMemcpyHostToDevice, f->st[0]);
    if (e == cudaSuccess) e = cudaStreamSynchronize(f->st[0]);
    free(boot);
    free(ck);
    if (e != cudaSuccess) return cuzk_gpu_fail(err, e, "fixed table upload");

    size_t total = (size_t)f->nwin << (f->w - 1);
    constexpr int A4 = ec_aff<F>::U4;
    for (size_t off = 0; off < total; off += f->batch) {
        fixed_args a = fixed_gen_args((const uint4 *)dst, (const uint4 *)(dst + boot_bytes), f->w,
                                      off, total - off < f->batch ? total - off : f->batch,
                                      f->table + off * A4, f->d_scr[0]);
        cuzk_status st = fixed_launch<F>(f, 0, a, err);
        if (st != CUZK_OK) return st;
    }
    CUZK_CUDA_TRY(err, cudaStreamSynchronize(f->st[0]));
    return CUZK_OK;
}

/* The base, checked; NULL gives the group's generator. */
static cuzk_status fixed_base(cuzk_gpu_group grp, const void *base, const void **out, char *err)
{
    if (grp == CUZK_GPU_G1) {
        const cuzk_g1_affine *p = base ? (const cuzk_g1_affine *)base : &CUZK_G1_GENERATOR;
        if (cuzk_g1_affine_is_inf(p) || !cuzk_g1_affine_on_curve(p) ||
            !cuzk_g1_affine_in_subgroup(p))
            return cuzk_gpu_errf(err, CUZK_ERR_INVALID_ARGUMENT, "fixed_create: bad G1 base");
        *out = p;
    } else {
        const cuzk_g2_affine *p = base ? (const cuzk_g2_affine *)base : &CUZK_G2_GENERATOR;
        if (cuzk_g2_affine_is_inf(p) || !cuzk_g2_affine_on_curve(p) ||
            !cuzk_g2_affine_in_subgroup(p))
            return cuzk_gpu_errf(err, CUZK_ERR_INVALID_ARGUMENT, "fixed_create: bad G2 base");
        *out = p;
    }
    return CUZK_OK;
}

extern "C" cuzk_status cuzk_gpu_fixed_create_window(cuzk_gpu_fixed **out, cuzk_gpu_ctx *ctx,
                                                    cuzk_gpu_group grp, const void *base,
                                                    unsigned w, char *err)
{
    gpu_err_clear(err);
    if (!ctx || !out || (grp != CUZK_GPU_G1 && grp != CUZK_GPU_G2))
        return cuzk_gpu_errf(err, CUZK_ERR_INVALID_ARGUMENT, "fixed_create: bad argument");
    if (w == 0) w = CUZK_GPU_FIXED_WINDOW;
    if (w < 2 || w > 22)
        return cuzk_gpu_errf(err, CUZK_ERR_INVALID_ARGUMENT, "fixed_create: window %u", w);
    const void *b = NULL;
    cuzk_status st = fixed_base(grp, base, &b, err);
    if (st != CUZK_OK) return st;
    CUZK_CUDA_TRY(err, cudaSetDevice(ctx->device));

    cuzk_gpu_fixed *f = (cuzk_gpu_fixed *)calloc(1, sizeof *f);
    if (!f) return cuzk_gpu_errf(err, CUZK_ERR_NO_MEMORY, "fixed_create: host memory");
    f->ctx = ctx;
    f->grp = grp;
    f->w = w;
    f->nwin = fixed_nwin(w);
    int g1 = grp == CUZK_GPU_G1;
    f->aff_bytes = g1 ? sizeof(cuzk_g1_affine) : sizeof(cuzk_g2_affine);
    f->elem_bytes = g1 ? sizeof(cuzk_fp) : sizeof(cuzk_fp2);
    f->batch = g1 ? FIXED_BATCH_G1 : FIXED_BATCH_G2;

    cudaError_t e = cudaEventCreate(&f->ev_first);
    for (int s = 0; s < 2 && e == cudaSuccess; s++) {
        e = cudaStreamCreateWithFlags(&f->st[s], cudaStreamNonBlocking);
        if (e == cudaSuccess) e = cudaEventCreate(&f->ev_end[s]);
    }
    f->table_bytes = ((size_t)f->nwin << (w - 1)) * f->aff_bytes;
    size_t sz_scal = align256(f->batch * sizeof(cuzk_fr)), sz_out = align256(f->batch * f->aff_bytes);
    size_t sz_scr = align256(f->batch * 3 * f->elem_bytes);
    f->dmem_bytes = align256(f->table_bytes) + 2 * (sz_scal + sz_out + sz_scr);
    size_t si = align256(f->batch * sizeof(cuzk_fr)), so = align256(f->batch * f->aff_bytes);
    if (e == cudaSuccess) e = cudaMallocHost(&f->hmem, 2 * (si + so));
    if (e != cudaSuccess) {
        f->hmem = NULL;
        st = cuzk_gpu_fail(err, e, "fixed_create: streams and staging");
        cuzk_gpu_fixed_destroy(f);
        return st;
    }
    char *h = (char *)f->hmem;
    for (int k = 0; k < 2; k++) {
        f->h_scal[k] = h;
        f->h_out[k] = h + si;
        h += si + so;
    }
    if ((st = gpu_pool_alloc(ctx, &f->dmem, f->dmem_bytes, "fixed_create", err)) != CUZK_OK) {
        cuzk_gpu_fixed_destroy(f);
        return st;
    }
    char *p = (char *)f->dmem;
    f->table = (uint4 *)p;
    p += align256(f->table_bytes);
    for (int s = 0; s < 2; s++) {
        f->d_scal[s] = (uint4 *)p;
        f->d_out[s] = (uint4 *)(p + sz_scal);
        f->d_scr[s] = (uint4 *)(p + sz_scal + sz_out);
        p += sz_scal + sz_out + sz_scr;
    }
    st = g1 ? fixed_occupancy<EcFp>(f, err) : fixed_occupancy<EcFp2>(f, err);
    if (st == CUZK_OK)
        st = g1 ? fixed_make_table<EcFp>(f, b, err) : fixed_make_table<EcFp2>(f, b, err);
    if (st != CUZK_OK) {
        cuzk_gpu_fixed_destroy(f);
        return st;
    }
    *out = f;
    return CUZK_OK;
}

extern "C" cuzk_status cuzk_gpu_fixed_create(cuzk_gpu_fixed **f, cuzk_gpu_ctx *ctx,
                                             cuzk_gpu_group grp, const void *base, char *err)
{
    return cuzk_gpu_fixed_create_window(f, ctx, grp, base, 0, err);
}

/* ------------------------------------------------------- multiplication -- */

struct copy_job {
    char *dst;
    const char *src;
    size_t bytes;
};

static void copy_range(void *vctx, size_t b, size_t e)
{
    const copy_job *j = (const copy_job *)vctx;
    size_t lo = b * FIXED_COPY_CHUNK, hi = e * FIXED_COPY_CHUNK;
    if (hi > j->bytes) hi = j->bytes;
    memcpy(j->dst + lo, j->src + lo, hi - lo);
}

/* memcpy on all cores when large (see FIXED_PAR_COPY). */
static void par_memcpy(void *dst, const void *src, size_t bytes)
{
    if (bytes < FIXED_PAR_COPY) {
        memcpy(dst, src, bytes);
        return;
    }
    copy_job j = {(char *)dst, (const char *)src, bytes};
    cuzk_parallel_for((bytes + FIXED_COPY_CHUNK - 1) / FIXED_COPY_CHUNK, 2, cuzk_ncores(),
                      copy_range, &j);
}

/* 1 if p is pageable host memory (copied through the pinned staging
 * buffers); 0 for pinned host memory (copied directly). */
static cuzk_status is_pageable(const void *p, int *pageable, char *err)
{
    cudaPointerAttributes pa;
    CUZK_CUDA_TRY(err, cudaPointerGetAttributes(&pa, p));
    *pageable = pa.type == cudaMemoryTypeUnregistered;
    return CUZK_OK;
}

/* The batch pipeline. Batch b runs on slot b % 2: scalars in, kernel,
 * points out, all on the slot's stream; before slot s takes batch b the
 * host waits for its batch b - 2 and copies that batch's points out of the
 * pinned buffer. So the host's staging copies (batch b - 2 out, batch b in)
 * and the PCIe copies of one slot overlap the kernel of the other. The
 * device time is the span from the first kernel's start to the last one's
 * end (per-kernel events would count a kernel's wait for the SMs that the
 * other slot's kernel still holds). */
template <class F>
static cuzk_status fixed_run(cuzk_gpu_fixed *f, char *out, const char *s, size_t n,
                             int stage_in, int stage_out, char *err)
{
    size_t off[2] = {0, 0}, cnt[2] = {0, 0};
    int busy[2] = {0, 0};
    const size_t A = f->aff_bytes, S = sizeof(cuzk_fr);
    size_t nb = (n + f->batch - 1) / f->batch;
    for (size_t b = 0; b < nb + 2; b++) {
        int slot = (int)(b & 1);
        if (busy[slot]) {
            CUZK_CUDA_TRY(err, cudaStreamSynchronize(f->st[slot]));
            float ms = 0;
            CUZK_CUDA_TRY(err, cudaEventElapsedTime(&ms, f->ev_first, f->ev_end[slot]));
            if (ms > f->device_ms) f->device_ms = ms;
            if (stage_out) par_memcpy(out + off[slot] * A, f->h_out[slot], cnt[slot] * A);
            busy[slot] = 0;
        }
        if (b >= nb) continue;
        size_t o = b * f->batch, m = n - o < f->batch ? n - o : f->batch;
        const void *src = s + o * S;
        if (stage_in) {
            par_memcpy(f->h_scal[slot], src, m * S);
            src = f->h_scal[slot];
        }
        cudaStream_t st = f->st[slot];
        CUZK_CUDA_TRY(err, cudaMemcpyAsync(f->d_scal[slot], src, m * S, cudaMemcpyDefault, st));
        if (b == 0) CUZK_CUDA_TRY(err, cudaEventRecord(f->ev_first, st));
        fixed_args a;
        memset(&a, 0, sizeof a);
        a.table = f->table;
        a.w = f->w;
        a.nwin = f->nwin;
        a.scalars = f->d_scal[slot];
        a.n = m;
        a.out = f->d_out[slot];
        a.scratch = f->d_scr[slot];
        cuzk_status rs = fixed_launch<F>(f, slot, a, err);
        if (rs != CUZK_OK) return rs;
        CUZK_CUDA_TRY(err, cudaEventRecord(f->ev_end[slot], st));
        void *dst = stage_out ? f->h_out[slot] : (void *)(out + o * A);
        CUZK_CUDA_TRY(err, cudaMemcpyAsync(dst, f->d_out[slot], m * A, cudaMemcpyDefault, st));
        off[slot] = o;
        cnt[slot] = m;
        busy[slot] = 1;
    }
    return CUZK_OK;
}

extern "C" cuzk_status cuzk_gpu_fixed_mul(void *out, cuzk_gpu_fixed *f, const cuzk_fr *s,
                                          size_t n, char *err)
{
    gpu_err_clear(err);
    if (!f || (n && (!out || !s)))
        return cuzk_gpu_errf(err, CUZK_ERR_INVALID_ARGUMENT, "fixed_mul: bad argument");
    f->device_ms = 0;
    if (n == 0) return CUZK_OK;
    CUZK_CUDA_TRY(err, cudaSetDevice(f->ctx->device));
    int stage_in = 0, stage_out = 0;
    cuzk_status st = is_pageable(s, &stage_in, err);
    if (st == CUZK_OK) st = is_pageable(out, &stage_out, err);
    if (st != CUZK_OK) return st;
    st = f->grp == CUZK_GPU_G1
             ? fixed_run<EcFp>(f, (char *)out, (const char *)s, n, stage_in, stage_out, err)
             : fixed_run<EcFp2>(f, (char *)out, (const char *)s, n, stage_in, stage_out, err);
    if (st != CUZK_OK) {
        /* No copy into the caller's memory may outlive the call. */
        for (int k = 0; k < 2; k++) (void)cudaStreamSynchronize(f->st[k]);
        (void)cudaGetLastError();
    }
    return st;
}

extern "C" cuzk_status cuzk_gpu_fixed_get_info(const cuzk_gpu_fixed *f, cuzk_gpu_fixed_info *info,
                                               char *err)
{
    gpu_err_clear(err);
    if (!f || !info) return cuzk_gpu_errf(err, CUZK_ERR_INVALID_ARGUMENT, "fixed_get_info: bad argument");
    memset(info, 0, sizeof *info);
    info->window = f->w;
    info->windows = f->nwin;
    info->batch = f->batch;
    info->device_bytes = f->dmem_bytes;
    info->table_bytes = f->table_bytes;
    info->regs = f->regs;
    info->local_bytes = f->local_bytes;
    info->blocks_per_sm = f->blocks_per_sm;
    info->threads = f->tfull;
    info->device_ms = f->device_ms;
    return CUZK_OK;
}
