/* cuzk-bench: benchmarks as separate commands; never part of the tests.
 * A client-only build (CUZK_CLIENT_ONLY, CMakeLists.txt) has only the
 * commands that talk to a daemon: it links libcurl and jansson, nothing of
 * the prover. */
#include <stdio.h>
#include <string.h>

#include "bench.h"

static const struct {
    const char *name;
    int (*fn)(int, char **);
    const char *help;
} commands[] = {
#ifndef CUZK_CLIENT_ONLY
    {"micro", bench_micro, "CPU field, curve and pairing operations (ns/op)"},
    {"kernels", bench_kernels, "GPU kernels (median of CUDA-event-timed runs)"},
    {"prove", bench_prove, "Groth16 prover per stage: times, bytes, GB/s, ratio to the floor"},
    {"pce", bench_pce, "PCE on a PoRep-shaped R1CS: bytes/nnz, compile, SpMV ns/nnz, GB/s"},
    {"setup", bench_setup, "Groth16 setup (insecure keys): points/s at 2^10..2^N"},
    {"witness", bench_witness, "built-in circuits: record, witness M constraints/s, PCE SpMV"},
    {"engine", bench_engine, "the engine's overhead: N proofs through it vs cuzk_prove in a loop"},
    {"store", bench_store, "the SQLite job store: enqueue+lease+complete jobs/s (fsync'd)"},
#endif
    /* Client commands: a running `cuzk serve` (--addr unix:PATH | http://HOST:PORT). */
    {"single", bench_single, "daemon: one job, its timings and proof size"},
    {"batch", bench_batch, "daemon: COUNT jobs, CONCURRENCY in flight; throughput and latency"},
    {"stress", bench_stress, "daemon: mixed load for a duration; CRITICAL latency under load"},
    {"status", bench_status, "daemon: devices, circuits and key tiers, queues, memory"},
    {"register", bench_register, "daemon: register a circuit's key (--async: 202, then its progress)"},
    {"preload", bench_preload, "daemon: make a circuit's key resident"},
    {"evict", bench_evict, "daemon: drop a circuit's key from residency"},
    {"metrics", bench_metrics, "daemon: its Prometheus metrics"},
    {"waterfall", bench_waterfall, "the timeline (file or daemon): text/SVG waterfall, GPU efficiency, gaps"},
};

static void usage(FILE *f)
{
    fprintf(f, "usage: cuzk-bench <command> [options]\n\ncommands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(f, "  %-9s %s\n", commands[i].name, commands[i].help);
    fprintf(f, "\n'cuzk-bench <command> --help' describes a command's options.\n");
}

int main(int argc, char **argv)
{
    if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
        usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (!strcmp(argv[1], commands[i].name)) return commands[i].fn(argc - 1, argv + 1);
    fprintf(stderr, "cuzk-bench: unknown command '%s'\n", argv[1]);
    usage(stderr);
    return 2;
}
