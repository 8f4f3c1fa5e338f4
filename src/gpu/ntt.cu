/* cuzk — the NTT over Fr on the GPU: domains, kernels and the C API
 * (include/cuzk/gpu.h, NTT section). The passes are in ntt.cuh, the
 * planning and the twiddle tables in ntt_plan.cuh. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The CPU headers carry no C++ guards: declare them with C linkage before
 * gpu.h pulls them in. */
extern "C" {
#include <cuzk/ff.h>
#include <cuzk/poly.h>
}

#include "gpu/gpu_internal.cuh"
#include "gpu/ntt_plan.cuh"


/* One pass (ntt.cuh): load, rounds, store; one instantiation per pass kind
 * (KIND: NTT_COL or NTT_MID, FL: NTT_F_* flags) and variant (2^UB elements
 * per thread; F64 of every 4 multiplications on the FP64 pipe), so each
 * kernel holds only its own phases. 2048-element tiles, 64 KiB of dynamic
 * shared memory, two blocks per SM asked for: UB = 3, 256 threads (register
 * cap 128: 8 elements of 8 limbs per thread plus a multiplication's
 * temporaries); UB = 2, 512 threads (cap 64: 4 elements). */
/* The rounds of pass p on the tile in shared memory, each followed by a
 * barrier. */
template <int KIND, int UB, int F64>
static __device__ __forceinline__ void ntt_rounds(const NttPass &p, const NttBlock &B,
                                                  uint32_t *sm)
{
    NttRegs<UB> R;
#pragma unroll 1
    for (int q = 0; q < p.nrounds; q++) {
        ntt_round_compute<KIND, UB, F64>(p, q, B, threadIdx.x, sm, R);
        /* The last round writes to other threads' slots. */
        if (q == p.nrounds - 1) __syncthreads();
        ntt_round_write<KIND, UB>(p, q, B, R, sm);
        __syncthreads();
    }
}

template <int KIND, int FL, int UB, int F64>
__global__ void __launch_bounds__((1 << NTT_TILE_LOG) >> UB, 2)
    ntt_pass_kernel(const NttPass p, uint4 *data)
{
    extern __shared__ uint32_t ntt_sm[];
    const NttBlock B = ntt_block<KIND>(p, blockIdx.x);
    ntt_load_phase<KIND, UB>(p, B, threadIdx.x, data, ntt_sm);
    if (FL & NTT_F_PRE) ntt_pre_phase<UB, F64, false, false>(p, B, threadIdx.x, ntt_sm);
    if (FL & NTT_F_PRE1)
        ntt_pre_phase<UB, F64, true, (FL & NTT_F_SH1) != 0>(p, B, threadIdx.x, ntt_sm);
    __syncthreads();
    ntt_rounds<KIND, UB, F64>(p, B, ntt_sm);
    ntt_store_phase<KIND, FL, UB, F64>(p, B, threadIdx.x, data, ntt_sm);
}

/* The inverse's pass 3 and the coset forward's pass 1 in one kernel, for
 * CUZK_GPU_NTT_TO_COSET: both are column passes over the same columns
 * (same tiles), so the inverse's result stays in shared memory and goes on
 * into the forward's coset shift and rounds: one read and one write of the
 * array less than the two passes apart. p3 has no store factor (the
 * inverse's 1/n is in its pass 1 or 2); FL is p1's flags (its shift and
 * twiddles). Integer kernels only. */
template <int FL, int UB>
__global__ void __launch_bounds__((1 << NTT_TILE_LOG) >> UB, 2)
    ntt_fused_kernel(const NttPass p3, const NttPass p1, uint4 *data)
{
    extern __shared__ uint32_t ntt_sm[];
    const NttBlock B = ntt_block<NTT_COL>(p1, blockIdx.x);
    ntt_load_phase<NTT_COL, UB>(p3, B, threadIdx.x, data, ntt_sm);
    __syncthreads();
    ntt_rounds<NTT_COL, UB, 0>(p3, B, ntt_sm);
    /* tile address a now holds the inverse's output at position a of the
     * block, which p1's load would have put there */
    if (FL & NTT_F_PRE) ntt_pre_phase<UB, 0, false, false>(p1, B, threadIdx.x, ntt_sm);
    if (FL & NTT_F_PRE1)
        ntt_pre_phase<UB, 0, true, (FL & NTT_F_SH1) != 0>(p1, B, threadIdx.x, ntt_sm);
    __syncthreads();
    ntt_rounds<NTT_COL, UB, 0>(p1, B, ntt_sm);
    ntt_store_phase<NTT_COL, FL & ~(NTT_F_PRE | NTT_F_PRE1), UB, 0>(p1, B, threadIdx.x, data,
                                                                    ntt_sm);
}

typedef void (*NttKernel)(const NttPass, uint4 *);

/* The instantiations the transforms use, for each variant: pass 1
 * (twiddles; coset forward adds the shift), pass 2, pass 3 (coset inverse
 * adds the shift); with an n-entry table (integer kernels only, to keep
 * their number down) pass 1 in its one-load forms: the full table (TWF)
 * and the positional one (TWP, forward transforms only); with the coset
 * table, the coset forward's pass 1 (PRE1) and the coset inverse's pass 3
 * (POST1); with the full table as Shoup pairs (SH1, 8 elements per thread
 * only) those of them that read it or the coset table. */
#define NTT_K(KIND, FL, UB, F64) {KIND, FL, UB, F64, ntt_pass_kernel<KIND, FL, UB, F64>}
#define NTT_KERNELS_OF(UB, F64)                                                              \
    NTT_K(NTT_COL, NTT_F_TW, UB, F64), NTT_K(NTT_COL, NTT_F_TW | NTT_F_PRE, UB, F64),        \
    NTT_K(NTT_MID, NTT_F_TWD, UB, F64), NTT_K(NTT_COL, 0, UB, F64),                          \
    NTT_K(NTT_COL, NTT_F_POST, UB, F64)
#define NTT_KERNELS_FULL(UB)                                                                 \
    NTT_K(NTT_COL, NTT_F_TWF, UB, 0), NTT_K(NTT_COL, NTT_F_TWF | NTT_F_PRE, UB, 0),          \
    NTT_K(NTT_COL, NTT_F_TWP, UB, 0), NTT_K(NTT_COL, NTT_F_TWP | NTT_F_PRE, UB, 0),          \
    NTT_K(NTT_COL, NTT_F_TW | NTT_F_PRE1, UB, 0), NTT_K(NTT_COL, NTT_F_TWF | NTT_F_PRE1, UB, 0), \
    NTT_K(NTT_COL, NTT_F_TWP | NTT_F_PRE1, UB, 0), NTT_K(NTT_COL, NTT_F_POST1, UB, 0)
#define NTT_KERNELS_SH1(UB)                                                                  \
    NTT_K(NTT_COL, NTT_F_TWF | NTT_F_SH1, UB, 0),                                            \
    NTT_K(NTT_COL, NTT_F_TWF | NTT_F_PRE | NTT_F_SH1, UB, 0),                                \
    NTT_K(NTT_COL, NTT_F_TWF | NTT_F_PRE1 | NTT_F_SH1, UB, 0),                               \
    NTT_K(NTT_COL, NTT_F_POST1 | NTT_F_SH1, UB, 0)
static const struct {
    int kind, fl, ub, f64;
    NttKernel fn;
} ntt_kernels[] = {NTT_KERNELS_OF(3, 0), NTT_KERNELS_OF(2, 0), NTT_KERNELS_OF(3, 1),
                   NTT_KERNELS_OF(3, 2), NTT_KERNELS_OF(3, 3), NTT_KERNELS_OF(3, 4),
                   NTT_KERNELS_FULL(3),  NTT_KERNELS_FULL(2),  NTT_KERNELS_SH1(3)};
#undef NTT_K
#undef NTT_KERNELS_OF
#undef NTT_KERNELS_FULL
#undef NTT_KERNELS_SH1
enum { NTT_NKERNELS = sizeof ntt_kernels / sizeof ntt_kernels[0] };

typedef void (*NttFusedKernel)(const NttPass, const NttPass, uint4 *);

/* The fused kernels: p1's flags (two-level, full or positional twiddles;
 * the shift from two tables or the coset table) for both variants, and
 * with the full table as Shoup pairs for 8 elements per thread. */
#define NTT_FK(FL, UB) {FL, UB, ntt_fused_kernel<FL, UB>}
#define NTT_FUSED_OF(UB)                                                                     \
    NTT_FK(NTT_F_TW | NTT_F_PRE, UB), NTT_FK(NTT_F_TWF | NTT_F_PRE, UB),                     \
    NTT_FK(NTT_F_TWP | NTT_F_PRE, UB), NTT_FK(NTT_F_TW | NTT_F_PRE1, UB),                    \
    NTT_FK(NTT_F_TWF | NTT_F_PRE1, UB), NTT_FK(NTT_F_TWP | NTT_F_PRE1, UB)
static const struct {
    int fl, ub;
    NttFusedKernel fn;
} ntt_fused_kernels[] = {NTT_FUSED_OF(3), NTT_FUSED_OF(2),
                         NTT_FK(NTT_F_TWF | NTT_F_PRE | NTT_F_SH1, 3),
                         NTT_FK(NTT_F_TWF | NTT_F_PRE1 | NTT_F_SH1, 3)};
#undef NTT_FK
#undef NTT_FUSED_OF
enum { NTT_NFUSED = sizeof ntt_fused_kernels / sizeof ntt_fused_kernels[0] };

/* The fused kernel for the coset forward's pass 1 p1 (NULL: none, e.g. an
 * FP64 share: the two passes then run apart). */
static NttFusedKernel ntt_fused_for(const NttPass &p1, int f64)
{
    const int fl = ntt_pass_flags(p1);
    for (int i = 0; i < NTT_NFUSED && f64 == 0; i++)
        if (ntt_fused_kernels[i].fl == fl && ntt_fused_kernels[i].ub == p1.ub)
            return ntt_fused_kernels[i].fn;
    return NULL;
}

/* The kernel of pass p with FP64 share f64 (NULL: no instantiation). */
static NttKernel ntt_kernel_for(const NttPass &p, int f64)
{
    const int fl = ntt_pass_flags(p);
    for (int i = 0; i < NTT_NKERNELS; i++)
        if (ntt_kernels[i].kind == p.kind && ntt_kernels[i].fl == fl &&
            ntt_kernels[i].ub == p.ub && ntt_kernels[i].f64 == f64)
            return ntt_kernels[i].fn;
    return NULL;
}

/* The variant, from elems_per_thread (gpu_testing.h): log2 of the elements
 * per thread, or -1 for a value other than 0, 8, 4. Default 8 (UB = 3): on
 * the H200 the 4-element variant, with twice the warps, was 1-3% slower at
 * every size (docs/perf.md, "GPU NTT"). */
static int ntt_variant_ub(unsigned elems_per_thread)
{
    if (elems_per_thread == 0 || elems_per_thread == 8) return 3;
    if (elems_per_thread == 4) return 2;
    return -1;
}

struct cuzk_gpu_ntt_domain {
    cuzk_gpu_ctx *ctx;
    unsigned log_n;
    cuzk_roots roots;
    int ub;                 /* log2 of elements per thread of the pass kernels */
    int f64;                /* of every 4 multiplications, f64 on the FP64 pipe */
    NttTables t;            /* with pass 1's full or positional table or not */
    uint4 *tab;             /* device: t.total elements, from the pool, owned */
    NttPass pass[4][3];     /* per kind (L >= 3) */
    NttKernel fn[4][3];     /* their kernels */
    NttFusedKernel fused;   /* CUZK_GPU_NTT_TO_COSET's middle (NULL: apart) */
    size_t blocks[3];       /* grid of each pass */
};

/* n <= 4: one thread. */
__global__ void ntt_tiny_kernel(uint4 *data, int L, const uint4 *inner, int kt, int w,
                                const uint4 *pre_lo, const uint4 *pre_hi, const uint4 *post_lo,
                                const uint4 *post_hi, const uint4 *scale)
{
    if (blockIdx.x == 0 && threadIdx.x == 0)
        ntt_tiny(data, L, inner, kt, w, pre_lo, pre_hi, post_lo, post_hi, scale);
}

/* An n-entry table (ntt_full_entry: pass 1's full or positional one, or
 * the coset table), from two-level tables already on the device. */
__global__ void ntt_full_fill_kernel(uint4 *full, const uint4 *lo, const uint4 *hi, int w,
                                     int pos_bits, uint32_t count, const NttShoupM m, int sh)
{
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < count) ntt_full_entry(full, lo, hi, w, pos_bits, i, sh ? &m : nullptr);
}

static const size_t NTT_SMEM_MAX = (size_t)32 << NTT_TILE_LOG;

static cuzk_status domain_create(cuzk_gpu_ntt_domain **out, cuzk_gpu_ctx *ctx, unsigned log_n,
                                 cuzk_roots roots, unsigned k1, unsigned elems_per_thread,
                                 unsigned fp64_share, unsigned full_twiddles, char *err)
{
    gpu_err_clear(err);
    if (!out) return cuzk_gpu_errf(err, CUZK_ERR_INVALID_ARGUMENT, "ntt_domain_create: NULL d");
    *out = NULL;
    if (!ctx || log_n < 1 || log_n > CUZK_NTT_MAX_LOG)
        return cuzk_gpu_errf(err, CUZK_ERR_INVALID_ARGUMENT, "ntt_domain_create: log_n %u",
                             log_n);
    if (roots != CUZK_ROOTS_BELLPERSON && roots != CUZK_ROOTS_SNARKJS)
        return cuzk_gpu_errf(err, CUZK_ERR_INVALID_ARGUMENT, "ntt_domain_create: roots");
    if (k1 && !ntt_split_ok((int)log_n, (int)k1))
        return cuzk_gpu_errf(err, CUZK_ERR_INVALID_ARGUMENT, "ntt_domain_create: split %u of %u",
                             k1, log_n);
    const int ub = ntt_variant_ub(elems_per_thread);
    if (ub < 0)
        return cuzk_gpu_errf(err, CUZK_ERR_INVALID_ARGUMENT,
                             "ntt_domain_create: %u elements per thread (4 or 8)",
                             elems_per_thread);
    if (fp64_share > 4 || (fp64_share && ub != 3))
        return cuzk_gpu_errf(err, CUZK_ERR_INVALID_ARGUMENT,
                             "ntt_domain_create: FP64 share %u/4 (0 .. 4, and above 0 only with "
                             "8 elements per thread)", fp64_share);
    if ((full_twiddles & ~(unsigned)(NTT_TW_COSET | NTT_TW_SHOUP)) > NTT_TW_POS ||
        (full_twiddles && fp64_share) ||
        ((full_twiddles & NTT_TW_SHOUP) && ((full_twiddles & 3) != NTT_TW_FULL || ub != 3)))
        return cuzk_gpu_errf(err, CUZK_ERR_INVALID_ARGUMENT,
                             "ntt_domain_create: full twiddles %u (0, 1 or 2, plus 4 for the "
                             "coset table, plus 8 for Shoup pairs with 1 and 8 elements per "
                             "thread; above 0 only with FP64 share 0)", full_twiddles);
    CUZK_CUDA_TRY(err, cudaSetDevice(ctx->device));

    /* omega and g exactly as the CPU backend defines them */
    cuzk_ntt_domain *cd = NULL;
    cuzk_status st = cuzk_ntt_domain_create(&cd, log_n, roots, 1);
    if (st != CUZK_OK) return cuzk_gpu_errf(err, st, "ntt_domain_create: CPU domain");
    NttTables t = ntt_tables_layout((int)log_n, (int)k1, (int)full_twiddles);
    /* all but pass 1's n-entry table, filled below on the device */
    cuzk_fr *host = (cuzk_fr *)malloc(t.full * sizeof(cuzk_fr));
    cuzk_gpu_ntt_domain *d = (cuzk_gpu_ntt_domain *)calloc(1, sizeof *d);
    if (!host || !d) {
        free(host);
        free(d);
        cuzk_ntt_domain_destroy(cd);
        return cuzk_gpu_errf(err, CUZK_ERR_NO_MEMORY, "ntt_domain_create: host memory");
    }
    ntt_tables_fill(host, t, cuzk_ntt_omega(cd), cuzk_ntt_coset_shift(cd));
    cuzk_ntt_domain_destroy(cd);
    d->ctx = ctx;
    d->log_n = log_n;
    d->roots = roots;
    d->ub = ub;
    d->f64 = (int)fp64_share;
    d->t = t;

    st = gpu_pool_alloc(ctx, &d->tab, t.total * sizeof(cuzk_fr), "ntt_domain_create", err);
    if (st != CUZK_OK) {
        free(host);
        free(d);
        return st;
    }
    cudaStream_t s = gpu_setup_stream(ctx);
    cudaError_t e = cudaMemcpyAsync(d->tab, host, t.full * sizeof(cuzk_fr),
                                    cudaMemcpyHostToDevice, s);
    NttFill fills[2];
    ntt_fills(fills, t);
    NttShoupM m;
    ff_shoup_m(m.m, CUZK_FR_MODULUS, 8);
    for (int i = 0; i < 2 && e == cudaSuccess; i++) {
        const NttFill &f = fills[i];
        if (!f.count) continue;
        const uint32_t bs = 256, count = (uint32_t)f.count;
        ntt_full_fill_kernel<<<(count + bs - 1) / bs, bs, 0, s>>>(
            d->tab + 2 * f.off, d->tab + 2 * f.lo, d->tab + 2 * f.hi, t.w, f.pos_bits, count, m,
            t.sh);
        e = cudaGetLastError();
    }
    if (e == cudaSuccess) e = cudaStreamSynchronize(s);
    /* Only this variant's kernels (with lazy module loading, the others are
     * then never loaded), the one-load pass 1 only with its table. */
    for (int i = 0; i < NTT_NKERNELS && e == cudaSuccess; i++)
        if (ntt_kernels[i].ub == ub && ntt_kernels[i].f64 == (int)fp64_share &&
            (!(ntt_kernels[i].fl & NTT_F_TWF) || t.tw == NTT_TW_FULL) &&
            (!(ntt_kernels[i].fl & NTT_F_TWP) || t.tw == NTT_TW_POS) &&
            (!(ntt_kernels[i].fl & (NTT_F_PRE1 | NTT_F_POST1)) || t.coset) &&
            (!(ntt_kernels[i].fl & NTT_F_SH1) || t.sh))
            e = cudaFuncSetAttribute(ntt_kernels[i].fn,
                                     cudaFuncAttributeMaxDynamicSharedMemorySize,
                                     (int)NTT_SMEM_MAX);
    free(host);
    if (e != cudaSuccess) {
        st = cuzk_gpu_fail(err, e, "ntt_domain_create");
        cuzk_gpu_ntt_domain_destroy(d);
        return st;
    }
    if (log_n >= 3) {
        for (int kind = 0; kind < 4; kind++) {
            ntt_plan_passes(d->pass[kind], t, d->tab, kind, ub);
            for (int i = 0; i < 3; i++) d->fn[kind][i] = ntt_kernel_for(d->pass[kind][i], d->f64);
        }
        for (int i = 0; i < 3; i++) d->blocks[i] = ntt_plan_blocks(d->pass[0][i], (int)log_n);
        d->fused = ntt_fused_for(d->pass[2][0], d->f64);
        e = d->fused ? cudaFuncSetAttribute(d->fused, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                            (int)NTT_SMEM_MAX)
                     : cudaSuccess;
        if (e != cudaSuccess) {
            st = cuzk_gpu_fail(err, e, "ntt_domain_create");
            cuzk_gpu_ntt_domain_destroy(d);
            return st;
        }
    }
    *out = d;
    return CUZK_OK;
}

extern "C" cuzk_status cuzk_gpu_ntt_domain_create(cuzk_gpu_ntt_domain **d, cuzk_gpu_ctx *ctx,
                                                  unsigned log_n, cuzk_roots roots, char *err)
{
    return domain_create(d, ctx, log_n, roots, 0, 0, 0, 0, err);
}

extern "C" cuzk_status cuzk_gpu_ntt_domain_create_ex(cuzk_gpu_ntt_domain **d, cuzk_gpu_ctx *ctx,
                                                     unsigned log_n, cuzk_roots roots,
                                                     unsigned k1, unsigned elems_per_thread,
                                                     unsigned fp64_share, unsigned full_twiddles,
                                                     char *err)
{
    return domain_create(d, ctx, log_n, roots, k1, elems_per_thread, fp64_share, full_twiddles,
                         err);
}

extern "C" void cuzk_gpu_ntt_domain_destroy(cuzk_gpu_ntt_domain *d)
{
    if (!d) return;
    /* Work queued on the context's streams may still read the tables. */
    gpu_ctx_quiesce(d->ctx);
    gpu_pool_free(d->ctx, d->tab);
    free(d);
}

extern "C" size_t cuzk_gpu_ntt_size(const cuzk_gpu_ntt_domain *d)
{
    return d ? (size_t)1 << d->log_n : 0;
}

static cuzk_status run(const cuzk_gpu_ntt_domain *d, cudaStream_t s, int kind, uint4 *data,
                       char *err);

/* Pass i of transform `kind`. */
static cuzk_status run_pass(const cuzk_gpu_ntt_domain *d, cudaStream_t s, int kind, int i,
                            uint4 *data, char *err)
{
    const NttPass &p = d->pass[kind][i];
    d->fn[kind][i]<<<(unsigned)d->blocks[i], 1u << (p.tbits - p.ub), (size_t)32 << p.tbits, s>>>(
        p, data);
    CUZK_CUDA_TRY_LAUNCH(err);
    return CUZK_OK;
}

/* CUZK_GPU_NTT_TO_COSET: the inverse's passes 1 and 2, its pass 3 fused
 * with the coset forward's pass 1, the coset forward's passes 2 and 3; or
 * the two transforms one after the other. */
static cuzk_status run_to_coset(const cuzk_gpu_ntt_domain *d, cudaStream_t s, uint4 *data,
                                char *err)
{
    cuzk_status st;
    if (d->log_n < 3 || !d->fused) {
        if ((st = run(d, s, CUZK_GPU_NTT_INVERSE, data, err)) != CUZK_OK) return st;
        return run(d, s, CUZK_GPU_NTT_COSET_FORWARD, data, err);
    }
    if ((st = run_pass(d, s, CUZK_GPU_NTT_INVERSE, 0, data, err)) != CUZK_OK ||
        (st = run_pass(d, s, CUZK_GPU_NTT_INVERSE, 1, data, err)) != CUZK_OK)
        return st;
    const NttPass &p3 = d->pass[CUZK_GPU_NTT_INVERSE][2], &p1 = d->pass[CUZK_GPU_NTT_COSET_FORWARD][0];
    d->fused<<<(unsigned)d->blocks[0], 1u << (p1.tbits - p1.ub), (size_t)32 << p1.tbits, s>>>(
        p3, p1, data);
    CUZK_CUDA_TRY_LAUNCH(err);
    if ((st = run_pass(d, s, CUZK_GPU_NTT_COSET_FORWARD, 1, data, err)) != CUZK_OK) return st;
    return run_pass(d, s, CUZK_GPU_NTT_COSET_FORWARD, 2, data, err);
}

/* Enqueues the transform; no synchronization. */
static cuzk_status run(const cuzk_gpu_ntt_domain *d, cudaStream_t s, int kind, uint4 *data,
                       char *err)
{
    const NttTables &t = d->t;
    if (kind == CUZK_GPU_NTT_TO_COSET) return run_to_coset(d, s, data, err);
    if (d->log_n < 3) {
        const uint4 *tab = d->tab;
        const bool inv = kind == CUZK_GPU_NTT_INVERSE || kind == CUZK_GPU_NTT_COSET_INVERSE;
        const bool cf = kind == CUZK_GPU_NTT_COSET_FORWARD, ci = kind == CUZK_GPU_NTT_COSET_INVERSE;
        ntt_tiny_kernel<<<1, 1, 0, s>>>(data, (int)d->log_n, tab + 2 * (inv ? t.inner_i : t.inner_f),
                                        t.kt, t.w, cf ? tab + 2 * t.glo : NULL,
                                        cf ? tab + 2 * t.ghi : NULL, ci ? tab + 2 * t.gilo : NULL,
                                        ci ? tab + 2 * t.gihi : NULL, inv ? tab + 2 * t.ninv : NULL);
        CUZK_CUDA_TRY_LAUNCH(err);
        return CUZK_OK;
    }
    for (int i = 0; i < 3; i++) {
        cuzk_status st = run_pass(d, s, kind, i, data, err);
        if (st != CUZK_OK) return st;
    }
    return CUZK_OK;
}

static bool kind_ok(cuzk_gpu_ntt_kind kind)
{
    return (unsigned)kind <= (unsigned)CUZK_GPU_NTT_TO_COSET;
}

extern "C" cuzk_status cuzk_gpu_ntt(const cuzk_gpu_ntt_domain *d, unsigned stream,
                                    cuzk_gpu_ntt_kind kind, cuzk_fr *dev_a, char *err)
{
    gpu_err_clear(err);
    if (!d || !dev_a || !kind_ok(kind) || ((uintptr_t)dev_a & 15))
        return cuzk_gpu_errf(err, CUZK_ERR_INVALID_ARGUMENT, "ntt: bad argument");
    cudaStream_t s = gpu_stream(d->ctx, stream, err);
    if (!s) return CUZK_ERR_INVALID_ARGUMENT;
    CUZK_CUDA_TRY(err, cudaSetDevice(d->ctx->device));
    return run(d, s, (int)kind, (uint4 *)dev_a, err);
}

/* The body of cuzk_gpu_ntt_host on pool memory buf. */
static cuzk_status ntt_host_run(const cuzk_gpu_ntt_domain *d, cuzk_gpu_ntt_kind kind, cuzk_fr *a,
                                uint4 *buf, char *err)
{
    cudaStream_t s = d->ctx->streams[0];
    size_t bytes = sizeof(cuzk_fr) << d->log_n;
    CUZK_CUDA_TRY(err, cudaMemcpyAsync(buf, a, bytes, cudaMemcpyHostToDevice, s));
    cuzk_status st = run(d, s, (int)kind, buf, err);
    if (st != CUZK_OK) return st;
    CUZK_CUDA_TRY(err, cudaMemcpyAsync(a, buf, bytes, cudaMemcpyDeviceToHost, s));
    CUZK_CUDA_TRY(err, cudaStreamSynchronize(s));
    return CUZK_OK;
}

extern "C" cuzk_status cuzk_gpu_ntt_host(const cuzk_gpu_ntt_domain *d, cuzk_gpu_ntt_kind kind,
                                         cuzk_fr *a, char *err)
{
    gpu_err_clear(err);
    if (!d || !a || !kind_ok(kind))
        return cuzk_gpu_errf(err, CUZK_ERR_INVALID_ARGUMENT, "ntt_host: bad argument");
    cuzk_gpu_ctx *ctx = d->ctx;
    CUZK_CUDA_TRY(err, cudaSetDevice(ctx->device));
    uint4 *buf = NULL;
    cuzk_status st = gpu_pool_alloc(ctx, &buf, sizeof(cuzk_fr) << d->log_n, "ntt_host", err);
    if (st != CUZK_OK) return st;
    st = ntt_host_run(d, kind, a, buf, err);
    (void)cudaStreamSynchronize(ctx->streams[0]);
    gpu_pool_free(ctx, buf);
    return st;
}

/* The body of cuzk_gpu_ntt_time on pool memory src, buf. */
static cuzk_status ntt_time_run(const cuzk_gpu_ntt_domain *d, cuzk_gpu_ntt_kind kind,
                                const cuzk_fr *a, unsigned warmup, unsigned reps, float *ms,
                                cuzk_fr *out, uint4 *src, uint4 *buf, char *err)
{
    cuzk_gpu_ctx *ctx = d->ctx;
    cudaStream_t s = ctx->streams[0];
    size_t bytes = sizeof(cuzk_fr) << d->log_n;
    CUZK_CUDA_TRY(err, cudaMemcpyAsync(src, a, bytes, cudaMemcpyHostToDevice, s));
    for (unsigned k = 0; k < warmup + reps; k++) {
        CUZK_CUDA_TRY(err, cudaMemcpyAsync(buf, src, bytes, cudaMemcpyDeviceToDevice, s));
        if (k >= warmup) CUZK_CUDA_TRY(err, cudaEventRecord(ctx->ev_start, s));
        cuzk_status st = run(d, s, (int)kind, buf, err);
        if (st != CUZK_OK) return st;
        if (k < warmup) continue;
        CUZK_CUDA_TRY(err, cudaEventRecord(ctx->ev_stop, s));
        CUZK_CUDA_TRY(err, cudaEventSynchronize(ctx->ev_stop));
        CUZK_CUDA_TRY(err, cudaEventElapsedTime(&ms[k - warmup], ctx->ev_start, ctx->ev_stop));
    }
    if (out) CUZK_CUDA_TRY(err, cudaMemcpyAsync(out, buf, bytes, cudaMemcpyDeviceToHost, s));
    CUZK_CUDA_TRY(err, cudaStreamSynchronize(s));
    return CUZK_OK;
}

extern "C" cuzk_status cuzk_gpu_ntt_time(const cuzk_gpu_ntt_domain *d, cuzk_gpu_ntt_kind kind,
                                         const cuzk_fr *a, unsigned warmup, unsigned reps,
                                         float *ms, cuzk_fr *out, char *err)
{
    gpu_err_clear(err);
    if (!d || !a || !kind_ok(kind) || (reps && !ms))
        return cuzk_gpu_errf(err, CUZK_ERR_INVALID_ARGUMENT, "ntt_time: bad argument");
    cuzk_gpu_ctx *ctx = d->ctx;
    size_t bytes = sizeof(cuzk_fr) << d->log_n;
    CUZK_CUDA_TRY(err, cudaSetDevice(ctx->device));
    uint4 *src = NULL;
    cuzk_status st = gpu_pool_alloc(ctx, &src, 2 * bytes, "ntt_time", err);
    if (st != CUZK_OK) return st;
    st = ntt_time_run(d, kind, a, warmup, reps, ms, out, src, (uint4 *)((char *)src + bytes),
                      err);
    (void)cudaStreamSynchronize(ctx->streams[0]);
    gpu_pool_free(ctx, src);
    return st;
}

extern "C" cuzk_status cuzk_gpu_ntt_get_info(const cuzk_gpu_ntt_domain *d, cuzk_gpu_ntt_info *info,
                                             char *err)
{
    gpu_err_clear(err);
    if (!d || !info)
        return cuzk_gpu_errf(err, CUZK_ERR_INVALID_ARGUMENT, "ntt_get_info: bad argument");
    memset(info, 0, sizeof *info);
    info->table_bytes = d->t.total * sizeof(cuzk_fr);
    if (d->log_n < 3) return CUZK_OK;
    info->elems_per_thread = 1 << d->ub;
    info->fp64_share = d->f64;
    info->full_twiddles = d->t.tw;
    info->coset_table = d->t.coset;
    info->shoup_tables = d->t.sh;
    info->k1 = d->t.k1;
    info->k2 = d->t.k2;
    CUZK_CUDA_TRY(err, cudaSetDevice(d->ctx->device));
    /* regs, local_bytes: the largest over the forward transform's kernels */
    for (int i = 0; i < 3; i++) {
        const NttPass &p = d->pass[0][i];
        cudaFuncAttributes fa;
        CUZK_CUDA_TRY(err, cudaFuncGetAttributes(&fa, d->fn[0][i]));
        if (fa.numRegs > info->regs) info->regs = fa.numRegs;
        if ((int)fa.localSizeBytes > info->local_bytes) info->local_bytes = (int)fa.localSizeBytes;
        info->threads[i] = 1u << (p.tbits - p.ub);
        info->smem[i] = (size_t)32 << p.tbits;
        info->blocks[i] = d->blocks[i];
        int bps = 0;
        CUZK_CUDA_TRY(err, cudaOccupancyMaxActiveBlocksPerMultiprocessor(
            &bps, d->fn[0][i], (int)info->threads[i], info->smem[i]));
        info->blocks_per_sm[i] = bps;
    }
    return CUZK_OK;
}
