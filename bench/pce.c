/* cuzk-bench pce: compile a synthetic PoRep-shaped R1CS into a PCE and time
 * the evaluation a, b, c = A w, B w, C w.
 *
 * The circuit is random but shaped like one 32 GiB PoRep partition
 * (shared/research/cuzk.md §3, supraseal.md §1.2): one new aux variable a_r
 * per row; A has a_r (99.7% of rows) plus ~1.1 nearby variables or ONE, and
 * 1% of rows are 32-term packings with coefficients 2^i (~2.4 terms a row);
 * B has one term: a_r in 25% of rows (so 25% of aux are in B), else ONE or a
 * variable already in B (~1.0 a row); C has 0 or 2 terms or, in 2% of rows,
 * a 32-term packing (~2.2 a row). Coefficients are +-1 except the packings
 * and 0.5% of terms drawn from 2000 random field constants (Poseidon-like).
 * Columns are mostly near the row (d < 16), sometimes up to 4096 back,
 * rarely anywhere. The witness is 90% bits, like SHA-256-heavy circuits.
 *
 * For each size it prints the PCE's bytes per non-zero, compile time, the
 * time to open (check) the image, and the evaluation's wall time per
 * non-zero and bandwidth, with and without the witness's bit bitmaps, next
 * to the prover's CSR evaluation (src/groth16/prove.c, eval_rows) of the
 * same matrices. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuzk/pce.h>
#ifdef CUZK_HAVE_GPU
#include <cuzk/gpu.h>

#include "gpu/gpu_testing.h"
#endif

#include "bench.h"
#include "common/parallel.h"

int bench_pce(int argc, char **argv);

/* ------------------------------------------------------------- random -- */

static uint64_t rs[4];

static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

static uint64_t rnd64(void) /* xoshiro256** */
{
    uint64_t r = rotl(rs[1] * 5, 7) * 9, t = rs[1] << 17;
    rs[2] ^= rs[0];
    rs[3] ^= rs[1];
    rs[1] ^= rs[2];
    rs[0] ^= rs[3];
    rs[2] ^= t;
    rs[3] = rotl(rs[3], 45);
    return r;
}

static void seed_rng(uint64_t seed)
{
    for (int i = 0; i < 4; i++) { /* splitmix64 */
        seed += 0x9e3779b97f4a7c15ull;
        uint64_t x = seed;
        x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
        x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
        rs[i] = x ^ (x >> 31);
    }
}

static uint64_t rnd(uint64_t n) { return rnd64() % n; }

static void rand_fr(cuzk_fr *r)
{
    uint64_t v[4];
    do {
        for (int i = 0; i < 4; i++) v[i] = rnd64();
        v[3] &= 0x7fffffffffffffffull;
    } while (cuzk_fr_from_limbs(r, v) != CUZK_OK);
}

/* ------------------------------------------------------------ circuit -- */

#define N_INPUTS 328 /* as PoRep: ONE and 327 public inputs */
#define N_CONST 2000
/* Coefficient slots: 0 = 1, 1 = -1, 2..33 = 2^0..2^31, then constants. */
#define SLOT_POW2 2
#define SLOT_CONST 34

typedef struct {
    uint64_t n, cap;
    uint64_t *row_start;
    uint32_t *wire, *coeff;
} sbuild;

static int sb_init(sbuild *s, uint64_t rows, uint64_t cap)
{
    s->n = 0;
    s->cap = cap;
    s->row_start = malloc((rows + 1) * sizeof *s->row_start);
    s->wire = malloc(cap * sizeof *s->wire);
    s->coeff = malloc(cap * sizeof *s->coeff);
    if (s->row_start) s->row_start[0] = 0;
    return s->row_start && s->wire && s->coeff;
}

static int sb_add(sbuild *s, uint64_t col, uint32_t coeff)
{
    if (s->n == s->cap) {
        s->cap *= 2;
        uint32_t *w = realloc(s->wire, s->cap * sizeof *w);
        if (w) s->wire = w;
        uint32_t *c = realloc(s->coeff, s->cap * sizeof *c);
        if (c) s->coeff = c;
        if (!w || !c) return 0;
    }
    s->wire[s->n] = (uint32_t)col;
    s->coeff[s->n++] = coeff;
    return 1;
}

static uint32_t pm1(void) { return rnd(10) < 3; } /* slot 0 (+1) or 1 (-1) */

static uint32_t some_coeff(void)
{
    return rnd(200) ? pm1() : SLOT_CONST + (uint32_t)rnd(N_CONST);
}

/* A variable defined before row r: mostly close, sometimes far. */
static uint64_t older(uint64_t r)
{
    uint64_t u = rnd(1000), d;
    if (r == 0) return 0;
    if (u < 1) return 1 + rnd(N_INPUTS - 1); /* a public input */
    if (u < 11) return N_INPUTS + rnd(r);     /* anywhere */
    d = u < 811 ? 1 + rnd(16) : 1 + rnd(4096);
    return N_INPUTS + (d > r ? 0 : r - d);
}

static int gen_circuit(cuzk_matrices *m, uint64_t rows)
{
    memset(m, 0, sizeof *m);
    m->n_rows = rows;
    m->n_coeffs = SLOT_CONST + N_CONST;
    m->coeffs = malloc(m->n_coeffs * sizeof *m->coeffs);
    sbuild a, b, c;
    if (!m->coeffs || !sb_init(&a, rows, rows * 5 / 2 + 64) || !sb_init(&b, rows, rows + 64) ||
        !sb_init(&c, rows, rows * 9 / 4 + 64))
        return 0;
    m->coeffs[0] = CUZK_FR_ONE;
    cuzk_fr_neg(&m->coeffs[1], &CUZK_FR_ONE);
    for (int i = 0; i < 32; i++) cuzk_fr_from_u64(&m->coeffs[SLOT_POW2 + i], (uint64_t)1 << i);
    for (int i = 0; i < N_CONST; i++) rand_fr(&m->coeffs[SLOT_CONST + i]);
    uint64_t ring[64] = {0}; /* recent variables in B */
    unsigned nring = 0;
    int ok = 1;
    for (uint64_t r = 0; r < rows && ok; r++) {
        uint64_t ar = N_INPUTS + r;
        /* A */
        if (rnd(1000) < 997) ok &= sb_add(&a, ar, pm1());
        if (rnd(100) < 1) {
            for (int i = 0; i < 32; i++) ok &= sb_add(&a, older(r), SLOT_POW2 + (uint32_t)i);
        } else {
            int extra = rnd(100) < 92 ? 1 : 2;
            for (int i = 0; i < extra; i++)
                ok &= sb_add(&a, rnd(10) < 3 ? 0 : older(r), some_coeff());
        }
        a.row_start[r + 1] = a.n;
        /* B */
        uint64_t u = rnd(100);
        if (u < 25) {
            ok &= sb_add(&b, ar, 0);
            ring[nring++ % 64] = ar;
        } else if (u < 60 || !nring) {
            ok &= sb_add(&b, 0, 0);
        } else {
            ok &= sb_add(&b, ring[rnd(nring < 64 ? nring : 64)], 0);
        }
        b.row_start[r + 1] = b.n;
        /* C */
        u = rnd(100);
        if (u < 2) {
            for (int i = 0; i < 32; i++) ok &= sb_add(&c, older(r), SLOT_POW2 + (uint32_t)i);
        } else if (u >= 22) {
            ok &= sb_add(&c, ar, pm1());
            ok &= sb_add(&c, older(r), some_coeff());
        }
        c.row_start[r + 1] = c.n;
    }
    sbuild *sb[3] = {&a, &b, &c};
    cuzk_sparse *sp[3] = {&m->a, &m->b, &m->c};
    for (int k = 0; k < 3; k++)
        *sp[k] = (cuzk_sparse){sb[k]->n, sb[k]->row_start, sb[k]->wire, sb[k]->coeff};
    return ok;
}

static void free_circuit(cuzk_matrices *m)
{
    cuzk_sparse *sp[3] = {&m->a, &m->b, &m->c};
    for (int k = 0; k < 3; k++) {
        free(sp[k]->row_start);
        free(sp[k]->wire);
        free(sp[k]->coeff);
    }
    free(m->coeffs);
    memset(m, 0, sizeof *m);
}

/* ------------------------------------------- the prover's evaluation -- */

struct csr_job {
    const cuzk_matrices *m;
    const cuzk_sparse *s;
    const cuzk_fr *w;
    cuzk_fr *out;
};

/* As src/groth16/prove.c rows_range: +-1 add, others multiply. */
static void csr_range(void *ctx, size_t b, size_t e)
{
    const struct csr_job *j = ctx;
    const cuzk_sparse *s = j->s;
    for (size_t row = b; row < e; row++) {
        cuzk_fr acc = CUZK_FR_ZERO, t;
        for (uint64_t k = s->row_start[row]; k < s->row_start[row + 1]; k++) {
            const cuzk_fr *x = &j->w[s->wire[k]];
            uint32_t c = s->coeff[k];
            if (c == 0) {
                cuzk_fr_add(&acc, &acc, x);
            } else if (c == 1) {
                cuzk_fr_sub(&acc, &acc, x);
            } else {
                cuzk_fr_mul(&t, x, &j->m->coeffs[c]);
                cuzk_fr_add(&acc, &acc, &t);
            }
        }
        j->out[row] = acc;
    }
}

static void csr_eval(const cuzk_matrices *m, const cuzk_fr *w, cuzk_fr *out[3], unsigned th)
{
    const cuzk_sparse *s[3] = {&m->a, &m->b, &m->c};
    for (int k = 0; k < 3; k++) {
        struct csr_job j = {m, s[k], w, out[k]};
        cuzk_parallel_for(m->n_rows, 1024, th, csr_range, &j);
    }
}

/* ---------------------------------------------------------------- run -- */

static double cpu_ns(void) /* CPU time of the whole process, all threads */
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, bench_cmp_double);
    return v[n / 2];
}

/* 1 if --gpu can run: built with CUDA and a device present; else says
 * why (once) and returns 0. */
static int gpu_usable(void)
{
#ifdef CUZK_HAVE_GPU
    int count = 0;
    char err[CUZK_ERRMSG_LEN];
    cuzk_status s = cuzk_gpu_device_count(&count, err);
    if (s == CUZK_OK && count > 0) return 1;
    fprintf(stderr, "cuzk-bench pce: --gpu: no CUDA device (%s); CPU rows only\n",
            s != CUZK_OK ? err : "none found");
#else
    fprintf(stderr, "cuzk-bench pce: --gpu: built without the CUDA backend; CPU rows only\n");
#endif
    return 0;
}

/* The GPU evaluation of p, plain and with the bit bitmaps, against want (the
 * CPU's a, b, c); one line. Returns 0 when the results agree. */
static int bench_pce_gpu(const cuzk_pce *p, const cuzk_fr *w, const uint64_t *is_bit,
                         const uint64_t *bit_val, uint64_t n_cols, const cuzk_fr *want,
                         unsigned reps, uint64_t nnz)
{
#ifdef CUZK_HAVE_GPU
    uint64_t rows = p->n_rows;
    cuzk_gpu_ctx *ctx = NULL;
    cuzk_gpu_pce *d = NULL;
    cuzk_fr *got = malloc(3 * rows * sizeof *got);
    float *ms = malloc(reps * sizeof *ms);
    double med[2] = {0, 0}, tt[100];
    int rc = 1;
    char err[CUZK_ERRMSG_LEN] = "";
    cuzk_status s = got && ms ? cuzk_gpu_ctx_create(&ctx, NULL, err) : CUZK_ERR_NO_MEMORY;
    if (s == CUZK_OK) s = cuzk_gpu_pce_create(&d, ctx, p, err);
    for (int mode = 0; mode < 2 && s == CUZK_OK; mode++) {
        cuzk_pce_witness wit = {w, n_cols, mode ? is_bit : NULL, mode ? bit_val : NULL};
        memset(got, 0, 3 * rows * sizeof *got);
        s = cuzk_gpu_pce_eval_host(d, &wit, got, got + rows, got + 2 * rows, reps, ms, err);
        if (s != CUZK_OK) break;
        if (memcmp(got, want, 3 * rows * sizeof *got)) {
            fprintf(stderr, "cuzk-bench pce: GPU and CPU results differ (mode %d)\n", mode);
            s = CUZK_ERR_INVALID_ARGUMENT;
            break;
        }
        for (unsigned r = 0; r < reps; r++) tt[r] = ms[r];
        med[mode] = median(tt, (int)reps);
    }
    if (s == CUZK_OK) {
        printf("    gpu: device %.1f MB; spmv %.2f ms (%.3f ns/nnz, %.0f GB/s pce), +bits %.2f ms "
               "(%.3f ns/nnz); results equal the CPU's\n",
               cuzk_gpu_pce_device_bytes(d) / 1e6, med[0], med[0] * 1e6 / (double)nnz,
               (double)p->image_size / (med[0] * 1e6), med[1], med[1] * 1e6 / (double)nnz);
        rc = 0;
    } else if (s != CUZK_ERR_INVALID_ARGUMENT) {
        fprintf(stderr, "cuzk-bench pce: %s (%s)\n", err, cuzk_strerror(s));
    }
    fflush(stdout);
    cuzk_gpu_pce_destroy(d);
    cuzk_gpu_ctx_destroy(ctx);
    free(got);
    free(ms);
    return rc;
#else /* not reached: gpu_usable() said no */
    (void)p, (void)w, (void)is_bit, (void)bit_val, (void)n_cols, (void)want, (void)reps, (void)nnz;
    return 1;
#endif
}

static void usage(FILE *f)
{
    fprintf(f,
            "usage: cuzk-bench pce [--min LOG] [--max LOG] [--threads N] [--reps R] "
            "[--seed S] [--no-csr] [--gpu]\n"
            "  Synthetic PoRep-shaped R1CS of 2^LOG rows, LOG = min..max (default 16..22):\n"
            "  PCE bytes per non-zero, compile and open times, SpMV ns per non-zero and\n"
            "  GB/s (median of R runs, default 5), with and without bit bitmaps, and\n"
            "  the prover's CSR evaluation for comparison (--no-csr skips it).\n"
            "  --gpu adds a line per size: the GPU evaluation (cuzk_gpu_pce_eval: the PCE\n"
            "  and witness resident on device 0; CUDA-event median), checked against the CPU.\n"
            "  2^22 rows need ~1.3 GB of memory; 2^27 (a full partition) ~40 GB.\n");
}

int bench_pce(int argc, char **argv)
{
    unsigned lo = 16, hi = 22, threads = 0, reps = 5;
    uint64_t seed = 1;
    int csr = 1, gpu = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(a, "--no-csr")) {
            csr = 0;
        } else if (!strcmp(a, "--gpu")) {
            gpu = 1;
        } else if (v && !strcmp(a, "--min")) {
            lo = (unsigned)atoi(v), i++;
        } else if (v && !strcmp(a, "--max")) {
            hi = (unsigned)atoi(v), i++;
        } else if (v && !strcmp(a, "--threads")) {
            threads = (unsigned)atoi(v), i++;
        } else if (v && !strcmp(a, "--reps")) {
            reps = (unsigned)atoi(v), i++;
        } else if (v && !strcmp(a, "--seed")) {
            seed = strtoull(v, NULL, 0), i++;
        } else {
            usage(stderr);
            return 2;
        }
    }
    if (lo < 1 || hi > 30 || lo > hi || reps < 1 || reps > 100) {
        usage(stderr);
        return 2;
    }
    /* No GPU is not a failure of the benchmark: say so once, before the
     * rows, and give the CPU rows (exit 0). */
    if (gpu && !gpu_usable()) gpu = 0;
    if (!threads) threads = cuzk_ncores();
    printf("cuzk-bench pce: synthetic PoRep-shaped R1CS, %u threads, seed %llu, median of %u\n",
           threads, (unsigned long long)seed, reps);
    printf("  ms: wall clock (median); ns: wall time / non-zeros (all threads together);\n"
           "  cpu: CPU time of all threads / non-zeros (per-core cost, robust to load);\n"
           "  GB/s pce: PCE image bytes / wall time; all: adds the witness read once (32 B a\n"
           "  column, or 2 bitmaps + 32 B a non-bit column) and a, b, c written (96 B a row)\n\n");
    printf("%3s %8s %9s %5s %5s %7s %6s | %6s %5s %5s %5s %5s | %6s %5s %5s %5s | %6s %5s %5s\n",
           "log", "rows", "nnz", "B/nz", "MB", "compile", "open", "spmv", "ns", "cpu", "GB/s",
           "GB/s", "+bits", "ns", "cpu", "GB/s", "csr", "ns", "cpu");
    printf("%3s %8s %9s %5s %5s %7s %6s | %6s %5s %5s %5s %5s | %6s %5s %5s %5s | %6s %5s %5s\n",
           "", "", "", "", "", "ms", "ms", "ms", "", "", "pce", "all", "ms", "", "", "all", "ms",
           "", "");
    char err[CUZK_ERRMSG_LEN];
    int rc = 0;
    for (unsigned lg = lo; lg <= hi && !rc; lg++) {
        uint64_t rows = (uint64_t)1 << lg, n_cols = N_INPUTS + rows;
        seed_rng(seed + lg);
        cuzk_matrices m;
        cuzk_pce p;
        memset(&p, 0, sizeof p);
        cuzk_fr *w = malloc(n_cols * sizeof *w), *out = malloc(3 * rows * sizeof *out);
        cuzk_fr *ref = csr ? malloc(3 * rows * sizeof *ref) : NULL;
        uint64_t words = n_cols / 64 + 1;
        uint64_t *is_bit = calloc(words, 8), *bit_val = calloc(words, 8);
        double *t = malloc(reps * sizeof *t), *tc = malloc(reps * sizeof *tc);
        if (!gen_circuit(&m, rows) || !w || !out || (csr && !ref) || !is_bit || !bit_val || !t ||
            !tc) {
            fprintf(stderr, "cuzk-bench pce: out of memory at 2^%u rows\n", lg);
            rc = 1;
            goto next;
        }
        /* Witness: ONE, random inputs, aux 90% bits. */
        uint64_t n_bits = 0;
        w[0] = CUZK_FR_ONE;
        for (uint64_t i = 1; i < n_cols; i++) {
            if (i >= N_INPUTS && rnd(10) < 9) {
                int v = (int)rnd(2);
                w[i] = v ? CUZK_FR_ONE : CUZK_FR_ZERO;
                is_bit[i >> 6] |= (uint64_t)1 << (i & 63);
                bit_val[i >> 6] |= (uint64_t)v << (i & 63);
                n_bits++;
            } else {
                rand_fr(&w[i]);
            }
        }
        double t0 = bench_now_ns();
        cuzk_status s = cuzk_pce_compile(&p, &m, N_INPUTS, rows, 0, threads, err);
        double compile_ms = (bench_now_ns() - t0) / 1e6;
        if (s != CUZK_OK) {
            fprintf(stderr, "cuzk-bench pce: %s\n", err);
            rc = 1;
            goto next;
        }
        cuzk_pce q;
        t0 = bench_now_ns();
        s = cuzk_pce_open(&q, p.image, p.image_size, 0, threads, err);
        double open_ms = (bench_now_ns() - t0) / 1e6;
        if (s != CUZK_OK) {
            fprintf(stderr, "cuzk-bench pce: open: %s\n", err);
            rc = 1;
            goto next;
        }
        cuzk_pce_free(&q);
        uint64_t nnz = cuzk_pce_nnz(&p);
        if (lg == lo) {
            uint64_t pm = 0, all = 0;
            const cuzk_sparse *sp[3] = {&m.a, &m.b, &m.c};
            for (int k = 0; k < 3; k++) {
                all += sp[k]->n_terms;
                for (uint64_t i = 0; i < sp[k]->n_terms; i++) pm += sp[k]->coeff[i] < 2;
            }
            printf("  shape: nnz/row A %.2f B %.2f C %.2f; aux density A %.2f%% B %.2f%%; "
                   "+-1 terms %.1f%%;\n  term bits A %u+%u B %u+%u C %u+%u, row-length bits "
                   "%u/%u/%u, escapes %llu, %llu coefficients\n",
                   (double)p.m[0].nnz / rows, (double)p.m[1].nnz / rows,
                   (double)p.m[2].nnz / rows, 100.0 * p.dens_count[0][1] / rows,
                   100.0 * p.dens_count[1][1] / rows, 100.0 * pm / all, p.m[0].col_bits, p.m[0].code_bits,
                   p.m[1].col_bits, p.m[1].code_bits, p.m[2].col_bits, p.m[2].code_bits,
                   p.m[0].len_bits, p.m[1].len_bits, p.m[2].len_bits,
                   (unsigned long long)(p.m[0].n_esc + p.m[1].n_esc + p.m[2].n_esc),
                   (unsigned long long)p.n_coeffs);
        }
        cuzk_fr *o3[3] = {out, out + rows, out + 2 * rows};
        double ms[2], ns[2], cns[2], gbs_pce = 0, gbs_all[2];
        double io_abc = 96.0 * (double)rows;
        double io_w[2] = {32.0 * (double)n_cols,
                          2.0 * words * 8 + 32.0 * (double)(n_cols - n_bits)};
        for (int mode = 0; mode < 2; mode++) {
            cuzk_pce_witness wit = {w, n_cols, mode ? is_bit : NULL, mode ? bit_val : NULL};
            cuzk_pce_eval(&p, &wit, o3[0], o3[1], o3[2], threads, err); /* warm-up */
            for (unsigned r = 0; r < reps; r++) {
                double c0 = cpu_ns();
                t0 = bench_now_ns();
                cuzk_pce_eval(&p, &wit, o3[0], o3[1], o3[2], threads, err);
                t[r] = bench_now_ns() - t0;
                tc[r] = cpu_ns() - c0;
            }
            double tn = median(t, (int)reps);
            ms[mode] = tn / 1e6;
            ns[mode] = tn / (double)nnz;
            cns[mode] = median(tc, (int)reps) / (double)nnz;
            if (!mode) gbs_pce = (double)p.image_size / tn;
            gbs_all[mode] = ((double)p.image_size + io_w[mode] + io_abc) / tn;
        }
        double csr_ms = 0, csr_ns = 0, csr_cns = 0;
        if (csr) {
            cuzk_fr *r3[3] = {ref, ref + rows, ref + 2 * rows};
            csr_eval(&m, w, r3, threads);
            for (unsigned r = 0; r < reps; r++) {
                double c0 = cpu_ns();
                t0 = bench_now_ns();
                csr_eval(&m, w, r3, threads);
                t[r] = bench_now_ns() - t0;
                tc[r] = cpu_ns() - c0;
            }
            double tn = median(t, (int)reps);
            double nz = (double)(m.a.n_terms + m.b.n_terms + m.c.n_terms);
            csr_ms = tn / 1e6;
            csr_ns = tn / nz;
            csr_cns = median(tc, (int)reps) / nz;
            if (memcmp(ref, out, 3 * rows * sizeof *out)) {
                fprintf(stderr, "cuzk-bench pce: PCE and CSR results differ at 2^%u\n", lg);
                rc = 1;
            }
        }
        printf("%3u %8llu %9llu %5.2f %5.1f %7.1f %6.1f | %6.1f %5.2f %5.1f %5.2f %5.2f | %6.1f "
               "%5.2f %5.1f %5.2f | %6.1f %5.2f %5.1f\n",
               lg, (unsigned long long)rows, (unsigned long long)nnz, cuzk_pce_bytes_per_nnz(&p),
               p.image_size / 1e6, compile_ms, open_ms, ms[0], ns[0], cns[0], gbs_pce,
               gbs_all[0], ms[1], ns[1], cns[1], gbs_all[1], csr_ms, csr_ns, csr_cns);
        fflush(stdout);
        if (gpu && bench_pce_gpu(&p, w, is_bit, bit_val, n_cols, out, reps, nnz) != 0) rc = 1;
    next:
        cuzk_pce_free(&p);
        free_circuit(&m);
        free(w);
        free(out);
        free(ref);
        free(is_bit);
        free(bit_val);
        free(t);
        free(tc);
    }
    return rc;
}
