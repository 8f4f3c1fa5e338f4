/* cuzk — the daemon: sockets, libmicrohttpd, routing, long polls.
 *
 * Threads: libmicrohttpd's polling threads (http_threads) run the handlers,
 * which only parse, call the engine and answer; one waker thread resumes
 * suspended long polls and purges the store; one loader thread loads the
 * keys of the circuits posted to the API (cuzk_engine_register_load), one
 * at a time; the engine has its own (engine.h).
 *
 * Long poll: a handler that must wait for a job puts its request on the
 * waiter list and suspends the connection (no thread is held). The waker
 * follows the engine's timeline (every 10 ms while someone waits) and
 * resumes a waiter when its job's done/failed/canceled event appears, its
 * deadline passes, or the server stops (a circuit's waiters are resumed by
 * the loader when the load ends); libmicrohttpd then calls the
 * handler again, which answers with the job as it stands. A waiter new
 * since the waker's last pass is checked directly once (its job may have
 * finished between the handler's look and the suspension). This was chosen
 * over a thread per connection because 200 clients waiting on proofs
 * would otherwise be 200 threads on a 2-core machine. */
#define _GNU_SOURCE /* accept4 flags, MSG_NOSIGNAL in libmicrohttpd's header */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>
#include <microhttpd.h>

#include <cuzk/engine.h>
#include <cuzk/pool.h>
#include <cuzk/prove.h>
#include <cuzk/server.h>

#include "common/errmsg.h"

#define SRV_ERR(err, s, ...) cuzk_errf(err, s, "server: ", __VA_ARGS__)

/* One HTTP request (libmicrohttpd's per-request pointer). */
typedef struct req {
    struct cuzk_server *srv;
    struct MHD_Connection *conn;
    int tcp;             /* arrived on TCP: authenticated */
    char *body;          /* the upload so far, malloc'd */
    size_t len, cap;
    int too_large;       /* a chunked body passed max_body: 413 at its end */
    /* long poll */
    uint64_t job;        /* the job awaited; 0 = none yet */
    int has_deadline;
    int64_t deadline_ms; /* monotonic */
    int fresh;           /* on the list, not yet checked by the waker */
    int accepted_new;    /* POST ...?wait: 202/200 and "existing" */
    int existing;
    struct req *next;    /* the waiter list */
    /* POST /v1/circuits, GET /v1/circuits/NAME?wait: the circuit awaited
     * while its key loads ("" = none); circ_post: a registration, answered
     * 201/200 ready, 202 loading, 400 failed */
    char circ[CUZK_ENGINE_ID_LEN];
    int circ_post, circ_existing;
} req;

/* At most this many loads wait for the loader (one runs at a time: a key
 * load or setup uses every core anyway); more registrations get 503. */
#define REG_QUEUE_MAX 8

/* What a daemon's handler is given: the server and the transport. */
typedef struct {
    struct cuzk_server *srv;
    int tcp;
} listener;

struct cuzk_server {
    cuzk_server_config cfg;
    listener lis_unix, lis_tcp;
    cuzk_store *store;
    cuzk_engine *engine;
    struct MHD_Daemon *unix_d, *tcp_d;
    int unix_fd, tcp_fd;     /* -1 once handed to libmicrohttpd */
    int sock_bound;          /* sock_path is ours to remove */
    char sock_path[CUZK_API_PATH_MAX * 2 + 2];
    char tcp_addr[160];      /* what TCP is bound to, port resolved */
    char token[256];
    size_t token_len;
    FILE *log;
    pthread_mutex_t log_mu;
    atomic_int stopping;
    atomic_uint_fast64_t n_requests, n_4xx, n_5xx;
    int64_t start_ms;
    /* waiters, guarded by mu */
    pthread_mutex_t mu;
    pthread_cond_t cv;
    req *waiters;
    size_t n_waiters;
    int waker_quit;
    int waker_started;
    pthread_t waker;
    uint64_t tl_cursor;      /* the waker's own; no lock */
    /* the loader: the circuits whose load is queued (reg_q, FIFO) or
     * running (n_reg counts both), guarded by mu */
    pthread_cond_t reg_cv;
    char reg_q[REG_QUEUE_MAX][CUZK_ENGINE_ID_LEN];
    char reg_now[CUZK_ENGINE_ID_LEN]; /* the load running; "" none */
    size_t reg_first, reg_queued, n_reg;
    int reg_quit, reg_started, reg_exited;
    pthread_t loader;
};

static int64_t mono_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int64_t wall_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

__attribute__((format(printf, 2, 3))) static void logf_(cuzk_server *s, const char *fmt, ...)
{
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    pthread_mutex_lock(&s->log_mu);
    fprintf(s->log, "cuzk serve: %s\n", line);
    fflush(s->log);
    pthread_mutex_unlock(&s->log_mu);
}

/* The engine's operator lines (cuzk_engine_config.log) into the log. */
static void engine_log(void *ctx, const char *line) { logf_((cuzk_server *)ctx, "%s", line); }

/* ------------------------------------------------------------ replies -- */

static enum MHD_Result reply_text(req *r, unsigned code, const char *type, char *text, size_t len)
{
    /* text is malloc'd; libmicrohttpd frees it with free() */
    struct MHD_Response *resp =
        MHD_create_response_from_buffer(len, text, MHD_RESPMEM_MUST_FREE);
    if (!resp) {
        free(text);
        return MHD_NO;
    }
    MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, type);
    if (code == MHD_HTTP_UNAUTHORIZED)
        MHD_add_response_header(resp, MHD_HTTP_HEADER_WWW_AUTHENTICATE, "Bearer");
    enum MHD_Result ret = MHD_queue_response(r->conn, code, resp);
    MHD_destroy_response(resp);
    atomic_fetch_add(&r->srv->n_requests, 1);
    if (code >= 500) atomic_fetch_add(&r->srv->n_5xx, 1);
    else if (code >= 400) atomic_fetch_add(&r->srv->n_4xx, 1);
    return ret;
}

/* The dashboard page (src/server/dashboard.html, embedded at build time by
 * cmake/embed.cmake). */
extern const unsigned char cuzk_dashboard_html[];
extern const size_t cuzk_dashboard_html_len;

/* GET / and /index.html: the dashboard. It is served without the token on
 * TCP because it holds no data: its script reads the token from the URL
 * fragment (never sent to a server) or asks for it, keeps it in
 * sessionStorage and sends it as a bearer header on each API call. The
 * policy lets it talk to this origin only, and no page may frame it. */
static enum MHD_Result reply_page(req *r)
{
    struct MHD_Response *resp = MHD_create_response_from_buffer(
        cuzk_dashboard_html_len, (void *)cuzk_dashboard_html, MHD_RESPMEM_PERSISTENT);
    if (!resp) return MHD_NO;
    MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, "text/html; charset=utf-8");
    MHD_add_response_header(resp, "Content-Security-Policy",
                            "default-src 'none'; script-src 'unsafe-inline'; "
                            "style-src 'unsafe-inline'; connect-src 'self'; img-src data:; "
                            "base-uri 'none'; form-action 'none'; frame-ancestors 'none'");
    MHD_add_response_header(resp, "Referrer-Policy", "no-referrer");
    MHD_add_response_header(resp, "X-Content-Type-Options", "nosniff");
    MHD_add_response_header(resp, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
    enum MHD_Result ret = MHD_queue_response(r->conn, MHD_HTTP_OK, resp);
    MHD_destroy_response(resp);
    atomic_fetch_add(&r->srv->n_requests, 1);
    return ret;
}

static int is_page(const char *url)
{
    return !strcmp(url, "/") || !strcmp(url, "/index.html");
}

/* Answers with j (reference stolen) as JSON. */
static enum MHD_Result reply_json(req *r, unsigned code, json_t *j)
{
    /* 9 digits: milliseconds print as 244.136, not 244.13600000000001 */
    char *text = j ? json_dumps(j, JSON_COMPACT | JSON_REAL_PRECISION(9)) : NULL;
    json_decref(j);
    if (!text) return MHD_NO;
    size_t n = strlen(text);
    char *t = realloc(text, n + 2); /* a trailing newline for shells */
    if (!t) {
        free(text);
        return MHD_NO;
    }
    t[n] = '\n';
    t[n + 1] = 0;
    return reply_text(r, code, "application/json", t, n + 1);
}

__attribute__((format(printf, 3, 4))) static enum MHD_Result reply_err(req *r, unsigned code,
                                                                      const char *fmt, ...)
{
    char msg[CUZK_ERRMSG_LEN + 128];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return reply_json(r, code, json_pack("{s:s}", "error", msg));
}

/* The HTTP status for an engine error: the caller's fault (4xx) or ours. */
static unsigned status_code(cuzk_status s)
{
    switch (s) {
    case CUZK_OK: return MHD_HTTP_OK;
    case CUZK_ERR_CANCELED: return MHD_HTTP_SERVICE_UNAVAILABLE; /* shutting down */
    case CUZK_ERR_NO_MEMORY:
    case CUZK_ERR_IO:
    case CUZK_ERR_CUDA:
    case CUZK_ERR_NO_DEVICE: return MHD_HTTP_INTERNAL_SERVER_ERROR;
    default: return MHD_HTTP_BAD_REQUEST;
    }
}

/* ------------------------------------------------------------- pieces -- */

/* The query arguments of r (at most max), for the request parser. */
typedef struct {
    cuzk_api_arg *args;
    size_t n, max;
} argv_ctx;

static enum MHD_Result collect_arg(void *cls, enum MHD_ValueKind kind, const char *key,
                                   const char *value)
{
    (void)kind;
    argv_ctx *a = cls;
    if (a->n == a->max) return MHD_NO;
    a->args[a->n++] = (cuzk_api_arg){key, value};
    return MHD_YES;
}

static size_t query_args(req *r, cuzk_api_arg *args, size_t max)
{
    argv_ctx a = {args, 0, max};
    MHD_get_connection_values(r->conn, MHD_GET_ARGUMENT_KIND, collect_arg, &a);
    return a.n;
}

/* Only the named query arguments are allowed; NULL if all are, else the
 * first one that is not. */
static const char *unknown_arg(req *r, const char *const *allowed)
{
    cuzk_api_arg args[16];
    size_t n = query_args(r, args, 16);
    for (size_t i = 0; i < n; i++) {
        int ok = 0;
        for (size_t k = 0; allowed[k] && !ok; k++) ok = !strcmp(args[i].key, allowed[k]);
        if (!ok) return args[i].key;
    }
    return NULL;
}

static int parse_u64(const char *v, uint64_t *out)
{
    if (!v || *v < '0' || *v > '9') return 0;
    errno = 0;
    char *end;
    unsigned long long x = strtoull(v, &end, 10);
    if (*end || errno) return 0;
    *out = x;
    return 1;
}

/* The job's JSON as GET /v1/jobs/ID answers it: the state and, when done,
 * the result's fields (proof, public, timings, partitions). */
static json_t *job_json(const cuzk_job_info *in)
{
    json_t *j = json_pack("{s:I,s:s,s:s,s:s,s:I,s:I,s:I,s:I,s:f,s:f}", "id", (json_int_t)in->id,
                          "state", cuzk_job_state_name(in->state), "circuit", in->circuit,
                          "priority", cuzk_priority_name(in->priority), "partitions",
                          (json_int_t)in->partitions, "partitions_done",
                          (json_int_t)in->partitions_done, "attempts", (json_int_t)in->attempts,
                          "queue_position", (json_int_t)in->queue_position, "queued_ms",
                          in->queued_ms, "total_ms", in->total_ms);
    if (!j) return NULL;
    if (in->request_id[0]) json_object_set_new(j, "request_id", json_string(in->request_id));
    if (in->state == CUZK_JOB_FAILED || in->state == CUZK_JOB_CANCELED)
        json_object_set_new(j, "error", json_string(in->error[0] ? in->error
                                                                  : cuzk_strerror(in->status)));
    if (in->state == CUZK_JOB_DONE && in->result_json) {
        json_t *res = json_loadb(in->result_json, in->result_len, 0, NULL);
        if (json_is_object(res)) {
            json_object_del(res, "circuit"); /* already there */
            json_object_update(j, res);
        } else {
            json_object_set_new(j, "error", json_string("the stored result is unreadable"));
        }
        json_decref(res);
    }
    return j;
}

static int finished(cuzk_job_state s)
{
    return s == CUZK_JOB_DONE || s == CUZK_JOB_FAILED || s == CUZK_JOB_CANCELED;
}

/* Suspends r among the waiters (the waker looks at it again when something
 * ends and at its deadline; fresh: once at once, in case what it waits for
 * ended between the caller's look and now). Under mu, as the waker resumes
 * under mu, so it never resumes a connection not yet suspended. Returns 0
 * (nothing done) when the server is stopping: then answer now. */
static int suspend_waiter(req *r)
{
    cuzk_server *s = r->srv;
    pthread_mutex_lock(&s->mu);
    if (atomic_load(&s->stopping)) {
        pthread_mutex_unlock(&s->mu);
        return 0;
    }
    r->fresh = 1;
    r->next = s->waiters;
    s->waiters = r;
    s->n_waiters++;
    MHD_suspend_connection(r->conn);
    pthread_cond_signal(&s->cv);
    pthread_mutex_unlock(&s->mu);
    return 1;
}

/* Answers the awaited job r->job now, or suspends r until it finishes or
 * its deadline passes (then libmicrohttpd calls the handler again and we
 * come back here). */
static enum MHD_Result answer_or_wait(req *r)
{
    cuzk_server *s = r->srv;
    cuzk_job_info in;
    char err[CUZK_ERRMSG_LEN];
    if (cuzk_engine_job(s->engine, r->job, &in, err) != CUZK_OK)
        return reply_err(r, MHD_HTTP_NOT_FOUND, "no job %llu", (unsigned long long)r->job);
    int done = finished(in.state);
    if (!done && r->has_deadline && mono_ms() < r->deadline_ms && suspend_waiter(r)) {
        cuzk_job_info_free(&in);
        return MHD_YES;
    }
    json_t *j = job_json(&in);
    unsigned code = MHD_HTTP_OK;
    if (r->accepted_new || r->existing) { /* a submission that waited */
        json_object_set_new(j, "existing", json_boolean(r->existing));
        if (!done) code = MHD_HTTP_ACCEPTED;
    }
    cuzk_job_info_free(&in);
    return reply_json(r, code, j);
}

/* ?wait=S of r: sets the deadline; 0 with an answer queued when bad. */
static int take_wait(req *r, unsigned def_s, enum MHD_Result *ret)
{
    const char *w = MHD_lookup_connection_value(r->conn, MHD_GET_ARGUMENT_KIND, "wait");
    unsigned secs = def_s;
    char err[CUZK_ERRMSG_LEN];
    if (w && cuzk_api_parse_wait(w, r->srv->cfg.max_wait_s, &secs, err) != CUZK_OK) {
        *ret = reply_err(r, MHD_HTTP_BAD_REQUEST, "%s", err);
        return 0;
    }
    r->has_deadline = secs > 0;
    r->deadline_ms = mono_ms() + (int64_t)secs * 1000;
    return 1;
}

/* -------------------------------------------------------------- routes -- */

/* POST /v1/jobs (and /v1/prove: the same, waiting by default). */
static enum MHD_Result post_job(req *r, int prove)
{
    cuzk_server *s = r->srv;
    cuzk_api_arg args[16];
    size_t n = query_args(r, args, 16);
    if (n == 16) return reply_err(r, MHD_HTTP_BAD_REQUEST, "too many query arguments");
    char err[CUZK_ERRMSG_LEN];
    cuzk_api_job j;
    if (cuzk_api_parse_job(&j, (const uint8_t *)r->body, r->len, args, n, err) != CUZK_OK)
        return reply_err(r, MHD_HTTP_BAD_REQUEST, "%s", err);
    enum MHD_Result ret;
    if (!take_wait(r, prove ? s->cfg.max_wait_s : 0, &ret)) {
        cuzk_api_job_free(&j);
        return ret;
    }
    cuzk_circuit_desc d;
    if (cuzk_engine_circuit(s->engine, j.circuit, &d, NULL) != CUZK_OK) {
        ret = reply_err(r, MHD_HTTP_NOT_FOUND, "no circuit \"%s\" (GET /v1/circuits lists them)",
                        j.circuit);
        cuzk_api_job_free(&j);
        return ret;
    }
    if (d.state == CUZK_CIRCUIT_FAILED) { /* until it is registered again */
        ret = reply_err(r, MHD_HTTP_CONFLICT, "circuit %s failed to load: %s", d.name, d.error);
        cuzk_api_job_free(&j);
        return ret;
    }
    cuzk_job_request rq = {.circuit = j.circuit,
                           .priority = j.priority,
                           .request_id = j.request_id,
                           .inputs = j.inputs,
                           .inputs_len = j.inputs_len,
                           .wtns = j.wtns,
                           .wtns_len = j.wtns_len,
                           .wtns_path = j.wtns_path};
    uint64_t id = 0;
    int existing = 0;
    cuzk_status st = cuzk_engine_submit(s->engine, &rq, &id, &existing, err);
    cuzk_api_job_free(&j);
    if (st != CUZK_OK) return reply_err(r, status_code(st), "%s", err);
    r->job = id;
    r->existing = existing;
    r->accepted_new = !existing;
    if (r->has_deadline) return answer_or_wait(r);
    cuzk_job_info in;
    size_t pos = 0;
    const char *state = "queued";
    if (cuzk_engine_job(s->engine, id, &in, NULL) == CUZK_OK) {
        pos = in.queue_position;
        state = cuzk_job_state_name(in.state);
        cuzk_job_info_free(&in);
    }
    json_t *res = json_pack("{s:I,s:s,s:I,s:b}", "id", (json_int_t)id, "state", state,
                            "queue_position", (json_int_t)pos, "existing", existing);
    /* It waits for its key (it runs once the circuit is ready). */
    if (res && d.state == CUZK_CIRCUIT_LOADING)
        json_object_set_new(res, "circuit_state", json_string("loading"));
    return reply_json(r, MHD_HTTP_ACCEPTED, res);
}

/* GET /v1/jobs/ID/proof or /public[?partition=P]: the snarkjs file as
 * is (proof.json, public.json), for scripts and `cuzk verify`. */
static enum MHD_Result job_part(req *r, uint64_t id, int proof)
{
    static const char *const allowed[] = {"partition", NULL};
    const char *bad = unknown_arg(r, allowed);
    if (bad) return reply_err(r, MHD_HTTP_BAD_REQUEST, "unknown query argument \"%.64s\"", bad);
    const char *pv = MHD_lookup_connection_value(r->conn, MHD_GET_ARGUMENT_KIND, "partition");
    uint64_t part = 0;
    if (pv && !parse_u64(pv, &part))
        return reply_err(r, MHD_HTTP_BAD_REQUEST, "partition: expected an integer >= 0");
    cuzk_job_info in;
    if (cuzk_engine_job(r->srv->engine, id, &in, NULL) != CUZK_OK)
        return reply_err(r, MHD_HTTP_NOT_FOUND, "no job %llu", (unsigned long long)id);
    enum MHD_Result ret;
    json_t *res = NULL;
    if (in.state != CUZK_JOB_DONE || !in.result_json) {
        ret = reply_err(r, MHD_HTTP_CONFLICT, "job %llu is %s, not done", (unsigned long long)id,
                        cuzk_job_state_name(in.state));
        goto out;
    }
    res = json_loadb(in.result_json, in.result_len, 0, NULL);
    json_t *v = json_object_get(res, proof ? "proof" : "public");
    json_t *parts = json_object_get(res, "partitions");
    if (json_is_integer(parts) && json_integer_value(parts) > 1) /* one per partition */
        v = json_array_get(v, (size_t)part);
    else if (part > 0)
        v = NULL;
    if (!v) {
        ret = reply_err(r, MHD_HTTP_NOT_FOUND, "job %llu has no partition %llu",
                        (unsigned long long)id, (unsigned long long)part);
        goto out;
    }
    ret = reply_json(r, MHD_HTTP_OK, json_incref(v));
out:
    json_decref(res);
    cuzk_job_info_free(&in);
    return ret;
}

/* GET / DELETE /v1/jobs/ID, GET /v1/jobs/ID/proof, /v1/jobs/ID/public */
static enum MHD_Result job_route(req *r, const char *method, const char *path)
{
    cuzk_server *s = r->srv;
    char idstr[32];
    const char *sub = strchr(path, '/');
    size_t il = sub ? (size_t)(sub - path) : strlen(path);
    uint64_t id = 0;
    if (il < sizeof idstr) {
        memcpy(idstr, path, il);
        idstr[il] = 0;
    }
    if (il >= sizeof idstr || !parse_u64(idstr, &id) || id == 0)
        return reply_err(r, MHD_HTTP_NOT_FOUND, "no job \"%.32s\" (ids are numbers from 1)", path);
    if (sub) {
        int proof = !strcmp(sub, "/proof");
        if (!proof && strcmp(sub, "/public")) return reply_err(r, MHD_HTTP_NOT_FOUND, "no such endpoint");
        if (strcmp(method, MHD_HTTP_METHOD_GET))
            return reply_err(r, MHD_HTTP_METHOD_NOT_ALLOWED, "%s: use GET", sub + 1);
        return job_part(r, id, proof);
    }
    if (!strcmp(method, MHD_HTTP_METHOD_GET)) {
        static const char *const allowed[] = {"wait", NULL};
        const char *bad = unknown_arg(r, allowed);
        if (bad) return reply_err(r, MHD_HTTP_BAD_REQUEST, "unknown query argument \"%.64s\"", bad);
        if (!r->job) { /* the first pass, not a resumed one */
            enum MHD_Result ret;
            if (!take_wait(r, 0, &ret)) return ret;
            r->job = id;
        }
        return answer_or_wait(r);
    }
    if (!strcmp(method, MHD_HTTP_METHOD_DELETE)) {
        char err[CUZK_ERRMSG_LEN];
        if (cuzk_engine_cancel(s->engine, id, err) != CUZK_OK)
            return reply_err(r, MHD_HTTP_NOT_FOUND, "no job %llu", (unsigned long long)id);
        r->job = id;
        r->has_deadline = 0;
        return answer_or_wait(r);
    }
    return reply_err(r, MHD_HTTP_METHOD_NOT_ALLOWED, "%s /v1/jobs/ID: use GET or DELETE", method);
}

static json_t *circuit_json(cuzk_server *s, const cuzk_circuit_desc *d, int with_vk)
{
    json_t *j = json_pack(
        "{s:s,s:s,s:I,s:s,s:s,s:b,s:I,s:I,s:I,s:I,s:s,s:I,s:I,s:I,s:I}", "name", d->name,
        "builtin", d->builtin, "log_size", (json_int_t)d->log_size, "key_path", d->key_path,
        "label", d->label, "insecure", d->insecure, "partitions", (json_int_t)d->partitions,
        "n_vars", (json_int_t)d->n_vars, "n_public", (json_int_t)d->n_public, "log_domain",
        (json_int_t)d->log_domain, "tier", cuzk_key_tier_name(d->tier), "refcount",
        (json_int_t)d->refcount, "key_bytes", (json_int_t)d->key_bytes, "ws_bytes",
        (json_int_t)d->ws_bytes, "proofs", (json_int_t)d->proofs);
    if (j) json_object_set_new(j, "resident_devices", json_integer(d->resident_devices));
    if (j) json_object_set_new(j, "backend", json_string(d->backend));
    if (j) json_object_set_new(j, "id", json_string(d->name)); /* what jobs name it by */
    if (j) json_object_set_new(j, "state", json_string(cuzk_circuit_state_name(d->state)));
    if (j && d->state == CUZK_CIRCUIT_FAILED)
        json_object_set_new(j, "error", json_string(d->error));
    if (j && with_vk && d->state != CUZK_CIRCUIT_READY) {
        json_object_set_new(j, "vk", json_null());
    } else if (j && with_vk) {
        char *vk = NULL;
        json_t *v = NULL;
        if (cuzk_engine_circuit_vk_json(s->engine, d->name, &vk, NULL) == CUZK_OK)
            v = json_loads(vk, 0, NULL);
        free(vk);
        json_object_set_new(j, "vk", v ? v : json_null());
    }
    return j;
}

/* Answers the awaited circuit r->circ now, or suspends r (on the waiter
 * list, as answer_or_wait does a job) until its load ends or the deadline
 * passes. A GET answers 200 with the circuit; a registration (circ_post)
 * 201 (200 when it existed) once READY, 202 while LOADING, 400 with the
 * load's error once FAILED, 503 when the server stops before its load. */
static enum MHD_Result circ_answer_or_wait(req *r)
{
    cuzk_server *s = r->srv;
    cuzk_circuit_desc d;
    if (cuzk_engine_circuit(s->engine, r->circ, &d, NULL) != CUZK_OK)
        return reply_err(r, MHD_HTTP_NOT_FOUND, "no circuit \"%s\"", r->circ);
    int loading = d.state == CUZK_CIRCUIT_LOADING;
    if (loading && r->has_deadline && mono_ms() < r->deadline_ms && suspend_waiter(r))
        return MHD_YES;
    if (!r->circ_post) return reply_json(r, MHD_HTTP_OK, circuit_json(s, &d, 1));
    /* The blocking form, stopped before the key was ready (the stop may
     * have cut a load from a pipe short: its error would mislead). */
    if (d.state != CUZK_CIRCUIT_READY && atomic_load(&s->stopping) &&
        r->deadline_ms == INT64_MAX)
        return reply_err(r, MHD_HTTP_SERVICE_UNAVAILABLE, "shutting down: %s not loaded", d.name);
    if (d.state == CUZK_CIRCUIT_FAILED) /* a bad key is the client's: 400 */
        return reply_err(r, MHD_HTTP_BAD_REQUEST, "%s", d.error);
    json_t *j = circuit_json(s, &d, !loading);
    json_object_set_new(j, "existing", json_boolean(r->circ_existing));
    return reply_json(r, loading ? MHD_HTTP_ACCEPTED
                      : r->circ_existing ? MHD_HTTP_OK : MHD_HTTP_CREATED, j);
}

/* POST /v1/circuits[?wait=S] (cuzk_api_parse_circuit). The request is
 * checked here, on the HTTP thread (cuzk_engine_register_begin: the name,
 * the built-in, a key file that opens with a known magic), so a bad one
 * is answered 400 at once; the circuit is then listed as loading and its
 * key is loaded on the loader thread. Without ?wait the connection is
 * suspended until the load ends (201, or 400 with the load's error: the
 * blocking form); ?wait=0 answers 202 {"id", "state": "loading"} at once
 * (always, for a new registration); ?wait=S waits at most S seconds, then
 * answers as circ_answer_or_wait does. The same key posted again under the
 * same name while it loads (or once it is ready, asynchronously) is the
 * same circuit: no second load, "existing": true. */
static enum MHD_Result post_circuit(req *r)
{
    cuzk_server *s = r->srv;
    char err[CUZK_ERRMSG_LEN];
    static const char *const allowed[] = {"wait", NULL};
    const char *bad = unknown_arg(r, allowed);
    if (bad) return reply_err(r, MHD_HTTP_BAD_REQUEST, "unknown query argument \"%.64s\"", bad);
    int blocking = !MHD_lookup_connection_value(r->conn, MHD_GET_ARGUMENT_KIND, "wait");
    enum MHD_Result ret;
    if (!take_wait(r, 0, &ret)) return ret;
    if (blocking) { /* until the load ends, however long */
        r->has_deadline = 1;
        r->deadline_ms = INT64_MAX;
    }
    cuzk_api_circuit c;
    if (cuzk_api_parse_circuit(&c, (const uint8_t *)(r->body ? r->body : ""), r->len, err) !=
        CUZK_OK)
        return reply_err(r, MHD_HTTP_BAD_REQUEST, "%s", err);
    cuzk_circuit_spec sp = {.name = c.name,
                            .builtin = c.builtin,
                            .log_size = c.log_size,
                            .key_path = c.key_path,
                            .pce_path = c.pce_path,
                            .setup_seed = c.has_seed ? &c.setup_seed : NULL,
                            .preload = c.preload};
    /* A slot in the loader's queue first: a listed circuit must get its
     * load. Under mu, so the check and the push are one step. */
    pthread_mutex_lock(&s->mu);
    if (s->reg_queued >= REG_QUEUE_MAX || s->reg_quit || !s->reg_started) {
        int busy = s->reg_queued >= REG_QUEUE_MAX;
        pthread_mutex_unlock(&s->mu);
        cuzk_api_circuit_free(&c);
        if (busy)
            return reply_err(r, MHD_HTTP_SERVICE_UNAVAILABLE,
                             "%d registrations are waiting for the loader: retry later",
                             REG_QUEUE_MAX);
        return reply_err(r, MHD_HTTP_SERVICE_UNAVAILABLE, "shutting down");
    }
    int existing = 0;
    cuzk_circuit_desc snap; /* as listed, before the loader can take it */
    snap.state = CUZK_CIRCUIT_READY;
    cuzk_status st = cuzk_engine_register_begin(s->engine, &sp, r->circ, &existing, err);
    cuzk_api_circuit_free(&c);
    if (st == CUZK_OK && !existing) {
        if (cuzk_engine_circuit(s->engine, r->circ, &snap, NULL) != CUZK_OK)
            snap.state = CUZK_CIRCUIT_READY; /* cannot be: none is ever removed */
        strcpy(s->reg_q[(s->reg_first + s->reg_queued) % REG_QUEUE_MAX], r->circ);
        s->reg_queued++;
        s->n_reg++;
        logf_(s, "circuit %s: loading", r->circ);
        pthread_cond_signal(&s->reg_cv);
    }
    pthread_mutex_unlock(&s->mu);
    if (st != CUZK_OK) {
        r->circ[0] = 0;
        /* a missing or unreadable file, a bad key or name: the client's */
        return reply_err(r, st == CUZK_ERR_NO_MEMORY ? MHD_HTTP_INTERNAL_SERVER_ERROR
                                                     : MHD_HTTP_BAD_REQUEST,
                         "%s", err);
    }
    r->circ_post = 1;
    r->circ_existing = existing;
    if (existing && blocking) {
        /* The blocking form keeps its old answer for a name already
         * registered, unless that is this very key still loading: then it
         * waits for that load. */
        cuzk_circuit_desc d;
        if (cuzk_engine_circuit(s->engine, r->circ, &d, NULL) == CUZK_OK &&
            d.state != CUZK_CIRCUIT_LOADING)
            return reply_err(r, MHD_HTTP_BAD_REQUEST, "circuit \"%s\" already registered",
                             r->circ);
    }
    if (!existing && !r->has_deadline && snap.state == CUZK_CIRCUIT_LOADING) {
        /* ?wait=0: 202 as it was listed, even if a quick load has ended
         * since (a GET tells how it went) */
        json_t *j = circuit_json(s, &snap, 0);
        json_object_set_new(j, "existing", json_false());
        return reply_json(r, MHD_HTTP_ACCEPTED, j);
    }
    return circ_answer_or_wait(r);
}

static void resume(cuzk_server *s, req **link);

/* Resumes the waiters on circuit name. Under mu. */
static void resume_circuit(cuzk_server *s, const char *name)
{
    for (req **link = &s->waiters; *link;) {
        if (!strcmp((*link)->circ, name)) resume(s, link);
        else link = &(*link)->next;
    }
}

/* The loader: loads the keys of the circuits posted to the API one at a
 * time, then resumes their waiters. At stop the queued loads are dropped
 * (their circuits stay loading in an engine about to be destroyed; their
 * waiters were answered by cuzk_server_stop). */
static void *loader_main(void *arg)
{
    cuzk_server *s = arg;
    pthread_mutex_lock(&s->mu);
    for (;;) {
        while (!s->reg_queued && !s->reg_quit) pthread_cond_wait(&s->reg_cv, &s->mu);
        if (s->reg_quit) break;
        char name[CUZK_ENGINE_ID_LEN], err[CUZK_ERRMSG_LEN];
        strcpy(name, s->reg_q[s->reg_first]);
        s->reg_first = (s->reg_first + 1) % REG_QUEUE_MAX;
        s->reg_queued--;
        strcpy(s->reg_now, name);
        pthread_mutex_unlock(&s->mu);
        int64_t t0 = mono_ms();
        cuzk_status st = cuzk_engine_register_load(s->engine, name, err);
        cuzk_circuit_desc d; /* READY with an error: the key is in, its preload failed */
        int ready = cuzk_engine_circuit(s->engine, name, &d, NULL) == CUZK_OK &&
                    d.state == CUZK_CIRCUIT_READY;
        pthread_mutex_lock(&s->mu);
        if (ready)
            logf_(s, "registered circuit %s (%lld ms)%s%s", name, (long long)(mono_ms() - t0),
                  st == CUZK_OK ? "" : "; preload: ", st == CUZK_OK ? "" : err);
        else
            logf_(s, "circuit %s failed to load%s: %s", name,
                  s->reg_quit ? " (stopping)" : "", err);
        s->reg_now[0] = 0;
        s->n_reg--;
        resume_circuit(s, name);
    }
    s->n_reg -= s->reg_queued;
    s->reg_queued = 0;
    s->reg_exited = 1;
    pthread_mutex_unlock(&s->mu);
    return NULL;
}

/* /v1/circuits[/NAME[/preload|/evict]] */
static enum MHD_Result circuits_route(req *r, const char *method, const char *rest)
{
    cuzk_server *s = r->srv;
    char err[CUZK_ERRMSG_LEN];
    if (!*rest) {
        if (!strcmp(method, MHD_HTTP_METHOD_POST))
            return r->circ_post ? circ_answer_or_wait(r) /* resumed */ : post_circuit(r);
        if (strcmp(method, MHD_HTTP_METHOD_GET))
            return reply_err(r, MHD_HTTP_METHOD_NOT_ALLOWED, "/v1/circuits: GET or POST");
        cuzk_circuit_desc *d;
        size_t n;
        if (cuzk_engine_circuits(s->engine, &d, &n) != CUZK_OK)
            return reply_err(r, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory");
        json_t *a = json_array();
        for (size_t i = 0; i < n; i++) json_array_append_new(a, circuit_json(s, &d[i], 1));
        free(d);
        return reply_json(r, MHD_HTTP_OK, json_pack("{s:o}", "circuits", a));
    }
    if (*rest != '/') return reply_err(r, MHD_HTTP_NOT_FOUND, "no such endpoint");
    char name[CUZK_ENGINE_ID_LEN];
    const char *slash = strchr(rest + 1, '/');
    size_t nl = slash ? (size_t)(slash - rest - 1) : strlen(rest + 1);
    if (nl == 0 || nl >= sizeof name) return reply_err(r, MHD_HTTP_NOT_FOUND, "no such circuit");
    memcpy(name, rest + 1, nl);
    name[nl] = 0;
    cuzk_circuit_desc d;
    if (cuzk_engine_circuit(s->engine, name, &d, err) != CUZK_OK)
        return reply_err(r, MHD_HTTP_NOT_FOUND, "no circuit \"%s\"", name);
    if (!slash) { /* ?wait=S: until it is no longer loading */
        if (strcmp(method, MHD_HTTP_METHOD_GET))
            return reply_err(r, MHD_HTTP_METHOD_NOT_ALLOWED, "/v1/circuits/NAME: GET");
        if (!r->circ[0]) { /* the first pass, not a resumed one */
            static const char *const allowed[] = {"wait", NULL};
            const char *bad = unknown_arg(r, allowed);
            if (bad)
                return reply_err(r, MHD_HTTP_BAD_REQUEST, "unknown query argument \"%.64s\"",
                                 bad);
            enum MHD_Result ret;
            if (!take_wait(r, 0, &ret)) return ret;
            strcpy(r->circ, name);
        }
        return circ_answer_or_wait(r);
    }
    if (!strcmp(slash, "/vk")) { /* the snarkjs verification_key.json as is */
        if (strcmp(method, MHD_HTTP_METHOD_GET))
            return reply_err(r, MHD_HTTP_METHOD_NOT_ALLOWED, "vk: use GET");
        char *vk = NULL;
        cuzk_status st = cuzk_engine_circuit_vk_json(s->engine, name, &vk, err);
        if (st != CUZK_OK) /* not ready: 409 */
            return reply_err(r, st == CUZK_ERR_INVALID_ARGUMENT ? MHD_HTTP_CONFLICT
                                                                : status_code(st),
                             "%s", err);
        return reply_text(r, MHD_HTTP_OK, "application/json", vk, strlen(vk));
    }
    int preload = !strcmp(slash, "/preload"), evict = !strcmp(slash, "/evict");
    if (!preload && !evict) return reply_err(r, MHD_HTTP_NOT_FOUND, "no such endpoint");
    if (strcmp(method, MHD_HTTP_METHOD_POST))
        return reply_err(r, MHD_HTTP_METHOD_NOT_ALLOWED, "%s: POST", slash + 1);
    cuzk_status st = preload ? cuzk_engine_preload(s->engine, name, err)
                             : cuzk_engine_evict(s->engine, name, err);
    if (st != CUZK_OK)
        return reply_err(r, st == CUZK_ERR_INVALID_ARGUMENT ? MHD_HTTP_CONFLICT : status_code(st),
                         "%s", err);
    if (cuzk_engine_circuit(s->engine, name, &d, err) != CUZK_OK)
        return reply_err(r, MHD_HTTP_NOT_FOUND, "no circuit \"%s\"", name);
    return reply_json(r, MHD_HTTP_OK, circuit_json(s, &d, 0));
}

static enum MHD_Result get_status(req *r)
{
    cuzk_server *s = r->srv;
    cuzk_engine_status st;
    if (cuzk_engine_status_get(s->engine, &st) != CUZK_OK)
        return reply_err(r, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory");
    json_t *dev = json_array(), *circ = json_array();
    for (unsigned i = 0; i < st.n_devices; i++) {
        const cuzk_device_status *d = &st.devices[i];
        json_array_append_new(dev, json_pack("{s:I,s:s,s:I,s:I,s:I,s:I,s:I}", "index",
                                             (json_int_t)d->index, "backend", d->backend, "busy",
                                             (json_int_t)d->busy, "reserved",
                                             (json_int_t)d->reserved, "budget",
                                             (json_int_t)d->budget, "proofs",
                                             (json_int_t)d->proofs, "failures",
                                             (json_int_t)d->failures));
    }
    for (size_t i = 0; i < st.n_circuits; i++)
        json_array_append_new(circ, circuit_json(s, &st.circuits[i], 0));
    json_t *lanes = json_array(), *prio = json_object();
    for (size_t i = 0; i < st.n_lanes; i++) {
        const cuzk_lane_status *l = &st.lanes[i];
        json_t *lj = json_pack("{s:s,s:I,s:I}", "kind",
                               l->cpu_fallback ? "cpu" : l->prover ? "prover" : "witness",
                               "device", (json_int_t)l->device, "slot", (json_int_t)l->slot);
        if (l->critical) json_object_set_new(lj, "critical", json_true());
        if (l->job) {
            json_object_set_new(lj, "job", json_integer((json_int_t)l->job));
            json_object_set_new(lj, "partition", json_integer(l->partition));
            if (l->prover) json_object_set_new(lj, "attempt", json_integer(l->attempt));
            json_object_set_new(lj, "circuit", json_string(l->circuit));
            json_object_set_new(lj, "stage", json_string(l->stage == CUZK_LANE_SETUP
                                                             ? "setup"
                                                             : cuzk_prove_stage_name(
                                                                   (cuzk_prove_stage)l->stage)));
            json_object_set_new(lj, "busy_ms", json_real(l->busy_ms));
        }
        json_array_append_new(lanes, lj);
    }
    for (int p = CUZK_PRIO_CRITICAL; p >= CUZK_PRIO_LOW; p--) {
        const cuzk_prio_status *ps = &st.prio[p];
        json_t *jobs = json_array();
        for (size_t k = 0; k < ps->n && k < CUZK_STATUS_QUEUE_JOBS; k++)
            json_array_append_new(
                jobs, json_pack("{s:I,s:s,s:I,s:I}", "id", (json_int_t)ps->jobs[k].id, "state",
                                ps->jobs[k].collecting ? "collecting"
                                                       : cuzk_job_state_name(ps->jobs[k].state),
                                "partitions", (json_int_t)ps->jobs[k].partitions,
                                "partitions_done", (json_int_t)ps->jobs[k].partitions_done));
        json_object_set_new(
            prio, cuzk_priority_name((cuzk_priority)p),
            json_pack("{s:I,s:I,s:I,s:I,s:I,s:o}", "collecting", (json_int_t)ps->collecting,
                      "jobs_queued", (json_int_t)ps->queued, "jobs_running",
                      (json_int_t)ps->running, "partitions_queued",
                      (json_int_t)ps->partitions_queued, "unfinished", (json_int_t)ps->n,
                      "jobs", jobs));
    }
    pthread_mutex_lock(&s->mu);
    size_t waiters = s->n_waiters, regs = s->n_reg;
    pthread_mutex_unlock(&s->mu);
    json_t *j = json_pack(
        "{s:f,s:b,s:b,s:o,s:o,"
        "s:{s:I,s:I,s:I,s:I,s:I,s:I},"
        "s:{s:{s:I,s:I,s:I},s:{s:I,s:I,s:I},s:I},"
        "s:{s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I},"
        "s:{s:I,s:I,s:I,s:I},"
        "s:{s:s,s:s,s:I,s:I}}",
        "uptime_s", st.uptime_s, "running", st.running, "stopping", atomic_load(&s->stopping),
        "devices", dev, "circuits", circ,
        "queues", "collecting", (json_int_t)st.jobs_collecting, "jobs_queued",
        (json_int_t)st.jobs_queued, "jobs_running", (json_int_t)st.jobs_running,
        "partitions_queued", (json_int_t)st.partitions_queued, "partitions_ready",
        (json_int_t)st.partitions_ready, "ready_capacity", (json_int_t)st.ready_capacity,
        "budget", "host", "reserved", (json_int_t)st.host_reserved, "budget",
        (json_int_t)st.host_budget, "peak", (json_int_t)st.host_peak, "pinned", "reserved",
        (json_int_t)st.pinned_reserved, "budget", (json_int_t)st.pinned_budget, "peak",
        (json_int_t)st.pinned_peak, "device_reserved_peak", (json_int_t)st.device_reserved_peak,
        "totals", "jobs_submitted", (json_int_t)st.jobs_submitted, "jobs_done",
        (json_int_t)st.jobs_done, "jobs_failed", (json_int_t)st.jobs_failed, "jobs_canceled",
        (json_int_t)st.jobs_canceled, "partitions_proved", (json_int_t)st.partitions_proved,
        "retries", (json_int_t)st.retries, "verify_failures", (json_int_t)st.verify_failures,
        "evictions", (json_int_t)st.evictions,
        "threads", "witness", (json_int_t)st.threads_witness, "prover",
        (json_int_t)st.threads_prover, "other", (json_int_t)st.threads_other, "pool",
        (json_int_t)st.pool_threads,
        "server", "socket", s->sock_path, "tcp", s->tcp_addr, "waiters", (json_int_t)waiters,
        "requests", (json_int_t)atomic_load(&s->n_requests));
    if (j) { /* extensions, outside the pack above */
        json_object_set_new(json_object_get(j, "server"), "registrations",
                            json_integer((json_int_t)regs));
        json_object_set_new(json_object_get(j, "server"), "version", json_string(cuzk_version()));
        json_object_set_new(json_object_get(j, "totals"), "store_commits",
                            json_integer((json_int_t)st.store_commits));
        json_object_set_new(json_object_get(j, "totals"), "store_ops",
                            json_integer((json_int_t)st.store_ops));
    }
    cuzk_engine_status_free(&st);
    if (!j) {
        json_decref(lanes);
        json_decref(prio);
        return reply_err(r, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory");
    }
    json_object_set_new(j, "lanes", lanes);
    json_object_set_new(json_object_get(j, "queues"), "by_priority", prio);
    return reply_json(r, MHD_HTTP_OK, j);
}

static enum MHD_Result get_metrics(req *r)
{
    cuzk_server *s = r->srv;
    char *text = NULL;
    size_t len = 0;
    if (cuzk_engine_metrics(s->engine, &text, &len) != CUZK_OK)
        return reply_err(r, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory");
    pthread_mutex_lock(&s->mu);
    size_t waiters = s->n_waiters;
    pthread_mutex_unlock(&s->mu);
    char more[640];
    int n = snprintf(more, sizeof more,
                     "# HELP cuzk_http_requests_total HTTP requests answered, by class.\n"
                     "# TYPE cuzk_http_requests_total counter\n"
                     "cuzk_http_requests_total{class=\"all\"} %llu\n"
                     "cuzk_http_requests_total{class=\"4xx\"} %llu\n"
                     "cuzk_http_requests_total{class=\"5xx\"} %llu\n"
                     "# HELP cuzk_http_waiters Clients in a long poll now.\n"
                     "# TYPE cuzk_http_waiters gauge\n"
                     "cuzk_http_waiters %zu\n",
                     (unsigned long long)atomic_load(&s->n_requests),
                     (unsigned long long)atomic_load(&s->n_4xx),
                     (unsigned long long)atomic_load(&s->n_5xx), waiters);
    char *t = realloc(text, len + (size_t)n + 1);
    if (!t) {
        free(text);
        return MHD_NO;
    }
    memcpy(t + len, more, (size_t)n + 1);
    return reply_text(r, MHD_HTTP_OK, "text/plain; version=0.0.4", t, len + (size_t)n);
}

static json_t *event_json(const cuzk_event *ev)
{
    json_t *j = json_pack("{s:I,s:I,s:s,s:I,s:I,s:I,s:f,s:I,s:s}", "seq", (json_int_t)ev->seq,
                          "t_us", (json_int_t)ev->t_us, "kind", cuzk_event_kind_name(ev->kind),
                          "job", (json_int_t)ev->job, "device", (json_int_t)ev->device,
                          "attempt", (json_int_t)ev->attempt, "ms", ev->ms, "value",
                          (json_int_t)ev->value, "circuit", ev->circuit);
    if (!j) return NULL;
    json_object_set_new(j, "partition", ev->partition == CUZK_EV_ALL_PARTITIONS
                                            ? json_null()
                                            : json_integer(ev->partition));
    if (ev->kind == CUZK_EV_STAGE)
        json_object_set_new(j, "stage", json_string(cuzk_prove_stage_name(
                                            (cuzk_prove_stage)ev->stage)));
    if (ev->kind == CUZK_EV_MEM) { /* value: the host's resident set */
        json_object_set_new(j, "pinned_bytes", json_integer((json_int_t)ev->pinned_bytes));
        json_object_set_new(j, "device_bytes", json_integer((json_int_t)ev->device_bytes));
    }
    if (ev->status != CUZK_OK) json_object_set_new(j, "status", json_string(cuzk_strerror(ev->status)));
    return j;
}

/* GET /v1/timeline?since=CURSOR&max=N */
static enum MHD_Result get_timeline(req *r)
{
    static const char *const allowed[] = {"since", "max", NULL};
    const char *bad = unknown_arg(r, allowed);
    if (bad) return reply_err(r, MHD_HTTP_BAD_REQUEST, "unknown query argument \"%.64s\"", bad);
    const char *sv = MHD_lookup_connection_value(r->conn, MHD_GET_ARGUMENT_KIND, "since");
    const char *mv = MHD_lookup_connection_value(r->conn, MHD_GET_ARGUMENT_KIND, "max");
    uint64_t since = 0, max = 1000;
    if (sv && !parse_u64(sv, &since))
        return reply_err(r, MHD_HTTP_BAD_REQUEST, "since: expected a cursor (an integer >= 0)");
    if (mv && (!parse_u64(mv, &max) || max == 0 || max > 10000))
        return reply_err(r, MHD_HTTP_BAD_REQUEST, "max: expected 1..10000");
    cuzk_event *evs = malloc((size_t)max * sizeof *evs);
    if (!evs) return reply_err(r, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory");
    uint64_t next = since;
    size_t n = cuzk_engine_timeline(r->srv->engine, since, evs, (size_t)max, &next);
    json_t *a = json_array();
    for (size_t i = 0; i < n; i++) json_array_append_new(a, event_json(&evs[i]));
    free(evs);
    return reply_json(r, MHD_HTTP_OK, json_pack("{s:o,s:I}", "events", a, "next", (json_int_t)next));
}

/* Constant-time comparison of the Authorization header with the token. */
static int authorized(cuzk_server *s, struct MHD_Connection *c)
{
    const char *h = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_AUTHORIZATION);
    if (!h || strncmp(h, "Bearer ", 7)) return 0;
    h += 7;
    size_t n = strlen(h);
    unsigned char diff = n != s->token_len;
    for (size_t i = 0; i < s->token_len; i++) diff |= (unsigned char)(h[i < n ? i : 0] ^ s->token[i]);
    return !diff;
}

static enum MHD_Result route(req *r, const char *url, const char *method)
{
    int get = !strcmp(method, MHD_HTTP_METHOD_GET), post = !strcmp(method, MHD_HTTP_METHOD_POST);
    if (r->too_large)
        return reply_err(r, MHD_HTTP_CONTENT_TOO_LARGE, "the body is over max_body (%llu bytes)",
                         (unsigned long long)r->srv->cfg.max_body);
    if (!strcmp(url, "/v1/jobs") || !strcmp(url, "/v1/prove")) {
        if (!post) return reply_err(r, MHD_HTTP_METHOD_NOT_ALLOWED, "%s: use POST", url);
        if (r->job) return answer_or_wait(r); /* resumed after the submission */
        return post_job(r, url[4] == 'p');
    }
    if (is_page(url)) {
        if (!get) return reply_err(r, MHD_HTTP_METHOD_NOT_ALLOWED, "%s: use GET", url);
        return reply_page(r);
    }
    if (!strncmp(url, "/v1/jobs/", 9)) return job_route(r, method, url + 9);
    if (!strncmp(url, "/v1/circuits", 12)) return circuits_route(r, method, url + 12);
    if (!strcmp(url, "/v1/status")) {
        if (!get) return reply_err(r, MHD_HTTP_METHOD_NOT_ALLOWED, "/v1/status: use GET");
        return get_status(r);
    }
    if (!strcmp(url, "/metrics")) {
        if (!get) return reply_err(r, MHD_HTTP_METHOD_NOT_ALLOWED, "/metrics: use GET");
        return get_metrics(r);
    }
    if (!strcmp(url, "/v1/timeline")) {
        if (!get) return reply_err(r, MHD_HTTP_METHOD_NOT_ALLOWED, "/v1/timeline: use GET");
        return get_timeline(r);
    }
    return reply_err(r, MHD_HTTP_NOT_FOUND, "no endpoint %.200s", url);
}

/* libmicrohttpd's access handler: called once when the headers are in,
 * once per piece of body, and once at the end (again after a resume). */
static enum MHD_Result handler(void *cls, struct MHD_Connection *c, const char *url,
                               const char *method, const char *version, const char *upload,
                               size_t *upload_size, void **con_cls)
{
    (void)version;
    const listener *l = cls;
    cuzk_server *s = l->srv;
    int tcp = l->tcp;
    req *r = *con_cls;
    if (!r) {
        if (!(r = calloc(1, sizeof *r))) return MHD_NO;
        r->srv = s;
        r->conn = c;
        r->tcp = tcp;
        *con_cls = r;
        /* Refused before any body is read. The page is not data: it is
         * served to anyone (reply_page says why). */
        int page = is_page(url) && !strcmp(method, MHD_HTTP_METHOD_GET);
        if (tcp && !page && !authorized(s, c))
            return reply_err(r, MHD_HTTP_UNAUTHORIZED, "a bearer token is required on TCP");
        if (atomic_load(&s->stopping))
            return reply_err(r, MHD_HTTP_SERVICE_UNAVAILABLE, "shutting down");
        const char *cl = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
                                                     MHD_HTTP_HEADER_CONTENT_LENGTH);
        uint64_t n;
        if (cl && parse_u64(cl, &n) && n > s->cfg.max_body)
            return reply_err(r, MHD_HTTP_CONTENT_TOO_LARGE,
                             "the body (%llu bytes) is over max_body (%llu bytes)",
                             (unsigned long long)n, (unsigned long long)s->cfg.max_body);
        return MHD_YES;
    }
    if (*upload_size) {
        size_t n = *upload_size;
        *upload_size = 0;
        if (r->too_large || r->len + n > s->cfg.max_body) { /* chunked: discard the rest */
            r->too_large = 1;
            return MHD_YES;
        }
        if (r->len + n + 1 > r->cap) {
            size_t cap = r->cap ? r->cap : 4096;
            while (cap < r->len + n + 1) cap *= 2;
            char *b = realloc(r->body, cap);
            if (!b) return MHD_NO;
            r->body = b;
            r->cap = cap;
        }
        memcpy(r->body + r->len, upload, n);
        r->len += n;
        r->body[r->len] = 0;
        return MHD_YES;
    }
    if (atomic_load(&s->stopping) && !r->job && !r->circ[0])
        return reply_err(r, MHD_HTTP_SERVICE_UNAVAILABLE, "shutting down");
    return route(r, url, method);
}

static void completed(void *cls, struct MHD_Connection *c, void **con_cls,
                      enum MHD_RequestTerminationCode toe)
{
    (void)cls;
    (void)c;
    (void)toe;
    req *r = *con_cls;
    if (!r) return;
    free(r->body);
    free(r);
    *con_cls = NULL;
}

/* -------------------------------------------------------------- waker -- */

static void resume(cuzk_server *s, req **link)
{
    req *r = *link;
    *link = r->next;
    r->next = NULL;
    s->n_waiters--;
    MHD_resume_connection(r->conn);
}

/* Reads the timeline from the cursor on: the jobs that finished go into
 * *fin (malloc'd, *nfin entries), and each event into the log when asked.
 * Returns 1 when events were lost to the ring (every waiter re-checks). */
static int read_timeline(cuzk_server *s, uint64_t **fin, size_t *nfin, size_t *capfin)
{
    cuzk_event evs[256];
    int lost = 0;
    for (;;) {
        uint64_t next = s->tl_cursor;
        size_t n = cuzk_engine_timeline(s->engine, s->tl_cursor, evs, 256, &next);
        if (n && evs[0].seq > s->tl_cursor && s->tl_cursor > 1) lost = 1;
        for (size_t i = 0; i < n; i++) {
            const cuzk_event *ev = &evs[i];
            if (s->cfg.log_timeline) {
                char line[512];
                cuzk_event_format(ev, line, sizeof line);
                logf_(s, "%s", line);
            }
            if (ev->kind == CUZK_EV_DONE || ev->kind == CUZK_EV_FAILED ||
                ev->kind == CUZK_EV_CANCELED) {
                if (*nfin == *capfin) {
                    size_t cap = *capfin ? *capfin * 2 : 64;
                    uint64_t *f = realloc(*fin, cap * sizeof *f);
                    if (!f) return 1; /* treat as lost: everyone re-checks */
                    *fin = f;
                    *capfin = cap;
                }
                (*fin)[(*nfin)++] = ev->job;
            }
        }
        s->tl_cursor = next;
        if (n < 256) break;
    }
    return lost;
}

static void *waker_main(void *arg)
{
    cuzk_server *s = arg;
    uint64_t *fin = NULL;
    size_t nfin = 0, capfin = 0;
    int64_t next_purge = mono_ms();
    pthread_mutex_lock(&s->mu);
    while (!s->waker_quit) {
        /* Poll every 10 ms while someone waits (or the log wants the
         * timeline every 100 ms); otherwise sleep until a waiter comes. */
        int64_t now = mono_ms();
        int64_t wake = s->waiters ? now + 10 : s->cfg.log_timeline ? now + 100 : now + 60000;
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        int64_t delta = wake - now;
        ts.tv_sec += delta / 1000;
        ts.tv_nsec += (delta % 1000) * 1000000;
        if (ts.tv_nsec >= 1000000000) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000000000;
        }
        pthread_cond_timedwait(&s->cv, &s->mu, &ts);
        if (s->waker_quit) break;
        pthread_mutex_unlock(&s->mu);
        nfin = 0;
        int lost = read_timeline(s, &fin, &nfin, &capfin);
        if (s->store && mono_ms() >= next_purge) { /* results are kept keep_results */
            size_t n = 0;
            int64_t before = wall_ms() - (int64_t)s->cfg.keep_results_s * 1000;
            if (s->store->purge(s->store, before, &n, NULL) == CUZK_OK && n)
                logf_(s, "purged %zu finished jobs older than %u s", n, s->cfg.keep_results_s);
            next_purge = mono_ms() + 3600 * 1000;
        }
        pthread_mutex_lock(&s->mu);
        now = mono_ms();
        for (req **link = &s->waiters; *link;) {
            req *r = *link;
            int go = r->has_deadline && now >= r->deadline_ms;
            if (r->circ[0]) { /* a circuit's load: the loader resumes it */
                if (!go && r->fresh) {
                    cuzk_circuit_desc d;
                    go = cuzk_engine_circuit(s->engine, r->circ, &d, NULL) != CUZK_OK ||
                         d.state != CUZK_CIRCUIT_LOADING;
                }
                r->fresh = 0;
                if (go) resume(s, link);
                else link = &r->next;
                continue;
            }
            go = go || lost;
            for (size_t i = 0; i < nfin && !go; i++) go = fin[i] == r->job;
            if (!go && r->fresh) {
                cuzk_job_info in;
                if (cuzk_engine_job(s->engine, r->job, &in, NULL) == CUZK_OK) {
                    go = finished(in.state);
                    cuzk_job_info_free(&in);
                } else {
                    go = 1; /* gone: the handler answers 404 */
                }
            }
            r->fresh = 0;
            if (go) resume(s, link);
            else link = &r->next;
        }
    }
    pthread_mutex_unlock(&s->mu);
    if (s->cfg.log_timeline) { /* the last events, after the engine stopped */
        nfin = 0;
        read_timeline(s, &fin, &nfin, &capfin);
    }
    free(fin);
    return NULL;
}

/* ------------------------------------------------------------ sockets -- */

/* Binds the unix socket at path with mode 0600. A socket file nobody
 * listens on (a crashed daemon's) is replaced; a live one is refused. */
static cuzk_status bind_unix(int *fd_out, const char *path, char *err)
{
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    if (strlen(path) >= sizeof a.sun_path)
        return SRV_ERR(err, CUZK_ERR_INVALID_ARGUMENT, "socket path too long (%zu bytes, at most %zu): %s",
                       strlen(path), sizeof a.sun_path - 1, path);
    strcpy(a.sun_path, path);
    struct stat st;
    if (lstat(path, &st) == 0) {
        if (!S_ISSOCK(st.st_mode))
            return SRV_ERR(err, CUZK_ERR_IO, "%s exists and is not a socket", path);
        int probe = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (probe >= 0 && connect(probe, (struct sockaddr *)&a, sizeof a) == 0) {
            close(probe);
            return SRV_ERR(err, CUZK_ERR_IO, "%s: another daemon is listening there", path);
        }
        if (probe >= 0) close(probe);
        unlink(path);
    }
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return SRV_ERR(err, CUZK_ERR_IO, "socket: %s", strerror(errno));
    /* The umask makes the file 0600 from its creation: no window in which
     * another user could connect. */
    mode_t old = umask(0177);
    int rc = bind(fd, (struct sockaddr *)&a, sizeof a);
    umask(old);
    if (rc || chmod(path, 0600) || listen(fd, 1024)) {
        int e = errno;
        close(fd);
        return SRV_ERR(err, CUZK_ERR_IO, "%s: %s", path, strerror(e));
    }
    *fd_out = fd;
    return CUZK_OK;
}

/* Binds HOST:PORT ("[::1]:8181" for IPv6; port 0: any free one) and
 * writes the bound address into bound. */
static cuzk_status bind_tcp(int *fd_out, const char *spec, char *bound, size_t blen, char *err)
{
    char host[128];
    const char *colon = strrchr(spec, ':');
    if (!colon || colon == spec || (size_t)(colon - spec) >= sizeof host || !colon[1])
        return SRV_ERR(err, CUZK_ERR_INVALID_ARGUMENT, "tcp: expected HOST:PORT, got \"%s\"", spec);
    memcpy(host, spec, (size_t)(colon - spec));
    host[colon - spec] = 0;
    if (host[0] == '[' && host[strlen(host) - 1] == ']') {
        memmove(host, host + 1, strlen(host));
        host[strlen(host) - 1] = 0;
    }
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM,
                             .ai_flags = AI_PASSIVE | AI_NUMERICSERV};
    struct addrinfo *ai = NULL;
    int gai = getaddrinfo(host, colon + 1, &hints, &ai);
    if (gai) return SRV_ERR(err, CUZK_ERR_INVALID_ARGUMENT, "tcp: %s: %s", spec, gai_strerror(gai));
    int fd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    int one = 1;
    if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) ||
        bind(fd, ai->ai_addr, ai->ai_addrlen) || listen(fd, 1024)) {
        int e = errno;
        if (fd >= 0) close(fd);
        freeaddrinfo(ai);
        return SRV_ERR(err, CUZK_ERR_IO, "tcp: %s: %s", spec, strerror(e));
    }
    freeaddrinfo(ai);
    struct sockaddr_storage ss;
    socklen_t sl = sizeof ss;
    char h[64] = "?", p[16] = "?";
    if (getsockname(fd, (struct sockaddr *)&ss, &sl) == 0)
        getnameinfo((struct sockaddr *)&ss, sl, h, sizeof h, p, sizeof p,
                    NI_NUMERICHOST | NI_NUMERICSERV);
    snprintf(bound, blen, ss.ss_family == AF_INET6 ? "[%s]:%s" : "%s:%s", h, p);
    *fd_out = fd;
    return CUZK_OK;
}

static void mhd_log(void *cls, const char *fmt, va_list ap)
{
    cuzk_server *s = cls;
    char line[512];
    vsnprintf(line, sizeof line, fmt, ap);
    size_t n = strlen(line);
    while (n && line[n - 1] == '\n') line[--n] = 0;
    logf_(s, "http: %s", line);
}

static struct MHD_Daemon *start_mhd(cuzk_server *s, int fd, listener *cls)
{
    unsigned flags = MHD_USE_AUTO_INTERNAL_THREAD | MHD_ALLOW_SUSPEND_RESUME | MHD_USE_ERROR_LOG;
    return MHD_start_daemon(
        flags, 0, NULL, NULL, handler, (void *)cls, MHD_OPTION_EXTERNAL_LOGGER, mhd_log, s,
        MHD_OPTION_LISTEN_SOCKET, (MHD_socket)fd,
        MHD_OPTION_THREAD_POOL_SIZE, (unsigned)s->cfg.http_threads,
        MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)s->cfg.conn_timeout_s,
        MHD_OPTION_CONNECTION_LIMIT, (unsigned)4096, MHD_OPTION_NOTIFY_COMPLETED, completed,
        NULL, MHD_OPTION_END);
}

/* ------------------------------------------------------------- start -- */

static void join_path(char *out, size_t cap, const char *dir, const char *p)
{
    if (p[0] == '/' || !strcmp(dir, ".")) snprintf(out, cap, "%s", p);
    else snprintf(out, cap, "%s/%s", dir, p);
}

/* The key of a built-in circuit given neither a key nor a setup seed: made
 * by an insecure setup at the first start and kept in the daemon's dir
 * (NAME.size<N>.cuzk), so a restart proves with the same key and the proofs
 * it stored before still verify against the vk it serves. */
static cuzk_status builtin_key_file(char *path, size_t cap, const cuzk_server_config *c,
                                    const cuzk_server_circuit *ci, char *err)
{
    char name[CUZK_STORE_ID_LEN + 32];
    snprintf(name, sizeof name, "%s.size%u.cuzk", ci->name, ci->log_size);
    join_path(path, cap, c->dir, name);
    struct stat st;
    if (stat(path, &st) == 0) return CUZK_OK;
    cuzk_groth16_pk pk;
    memset(&pk, 0, sizeof pk);
    cuzk_status s = cuzk_circuit_setup(&pk, ci->builtin, ci->log_size, NULL, err);
    if (s == CUZK_OK) s = cuzk_keyfile_write(path, &pk, CUZK_SETUP_LABEL, 0, err);
    cuzk_groth16_pk_free(&pk);
    return s;
}

static cuzk_status read_token(cuzk_server *s, const char *path, char *err)
{
    FILE *f = fopen(path, "r");
    if (!f) return SRV_ERR(err, CUZK_ERR_IO, "token_file %s: %s", path, strerror(errno));
    char *ok = fgets(s->token, sizeof s->token, f);
    fclose(f);
    s->token_len = ok ? strcspn(s->token, "\r\n") : 0;
    s->token[s->token_len] = 0;
    if (s->token_len < 16)
        return SRV_ERR(err, CUZK_ERR_INVALID_ARGUMENT,
                       "token_file %s: the token must be at least 16 characters", path);
    return CUZK_OK;
}

cuzk_status cuzk_server_start(cuzk_server **out, const cuzk_server_config *c, char *err)
{
    *out = NULL;
    if (err) err[0] = 0;
    cuzk_server *s = calloc(1, sizeof *s);
    if (!s) return CUZK_ERR_NO_MEMORY;
    s->cfg = *c;
    s->unix_fd = s->tcp_fd = -1;
    s->log = stderr;
    s->start_ms = mono_ms();
    s->tl_cursor = 1;
    pthread_mutex_init(&s->mu, NULL);
    pthread_mutex_init(&s->log_mu, NULL);
    pthread_cond_init(&s->cv, NULL);
    pthread_cond_init(&s->reg_cv, NULL);
    char path[CUZK_API_PATH_MAX * 2 + 2];
    cuzk_status st = CUZK_OK;

    if (c->log[0]) {
        join_path(path, sizeof path, c->dir, c->log);
        if (!(s->log = fopen(path, "a"))) {
            s->log = stderr;
            st = SRV_ERR(err, CUZK_ERR_IO, "log %s: %s", path, strerror(errno));
            goto fail;
        }
    }
    if (c->tcp[0]) {
        join_path(path, sizeof path, c->dir, c->token_file);
        if ((st = read_token(s, path, err)) != CUZK_OK) goto fail;
    }
    /* The sockets first: a second daemon on the same DIR is refused before
     * it touches the store. Clients that connect while the keys load wait
     * in the listen backlog. */
    join_path(s->sock_path, sizeof s->sock_path, c->dir, c->socket);
    if ((st = bind_unix(&s->unix_fd, s->sock_path, err)) != CUZK_OK) goto fail;
    s->sock_bound = 1;
    if (c->tcp[0] && (st = bind_tcp(&s->tcp_fd, c->tcp, s->tcp_addr, sizeof s->tcp_addr, err)))
        goto fail;
    if (c->threads && cuzk_pool_init(c->threads) != CUZK_OK) {
        st = SRV_ERR(err, CUZK_ERR_INVALID_ARGUMENT,
                     "threads: the thread pool already has another size");
        goto fail;
    }
    if (c->store[0]) {
        join_path(path, sizeof path, c->dir, c->store);
        if ((st = cuzk_store_open_sqlite(&s->store, path, err)) != CUZK_OK) goto fail;
    }
    cuzk_engine_config ec;
    cuzk_server_config_engine(c, &ec);
    ec.store = s->store;
    ec.log = engine_log;
    ec.log_ctx = s;
    if ((st = cuzk_engine_create(&s->engine, &ec, err)) != CUZK_OK) goto fail;

    /* Circuits before start: the jobs a restart re-queues need them. */
    for (size_t i = 0; i < c->n_circuits; i++) {
        const cuzk_server_circuit *ci = &c->circuits[i];
        char kp[sizeof path], pp[sizeof path], e2[CUZK_ERRMSG_LEN];
        double t0 = (double)mono_ms();
        if (ci->key[0]) join_path(kp, sizeof kp, c->dir, ci->key);
        if (ci->pce[0]) join_path(pp, sizeof pp, c->dir, ci->pce);
        int kept = ci->builtin[0] && !ci->key[0] && !ci->has_seed;
        if (kept && (st = builtin_key_file(kp, sizeof kp, c, ci, e2)) != CUZK_OK) {
            SRV_ERR(err, st, "circuit %s: its key: %s", ci->name, e2);
            goto fail;
        }
        cuzk_circuit_spec sp = {.name = ci->name,
                                .builtin = ci->builtin[0] ? ci->builtin : NULL,
                                .log_size = ci->log_size,
                                .key_path = ci->key[0] || kept ? kp : NULL,
                                .pce_path = ci->pce[0] ? pp : NULL,
                                .setup_seed = ci->has_seed ? &ci->setup_seed : NULL,
                                .preload = ci->preload};
        if ((st = cuzk_engine_register(s->engine, &sp, NULL, e2)) != CUZK_OK) {
            SRV_ERR(err, st, "circuit %s: %s", ci->name, e2);
            goto fail;
        }
        logf_(s, "circuit %s registered (%.0f ms)", ci->name, (double)mono_ms() - t0);
    }
    size_t requeued = 0;
    if ((st = cuzk_engine_start(s->engine, &requeued, err)) != CUZK_OK) goto fail;
    if (requeued) logf_(s, "re-queued %zu jobs accepted before a restart", requeued);

    if (pthread_create(&s->waker, NULL, waker_main, s)) {
        st = SRV_ERR(err, CUZK_ERR_NO_MEMORY, "cannot start a thread");
        goto fail;
    }
    s->waker_started = 1;
    if (pthread_create(&s->loader, NULL, loader_main, s)) {
        st = SRV_ERR(err, CUZK_ERR_NO_MEMORY, "cannot start a thread");
        goto fail;
    }
    s->reg_started = 1;
    s->lis_unix = (listener){s, 0};
    s->lis_tcp = (listener){s, 1};
    s->unix_d = start_mhd(s, s->unix_fd, &s->lis_unix);
    if (!s->unix_d) {
        st = SRV_ERR(err, CUZK_ERR_IO, "libmicrohttpd did not start on %s", s->sock_path);
        goto fail;
    }
    s->unix_fd = -1; /* libmicrohttpd closes it */
    if (s->tcp_fd >= 0) {
        s->tcp_d = start_mhd(s, s->tcp_fd, &s->lis_tcp);
        if (!s->tcp_d) {
            st = SRV_ERR(err, CUZK_ERR_IO, "libmicrohttpd did not start on %s", s->tcp_addr);
            goto fail;
        }
        s->tcp_fd = -1;
    }
    logf_(s, "listening on %s%s%s (backend %s, %zu circuits; cuzk %s)", s->sock_path,
          s->tcp_addr[0] ? " and tcp " : "", s->tcp_addr, c->backend, c->n_circuits,
          cuzk_version());
    *out = s;
    return CUZK_OK;
fail:
    cuzk_server_stop(s);
    return st;
}

/* -------------------------------------------------------------- stop -- */

static unsigned connections(struct MHD_Daemon *d)
{
    if (!d) return 0;
    const union MHD_DaemonInfo *i = MHD_get_daemon_info(d, MHD_DAEMON_INFO_CURRENT_CONNECTIONS);
    return i ? i->num_connections : 0;
}

void cuzk_server_stop(cuzk_server *s)
{
    if (!s) return;
    /* 1. New requests get 503 while the listeners stay open, so a client
     *    learns why instead of meeting a refused connection. */
    atomic_store(&s->stopping, 1);
    if (s->engine) {
        /* 2. The partitions being proved finish and are stored; queued
         *    jobs stay QUEUED in the store for the next start. */
        cuzk_engine_stop(s->engine, 0);
    }
    /* 3. Every long poll answers with its job as it stands. No new one
     *    can start: answer_or_wait checks stopping under mu. */
    pthread_mutex_lock(&s->mu);
    while (s->waiters) resume(s, &s->waiters);
    s->waker_quit = 1;
    pthread_cond_signal(&s->cv);
    /* A load in progress ends (a key load cannot be cut short); the
     * queued ones are dropped (their blocking POSTs were answered 503
     * just above). */
    s->reg_quit = 1;
    pthread_cond_signal(&s->reg_cv);
    pthread_mutex_unlock(&s->mu);
    if (s->waker_started) pthread_join(s->waker, NULL);
    if (s->reg_started) {
        /* A load reading a pipe nobody writes would hold the stop
         * forever: opening it for writing and closing it gives the load
         * its end of file (it fails). Again every 50 ms until the loader
         * is out, as the load may reach its open() after our poke. */
        for (;;) {
            char name[CUZK_ENGINE_ID_LEN];
            pthread_mutex_lock(&s->mu);
            int out = s->reg_exited;
            strcpy(name, s->reg_now);
            pthread_mutex_unlock(&s->mu);
            if (out) break;
            cuzk_circuit_desc d;
            struct stat st;
            if (name[0] && cuzk_engine_circuit(s->engine, name, &d, NULL) == CUZK_OK &&
                d.key_path[0] && stat(d.key_path, &st) == 0 && S_ISFIFO(st.st_mode)) {
                int fd = open(d.key_path, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
                if (fd >= 0) close(fd);
            }
            struct timespec ts = {0, 50 * 1000000};
            nanosleep(&ts, NULL);
        }
        pthread_join(s->loader, NULL);
    }
    /* 4. Stop accepting, give the answers in flight a moment to leave
     *    (bounded: a stuck client cannot hold the exit), then close. */
    if (s->unix_d) {
        MHD_socket fd = MHD_quiesce_daemon(s->unix_d);
        if (fd != MHD_INVALID_SOCKET) close(fd);
    }
    if (s->tcp_d) {
        MHD_socket fd = MHD_quiesce_daemon(s->tcp_d);
        if (fd != MHD_INVALID_SOCKET) close(fd);
    }
    for (int i = 0; i < 200 && connections(s->unix_d) + connections(s->tcp_d); i++) {
        struct timespec ts = {0, 10 * 1000000};
        nanosleep(&ts, NULL);
    }
    if (s->unix_d) MHD_stop_daemon(s->unix_d);
    if (s->tcp_d) MHD_stop_daemon(s->tcp_d);
    if (s->unix_fd >= 0) close(s->unix_fd);
    if (s->tcp_fd >= 0) close(s->tcp_fd);
    if (s->sock_bound) unlink(s->sock_path);
    cuzk_engine_destroy(s->engine);
    cuzk_store_close(s->store);
    if (s->unix_d) logf_(s, "stopped");
    if (s->log != stderr) fclose(s->log);
    pthread_cond_destroy(&s->cv);
    pthread_cond_destroy(&s->reg_cv);
    pthread_mutex_destroy(&s->mu);
    pthread_mutex_destroy(&s->log_mu);
    free(s);
}
