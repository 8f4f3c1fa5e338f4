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
 * Fr sqr 226, Fp mul 588, Fp sqr 471. It is the real ceiling of this code. */
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
    int imad;       /* partial products per operation, as counted in ff.cuh */
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

/* Runs one kernel in one shape, prints one table row; returns 0 if correct. */
static int run_one(cuzk_gpu_ctx *ctx, const kernel_t *k, cuzk_gpu_bench_cfg cfg,
                   const opts_t *o, double *gops_out)
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
                                            &ms1, NULL, &info);
    if (st != CUZK_OK) {
        fprintf(stderr, "%s: %s (%s)\n", k->name, cuzk_strerror(st), cuzk_gpu_last_error());
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
                                NULL);
    if (st != CUZK_OK) {
        fprintf(stderr, "%s: %s (%s)\n", k->name, cuzk_strerror(st), cuzk_gpu_last_error());
        goto done;
    }
    int ok = 1;
    size_t nthreads = n / cfg.ilp;
    size_t samples[4] = {0, n / 3, n / 2 + 1, n - 1};
    for (int s = 0; s < 4; s++) ok &= check_elem(k, a, b, out, samples[s], nthreads, o->iters);
    qsort(ms, o->reps, sizeof *ms, cmp_float);
    double med = o->reps % 2 ? ms[o->reps / 2] : 0.5 * (ms[o->reps / 2 - 1] + ms[o->reps / 2]);
    double ops = (double)n * o->iters;
    double gops = ops / (med * 1e-3) / 1e9;
    double peak_mul = o->peak / k->imad_mul / 1e9, peak_own = o->peak / k->imad / 1e9;
    double peak_pipe = o->peak / k->slots / 1e9;
    printf("%-7s %3u %5u %3u %4d %4d %9zu %6u %9.3f %7.3f %8.2f %7.1f%% %7.1f%% %7.1f%%  %s\n",
           k->name, cfg.variant, cfg.block, cfg.ilp, info.regs, info.blocks_per_sm, n, o->iters,
           med, ms[0], gops, 100.0 * gops / peak_mul, 100.0 * gops / peak_own,
           100.0 * gops / peak_pipe, ok ? "ok" : "MISMATCH");
    if (info.local_bytes) printf("        (local memory %d bytes per thread)\n", info.local_bytes);
    if (gops_out) *gops_out = gops;
    rc = ok ? 0 : 1;
done:
    free(a);
    free(b);
    free(out);
    free(ms);
    return rc;
}

static void usage(FILE *f)
{
    fprintf(f,
            "usage: cuzk-bench kernels [--iters K] [--reps R] [--waves W] [--block B]\n"
            "                          [--ilp 1|2] [--variant 0-4] [--sweep] [--device D]\n"
            "                          [--kernel fr-mul|fr-sqr|fp-mul|fp-sqr] [--calibrate]\n"
            "  Field mul/sqr throughput on the GPU (defaults: K 1024, R 11, W 4,\n"
            "  B 256, ilp 1, variant 0). --sweep tries blocks 128/256/512 x ilp 1/2,\n"
            "  then variants 1-4. Variant 1 is for comparison: mul = product\n"
            "  then reduction, sqr = mul(x, x); 2/3/4 take the modulus constants as\n"
            "  immediates / M0 from constant memory / all from constant memory.\n"
            "  --calibrate first measures the multiply-add instruction rates.\n");
}

int bench_kernels(int argc, char **argv)
{
    opts_t o = {1024, 11, 4, 0, 0};
    cuzk_gpu_bench_cfg cfg = {256, 1, 0};
    int sweep = 0, device = 0, calibrate = 0;
    const char *only = NULL;
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
        else if (v && !strcmp(argv[i], "--device")) { device = atoi(v); i++; }
        else if (v && !strcmp(argv[i], "--kernel")) { only = v; i++; }
        else { usage(stderr); return 2; }
    }
    if (!o.iters || !o.reps || !o.waves) { usage(stderr); return 2; }

    int count = 0;
    cuzk_status st = cuzk_gpu_device_count(&count);
    if (st != CUZK_OK || count == 0) {
        fprintf(stderr, "cuzk-bench kernels: no CUDA device (%s)\n",
                st != CUZK_OK ? cuzk_gpu_last_error() : "none found");
        return 1;
    }
    cuzk_gpu_device_info di;
    st = cuzk_gpu_get_device_info(device, &di);
    if (st != CUZK_OK) {
        fprintf(stderr, "cuzk-bench kernels: device %d: %s\n", device, cuzk_strerror(st));
        return 1;
    }
    o.sms = di.sm_count;
    o.peak = (double)di.sm_count * 64 * di.clock_khz * 1e3;
    printf("cuzk-bench kernels: %s, cc %d.%d, %d SMs, %d MHz max\n", di.name, di.cc_major,
           di.cc_minor, di.sm_count, di.clock_khz / 1000);
    printf("IMAD peak P = SMs x 64 x clock = %.2f T/s; mul peak = P / (Fr 136, Fp 300 IMAD)"
           " = Fr %.1f, Fp %.1f G/s;\npipe peak = P / IMAD slots in the SASS (Fr 264, Fp 588;"
           " IMAD.WIDE = 2 slots) = Fr %.1f, Fp %.1f G/s\n",
           o.peak / 1e12, o.peak / 136 / 1e9, o.peak / 300 / 1e9, o.peak / 264 / 1e9,
           o.peak / 588 / 1e9);
    printf("median of %u CUDA-event-timed launches after 1 warm-up; %u waves; "
           "n = elements, iters = dependent ops per element\n\n", o.reps, o.waves);

    /* Pool: 3 arrays of the largest n (Fp, up to 2048 threads per SM). */
    size_t pool = (size_t)3 * 2048 * 2 * di.sm_count * o.waves * sizeof(cuzk_fp) + (1 << 20);
    cuzk_gpu_ctx *ctx = NULL;
    int rc = 0;
    st = cuzk_gpu_ctx_create(&ctx, device, pool);
    if (st != CUZK_OK) {
        fprintf(stderr, "cuzk-bench kernels: context: %s (%s)\n", cuzk_strerror(st),
                cuzk_gpu_last_error());
        return 1;
    }
    if (calibrate) {
        printf("multiply-add instruction rates (32x32-bit products; 8 independent chains per thread):\n");
        printf("  %-46s %10s %14s %9s\n", "form", "G prod/s", "prod/clk/SM", "of P");
        for (int kind = 0; kind < 5; kind++) {
            double rate = 0;
            const char *desc = "";
            st = cuzk_gpu_imad_probe(ctx, kind, 4096, &rate, &desc);
            if (st != CUZK_OK) {
                fprintf(stderr, "probe %d: %s (%s)\n", kind, cuzk_strerror(st), cuzk_gpu_last_error());
                rc = 1;
                continue;
            }
            printf("  %-46s %10.1f %14.1f %8.1f%%\n", desc, rate / 1e9,
                   rate / (di.sm_count * (di.clock_khz * 1e3)), 100.0 * rate / o.peak);
        }
        printf("\n");
    }
    printf("%-7s %3s %5s %3s %4s %4s %9s %6s %9s %7s %8s %8s %8s %8s\n", "kernel", "var", "block",
           "ilp", "regs", "b/SM", "n", "iters", "median ms", "min ms", "G ops/s", "mul pk", "own pk",
           "pipe pk");
    static const unsigned blocks[] = {128, 256, 512};
    for (size_t ki = 0; ki < sizeof kernels / sizeof kernels[0]; ki++) {
        if (only && strcmp(only, kernels[ki].id)) continue;
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
    cuzk_gpu_ctx_destroy(ctx);
    return rc;
}

#endif /* CUZK_HAVE_GPU */
