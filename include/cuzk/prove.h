/* cuzk — the proof job: from a key and a witness source to a checked proof.
 *
 * The layer above groth16 (keys, the verifier), circuits (built-in
 * witnesses), r1cs (PCE rows) and formats. A proof is a library call, so the
 * CLI, the benchmarks and an engine all prove the same way:
 *
 *   cuzk_config          every tuning knob as plain data (the library never
 *                        reads the environment; the CLI does)
 *   cuzk_prover_backend  the stages of a proof behind function pointers: the
 *                        CPU backend is built in (the reference and the
 *                        fallback), others (the GPU) register at run time,
 *                        so the library links without them
 *   cuzk_workspace       every per-proof buffer, made once for a key and a
 *                        backend and reused for each proof with that key
 *   cuzk_prove_job       what to prove; cuzk_prove proves it
 *
 * Stages, in order (cuzk_prove_stage): the witness (built-in circuits
 * only), the rows a, b, c = A w, B w, C w, the H polynomial, the MSMs A
 * (G1), B (G2) and L + H + r B1 (G1), the blinding with r, s, and the
 * self-check (the verifier) unless turned off. The algebra is that of
 * groth16.h.
 *
 * Memory: cuzk_workspace_create allocates everything a proof needs (its
 * size is cuzk_workspace_bytes): rows, scalars, NTT tables and the MSMs'
 * scratch (msm.h). A dense-witness proof then allocates nothing (checked by
 * tests/test_prove.c); a built-in circuit job whose inputs are derived
 * from a seed allocates that small JSON.
 */
#ifndef CUZK_PROVE_H
#define CUZK_PROVE_H

#include <stddef.h>
#include <stdint.h>

#include <cuzk/circuits.h>
#include <cuzk/ec.h>
#include <cuzk/formats.h>
#include <cuzk/groth16.h>
#include <cuzk/pce.h>
#include <cuzk/status.h>

/* ------------------------------------------------------------- config -- */

/* Every knob of a workspace. Fill with cuzk_config_default, then change
 * fields; the workspace copies it (the backend string must outlive only
 * the cuzk_workspace_create call). */
typedef struct {
    unsigned nthreads;   /* CPU threads for every stage; 0 = every core */
    int self_check;      /* 1: verify each proof before returning it, so a bad
                          * witness gives CUZK_ERR_UNSATISFIED (on a non-CPU
                          * backend CUZK_ERR_PROOF_INVALID: the witness or a
                          * device fault), never a bad proof; 0: skip
                          * (benchmarks) */
    const char *backend; /* "cpu", a registered backend's name ("gpu"), or
                          * "auto": the first registered non-CPU backend that
                          * accepts the key, else "cpu"; NULL = "auto" */
    /* GPU knobs, plain data for a GPU backend (the CPU backend ignores them);
     * 0 = the backend's choice. */
    int gpu_device;          /* CUDA device ordinal */
    uint64_t gpu_pool_bytes; /* device memory the workspace may hold */
    unsigned gpu_streams;    /* streams a proof may use */
    unsigned gpu_msm_flags;  /* MSM plan flags (gpu.h) */
    /* Of the products of the NTTs (of every 4) and of each MSM addition (of
     * the 6: cuzk_gpu_msm_opts.fp64_share), how many run on the FP64 pipe
     * beside the integer one (gpu.h; 0..4, the same results). 0 = integer
     * only: the default until the H200 measures the shares
     * (docs/device-runs.md). */
    unsigned gpu_ntt_fp64;
    unsigned gpu_msm_fp64;
    /* 1: the GPU starts the sparse MSMs (A, B1, L, B2) before the NTTs, to
     * run beside them; 0 (the default until a device run has timed it,
     * docs/perf.md "The sparse MSMs beside the NTTs"): after them. */
    unsigned gpu_sparse_early;
    /* 1: pass 1 of the GPU's NTTs reads its twiddles from a
     * full table of the domain (n x 32 bytes: 4 GiB at 2^27) instead of
     * forming them from two small ones, when the pool has room for it
     * after the MSMs' plans and upgrades (a full porep-32g partition:
     * 1284.0 -> 1270.6 ms on the H200, docs/perf.md "A full twiddle table
     * for pass 1"); 2: a positional table instead (as large, read like the
     * data; the forward transforms only, the inverse ones on two small
     * tables; docs/perf.md "A positional table for pass 1"); 0: always the
     * two small tables. Plus 4 (5): also the coset table
     * (g^i, n + 1 entries, 4 GiB more at 2^27), taken last where the pool
     * still has room, so a coset transform does one product an element
     * less (the H stage of a porep-32g partition 263.3 -> 255.8 ms on the
     * H200, docs/perf.md "The coset table"). Plus 8 (with 1: 9, or 13,
     * the default): those tables as Shoup pairs (w, wq), twice their bytes,
     * taken last where the pool has room, so their products cost 186
     * multiplier slots instead of 264 (2^27 coset forward 39.26 -> 38.26
     * ms, docs/perf.md "The n-entry tables as Shoup pairs"); without room
     * for them, 5. Ignored with gpu_ntt_fp64 above 0. */
    unsigned gpu_ntt_full_twiddles;
    unsigned ws_flags;       /* CUZK_WS_* */
} cuzk_config;

/* ws_flags: every job gives its rows in place (cuzk_groth16_rows.in_place):
 * the workspace holds no a, b, c (96 bytes per domain point less: 12.9 GB
 * at 2^27). A job with other rows is then CUZK_ERR_INVALID_ARGUMENT. */
#define CUZK_WS_CALLER_ROWS 1u
/* ws_flags: jobs give compact witnesses (CUZK_WITNESS_COMPACT): a backend
 * that proves from a dense witness gets its buffer now (32 bytes a
 * variable, counted in cuzk_workspace_bytes) rather than at the first such
 * job; a compact backend may leave out what only dense jobs use (the GPU's
 * pinned staging, 32 bytes a variable), made at the first dense job. */
#define CUZK_WS_COMPACT_WITNESS 2u

/* nthreads 0, self_check 1, backend "auto", gpu_ntt_full_twiddles 13, the
 * other GPU knobs 0, ws_flags 0. */
void cuzk_config_default(cuzk_config *cfg);

/* 1 when v is a gpu_ntt_full_twiddles value: 0, 1 or 2, plus 4, plus 8 with
 * 1 (0, 1, 2, 4, 5, 6, 9, 13); else 0. CUZK_NTT_TABLES_VALUES says so in
 * the words of the error messages that refuse the others. */
int cuzk_ntt_tables_valid(unsigned v);
#define CUZK_NTT_TABLES_VALUES                                                   \
    "0, 1 (full table) or 2 (positional table), plus 4 for the coset table, " \
    "plus 8 for Shoup pairs (with 1)"

/* ------------------------------------------------------------- stages -- */

typedef enum {
    CUZK_STAGE_WITNESS = 0, /* a built-in circuit's witness (dense: skipped) */
    CUZK_STAGE_ROWS,        /* a, b, c = A w, B w, C w */
    CUZK_STAGE_H,           /* the H polynomial; the MSM scalars */
    CUZK_STAGE_MSM_A,       /* A (G1) */
    CUZK_STAGE_MSM_B2,      /* B (G2) */
    CUZK_STAGE_MSM_C,       /* C's sum L + H + r B1 (G1) */
    CUZK_STAGE_ASSEMBLE,    /* blinding with r, s; affine points */
    CUZK_STAGE_VERIFY,      /* the self-check */
    CUZK_STAGE_DONE
} cuzk_prove_stage;

/* A short static name ("witness", "a, b, c", "H (NTTs)", "MSM A (G1)", ...),
 * the one every tool prints. Never NULL. */
const char *cuzk_prove_stage_name(cuzk_prove_stage stage);

/* Wall-clock milliseconds of each stage (0 for a stage not run). */
typedef struct {
    double witness_ms;  /* the built-in circuit's witness */
    double abc_ms;      /* a, b, c: evaluated from the key's matrices or a
                         * PCE, or copied from the caller's rows */
    double ntt_ms;      /* the H polynomial's NTTs and pointwise work, and
                         * the witness's conversion to MSM scalars */
    double msm_a_ms;    /* A (G1) */
    double msm_b2_ms;   /* B (G2), over the n_b variables of B */
    double msm_c_ms;    /* L + H + r B1 (G1) */
    double assemble_ms; /* blinding with r, s and conversion to affine */
    double verify_ms;   /* the self-check (0 when not run) */
    double total_ms;    /* the prover: rows to self-check, witness excluded */
} cuzk_prove_timings;

/* The field of t that times stage (DONE: total_ms). */
double cuzk_prove_stage_ms(const cuzk_prove_timings *t, cuzk_prove_stage stage);

/* --------------------------------------------------- compact witness -- */

/* A witness of n values (Montgomery form) in compact form. Most values of
 * a large circuit's witness are 0 or 1 (a PoRep partition: 51% zeros,
 * 47.5% ones), so instead of 32 bytes a value it keeps, for each word
 * k < ceil(n / 64) of 64 values: bit i % 64 of is_bit[k] (value i is 0
 * or 1) and of bit_val[k] (which), off[k] (the count of other values
 * before word k), and the other values in order in vals. 130 M values: 33
 * MB of bitmaps, 8 MB of offsets and 32 bytes an other value, instead of
 * 4.2 GB. Bits at and beyond n are 0 in both bitmaps. This is the form the
 * GPU backend uploads (src/prove/wcompact.h reads it), so a witness
 * compacted by a worker thread costs the GPU's host thread nothing, and a
 * queue of ready witnesses holds MBs, not GBs.
 *
 * Owned by whoever called cuzk_wc_init (cuzk_wc_free); vals grows by
 * realloc when a fill needs more room (a caller whose vals must not move
 * sets cap_vals >= n). */
typedef struct {
    size_t n;         /* values; n < 2^32 */
    size_t n_other;   /* values neither 0 nor 1: vals[0..n_other) */
    uint64_t *bits;   /* 2 ceil(n / 64) words: is_bit, then bit_val */
    uint32_t *off;    /* ceil(n / 64) */
    cuzk_fr *vals;    /* cap_vals allocated */
    size_t cap_vals;
} cuzk_witness_compact;

/* An empty compact witness for n values: bitmaps and offsets allocated,
 * no values (filled by cuzk_wc_from_dense or cuzk_wc_from_cs).
 * CUZK_ERR_INVALID_ARGUMENT for n >= 2^32, CUZK_ERR_NO_MEMORY. */
cuzk_status cuzk_wc_init(cuzk_witness_compact *wc, size_t n);
void cuzk_wc_free(cuzk_witness_compact *wc); /* NULL and zeroed are fine */
/* Bytes wc holds (bitmaps, offsets, cap_vals values). */
uint64_t cuzk_wc_bytes(const cuzk_witness_compact *wc);
/* Bytes a compact witness of n values with n_other other values holds. */
uint64_t cuzk_wc_bytes_for(size_t n, size_t n_other);

/* wc (made for n values) := w[0..n), on nthreads threads (0 = every core).
 * CUZK_ERR_INVALID_ARGUMENT if wc is not for n values, CUZK_ERR_NO_MEMORY
 * if vals cannot grow (wc then holds no witness: n_other 0 and bitmaps
 * undefined). */
cuzk_status cuzk_wc_from_dense(cuzk_witness_compact *wc, const cuzk_fr *w, size_t n,
                               unsigned nthreads);
/* wc := the witness of cs (a witness-mode cs after its fill; wire order as
 * cuzk_cs_witness writes it) without the dense vector: bits come from the
 * cs's bitmap, and only its field values and inputs are looked at. The
 * same bytes as cuzk_wc_from_dense of cuzk_cs_witness's vector. Errors as
 * cuzk_wc_from_dense's (wc must be for n_inputs + n_aux values). */
cuzk_status cuzk_wc_from_cs(cuzk_witness_compact *wc, const cuzk_cs *cs, unsigned nthreads);
/* w[0..n_w) := the dense witness (n_w must be wc->n, else
 * CUZK_ERR_INVALID_ARGUMENT). */
cuzk_status cuzk_wc_expand(const cuzk_witness_compact *wc, cuzk_fr *w, size_t n_w,
                           unsigned nthreads);
/* 1 when wc looks filled: its counts agree with its last word and its
 * values are there (a cheap check, not a proof: an unfilled or damaged wc
 * gives 0). */
int cuzk_wc_filled(const cuzk_witness_compact *wc);
/* *out := value i (< wc->n) of a filled wc. */
void cuzk_wc_value(const cuzk_witness_compact *wc, size_t i, cuzk_fr *out);

/* ----------------------------------------------------------- backends -- */

/* Rows computed by the caller (cuzk_pce_eval from a compiled PCE, or a GPU):
 * a[j] = <A_j, w>, b[j] = <B_j, w>, c[j] = <C_j, w> for j < n_rows, the
 * circuit's constraint rows in the key's order. c may be NULL: then
 * c = a o b row by row, as for a key without C. has_input_rows = 0: the
 * rows end before the input rows, which the prover appends (a = w_i for
 * each input i, ONE included; b = c = 0), as the key's matrices lay them
 * out; 1: they are included (a PCE compiled from a key's matrices). The
 * arrays are only read, unless in_place = 1: then a, b and c (all three
 * given) each hold 2^pk->log_domain elements and the prover works in them
 * (no copy; see CUZK_WS_CALLER_ROWS); their contents are undefined
 * afterwards. */
typedef struct {
    cuzk_fr *a, *b, *c;
    size_t n_rows;
    int has_input_rows;
    int in_place;
} cuzk_groth16_rows;

/* What a backend's stages see of the proof in progress. Checked by
 * cuzk_prove before any stage runs: w has pk->n_vars values with w[0] = 1;
 * at most one of pce and rows, each matching the key; without either the
 * key has matrices. */
typedef struct {
    const cuzk_groth16_pk *pk;
    const cuzk_fr *w;
    const cuzk_pce *pce;           /* rows from this PCE, or NULL */
    const cuzk_groth16_rows *rows; /* rows from the caller, or NULL */
    cuzk_fr r, s;                  /* the blinding scalars (msm_c uses r) */
    /* The witness in compact form when the job gave it so, else NULL. A
     * backend with CUZK_BACKEND_COMPACT reads it and then w is NULL; for
     * any other, w is its expansion. */
    const cuzk_witness_compact *wc;
} cuzk_stage_in;

/* The stages of a proof on one kind of hardware. Each stage runs on the
 * caller's thread (and may use nthreads of the config, or a device), reads
 * what the earlier stages left in the backend's workspace bws, and returns
 * CUZK_OK or an error status with err (CUZK_ERRMSG_LEN bytes) set. The
 * stages of one proof run in this order, one proof at a time per bws.
 * A backend must not allocate per proof in its stages beyond what its
 * workspace holds; whatever a stage starts it finishes (or owns in bws)
 * before it returns, so cuzk_prove may stop between any two stages.
 * The struct, its name and its functions must outlive every workspace
 * made with it (a static const object). */
typedef struct cuzk_prover_backend {
    const char *name; /* "cpu", "gpu", ...: what cuzk_config.backend names */
    /* Makes *bws for pk (borrowed: it outlives bws) and cfg (copied if
     * kept): every buffer a proof with pk needs. CUZK_ERR_NO_DEVICE /
     * CUZK_ERR_INVALID_ARGUMENT when the backend cannot prove with this
     * key here ("auto" then falls back to the CPU). */
    cuzk_status (*ws_create)(void **bws, const cuzk_groth16_pk *pk, const cuzk_config *cfg,
                             char *err);
    void (*ws_destroy)(void *bws); /* NULL is fine */
    /* Bytes bws holds (host and device together). */
    uint64_t (*ws_bytes)(const void *bws);
    /* a, b, c from in->rows, in->pce or the key's matrices. */
    cuzk_status (*eval_rows)(void *bws, const cuzk_stage_in *in, char *err);
    /* The H scalars, and w as MSM scalars. */
    cuzk_status (*h_poly)(void *bws, const cuzk_stage_in *in, char *err);
    /* *out = sum w_i A_i; sum over B's variables of w_i B2_i; and
     * sum_{private} w_i L_i + sum h_i H_i + r sum w_i B1_i (Jacobian). */
    cuzk_status (*msm_a)(void *bws, const cuzk_stage_in *in, cuzk_g1_jac *out, char *err);
    cuzk_status (*msm_b2)(void *bws, const cuzk_stage_in *in, cuzk_g2_jac *out, char *err);
    cuzk_status (*msm_c)(void *bws, const cuzk_stage_in *in, cuzk_g1_jac *out, char *err);
    unsigned flags; /* CUZK_BACKEND_* */
} cuzk_prover_backend;

/* Backend flag: its stages take a compact witness (cuzk_stage_in.wc) as it
 * is, so cuzk_prove does not expand one. */
#define CUZK_BACKEND_COMPACT 1u

#define CUZK_MAX_BACKENDS 8

/* Adds b to the registry (b must outlive every use: a static const). The
 * CPU backend is always there without registering. A name already taken,
 * a NULL function or a full registry: CUZK_ERR_INVALID_ARGUMENT.
 * Thread-safe. */
cuzk_status cuzk_backend_register(const cuzk_prover_backend *b);
/* The backend named name ("cpu" included), or NULL. Thread-safe. */
const cuzk_prover_backend *cuzk_backend_find(const char *name);
/* The built-in CPU backend. */
const cuzk_prover_backend *cuzk_backend_cpu(void);

/* ---------------------------------------------------------- workspace -- */

typedef struct cuzk_workspace cuzk_workspace;

/* Makes a workspace for proofs with pk on the backend cfg->backend names
 * (cfg NULL: cuzk_config_default). pk is borrowed: it must outlive the
 * workspace and not change. Allocates every per-proof buffer now: for the
 * CPU backend 3 x 32 bytes per domain point (a, b, c; none with
 * CUZK_WS_CALLER_ROWS), 32 bytes per variable (the witness as scalars) and
 * 64 per B variable, the NTT domain's tables, the public inputs, and the
 * MSM scratch (~264 bytes per point of the largest G1 MSM, L + H + B1, and
 * ~456 per B variable for G2: msm.h); a built-in circuit job adds its circuit and dense witness at the first such job.
 * The caller owns *ws (cuzk_workspace_destroy). Errors: an unknown backend
 * or a malformed key (CUZK_ERR_INVALID_ARGUMENT), CUZK_ERR_NO_MEMORY, or
 * the backend's status, with err set. One proof at a time per workspace;
 * distinct workspaces (of one key or several) prove at once. */
cuzk_status cuzk_workspace_create(cuzk_workspace **ws, const cuzk_groth16_pk *pk,
                                  const cuzk_config *cfg, char *err);
void cuzk_workspace_destroy(cuzk_workspace *ws); /* NULL is fine */
/* Bytes the workspace holds now (the backend's and its own). */
uint64_t cuzk_workspace_bytes(const cuzk_workspace *ws);
/* The backend it proves on ("cpu", ...). */
const char *cuzk_workspace_backend(const cuzk_workspace *ws);
/* "" or, for a workspace that backend "auto" put on the CPU because the
 * registered backends refused the key, the last refusal, led by the
 * backend's name ("gpu: the key does not fit in device memory: ...").
 * Owned by ws. */
const char *cuzk_workspace_note(const cuzk_workspace *ws);
/* The backend's own state of ws (what its ws_create made), for that
 * backend's test hooks only. */
void *cuzk_workspace_backend_state(cuzk_workspace *ws);

/* --------------------------------------------------------------- jobs -- */

/* A built-in circuit's partition (circuits.h): its witness is computed in
 * the workspace (the circuit is opened at the first such job and kept for
 * the next ones with the same id and size). */
typedef struct {
    const char *id;     /* "porep-32g", ... */
    unsigned log_size;  /* 0 = full size, else 10..27 */
    const char *inputs; /* an inputs JSON of inputs_len bytes, or NULL: the
                         * inputs derived from seed and partition */
    size_t inputs_len;
    uint64_t seed;
    unsigned partition;
} cuzk_circuit_job;

/* The witness of cj in cs, as cuzk_circuit_witness computes it (whose
 * contract for cs holds): from cj's inputs JSON, or from the inputs
 * derived from seed and partition (a small JSON allocated and freed
 * here). For tools that want a circuit's witness without proving. */
cuzk_status cuzk_circuit_job_witness(cuzk_circuit *ci, const cuzk_circuit_job *cj, cuzk_cs *cs,
                                     unsigned nthreads, char *err);

/* Whether pk can be a key of the built-in circuit ci (open at its size),
 * from what needs no witness: its public inputs (exact) and its domain
 * (against the constraint estimate). CUZK_ERR_INVALID_ARGUMENT with a
 * message naming the counts when not; the variables are only known from a
 * witness (cuzk_prove checks them after it). Cheap: call it before
 * computing a witness. */
cuzk_status cuzk_circuit_key_check(const cuzk_groth16_pk *pk, const cuzk_circuit *ci, char *err);

/* An insecure key (groth16.h's setup: FOR TESTS AND BENCHMARKS) for the
 * built-in circuit id at log_size (0 = full size): one partition recorded,
 * then cuzk_groth16_setup with snarkjs roots, the toxic waste derived from
 * *seed (NULL: the OS CSPRNG), on every core. The same id, size and seed
 * give the same key. pk is the caller's (cuzk_groth16_pk_free). */
cuzk_status cuzk_circuit_setup(cuzk_groth16_pk *pk, const char *id, unsigned log_size,
                               const uint64_t *seed, char *err);

typedef enum {
    CUZK_WITNESS_DENSE = 0,  /* w[0..n_w), Montgomery form, w[0] = 1 */
    CUZK_WITNESS_CIRCUIT = 1, /* computed from circuit */
    CUZK_WITNESS_COMPACT = 2  /* *wc */
} cuzk_witness_kind;

/* The progress and cancel hook: called on cuzk_prove's thread before each
 * stage it runs, with the stage about to start. Return 0 to go on, nonzero
 * to stop: cuzk_prove then returns CUZK_ERR_CANCELED at once (within the
 * stage that was running when the caller decided), having freed nothing it
 * does not own; the workspace stays usable. */
typedef int (*cuzk_prove_progress_fn)(void *ctx, cuzk_prove_stage next);

/* One proof. Every pointer is borrowed for the call only. */
typedef struct {
    cuzk_witness_kind witness;
    const cuzk_fr *w; /* DENSE */
    size_t n_w;
    cuzk_circuit_job circuit; /* CIRCUIT */
    const cuzk_witness_compact *wc; /* COMPACT: n = the key's variables */
    /* Optional: check the witness against this R1CS constraint by
     * constraint before proving (a clearer error than the self-check's). */
    const cuzk_r1cs *r1cs;
    /* Where the rows come from: the key's matrices (both NULL), the
     * circuit's compiled PCE (its variables and inputs must be the key's),
     * or rows the caller evaluated. At most one. */
    const cuzk_pce *pce;
    const cuzk_groth16_rows *rows;
    cuzk_prove_progress_fn progress; /* may be NULL */
    void *progress_ctx;
    /* Tests only: blinding scalars r and s instead of fresh ones from the
     * OS CSPRNG (both or neither). A proof with a known r, s reveals the
     * witness: never use outside tests. */
    const cuzk_fr *fixed_r, *fixed_s;
} cuzk_prove_job;

/* Which input a failure is about, so a caller can name the right file. */
typedef enum {
    CUZK_INPUT_NONE = 0, /* not an input's fault (memory, device, canceled) */
    CUZK_INPUT_KEY,      /* the key (malformed, or another circuit's) */
    CUZK_INPUT_WITNESS,  /* the witness or the circuit job's inputs */
    CUZK_INPUT_R1CS,     /* the witness fails job->r1cs */
    CUZK_INPUT_PCE,      /* the PCE does not fit the key and witness */
    CUZK_INPUT_ROWS      /* job->rows does not fit the key */
} cuzk_prove_input;

typedef struct {
    cuzk_proof proof;       /* zero unless CUZK_OK */
    const cuzk_fr *pub;     /* the n_public public inputs (ONE excluded): a
                             * view into the workspace, valid until its next
                             * cuzk_prove or its destruction */
    uint32_t n_public;
    cuzk_prove_timings t;
    cuzk_prove_stage stage;    /* the stage that failed (DONE on success) */
    cuzk_prove_input bad_input;/* on failure, whose fault */
} cuzk_prove_result;

/* Proves job with the workspace's key on its backend, fills *res and
 * returns CUZK_OK, or an error with err (CUZK_ERRMSG_LEN bytes, may be
 * NULL) set and res->stage / res->bad_input saying where: the witness's
 * errors (the circuits layer's statuses; CUZK_ERR_UNSATISFIED for a wrong
 * length, w[0] != 1, a failed r1cs check or a failed self-check on the
 * CPU backend; CUZK_ERR_PROOF_INVALID for a failed self-check on another:
 * a wrong witness or a device fault, worth another attempt on the CPU),
 * CUZK_ERR_INVALID_ARGUMENT for a job or key that do not fit together (a
 * circuit job whose counts are not the key's, "another circuit or size"),
 * CUZK_ERR_IO (no OS randomness), CUZK_ERR_CANCELED, or a backend status. */
cuzk_status cuzk_prove(cuzk_workspace *ws, const cuzk_prove_job *job, cuzk_prove_result *res,
                       char *err);

/* ------------------------------------------------- one-shot wrappers -- */

/* Prover flags. */
#define CUZK_PROVE_NO_SELF_CHECK 1u /* skip verifying the proof before returning */

/* One proof with a workspace made and destroyed around it (the CPU
 * backend on nthreads threads, 0 = all cores): for tools and tests that
 * prove once. Witness w (n_w = pk->n_vars values, Montgomery form,
 * w[0] = 1). Unless flags say otherwise the proof is verified against
 * pk->vk before it is returned: a witness that does not satisfy the
 * circuit gives CUZK_ERR_UNSATISFIED, never a bad proof. t may be NULL. A
 * key without matrices is CUZK_ERR_INVALID_ARGUMENT ("no matrices"). */
cuzk_status cuzk_groth16_prove(cuzk_proof *proof, const cuzk_groth16_pk *pk, const cuzk_fr *w,
                               size_t n_w, unsigned nthreads, unsigned flags,
                               cuzk_prove_timings *t, char *err);
/* The same with the rows given (cuzk_groth16_rows), so a key without
 * matrices (a .cuzk file written with CUZK_KEYFILE_NO_MATRICES) proves with
 * the circuit's PCE. The rows (input rows included) must number
 * pk->m.n_rows when the key has matrices, and fit the domain: else
 * CUZK_ERR_INVALID_ARGUMENT (also for rows NULL). Rows that do not belong
 * to w and the key give CUZK_ERR_UNSATISFIED from the self-check. In place
 * rows make a workspace without a, b, c. */
cuzk_status cuzk_groth16_prove_rows(cuzk_proof *proof, const cuzk_groth16_pk *pk,
                                    const cuzk_fr *w, size_t n_w, const cuzk_groth16_rows *rows,
                                    unsigned nthreads, unsigned flags, cuzk_prove_timings *t,
                                    char *err);

#endif /* CUZK_PROVE_H */
