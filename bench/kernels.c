/* cuzk-bench kernels: GPU field-arithmetic throughput.
 *
 * For Fr mul, Fr sqr, Fp mul, Fp sqr: random non-zero elements resident on
 * the device; each thread does `iters` dependent operations x = x*y (or x^2)
 * on `ilp` independent chains (cuzk_gpu_ff_throughput). The grid is a whole
 * number of full waves (resident blocks per SM x SMs x `waves`). One warm-up
 * launch, then `reps` launches timed with CUDA events; the median is
 * reported. A few results are checked against the CPU.
 *
 * How the peak is counted (shared/research/gpu-sota.md §5.1-5.2): the GPU's
 * 32-bit multiply-add rate P = SMs x 64 lanes x SM clock (H200: 132 x 64 x
 * 1.98 GHz = 16.73e12/s), and one 32x32->64-bit partial product counted as
 * one IMAD, so a Montgomery multiplication is 2N^2+N IMAD: Fr (N = 8) 136,
 * Fp (N = 12) 300. "mul pk" is rate / (P / that count), for sqr too; "own pk"
 * uses the squaring's own product count, N(N-1)/2 + N + N^2 + N: Fr 108,
 * Fp 234.
 *
 * That peak assumes IMAD.WIDE at the IMAD rate. Measured on the H200
 * (--calibrate): IMAD.WIDE and IMAD.HI run at half of it, so a partial
 * product costs 2 IMAD issue slots. "pipe pk" is rate / (P / slots), with
 * the slots of one operation counted in the SASS of the library's kernels on
 * the H200 (IMAD.WIDE and IMAD.HI 2, other IMAD forms 1): Fr mul 264,
 * Fr sqr 226, Fp mul 588, Fp sqr 471. It is the real ceiling of this code.
 *
 * --msm 20,24,26 [--g2] [--bits] [--affine]: MSM rows instead
 * (cuzk_gpu_g1_msm_var, cuzk_gpu_g2_msm_var, or with --bits the 0/1-scalar sums
 * cuzk_gpu_g*_msm_bits on a random bitmap of density 1/2; src/gpu/msm.cu);
 * --affine switches the plans to batch-affine bucket accumulation
 * (cuzk_gpu_msm_opts.acc, src/gpu/msm_affine.cuh); with it, --msm-fp64
 * 0,3 gives each size (and plan kind) one row per listed FP64 share
 * (cuzk_gpu_msm_opts.fp64_share: that many of the 6 field products of an
 * affine addition on the FP64 pipe; 0 = integer only), in the list's order
 * (repeat shares, e.g. 0,3,0,3, to alternate them).
 * For each size 2^s: points P_j = B + j S generated on the device (random B,
 * S; resident), uniformly random scalars below r in pinned host memory, one
 * warm-up call checked against [sum k_j] B + [sum j k_j] S, then `reps`
 * calls; medians of the CUDA-event stage times (device) and of the host wall
 * time per call. Compared with sppark on the same card (research/gpu-sota.md
 * §1a: scalars from pinned memory 20.9 / 156.9 / 567.5 ms at 2^20 / 2^24 /
 * 2^26), with the 2^26 target of DESIGN.md (150 ms), and with the compute
 * floor (msm_floor_ms: the additions at the IMAD peak P).
 *
 * --fixed 20,24 [--fixed-reps R] [--fixed-w W]: fixed-base multiplication
 * rows instead (cuzk_gpu_fixed_mul, src/gpu/fixed.cu): out[i] = [s_i] G for
 * G1 then G2, random scalars; device time (CUDA events), wall time with
 * pinned arrays and with pageable ones; 64 points per size checked against
 * the CPU; and the setup time at PoRep size (4.5e8 G1, 3.3e7 G2 points)
 * these rates give.
 *
 * --precompute: for each size a plain plan's row, then a precomputed
 * plan's (CUZK_GPU_MSM_PRECOMPUTE, its own window size), with the table's
 * device time ("tab ms"); "dev GB" is the whole plan's device memory and
 * "gen ms" the host time to make it (with the table).
 *
 * --bits-table: plans also hold the subset sums of groups of 4 points
 * (CUZK_GPU_MSM_BITS_TABLE), which the --bits and --sparse rows then use;
 * "tab ms" is the device time of the plan's tables.
 *
 * --sparse: witness-like scalars (1/2 ones, 1/4 zeros, 1/4 random) through
 * cuzk_gpu_g*_msm_sparse (ones as a bitmap sum, Pippenger on the rest). */
/* GPU NTT rows (after the field table; --ntt: only these): for 2^20, 2^24,
 * 2^26, 2^27 (--ntt-sizes) and each of the four transforms
 * (cuzk_gpu_ntt_time): random data resident on the device, each run on a
 * fresh device copy of it; one warm-up, then --ntt-reps runs timed with CUDA
 * events; the median is reported. "GB/s 1ps" counts one read and one write of
 * the array (as research/gpu-sota.md §3 does for sppark; the transform makes
 * three such passes). "floor" is gpu-sota.md §5.6's: (n/2) log2 n butterflies
 * of one 136-IMAD multiplication at the IMAD peak P (14.7 ms for 2^27 on the
 * H200); "pipe" counts 264 IMAD issue slots per multiplication instead, as
 * measured above. Two outputs of each transform are checked against a CPU
 * evaluation of the polynomial at the point (multithreaded Horner). The
 * pass kernels' variant comes from the environment (CUZK_NTT_VARIANT,
 * CUZK_NTT_FP64, CUZK_NTT_FULL_TW) and is shown in the ept, f64 and tw
 * columns. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

#ifndef CUZK_HAVE_GPU

int bench_kernels(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "cuzk-bench kernels: built without the CUDA backend\n");
    return 2;
}

#else

#include <cuzk/ff.h>
#include <cuzk/gpu.h>
#include <cuzk/poly.h>

#include "common/parallel.h"
#include "gpu/gpu_testing.h"

static char gerr[CUZK_ERRMSG_LEN]; /* the last GPU call's message */

/* A context on device with a pool of pool bytes (0: the default) and one
 * stream. */
static cuzk_status bench_ctx(cuzk_gpu_ctx **ctx, int device, size_t pool)
{
    cuzk_gpu_ctx_opts o = {device, pool, 1};
    return cuzk_gpu_ctx_create(ctx, &o, gerr);
}

static uint64_t kr_state = 0x243f6a8885a308d3ull;

static uint64_t kr64(void)
{
    uint64_t z = (kr_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Random non-zero reduced elements (raw Montgomery limbs below the modulus). */
static void fill_random(void *buf, size_t n, int fp)
{
    int nl = fp ? CUZK_FP_LIMBS : CUZK_FR_LIMBS;
    const uint64_t *m = fp ? CUZK_FP_MODULUS : CUZK_FR_MODULUS;
    uint64_t top = fp ? 0x1fffffffffffffffull : 0x7fffffffffffffffull;
    uint64_t *v = buf;
    for (size_t i = 0; i < n; i++, v += nl) {
        for (;;) {
            uint64_t nz = 0;
            for (int k = 0; k < nl; k++) nz |= v[k] = kr64();
            v[nl - 1] &= top;
            int lt = 0;
            for (int k = nl - 1; k >= 0; k--)
                if (v[k] != m[k]) { lt = v[k] < m[k]; break; }
            if (lt && nz) break;
        }
    }
}

static int cmp_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

typedef struct {
    const char *name;
    const char *id;  /* for --kernel */
    cuzk_gpu_field field;
    cuzk_gpu_op op;
    int imad;       /* partial products per operation, as counted in ff.cuh
                       (the generic steps; Fr variant 11 takes 120 / 92,
                       13 112 / 84, 12 mul 120 (Fr) / 264 (Fp)) */
    int imad_mul;   /* partial products per multiplication of the field */
    int slots;      /* IMAD issue slots per operation in the H200 SASS */
} kernel_t;

static const kernel_t kernels[] = {
    {"Fr mul", "fr-mul", CUZK_GPU_FR, CUZK_GPU_OP_MUL, 136, 136, 264},
    {"Fr sqr", "fr-sqr", CUZK_GPU_FR, CUZK_GPU_OP_SQR, 108, 136, 226},
    {"Fp mul", "fp-mul", CUZK_GPU_FP, CUZK_GPU_OP_MUL, 300, 300, 588},
    {"Fp sqr", "fp-sqr", CUZK_GPU_FP, CUZK_GPU_OP_SQR, 234, 300, 471},
};

/* CPU check of element i after the run: x = a * b[t]^iters or a^(2^iters). */
static int check_elem(const kernel_t *k, const uint8_t *a, const uint8_t *b, const uint8_t *out,
                      size_t i, size_t nthreads, unsigned iters)
{
    size_t sz = k->field == CUZK_GPU_FP ? sizeof(cuzk_fp) : sizeof(cuzk_fr);
    size_t t = i % nthreads;
    uint8_t x[sizeof(cuzk_fp)];
    memcpy(x, a + i * sz, sz);
    for (unsigned it = 0; it < iters; it++) {
        if (k->field == CUZK_GPU_FP) {
            if (k->op == CUZK_GPU_OP_MUL) cuzk_fp_mul((cuzk_fp *)x, (cuzk_fp *)x, (const cuzk_fp *)(b + t * sz));
            else                          cuzk_fp_sqr((cuzk_fp *)x, (cuzk_fp *)x);
        } else {
            if (k->op == CUZK_GPU_OP_MUL) cuzk_fr_mul((cuzk_fr *)x, (cuzk_fr *)x, (const cuzk_fr *)(b + t * sz));
            else                          cuzk_fr_sqr((cuzk_fr *)x, (cuzk_fr *)x);
        }
    }
    return memcmp(x, out + i * sz, sz) == 0;
}

typedef struct {
    unsigned iters, reps, waves;
    double peak;   /* IMAD per second */
    int sms;
} opts_t;

/* One kernel in one shape: its rate (median launch), resources, and the
 * CPU check of 4 results. */
typedef struct {
    double gops, med_ms, min_ms;
    size_t n;
    cuzk_gpu_kernel_info info;
    int ok;
} meas_t;

/* Runs one kernel in one shape into *m; returns 0 if it ran (m->ok says
 * whether the results were right). */
static int measure(cuzk_gpu_ctx *ctx, const kernel_t *k, cuzk_gpu_bench_cfg cfg,
                   const opts_t *o, meas_t *m)
{
    size_t sz = k->field == CUZK_GPU_FP ? sizeof(cuzk_fp) : sizeof(cuzk_fr);
    /* Probe the kernel's occupancy with a minimal launch, then size the grid
     * to whole waves. */
    cuzk_gpu_kernel_info info;
    uint8_t probe[2 * 1024 * sizeof(cuzk_fp)];
    size_t np = (size_t)cfg.block * cfg.ilp;
    if (np * sz > sizeof probe) return 1;
    fill_random(probe, np, k->field == CUZK_GPU_FP);
    float ms1;
    cuzk_status st = cuzk_gpu_ff_throughput(ctx, k->field, k->op, probe, probe, np, 1, cfg, 1,
                                            &ms1, NULL, &info, gerr);
    if (st != CUZK_OK) {
        fprintf(stderr, "%s: %s (%s)\n", k->name, cuzk_strerror(st), gerr);
        return 1;
    }
    size_t n = (size_t)info.blocks_per_sm * o->sms * o->waves * cfg.block * cfg.ilp;
    uint8_t *a = malloc(n * sz), *b = malloc(n * sz), *out = malloc(n * sz);
    float *ms = malloc(o->reps * sizeof *ms);
    int rc = 1;
    if (!a || !b || !out || !ms) {
        fprintf(stderr, "%s: out of host memory\n", k->name);
        goto done;
    }
    fill_random(a, n, k->field == CUZK_GPU_FP);
    fill_random(b, n, k->field == CUZK_GPU_FP);
    st = cuzk_gpu_ff_throughput(ctx, k->field, k->op, a, b, n, o->iters, cfg, o->reps, ms, out,
                                NULL, gerr);
    if (st != CUZK_OK) {
        fprintf(stderr, "%s: %s (%s)\n", k->name, cuzk_strerror(st), gerr);
        goto done;
    }
    int ok = 1;
    size_t nthreads = n / cfg.ilp;
    size_t samples[4] = {0, n / 3, n / 2 + 1, n - 1};
    for (int s = 0; s < 4; s++) ok &= check_elem(k, a, b, out, samples[s], nthreads, o->iters);
    qsort(ms, o->reps, sizeof *ms, cmp_float);
    m->med_ms = o->reps % 2 ? ms[o->reps / 2] : 0.5 * (ms[o->reps / 2 - 1] + ms[o->reps / 2]);
    m->min_ms = ms[0];
    m->gops = (double)n * o->iters / (m->med_ms * 1e-3) / 1e9;
    m->n = n;
    m->info = info;
    m->ok = ok;
    rc = 0;
done:
    free(a);
    free(b);
    free(out);
    free(ms);
    return rc;
}

/* Runs one kernel in one shape, prints one table row; returns 0 if correct. */
static int run_one(cuzk_gpu_ctx *ctx, const kernel_t *k, cuzk_gpu_bench_cfg cfg,
                   const opts_t *o, double *gops_out)
{
    meas_t m;
    if (measure(ctx, k, cfg, o, &m)) return 1;
    double peak_mul = o->peak / k->imad_mul / 1e9, peak_own = o->peak / k->imad / 1e9;
    double peak_pipe = o->peak / k->slots / 1e9;
    printf("%-7s %3u %5u %3u %4d %4d %9zu %6u %9.3f %7.3f %8.2f %7.1f%% %7.1f%% %7.1f%%  %s\n",
           k->name, cfg.variant, cfg.block, cfg.ilp, m.info.regs, m.info.blocks_per_sm, m.n,
           o->iters, m.med_ms, m.min_ms, m.gops, 100.0 * m.gops / peak_mul,
           100.0 * m.gops / peak_own, 100.0 * m.gops / peak_pipe, m.ok ? "ok" : "MISMATCH");
    if (m.info.local_bytes)
        printf("        (local memory %d bytes per thread)\n", m.info.local_bytes);
    if (gops_out) *gops_out = m.gops;
    return m.ok ? 0 : 1;
}

/* -------------------------------------------- FP64 field multiplication -- */

/* The FP64-pipe rows (src/gpu/ff_fp64.cuh; throughput variants 5-8): each
 * shape against the integer kernel (variant 0, ilp 1) measured just before
 * it in the same harness, same dependent chains x = x * y. */
typedef struct {
    const char *name;
    unsigned variant, ilp, nf; /* nf of the ilp chains on the FP64 pipe */
} fp64_shape_t;

static const fp64_shape_t fp64_shapes[] = {
    {"fp64", 5, 1, 1},    {"fp64 x2", 5, 2, 2}, {"mix 1+1", 6, 2, 1},
    {"mix 1+2", 7, 3, 2}, {"mix 2+1", 8, 3, 1}, {"fp64 fc", 9, 1, 1},
    {"mix fc", 10, 2, 1},
};

/* Per operation of the throughput loop (x = x * y, y's samples hoisted as
 * loop-invariant; or x = x^2), counted in the PTX of nvcc 13.0 -arch=sm_90
 * (each is one SASS instruction), indexed like kernels[]: FP64
 * instructions, fma.rz.f64 + sub.rn.f64 (Fr mul 96 + 56, Fr sqr 76 + 46,
 * Fp mul 248 + 136, Fp sqr 192 + 108); and the IMAD slots of the quotient
 * digits, one 64-bit low product each (mul.lo.s64: IMAD.WIDE.U32 + 2 IMAD =
 * 4 slots; Fr 5, Fp 8 digits). The SASS counts are in docs/perf.md ("FP64
 * field multiplication"). */
static const int fp64_dp[4] = {152, 122, 384, 300};
static const int fp64_imad_slots[4] = {20, 20, 32, 32};
/* Fp mul with the column sums in doubles (variants 9, 10; ff64_mul_fc):
 * 248 fma.rz.f64 + 136 sub.rn.f64 + 120 add.rn.f64 in the PTX. */
static const int fp64_fc_dp = 504;

/* Prints the FP64 rows of both fields (or of `only`'s field); returns 0 if
 * every result was right. */
static int run_fp64(cuzk_gpu_ctx *ctx, const opts_t *o, unsigned block, const char *only)
{
    /* FP64 peak: 64 DFMA lanes per SM (Hopper; measured 58.9 per clock per
     * SM on the H200, research/gpu-sota.md §5.1) at the SM clock; the
     * integer pipe's: P = SMs x 64 x clock, an IMAD.WIDE taking 2 slots. */
    double dpeak = o->peak;
    int rc = 0;
    printf("\nFP64 field multiplication (src/gpu/ff_fp64.cuh): int = the integer kernel (variant"
           " 0); fp64 = every chain on the FP64 pipe;\nmix a+b = a integer and b FP64 chains per"
           " thread. f64 pk = FP64 instructions issued / (SMs x 64 x clock) (Fr mul %d, sqr %d,"
           "\nFp mul %d, sqr %d per op); int pk = IMAD slots / P (integer: Fr 264 / 226, Fp 588 /"
           " 471; FP64: Fr %d, Fp %d); x int = rate / the int row's.\n",
           fp64_dp[0], fp64_dp[1], fp64_dp[2], fp64_dp[3], fp64_imad_slots[0],
           fp64_imad_slots[2]);
    printf("%-7s %-8s %3s %5s %3s %4s %4s %9s %9s %8s %7s %7s %7s\n", "field", "kind", "var",
           "block", "ilp", "regs", "b/SM", "n", "median ms", "G ops/s", "x int", "f64 pk",
           "int pk");
    for (int fi = 0; fi < 4; fi++) { /* kernels[]: Fr mul, Fr sqr, Fp mul, Fp sqr */
        const kernel_t *k = &kernels[fi];
        int sqr = k->op == CUZK_GPU_OP_SQR;
        if (only && strcmp(only, k->id)) continue;
        meas_t base;
        cuzk_gpu_bench_cfg c0 = {block, 1, 0};
        if (measure(ctx, k, c0, o, &base)) { rc = 1; continue; }
        printf("%-7s %-8s %3u %5u %3u %4d %4d %9zu %9.3f %8.2f %7.2f %6.1f%% %6.1f%%  %s\n",
               k->name, "int", 0u, block, 1u, base.info.regs, base.info.blocks_per_sm, base.n,
               base.med_ms, base.gops, 1.0, 0.0, 100.0 * base.gops * 1e9 * k->slots / o->peak,
               base.ok ? "ok" : "MISMATCH");
        rc |= !base.ok;
        for (size_t si = 0; si < sizeof fp64_shapes / sizeof fp64_shapes[0]; si++) {
            const fp64_shape_t *sh = &fp64_shapes[si];
            if (sqr && si != 0 && si != 2) continue; /* squarings: fp64 and mix 1+1 */
            if (sh->variant >= 9 && k->field == CUZK_GPU_FR) continue; /* Fp only */
            cuzk_gpu_bench_cfg c = {block, sh->ilp, sh->variant};
            meas_t m;
            if (measure(ctx, k, c, o, &m)) { rc = 1; continue; }
            double rate = m.gops * 1e9, f = (double)sh->nf / sh->ilp;
            int dp = sh->variant >= 9 ? fp64_fc_dp : fp64_dp[fi];
            double f64 = rate * f * dp / dpeak;
            double imad = (rate * (1 - f) * k->slots + rate * f * fp64_imad_slots[fi]) / o->peak;
            printf("%-7s %-8s %3u %5u %3u %4d %4d %9zu %9.3f %8.2f %7.2f %6.1f%% %6.1f%%  %s\n",
                   k->name, sh->name, sh->variant, block, sh->ilp, m.info.regs,
                   m.info.blocks_per_sm, m.n, m.med_ms, m.gops, m.gops / base.gops,
                   100.0 * f64, 100.0 * imad, m.ok ? "ok" : "MISMATCH");
            if (m.info.local_bytes)
                printf("        (local memory %d bytes per thread)\n", m.info.local_bytes);
            rc |= !m.ok;
        }
    }
    return rc;
}

/* ------------------------------------------------------------- G1 MSM -- */

/* sppark on the H200, scalars from pinned host memory (gpu-sota.md §1a). */
static double sppark_ms(unsigned lg)
{
    switch (lg) {
    case 16: return 6.9;
    case 18: return 19.5;
    case 20: return 20.9;
    case 22: return 53.6;
    case 24: return 156.9;
    case 26: return 567.5;
    default: return 0;
    }
}

static const uint64_t R_LIMBS[4] = {0xffffffff00000001ull, 0x53bda402fffe5bfeull,
                                    0x3339d80809a1d805ull, 0x73eda753299d7d48ull};

/* Uniform scalar below r (rejection). */
static void rand_scalar(cuzk_scalar *s)
{
    for (;;) {
        for (int i = 0; i < 4; i++) s->l[i] = kr64();
        s->l[3] &= 0x7fffffffffffffffull;
        int lt = 0;
        for (int i = 3; i >= 0; i--)
            if (s->l[i] != R_LIMBS[i]) { lt = s->l[i] < R_LIMBS[i]; break; }
        if (lt) return;
    }
}

/* A random point [k] G of G1 (g2 = 0) or G2 (g2 = 1) into out. */
static void rand_point(void *out, int g2)
{
    uint64_t v[4] = {kr64(), kr64(), kr64(), kr64()};
    cuzk_fr k;
    cuzk_fr_from_limbs_reduce(&k, v);
    if (!g2) {
        cuzk_g1_jac g, r;
        cuzk_g1_from_affine(&g, &CUZK_G1_GENERATOR);
        cuzk_g1_mul(&r, &g, &k);
        cuzk_g1_to_affine(out, &r);
    } else {
        cuzk_g2_jac g, r;
        cuzk_g2_from_affine(&g, &CUZK_G2_GENERATOR);
        cuzk_g2_mul(&r, &g, &k);
        cuzk_g2_to_affine(out, &r);
    }
}

static double median_d(double *v, unsigned n)
{
    for (unsigned i = 1; i < n; i++) /* insertion sort: n is small */
        for (unsigned j = i; j > 0 && v[j - 1] > v[j]; j--) {
            double t = v[j]; v[j] = v[j - 1]; v[j - 1] = t;
        }
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* MSM rows: G1 or G2, random scalars or 0/1 scalars (a bitmap). */
typedef struct {
    int g2;   /* 0: G1, 1: G2 */
    int bits; /* 0/1 scalars of density 1/2 (cuzk_gpu_g*_msm_bits) */
    int pre;  /* also precomputed plans (a second row per size) */
    int affine; /* batch-affine bucket accumulation (cuzk_gpu_msm_opts.acc) */
    int tab;    /* plans with subset sums (CUZK_GPU_MSM_BITS_TABLE) */
    int sparse; /* witness-like scalars through cuzk_gpu_g*_msm_sparse */
} msm_mode;

/* sppark on the H200 (research/gpu-sota.md §1a, pinned scalars), ms; 0 if
 * not measured. G1 random: sppark_ms; G1 0/1 scalars 2^26: 92; G2 2^24: 449. */
static double sppark_mode_ms(msm_mode m, unsigned lg)
{
    if (m.sparse) return 0; /* measured on random scalars only */
    if (!m.g2 && !m.bits) return sppark_ms(lg);
    if (!m.g2 && m.bits && lg == 26) return 92;
    if (m.g2 && !m.bits && lg == 24) return 449;
    return 0;
}

/* Targets of issue 5 (ms; 0: none at this size). */
static double target_ms(msm_mode m, unsigned lg)
{
    if (m.sparse) return 0;
    if (!m.g2 && !m.bits && lg == 26) return 150;
    if (!m.g2 && m.bits && lg == 26) return 15;
    if (m.g2 && !m.bits && lg == 24) return 150;
    return 0;
}

/* The compute floor of research/gpu-sota.md §5.3-5.5, ms: the MSM's point
 * additions at the IMAD peak P (one IMAD per 32x32-bit product; an
 * Fp M 300 IMAD, S 234). G1: XYZZ mixed addition 8M + 2S = 2868, batch-
 * affine addition ~5M + 1S = 1734, XYZZ addition 12M + 2S = 4068. G2 in Fp
 * products (Fp2 M = 3 Fp M, S = 2, both counted at 300): 28, ~17, 40.
 * Random scalars: W rest accumulation additions (rest = n, or for sparse
 * vectors the scalars other than 0 and 1) and 2^c reduction additions per
 * reduced window (W for a plain plan, 1 for a precomputed one); 0/1
 * scalars (and the ones of sparse vectors): one mixed addition per summed
 * point (or table point), `adds`. */
static double msm_floor_ms(msm_mode m, double peak, unsigned c, int pre, double rest,
                           double adds)
{
    double madd = m.g2 ? 28 * 300 : 2868, add = m.g2 ? 40 * 300 : 4068;
    double acc = m.affine ? (m.g2 ? 17 * 300 : 1734) : madd;
    if (m.bits) return adds * madd / peak * 1e3;
    unsigned w = (255 + c - 1) / c;
    return (adds * madd + w * rest * acc + (pre ? 1.0 : w) * (double)((size_t)1 << c) * add) /
           peak * 1e3;
}

/* want = [m0] B + [m1] S in the mode's group; eq compares with got. */
static void lin_comb(msm_mode m, void *want, const void *b, const cuzk_fr *m0, const void *st,
                     const cuzk_fr *m1)
{
    if (!m.g2) {
        cuzk_g1_jac jb, js;
        cuzk_g1_from_affine(&jb, b);
        cuzk_g1_from_affine(&js, st);
        cuzk_g1_mul(&jb, &jb, m0);
        cuzk_g1_mul(&js, &js, m1);
        cuzk_g1_add(want, &jb, &js);
    } else {
        cuzk_g2_jac jb, js;
        cuzk_g2_from_affine(&jb, b);
        cuzk_g2_from_affine(&js, st);
        cuzk_g2_mul(&jb, &jb, m0);
        cuzk_g2_mul(&js, &js, m1);
        cuzk_g2_add(want, &jb, &js);
    }
}

static cuzk_status msm_call(msm_mode m, cuzk_gpu_msm_plan *plan,
                            const cuzk_scalar *k, const uint64_t *bits, size_t n, void *got)
{
    if (m.bits)
        return m.g2 ? cuzk_gpu_g2_msm_bits_var(got, plan, 0, bits, n, gerr)
                    : cuzk_gpu_g1_msm_bits_var(got, plan, 0, bits, n, gerr);
    if (m.sparse)
        return m.g2 ? cuzk_gpu_g2_msm_sparse_var(got, plan, 0, k, n, gerr)
                    : cuzk_gpu_g1_msm_sparse_var(got, plan, 0, k, n, gerr);
    return m.g2 ? cuzk_gpu_g2_msm_var(got, plan, 0, k, n, gerr)
                : cuzk_gpu_g1_msm_var(got, plan, 0, k, n, gerr);
}

/* One row per size (and plan kind, and FP64 share of fp64_list, a list
 * like "0,2,3", or NULL: share 0); returns 0 if every result was right. */
static int run_msm(int device, double peak, const char *list, unsigned reps, unsigned c_forced,
                   msm_mode mode, const char *fp64_list)
{
    unsigned lgs[16], nl = 0, lgmax = 0;
    for (const char *q = list; *q && nl < 16;) {
        char *end;
        unsigned long v = strtoul(q, &end, 10);
        if (end == q || v < 1 || v > 30) { fprintf(stderr, "--msm: bad size list\n"); return 2; }
        lgs[nl++] = (unsigned)v;
        if (v > lgmax) lgmax = (unsigned)v;
        q = *end == ',' ? end + 1 : end;
    }
    if (nl == 0 || reps == 0 || reps > 64) { fprintf(stderr, "--msm: bad arguments\n"); return 2; }
    if (mode.bits && (mode.affine || mode.sparse)) {
        fprintf(stderr, "--msm: --affine and --sparse apply to scalars, not --bits\n");
        return 2;
    }
    unsigned shares[16] = {0}, ns = 1;
    if (fp64_list) {
        if (!mode.affine) {
            fprintf(stderr, "--msm-fp64: for batch-affine plans (--affine)\n");
            return 2;
        }
        ns = 0;
        for (const char *q = fp64_list;;) {
            char *end;
            unsigned long v = strtoul(q, &end, 10);
            if (end == q || v > CUZK_GPU_MSM_FP64_MAX || ns == 16 || (*end && *end != ',')) {
                fprintf(stderr, "--msm-fp64: '%s' is not a list of at most 16 shares 0..%u\n",
                        fp64_list, CUZK_GPU_MSM_FP64_MAX);
                return 2;
            }
            shares[ns++] = (unsigned)v;
            if (!*end) break;
            q = end + 1;
        }
    }
    cuzk_gpu_ctx *ctx = NULL;
    cuzk_status st = bench_ctx(&ctx, device, 0);
    if (st != CUZK_OK) {
        fprintf(stderr, "msm: context: %s (%s)\n", cuzk_strerror(st), gerr);
        return 1;
    }
    size_t nmax = (size_t)1 << lgmax;
    cuzk_scalar *k = NULL;
    uint64_t *bits = NULL;
    if (mode.bits) st = cuzk_gpu_host_alloc((void **)&bits, (nmax + 63) / 64 * 8, gerr);
    else st = cuzk_gpu_host_alloc((void **)&k, nmax * sizeof *k, gerr);
    if (st != CUZK_OK) {
        fprintf(stderr, "msm: pinned scalars: %s (%s)\n", cuzk_strerror(st), gerr);
        cuzk_gpu_ctx_destroy(ctx);
        return 1;
    }
    double t0 = bench_now_ns();
    if (mode.bits)
        for (size_t i = 0; i < (nmax + 63) / 64; i++) bits[i] = kr64();
    else
        for (size_t i = 0; i < nmax; i++) {
            /* --sparse: 1/2 ones, 1/4 zeros, 1/4 random (a witness-like mix) */
            uint64_t r = mode.sparse ? kr64() & 3 : 3;
            memset(&k[i], 0, sizeof k[i]);
            if (r == 3) rand_scalar(&k[i]);
            else if (r < 2) k[i].l[0] = 1;
        }
    const char *gname = mode.g2 ? "G2" : "G1";
    /* CUZK_MSM_STEP_MAJOR=0: batch-affine plans read the sorted keys and
     * values in sorted order instead of step-major copies (gpu_testing.h),
     * for A/B rows. */
    const char *smv = getenv("CUZK_MSM_STEP_MAJOR");
    const int sorted_order = mode.affine && smv && !strcmp(smv, "0");
    if (sorted_order) printf("keys and values in sorted order (CUZK_MSM_STEP_MAJOR=0)\n");
    printf("%s MSM%s, points resident (generated on the device), %s in pinned host memory\n"
           "(%.1f s to draw them); median of %u calls after a checked warm-up; stage times from"
           " CUDA events.\n", gname, mode.affine ? " (batch-affine accumulation)" : "",
           mode.bits     ? "0/1 scalars (random bitmap, density 1/2)"
           : mode.sparse ? "sparse scalars (1/2 ones, 1/4 zeros, 1/4 random < r)"
                         : "random scalars < r",
           (bench_now_ns() - t0) * 1e-9, reps);
    printf("%-5s %3s %4s %7s %7s | %8s %8s %8s | %6s %6s %6s %8s %6s | %7s %7s %7s %7s  %s%s%s\n",
           "n", "c", "win", "dev GB", "gen ms", "wall ms", "dev ms", "-upload", "upload", "digits",
           "sort", "accum", "reduce", "floor", "xfloor", "sppark", "target", "check",
           mode.pre || mode.tab ? "     plan    tab ms" : "", fp64_list ? "  fp64" : "");
    int rc = 0;
    float *stage = malloc((size_t)reps * 6 * sizeof *stage);
    double *wall = malloc((size_t)reps * sizeof *wall), *tmp = malloc((size_t)reps * sizeof *tmp);
    /* --precompute: rows (size, plain) then (size, precomputed); each with
     * every share of --msm-fp64. */
    unsigned nk = mode.pre ? 2 : 1;
    for (unsigned it = 0; it < nl * nk * ns && stage && wall && tmp; it++) {
        unsigned li = it / (nk * ns), flags = it / ns % nk ? CUZK_GPU_MSM_PRECOMPUTE : 0;
        unsigned share = shares[it % ns];
        if (mode.tab) flags |= CUZK_GPU_MSM_BITS_TABLE;
        size_t n = (size_t)1 << lgs[li];
        cuzk_g2_affine bs[2]; /* room for either group */
        void *b0 = &bs[0], *b1 = (char *)bs + (mode.g2 ? sizeof(cuzk_g2_affine)
                                                      : sizeof(cuzk_g1_affine));
        rand_point(b0, mode.g2);
        rand_point(b1, mode.g2);
        cuzk_gpu_msm_plan *plan = NULL;
        double tg = bench_now_ns();
        cuzk_gpu_msm_opts po = {mode.g2 ? CUZK_GPU_G2 : CUZK_GPU_G1, c_forced, flags,
                                mode.affine ? CUZK_GPU_MSM_BATCH_AFFINE : CUZK_GPU_MSM_XYZZ, NULL, 0,
                                share};
        st = cuzk_gpu_msm_plan_create_seq(&plan, ctx, &po, n, b0, b1, gerr);
        if (st == CUZK_OK && sorted_order)
            st = cuzk_gpu_testing_msm_plan_step_major(plan, 0, gerr);
        tg = (bench_now_ns() - tg) * 1e-6;
        if (st != CUZK_OK) {
            fprintf(stderr, "2^%u: %s plan: %s (%s)\n", lgs[li], flags ? "precomputed" : "plain",
                    cuzk_strerror(st), gerr);
            rc = 1;
            continue;
        }
        /* Expected: [S0] B + [S1] S, S0 = sum k_j, S1 = sum j k_j (mod r). */
        cuzk_fr s0 = {{0}}, s1 = {{0}}, t, m0, m1;
        for (size_t j = n; j-- > 0;) {
            if (mode.bits) {
                memset(&t, 0, sizeof t);
                t.l[0] = (bits[j / 64] >> (j % 64)) & 1;
            } else {
                memcpy(t.l, k[j].l, sizeof t.l);
            }
            cuzk_fr_add(&s0, &s0, &t);
            if (j) cuzk_fr_add(&s1, &s1, &s0);
        }
        cuzk_g2_jac want, got;
        (void)cuzk_fr_from_limbs(&m0, s0.l);
        (void)cuzk_fr_from_limbs(&m1, s1.l);
        lin_comb(mode, &want, b0, &m0, b1, &m1);
        st = msm_call(mode, plan, k, bits, n, &got);
#define MSM_EQ(a, b) (mode.g2 ? cuzk_g2_jac_eq((const void *)(a), (const void *)(b)) \
                              : cuzk_g1_jac_eq((const void *)(a), (const void *)(b)))
        int ok = st == CUZK_OK && MSM_EQ(&want, &got);
        for (unsigned r = 0; r < reps && st == CUZK_OK; r++) {
            double w0 = bench_now_ns();
            st = msm_call(mode, plan, k, bits, n, &got);
            wall[r] = (bench_now_ns() - w0) * 1e-6;
            cuzk_gpu_msm_timing tm;
            (void)cuzk_gpu_msm_plan_timing(plan, &tm, gerr);
            float *s = stage + (size_t)r * 6;
            s[0] = tm.total, s[1] = tm.upload, s[2] = tm.digits, s[3] = tm.sort;
            s[4] = tm.accumulate, s[5] = tm.reduce;
        }
        if (st != CUZK_OK) {
            fprintf(stderr, "2^%u: msm: %s (%s)\n", lgs[li], cuzk_strerror(st),
                    gerr);
            ok = 0;
        }
        ok = ok && MSM_EQ(&want, &got);
#undef MSM_EQ
        double med[6];
        for (int q = 0; q < 6; q++) {
            for (unsigned r = 0; r < reps; r++) tmp[r] = stage[(size_t)r * 6 + q];
            med[q] = median_d(tmp, reps);
        }
        for (unsigned r = 0; r < reps; r++) tmp[r] = stage[(size_t)r * 6] - stage[(size_t)r * 6 + 1];
        double dev_noup = median_d(tmp, reps);
        double mw = median_d(wall, reps);
        double sp = sppark_mode_ms(mode, lgs[li]), tgt = target_ms(mode, lgs[li]);
        char sps[16] = "-", tgs[16] = "-";
        if (sp > 0) snprintf(sps, sizeof sps, "%.2fx", sp / med[0]);
        if (tgt > 0) snprintf(tgs, sizeof tgs, "%.2fx", med[0] / tgt);
        unsigned c = cuzk_gpu_msm_plan_window(plan);
        /* Points (or non-zero nibbles) summed as 0/1 scalars; other scalars. */
        double adds = 0, rest = mode.bits ? 0 : (double)n;
        for (size_t w = 0; (mode.bits || mode.sparse) && w < (n + 63) / 64; w++) {
            uint64_t b = 0;
            if (mode.bits) {
                b = bits[w];
            } else {
                for (size_t j = w * 64; j < n && j < w * 64 + 64; j++) {
                    int one = k[j].l[0] == 1 && !(k[j].l[1] | k[j].l[2] | k[j].l[3]);
                    int zero = !(k[j].l[0] | k[j].l[1] | k[j].l[2] | k[j].l[3]);
                    if (one) b |= (uint64_t)1 << (j % 64);
                    if (one || zero) rest -= 1;
                }
            }
            if (w == n / 64 && (n & 63)) b &= ((uint64_t)1 << (n & 63)) - 1;
            if (mode.tab) b = (b | b >> 1 | b >> 2 | b >> 3) & 0x1111111111111111ull;
            adds += __builtin_popcountll(b);
        }
        double fl =
            msm_floor_ms(mode, peak, c, (flags & CUZK_GPU_MSM_PRECOMPUTE) != 0, rest, adds);
        char kind[32] = "";
        if (mode.pre || mode.tab)
            snprintf(kind, sizeof kind, "%*s  %-9s %7.0f", ok ? 6 : 0, "",
                     flags & CUZK_GPU_MSM_PRECOMPUTE ? (mode.tab ? "pre+tab" : "pre")
                                                     : (mode.tab ? "plain+tab" : "plain"),
                     cuzk_gpu_msm_plan_table_ms(plan));
        char f64[16] = "";
        if (fp64_list) snprintf(f64, sizeof f64, "  %4u", share);
        printf("2^%-3u %3u %4u %7.2f %7.0f | %8.2f %8.2f %8.2f | %6.2f %6.2f %6.2f %8.2f %6.2f |"
               " %7.2f %6.2fx %7s %7s  %s%s%s\n",
               lgs[li], c, (255 + c - 1) / c, cuzk_gpu_msm_plan_device_bytes(plan) / 1e9, tg, mw,
               med[0], dev_noup, med[1], med[2], med[3], med[4], med[5], fl, dev_noup / fl, sps,
               tgs, ok ? "ok" : "MISMATCH", kind, f64);
        fflush(stdout);
        if (!ok) rc = 1;
        cuzk_gpu_msm_plan_destroy(plan);
    }
    printf("floor = the additions at the IMAD peak P = %.2f T/s (gpu-sota.md 5.3-5.5; IMAD.WIDE"
           " runs at half that rate, see the field rows), xfloor = (dev ms - upload) / floor;\n"
           "sppark = sppark's time / our device time (> 1: faster); target = our device time /"
           " the issue's target (<= 1 meets it)%s\n", peak / 1e12,
           mode.bits ? ";\n0/1 scalars: sort = popcounts + prefix sum, accum = the balanced partial"
                       " sums, reduce = folding them" : "");
    free(stage);
    free(wall);
    free(tmp);
    cuzk_gpu_host_free(k);
    cuzk_gpu_host_free(bits);
    cuzk_gpu_ctx_destroy(ctx);
    return rc;
}

/* -------------------------------------------------- fixed-base mul -- */

/* One group's rows of --fixed: a multiplier of the generator (window w),
 * then for each size random Montgomery scalars; pinned in and out (the
 * direct path), then pageable in and out (staged; out touched beforehand,
 * so first-touch page faults are not counted). Returns 0 if every checked
 * point was right; *rate gets the pageable points/s of the last size. */
static int fixed_rows(int device, const unsigned *lgs, unsigned nl, unsigned reps, unsigned w,
                      int g2, double *rate)
{
    const cuzk_gpu_group grp = g2 ? CUZK_GPU_G2 : CUZK_GPU_G1;
    const size_t A = g2 ? sizeof(cuzk_g2_affine) : sizeof(cuzk_g1_affine);
    const char *gname = g2 ? "G2" : "G1";
    unsigned lgmax = 0;
    for (unsigned i = 0; i < nl; i++) lgmax = lgs[i] > lgmax ? lgs[i] : lgmax;
    size_t nmax = (size_t)1 << lgmax;
    cuzk_gpu_ctx *ctx = NULL;
    cuzk_gpu_fixed *f = NULL;
    cuzk_fr *ps = NULL, *s = malloc(nmax * sizeof *s);
    void *pout = NULL, *out = malloc(nmax * A);
    double *wall = malloc(reps * sizeof *wall), *wall2 = malloc(reps * sizeof *wall2);
    double *kms = malloc(reps * sizeof *kms);
    cuzk_status st = bench_ctx(&ctx, device, 0);
    double tc = bench_now_ns();
    if (st == CUZK_OK) st = cuzk_gpu_fixed_create_window(&f, ctx, grp, NULL, w, gerr);
    tc = (bench_now_ns() - tc) * 1e-6;
    if (st == CUZK_OK) st = cuzk_gpu_host_alloc((void **)&ps, nmax * sizeof *ps, gerr);
    if (st == CUZK_OK) st = cuzk_gpu_host_alloc(&pout, nmax * A, gerr);
    int rc = 0;
    if (st != CUZK_OK || !s || !out || !wall || !wall2 || !kms) {
        fprintf(stderr, "fixed %s: %s (%s)\n", gname, st != CUZK_OK ? cuzk_strerror(st) :
                "out of memory", gerr);
        rc = 1;
        goto done;
    }
    cuzk_gpu_fixed_info info;
    (void)cuzk_gpu_fixed_get_info(f, &info, gerr);
    printf("%s: w %u (%u windows), table %.1f MB, device %.2f GB, create %.0f ms; kernel %d regs,"
           " %d B spills, %d blocks/SM, batch %zu points (%zu threads)\n",
           gname, info.window, info.windows, info.table_bytes / 1e6, info.device_bytes / 1e9, tc,
           info.regs, info.local_bytes, info.blocks_per_sm, info.batch, info.threads);
    fill_random(ps, nmax, 0);
    memcpy(s, ps, nmax * sizeof *s);
    memset(out, 0, nmax * A);
    for (unsigned li = 0; li < nl; li++) {
        size_t n = (size_t)1 << lgs[li];
        st = cuzk_gpu_fixed_mul(pout, f, ps, n, gerr); /* warm-up */
        for (unsigned r = 0; r < reps && st == CUZK_OK; r++) {
            double t0 = bench_now_ns();
            st = cuzk_gpu_fixed_mul(pout, f, ps, n, gerr);
            wall[r] = (bench_now_ns() - t0) * 1e-6;
            (void)cuzk_gpu_fixed_get_info(f, &info, gerr);
            kms[r] = info.device_ms;
        }
        for (unsigned r = 0; r < reps && st == CUZK_OK; r++) {
            double t0 = bench_now_ns();
            st = cuzk_gpu_fixed_mul(out, f, s, n, gerr);
            wall2[r] = (bench_now_ns() - t0) * 1e-6;
        }
        if (st != CUZK_OK) {
            fprintf(stderr, "2^%u: fixed %s: %s (%s)\n", lgs[li], gname, cuzk_strerror(st),
                    gerr);
            rc = 1;
            continue;
        }
        /* 64 points of both outputs (both ends, the rest random) against the CPU. */
        int ok = 1;
        for (unsigned q = 0; q < 64; q++) {
            size_t i = q == 0 ? 0 : q == 1 ? n - 1 : kr64() % n;
            cuzk_g2_affine want; /* room for either group */
            if (g2) {
                cuzk_g2_jac j;
                cuzk_g2_from_affine(&j, &CUZK_G2_GENERATOR);
                cuzk_g2_mul(&j, &j, &s[i]);
                cuzk_g2_to_affine(&want, &j);
            } else {
                cuzk_g1_jac j;
                cuzk_g1_from_affine(&j, &CUZK_G1_GENERATOR);
                cuzk_g1_mul(&j, &j, &s[i]);
                cuzk_g1_to_affine((cuzk_g1_affine *)&want, &j);
            }
            ok &= !memcmp((char *)pout + i * A, &want, A) && !memcmp((char *)out + i * A, &want, A);
        }
        double mw = median_d(wall, reps), mk = median_d(kms, reps), mp = median_d(wall2, reps);
        printf("%-3s 2^%-3u | %9.2f %9.1f | %9.2f %9.1f | %9.2f %9.1f |  %s\n", gname, lgs[li],
               mk, n / mk * 1e-3, mw, n / mw * 1e-3, mp, n / mp * 1e-3, ok ? "ok" : "MISMATCH");
        fflush(stdout);
        *rate = n / mp * 1e3;
        if (!ok) rc = 1;
    }
done:
    cuzk_gpu_fixed_destroy(f);
    cuzk_gpu_host_free(ps);
    cuzk_gpu_host_free(pout);
    cuzk_gpu_ctx_destroy(ctx);
    free(s);
    free(out);
    free(wall);
    free(wall2);
    free(kms);
    return rc;
}

/* --fixed LIST: fixed-base multiplication [s_i] G (cuzk_gpu_fixed_mul),
 * G1 then G2, for each size 2^s of LIST; median of `reps` calls after a
 * warm-up, 64 points of each size checked against the CPU. */
static int run_fixed(int device, const char *list, unsigned reps, unsigned w)
{
    unsigned lgs[16], nl = 0;
    for (const char *q = list; *q && nl < 16;) {
        char *end;
        unsigned long v = strtoul(q, &end, 10);
        if (end == q || v < 1 || v > 28) { fprintf(stderr, "--fixed: bad size list\n"); return 2; }
        lgs[nl++] = (unsigned)v;
        q = *end == ',' ? end + 1 : end;
    }
    if (nl == 0 || reps == 0 || reps > 64 || (w && (w < 2 || w > 22))) {
        fprintf(stderr, "--fixed: bad arguments\n");
        return 2;
    }
    printf("fixed-base [s_i] G (cuzk_gpu_fixed_mul), random scalars (Montgomery form); median of"
           " %u calls after a warm-up\n", reps);
    printf("device = CUDA events from the first kernel's start to the last one's end; pinned ="
           " wall time, scalars\nand points in pinned memory; pageable = wall time, malloc'd"
           " arrays (staged)\n");
    printf("%-3s %-5s | %9s %9s | %9s %9s | %9s %9s |  %s\n", "grp", "n", "device ms", "M pt/s",
           "pinned ms", "M pt/s", "pageable", "M pt/s", "check");
    double r1 = 0, r2 = 0;
    int rc = fixed_rows(device, lgs, nl, reps, w, 0, &r1);
    rc |= fixed_rows(device, lgs, nl, reps, w, 1, &r2);
    if (r1 > 0 && r2 > 0)
        printf("PoRep-size setup (4.5e8 G1 + 3.3e7 G2 points) at the last size's pageable rates:"
               " %.1f + %.1f = %.1f s\n", 4.5e8 / r1, 3.3e7 / r2, 4.5e8 / r1 + 3.3e7 / r2);
    return rc;
}

/* ---------------------------------------------------------------- NTT -- */

/* "20,24,26" -> sizes; returns non-zero on a bad list. */
static int parse_ntt_sizes(const char *v, unsigned *sizes, int *n)
{
    *n = 0;
    while (*v) {
        char *end;
        unsigned long x = strtoul(v, &end, 10);
        if (end == v || x < 1 || x > CUZK_NTT_MAX_LOG || *n == 16) return 1;
        sizes[(*n)++] = (unsigned)x;
        v = end;
        if (*v == ',') v++;
        else if (*v) return 1;
    }
    return *n == 0;
}

/* sum_i a[i] z^i over chunks of [0, n): Horner from the top, times z^start. */
typedef struct {
    const cuzk_fr *a;
    size_t n, nchunks;
    cuzk_fr z;
    cuzk_fr *partial; /* one per chunk */
} horner_t;

static void horner_range(void *ctx, size_t b, size_t e)
{
    horner_t *h = ctx;
    size_t len = h->n / h->nchunks;
    for (size_t c = b; c < e; c++) {
        size_t lo = len * c, hi = c + 1 == h->nchunks ? h->n : lo + len;
        cuzk_fr acc = CUZK_FR_ZERO, zb;
        for (size_t i = hi; i-- > lo;) {
            cuzk_fr_mul(&acc, &acc, &h->z);
            cuzk_fr_add(&acc, &acc, &h->a[i]);
        }
        uint64_t e64 = lo;
        cuzk_fr_pow(&zb, &h->z, &e64, 1);
        cuzk_fr_mul(&h->partial[c], &acc, &zb);
    }
}

/* Output k of transform `kind` of a (n points), computed directly. */
static void ntt_point(cuzk_fr *r, const cuzk_ntt_domain *cd, int kind, const cuzk_fr *a, size_t n,
                      size_t k)
{
    enum { CHUNKS = 256 };
    cuzk_fr partial[CHUNKS], w = *cuzk_ntt_omega(cd), g = *cuzk_ntt_coset_shift(cd), t;
    int inv = kind == CUZK_GPU_NTT_INVERSE || kind == CUZK_GPU_NTT_COSET_INVERSE;
    if (inv) cuzk_fr_inv(&w, &w);
    horner_t h = {a, n, n < CHUNKS ? 1 : CHUNKS, CUZK_FR_ZERO, partial};
    uint64_t e64 = k;
    cuzk_fr_pow(&h.z, &w, &e64, 1);
    if (kind == CUZK_GPU_NTT_COSET_FORWARD) cuzk_fr_mul(&h.z, &h.z, &g);
    cuzk_parallel_for(h.nchunks, 1, cuzk_ncores(), horner_range, &h);
    *r = CUZK_FR_ZERO;
    for (size_t c = 0; c < h.nchunks; c++) cuzk_fr_add(r, r, &partial[c]);
    if (inv) { /* times 1/n */
        cuzk_fr_from_u64(&t, n);
        cuzk_fr_inv(&t, &t);
        cuzk_fr_mul(r, r, &t);
    }
    if (kind == CUZK_GPU_NTT_COSET_INVERSE) { /* times g^-k */
        cuzk_fr_inv(&t, &g);
        cuzk_fr_pow(&t, &t, &e64, 1);
        cuzk_fr_mul(r, r, &t);
    }
}

/* sppark's forward NTT on the same card, research/gpu-sota.md §3 (ms). */
static double sppark_ntt_ms(unsigned log_n)
{
    switch (log_n) {
    case 20: return 0.256;
    case 22: return 1.04;
    case 24: return 4.42;
    case 25: return 9.42;
    case 26: return 20.9;
    case 27: return 42.3;
    case 28: return 92.9;
    default: return 0;
    }
}

static int bench_ntt(int device, const cuzk_gpu_device_info *di, const unsigned *sizes,
                     int nsizes, unsigned reps, cuzk_roots roots)
{
    static const char *kind_names[5] = {"forward", "inverse", "coset fwd", "coset inv",
                                        "to coset"};
    /* info.full_twiddles, + 3 with the coset table; 6, 7: the full table
     * as Shoup pairs, without and with the coset table */
    static const char *tw_names[8] = {"2lvl",  "full",   "pos",    "2lvl+g",
                                      "full+g", "pos+g", "full+s", "full+gs"};
    unsigned maxlog = 0;
    for (int i = 0; i < nsizes; i++)
        if (sizes[i] > maxlog) maxlog = sizes[i];
    size_t nmax = (size_t)1 << maxlog;
    double peak = (double)di->sm_count * 64 * di->clock_khz * 1e3;
    cuzk_fr *a = malloc(nmax * sizeof *a), *out = malloc(nmax * sizeof *out),
            *inv = malloc(nmax * sizeof *inv);
    float *ms = malloc(reps * sizeof *ms);
    cuzk_gpu_ctx *ctx = NULL;
    int rc = 1;
    cuzk_status st;
    if (!a || !out || !inv || !ms) {
        fprintf(stderr, "ntt: out of host memory\n");
        goto done;
    }
    fill_random(a, nmax, 0);
    /* The pass kernels' variant (gpu_testing.h): CUZK_NTT_VARIANT "8" (the
     * default, also unset or empty) or "4"; CUZK_NTT_FP64 the FP64 share in
     * quarters, "0" (the default, also unset or empty) .. "4";
     * CUZK_NTT_FULL_TW "1": pass 1's twiddles from a full n-entry table,
     * "2": from a positional one (forward transforms; the inverse ones on
     * two levels), "0" (the default, also unset or empty): from two small
     * ones; plus 4: the coset table too; plus 8 (with 1): those tables as
     * Shoup pairs (domain creation rejects other values). */
    const char *var = getenv("CUZK_NTT_VARIANT"), *f64v = getenv("CUZK_NTT_FP64"),
               *ftw = getenv("CUZK_NTT_FULL_TW");
    unsigned ept = var && *var ? (unsigned)atoi(var) : 0;
    unsigned f64 = f64v && *f64v ? (unsigned)atoi(f64v) : 0;
    unsigned full = ftw && *ftw ? (unsigned)atoi(ftw) : 0;
    /* The pool: the domains' tables (a full or positional table: n
     * elements; the coset table n + 1; twice that as Shoup pairs) and 2
     * arrays of the largest size. */
    st = bench_ctx(&ctx, device,
                   (2 + (((full & 3) != 0) + ((full & 4) != 0)) * ((full & 8) ? 2 : 1)) * nmax *
                           sizeof(cuzk_fr) +
                       ((size_t)64 << 20));
    if (st != CUZK_OK) {
        fprintf(stderr, "ntt: context: %s (%s)\n", cuzk_strerror(st), gerr);
        goto done;
    }
    printf("\nNTT over Fr (%s roots), data resident on the device; median of %u runs after 1 "
           "warm-up, each on a fresh copy of random data\n",
           roots == CUZK_ROOTS_SNARKJS ? "snarkjs" : "bellperson", reps);
    printf("floor = (n/2) log n x 136 IMAD at P (gpu-sota.md 5.6); pipe = the same at 264 IMAD "
           "slots per multiplication\n");
    printf("(ept: elements per thread of the pass kernels, CUZK_NTT_VARIANT; f64: FP64 share of "
           "their multiplications in quarters, CUZK_NTT_FP64; tw: pass 1's twiddles from two "
           "levels, a full table or a positional one, +g: and the coset table, +s: as Shoup pairs; "
           "CUZK_NTT_FULL_TW)\n");
    printf("%-5s %-9s %-8s %3s %3s %6s %4s %4s %9s %8s %8s %8s %7s %7s %6s %7s %s\n", "log n",
           "kind", "split", "ept", "f64", "tw", "regs", "b/SM", "median ms", "min ms", "GB/s 1ps",
           "floor", "x floor", "pipe", "x pipe", "sppark", "check");
    rc = 0;
    for (int si = 0; si < nsizes; si++) {
        unsigned L = sizes[si];
        size_t n = (size_t)1 << L;
        cuzk_gpu_ntt_domain *d = NULL;
        cuzk_ntt_domain *cd = NULL;
        st = cuzk_gpu_ntt_domain_create_ex(&d, ctx, L, roots, 0, ept, f64, full, gerr);
        if (st != CUZK_OK || cuzk_ntt_domain_create(&cd, L, roots, 0) != CUZK_OK) {
            fprintf(stderr, "ntt 2^%u: domain: %s (%s)\n", L, cuzk_strerror(st),
                    gerr);
            cuzk_gpu_ntt_domain_destroy(d);
            rc = 1;
            continue;
        }
        cuzk_gpu_ntt_info info;
        memset(&info, 0, sizeof info);
        (void)cuzk_gpu_ntt_get_info(d, &info, gerr);
        double floor_ms = (double)n / 2 * L * 136 / peak * 1e3;
        double pipe_ms = (double)n / 2 * L * 264 / peak * 1e3;
        for (int kind = 0; kind < 5; kind++) {
            st = cuzk_gpu_ntt_time(d, (cuzk_gpu_ntt_kind)kind, a, 1, reps, ms, out, gerr);
            if (st != CUZK_OK) {
                fprintf(stderr, "ntt 2^%u %s: %s (%s)\n", L, kind_names[kind], cuzk_strerror(st),
                        gerr);
                rc = 1;
                continue;
            }
            int ok = 1;
            size_t ks[2] = {(size_t)(kr64() % n), n - 1};
            /* to coset: points of the coset forward of the CPU's inverse */
            const cuzk_fr *src = a;
            if (kind == CUZK_GPU_NTT_TO_COSET) {
                memcpy(inv, a, n * sizeof *inv);
                cuzk_ntt_inverse(cd, inv);
                src = inv;
            }
            for (int c = 0; c < 2; c++) {
                cuzk_fr want;
                int pk = kind == CUZK_GPU_NTT_TO_COSET ? CUZK_GPU_NTT_COSET_FORWARD : kind;
                ntt_point(&want, cd, pk, src, n, ks[c]);
                ok &= !memcmp(&want, &out[ks[c]], sizeof want);
            }
            rc |= !ok;
            qsort(ms, reps, sizeof *ms, cmp_float);
            double med = reps % 2 ? ms[reps / 2] : 0.5 * (ms[reps / 2 - 1] + ms[reps / 2]);
            double gbs = 2.0 * n * sizeof(cuzk_fr) / (med * 1e-3) / 1e9;
            char split[32], spb[16] = "-";
            snprintf(split, sizeof split, "%d+%d+%d", info.k1, info.k2, info.k1);
            double sp = kind == 0 ? sppark_ntt_ms(L) : 0;
            double nt = kind == CUZK_GPU_NTT_TO_COSET ? 2 : 1; /* transforms in the row */
            if (sp > 0) snprintf(spb, sizeof spb, "%.3f", sp);
            printf("%-5u %-9s %-8s %3d %1d/4 %6s %4d %4d %9.3f %8.3f %8.1f %8.3f %7.2f %7.2f %6.2f "
                   "%7s %s\n", L, kind_names[kind], split, info.elems_per_thread, info.fp64_share,
                   tw_names[info.shoup_tables ? 6 + info.coset_table
                                              : info.full_twiddles + 3 * info.coset_table],
                   info.regs,
                   info.blocks_per_sm[0], med, ms[0], gbs, nt * floor_ms, med / (nt * floor_ms),
                   nt * pipe_ms, med / (nt * pipe_ms), spb, ok ? "ok" : "MISMATCH");
            fflush(stdout);
        }
        if (L >= 3)
            printf("      (pass kernels: %d bytes of local memory per thread; blocks/SM of the "
                   "3 passes: %d %d %d)\n",
                   info.local_bytes, info.blocks_per_sm[0], info.blocks_per_sm[1],
                   info.blocks_per_sm[2]);
        cuzk_ntt_domain_destroy(cd);
        cuzk_gpu_ntt_domain_destroy(d);
    }
done:
    cuzk_gpu_ctx_destroy(ctx);
    free(a);
    free(out);
    free(inv);
    free(ms);
    return rc;
}

/* Variants 6, 7, 8 and 10 run a fixed number of chains a thread (ff.cu);
 * the others the ilp asked for. */
static unsigned variant_ilp(unsigned variant, unsigned ilp)
{
    if (variant == 6 || variant == 10) return 2;
    if (variant == 7 || variant == 8) return 3;
    return ilp;
}

static void usage(FILE *f)
{
    fprintf(f,
            "usage: cuzk-bench kernels [--iters K] [--reps R] [--waves W] [--block B]\n"
            "                          [--ilp 1|2] [--variant 0-13 | --variants V,V,..]\n"
            "                          [--sweep] [--device D]\n"
            "                          [--kernel fr-mul|fr-sqr|fp-mul|fp-sqr] [--calibrate]\n"
            "  Field mul/sqr throughput on the GPU (defaults: K 1024, R 11, W 4,\n"
            "  B 256, ilp 1, variant 0). --sweep tries blocks 128/256/512 x ilp 1/2,\n"
            "  then variants 1-4. Variant 1 is for comparison: mul = product\n"
            "  then reduction, sqr = mul(x, x); 2/3/4 take the modulus constants as\n"
            "  immediates / M0 from constant memory / all from constant memory;\n"
            "  5 the FP64 pipe; 6/7/8 mixed, 1+1 / 1+2 / 2+1 integer + FP64 chains\n"
            "  per thread (their ilp, 2/3/3, is set by the variant); 9/10 as 5/6\n"
            "  with Fp's column sums in doubles (ff64_mul_fc); 11 / 13 (Fr) the steps\n"
            "  that skip r0 = 1 / r0 and r1 = 2^32 - 1; 12 mul with one Karatsuba level.\n"
            "  --variants runs each listed variant in turn, in one process.\n"
            "  --calibrate first measures the multiply-add instruction rates.\n"
            "  FP64-pipe rows (src/gpu/ff_fp64.cuh, pure and mixed with the integer pipe)\n"
            "  follow the table: --fp64 for only those, --no-fp64 for none.\n"
            "  --msm 20,24,26 [--g2] [--bits | --sparse] [--bits-table] [--precompute]\n"
            "  [--affine] [--msm-reps R] [--msm-c C]: MSM rows instead (sizes as log2; G1,\n"
            "  or G2 with --g2; random scalars, 0/1 scalars of density 1/2 with --bits, or\n"
            "  with --sparse 1/2 ones, 1/4 zeros, 1/4 random through the sparse MSM;\n"
            "  R default 5; C forces the window size; --precompute adds a precomputed\n"
            "  plan's row after each plain one; --affine: batch-affine bucket\n"
            "  accumulation; --bits-table: plans with subset sums of 4 points;\n"
            "  --msm-fp64 0,3: with --affine, a row per listed FP64 share, 0..4, of the\n"
            "  accumulation's field products).\n"
            "  --fixed 20,24 [--fixed-reps R] [--fixed-w W]: fixed-base multiplication rows\n"
            "  instead ([s_i] G, G1 and G2; R default 5; W the window, default 20).\n"
            "  NTT rows follow the field table: [--ntt | --no-ntt] [--ntt-sizes 20,24,26,27]\n"
            "  [--ntt-reps 9] [--snarkjs]; --ntt: NTT rows only, --no-ntt: none.\n"
            "  Environment: CUZK_NTT_VARIANT=8|4 (elements per thread of the NTT's pass\n"
            "  kernels), CUZK_NTT_FP64=0..4 (quarters of their multiplications on the\n"
            "  FP64 pipe; above 0 only with 8 elements per thread), CUZK_NTT_FULL_TW=N\n"
            "  (1: pass 1's twiddles from a full n-entry table, n x 32 bytes of device\n"
            "  memory; 2: from a positional one, as large, read like the data, for the\n"
            "  forward transforms; plus 4: the coset table too, as large, for the coset\n"
            "  transforms' shifts; plus 8, with 1: those tables as Shoup pairs, twice\n"
            "  as large; only with CUZK_NTT_FP64=0; unset: 0, the two small tables).\n"
            "  CUZK_MSM_STEP_MAJOR=0:\n"
            "  --affine plans read their sorted keys and values in sorted order, not in\n"
            "  step-major copies (the default).\n");
}

int bench_kernels(int argc, char **argv)
{
    opts_t o = {1024, 11, 4, 0, 0};
    cuzk_gpu_bench_cfg cfg = {256, 1, 0};
    unsigned variants[16];
    int nvariants = 0;
    int sweep = 0, device = 0, calibrate = 0;
    int fp64_mode = 1; /* 0: no FP64 rows, 1: after the field table, 2: FP64 only */
    const char *only = NULL, *msm = NULL, *fixed = NULL, *msm_fp64 = NULL;
    unsigned msm_reps = 5, msm_c = 0, fixed_reps = 5, fixed_w = 0;
    msm_mode mmode = {0, 0, 0, 0, 0, 0};
    int ntt_mode = 1; /* 0: no NTT rows, 1: after the field table, 2: NTT only */
    unsigned ntt_sizes[16] = {20, 24, 26, 27}, ntt_reps = 9;
    int ntt_nsizes = 4;
    cuzk_roots ntt_roots = CUZK_ROOTS_BELLPERSON;
    for (int i = 1; i < argc; i++) {
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(argv[i], "--sweep")) sweep = 1;
        else if (!strcmp(argv[i], "--calibrate")) calibrate = 1;
        else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) { usage(stdout); return 0; }
        else if (v && !strcmp(argv[i], "--iters")) { o.iters = (unsigned)atoi(v); i++; }
        else if (v && !strcmp(argv[i], "--reps")) { o.reps = (unsigned)atoi(v); i++; }
        else if (v && !strcmp(argv[i], "--waves")) { o.waves = (unsigned)atoi(v); i++; }
        else if (v && !strcmp(argv[i], "--block")) { cfg.block = (unsigned)atoi(v); i++; }
        else if (v && !strcmp(argv[i], "--ilp")) { cfg.ilp = (unsigned)atoi(v); i++; }
        else if (v && !strcmp(argv[i], "--variant")) { cfg.variant = (unsigned)atoi(v); i++; }
        else if (v && !strcmp(argv[i], "--variants")) {
            /* a comma list, each run in this process (one pool for all) */
            char *end = (char *)v;
            nvariants = 0;
            while (*end && nvariants < (int)(sizeof variants / sizeof variants[0])) {
                unsigned long x = strtoul(end, &end, 10);
                if (x > 13 || (*end && *end != ',')) { usage(stderr); return 2; }
                variants[nvariants++] = (unsigned)x;
                if (*end == ',') end++;
            }
            if (!nvariants || *end) { usage(stderr); return 2; }
            i++;
        }
        else if (v && !strcmp(argv[i], "--device")) { device = atoi(v); i++; }
        else if (v && !strcmp(argv[i], "--kernel")) { only = v; i++; }
        else if (v && !strcmp(argv[i], "--msm")) { msm = v; i++; }
        else if (v && !strcmp(argv[i], "--msm-reps")) { msm_reps = (unsigned)atoi(v); i++; }
        else if (v && !strcmp(argv[i], "--msm-c")) { msm_c = (unsigned)atoi(v); i++; }
        else if (v && !strcmp(argv[i], "--msm-fp64")) { msm_fp64 = v; i++; }
        else if (v && !strcmp(argv[i], "--fixed")) { fixed = v; i++; }
        else if (v && !strcmp(argv[i], "--fixed-reps")) { fixed_reps = (unsigned)atoi(v); i++; }
        else if (v && !strcmp(argv[i], "--fixed-w")) { fixed_w = (unsigned)atoi(v); i++; }
        else if (!strcmp(argv[i], "--g2")) mmode.g2 = 1;
        else if (!strcmp(argv[i], "--bits")) mmode.bits = 1;
        else if (!strcmp(argv[i], "--precompute")) mmode.pre = 1;
        else if (!strcmp(argv[i], "--bits-table")) mmode.tab = 1;
        else if (!strcmp(argv[i], "--sparse")) mmode.sparse = 1;
        else if (!strcmp(argv[i], "--affine")) mmode.affine = 1;
        else if (!strcmp(argv[i], "--ntt")) ntt_mode = 2;
        else if (!strcmp(argv[i], "--fp64")) fp64_mode = 2;
        else if (!strcmp(argv[i], "--no-fp64")) fp64_mode = 0;
        else if (!strcmp(argv[i], "--no-ntt")) ntt_mode = 0;
        else if (!strcmp(argv[i], "--snarkjs")) ntt_roots = CUZK_ROOTS_SNARKJS;
        else if (v && !strcmp(argv[i], "--ntt-reps")) { ntt_reps = (unsigned)atoi(v); i++; }
        else if (v && !strcmp(argv[i], "--ntt-sizes")) {
            if (parse_ntt_sizes(v, ntt_sizes, &ntt_nsizes)) { usage(stderr); return 2; }
            i++;
        }
        else { usage(stderr); return 2; }
    }
    if (!o.iters || !o.reps || !o.waves || !ntt_reps || cfg.variant > 13) {
        usage(stderr);
        return 2;
    }
    cfg.ilp = variant_ilp(cfg.variant, cfg.ilp);

    int count = 0;
    cuzk_status st = cuzk_gpu_device_count(&count, gerr);
    if (st != CUZK_OK || count == 0) {
        fprintf(stderr, "cuzk-bench kernels: no CUDA device (%s)\n",
                st != CUZK_OK ? gerr : "none found");
        return 1;
    }
    cuzk_gpu_device_info di;
    st = cuzk_gpu_get_device_info(&di, device, gerr);
    if (st != CUZK_OK) {
        fprintf(stderr, "cuzk-bench kernels: device %d: %s\n", device, gerr);
        return 1;
    }
    o.sms = di.sm_count;
    o.peak = (double)di.sm_count * 64 * di.clock_khz * 1e3;
    printf("cuzk-bench kernels: %s, cc %d.%d, %d SMs, %d MHz max\n", di.name, di.cc_major,
           di.cc_minor, di.sm_count, di.clock_khz / 1000);
    if (msm) return run_msm(device, o.peak, msm, msm_reps, msm_c, mmode, msm_fp64);
    if (fixed) return run_fixed(device, fixed, fixed_reps, fixed_w);
    if (ntt_mode == 2) return bench_ntt(device, &di, ntt_sizes, ntt_nsizes, ntt_reps, ntt_roots);
    printf("IMAD peak P = SMs x 64 x clock = %.2f T/s; mul peak = P / (Fr 136, Fp 300 IMAD)"
           " = Fr %.1f, Fp %.1f G/s;\npipe peak = P / IMAD slots in the SASS (Fr 264, Fp 588;"
           " IMAD.WIDE = 2 slots) = Fr %.1f, Fp %.1f G/s\n",
           o.peak / 1e12, o.peak / 136 / 1e9, o.peak / 300 / 1e9, o.peak / 264 / 1e9,
           o.peak / 588 / 1e9);
    printf("median of %u CUDA-event-timed launches after 1 warm-up; %u waves; "
           "n = elements, iters = dependent ops per element\n\n", o.reps, o.waves);

    /* Pool: 3 arrays of the largest n (Fp, up to 2048 threads per SM, 3 chains). */
    size_t pool = (size_t)3 * 2048 * 3 * di.sm_count * o.waves * sizeof(cuzk_fp) + (1 << 20);
    cuzk_gpu_ctx *ctx = NULL;
    int rc = 0;
    st = bench_ctx(&ctx, device, pool);
    if (st != CUZK_OK) {
        fprintf(stderr, "cuzk-bench kernels: context: %s (%s)\n", cuzk_strerror(st),
                gerr);
        return 1;
    }
    if (calibrate) {
        printf("multiply-add instruction rates (32x32-bit products; 8 independent chains per thread):\n");
        printf("  %-46s %10s %14s %9s\n", "form", "G prod/s", "prod/clk/SM", "of P");
        for (int kind = 0; kind < 5; kind++) {
            double rate = 0;
            const char *desc = "";
            st = cuzk_gpu_imad_probe(ctx, kind, 4096, &rate, &desc, gerr);
            if (st != CUZK_OK) {
                fprintf(stderr, "probe %d: %s (%s)\n", kind, cuzk_strerror(st), gerr);
                rc = 1;
                continue;
            }
            printf("  %-46s %10.1f %14.1f %8.1f%%\n", desc, rate / 1e9,
                   rate / (di.sm_count * (di.clock_khz * 1e3)), 100.0 * rate / o.peak);
        }
        printf("\n");
    }
    if (fp64_mode == 2) {
        rc = run_fp64(ctx, &o, cfg.block, only);
        cuzk_gpu_ctx_destroy(ctx);
        return rc;
    }
    printf("%-7s %3s %5s %3s %4s %4s %9s %6s %9s %7s %8s %8s %8s %8s\n", "kernel", "var", "block",
           "ilp", "regs", "b/SM", "n", "iters", "median ms", "min ms", "G ops/s", "mul pk", "own pk",
           "pipe pk");
    static const unsigned blocks[] = {128, 256, 512};
    for (size_t ki = 0; ki < sizeof kernels / sizeof kernels[0]; ki++) {
        if (only && strcmp(only, kernels[ki].id)) continue;
        if (!sweep && nvariants) {
            for (int vi = 0; vi < nvariants; vi++) {
                cuzk_gpu_bench_cfg c = cfg;
                c.variant = variants[vi];
                if ((c.variant == 11 || c.variant == 13) && kernels[ki].field != CUZK_GPU_FR)
                    continue; /* Fr only */
                c.ilp = variant_ilp(c.variant, c.ilp);
                rc |= run_one(ctx, &kernels[ki], c, &o, NULL);
            }
            continue;
        }
        if (!sweep) {
            rc |= run_one(ctx, &kernels[ki], cfg, &o, NULL);
            continue;
        }
        double best = 0;
        cuzk_gpu_bench_cfg best_cfg = cfg;
        /* The library's code in 6 shapes, then each comparison variant in the
         * default shape. */
        for (int r = 0; r < 10; r++) {
            cuzk_gpu_bench_cfg c = {blocks[r % 3], 1 + (r / 3) % 2, 0};
            if (r >= 6) c = (cuzk_gpu_bench_cfg){cfg.block, cfg.ilp, (unsigned)(r - 5)};
            double g = 0;
            rc |= run_one(ctx, &kernels[ki], c, &o, &g);
            if (g > best) { best = g; best_cfg = c; }
        }
        printf("%-7s best: variant %u block %u ilp %u, %.2f G/s\n\n", kernels[ki].name,
               best_cfg.variant, best_cfg.block, best_cfg.ilp, best);
    }
    if (fp64_mode) rc |= run_fp64(ctx, &o, cfg.block, only);
    cuzk_gpu_ctx_destroy(ctx);
    if (ntt_mode) rc |= bench_ntt(device, &di, ntt_sizes, ntt_nsizes, ntt_reps, ntt_roots);
    return rc;
}

#endif /* CUZK_HAVE_GPU */
