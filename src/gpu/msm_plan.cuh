/* cuzk — the GPU MSM plan and what the shared host code (msm.cu) and the
 * per-group units (msm_g1.cu, msm_g2.cu, through msm_impl.cuh) share.
 * Internal. Before including this file, a C++ translation unit must have
 * included cuzk/ec.h, cuzk/ff.h and cuzk/msm.h inside extern "C". */
#ifndef CUZK_GPU_MSM_PLAN_CUH
#define CUZK_GPU_MSM_PLAN_CUH

#include <stddef.h>
#include <stdint.h>

#include "gpu/gpu_internal.cuh"
#include "gpu/msm.cuh"

/* The bitmap sum's GPU levels stop at this many partials; the host adds
 * them (~1 us each on the CPU, against a GPU level's ~0.1 ms launch and
 * serial tail). */
#define MSM_HOST_SUMS 256u

/* Batch-affine accumulation: entries per stream (see msm_impl.cuh). */
#define MSM_AFF_LEN 32u

/* Its keys and values in step-major order (msm_aff_step_major in
 * msm_affine.cuh) fill whole warps: the last warp's absent threads take
 * slots too, at most 32 threads' entries (streams, at most MSM_AFF_K_MAX,
 * of MSM_AFF_LEN) beyond the call's, so the sort's buffers hold that many
 * more. */
#define MSM_AFF_K_MAX 64u
#define MSM_AFF_STEP_PAD (32u * MSM_AFF_K_MAX * MSM_AFF_LEN)

/* Streams of the batch-affine accumulation for m sort entries. */
static inline size_t msm_aff_streams(size_t m) { return (m + MSM_AFF_LEN - 1) / MSM_AFF_LEN; }

/* Streams whose pieces a plan of m entries holds: those of MSM_AFF_LEN, or
 * up to MSM_AFF_FILL_STREAMS (of one entry at least) when that is more, so
 * that a small plan's calls may take shorter streams and fill the device
 * (msm_aff_shape in msm_impl.cuh): 2^22 streams are 2^16 threads of 64,
 * MSM_AFF_FILL threads on 128 SMs (the H200 has 132); at most 0.8 GB of
 * G1 pieces (1.6 GB G2), none more above 2^27 entries (a plan of 2^24
 * points or more). */
#define MSM_AFF_FILL 512 /* threads a SM: 4 blocks of 128, the G1 kernel's residency */
#define MSM_AFF_FILL_STREAMS ((size_t)1 << 22)
static inline size_t msm_aff_streams_held(size_t m)
{
    size_t fill = m < MSM_AFF_FILL_STREAMS ? m : MSM_AFF_FILL_STREAMS;
    return msm_aff_streams(m) > fill ? msm_aff_streams(m) : fill;
}

static inline size_t msm_align256(size_t x) { return (x + 255) & ~(size_t)255; }

/* A sparse MSM over n scalars with at most `bound` neither 0 nor 1 runs
 * Pippenger over the bound's slots only when that saves (bound < n / 2)
 * and the compacted scalars and indices fit in keys[0] (nwin n entries:
 * nwin = the windows sorted at once) beyond the nwin bound entries the
 * digits write there. A bound of 0 takes the plain path (its
 * kernels would have no block to launch). */
static inline int msm_compact_fits(unsigned nwin, size_t n, size_t bound)
{
    return bound > 0 && bound < n / 2 && msm_align256((size_t)nwin * bound * 4) + msm_align256(bound * 32) +
                                    bound * 4 <=
                                (size_t)nwin * n * 4;
}

/* The most windows a geometry has (c >= 8). */
#define MSM_NWIN_MAX 32u

static inline unsigned msm_blocks_for(size_t threads, unsigned block)
{
    return (unsigned)((threads + block - 1) / block);
}

/* Timing events of one phase of a call. */
enum { EV_START, EV_UPLOAD, EV_DIGITS, EV_SORT, EV_ACC, EV_REDUCE, EV_COUNT };
/* The phases: an MSM, a bitmap sum, a sparse MSM's split. */
enum { PH_MSM, PH_BITS, PH_SPLIT, PH_COUNT };
/* What a started call is. */
enum { CALL_NONE, CALL_MSM, CALL_BITS, CALL_SPARSE };

/* Scratch memory several plans borrow (include/cuzk/gpu.h). */
struct cuzk_gpu_msm_scratch {
    cuzk_gpu_ctx *ctx;
    void *mem;             /* from the context's pool */
    size_t bytes;
    unsigned busy;         /* MSMs started on plans using it, not finished */
    unsigned stream;       /* ... all on this stream */
};

struct cuzk_gpu_msm_plan {
    cuzk_gpu_ctx *ctx;
    cuzk_gpu_group group;
    size_t aff_bytes, xyzz_bytes; /* sizes of one point (G1 96/192, G2 192/384) */
    size_t n;              /* points */
    unsigned flags;        /* CUZK_GPU_MSM_PRECOMPUTE: points holds the table */
    cuzk_gpu_msm_acc acc;  /* XYZZ or BATCH_AFFINE (never DEFAULT) */
    unsigned fp64_share;   /* batch-affine: products on the FP64 pipe
                              (cuzk_gpu_msm_opts.fp64_share; 0 for XYZZ) */
    bool aff_step_major;   /* batch-affine: the accumulation reads a step-major
                              copy of the sorted entries (the default; off
                              through gpu_testing.h) */
    msm_geom g;
    msm_geom rg;           /* the reduction's windows: g, or a precomputed
                              plan's virtual windows (msm.cuh) */
    unsigned win_batch;    /* windows sorted at once (g.nwin unless the plan
                              was made with window_batches) */
    float table_ms;        /* device time of the tables (precomputed, subset sums) */
    size_t nchunks_max;    /* accumulation chunks for n points */
    void *mem;             /* the plan's pool allocation; the arrays below lie in it */
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
    uint4 *red;            /* the reduction's arrays, red_n XYZZ: for the call's
                              crg, seg and tree (2 nwin t1 each), win (2 nwin) */
    size_t red_n;
    uint4 *seg, *tree, *win; /* in red, laid out for the call in flight */
    uint4 *aff_pieces;     /* batch-affine: 2 affine pieces per stream, else NULL */
    size_t aff_streams_max; /*   streams they hold (msm_aff_streams_held) */
    uint4 *bits_tab;       /* CUZK_GPU_MSM_BITS_TABLE: 15 ceil(n / 4) affine subset
                              sums (msm.cuh), else NULL */
    void *scratch;         /* scalars .. aff_pieces: free while the plan is
                              made; in mem, or shared->mem */
    size_t scratch_bytes;
    cuzk_gpu_msm_scratch *shared; /* borrowed, or NULL: the scratch is in mem */
    void *host;            /* pinned, owned: win_host, then part_host */
    void *win_host;        /* max(nwin, 2 rg.nwin, MSM_NWIN_MAX) XYZZ: an MSM's
                              window sums (precomputed: the S_v, then the U_v) */
    void *part_host;       /* MSM_HOST_SUMS XYZZ: a bitmap sum's partials */
    cudaEvent_t ev[PH_COUNT][EV_COUNT];
    cudaEvent_t ev_done;   /* after a started call's last copy */
    uint32_t *counter;     /* device: a bounded sparse MSM's rest count */
    uint32_t *count_host;  /* pinned: its copy, checked by the finish */
    /* The call in flight (start to finish). */
    int call;              /* CALL_* */
    size_t call_n;
    size_t call_bound;     /* a sparse call's bound on its rest (>= n: none) */
    int call_compact;      /* the rest compacted to call_bound slots */
    msm_geom cg, crg;      /* the call's windows: g and rg, or for a compacted
                              call on a plain plan those of its bound
                              (msm.cu, call_geometry) */
    unsigned call_wb;      /* the call's windows sorted at once */
    size_t part_m;         /* partials of its bitmap sum in part_host */
    cuzk_gpu_msm_timing last;
};

/* What each group's unit provides (msm_g1.cu, msm_g2.cu). */
struct msm_group_ops {
    /* Marks the points at infinity, makes a precomputed plan's table and a
     * CUZK_GPU_MSM_BITS_TABLE plan's subset sums (into table_ms), on the
     * setup stream, and waits for it. */
    cuzk_status (*init)(cuzk_gpu_msm_plan *p, char *err);
    /* Writes the points base + j step (gpu_testing.h) into the plan, on the
     * setup stream (not waited for). */
    cuzk_status (*gen)(cuzk_gpu_msm_plan *p, const void *base, const void *step, char *err);
    /* Enqueues the device work of a call (p->call) on s, ending with the
     * copies to the host buffers and ev_done. */
    cuzk_status (*enqueue)(cuzk_gpu_msm_plan *p, cudaStream_t s, const void *in, size_t n,
                           char *err);
    /* After ev_done: the host's last additions into r (the group's jac). */
    void (*result)(const cuzk_gpu_msm_plan *p, void *r);
    /* The largest local memory (stack frame) a thread of this group's
     * kernels takes, in bytes (cudaFuncGetAttributes); 0 if unknown. */
    size_t (*local_bytes)(void);
};

extern const msm_group_ops msm_g1_ops, msm_g2_ops;

#endif /* CUZK_GPU_MSM_PLAN_CUH */
