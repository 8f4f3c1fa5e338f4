/* The built-in circuits: registry, inputs JSON, and the driver that records
 * a partition or computes its witness (sub-circuits in parallel windows). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "circuits/circ_internal.h"
#include "common/errmsg.h"
#include "common/parallel.h"

static const circ_kind *const KINDS[] = {&circ_porep_32g, &circ_winning_32g, &circ_wpost_32g,
                                         &circ_snap_32g};
#define N_KINDS (sizeof KINDS / sizeof KINDS[0])
#define TAG_CHALLENGE 99u

struct cuzk_circuit {
    const circ_kind *kind;
    circ_params p;
    cuzk_circuit_info info;
    int have_shape;
    cuzk_cs_shape pro, piece; /* prologue, one sub-circuit */
    /* per thread, kept between witness calls */
    unsigned n_win;
    cuzk_cs *win;
    void **scratch;
};

#define fail(err, s, ...) cuzk_errf((err), (s), "", __VA_ARGS__)

unsigned cuzk_circuit_count(void) { return (unsigned)N_KINDS; }
const char *cuzk_circuit_id(unsigned i) { return i < N_KINDS ? KINDS[i]->id : NULL; }

static void fill_info(cuzk_circuit *c)
{
    const circ_params *p = &c->p;
    int post = c->kind == &circ_winning_32g || c->kind == &circ_wpost_32g;
    cuzk_circuit_info *in = &c->info;
    in->id = c->kind->id;
    in->what = c->kind->what;
    in->partitions = c->kind->partitions;
    in->challenges = c->kind->n_challenges(p);
    in->node_bits = circ_node_bits(p);
    in->n_constraints = c->kind->estimate(p);
    in->n_inputs = c->kind->n_inputs(p);
    in->sectors = post ? p->pieces : 1;
    in->sha_depth = p->sha_depth;
    in->layers = p->layers;
    in->label_bytes = p->layers ? 64 + 32 * p->slots : 0;
    in->parents = p->parents;
    in->poseidon_depth = p->pos_depth;
}

cuzk_status cuzk_circuit_open(cuzk_circuit **out, const char *id, unsigned log_size, char *err)
{
    if (err) err[0] = 0;
    *out = NULL;
    const circ_kind *k = NULL;
    for (size_t i = 0; i < N_KINDS && id; i++)
        if (!strcmp(id, KINDS[i]->id)) k = KINDS[i];
    if (!k)
        return fail(err, CUZK_ERR_INVALID_ARGUMENT,
                    "unknown circuit '%s' (porep-32g, winning-32g, wpost-32g, snap-32g)",
                    id ? id : "(null)");
    if (log_size != 0 && (log_size < 10 || log_size > 27))
        return fail(err, CUZK_ERR_INVALID_ARGUMENT,
                    "size 2^%u out of range (0 = full size, or 10..27)", log_size);
    if (!cuzk_poseidon_std(2) || !cuzk_poseidon_std(8))
        return fail(err, CUZK_ERR_NO_MEMORY, "out of memory for the Poseidon constants");
    cuzk_circuit *c = calloc(1, sizeof *c);
    if (!c) return fail(err, CUZK_ERR_NO_MEMORY, "out of memory");
    c->kind = k;
    c->p = k->full;
    if (log_size) k->shrink(&c->p, (uint64_t)1 << log_size);
    fill_info(c);
    c->info.log_size = log_size;
    *out = c;
    return CUZK_OK;
}

static void drop_windows(cuzk_circuit *c)
{
    for (unsigned t = 0; t < c->n_win; t++) {
        cuzk_cs_free(&c->win[t]);
        free(c->scratch[t]);
    }
    free(c->win);
    free(c->scratch);
    c->win = NULL;
    c->scratch = NULL;
    c->n_win = 0;
}

void cuzk_circuit_close(cuzk_circuit *c)
{
    if (!c) return;
    drop_windows(c);
    free(c);
}

const cuzk_circuit_info *cuzk_circuit_describe(const cuzk_circuit *c) { return &c->info; }

/* ---------------------------------------------------------------- inputs -- */

static void derive_challenges(const cuzk_circuit *c, uint64_t seed, unsigned partition,
                              uint64_t *out)
{
    unsigned n = c->kind->n_challenges(&c->p), nb = circ_node_bits(&c->p);
    for (unsigned i = 0; i < n; i++)
        out[i] = circ_rand(seed, TAG_CHALLENGE, partition, i, 0) & (((uint64_t)1 << nb) - 1);
}

cuzk_status cuzk_circuit_inputs_json(const cuzk_circuit *c, uint64_t seed, unsigned partition,
                                     char **json, char *err)
{
    *json = NULL;
    if (partition >= c->kind->partitions)
        return fail(err, CUZK_ERR_INVALID_ARGUMENT, "partition %u out of range [0, %u)",
                    partition, c->kind->partitions);
    if (seed > (uint64_t)INT64_MAX)
        return fail(err, CUZK_ERR_INVALID_ARGUMENT, "seed must be below 2^63");
    unsigned n = c->kind->n_challenges(&c->p);
    uint64_t *ch = malloc(n * sizeof *ch);
    json_t *arr = json_array(), *o = NULL;
    cuzk_status s = CUZK_ERR_NO_MEMORY;
    if (!ch || !arr) goto out;
    derive_challenges(c, seed, partition, ch);
    for (unsigned i = 0; i < n; i++)
        if (json_array_append_new(arr, json_integer((json_int_t)ch[i]))) goto out;
    o = json_pack("{s:I,s:i,s:O}", "seed", (json_int_t)seed, "partition", (int)partition,
                  "challenges", arr);
    if (!o) goto out;
    *json = json_dumps(o, JSON_COMPACT);
    if (*json) s = CUZK_OK;
out:
    json_decref(o);
    json_decref(arr);
    free(ch);
    return s == CUZK_OK ? s : fail(err, s, "out of memory");
}

/* Reads {"seed", "partition", "challenges"?} into *seed, *partition and
 * ch[0..n). */
static cuzk_status parse_inputs(const cuzk_circuit *c, const char *text, size_t len,
                                uint64_t *seed, unsigned *partition, uint64_t *ch, char *err)
{
    json_error_t je;
    json_t *o = json_loadb(text, len, 0, &je);
    cuzk_status bad = CUZK_ERR_BAD_ENCODING;
    if (!o) return fail(err, bad, "inputs: not JSON: %s (line %d)", je.text, je.line);
    cuzk_status s = CUZK_OK;
    const char *key;
    json_t *v;
    unsigned n = c->kind->n_challenges(&c->p), nb = circ_node_bits(&c->p);
    if (!json_is_object(o)) {
        s = fail(err, bad, "inputs: expected a JSON object {\"seed\", \"partition\", "
                           "\"challenges\"}");
        goto out;
    }
    json_object_foreach(o, key, v) {
        if (strcmp(key, "seed") && strcmp(key, "partition") && strcmp(key, "challenges")) {
            s = fail(err, bad, "inputs: unknown field '%s' (expected seed, partition, "
                               "challenges)", key);
            goto out;
        }
    }
    v = json_object_get(o, "seed");
    if (!v) {
        s = fail(err, bad, "inputs: missing field 'seed'");
        goto out;
    }
    if (!json_is_integer(v) || json_integer_value(v) < 0) {
        s = fail(err, bad, "inputs: 'seed' must be a non-negative integer");
        goto out;
    }
    *seed = (uint64_t)json_integer_value(v);
    v = json_object_get(o, "partition");
    if (!v) {
        s = fail(err, bad, "inputs: missing field 'partition'");
        goto out;
    }
    if (!json_is_integer(v) || json_integer_value(v) < 0 ||
        json_integer_value(v) >= (json_int_t)c->kind->partitions) {
        s = fail(err, bad, "inputs: 'partition' must be an integer in [0, %u) for %s",
                 c->kind->partitions, c->kind->id);
        goto out;
    }
    *partition = (unsigned)json_integer_value(v);
    v = json_object_get(o, "challenges");
    if (!v) {
        derive_challenges(c, *seed, *partition, ch);
        goto out;
    }
    if (!json_is_array(v)) {
        s = fail(err, bad, "inputs: 'challenges' must be an array of node indices");
        goto out;
    }
    if (json_array_size(v) != n) {
        s = fail(err, bad, "inputs: 'challenges' has %zu entries, %s at this size takes %u",
                 json_array_size(v), c->kind->id, n);
        goto out;
    }
    for (unsigned i = 0; i < n; i++) {
        json_t *e = json_array_get(v, i);
        if (!json_is_integer(e)) {
            s = fail(err, bad, "inputs: challenge %u is not an integer", i);
            goto out;
        }
        json_int_t x = json_integer_value(e);
        if (x < 0 || (uint64_t)x >> nb) {
            s = fail(err, bad, "inputs: challenge %u (= %lld) out of range [0, 2^%u)", i,
                     (long long)x, nb);
            goto out;
        }
        ch[i] = (uint64_t)x;
    }
out:
    json_decref(o);
    return s;
}

/* ---------------------------------------------------------------- record -- */

static int shape_eq(const cuzk_cs_shape *a, const cuzk_cs_shape *b)
{
    return a->n_aux_bits == b->n_aux_bits && a->n_aux_fields == b->n_aux_fields;
}

static cuzk_cs_shape shape_diff(const cuzk_cs_shape *hi, const cuzk_cs_shape *lo)
{
    cuzk_cs_shape d = {0, hi->n_aux - lo->n_aux, hi->n_aux_bits - lo->n_aux_bits,
                       hi->n_aux_fields - lo->n_aux_fields,
                       hi->n_constraints - lo->n_constraints};
    return d;
}

/* Runs the prologue and the pieces [0, n_pieces) on cs, one after another,
 * and learns (or checks) the shapes. */
static cuzk_status run_serial(cuzk_circuit *c, cuzk_cs *cs, const circ_job *job,
                              unsigned n_pieces, char *err)
{
    circ_vars v;
    const circ_params *p = &c->p;
    void *scratch = malloc(c->kind->scratch_bytes(p));
    if (!scratch) return fail(err, CUZK_ERR_NO_MEMORY, "out of memory");
    cuzk_cs_shape at, now, pro, first = {0};
    c->kind->prologue(cs, p, job, &v);
    cuzk_cs_get_shape(cs, &pro);
    at = pro;
    for (unsigned k = 0; k < n_pieces && cs->status == CUZK_OK; k++) {
        c->kind->piece(cs, p, job, &v, k, scratch);
        cuzk_cs_get_shape(cs, &now);
        cuzk_cs_shape d = shape_diff(&now, &at);
        if (k == 0) first = d;
        else if (!shape_eq(&d, &first))
            cuzk_cs_fail(cs, CUZK_ERR_INVALID_ARGUMENT, "sub-circuit %u has another shape", k);
        at = now;
    }
    free(scratch);
    const char *msg;
    cuzk_status s = cuzk_cs_status(cs, &msg);
    if (s != CUZK_OK) return fail(err, s, "%s: %s", c->kind->id, msg);
    c->pro = pro;
    c->piece = first;
    c->have_shape = 1;
    return CUZK_OK;
}

cuzk_status cuzk_circuit_record(cuzk_circuit *c, cuzk_matrices *m, cuzk_cs_shape *shape,
                                char *err)
{
    if (err) err[0] = 0;
    memset(m, 0, sizeof *m);
    unsigned n = c->kind->n_challenges(&c->p);
    uint64_t *ch = malloc(n * sizeof *ch);
    if (!ch) return fail(err, CUZK_ERR_NO_MEMORY, "out of memory");
    derive_challenges(c, 0, 0, ch);
    circ_job *job = NULL;
    /* the job's native trees on every core, as for a witness (the values
     * do not depend on the threads): ~9% of recording wpost-32g on one */
    cuzk_status s = c->kind->prepare(&job, &c->p, 0, 0, ch, cuzk_ncores(), err);
    free(ch);
    if (s != CUZK_OK) return err && err[0] ? s : fail(err, s, "%s", cuzk_strerror(s));
    cuzk_cs cs;
    s = cuzk_cs_init(&cs, CUZK_CS_RECORD, NULL);
    if (s == CUZK_OK) s = run_serial(c, &cs, job, c->p.pieces, err);
    else fail(err, s, "out of memory");
    if (s == CUZK_OK) {
        cuzk_cs_get_shape(&cs, shape);
        s = cuzk_cs_take_matrices(&cs, m);
        if (s != CUZK_OK) fail(err, s, "%s: taking the matrices: %s", c->kind->id,
                               cuzk_strerror(s));
        else c->info.n_constraints = shape->n_constraints;
    }
    cuzk_cs_free(&cs);
    c->kind->job_free(job);
    return s;
}

/* --------------------------------------------------------------- witness -- */

typedef struct {
    cuzk_circuit *c;
    const circ_job *job;
    cuzk_cs *outer;
    const circ_vars *v;
    unsigned next; /* atomic: next piece */
    cuzk_status *st;
    unsigned *bad_piece;
    char (*msg)[160];
} wjob;

static void worker(void *ctx, size_t tb, size_t te)
{
    wjob *j = ctx;
    cuzk_circuit *c = j->c;
    const cuzk_cs_shape *pc = &c->piece;
    for (size_t t = tb; t < te; t++) {
        cuzk_cs *w = &c->win[t];
        for (;;) {
            unsigned k = __atomic_fetch_add(&j->next, 1, __ATOMIC_RELAXED);
            if (k >= c->p.pieces) break;
            cuzk_cs_shape at = {0, j->c->pro.n_aux + k * pc->n_aux,
                                c->pro.n_aux_bits + k * pc->n_aux_bits,
                                c->pro.n_aux_fields + k * pc->n_aux_fields, 0};
            cuzk_status s = cuzk_cs_window_start(w, j->outer, &at);
            if (s == CUZK_OK) {
                c->kind->piece(w, &c->p, j->job, j->v, k, c->scratch[t]);
                cuzk_cs_shape got;
                cuzk_cs_get_shape(w, &got);
                if (w->status == CUZK_OK && !shape_eq(&got, pc))
                    cuzk_cs_fail(w, CUZK_ERR_INVALID_ARGUMENT,
                                 "allocated %u bits and %u fields, the shape says %u and %u",
                                 got.n_aux_bits, got.n_aux_fields, pc->n_aux_bits,
                                 pc->n_aux_fields);
                s = cuzk_cs_window_commit(j->outer, w);
            }
            if (s != CUZK_OK) {
                const char *m;
                cuzk_cs_status(w, &m);
                if (j->st[t] == CUZK_OK) {
                    j->st[t] = s;
                    j->bad_piece[t] = k;
                    snprintf(j->msg[t], sizeof j->msg[t], "%s", m[0] ? m : cuzk_strerror(s));
                }
                __atomic_store_n(&j->next, c->p.pieces, __ATOMIC_RELAXED); /* stop */
            }
        }
    }
}

static cuzk_status ensure_windows(cuzk_circuit *c, unsigned T)
{
    if (c->n_win >= T) return CUZK_OK;
    drop_windows(c);
    c->win = calloc(T, sizeof *c->win);
    c->scratch = calloc(T, sizeof *c->scratch);
    if (!c->win || !c->scratch) {
        free(c->win);
        free(c->scratch);
        c->win = NULL;
        c->scratch = NULL;
        return CUZK_ERR_NO_MEMORY;
    }
    c->n_win = T;
    size_t sb = c->kind->scratch_bytes(&c->p);
    for (unsigned t = 0; t < T; t++) {
        c->scratch[t] = malloc(sb);
        if (!c->scratch[t] || cuzk_cs_window_init(&c->win[t], &c->piece) != CUZK_OK) {
            drop_windows(c);
            return CUZK_ERR_NO_MEMORY;
        }
    }
    return CUZK_OK;
}

/* The pieces on T threads, each in its window; then outer's counts skip
 * over them. */
static cuzk_status run_parallel(cuzk_circuit *c, const circ_job *job, cuzk_cs *cs,
                                const circ_vars *v, unsigned T, char *err)
{
    const circ_kind *k = c->kind;
    unsigned pieces = c->p.pieces;
    cuzk_status s = CUZK_OK, *st = calloc(T, sizeof *st);
    unsigned *bad = calloc(T, sizeof *bad);
    char(*msgs)[160] = calloc(T, sizeof *msgs);
    if (!st || !bad || !msgs) {
        s = fail(err, CUZK_ERR_NO_MEMORY, "out of memory");
    } else {
        wjob wj = {c, job, cs, v, 0, st, bad, msgs};
        cuzk_parallel_for(T, 1, T, worker, &wj);
    }
    cuzk_cs_shape rest = {0, pieces * c->piece.n_aux, pieces * c->piece.n_aux_bits,
                          pieces * c->piece.n_aux_fields, 0};
    cuzk_status sk = cuzk_cs_skip(cs, &rest); /* always: reset clears up to the counts */
    for (unsigned t = 0; t < T && s == CUZK_OK; t++)
        if (st[t] != CUZK_OK) s = fail(err, st[t], "%s: sub-circuit %u: %s", k->id, bad[t], msgs[t]);
    if (s == CUZK_OK && sk != CUZK_OK)
        s = fail(err, sk, "%s: the witness does not fit its shape", k->id);
    free(st);
    free(bad);
    free(msgs);
    return s;
}

cuzk_status cuzk_circuit_witness(cuzk_circuit *c, const char *json, size_t len, cuzk_cs *cs,
                                 unsigned nthreads, char *err)
{
    if (err) err[0] = 0;
    if (!c || !json || !cs) return fail(err, CUZK_ERR_INVALID_ARGUMENT, "NULL argument");
    const circ_kind *k = c->kind;
    const circ_params *p = &c->p;
    unsigned n = k->n_challenges(p), pieces = p->pieces;
    if (nthreads == 0) nthreads = cuzk_ncores();
    uint64_t seed = 0, *ch = malloc(n * sizeof *ch);
    unsigned partition = 0;
    if (!ch) return fail(err, CUZK_ERR_NO_MEMORY, "out of memory");
    cuzk_status s = parse_inputs(c, json, len, &seed, &partition, ch, err);
    circ_job *job = NULL;
    if (s == CUZK_OK) {
        s = k->prepare(&job, p, seed, partition, ch, nthreads, err);
        if (s != CUZK_OK && err && !err[0]) fail(err, s, "%s", cuzk_strerror(s));
    }
    free(ch);
    if (s != CUZK_OK) return s;

    if (!c->have_shape) { /* learn it from the prologue and one piece */
        cuzk_cs tmp;
        s = cuzk_cs_init(&tmp, CUZK_CS_WITNESS, NULL);
        if (s == CUZK_OK) s = run_serial(c, &tmp, job, 1, err);
        else fail(err, s, "out of memory");
        cuzk_cs_free(&tmp);
        if (s != CUZK_OK) goto out;
    }
    cuzk_cs_shape total = c->pro;
    total.n_inputs = k->n_inputs(p);
    total.n_aux += pieces * c->piece.n_aux;
    total.n_aux_bits += pieces * c->piece.n_aux_bits;
    total.n_aux_fields += pieces * c->piece.n_aux_fields;
    if (!cs->inputs) {
        s = cuzk_cs_init(cs, CUZK_CS_WITNESS, &total);
        if (s != CUZK_OK) {
            fail(err, s, "%s: cannot allocate the witness (%u bits, %u fields)", k->id,
                 total.n_aux_bits, total.n_aux_fields);
            goto out;
        }
    } else if (cuzk_cs_recording(cs) || !cs->fixed || cs->cap_bits != total.n_aux_bits ||
               cs->cap_fields != total.n_aux_fields || cs->cap_inputs != total.n_inputs) {
        s = fail(err, CUZK_ERR_INVALID_ARGUMENT, "%s: the cs given was made for another "
                 "circuit", k->id);
        goto out;
    } else {
        cuzk_cs_reset(cs);
    }

    circ_vars v;
    k->prologue(cs, p, job, &v);
    cuzk_cs_shape got;
    cuzk_cs_get_shape(cs, &got);
    const char *msg;
    if ((s = cuzk_cs_status(cs, &msg)) != CUZK_OK) {
        fail(err, s, "%s: %s", k->id, msg);
        goto out;
    }
    if (!shape_eq(&got, &c->pro) || got.n_inputs != total.n_inputs) {
        s = fail(err, CUZK_ERR_INVALID_ARGUMENT, "%s: the prologue changed shape", k->id);
        goto out;
    }
    unsigned T = nthreads < pieces ? nthreads : pieces;
    if ((s = ensure_windows(c, T)) != CUZK_OK) {
        fail(err, s, "out of memory for %u windows", T);
        goto out;
    }
    s = run_parallel(c, job, cs, &v, T, err);
out:
    k->job_free(job);
    return s;
}
