/* cuzk — what the engine tells: names, results and their JSON, the
 * timeline and its log line, the Prometheus metrics (engine.h). */
#include <inttypes.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/engine_internal.h"

/* -------------------------------------------------------------- names -- */

static const char *prio_names[] = {"low", "normal", "high", "critical"};

const char *cuzk_priority_name(cuzk_priority p)
{
    return (unsigned)p < 4 ? prio_names[p] : "?";
}

cuzk_status cuzk_priority_parse(const char *s, cuzk_priority *p)
{
    for (unsigned i = 0; s && i < 4; i++)
        if (!strcmp(s, prio_names[i])) {
            *p = (cuzk_priority)i;
            return CUZK_OK;
        }
    return CUZK_ERR_INVALID_ARGUMENT;
}

const char *cuzk_job_state_name(cuzk_job_state s)
{
    static const char *n[] = {"queued", "running", "done", "failed", "canceled"};
    return (unsigned)s < 5 ? n[s] : "?";
}

const char *cuzk_circuit_state_name(cuzk_circuit_state s)
{
    switch (s) {
    case CUZK_CIRCUIT_READY: return "ready";
    case CUZK_CIRCUIT_LOADING: return "loading";
    case CUZK_CIRCUIT_FAILED: return "failed";
    }
    return "?";
}

const char *cuzk_key_tier_name(cuzk_key_tier t)
{
    static const char *n[] = {"cold", "mapped", "pinned", "resident"};
    return (unsigned)t < 4 ? n[t] : "?";
}

const char *cuzk_event_kind_name(cuzk_event_kind k)
{
    static const char *n[] = {"queued",      "batch",     "witness_start", "witness_end",
                              "prove_start", "stage",     "prove_end",     "verified",
                              "retry",       "done",      "failed",        "canceled",
                              "key",         "mem"};
    return (unsigned)k < sizeof n / sizeof n[0] ? n[k] : "?";
}

/* ------------------------------------------------------------ results -- */

cuzk_job_result *cuzk__engine_make_result(const ejob *j)
{
    cuzk_job_result *r = calloc(1, sizeof *r);
    if (!r) return NULL;
    r->id = j->id;
    snprintf(r->circuit, sizeof r->circuit, "%s", j->c->name);
    r->n = j->n_parts;
    r->queued_ms = j->t_start_us ? (double)(j->t_start_us - j->t_submit_us) / 1e3 : 0;
    r->total_ms = (double)(j->t_end_us - j->t_submit_us) / 1e3;
    r->parts = calloc(j->n_parts, sizeof *r->parts);
    if (!r->parts) goto oom;
    for (unsigned i = 0; i < j->n_parts; i++) {
        const epart *p = &j->parts[i];
        cuzk_partition_result *o = &r->parts[i];
        o->proof = p->proof;
        o->n_public = j->c->n_public;
        o->pub = malloc((size_t)o->n_public * sizeof(cuzk_fr) + 1);
        if (!o->pub) goto oom;
        if (p->pub) memcpy(o->pub, p->pub, (size_t)o->n_public * sizeof(cuzk_fr));
        o->t = p->t;
        o->witness_ms = p->witness_ms;
        o->device = p->device;
        o->attempts = p->attempt;
        snprintf(o->backend, sizeof o->backend, "%s", p->backend);
    }
    return r;
oom:
    cuzk_job_result_free(r);
    return NULL;
}

void cuzk_job_result_free(cuzk_job_result *r)
{
    if (!r) return;
    if (r->parts)
        for (unsigned i = 0; i < r->n; i++) free(r->parts[i].pub);
    free(r->parts);
    free(r);
}

/* json_loads of a writer's text; NULL on failure. */
static json_t *parse_owned(char *text)
{
    json_t *v = text ? json_loads(text, 0, NULL) : NULL;
    free(text);
    return v;
}

cuzk_status cuzk_engine_result_json(const cuzk_job_result *r, char **json, size_t *len,
                                    char *err)
{
    *json = NULL;
    if (len) *len = 0;
    json_t *o = json_object(), *proofs = json_array(), *pubs = json_array(),
           *tparts = json_array(), *t = json_object();
    cuzk_status s = CUZK_OK;
    if (!o || !proofs || !pubs || !tparts || !t) s = CUZK_ERR_NO_MEMORY;
    for (unsigned i = 0; s == CUZK_OK && i < r->n; i++) {
        const cuzk_partition_result *p = &r->parts[i];
        char *txt = NULL;
        if ((s = cuzk_proof_to_json(&txt, &p->proof, err)) != CUZK_OK) break;
        json_t *pj = parse_owned(txt);
        txt = NULL;
        if ((s = cuzk_public_to_json(&txt, p->pub, p->n_public, err)) != CUZK_OK) {
            json_decref(pj);
            break;
        }
        json_t *uj = parse_owned(txt);
        if (!pj || !uj) {
            json_decref(pj);
            json_decref(uj);
            s = CUZK_ERR_NO_MEMORY;
            break;
        }
        json_array_append_new(proofs, pj);
        json_array_append_new(pubs, uj);
        json_t *tp = json_object();
        json_object_set_new(tp, "device", json_integer(p->device));
        json_object_set_new(tp, "backend", json_string(p->backend));
        json_object_set_new(tp, "attempts", json_integer(p->attempts));
        json_object_set_new(tp, "witness_ms", json_real(p->witness_ms));
        json_object_set_new(tp, "rows_ms", json_real(p->t.abc_ms));
        json_object_set_new(tp, "h_ms", json_real(p->t.ntt_ms));
        json_object_set_new(tp, "msm_a_ms", json_real(p->t.msm_a_ms));
        json_object_set_new(tp, "msm_b2_ms", json_real(p->t.msm_b2_ms));
        json_object_set_new(tp, "msm_c_ms", json_real(p->t.msm_c_ms));
        json_object_set_new(tp, "assemble_ms", json_real(p->t.assemble_ms));
        json_object_set_new(tp, "verify_ms", json_real(p->t.verify_ms));
        json_object_set_new(tp, "prove_ms", json_real(p->t.total_ms));
        json_array_append_new(tparts, tp);
    }
    if (s == CUZK_OK) {
        json_object_set_new(o, "circuit", json_string(r->circuit));
        json_object_set_new(o, "partitions", json_integer(r->n));
        if (r->n == 1) {
            json_object_set(o, "proof", json_array_get(proofs, 0));
            json_object_set(o, "public", json_array_get(pubs, 0));
        } else {
            json_object_set(o, "proof", proofs);
            json_object_set(o, "public", pubs);
        }
        json_object_set_new(t, "queued_ms", json_real(r->queued_ms));
        json_object_set_new(t, "total_ms", json_real(r->total_ms));
        json_object_set(t, "partitions", tparts);
        json_object_set(o, "timings", t);
        *json = json_dumps(o, JSON_COMPACT | JSON_REAL_PRECISION(6));
        if (!*json) s = CUZK_ERR_NO_MEMORY;
        else if (len) *len = strlen(*json);
    }
    if (s == CUZK_ERR_NO_MEMORY && err) snprintf(err, CUZK_ERRMSG_LEN, "engine: out of memory");
    json_decref(o);
    json_decref(proofs);
    json_decref(pubs);
    json_decref(tparts);
    json_decref(t);
    return s;
}

/* ----------------------------------------------------------- timeline -- */

/* The next slot of the ring, cleared, with its seq and time. Under obs_mu. */
static cuzk_event *ev_next(cuzk_engine *e)
{
    uint64_t seq = e->ev_next++;
    cuzk_event *ev = &e->ring[(seq - 1) % e->ring_cap];
    memset(ev, 0, sizeof *ev);
    ev->seq = seq;
    ev->t_us = cuzk__engine_now_us() - e->t0_us;
    return ev;
}

/* The next event of the ring (ev_next) with the fields every kind has.
 * Under obs_mu. */
static cuzk_event *ev_start(cuzk_engine *e, cuzk_event_kind kind, const ejob *j, unsigned part,
                            unsigned device)
{
    cuzk_event *ev = ev_next(e);
    ev->kind = kind;
    ev->job = j ? j->id : 0;
    ev->partition = part;
    ev->device = device;
    if (j) snprintf(ev->circuit, sizeof ev->circuit, "%s", j->c->name);
    return ev;
}

void cuzk__engine_event(cuzk_engine *e, cuzk_event_kind kind, const ejob *j, unsigned part,
                        unsigned device, unsigned attempt, int stage, double ms, uint64_t value,
                        cuzk_status st)
{
    pthread_mutex_lock(&e->obs_mu);
    cuzk_event *ev = ev_start(e, kind, j, part, device);
    ev->attempt = attempt;
    ev->stage = stage;
    /* Whole microseconds, as t_us: the log line prints ms=%.3f, so the log
     * and the JSON timeline then carry the same value and analyse alike. */
    ev->ms = (double)(int64_t)(ms * 1e3 + (ms < 0 ? -0.5 : 0.5)) / 1e3;
    ev->value = value;
    ev->status = st;
    pthread_mutex_unlock(&e->obs_mu);
}

/* The resident set from /proc/self/statm (its second field, in pages);
 * 0 where it cannot be read. One read (fopen, fscanf, fclose) took 6.6 to
 * 7.8 us on the 2-core development machine (100000 reads, a small C loop),
 * against a partition's milliseconds to seconds: once per witness and per
 * proof, outside the engine's locks. */
uint64_t cuzk__engine_rss(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    if (!f) return 0;
    unsigned long long size = 0, res = 0;
    int ok = fscanf(f, "%llu %llu", &size, &res) == 2;
    fclose(f);
    long page = sysconf(_SC_PAGESIZE);
    return ok && page > 0 ? (uint64_t)res * (uint64_t)page : 0;
}

void cuzk__engine_mem_event(cuzk_engine *e, const ejob *j, unsigned part, uint64_t rss)
{
    unsigned dmax = 0;
    for (unsigned d = 1; d < e->n_devices; d++)
        if (e->dev_res[d] > e->dev_res[dmax]) dmax = d;
    pthread_mutex_lock(&e->obs_mu);
    cuzk_event *ev = ev_start(e, CUZK_EV_MEM, j, part, dmax);
    ev->value = rss;
    ev->pinned_bytes = e->pinned_res;
    ev->device_bytes = e->dev_res[dmax];
    pthread_mutex_unlock(&e->obs_mu);
}

size_t cuzk_engine_timeline(cuzk_engine *e, uint64_t since, cuzk_event *out, size_t max,
                            uint64_t *next)
{
    pthread_mutex_lock(&e->obs_mu);
    uint64_t first = e->ev_next > e->ring_cap ? e->ev_next - e->ring_cap : 1;
    if (since < first) since = first;
    size_t n = 0;
    for (uint64_t s = since; s < e->ev_next && n < max; s++)
        out[n++] = e->ring[(s - 1) % e->ring_cap];
    if (next) *next = since + n;
    pthread_mutex_unlock(&e->obs_mu);
    return n;
}

int cuzk_event_format(const cuzk_event *ev, char *buf, size_t len)
{
    char part[16];
    if (ev->partition == CUZK_EV_ALL_PARTITIONS) snprintf(part, sizeof part, "all");
    else snprintf(part, sizeof part, "%u", ev->partition);
    const char *extra = "";
    char sb[96] = "";
    if (ev->kind == CUZK_EV_STAGE) {
        snprintf(sb, sizeof sb, " stage=%s", cuzk_prove_stage_name((cuzk_prove_stage)ev->stage));
        extra = sb;
    } else if (ev->kind == CUZK_EV_KEY) {
        snprintf(sb, sizeof sb, " tier=%s", cuzk_key_tier_name((cuzk_key_tier)ev->value));
        extra = sb;
    } else if (ev->kind == CUZK_EV_BATCH) {
        static const char *why[] = {"size", "timeout", "priority", "direct"};
        snprintf(sb, sizeof sb, " jobs=%" PRIu64 " why=%s", ev->value,
                 (unsigned)ev->stage < 4 ? why[ev->stage] : "?");
        extra = sb;
    } else if (ev->kind == CUZK_EV_MEM) {
        snprintf(sb, sizeof sb, " rss=%" PRIu64 " pinned=%" PRIu64 " device_bytes=%" PRIu64,
                 ev->value, ev->pinned_bytes, ev->device_bytes);
        extra = sb;
    } else if (ev->kind == CUZK_EV_PROVE_START && ev->value == 1) {
        extra = " lane=cpu";
    }
    return snprintf(buf, len,
                    "t=%.6f seq=%" PRIu64 " %s job=%" PRIu64 " part=%s dev=%u try=%u ms=%.3f%s"
                    "%s%s circuit=%s",
                    (double)ev->t_us / 1e6, ev->seq, cuzk_event_kind_name(ev->kind), ev->job,
                    part, ev->device, ev->attempt, ev->ms, extra,
                    ev->status != CUZK_OK ? " status=" : "",
                    ev->status != CUZK_OK ? cuzk_strerror(ev->status) : "",
                    ev->circuit[0] ? ev->circuit : "-");
}

/* ------------------------------------------------------------ metrics -- */

/* Bucket bounds in seconds: from a 2^10 proof's stage (~1 ms) to a full
 * PoRep partition on the CPU (minutes). */
static const double hist_le[EHIST_BUCKETS] = {0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05,
                                              0.1,    0.25,  0.5,    1,     5,    30,    120};

void cuzk__engine_hist(cuzk_engine *e, int h, double ms)
{
    double s = ms / 1e3;
    pthread_mutex_lock(&e->obs_mu);
    int b = 0;
    while (b < EHIST_BUCKETS && s > hist_le[b]) b++;
    e->hist[h].count[b]++;
    e->hist[h].sum += s;
    pthread_mutex_unlock(&e->obs_mu);
}

typedef struct {
    char *p;
    size_t n, cap;
    int oom;
} sbuf;

static void sb_printf(sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_printf(sbuf *b, const char *fmt, ...)
{
    if (b->oom) return;
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int k = vsnprintf(b->p + b->n, b->cap - b->n, fmt, ap);
        va_end(ap);
        if (k < 0) {
            b->oom = 1;
            return;
        }
        if ((size_t)k < b->cap - b->n) {
            b->n += (size_t)k;
            return;
        }
        size_t cap = 2 * b->cap + (size_t)k;
        char *np = realloc(b->p, cap);
        if (!np) {
            b->oom = 1;
            return;
        }
        b->p = np;
        b->cap = cap;
    }
}

/* Counts and bytes print as integers (exact beyond 2^53, which a double
 * is not); seconds with fixed microseconds ("6.144119", not %.17g's
 * "6.1441189999999999"), the clocks' resolution. */
static void metric_u(sbuf *b, const char *name, const char *type, const char *help, uint64_t v)
{
    sb_printf(b, "# HELP cuzk_%s %s\n# TYPE cuzk_%s %s\ncuzk_%s %" PRIu64 "\n", name, help, name,
              type, name, v);
}

static void metric_s(sbuf *b, const char *name, const char *type, const char *help, double v)
{
    sb_printf(b, "# HELP cuzk_%s %s\n# TYPE cuzk_%s %s\ncuzk_%s %.6f\n", name, help, name, type,
              name, v);
}

cuzk_status cuzk_engine_metrics(cuzk_engine *e, char **text, size_t *len)
{
    *text = NULL;
    if (len) *len = 0;
    cuzk_engine_status st;
    if (cuzk_engine_status_get(e, &st) != CUZK_OK) return CUZK_ERR_NO_MEMORY;
    sbuf b = {malloc(8192), 0, 8192, 0};
    if (!b.p) b.oom = 1;
    metric_s(&b, "uptime_seconds", "gauge", "Seconds since the engine was made.", st.uptime_s);
    metric_u(&b, "jobs_submitted_total", "counter", "Jobs accepted.", st.jobs_submitted);
    metric_u(&b, "jobs_done_total", "counter", "Jobs proved.", st.jobs_done);
    metric_u(&b, "jobs_failed_total", "counter", "Jobs failed.", st.jobs_failed);
    metric_u(&b, "jobs_canceled_total", "counter", "Jobs canceled.", st.jobs_canceled);
    metric_u(&b, "partitions_proved_total", "counter", "Partitions proved and verified.",
           st.partitions_proved);
    metric_u(&b, "retries_total", "counter", "Partition attempts retried.", st.retries);
    metric_u(&b, "verify_failures_total", "counter", "Proofs that failed self-verification.",
           st.verify_failures);
    metric_u(&b, "evictions_total", "counter", "Key or workspace evictions.",
           st.evictions);
    metric_u(&b, "store_commits_total", "counter",
           "Store transactions committed by the store thread.", st.store_commits);
    metric_u(&b, "store_ops_total", "counter",
           "Leases and job ends committed by the store thread.", st.store_ops);
    metric_u(&b, "jobs_collecting", "gauge", "Jobs held by the batch collector.",
           st.jobs_collecting);
    metric_u(&b, "jobs_queued", "gauge", "Jobs queued.", st.jobs_queued);
    metric_u(&b, "jobs_running", "gauge", "Jobs running.", st.jobs_running);
    metric_u(&b, "partitions_queued", "gauge", "Partitions waiting for a witness worker.",
           st.partitions_queued);
    metric_u(&b, "partitions_ready", "gauge", "Partitions in the ready queue.",
           st.partitions_ready);
    metric_u(&b, "memory_host_reserved_bytes", "gauge", "Host memory reserved.",
           st.host_reserved);
    metric_u(&b, "memory_host_budget_bytes", "gauge", "Host memory budget (0: none).",
           st.host_budget);
    metric_u(&b, "memory_pinned_reserved_bytes", "gauge", "Pinned memory reserved.",
           st.pinned_reserved);
    metric_u(&b, "memory_pinned_budget_bytes", "gauge", "Pinned memory budget (0: none).",
           st.pinned_budget);
    sb_printf(&b, "# HELP cuzk_memory_device_reserved_bytes Device memory reserved.\n"
                  "# TYPE cuzk_memory_device_reserved_bytes gauge\n");
    for (unsigned d = 0; d < st.n_devices; d++)
        sb_printf(&b, "cuzk_memory_device_reserved_bytes{device=\"%u\"} %" PRIu64 "\n", d,
                  st.devices[d].reserved);
    sb_printf(&b, "# HELP cuzk_device_proofs_total Partitions proved per device.\n"
                  "# TYPE cuzk_device_proofs_total counter\n");
    for (unsigned d = 0; d < st.n_devices; d++)
        sb_printf(&b, "cuzk_device_proofs_total{device=\"%u\"} %" PRIu64 "\n", d,
                  st.devices[d].proofs);
    size_t by_state[3] = {0, 0, 0};
    for (size_t i = 0; i < st.n_circuits; i++) by_state[st.circuits[i].state]++;
    sb_printf(&b, "# HELP cuzk_circuits Registered circuits by state (loading: the key is "
                  "being loaded).\n"
                  "# TYPE cuzk_circuits gauge\n");
    for (int k = 0; k < 3; k++)
        sb_printf(&b, "cuzk_circuits{state=\"%s\"} %zu\n",
                  cuzk_circuit_state_name((cuzk_circuit_state)k), by_state[k]);
    sb_printf(&b, "# HELP cuzk_key_tier Tier of each key (0 cold .. 3 resident).\n"
                  "# TYPE cuzk_key_tier gauge\n");
    for (size_t i = 0; i < st.n_circuits; i++)
        sb_printf(&b, "cuzk_key_tier{circuit=\"%s\"} %d\n", st.circuits[i].name,
                  (int)st.circuits[i].tier);
    static const char *hn[EH_N] = {"witness", "rows",     "h",      "msm_a",  "msm_b2",
                                   "msm_c",   "assemble", "verify", "prove", "job"};
    sb_printf(&b, "# HELP cuzk_stage_seconds Duration of each stage (job: submit to done).\n"
                  "# TYPE cuzk_stage_seconds histogram\n");
    pthread_mutex_lock(&e->obs_mu);
    for (int h = 0; h < EH_N; h++) {
        uint64_t cum = 0;
        for (int k = 0; k < EHIST_BUCKETS; k++) {
            cum += e->hist[h].count[k];
            sb_printf(&b, "cuzk_stage_seconds_bucket{stage=\"%s\",le=\"%g\"} %" PRIu64 "\n",
                      hn[h], hist_le[k], cum);
        }
        cum += e->hist[h].count[EHIST_BUCKETS];
        sb_printf(&b, "cuzk_stage_seconds_bucket{stage=\"%s\",le=\"+Inf\"} %" PRIu64 "\n",
                  hn[h], cum);
        sb_printf(&b, "cuzk_stage_seconds_sum{stage=\"%s\"} %.6f\n", hn[h], e->hist[h].sum);
        sb_printf(&b, "cuzk_stage_seconds_count{stage=\"%s\"} %" PRIu64 "\n", hn[h], cum);
    }
    pthread_mutex_unlock(&e->obs_mu);
    cuzk_engine_status_free(&st);
    if (b.oom) {
        free(b.p);
        return CUZK_ERR_NO_MEMORY;
    }
    *text = b.p;
    if (len) *len = b.n;
    return CUZK_OK;
}
