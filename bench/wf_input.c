/* cuzk-bench waterfall: reading and writing the engine's timeline
 * (bench/waterfall.h). Two forms of the same events: the JSON of
 * GET /v1/timeline (server.c's event_json) and cuzk_event_format's log
 * line, which the daemon writes with log_timeline on. */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include <cuzk/prove.h>

#include "waterfall.h"
#include "wf_names.h"

static cuzk_status fail(char *msg, cuzk_status s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, CUZK_ERRMSG_LEN, fmt, ap);
    va_end(ap);
    return s;
}

void wf_timeline_free(wf_timeline *tl)
{
    free(tl->ev);
    memset(tl, 0, sizeof *tl);
}

cuzk_status wf_timeline_push(wf_timeline *tl, const wf_event *ev)
{
    if (tl->n == tl->cap) {
        size_t cap = tl->cap ? 2 * tl->cap : 1024;
        wf_event *e = realloc(tl->ev, cap * sizeof *e);
        if (!e) return CUZK_ERR_NO_MEMORY;
        tl->ev = e;
        tl->cap = cap;
    }
    tl->ev[tl->n++] = *ev;
    return CUZK_OK;
}

/* The kind named name (wf_names.h); -1: unknown. */
static int kind_parse(const char *name)
{
    for (int k = 0; k <= CUZK_EV_MEM; k++)
        if (!strcmp(name, wf_kind_names[k])) return k;
    return -1;
}

int wf_stage_parse(const char *name)
{
    for (int s = CUZK_STAGE_WITNESS; s < CUZK_STAGE_DONE; s++)
        if (!strcmp(name, wf_stage_names[s])) return s;
    return -1;
}

/* The largest time or duration taken, in microseconds (31.7 years): the
 * waterfall's column arithmetic (span x width) stays within 128 bits, and
 * no daemon runs longer. */
#define WF_T_MAX 1000000000000000LL

/* ms to whole microseconds; a negative or absurd value is refused. */
static int ms_to_us(double ms, int64_t *us)
{
    if (!(ms >= 0 && ms < 1e12)) return 0; /* < WF_T_MAX us */
    *us = (int64_t)(ms * 1e3 + 0.5); /* ms >= 0: rounds to nearest */
    return 1;
}

static int cmp_seq(const void *a, const void *b)
{
    const wf_event *x = a, *y = b;
    if (x->seq != y->seq) return x->seq < y->seq ? -1 : 1;
    return (x->t_us > y->t_us) - (x->t_us < y->t_us);
}

/* Events in seq order (a file holds them so; a concatenation may not). */
static void sort_events(wf_timeline *tl)
{
    for (size_t i = 1; i < tl->n; i++)
        if (cmp_seq(&tl->ev[i - 1], &tl->ev[i]) > 0) {
            qsort(tl->ev, tl->n, sizeof *tl->ev, cmp_seq);
            return;
        }
}

/* --------------------------------------------------------------- JSON -- */

/* An integer member >= 0; absent: *v unchanged and 1 unless required. */
static int json_u64(json_t *o, const char *key, int required, uint64_t *v)
{
    json_t *m = json_object_get(o, key);
    if (!m) return !required;
    if (!json_is_integer(m) || json_integer_value(m) < 0) return 0;
    *v = (uint64_t)json_integer_value(m);
    return 1;
}

static cuzk_status json_event(json_t *o, wf_event *ev, const char *what, size_t i, char *msg)
{
    memset(ev, 0, sizeof *ev);
    ev->stage = -1;
    if (!json_is_object(o))
        return fail(msg, CUZK_ERR_BAD_ENCODING, "%s: event %zu is not an object", what, i);
    const char *bad = NULL;
    uint64_t t = 0, u = 0;
    json_t *kind = json_object_get(o, "kind"), *part = json_object_get(o, "partition"),
           *ms = json_object_get(o, "ms");
    if (!json_is_string(kind)) bad = "kind";
    else if (!json_u64(o, "t_us", 1, &t) || t > WF_T_MAX) bad = "t_us";
    else if (!json_u64(o, "seq", 0, &ev->seq)) bad = "seq";
    else if (!json_u64(o, "job", 1, &ev->job)) bad = "job";
    else if (!part || !(json_is_null(part) || json_is_integer(part)) ||
             (json_is_integer(part) &&
              (json_integer_value(part) < 0 || json_integer_value(part) >= CUZK_EV_ALL_PARTITIONS)))
        bad = "partition";
    else if (!json_u64(o, "device", 0, &u) || u > 65535) bad = "device";
    if (bad)
        return fail(msg, CUZK_ERR_BAD_ENCODING, "%s: event %zu: \"%s\" missing or not valid", what,
                    i, bad);
    ev->t_us = (int64_t)t;
    ev->device = (unsigned)u;
    int k = kind_parse(json_string_value(kind));
    if (k < 0)
        return fail(msg, CUZK_ERR_BAD_ENCODING, "%s: event %zu: unknown event kind \"%.40s\"",
                    what, i, json_string_value(kind));
    ev->kind = (cuzk_event_kind)k;
    ev->partition = json_is_null(part) ? CUZK_EV_ALL_PARTITIONS : (unsigned)json_integer_value(part);
    u = 0;
    if (!json_u64(o, "attempt", 0, &u) || u > 65535) bad = "attempt";
    else if (ms && (!json_is_number(ms) || !ms_to_us(json_number_value(ms), &ev->dur_us)))
        bad = "ms";
    else if (!json_u64(o, "value", 0, &ev->value)) bad = "value";
    else if (!json_u64(o, "pinned_bytes", 0, &ev->pinned_bytes)) bad = "pinned_bytes";
    else if (!json_u64(o, "device_bytes", 0, &ev->device_bytes)) bad = "device_bytes";
    if (bad)
        return fail(msg, CUZK_ERR_BAD_ENCODING, "%s: event %zu: \"%s\" not valid", what, i, bad);
    ev->attempt = (unsigned)u;
    json_t *c = json_object_get(o, "circuit"), *st = json_object_get(o, "status"),
           *sg = json_object_get(o, "stage");
    if (c && !json_is_string(c))
        return fail(msg, CUZK_ERR_BAD_ENCODING, "%s: event %zu: \"circuit\" not a string", what, i);
    if (c) snprintf(ev->circuit, sizeof ev->circuit, "%s", json_string_value(c));
    if (st && !json_is_string(st))
        return fail(msg, CUZK_ERR_BAD_ENCODING, "%s: event %zu: \"status\" not a string", what, i);
    if (st && strcmp(json_string_value(st), "ok"))
        snprintf(ev->status, sizeof ev->status, "%s", json_string_value(st));
    if (ev->kind == CUZK_EV_STAGE) {
        if (!json_is_string(sg) || (ev->stage = wf_stage_parse(json_string_value(sg))) < 0)
            return fail(msg, CUZK_ERR_BAD_ENCODING,
                        "%s: event %zu: a stage event without a known \"stage\"", what, i);
    }
    return CUZK_OK;
}

cuzk_status wf_parse_json(wf_timeline *tl, const char *text, size_t len, const char *what,
                          uint64_t *next, char *msg)
{
    json_error_t je;
    json_t *root = json_loadb(text, len, 0, &je);
    if (!root)
        return fail(msg, CUZK_ERR_BAD_ENCODING, "%s: line %d, column %d: %s (not the JSON of "
                    "GET /v1/timeline%s)", what, je.line, je.column, je.text,
                    len && je.position >= (int)len ? ": truncated?" : "");
    json_t *evs = json_is_array(root) ? root : json_object_get(root, "events");
    if (!json_is_array(evs)) {
        json_decref(root);
        return fail(msg, CUZK_ERR_BAD_ENCODING,
                    "%s: no \"events\" array (expected the JSON of GET /v1/timeline)", what);
    }
    uint64_t nx = 0;
    if (json_is_object(root) && !json_u64(root, "next", 0, &nx)) {
        json_decref(root);
        return fail(msg, CUZK_ERR_BAD_ENCODING, "%s: \"next\" is not a cursor", what);
    }
    if (next) *next = nx;
    cuzk_status s = CUZK_OK;
    for (size_t i = 0; s == CUZK_OK && i < json_array_size(evs); i++) {
        wf_event ev;
        if ((s = json_event(json_array_get(evs, i), &ev, what, i, msg)) != CUZK_OK) break;
        if ((s = wf_timeline_push(tl, &ev)) != CUZK_OK)
            fail(msg, s, "%s: out of memory", what);
    }
    json_decref(root);
    if (s == CUZK_OK && nx > tl->next) tl->next = nx;
    return s;
}

/* ---------------------------------------------------------- log lines -- */

/* "key=" then an unsigned decimal at *p; advances past it and one space. */
static int take_u64(const char **p, const char *key, uint64_t *v)
{
    size_t k = strlen(key);
    if (strncmp(*p, key, k) || !isdigit((unsigned char)(*p)[k])) return 0;
    errno = 0;
    char *end;
    unsigned long long x = strtoull(*p + k, &end, 10);
    if (errno) return 0;
    *v = x;
    *p = end;
    if (**p == ' ') (*p)++;
    return 1;
}

/* "t=SECONDS.MICROS" (cuzk_event_format's %.6f) to microseconds, exactly. */
static int take_time(const char **p, int64_t *t)
{
    uint64_t sec = 0;
    if (!take_u64(p, "t=", &sec) || sec >= WF_T_MAX / 1000000) return 0;
    int64_t us = 0;
    if (**p == '.') {
        int d = 0;
        for ((*p)++; isdigit((unsigned char)**p); (*p)++, d++)
            if (d < 6) us = us * 10 + (**p - '0');
        if (d == 0) return 0;
        for (; d < 6; d++) us *= 10;
    }
    *t = (int64_t)sec * 1000000 + us;
    if (**p != ' ') return 0;
    (*p)++;
    return 1;
}

/* The start of the event in a log line (after the log's own prefix), or
 * NULL: "t=DIGITS" at the start or after a space, then " seq=". */
static const char *event_start(const char *line)
{
    for (const char *p = line; (p = strstr(p, "t=")); p++) {
        if (p != line && p[-1] != ' ') continue;
        const char *q = p + 2;
        while (isdigit((unsigned char)*q) || *q == '.') q++;
        if (q > p + 2 && !strncmp(q, " seq=", 5)) return p;
    }
    return NULL;
}

/* One event line (no newline). 0: not an event line; 1: parsed; -1:
 * malformed (msg says why). */
static int log_event(const char *line, wf_event *ev, const char *what, size_t lineno, char *msg)
{
    const char *p = event_start(line);
    if (!p) return 0;
    memset(ev, 0, sizeof *ev);
    ev->stage = -1;
    const char *field = "t";
    uint64_t u, dev, att;
    if (!take_time(&p, &ev->t_us)) goto bad;
    field = "seq";
    if (!take_u64(&p, "seq=", &ev->seq)) goto bad;
    size_t kl = strcspn(p, " ");
    char kind[32];
    snprintf(kind, sizeof kind, "%.*s", (int)(kl < sizeof kind - 1 ? kl : sizeof kind - 1), p);
    int k = kind_parse(kind);
    if (k < 0) {
        fail(msg, CUZK_ERR_BAD_ENCODING, "%s:%zu: unknown event kind \"%s\"", what, lineno, kind);
        return -1;
    }
    ev->kind = (cuzk_event_kind)k;
    p += kl;
    if (*p == ' ') p++;
    field = "job";
    if (!take_u64(&p, "job=", &ev->job)) goto bad;
    field = "part";
    if (!strncmp(p, "part=all ", 9)) {
        ev->partition = CUZK_EV_ALL_PARTITIONS;
        p += 9;
    } else if (take_u64(&p, "part=", &u) && u < CUZK_EV_ALL_PARTITIONS) {
        ev->partition = (unsigned)u;
    } else {
        goto bad;
    }
    field = "dev";
    if (!take_u64(&p, "dev=", &dev) || dev > 65535) goto bad;
    field = "try";
    if (!take_u64(&p, "try=", &att) || att > 65535) goto bad;
    ev->device = (unsigned)dev;
    ev->attempt = (unsigned)att;
    field = "ms";
    if (strncmp(p, "ms=", 3)) goto bad;
    char *end;
    double ms = strtod(p + 3, &end);
    if (end == p + 3 || !ms_to_us(ms, &ev->dur_us)) goto bad;
    p = end;
    /* The rest: [extras] [" status=TEXT"] " circuit=NAME"; stage and
     * status texts may hold spaces, the circuit name does not. */
    field = "circuit";
    const char *c = NULL;
    for (const char *q = p; (q = strstr(q, " circuit=")); q++) c = q;
    if (!c || strchr(c + 9, ' ') || !c[9]) goto bad;
    if (strcmp(c + 9, "-")) snprintf(ev->circuit, sizeof ev->circuit, "%s", c + 9);
    char mid[256];
    size_t ml = (size_t)(c - p);
    if (ml >= sizeof mid) goto bad;
    memcpy(mid, p, ml);
    mid[ml] = 0;
    char *st = strstr(mid, " status=");
    if (st) {
        snprintf(ev->status, sizeof ev->status, "%s", st + 8);
        *st = 0;
    }
    const char *m = mid;
    if (ev->kind == CUZK_EV_STAGE) {
        field = "stage";
        if (strncmp(m, " stage=", 7) || (ev->stage = wf_stage_parse(m + 7)) < 0) goto bad;
    } else if (ev->kind == CUZK_EV_MEM) {
        field = "rss";
        if (*m++ != ' ' || !take_u64(&m, "rss=", &ev->value)) goto bad;
        field = "pinned";
        if (!take_u64(&m, "pinned=", &ev->pinned_bytes)) goto bad;
        field = "device_bytes";
        if (!take_u64(&m, "device_bytes=", &ev->device_bytes) || *m) goto bad;
    } else if (ev->kind == CUZK_EV_KEY) {
        field = "tier";
        if (strncmp(m, " tier=", 6)) goto bad;
        for (unsigned t = 0; t < 4; t++)
            if (!strcmp(m + 6, wf_tier_names[t])) ev->value = t + 1;
        if (!ev->value--) goto bad;
    } else if (ev->kind == CUZK_EV_BATCH) {
        field = "jobs";
        m++;
        if (!take_u64(&m, "jobs=", &ev->value)) goto bad;
    } else if (ev->kind == CUZK_EV_PROVE_START && *m) {
        field = "lane";
        if (strcmp(m, " lane=cpu")) goto bad;
        ev->value = 1;
    }
    return 1;
bad:
    fail(msg, CUZK_ERR_BAD_ENCODING, "%s:%zu: malformed timeline line (at \"%s\"): %.80s", what,
         lineno, field, line);
    return -1;
}

static cuzk_status parse_log(wf_timeline *tl, char *text, size_t len, const char *what,
                             char *msg)
{
    size_t lineno = 0;
    for (char *p = text; p < text + len;) {
        char *nl = memchr(p, '\n', (size_t)(text + len - p));
        char *e = nl ? nl : text + len;
        lineno++;
        if (e > p && e[-1] == '\r') e[-1] = 0;
        *e = 0;
        wf_event ev;
        int r = log_event(p, &ev, what, lineno, msg);
        if (r < 0) return CUZK_ERR_BAD_ENCODING;
        if (r > 0 && wf_timeline_push(tl, &ev) != CUZK_OK)
            return fail(msg, CUZK_ERR_NO_MEMORY, "%s: out of memory", what);
        p = e + 1;
    }
    return CUZK_OK;
}

/* --------------------------------------------------------------- files -- */

cuzk_status wf_read_file(wf_timeline *tl, const char *path, char *msg)
{
    FILE *f = fopen(path, "rb");
    if (!f) return fail(msg, CUZK_ERR_IO, "%s: %s", path, strerror(errno));
    char *buf = NULL;
    size_t len = 0, cap = 0;
    for (;;) {
        if (cap - len < 65536) {
            size_t nc = cap ? 2 * cap : 1 << 20;
            char *b = realloc(buf, nc + 1);
            if (!b) {
                free(buf);
                fclose(f);
                return fail(msg, CUZK_ERR_NO_MEMORY, "%s: out of memory", path);
            }
            buf = b;
            cap = nc;
        }
        size_t r = fread(buf + len, 1, cap - len, f);
        len += r;
        if (r == 0) break;
    }
    int rd_err = ferror(f);
    fclose(f);
    if (rd_err) {
        free(buf);
        return fail(msg, CUZK_ERR_IO, "%s: read error", path);
    }
    buf[len] = 0;
    size_t i = 0;
    while (i < len && isspace((unsigned char)buf[i])) i++;
    size_t before = tl->n;
    cuzk_status s;
    if (i == len) {
        s = fail(msg, CUZK_ERR_BAD_ENCODING, "%s: empty file (expected the JSON of "
                 "GET /v1/timeline or the daemon's log_timeline lines)", path);
    } else if (buf[i] == '{' || buf[i] == '[') {
        s = wf_parse_json(tl, buf, len, path, NULL, msg);
    } else if (memchr(buf, 0, len)) {
        s = fail(msg, CUZK_ERR_BAD_ENCODING, "%s: holds NUL bytes (not a text file)", path);
    } else {
        s = parse_log(tl, buf, len, path, msg);
    }
    free(buf);
    if (s == CUZK_OK && tl->n == before)
        s = fail(msg, CUZK_ERR_INVALID_ARGUMENT, "%s: no timeline events in it (expected the "
                 "JSON of GET /v1/timeline or the daemon's log_timeline lines)", path);
    if (s == CUZK_OK) sort_events(tl);
    return s;
}

cuzk_status wf_write_json(const wf_timeline *tl, const char *path, char *msg)
{
    int out = !strcmp(path, "-");
    FILE *f = out ? stdout : fopen(path, "w");
    if (!f) return fail(msg, CUZK_ERR_IO, "%s: %s", path, strerror(errno));
    fprintf(f, "{\"events\": [\n");
    for (size_t i = 0; i < tl->n; i++) {
        const wf_event *e = &tl->ev[i];
        json_t *o = json_pack("{s:I,s:I,s:s,s:I,s:I,s:I,s:f,s:I,s:s}", "seq", (json_int_t)e->seq,
                              "t_us", (json_int_t)e->t_us,
                              "kind", wf_kind_names[e->kind], "job", (json_int_t)e->job,
                              "device", (json_int_t)e->device, "attempt",
                              (json_int_t)e->attempt, "ms", (double)e->dur_us / 1e3, "value",
                              (json_int_t)e->value, "circuit", e->circuit);
        if (!o) {
            if (!out) fclose(f);
            return fail(msg, CUZK_ERR_NO_MEMORY, "%s: out of memory", path);
        }
        json_object_set_new(o, "partition", e->partition == CUZK_EV_ALL_PARTITIONS
                                                ? json_null()
                                                : json_integer(e->partition));
        if (e->kind == CUZK_EV_STAGE)
            json_object_set_new(o, "stage",
                                json_string(wf_stage_names[e->stage]));
        if (e->kind == CUZK_EV_MEM) {
            json_object_set_new(o, "pinned_bytes", json_integer((json_int_t)e->pinned_bytes));
            json_object_set_new(o, "device_bytes", json_integer((json_int_t)e->device_bytes));
        }
        if (e->status[0]) json_object_set_new(o, "status", json_string(e->status));
        char *s = json_dumps(o, JSON_COMPACT | JSON_REAL_PRECISION(12));
        json_decref(o);
        if (!s) {
            if (!out) fclose(f);
            return fail(msg, CUZK_ERR_NO_MEMORY, "%s: out of memory", path);
        }
        fprintf(f, "%s%s\n", s, i + 1 < tl->n ? "," : "");
        free(s);
    }
    uint64_t next = tl->next ? tl->next : tl->n ? tl->ev[tl->n - 1].seq + 1 : 0;
    fprintf(f, "], \"next\": %" PRIu64 "}\n", next);
    int bad = ferror(f);
    if (out) bad |= fflush(f) != 0;
    else bad |= fclose(f) != 0;
    if (bad) return fail(msg, CUZK_ERR_IO, "%s: write error", path);
    return CUZK_OK;
}
