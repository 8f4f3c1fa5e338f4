/* cuzk — the command-line tool: what the command files share.
 *
 * Each command is a function cmd_<name>(argc, argv) (argv[0] is the command
 * name) in the file of its group: cuzk.c (prove, verify, and the command
 * table), keys.c (setup, import, export-vk), circuits.c (circuits, compile,
 * info, witness), serve.c (serve). Exit status of every
 * command: 0 success, 1 a verification that says "invalid", 2 unusable input
 * or failure, with a one-line reason on stderr. */
#ifndef CUZK_CLI_H
#define CUZK_CLI_H

#include <cuzk/circuits.h>
#include <cuzk/formats.h>
#include <cuzk/groth16.h>
#include <cuzk/r1cs.h>

#define EXIT_INVALID 1
#define EXIT_UNUSABLE 2

/* Monotonic wall clock in milliseconds. */
double cli_now_ms(void);
/* Prints "cuzk: what: detail" to stderr; returns EXIT_UNUSABLE. */
int cli_fail(const char *what, const char *detail);
/* Reads a whole file into b; on failure prints the reason and returns 0. */
int cli_read_file(cuzk_blob *b, const char *path);
/* A file a command names: its flag ("--proof") and path (NULL: not given). */
typedef struct {
    const char *flag;
    const char *path;
} cli_path;

/* Checks a command's outputs before it does any work, so that no input is
 * lost: refuses an output that is the same file as an input (device and
 * inode, symlinks followed) or as another output, an output that is a
 * directory or a socket, and one whose directory does not exist. Devices
 * and FIFOs (/dev/null, /dev/stdout) are written in place and never
 * conflict. 1 if the outputs can be written; else prints a line naming
 * both flags and returns 0 (exit EXIT_UNUSABLE). */
int cli_check_paths(const char *cmd, const cli_path *in, size_t n_in, const cli_path *out,
                    size_t n_out);
/* Parses a --threads value (0..256, 0 = every core) into *out and sizes the
 * process's thread pool with it (pool.h); 0 with a message if bad. */
int cli_parse_threads(const char *arg, unsigned *out);

/* Parses --size ("full" -> 0, or 10..27) and integers 0..max; 0 with a
 * message if bad (circuits.c). */
int cli_parse_size(const char *arg, unsigned *out);
int cli_parse_u64(const char *what, const char *arg, uint64_t max, uint64_t *out);

/* Opens built-in circuit id at size (0 full); unless quiet, says when the
 * size is below the circuit's smallest form and what it became. 0 with a
 * message on failure. (circuits.c) */
int cli_circuit_open(cuzk_circuit **ci, const char *id, unsigned size, int quiet);

/* Before a full-size built-in circuit is recorded (cmd "compile", or
 * "setup" with key set): says the memory and disk it will need, and
 * refuses (0, with a message) when an output's file system has less free
 * space than that output needs. matrices: the key keeps its matrices.
 * (circuits.c) */
int cli_full_size_plan(const cuzk_circuit_info *in, const char *cmd, const cli_path *outs,
                       size_t n_outs, int key, int matrices);

/* One partition's witness of a built-in circuit (circuits.h): from an
 * inputs JSON file, or derived from seed and partition when inputs is
 * NULL. (circuits.c) */
typedef struct {
    const char *id;   /* --circuit */
    unsigned size;    /* --size: 0 full ("full"), else 10..27 */
    const char *inputs;
    uint64_t seed, partition;
} cli_circuit_job;

typedef struct {
    cuzk_fr *w;               /* dense, wire order, w[0] = ONE; malloc'd: free() */
    size_t n;                 /* n_inputs + n_aux */
    cuzk_cs_shape shape;      /* inputs (ONE included), aux bits and fields */
    uint64_t est_constraints; /* the circuit's estimate (circuits.h) */
    double witness_ms;
} cli_circuit_witness_out;

/* Computes the witness of job on up to threads threads (0: every core),
 * through cuzk_circuit_job_witness (prove.h; cuzk prove runs it inside its
 * proof job);
 * out->w is the caller's (free(), also set to NULL on failure). On failure
 * prints the reason and returns 0. */
int cli_circuit_witness(const cli_circuit_job *job, unsigned threads, int quiet,
                        cli_circuit_witness_out *out);
/* The GPU for setup (gpu.c): a context and G1/G2 fixed-base multipliers on
 * device 0. cli_gpu_open returns NULL (after saying why, unless quiet) when
 * the tool is built without CUDA or no device is usable; every function
 * takes NULL as "no GPU". cli_gpu_setup_hook points o's fixed_mul at g. */
typedef struct cli_gpu cli_gpu;
cli_gpu *cli_gpu_open(int quiet);
void cli_gpu_close(cli_gpu *g);
void cli_gpu_setup_hook(cli_gpu *g, cuzk_setup_opts *o);
/* Registers the GPU prover backend ("gpu", src/gpu/prover.cu) when the tool
 * is built with CUDA: 1; without CUDA: 0 (nothing to register). Whether a
 * device is present is the backend's question, at workspace creation. */
int cli_gpu_register(void);

int cmd_prove(int argc, char **argv);
int cmd_verify(int argc, char **argv);
int cmd_setup(int argc, char **argv);  /* keys.c */
int cmd_import(int argc, char **argv); /* keys.c */
int cmd_export_vk(int argc, char **argv); /* keys.c */
int cmd_circuits(int argc, char **argv); /* circuits.c */
int cmd_compile(int argc, char **argv);  /* circuits.c */
int cmd_info(int argc, char **argv);     /* circuits.c */
int cmd_witness(int argc, char **argv);  /* circuits.c */
int cmd_serve(int argc, char **argv);    /* serve.c */

#endif /* CUZK_CLI_H */
