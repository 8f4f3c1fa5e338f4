/* cuzk — the GPU prover backend (cuzk_prover_backend of include/cuzk/prove.h),
 * registered at run time by cuzk_gpu_backend_register (include/cuzk/gpu.h).
 *
 * The stages of src/prove/cpu.c on one device, with the same algebra, so
 * that with the same witness, r and s the proofs are equal byte for byte
 * (every MSM sum is a group element, whose affine form is unique; every
 * field value is fully reduced on both sides):
 *
 *   eval_rows  the witness in compact form (cuzk_witness_compact: bitmaps
 *              of its 0s and 1s, the other values), as the job gave it or
 *              classified here from a dense one, uploaded, expanded on the
 *              device into w
 *              (Montgomery, for the SpMV and the input rows) and the MSM
 *              scalars (canonical); a, b, c by the SpMV from the job's PCE
 *              (copied to the device at its first job and kept), or from
 *              the key's matrices compiled into a PCE when the workspace is
 *              made, or copied from the caller's rows; then the padding
 *              and the input rows as cpu.c's finish_rows.
 *   h_poly     per vector an inverse NTT and a coset NTT (cpu.c's
 *              cuzk_ntt_to_coset), a = (a b - c) z_inv (z_inv = 1 for a
 *              Lagrange key), for a monomial key a coset inverse NTT; the
 *              H scalars in place of a; the scalars of B's variables
 *              gathered by the key's b_var. Nothing crosses to the host.
 *              With cuzk_config.gpu_sparse_early it first starts the four
 *              sparse MSMs over the witness scalars (A, B1, L in G1, B2 in
 *              G2), which then run beside the NTTs.
 *   msm_a      starts H's MSM (plain; and the others if h_poly did not),
 *              each plan on its own stream, and finishes A; msm_b2
 *              finishes B2; msm_c finishes L, H and B1 and returns
 *              L + H + r B1 (cpu.c's "separate" form: the same point as
 *              its merged one).
 *
 * A stage waits for the device work it enqueued before it returns, except
 * the MSMs msm_a starts for the later stages: the workspace owns those
 * (started[]), and eval_rows finishes any left over by a proof that was
 * stopped between stages before it overwrites their scalars.
 *
 * Memory: everything is allocated in ws_create (device buffers from the
 * context's pool, one pinned host block); a proof allocates nothing,
 * except that the first job with a given PCE copies it to the device. */
extern "C" {
#include <cuzk/ec.h>
#include <cuzk/ff.h>
#include <cuzk/msm.h>
#include <cuzk/pce.h>
#include <cuzk/poly.h>
#include <cuzk/prove.h>

#include "common/parallel.h"
}

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/ff.cuh"
#include "gpu/gpu_internal.cuh"
#include "gpu/gpu_testing.h"
#include "prove/wcompact.h"

/* The plans; the sparse ones start in this order (h_poly), H after them
 * (msm_a). */
enum { P_H = 0, P_L, P_A, P_B2, P_B1, NPLAN };
#define ALL_PLANS ((1u << NPLAN) - 1)
#define SPARSE_PLANS (ALL_PLANS & ~(1u << P_H)) /* over the witness scalars */
static const char *const PLAN_NAME[NPLAN] = {"H", "L", "A", "B2", "B1"};

/* Streams: 0 for the witness, rows and H; one per plan after it: the five
 * MSMs overlap, each plan with its own scratch. cuzk_config.gpu_streams 2
 * or 3 (or plans that do not fit with their own scratches) choose the
 * shared scratches of make_plans. */
#define GPU_PROVER_STREAMS (1 + NPLAN)

/* Pool left free after the plans' upgrades (precomputed windows, subset
 * sums) for the job's PCE, which arrives with the first proof: 32 bytes per
 * domain point (porep-32g's PCE: 3.46 GB for 2^27 points, 25.8 B a point). */
#define GPU_PCE_RESERVE_PER_POINT 32u

#define TPB 256u /* threads per block of the elementwise kernels */

typedef struct {
    const cuzk_groth16_pk *pk; /* borrowed */
    unsigned nthreads;
    size_t n, n_h, n_priv, n_in, nwords;
    cuzk_gpu_ctx *ctx;                 /* owned */
    unsigned nstreams;
    cuzk_gpu_msm_plan *plan[NPLAN];    /* owned; NULL for an empty point set */
    cuzk_gpu_msm_scratch *scratch[2];  /* owned: the plans' shared scratches
                                          (make_plans), or NULL: their own */
    int pscr[NPLAN];                   /* plan k's scratch: -1 its own, else
                                          scratch[pscr[k]] */
    unsigned win_batches;              /* the plans' window_batches */
    unsigned msm_fp64;                 /* the plans' fp64_share */
    unsigned pstream[NPLAN];
    int started[NPLAN];                /* an MSM in flight on the plan */
    unsigned msm_begun;                /* bit k: plan k was started this proof */
    int sparse_early;                  /* the sparse MSMs start with h_poly */
    cuzk_gpu_ntt_domain *dom;          /* owned */
    cuzk_gpu_pce *mpce;                /* owned: the key's matrices, or NULL */
    int mpce_has_c;
    cuzk_gpu_pce *jpce;                /* owned: the last job's PCE, or NULL */
    const uint8_t *jpce_image;         /* ... which it copies */
    uint64_t jpce_size;
    /* Device (pool) memory. */
    cuzk_fr *d_abc;      /* 3n: a, b, c; the H scalars in place of a */
    cuzk_fr *d_w;        /* n_vars: the witness, Montgomery form */
    cuzk_scalar *d_s;    /* n_vars: the witness as MSM scalars */
    cuzk_scalar *d_sb;   /* n_b: the scalars of B's variables */
    uint32_t *d_bvar;    /* n_b: the key's b_var */
    uint64_t *d_bits;    /* 2 nwords: is_bit, bit_val */
    uint32_t *d_off;     /* nwords */
    cuzk_fr *d_vals;     /* the compact values: c's rows when n_vars <= n
                            (dead until the SpMV writes c), else its own */
    int vals_own;
    /* Pinned host staging of the compact witness (owned, one block). */
    void *host;
    uint64_t *h_bits;    /* 2 nwords */
    uint32_t *h_off;     /* nwords */
    cuzk_fr *h_vals;     /* n_vars (the worst case: no 0s or 1s) */
    cuzk_fr z_inv;       /* 1 / (g^n - 1) for a monomial key */
    uint32_t one_mont[8];
    uint64_t bytes;
    size_t scratch_bytes;
    size_t n_other;      /* this proof's witness values neither 0 nor 1: the
                            bound of the sparse MSMs' rest */
} gpu_ws;

/* ----------------------------------------------------------- kernels -- */

struct fr_const {
    uint32_t l[8];
};

/* w[i] and s[i] from the compact form: 0, 1, or vals[source]. */
__global__ void k_expand(size_t n, const uint64_t *is_bit, const uint64_t *bit_val,
                         const uint32_t *off, const uint4 *vals, uint4 *w, uint4 *s,
                         fr_const one)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int64_t src = wc_source(i, is_bit, bit_val, off);
    uint32_t x[8], c[8];
    if (src >= 0) {
        uint32_t u[8] = {1, 0, 0, 0, 0, 0, 0, 0};
        ff_load<FfFr>(x, vals + 2 * (size_t)src);
        ff_mul<FfFr>(c, x, u); /* x R / R: canonical */
    } else {
#pragma unroll
        for (int k = 0; k < 8; k++) x[k] = src == WC_ONE ? one.l[k] : 0, c[k] = 0;
        c[0] = src == WC_ONE;
    }
    ff_store<FfFr>(w + 2 * i, x);
    ff_store<FfFr>(s + 2 * i, c);
}

/* c[i] = a[i] b[i] */
__global__ void k_mul(size_t n, uint4 *c, const uint4 *a, const uint4 *b)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    uint32_t x[8], y[8];
    ff_load<FfFr>(x, a + 2 * i);
    ff_load<FfFr>(y, b + 2 * i);
    ff_mul<FfFr>(x, x, y);
    ff_store<FfFr>(c + 2 * i, x);
}

/* a[i] = (a[i] b[i] - c[i]) z (z skipped when use_z = 0: z = 1) */
__global__ void k_abc(size_t n, uint4 *a, const uint4 *b, const uint4 *c, fr_const z, int use_z)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    uint32_t x[8], y[8];
    ff_load<FfFr>(x, a + 2 * i);
    ff_load<FfFr>(y, b + 2 * i);
    ff_mul<FfFr>(x, x, y);
    ff_load<FfFr>(y, c + 2 * i);
    ff_sub<FfFr>(x, x, y);
    if (use_z) ff_mul<FfFr>(x, x, z.l);
    ff_store<FfFr>(a + 2 * i, x);
}

/* x[i] from Montgomery to canonical form, in place */
__global__ void k_from_mont(size_t n, uint4 *x)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    uint32_t v[8], u[8] = {1, 0, 0, 0, 0, 0, 0, 0};
    ff_load<FfFr>(v, x + 2 * i);
    ff_mul<FfFr>(v, v, u);
    ff_store<FfFr>(x + 2 * i, v);
}

/* out[j] = s[idx[j]] */
__global__ void k_gather(size_t n, uint4 *out, const uint4 *s, const uint32_t *idx)
{
    size_t j = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= n) return;
    const uint4 *p = s + 2 * (size_t)idx[j];
    out[2 * j] = p[0];
    out[2 * j + 1] = p[1];
}

static unsigned grid_for(size_t n) { return (unsigned)((n + TPB - 1) / TPB); }

/* ------------------------------------------------------------ helpers -- */

/* Finishes the plan's MSM in flight, if any, into a discarded result. */
static void plan_drain(gpu_ws *gw, int k)
{
    if (!gw->started[k]) return;
    gw->started[k] = 0;
    if (k == P_B2) {
        cuzk_g2_jac r;
        (void)cuzk_gpu_g2_msm_finish(&r, gw->plan[k], NULL);
    } else {
        cuzk_g1_jac r;
        (void)cuzk_gpu_g1_msm_finish(&r, gw->plan[k], NULL);
    }
}

static void gpu_ws_destroy(void *p)
{
    gpu_ws *gw = (gpu_ws *)p;
    if (!gw) return;
    for (int k = 0; k < NPLAN; k++) plan_drain(gw, k);
    for (int k = 0; k < NPLAN; k++) cuzk_gpu_msm_plan_destroy(gw->plan[k]);
    cuzk_gpu_msm_scratch_destroy(gw->scratch[0]);
    cuzk_gpu_msm_scratch_destroy(gw->scratch[1]);
    cuzk_gpu_ntt_domain_destroy(gw->dom);
    cuzk_gpu_pce_destroy(gw->mpce);
    cuzk_gpu_pce_destroy(gw->jpce);
    if (gw->ctx) {
        cuzk_gpu_buf_free(gw->ctx, gw->d_abc);
        cuzk_gpu_buf_free(gw->ctx, gw->d_w);
        cuzk_gpu_buf_free(gw->ctx, gw->d_s);
        cuzk_gpu_buf_free(gw->ctx, gw->d_sb);
        cuzk_gpu_buf_free(gw->ctx, gw->d_bvar);
        cuzk_gpu_buf_free(gw->ctx, gw->d_bits);
        cuzk_gpu_buf_free(gw->ctx, gw->d_off);
        if (gw->vals_own) cuzk_gpu_buf_free(gw->ctx, gw->d_vals);
    }
    cuzk_gpu_host_free(gw->host);
    cuzk_gpu_ctx_destroy(gw->ctx);
    free(gw);
}

static uint64_t gpu_ws_bytes(const void *p) { return ((const gpu_ws *)p)->bytes; }

/* Plan k's options with flags (acc: batch-affine, measured fastest for
 * every MSM on the H200, docs/perf.md; its scratch and window batches as
 * make_plans chose). */
static cuzk_gpu_msm_opts plan_opts(const gpu_ws *gw, int k, cuzk_gpu_group grp, unsigned flags)
{
    cuzk_gpu_msm_opts o;
    memset(&o, 0, sizeof o);
    o.group = grp;
    o.flags = flags;
    o.acc = CUZK_GPU_MSM_BATCH_AFFINE;
    o.scratch = gw->pscr[k] < 0 ? NULL : gw->scratch[gw->pscr[k]];
    o.window_batches = gw->win_batches;
    o.fp64_share = gw->msm_fp64;
    return o;
}

/* Plan k over pts[0..n) with flags; NULL plan for n = 0. */
static cuzk_status make_plan(cuzk_gpu_msm_plan **out, gpu_ws *gw, int k, cuzk_gpu_group grp,
                             const void *pts, size_t n, unsigned flags, char *err)
{
    *out = NULL;
    if (n == 0) return CUZK_OK;
    cuzk_gpu_msm_opts o = plan_opts(gw, k, grp, flags);
    return cuzk_gpu_msm_plan_create(out, gw->ctx, &o, pts, n, err);
}

/* The flags each plan is upgraded to, strongest first, when the config
 * leaves the choice to the backend (0 ends the list): precomputed windows
 * and the subset-sum table of the ones (G1 2^26 sparse MSM, H200,
 * docs/perf.md "Sparse vectors": plain + table 193.4 ms, precomputed +
 * table 159.0), else precomputed windows alone (a table of W n points,
 * 11-13x the points), else the table alone (3.75x the points). H's scalars
 * are random (no ones): precomputed windows only. */
static unsigned upgrade_flags(int k, int step)
{
    static const unsigned W[4] = {CUZK_GPU_MSM_PRECOMPUTE | CUZK_GPU_MSM_BITS_TABLE,
                                  CUZK_GPU_MSM_PRECOMPUTE, CUZK_GPU_MSM_BITS_TABLE, 0};
    if (k == P_H) return step == 0 ? CUZK_GPU_MSM_PRECOMPUTE : 0;
    return step < 3 ? W[step] : 0;
}

static void plan_points(const gpu_ws *gw, int k, const void **pts, size_t *n,
                        cuzk_gpu_group *grp)
{
    const cuzk_groth16_pk *pk = gw->pk;
    *grp = k == P_B2 ? CUZK_GPU_G2 : CUZK_GPU_G1;
    switch (k) {
    case P_H: *pts = pk->h, *n = gw->n_h; break;
    case P_L: *pts = pk->l, *n = gw->n_priv; break;
    case P_A: *pts = pk->a, *n = pk->n_vars; break;
    case P_B2: *pts = pk->b2, *n = pk->n_b; break;
    default: *pts = pk->b1, *n = pk->n_b; break;
    }
}

/* The key does not fit: one clear message for every NO_MEMORY of ws_create. */
static cuzk_status no_fit(gpu_ws *gw, const char *what, char *err)
{
    size_t total = 0, used = 0;
    cuzk_gpu_ctx_pool(gw->ctx, &total, &used);
    if (err) {
        char inner[CUZK_ERRMSG_LEN];
        snprintf(inner, sizeof inner, "%s", err);
        /* MiB below 1 GiB: a small pool (a test's 4 MiB) reads as such. */
        double left = (double)(total - used), all = (double)total;
        const char *u = all < (1 << 30) ? "MiB" : "GiB";
        double div = all < (1 << 30) ? (1 << 20) : (1 << 30);
        snprintf(err, CUZK_ERRMSG_LEN,
                 "gpu: the key does not fit in device memory: %.40s needs more than the %.2f "
                 "%s left of the %.2f %s pool (%.100s)",
                 what, left / div, u, all / div, u, inner);
    }
    return CUZK_ERR_NO_MEMORY;
}

static cuzk_status buf(gpu_ws *gw, void *p, size_t bytes, const char *what, char *err)
{
    cuzk_status s = cuzk_gpu_buf_alloc((void **)p, gw->ctx, bytes ? bytes : 32, err);
    if (s == CUZK_ERR_NO_MEMORY) return no_fit(gw, what, err);
    gw->bytes += bytes;
    return s;
}

/* The flags plan k is made with first: nonzero config flags are taken as
 * given (other bits, e.g. 0x100: plain plans without upgrades); 0 is the
 * backend's choice (plain, then the upgrades of gpu_ws_create). */
static unsigned first_flags(int k, const cuzk_config *cfg)
{
    unsigned fl = cfg->gpu_msm_flags & (CUZK_GPU_MSM_PRECOMPUTE | CUZK_GPU_MSM_BITS_TABLE);
    return k == P_H ? fl & ~CUZK_GPU_MSM_BITS_TABLE : fl;
}

/* How the five plans hold their MSM scratch (make_plans):
 *   OWN      each its own, each on its own stream: the MSMs overlap (the
 *            default while they fit; 2^24: 242 ms against 333 ms for ONE,
 *            docs/perf.md);
 *   TWO      H on one scratch (stream 1), L, A, B2, B1 on another (stream 2),
 *            the windows sorted in SCRATCH_TWO_BATCHES batches so that both
 *            fit where one unbatched does (2^27: ~2 x 22 GB against 47 GB):
 *            H overlaps the sparse MSMs (cuzk_config.gpu_streams = 3; not
 *            yet measured on a device);
 *   ONE      one scratch, the MSMs in turn on stream 1 (gpu_streams = 2, and
 *            the fallback when OWN does not fit: measured at 2^27, 1521 ms).
 */
enum { SCRATCH_OWN, SCRATCH_TWO, SCRATCH_ONE };
#define SCRATCH_TWO_BATCHES 3u

static cuzk_status make_plans(gpu_ws *gw, const cuzk_config *cfg, char *err)
{
    int mode = gw->nstreams <= 2 ? SCRATCH_ONE : gw->nstreams == 3 ? SCRATCH_TWO : SCRATCH_OWN;
    cuzk_status s = CUZK_OK;
    for (;;) {
        gw->win_batches = mode == SCRATCH_TWO ? SCRATCH_TWO_BATCHES : 0;
        for (int k = 0; k < NPLAN; k++) {
            gw->pscr[k] = mode == SCRATCH_OWN ? -1 : mode == SCRATCH_TWO && k != P_H ? 1 : 0;
            gw->pstream[k] = gw->nstreams < 2       ? 0
                             : mode == SCRATCH_OWN ? 1 + (unsigned)k % (gw->nstreams - 1)
                                                   : 1 + (unsigned)gw->pscr[k];
        }
        size_t most[2] = {0, 0};
        for (int k = 0; k < NPLAN && mode != SCRATCH_OWN; k++) {
            const void *pts;
            size_t np, need = 0;
            cuzk_gpu_group grp;
            plan_points(gw, k, &pts, &np, &grp);
            if (!np) continue;
            cuzk_gpu_msm_opts o = plan_opts(gw, k, grp, first_flags(k, cfg));
            o.scratch = NULL;
            if ((s = cuzk_gpu_msm_scratch_bytes(&need, &o, np, err)) != CUZK_OK) return s;
            if (need > most[gw->pscr[k]]) most[gw->pscr[k]] = need;
        }
        gw->scratch_bytes = 0;
        for (int g = 0; g < 2 && s == CUZK_OK; g++) {
            if (!most[g]) continue;
            s = cuzk_gpu_msm_scratch_create(&gw->scratch[g], gw->ctx, most[g], err);
            if (s == CUZK_ERR_NO_MEMORY) s = no_fit(gw, "the MSM scratch", err);
            if (s == CUZK_OK) gw->scratch_bytes += most[g];
        }
        for (int k = 0; k < NPLAN && s == CUZK_OK; k++) {
            const void *pts;
            size_t np;
            cuzk_gpu_group grp;
            plan_points(gw, k, &pts, &np, &grp);
            s = make_plan(&gw->plan[k], gw, k, grp, pts, np, first_flags(k, cfg), err);
            if (s == CUZK_ERR_NO_MEMORY) {
                char what[48];
                snprintf(what, sizeof what, "the %s points (%zu)", PLAN_NAME[k], np);
                s = no_fit(gw, what, err);
            }
        }
        if (s != CUZK_ERR_NO_MEMORY || mode == SCRATCH_ONE) break;
        /* Does not fit this way: start again with less scratch. */
        for (int k = 0; k < NPLAN; k++) {
            cuzk_gpu_msm_plan_destroy(gw->plan[k]);
            gw->plan[k] = NULL;
        }
        for (int g = 0; g < 2; g++) {
            cuzk_gpu_msm_scratch_destroy(gw->scratch[g]);
            gw->scratch[g] = NULL;
        }
        mode = SCRATCH_ONE;
    }
    if (s == CUZK_OK && err) err[0] = 0;
    return s;
}

/* The pinned buffers a dense witness is classified into before its upload
 * (bitmaps, offsets, and room for every value: vals never grow). */
static cuzk_status host_staging(gpu_ws *gw, char *err)
{
    if (gw->host) return CUZK_OK;
    size_t hb = 2 * gw->nwords * 8 + gw->nwords * 4, hv = gw->pk->n_vars * sizeof(cuzk_fr);
    hb = (hb + 255) & ~(size_t)255;
    cuzk_status s = cuzk_gpu_host_alloc(&gw->host, hb + hv, err);
    if (s != CUZK_OK) return s;
    gw->h_bits = (uint64_t *)gw->host;
    gw->h_off = (uint32_t *)(gw->h_bits + 2 * gw->nwords);
    gw->h_vals = (cuzk_fr *)((char *)gw->host + hb);
    gw->bytes += hb + hv;
    return CUZK_OK;
}

/* Bytes of the device pool not yet taken. */
static size_t pool_left(const gpu_ws *gw)
{
    size_t total = 0, used = 0;
    cuzk_gpu_ctx_pool(gw->ctx, &total, &used);
    return total - used;
}

/* The NTT domain again with pass 1's full twiddle table (n x 32 bytes),
 * when the pool has that much left after the MSMs' plans and upgrades and
 * the PCE's room: at 2^27 -13.4 ms a proof (H 291.7 -> 282.0 ms, the plans
 * as without it; H200, docs/perf.md "A full twiddle table for pass 1").
 * Where the upgrades took the pool (2^24 .. 2^26) they are worth more than
 * the table, so it comes last; without room the two-level domain stays.
 * The coset table (+ 4, n x 32 bytes more) comes after pass 1's table:
 * without room for both, pass 1's alone. Shoup pairs (+ 8) double both
 * and come last: without room for them, the tables as Montgomery forms
 * (at 2^27 the pairs' 8 GiB is worth less than the coset table's 4:
 * docs/perf.md "The n-entry tables as Shoup pairs"). */
static void full_twiddles(gpu_ws *gw, const cuzk_config *cfg)
{
    unsigned tw = cfg->gpu_ntt_full_twiddles;
    const size_t left = pool_left(gw), tab = gw->n * sizeof(cuzk_fr),
                 reserve = GPU_PCE_RESERVE_PER_POINT * gw->n;
    const size_t ntab = ((tw & 3) != 0) + ((tw & 4) != 0);
    if ((tw & 8) && left < 2 * ntab * tab + reserve) tw &= 7;
    if ((tw & 4) && left < ((tw & 3) ? 2 : 1) * tab + reserve) tw &= 3;
    if (!tw || left < tab + reserve) return;
    cuzk_gpu_ntt_domain *d = NULL;
    char e2[CUZK_ERRMSG_LEN];
    if (cuzk_gpu_ntt_domain_create_ex(&d, gw->ctx, gw->pk->log_domain, gw->pk->roots, 0, 0, 0,
                                      tw, e2) != CUZK_OK)
        return;
    cuzk_gpu_ntt_domain_destroy(gw->dom);
    gw->dom = d;
}

static cuzk_status gpu_ws_create(void **out, const cuzk_groth16_pk *pk, const cuzk_config *cfg,
                                 char *err)
{
    *out = NULL;
    if (err) err[0] = 0;
    int count = 0;
    cuzk_status s = cuzk_gpu_device_count(&count, err);
    if (s != CUZK_OK) return s;
    if (count <= cfg->gpu_device || cfg->gpu_device < 0) {
        if (err)
            snprintf(err, CUZK_ERRMSG_LEN, "gpu: no CUDA device %d (%d present)", cfg->gpu_device,
                     count);
        return CUZK_ERR_NO_DEVICE;
    }
    if (cfg->gpu_ntt_fp64 > 4 || cfg->gpu_msm_fp64 > CUZK_GPU_MSM_FP64_MAX) {
        if (err)
            snprintf(err, CUZK_ERRMSG_LEN,
                     "gpu: FP64 shares are 0..4 (the NTT's %u, the MSMs' %u)", cfg->gpu_ntt_fp64,
                     cfg->gpu_msm_fp64);
        return CUZK_ERR_INVALID_ARGUMENT;
    }
    if (!cuzk_ntt_tables_valid(cfg->gpu_ntt_full_twiddles)) {
        if (err)
            snprintf(err, CUZK_ERRMSG_LEN, "gpu: gpu_ntt_full_twiddles %u: " CUZK_NTT_TABLES_VALUES,
                     cfg->gpu_ntt_full_twiddles);
        return CUZK_ERR_INVALID_ARGUMENT;
    }
    gpu_ws *gw = (gpu_ws *)calloc(1, sizeof *gw);
    if (!gw) return CUZK_ERR_NO_MEMORY;
    gw->pk = pk;
    gw->msm_fp64 = cfg->gpu_msm_fp64;
    gw->nthreads = cfg->nthreads ? cfg->nthreads : cuzk_ncores();
    gw->n = (size_t)1 << pk->log_domain;
    gw->n_h = pk->h_form == CUZK_H_LAGRANGE ? gw->n : gw->n - 1;
    gw->n_in = (size_t)pk->n_public + 1;
    gw->n_priv = (size_t)pk->n_vars - gw->n_in;
    gw->nwords = wc_words(pk->n_vars);
    memcpy(gw->one_mont, CUZK_FR_ONE.l, sizeof gw->one_mont); /* 1 in Montgomery form */

    cuzk_gpu_ctx_opts co;
    memset(&co, 0, sizeof co);
    co.device = cfg->gpu_device;
    co.pool_bytes = (size_t)cfg->gpu_pool_bytes;
    co.streams = cfg->gpu_streams ? cfg->gpu_streams : GPU_PROVER_STREAMS;
    if (co.streams > CUZK_GPU_MAX_STREAMS) co.streams = CUZK_GPU_MAX_STREAMS;
    if ((s = cuzk_gpu_ctx_create(&gw->ctx, &co, err)) != CUZK_OK) {
        free(gw);
        return s;
    }
    gw->nstreams = cuzk_gpu_ctx_streams(gw->ctx);
    gw->sparse_early = cfg->gpu_sparse_early != 0;

    /* Buffers first, then the plans plain (what a proof needs), then the
     * upgrades while they fit: a key that fits plain always gets a
     * workspace. */
    size_t n = gw->n, nb = pk->n_b;
    gw->vals_own = pk->n_vars > n;
    if ((s = buf(gw, &gw->d_abc, 3 * n * sizeof(cuzk_fr), "a, b, c", err)) != CUZK_OK ||
        (s = buf(gw, &gw->d_w, pk->n_vars * sizeof(cuzk_fr), "the witness", err)) != CUZK_OK ||
        (s = buf(gw, &gw->d_s, pk->n_vars * sizeof(cuzk_scalar), "the witness scalars", err)) !=
            CUZK_OK ||
        (s = buf(gw, &gw->d_sb, nb * sizeof(cuzk_scalar), "B's scalars", err)) != CUZK_OK ||
        (s = buf(gw, &gw->d_bvar, nb * sizeof(uint32_t), "B's variables", err)) != CUZK_OK ||
        (s = buf(gw, &gw->d_bits, 2 * gw->nwords * 8, "the witness bitmaps", err)) != CUZK_OK ||
        (s = buf(gw, &gw->d_off, gw->nwords * 4, "the witness offsets", err)) != CUZK_OK ||
        (gw->vals_own &&
         (s = buf(gw, &gw->d_vals, pk->n_vars * sizeof(cuzk_fr), "the witness values", err)) !=
             CUZK_OK))
        goto fail;
    if (!gw->vals_own) gw->d_vals = gw->d_abc + 2 * n;
    if (nb && (s = cuzk_gpu_memcpy(gw->ctx, 0, gw->d_bvar, pk->b_var, nb * sizeof(uint32_t),
                                   err)) != CUZK_OK)
        goto fail;
    /* Two-level twiddles now; the full table, if asked for, below, from
     * what the plans leave. */
    if ((s = cuzk_gpu_ntt_domain_create_ex(&gw->dom, gw->ctx, pk->log_domain, pk->roots, 0, 0,
                                           cfg->gpu_ntt_fp64, 0, err)) != CUZK_OK) {
        if (s == CUZK_ERR_NO_MEMORY) s = no_fit(gw, "the NTT domain", err);
        goto fail;
    }
    /* Jobs that give compact witnesses need no staging (a full partition:
     * 4.2 GB of pinned host memory less); a dense job then makes it. */
    if (!(cfg->ws_flags & CUZK_WS_COMPACT_WITNESS) && (s = host_staging(gw, err)) != CUZK_OK)
        goto fail;
    if (pk->h_form == CUZK_H_MONOMIAL) {
        /* Z(g omega^j) = g^n - 1 for every j (cpu.c): the CPU domain's g. */
        cuzk_ntt_domain *cd = NULL;
        if ((s = cuzk_ntt_domain_create(&cd, pk->log_domain, pk->roots, 1)) != CUZK_OK) {
            if (err) snprintf(err, CUZK_ERRMSG_LEN, "gpu: the coset shift: %s", cuzk_strerror(s));
            goto fail;
        }
        uint64_t e = n;
        cuzk_fr_pow(&gw->z_inv, cuzk_ntt_coset_shift(cd), &e, 1);
        cuzk_fr_sub(&gw->z_inv, &gw->z_inv, &CUZK_FR_ONE);
        cuzk_fr_inv(&gw->z_inv, &gw->z_inv);
        cuzk_ntt_domain_destroy(cd);
    }
    if (pk->m.n_rows) {
        /* The key's matrices as a PCE on the device (has_input_rows: the
         * matrices hold the input rows). */
        cuzk_pce hp;
        memset(&hp, 0, sizeof hp);
        if ((s = cuzk_pce_compile(&hp, &pk->m, gw->n_in, gw->n_priv, 0, gw->nthreads, err)) !=
            CUZK_OK)
            goto fail;
        gw->mpce_has_c = (hp.flags & CUZK_PCE_HAS_C) != 0;
        s = cuzk_gpu_pce_create(&gw->mpce, gw->ctx, &hp, err);
        cuzk_pce_free(&hp);
        if (s == CUZK_ERR_NO_MEMORY) s = no_fit(gw, "the key's matrices", err);
        if (s != CUZK_OK) goto fail;
        gw->bytes += cuzk_gpu_pce_device_bytes(gw->mpce);
    }
    if ((s = make_plans(gw, cfg, err)) != CUZK_OK) goto fail;
    if (!cfg->gpu_msm_flags) {
        size_t reserve = GPU_PCE_RESERVE_PER_POINT * n;
        for (int k = 0; k < NPLAN; k++) {
            if (!gw->plan[k]) continue;
            const void *pts;
            size_t np;
            cuzk_gpu_group grp;
            plan_points(gw, k, &pts, &np, &grp);
            for (int step = 0; upgrade_flags(k, step); step++) {
                cuzk_gpu_msm_plan *up = NULL;
                char e2[CUZK_ERRMSG_LEN];
                if (make_plan(&up, gw, k, grp, pts, np, upgrade_flags(k, step), e2) != CUZK_OK)
                    continue; /* does not fit: a weaker upgrade, or stay plain */
                if (pool_left(gw) < reserve) { /* it ate the PCE's room */
                    cuzk_gpu_msm_plan_destroy(up);
                    continue;
                }
                cuzk_gpu_msm_plan_destroy(gw->plan[k]);
                gw->plan[k] = up;
                break;
            }
        }
    }
    if (cfg->gpu_ntt_full_twiddles && !cfg->gpu_ntt_fp64) full_twiddles(gw, cfg);
    for (int k = 0; k < NPLAN; k++) gw->bytes += cuzk_gpu_msm_plan_device_bytes(gw->plan[k]);
    cuzk_gpu_ntt_info ni;
    if (cuzk_gpu_ntt_get_info(gw->dom, &ni, NULL) == CUZK_OK) gw->bytes += ni.table_bytes;
    gw->bytes += gw->scratch_bytes + sizeof *gw;
    if ((s = cuzk_gpu_stream_wait(gw->ctx, 0, err)) != CUZK_OK) goto fail;
    *out = gw;
    return CUZK_OK;
fail:
    gpu_ws_destroy(gw);
    return s;
}

/* ------------------------------------------------------------- rows -- */


/* The device PCE for the job's p: the cached copy when it is the same
 * image, else p copied now (the first job with it). */
static cuzk_status job_pce(gpu_ws *gw, const cuzk_pce *p, char *err)
{
    if (gw->jpce && gw->jpce_image == p->image && gw->jpce_size == p->image_size)
        return CUZK_OK;
    if (gw->jpce) gw->bytes -= cuzk_gpu_pce_device_bytes(gw->jpce);
    cuzk_gpu_pce_destroy(gw->jpce);
    gw->jpce = NULL;
    gw->jpce_image = NULL;
    cuzk_status s = cuzk_gpu_pce_create(&gw->jpce, gw->ctx, p, err);
    if (s == CUZK_ERR_NO_MEMORY) return no_fit(gw, "the PCE", err);
    if (s != CUZK_OK) return s;
    gw->jpce_image = p->image;
    gw->jpce_size = p->image_size;
    gw->bytes += cuzk_gpu_pce_device_bytes(gw->jpce);
    return CUZK_OK;
}

/* After m rows are in a, b, c: zero the rest of the domain and append the
 * input rows (a = w_i, b = c = 0) unless they are there (cpu.c). */
static cuzk_status finish_rows(gpu_ws *gw, cudaStream_t st, size_t m, int has_input_rows,
                               char *err)
{
    size_t n = gw->n, z = (n - m) * sizeof(cuzk_fr);
    for (int k = 0; k < 3 && z; k++)
        CUZK_CUDA_TRY(err, cudaMemsetAsync(gw->d_abc + k * n + m, 0, z, st));
    if (!has_input_rows)
        CUZK_CUDA_TRY(err, cudaMemcpyAsync(gw->d_abc + m, gw->d_w, gw->n_in * sizeof(cuzk_fr),
                                           cudaMemcpyDeviceToDevice, st));
    return CUZK_OK;
}

static cuzk_status gpu_eval_rows(void *p, const cuzk_stage_in *in, char *err)
{
    gpu_ws *gw = (gpu_ws *)p;
    const cuzk_groth16_pk *pk = in->pk;
    cuzk_status s;
    for (int k = 0; k < NPLAN; k++) plan_drain(gw, k); /* a stopped proof's */
    gw->msm_begun = 0;
    cudaStream_t st = gpu_stream(gw->ctx, 0, err);
    if (!st) return CUZK_ERR_INVALID_ARGUMENT;
    CUZK_CUDA_TRY(err, cudaSetDevice(gw->ctx->device));

    /* The witness, compact: as the job gave it (a worker thread made it,
     * ~80 MB at full size, copied from pageable memory), or made here from
     * the dense one into the pinned staging (made at the first dense job
     * when the workspace was made for compact ones), whose vals hold the
     * worst case (so they never grow). */
    const cuzk_witness_compact *wc = in->wc;
    cuzk_witness_compact hw = {pk->n_vars, 0, NULL, NULL, NULL, pk->n_vars};
    if (!wc) {
        if ((s = host_staging(gw, err)) != CUZK_OK) return s;
        hw.bits = gw->h_bits;
        hw.off = gw->h_off;
        hw.vals = gw->h_vals;
        if ((s = cuzk_wc_from_dense(&hw, in->w, pk->n_vars, gw->nthreads)) != CUZK_OK) {
            if (err) snprintf(err, CUZK_ERRMSG_LEN, "gpu: the compact witness: %s",
                              cuzk_strerror(s));
            return s;
        }
        wc = &hw;
    }
    size_t n_other = wc->n_other;
    gw->n_other = n_other;
    CUZK_CUDA_TRY(err, cudaMemcpyAsync(gw->d_bits, wc->bits, 2 * gw->nwords * 8,
                                       cudaMemcpyHostToDevice, st));
    CUZK_CUDA_TRY(err, cudaMemcpyAsync(gw->d_off, wc->off, gw->nwords * 4,
                                       cudaMemcpyHostToDevice, st));
    if (n_other)
        CUZK_CUDA_TRY(err, cudaMemcpyAsync(gw->d_vals, wc->vals, n_other * sizeof(cuzk_fr),
                                           cudaMemcpyHostToDevice, st));
    fr_const one;
    memcpy(one.l, gw->one_mont, sizeof one.l);
    k_expand<<<grid_for(pk->n_vars), TPB, 0, st>>>(
        pk->n_vars, gw->d_bits, gw->d_bits + gw->nwords, gw->d_off, (const uint4 *)gw->d_vals,
        (uint4 *)gw->d_w, (uint4 *)gw->d_s, one);
    CUZK_CUDA_TRY_LAUNCH(err);

    size_t n = gw->n;
    cuzk_fr *a = gw->d_abc, *b = a + n, *c = b + n;
    const cuzk_groth16_rows *r = in->rows;
    if (r) {
        size_t m = r->n_rows;
        CUZK_CUDA_TRY(err, cudaMemcpyAsync(a, r->a, m * sizeof *a, cudaMemcpyHostToDevice, st));
        CUZK_CUDA_TRY(err, cudaMemcpyAsync(b, r->b, m * sizeof *b, cudaMemcpyHostToDevice, st));
        if (r->c) {
            CUZK_CUDA_TRY(err, cudaMemcpyAsync(c, r->c, m * sizeof *c, cudaMemcpyHostToDevice,
                                               st));
        } else if (m) {
            k_mul<<<grid_for(m), TPB, 0, st>>>(m, (uint4 *)c, (const uint4 *)a,
                                                (const uint4 *)b);
            CUZK_CUDA_TRY_LAUNCH(err);
        }
        if ((s = finish_rows(gw, st, m, r->has_input_rows, err)) != CUZK_OK) return s;
    } else {
        const cuzk_gpu_pce *d = gw->mpce;
        int has_c = gw->mpce_has_c, has_in = 1;
        size_t m = pk->m.n_rows;
        if (in->pce) {
            if ((s = job_pce(gw, in->pce, err)) != CUZK_OK) return s;
            d = gw->jpce;
            has_c = (in->pce->flags & CUZK_PCE_HAS_C) != 0;
            has_in = (in->pce->flags & CUZK_PCE_HAS_INPUT_ROWS) != 0;
            m = in->pce->n_rows;
        }
        if (!d) {
            if (err) snprintf(err, CUZK_ERRMSG_LEN, "gpu: no rows: the key has no matrices");
            return CUZK_ERR_INVALID_ARGUMENT;
        }
        if ((s = cuzk_gpu_pce_eval(d, 0, gw->d_w, gw->d_bits, gw->d_bits + gw->nwords, a, b,
                                   has_c ? c : NULL, err)) != CUZK_OK)
            return s;
        if (!has_c && m) { /* no C matrix (a .zkey's): c = a o b row by row */
            k_mul<<<grid_for(m), TPB, 0, st>>>(m, (uint4 *)c, (const uint4 *)a,
                                                (const uint4 *)b);
            CUZK_CUDA_TRY_LAUNCH(err);
        }
        if ((s = finish_rows(gw, st, m, has_in, err)) != CUZK_OK) return s;
    }
    return cuzk_gpu_stream_wait(gw->ctx, 0, err);
}

/* ---------------------------------------------------------------- H -- */

static cuzk_status start_msms(gpu_ws *gw, unsigned mask, char *err);

static cuzk_status gpu_h_poly(void *p, const cuzk_stage_in *in, char *err)
{
    gpu_ws *gw = (gpu_ws *)p;
    const cuzk_groth16_pk *pk = in->pk;
    cuzk_status s;
    cudaStream_t st = gpu_stream(gw->ctx, 0, err);
    if (!st) return CUZK_ERR_INVALID_ARGUMENT;
    CUZK_CUDA_TRY(err, cudaSetDevice(gw->ctx->device));
    size_t n = gw->n;
    cuzk_fr *v[3] = {gw->d_abc, gw->d_abc + n, gw->d_abc + 2 * n};
    if (pk->n_b) {
        k_gather<<<grid_for(pk->n_b), TPB, 0, st>>>(pk->n_b, (uint4 *)gw->d_sb,
                                                    (const uint4 *)gw->d_s, gw->d_bvar);
        CUZK_CUDA_TRY_LAUNCH(err);
    }
    /* The sparse MSMs need only the witness: they run beside the NTTs (on
     * their own streams; with one shared scratch, before H's MSM on its
     * stream). */
    if (gw->sparse_early && (s = start_msms(gw, SPARSE_PLANS, err)) != CUZK_OK) return s;
    /* inverse, then coset forward, with one pass fewer (2^27: 86.08 ->
     * 85.52 ms a vector on the H200, docs/perf.md "The inverse and the
     * coset forward fused") */
    for (int k = 0; k < 3; k++)
        if ((s = cuzk_gpu_ntt(gw->dom, 0, CUZK_GPU_NTT_TO_COSET, v[k], err)) != CUZK_OK) return s;
    int mono = pk->h_form == CUZK_H_MONOMIAL;
    fr_const z;
    memcpy(z.l, gw->z_inv.l, sizeof z.l);
    k_abc<<<grid_for(n), TPB, 0, st>>>(n, (uint4 *)v[0], (const uint4 *)v[1],
                                        (const uint4 *)v[2], z, mono);
    CUZK_CUDA_TRY_LAUNCH(err);
    if (mono && (s = cuzk_gpu_ntt(gw->dom, 0, CUZK_GPU_NTT_COSET_INVERSE, v[0], err)) != CUZK_OK)
        return s;
    k_from_mont<<<grid_for(gw->n_h), TPB, 0, st>>>(gw->n_h, (uint4 *)v[0]);
    CUZK_CUDA_TRY_LAUNCH(err);
    return cuzk_gpu_stream_wait(gw->ctx, 0, err);
}

/* --------------------------------------------------------------- MSMs -- */

/* Starts this proof's MSMs of the plans in mask (bit k: plan k) that have
 * not started yet, each on its plan's stream after stream 0's work so far
 * (the scalars). */
static cuzk_status start_msms(gpu_ws *gw, unsigned mask, char *err)
{
    const cuzk_groth16_pk *pk = gw->pk;
    const cuzk_scalar *in[NPLAN];
    size_t cnt[NPLAN];
    in[P_H] = (const cuzk_scalar *)gw->d_abc, cnt[P_H] = gw->n_h;
    in[P_L] = gw->d_s + gw->n_in, cnt[P_L] = gw->n_priv;
    in[P_A] = gw->d_s, cnt[P_A] = pk->n_vars;
    in[P_B2] = gw->d_sb, cnt[P_B2] = pk->n_b;
    in[P_B1] = gw->d_sb, cnt[P_B1] = pk->n_b;
    for (int k = 0; k < NPLAN; k++) {
        unsigned bit = 1u << k;
        if (!(mask & bit) || (gw->msm_begun & bit)) continue;
        gw->msm_begun |= bit;
        if (!gw->plan[k]) continue;
        cuzk_status s;
        unsigned sk = gw->pstream[k];
        if (sk && (s = cuzk_gpu_stream_order(gw->ctx, sk, 0, err)) != CUZK_OK) return s;
        /* The sparse MSMs' scalars are the witness's (B's: a subset): at
         * most n_other of them are neither 0 nor 1. */
        s = k == P_H ? cuzk_gpu_msm_start_var(gw->plan[k], sk, in[k], cnt[k], err)
                     : cuzk_gpu_msm_sparse_start_bounded_var(gw->plan[k], sk, in[k], cnt[k],
                                                             gw->n_other, err);
        if (s != CUZK_OK) return s;
        gw->started[k] = 1;
    }
    return CUZK_OK;
}

static cuzk_status finish_g1(gpu_ws *gw, int k, cuzk_g1_jac *out, char *err)
{
    if (!gw->plan[k]) {
        cuzk_g1_jac_set_inf(out);
        return CUZK_OK;
    }
    if (!gw->started[k]) {
        if (err) snprintf(err, CUZK_ERRMSG_LEN, "gpu: MSM %s was not started", PLAN_NAME[k]);
        return CUZK_ERR_INVALID_ARGUMENT;
    }
    gw->started[k] = 0;
    return cuzk_gpu_g1_msm_finish(out, gw->plan[k], err);
}

static cuzk_status gpu_msm_a(void *p, const cuzk_stage_in *in, cuzk_g1_jac *out, char *err)
{
    (void)in;
    gpu_ws *gw = (gpu_ws *)p;
    cuzk_status s = start_msms(gw, ALL_PLANS, err);
    return s != CUZK_OK ? s : finish_g1(gw, P_A, out, err);
}

static cuzk_status gpu_msm_b2(void *p, const cuzk_stage_in *in, cuzk_g2_jac *out, char *err)
{
    (void)in;
    gpu_ws *gw = (gpu_ws *)p;
    cuzk_status s = start_msms(gw, ALL_PLANS, err);
    if (s != CUZK_OK) return s;
    if (!gw->plan[P_B2]) {
        cuzk_g2_jac_set_inf(out);
        return CUZK_OK;
    }
    if (!gw->started[P_B2]) {
        if (err) snprintf(err, CUZK_ERRMSG_LEN, "gpu: MSM B2 was not started");
        return CUZK_ERR_INVALID_ARGUMENT;
    }
    gw->started[P_B2] = 0;
    return cuzk_gpu_g2_msm_finish(out, gw->plan[P_B2], err);
}

/* L + H + r B1: cpu.c's "separate" form of C's bracket (the same point as
 * its merged form, so the proofs are equal whichever the CPU picked). */
static cuzk_status gpu_msm_c(void *p, const cuzk_stage_in *in, cuzk_g1_jac *out, char *err)
{
    gpu_ws *gw = (gpu_ws *)p;
    cuzk_g1_jac h, b1;
    cuzk_status s = start_msms(gw, ALL_PLANS, err);
    if (s != CUZK_OK || (s = finish_g1(gw, P_L, out, err)) != CUZK_OK ||
        (s = finish_g1(gw, P_H, &h, err)) != CUZK_OK ||
        (s = finish_g1(gw, P_B1, &b1, err)) != CUZK_OK)
        return s;
    cuzk_g1_mul(&b1, &b1, &in->r);
    cuzk_g1_add(out, out, &h);
    cuzk_g1_add(out, out, &b1);
    return CUZK_OK;
}

/* ---------------------------------------------------- fault injection -- */

/* ws's GPU state, or NULL (with err) when it is not a GPU workspace. */
static gpu_ws *testing_ws(cuzk_workspace *ws, const char *what, char *err)
{
    if (ws && !strcmp(cuzk_workspace_backend(ws), "gpu"))
        return (gpu_ws *)cuzk_workspace_backend_state(ws);
    if (err) snprintf(err, CUZK_ERRMSG_LEN, "gpu %s: not a gpu workspace", what);
    return NULL;
}

extern "C" cuzk_status cuzk_gpu_testing_ws_flip(cuzk_workspace *ws, const char *which,
                                                size_t index, unsigned bit, char *err)
{
    gpu_ws *gw = testing_ws(ws, "flip", err);
    if (!gw || !which) return CUZK_ERR_INVALID_ARGUMENT;
    for (int k = 0; k < NPLAN; k++) {
        if (strcmp(which, PLAN_NAME[k])) continue;
        plan_drain(gw, k);
        return cuzk_gpu_testing_msm_plan_flip(gw->plan[k], index, bit, err);
    }
    if (err) snprintf(err, CUZK_ERRMSG_LEN, "gpu flip: no points '%s'", which);
    return CUZK_ERR_INVALID_ARGUMENT;
}

extern "C" cuzk_status cuzk_gpu_testing_ws_ntt(cuzk_workspace *ws, cuzk_gpu_ntt_info *info,
                                               char *err)
{
    gpu_ws *gw = testing_ws(ws, "ntt info", err);
    if (!gw || !info) return CUZK_ERR_INVALID_ARGUMENT;
    return cuzk_gpu_ntt_get_info(gw->dom, info, err);
}

/* ----------------------------------------------------------- registry -- */

static const cuzk_prover_backend GPU_BACKEND = {
    "gpu",      gpu_ws_create, gpu_ws_destroy, gpu_ws_bytes,        gpu_eval_rows,
    gpu_h_poly, gpu_msm_a,     gpu_msm_b2,     gpu_msm_c, CUZK_BACKEND_COMPACT};

extern "C" const cuzk_prover_backend *cuzk_gpu_backend(void) { return &GPU_BACKEND; }

extern "C" cuzk_status cuzk_gpu_backend_register(void)
{
    if (cuzk_backend_find(GPU_BACKEND.name) == &GPU_BACKEND) return CUZK_OK;
    cuzk_status s = cuzk_backend_register(&GPU_BACKEND);
    /* Lost a race with another registering thread: registered all the same. */
    if (s != CUZK_OK && cuzk_backend_find(GPU_BACKEND.name) == &GPU_BACKEND) return CUZK_OK;
    return s;
}
