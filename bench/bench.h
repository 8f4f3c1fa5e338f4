/* cuzk-bench: one binary, one subcommand per benchmark family. Each prints a
 * table on stdout and returns a process exit status. */
#ifndef CUZK_BENCH_H
#define CUZK_BENCH_H

#include <stdint.h>
#include <time.h>

int bench_micro(int argc, char **argv);   /* CPU arithmetic, ns/op */
int bench_kernels(int argc, char **argv); /* GPU kernels (bench/kernels.c) */
int bench_prove(int argc, char **argv);   /* CPU Groth16 prover stages */
int bench_pce(int argc, char **argv);     /* PCE compile and SpMV (bench/pce.c) */
int bench_setup(int argc, char **argv);   /* Groth16 setup points/s (bench/setup.c) */
int bench_witness(int argc, char **argv); /* built-in circuits (bench/witness.c) */
int bench_store(int argc, char **argv);   /* the SQLite job store (bench/store.c) */
int bench_engine(int argc, char **argv);  /* the engine's overhead (bench/engine.c) */

/* Client commands: talk to a running `cuzk serve` over HTTP (bench/client.c). */
int bench_single(int argc, char **argv);  /* one job and its timings */
int bench_batch(int argc, char **argv);   /* COUNT jobs, CONCURRENCY in flight */
int bench_stress(int argc, char **argv);  /* mixed load for a duration */
int bench_status(int argc, char **argv);  /* GET /v1/status */
int bench_register(int argc, char **argv); /* POST /v1/circuits[?wait=0] */
int bench_preload(int argc, char **argv); /* POST /v1/circuits/NAME/preload */
int bench_evict(int argc, char **argv);   /* POST /v1/circuits/NAME/evict */
int bench_metrics(int argc, char **argv); /* GET /metrics */
/* The timeline from a file or a daemon, drawn and measured (bench/waterfall.c). */
int bench_waterfall(int argc, char **argv);

static inline double bench_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* The compute-floor model of cuzk-bench prove (bench/floors.c, where each
 * formula is derived). Counts of a witness's values in a set of variables. */
typedef struct {
    uint64_t zeros, ones, other;
} bench_wcount;

/* What the floors are counted from: the key's sizes and the witness's. */
typedef struct {
    unsigned log_domain; /* the domain has 2^log_domain points */
    uint64_t n_vars;     /* witness length, ONE included */
    uint64_t h_points;   /* H's points (2^log_domain or one less) */
    uint64_t rows_bytes; /* the rows' source the SpMV reads (PCE image, CSR) */
    int device;          /* 1: a device backend, which uploads the witness */
    /* The witness's values over A's variables (all), L's (the private
     * ones) and B's (the n_b variables of B); every value counted as
     * "other" when they are not known (the dense bound). */
    bench_wcount w_all, w_priv, w_b;
} bench_shape;

/* A device's rates, each with where it comes from. */
typedef struct {
    const char *name;
    double product_rate; /* 32x32 -> 64-bit products per second */
    double hbm;          /* device memory, bytes per second */
    double h2d;          /* host -> device, bytes per second (pinned) */
    const char *product_src, *hbm_src, *h2d_src;
} bench_model;

/* One piece of a stage's work: products on the multiplier pipe and bytes
 * over device memory (or over the host link when h2d); c is an MSM part's
 * window (0 for others). */
typedef struct {
    const char *name;
    double products, bytes;
    int h2d;
    unsigned c;
} bench_part;

#define BENCH_STAGES 8 /* CUZK_STAGE_DONE: bench_work arrays by cuzk_prove_stage */
#define BENCH_PARTS_MAX 3
typedef struct {
    unsigned n; /* 0: the stage has no model (host work) */
    bench_part part[BENCH_PARTS_MAX];
} bench_work;

void bench_model_h200(bench_model *m);
/* Fr multiplications of one radix-2 transform of 2^log_n points. */
double bench_ntt_fr_muls(unsigned log_n);
/* Windows of a c-bit Pippenger over 255-bit scalars. */
unsigned bench_msm_windows(unsigned c);
/* Products of an MSM (G1, or G2 when g2) with `other` full scalars and
 * `ones` scalars equal to 1; *c_out (may be NULL) gets the window (0 when
 * other = 0). */
double bench_msm_products(int g2, uint64_t other, uint64_t ones, unsigned *c_out);
/* Each stage's work, w indexed by cuzk_prove_stage. */
void bench_floor_work(const bench_shape *s, bench_work w[BENCH_STAGES]);
/* Milliseconds at m: a part's max(compute, memory); a stage's parts summed
 * (-1 for a stage without a model). */
double bench_part_floor_ms(const bench_part *p, const bench_model *m);
double bench_work_floor_ms(const bench_work *w, const bench_model *m);
double bench_work_bytes(const bench_work *w);

/* qsort's comparison of doubles, ascending. */
static inline int bench_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

#endif /* CUZK_BENCH_H */
