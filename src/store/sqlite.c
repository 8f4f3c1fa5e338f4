/* cuzk — the SQLite job store (store.h).
 *
 * One file (plus its -wal and -shm), WAL mode with synchronous=FULL: a
 * commit returns after the WAL is fsync'd, so a change the engine was told
 * about survives kill -9 and power loss. One connection behind one mutex:
 * a connection's prepared statements are not reentrant, and serializing the
 * calls lets every statement be prepared once for the life of the store.
 * Other processes may open the same file (busy_timeout waits for their
 * locks); lease's "WHERE state = QUEUED" keeps a job from being leased twice
 * even then.
 *
 * The file says what it is: PRAGMA application_id = "cuzk" and PRAGMA
 * user_version = STORE_VERSION. Both are checked before anything is written,
 * so a foreign database (or a newer store) is refused unchanged.
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <sqlite3.h>

#include <cuzk/store.h>

#include "common/errmsg.h"

#define fail(err, s, ...) cuzk_errf((err), (s), "store: ", __VA_ARGS__)

#define STORE_APP_ID 0x63757a6b /* "cuzk" */
#define STORE_VERSION 1
#define STORE_BUSY_MS 5000 /* how long a call waits for another process's lock */

/* Version 1. request_id is NULL when the job has none, so UNIQUE leaves
 * those apart. AUTOINCREMENT: an id is never reused, even after purge
 * deleted the newest job, so a client's old id never names another job.
 * jobs_state serves scan (state, then age) and requeue_expired; the
 * partial jobs_finished serves purge and holds only finished jobs. */
static const char SCHEMA[] =
    "CREATE TABLE jobs ("
    " id INTEGER PRIMARY KEY AUTOINCREMENT,"
    " request_id TEXT UNIQUE,"
    " circuit TEXT NOT NULL,"
    " priority INTEGER NOT NULL,"
    " state INTEGER NOT NULL CHECK (state BETWEEN 0 AND 4),"
    " attempts INTEGER NOT NULL DEFAULT 0,"
    " request BLOB NOT NULL,"
    " result BLOB,"
    " error TEXT NOT NULL DEFAULT '',"
    " created_ms INTEGER NOT NULL,"
    " finished_ms INTEGER NOT NULL DEFAULT 0,"
    " lease_until_ms INTEGER NOT NULL DEFAULT 0);"
    "CREATE INDEX jobs_state ON jobs (state, id);"
    "CREATE INDEX jobs_finished ON jobs (finished_ms) WHERE state >= 2;";

#define COLS                                                                         \
    "SELECT id, request_id, circuit, priority, state, attempts, request, result, error," \
    " created_ms, finished_ms, lease_until_ms FROM jobs "

enum {
    ST_BEGIN, ST_COMMIT, ST_ROLLBACK,
    ST_INSERT, ST_ID_BY_RID, ST_STATE,
    ST_LEASE, ST_COMPLETE, ST_FAIL, ST_REQUEUE, ST_PURGE,
    ST_GET_ID, ST_GET_RID, ST_SCAN,
    ST_N
};

static const char *const SQL[ST_N] = {
    [ST_BEGIN] = "BEGIN IMMEDIATE",
    [ST_COMMIT] = "COMMIT",
    [ST_ROLLBACK] = "ROLLBACK",
    [ST_INSERT] = "INSERT INTO jobs (request_id, circuit, priority, state, request, created_ms)"
                  " VALUES (?1, ?2, ?3, 0, ?4, ?5) ON CONFLICT (request_id) DO NOTHING",
    [ST_ID_BY_RID] = "SELECT id FROM jobs WHERE request_id = ?1",
    [ST_STATE] = "SELECT state FROM jobs WHERE id = ?1",
    [ST_LEASE] = "UPDATE jobs SET state = 1, attempts = attempts + 1, lease_until_ms = ?2"
                 " WHERE id = ?1 AND state = 0",
    [ST_COMPLETE] = "UPDATE jobs SET state = 2, result = ?2, finished_ms = ?3, lease_until_ms = 0"
                    " WHERE id = ?1 AND state = 1",
    [ST_FAIL] = "UPDATE jobs SET state = ?2, error = ?3, finished_ms = ?4, lease_until_ms = 0"
                " WHERE id = ?1 AND state IN (0, 1)",
    [ST_REQUEUE] = "UPDATE jobs SET state = 0, lease_until_ms = 0"
                   " WHERE state = 1 AND lease_until_ms < ?1",
    [ST_PURGE] = "DELETE FROM jobs WHERE state >= 2 AND finished_ms < ?1",
    [ST_GET_ID] = COLS "WHERE id = ?1",
    [ST_GET_RID] = COLS "WHERE request_id = ?1",
    [ST_SCAN] = COLS "WHERE state = ?1 ORDER BY id",
};

typedef struct {
    cuzk_store base; /* first: the engine's cuzk_store * is a sq_store * */
    pthread_mutex_t mu; /* guards db and st */
    sqlite3 *db;
    sqlite3_stmt *st[ST_N];
} sq_store;

static const char *state_name(int64_t s)
{
    static const char *const names[] = {"QUEUED", "LEASED", "DONE", "FAILED", "CANCELED"};
    return s >= 0 && s <= 4 ? names[s] : "unknown";
}

/* A database error: CUZK_ERR_IO (CUZK_ERR_NO_MEMORY when SQLite ran out)
 * with SQLite's message. */
static cuzk_status db_fail(sq_store *q, int rc, const char *what, char *err)
{
    cuzk_status s = (rc == SQLITE_NOMEM) ? CUZK_ERR_NO_MEMORY : CUZK_ERR_IO;
    return fail(err, s, "%s: %s", what, sqlite3_errmsg(q->db));
}

/* Steps a statement whose result is not read, then makes it reusable. */
static int run(sqlite3_stmt *st)
{
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    return rc == SQLITE_ROW ? SQLITE_DONE : rc;
}

/* Ends a statement whose rows were read; clearing the bindings drops the
 * caller's buffers bound SQLITE_STATIC. */
static void done(sqlite3_stmt *st)
{
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
}

static void rollback(sq_store *q)
{
    if (!sqlite3_get_autocommit(q->db)) run(q->st[ST_ROLLBACK]);
}

/* When an UPDATE of job id changed nothing: says why (no such job, or the
 * job's state is not one `op` starts from). Returns INVALID_ARGUMENT. */
static cuzk_status not_changed(sq_store *q, uint64_t id, const char *op, const char *from,
                               char *err)
{
    sqlite3_stmt *st = q->st[ST_STATE];
    sqlite3_bind_int64(st, 1, (sqlite3_int64)id);
    int rc = sqlite3_step(st);
    int64_t state = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : -1;
    done(st);
    if (rc == SQLITE_ROW)
        return fail(err, CUZK_ERR_INVALID_ARGUMENT, "%s: job %" PRIu64 " is %s, not %s", op, id,
                    state_name(state), from);
    if (rc == SQLITE_DONE)
        return fail(err, CUZK_ERR_INVALID_ARGUMENT, "%s: no job %" PRIu64, op, id);
    return db_fail(q, rc, op, err);
}

/* ---------------------------------------------------------- operations -- */

/* The checks of enqueue's arguments (no lock needed). */
static cuzk_status enqueue_args(const cuzk_store_rec *rec, size_t *rid_len, size_t *circ_len,
                                char *err)
{
    if (!rec) return fail(err, CUZK_ERR_INVALID_ARGUMENT, "enqueue: NULL argument");
    *rid_len = strnlen(rec->request_id, CUZK_STORE_ID_LEN);
    *circ_len = strnlen(rec->circuit, CUZK_STORE_ID_LEN);
    if (*rid_len == CUZK_STORE_ID_LEN || *circ_len == CUZK_STORE_ID_LEN)
        return fail(err, CUZK_ERR_INVALID_ARGUMENT,
                    "enqueue: request_id and circuit are at most %d bytes", CUZK_STORE_ID_LEN - 1);
    if (rec->request_len > CUZK_STORE_MAX_BLOB || (rec->request_len && !rec->request))
        return fail(err, CUZK_ERR_INVALID_ARGUMENT,
                    "enqueue: request of %zu bytes (at most %u, not NULL)", rec->request_len,
                    CUZK_STORE_MAX_BLOB);
    return CUZK_OK;
}

/* The insert, or the look-up of the job a known request_id names, inside
 * the caller's transaction (both see the same database). q->mu held. */
static cuzk_status do_enqueue(sq_store *q, const cuzk_store_rec *rec, int64_t now_ms,
                              uint64_t *id, int *existing, char *err)
{
    size_t rid_len = 0, circ_len = 0;
    cuzk_status ret = enqueue_args(rec, &rid_len, &circ_len, err);
    if (ret != CUZK_OK) return ret;
    sqlite3_stmt *st = q->st[ST_INSERT];
    if (rid_len)
        sqlite3_bind_text(st, 1, rec->request_id, (int)rid_len, SQLITE_STATIC);
    else
        sqlite3_bind_null(st, 1);
    sqlite3_bind_text(st, 2, rec->circuit, (int)circ_len, SQLITE_STATIC);
    sqlite3_bind_int(st, 3, rec->priority);
    /* "" for an empty request: a NULL pointer would bind SQL NULL. */
    sqlite3_bind_blob64(st, 4, rec->request_len ? rec->request : "", rec->request_len,
                        SQLITE_STATIC);
    sqlite3_bind_int64(st, 5, now_ms);
    int rc = run(st);
    if (rc != SQLITE_DONE) return db_fail(q, rc, "enqueue", err);
    if (sqlite3_changes(q->db) == 1) {
        *id = (uint64_t)sqlite3_last_insert_rowid(q->db);
        *existing = 0;
        return CUZK_OK;
    }
    st = q->st[ST_ID_BY_RID];
    sqlite3_bind_text(st, 1, rec->request_id, (int)rid_len, SQLITE_STATIC);
    rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        *id = (uint64_t)sqlite3_column_int64(st, 0);
        *existing = 1;
    }
    done(st);
    if (rc == SQLITE_ROW) return CUZK_OK;
    return rc == SQLITE_DONE ? fail(err, CUZK_ERR_IO, "enqueue: insert refused")
                             : db_fail(q, rc, "enqueue", err);
}

static cuzk_status sq_enqueue(cuzk_store *s, const cuzk_store_rec *rec, int64_t now_ms,
                              uint64_t *id, int *existing, char *err)
{
    sq_store *q = (sq_store *)s;
    if (err) err[0] = 0;
    if (!id || !existing) return fail(err, CUZK_ERR_INVALID_ARGUMENT, "enqueue: NULL argument");
    cuzk_status ret = CUZK_OK;
    pthread_mutex_lock(&q->mu);
    int rc = run(q->st[ST_BEGIN]);
    if (rc != SQLITE_DONE) ret = db_fail(q, rc, "enqueue", err);
    if (ret == CUZK_OK) ret = do_enqueue(q, rec, now_ms, id, existing, err);
    if (ret == CUZK_OK && (rc = run(q->st[ST_COMMIT])) != SQLITE_DONE)
        ret = db_fail(q, rc, "enqueue: commit", err);
    if (ret != CUZK_OK) rollback(q);
    pthread_mutex_unlock(&q->mu);
    return ret;
}

/* The transitions, with q->mu held and no transaction of their own (the
 * caller's, or SQLite's implicit one per statement). */
static cuzk_status do_lease(sq_store *q, uint64_t id, int64_t until_ms, char *err)
{
    sqlite3_stmt *st = q->st[ST_LEASE];
    sqlite3_bind_int64(st, 1, (sqlite3_int64)id);
    sqlite3_bind_int64(st, 2, until_ms);
    int rc = run(st);
    if (rc != SQLITE_DONE) return db_fail(q, rc, "lease", err);
    if (sqlite3_changes(q->db) != 1) return not_changed(q, id, "lease", "QUEUED", err);
    return CUZK_OK;
}

static cuzk_status do_complete(sq_store *q, uint64_t id, const char *result, size_t len,
                               int64_t now_ms, char *err)
{
    if (len > CUZK_STORE_MAX_BLOB || (len && !result))
        return fail(err, CUZK_ERR_INVALID_ARGUMENT,
                    "complete: result of %zu bytes (at most %u, not NULL)", len,
                    CUZK_STORE_MAX_BLOB);
    sqlite3_stmt *st = q->st[ST_COMPLETE];
    sqlite3_bind_int64(st, 1, (sqlite3_int64)id);
    sqlite3_bind_blob64(st, 2, len ? result : "", len, SQLITE_STATIC);
    sqlite3_bind_int64(st, 3, now_ms);
    int rc = run(st);
    if (rc != SQLITE_DONE) return db_fail(q, rc, "complete", err);
    if (sqlite3_changes(q->db) != 1) return not_changed(q, id, "complete", "LEASED", err);
    return CUZK_OK;
}

static cuzk_status do_fail(sq_store *q, uint64_t id, cuzk_store_state state, const char *reason,
                           int64_t now_ms, char *err)
{
    if (state != CUZK_STORE_FAILED && state != CUZK_STORE_CANCELED)
        return fail(err, CUZK_ERR_INVALID_ARGUMENT, "fail: to %s (only FAILED or CANCELED)",
                    state_name(state));
    if (!reason) reason = "";
    sqlite3_stmt *st = q->st[ST_FAIL];
    sqlite3_bind_int64(st, 1, (sqlite3_int64)id);
    sqlite3_bind_int(st, 2, (int)state);
    /* Kept to what a record's error field holds. */
    sqlite3_bind_text(st, 3, reason, (int)strnlen(reason, CUZK_ERRMSG_LEN - 1), SQLITE_STATIC);
    sqlite3_bind_int64(st, 4, now_ms);
    int rc = run(st);
    if (rc != SQLITE_DONE) return db_fail(q, rc, "fail", err);
    if (sqlite3_changes(q->db) != 1) return not_changed(q, id, "fail", "QUEUED or LEASED", err);
    return CUZK_OK;
}

static cuzk_status sq_lease(cuzk_store *s, uint64_t id, int64_t until_ms, char *err)
{
    sq_store *q = (sq_store *)s;
    if (err) err[0] = 0;
    pthread_mutex_lock(&q->mu);
    cuzk_status ret = do_lease(q, id, until_ms, err);
    pthread_mutex_unlock(&q->mu);
    return ret;
}

static cuzk_status sq_complete(cuzk_store *s, uint64_t id, const char *result, size_t len,
                               int64_t now_ms, char *err)
{
    sq_store *q = (sq_store *)s;
    if (err) err[0] = 0;
    pthread_mutex_lock(&q->mu);
    cuzk_status ret = do_complete(q, id, result, len, now_ms, err);
    pthread_mutex_unlock(&q->mu);
    return ret;
}

static cuzk_status sq_fail(cuzk_store *s, uint64_t id, cuzk_store_state state,
                           const char *reason, int64_t now_ms, char *err)
{
    sq_store *q = (sq_store *)s;
    if (err) err[0] = 0;
    pthread_mutex_lock(&q->mu);
    cuzk_status ret = do_fail(q, id, state, reason, now_ms, err);
    pthread_mutex_unlock(&q->mu);
    return ret;
}

/* A refusal of one op (its job's state, its arguments) changed no row, so
 * the others go on; a database error (CUZK_ERR_IO, CUZK_ERR_NO_MEMORY)
 * rolls the whole transaction back. */
static cuzk_status sq_batch(cuzk_store *s, cuzk_store_op *ops, size_t n, char *err)
{
    sq_store *q = (sq_store *)s;
    if (err) err[0] = 0;
    if (!n) return CUZK_OK;
    if (!ops) return fail(err, CUZK_ERR_INVALID_ARGUMENT, "batch: NULL ops");
    char msg[CUZK_ERRMSG_LEN] = "";
    cuzk_status ret = CUZK_OK;
    pthread_mutex_lock(&q->mu);
    int rc = run(q->st[ST_BEGIN]);
    if (rc != SQLITE_DONE) ret = db_fail(q, rc, "batch", msg);
    for (size_t i = 0; i < n && ret == CUZK_OK; i++) {
        cuzk_store_op *o = &ops[i];
        o->err[0] = 0;
        switch (o->kind) {
        case CUZK_STORE_OP_LEASE: o->st = do_lease(q, o->id, o->ms, o->err); break;
        case CUZK_STORE_OP_ENQUEUE:
            o->st = do_enqueue(q, o->rec, o->ms, &o->id, &o->existing, o->err);
            break;
        case CUZK_STORE_OP_COMPLETE:
            o->st = do_complete(q, o->id, o->data, o->len, o->ms, o->err);
            break;
        case CUZK_STORE_OP_FAIL:
        case CUZK_STORE_OP_CANCEL:
            o->st = do_fail(q, o->id,
                            o->kind == CUZK_STORE_OP_FAIL ? CUZK_STORE_FAILED
                                                          : CUZK_STORE_CANCELED,
                            o->data, o->ms, o->err);
            break;
        default:
            o->st = fail(o->err, CUZK_ERR_INVALID_ARGUMENT, "batch: op %zu: unknown kind %d", i,
                         (int)o->kind);
        }
        if (o->st == CUZK_ERR_IO || o->st == CUZK_ERR_NO_MEMORY) {
            ret = o->st;
            memcpy(msg, o->err, sizeof msg);
        }
    }
    if (ret == CUZK_OK && (rc = run(q->st[ST_COMMIT])) != SQLITE_DONE)
        ret = db_fail(q, rc, "batch: commit", msg);
    if (ret != CUZK_OK) {
        rollback(q);
        for (size_t i = 0; i < n; i++) {
            ops[i].st = ret;
            memcpy(ops[i].err, msg, sizeof msg);
        }
        if (err) memcpy(err, msg, sizeof msg);
    }
    pthread_mutex_unlock(&q->mu);
    return ret;
}

/* Runs a one-parameter UPDATE/DELETE; *n = rows changed. */
static cuzk_status sq_bulk(sq_store *q, int which, int64_t ms, size_t *n, const char *what,
                           char *err)
{
    if (err) err[0] = 0;
    pthread_mutex_lock(&q->mu);
    sqlite3_stmt *st = q->st[which];
    sqlite3_bind_int64(st, 1, ms);
    int rc = run(st);
    cuzk_status ret = CUZK_OK;
    if (rc != SQLITE_DONE)
        ret = db_fail(q, rc, what, err);
    else if (n)
        *n = (size_t)sqlite3_changes64(q->db);
    pthread_mutex_unlock(&q->mu);
    return ret;
}

static cuzk_status sq_requeue_expired(cuzk_store *s, int64_t now_ms, size_t *n, char *err)
{
    if (n) *n = 0;
    return sq_bulk((sq_store *)s, ST_REQUEUE, now_ms, n, "requeue_expired", err);
}

static cuzk_status sq_purge(cuzk_store *s, int64_t before_ms, size_t *n, char *err)
{
    if (n) *n = 0;
    return sq_bulk((sq_store *)s, ST_PURGE, before_ms, n, "purge", err);
}

/* A malloc'd copy of n bytes and a NUL; NULL when out of memory. */
static char *dup_bytes(const void *p, size_t n)
{
    char *d = malloc(n + 1);
    if (!d) return NULL;
    if (n) memcpy(d, p, n);
    d[n] = 0;
    return d;
}

/* Copies a TEXT column into a fixed field, truncated to fit. */
static void copy_text(char *dst, size_t cap, sqlite3_stmt *st, int col)
{
    const unsigned char *t = sqlite3_column_text(st, col);
    size_t n = t ? (size_t)sqlite3_column_bytes(st, col) : 0;
    if (n >= cap) n = cap - 1;
    if (n) memcpy(dst, t, n);
    dst[n] = 0;
}

/* Fills r from the current row of a COLS statement; r owns the copies. */
static cuzk_status read_rec(sqlite3_stmt *st, cuzk_store_rec *r, char *err)
{
    memset(r, 0, sizeof *r);
    r->id = (uint64_t)sqlite3_column_int64(st, 0);
    copy_text(r->request_id, sizeof r->request_id, st, 1);
    copy_text(r->circuit, sizeof r->circuit, st, 2);
    r->priority = sqlite3_column_int(st, 3);
    r->state = (cuzk_store_state)sqlite3_column_int(st, 4);
    r->attempts = (uint32_t)sqlite3_column_int64(st, 5);
    /* column_blob before column_bytes, as SQLite asks. */
    const void *b = sqlite3_column_blob(st, 6);
    r->request_len = (size_t)sqlite3_column_bytes(st, 6);
    r->request = dup_bytes(b, r->request_len);
    if (sqlite3_column_type(st, 7) != SQLITE_NULL) {
        b = sqlite3_column_blob(st, 7);
        r->result_len = (size_t)sqlite3_column_bytes(st, 7);
        r->result = dup_bytes(b, r->result_len);
        if (!r->result) goto nomem;
    }
    if (!r->request) goto nomem;
    copy_text(r->error, sizeof r->error, st, 8);
    r->created_ms = sqlite3_column_int64(st, 9);
    r->finished_ms = sqlite3_column_int64(st, 10);
    r->lease_until_ms = sqlite3_column_int64(st, 11);
    return CUZK_OK;
nomem:
    cuzk_store_rec_free(r);
    return fail(err, CUZK_ERR_NO_MEMORY, "out of memory reading job %" PRIu64, r->id);
}

static cuzk_status sq_get(cuzk_store *s, uint64_t id, const char *request_id,
                          cuzk_store_rec *out, char *err)
{
    sq_store *q = (sq_store *)s;
    if (err) err[0] = 0;
    if (!out) return fail(err, CUZK_ERR_INVALID_ARGUMENT, "get: NULL record");
    memset(out, 0, sizeof *out);
    if (!id && (!request_id || !*request_id))
        return fail(err, CUZK_ERR_INVALID_ARGUMENT, "get: neither an id nor a request_id");
    size_t rid_len = id ? 0 : strnlen(request_id, CUZK_STORE_ID_LEN);
    if (rid_len == CUZK_STORE_ID_LEN)
        return fail(err, CUZK_ERR_INVALID_ARGUMENT, "get: no job with that request_id (too long)");

    pthread_mutex_lock(&q->mu);
    sqlite3_stmt *st = q->st[id ? ST_GET_ID : ST_GET_RID];
    if (id)
        sqlite3_bind_int64(st, 1, (sqlite3_int64)id);
    else
        sqlite3_bind_text(st, 1, request_id, (int)rid_len, SQLITE_STATIC);
    int rc = sqlite3_step(st);
    cuzk_status ret;
    if (rc == SQLITE_ROW)
        ret = read_rec(st, out, err);
    else if (rc == SQLITE_DONE && id)
        ret = fail(err, CUZK_ERR_INVALID_ARGUMENT, "get: no job %" PRIu64, id);
    else if (rc == SQLITE_DONE)
        ret = fail(err, CUZK_ERR_INVALID_ARGUMENT, "get: no job with request_id '%s'", request_id);
    else
        ret = db_fail(q, rc, "get", err);
    done(st);
    pthread_mutex_unlock(&q->mu);
    return ret;
}

static cuzk_status sq_scan(cuzk_store *s, cuzk_store_state state, cuzk_store_scan_fn fn,
                           void *ctx, char *err)
{
    sq_store *q = (sq_store *)s;
    if (err) err[0] = 0;
    if (!fn) return fail(err, CUZK_ERR_INVALID_ARGUMENT, "scan: NULL callback");

    /* Read every matching job first, then call fn without the lock, so fn
     * may call the store (lease a job it is shown, say). */
    cuzk_store_rec *recs = NULL;
    size_t n = 0, cap = 0;
    cuzk_status ret = CUZK_OK;
    pthread_mutex_lock(&q->mu);
    sqlite3_stmt *st = q->st[ST_SCAN];
    sqlite3_bind_int(st, 1, (int)state);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (n == cap) {
            size_t c = cap ? 2 * cap : 16;
            cuzk_store_rec *r = realloc(recs, c * sizeof *r);
            if (!r) {
                ret = fail(err, CUZK_ERR_NO_MEMORY, "scan: out of memory");
                break;
            }
            recs = r;
            cap = c;
        }
        if ((ret = read_rec(st, &recs[n], err)) != CUZK_OK) break;
        n++;
    }
    if (ret == CUZK_OK && rc != SQLITE_DONE) ret = db_fail(q, rc, "scan", err);
    done(st);
    pthread_mutex_unlock(&q->mu);

    int stop = ret != CUZK_OK;
    for (size_t i = 0; i < n; i++) {
        if (!stop) stop = fn(ctx, &recs[i]);
        cuzk_store_rec_free(&recs[i]);
    }
    free(recs);
    return ret;
}

/* ------------------------------------------------------- open and close -- */

static void sq_close(cuzk_store *s)
{
    sq_store *q = (sq_store *)s;
    for (int i = 0; i < ST_N; i++) sqlite3_finalize(q->st[i]);
    /* The last connection to close checkpoints the WAL into the file. */
    sqlite3_close(q->db);
    pthread_mutex_destroy(&q->mu);
    free(q);
}

/* Runs a statement that returns one integer (a pragma, a count). */
static int query_int(sqlite3 *db, const char *sql, int64_t *v)
{
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
    if (rc != SQLITE_OK) return rc;
    rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        *v = sqlite3_column_int64(st, 0);
        rc = SQLITE_OK;
    }
    sqlite3_finalize(st);
    return rc;
}

/* Says what the file is: *fresh = 1 for an empty database (a new store),
 * 0 for a cuzk store of this version; anything else is refused. Reads
 * only, so a refused file is left as it was. */
static cuzk_status check_file(sqlite3 *db, const char *path, int *fresh, char *err)
{
    int64_t app = 0, version = 0, objects = 0;
    int rc = query_int(db, "PRAGMA application_id", &app);
    if (rc == SQLITE_OK) rc = query_int(db, "PRAGMA user_version", &version);
    if (rc == SQLITE_OK) rc = query_int(db, "SELECT count(*) FROM sqlite_master", &objects);
    if (rc == SQLITE_NOTADB)
        return fail(err, CUZK_ERR_BAD_ENCODING, "%s is not a cuzk store (not an SQLite database)",
                    path);
    if (rc != SQLITE_OK)
        return fail(err, CUZK_ERR_IO, "%s: %s", path, sqlite3_errmsg(db));
    *fresh = app == 0 && version == 0 && objects == 0;
    if (*fresh) return CUZK_OK;
    if (app != STORE_APP_ID)
        return fail(err, CUZK_ERR_BAD_ENCODING,
                    "%s is not a cuzk store (an SQLite database of another program)", path);
    if (version > STORE_VERSION)
        return fail(err, CUZK_ERR_BAD_ENCODING,
                    "%s is a version %" PRId64 " store, written by a newer cuzk; this build "
                    "reads version %d", path, version, STORE_VERSION);
    if (version != STORE_VERSION)
        return fail(err, CUZK_ERR_BAD_ENCODING,
                    "%s is a version %" PRId64 " store; this build reads version %d", path,
                    version, STORE_VERSION);
    return CUZK_OK;
}

/* WAL, fsync on every commit, and the schema when the file is new. */
static cuzk_status setup(sqlite3 *db, const char *path, char *err)
{
    int fresh = 0;
    cuzk_status ret = check_file(db, path, &fresh, err);
    if (ret != CUZK_OK) return ret;

    /* journal_mode answers the mode it is in: a file system that cannot
     * do WAL (no shared memory) keeps the old one. */
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(db, "PRAGMA journal_mode = WAL", -1, &st, NULL);
    if (rc == SQLITE_OK) rc = sqlite3_step(st);
    int wal = rc == SQLITE_ROW && !strcasecmp((const char *)sqlite3_column_text(st, 0), "wal");
    sqlite3_finalize(st);
    if (rc != SQLITE_ROW) return fail(err, CUZK_ERR_IO, "%s: %s", path, sqlite3_errmsg(db));
    if (!wal) return fail(err, CUZK_ERR_IO, "%s: cannot use WAL mode on this file system", path);
    rc = sqlite3_exec(db, "PRAGMA synchronous = FULL", NULL, NULL, NULL);
    if (rc != SQLITE_OK) return fail(err, CUZK_ERR_IO, "%s: %s", path, sqlite3_errmsg(db));
    if (!fresh) return CUZK_OK;

    /* Create under the write lock, checking again: another process may have
     * created the store since the first look. */
    rc = sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL);
    if (rc != SQLITE_OK) return fail(err, CUZK_ERR_IO, "%s: %s", path, sqlite3_errmsg(db));
    ret = check_file(db, path, &fresh, err);
    if (ret == CUZK_OK && fresh) {
        char sql[sizeof SCHEMA + 128];
        snprintf(sql, sizeof sql, "%s PRAGMA application_id = %d; PRAGMA user_version = %d;",
                 SCHEMA, STORE_APP_ID, STORE_VERSION);
        rc = sqlite3_exec(db, sql, NULL, NULL, NULL);
        if (rc != SQLITE_OK)
            ret = fail(err, CUZK_ERR_IO, "%s: creating the store: %s", path, sqlite3_errmsg(db));
    }
    if (ret == CUZK_OK && sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
        ret = fail(err, CUZK_ERR_IO, "%s: creating the store: %s", path, sqlite3_errmsg(db));
    if (ret != CUZK_OK) sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
    return ret;
}

cuzk_status cuzk_store_open_sqlite(cuzk_store **out, const char *path, char *err)
{
    if (err) err[0] = 0;
    if (!out || !path || !*path) return fail(err, CUZK_ERR_INVALID_ARGUMENT, "open: no path");
    *out = NULL;
    sq_store *q = calloc(1, sizeof *q);
    if (!q) return fail(err, CUZK_ERR_NO_MEMORY, "open: out of memory");
    if (pthread_mutex_init(&q->mu, NULL)) {
        free(q);
        return fail(err, CUZK_ERR_NO_MEMORY, "open: no mutex");
    }

    cuzk_status ret = CUZK_OK;
    /* NOMUTEX: q->mu already serializes every use of the connection. */
    int rc = sqlite3_open_v2(path, &q->db,
                             SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, NULL);
    if (rc != SQLITE_OK) {
        ret = q->db ? fail(err, CUZK_ERR_IO, "%s: %s", path, sqlite3_errmsg(q->db))
                    : fail(err, CUZK_ERR_NO_MEMORY, "open: out of memory");
        goto out;
    }
    sqlite3_busy_timeout(q->db, STORE_BUSY_MS);
    /* Defensive: no SQL may corrupt the file (writable_schema and the like);
     * untrusted schema: a file's triggers or views run no functions. */
    sqlite3_db_config(q->db, SQLITE_DBCONFIG_DEFENSIVE, 1, (int *)NULL);
    sqlite3_db_config(q->db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, (int *)NULL);
    if ((ret = setup(q->db, path, err)) != CUZK_OK) goto out;

    for (int i = 0; i < ST_N; i++) {
        rc = sqlite3_prepare_v3(q->db, SQL[i], -1, SQLITE_PREPARE_PERSISTENT, &q->st[i], NULL);
        if (rc != SQLITE_OK) {
            ret = fail(err, CUZK_ERR_IO, "%s: %s", path, sqlite3_errmsg(q->db));
            goto out;
        }
    }
    q->base.enqueue = sq_enqueue;
    q->base.lease = sq_lease;
    q->base.complete = sq_complete;
    q->base.fail = sq_fail;
    q->base.requeue_expired = sq_requeue_expired;
    q->base.get = sq_get;
    q->base.scan = sq_scan;
    q->base.purge = sq_purge;
    q->base.close = sq_close;
    q->base.batch = sq_batch;
    *out = &q->base;
out:
    if (ret != CUZK_OK) sq_close(&q->base);
    return ret;
}
