/* The SQLite job store (store.h) on real files in a fresh temporary
 * directory: every transition of the diagram and the refused ones,
 * idempotent enqueue, batch, get, scan order, requeue of expired leases, purge,
 * reopen, a child killed with SIGKILL mid-work, four threads enqueueing at
 * once, and files that are not a store. */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <sqlite3.h>

#include <cuzk/store.h>

#include "test_util.h"

#define T0 1700000000000LL /* a wall-clock time in ms */

static char dir[PATH_MAX];

/* dir/name (and its -wal, -shm) in a static buffer, removed first. */
static const char *fresh_path(const char *name)
{
    static char p[PATH_MAX + 64];
    char side[PATH_MAX + 80];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    unlink(p);
    snprintf(side, sizeof side, "%s-wal", p);
    unlink(side);
    snprintf(side, sizeof side, "%s-shm", p);
    unlink(side);
    return p;
}

static cuzk_store_rec mkrec(const char *rid, const char *circuit, int prio, const char *req)
{
    cuzk_store_rec r;
    memset(&r, 0, sizeof r);
    snprintf(r.request_id, sizeof r.request_id, "%s", rid);
    snprintf(r.circuit, sizeof r.circuit, "%s", circuit);
    r.priority = prio;
    r.request = (char *)req;
    r.request_len = strlen(req);
    return r;
}

static uint64_t enq(cuzk_store *s, const char *rid, const char *req, int64_t now)
{
    cuzk_store_rec r = mkrec(rid, "porep-32g", 1, req);
    uint64_t id = 0;
    int existing = -1;
    char err[CUZK_ERRMSG_LEN];
    cuzk_status st = s->enqueue(s, &r, now, &id, &existing, err);
    CHECK_MSG(st == CUZK_OK && existing == 0 && id > 0, "enqueue %s: %s", rid, err);
    return id;
}

/* The state of job id, or -1 when there is none. */
static int state_of(cuzk_store *s, uint64_t id)
{
    cuzk_store_rec r;
    if (s->get(s, id, NULL, &r, NULL) != CUZK_OK) return -1;
    cuzk_store_rec_free(&r);
    return (int)r.state;
}

static cuzk_store *open_ok(const char *path)
{
    cuzk_store *s = NULL;
    char err[CUZK_ERRMSG_LEN];
    cuzk_status st = cuzk_store_open_sqlite(&s, path, err);
    CHECK_MSG(st == CUZK_OK && s, "open %s: %s", path, err);
    if (!s) exit(1);
    return s;
}

/* ------------------------------------------------------------------------ */

static void test_transitions(void)
{
    cuzk_store *s = open_ok(fresh_path("transitions.db"));
    char err[CUZK_ERRMSG_LEN];
    cuzk_store_rec r;

    uint64_t a = enq(s, "a", "{\"req\":1}", T0);
    uint64_t b = enq(s, "", "b", T0 + 1);
    uint64_t c = enq(s, "", "c", T0 + 2);
    CHECK(a == 1 && b == 2 && c == 3);

    CHECK(s->get(s, a, NULL, &r, err) == CUZK_OK);
    CHECK(r.id == a && r.state == CUZK_STORE_QUEUED && r.attempts == 0 && r.priority == 1);
    CHECK(!strcmp(r.request_id, "a") && !strcmp(r.circuit, "porep-32g"));
    CHECK(r.request_len == 9 && !strcmp(r.request, "{\"req\":1}")); /* NUL-terminated */
    CHECK(r.result == NULL && r.result_len == 0 && r.error[0] == 0);
    CHECK(r.created_ms == T0 && r.finished_ms == 0 && r.lease_until_ms == 0);
    cuzk_store_rec_free(&r);

    /* QUEUED: no complete. */
    CHECK(s->complete(s, a, "x", 1, T0, err) == CUZK_ERR_INVALID_ARGUMENT);
    CHECK_MSG(strstr(err, "store: ") == err && strstr(err, "QUEUED"), "%s", err);

    /* QUEUED -> LEASED -> DONE; a second lease is refused. */
    CHECK(s->lease(s, a, T0 + 100, err) == CUZK_OK && err[0] == 0);
    CHECK(s->lease(s, a, T0 + 100, err) == CUZK_ERR_INVALID_ARGUMENT);
    CHECK_MSG(strstr(err, "LEASED"), "%s", err);
    CHECK(s->get(s, a, NULL, &r, err) == CUZK_OK);
    CHECK(r.state == CUZK_STORE_LEASED && r.attempts == 1 && r.lease_until_ms == T0 + 100);
    cuzk_store_rec_free(&r);
    CHECK(s->complete(s, a, "proof", 5, T0 + 50, err) == CUZK_OK);
    CHECK(s->get(s, a, NULL, &r, err) == CUZK_OK);
    CHECK(r.state == CUZK_STORE_DONE && r.result_len == 5 && !strcmp(r.result, "proof"));
    CHECK(r.finished_ms == T0 + 50 && r.lease_until_ms == 0 && r.attempts == 1);
    cuzk_store_rec_free(&r);

    /* DONE is final. */
    CHECK(s->complete(s, a, "x", 1, T0, err) == CUZK_ERR_INVALID_ARGUMENT);
    CHECK(s->lease(s, a, T0, err) == CUZK_ERR_INVALID_ARGUMENT);
    CHECK(s->fail(s, a, CUZK_STORE_FAILED, "no", T0, err) == CUZK_ERR_INVALID_ARGUMENT);
    CHECK_MSG(strstr(err, "DONE"), "%s", err);

    /* QUEUED -> CANCELED; then final. */
    CHECK(s->fail(s, b, CUZK_STORE_CANCELED, "client canceled", T0 + 60, err) == CUZK_OK);
    CHECK(s->get(s, b, NULL, &r, err) == CUZK_OK);
    CHECK(r.state == CUZK_STORE_CANCELED && !strcmp(r.error, "client canceled"));
    CHECK(r.finished_ms == T0 + 60 && r.result == NULL && r.request_id[0] == 0);
    cuzk_store_rec_free(&r);
    CHECK(s->lease(s, b, T0, err) == CUZK_ERR_INVALID_ARGUMENT);
    CHECK(s->fail(s, b, CUZK_STORE_FAILED, "", T0, err) == CUZK_ERR_INVALID_ARGUMENT);

    /* LEASED -> QUEUED (expired) -> LEASED -> FAILED, the reason cut to fit. */
    CHECK(s->lease(s, c, T0 + 10, err) == CUZK_OK);
    size_t n = 99;
    CHECK(s->requeue_expired(s, T0 + 11, &n, err) == CUZK_OK && n == 1);
    CHECK(state_of(s, c) == CUZK_STORE_QUEUED);
    CHECK(s->lease(s, c, T0 + 20, err) == CUZK_OK);
    char reason[400];
    memset(reason, 'r', sizeof reason - 1);
    reason[sizeof reason - 1] = 0;
    CHECK(s->fail(s, c, CUZK_STORE_FAILED, reason, T0 + 70, err) == CUZK_OK);
    CHECK(s->get(s, c, NULL, &r, err) == CUZK_OK);
    CHECK(r.state == CUZK_STORE_FAILED && r.attempts == 2);
    CHECK(strlen(r.error) == CUZK_ERRMSG_LEN - 1 && r.error[0] == 'r');
    cuzk_store_rec_free(&r);

    /* fail only to FAILED or CANCELED. */
    uint64_t d = enq(s, "", "", T0 + 3); /* an empty request is kept as such */
    CHECK(s->fail(s, d, CUZK_STORE_DONE, "x", T0, err) == CUZK_ERR_INVALID_ARGUMENT);
    CHECK(s->fail(s, d, CUZK_STORE_QUEUED, "x", T0, err) == CUZK_ERR_INVALID_ARGUMENT);
    CHECK(s->get(s, d, NULL, &r, err) == CUZK_OK);
    CHECK(r.state == CUZK_STORE_QUEUED && r.request && r.request_len == 0 && r.request[0] == 0);
    cuzk_store_rec_free(&r);

    /* Unknown jobs. */
    CHECK(s->lease(s, 999, T0, err) == CUZK_ERR_INVALID_ARGUMENT);
    CHECK_MSG(strstr(err, "no job 999"), "%s", err);
    CHECK(s->complete(s, 999, "x", 1, T0, err) == CUZK_ERR_INVALID_ARGUMENT);
    CHECK(s->fail(s, 999, CUZK_STORE_FAILED, "x", T0, err) == CUZK_ERR_INVALID_ARGUMENT);
    CHECK(s->get(s, 999, NULL, &r, err) == CUZK_ERR_INVALID_ARGUMENT);
    CHECK(r.request == NULL && r.result == NULL);

    /* Fields over their bounds. */
    cuzk_store_rec big = mkrec("", "c", 0, "x");
    memset(big.request_id, 'i', sizeof big.request_id); /* no terminator */
    uint64_t id;
    int existing;
    CHECK(s->enqueue(s, &big, T0, &id, &existing, err) == CUZK_ERR_INVALID_ARGUMENT);
    big = mkrec("", "", 0, "x");
    memset(big.circuit, 'c', sizeof big.circuit);
    CHECK(s->enqueue(s, &big, T0, &id, &existing, err) == CUZK_ERR_INVALID_ARGUMENT);
    big = mkrec("", "c", 0, "x");
    big.request_len = (size_t)CUZK_STORE_MAX_BLOB + 1;
    CHECK(s->enqueue(s, &big, T0, &id, &existing, err) == CUZK_ERR_INVALID_ARGUMENT);
    CHECK(s->complete(s, d, NULL, 3, T0, err) == CUZK_ERR_INVALID_ARGUMENT);
    /* Nothing was added by the refused calls. */
    CHECK(state_of(s, d + 1) == -1);

    cuzk_store_close(s);
    cuzk_store_close(NULL);
}

static void test_idempotent(void)
{
    cuzk_store *s = open_ok(fresh_path("idem.db"));
    char err[CUZK_ERRMSG_LEN];
    cuzk_store_rec r = mkrec("job-7", "winning-32g", 3, "first");
    uint64_t id = 0, id2 = 0;
    int existing = -1;
    CHECK(s->enqueue(s, &r, T0, &id, &existing, err) == CUZK_OK && existing == 0);

    /* Again, even with another request: the first job, unchanged. */
    cuzk_store_rec again = mkrec("job-7", "porep-32g", 9, "second");
    CHECK(s->enqueue(s, &again, T0 + 5, &id2, &existing, err) == CUZK_OK);
    CHECK(existing == 1 && id2 == id);
    cuzk_store_rec g;
    CHECK(s->get(s, 0, "job-7", &g, err) == CUZK_OK);
    CHECK(g.id == id && !strcmp(g.request, "first") && !strcmp(g.circuit, "winning-32g"));
    CHECK(g.priority == 3 && g.created_ms == T0 && g.state == CUZK_STORE_QUEUED);
    cuzk_store_rec_free(&g);

    /* In every later state, still that job, and get reports its state. */
    CHECK(s->lease(s, id, T0 + 1000, err) == CUZK_OK);
    CHECK(s->enqueue(s, &again, T0, &id2, &existing, err) == CUZK_OK && existing == 1 && id2 == id);
    CHECK(state_of(s, id) == CUZK_STORE_LEASED);
    CHECK(s->complete(s, id, "{\"proof\":1}", 11, T0 + 9, err) == CUZK_OK);
    CHECK(s->enqueue(s, &again, T0, &id2, &existing, err) == CUZK_OK && existing == 1 && id2 == id);
    CHECK(s->get(s, 0, "job-7", &g, err) == CUZK_OK);
    CHECK(g.state == CUZK_STORE_DONE && !strcmp(g.result, "{\"proof\":1}"));
    cuzk_store_rec_free(&g);

    /* No request_id: every enqueue is a new job. */
    uint64_t n1 = enq(s, "", "x", T0), n2 = enq(s, "", "x", T0);
    CHECK(n1 != n2 && n1 != id && n2 != id);

    /* get: by id wins over request_id; unknown or no key is refused. */
    CHECK(s->get(s, n1, "job-7", &g, err) == CUZK_OK && g.id == n1);
    cuzk_store_rec_free(&g);
    CHECK(s->get(s, 0, "job-8", &g, err) == CUZK_ERR_INVALID_ARGUMENT);
    CHECK_MSG(strstr(err, "job-8"), "%s", err);
    CHECK(s->get(s, 0, NULL, &g, err) == CUZK_ERR_INVALID_ARGUMENT);
    CHECK(s->get(s, 0, "", &g, err) == CUZK_ERR_INVALID_ARGUMENT);
    cuzk_store_close(s);
}

typedef struct {
    uint64_t ids[16];
    size_t n, stop_after;
    cuzk_store *lease_in_fn; /* when set, fn leases each job it is shown */
} scan_log;

static int log_fn(void *ctx, const cuzk_store_rec *r)
{
    scan_log *l = ctx;
    if (l->n < 16) l->ids[l->n] = r->id;
    l->n++;
    if (l->lease_in_fn) CHECK(l->lease_in_fn->lease(l->lease_in_fn, r->id, T0, NULL) == CUZK_OK);
    return l->stop_after && l->n == l->stop_after;
}

static void test_scan(void)
{
    cuzk_store *s = open_ok(fresh_path("scan.db"));
    char err[CUZK_ERRMSG_LEN];
    uint64_t id[6];
    /* created_ms out of order: age is the order of enqueue. */
    for (int i = 0; i < 6; i++) id[i] = enq(s, "", "r", T0 + 100 - i);
    CHECK(s->lease(s, id[4], T0 + 1, err) == CUZK_OK);
    CHECK(s->lease(s, id[1], T0 + 1, err) == CUZK_OK);

    scan_log l = {0};
    CHECK(s->scan(s, CUZK_STORE_QUEUED, log_fn, &l, err) == CUZK_OK);
    CHECK(l.n == 4 && l.ids[0] == id[0] && l.ids[1] == id[2] && l.ids[2] == id[3] &&
          l.ids[3] == id[5]);
    memset(&l, 0, sizeof l);
    CHECK(s->scan(s, CUZK_STORE_LEASED, log_fn, &l, err) == CUZK_OK);
    CHECK(l.n == 2 && l.ids[0] == id[1] && l.ids[1] == id[4]);
    memset(&l, 0, sizeof l);
    CHECK(s->scan(s, CUZK_STORE_DONE, log_fn, &l, err) == CUZK_OK && l.n == 0);

    /* fn returning nonzero stops the scan. */
    memset(&l, 0, sizeof l);
    l.stop_after = 2;
    CHECK(s->scan(s, CUZK_STORE_QUEUED, log_fn, &l, err) == CUZK_OK && l.n == 2);

    /* fn may call the store: lease every queued job from inside the scan. */
    memset(&l, 0, sizeof l);
    l.lease_in_fn = s;
    CHECK(s->scan(s, CUZK_STORE_QUEUED, log_fn, &l, err) == CUZK_OK && l.n == 4);
    memset(&l, 0, sizeof l);
    CHECK(s->scan(s, CUZK_STORE_QUEUED, log_fn, &l, err) == CUZK_OK && l.n == 0);
    CHECK(s->scan(s, CUZK_STORE_QUEUED, NULL, &l, err) == CUZK_ERR_INVALID_ARGUMENT);
    cuzk_store_close(s);
}

static void test_requeue(void)
{
    cuzk_store *s = open_ok(fresh_path("requeue.db"));
    char err[CUZK_ERRMSG_LEN];
    uint64_t q = enq(s, "", "q", T0), a = enq(s, "", "a", T0), b = enq(s, "", "b", T0),
             c = enq(s, "", "c", T0), d = enq(s, "", "d", T0);
    CHECK(s->lease(s, a, T0 + 100, err) == CUZK_OK);
    CHECK(s->lease(s, b, T0 + 200, err) == CUZK_OK);
    CHECK(s->lease(s, c, T0 + 300, err) == CUZK_OK);
    CHECK(s->lease(s, d, T0 + 50, err) == CUZK_OK);
    CHECK(s->complete(s, d, "r", 1, T0 + 10, err) == CUZK_OK);

    size_t n = 99;
    CHECK(s->requeue_expired(s, T0 + 100, &n, err) == CUZK_OK && n == 0); /* ends at, not before */
    CHECK(s->requeue_expired(s, T0 + 201, &n, err) == CUZK_OK && n == 2);
    CHECK(state_of(s, a) == CUZK_STORE_QUEUED && state_of(s, b) == CUZK_STORE_QUEUED);
    CHECK(state_of(s, c) == CUZK_STORE_LEASED && state_of(s, d) == CUZK_STORE_DONE);
    CHECK(state_of(s, q) == CUZK_STORE_QUEUED);
    cuzk_store_rec r;
    CHECK(s->get(s, a, NULL, &r, err) == CUZK_OK && r.lease_until_ms == 0 && r.attempts == 1);
    cuzk_store_rec_free(&r);
    /* After a crash: every lease. */
    CHECK(s->requeue_expired(s, INT64_MAX, &n, err) == CUZK_OK && n == 1);
    CHECK(state_of(s, c) == CUZK_STORE_QUEUED && state_of(s, d) == CUZK_STORE_DONE);
    cuzk_store_close(s);
}

static void test_purge_reopen(void)
{
    const char *path = fresh_path("purge.db");
    cuzk_store *s = open_ok(path);
    char err[CUZK_ERRMSG_LEN];
    uint64_t q = enq(s, "q", "q", T0), l = enq(s, "l", "l", T0), d = enq(s, "d", "d", T0),
             f = enq(s, "f", "f", T0), x = enq(s, "x", "x", T0);
    CHECK(s->lease(s, l, T0 + 1000, err) == CUZK_OK);
    CHECK(s->lease(s, d, T0 + 1000, err) == CUZK_OK);
    CHECK(s->complete(s, d, "proof-d", 7, T0 + 100, err) == CUZK_OK);
    CHECK(s->fail(s, f, CUZK_STORE_FAILED, "bad witness", T0 + 200, err) == CUZK_OK);
    CHECK(s->fail(s, x, CUZK_STORE_CANCELED, "", T0 + 300, err) == CUZK_OK);

    /* Reopen: everything as it was. */
    cuzk_store_rec before[5], after;
    uint64_t ids[5] = {q, l, d, f, x};
    for (int i = 0; i < 5; i++) CHECK(s->get(s, ids[i], NULL, &before[i], err) == CUZK_OK);
    cuzk_store_close(s);
    s = open_ok(path);
    for (int i = 0; i < 5; i++) {
        CHECK(s->get(s, ids[i], NULL, &after, err) == CUZK_OK);
        cuzk_store_rec *b = &before[i];
        CHECK(after.id == b->id && after.state == b->state && after.attempts == b->attempts);
        CHECK(!strcmp(after.request_id, b->request_id) && !strcmp(after.circuit, b->circuit));
        CHECK(after.request_len == b->request_len &&
              !memcmp(after.request, b->request, b->request_len));
        CHECK(after.result_len == b->result_len && (after.result == NULL) == (b->result == NULL));
        CHECK(!b->result || !memcmp(after.result, b->result, b->result_len));
        CHECK(!strcmp(after.error, b->error) && after.priority == b->priority);
        CHECK(after.created_ms == b->created_ms && after.finished_ms == b->finished_ms &&
              after.lease_until_ms == b->lease_until_ms);
        cuzk_store_rec_free(&after);
        cuzk_store_rec_free(b);
    }

    /* Purge by finished time, finished jobs only. */
    size_t n = 99;
    CHECK(s->purge(s, T0 + 100, &n, err) == CUZK_OK && n == 0); /* before, not at */
    CHECK(s->purge(s, T0 + 201, &n, err) == CUZK_OK && n == 2);
    CHECK(state_of(s, d) == -1 && state_of(s, f) == -1);
    CHECK(state_of(s, x) == CUZK_STORE_CANCELED && state_of(s, q) == CUZK_STORE_QUEUED);
    CHECK(s->purge(s, INT64_MAX, &n, err) == CUZK_OK && n == 1);
    CHECK(state_of(s, x) == -1 && state_of(s, l) == CUZK_STORE_LEASED &&
          state_of(s, q) == CUZK_STORE_QUEUED);
    /* Ids are never reused, even the purged newest one's; a purged
     * request_id may be enqueued anew. */
    cuzk_store_close(s);
    s = open_ok(path);
    uint64_t y = enq(s, "d", "again", T0 + 500);
    CHECK(y > x);
    cuzk_store_close(s);
}

/* ------------------------------------------------- kill -9 mid-work -- */

typedef struct {
    int32_t i;
    int32_t state;
    uint64_t id;
} report;

/* The child's script for job i: enqueue, then (i % 3 >= 1) lease, then
 * (i % 3 == 2) complete; each step reported after it returned. */
static int final_state(int i)
{
    return i % 3 == 0 ? CUZK_STORE_QUEUED : i % 3 == 1 ? CUZK_STORE_LEASED : CUZK_STORE_DONE;
}

static void child_work(const char *path, int round, int fd)
{
    cuzk_store *s = NULL;
    if (cuzk_store_open_sqlite(&s, path, NULL) != CUZK_OK) _exit(3);
    for (int i = 0; i < 100000; i++) {
        char rid[32], req[32], res[32];
        snprintf(rid, sizeof rid, "c%d-%d", round, i);
        snprintf(req, sizeof req, "req%d", i);
        snprintf(res, sizeof res, "res%d", i);
        cuzk_store_rec r = mkrec(rid, "porep-32g", 0, req);
        report rep = {i, CUZK_STORE_QUEUED, 0};
        int existing;
        if (s->enqueue(s, &r, T0, &rep.id, &existing, NULL) != CUZK_OK || existing) _exit(4);
        if (write(fd, &rep, sizeof rep) != sizeof rep) _exit(5);
        if (i % 3 == 0) continue;
        if (s->lease(s, rep.id, T0 + 1000, NULL) != CUZK_OK) _exit(6);
        rep.state = CUZK_STORE_LEASED;
        if (write(fd, &rep, sizeof rep) != sizeof rep) _exit(5);
        if (i % 3 == 1) continue;
        if (s->complete(s, rep.id, res, strlen(res), T0 + 10, NULL) != CUZK_OK) _exit(7);
        rep.state = CUZK_STORE_DONE;
        if (write(fd, &rep, sizeof rep) != sizeof rep) _exit(5);
    }
    _exit(0);
}

static void test_crash(void)
{
    const char *p = fresh_path("crash.db");
    char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s", p);
    enum { MAXJ = 256 };
    for (int round = 0; round < 3; round++) {
        int fds[2];
        CHECK(pipe(fds) == 0);
        fflush(NULL);
        pid_t pid = fork();
        if (pid == 0) {
            close(fds[0]);
            child_work(path, round, fds[1]);
        }
        close(fds[1]);
        CHECK(pid > 0);
        if (pid <= 0) return;

        /* Kill after a random number of acknowledged steps; what is still in
         * the pipe was acknowledged too. */
        size_t kill_after = 5 + (size_t)(test_rand64() % 40);
        static int last[MAXJ];
        static uint64_t ids[MAXJ];
        for (int i = 0; i < MAXJ; i++) last[i] = -1;
        int jobs = 0;
        report rep;
        size_t got = 0;
        ssize_t k;
        while ((k = read(fds[0], &rep, sizeof rep)) == (ssize_t)sizeof rep) {
            CHECK(rep.i >= 0 && rep.i < MAXJ);
            if (rep.i < 0 || rep.i >= MAXJ) break;
            last[rep.i] = rep.state;
            ids[rep.i] = rep.id;
            if (rep.i + 1 > jobs) jobs = rep.i + 1;
            if (++got == kill_after) kill(pid, SIGKILL);
        }
        close(fds[0]);
        int ws;
        CHECK(waitpid(pid, &ws, 0) == pid);
        CHECK_MSG(WIFSIGNALED(ws) && WTERMSIG(ws) == SIGKILL, "child status %d", ws);

        /* Every acknowledged step is there; at most one more step (the one
         * the kill cut short before its report) may have been committed. */
        cuzk_store *s = open_ok(path);
        char err[CUZK_ERRMSG_LEN];
        int ahead = 0;
        for (int i = 0; i < jobs; i++) {
            cuzk_store_rec r;
            CHECK(last[i] >= 0);
            CHECK_MSG(s->get(s, ids[i], NULL, &r, err) == CUZK_OK, "round %d job %d: %s", round,
                      i, err);
            char rid[32], req[32], res[32];
            snprintf(rid, sizeof rid, "c%d-%d", round, i);
            snprintf(req, sizeof req, "req%d", i);
            snprintf(res, sizeof res, "res%d", i);
            CHECK(!strcmp(r.request_id, rid) && r.request && !strcmp(r.request, req));
            CHECK_MSG((int)r.state >= last[i] && (int)r.state <= final_state(i),
                      "round %d job %d: state %d, reported %d", round, i, (int)r.state, last[i]);
            ahead += (int)r.state != last[i];
            if (r.state == CUZK_STORE_DONE) CHECK(r.result && !strcmp(r.result, res));
            cuzk_store_rec_free(&r);
        }
        /* A job enqueued but not reported is at most the next one. */
        cuzk_store_rec r;
        char rid[32];
        snprintf(rid, sizeof rid, "c%d-%d", round, jobs);
        if (s->get(s, 0, rid, &r, NULL) == CUZK_OK) {
            ahead++;
            cuzk_store_rec_free(&r);
        }
        snprintf(rid, sizeof rid, "c%d-%d", round, jobs + 1);
        CHECK(s->get(s, 0, rid, &r, NULL) == CUZK_ERR_INVALID_ARGUMENT);
        CHECK_MSG(ahead <= 1, "round %d: %d steps ahead of the reports", round, ahead);
        /* The restart: the dead child's leases go back to the queue. */
        size_t n;
        CHECK(s->requeue_expired(s, INT64_MAX, &n, err) == CUZK_OK);
        cuzk_store_close(s);
    }
}

/* --------------------------------------------------------- threads -- */

enum { THREADS = 4, PER_THREAD = 12, SHARED = 4 };

typedef struct {
    cuzk_store *s;
    int t;
    uint64_t own[PER_THREAD], shared[SHARED];
    int created[SHARED];
    int errors;
} worker;

static void *work(void *arg)
{
    worker *w = arg;
    for (int i = 0; i < PER_THREAD + SHARED; i++) {
        char rid[32];
        int sh = i % 4 == 0 && i / 4 < SHARED;
        if (sh)
            snprintf(rid, sizeof rid, "shared-%d", i / 4);
        else
            snprintf(rid, sizeof rid, "t%d-%d", w->t, i);
        cuzk_store_rec r = mkrec(rid, "c", w->t, "req");
        uint64_t id;
        int existing;
        if (w->s->enqueue(w->s, &r, T0 + i, &id, &existing, NULL) != CUZK_OK) {
            w->errors++;
            continue;
        }
        if (sh) {
            w->shared[i / 4] = id;
            w->created[i / 4] = !existing;
        } else {
            w->own[i - (i / 4 < SHARED ? i / 4 + 1 : SHARED)] = id;
            if (existing) w->errors++;
            /* Other calls interleave with the enqueues. */
            if (i % 2 && (w->s->lease(w->s, id, T0 + 1, NULL) != CUZK_OK ||
                          w->s->complete(w->s, id, "p", 1, T0 + 2, NULL) != CUZK_OK))
                w->errors++;
        }
    }
    return NULL;
}

static int count_fn(void *ctx, const cuzk_store_rec *r)
{
    (void)r;
    ++*(size_t *)ctx;
    return 0;
}

static void test_threads(void)
{
    cuzk_store *s = open_ok(fresh_path("threads.db"));
    worker w[THREADS];
    pthread_t th[THREADS];
    memset(w, 0, sizeof w);
    for (int t = 0; t < THREADS; t++) {
        w[t].s = s;
        w[t].t = t;
        CHECK(pthread_create(&th[t], NULL, work, &w[t]) == 0);
    }
    for (int t = 0; t < THREADS; t++) pthread_join(th[t], NULL);

    /* Own jobs: all distinct. Shared ones: one id each, created once. */
    uint64_t all[THREADS * PER_THREAD + SHARED];
    size_t n = 0;
    for (int t = 0; t < THREADS; t++) {
        CHECK_MSG(w[t].errors == 0, "thread %d: %d errors", t, w[t].errors);
        for (int i = 0; i < PER_THREAD; i++) all[n++] = w[t].own[i];
    }
    for (int k = 0; k < SHARED; k++) {
        int created = 0;
        for (int t = 0; t < THREADS; t++) {
            created += w[t].created[k];
            CHECK(w[t].shared[k] == w[0].shared[k]);
        }
        CHECK(created == 1);
        all[n++] = w[0].shared[k];
    }
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++) CHECK_MSG(all[i] != all[j], "id %" PRIu64 " twice", all[i]);
    size_t rows = 0;
    for (int st = 0; st <= CUZK_STORE_CANCELED; st++)
        CHECK(s->scan(s, (cuzk_store_state)st, count_fn, &rows, NULL) == CUZK_OK);
    CHECK_MSG(rows == n, "%zu rows, %zu jobs", rows, n);
    cuzk_store_close(s);
}

/* ------------------------------------------------- not a store -- */

static size_t slurp(const char *path, unsigned char *buf, size_t cap)
{
    FILE *f = fopen(path, "rb");
    if (!f) return 0;
    size_t n = fread(buf, 1, cap, f);
    fclose(f);
    return n;
}

/* Opening path is refused with a message containing want, and leaves the
 * file as it was. */
static void refused(const char *path, cuzk_status want_st, const char *want)
{
    static unsigned char before[1 << 16], after[1 << 16];
    size_t nb = slurp(path, before, sizeof before);
    cuzk_store *s = (cuzk_store *)1;
    char err[CUZK_ERRMSG_LEN];
    cuzk_status st = cuzk_store_open_sqlite(&s, path, err);
    CHECK_MSG(st == want_st && s == NULL && strstr(err, want) && !strncmp(err, "store: ", 7),
              "%s: status %d, '%s'", path, (int)st, err);
    size_t na = slurp(path, after, sizeof after);
    CHECK(na == nb && !memcmp(before, after, nb));
    char wal[PATH_MAX + 80];
    snprintf(wal, sizeof wal, "%s-wal", path);
    CHECK(access(wal, F_OK) != 0);
}

static void make_db(const char *path, const char *sql)
{
    sqlite3 *db;
    CHECK(sqlite3_open(path, &db) == SQLITE_OK);
    CHECK(sqlite3_exec(db, sql, NULL, NULL, NULL) == SQLITE_OK);
    sqlite3_close(db);
}

static void test_foreign(void)
{
    const char *p = fresh_path("random.bin");
    FILE *f = fopen(p, "wb");
    for (int i = 0; i < 4096; i++) fputc((int)(test_rand64() & 0xff), f);
    fclose(f);
    refused(p, CUZK_ERR_BAD_ENCODING, "not a cuzk store (not an SQLite database)");

    p = fresh_path("text.txt");
    f = fopen(p, "wb");
    fputs("[server]\nlisten = \"unix:/run/cuzk.sock\"\n", f);
    fclose(f);
    refused(p, CUZK_ERR_BAD_ENCODING, "not an SQLite database");

    p = fresh_path("other.db");
    make_db(p, "CREATE TABLE jobs (id INTEGER PRIMARY KEY, name TEXT);"
               "INSERT INTO jobs (name) VALUES ('theirs');");
    refused(p, CUZK_ERR_BAD_ENCODING, "another program");

    p = fresh_path("newer.db");
    make_db(p, "CREATE TABLE jobs (x); PRAGMA application_id = 1668643435;"
               "PRAGMA user_version = 99;");
    refused(p, CUZK_ERR_BAD_ENCODING, "newer cuzk");

    /* No such directory, or a directory: the database cannot open. */
    char bad[PATH_MAX + 64];
    snprintf(bad, sizeof bad, "%s/no/such/dir/x.db", dir);
    cuzk_store *s = NULL;
    char err[CUZK_ERRMSG_LEN];
    CHECK(cuzk_store_open_sqlite(&s, bad, err) == CUZK_ERR_IO && s == NULL && err[0]);
    CHECK(cuzk_store_open_sqlite(&s, dir, err) != CUZK_OK && s == NULL && err[0]);
    CHECK(cuzk_store_open_sqlite(&s, "", err) == CUZK_ERR_INVALID_ARGUMENT);

    /* An empty file (touched beside the config) becomes a store. */
    p = fresh_path("empty.db");
    f = fopen(p, "wb");
    fclose(f);
    s = open_ok(p);
    uint64_t id = enq(s, "e", "e", T0);
    CHECK(id == 1);
    cuzk_store_close(s);
}

static void rm_dir(void)
{
    const char *names[] = {"transitions.db", "idem.db", "scan.db", "requeue.db", "purge.db",
                           "crash.db", "threads.db", "random.bin", "text.txt", "other.db",
                           "newer.db", "empty.db", "batch.db"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) fresh_path(names[i]);
    CHECK_MSG(rmdir(dir) == 0, "rmdir %s: %s", dir, strerror(errno));
}

/* batch: leases, ends and refusals in one transaction, in order; the
 * refused ops change nothing and leave the others; the result survives a
 * reopen (committed). */
static void test_batch(void)
{
    const char *path = fresh_path("batch.db");
    cuzk_store *s = open_ok(path);
    char err[CUZK_ERRMSG_LEN];
    CHECK(s->batch != NULL);
    uint64_t a = enq(s, "ba", "{}", T0), b = enq(s, "bb", "{}", T0), c = enq(s, "bc", "{}", T0);
    cuzk_store_op ops[8];
    memset(ops, 0, sizeof ops);
    /* lease a, b; complete a (LEASED by op 0: order matters); complete c
     * (QUEUED: refused); cancel b; lease 999 (no job); an unknown kind;
     * fail c from QUEUED. */
    ops[0] = (cuzk_store_op){.kind = CUZK_STORE_OP_LEASE, .id = a, .ms = T0 + 100};
    ops[1] = (cuzk_store_op){.kind = CUZK_STORE_OP_LEASE, .id = b, .ms = T0 + 100};
    ops[2] = (cuzk_store_op){.kind = CUZK_STORE_OP_COMPLETE, .id = a, .ms = T0 + 5,
                             .data = "proof-a", .len = 7};
    ops[3] = (cuzk_store_op){.kind = CUZK_STORE_OP_COMPLETE, .id = c, .ms = T0 + 5,
                             .data = "x", .len = 1};
    ops[4] = (cuzk_store_op){.kind = CUZK_STORE_OP_CANCEL, .id = b, .ms = T0 + 6,
                             .data = "canceled"};
    ops[5] = (cuzk_store_op){.kind = CUZK_STORE_OP_LEASE, .id = 999, .ms = T0};
    ops[6] = (cuzk_store_op){.kind = (cuzk_store_op_kind)9, .id = a};
    ops[7] = (cuzk_store_op){.kind = CUZK_STORE_OP_FAIL, .id = c, .ms = T0 + 7, .data = NULL};
    CHECK(s->batch(s, ops, 8, err) == CUZK_OK && err[0] == 0);
    CHECK(ops[0].st == CUZK_OK && ops[1].st == CUZK_OK && ops[2].st == CUZK_OK);
    CHECK_MSG(ops[3].st == CUZK_ERR_INVALID_ARGUMENT && strstr(ops[3].err, "QUEUED"), "%s",
              ops[3].err);
    CHECK(ops[4].st == CUZK_OK);
    CHECK_MSG(ops[5].st == CUZK_ERR_INVALID_ARGUMENT && strstr(ops[5].err, "no job 999"), "%s",
              ops[5].err);
    CHECK_MSG(ops[6].st == CUZK_ERR_INVALID_ARGUMENT && strstr(ops[6].err, "unknown kind"), "%s",
              ops[6].err);
    CHECK(ops[7].st == CUZK_OK);
    CHECK(s->batch(s, ops, 0, err) == CUZK_OK);
    /* Enqueue in a batch: a new job, a known request_id, a bad one. */
    cuzk_store_rec nr = mkrec("bd", "porep-32g", 2, "{\"d\":1}"), kr = mkrec("ba", "x", 1, "{}"),
                   br = mkrec("", "porep-32g", 1, "{}");
    memset(br.circuit, 'c', sizeof br.circuit); /* no terminator within the bound */
    cuzk_store_op eo[3];
    memset(eo, 0, sizeof eo);
    for (int i = 0; i < 3; i++) {
        eo[i].kind = CUZK_STORE_OP_ENQUEUE;
        eo[i].ms = T0 + 9;
    }
    eo[0].rec = &nr;
    eo[1].rec = &kr;
    eo[2].rec = &br;
    CHECK(s->batch(s, eo, 3, err) == CUZK_OK);
    CHECK(eo[0].st == CUZK_OK && eo[0].existing == 0 && eo[0].id == c + 1);
    CHECK(eo[1].st == CUZK_OK && eo[1].existing == 1 && eo[1].id == a);
    CHECK_MSG(eo[2].st == CUZK_ERR_INVALID_ARGUMENT && strstr(eo[2].err, "at most"), "%s",
              eo[2].err);
    CHECK(s->batch(s, NULL, 1, err) == CUZK_ERR_INVALID_ARGUMENT && err[0]);
    s->close(s);

    s = open_ok(path);
    cuzk_store_rec r;
    CHECK(s->get(s, a, NULL, &r, err) == CUZK_OK);
    CHECK(r.state == CUZK_STORE_DONE && r.attempts == 1 && r.result_len == 7 &&
          !strcmp(r.result, "proof-a") && r.finished_ms == T0 + 5);
    cuzk_store_rec_free(&r);
    CHECK(s->get(s, b, NULL, &r, err) == CUZK_OK);
    CHECK(r.state == CUZK_STORE_CANCELED && !strcmp(r.error, "canceled") && r.attempts == 1);
    cuzk_store_rec_free(&r);
    CHECK(s->get(s, c, NULL, &r, err) == CUZK_OK);
    CHECK(r.state == CUZK_STORE_FAILED && r.error[0] == 0 && r.attempts == 0);
    cuzk_store_rec_free(&r);
    CHECK(s->get(s, c + 1, NULL, &r, err) == CUZK_OK);
    CHECK(r.state == CUZK_STORE_QUEUED && !strcmp(r.request_id, "bd") && r.priority == 2 &&
          !strcmp(r.request, "{\"d\":1}") && r.created_ms == T0 + 9);
    cuzk_store_rec_free(&r);
    CHECK(state_of(s, c + 2) == -1);
    s->close(s);
}

int main(void)
{
    test_seed("test_store");
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/cuzk-store-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    test_transitions();
    test_idempotent();
    test_scan();
    test_requeue();
    test_batch();
    test_purge_reopen();
    test_crash();
    test_threads();
    test_foreign();
    rm_dir();
    return test_done("test_store");
}
