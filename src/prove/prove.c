/* The proof job (include/cuzk/prove.h): configuration, the backend
 * registry, workspaces, and cuzk_prove, which checks a job against its key,
 * runs the backend's stages with the progress hook between them, blinds
 * and self-checks. The stages' arithmetic is the backends' (cpu.c). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cuzk/circuits.h>
#include <cuzk/prove.h>

#include "common/parallel.h"
#include "groth16/groth16_internal.h"

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* ------------------------------------------------------------- config -- */

void cuzk_config_default(cuzk_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->self_check = 1;
    cfg->backend = "auto";
    cfg->gpu_ntt_full_twiddles = 13;
}

int cuzk_ntt_tables_valid(unsigned v)
{
    /* (v & 3) == 3 is no table; 8, the pairs, only of the full table */
    return (v & ~12u) <= 2 && (!(v & 8) || (v & 3) == 1);
}

const char *cuzk_prove_stage_name(cuzk_prove_stage stage)
{
    switch (stage) {
    case CUZK_STAGE_WITNESS: return "witness";
    case CUZK_STAGE_ROWS: return "a, b, c";
    case CUZK_STAGE_H: return "H (NTTs)";
    case CUZK_STAGE_MSM_A: return "MSM A (G1)";
    case CUZK_STAGE_MSM_B2: return "MSM B (G2)";
    case CUZK_STAGE_MSM_C: return "MSM C (G1)";
    case CUZK_STAGE_ASSEMBLE: return "blinding";
    case CUZK_STAGE_VERIFY: return "self-check";
    case CUZK_STAGE_DONE: return "done";
    }
    return "?";
}

double cuzk_prove_stage_ms(const cuzk_prove_timings *t, cuzk_prove_stage stage)
{
    switch (stage) {
    case CUZK_STAGE_WITNESS: return t->witness_ms;
    case CUZK_STAGE_ROWS: return t->abc_ms;
    case CUZK_STAGE_H: return t->ntt_ms;
    case CUZK_STAGE_MSM_A: return t->msm_a_ms;
    case CUZK_STAGE_MSM_B2: return t->msm_b2_ms;
    case CUZK_STAGE_MSM_C: return t->msm_c_ms;
    case CUZK_STAGE_ASSEMBLE: return t->assemble_ms;
    case CUZK_STAGE_VERIFY: return t->verify_ms;
    case CUZK_STAGE_DONE: return t->total_ms;
    }
    return 0;
}

/* ----------------------------------------------------------- registry -- */

static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;
static const cuzk_prover_backend *reg[CUZK_MAX_BACKENDS];
static unsigned reg_n;

/* The registered backend named name, or NULL; reg_lock held. */
static const cuzk_prover_backend *find_locked(const char *name)
{
    for (unsigned i = 0; i < reg_n; i++)
        if (!strcmp(reg[i]->name, name)) return reg[i];
    return NULL;
}

cuzk_status cuzk_backend_register(const cuzk_prover_backend *b)
{
    if (!b || !b->name || !strcmp(b->name, "cpu") || !strcmp(b->name, "auto") ||
        !b->ws_create || !b->ws_destroy || !b->ws_bytes || !b->eval_rows || !b->h_poly ||
        !b->msm_a || !b->msm_b2 || !b->msm_c)
        return CUZK_ERR_INVALID_ARGUMENT;
    cuzk_status s = CUZK_OK;
    pthread_mutex_lock(&reg_lock);
    if (find_locked(b->name) || reg_n == CUZK_MAX_BACKENDS) s = CUZK_ERR_INVALID_ARGUMENT;
    else reg[reg_n++] = b;
    pthread_mutex_unlock(&reg_lock);
    return s;
}

const cuzk_prover_backend *cuzk_backend_find(const char *name)
{
    if (!name) return NULL;
    if (!strcmp(name, "cpu")) return cuzk_backend_cpu();
    pthread_mutex_lock(&reg_lock);
    const cuzk_prover_backend *b = find_locked(name);
    pthread_mutex_unlock(&reg_lock);
    return b;
}

/* ---------------------------------------------------------- workspace -- */

struct cuzk_workspace {
    const cuzk_groth16_pk *pk; /* borrowed */
    cuzk_config cfg;           /* cfg.backend points at be->name */
    const cuzk_prover_backend *be;
    void *bws;                 /* owned, be's */
    cuzk_fr *pub;              /* owned: n_public + 1 (the last proof's inputs) */
    /* The self-check's sum x_i IC_i: its MSM scratch (1 thread) and
     * scalars, owned, so that a proof allocates nothing; NULL if n_public
     * is 0. */
    cuzk_g1_msm_scratch *vk_msm;
    cuzk_scalar *vk_k;
    cuzk_vk_prepared *vkp; /* owned: the key's lines for the self-check;
                              NULL without cfg.self_check */
    /* Built-in circuit jobs: the circuit is opened at the first and kept
     * for the next with the same id and size; cs and wbuf are refilled. */
    cuzk_circuit *ci;
    char ci_id[32];
    unsigned ci_size;
    cuzk_cs cs;
    cuzk_fr *wbuf; /* n_vars: the dense witness (or a compact one expanded) */
    cuzk_witness_compact wc; /* a circuit job's witness on a compact backend */
    char note[CUZK_ERRMSG_LEN]; /* "auto" on the CPU: why not the others */
};

/* The dense witness buffer, made at its first use. */
static cuzk_status wbuf_get(cuzk_workspace *ws, char *err)
{
    if (ws->wbuf || (ws->wbuf = malloc((size_t)ws->pk->n_vars * sizeof *ws->wbuf))) return CUZK_OK;
    if (err) snprintf(err, CUZK_ERRMSG_LEN, "prove: out of memory for the witness");
    return CUZK_ERR_NO_MEMORY;
}

static cuzk_status check_key(const cuzk_groth16_pk *pk, char *err)
{
    const char *why = NULL;
    if (pk->n_vars < pk->n_public + 1 || !pk->a || !pk->vk.ic || pk->vk.n_ic != pk->n_public + 1)
        why = "its counts do not fit together";
    else if (pk->n_b > pk->n_vars || (pk->n_b && (!pk->b_var || !pk->b1 || !pk->b2)))
        why = "it lists more B variables than it has";
    else if (pk->log_domain < 1 || pk->log_domain > CUZK_NTT_MAX_LOG || !pk->h)
        why = "its domain is out of range";
    if (why) {
        if (err) snprintf(err, CUZK_ERRMSG_LEN, "prove: a malformed key: %s", why);
        return CUZK_ERR_INVALID_ARGUMENT;
    }
    for (uint32_t i = 0; i < pk->n_b; i++)
        if (pk->b_var[i] >= pk->n_vars) {
            if (err)
                snprintf(err, CUZK_ERRMSG_LEN,
                         "prove: the key's B variable list names a variable above %u",
                         pk->n_vars - 1);
            return CUZK_ERR_INVALID_ARGUMENT;
        }
    return CUZK_OK;
}

cuzk_status cuzk_workspace_create(cuzk_workspace **out, const cuzk_groth16_pk *pk,
                                  const cuzk_config *cfg, char *err)
{
    if (err) err[0] = 0;
    if (!out) return CUZK_ERR_INVALID_ARGUMENT;
    *out = NULL;
    if (!pk) return CUZK_ERR_INVALID_ARGUMENT;
    cuzk_status s = check_key(pk, err);
    if (s != CUZK_OK) return s;
    cuzk_config c;
    if (cfg) c = *cfg;
    else cuzk_config_default(&c);
    const char *name = c.backend ? c.backend : "auto";
    cuzk_workspace *ws = calloc(1, sizeof *ws);
    if (!ws) return CUZK_ERR_NO_MEMORY;
    ws->pk = pk;
    ws->cfg = c;
    if (!(ws->pub = malloc(((size_t)pk->n_public + 1) * sizeof *ws->pub)) ||
        (pk->n_public && (cuzk_g1_msm_scratch_new(&ws->vk_msm, pk->n_public, 1) != CUZK_OK ||
                          !(ws->vk_k = malloc(pk->n_public * sizeof *ws->vk_k)))) ||
        (c.self_check && !(ws->vkp = malloc(sizeof *ws->vkp)))) {
        cuzk_workspace_destroy(ws);
        return CUZK_ERR_NO_MEMORY;
    }
    if (ws->vkp) cuzk_vk_prepare(ws->vkp, &pk->vk);
    if (!strcmp(name, "auto")) {
        /* The registered (accelerated) backends first; the CPU always works. */
        const cuzk_prover_backend *cand[CUZK_MAX_BACKENDS];
        pthread_mutex_lock(&reg_lock);
        unsigned n = reg_n;
        memcpy(cand, reg, n * sizeof *cand);
        pthread_mutex_unlock(&reg_lock);
        s = CUZK_ERR_NO_DEVICE;
        for (unsigned i = 0; i < n && s != CUZK_OK; i++) {
            ws->be = cand[i];
            s = ws->be->ws_create(&ws->bws, pk, &ws->cfg, err);
            if (s != CUZK_OK) { /* "gpu: ...", once: the backend's errors may say so */
                const char *why = err && err[0] ? err : cuzk_strerror(s);
                size_t nl = strlen(ws->be->name);
                int named = !strncmp(why, ws->be->name, nl) && !strncmp(why + nl, ": ", 2);
                snprintf(ws->note, sizeof ws->note, "%s%s%s", named ? "" : ws->be->name,
                         named ? "" : ": ", why);
            }
        }
        if (s == CUZK_OK) ws->note[0] = 0; /* an earlier candidate's refusal */
        if (s != CUZK_OK) {
            if (err) err[0] = 0;
            ws->be = cuzk_backend_cpu();
            s = ws->be->ws_create(&ws->bws, pk, &ws->cfg, err);
        }
    } else if ((ws->be = cuzk_backend_find(name)) != NULL) {
        s = ws->be->ws_create(&ws->bws, pk, &ws->cfg, err);
    } else {
        s = CUZK_ERR_INVALID_ARGUMENT;
        if (err) snprintf(err, CUZK_ERRMSG_LEN, "prove: no backend named '%s'", name);
    }
    if (s != CUZK_OK) {
        ws->bws = NULL;
        cuzk_workspace_destroy(ws);
        return s;
    }
    ws->cfg.backend = ws->be->name;
    if ((c.ws_flags & CUZK_WS_COMPACT_WITNESS) && !(ws->be->flags & CUZK_BACKEND_COMPACT) &&
        (s = wbuf_get(ws, err)) != CUZK_OK) {
        cuzk_workspace_destroy(ws);
        return s;
    }
    *out = ws;
    return CUZK_OK;
}

void cuzk_workspace_destroy(cuzk_workspace *ws)
{
    if (!ws) return;
    if (ws->be && ws->bws) ws->be->ws_destroy(ws->bws);
    cuzk_cs_free(&ws->cs);
    cuzk_circuit_close(ws->ci);
    free(ws->wbuf);
    cuzk_wc_free(&ws->wc);
    free(ws->pub);
    cuzk_g1_msm_scratch_free(ws->vk_msm);
    free(ws->vk_k);
    free(ws->vkp);
    free(ws);
}

uint64_t cuzk_workspace_bytes(const cuzk_workspace *ws)
{
    uint64_t b = sizeof *ws + ((uint64_t)ws->pk->n_public + 1) * sizeof(cuzk_fr) +
                 cuzk_g1_msm_scratch_size(ws->vk_msm) +
                 (ws->vk_k ? (uint64_t)ws->pk->n_public * sizeof(cuzk_scalar) : 0) +
                 (ws->vkp ? sizeof *ws->vkp : 0);
    if (ws->wbuf) b += (uint64_t)ws->pk->n_vars * sizeof(cuzk_fr);
    b += cuzk_wc_bytes(&ws->wc);
    return b + ws->be->ws_bytes(ws->bws);
}

const char *cuzk_workspace_backend(const cuzk_workspace *ws) { return ws->be->name; }

const char *cuzk_workspace_note(const cuzk_workspace *ws) { return ws->note; }

void *cuzk_workspace_backend_state(cuzk_workspace *ws) { return ws->bws; }

/* --------------------------------------------------- circuit witness -- */

/* ceil(log2(n)) for n >= 2 (a domain holds at least 2 rows). */
static unsigned log2_ceil(uint64_t n)
{
    unsigned k = 1;
    while (((uint64_t)1 << k) < n) k++;
    return k;
}

/* The circuit's counts against the key's: variables and public inputs
 * exactly; the domain against the circuit's constraint estimate (the exact
 * count is known only to a recording; the estimate is within a few rows),
 * so a key of another size is refused here and one with the right counts
 * but other constraints fails the self-check. sh NULL: before the witness,
 * only what the circuit's description gives (its public inputs, exact, and
 * the domain), so a wrong key fails at once, not after the witness work
 * (minutes at full size); the variables are checked once sh is known. */
static cuzk_status circuit_fits_key(const cuzk_groth16_pk *pk, const cuzk_circuit_job *cj,
                                    const cuzk_circuit_info *in, const cuzk_cs_shape *sh,
                                    char *err)
{
    char what[96];
    if (cj->log_size) snprintf(what, sizeof what, "%s at 2^%u", cj->id, cj->log_size);
    else snprintf(what, sizeof what, "%s at full size", cj->id);
    if (!sh && pk->n_public + 1 != in->n_inputs) {
        if (err)
            snprintf(err, CUZK_ERRMSG_LEN,
                     "the key has %u public inputs but %s has %u: the key is for another "
                     "circuit or size", pk->n_public, what, in->n_inputs - 1);
        return CUZK_ERR_INVALID_ARGUMENT;
    }
    uint64_t n = sh ? (uint64_t)sh->n_inputs + sh->n_aux : pk->n_vars;
    if (sh && (pk->n_vars != n || pk->n_public + 1 != sh->n_inputs)) {
        if (err)
            snprintf(err, CUZK_ERRMSG_LEN,
                     "the key has %u variables (%u public) but %s has %llu (%u public): the "
                     "key is for another circuit or size", pk->n_vars, pk->n_public, what,
                     (unsigned long long)n, sh->n_inputs - 1);
        return CUZK_ERR_INVALID_ARGUMENT;
    }
    uint64_t est = in->n_constraints, tol = est / 100 + 16, n_in = in->n_inputs;
    unsigned lo = log2_ceil(est > tol ? est - tol + n_in : 2), hi = log2_ceil(est + tol + n_in);
    if (pk->log_domain < lo || pk->log_domain > hi) {
        if (err)
            snprintf(err, CUZK_ERRMSG_LEN,
                     "the key's domain is 2^%u but %s (~%llu constraints) needs 2^%u: the key "
                     "is for another circuit or size", pk->log_domain, what,
                     (unsigned long long)est, log2_ceil(est + n_in));
        return CUZK_ERR_INVALID_ARGUMENT;
    }
    return CUZK_OK;
}

cuzk_status cuzk_circuit_key_check(const cuzk_groth16_pk *pk, const cuzk_circuit *ci, char *err)
{
    const cuzk_circuit_info *in = cuzk_circuit_describe(ci);
    cuzk_circuit_job cj;
    memset(&cj, 0, sizeof cj);
    cj.id = in->id;
    cj.log_size = in->log_size;
    return circuit_fits_key(pk, &cj, in, NULL, err);
}

cuzk_status cuzk_circuit_job_witness(cuzk_circuit *ci, const cuzk_circuit_job *cj, cuzk_cs *cs,
                                     unsigned nthreads, char *err)
{
    char *owned = NULL;
    const char *json = cj->inputs;
    size_t len = cj->inputs_len;
    cuzk_status s;
    if (!json) {
        if ((s = cuzk_circuit_inputs_json(ci, cj->seed, cj->partition, &owned, err)) != CUZK_OK)
            return s;
        json = owned;
        len = strlen(owned);
    }
    s = cuzk_circuit_witness(ci, json, len, cs, nthreads, err);
    free(owned);
    return s;
}

/* The witness of a built-in circuit job into ws->wc on a compact backend
 * (no dense vector at all), else into ws->wbuf. */
static cuzk_status circuit_witness(cuzk_workspace *ws, const cuzk_circuit_job *cj,
                                   cuzk_prove_result *res, char *err)
{
    const cuzk_groth16_pk *pk = ws->pk;
    cuzk_status s;
    res->bad_input = CUZK_INPUT_WITNESS;
    if (!cj->id) {
        if (err) snprintf(err, CUZK_ERRMSG_LEN, "prove: a circuit job without a circuit id");
        return CUZK_ERR_INVALID_ARGUMENT;
    }
    if (!ws->ci || strcmp(ws->ci_id, cj->id) || ws->ci_size != cj->log_size) {
        cuzk_cs_free(&ws->cs);
        memset(&ws->cs, 0, sizeof ws->cs);
        cuzk_circuit_close(ws->ci);
        ws->ci = NULL;
        if ((s = cuzk_circuit_open(&ws->ci, cj->id, cj->log_size, err)) != CUZK_OK) return s;
        snprintf(ws->ci_id, sizeof ws->ci_id, "%s", cj->id); /* ids are short */
        ws->ci_size = cj->log_size;
    }
    /* The cheap checks first: a wrong key fails before the witness work. */
    if ((s = circuit_fits_key(pk, cj, cuzk_circuit_describe(ws->ci), NULL, err)) != CUZK_OK) {
        res->bad_input = CUZK_INPUT_KEY;
        return s;
    }
    s = cuzk_circuit_job_witness(ws->ci, cj, &ws->cs, ws->cfg.nthreads, err);
    if (s != CUZK_OK) {
        /* A failed fill leaves cs in no state to reuse. */
        cuzk_cs_free(&ws->cs);
        memset(&ws->cs, 0, sizeof ws->cs);
        return s;
    }
    cuzk_cs_shape sh;
    cuzk_cs_get_shape(&ws->cs, &sh);
    if ((s = circuit_fits_key(pk, cj, cuzk_circuit_describe(ws->ci), &sh, err)) != CUZK_OK) {
        res->bad_input = CUZK_INPUT_KEY;
        return s;
    }
    res->bad_input = CUZK_INPUT_NONE;
    if (ws->be->flags & CUZK_BACKEND_COMPACT) {
        if (!ws->wc.bits && (s = cuzk_wc_init(&ws->wc, pk->n_vars)) != CUZK_OK) return s;
        s = cuzk_wc_from_cs(&ws->wc, &ws->cs, ws->cfg.nthreads);
    } else if ((s = wbuf_get(ws, err)) != CUZK_OK) {
        return s;
    } else {
        s = cuzk_cs_witness(&ws->cs, ws->wbuf, pk->n_vars);
    }
    if (s != CUZK_OK) {
        if (err) snprintf(err, CUZK_ERRMSG_LEN, "prove: the witness: %s", cuzk_strerror(s));
        return s;
    }
    return CUZK_OK;
}

/* --------------------------------------------------------------- jobs -- */

/* The job against the key, before any stage runs: each failure names its
 * input in res->bad_input. */
static cuzk_status check_job(const cuzk_groth16_pk *pk, const cuzk_prove_job *job,
                             const cuzk_fr *w, const cuzk_witness_compact *wc, size_t n_w,
                             cuzk_prove_result *res, char *err)
{
    size_t n = (size_t)1 << pk->log_domain, n_inputs = (size_t)pk->n_public + 1;
    res->bad_input = CUZK_INPUT_WITNESS;
    if (n_w != pk->n_vars) {
        if (err)
            snprintf(err, CUZK_ERRMSG_LEN,
                     "prove: the witness has %zu values but the key expects %u", n_w,
                     pk->n_vars);
        return CUZK_ERR_UNSATISFIED;
    }
    cuzk_fr w0;
    if (w) w0 = w[0];
    else cuzk_wc_value(wc, 0, &w0);
    if (!cuzk_fr_is_one(&w0)) {
        if (err) snprintf(err, CUZK_ERRMSG_LEN, "prove: witness value 0 must be 1");
        return CUZK_ERR_UNSATISFIED;
    }
    if (job->r1cs) {
        uint64_t bad = 0;
        res->bad_input = CUZK_INPUT_R1CS;
        cuzk_status s = cuzk_r1cs_check(job->r1cs, w, n_w, &bad, err);
        if (s != CUZK_OK) return s;
    }
    if (job->pce) {
        const cuzk_pce *p = job->pce;
        size_t total = p->n_rows + ((p->flags & CUZK_PCE_HAS_INPUT_ROWS) ? 0 : n_inputs);
        res->bad_input = CUZK_INPUT_PCE;
        if (p->n_cols != pk->n_vars || p->n_inputs != n_inputs) {
            if (err)
                snprintf(err, CUZK_ERRMSG_LEN,
                         "prove: the PCE has %llu variables (%llu inputs) but the witness %zu "
                         "and the key %zu inputs: another circuit?",
                         (unsigned long long)p->n_cols, (unsigned long long)p->n_inputs, n_w,
                         n_inputs);
            return CUZK_ERR_INVALID_ARGUMENT;
        }
        if (total > n || (pk->m.n_rows && total != pk->m.n_rows)) {
            if (err)
                snprintf(err, CUZK_ERRMSG_LEN,
                         "prove: the PCE's %zu rows (input rows included) do not fit the key "
                         "(%llu rows, domain 2^%u): another circuit?", total,
                         (unsigned long long)pk->m.n_rows, pk->log_domain);
            return CUZK_ERR_INVALID_ARGUMENT;
        }
    } else if (job->rows) {
        const cuzk_groth16_rows *r = job->rows;
        size_t total = r->n_rows + (r->has_input_rows ? 0 : n_inputs);
        res->bad_input = CUZK_INPUT_ROWS;
        if (!r->a || !r->b || (r->in_place && !r->c) || total > n ||
            (pk->m.n_rows && total != pk->m.n_rows)) {
            if (err)
                snprintf(err, CUZK_ERRMSG_LEN,
                         "prove: %zu rows (input rows included) do not fit the key (%llu rows, "
                         "domain 2^%u)%s", total, (unsigned long long)pk->m.n_rows,
                         pk->log_domain, r->a && r->b ? "" : "; or a NULL row array");
            return CUZK_ERR_INVALID_ARGUMENT;
        }
    } else if (pk->m.n_rows == 0) {
        res->bad_input = CUZK_INPUT_KEY;
        if (err)
            snprintf(err, CUZK_ERRMSG_LEN,
                     "prove: the key has no matrices: give the rows (the circuit's PCE)");
        return CUZK_ERR_INVALID_ARGUMENT;
    }
    res->bad_input = CUZK_INPUT_NONE;
    return CUZK_OK;
}

/* A uniform nonzero scalar from the OS CSPRNG, by rejection sampling. */
static cuzk_status random_fr(cuzk_fr *r)
{
    for (;;) {
        uint64_t v[4];
        cuzk_status s = g16_os_random(v, sizeof v);
        if (s != CUZK_OK) return s;
        v[3] &= 0x7fffffffffffffffull; /* r < 2^255 */
        if (cuzk_fr_from_limbs(r, v) == CUZK_OK && !cuzk_fr_is_zero(r)) return CUZK_OK;
    }
}

/* Enters stage st: records it and asks the progress hook whether to go on. */
static int enter(const cuzk_prove_job *job, cuzk_prove_result *res, cuzk_prove_stage st)
{
    res->stage = st;
    return !job->progress || !job->progress(job->progress_ctx, st);
}

cuzk_status cuzk_prove(cuzk_workspace *ws, const cuzk_prove_job *job, cuzk_prove_result *res,
                       char *err)
{
    if (err) err[0] = 0;
    if (!res) return CUZK_ERR_INVALID_ARGUMENT;
    memset(res, 0, sizeof *res);
    if (!ws || !job) return CUZK_ERR_INVALID_ARGUMENT;
    const cuzk_groth16_pk *pk = ws->pk;
    const cuzk_prover_backend *be = ws->be;
    cuzk_prove_timings *t = &res->t;
    cuzk_status s = CUZK_ERR_INVALID_ARGUMENT;
    double ts;
    if ((job->pce && job->rows) || !job->fixed_r != !job->fixed_s) {
        if (err)
            snprintf(err, CUZK_ERRMSG_LEN,
                     "prove: a job gives at most one of a PCE and rows, and r with s");
        return s;
    }

    /* The witness: dense, or compact (expanded for a backend that needs it,
     * and for the r1cs check). */
    const cuzk_fr *w = NULL;
    const cuzk_witness_compact *wc = NULL;
    size_t n_w = 0;
    if (job->witness == CUZK_WITNESS_CIRCUIT) {
        if (!enter(job, res, CUZK_STAGE_WITNESS)) goto canceled;
        ts = now_ms();
        if ((s = circuit_witness(ws, &job->circuit, res, err)) != CUZK_OK) goto fail;
        t->witness_ms = now_ms() - ts;
        if (be->flags & CUZK_BACKEND_COMPACT) wc = &ws->wc;
        else w = ws->wbuf;
        n_w = pk->n_vars;
    } else if (job->witness == CUZK_WITNESS_DENSE && job->w) {
        w = job->w;
        n_w = job->n_w;
    } else if (job->witness == CUZK_WITNESS_COMPACT && job->wc) {
        wc = job->wc;
        n_w = wc->n;
        if (!cuzk_wc_filled(wc)) {
            if (err)
                snprintf(err, CUZK_ERRMSG_LEN,
                         "prove: the compact witness is not filled (its counts disagree)");
            res->bad_input = CUZK_INPUT_WITNESS;
            s = CUZK_ERR_INVALID_ARGUMENT;
            goto fail;
        }
    } else {
        if (err) snprintf(err, CUZK_ERRMSG_LEN, "prove: a job without a witness");
        goto fail;
    }
    if (!w && n_w == pk->n_vars && (!(be->flags & CUZK_BACKEND_COMPACT) || job->r1cs)) {
        res->bad_input = CUZK_INPUT_NONE;
        if ((s = wbuf_get(ws, err)) != CUZK_OK ||
            (s = cuzk_wc_expand(wc, ws->wbuf, n_w, ws->cfg.nthreads)) != CUZK_OK)
            goto fail;
        w = ws->wbuf;
    }
    res->stage = CUZK_STAGE_ROWS;
    if ((s = check_job(pk, job, w, wc, n_w, res, err)) != CUZK_OK) goto fail;
    /* The public inputs, for the self-check and the result. */
    if (w) memcpy(ws->pub, w + 1, pk->n_public * sizeof *ws->pub);
    else
        for (uint32_t i = 0; i < pk->n_public; i++) cuzk_wc_value(wc, i + 1, &ws->pub[i]);

    cuzk_stage_in in = {pk, (be->flags & CUZK_BACKEND_COMPACT) && wc ? NULL : w, job->pce,
                        job->rows, {{0}}, {{0}}, wc};
    if (job->fixed_r) {
        in.r = *job->fixed_r;
        in.s = *job->fixed_s;
    } else if ((s = random_fr(&in.r)) != CUZK_OK || (s = random_fr(&in.s)) != CUZK_OK) {
        if (err) snprintf(err, CUZK_ERRMSG_LEN, "prove: reading randomness from the OS: %s",
                          cuzk_strerror(s));
        goto fail;
    }

    double t0 = now_ms();
    cuzk_g1_jac pa, pc, t1, delta1, c_blind;
    cuzk_g2_jac pb2, t2, delta2;
#define STAGE(st, field, call)                                                               \
    do {                                                                                     \
        if (!enter(job, res, st)) goto canceled;                                             \
        ts = now_ms();                                                                       \
        if ((s = (call)) != CUZK_OK) goto fail;                                              \
        t->field = now_ms() - ts;                                                            \
    } while (0)
    STAGE(CUZK_STAGE_ROWS, abc_ms, be->eval_rows(ws->bws, &in, err));
    STAGE(CUZK_STAGE_H, ntt_ms, be->h_poly(ws->bws, &in, err));
    STAGE(CUZK_STAGE_MSM_A, msm_a_ms, be->msm_a(ws->bws, &in, &pa, err));

    /* Blinding and the self-check, each part as soon as its points are
     * known: the GPU backend's msm_a returns once A's MSM is done, and B2's
     * and C's run on meanwhile (3.4 ms more at 2^20 and 14.6 at 2^24 on the
     * H200, docs/perf.md), so only C's last additions and the check's last
     * part follow the device's work. */
    ts = now_ms();
    cuzk_g1_from_affine(&delta1, &pk->vk.delta_g1);
    cuzk_g2_from_affine(&delta2, &pk->vk.delta_g2);
    /* A = alpha + sum + r delta */
    cuzk_g1_add_mixed(&pa, &pa, &pk->vk.alpha_g1);
    cuzk_g1_mul(&t1, &delta1, &in.r);
    cuzk_g1_add(&pa, &pa, &t1);
    cuzk_g1_to_affine(&res->proof.a, &pa);
    /* C's blinding s A + r beta (cpu.c, cpu_msm_c) into c_blind */
    cuzk_g1_mul(&c_blind, &pa, &in.s);
    cuzk_g1_from_affine(&t1, &pk->vk.beta_g1);
    cuzk_g1_mul(&t1, &t1, &in.r);
    cuzk_g1_add(&c_blind, &c_blind, &t1);
    /* B's blinding s delta into t2 */
    cuzk_g2_mul(&t2, &delta2, &in.s);
    t->assemble_ms = now_ms() - ts;
    /* The check's inputs part (vk_x and its Miller loop). */
    cuzk_verify_parts vp;
    cuzk_status vs = CUZK_OK; /* the self-check's status so far */
    if (ws->vkp) {
        ts = now_ms();
        cuzk_g1_jac vk_x;
        if ((s = cuzk_groth16_vk_x(&vk_x, &pk->vk, ws->pub, pk->n_public, ws->vk_msm,
                                   ws->vk_k)) != CUZK_OK) {
            if (err)
                snprintf(err, CUZK_ERRMSG_LEN, "prove: the self-check's inputs: %s",
                         cuzk_strerror(s));
            goto fail;
        }
        vs = cuzk_groth16_verify_begin(&vp, ws->vkp, &vk_x);
        t->verify_ms = now_ms() - ts;
    }

    STAGE(CUZK_STAGE_MSM_B2, msm_b2_ms, be->msm_b2(ws->bws, &in, &pb2, err));
    /* B (G2) = beta + sum + s delta; the check's A, B part. */
    ts = now_ms();
    cuzk_g2_add_mixed(&pb2, &pb2, &pk->vk.beta_g2);
    cuzk_g2_add(&pb2, &pb2, &t2);
    cuzk_g2_to_affine(&res->proof.b, &pb2);
    t->assemble_ms += now_ms() - ts;
    if (ws->vkp && vs == CUZK_OK) {
        ts = now_ms();
        vs = cuzk_groth16_verify_ab(&vp, &res->proof.a, &res->proof.b);
        t->verify_ms += now_ms() - ts;
    }
    STAGE(CUZK_STAGE_MSM_C, msm_c_ms, be->msm_c(ws->bws, &in, &pc, err));
#undef STAGE

    /* C = (L + H + r sum w_i B1_i) + s A + r beta */
    if (!enter(job, res, CUZK_STAGE_ASSEMBLE)) goto canceled;
    ts = now_ms();
    cuzk_g1_add(&pc, &pc, &c_blind);
    cuzk_g1_to_affine(&res->proof.c, &pc);
    t->assemble_ms += now_ms() - ts;

    if (ws->vkp) {
        if (!enter(job, res, CUZK_STAGE_VERIFY)) goto canceled;
        ts = now_ms();
        if (vs == CUZK_OK) vs = cuzk_groth16_verify_end(&vp, ws->vkp, &res->proof.c);
        t->verify_ms += now_ms() - ts;
        s = vs;
        if (s != CUZK_OK && ws->be == cuzk_backend_cpu()) {
            if (err)
                snprintf(err, CUZK_ERRMSG_LEN,
                         "prove: the proof does not verify (%s): the witness does not "
                         "satisfy the circuit of this key",
                         cuzk_strerror(s));
            s = CUZK_ERR_UNSATISFIED;
            res->bad_input = CUZK_INPUT_WITNESS;
            goto fail;
        }
        if (s != CUZK_OK) {
            /* Another backend may have computed it wrongly (a device fault,
             * a corrupted key in device memory): not the witness's fault
             * for sure, so a status worth another attempt. */
            if (err)
                snprintf(err, CUZK_ERRMSG_LEN,
                         "prove: the %s backend's proof does not verify (%s): either the "
                         "witness does not satisfy the circuit of this key or the device "
                         "computed it wrongly (the cpu backend tells which)",
                         ws->be->name, cuzk_strerror(s));
            s = CUZK_ERR_PROOF_INVALID;
            res->bad_input = CUZK_INPUT_NONE;
            goto fail;
        }
    }
    t->total_ms = now_ms() - t0;
    res->pub = ws->pub;
    res->n_public = pk->n_public;
    res->stage = CUZK_STAGE_DONE;
    return CUZK_OK;

canceled:
    s = CUZK_ERR_CANCELED;
    res->bad_input = CUZK_INPUT_NONE;
    if (err)
        snprintf(err, CUZK_ERRMSG_LEN, "prove: canceled before the %s stage",
                 cuzk_prove_stage_name(res->stage));
fail:
    memset(&res->proof, 0, sizeof res->proof);
    return s;
}

/* ------------------------------------------------- one-shot wrappers -- */

static cuzk_status prove_once(cuzk_proof *proof, const cuzk_groth16_pk *pk, const cuzk_fr *w,
                              size_t n_w, const cuzk_groth16_rows *rows, unsigned nthreads,
                              unsigned flags, cuzk_prove_timings *t, char *err)
{
    if (t) memset(t, 0, sizeof *t);
    if (!proof || !pk || !w) return CUZK_ERR_INVALID_ARGUMENT;
    cuzk_config cfg;
    cuzk_config_default(&cfg);
    cfg.backend = "cpu";
    cfg.nthreads = nthreads;
    cfg.self_check = !(flags & CUZK_PROVE_NO_SELF_CHECK);
    if (rows && rows->in_place) cfg.ws_flags |= CUZK_WS_CALLER_ROWS;
    cuzk_workspace *ws;
    cuzk_status s = cuzk_workspace_create(&ws, pk, &cfg, err);
    if (s != CUZK_OK) return s;
    cuzk_prove_job job = {0};
    job.witness = CUZK_WITNESS_DENSE;
    job.w = w;
    job.n_w = n_w;
    job.rows = rows;
    cuzk_prove_result res;
    s = cuzk_prove(ws, &job, &res, err);
    *proof = res.proof;
    if (t) *t = res.t;
    cuzk_workspace_destroy(ws);
    return s;
}

cuzk_status cuzk_groth16_prove(cuzk_proof *proof, const cuzk_groth16_pk *pk, const cuzk_fr *w,
                               size_t n_w, unsigned nthreads, unsigned flags,
                               cuzk_prove_timings *t, char *err)
{
    if (err) err[0] = 0;
    return prove_once(proof, pk, w, n_w, NULL, nthreads, flags, t, err);
}

cuzk_status cuzk_groth16_prove_rows(cuzk_proof *proof, const cuzk_groth16_pk *pk,
                                    const cuzk_fr *w, size_t n_w, const cuzk_groth16_rows *rows,
                                    unsigned nthreads, unsigned flags, cuzk_prove_timings *t,
                                    char *err)
{
    if (err) err[0] = 0;
    if (!rows) {
        if (err) snprintf(err, CUZK_ERRMSG_LEN, "prove: no rows given");
        return CUZK_ERR_INVALID_ARGUMENT;
    }
    return prove_once(proof, pk, w, n_w, rows, nthreads, flags, t, err);
}

cuzk_status cuzk_circuit_setup(cuzk_groth16_pk *pk, const char *id, unsigned log_size,
                               const uint64_t *seed, char *err)
{
    cuzk_circuit *ci;
    cuzk_status s = cuzk_circuit_open(&ci, id, log_size, err);
    if (s != CUZK_OK) return s;
    cuzk_matrices m;
    memset(&m, 0, sizeof m);
    cuzk_cs_shape sh;
    s = cuzk_circuit_record(ci, &m, &sh, err);
    cuzk_circuit_close(ci);
    if (s != CUZK_OK) return s;
    cuzk_setup_opts o;
    memset(&o, 0, sizeof o);
    o.roots = CUZK_ROOTS_SNARKJS;
    o.seed = seed;
    s = cuzk_groth16_setup(pk, &m, sh.n_inputs, sh.n_aux, &o, err);
    cuzk_matrices_free(&m);
    return s;
}
