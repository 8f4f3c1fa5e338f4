/* cuzk-bench waterfall: the engine's timeline drawn and measured (issue 15,
 * "Waterfall and analysis"; docs/bench.md, "Waterfall").
 *
 * Input: a saved timeline (bench/wf_input.c reads both forms) or a live
 * daemon (--addr, through bench/http.h; paged by cursor, for --duration). From the events it rebuilds, per partition, the witness,
 * each proving attempt with its stages laid end to end from prove_start
 * (the engine reports a stage's duration when the proof ends), the
 * self-verification, and the waits between them; per device, the attempts
 * it ran (a GPU lane).
 *
 * Output: a text waterfall (one row per partition, a letter per stage, GPU
 * lanes on top, one column = wall/--width), an SVG chart (--svg), and the
 * analysis, as text or --json:
 *   efficiency   per device, the union of its attempts' [prove_start,
 *                prove_end] over the wall time (the first to the last job
 *                event of the timeline);
 *   gaps         the idle time between two busy intervals of a device,
 *                bucketed < 50 ms, 50-500 ms, > 500 ms (count, total);
 *   transitions  consecutive attempts on a device of different jobs, and
 *                the idle gap at each;
 *   stages       per circuit and stage, the mean and median duration
 *                under load against in isolation: the --baseline
 *                timeline's, or else this timeline's samples taken while
 *                no other partition was in flight (in flight: from its
 *                witness_start to its last prove_end or verified event);
 *   memory       the peaks of the mem events (host RSS, pinned pool,
 *                device pool).
 * Rendering and numbers depend only on the events and --width, so a
 * recorded timeline gives the same output everywhere (the cpu test
 * compares it with a committed one). */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <jansson.h>
#include <time.h>

#include <cuzk/prove.h>

#include "bench.h"
#include "http.h"
#include "waterfall.h"

/* ---------------------------------------------------------- the codes -- */

/* What a piece of a partition's row is: its letter in the text, its name
 * in the JSON and the legend, its colour in the SVG. */
enum {
    C_WAIT,
    C_WITNESS,
    C_ROWS,
    C_H,
    C_MSM_A,
    C_MSM_B2,
    C_MSM_C,
    C_ASSEMBLE,
    C_VERIFY,
    C_FAILED,
    C_RUNNING,
    C_N
};

static const struct {
    char ch;
    const char *name, *what, *color;
} codes[C_N] = {
    {'.', "wait", "queued or waiting", "#d0d0d0"},
    {'w', "witness", "witness (CPU)", "#8c6d31"},
    {'r', "rows", "a, b, c = A w, B w, C w", "#1f77b4"},
    {'h', "h", "H (NTTs)", "#ff7f0e"},
    {'a', "msm_a", "MSM A (G1)", "#2ca02c"},
    {'b', "msm_b2", "MSM B (G2)", "#d62728"},
    {'c', "msm_c", "MSM C (G1)", "#9467bd"},
    {'s', "assemble", "assemble", "#17becf"},
    {'v', "verify", "self-verify", "#7f7f7f"},
    {'x', "failed", "a failed attempt", "#000000"},
    {'p', "proving", "proving when the timeline ends", "#bcbd22"},
};

static int stage_code(int stage)
{
    switch (stage) {
    case CUZK_STAGE_WITNESS: return C_WITNESS;
    case CUZK_STAGE_ROWS: return C_ROWS;
    case CUZK_STAGE_H: return C_H;
    case CUZK_STAGE_MSM_A: return C_MSM_A;
    case CUZK_STAGE_MSM_B2: return C_MSM_B2;
    case CUZK_STAGE_MSM_C: return C_MSM_C;
    case CUZK_STAGE_ASSEMBLE: return C_ASSEMBLE;
    case CUZK_STAGE_VERIFY: return C_VERIFY;
    default: return -1;
    }
}

/* The measured quantities of the stage table: codes C_WITNESS..C_VERIFY
 * (index code - 1), then the attempt's whole proof (the prover's total). */
#define N_STAT 9
#define STAT_PROVE 8
static const char *stat_name(int i)
{
    return i == STAT_PROVE ? "prove" : codes[i + 1].name;
}

/* -------------------------------------------------------------- model -- */

typedef struct {
    int code;
    int64_t a, b;
} wspan;

#define MAX_STAGES 8

typedef struct {
    unsigned device, number;
    int cpu;            /* on the CPU fallback lane (prove_start's value 1):
                         * drawn on the cpu lane, not the device's */
    int64_t start, end; /* -1: not seen (end: still running) */
    int64_t prove_us;   /* prove_end's ms */
    int failed;
    int n_st;
    int st_code[MAX_STAGES];
    int64_t st_us[MAX_STAGES];
    int has_verify, verify_failed;
    int64_t va, vb;
} wattempt;

typedef struct {
    uint64_t job;
    unsigned part;
    size_t jix;
    int64_t ws, we; /* witness; -1: not seen */
    int witness_failed;
    wattempt *att;
    size_t n_att;
    int64_t first, last; /* in flight; -1: never */
} wpart;

enum { J_OPEN, J_DONE, J_FAILED, J_CANCELED };

typedef struct {
    uint64_t id;
    char circuit[CUZK_ENGINE_ID_LEN];
    int64_t queued, end; /* -1: not seen */
    int state;
} wjob;

typedef struct {
    const char *source;
    size_t n_events;
    uint64_t seq_first, seq_last;
    wjob *jobs;
    size_t nj;
    wpart *parts;
    size_t np;
    unsigned n_dev;
    int has_cpu;    /* an attempt ran on the CPU fallback lane: a lane of its own */
    int64_t t0, t1; /* the wall: first to last job event */
    size_t retries, key_changes, incomplete;
    size_t mem_samples;
    uint64_t peak_rss, peak_pinned, peak_dev;
    int64_t t_peak_rss;
    unsigned peak_dev_device;
} wmodel;

static void model_free(wmodel *m)
{
    for (size_t i = 0; i < m->np; i++) free(m->parts[i].att);
    free(m->parts);
    free(m->jobs);
    memset(m, 0, sizeof *m);
}

static int is_part_event(const wf_event *e)
{
    return e->job && e->partition != CUZK_EV_ALL_PARTITIONS && e->kind != CUZK_EV_KEY &&
           e->kind != CUZK_EV_BATCH && e->kind != CUZK_EV_QUEUED;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* A partition's key: (job, partition), ordered by job then partition. */
typedef struct {
    uint64_t job;
    unsigned part;
} wkey;

static int cmp_key(const void *a, const void *b)
{
    const wkey *x = a, *y = b;
    if (x->job != y->job) return x->job < y->job ? -1 : 1;
    return (x->part > y->part) - (x->part < y->part);
}

static wjob *find_job(wmodel *m, uint64_t id)
{
    size_t lo = 0, hi = m->nj;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (m->jobs[mid].id < id) lo = mid + 1;
        else hi = mid;
    }
    return lo < m->nj && m->jobs[lo].id == id ? &m->jobs[lo] : NULL;
}

static wpart *find_part(wmodel *m, uint64_t job, unsigned part)
{
    wkey k = {job, part};
    size_t lo = 0, hi = m->np;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        wkey x = {m->parts[mid].job, m->parts[mid].part};
        if (cmp_key(&x, &k) < 0) lo = mid + 1;
        else hi = mid;
    }
    return lo < m->np && m->parts[lo].job == job && m->parts[lo].part == part ? &m->parts[lo]
                                                                              : NULL;
}

/* The attempt `number` of p on device (made when new). NULL: no memory. */
static wattempt *get_attempt(wpart *p, unsigned number, unsigned device)
{
    for (size_t i = p->n_att; i-- > 0;)
        if (p->att[i].number == number) return &p->att[i];
    wattempt *a = realloc(p->att, (p->n_att + 1) * sizeof *a);
    if (!a) return NULL;
    p->att = a;
    a = &p->att[p->n_att++];
    memset(a, 0, sizeof *a);
    a->number = number;
    a->device = device;
    a->start = a->end = -1;
    return a;
}

static void widen(wpart *p, int64_t a, int64_t b)
{
    if (p->first < 0 || a < p->first) p->first = a;
    if (b > p->last) p->last = b;
}

/* Builds the model of tl (which must hold a job event). msg on error. */
static cuzk_status model_build(wmodel *m, const wf_timeline *tl, const char *source, char *msg)
{
    memset(m, 0, sizeof *m);
    m->source = source;
    m->n_events = tl->n;
    m->t0 = m->t1 = -1;
    m->t_peak_rss = -1;
    uint64_t *ids = malloc((tl->n + 1) * sizeof *ids);
    wkey *keys = malloc((tl->n + 1) * sizeof *keys);
    if (!ids || !keys) goto oom;
    size_t ni = 0, nk = 0;
    for (size_t i = 0; i < tl->n; i++) {
        const wf_event *e = &tl->ev[i];
        if (e->job) ids[ni++] = e->job;
        if (is_part_event(e)) keys[nk++] = (wkey){e->job, e->partition};
        if (e->job && e->kind != CUZK_EV_KEY) {
            if (m->t0 < 0 || e->t_us < m->t0) m->t0 = e->t_us;
            if (e->t_us > m->t1) m->t1 = e->t_us;
        }
    }
    if (tl->n) {
        m->seq_first = tl->ev[0].seq;
        m->seq_last = tl->ev[tl->n - 1].seq;
    }
    if (!ni) {
        free(ids);
        free(keys);
        snprintf(msg, CUZK_ERRMSG_LEN, "%s: no job in the timeline (%zu events, none of a job)",
                 source, tl->n);
        return CUZK_ERR_INVALID_ARGUMENT;
    }
    qsort(ids, ni, sizeof *ids, cmp_u64);
    qsort(keys, nk, sizeof *keys, cmp_key);
    m->jobs = calloc(ni, sizeof *m->jobs);
    m->parts = calloc(nk + 1, sizeof *m->parts);
    if (!m->jobs || !m->parts) goto oom;
    for (size_t i = 0; i < ni; i++)
        if (!i || ids[i] != ids[i - 1]) {
            wjob *j = &m->jobs[m->nj++];
            j->id = ids[i];
            j->queued = j->end = -1;
        }
    for (size_t i = 0; i < nk; i++)
        if (!i || cmp_key(&keys[i], &keys[i - 1])) {
            wpart *p = &m->parts[m->np++];
            p->job = keys[i].job;
            p->part = keys[i].part;
            p->jix = (size_t)(find_job(m, p->job) - m->jobs);
            p->ws = p->we = p->first = p->last = -1;
        }
    free(ids);
    free(keys);
    ids = NULL;
    keys = NULL;

    for (size_t i = 0; i < tl->n; i++) {
        const wf_event *e = &tl->ev[i];
        wjob *j = e->job ? find_job(m, e->job) : NULL;
        if (j && e->circuit[0] && !j->circuit[0])
            snprintf(j->circuit, sizeof j->circuit, "%s", e->circuit);
        wpart *p = is_part_event(e) ? find_part(m, e->job, e->partition) : NULL;
        wattempt *a = NULL;
        switch (e->kind) {
        case CUZK_EV_QUEUED:
            if (j && j->queued < 0) j->queued = e->t_us;
            break;
        case CUZK_EV_DONE:
        case CUZK_EV_FAILED:
        case CUZK_EV_CANCELED:
            if (j) {
                j->end = e->t_us;
                j->state = e->kind == CUZK_EV_DONE     ? J_DONE
                           : e->kind == CUZK_EV_FAILED ? J_FAILED
                                                       : J_CANCELED;
            }
            break;
        case CUZK_EV_WITNESS_START:
            if (p) p->ws = e->t_us;
            break;
        case CUZK_EV_WITNESS_END:
            if (p) {
                if (p->ws < 0) p->ws = e->t_us - e->dur_us;
                p->we = e->t_us;
                p->witness_failed = e->status[0] != 0;
            }
            break;
        case CUZK_EV_PROVE_START:
        case CUZK_EV_STAGE:
        case CUZK_EV_PROVE_END:
        case CUZK_EV_VERIFIED:
            if (!p) break;
            if (!(a = get_attempt(p, e->attempt, e->device))) goto oom;
            if (e->kind == CUZK_EV_PROVE_START) {
                a->start = e->t_us;
                a->device = e->device;
                a->cpu = e->value == 1;
            } else if (e->kind == CUZK_EV_STAGE) {
                int c = stage_code(e->stage);
                if (c >= 0 && a->n_st < MAX_STAGES) {
                    a->st_code[a->n_st] = c;
                    a->st_us[a->n_st++] = e->dur_us;
                }
            } else if (e->kind == CUZK_EV_PROVE_END) {
                a->end = e->t_us;
                a->prove_us = e->dur_us;
                a->failed = e->status[0] != 0;
                a->device = e->device;
            } else {
                a->has_verify = 1;
                a->va = e->t_us - e->dur_us;
                a->vb = e->t_us;
                a->verify_failed = e->status[0] != 0;
            }
            break;
        case CUZK_EV_RETRY:
            m->retries++;
            break;
        case CUZK_EV_KEY:
            m->key_changes++;
            break;
        case CUZK_EV_MEM:
            m->mem_samples++;
            if (e->value > m->peak_rss || m->t_peak_rss < 0) {
                m->peak_rss = e->value;
                m->t_peak_rss = e->t_us;
            }
            if (e->pinned_bytes > m->peak_pinned) m->peak_pinned = e->pinned_bytes;
            if (e->device_bytes > m->peak_dev) {
                m->peak_dev = e->device_bytes;
                m->peak_dev_device = e->device;
            }
            break;
        case CUZK_EV_BATCH: break;
        }
    }

    /* Attempts whose start was not seen (lost to the ring, or before the
     * cursor): their start from the prover's total. */
    for (size_t i = 0; i < m->np; i++) {
        wpart *p = &m->parts[i];
        size_t k = 0;
        for (size_t t = 0; t < p->n_att; t++) {
            wattempt *a = &p->att[t];
            if (a->start < 0 && a->end >= 0) a->start = a->end - a->prove_us;
            if (a->start < 0) {
                m->incomplete++;
                continue;
            }
            p->att[k++] = *a;
            if (a->device + 1 > m->n_dev) m->n_dev = a->device + 1;
            if (a->cpu) m->has_cpu = 1;
            widen(p, a->start, a->end >= 0 ? a->end : m->t1);
            if (a->has_verify) widen(p, a->va, a->vb);
        }
        p->n_att = k;
        if (p->ws >= 0) widen(p, p->ws, p->we >= 0 ? p->we : m->t1);
    }
    return CUZK_OK;
oom:
    free(ids);
    free(keys);
    model_free(m);
    snprintf(msg, CUZK_ERRMSG_LEN, "%s: out of memory", source);
    return CUZK_ERR_NO_MEMORY;
}

/* The pieces of partition p's row, in drawing order (the wait first, as
 * the background); *n of them into out (room for 2 + per attempt
 * MAX_STAGES + 2). */
static size_t row_spans(const wmodel *m, const wpart *p, wspan *out)
{
    size_t n = 0;
    const wjob *j = &m->jobs[p->jix];
    int64_t a = p->first, b = p->last;
    if (j->queued >= 0 && (a < 0 || j->queued < a)) a = j->queued;
    if (a >= 0 && b > a) out[n++] = (wspan){C_WAIT, a, b};
    if (p->ws >= 0) out[n++] = (wspan){C_WITNESS, p->ws, p->we >= 0 ? p->we : m->t1};
    for (size_t i = 0; i < p->n_att; i++) {
        const wattempt *t = &p->att[i];
        int64_t end = t->end >= 0 ? t->end : m->t1;
        if (t->failed || t->end < 0) {
            out[n++] = (wspan){t->end < 0 ? C_RUNNING : C_FAILED, t->start, end};
        } else {
            int64_t x = t->start;
            for (int s = 0; s < t->n_st; s++) {
                out[n++] = (wspan){t->st_code[s], x, x + t->st_us[s]};
                x += t->st_us[s];
            }
        }
        if (t->has_verify) out[n++] = (wspan){t->verify_failed ? C_FAILED : C_VERIFY, t->va, t->vb};
    }
    return n;
}

static size_t max_spans(const wpart *p)
{
    return 2 + p->n_att * (MAX_STAGES + 2);
}

/* ----------------------------------------------------------- analysis -- */

/* Gap buckets: < 50 ms, 50-500 ms, > 500 ms (the issue's). */
static const int64_t gap_lo_us = 50000, gap_hi_us = 500000;

typedef struct {
    size_t attempts;
    int64_t busy_us, before_us, after_us;
    size_t gaps[3];
    int64_t gap_us[3];
    size_t transitions, within;
    int64_t trans_gap_us, trans_gap_max_us, within_gap_us;
} wdev;

typedef struct {
    int64_t a, b;
    uint64_t job;
} wiv;

static int cmp_iv(const void *x, const void *y)
{
    const wiv *a = x, *b = y;
    if (a->a != b->a) return a->a < b->a ? -1 : 1;
    return (a->b > b->b) - (a->b < b->b);
}

/* Lanes 0 .. n_dev-1 are the devices, lane n_dev the CPU fallback lane
 * (drawn when m->has_cpu). */
static unsigned lane_count(const wmodel *m)
{
    return m->n_dev + (m->has_cpu != 0);
}

/* Whether attempt a is drawn on lane d. */
static int on_lane(const wmodel *m, const wattempt *a, unsigned d)
{
    return d == m->n_dev ? a->cpu : a->device == d && !a->cpu;
}

static void lane_name(char *buf, size_t len, const wmodel *m, unsigned d)
{
    if (d == m->n_dev) snprintf(buf, len, "cpu");
    else snprintf(buf, len, "gpu%u", d);
}

/* The lane of device d (d < n_dev): busy, gaps, transitions. */
static cuzk_status analyse_device(const wmodel *m, unsigned d, wdev *o)
{
    memset(o, 0, sizeof *o);
    size_t n = 0;
    for (size_t i = 0; i < m->np; i++)
        for (size_t t = 0; t < m->parts[i].n_att; t++)
            n += on_lane(m, &m->parts[i].att[t], d);
    wiv *iv = malloc((n + 1) * sizeof *iv);
    if (!iv) return CUZK_ERR_NO_MEMORY;
    n = 0;
    for (size_t i = 0; i < m->np; i++)
        for (size_t t = 0; t < m->parts[i].n_att; t++) {
            const wattempt *a = &m->parts[i].att[t];
            if (!on_lane(m, a, d)) continue;
            /* An attempt that began before the window (its start taken
             * from the prover's total: a cursor's timeline, or a long CPU
             * attempt) is busy from the window's start only, so busy
             * never exceeds the wall (the H200's protocol run showed
             * 113%). */
            int64_t from = a->start > m->t0 ? a->start : m->t0;
            iv[n++] = (wiv){from, a->end >= 0 ? a->end : m->t1, m->parts[i].job};
        }
    qsort(iv, n, sizeof *iv, cmp_iv);
    o->attempts = n;
    int64_t cur_a = -1, cur_b = -1, prev_end = -1;
    uint64_t prev_job = 0;
    for (size_t i = 0; i < n; i++) {
        /* transitions: this attempt against the one that ended last before */
        if (i) {
            int64_t gap = iv[i].a > prev_end ? iv[i].a - prev_end : 0;
            if (iv[i].job != prev_job) {
                o->transitions++;
                o->trans_gap_us += gap;
                if (gap > o->trans_gap_max_us) o->trans_gap_max_us = gap;
            } else {
                o->within++;
                o->within_gap_us += gap;
            }
        }
        if (iv[i].b > prev_end) {
            prev_end = iv[i].b;
            prev_job = iv[i].job;
        }
        /* busy: the union, and the gaps between its intervals */
        if (cur_b >= 0 && iv[i].a <= cur_b) {
            if (iv[i].b > cur_b) cur_b = iv[i].b;
            continue;
        }
        if (cur_b >= 0) {
            o->busy_us += cur_b - cur_a;
            int64_t gap = iv[i].a - cur_b;
            int k = gap < gap_lo_us ? 0 : gap <= gap_hi_us ? 1 : 2;
            o->gaps[k]++;
            o->gap_us[k] += gap;
        } else {
            o->before_us = iv[i].a - m->t0;
        }
        cur_a = iv[i].a;
        cur_b = iv[i].b;
    }
    if (cur_b >= 0) {
        o->busy_us += cur_b - cur_a;
        o->after_us = m->t1 - cur_b;
    }
    free(iv);
    return CUZK_OK;
}

typedef struct {
    size_t circ;  /* index into the circuit names */
    int stat;
    int64_t us, a, b;
} wsample;

typedef struct {
    wsample *s;
    size_t n, cap;
    char (*circ)[CUZK_ENGINE_ID_LEN];
    size_t nc;
} wsamples;

static void samples_free(wsamples *w)
{
    free(w->s);
    free(w->circ);
    memset(w, 0, sizeof *w);
}

static size_t circ_index(wsamples *w, const char *name)
{
    for (size_t i = 0; i < w->nc; i++)
        if (!strcmp(w->circ[i], name)) return i;
    return SIZE_MAX;
}

static int sample_add(wsamples *w, const char *circuit, int stat, int64_t us, int64_t a,
                      int64_t b)
{
    size_t c = circ_index(w, circuit);
    if (c == SIZE_MAX) {
        void *nc = realloc(w->circ, (w->nc + 1) * sizeof *w->circ);
        if (!nc) return 0;
        w->circ = nc;
        snprintf(w->circ[w->nc], sizeof w->circ[0], "%s", circuit);
        c = w->nc++;
    }
    if (w->n == w->cap) {
        size_t cap = w->cap ? 2 * w->cap : 256;
        wsample *s = realloc(w->s, cap * sizeof *s);
        if (!s) return 0;
        w->s = s;
        w->cap = cap;
    }
    w->s[w->n++] = (wsample){c, stat, us, a, b};
    return 1;
}

/* Every duration of m: witnesses, stages, proofs, verifications (of the
 * attempts that succeeded, on their device: a CPU fallback's stages are
 * another backend's, not the device's time under load). */
static cuzk_status collect_samples(const wmodel *m, wsamples *w)
{
    memset(w, 0, sizeof *w);
    for (size_t i = 0; i < m->np; i++) {
        const wpart *p = &m->parts[i];
        const char *c = m->jobs[p->jix].circuit;
        if (p->ws >= 0 && p->we >= 0 && !p->witness_failed &&
            !sample_add(w, c, C_WITNESS - 1, p->we - p->ws, p->ws, p->we))
            goto oom;
        for (size_t t = 0; t < p->n_att; t++) {
            const wattempt *a = &p->att[t];
            if (a->failed || a->end < 0 || a->cpu) continue;
            int64_t x = a->start;
            for (int s = 0; s < a->n_st; s++) {
                if (!sample_add(w, c, a->st_code[s] - 1, a->st_us[s], x, x + a->st_us[s]))
                    goto oom;
                x += a->st_us[s];
            }
            if (!sample_add(w, c, STAT_PROVE, a->prove_us, a->start, a->end)) goto oom;
            if (a->has_verify && !a->verify_failed &&
                !sample_add(w, c, C_VERIFY - 1, a->vb - a->va, a->va, a->vb))
                goto oom;
        }
    }
    return CUZK_OK;
oom:
    samples_free(w);
    return CUZK_ERR_NO_MEMORY;
}

/* How many partitions were in flight during [a, b] (at a when a == b):
 * those with first < b' and last > a, b' = max(b, a + 1). first and last
 * sorted. */
static size_t in_flight(const int64_t *first, const int64_t *last, size_t n, int64_t a, int64_t b)
{
    if (b <= a) b = a + 1;
    size_t lo = 0, hi = n; /* count first < b */
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (first[mid] < b) lo = mid + 1;
        else hi = mid;
    }
    size_t started = lo;
    lo = 0, hi = n; /* count last <= a */
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (last[mid] <= a) lo = mid + 1;
        else hi = mid;
    }
    return started - lo;
}

typedef struct {
    size_t n;
    double mean_ms, median_ms;
} wstat;

static wstat stat_of(int64_t *us, size_t n)
{
    wstat s = {n, 0, 0};
    if (!n) return s;
    qsort(us, n, sizeof *us, cmp_i64);
    double sum = 0;
    for (size_t i = 0; i < n; i++) sum += (double)us[i];
    s.mean_ms = sum / (double)n / 1e3;
    s.median_ms = (n % 2 ? (double)us[n / 2] : ((double)us[n / 2 - 1] + (double)us[n / 2]) / 2) / 1e3;
    return s;
}

typedef struct {
    char circuit[CUZK_ENGINE_ID_LEN];
    int stat;
    wstat load, iso;
} wrow;

/* The stage table: per (circuit, stat) of m, load against isolation (the
 * baseline's samples when base, else m's samples with nothing else in
 * flight). *rows malloc'd. */
static cuzk_status stage_table(const wmodel *m, const wmodel *base, wrow **rows, size_t *nrows)
{
    *rows = NULL;
    *nrows = 0;
    wsamples ws, wb;
    memset(&wb, 0, sizeof wb);
    if (collect_samples(m, &ws) != CUZK_OK) return CUZK_ERR_NO_MEMORY;
    if (base && collect_samples(base, &wb) != CUZK_OK) {
        samples_free(&ws);
        return CUZK_ERR_NO_MEMORY;
    }
    int64_t *first = malloc((m->np + 1) * sizeof *first), *last = malloc((m->np + 1) * sizeof *last);
    int64_t *lv = malloc((ws.n + wb.n + 1) * sizeof *lv), *iv = malloc((ws.n + wb.n + 1) * sizeof *iv);
    unsigned char *alone = calloc(ws.n + 1, 1);
    wrow *out = calloc(ws.nc * N_STAT + 1, sizeof *out);
    cuzk_status st = CUZK_ERR_NO_MEMORY;
    if (!first || !last || !lv || !iv || !alone || !out) goto done;
    size_t nf = 0;
    for (size_t i = 0; i < m->np; i++)
        if (m->parts[i].first >= 0) {
            first[nf] = m->parts[i].first;
            last[nf++] = m->parts[i].last;
        }
    qsort(first, nf, sizeof *first, cmp_i64);
    qsort(last, nf, sizeof *last, cmp_i64);
    if (!base)
        for (size_t i = 0; i < ws.n; i++)
            alone[i] = in_flight(first, last, nf, ws.s[i].a, ws.s[i].b) <= 1;
    size_t n = 0;
    for (size_t c = 0; c < ws.nc; c++) {
        size_t bc = base ? circ_index(&wb, ws.circ[c]) : SIZE_MAX;
        for (int k = 0; k < N_STAT; k++) {
            size_t nl = 0, ni = 0;
            for (size_t i = 0; i < ws.n; i++) {
                if (ws.s[i].circ != c || ws.s[i].stat != k) continue;
                if (!base && alone[i]) iv[ni++] = ws.s[i].us;
                else lv[nl++] = ws.s[i].us;
            }
            for (size_t i = 0; base && i < wb.n; i++)
                if (wb.s[i].circ == bc && wb.s[i].stat == k) iv[ni++] = wb.s[i].us;
            if (!nl && !ni) continue;
            wrow *r = &out[n++];
            snprintf(r->circuit, sizeof r->circuit, "%s", ws.circ[c]);
            r->stat = k;
            r->load = stat_of(lv, nl);
            r->iso = stat_of(iv, ni);
        }
    }
    *rows = out;
    *nrows = n;
    out = NULL;
    st = CUZK_OK;
done:
    free(first);
    free(last);
    free(lv);
    free(iv);
    free(alone);
    free(out);
    samples_free(&ws);
    samples_free(&wb);
    return st;
}

/* ---------------------------------------------------------- rendering -- */

/* Job letters of the GPU lanes: A..Z in job order, then again from A. */
static char job_letter(size_t jix)
{
    return (char)('A' + jix % 26);
}

/* The time axis: a tick every step_us, step a 1-2-5 multiple with at least
 * min_cols columns between ticks. */
static int64_t tick_step(int64_t span_us, double cols, double min_cols)
{
    static const int64_t mult[] = {1, 2, 5};
    for (int64_t p = 1; p <= INT64_MAX / 10; p *= 10)
        for (int i = 0; i < 3; i++) {
            int64_t s = mult[i] * p;
            if ((double)s * cols / (double)span_us >= min_cols) return s;
        }
    return span_us;
}

/* A tick's label, in seconds with as many decimals as the step needs. */
static void tick_label(char *buf, size_t len, int64_t t_us, int64_t step_us)
{
    int dec = 0;
    for (int64_t m = 1000000; m > 1 && step_us % m; m /= 10) dec++;
    snprintf(buf, len, "%.*fs", dec, (double)t_us / 1e6);
}

static void fmt_bytes(char *buf, size_t len, uint64_t b)
{
    if (b >= (1ull << 30)) snprintf(buf, len, "%.2f GiB", (double)b / (double)(1ull << 30));
    else snprintf(buf, len, "%.1f MiB", (double)b / (double)(1ull << 20));
}

static void part_label(char *buf, size_t len, const wpart *p)
{
    snprintf(buf, len, "job %" PRIu64 " p%u", p->job, p->part);
}

/* The text waterfall: width columns of time. */
static int print_text(const wmodel *m, unsigned width, FILE *f)
{
    int64_t span = m->t1 - m->t0 > 0 ? m->t1 - m->t0 : 1;
    size_t lw = 6;
    char lab[64];
    for (size_t i = 0; i < m->np; i++) {
        part_label(lab, sizeof lab, &m->parts[i]);
        if (strlen(lab) + 1 > lw) lw = strlen(lab) + 1;
    }
    char *line = malloc(width + 1);
    size_t maxs = 2;
    for (size_t i = 0; i < m->np; i++)
        if (max_spans(&m->parts[i]) > maxs) maxs = max_spans(&m->parts[i]);
    wspan *sp = malloc(maxs * sizeof *sp);
    if (!line || !sp) {
        free(line);
        free(sp);
        return 0;
    }
    /* the axis: labels above, ticks below */
    int64_t step = tick_step(span, width, 10);
    memset(line, ' ', width);
    line[width] = 0;
    char *ticks = malloc(width + 1);
    if (!ticks) {
        free(line);
        free(sp);
        return 0;
    }
    memset(ticks, '-', width);
    ticks[width] = 0;
    size_t free_from = 0;
    for (int64_t t = 0; t <= span; t += step) {
        size_t col = (size_t)((__int128)t * width / span); /* spans < 2^50 us */
        if (col >= width) col = width - 1;
        ticks[col] = '|';
        char tl[32];
        tick_label(tl, sizeof tl, t, step);
        size_t l = strlen(tl);
        if (col >= free_from && col + l <= width) {
            memcpy(line + col, tl, l);
            free_from = col + l + 1;
        }
    }
    fprintf(f, "%-*s%s\n%-*s%s\n", (int)lw, "", line, (int)lw, "", ticks);
    free(ticks);

    /* GPU lanes: the job with the most of the column, when the device was
     * busy for at least half of it */
    for (unsigned d = 0; d < lane_count(m); d++) {
        for (unsigned c = 0; c < width; c++) {
            int64_t c0 = m->t0 + (int64_t)((__int128)span * c / width),
                    c1 = m->t0 + (int64_t)((__int128)span * (c + 1) / width);
            int64_t busy = 0, best = 0;
            size_t best_j = 0;
            for (size_t i = 0; i < m->np; i++)
                for (size_t t = 0; t < m->parts[i].n_att; t++) {
                    const wattempt *a = &m->parts[i].att[t];
                    if (!on_lane(m, a, d)) continue;
                    int64_t e = a->end >= 0 ? a->end : m->t1;
                    int64_t o = (e < c1 ? e : c1) - (a->start > c0 ? a->start : c0);
                    if (o <= 0) continue;
                    busy += o;
                    if (o > best) {
                        best = o;
                        best_j = m->parts[i].jix;
                    }
                }
            line[c] = 2 * busy >= c1 - c0 && busy > 0 ? job_letter(best_j) : '.';
        }
        lane_name(lab, sizeof lab, m, d);
        fprintf(f, "%-*s%s\n", (int)lw, lab, line);
    }
    /* partitions: the piece with the most of the column, the wait
     * counting only where nothing else is */
    for (size_t i = 0; i < m->np; i++) {
        size_t n = row_spans(m, &m->parts[i], sp);
        for (unsigned c = 0; c < width; c++) {
            int64_t c0 = m->t0 + (int64_t)((__int128)span * c / width),
                    c1 = m->t0 + (int64_t)((__int128)span * (c + 1) / width);
            int64_t ov[C_N] = {0};
            for (size_t k = 0; k < n; k++) {
                int64_t o = (sp[k].b < c1 ? sp[k].b : c1) - (sp[k].a > c0 ? sp[k].a : c0);
                if (o > 0) ov[sp[k].code] += o;
            }
            int best = -1;
            int64_t busy = 0;
            for (int k = 1; k < C_N; k++) {
                busy += ov[k];
                if (ov[k] > 0 && (best < 0 || ov[k] > ov[best])) best = k;
            }
            if (ov[C_WAIT] > 0 && (best < 0 || ov[C_WAIT] - busy > ov[best])) best = C_WAIT;
            line[c] = best < 0 ? ' ' : codes[best].ch;
        }
        part_label(lab, sizeof lab, &m->parts[i]);
        fprintf(f, "%-*s%s\n", (int)lw, lab, line);
    }
    free(line);
    free(sp);
    fprintf(f, "one column = %.3f ms; ", (double)span / width / 1e3);
    for (int k = 0; k < C_N; k++) fprintf(f, "%s%c %s", k ? ", " : "", codes[k].ch, codes[k].what);
    fprintf(f, "\nGPU lanes (a device proving, prove_start to prove_end%s): ",
            m->has_cpu ? "; cpu: the CPU fallback lane" : "");
    for (size_t j = 0; j < m->nj; j++)
        fprintf(f, "%s%c job %" PRIu64 " (%s)", j ? ", " : "", job_letter(j), m->jobs[j].id,
                m->jobs[j].circuit[0] ? m->jobs[j].circuit : "?");
    fprintf(f, "\n");
    return 1;
}

static void xml_text(FILE *f, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '&': fputs("&amp;", f); break;
        case '"': fputs("&quot;", f); break;
        default:
            if ((unsigned char)*s >= 0x20 || *s == '\t') fputc(*s, f);
        }
    }
}

/* The SVG chart: GPU lanes on top (and the CPU fallback lane, if one ran),
 * a row per partition, a bar per stage
 * coloured by stage, the time axis with ticks and a grid, the legend. */
static cuzk_status write_svg(const wmodel *m, const char *path, char *msg)
{
    const double lw = 110, pw = 1050, rm = 30, top = 44, lane_h = 18, row_h = 12;
    int64_t span = m->t1 - m->t0 > 0 ? m->t1 - m->t0 : 1;
    const unsigned lanes = lane_count(m);
    double rows_y = top + lanes * (lane_h + 2) + 8;
    double legend_y = rows_y + (double)m->np * row_h + 22;
    double height = legend_y + 3 * 16 + 10, width = lw + pw + rm;
    FILE *f = fopen(path, "w");
    if (!f) {
        snprintf(msg, CUZK_ERRMSG_LEN, "%s: %s", path, strerror(errno));
        return CUZK_ERR_IO;
    }
    size_t maxs = 2;
    for (size_t i = 0; i < m->np; i++)
        if (max_spans(&m->parts[i]) > maxs) maxs = max_spans(&m->parts[i]);
    wspan *sp = malloc(maxs * sizeof *sp);
    if (!sp) {
        fclose(f);
        snprintf(msg, CUZK_ERRMSG_LEN, "%s: out of memory", path);
        return CUZK_ERR_NO_MEMORY;
    }
#define X(t) (lw + (double)((t) - m->t0) * pw / (double)span)
    fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
               "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
               "viewBox=\"0 0 %.0f %.0f\" font-family=\"sans-serif\" font-size=\"10\">\n",
            width, height, width, height);
    fprintf(f, "<rect width=\"100%%\" height=\"100%%\" fill=\"#ffffff\"/>\n<text x=\"4\" "
               "y=\"14\" font-size=\"12\">cuzk waterfall: ");
    xml_text(f, m->source);
    fprintf(f, " (%zu jobs, %zu partitions, %u devices, wall %.3f s)</text>\n", m->nj, m->np,
            m->n_dev, (double)span / 1e6);
    /* axis and grid */
    int64_t step = tick_step(span, pw, 60);
    fprintf(f, "<g stroke=\"#e6e6e6\">\n");
    for (int64_t t = 0; t <= span; t += step)
        fprintf(f, "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\"/>\n", X(m->t0 + t),
                top - 6, X(m->t0 + t), legend_y - 14);
    fprintf(f, "</g>\n<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" stroke=\"#000\"/>\n",
            lw, top - 6, lw + pw, top - 6);
    for (int64_t t = 0; t <= span; t += step) {
        char tl[32];
        tick_label(tl, sizeof tl, t, step);
        fprintf(f, "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" stroke=\"#000\"/>"
                   "<text x=\"%.2f\" y=\"%.2f\" text-anchor=\"middle\">%s</text>\n",
                X(m->t0 + t), top - 10, X(m->t0 + t), top - 6, X(m->t0 + t), top - 13, tl);
    }
    /* GPU lanes: each attempt's stages; a dark mark where the job changes */
    for (unsigned d = 0; d < lanes; d++) {
        double y = top + d * (lane_h + 2);
        char name[16];
        lane_name(name, sizeof name, m, d);
        fprintf(f, "<text x=\"4\" y=\"%.2f\" font-weight=\"bold\">%s</text>\n"
                   "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"#f4f4f4\"/>\n",
                y + lane_h - 5, name, lw, y, pw, lane_h);
        for (size_t i = 0; i < m->np; i++) {
            const wpart *p = &m->parts[i];
            for (size_t t = 0; t < p->n_att; t++) {
                const wattempt *a = &p->att[t];
                if (!on_lane(m, a, d)) continue;
                int64_t e = a->end >= 0 ? a->end : m->t1;
                if (a->failed || a->end < 0 || !a->n_st) {
                    int c = a->failed ? C_FAILED : a->end < 0 ? C_RUNNING : C_WAIT;
                    fprintf(f, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" "
                               "fill=\"%s\"><title>job %" PRIu64 " p%u attempt %u: %s</title>"
                               "</rect>\n",
                            X(a->start), y, X(e) - X(a->start), lane_h, codes[c].color, p->job,
                            p->part, a->number, codes[c].what);
                } else {
                    int64_t x = a->start;
                    for (int s = 0; s < a->n_st; s++) {
                        fprintf(f, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" "
                                   "fill=\"%s\"><title>job %" PRIu64 " p%u %s %.3f ms</title>"
                                   "</rect>\n",
                                X(x), y, X(x + a->st_us[s]) - X(x), lane_h,
                                codes[a->st_code[s]].color, p->job, p->part,
                                codes[a->st_code[s]].name, (double)a->st_us[s] / 1e3);
                        x += a->st_us[s];
                    }
                }
                fprintf(f, "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" "
                           "stroke=\"#000\" stroke-width=\"0.6\"/>\n",
                        X(a->start), y, X(a->start), y + lane_h);
                if (X(e) - X(a->start) > 40) /* room for the partition's name */
                    fprintf(f, "<text x=\"%.2f\" y=\"%.2f\" fill=\"#ffffff\" "
                               "font-size=\"9\">j%" PRIu64 " p%u</text>\n",
                            X(a->start) + 2, y + lane_h - 5, p->job, p->part);
            }
        }
    }
    /* partitions */
    for (size_t i = 0; i < m->np; i++) {
        const wpart *p = &m->parts[i];
        double y = rows_y + (double)i * row_h;
        char lab[64];
        part_label(lab, sizeof lab, p);
        fprintf(f, "<text x=\"4\" y=\"%.2f\">%s</text>\n", y + row_h - 3, lab);
        size_t n = row_spans(m, p, sp);
        for (size_t k = 0; k < n; k++) {
            if (sp[k].code == C_WAIT) {
                fprintf(f, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"2\" "
                           "fill=\"%s\"/>\n",
                        X(sp[k].a), y + row_h / 2 - 1, X(sp[k].b) - X(sp[k].a), codes[C_WAIT].color);
                continue;
            }
            fprintf(f, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"%s\">"
                       "<title>%s %s %.3f ms</title></rect>\n",
                    X(sp[k].a), y + 1, X(sp[k].b) - X(sp[k].a), row_h - 2, codes[sp[k].code].color,
                    lab, codes[sp[k].code].name, (double)(sp[k].b - sp[k].a) / 1e3);
        }
    }
    /* legend */
    double lx = 4, ly = legend_y;
    for (int k = 0; k < C_N; k++) {
        double w = 24 + 6.0 * (double)strlen(codes[k].what);
        if (lx + w > width) {
            lx = 4;
            ly += 16;
        }
        fprintf(f, "<rect x=\"%.2f\" y=\"%.2f\" width=\"12\" height=\"10\" fill=\"%s\"/>"
                   "<text x=\"%.2f\" y=\"%.2f\">%s</text>\n",
                lx, ly - 9, codes[k].color, lx + 16, ly, codes[k].what);
        lx += w;
    }
    fprintf(f, "</svg>\n");
#undef X
    free(sp);
    if (ferror(f) | (fclose(f) != 0)) {
        snprintf(msg, CUZK_ERRMSG_LEN, "%s: write error", path);
        return CUZK_ERR_IO;
    }
    return CUZK_OK;
}

/* ------------------------------------------------------------ reports -- */

typedef struct {
    wdev *dev;
    wrow *rows;
    size_t nrows;
    size_t jobs_state[4];
} wanalysis;

static void analysis_free(wanalysis *a)
{
    free(a->dev);
    free(a->rows);
}

static cuzk_status analyse(const wmodel *m, const wmodel *base, wanalysis *a)
{
    memset(a, 0, sizeof *a);
    a->dev = calloc(m->n_dev + 1, sizeof *a->dev);
    if (!a->dev) return CUZK_ERR_NO_MEMORY;
    for (unsigned d = 0; d < m->n_dev; d++)
        if (analyse_device(m, d, &a->dev[d]) != CUZK_OK) return CUZK_ERR_NO_MEMORY;
    for (size_t j = 0; j < m->nj; j++) a->jobs_state[m->jobs[j].state]++;
    return stage_table(m, base, &a->rows, &a->nrows);
}

static double ratio(int64_t x, int64_t y)
{
    return y > 0 ? (double)x / (double)y : 0;
}

static void print_analysis(const wmodel *m, const wanalysis *an, const char *baseline, FILE *f)
{
    int64_t wall = m->t1 - m->t0, busy = 0;
    fprintf(f, "\n%s: %zu events (seq %" PRIu64 "..%" PRIu64 "), %zu jobs (%zu done, %zu "
               "failed, %zu canceled, %zu unfinished), %zu partitions, retries %zu, key tier "
               "changes %zu; wall %.3f s (the first to the last job event)\n",
            m->source, m->n_events, m->seq_first, m->seq_last, m->nj, an->jobs_state[J_DONE],
            an->jobs_state[J_FAILED], an->jobs_state[J_CANCELED], an->jobs_state[J_OPEN], m->np,
            m->retries, m->key_changes, (double)wall / 1e6);
    if (m->incomplete)
        fprintf(f, "note: %zu proving attempts without their start or end (lost to the ring, "
                   "or before the cursor) are left out\n", m->incomplete);
    fprintf(f, "\nGPU lanes (busy: the union of prove_start..prove_end)\n");
    for (unsigned d = 0; d < m->n_dev; d++) {
        const wdev *o = &an->dev[d];
        busy += o->busy_us;
        fprintf(f, "  gpu%u: %zu attempts, busy %.3f s of %.3f s = %.1f%%; idle %.3f s before "
                   "the first, %.3f s after the last\n",
                d, o->attempts, (double)o->busy_us / 1e6, (double)wall / 1e6,
                100 * ratio(o->busy_us, wall), (double)o->before_us / 1e6,
                (double)o->after_us / 1e6);
        fprintf(f, "        gaps between proofs: < 50 ms: %zu (%.3f s), 50-500 ms: %zu (%.3f s), "
                   "> 500 ms: %zu (%.3f s)\n",
                o->gaps[0], (double)o->gap_us[0] / 1e6, o->gaps[1], (double)o->gap_us[1] / 1e6,
                o->gaps[2], (double)o->gap_us[2] / 1e6);
        fprintf(f, "        transitions between jobs: %zu, idle at them mean %.3f ms, max %.3f "
                   "ms (within a job: %zu, mean %.3f ms)\n",
                o->transitions,
                o->transitions ? (double)o->trans_gap_us / (double)o->transitions / 1e3 : 0,
                (double)o->trans_gap_max_us / 1e3, o->within,
                o->within ? (double)o->within_gap_us / (double)o->within / 1e3 : 0);
    }
    if (m->n_dev)
        fprintf(f, "  all lanes: %.1f%% busy\n", 100 * ratio(busy, wall * (int64_t)m->n_dev));
    else
        fprintf(f, "  (no proving attempt in the timeline)\n");
    fprintf(f, "\nper stage, ms (isolation: %s%s)\n", baseline ? "the baseline " : "",
            baseline ? baseline : "samples with no other partition in flight");
    fprintf(f, "  %-16s %-9s %6s %10s %10s %6s %10s %10s %9s\n", "circuit", "stage", "load n",
            "mean", "median", "iso n", "mean", "median", "inflation");
    for (size_t i = 0; i < an->nrows; i++) {
        const wrow *r = &an->rows[i];
        char lm[16] = "-", lmed[16] = "-", im[16] = "-", imed[16] = "-", inf[16] = "-";
        if (r->load.n) {
            snprintf(lm, sizeof lm, "%.3f", r->load.mean_ms);
            snprintf(lmed, sizeof lmed, "%.3f", r->load.median_ms);
        }
        if (r->iso.n) {
            snprintf(im, sizeof im, "%.3f", r->iso.mean_ms);
            snprintf(imed, sizeof imed, "%.3f", r->iso.median_ms);
        }
        if (r->load.n && r->iso.n && r->iso.mean_ms > 0)
            snprintf(inf, sizeof inf, "%.2fx", r->load.mean_ms / r->iso.mean_ms);
        fprintf(f, "  %-16s %-9s %6zu %10s %10s %6zu %10s %10s %9s\n", r->circuit,
                stat_name(r->stat), r->load.n, lm, lmed, r->iso.n, im, imed, inf);
    }
    if (m->mem_samples) {
        char rss[32], pin[32], dev[32];
        fmt_bytes(rss, sizeof rss, m->peak_rss);
        fmt_bytes(pin, sizeof pin, m->peak_pinned);
        fmt_bytes(dev, sizeof dev, m->peak_dev);
        fprintf(f, "\nmemory (%zu samples): peak host RSS %s (at %.3f s), pinned %s, device %s "
                   "(gpu%u)\n",
                m->mem_samples, rss, (double)(m->t_peak_rss - m->t0) / 1e6, pin, dev,
                m->peak_dev_device);
    } else {
        fprintf(f, "\nmemory: no mem events in the timeline (a daemon before they were added)\n");
    }
}

static json_t *jstat(const wstat *s)
{
    if (!s->n) return json_null();
    return json_pack("{s:I,s:f,s:f}", "n", (json_int_t)s->n, "mean_ms", s->mean_ms,
                     "median_ms", s->median_ms);
}

static json_t *analysis_json(const wmodel *m, const wanalysis *an, const char *baseline)
{
    int64_t wall = m->t1 - m->t0, busy = 0;
    json_t *devs = json_array(), *stages = json_array();
    static const char *bucket[3] = {"lt_50ms", "50_500ms", "gt_500ms"};
    for (unsigned d = 0; d < m->n_dev; d++) {
        const wdev *o = &an->dev[d];
        busy += o->busy_us;
        json_t *g = json_object();
        for (int k = 0; k < 3; k++)
            json_object_set_new(g, bucket[k], json_pack("{s:I,s:I}", "count", (json_int_t)o->gaps[k],
                                                        "total_us", (json_int_t)o->gap_us[k]));
        json_array_append_new(
            devs, json_pack("{s:I,s:I,s:I,s:f,s:I,s:I,s:o,s:I,s:I,s:I,s:I,s:I}", "device",
                            (json_int_t)d, "attempts", (json_int_t)o->attempts, "busy_us",
                            (json_int_t)o->busy_us, "efficiency", ratio(o->busy_us, wall),
                            "idle_before_us", (json_int_t)o->before_us, "idle_after_us",
                            (json_int_t)o->after_us, "gaps", g, "transitions",
                            (json_int_t)o->transitions, "transition_gap_us",
                            (json_int_t)o->trans_gap_us, "transition_gap_max_us",
                            (json_int_t)o->trans_gap_max_us, "within_job", (json_int_t)o->within,
                            "within_job_gap_us", (json_int_t)o->within_gap_us));
    }
    for (size_t i = 0; i < an->nrows; i++) {
        const wrow *r = &an->rows[i];
        json_t *inf = r->load.n && r->iso.n && r->iso.mean_ms > 0
                          ? json_real(r->load.mean_ms / r->iso.mean_ms)
                          : json_null();
        json_array_append_new(stages, json_pack("{s:s,s:s,s:o,s:o,s:o}", "circuit", r->circuit,
                                                "stage", stat_name(r->stat), "load",
                                                jstat(&r->load), "isolation", jstat(&r->iso),
                                                "inflation", inf));
    }
    json_t *mem = m->mem_samples
                      ? json_pack("{s:I,s:I,s:I,s:I,s:I,s:I}", "samples",
                                  (json_int_t)m->mem_samples, "peak_rss_bytes",
                                  (json_int_t)m->peak_rss, "peak_rss_at_us",
                                  (json_int_t)(m->t_peak_rss - m->t0), "peak_pinned_bytes",
                                  (json_int_t)m->peak_pinned, "peak_device_bytes",
                                  (json_int_t)m->peak_dev, "peak_device",
                                  (json_int_t)m->peak_dev_device)
                      : json_null();
    return json_pack(
        "{s:s,s:o,s:I,s:I,s:I,s:I,s:{s:I,s:I,s:I,s:I},s:I,s:I,s:I,s:I,s:I,s:f,s:o,s:o,s:o}",
        "source", m->source, "baseline", baseline ? json_string(baseline) : json_null(), "events",
        (json_int_t)m->n_events, "seq_first", (json_int_t)m->seq_first, "seq_last",
        (json_int_t)m->seq_last, "jobs", (json_int_t)m->nj, "job_states", "done",
        (json_int_t)an->jobs_state[J_DONE], "failed", (json_int_t)an->jobs_state[J_FAILED],
        "canceled", (json_int_t)an->jobs_state[J_CANCELED], "unfinished",
        (json_int_t)an->jobs_state[J_OPEN], "partitions", (json_int_t)m->np, "retries",
        (json_int_t)m->retries, "key_changes", (json_int_t)m->key_changes, "attempts_left_out",
        (json_int_t)m->incomplete, "wall_us", (json_int_t)wall, "gpu_efficiency",
        ratio(busy, wall * (int64_t)(m->n_dev ? m->n_dev : 1)), "devices", devs, "stages", stages,
        "memory", mem);
}

/* --------------------------------------------------------------- live -- */

static volatile sig_atomic_t interrupted;

static void on_sigint(int sig)
{
    (void)sig;
    interrupted = 1;
}

/* Reads the daemon's timeline from cursor since: every page there is now,
 * then (duration_s > 0) a page every 0.5 s until duration_s passed or
 * SIGINT. Events lost to the daemon's ring between two reads are counted
 * on stderr. */
static cuzk_status fetch_live(wf_timeline *tl, const bench_conn *conn, uint64_t since,
                              double duration_s, char *msg)
{
    bench_client *c = NULL;
    char err[CUZK_ERRMSG_LEN];
    cuzk_status s = bench_client_open(&c, conn->addr, conn->token, err);
    if (s != CUZK_OK) {
        snprintf(msg, CUZK_ERRMSG_LEN, "%s", err);
        return s;
    }
    struct sigaction sa, old;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_sigint;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old);
    interrupted = 0;
    double end_ns = bench_now_ns() + duration_s * 1e9;
    uint64_t cursor = since, lost = 0;
    const size_t page = 10000; /* the server's largest max */
    for (;;) {
        char path[96];
        snprintf(path, sizeof path, "/v1/timeline?since=%" PRIu64 "&max=%zu", cursor, page);
        bench_resp r;
        if ((s = bench_request(c, "GET", path, NULL, NULL, 0, 60, &r, err)) != CUZK_OK) {
            snprintf(msg, CUZK_ERRMSG_LEN, "%s", err);
            break;
        }
        if (r.status != 200) {
            size_t l = strcspn(r.body, "\r\n");
            snprintf(msg, CUZK_ERRMSG_LEN, "%s: GET %s: the daemon answered %ld: %.*s",
                     conn->addr, path, r.status, (int)(l < 200 ? l : 200), r.body);
            bench_resp_free(&r);
            s = CUZK_ERR_IO;
            break;
        }
        size_t before = tl->n;
        uint64_t next = 0;
        char what[160];
        snprintf(what, sizeof what, "%s GET %s", conn->addr, path);
        s = wf_parse_json(tl, r.body, r.len, what, &next, msg);
        bench_resp_free(&r);
        if (s != CUZK_OK) break;
        size_t got = tl->n - before;
        if (got && tl->ev[before].seq > (cursor ? cursor : 1))
            lost += tl->ev[before].seq - (cursor ? cursor : 1);
        if (next > cursor) cursor = next;
        if (got == page) continue; /* more there now */
        if (interrupted || bench_now_ns() >= end_ns) break;
        /* 0.5 s between reads: the ring (65536 events by default, ~13 a
         * partition) would need ~10000 partitions a second to overflow */
        struct timespec ts = {0, 500000000};
        nanosleep(&ts, NULL);
        if (interrupted) break;
    }
    sigaction(SIGINT, &old, NULL);
    bench_client_close(c);
    tl->next = cursor;
    if (lost)
        fprintf(stderr, "cuzk-bench waterfall: %" PRIu64 " events were lost to the daemon's ring "
                        "before they were read (its timeline_capacity)\n", lost);
    if (s == CUZK_OK && !tl->n) {
        snprintf(msg, CUZK_ERRMSG_LEN, "%s: no timeline events since cursor %" PRIu64, conn->addr,
                 since);
        s = CUZK_ERR_INVALID_ARGUMENT;
    }
    return s;
}

/* ------------------------------------------------------------ command -- */

static void usage(FILE *f)
{
    fprintf(f,
            "usage: cuzk-bench waterfall [FILE] [options]\n"
            "\n"
            "Draws and measures the engine's timeline: a text waterfall (one row per\n"
            "partition, a letter per stage, GPU lanes on top), an SVG chart, and the\n"
            "analysis (GPU efficiency, gaps, job transitions, stage times under load\n"
            "against isolation, peak memory). See docs/bench.md, \"Waterfall\".\n"
            "\n"
            "  FILE             a saved timeline: the JSON of GET /v1/timeline, or the\n"
            "                   daemon's log with log_timeline = yes; without FILE the\n"
            "                   timeline is read from the daemon at --addr\n"
            BENCH_CONN_HELP
            "  --since CURSOR   live: the events from this cursor on (default 0: all the\n"
            "                   daemon keeps)\n"
            "  --duration S     live: keep reading for S seconds (or until Ctrl-C), for a\n"
            "                   run longer than the daemon's ring (default 0: read once)\n"
            "  --save FILE      write the timeline read as JSON (as GET /v1/timeline)\n"
            "  --baseline FILE  isolation times from this timeline (default: this\n"
            "                   timeline's samples with no other partition in flight)\n"
            "  --svg FILE       write the SVG chart\n"
            "  --json           print the analysis as JSON (no text waterfall)\n"
            "  --no-chart       print the analysis only\n"
            "  --width N        columns of time in the text waterfall, 10..10000\n"
            "                   (default: the terminal's width, else 100)\n");
}

static int parse_uint(const char *s, unsigned long long max, unsigned long long *v)
{
    if (!s || !*s || *s == '-' || *s == '+') return 0;
    errno = 0;
    char *end;
    unsigned long long x = strtoull(s, &end, 10);
    if (errno || *end || x > max) return 0;
    *v = x;
    return 1;
}

/* The text waterfall's default width: the terminal's, less the labels. */
static unsigned default_width(void)
{
    struct winsize ws;
    if (isatty(STDOUT_FILENO) && !ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) && ws.ws_col > 40)
        return ws.ws_col - 14u;
    return 100;
}

int bench_waterfall(int argc, char **argv)
{
    const char *file = NULL, *save = NULL, *baseline = NULL, *svg = NULL;
    int as_json = 0, chart = 1, live_opt = 0;
    unsigned width = 0;
    uint64_t since = 0;
    double duration = 0;
    bench_conn conn;
    bench_conn_init(&conn);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        unsigned long long x;
        int r = bench_conn_arg(&conn, "cuzk-bench waterfall", argc, argv, &i);
        if (r < 0) return 2;
        if (r > 0) {
            live_opt = 1;
            continue;
        }
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(a, "--json")) {
            as_json = 1;
        } else if (!strcmp(a, "--no-chart")) {
            chart = 0;
        } else if (!strcmp(a, "--since") || !strcmp(a, "--duration")) {
            if (!v || !parse_uint(v, !strcmp(a, "--since") ? UINT64_MAX : 86400, &x)) {
                fprintf(stderr, "cuzk-bench waterfall: %s: expected %s, not '%s'\n", a,
                        !strcmp(a, "--since") ? "a cursor (an integer >= 0)"
                                              : "seconds, 0..86400",
                        v ? v : "nothing");
                return 2;
            }
            i++;
            live_opt = 1;
            if (!strcmp(a, "--since")) since = x;
            else duration = (double)x;
        } else if (!strcmp(a, "--save") || !strcmp(a, "--baseline") || !strcmp(a, "--svg") ||
                   !strcmp(a, "--width")) {
            if (!v || !*v) {
                fprintf(stderr, "cuzk-bench waterfall: %s needs a value\n", a);
                return 2;
            }
            i++;
            if (!strcmp(a, "--save")) save = v;
            else if (!strcmp(a, "--baseline")) baseline = v;
            else if (!strcmp(a, "--svg")) svg = v;
            else if (!parse_uint(v, 10000, &x) || x < 10) {
                fprintf(stderr, "cuzk-bench waterfall: --width: expected 10..10000, not '%s'\n", v);
                return 2;
            } else {
                width = (unsigned)x;
            }
        } else if (a[0] == '-' && a[1]) {
            fprintf(stderr, "cuzk-bench waterfall: unknown option '%s'\n", a);
            usage(stderr);
            return 2;
        } else if (file) {
            fprintf(stderr, "cuzk-bench waterfall: one timeline file, not '%s' too\n", a);
            return 2;
        } else {
            file = a;
        }
    }
    if (file && live_opt) {
        fprintf(stderr, "cuzk-bench waterfall: a FILE or a daemon (--addr, --token, --since, "
                        "--duration), not both\n");
        return 2;
    }
    if (!width) width = default_width();

    char msg[CUZK_ERRMSG_LEN];
    wf_timeline tl = {0}, tb = {0};
    wmodel m = {0}, mb = {0};
    wanalysis an = {0};
    int rc = 1;
    cuzk_status s = file ? wf_read_file(&tl, file, msg) : fetch_live(&tl, &conn, since, duration, msg);
    if (s == CUZK_OK && baseline) s = wf_read_file(&tb, baseline, msg);
    if (s == CUZK_OK && save) s = wf_write_json(&tl, save, msg);
    if (s == CUZK_OK) s = model_build(&m, &tl, file ? file : conn.addr, msg);
    if (s == CUZK_OK && baseline) s = model_build(&mb, &tb, baseline, msg);
    if (s == CUZK_OK && (s = analyse(&m, baseline ? &mb : NULL, &an)) != CUZK_OK)
        snprintf(msg, sizeof msg, "out of memory");
    if (s == CUZK_OK && svg) s = write_svg(&m, svg, msg);
    if (s != CUZK_OK) {
        fprintf(stderr, "cuzk-bench waterfall: %s\n", msg);
        goto out;
    }
    if (as_json) {
        json_t *j = analysis_json(&m, &an, baseline);
        char *t = j ? json_dumps(j, JSON_INDENT(2) | JSON_REAL_PRECISION(9)) : NULL;
        json_decref(j);
        if (!t) {
            fprintf(stderr, "cuzk-bench waterfall: out of memory\n");
            goto out;
        }
        printf("%s\n", t);
        free(t);
    } else {
        if (chart && !print_text(&m, width, stdout)) {
            fprintf(stderr, "cuzk-bench waterfall: out of memory\n");
            goto out;
        }
        print_analysis(&m, &an, baseline, stdout);
    }
    if (fflush(stdout) != 0) {
        fprintf(stderr, "cuzk-bench waterfall: cannot write the output\n");
        goto out;
    }
    rc = 0;
out:
    analysis_free(&an);
    model_free(&m);
    model_free(&mb);
    wf_timeline_free(&tl);
    wf_timeline_free(&tb);
    return rc;
}
