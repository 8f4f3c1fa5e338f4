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

/* qsort's comparison of doubles, ascending. */
static inline int bench_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

#endif /* CUZK_BENCH_H */
