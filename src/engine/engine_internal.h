/* cuzk — the engine's private state, shared by engine.c (scheduling,
 * pipeline, keys) and report.c (results, timeline, status, metrics).
 *
 * Locking: one mutex (engine.mu) guards every queue, job, circuit and
 * budget field; obs_mu guards the timeline ring and the histograms, smu the
 * store thread's queues; both are taken only inside mu or alone (never the
 * other way round). Slow work
 * (key loads, setup, workspace creation, witnesses, proofs, verification,
 * store calls) runs with mu released.
 */
#ifndef CUZK_ENGINE_INTERNAL_H
#define CUZK_ENGINE_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>

#include <cuzk/circuits.h>
#include <cuzk/engine.h>
#include <cuzk/groth16.h>
#include <cuzk/pce.h>
#include <cuzk/r1cs.h>

typedef struct ejob ejob;

/* A submit's row for the store thread; on the submitter's stack, which
 * waits (cv_enq) until done. */
typedef struct eenq {
    const cuzk_store_rec *rec;
    uint64_t id;
    int existing, done;
    cuzk_status st;
    char err[CUZK_ERRMSG_LEN];
    struct eenq *next;
} eenq;

/* A registered circuit and its key. Listed from cuzk_engine_register_begin
 * on (state LOADING); the key fields below (label .. key_bytes, vk, pk,
 * pce, file_key) are written by the load without mu while LOADING and are
 * read only once the state, under mu, is READY. */
typedef struct {
    char name[CUZK_ENGINE_ID_LEN];
    cuzk_circuit_state state;
    cuzk_status load_status;   /* FAILED: why, with load_error */
    char load_error[CUZK_ERRMSG_LEN];
    int load_running;          /* cuzk_engine_register_load is at work */
    int has_seed;              /* the spec, kept for the load */
    uint64_t setup_seed;
    int preload;
    char builtin[32];
    unsigned log_size;
    char key_path[512];
    char pce_path[512];
    char label[64];
    int insecure;
    int file_key;        /* 1: the key can be reloaded from key_path */
    unsigned partitions;
    uint32_t n_vars, n_public;
    unsigned log_domain;
    cuzk_vk vk;          /* always held (even COLD): verification, export */
    /* vk prepared for the self-check (~40 KB): made by the finalizer at its
     * first check of this circuit (pvk_ready), and only the finalizer reads
     * it. */
    cuzk_vk_prepared pvk;
    int pvk_ready;
    cuzk_groth16_pk pk;  /* valid when loaded */
    int loaded, loading;
    cuzk_pce pce;
    int has_pce;
    uint64_t key_bytes;  /* the arrays of pk (estimate when cold) */
    uint64_t pinned_charged; /* bytes of the pinned pool held by the key */
    unsigned refcount;   /* partitions in flight */
    uint64_t lru;        /* tick of last use */
    uint64_t proofs;
    /* Workspaces per device: ws_free[d] holds ws_nfree[d] idle ones;
     * ws_count[d] made in all (<= provers_per_device). */
    cuzk_workspace ***ws_free;
    unsigned *ws_nfree, *ws_count;
    uint64_t ws_one;     /* bytes of one workspace (learned; 0 unknown) */
    char ws_backend[16]; /* the backend of the last workspace made */
    /* The CPU fallback's workspace (engine proving on another backend):
     * made at the first partition that needs it, kept, charged to the host
     * pool (ws_cpu_bytes); one partition at a time (ws_cpu_busy). */
    cuzk_workspace *ws_cpu;
    uint64_t ws_cpu_bytes;
    int ws_cpu_busy;
    /* Pooled compact witnesses (cuzk_witness_compact for n_vars values),
     * each charged to the host pool at its cuzk_wc_bytes. */
    cuzk_witness_compact **wbuf;
    unsigned n_wbuf, cap_wbuf, wbuf_total;
} ecirc;

/* One partition's trip through the pipeline. */
typedef struct epart {
    ejob *j;
    unsigned idx;
    unsigned attempt;      /* attempts started */
    unsigned last_device;  /* of the last attempt (avoided by the retry) */
    int on_cpu;            /* the next attempt is the CPU fallback */
    int off_cpu;           /* the last attempt ran on a non-CPU backend */
    cuzk_witness_compact *w; /* its witness (from the circuit's pool) */
    double witness_ms;
    cuzk_status st;        /* of the last stage it went through */
    char err[CUZK_ERRMSG_LEN];
    cuzk_proof proof;
    cuzk_fr *pub;
    cuzk_prove_timings t;
    unsigned device;
    char backend[16];      /* the backend that proved it */
    int done;
    struct epart *next;    /* ready / final queue link */
} epart;

struct ejob {
    uint64_t id, seq;
    char request_id[CUZK_ENGINE_ID_LEN];
    ecirc *c;
    cuzk_priority prio;
    cuzk_job_state state;
    /* witness source */
    char **inputs;         /* per partition JSON (built-in) or NULL */
    int has_seed;
    uint64_t seed;
    uint8_t *wtns;         /* .wtns bytes (user key) */
    size_t wtns_len;
    unsigned n_parts, next_part, parts_done, inflight;
    epart *parts;
    atomic_int cancel;     /* 1 cancel, 2 failed: stop at a stage boundary */
    int leased;
    int collecting;        /* held by the batch collector */
    int finishing;         /* job_finish has begun (store call in progress) */
    cuzk_job_state fin_state; /* the state job_finish ends it in */
    struct ejob *next_lease, *next_fin; /* the store thread's queues */
    unsigned waiters;      /* threads in cuzk_engine_wait on it: kept */
    int in_runq;
    int parked;            /* on engine.parked: its circuit is LOADING */
    cuzk_status status;
    char error[CUZK_ERRMSG_LEN];
    int64_t t_submit_us, t_start_us, t_end_us;
    char *result_json;
    size_t result_len;
    cuzk_job_result *result;
    ejob *next_all, *next_q; /* all jobs (newest first); run queue / batch */
};

/* A pending batch of the collector. */
typedef struct ebatch {
    ecirc *c;
    cuzk_priority prio;
    ejob *head;
    unsigned n;
    int64_t deadline_us;
    struct ebatch *next;
} ebatch;

#define EHIST_BUCKETS 14
enum { EH_WITNESS, EH_ROWS, EH_H, EH_MSM_A, EH_MSM_B2, EH_MSM_C, EH_ASSEMBLE, EH_VERIFY,
       EH_PROVE, EH_JOB, EH_N };

typedef struct {
    uint64_t count[EHIST_BUCKETS + 1]; /* last: +Inf */
    double sum;
} ehist;

typedef struct {
    cuzk_engine *e;
    unsigned index, device, kind; /* kind: 0 witness, 1 prover, 2 finalizer, 3 collector,
                                   * 4 store */
    pthread_t th;
    int started;
    int cpu_lane;            /* a prover: the CPU fallback lane (device unused) */
    int critical;            /* a witness worker for CRITICAL partitions only */
    /* witness workers: open built-in circuits, by circuit index */
    cuzk_circuit **ci;
    cuzk_cs *cs;
    size_t n_ci;
    /* The partition it holds, for status (witness and prover workers):
     * lane_p NULL when idle. Under mu, except lane_stage, which the
     * prover's progress hook stores without it. */
    const epart *lane_p;
    unsigned lane_attempt;
    int64_t lane_t0_us;
    atomic_int lane_stage;   /* CUZK_LANE_SETUP or a cuzk_prove_stage */
} eworker;

struct cuzk_engine {
    cuzk_engine_config cfg;
    const cuzk_prover_backend *backend;
    char backend_name[16];
    unsigned n_devices, ppd, n_witness; /* n_witness: the critical worker included */
    size_t ready_cap;

    pthread_mutex_t mu;
    pthread_cond_t cv_work, cv_done, cv_collect;
    int started, stopping, drain;

    ecirc **circ;
    size_t n_circ, cap_circ;

    ejob *all;
    size_t n_all, n_finished;
    uint64_t next_id, next_seq;
    ejob *runq;            /* sorted: priority desc, seq asc */
    ejob *parked;          /* jobs of LOADING circuits, submission order */
    ebatch *batches;
    epart *ready;          /* sorted like runq, then partition */
    size_t n_ready, n_witnessing;
    size_t n_inflight;      /* partitions picked and not yet released */
    unsigned n_witness_alive;
    epart *final_head, *final_tail;
    unsigned *dev_busy;

    /* budget */
    uint64_t host_res, host_peak, pinned_res, pinned_peak;
    uint64_t *dev_res, dev_peak;
    uint64_t lru_tick;

    /* totals */
    uint64_t n_submitted, n_done, n_failed, n_canceled, n_parts_proved, n_retries,
        n_verify_fail, n_evictions;
    uint64_t *dev_proofs, *dev_failures;
    /* The CPU fallback lane: workers[cpu_slot], started at the first
     * partition sent to the CPU (so the device lanes go on proving). */
    size_t cpu_slot;
    int cpu_lane_on;
    char dev_backend[32][16]; /* the backend of each device's last non-CPU
                                 workspace (else its CPU one)
                                 ("auto" resolved); "" before one */

    /* The store thread's work: jobs to lease, then jobs to finish, each
     * FIFO; it commits what is there in one transaction (store_main). */
    /* smu guards the three queues, cv_store, cv_enq, store_quit and the
     * counters, so a submit waits for its commit without the engine's mu;
     * taken inside mu or alone, never the other way round. store_alive is
     * written holding both (read under either). */
    pthread_mutex_t smu;
    pthread_cond_t cv_store, cv_enq;
    ejob *lease_head, *lease_tail, *fin_head, *fin_tail;
    struct eenq *enq_head, *enq_tail; /* submits waiting for their commit */
    int store_alive;       /* the store thread runs: lease/finish go to it */
    int store_quit;        /* set by stop once the pipeline is joined */
    uint64_t n_store_commits, n_store_ops;
    cuzk_store_op *store_ops; /* the store thread's group (STORE_GROUP_MAX) */
    ejob **store_jobs;

    eworker *workers;
    size_t n_workers;
    int64_t t0_us;

    /* observation */
    pthread_mutex_t obs_mu;
    cuzk_event *ring;
    size_t ring_cap;
    uint64_t ev_next; /* seq of the next event (from 1) */
    ehist hist[EH_N];
};

int64_t cuzk__engine_now_us(void);
/* Appends an event (takes obs_mu). */
void cuzk__engine_event(cuzk_engine *e, cuzk_event_kind kind, const ejob *j, unsigned part,
                        unsigned device, unsigned attempt, int stage, double ms, uint64_t value,
                        cuzk_status st);
/* The process's resident set in bytes (0 where unknown); no lock held. */
uint64_t cuzk__engine_rss(void);
/* Appends a CUZK_EV_MEM event: rss (from cuzk__engine_rss, read before
 * taking mu) and the budget's pinned and device pools. Under mu (it reads
 * the budget); takes obs_mu. */
void cuzk__engine_mem_event(cuzk_engine *e, const ejob *j, unsigned part, uint64_t rss);
void cuzk__engine_hist(cuzk_engine *e, int h, double ms);
/* The result struct of a finished job (parts copied). */
cuzk_job_result *cuzk__engine_make_result(const ejob *j);

#endif /* CUZK_ENGINE_INTERNAL_H */
