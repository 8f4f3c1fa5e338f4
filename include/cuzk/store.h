/* cuzk — the durable job store: what the engine has accepted, and what it
 * answered, kept across crashes.
 *
 * The engine talks to a store only through cuzk_store (a struct of
 * function pointers), so a store shared by several daemons (PostgreSQL)
 * can follow the SQLite one without changing the engine. A store holds
 * jobs as opaque records: the engine serializes a request and a result
 * (JSON text) and the store keeps the bytes.
 *
 * Life of a job in the store:
 *
 *   enqueue ──> QUEUED ──lease──> LEASED ──complete──> DONE
 *                 ^                  │  └────fail─────> FAILED / CANCELED
 *                 └─requeue_expired──┘   (lease past its deadline)
 *
 * Durability: enqueue, complete and fail return only after their change is
 * committed to stable storage (the SQLite store: a transaction in WAL mode
 * with synchronous=FULL), so a job the engine acknowledged survives
 * kill -9 and power loss. Idempotency: a request_id names its job until
 * purge deletes the finished job; enqueueing it again meanwhile returns the
 * job already there (and its state), so a client that retries after a
 * crash never has a job proved twice. After the purge the request_id is
 * free again: the retry window is the purge's age (the daemon's
 * keep_results).
 *
 * Threads: every function may be called from any thread; the store
 * serializes them. Times are milliseconds since the Unix epoch (wall
 * clock, so that they survive a restart). Errors: cuzk_status with a
 * message in err (CUZK_ERRMSG_LEN bytes, may be NULL) prefixed "store: ";
 * CUZK_ERR_IO for the database, CUZK_ERR_BAD_ENCODING at open for a file
 * that is not a cuzk store (or one of a newer version), CUZK_ERR_NO_MEMORY,
 * CUZK_ERR_INVALID_ARGUMENT for an unknown job id, a transition the diagram
 * does not have or a field over its bound.
 */
#ifndef CUZK_STORE_H
#define CUZK_STORE_H

#include <stddef.h>
#include <stdint.h>

#include <cuzk/status.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    CUZK_STORE_QUEUED = 0,
    CUZK_STORE_LEASED = 1,
    CUZK_STORE_DONE = 2,
    CUZK_STORE_FAILED = 3,
    CUZK_STORE_CANCELED = 4
} cuzk_store_state;

/* The longest request_id and circuit id, terminator included. */
#define CUZK_STORE_ID_LEN 128
/* The largest serialized request or result, in bytes. */
#define CUZK_STORE_MAX_BLOB (64u << 20)

/* One job as the store keeps it. In records the store returns, request and
 * result are malloc'd and owned by the record (cuzk_store_rec_free), each
 * followed by a NUL not counted in its length (JSON text reads as a C
 * string); result is NULL unless the job is DONE. */
typedef struct {
    uint64_t id;                         /* assigned by enqueue, from 1; never reused */
    char request_id[CUZK_STORE_ID_LEN];  /* idempotency key; "" = none */
    char circuit[CUZK_STORE_ID_LEN];
    int priority;                        /* the engine's priority value */
    cuzk_store_state state;
    uint32_t attempts;                   /* leases taken so far */
    char *request;                       /* the serialized request */
    size_t request_len;
    char *result;                        /* DONE: the serialized result */
    size_t result_len;
    char error[CUZK_ERRMSG_LEN];         /* FAILED / CANCELED: the reason */
    int64_t created_ms, finished_ms;     /* finished_ms 0 until finished */
    int64_t lease_until_ms;              /* LEASED: the lease's deadline */
} cuzk_store_rec;

void cuzk_store_rec_free(cuzk_store_rec *r); /* frees request and result */

/* Called by cuzk_store.scan for each job; r is valid for the call only.
 * Return nonzero to stop the scan. fn may call the store (the jobs are
 * read before the first call). */
typedef int (*cuzk_store_scan_fn)(void *ctx, const cuzk_store_rec *r);

/* One change of cuzk_store.batch: add, lease, complete or fail a job. */
typedef enum {
    CUZK_STORE_OP_LEASE = 0,    /* QUEUED -> LEASED until ms (attempts + 1) */
    CUZK_STORE_OP_COMPLETE = 1, /* LEASED -> DONE with data (the result), at ms */
    CUZK_STORE_OP_FAIL = 2,     /* QUEUED or LEASED -> FAILED with data (the reason), at ms */
    CUZK_STORE_OP_CANCEL = 3,   /* QUEUED or LEASED -> CANCELED with data, at ms */
    CUZK_STORE_OP_ENQUEUE = 4   /* enqueue's: rec at ms; id and existing are set */
} cuzk_store_op_kind;

typedef struct {
    cuzk_store_op_kind kind;
    uint64_t id;        /* the job (ENQUEUE: out, as enqueue's *id) */
    const cuzk_store_rec *rec; /* ENQUEUE: the job to add (the caller's) */
    int existing;       /* ENQUEUE, out: as enqueue's *existing */
    int64_t ms;         /* LEASE: the lease's deadline; else the finish time */
    const char *data;   /* COMPLETE: len bytes of result; FAIL, CANCEL: a C
                         * string (NULL = ""); the caller's, read during the
                         * call only */
    size_t len;
    cuzk_status st;     /* out: this op's outcome, as the single call's */
    char err[CUZK_ERRMSG_LEN]; /* out: its message when st is not CUZK_OK */
} cuzk_store_op;

typedef struct cuzk_store cuzk_store;
struct cuzk_store {
    /* Adds a QUEUED job from rec's request_id, circuit, priority and
     * request (other fields ignored) and sets *id. When rec->request_id is
     * not "" and already names a job, nothing is added: *id is that job's
     * and *existing = 1 (else 0); its state is get's. Committed before it
     * returns. A request_id or circuit of CUZK_STORE_ID_LEN bytes or more,
     * or a request over CUZK_STORE_MAX_BLOB: CUZK_ERR_INVALID_ARGUMENT. */
    cuzk_status (*enqueue)(cuzk_store *s, const cuzk_store_rec *rec, int64_t now_ms,
                           uint64_t *id, int *existing, char *err);
    /* QUEUED -> LEASED until until_ms (attempts + 1); committed. A job not
     * QUEUED: CUZK_ERR_INVALID_ARGUMENT. complete and fail do not ask which
     * lease they end, so a lease must outlast its proof when the engine
     * requeues expired leases while it runs (else a job is proved twice). */
    cuzk_status (*lease)(cuzk_store *s, uint64_t id, int64_t until_ms, char *err);
    /* LEASED -> DONE with result (len bytes, copied); committed. */
    cuzk_status (*complete)(cuzk_store *s, uint64_t id, const char *result, size_t len,
                            int64_t now_ms, char *err);
    /* QUEUED or LEASED -> state (FAILED or CANCELED) with reason;
     * committed. */
    cuzk_status (*fail)(cuzk_store *s, uint64_t id, cuzk_store_state state,
                        const char *reason, int64_t now_ms, char *err);
    /* Every LEASED job whose lease ended before now_ms -> QUEUED. After a
     * crash, a daemon that is the store's only user passes INT64_MAX: every
     * lease then belonged to the dead process. *n = jobs requeued. */
    cuzk_status (*requeue_expired)(cuzk_store *s, int64_t now_ms, size_t *n, char *err);
    /* The job with this id (or, when id is 0, this request_id): *out
     * filled (caller frees with cuzk_store_rec_free). Unknown:
     * CUZK_ERR_INVALID_ARGUMENT. */
    cuzk_status (*get)(cuzk_store *s, uint64_t id, const char *request_id, cuzk_store_rec *out,
                       char *err);
    /* Calls fn for every job in state `state`, oldest (smallest id) first
     * (a restarted engine re-queues the QUEUED ones). */
    cuzk_status (*scan)(cuzk_store *s, cuzk_store_state state, cuzk_store_scan_fn fn, void *ctx,
                        char *err);
    /* Deletes finished jobs (DONE, FAILED, CANCELED) finished before
     * before_ms: results are kept for a configured time. *n = deleted. */
    cuzk_status (*purge)(cuzk_store *s, int64_t before_ms, size_t *n, char *err);
    /* Closes the store and frees s. NULL-safe through cuzk_store_close. */
    void (*close)(cuzk_store *s);
    /* Applies ops[0..n) in order in one transaction, committed before it
     * returns (one fsync for all: the engine's store thread commits leases
     * and results in groups this way). An op that its job's state refuses
     * (or an unknown id, a result over CUZK_STORE_MAX_BLOB) gets its own
     * st and err and changes nothing; the others still apply. The return
     * is CUZK_OK unless the transaction itself failed (then no op applied,
     * each op's st is that error). May be NULL in a store without it: the
     * engine then calls lease, complete and fail one by one. */
    cuzk_status (*batch)(cuzk_store *s, cuzk_store_op *ops, size_t n, char *err);
};

/* Opens (creating if absent) the SQLite store at path: WAL mode,
 * synchronous=FULL, a schema version checked at open (a newer or foreign
 * file is refused with a message). The caller owns *s (cuzk_store_close). */
cuzk_status cuzk_store_open_sqlite(cuzk_store **s, const char *path, char *err);

/* s->close(s) when s is not NULL. */
void cuzk_store_close(cuzk_store *s);

#ifdef __cplusplus
}
#endif

#endif /* CUZK_STORE_H */
