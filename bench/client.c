/* cuzk-bench's client commands: load and inspect a running `cuzk serve`
 * through its HTTP API (bench/http.h; the API is in README.md and
 * `cuzk serve --help`).
 *
 *   single   one job, its timings as the daemon reports them
 *   batch    COUNT jobs, at most CONCURRENCY in flight; latency summary
 *   stress   closed-loop streams and periodic jobs for a duration; each
 *            class's latency, the CRITICAL jobs' apart
 *   status, preload, evict, metrics
 *
 * A job is submitted with POST /v1/jobs?wait=POLL (submit and long-poll in
 * one request) and then awaited with GET /v1/jobs/ID?wait=POLL until it is
 * done, failed or canceled; its latency is the client's wall time from the
 * submission to that answer. Each thread that talks to the daemon has its
 * own connection. This file uses only libc, pthreads, jansson and
 * bench/http.c, so that a client-only build (CUZK_CLIENT_ONLY) links
 * nothing of the prover. */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "bench.h"
#include "http.h"

/* A compressed Groth16 proof on BLS12-381: A (G1, 48 B), B (G2, 96 B),
 * C (G1, 48 B), the size Filecoin stores per partition. */
#define PROOF_BYTES 192

#define POLL_DEFAULT_S 30 /* a long poll's ?wait=; under the daemon's max_wait */

static double now_s(void) { return bench_now_ns() / 1e9; }

static void sleep_s(double s)
{
    if (s <= 0) return;
    struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

/* ------------------------------------------------------------ options -- */

/* Options every client command shares. */
typedef struct {
    bench_conn conn;
    int json, csv;
    long timeout_s; /* one job's limit, submission to answer */
    long poll_s;
} common_opts;

static void common_init(common_opts *o)
{
    bench_conn_init(&o->conn);
    o->json = o->csv = 0;
    o->timeout_s = 3600;
    o->poll_s = POLL_DEFAULT_S;
}

/* "120", "120s", "500ms", "2m", "1h" -> seconds (> 0); 0 on a bad value. */
static int parse_duration(const char *s, double *out)
{
    errno = 0;
    char *end;
    double v = strtod(s, &end);
    if (end == s || errno || !(v > 0) || !isfinite(v)) return 0;
    double mul = !strcmp(end, "") || !strcmp(end, "s") ? 1
                 : !strcmp(end, "ms")                  ? 1e-3
                 : !strcmp(end, "m")                   ? 60
                 : !strcmp(end, "h")                   ? 3600
                                                       : 0;
    if (mul == 0) return 0;
    *out = v * mul;
    return 1;
}

static int parse_ulong(const char *s, unsigned long min, unsigned long max, unsigned long *out)
{
    if (!s || *s < '0' || *s > '9') return 0;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (*end || errno || v < min || v > max) return 0;
    *out = (unsigned long)v;
    return 1;
}

static int is_priority(const char *s)
{
    return !strcmp(s, "low") || !strcmp(s, "normal") || !strcmp(s, "high") || !strcmp(s, "critical");
}

/* Takes argv[*i] if it is one of the shared options; 1 taken, 0 not one,
 * -1 bad (message printed). */
static int common_arg(common_opts *o, const char *prog, int argc, char **argv, int *i)
{
    int r = bench_conn_arg(&o->conn, prog, argc, argv, i);
    if (r) return r;
    const char *a = argv[*i];
    if (!strcmp(a, "--json")) {
        o->json = 1;
        return 1;
    }
    if (!strcmp(a, "--csv")) {
        o->csv = 1;
        return 1;
    }
    if (!strcmp(a, "--timeout") || !strcmp(a, "--poll")) {
        double d;
        if (*i + 1 >= argc || !parse_duration(argv[*i + 1], &d) || d < 1) {
            fprintf(stderr, "%s: %s: expected a duration of at least 1 s (30, 30s, 2m)\n", prog, a);
            return -1;
        }
        ++*i;
        if (a[2] == 't') o->timeout_s = (long)d;
        else o->poll_s = (long)d;
        return 1;
    }
    return 0;
}

#define COMMON_HELP                                                                          \
    BENCH_CONN_HELP                                                                          \
    "  --timeout D    give up on a job after D (default 1h; the job is then canceled)\n"     \
    "  --poll D       one long poll's length, ?wait= (default 30s; at most the daemon's "    \
    "max_wait)\n"

/* Opens the connection of o; on failure prints why and returns the exit
 * status (2: a malformed address, 1: otherwise), else 0. */
static int open_client(const common_opts *o, const char *prog, bench_client **c)
{
    char err[CUZK_ERRMSG_LEN];
    cuzk_status s = bench_client_open(c, o->conn.addr, o->conn.token, err);
    if (s != CUZK_OK) {
        fprintf(stderr, "%s: %s\n", prog, err);
        return s == CUZK_ERR_INVALID_ARGUMENT ? 2 : 1;
    }
    return 0;
}

/* The daemon's {"error": "..."} of a reply, or its first line. */
static void reply_error(const bench_resp *r, char *msg, size_t n)
{
    json_t *j = json_loadb(r->body, r->len, 0, NULL);
    const char *e = json_string_value(json_object_get(j, "error"));
    if (e) {
        snprintf(msg, n, "%s", e);
    } else {
        size_t l = strcspn(r->body, "\r\n");
        snprintf(msg, n, "%.*s", (int)(l < 200 ? l : 200), r->body);
    }
    json_decref(j);
}

/* One request whose answer must be 2xx: prints why not (naming prog) and
 * returns 0. On success the caller frees r. */
static int request_ok(bench_client *c, const char *prog, const char *method, const char *path,
                      bench_resp *r)
{
    char err[CUZK_ERRMSG_LEN];
    if (bench_request(c, method, path, NULL, NULL, 0, 120, r, err) != CUZK_OK) {
        fprintf(stderr, "%s: %s\n", prog, err);
        return 0;
    }
    if (r->status < 200 || r->status > 299) {
        char msg[CUZK_ERRMSG_LEN + 64];
        reply_error(r, msg, sizeof msg);
        fprintf(stderr, "%s: %s %s: the daemon answered %ld: %s\n", prog, method, path, r->status, msg);
        bench_resp_free(r);
        return 0;
    }
    return 1;
}

/* Percent-encodes s for a query (ids are printable ASCII: few need it). */
static void query_escape(char *dst, size_t n, const char *s)
{
    static const char hex[] = "0123456789ABCDEF";
    size_t k = 0;
    for (; *s && k + 4 < n; s++) {
        unsigned char ch = (unsigned char)*s;
        if ((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
            ch == '-' || ch == '_' || ch == '.' || ch == '~') {
            dst[k++] = (char)ch;
        } else {
            dst[k++] = '%';
            dst[k++] = hex[ch >> 4];
            dst[k++] = hex[ch & 15];
        }
    }
    dst[k] = 0;
}

/* Before a run of many jobs: GET /v1/circuits/NAME of each circuit, so
 * that a wrong address, a dead daemon, a missing token or an unknown
 * circuit is one message and an exit status (as open_client's), not a
 * failed row per job (or a stress stream spinning on refusals). */
static int probe_daemon(const common_opts *o, const char *prog, const char *const *circuits,
                        size_t n)
{
    bench_client *c;
    int rc = open_client(o, prog, &c);
    if (rc) return rc;
    for (size_t i = 0; i < n && !rc; i++) {
        char path[256], esc[200];
        query_escape(esc, sizeof esc, circuits[i]);
        snprintf(path, sizeof path, "/v1/circuits/%s", esc);
        bench_resp r;
        if (request_ok(c, prog, "GET", path, &r)) bench_resp_free(&r);
        else rc = 1;
    }
    bench_client_close(c);
    return rc;
}

/* ---------------------------------------------------------------- jobs -- */

/* What to submit: a circuit and one source of inputs. */
typedef struct {
    const char *circuit;
    const char *priority;   /* NULL: the daemon's default (normal) */
    char *inputs;           /* --inputs, checked and compacted JSON text, or NULL
                             * (text: each job parses its own copy, so that
                             * threads share no jansson object) */
    unsigned char *wtns;    /* --wtns FILE: the body as is; or NULL */
    size_t wtns_len;
    const char *wtns_path;  /* --wtns-path: a path the daemon reads */
    uint64_t seed;          /* otherwise: {"seed": seed + job index} */
} job_spec;

static void spec_free(job_spec *s)
{
    free(s->inputs);
    free(s->wtns);
}

/* One job as the client saw it; the per-job row of every output. */
typedef struct {
    unsigned idx;             /* order of submission, from 0 */
    const char *klass;        /* "batch", "single" or a stress class's name */
    uint64_t id;              /* 0: never accepted */
    char circuit[64], priority[16], state[16], backend[16];
    char error[CUZK_ERRMSG_LEN + 64];
    int ok;                   /* state "done" */
    double submit_s;          /* since the run's start */
    double latency_ms;        /* the client's: submission to the final answer */
    double queued_ms, total_ms; /* the daemon's */
    double witness_ms, prove_ms, verify_ms; /* summed over partitions */
    double key_load_ms;       /* the daemon's, when it reports one; else < 0 */
    unsigned partitions, verified; /* verified: partitions self-checked */
    size_t proof_json_bytes;
} job_rec;

static double jnum(json_t *o, const char *k)
{
    json_t *v = json_object_get(o, k);
    return json_is_number(v) ? json_number_value(v) : 0;
}

/* dst = o's string k; unchanged when o has none. */
static void copy_str(char *dst, size_t n, json_t *o, const char *k)
{
    const char *s = json_string_value(json_object_get(o, k));
    if (s) snprintf(dst, n, "%s", s);
}

/* Fills rec from a job's JSON (GET /v1/jobs/ID), the latest answer. */
static void rec_from_json(job_rec *rec, json_t *j)
{
    rec->witness_ms = rec->prove_ms = rec->verify_ms = 0;
    rec->key_load_ms = -1;
    rec->verified = 0;
    json_int_t id = json_integer_value(json_object_get(j, "id"));
    if (id > 0) rec->id = (uint64_t)id;
    copy_str(rec->state, sizeof rec->state, j, "state");
    copy_str(rec->circuit, sizeof rec->circuit, j, "circuit");
    copy_str(rec->priority, sizeof rec->priority, j, "priority");
    if (json_object_get(j, "error")) copy_str(rec->error, sizeof rec->error, j, "error");
    rec->queued_ms = jnum(j, "queued_ms");
    rec->total_ms = jnum(j, "total_ms");
    rec->partitions = (unsigned)json_integer_value(json_object_get(j, "partitions"));
    rec->ok = !strcmp(rec->state, "done");
    json_t *t = json_object_get(j, "timings"), *parts = json_object_get(t, "partitions");
    if (json_object_get(t, "key_load_ms")) rec->key_load_ms = jnum(t, "key_load_ms");
    size_t i;
    json_t *p;
    json_array_foreach(parts, i, p) {
        rec->witness_ms += jnum(p, "witness_ms");
        double v = jnum(p, "verify_ms");
        rec->verify_ms += v;
        rec->prove_ms += jnum(p, "prove_ms") - v; /* the prover's total holds the self-check */
        if (v > 0) rec->verified++;
        if (json_object_get(p, "key_load_ms")) {
            if (rec->key_load_ms < 0) rec->key_load_ms = 0;
            rec->key_load_ms += jnum(p, "key_load_ms");
        }
        if (i == 0) copy_str(rec->backend, sizeof rec->backend, p, "backend");
    }
    json_t *proof = json_object_get(j, "proof");
    if (proof) {
        char *s = json_dumps(proof, JSON_COMPACT);
        rec->proof_json_bytes = s ? strlen(s) : 0;
        free(s);
    }
}

static int finished(const char *state)
{
    return !strcmp(state, "done") || !strcmp(state, "failed") || !strcmp(state, "canceled");
}

/* Submits one job of sp (seed sp->seed + seq when seeded) and waits for
 * its end or for timeout_s; fills rec (idx, klass, submit_s set by the
 * caller). When the limit passes, the job is canceled. The answer j (the
 * job's last JSON) is handed to the caller when want_json, else freed. */
static void run_job(bench_client *c, const job_spec *sp, uint64_t seq, const common_opts *o,
                    job_rec *rec, json_t **want_json)
{
    char err[CUZK_ERRMSG_LEN];
    char path[512], cq[200], pq[64];
    snprintf(rec->circuit, sizeof rec->circuit, "%s", sp->circuit);
    snprintf(rec->priority, sizeof rec->priority, "%s", sp->priority ? sp->priority : "normal");
    snprintf(rec->state, sizeof rec->state, "error");
    rec->key_load_ms = -1;
    if (want_json) *want_json = NULL;

    double t0 = now_s(), deadline = t0 + (double)o->timeout_s;
    long wait = o->poll_s < o->timeout_s ? o->poll_s : o->timeout_s;
    bench_resp r;
    cuzk_status s;
    if (sp->wtns) {
        query_escape(cq, sizeof cq, sp->circuit);
        query_escape(pq, sizeof pq, sp->priority ? sp->priority : "normal");
        snprintf(path, sizeof path, "/v1/jobs?wait=%ld&circuit=%s&priority=%s", wait, cq, pq);
        s = bench_request(c, "POST", path, "application/octet-stream", sp->wtns, sp->wtns_len,
                          wait + 30, &r, err);
    } else {
        json_t *b = json_pack("{s:s}", "circuit", sp->circuit);
        if (sp->priority) json_object_set_new(b, "priority", json_string(sp->priority));
        if (sp->inputs) json_object_set_new(b, "inputs", json_loads(sp->inputs, 0, NULL));
        else if (sp->wtns_path) json_object_set_new(b, "wtns_path", json_string(sp->wtns_path));
        else json_object_set_new(b, "seed", json_integer((json_int_t)(sp->seed + seq)));
        char *body = json_dumps(b, JSON_COMPACT);
        json_decref(b);
        if (!body) {
            snprintf(rec->error, sizeof rec->error, "out of memory");
            return;
        }
        snprintf(path, sizeof path, "/v1/jobs?wait=%ld", wait);
        s = bench_request(c, "POST", path, "application/json", body, strlen(body), wait + 30, &r,
                          err);
        free(body);
    }
    json_t *j = NULL;
    for (;;) {
        if (s != CUZK_OK) {
            snprintf(rec->error, sizeof rec->error, "%s", err);
            break;
        }
        if (r.status != 200 && r.status != 202) {
            char msg[CUZK_ERRMSG_LEN + 32];
            reply_error(&r, msg, sizeof msg);
            snprintf(rec->error, sizeof rec->error, "HTTP %ld: %s", r.status, msg);
            snprintf(rec->state, sizeof rec->state, "rejected");
            bench_resp_free(&r);
            break;
        }
        json_decref(j);
        j = json_loadb(r.body, r.len, 0, NULL);
        bench_resp_free(&r);
        if (!json_is_object(j)) {
            snprintf(rec->error, sizeof rec->error, "the daemon's answer is not a JSON object");
            break;
        }
        rec_from_json(rec, j);
        if (finished(rec->state)) break;
        double left = deadline - now_s();
        if (left < 1) {
            snprintf(rec->error, sizeof rec->error, "no answer within %ld s; canceled", o->timeout_s);
            snprintf(path, sizeof path, "/v1/jobs/%llu", (unsigned long long)rec->id);
            if (bench_request(c, "DELETE", path, NULL, NULL, 0, 30, &r, err) == CUZK_OK)
                bench_resp_free(&r);
            snprintf(rec->state, sizeof rec->state, "timeout");
            break;
        }
        wait = (long)left < o->poll_s ? (long)left : o->poll_s;
        snprintf(path, sizeof path, "/v1/jobs/%llu?wait=%ld", (unsigned long long)rec->id, wait);
        s = bench_request(c, "GET", path, NULL, NULL, 0, wait + 30, &r, err);
    }
    rec->latency_ms = (now_s() - t0) * 1e3;
    rec->ok = !strcmp(rec->state, "done");
    if (want_json) *want_json = j;
    else json_decref(j);
}

/* Reads the options that describe a job into sp; 1 taken, 0 not one, -1
 * bad (message printed). */
static int spec_arg(job_spec *sp, const char *prog, int argc, char **argv, int *i)
{
    const char *a = argv[*i];
    int known = !strcmp(a, "--priority") || !strcmp(a, "-p") || !strcmp(a, "--seed") ||
                !strcmp(a, "--inputs") || !strcmp(a, "--wtns") || !strcmp(a, "--wtns-path");
    if (!known) return 0;
    if (*i + 1 >= argc) {
        fprintf(stderr, "%s: %s needs a value\n", prog, a);
        return -1;
    }
    const char *v = argv[++*i];
    if (!strcmp(a, "--priority") || !strcmp(a, "-p")) {
        if (!is_priority(v)) {
            fprintf(stderr, "%s: priority '%s': expected low, normal, high or critical\n", prog, v);
            return -1;
        }
        sp->priority = v;
    } else if (!strcmp(a, "--seed")) {
        unsigned long long x;
        char *end;
        errno = 0;
        x = strtoull(v, &end, 10);
        if (*v < '0' || *v > '9' || *end || errno || x > (unsigned long long)INT64_MAX / 2) {
            fprintf(stderr, "%s: --seed '%s': expected an integer >= 0\n", prog, v);
            return -1;
        }
        sp->seed = x;
    } else if (!strcmp(a, "--inputs")) {
        json_error_t je;
        json_t *in = v[0] == '@' ? json_load_file(v + 1, 0, &je) : json_loads(v, 0, &je);
        if (!in) {
            fprintf(stderr, "%s: --inputs %s: %s (line %d)\n", prog, v, je.text, je.line);
            return -1;
        }
        free(sp->inputs);
        sp->inputs = json_dumps(in, JSON_COMPACT);
        json_decref(in);
        if (!sp->inputs) {
            fprintf(stderr, "%s: --inputs: out of memory\n", prog);
            return -1;
        }
    } else if (!strcmp(a, "--wtns")) {
        FILE *f = fopen(v, "rb");
        if (!f) {
            fprintf(stderr, "%s: --wtns %s: %s\n", prog, v, strerror(errno));
            return -1;
        }
        free(sp->wtns);
        sp->wtns = NULL;
        sp->wtns_len = 0;
        size_t cap = 0;
        for (;;) {
            if (sp->wtns_len == cap) {
                cap = cap ? cap * 2 : 1 << 16;
                unsigned char *p = realloc(sp->wtns, cap);
                if (!p) {
                    fclose(f);
                    fprintf(stderr, "%s: --wtns %s: out of memory\n", prog, v);
                    return -1;
                }
                sp->wtns = p;
            }
            size_t n = fread(sp->wtns + sp->wtns_len, 1, cap - sp->wtns_len, f);
            sp->wtns_len += n;
            if (n == 0) break;
        }
        int bad = ferror(f);
        fclose(f);
        if (bad || sp->wtns_len == 0) {
            fprintf(stderr, "%s: --wtns %s: %s\n", prog, v, bad ? "read error" : "empty file");
            return -1;
        }
    } else {
        sp->wtns_path = v;
    }
    return 1;
}

static int spec_check(const job_spec *sp, const char *prog)
{
    int sources = !!sp->inputs + !!sp->wtns + !!sp->wtns_path;
    if (sources > 1) {
        fprintf(stderr, "%s: give at most one of --inputs, --wtns and --wtns-path\n", prog);
        return 0;
    }
    return 1;
}

#define SPEC_HELP                                                                            \
    "  -p, --priority P  low, normal (default), high or critical\n"                          \
    "  --seed N          a built-in circuit's inputs from seed N (job k: N + k; default 1)\n" \
    "  --inputs JSON     the circuit's inputs as JSON, or @FILE\n"                            \
    "  --wtns FILE       upload a .wtns witness (a .zkey circuit)\n"                          \
    "  --wtns-path PATH  a .wtns file the daemon reads itself\n"

/* -------------------------------------------------------------- output -- */

typedef struct {
    double min, p50, p95, p99, max, mean;
    size_t n;
} lat_stats;

/* Nearest-rank percentile of sorted v[0..n). */
static double pct(const double *v, size_t n, double p)
{
    size_t k = (size_t)ceil(p / 100.0 * (double)n);
    return v[k ? k - 1 : 0];
}

/* The latency statistics of the completed jobs among recs that pass keep
 * (NULL: all). */
static lat_stats stats_of(const job_rec *recs, size_t n, int (*keep)(const job_rec *, const void *),
                          const void *arg)
{
    lat_stats s;
    memset(&s, 0, sizeof s);
    double *v = malloc((n ? n : 1) * sizeof *v);
    if (!v) return s;
    double sum = 0;
    for (size_t i = 0; i < n; i++)
        if (recs[i].ok && (!keep || keep(&recs[i], arg))) {
            v[s.n++] = recs[i].latency_ms;
            sum += recs[i].latency_ms;
        }
    if (s.n) {
        qsort(v, s.n, sizeof *v, bench_cmp_double);
        s.min = v[0];
        s.max = v[s.n - 1];
        s.p50 = pct(v, s.n, 50);
        s.p95 = pct(v, s.n, 95);
        s.p99 = pct(v, s.n, 99);
        s.mean = sum / (double)s.n;
    }
    free(v);
    return s;
}

static void print_stats(FILE *f, const char *label, const lat_stats *s)
{
    if (!s->n) {
        fprintf(f, "%s: no completed job\n", label);
        return;
    }
    fprintf(f, "%s (ms, %zu jobs): min %.1f  p50 %.1f  p95 %.1f  p99 %.1f  max %.1f  mean %.1f\n",
            label, s->n, s->min, s->p50, s->p95, s->p99, s->max, s->mean);
}

static json_t *stats_json(const lat_stats *s)
{
    if (!s->n) return json_pack("{s:i}", "n", 0);
    return json_pack("{s:I,s:f,s:f,s:f,s:f,s:f,s:f}", "n", (json_int_t)s->n, "min_ms", s->min,
                     "p50_ms", s->p50, "p95_ms", s->p95, "p99_ms", s->p99, "max_ms", s->max,
                     "mean_ms", s->mean);
}

/* One line for a finished job (text mode). */
static void print_rec_line(FILE *f, const job_rec *r)
{
    fprintf(f, "job %4u", r->idx);
    if (strcmp(r->klass, "batch")) fprintf(f, " [%s]", r->klass);
    fprintf(f, " id %-5llu %-14s %-8s %-8s %9.1f ms", (unsigned long long)r->id, r->circuit,
            r->priority, r->state, r->latency_ms);
    if (r->ok)
        fprintf(f, "  daemon: total %.1f queue %.1f witness %.1f prove %.1f verify %.1f (%u part.)\n",
                r->total_ms, r->queued_ms, r->witness_ms, r->prove_ms, r->verify_ms, r->partitions);
    else
        fprintf(f, "  %s\n", r->error[0] ? r->error : "(no reason given)");
}

static json_t *rec_json(const job_rec *r)
{
    json_t *j = json_pack(
        "{s:I,s:s,s:I,s:s,s:s,s:s,s:f,s:f,s:f,s:f,s:f,s:f,s:f,s:I,s:I,s:I,s:I,s:s}", "idx",
        (json_int_t)r->idx, "class", r->klass, "id", (json_int_t)r->id, "circuit", r->circuit,
        "priority", r->priority, "state", r->state, "submit_s", r->submit_s, "latency_ms",
        r->latency_ms, "queued_ms", r->queued_ms, "total_ms", r->total_ms, "witness_ms",
        r->witness_ms, "prove_ms", r->prove_ms, "verify_ms", r->verify_ms, "partitions",
        (json_int_t)r->partitions, "verified_partitions", (json_int_t)r->verified, "proof_bytes",
        (json_int_t)(r->ok ? (size_t)r->partitions * PROOF_BYTES : 0), "proof_json_bytes",
        (json_int_t)r->proof_json_bytes, "backend", r->backend);
    if (j && r->key_load_ms >= 0) json_object_set_new(j, "key_load_ms", json_real(r->key_load_ms));
    if (j && r->error[0]) json_object_set_new(j, "error", json_string(r->error));
    return j;
}

static void csv_field(FILE *f, const char *s)
{
    if (!strpbrk(s, ",\"\r\n")) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"') fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

static const char CSV_HEADER[] =
    "idx,class,id,circuit,priority,state,submit_s,latency_ms,queued_ms,total_ms,witness_ms,"
    "prove_ms,verify_ms,partitions,verified_partitions,proof_bytes,backend,error\n";

static void print_rec_csv(FILE *f, const job_rec *r)
{
    fprintf(f, "%u,", r->idx);
    csv_field(f, r->klass);
    fprintf(f, ",%llu,", (unsigned long long)r->id);
    csv_field(f, r->circuit);
    fprintf(f, ",%s,%s,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%u,%u,%zu,", r->priority, r->state,
            r->submit_s, r->latency_ms, r->queued_ms, r->total_ms, r->witness_ms, r->prove_ms,
            r->verify_ms, r->partitions, r->verified,
            r->ok ? (size_t)r->partitions * PROOF_BYTES : 0);
    csv_field(f, r->backend);
    fputc(',', f);
    csv_field(f, r->error);
    fputc('\n', f);
}

/* ------------------------------------------------ a run of many jobs -- */

/* The state of a batch or stress run, shared by its threads under mu. */
typedef struct {
    pthread_mutex_t mu;
    const common_opts *o;
    job_rec *recs;
    size_t n, cap;
    size_t done, failed, in_flight;
    unsigned next_idx;
    double t0;
    int tty;       /* a progress bar on stderr */
    int bar_shown; /* the bar is on the screen (erase before a line) */
    /* what the bar shows */
    size_t total;      /* batch: COUNT; stress: 0 */
    double duration_s; /* stress */
} run_state;

static void bar_erase(run_state *rs)
{
    if (rs->bar_shown) {
        fputs("\r\033[K", stderr);
        rs->bar_shown = 0;
    }
}

/* Redraws the bar (under mu). */
static void bar_draw(run_state *rs)
{
    if (!rs->tty) return;
    const int width = 30;
    double el = now_s() - rs->t0, frac;
    if (rs->total) frac = (double)(rs->done + rs->failed) / (double)rs->total;
    else frac = rs->duration_s > 0 ? el / rs->duration_s : 0;
    if (frac > 1) frac = 1;
    int fill = (int)(frac * width + 0.5);
    char bar[64];
    for (int k = 0; k < width; k++) bar[k] = k < fill ? '#' : '.';
    bar[width] = 0;
    fprintf(stderr, "\r\033[K[%s] ", bar);
    if (rs->total) fprintf(stderr, "%zu/%zu", rs->done + rs->failed, rs->total);
    else fprintf(stderr, "%.0f/%.0f s", el < rs->duration_s ? el : rs->duration_s, rs->duration_s);
    fprintf(stderr, "  done %zu  failed %zu  in flight %zu  %.1f s", rs->done, rs->failed,
            rs->in_flight, el);
    fflush(stderr);
    rs->bar_shown = 1;
}

/* Claims the next job index and counts it in flight; its submit time. */
static unsigned run_begin(run_state *rs, double *submit_s)
{
    pthread_mutex_lock(&rs->mu);
    unsigned idx = rs->next_idx++;
    rs->in_flight++;
    *submit_s = now_s() - rs->t0;
    pthread_mutex_unlock(&rs->mu);
    return idx;
}

/* Records a finished job; prints its line in text mode. */
static void run_end(run_state *rs, const job_rec *r)
{
    pthread_mutex_lock(&rs->mu);
    rs->in_flight--;
    if (r->ok) rs->done++;
    else rs->failed++;
    if (rs->n == rs->cap) {
        size_t cap = rs->cap ? rs->cap * 2 : 64;
        job_rec *p = realloc(rs->recs, cap * sizeof *p);
        if (p) {
            rs->recs = p;
            rs->cap = cap;
        }
    }
    if (rs->n < rs->cap) rs->recs[rs->n++] = *r;
    else fprintf(stderr, "cuzk-bench: out of memory: job %u's record is lost\n", r->idx);
    if (!rs->o->json && !rs->o->csv) {
        bar_erase(rs);
        print_rec_line(stdout, r);
        fflush(stdout);
    }
    bar_draw(rs);
    pthread_mutex_unlock(&rs->mu);
}

static int rec_by_idx(const void *a, const void *b)
{
    const job_rec *x = a, *y = b;
    return (x->idx > y->idx) - (x->idx < y->idx);
}

/* Waits for *running to reach 0, redrawing the bar every 200 ms. */
static void run_watch(run_state *rs, int (*running)(run_state *))
{
    while (running(rs)) {
        pthread_mutex_lock(&rs->mu);
        bar_draw(rs);
        pthread_mutex_unlock(&rs->mu);
        sleep_s(0.2);
    }
    pthread_mutex_lock(&rs->mu);
    bar_erase(rs);
    pthread_mutex_unlock(&rs->mu);
}

static void run_init(run_state *rs, const common_opts *o)
{
    memset(rs, 0, sizeof *rs);
    pthread_mutex_init(&rs->mu, NULL);
    rs->o = o;
    rs->tty = isatty(STDERR_FILENO);
    rs->t0 = now_s();
}

static void run_free(run_state *rs)
{
    pthread_mutex_destroy(&rs->mu);
    free(rs->recs);
}

/* The per-job rows in --json or --csv (text mode printed them as they
 * came); sorted by submission. summary: the JSON summary (stolen). */
static void run_output(run_state *rs, const char *command, json_t *summary)
{
    qsort(rs->recs, rs->n, sizeof *rs->recs, rec_by_idx);
    if (rs->o->csv) {
        fputs(CSV_HEADER, stdout);
        for (size_t i = 0; i < rs->n; i++) print_rec_csv(stdout, &rs->recs[i]);
    }
    if (rs->o->json) {
        json_t *a = json_array();
        for (size_t i = 0; i < rs->n; i++) json_array_append_new(a, rec_json(&rs->recs[i]));
        json_t *j = json_pack("{s:s,s:s,s:o,s:o}", "command", command, "addr", rs->o->conn.addr,
                              "jobs", a, "summary", summary);
        json_dumpf(j, stdout, JSON_INDENT(1) | JSON_REAL_PRECISION(9));
        fputc('\n', stdout);
        json_decref(j);
    } else {
        json_decref(summary);
    }
    fflush(stdout);
}

/* --------------------------------------------------------------- single -- */

static void single_usage(FILE *f)
{
    fprintf(f,
            "usage: cuzk-bench single CIRCUIT [options]\n"
            "  Proves one job on a running daemon and prints its state, the daemon's timings\n"
            "  (queue, key load, witness, prover, self-check, total), the client's latency and\n"
            "  the proof's size.\n" SPEC_HELP
            "  --proof FILE      write the proof (snarkjs JSON; an array for several partitions)\n"
            "  --public FILE     write the public inputs likewise\n"
            "  --json            the job's row and the daemon's full answer as JSON\n"
            "  --csv             the job's row as CSV (header + 1 row)\n" COMMON_HELP
            "exit: 0 done, 1 not done or no answer, 2 bad usage\n");
}

static int write_json_file(const char *path, json_t *v, const char *prog)
{
    if (!v) {
        fprintf(stderr, "%s: the answer has nothing to write to %s\n", prog, path);
        return 0;
    }
    if (json_dump_file(v, path, JSON_INDENT(1)) != 0) {
        fprintf(stderr, "%s: cannot write %s\n", prog, path);
        return 0;
    }
    return 1;
}

int bench_single(int argc, char **argv)
{
    const char *prog = "cuzk-bench single";
    common_opts o;
    common_init(&o);
    job_spec sp;
    memset(&sp, 0, sizeof sp);
    sp.seed = 1;
    const char *proof_out = NULL, *public_out = NULL;
    int rc = 2;
    for (int i = 1; i < argc; i++) {
        int r;
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            single_usage(stdout);
            spec_free(&sp);
            return 0;
        }
        if ((r = common_arg(&o, prog, argc, argv, &i)) || (r = spec_arg(&sp, prog, argc, argv, &i))) {
            if (r < 0) goto out;
        } else if (!strcmp(argv[i], "--proof") || !strcmp(argv[i], "--public")) {
            if (i + 1 >= argc) {
                fprintf(stderr, "%s: %s needs a file\n", prog, argv[i]);
                goto out;
            }
            if (argv[i][3] == 'r') proof_out = argv[++i];
            else public_out = argv[++i];
        } else if (argv[i][0] == '-' || sp.circuit) {
            fprintf(stderr, "%s: unexpected argument '%s' (--help lists the options)\n", prog, argv[i]);
            goto out;
        } else {
            sp.circuit = argv[i];
        }
    }
    if (!sp.circuit) {
        fprintf(stderr, "%s: which circuit? (cuzk-bench status lists them)\n", prog);
        single_usage(stderr);
        goto out;
    }
    if (!spec_check(&sp, prog)) goto out;
    bench_client *c;
    if ((rc = open_client(&o, prog, &c))) goto out;
    job_rec rec;
    memset(&rec, 0, sizeof rec);
    rec.klass = "single";
    json_t *ans = NULL;
    run_job(c, &sp, 0, &o, &rec, &ans);
    bench_client_close(c);
    rc = rec.ok ? 0 : 1;

    if (rec.ok && proof_out && !write_json_file(proof_out, json_object_get(ans, "proof"), prog)) rc = 1;
    if (rec.ok && public_out && !write_json_file(public_out, json_object_get(ans, "public"), prog))
        rc = 1;
    if (o.csv) {
        fputs(CSV_HEADER, stdout);
        print_rec_csv(stdout, &rec);
    }
    if (o.json) {
        json_t *j = json_pack("{s:s,s:s,s:o,s:O}", "command", "single", "addr", o.conn.addr, "job",
                              rec_json(&rec), "answer", ans ? ans : json_null());
        json_dumpf(j, stdout, JSON_INDENT(1) | JSON_REAL_PRECISION(9));
        fputc('\n', stdout);
        json_decref(j);
    }
    if (!o.json && !o.csv) {
        if (!rec.id) {
            fprintf(stderr, "%s: job not accepted: %s\n", prog, rec.error);
        } else {
            printf("job %llu: %s (%s, priority %s, %u partition%s%s%s)\n",
                   (unsigned long long)rec.id, rec.state, rec.circuit, rec.priority,
                   rec.partitions, rec.partitions == 1 ? "" : "s", rec.backend[0] ? ", backend " : "",
                   rec.backend);
            if (!rec.ok) printf("  error     %s\n", rec.error[0] ? rec.error : "(none given)");
        }
        if (rec.ok) {
            const char *per = rec.partitions > 1 ? "  (sum over partitions)" : "";
            printf("  queue     %10.1f ms\n", rec.queued_ms);
            if (rec.key_load_ms >= 0) printf("  key load  %10.1f ms\n", rec.key_load_ms);
            else printf("  key load           -     (the daemon's timings have none)\n");
            printf("  witness   %10.1f ms%s\n", rec.witness_ms, per);
            printf("  %-9s %10.1f ms%s\n", rec.backend[0] && strcmp(rec.backend, "cpu") ? "GPU" : "prove",
                   rec.prove_ms, per);
            printf("  verify    %10.1f ms%s\n", rec.verify_ms, per);
            printf("  total     %10.1f ms  (the daemon's; the client saw %.1f ms)\n", rec.total_ms,
                   rec.latency_ms);
            printf("  proof     %u x %d = %u bytes compressed  (%zu bytes of JSON)\n", rec.partitions,
                   PROOF_BYTES, rec.partitions * PROOF_BYTES, rec.proof_json_bytes);
            printf("  verified  %u/%u partitions by the daemon's self-check\n", rec.verified,
                   rec.partitions);
        } else if (rec.id) {
            printf("  latency   %10.1f ms\n", rec.latency_ms);
        }
    } else if (!rec.ok) {
        fprintf(stderr, "%s: job %s: %s\n", prog, rec.state, rec.error);
    }
    json_decref(ans);
out:
    spec_free(&sp);
    return rc;
}

/* ---------------------------------------------------------------- batch -- */

typedef struct {
    run_state *rs;
    const job_spec *sp;
    size_t count;
} batch_ctx;

static void *batch_worker(void *arg)
{
    batch_ctx *b = arg;
    run_state *rs = b->rs;
    bench_client *c = NULL;
    char err[CUZK_ERRMSG_LEN];
    cuzk_status s = bench_client_open(&c, rs->o->conn.addr, rs->o->conn.token, err);
    for (;;) {
        pthread_mutex_lock(&rs->mu);
        int more = rs->next_idx < b->count;
        pthread_mutex_unlock(&rs->mu);
        if (!more) break;
        job_rec rec;
        memset(&rec, 0, sizeof rec);
        rec.klass = "batch";
        rec.idx = run_begin(rs, &rec.submit_s);
        if (rec.idx >= b->count) { /* another worker took the last one */
            pthread_mutex_lock(&rs->mu);
            rs->in_flight--;
            pthread_mutex_unlock(&rs->mu);
            break;
        }
        if (s == CUZK_OK) {
            run_job(c, b->sp, rec.idx, rs->o, &rec, NULL);
        } else {
            snprintf(rec.circuit, sizeof rec.circuit, "%s", b->sp->circuit);
            snprintf(rec.state, sizeof rec.state, "error");
            snprintf(rec.error, sizeof rec.error, "%s", err);
        }
        run_end(rs, &rec);
    }
    bench_client_close(c);
    return NULL;
}

static int batch_running(run_state *rs)
{
    pthread_mutex_lock(&rs->mu);
    int r = rs->done + rs->failed < rs->total;
    pthread_mutex_unlock(&rs->mu);
    return r;
}

static void batch_usage(FILE *f)
{
    fprintf(f,
            "usage: cuzk-bench batch CIRCUIT -c COUNT -j CONCURRENCY [options]\n"
            "  Submits COUNT jobs of CIRCUIT with at most CONCURRENCY in flight (each awaited\n"
            "  before the next is sent on its slot). Prints a line per job as it finishes (a\n"
            "  progress bar on a terminal), then the wall time, completed/failed, s/proof,\n"
            "  proofs/min and the latency min/p50/p95/p99/max of the completed jobs.\n"
            "  -c, --count N        jobs (default 1)\n"
            "  -j, --concurrency N  jobs in flight at most (default 1)\n" SPEC_HELP
            "  --json               per-job rows and the summary as one JSON object\n"
            "  --csv                per-job rows as CSV on stdout; the summary on stderr\n" COMMON_HELP
            "exit: 0 all done, 1 a job not done or no answer, 2 bad usage\n");
}

int bench_batch(int argc, char **argv)
{
    const char *prog = "cuzk-bench batch";
    common_opts o;
    common_init(&o);
    job_spec sp;
    memset(&sp, 0, sizeof sp);
    sp.seed = 1;
    unsigned long count = 1, conc = 1;
    int rc = 2;
    for (int i = 1; i < argc; i++) {
        int r;
        const char *a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            batch_usage(stdout);
            spec_free(&sp);
            return 0;
        }
        if ((r = common_arg(&o, prog, argc, argv, &i)) || (r = spec_arg(&sp, prog, argc, argv, &i))) {
            if (r < 0) goto out;
        } else if (!strcmp(a, "-c") || !strcmp(a, "--count") || !strcmp(a, "-j") ||
                   !strcmp(a, "--concurrency")) {
            int is_c = !strcmp(a, "-c") || !strcmp(a, "--count");
            unsigned long *dst = is_c ? &count : &conc;
            if (i + 1 >= argc || !parse_ulong(argv[i + 1], 1, is_c ? 10000000 : 4096, dst)) {
                fprintf(stderr, "%s: %s: expected an integer from 1 to %d\n", prog, a,
                        is_c ? 10000000 : 4096);
                goto out;
            }
            i++;
        } else if (a[0] == '-' || sp.circuit) {
            fprintf(stderr, "%s: unexpected argument '%s' (--help lists the options)\n", prog, a);
            goto out;
        } else {
            sp.circuit = a;
        }
    }
    if (!sp.circuit) {
        fprintf(stderr, "%s: which circuit? (cuzk-bench status lists them)\n", prog);
        batch_usage(stderr);
        goto out;
    }
    if (!spec_check(&sp, prog)) goto out;
    if (conc > count) conc = count;
    if ((rc = probe_daemon(&o, prog, &sp.circuit, 1))) goto out;

    json_object_seed(0); /* before threads make objects */
    run_state rs;
    run_init(&rs, &o);
    rs.total = count;
    batch_ctx b = {&rs, &sp, count};
    pthread_t *th = calloc(conc, sizeof *th);
    if (!th) {
        fprintf(stderr, "%s: out of memory\n", prog);
        run_free(&rs);
        rc = 1;
        goto out;
    }
    size_t started = 0;
    for (; started < conc; started++)
        if (pthread_create(&th[started], NULL, batch_worker, &b)) break;
    if (!started) {
        fprintf(stderr, "%s: cannot start a thread\n", prog);
        free(th);
        run_free(&rs);
        rc = 1;
        goto out;
    }
    run_watch(&rs, batch_running);
    for (size_t k = 0; k < started; k++) pthread_join(th[k], NULL);
    free(th);
    double wall = now_s() - rs.t0;

    lat_stats st = stats_of(rs.recs, rs.n, NULL, NULL);
    FILE *sf = o.csv && !o.json ? stderr : stdout;
    if (!o.json) {
        fprintf(sf, "%s: %lu jobs of %s, %lu in flight, on %s\n", prog, count, sp.circuit, conc,
                o.conn.addr);
        fprintf(sf, "wall %.3f s   completed %zu   failed %zu", wall, rs.done, rs.failed);
        if (rs.done)
            fprintf(sf, "   %.3f s/proof   %.2f proofs/min", wall / (double)rs.done,
                    (double)rs.done * 60.0 / wall);
        fputc('\n', sf);
        print_stats(sf, "latency", &st);
    }
    json_t *sum = json_pack("{s:s,s:I,s:I,s:f,s:I,s:I,s:o}", "circuit", sp.circuit, "count",
                            (json_int_t)count, "concurrency", (json_int_t)conc, "wall_s", wall,
                            "completed", (json_int_t)rs.done, "failed", (json_int_t)rs.failed,
                            "latency", stats_json(&st));
    if (rs.done) {
        json_object_set_new(sum, "s_per_proof", json_real(wall / (double)rs.done));
        json_object_set_new(sum, "proofs_per_min", json_real((double)rs.done * 60.0 / wall));
    }
    run_output(&rs, "batch", sum);
    rc = rs.failed ? 1 : 0;
    if (rs.failed && (o.json || o.csv)) fprintf(stderr, "%s: %zu jobs failed\n", prog, rs.failed);
    run_free(&rs);
out:
    spec_free(&sp);
    return rc;
}

/* --------------------------------------------------------------- stress -- */

/* One class of load:
 *   --stream CIRCUIT[:j=N][:PRIORITY]     N jobs always in flight (closed loop)
 *   --every  INTERVAL:CIRCUIT[:PRIORITY]  one job every INTERVAL (open loop) */
typedef struct {
    char name[64]; /* the spec as given ("porep-32g:j=4"): the rows' class */
    job_spec sp;
    int periodic;
    unsigned j;        /* stream: in flight */
    double interval_s; /* periodic */
    unsigned submitted, dropped;
} stress_class;

#define STRESS_MAX_CLASSES 16
/* A periodic class runs each job on its own thread; past this many in
 * flight a tick is counted dropped, not sent (the daemon is that far
 * behind, and more threads would only measure the client). */
#define STRESS_MAX_PERIODIC_IN_FLIGHT 256

static int parse_class(stress_class *k, const char *spec, int periodic, const char *prog)
{
    memset(k, 0, sizeof *k);
    k->periodic = periodic;
    k->j = 1;
    char buf[256];
    if (strlen(spec) >= sizeof buf) {
        fprintf(stderr, "%s: '%.40s...': too long\n", prog, spec);
        return 0;
    }
    strcpy(buf, spec);
    char *save = NULL, *tok = strtok_r(buf, ":", &save);
    if (periodic) {
        if (!tok || !parse_duration(tok, &k->interval_s)) {
            fprintf(stderr, "%s: --every '%s': expected INTERVAL:CIRCUIT[:PRIORITY] (e.g. 30s:winning-32g:critical)\n",
                    prog, spec);
            return 0;
        }
        tok = strtok_r(NULL, ":", &save);
    }
    if (!tok) {
        fprintf(stderr, "%s: '%s': no circuit\n", prog, spec);
        return 0;
    }
    /* The circuit's name points into spec (argv), which outlives the run. */
    k->sp.circuit = spec + (tok - buf);
    size_t clen = strcspn(k->sp.circuit, ":");
    if (clen >= 40) {
        fprintf(stderr, "%s: '%s': circuit name too long\n", prog, spec);
        return 0;
    }
    while ((tok = strtok_r(NULL, ":", &save))) {
        unsigned long v;
        if (!strncmp(tok, "j=", 2) && !periodic) {
            if (!parse_ulong(tok + 2, 1, 1024, &v)) {
                fprintf(stderr, "%s: '%s': j=N expects 1 to 1024\n", prog, spec);
                return 0;
            }
            k->j = (unsigned)v;
        } else if (is_priority(tok)) {
            k->sp.priority = spec + (tok - buf);
        } else {
            fprintf(stderr, "%s: '%s': unknown part '%s' (%s)\n", prog, spec, tok,
                    periodic ? "expected a priority" : "expected j=N or a priority");
            return 0;
        }
    }
    snprintf(k->name, sizeof k->name, "%.56s", spec);
    return 1;
}

/* The circuit and priority strings of k point into argv with ':' after
 * them: copy them into their own storage. */
typedef struct {
    char circuit[48], priority[16];
} class_strings;

typedef struct {
    run_state *rs;
    stress_class *classes;
    size_t n_classes;
    double end_s; /* since rs->t0: no submission after */
    int periodic_in_flight;
    /* the periodic jobs' threads, joined at the end (guarded by rs->mu) */
    pthread_t *threads;
    size_t n_threads, cap_threads;
} stress_ctx;

typedef struct {
    stress_ctx *x;
    stress_class *k;
    unsigned seq;
} stress_job_arg;

/* One job of class k on connection c (NULL: open one for this job).
 * Returns 0 when the daemon did not answer. */
static int stress_one(stress_ctx *x, stress_class *k, bench_client *c, unsigned seq)
{
    run_state *rs = x->rs;
    job_rec rec;
    memset(&rec, 0, sizeof rec);
    rec.klass = k->name;
    rec.idx = run_begin(rs, &rec.submit_s);
    char err[CUZK_ERRMSG_LEN];
    bench_client *own = NULL;
    if (!c && bench_client_open(&own, rs->o->conn.addr, rs->o->conn.token, err) == CUZK_OK) c = own;
    if (c) {
        run_job(c, &k->sp, seq, rs->o, &rec, NULL);
    } else {
        snprintf(rec.circuit, sizeof rec.circuit, "%s", k->sp.circuit);
        snprintf(rec.state, sizeof rec.state, "error");
        snprintf(rec.error, sizeof rec.error, "%s", err);
    }
    bench_client_close(own);
    run_end(rs, &rec);
    return strcmp(rec.state, "error") != 0;
}

typedef struct {
    stress_ctx *x;
    stress_class *k;
} stream_arg;

static void *stream_worker(void *arg)
{
    stream_arg *a = arg;
    stress_ctx *x = a->x;
    run_state *rs = x->rs;
    bench_client *c = NULL;
    char err[CUZK_ERRMSG_LEN];
    if (bench_client_open(&c, rs->o->conn.addr, rs->o->conn.token, err) != CUZK_OK) c = NULL;
    for (;;) {
        pthread_mutex_lock(&rs->mu);
        int go = now_s() - rs->t0 < x->end_s;
        unsigned seq = go ? a->k->submitted++ : 0;
        pthread_mutex_unlock(&rs->mu);
        if (!go) break;
        /* A daemon that stopped answering: one failed row a second, not a
         * busy loop of them. */
        if (!stress_one(x, a->k, c, seq)) sleep_s(1);
    }
    bench_client_close(c);
    return NULL;
}

static void *periodic_job(void *arg)
{
    stress_job_arg *a = arg;
    stress_one(a->x, a->k, NULL, a->seq);
    pthread_mutex_lock(&a->x->rs->mu);
    a->x->periodic_in_flight--;
    pthread_mutex_unlock(&a->x->rs->mu);
    free(a);
    return NULL;
}

/* The ticker of a periodic class: the first job at t0, then every
 * interval, on the schedule (a late tick does not shift the next ones). */
static void *periodic_ticker(void *arg)
{
    stream_arg *a = arg;
    stress_ctx *x = a->x;
    run_state *rs = x->rs;
    for (unsigned tick = 0;; tick++) {
        double at = (double)tick * a->k->interval_s;
        if (at >= x->end_s) break;
        double wait = at - (now_s() - rs->t0);
        sleep_s(wait);
        pthread_mutex_lock(&rs->mu);
        int room = x->periodic_in_flight < STRESS_MAX_PERIODIC_IN_FLIGHT;
        if (room && x->n_threads == x->cap_threads) {
            size_t cap = x->cap_threads ? x->cap_threads * 2 : 64;
            pthread_t *p = realloc(x->threads, cap * sizeof *p);
            if (p) {
                x->threads = p;
                x->cap_threads = cap;
            } else {
                room = 0;
            }
        }
        stress_job_arg *ja = room ? malloc(sizeof *ja) : NULL;
        if (ja) {
            *ja = (stress_job_arg){x, a->k, a->k->submitted};
            if (pthread_create(&x->threads[x->n_threads], NULL, periodic_job, ja) == 0) {
                x->n_threads++;
                x->periodic_in_flight++;
                a->k->submitted++;
            } else {
                free(ja);
                ja = NULL;
            }
        }
        if (!ja) a->k->dropped++;
        pthread_mutex_unlock(&rs->mu);
    }
    return NULL;
}

static void stress_usage(FILE *f)
{
    fprintf(f,
            "usage: cuzk-bench stress --duration D LOAD... [options]\n"
            "  Mixed load on a running daemon for a duration D, then waits for the jobs in\n"
            "  flight. LOAD is any number of:\n"
            "    --stream CIRCUIT[:j=N][:PRIORITY]     N jobs of CIRCUIT always in flight (each\n"
            "                                          finished job is replaced at once); N = 1\n"
            "    --every INTERVAL:CIRCUIT[:PRIORITY]   one job every INTERVAL from the start, on\n"
            "                                          schedule whatever the answers' latency\n"
            "  PRIORITY: low, normal (default), high or critical. D and INTERVAL: 90, 90s,\n"
            "  500ms, 2m, 1h. Example: a CRITICAL winning-32g every 30 s over 4 porep-32g:\n"
            "    cuzk-bench stress --stream porep-32g:j=4 --every 30s:winning-32g:critical \\\n"
            "        --duration 120s\n"
            "  Prints each job as it finishes (a progress bar on a terminal), then per class\n"
            "  the jobs done/failed, proofs/min and latency min/p50/p95/p99/max, and the\n"
            "  CRITICAL jobs' latency under load apart. Jobs of a class are seeded from\n"
            "  --seed N (default 1) upwards.\n"
            "  --duration D   how long new jobs are submitted (required)\n"
            "  --seed N       the first seed of each class\n"
            "  --json         per-job rows and the summary as one JSON object\n"
            "  --csv          per-job rows as CSV on stdout; the summary on stderr\n" COMMON_HELP
            "exit: 0 every job done, 1 a job not done or no answer, 2 bad usage\n");
}

static int keep_class(const job_rec *r, const void *name) { return !strcmp(r->klass, name); }
static int keep_critical(const job_rec *r, const void *arg)
{
    (void)arg;
    return !strcmp(r->priority, "critical");
}

int bench_stress(int argc, char **argv)
{
    const char *prog = "cuzk-bench stress";
    common_opts o;
    common_init(&o);
    stress_class classes[STRESS_MAX_CLASSES];
    size_t nk = 0;
    int rc;
    double duration = 0;
    uint64_t seed = 1;
    for (int i = 1; i < argc; i++) {
        int r;
        const char *a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            stress_usage(stdout);
            return 0;
        }
        if ((r = common_arg(&o, prog, argc, argv, &i))) {
            if (r < 0) return 2;
        } else if (!strcmp(a, "--stream") || !strcmp(a, "--every")) {
            if (i + 1 >= argc) {
                fprintf(stderr, "%s: %s needs a value\n", prog, a);
                return 2;
            }
            if (nk == STRESS_MAX_CLASSES) {
                fprintf(stderr, "%s: at most %d load classes\n", prog, STRESS_MAX_CLASSES);
                return 2;
            }
            if (!parse_class(&classes[nk], argv[++i], a[2] == 'e', prog)) return 2;
            for (size_t k = 0; k < nk; k++) /* the same spec twice: two classes */
                if (!strcmp(classes[k].name, classes[nk].name)) {
                    size_t l = strlen(classes[nk].name);
                    snprintf(classes[nk].name + l, sizeof classes[nk].name - l, "#%zu", nk + 1);
                    break;
                }
            nk++;
        } else if (!strcmp(a, "--duration")) {
            if (i + 1 >= argc || !parse_duration(argv[i + 1], &duration)) {
                fprintf(stderr, "%s: --duration: expected a duration (120, 120s, 2m)\n", prog);
                return 2;
            }
            i++;
        } else if (!strcmp(a, "--seed")) {
            unsigned long v;
            if (i + 1 >= argc || !parse_ulong(argv[i + 1], 0, 1000000000UL, &v)) {
                fprintf(stderr, "%s: --seed: expected an integer >= 0\n", prog);
                return 2;
            }
            seed = v;
            i++;
        } else {
            fprintf(stderr, "%s: unexpected argument '%s' (--help lists the options)\n", prog, a);
            return 2;
        }
    }
    if (!nk || duration <= 0) {
        fprintf(stderr, "%s: give --duration and at least one --stream or --every\n", prog);
        stress_usage(stderr);
        return 2;
    }
    /* Own copies of the names: the specs in argv continue after ':'. */
    class_strings cs[STRESS_MAX_CLASSES];
    for (size_t k = 0; k < nk; k++) {
        snprintf(cs[k].circuit, sizeof cs[k].circuit, "%.*s",
                 (int)strcspn(classes[k].sp.circuit, ":"), classes[k].sp.circuit);
        classes[k].sp.circuit = cs[k].circuit;
        if (classes[k].sp.priority) {
            snprintf(cs[k].priority, sizeof cs[k].priority, "%.*s",
                     (int)strcspn(classes[k].sp.priority, ":"), classes[k].sp.priority);
            classes[k].sp.priority = cs[k].priority;
        }
        classes[k].sp.seed = seed;
    }
    const char *names[STRESS_MAX_CLASSES];
    for (size_t k = 0; k < nk; k++) names[k] = classes[k].sp.circuit;
    if ((rc = probe_daemon(&o, prog, names, nk))) return rc;

    json_object_seed(0);
    run_state rs;
    run_init(&rs, &o);
    rs.duration_s = duration;
    stress_ctx x = {&rs, classes, nk, duration, 0, NULL, 0, 0};

    size_t n_workers = 0;
    for (size_t k = 0; k < nk; k++) n_workers += classes[k].periodic ? 1 : classes[k].j;
    pthread_t *th = calloc(n_workers, sizeof *th);
    stream_arg *args = calloc(nk, sizeof *args);
    if (!th || !args) {
        fprintf(stderr, "%s: out of memory\n", prog);
        free(th);
        free(args);
        run_free(&rs);
        return 1;
    }
    size_t started = 0;
    for (size_t k = 0; k < nk; k++) {
        args[k] = (stream_arg){&x, &classes[k]};
        unsigned n = classes[k].periodic ? 1 : classes[k].j;
        for (unsigned w = 0; w < n; w++)
            if (pthread_create(&th[started], NULL, classes[k].periodic ? periodic_ticker : stream_worker,
                               &args[k]) == 0)
                started++;
    }
    /* The bar until the duration ends and then while jobs drain. */
    for (;;) {
        pthread_mutex_lock(&rs.mu);
        int busy = now_s() - rs.t0 < duration || rs.in_flight > 0;
        bar_draw(&rs);
        pthread_mutex_unlock(&rs.mu);
        if (!busy) break;
        sleep_s(0.2);
    }
    for (size_t k = 0; k < started; k++) pthread_join(th[k], NULL);
    /* Tickers are joined: no thread is added to x.threads any more. */
    for (size_t k = 0; k < x.n_threads; k++) pthread_join(x.threads[k], NULL);
    pthread_mutex_lock(&rs.mu);
    bar_erase(&rs);
    pthread_mutex_unlock(&rs.mu);
    free(th);
    free(args);
    free(x.threads);
    double wall = now_s() - rs.t0;

    FILE *sf = o.csv && !o.json ? stderr : stdout;
    json_t *jc = json_array();
    if (!o.json)
        fprintf(sf, "%s: %.1f s of load on %s, %.3f s until the last answer\n", prog, duration,
                o.conn.addr, wall);
    for (size_t k = 0; k < nk; k++) {
        const stress_class *c = &classes[k];
        size_t done = 0, failed = 0;
        for (size_t i = 0; i < rs.n; i++)
            if (!strcmp(rs.recs[i].klass, c->name)) {
                if (rs.recs[i].ok) done++;
                else failed++;
            }
        lat_stats st = stats_of(rs.recs, rs.n, keep_class, c->name);
        if (!o.json) {
            fprintf(sf, "[%s] %s, %s, ", c->name, c->sp.circuit,
                    c->sp.priority ? c->sp.priority : "normal");
            if (c->periodic) fprintf(sf, "every %.3g s", c->interval_s);
            else fprintf(sf, "%u in flight", c->j);
            fprintf(sf, ": submitted %u  done %zu  failed %zu  %.2f proofs/min", c->submitted,
                    done, failed, (double)done * 60.0 / wall);
            if (c->dropped) fprintf(sf, "  dropped ticks %u (over %d in flight)", c->dropped,
                                    STRESS_MAX_PERIODIC_IN_FLIGHT);
            fputc('\n', sf);
            print_stats(sf, "  latency", &st);
        }
        json_t *o1 = json_pack("{s:s,s:s,s:s,s:s,s:I,s:I,s:I,s:I,s:f,s:o}", "class", c->name,
                               "circuit", c->sp.circuit, "priority",
                               c->sp.priority ? c->sp.priority : "normal", "kind",
                               c->periodic ? "every" : "stream", "submitted",
                               (json_int_t)c->submitted, "done", (json_int_t)done, "failed",
                               (json_int_t)failed, "dropped", (json_int_t)c->dropped,
                               "proofs_per_min", (double)done * 60.0 / wall, "latency",
                               stats_json(&st));
        if (c->periodic) json_object_set_new(o1, "interval_s", json_real(c->interval_s));
        else json_object_set_new(o1, "j", json_integer(c->j));
        json_array_append_new(jc, o1);
    }
    lat_stats crit = stats_of(rs.recs, rs.n, keep_critical, NULL);
    size_t crit_n = 0;
    for (size_t i = 0; i < rs.n; i++) crit_n += !strcmp(rs.recs[i].priority, "critical");
    if (!o.json && crit_n) print_stats(sf, "CRITICAL jobs under load: latency", &crit);
    json_t *sum = json_pack("{s:f,s:f,s:I,s:I,s:o,s:o}", "duration_s", duration, "wall_s", wall,
                            "completed", (json_int_t)rs.done, "failed", (json_int_t)rs.failed,
                            "classes", jc, "critical", stats_json(&crit));
    run_output(&rs, "stress", sum);
    rc = rs.failed ? 1 : 0;
    if (rs.failed && (o.json || o.csv)) fprintf(stderr, "%s: %zu jobs failed\n", prog, rs.failed);
    run_free(&rs);
    return rc;
}

/* ------------------------------------------- status, preload, evict, metrics -- */

static void admin_usage(FILE *f, const char *cmd)
{
    if (!strcmp(cmd, "status"))
        fprintf(f, "usage: cuzk-bench status [options]\n"
                   "  The daemon's state (GET /v1/status): devices, circuits and their key tiers,\n"
                   "  queues, memory budgets and peaks, totals.\n"
                   "  --json         the daemon's answer as is\n" BENCH_CONN_HELP);
    else if (!strcmp(cmd, "metrics"))
        fprintf(f, "usage: cuzk-bench metrics [options]\n"
                   "  The daemon's Prometheus metrics (GET /metrics) as they are.\n"
                   "  --json         {\"metrics\": {NAME{LABELS}: VALUE}} instead\n" BENCH_CONN_HELP);
    else
        fprintf(f, "usage: cuzk-bench %s CIRCUIT [options]\n"
                   "  %s\n"
                   "  --json         the daemon's answer as is\n" BENCH_CONN_HELP,
                cmd,
                !strcmp(cmd, "preload")
                    ? "Makes CIRCUIT's key resident (POST /v1/circuits/CIRCUIT/preload)."
                    : "Drops CIRCUIT's key from residency (POST /v1/circuits/CIRCUIT/evict).");
}

/* Parses an admin command's arguments: --addr/--token/--json and, when
 * want_circuit, one CIRCUIT. Returns -1 to go on, else the exit status. */
static int admin_args(int argc, char **argv, const char *cmd, int want_circuit, common_opts *o,
                      const char **circuit)
{
    char prog[48];
    snprintf(prog, sizeof prog, "cuzk-bench %s", cmd);
    common_init(o);
    *circuit = NULL;
    for (int i = 1; i < argc; i++) {
        int r;
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            admin_usage(stdout, cmd);
            return 0;
        }
        if ((r = bench_conn_arg(&o->conn, prog, argc, argv, &i))) {
            if (r < 0) return 2;
        } else if (!strcmp(argv[i], "--json")) {
            o->json = 1;
        } else if (want_circuit && argv[i][0] != '-' && !*circuit) {
            *circuit = argv[i];
        } else {
            fprintf(stderr, "%s: unexpected argument '%s' (--help lists the options)\n", prog, argv[i]);
            return 2;
        }
    }
    if (want_circuit && !*circuit) {
        fprintf(stderr, "%s: which circuit? (cuzk-bench status lists them)\n", prog);
        admin_usage(stderr, cmd);
        return 2;
    }
    return -1;
}

static const char *jstr(json_t *o, const char *k)
{
    const char *s = json_string_value(json_object_get(o, k));
    return s ? s : "?";
}

static json_int_t jint(json_t *o, const char *k) { return json_integer_value(json_object_get(o, k)); }

static void print_bytes(FILE *f, double b)
{
    static const char *const unit[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int u = 0;
    while (b >= 1024 && u < 4) {
        b /= 1024;
        u++;
    }
    fprintf(f, u ? "%.1f %s" : "%.0f %s", b, unit[u]);
}

static void print_budget(const char *what, json_t *b)
{
    printf("  %-7s reserved ", what);
    print_bytes(stdout, (double)jint(b, "reserved"));
    printf(", peak ");
    print_bytes(stdout, (double)jint(b, "peak"));
    printf(", budget ");
    if (jint(b, "budget")) print_bytes(stdout, (double)jint(b, "budget"));
    else printf("none");
    printf("\n");
}

static void print_status(json_t *j)
{
    json_t *srv = json_object_get(j, "server");
    printf("daemon: %s, up %.1f s, socket %s, tcp %s, %lld requests, %lld in a long poll\n",
           json_is_true(json_object_get(j, "stopping"))  ? "stopping"
           : json_is_true(json_object_get(j, "running")) ? "running"
                                                         : "not running",
           jnum(j, "uptime_s"), jstr(srv, "socket"),
           json_string_length(json_object_get(srv, "tcp")) ? jstr(srv, "tcp") : "-",
           (long long)jint(srv, "requests"), (long long)jint(srv, "waiters"));
    size_t i;
    json_t *v;
    printf("devices:\n");
    json_array_foreach(json_object_get(j, "devices"), i, v) {
        printf("  %lld %-5s busy %lld  proofs %lld  failures %lld  reserved ",
               (long long)jint(v, "index"), jstr(v, "backend"), (long long)jint(v, "busy"),
               (long long)jint(v, "proofs"), (long long)jint(v, "failures"));
        print_bytes(stdout, (double)jint(v, "reserved"));
        printf("\n");
    }
    printf("circuits:\n  %-16s %-14s %4s %5s %-9s %-7s %10s %8s\n", "name", "builtin", "size",
           "parts", "tier", "backend", "key", "proofs");
    json_array_foreach(json_object_get(j, "circuits"), i, v) {
        const char *b = jstr(v, "builtin");
        printf("  %-16s %-14s %4lld %5lld %-9s ", jstr(v, "name"), b[0] ? b : "(key)",
               (long long)jint(v, "log_size"), (long long)jint(v, "partitions"),
               strcmp(jstr(v, "state"), "ready") && json_is_string(json_object_get(v, "state"))
                   ? jstr(v, "state") /* loading, failed: no key yet */
                   : jstr(v, "tier"));
        char kb[32];
        FILE *m = fmemopen(kb, sizeof kb, "w");
        if (m) {
            print_bytes(m, (double)jint(v, "key_bytes"));
            fclose(m);
        } else {
            kb[0] = 0;
        }
        const char *be = jstr(v, "backend");
        printf("%-7s %10s %8lld%s\n", be[0] ? be : "-", kb, (long long)jint(v, "proofs"),
               json_is_true(json_object_get(v, "insecure")) ? "  INSECURE key" : "");
    }
    json_t *q = json_object_get(j, "queues");
    printf("queues: collecting %lld, jobs queued %lld running %lld, partitions queued %lld ready "
           "%lld/%lld\n",
           (long long)jint(q, "collecting"), (long long)jint(q, "jobs_queued"),
           (long long)jint(q, "jobs_running"), (long long)jint(q, "partitions_queued"),
           (long long)jint(q, "partitions_ready"), (long long)jint(q, "ready_capacity"));
    json_t *b = json_object_get(j, "budget");
    printf("memory:\n");
    print_budget("host", json_object_get(b, "host"));
    print_budget("pinned", json_object_get(b, "pinned"));
    printf("  device  reserved peak ");
    print_bytes(stdout, (double)jint(b, "device_reserved_peak"));
    printf("\n");
    json_t *t = json_object_get(j, "totals");
    printf("totals: submitted %lld, done %lld, failed %lld, canceled %lld; partitions %lld, "
           "retries %lld, verify failures %lld, evictions %lld\n",
           (long long)jint(t, "jobs_submitted"), (long long)jint(t, "jobs_done"),
           (long long)jint(t, "jobs_failed"), (long long)jint(t, "jobs_canceled"),
           (long long)jint(t, "partitions_proved"), (long long)jint(t, "retries"),
           (long long)jint(t, "verify_failures"), (long long)jint(t, "evictions"));
}

static int admin(int argc, char **argv, const char *cmd)
{
    int want_circuit = !strcmp(cmd, "preload") || !strcmp(cmd, "evict");
    common_opts o;
    const char *circuit;
    int rc = admin_args(argc, argv, cmd, want_circuit, &o, &circuit);
    if (rc >= 0) return rc;
    char prog[48], path[256];
    snprintf(prog, sizeof prog, "cuzk-bench %s", cmd);
    if (want_circuit) {
        char esc[200];
        query_escape(esc, sizeof esc, circuit);
        snprintf(path, sizeof path, "/v1/circuits/%s/%s", esc, cmd);
    } else {
        snprintf(path, sizeof path, "%s", !strcmp(cmd, "status") ? "/v1/status" : "/metrics");
    }
    bench_client *c;
    if ((rc = open_client(&o, prog, &c))) return rc;
    bench_resp r;
    int ok = request_ok(c, prog, want_circuit ? "POST" : "GET", path, &r);
    bench_client_close(c);
    if (!ok) return 1;
    rc = 0;
    if (!strcmp(cmd, "metrics") && !o.json) {
        fwrite(r.body, 1, r.len, stdout);
    } else if (!strcmp(cmd, "metrics")) {
        /* Each sample line: NAME{LABELS} VALUE. */
        json_t *m = json_object();
        char *save = NULL;
        for (char *line = strtok_r(r.body, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
            if (line[0] == '#' || !line[0]) continue;
            char *sp = strrchr(line, ' ');
            if (!sp) continue;
            *sp = 0;
            char *end;
            double v = strtod(sp + 1, &end);
            if (*end) continue;
            json_object_set_new(m, line, json_real(v));
        }
        json_t *j = json_pack("{s:o}", "metrics", m);
        json_dumpf(j, stdout, JSON_INDENT(1) | JSON_REAL_PRECISION(12));
        fputc('\n', stdout);
        json_decref(j);
    } else if (o.json) {
        fwrite(r.body, 1, r.len, stdout);
    } else {
        json_t *j = json_loadb(r.body, r.len, 0, NULL);
        if (!json_is_object(j)) {
            fprintf(stderr, "%s: the daemon's answer is not a JSON object\n", prog);
            rc = 1;
        } else if (!strcmp(cmd, "status")) {
            print_status(j);
        } else {
            printf("%s: %s, key tier %s, key ", jstr(j, "name"),
                   !strcmp(cmd, "preload") ? "preloaded" : "evicted", jstr(j, "tier"));
            print_bytes(stdout, (double)jint(j, "key_bytes"));
            printf(", workspace ");
            print_bytes(stdout, (double)jint(j, "ws_bytes"));
            printf("\n");
        }
        json_decref(j);
    }
    bench_resp_free(&r);
    return rc;
}

int bench_status(int argc, char **argv) { return admin(argc, argv, "status"); }
int bench_preload(int argc, char **argv) { return admin(argc, argv, "preload"); }
int bench_evict(int argc, char **argv) { return admin(argc, argv, "evict"); }
int bench_metrics(int argc, char **argv) { return admin(argc, argv, "metrics"); }

/* ------------------------------------------------------------ register -- */

static void register_usage(FILE *f)
{
    fprintf(f, "usage: cuzk-bench register KEY [--name NAME] [--async] [options]\n"
               "  Registers a circuit from KEY, a snarkjs .zkey or a .cuzk key as the daemon\n"
               "  sees the path (POST /v1/circuits {\"key_path\": KEY}), and prints its state\n"
               "  and how long the load took. Exit 0 once it is ready, 1 when the load failed\n"
               "  (the daemon's message) or a request did.\n"
               "  --name NAME    the circuit's name (default: the file name without extension)\n"
               "  --async        the asynchronous form: POST ?wait=0 (202 at once), then\n"
               "                 GET /v1/circuits/NAME?wait=1, printing the state each second\n"
               "                 while the key loads\n"
               "  --timeout D    give up after D (default 1h; 90, 90s, 2m, 1h)\n"
               "  --json         the daemon's last answer as is\n" BENCH_CONN_HELP);
}

/* The last answer's circuit: prints it (or the daemon's JSON) and returns
 * the exit status. */
static int register_done(const common_opts *o, const char *prog, const bench_resp *r, double t0)
{
    json_t *j = json_loadb(r->body, r->len, 0, NULL);
    const char *st = json_string_value(json_object_get(j, "state"));
    int rc = st && !strcmp(st, "ready") ? 0 : 1;
    if (o->json) {
        fwrite(r->body, 1, r->len, stdout);
        fputc('\n', stdout);
    } else if (!st) {
        char msg[CUZK_ERRMSG_LEN + 64];
        reply_error(r, msg, sizeof msg);
        fprintf(stderr, "%s: the daemon answered %ld: %s\n", prog, r->status, msg);
    } else if (rc) {
        fprintf(stderr, "%s: %s: %s: %s\n", prog, jstr(j, "name"), st, jstr(j, "error"));
    } else {
        printf("%s: ready after %.2f s, %lld partition(s), %lld variables, key ", jstr(j, "name"),
               now_s() - t0, (long long)jint(j, "partitions"), (long long)jint(j, "n_vars"));
        print_bytes(stdout, (double)jint(j, "key_bytes"));
        printf(" (%s)%s\n", jstr(j, "tier"), json_is_true(json_object_get(j, "existing"))
                                                 ? ", registered before"
                                                 : "");
    }
    json_decref(j);
    return rc;
}

int bench_register(int argc, char **argv)
{
    const char *prog = "cuzk-bench register", *key = NULL, *name = NULL;
    common_opts o;
    common_init(&o);
    int async = 0;
    for (int i = 1; i < argc; i++) {
        int r;
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            register_usage(stdout);
            return 0;
        }
        if ((r = bench_conn_arg(&o.conn, prog, argc, argv, &i))) {
            if (r < 0) return 2;
        } else if (!strcmp(argv[i], "--json")) {
            o.json = 1;
        } else if (!strcmp(argv[i], "--async")) {
            async = 1;
        } else if (!strcmp(argv[i], "--name") && i + 1 < argc) {
            name = argv[++i];
        } else if (!strcmp(argv[i], "--timeout") && i + 1 < argc) {
            double d;
            if (!parse_duration(argv[++i], &d)) {
                fprintf(stderr, "%s: --timeout: expected a duration (90, 90s, 2m, 1h), got '%s'\n",
                        prog, argv[i]);
                return 2;
            }
            o.timeout_s = (long)(d + 0.999);
        } else if (argv[i][0] != '-' && !key) {
            key = argv[i];
        } else {
            fprintf(stderr, "%s: unexpected argument '%s' (--help lists the options)\n", prog,
                    argv[i]);
            return 2;
        }
    }
    if (!key) {
        fprintf(stderr, "%s: which key file?\n", prog);
        register_usage(stderr);
        return 2;
    }
    json_t *req = json_pack("{s:s}", "key_path", key);
    if (name) json_object_set_new(req, "name", json_string(name));
    char *body = json_dumps(req, JSON_COMPACT);
    json_decref(req);
    bench_client *c;
    int rc;
    if (!body) return 1;
    if ((rc = open_client(&o, prog, &c))) {
        free(body);
        return rc;
    }
    char err[CUZK_ERRMSG_LEN], path[256];
    double t0 = now_s();
    bench_resp r;
    cuzk_status s = bench_request(c, "POST", async ? "/v1/circuits?wait=0" : "/v1/circuits",
                                  "application/json", body, strlen(body), o.timeout_s, &r, err);
    free(body);
    if (s != CUZK_OK) {
        fprintf(stderr, "%s: %s\n", prog, err);
        bench_client_close(c);
        return 1;
    }
    /* 202: loading. Poll it once a second, saying so, until it is not. */
    while (r.status == 202) {
        json_t *j = json_loadb(r.body, r.len, 0, NULL);
        char id[128], esc[200];
        snprintf(id, sizeof id, "%s", jstr(j, "id"));
        query_escape(esc, sizeof esc, id);
        json_decref(j);
        if (now_s() - t0 > (double)o.timeout_s) {
            fprintf(stderr, "%s: still loading after %ld s: giving up (it goes on loading)\n",
                    prog, o.timeout_s);
            bench_resp_free(&r);
            bench_client_close(c);
            return 1;
        }
        if (!o.json) fprintf(stderr, "%s: loading, %.0f s\n", id, now_s() - t0);
        snprintf(path, sizeof path, "/v1/circuits/%s?wait=1", esc);
        bench_resp_free(&r);
        if (!request_ok(c, prog, "GET", path, &r)) {
            bench_client_close(c);
            return 1;
        }
        json_t *g = json_loadb(r.body, r.len, 0, NULL);
        const char *st = json_string_value(json_object_get(g, "state"));
        if (st && !strcmp(st, "loading")) r.status = 202; /* go on */
        json_decref(g);
    }
    bench_client_close(c);
    rc = register_done(&o, prog, &r, t0);
    bench_resp_free(&r);
    return rc;
}
