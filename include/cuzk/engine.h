/* cuzk — the proving engine: a long-lived object that keeps keys resident
 * and turns a stream of proof requests into checked proofs.
 *
 * The layer above prove.h (workspaces, backends, the stages of a proof),
 * pool.h (the one thread pool) and store.h (the durable job store). The
 * daemon (`cuzk serve`) is a thin HTTP front on this API; tests drive it
 * directly on the CPU backend.
 *
 * Objects:
 *   circuit   a proving key the engine proves with, registered once under a
 *             name: a built-in circuit (circuits.h) at a size, with a key
 *             made by an insecure setup or loaded from a .cuzk file (and an
 *             optional PCE), or a user's snarkjs .zkey / .cuzk key;
 *             LOADING while its key loads, then READY (or FAILED)
 *   job       one proof request: a circuit, a priority, a witness source;
 *             split into the circuit's partitions (built-ins: circuits.h's
 *             partition count; user keys: 1), the unit of work
 *   device    a set of prover workers with their own workspaces; on the
 *             CPU backend devices are simulated (n_devices of them), a
 *             registered "gpu" backend gets real ones
 *
 * Pipeline (the threads the engine owns; every CPU-heavy call inside runs
 * on the one pool of pool.h, so the cores are never oversubscribed):
 *
 *   submit -> batch collector -> run queue (priority, oldest job,
 *     partition) -> witness workers (bounded) -> ready queue (bounded:
 *     back-pressure) -> prover workers (per device) -> finalizer (assemble,
 *     self-verify, store, answer waiters)
 *
 *   threads = witness_workers + critical_witness + n_devices * provers_per_device
 *             + 1 (finalizer) + 1 (batch collector and timers)
 *             + 1 (store thread, with a store)
 *   plus cuzk_pool_size() pool workers shared with the rest of the process.
 *
 * Scheduling: CRITICAL > HIGH > NORMAL > LOW; within a priority the oldest
 * job first and a job's partitions in order, so one job finishes before
 * the next starts to interleave. A CRITICAL job bypasses the collector and
 * overtakes everything queued, not a partition already being proved; its
 * witness runs on a worker of its own (critical_witness), not after the
 * stream's witnesses.
 * With several devices a prover worker takes, within the priority of the
 * first ready partition, the first one whose key already has a workspace
 * on its device, else that first one: keys stay where they are resident
 * instead of being made resident on every device in turn, and no device
 * idles while work is ready.
 *
 * Batch collector: jobs of one circuit and priority are held until
 * max_batch_size of them are there, max_batch_wait_ms passed since the
 * first, or a job of higher priority arrives; then they enter the run queue
 * together (max_batch_size <= 1 or max_batch_wait_ms 0: no holding).
 *
 * Memory budget: three pools, host (witness buffers, keys in host memory),
 * pinned (keys in the PINNED tier) and device (workspaces: on the CPU
 * backend a simulated device's workspaces live in host memory but are
 * charged to its device pool, so the accounting is the same as on a GPU).
 * Every buffer is reserved before it is allocated; a partition whose
 * reservation does not fit waits (after the key manager evicted what it
 * could) instead of running out of memory. A reservation larger than a
 * whole pool fails the job with CUZK_ERR_NO_MEMORY. Workspaces are made
 * once per (circuit, device) and reused; witness buffers are pooled per
 * circuit; nothing big is freed per proof. Witnesses are compact
 * (cuzk_witness_compact: bitmaps of the 0s and 1s, the other values): a
 * fill reserves the dense size (32 bytes a variable) while it runs and
 * keeps only what it used, so ready partitions hold MBs, not GBs.
 *
 * Key tiers (cuzk_key_tier): RESIDENT (workspaces exist on some device),
 * PINNED (the key in host memory), MAPPED (a .cuzk file mapped), COLD
 * (registered, nothing loaded). A key is promoted on demand and by
 * cuzk_engine_preload; a key with no partition in flight (refcount 0) is
 * evicted least-recently-used first when a reservation needs room, or by
 * cuzk_engine_evict. A key made by setup has no file: it never goes below
 * PINNED.
 *
 * Failures: a backend error, an out-of-memory or a proof that fails
 * self-verification makes the partition retry (on another device when
 * there is one) up to max_attempts attempts in all; then the job fails
 * with the reason. When the attempt that failed ran on another backend
 * than the CPU (a GPU) and one attempt remains, that last one runs on the
 * CPU backend (on the CPU fallback lane, a prover worker started at the
 * first such attempt, so that the device's lanes go on proving; a device's
 * worker runs it if that thread could not start; on a CPU workspace made
 * once per key, kept, and charged to the host pool; the result's backend
 * says "cpu"). Bad input (an unsatisfied witness, malformed inputs) fails
 * the job at once. A failing job never stops the engine.
 *
 * Cancellation: a queued job is removed; a running one stops at the next
 * stage boundary (prove.h's progress callback) and frees its
 * reservations; the job ends CANCELED.
 *
 * Store: with a cuzk_store (store.h) every accepted job is committed
 * before submit returns (the request serialized as JSON: {"circuit",
 * "priority", "inputs"} or {"circuit", "priority", "wtns": base64}),
 * leased while it runs, and completed with its result JSON
 * (cuzk_engine_result_json's text) or failed. Leases and ends go through
 * one store thread that commits what has gathered in one transaction
 * (cuzk_store.batch): the pipeline never waits for the disk, and a job's
 * end is seen by cuzk_engine_wait (and the API) only once committed. cuzk_engine_start requeues
 * every lease (one engine per store: at start every lease left belongs to
 * a dead process; requeue_expired is called with INT64_MAX) and re-queues
 * every QUEUED job, so nothing accepted is lost and a DONE job is never
 * proved again; a request_id already in the store returns that job
 * (until the store's purge deletes the finished job: the window is the
 * purge's age). Without a store, jobs and results live in memory
 * (request_id dedup in memory too, while the job is among the
 * results_keep finished jobs kept).
 *
 * Thread safety: every function may be called from any thread, except
 * cuzk_engine_destroy (no other call in progress or after).
 *
 * Errors: cuzk_status, and err (CUZK_ERRMSG_LEN bytes, may be NULL) gets
 * one line prefixed "engine: ".
 */
#ifndef CUZK_ENGINE_H
#define CUZK_ENGINE_H

#include <stddef.h>
#include <stdint.h>

#include <cuzk/formats.h>
#include <cuzk/prove.h>
#include <cuzk/status.h>
#include <cuzk/store.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The longest circuit name and request_id, terminator included. */
#define CUZK_ENGINE_ID_LEN CUZK_STORE_ID_LEN

/* ------------------------------------------------------------- enums -- */

typedef enum {
    CUZK_PRIO_LOW = 0,
    CUZK_PRIO_NORMAL = 1,
    CUZK_PRIO_HIGH = 2,
    CUZK_PRIO_CRITICAL = 3
} cuzk_priority;

/* "low", "normal", "high", "critical" (static; "?" out of range). */
const char *cuzk_priority_name(cuzk_priority p);
/* Parses those names (exact, lower case): CUZK_ERR_INVALID_ARGUMENT else. */
cuzk_status cuzk_priority_parse(const char *s, cuzk_priority *p);

typedef enum {
    CUZK_JOB_QUEUED = 0,  /* accepted, no partition started */
    CUZK_JOB_RUNNING = 1, /* some partition in the pipeline */
    CUZK_JOB_DONE = 2,
    CUZK_JOB_FAILED = 3,
    CUZK_JOB_CANCELED = 4
} cuzk_job_state;

/* "queued", "running", "done", "failed", "canceled" (static). */
const char *cuzk_job_state_name(cuzk_job_state s);

typedef enum {
    CUZK_TIER_COLD = 0,    /* registered; nothing loaded */
    CUZK_TIER_MAPPED = 1,  /* the .cuzk key file mapped (page cache) */
    CUZK_TIER_PINNED = 2,  /* the key in host memory (pinned on a GPU) */
    CUZK_TIER_RESIDENT = 3 /* workspaces made on some device */
} cuzk_key_tier;

/* "cold", "mapped", "pinned", "resident" (static). */
const char *cuzk_key_tier_name(cuzk_key_tier t);

/* ------------------------------------------------------------ config -- */

/* The test hook's answer for one proving attempt of one partition. */
typedef enum {
    CUZK_FAULT_NONE = 0,
    CUZK_FAULT_BAD_PROOF = 1, /* prove, then corrupt the proof (self-verify
                               * must catch it: the partition is retried) */
    CUZK_FAULT_ERROR = 2,     /* the attempt fails as a backend error
                               * (CUZK_ERR_CUDA) without proving */
    CUZK_FAULT_NO_MEMORY = 3  /* the attempt fails with CUZK_ERR_NO_MEMORY */
} cuzk_fault;

/* Tests only: called by a prover worker before each attempt (attempt 1 is
 * the first) of partition `partition` of job `job` on device `device`. */
typedef cuzk_fault (*cuzk_fault_fn)(void *ctx, uint64_t job, unsigned partition,
                                    unsigned attempt, unsigned device);

typedef struct {
    /* Backend: "auto" (a registered non-CPU backend that accepts the key,
     * e.g. "gpu", else "cpu"), "cpu", or a registered name. NULL = "auto".
     * Borrowed for cuzk_engine_create only. */
    const char *backend;
    unsigned n_devices;          /* devices (CPU backend: simulated); 0 = 1 */
    unsigned provers_per_device; /* prover workers per device; 0 = 1 */
    unsigned witness_workers;    /* 0 = 1 */
    unsigned ready_capacity;     /* ready-queue slots; 0 = 2 per device */
    unsigned prove_threads;      /* nthreads of each proof (ranges the pool
                                  * cuts the work into); 0 = pool size */
    /* The witness yields to the provers (the host work that feeds them):
     * while any prover is busy, a witness is cut into witness_threads
     * ranges (1: it runs on its worker thread alone, leaving the pool to
     * the provers; 0 = prove_threads, no yielding), and witness workers
     * run at nice witness_nice (0..19, Linux per-thread priority; 0 = as
     * the process). Besides, a witness worker takes a partition only while
     * the ready queue has room (ready_capacity): the witness never runs
     * ahead of the provers. Defaults 0, 0: docs/perf.md ("witness versus
     * prover") has the measurement. */
    unsigned witness_threads;
    int witness_nice;
    /* One more witness worker that takes CRITICAL partitions only, at nice
     * 0 and past the ready queue's bound, so a CRITICAL job's witness does
     * not wait for a stream's: on the H200 that wait was 0.4-1.1 s of a
     * 1.8-2.5 s answer (docs/perf.md, "The benchmark protocol at full
     * size"). An idle thread otherwise. Default 1. */
    int critical_witness;
    /* The GPU backend's FP64 shares (cuzk_config.gpu_ntt_fp64 and
     * gpu_msm_fp64 of its workspaces: 0..4, 0 = integer only). */
    unsigned gpu_ntt_fp64, gpu_msm_fp64;
    /* The NTTs' twiddle table (cuzk_config.gpu_ntt_full_twiddles of its
     * workspaces: 0 two small tables, 1 full, 2 positional; plus 4 the coset
     * table too; plus 8 (with 1) as Shoup pairs where the pool has room: 13,
     * the default). */
    unsigned gpu_ntt_full_twiddles;
    /* The device pool of each GPU workspace (cuzk_config.gpu_pool_bytes):
     * 0, the context's default (the free memory less a sixteenth); set it
     * to leave room for a second circuit's workspace on the same device. */
    uint64_t gpu_pool_bytes;
    unsigned max_batch_size;     /* 0 or 1: no batching */
    unsigned max_batch_wait_ms;  /* 0: no holding */
    int self_verify;             /* verify every proof before returning it */
    unsigned max_attempts;       /* attempts per partition; 0 = 3 */
    /* Budget in bytes per pool; 0 = unlimited. device is per device. */
    uint64_t budget_host, budget_pinned, budget_device;
    /* Borrowed: must outlive the engine. NULL = in memory only. */
    cuzk_store *store;
    uint32_t lease_ms;           /* store lease per job; 0 = 10 minutes */
    size_t timeline_capacity;    /* events kept; 0 = 65536 */
    size_t results_keep;         /* finished jobs kept in memory (oldest
                                  * forgotten first; with a store their
                                  * results stay there); 0 = 4096 */
    cuzk_fault_fn fault;         /* tests only; NULL in production */
    void *fault_ctx;
    /* NULL, or called with one line (no newline) for what an operator
     * should see: a workspace made (its backend, bytes, seconds) or refused,
     * the CPU taking a key that "auto" could not put on a device, a failed
     * attempt and its retry, each job's end. Called with the engine's lock
     * held: it must return quickly and not call the engine. */
    void (*log)(void *ctx, const char *line);
    void *log_ctx;
} cuzk_engine_config;

/* backend "auto", 1 device, 1 prover per device, 1 witness worker, ready
 * capacity 0 (2 per device), prove_threads 0, max_batch_size 8,
 * max_batch_wait_ms 0, self_verify 1, max_attempts 3, no budget limits,
 * no store, lease 10 min, timeline 65536, results 4096, no fault hook,
 * no log. */
void cuzk_engine_config_default(cuzk_engine_config *cfg);

/* The rules on cfg's values that cuzk_engine_create applies (ranges,
 * combinations), without making anything: CUZK_ERR_INVALID_ARGUMENT with
 * err naming the value. Whether the backend is registered is left to
 * cuzk_engine_create (registration happens at run time). */
cuzk_status cuzk_engine_config_check(const cuzk_engine_config *cfg, char *err);

typedef struct cuzk_engine cuzk_engine;

/* Makes an engine (no thread runs yet: register circuits, then start).
 * cfg is copied. The caller owns *e (cuzk_engine_destroy). Errors: a value
 * cuzk_engine_config_check refuses or an unknown backend
 * (CUZK_ERR_INVALID_ARGUMENT), CUZK_ERR_NO_MEMORY. */
cuzk_status cuzk_engine_create(cuzk_engine **e, const cuzk_engine_config *cfg, char *err);

/* Starts the threads; with a store, requeues expired leases and re-queues
 * every QUEUED job of the store (their circuits must be registered by
 * now: a job naming an unknown circuit is failed in the store with that
 * reason). *requeued (may be NULL) = jobs taken from the store. */
cuzk_status cuzk_engine_start(cuzk_engine *e, size_t *requeued, char *err);

/* Stops accepting (submit: CUZK_ERR_CANCELED "shutting down"), lets the
 * partitions being proved finish (drain = 1: also every queued job), and
 * joins the threads. Jobs still queued stay QUEUED in the store (a
 * restarted engine proves them); without a store they end CANCELED.
 * Idempotent. */
void cuzk_engine_stop(cuzk_engine *e, int drain);

/* Stops (no drain) and frees everything; NULL is fine. The store is the
 * caller's. */
void cuzk_engine_destroy(cuzk_engine *e);

/* ---------------------------------------------------------- circuits -- */

/* One circuit to register. Exactly one of builtin and key_path names the
 * key, except that a built-in may come with a key_path to its .cuzk key. */
typedef struct {
    /* The name jobs use; NULL/"" = the built-in id, or the key file's
     * name without directory and extension ("mult" for dir/mult.zkey).
     * [A-Za-z0-9._@-]+, shorter than CUZK_ENGINE_ID_LEN. */
    const char *name;
    const char *builtin;   /* a circuits.h id ("porep-32g"), or NULL */
    unsigned log_size;     /* built-in: 10..27, 0 = full size */
    /* A .zkey (snarkjs) or .cuzk key (by content, not by name); for a
     * built-in, optional: its .cuzk key (else a setup is run now). */
    const char *key_path;
    const char *pce_path;  /* built-in: optional PCE of the circuit */
    /* Built-in without key_path: the setup's seed (reproducible, tests);
     * NULL = the OS CSPRNG. Either way the key is INSECURE. */
    const uint64_t *setup_seed;
    int preload;           /* make it RESIDENT on every device now */
} cuzk_circuit_spec;

/* A circuit's registration: its key is being loaded (or made by setup),
 * it is ready to prove with, or the load failed (the reason kept). */
typedef enum {
    CUZK_CIRCUIT_READY = 0,
    CUZK_CIRCUIT_LOADING = 1,
    CUZK_CIRCUIT_FAILED = 2
} cuzk_circuit_state;

/* "ready", "loading", "failed" (static). */
const char *cuzk_circuit_state_name(cuzk_circuit_state s);

/* What the engine knows of a circuit (a snapshot). While LOADING or
 * FAILED only name, state, error, builtin, log_size, key_path and
 * partitions are filled; the rest is 0 until the key is loaded. */
typedef struct {
    char name[CUZK_ENGINE_ID_LEN];
    cuzk_circuit_state state;
    char error[CUZK_ERRMSG_LEN]; /* FAILED: the load's message */
    char builtin[32];      /* "" for a user key */
    unsigned log_size;
    char key_path[512];    /* "" when made by setup */
    char label[64];        /* the key's label (setup: CUZK_SETUP_LABEL) */
    int insecure;          /* made by (or labelled as from) an insecure setup */
    unsigned partitions;
    uint32_t n_vars, n_public;
    unsigned log_domain;
    cuzk_key_tier tier;
    unsigned refcount;     /* partitions in flight with this key */
    uint64_t key_bytes;    /* the key's arrays */
    uint64_t ws_bytes;     /* workspaces made, over every device */
    unsigned resident_devices; /* bit i: device i has a workspace */
    char backend[16];      /* the backend of its last workspace ("gpu", "cpu"
                              when "auto" put it there); "" before one */
    uint64_t proofs;       /* partitions proved with it */
} cuzk_circuit_desc;

/* Registers a circuit: loads or makes its key (setup runs here, on the
 * pool: seconds at log size 16, well under one at 10-12) and checks it.
 * name_out (CUZK_ENGINE_ID_LEN bytes, may be NULL) receives the name.
 * A name already registered: CUZK_ERR_INVALID_ARGUMENT, unless its load
 * failed: a registration of a FAILED name retries it. Callable before
 * and after start. It is cuzk_engine_register_begin, then
 * cuzk_engine_register_load; a load that fails leaves the circuit FAILED
 * (listed with its reason). */
cuzk_status cuzk_engine_register(cuzk_engine *e, const cuzk_circuit_spec *spec, char *name_out,
                                 char *err);

/* The asynchronous registration, in two calls.
 *
 * register_begin does every check that needs no load (the name, a
 * built-in id and size, a key file that opens and starts with the magic
 * of a .zkey or a .cuzk key, a PCE file that opens) and lists the circuit
 * as LOADING at once; it returns in microseconds, whatever the key's size.
 * A key file that is not a regular file (a pipe) is read once at the load
 * (a .zkey only; its format is told then) and kept in memory.
 * Jobs submitted for a LOADING circuit are accepted (and stored) and wait
 * for the load: they run when it is READY, or fail with the load's reason.
 * A name already registered: with existing non-NULL and the same key
 * source (built-in and size, key path, PCE path), *existing = 1 and
 * CUZK_OK (nothing is loaded twice; the circuit stays as it is); else
 * CUZK_ERR_INVALID_ARGUMENT. A FAILED name is retried with the new spec.
 *
 * register_load then loads (on the caller's thread: the slow part) and
 * makes the circuit READY, or FAILED with the error it returns (kept in
 * the circuit's desc); then the spec's preload. One load per circuit: a
 * second call while it runs, or on a circuit not LOADING, is
 * CUZK_ERR_INVALID_ARGUMENT. The engine must outlive a load in progress
 * (the caller joins its loading thread before cuzk_engine_destroy). */
cuzk_status cuzk_engine_register_begin(cuzk_engine *e, const cuzk_circuit_spec *spec,
                                       char *name_out, int *existing, char *err);
cuzk_status cuzk_engine_register_load(cuzk_engine *e, const char *name, char *err);

/* Waits until the circuit is no longer LOADING or timeout_ms passed
 * (0: no wait), then fills *out (may be NULL). Unknown name:
 * CUZK_ERR_INVALID_ARGUMENT. */
cuzk_status cuzk_engine_circuit_wait(cuzk_engine *e, const char *name, int64_t timeout_ms,
                                     cuzk_circuit_desc *out, char *err);

/* Every registered circuit, in registration order: *out malloc'd (free()),
 * *n entries. CUZK_ERR_NO_MEMORY. */
cuzk_status cuzk_engine_circuits(cuzk_engine *e, cuzk_circuit_desc **out, size_t *n);
/* One circuit by name (CUZK_ERR_INVALID_ARGUMENT unknown). */
cuzk_status cuzk_engine_circuit(cuzk_engine *e, const char *name, cuzk_circuit_desc *out,
                                char *err);
/* The circuit's verifying key as snarkjs verification_key.json: *json
 * malloc'd (free()). Not READY: CUZK_ERR_INVALID_ARGUMENT. */
cuzk_status cuzk_engine_circuit_vk_json(cuzk_engine *e, const char *name, char **json,
                                        char *err);

/* Promotes the circuit's key to RESIDENT on every device (waits for the
 * budget). Not READY: CUZK_ERR_INVALID_ARGUMENT. */
cuzk_status cuzk_engine_preload(cuzk_engine *e, const char *name, char *err);
/* Drops its workspaces and, for a file key, the key (down to COLD; a setup
 * key stays PINNED). A key with partitions in flight:
 * CUZK_ERR_INVALID_ARGUMENT ("in use"). */
cuzk_status cuzk_engine_evict(cuzk_engine *e, const char *name, char *err);

/* -------------------------------------------------------------- jobs -- */

/* A proof request; every pointer is borrowed for the call only. The
 * witness source is one of:
 *   inputs    built-in circuits: a JSON array of one inputs object
 *             (circuits.h) per partition, in partition order; or one object
 *             holding only {"seed": N}: every partition's inputs derive
 *             from seed N; or, for a 1-partition circuit, one inputs object
 *   wtns      user keys: a .wtns file's bytes
 *   wtns_path user keys: a .wtns file, read when the job is accepted (so a
 *             later change of the file does not change the job) */
typedef struct {
    const char *circuit;
    cuzk_priority priority;
    const char *request_id; /* idempotency key; NULL or "" = none */
    const char *inputs;
    size_t inputs_len;      /* 0 with inputs != NULL: strlen */
    const uint8_t *wtns;
    size_t wtns_len;
    const char *wtns_path;
} cuzk_job_request;

/* Accepts a job: checks it (unknown circuit, a FAILED one, a wrong
 * witness source, bad JSON, a .wtns that is not the key's length:
 * CUZK_ERR_INVALID_ARGUMENT and friends, nothing accepted), commits it to
 * the store when there is one, and queues it (for a LOADING circuit: it
 * waits for the key; the .wtns length is checked at its witness then). *id = the job's id (from 1). When request_id names
 * a job already accepted, nothing is queued: *id is that job and
 * *existing (may be NULL) = 1. After stop: CUZK_ERR_CANCELED. */
cuzk_status cuzk_engine_submit(cuzk_engine *e, const cuzk_job_request *rq, uint64_t *id,
                               int *existing, char *err);

/* A job as it stands (a snapshot). */
typedef struct {
    uint64_t id;
    char circuit[CUZK_ENGINE_ID_LEN];
    char request_id[CUZK_ENGINE_ID_LEN];
    cuzk_priority priority;
    cuzk_job_state state;
    unsigned partitions, partitions_done;
    unsigned attempts;        /* proving attempts over all partitions */
    size_t queue_position;    /* QUEUED: jobs ahead of it; else 0 */
    cuzk_status status;       /* FAILED / CANCELED: why; else CUZK_OK */
    char error[CUZK_ERRMSG_LEN];
    double queued_ms;         /* accepted to first partition started */
    double total_ms;          /* accepted to finished (0 until then) */
    char *result_json;        /* DONE: cuzk_engine_result_json's text,
                               * malloc'd (cuzk_job_info_free); else NULL */
    size_t result_len;
} cuzk_job_info;

void cuzk_job_info_free(cuzk_job_info *info); /* frees result_json */

/* Fills *info for job id (result_json included when DONE). Unknown id
 * (never accepted, or forgotten and not in the store):
 * CUZK_ERR_INVALID_ARGUMENT. */
cuzk_status cuzk_engine_job(cuzk_engine *e, uint64_t id, cuzk_job_info *info, char *err);

/* Waits until job id is finished (DONE, FAILED, CANCELED) or timeout_ms
 * passed (< 0: no limit; 0: no wait), then fills *info as
 * cuzk_engine_job. Returns CUZK_OK either way: info->state tells. */
cuzk_status cuzk_engine_wait(cuzk_engine *e, uint64_t id, int64_t timeout_ms,
                             cuzk_job_info *info, char *err);

/* Cancels job id: a queued job ends CANCELED now (with a store: returns
 * once that is committed); a running one at its
 * partitions' next stage boundary (cuzk_engine_wait sees it). A finished
 * job is left as it is. Unknown id: CUZK_ERR_INVALID_ARGUMENT. */
cuzk_status cuzk_engine_cancel(cuzk_engine *e, uint64_t id, char *err);

/* ----------------------------------------------------------- results -- */

typedef struct {
    cuzk_proof proof;
    cuzk_fr *pub;            /* n_public values (ONE excluded), owned */
    uint32_t n_public;
    cuzk_prove_timings t;    /* of the attempt that succeeded */
    double witness_ms;       /* the witness worker's time */
    unsigned device;         /* where it was proved */
    unsigned attempts;
    char backend[16];        /* "cpu", "gpu" */
} cuzk_partition_result;

typedef struct {
    uint64_t id;
    char circuit[CUZK_ENGINE_ID_LEN];
    unsigned n;              /* partitions */
    cuzk_partition_result *parts;
    double queued_ms, total_ms;
} cuzk_job_result;

void cuzk_job_result_free(cuzk_job_result *r); /* frees parts, pub; NULL ok */

/* The result of a DONE job still in memory: *out malloc'd, the caller
 * owns it (cuzk_job_result_free). A job not DONE or forgotten:
 * CUZK_ERR_INVALID_ARGUMENT (its JSON may still be in the store:
 * cuzk_engine_job). */
cuzk_status cuzk_engine_result(cuzk_engine *e, uint64_t id, cuzk_job_result **out, char *err);

/* The result as the JSON text the store keeps and the server returns
 * (*json malloc'd, NUL-terminated; free()):
 *
 *   1 partition:   {"circuit": NAME, "partitions": 1,
 *                   "proof": {snarkjs proof}, "public": ["..", ...],
 *                   "timings": {...}}
 *   n partitions:  the same with "proof": [{proof of partition 0}, ...]
 *                   and "public": [[publics of partition 0], ...]
 *
 *   "timings": {"queued_ms": x, "total_ms": x, "partitions":
 *               [{"device": d, "backend": "cpu", "attempts": a,
 *                 "witness_ms": x, "rows_ms": x, "h_ms": x,
 *                 "msm_a_ms": x, "msm_b2_ms": x, "msm_c_ms": x,
 *                 "assemble_ms": x, "verify_ms": x, "prove_ms": x}, ...]}
 *
 * so a client checks "partitions" (or the type of "proof"). */
cuzk_status cuzk_engine_result_json(const cuzk_job_result *r, char **json, size_t *len,
                                    char *err);

/* ---------------------------------------------------------- timeline -- */

typedef enum {
    CUZK_EV_QUEUED = 0,       /* a job's partitions entered the run queue */
    CUZK_EV_BATCH = 1,        /* the collector flushed a batch (value =
                               * jobs; reason in `stage`: 0 size, 1 timeout,
                               * 2 higher priority, 3 critical/no batching) */
    CUZK_EV_WITNESS_START = 2,
    CUZK_EV_WITNESS_END = 3,
    CUZK_EV_PROVE_START = 4,  /* value 1: the attempt runs on the CPU
                               * fallback lane, not on the device */
    CUZK_EV_STAGE = 5,        /* a prove stage ended: stage, ms */
    CUZK_EV_PROVE_END = 6,    /* ms = the prover's total */
    CUZK_EV_VERIFIED = 7,     /* status: CUZK_OK or PROOF_INVALID */
    CUZK_EV_RETRY = 8,        /* status: why; value 1: the next attempt
                               * is the CPU fallback */
    CUZK_EV_DONE = 9,         /* the job (partition = all) */
    CUZK_EV_FAILED = 10,
    CUZK_EV_CANCELED = 11,
    CUZK_EV_KEY = 12,         /* a key changed tier (value = new tier) */
    CUZK_EV_MEM = 13          /* memory, sampled after each witness_end and
                               * prove_end of a partition (job, partition
                               * name it): value = the host's resident set
                               * (/proc/self/statm, 0 where absent), and
                               * pinned_bytes, device_bytes (below) */
} cuzk_event_kind;

/* "queued", "batch", "witness_start", ... (static). */
const char *cuzk_event_kind_name(cuzk_event_kind k);

#define CUZK_EV_ALL_PARTITIONS 0xffffffffu

typedef struct {
    uint64_t seq;          /* from 1, consecutive: the cursor */
    int64_t t_us;          /* monotonic microseconds since engine create */
    cuzk_event_kind kind;
    uint64_t job;          /* 0 for key events */
    unsigned partition;    /* or CUZK_EV_ALL_PARTITIONS */
    unsigned device;       /* prove events */
    unsigned attempt;
    int stage;             /* CUZK_EV_STAGE: a cuzk_prove_stage */
    double ms;             /* a duration where the kind has one, whole us */
    uint64_t value;        /* kind-specific */
    cuzk_status status;
    char circuit[CUZK_ENGINE_ID_LEN];
    /* CUZK_EV_MEM only (0 otherwise): the budget's pinned pool reserved,
     * and the device pool reserved on the device with the most (`device`
     * names it), as cuzk_engine_status counts them. */
    uint64_t pinned_bytes, device_bytes;
} cuzk_event;

/* Copies up to max events with seq >= since (oldest first) into out and
 * returns how many; *next (may be NULL) = the cursor for the next call
 * (the seq after the last copied one, or the first still kept when since
 * is older than the ring: events lost to the ring are skipped). */
size_t cuzk_engine_timeline(cuzk_engine *e, uint64_t since, cuzk_event *out, size_t max,
                            uint64_t *next);

/* The one-line log form (no newline), e.g.
 *   "t=12.345678 seq=7 prove_end job=3 part=1 dev=0 try=1 ms=4.210 circuit=porep-32g"
 * then, after ms, by kind: " stage=NAME" (stage, cuzk_prove_stage_name,
 * which may hold spaces), " tier=NAME" (key), " jobs=N why=W" (batch),
 * " rss=N pinned=N device_bytes=N" (mem, bytes); " status=TEXT"
 * (cuzk_strerror) when not CUZK_OK; circuit last ("-" when none). Into
 * buf (len bytes; truncated, always terminated). Returns the length it
 * needed (as snprintf). */
int cuzk_event_format(const cuzk_event *ev, char *buf, size_t len);

/* ----------------------------------------------------- status, metrics -- */

typedef struct {
    unsigned index;
    char backend[16];         /* of its last workspace ("cpu", "gpu"); the
                                 configured name ("auto") before one */
    unsigned busy;            /* prover workers proving now */
    uint64_t reserved, budget;/* device pool bytes (budget 0 = unlimited) */
    uint64_t proofs, failures;
} cuzk_device_status;

/* One worker lane of the pipeline as it stands: a witness worker or a
 * prover worker, and the partition it holds. */
#define CUZK_LANE_SETUP (-1) /* stage: taking the key, a buffer or a
                              * workspace before the work starts */
typedef struct {
    int prover;               /* 0 witness worker, 1 prover worker */
    int cpu_fallback;         /* a prover: the CPU fallback lane, which
                               * proves the last attempt of partitions that
                               * failed on a device (started at the first);
                               * device: that partition's device, else 0 */
    unsigned device;          /* prover: its device; witness: 0 */
    unsigned slot;            /* its index among the witness workers, or
                               * among its device's prover workers */
    int critical;             /* the witness worker kept for CRITICAL jobs
                               * (critical_witness; the last witness slot) */
    uint64_t job;             /* 0: idle (the fields below are 0 too) */
    unsigned partition, attempt; /* attempt: prover only */
    int stage;                /* CUZK_LANE_SETUP, or the cuzk_prove_stage
                               * running (witness workers: WITNESS) */
    double busy_ms;           /* since it took the partition */
    char circuit[CUZK_ENGINE_ID_LEN];
} cuzk_lane_status;

/* The unfinished jobs of one priority, oldest first (at most
 * CUZK_STATUS_QUEUE_JOBS of them are listed; n counts them all). */
#define CUZK_STATUS_QUEUE_JOBS 16
typedef struct {
    size_t collecting;        /* jobs held by the batch collector */
    size_t queued, running;   /* jobs, collecting ones not counted */
    size_t partitions_queued; /* waiting for a witness worker */
    size_t n;                 /* unfinished jobs of this priority */
    struct {
        uint64_t id;
        cuzk_job_state state;
        int collecting;
        unsigned partitions, partitions_done;
    } jobs[CUZK_STATUS_QUEUE_JOBS];
} cuzk_prio_status;

typedef struct {
    double uptime_s;
    int running;              /* started and not stopped */
    unsigned n_devices;
    cuzk_device_status *devices;  /* n_devices, owned */
    size_t n_circuits;
    cuzk_circuit_desc *circuits;  /* owned */
    /* queues */
    size_t jobs_collecting;   /* held by the batch collector */
    size_t jobs_queued, jobs_running;
    size_t partitions_queued; /* waiting for a witness worker */
    size_t partitions_ready;  /* in the ready queue */
    size_t ready_capacity;
    /* budget: reserved now, limit (0 = unlimited), peak reserved */
    uint64_t host_reserved, host_budget, host_peak;
    uint64_t pinned_reserved, pinned_budget, pinned_peak;
    uint64_t device_reserved_peak; /* the highest of any device */
    /* totals since create */
    uint64_t jobs_submitted, jobs_done, jobs_failed, jobs_canceled;
    uint64_t partitions_proved, retries, verify_failures, evictions;
    /* threads (see the header comment) */
    unsigned threads_witness, threads_prover, threads_other, pool_threads;
    /* per priority, indexed by cuzk_priority */
    cuzk_prio_status prio[4];
    /* every witness worker, then every prover worker by device (none
     * before start) */
    size_t n_lanes;
    cuzk_lane_status *lanes;  /* owned */
    /* the store thread: transactions committed, and the leases and ends
     * they held (ops / commits = the mean group) */
    uint64_t store_commits, store_ops;
} cuzk_engine_status;

/* Fills a snapshot; free with cuzk_engine_status_free. */
cuzk_status cuzk_engine_status_get(cuzk_engine *e, cuzk_engine_status *st);
void cuzk_engine_status_free(cuzk_engine_status *st);

/* The Prometheus text exposition (format 0.0.4) of the counters, queue
 * depths, memory gauges and per-stage duration histograms
 * (cuzk_stage_seconds{stage="msm_a"}, ...): *text malloc'd (free()),
 * *len (may be NULL) its length. Metric names start with "cuzk_". */
cuzk_status cuzk_engine_metrics(cuzk_engine *e, char **text, size_t *len);

#ifdef __cplusplus
}
#endif

#endif /* CUZK_ENGINE_H */
