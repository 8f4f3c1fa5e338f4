/* cuzk — the engine: circuits, jobs, the pipeline threads, the budget and
 * the key manager (engine.h; the locking rules are engine_internal.h's). */
#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cuzk/pool.h>

#include "engine/engine_internal.h"

/* ------------------------------------------------------------ helpers -- */

static void seterr(char *err, const char *fmt, ...)
{
    if (!err) return;
    va_list ap;
    va_start(ap, fmt);
    int n = snprintf(err, CUZK_ERRMSG_LEN, "engine: ");
    vsnprintf(err + n, CUZK_ERRMSG_LEN - (size_t)n, fmt, ap);
    va_end(ap);
}

static void clrerr(char *err)
{
    if (err) err[0] = 0;
}

/* One line to the operator's log (cuzk_engine_config.log), if any. Under mu. */
static void elog(cuzk_engine *e, const char *fmt, ...)
{
    if (!e->cfg.log) return;
    char line[2 * CUZK_ERRMSG_LEN];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    e->cfg.log(e->cfg.log_ctx, line);
}

int64_t cuzk__engine_now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static int64_t wall_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void copystr(char *dst, size_t cap, const char *src)
{
    snprintf(dst, cap, "%s", src ? src : "");
}

static int fits(uint64_t reserved, uint64_t add, uint64_t budget)
{
    return !budget || (add <= budget && reserved <= budget - add);
}

/* Statuses worth another attempt: the device or memory, not the input. */
static int retryable(cuzk_status s)
{
    return s == CUZK_ERR_CUDA || s == CUZK_ERR_NO_MEMORY || s == CUZK_ERR_NO_DEVICE ||
           s == CUZK_ERR_PROOF_INVALID;
}

/* ------------------------------------------------------------- config -- */

void cuzk_engine_config_default(cuzk_engine_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->backend = "auto";
    cfg->n_devices = 1;
    cfg->provers_per_device = 1;
    cfg->witness_workers = 1;
    cfg->critical_witness = 1;
    cfg->max_batch_size = 8;
    cfg->self_verify = 1;
    cfg->max_attempts = 3;
    cuzk_config pc; /* the workspaces' default table */
    cuzk_config_default(&pc);
    cfg->gpu_ntt_full_twiddles = pc.gpu_ntt_full_twiddles;
}

/* The bytes of a key's arrays (points and b_var; the matrices are left
 * out: a PCE or the file carries them). */
static uint64_t pk_bytes(const cuzk_groth16_pk *pk)
{
    uint64_t n = pk->n_vars, nb = pk->n_b, N = (uint64_t)1 << pk->log_domain;
    uint64_t nl = n > pk->n_public + 1 ? n - pk->n_public - 1 : 0;
    return sizeof(cuzk_g1_affine) * (n + nb + nl + N) + sizeof(cuzk_g2_affine) * nb + 4 * nb +
           sizeof(cuzk_g1_affine) * pk->vk.n_ic;
}

/* A generous first guess of one CPU workspace (prove.h: 3 x 32 bytes per
 * domain point, 32 per variable, 64 per B variable, the NTT tables),
 * replaced by the measured size once one exists. */
static uint64_t ws_guess(const ecirc *c)
{
    uint64_t N = (uint64_t)1 << c->log_domain;
    return 2 * (96 * N + 32 * (uint64_t)c->n_vars + 64 * (uint64_t)c->n_vars + 64 * N) + 65536;
}

/* ---------------------------------------------------------- the engine -- */

cuzk_status cuzk_engine_config_check(const cuzk_engine_config *cfg, char *err)
{
    clrerr(err);
    if (cfg->backend && strlen(cfg->backend) >= 16)
        seterr(err, "backend name too long");
    else if (cfg->witness_nice < 0 || cfg->witness_nice > 19)
        seterr(err, "witness_nice %d: 0..19", cfg->witness_nice);
    else if (cfg->gpu_ntt_fp64 > 4 || cfg->gpu_msm_fp64 > 4)
        seterr(err, "gpu_ntt_fp64 %u, gpu_msm_fp64 %u: 0..4", cfg->gpu_ntt_fp64,
               cfg->gpu_msm_fp64);
    else if (!cuzk_ntt_tables_valid(cfg->gpu_ntt_full_twiddles))
        seterr(err, "gpu_ntt_full_twiddles %u: " CUZK_NTT_TABLES_VALUES,
               cfg->gpu_ntt_full_twiddles);
    else if (cfg->n_devices > 32)
        seterr(err, "devices %u: at most 32", cfg->n_devices);
    else
        return CUZK_OK;
    return CUZK_ERR_INVALID_ARGUMENT;
}

cuzk_status cuzk_engine_create(cuzk_engine **out, const cuzk_engine_config *cfg, char *err)
{
    clrerr(err);
    *out = NULL;
    cuzk_engine_config def;
    if (!cfg) {
        cuzk_engine_config_default(&def);
        cfg = &def;
    }
    cuzk_status st = cuzk_engine_config_check(cfg, err);
    if (st != CUZK_OK) return st;
    const char *b = cfg->backend ? cfg->backend : "auto";
    if (strcmp(b, "auto") && !cuzk_backend_find(b)) {
        seterr(err, "unknown backend \"%s\"", b);
        return CUZK_ERR_INVALID_ARGUMENT;
    }
    cuzk_engine *e = calloc(1, sizeof *e);
    if (!e) goto oom;
    e->cfg = *cfg;
    copystr(e->backend_name, sizeof e->backend_name, b);
    e->cfg.backend = e->backend_name;
    e->n_devices = cfg->n_devices ? cfg->n_devices : 1;
    e->ppd = cfg->provers_per_device ? cfg->provers_per_device : 1;
    e->n_witness = (cfg->witness_workers ? cfg->witness_workers : 1) + (cfg->critical_witness != 0);
    e->ready_cap = cfg->ready_capacity ? cfg->ready_capacity : 2 * (size_t)e->n_devices;
    if (!e->cfg.max_attempts) e->cfg.max_attempts = 3;
    if (!e->cfg.lease_ms) e->cfg.lease_ms = 600000;
    if (!e->cfg.timeline_capacity) e->cfg.timeline_capacity = 65536;
    if (!e->cfg.results_keep) e->cfg.results_keep = 4096;
    e->ring_cap = e->cfg.timeline_capacity;
    e->ring = calloc(e->ring_cap, sizeof *e->ring);
    e->dev_res = calloc(e->n_devices, sizeof *e->dev_res);
    e->dev_busy = calloc(e->n_devices, sizeof *e->dev_busy);
    e->dev_proofs = calloc(e->n_devices, sizeof *e->dev_proofs);
    e->dev_failures = calloc(e->n_devices, sizeof *e->dev_failures);
    if (!e->ring || !e->dev_res || !e->dev_busy || !e->dev_proofs || !e->dev_failures) {
        free(e->ring);
        free(e->dev_res);
        free(e->dev_busy);
        free(e->dev_proofs);
        free(e->dev_failures);
        free(e);
        goto oom;
    }
    pthread_mutex_init(&e->mu, NULL);
    pthread_mutex_init(&e->obs_mu, NULL);
    pthread_mutex_init(&e->smu, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&e->cv_work, &ca);
    pthread_cond_init(&e->cv_done, &ca);
    pthread_cond_init(&e->cv_collect, &ca);
    pthread_cond_init(&e->cv_store, &ca);
    pthread_cond_init(&e->cv_enq, &ca);
    pthread_condattr_destroy(&ca);
    e->next_id = 1;
    e->next_seq = 1;
    e->ev_next = 1;
    e->t0_us = cuzk__engine_now_us();
    *out = e;
    return CUZK_OK;
oom:
    seterr(err, "out of memory");
    return CUZK_ERR_NO_MEMORY;
}

/* ----------------------------------------------------------- circuits -- */

static ecirc *circ_find(cuzk_engine *e, const char *name)
{
    for (size_t i = 0; i < e->n_circ; i++)
        if (!strcmp(e->circ[i]->name, name)) return e->circ[i];
    return NULL;
}

/* circ_find for a caller's name (NULL allowed), with the message when it
 * is unknown. e->mu held. */
static ecirc *circ_named(cuzk_engine *e, const char *name, char *err)
{
    ecirc *c = name ? circ_find(e, name) : NULL;
    if (!c) seterr(err, "unknown circuit \"%s\"", name ? name : "(null)");
    return c;
}

static size_t circ_index(cuzk_engine *e, const ecirc *c)
{
    for (size_t i = 0; i < e->n_circ; i++)
        if (e->circ[i] == c) return i;
    return 0;
}

static int name_ok(const char *s)
{
    size_t n = strlen(s);
    if (!n || n >= CUZK_ENGINE_ID_LEN) return 0;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
              *s == '.' || *s == '_' || *s == '@' || *s == '-'))
            return 0;
    return 1;
}

/* Loads the key file at c->key_path into *pk: a .cuzk key mapped
 * (*mapped = 1), a .zkey decoded into memory. A .zkey that is not a
 * regular file (a pipe) is read through once: *reloadable = 0, the engine
 * keeps it in memory. No lock held. */
static cuzk_status key_load_file(const ecirc *c, cuzk_groth16_pk *pk, int *mapped,
                                 int *reloadable, char *label, unsigned nthreads, char *err)
{
    struct stat st;
    if (stat(c->key_path, &st) != 0) {
        seterr(err, "%s: %s", c->key_path, strerror(errno));
        return CUZK_ERR_IO;
    }
    int reg = S_ISREG(st.st_mode);
    *reloadable = reg;
    cuzk_blob b = {0};
    cuzk_status s = reg ? cuzk_blob_map(&b, c->key_path, err) : cuzk_blob_read(&b, c->key_path, err);
    if (s != CUZK_OK) return s;
    int is_cuzk = b.size >= 8 && !memcmp(b.data, "cuzk-key", 8);
    int is_zkey = b.size >= 4 && !memcmp(b.data, "zkey", 4);
    if (is_cuzk) {
        cuzk_blob_release(&b);
        if (!reg) {
            seterr(err, "%s: a .cuzk key must be a regular file (it is mapped)", c->key_path);
            return CUZK_ERR_INVALID_ARGUMENT;
        }
        *mapped = 1;
        return cuzk_keyfile_map_pk(pk, c->key_path, 0, nthreads, label, err);
    }
    if (!is_zkey) {
        cuzk_blob_release(&b);
        seterr(err, "%s: neither a .zkey nor a .cuzk key", c->key_path);
        return CUZK_ERR_BAD_ENCODING;
    }
    *mapped = 0;
    if (label) label[0] = 0;
    cuzk_zkey z;
    memset(&z, 0, sizeof z);
    s = cuzk_zkey_parse(&z, b.data, b.size, 0, err);
    if (s == CUZK_OK) s = cuzk_groth16_pk_from_zkey(pk, &z, nthreads, err);
    cuzk_zkey_free(&z);
    cuzk_blob_release(&b);
    if (s != CUZK_OK && err) { /* name the file: the parser knows only bytes */
        char m[CUZK_ERRMSG_LEN];
        copystr(m, sizeof m, err);
        seterr(err, "%s: %s", c->key_path, m);
    }
    return s;
}

/* The checks of a key file that need no load: it opens for reading and, a
 * regular file, starts with the magic of a .zkey or a .cuzk key. A pipe
 * cannot be looked into without consuming it: its format is told at the
 * load. O_NONBLOCK: opening a pipe with no writer yet must not wait. */
static cuzk_status key_file_check(const char *path, char *err)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
        seterr(err, "%s: %s", path, strerror(errno));
        return CUZK_ERR_IO;
    }
    struct stat st;
    cuzk_status s = CUZK_OK;
    if (fstat(fd, &st) != 0) {
        seterr(err, "%s: %s", path, strerror(errno));
        s = CUZK_ERR_IO;
    } else if (S_ISDIR(st.st_mode)) {
        seterr(err, "%s: a directory, not a key file", path);
        s = CUZK_ERR_INVALID_ARGUMENT;
    } else if (S_ISREG(st.st_mode)) {
        uint8_t m[8];
        ssize_t n = pread(fd, m, sizeof m, 0);
        if (!((n >= 8 && !memcmp(m, "cuzk-key", 8)) || (n >= 4 && !memcmp(m, "zkey", 4)))) {
            seterr(err, "%s: neither a .zkey nor a .cuzk key", path);
            s = CUZK_ERR_BAD_ENCODING;
        }
    }
    close(fd);
    return s;
}

static void circ_free(cuzk_engine *e, ecirc *c)
{
    if (!c) return;
    cuzk_groth16_pk_free(&c->pk);
    if (c->has_pce) cuzk_pce_free(&c->pce);
    cuzk_vk_free(&c->vk);
    if (c->ws_free)
        for (unsigned d = 0; d < e->n_devices; d++) free(c->ws_free[d]);
    free(c->ws_free);
    free(c->ws_nfree);
    free(c->ws_count);
    free(c);
}

/* A new circuit (not listed, state LOADING) from spec, with every check
 * that needs no load: the name, a built-in id and size, the key file
 * (key_file_check), the PCE file opening. Fast: this is what an
 * asynchronous registration answers from. */
static cuzk_status circ_make(cuzk_engine *e, const cuzk_circuit_spec *spec, ecirc **out,
                             char *err)
{
    *out = NULL;
    if (!spec || (!spec->builtin && !spec->key_path)) {
        seterr(err, "register: give a built-in id or a key path");
        return CUZK_ERR_INVALID_ARGUMENT;
    }
    char name[CUZK_ENGINE_ID_LEN];
    if (spec->name && *spec->name) {
        copystr(name, sizeof name, spec->name);
    } else if (spec->builtin) {
        copystr(name, sizeof name, spec->builtin);
    } else {
        const char *base = strrchr(spec->key_path, '/');
        base = base ? base + 1 : spec->key_path;
        copystr(name, sizeof name, base);
        char *dot = strrchr(name, '.');
        if (dot && dot != name) *dot = 0;
    }
    if (!name_ok(name) || (spec->name && strlen(spec->name) >= CUZK_ENGINE_ID_LEN)) {
        seterr(err, "register: bad circuit name \"%s\" (letters, digits, . _ @ -)", name);
        return CUZK_ERR_INVALID_ARGUMENT;
    }
    if ((spec->key_path && strlen(spec->key_path) >= sizeof((ecirc *)0)->key_path) ||
        (spec->pce_path && strlen(spec->pce_path) >= sizeof((ecirc *)0)->pce_path)) {
        seterr(err, "register: key or PCE path too long");
        return CUZK_ERR_INVALID_ARGUMENT;
    }
    ecirc *c = calloc(1, sizeof *c);
    if (!c) goto oom;
    copystr(c->name, sizeof c->name, name);
    copystr(c->key_path, sizeof c->key_path, spec->key_path);
    copystr(c->pce_path, sizeof c->pce_path, spec->pce_path);
    c->partitions = 1;
    c->has_seed = spec->setup_seed != NULL;
    c->setup_seed = spec->setup_seed ? *spec->setup_seed : 0;
    c->preload = spec->preload;
    c->state = CUZK_CIRCUIT_LOADING;
    cuzk_status s;
    if (spec->builtin) {
        cuzk_circuit *ci;
        if ((s = cuzk_circuit_open(&ci, spec->builtin, spec->log_size, err)) != CUZK_OK) goto fail;
        const cuzk_circuit_info *inf = cuzk_circuit_describe(ci);
        copystr(c->builtin, sizeof c->builtin, inf->id);
        c->log_size = spec->log_size;
        c->partitions = inf->partitions;
        cuzk_circuit_close(ci);
    }
    if (spec->key_path && (s = key_file_check(spec->key_path, err)) != CUZK_OK) goto fail;
    if (spec->pce_path) {
        int fd = open(spec->pce_path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
        if (fd < 0) {
            seterr(err, "%s: %s", spec->pce_path, strerror(errno));
            s = CUZK_ERR_IO;
            goto fail;
        }
        close(fd);
    }
    c->ws_free = calloc(e->n_devices, sizeof *c->ws_free);
    c->ws_nfree = calloc(e->n_devices, sizeof *c->ws_nfree);
    c->ws_count = calloc(e->n_devices, sizeof *c->ws_count);
    if (!c->ws_free || !c->ws_nfree || !c->ws_count) goto oom;
    for (unsigned d = 0; d < e->n_devices; d++)
        if (!(c->ws_free[d] = calloc(e->ppd, sizeof(cuzk_workspace *)))) goto oom;
    *out = c;
    return CUZK_OK;
oom:
    seterr(err, "out of memory");
    s = CUZK_ERR_NO_MEMORY;
fail:
    circ_free(e, c);
    return s;
}

/* What a load makes, handed to the circuit under mu. */
typedef struct {
    cuzk_groth16_pk pk;
    cuzk_pce pce;
    int has_pce, mapped, file_key;
    char label[64];
} ckey;

/* Loads or makes c's key (setup runs here, on the pool) and checks it: the
 * slow part of a registration. No lock held; reads only what circ_make set
 * (not written while c is LOADING). */
static cuzk_status circ_load(const ecirc *c, ckey *k, char *err)
{
    memset(k, 0, sizeof *k);
    cuzk_status s = CUZK_OK;
    if (c->builtin[0]) {
        if (c->key_path[0]) {
            /* The key's counts now, not after a job's witness work. */
            cuzk_circuit *ci;
            char kerr[CUZK_ERRMSG_LEN];
            if ((s = cuzk_circuit_open(&ci, c->builtin, c->log_size, err)) != CUZK_OK) return s;
            if ((s = key_load_file(c, &k->pk, &k->mapped, &k->file_key, k->label, 0, err)) ==
                    CUZK_OK &&
                (s = cuzk_circuit_key_check(&k->pk, ci, kerr)) != CUZK_OK)
                seterr(err, "register: %s: %s", c->key_path, kerr);
            cuzk_circuit_close(ci);
            if (s != CUZK_OK) goto fail;
        } else {
            if ((s = cuzk_circuit_setup(&k->pk, c->builtin, c->log_size,
                                        c->has_seed ? &c->setup_seed : NULL, err)) != CUZK_OK)
                goto fail;
            copystr(k->label, sizeof k->label, CUZK_SETUP_LABEL);
        }
        if (c->pce_path[0]) {
            if ((s = cuzk_pce_load(&k->pce, c->pce_path, 0, 0, err)) != CUZK_OK) goto fail;
            k->has_pce = 1;
        }
    } else if ((s = key_load_file(c, &k->pk, &k->mapped, &k->file_key, k->label, 0, err)) !=
               CUZK_OK) {
        goto fail;
    }
    if (!k->has_pce && !k->pk.m.n_rows) {
        seterr(err, "register: %s has no matrices and no PCE was given", c->name);
        s = CUZK_ERR_INVALID_ARGUMENT;
        goto fail;
    }
    return CUZK_OK;
fail:
    cuzk_groth16_pk_free(&k->pk);
    if (k->has_pce) cuzk_pce_free(&k->pce);
    memset(k, 0, sizeof *k);
    return s;
}

/* Removes j from the parked list (jobs waiting for their circuit's load).
 * Under mu. */
static void parked_remove(cuzk_engine *e, ejob *j)
{
    if (!j->parked) return;
    for (ejob **pp = &e->parked; *pp; pp = &(*pp)->next_q)
        if (*pp == j) {
            *pp = j->next_q;
            break;
        }
    j->parked = 0;
    j->next_q = NULL;
}

static void job_admit(cuzk_engine *e, ejob *j);
static void fill_desc(const cuzk_engine *e, const ecirc *c, cuzk_circuit_desc *d);
static void job_stop(cuzk_engine *e, ejob *j, int how, cuzk_status st, const char *msg);

/* Ends c's load: READY with the key k, or FAILED with err (s). The jobs
 * parked on c go to the collector in submission order, or fail with the
 * load's reason. Under mu. */
static void circ_loaded(cuzk_engine *e, ecirc *c, cuzk_status s, ckey *k, const char *err)
{
    if (s == CUZK_OK && cuzk_vk_copy(&c->vk, &k->pk.vk) != CUZK_OK) {
        cuzk_groth16_pk_free(&k->pk);
        if (k->has_pce) cuzk_pce_free(&k->pce);
        s = CUZK_ERR_NO_MEMORY;
        err = "out of memory";
    }
    if (s == CUZK_OK) {
        c->pk = k->pk;
        c->pce = k->pce;
        c->has_pce = k->has_pce;
        c->file_key = k->file_key;
        copystr(c->label, sizeof c->label, k->label);
        c->insecure = !strcmp(c->label, CUZK_SETUP_LABEL);
        c->loaded = 1;
        c->n_vars = c->pk.n_vars;
        c->n_public = c->pk.n_public;
        c->log_domain = c->pk.log_domain;
        c->key_bytes = pk_bytes(&c->pk);
        /* A key in host memory is charged to the pinned pool (a mapped
         * file is page cache the kernel can reclaim). Registration does
         * not wait: an over-budget key is loaded anyway and evicts what it
         * can later. */
        if (!k->mapped) {
            c->pinned_charged = c->key_bytes;
            e->pinned_res += c->key_bytes;
            if (e->pinned_res > e->pinned_peak) e->pinned_peak = e->pinned_res;
        }
        c->lru = ++e->lru_tick;
        c->state = CUZK_CIRCUIT_READY;
        cuzk__engine_event(e, CUZK_EV_KEY, NULL, CUZK_EV_ALL_PARTITIONS, 0, 0, 0, 0,
                           k->mapped ? CUZK_TIER_MAPPED : CUZK_TIER_PINNED, CUZK_OK);
    } else {
        c->state = CUZK_CIRCUIT_FAILED;
        c->load_status = s;
        if (!err || !*err) err = cuzk_strerror(s);
        if (!strncmp(err, "engine: ", 8)) err += 8; /* the job's message adds its own */
        copystr(c->load_error, sizeof c->load_error, err);
    }
    c->load_running = 0;
    char msg[CUZK_ERRMSG_LEN];
    seterr(msg, "circuit %s failed to load: %s", c->name, c->load_error);
    /* The parked list is in submission order (appended at the tail). From
     * its head each time: job_stop may release mu (a store commit before
     * start or after stop), and the list may change meanwhile. */
    for (;;) {
        ejob *j = e->parked;
        while (j && j->c != c) j = j->next_q;
        if (!j) break;
        parked_remove(e, j);
        if (s == CUZK_OK) job_admit(e, j);
        else job_stop(e, j, 2, s, msg);
    }
    pthread_cond_broadcast(&e->cv_done); /* cuzk_engine_circuit_wait */
    pthread_cond_broadcast(&e->cv_work);
}

/* Same key source: the same built-in, size, key file and PCE. */
static int circ_same(const ecirc *a, const ecirc *b)
{
    return !strcmp(a->builtin, b->builtin) && a->log_size == b->log_size &&
           !strcmp(a->key_path, b->key_path) && !strcmp(a->pce_path, b->pce_path);
}

cuzk_status cuzk_engine_register_begin(cuzk_engine *e, const cuzk_circuit_spec *spec,
                                       char *name_out, int *existing, char *err)
{
    clrerr(err);
    if (existing) *existing = 0;
    ecirc *c;
    cuzk_status s = circ_make(e, spec, &c, err);
    if (s != CUZK_OK) return s;
    pthread_mutex_lock(&e->mu);
    ecirc *o = circ_find(e, c->name);
    if (o && o->state != CUZK_CIRCUIT_FAILED) {
        int same = existing && circ_same(o, c);
        pthread_mutex_unlock(&e->mu);
        if (same) {
            *existing = 1;
            if (name_out) copystr(name_out, CUZK_ENGINE_ID_LEN, c->name);
        } else {
            seterr(err, "register: circuit \"%s\" already registered%s", c->name,
                   existing ? " from another key" : "");
        }
        circ_free(e, c);
        return same ? CUZK_OK : CUZK_ERR_INVALID_ARGUMENT;
    }
    if (o) {
        /* A failed load is retried in place, with this spec: no job ever
         * ran with it (so no witness worker has it open by its index) and
         * its slot keeps the circuits' order. */
        copystr(o->builtin, sizeof o->builtin, c->builtin);
        o->log_size = c->log_size;
        copystr(o->key_path, sizeof o->key_path, c->key_path);
        copystr(o->pce_path, sizeof o->pce_path, c->pce_path);
        o->partitions = c->partitions;
        o->has_seed = c->has_seed;
        o->setup_seed = c->setup_seed;
        o->preload = c->preload;
        o->state = CUZK_CIRCUIT_LOADING;
        o->load_status = CUZK_OK;
        o->load_error[0] = 0;
        pthread_mutex_unlock(&e->mu);
        if (name_out) copystr(name_out, CUZK_ENGINE_ID_LEN, c->name);
        circ_free(e, c);
        return CUZK_OK;
    }
    if (e->n_circ == e->cap_circ) {
        size_t cap = e->cap_circ ? 2 * e->cap_circ : 8;
        ecirc **nc = realloc(e->circ, cap * sizeof *nc);
        if (!nc) {
            pthread_mutex_unlock(&e->mu);
            circ_free(e, c);
            seterr(err, "out of memory");
            return CUZK_ERR_NO_MEMORY;
        }
        e->circ = nc;
        e->cap_circ = cap;
    }
    e->circ[e->n_circ++] = c;
    pthread_mutex_unlock(&e->mu);
    if (name_out) copystr(name_out, CUZK_ENGINE_ID_LEN, c->name);
    return CUZK_OK;
}

cuzk_status cuzk_engine_register_load(cuzk_engine *e, const char *name, char *err)
{
    clrerr(err);
    pthread_mutex_lock(&e->mu);
    ecirc *c = circ_named(e, name, err);
    cuzk_status s = CUZK_OK;
    if (c && (c->state != CUZK_CIRCUIT_LOADING || c->load_running)) {
        seterr(err, "register: circuit \"%s\" is %s", name,
               c->load_running ? "being loaded already" : cuzk_circuit_state_name(c->state));
        s = CUZK_ERR_INVALID_ARGUMENT;
    }
    if (c && s == CUZK_OK) c->load_running = 1;
    pthread_mutex_unlock(&e->mu);
    if (!c) return CUZK_ERR_INVALID_ARGUMENT;
    if (s != CUZK_OK) return s;
    ckey k;
    s = circ_load(c, &k, err);
    pthread_mutex_lock(&e->mu);
    circ_loaded(e, c, s, &k, err);
    s = c->state == CUZK_CIRCUIT_READY ? CUZK_OK : c->load_status;
    if (s != CUZK_OK) seterr(err, "%s", c->load_error);
    int preload = c->preload;
    pthread_mutex_unlock(&e->mu);
    if (s == CUZK_OK && preload) return cuzk_engine_preload(e, name, err);
    return s;
}

cuzk_status cuzk_engine_register(cuzk_engine *e, const cuzk_circuit_spec *spec, char *name_out,
                                 char *err)
{
    char name[CUZK_ENGINE_ID_LEN];
    cuzk_status s = cuzk_engine_register_begin(e, spec, name, NULL, err);
    if (s != CUZK_OK) return s;
    if (name_out) copystr(name_out, CUZK_ENGINE_ID_LEN, name);
    return cuzk_engine_register_load(e, name, err);
}

cuzk_status cuzk_engine_circuit_wait(cuzk_engine *e, const char *name, int64_t timeout_ms,
                                     cuzk_circuit_desc *out, char *err)
{
    clrerr(err);
    int64_t end = cuzk__engine_now_us() + (timeout_ms > 0 ? timeout_ms : 0) * 1000;
    pthread_mutex_lock(&e->mu);
    ecirc *c = circ_named(e, name, err);
    while (c && c->state == CUZK_CIRCUIT_LOADING && cuzk__engine_now_us() < end) {
        struct timespec ts = {(time_t)(end / 1000000), (long)(end % 1000000) * 1000};
        pthread_cond_timedwait(&e->cv_done, &e->mu, &ts); /* cv_done: CLOCK_MONOTONIC */
    }
    if (c && out) fill_desc(e, c, out);
    pthread_mutex_unlock(&e->mu);
    return c ? CUZK_OK : CUZK_ERR_INVALID_ARGUMENT;
}

static cuzk_key_tier circ_tier(const cuzk_engine *e, const ecirc *c)
{
    for (unsigned d = 0; d < e->n_devices; d++)
        if (c->ws_count[d]) return CUZK_TIER_RESIDENT;
    if (!c->loaded) return CUZK_TIER_COLD;
    return c->pinned_charged ? CUZK_TIER_PINNED : CUZK_TIER_MAPPED;
}

static void fill_desc(const cuzk_engine *e, const ecirc *c, cuzk_circuit_desc *d)
{
    memset(d, 0, sizeof *d);
    copystr(d->name, sizeof d->name, c->name);
    d->state = c->state;
    if (c->state == CUZK_CIRCUIT_FAILED) copystr(d->error, sizeof d->error, c->load_error);
    copystr(d->builtin, sizeof d->builtin, c->builtin);
    d->log_size = c->log_size;
    copystr(d->key_path, sizeof d->key_path, c->key_path);
    d->partitions = c->partitions;
    if (c->state != CUZK_CIRCUIT_READY) return; /* the key fields are the load's */
    copystr(d->label, sizeof d->label, c->label);
    d->insecure = c->insecure;
    d->partitions = c->partitions;
    d->n_vars = c->n_vars;
    d->n_public = c->n_public;
    d->log_domain = c->log_domain;
    d->tier = circ_tier(e, c);
    d->refcount = c->refcount;
    d->key_bytes = c->key_bytes;
    for (unsigned i = 0; i < e->n_devices; i++) {
        d->ws_bytes += (uint64_t)c->ws_count[i] * c->ws_one;
        if (c->ws_count[i]) d->resident_devices |= 1u << i;
    }
    copystr(d->backend, sizeof d->backend, c->ws_backend);
    d->proofs = c->proofs;
}

cuzk_status cuzk_engine_circuits(cuzk_engine *e, cuzk_circuit_desc **out, size_t *n)
{
    pthread_mutex_lock(&e->mu);
    *n = e->n_circ;
    *out = calloc(e->n_circ ? e->n_circ : 1, sizeof **out);
    if (*out)
        for (size_t i = 0; i < e->n_circ; i++) fill_desc(e, e->circ[i], &(*out)[i]);
    pthread_mutex_unlock(&e->mu);
    return *out ? CUZK_OK : CUZK_ERR_NO_MEMORY;
}

cuzk_status cuzk_engine_circuit(cuzk_engine *e, const char *name, cuzk_circuit_desc *out,
                                char *err)
{
    clrerr(err);
    pthread_mutex_lock(&e->mu);
    ecirc *c = circ_named(e, name, err);
    if (c) fill_desc(e, c, out);
    pthread_mutex_unlock(&e->mu);
    return c ? CUZK_OK : CUZK_ERR_INVALID_ARGUMENT;
}

cuzk_status cuzk_engine_circuit_vk_json(cuzk_engine *e, const char *name, char **json,
                                        char *err)
{
    clrerr(err);
    pthread_mutex_lock(&e->mu);
    ecirc *c = circ_named(e, name, err);
    int ready = c && c->state == CUZK_CIRCUIT_READY;
    if (c && !ready)
        seterr(err, "circuit \"%s\" is %s: no verifying key yet", name,
               cuzk_circuit_state_name(c->state));
    pthread_mutex_unlock(&e->mu);
    if (!ready) return CUZK_ERR_INVALID_ARGUMENT;
    return cuzk_vk_to_json(json, &c->vk, err); /* the vk never changes once READY */
}

/* --------------------------------------------------------- key manager -- */

static void ws_destroy_idle(cuzk_engine *e, ecirc *c, unsigned d)
{
    while (c->ws_nfree[d]) {
        cuzk_workspace *ws = c->ws_free[d][--c->ws_nfree[d]];
        uint64_t b = cuzk_workspace_bytes(ws);
        cuzk_workspace_destroy(ws);
        c->ws_count[d]--;
        e->dev_res[d] -= b < e->dev_res[d] ? b : e->dev_res[d];
    }
}

/* Frees c's idle CPU fallback workspace. Under mu. */
static void ws_cpu_drop(cuzk_engine *e, ecirc *c)
{
    if (!c->ws_cpu || c->ws_cpu_busy) return;
    cuzk_workspace_destroy(c->ws_cpu);
    c->ws_cpu = NULL;
    e->host_res -= c->ws_cpu_bytes < e->host_res ? c->ws_cpu_bytes : e->host_res;
    c->ws_cpu_bytes = 0;
}

/* Frees a witness buffer that is charged to the host pool. Under mu. */
static void wbuf_free(cuzk_engine *e, ecirc *c, cuzk_witness_compact *wc)
{
    uint64_t b = cuzk_wc_bytes(wc);
    e->host_res -= b < e->host_res ? b : e->host_res;
    cuzk_wc_free(wc);
    free(wc);
    c->wbuf_total--;
}

static void wbuf_free_idle(cuzk_engine *e, ecirc *c)
{
    while (c->n_wbuf) wbuf_free(e, c, c->wbuf[--c->n_wbuf]);
}

/* Unloads a file key (to COLD). Needs no workspace and no partition. */
static void key_unload(cuzk_engine *e, ecirc *c)
{
    cuzk_groth16_pk_free(&c->pk);
    c->loaded = 0;
    e->pinned_res -= c->pinned_charged;
    c->pinned_charged = 0;
    wbuf_free_idle(e, c);
    e->n_evictions++;
    cuzk__engine_event(e, CUZK_EV_KEY, NULL, CUZK_EV_ALL_PARTITIONS, 0, 0, 0, 0, CUZK_TIER_COLD,
                       CUZK_OK);
}

/* Frees one least-recently-used thing that gives room in pool (0 host,
 * 1 pinned, 2 device d). Returns 0 when nothing can go. Under mu. */
static int evict_one(cuzk_engine *e, int pool, unsigned d, const ecirc *keep)
{
    ecirc *best = NULL;
    for (size_t i = 0; i < e->n_circ; i++) {
        ecirc *c = e->circ[i];
        if (c == keep || c->loading || c->state != CUZK_CIRCUIT_READY) continue;
        int ok;
        if (pool == 0) ok = c->n_wbuf > 0 || (c->ws_cpu && !c->ws_cpu_busy);
        else if (pool == 1) {
            int ws = 0;
            for (unsigned k = 0; k < e->n_devices; k++) ws |= c->ws_count[k] != c->ws_nfree[k];
            ok = c->file_key && c->loaded && c->pinned_charged && !c->refcount && !ws;
        } else
            ok = c->ws_nfree[d] > 0; /* idle workspaces: nothing proves with them */
        if (ok && (!best || c->lru < best->lru)) best = c;
    }
    if (!best) return 0;
    if (pool == 0) {
        wbuf_free_idle(e, best);
        ws_cpu_drop(e, best);
    } else if (pool == 1) {
        for (unsigned k = 0; k < e->n_devices; k++) ws_destroy_idle(e, best, k);
        ws_cpu_drop(e, best);
        key_unload(e, best);
    } else {
        ws_destroy_idle(e, best, d);
        e->n_evictions++;
        cuzk__engine_event(e, CUZK_EV_KEY, NULL, CUZK_EV_ALL_PARTITIONS, d, 0, 0, 0,
                           circ_tier(e, best), CUZK_OK);
    }
    return 1;
}

static uint64_t *pool_res(cuzk_engine *e, int pool, unsigned d)
{
    return pool == 0 ? &e->host_res : pool == 1 ? &e->pinned_res : &e->dev_res[d];
}

static uint64_t pool_budget(const cuzk_engine *e, int pool)
{
    return pool == 0 ? e->cfg.budget_host : pool == 1 ? e->cfg.budget_pinned
                                                      : e->cfg.budget_device;
}

/* Reserves need bytes of a pool, evicting LRU entries, else waiting for
 * in-flight work to give memory back. Under mu (released while waiting).
 * CUZK_ERR_NO_MEMORY when it can never fit; CUZK_ERR_CANCELED when *cancel
 * becomes nonzero or the engine stops without draining. */
static cuzk_status reserve(cuzk_engine *e, int pool, unsigned d, uint64_t need, const ecirc *keep,
                           atomic_int *cancel, char *err)
{
    uint64_t budget = pool_budget(e, pool), *res = pool_res(e, pool, d);
    static const char *names[] = {"host", "pinned", "device"};
    if (budget && need > budget) {
        seterr(err, "%" PRIu64 " bytes of %s memory needed, the budget is %" PRIu64, need,
               names[pool], budget);
        return CUZK_ERR_NO_MEMORY;
    }
    while (!fits(*res, need, budget)) {
        if (evict_one(e, pool, d, keep)) continue;
        if (cancel && atomic_load(cancel)) return CUZK_ERR_CANCELED;
        if (e->stopping && !e->drain) return CUZK_ERR_CANCELED;
        pthread_cond_wait(&e->cv_work, &e->mu);
    }
    *res += need;
    if (pool == 0 && *res > e->host_peak) e->host_peak = *res;
    if (pool == 1 && *res > e->pinned_peak) e->pinned_peak = *res;
    if (pool == 2 && *res > e->dev_peak) e->dev_peak = *res;
    return CUZK_OK;
}

/* Makes sure c's key is loaded (promoting COLD). Under mu; released while
 * loading. */
static cuzk_status key_acquire(cuzk_engine *e, ecirc *c, atomic_int *cancel, char *err)
{
    while (c->loading) pthread_cond_wait(&e->cv_work, &e->mu);
    c->lru = ++e->lru_tick;
    if (c->loaded) return CUZK_OK;
    c->loading = 1;
    cuzk_status s = CUZK_OK;
    /* Only a .zkey is charged (decoded into host memory); reserve first. */
    int zkey = strlen(c->key_path) > 5 && !strcmp(c->key_path + strlen(c->key_path) - 5, ".zkey");
    uint64_t charge = 0;
    if (zkey) {
        if ((s = reserve(e, 1, 0, c->key_bytes, c, cancel, err)) != CUZK_OK) goto out;
        charge = c->key_bytes;
    }
    pthread_mutex_unlock(&e->mu);
    cuzk_groth16_pk pk;
    memset(&pk, 0, sizeof pk);
    int mapped = 0, reloadable = 0;
    char label[64];
    s = key_load_file(c, &pk, &mapped, &reloadable, label, e->cfg.prove_threads, err);
    pthread_mutex_lock(&e->mu);
    if (s == CUZK_OK && (pk.n_vars != c->n_vars || pk.n_public != c->n_public)) {
        seterr(err, "%s changed on disk since it was registered", c->key_path);
        cuzk_groth16_pk_free(&pk);
        s = CUZK_ERR_INVALID_ARGUMENT;
    }
    if (s != CUZK_OK || mapped) {
        e->pinned_res -= charge;
        charge = 0;
    }
    if (s == CUZK_OK) {
        c->pk = pk;
        c->loaded = 1;
        c->pinned_charged = charge;
        cuzk__engine_event(e, CUZK_EV_KEY, NULL, CUZK_EV_ALL_PARTITIONS, 0, 0, 0, 0,
                           circ_tier(e, c), CUZK_OK);
    }
out:
    c->loading = 0;
    pthread_cond_broadcast(&e->cv_work);
    return s;
}

/* A workspace of c on device d: an idle one, or a new one (reserved from
 * the device pool first). Under mu; released while creating. */
static cuzk_status ws_take(cuzk_engine *e, ecirc *c, unsigned d, cuzk_workspace **out,
                           atomic_int *cancel, char *err)
{
    if (c->ws_nfree[d]) {
        *out = c->ws_free[d][--c->ws_nfree[d]];
        return CUZK_OK;
    }
    uint64_t guess = c->ws_one ? c->ws_one : ws_guess(c);
    /* An unmeasured key may be smaller than the guess: try with what the
     * device has, and reserve the rest once the real size is known. */
    if (!c->ws_one && e->cfg.budget_device && guess > e->cfg.budget_device)
        guess = e->cfg.budget_device;
    cuzk_status s = reserve(e, 2, d, guess, c, cancel, err);
    if (s != CUZK_OK) return s;
    c->ws_count[d]++;
    int64_t t0 = cuzk__engine_now_us();
    pthread_mutex_unlock(&e->mu);
    cuzk_config cfg;
    cuzk_config_default(&cfg);
    cfg.nthreads = e->cfg.prove_threads;
    cfg.self_check = 0; /* the finalizer verifies, off the prover's path */
    cfg.backend = e->backend_name;
    cfg.gpu_device = (int)d;
    cfg.gpu_ntt_fp64 = e->cfg.gpu_ntt_fp64;
    cfg.gpu_msm_fp64 = e->cfg.gpu_msm_fp64;
    cfg.gpu_ntt_full_twiddles = e->cfg.gpu_ntt_full_twiddles;
    cfg.gpu_pool_bytes = e->cfg.gpu_pool_bytes;
    cfg.ws_flags = CUZK_WS_COMPACT_WITNESS; /* the witnesses are compact (p->w) */
    s = cuzk_workspace_create(out, &c->pk, &cfg, err);
    pthread_mutex_lock(&e->mu);
    double secs = (double)(cuzk__engine_now_us() - t0) / 1e6;
    if (s != CUZK_OK) {
        elog(e, "circuit %s: no workspace on device %u (%.1f s): %s", c->name, d, secs,
             err && err[0] ? err : cuzk_strerror(s));
        c->ws_count[d]--;
        e->dev_res[d] -= guess;
        pthread_cond_broadcast(&e->cv_work);
        return s;
    }
    if (cuzk_workspace_note(*out)[0])
        elog(e, "circuit %s: on the CPU (device %u: %s)", c->name, d, cuzk_workspace_note(*out));
    elog(e, "circuit %s: a workspace on %s (device %u): %.2f GB in %.1f s", c->name,
         cuzk_workspace_backend(*out), d, (double)cuzk_workspace_bytes(*out) / 1e9, secs);
    copystr(c->ws_backend, sizeof c->ws_backend, cuzk_workspace_backend(*out));
    /* The device's backend: a key that "auto" put on the CPU does not hide
     * the ones on the device. */
    if (!e->dev_backend[d][0] || strcmp(c->ws_backend, "cpu"))
        copystr(e->dev_backend[d], sizeof e->dev_backend[d], c->ws_backend);
    /* The device holds the points now: a mapped key's host pages go (a
     * PoRep key: 47 GB of RSS), to come back from the file if a CPU
     * fallback or another workspace reads them. */
    if (strcmp(c->ws_backend, "cpu")) (void)cuzk_groth16_pk_release_pages(&c->pk);
    uint64_t real = cuzk_workspace_bytes(*out);
    if (real > guess && (s = reserve(e, 2, d, real - guess, c, cancel, err)) != CUZK_OK) {
        cuzk_workspace_destroy(*out); /* bigger than the device can hold */
        *out = NULL;
        c->ws_count[d]--;
        e->dev_res[d] -= guess;
        c->ws_one = real;
        pthread_cond_broadcast(&e->cv_work);
        return s;
    }
    if (real > guess) e->dev_res[d] -= real - guess; /* reserve added it */
    e->dev_res[d] = e->dev_res[d] - guess + real;
    if (e->dev_res[d] > e->dev_peak) e->dev_peak = e->dev_res[d];
    c->ws_one = real;
    pthread_cond_broadcast(&e->cv_work);
    return CUZK_OK;
}

static void ws_give(cuzk_engine *e, ecirc *c, unsigned d, cuzk_workspace *ws)
{
    c->ws_free[d][c->ws_nfree[d]++] = ws;
    pthread_cond_broadcast(&e->cv_work);
}

/* c's CPU fallback workspace (the caller set c->ws_cpu_busy): the kept
 * one, or a new one reserved from the host pool (it lives in host memory,
 * whichever device's worker runs it). Under mu; released while creating. */
static cuzk_status ws_take_cpu(cuzk_engine *e, ecirc *c, cuzk_workspace **out, atomic_int *cancel,
                               char *err)
{
    if (c->ws_cpu) {
        *out = c->ws_cpu;
        return CUZK_OK;
    }
    uint64_t guess = ws_guess(c);
    if (e->cfg.budget_host && guess > e->cfg.budget_host) guess = e->cfg.budget_host;
    cuzk_status s = reserve(e, 0, 0, guess, c, cancel, err);
    if (s != CUZK_OK) return s;
    pthread_mutex_unlock(&e->mu);
    cuzk_config cfg;
    cuzk_config_default(&cfg);
    cfg.nthreads = e->cfg.prove_threads;
    cfg.self_check = 0; /* the finalizer verifies */
    cfg.backend = "cpu";
    cfg.ws_flags = CUZK_WS_COMPACT_WITNESS;
    s = cuzk_workspace_create(out, &c->pk, &cfg, err);
    pthread_mutex_lock(&e->mu);
    e->host_res -= guess;
    if (s != CUZK_OK) {
        pthread_cond_broadcast(&e->cv_work);
        return s;
    }
    uint64_t real = cuzk_workspace_bytes(*out);
    if ((s = reserve(e, 0, 0, real, c, cancel, err)) != CUZK_OK) {
        cuzk_workspace_destroy(*out);
        *out = NULL;
        pthread_cond_broadcast(&e->cv_work);
        return s;
    }
    c->ws_cpu = *out;
    c->ws_cpu_bytes = real;
    elog(e, "circuit %s: a CPU fallback workspace: %.2f GB", c->name, (double)real / 1e9);
    return CUZK_OK;
}

cuzk_status cuzk_engine_preload(cuzk_engine *e, const char *name, char *err)
{
    clrerr(err);
    pthread_mutex_lock(&e->mu);
    ecirc *c = circ_named(e, name, err);
    cuzk_status s = CUZK_OK;
    if (!c) {
        s = CUZK_ERR_INVALID_ARGUMENT;
        goto out;
    }
    if (c->state != CUZK_CIRCUIT_READY) {
        seterr(err, "circuit \"%s\" is %s", name, cuzk_circuit_state_name(c->state));
        s = CUZK_ERR_INVALID_ARGUMENT;
        goto out;
    }
    c->refcount++; /* not evicted while we build on it */
    s = key_acquire(e, c, NULL, err);
    for (unsigned d = 0; s == CUZK_OK && d < e->n_devices; d++) {
        if (c->ws_count[d]) continue;
        cuzk_workspace *ws;
        if ((s = ws_take(e, c, d, &ws, NULL, err)) == CUZK_OK) ws_give(e, c, d, ws);
    }
    c->refcount--;
    cuzk__engine_event(e, CUZK_EV_KEY, NULL, CUZK_EV_ALL_PARTITIONS, 0, 0, 0, 0,
                       circ_tier(e, c), s);
out:
    pthread_mutex_unlock(&e->mu);
    return s;
}

cuzk_status cuzk_engine_evict(cuzk_engine *e, const char *name, char *err)
{
    clrerr(err);
    pthread_mutex_lock(&e->mu);
    ecirc *c = circ_named(e, name, err);
    cuzk_status s = CUZK_OK;
    if (!c) {
        s = CUZK_ERR_INVALID_ARGUMENT;
    } else if (c->state != CUZK_CIRCUIT_READY) {
        seterr(err, "circuit \"%s\" is %s", name, cuzk_circuit_state_name(c->state));
        s = CUZK_ERR_INVALID_ARGUMENT;
    } else if (c->refcount || c->loading) {
        seterr(err, "circuit \"%s\" is in use", name);
        s = CUZK_ERR_INVALID_ARGUMENT;
    } else {
        for (unsigned d = 0; d < e->n_devices; d++) ws_destroy_idle(e, c, d);
        ws_cpu_drop(e, c);
        wbuf_free_idle(e, c);
        if (c->file_key && c->loaded) key_unload(e, c);
        e->n_evictions++;
        cuzk__engine_event(e, CUZK_EV_KEY, NULL, CUZK_EV_ALL_PARTITIONS, 0, 0, 0, 0,
                           circ_tier(e, c), CUZK_OK);
        pthread_cond_broadcast(&e->cv_work);
    }
    pthread_mutex_unlock(&e->mu);
    return s;
}

/* --------------------------------------------------------------- jobs -- */

static ejob *job_find(cuzk_engine *e, uint64_t id)
{
    for (ejob *j = e->all; j; j = j->next_all)
        if (j->id == id) return j;
    return NULL;
}

static ejob *job_find_rid(cuzk_engine *e, const char *rid)
{
    for (ejob *j = e->all; j; j = j->next_all)
        if (!strcmp(j->request_id, rid)) return j;
    return NULL;
}

static void job_free(ejob *j)
{
    if (j->inputs)
        for (unsigned i = 0; i < j->n_parts; i++) free(j->inputs[i]);
    free(j->inputs);
    free(j->wtns);
    if (j->parts)
        for (unsigned i = 0; i < j->n_parts; i++) free(j->parts[i].pub);
    free(j->parts);
    free(j->result_json);
    cuzk_job_result_free(j->result);
    free(j);
}

static int job_before(const ejob *a, const ejob *b)
{
    return a->prio != b->prio ? a->prio > b->prio : a->seq < b->seq;
}

static void runq_insert(cuzk_engine *e, ejob *j)
{
    ejob **pp = &e->runq;
    while (*pp && !job_before(j, *pp)) pp = &(*pp)->next_q;
    j->next_q = *pp;
    *pp = j;
    j->in_runq = 1;
    cuzk__engine_event(e, CUZK_EV_QUEUED, j, CUZK_EV_ALL_PARTITIONS, 0, 0, 0, 0, j->n_parts,
                       CUZK_OK);
}

static void runq_remove(cuzk_engine *e, ejob *j)
{
    if (!j->in_runq) return;
    for (ejob **pp = &e->runq; *pp; pp = &(*pp)->next_q)
        if (*pp == j) {
            *pp = j->next_q;
            break;
        }
    j->in_runq = 0;
}

/* Moves a pending batch into the run queue. reason as in CUZK_EV_BATCH. */
static void batch_flush(cuzk_engine *e, ebatch *b, int reason)
{
    ebatch **pp = &e->batches;
    while (*pp && *pp != b) pp = &(*pp)->next;
    if (*pp) *pp = b->next;
    cuzk__engine_event(e, CUZK_EV_BATCH, b->head, CUZK_EV_ALL_PARTITIONS, 0, 0, reason, 0, b->n,
                       CUZK_OK);
    for (ejob *j = b->head, *nx; j; j = nx) {
        nx = j->next_q;
        j->collecting = 0;
        runq_insert(e, j);
    }
    free(b);
    pthread_cond_broadcast(&e->cv_work);
}

static void batch_remove_job(cuzk_engine *e, ejob *j)
{
    for (ebatch *b = e->batches; b; b = b->next)
        for (ejob **pp = &b->head; *pp; pp = &(*pp)->next_q)
            if (*pp == j) {
                *pp = j->next_q;
                b->n--;
                j->collecting = 0;
                if (!b->n) {
                    ebatch **bp = &e->batches;
                    while (*bp != b) bp = &(*bp)->next;
                    *bp = b->next;
                    free(b);
                }
                return;
            }
}

/* A new job enters the collector (or goes straight to the run queue). */
static void job_admit(cuzk_engine *e, ejob *j)
{
    /* A higher-priority arrival flushes the lower batches now. */
    for (ebatch *b = e->batches, *nx; b; b = nx) {
        nx = b->next;
        if (b->prio < j->prio) batch_flush(e, b, 2);
    }
    if (j->prio == CUZK_PRIO_CRITICAL || e->cfg.max_batch_size <= 1 ||
        !e->cfg.max_batch_wait_ms) {
        cuzk__engine_event(e, CUZK_EV_BATCH, j, CUZK_EV_ALL_PARTITIONS, 0, 0, 3, 0, 1, CUZK_OK);
        runq_insert(e, j);
        pthread_cond_broadcast(&e->cv_work);
        return;
    }
    ebatch *b = e->batches;
    while (b && (b->c != j->c || b->prio != j->prio)) b = b->next;
    if (!b) {
        b = calloc(1, sizeof *b);
        if (!b) { /* no memory for a batch: no batching for this job */
            runq_insert(e, j);
            pthread_cond_broadcast(&e->cv_work);
            return;
        }
        b->c = j->c;
        b->prio = j->prio;
        b->deadline_us = cuzk__engine_now_us() + (int64_t)e->cfg.max_batch_wait_ms * 1000;
        b->next = e->batches;
        e->batches = b;
    }
    ejob **pp = &b->head;
    while (*pp) pp = &(*pp)->next_q;
    *pp = j;
    j->next_q = NULL;
    j->collecting = 1;
    if (++b->n >= e->cfg.max_batch_size) batch_flush(e, b, 0);
    else pthread_cond_signal(&e->cv_collect);
}

/* Splits a built-in circuit's inputs JSON into per-partition texts, or a
 * seed. Returns 0 with err set when the shape is wrong. */
static int parse_inputs(ejob *j, json_t *v, char *err)
{
    unsigned n = j->n_parts;
    if (json_is_object(v) && json_object_size(v) == 1 && json_object_get(v, "seed")) {
        json_t *s = json_object_get(v, "seed");
        if (!json_is_integer(s) || json_integer_value(s) < 0) {
            seterr(err, "inputs: \"seed\" must be an integer >= 0");
            return 0;
        }
        j->has_seed = 1;
        j->seed = (uint64_t)json_integer_value(s);
        return 1;
    }
    if (json_is_object(v) && n != 1) {
        seterr(err, "inputs: %s has %u partitions: give an array of %u inputs objects or "
                    "{\"seed\": N}", j->c->name, n, n);
        return 0;
    }
    if (json_is_array(v) && json_array_size(v) != n) {
        seterr(err, "inputs: %zu inputs objects for %u partitions", json_array_size(v), n);
        return 0;
    }
    if (!json_is_object(v) && !json_is_array(v)) {
        seterr(err, "inputs: expected a JSON object or array");
        return 0;
    }
    j->inputs = calloc(n, sizeof *j->inputs);
    if (!j->inputs) {
        seterr(err, "out of memory");
        return 0;
    }
    for (unsigned i = 0; i < n; i++) {
        json_t *o = json_is_array(v) ? json_array_get(v, i) : v;
        if (!json_is_object(o)) {
            seterr(err, "inputs: element %u is not an object", i);
            return 0;
        }
        if (!(j->inputs[i] = json_dumps(o, JSON_COMPACT))) {
            seterr(err, "out of memory");
            return 0;
        }
    }
    return 1;
}

/* base64 for .wtns bytes in the stored request. */
static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static char *b64_encode(const uint8_t *p, size_t n)
{
    char *o = malloc(4 * ((n + 2) / 3) + 1), *q = o;
    if (!o) return NULL;
    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)p[i] << 16 | (i + 1 < n ? (uint32_t)p[i + 1] << 8 : 0) |
                     (i + 2 < n ? p[i + 2] : 0);
        *q++ = b64[v >> 18];
        *q++ = b64[(v >> 12) & 63];
        *q++ = i + 1 < n ? b64[(v >> 6) & 63] : '=';
        *q++ = i + 2 < n ? b64[v & 63] : '=';
    }
    *q = 0;
    return o;
}

static uint8_t *b64_decode(const char *s, size_t *n)
{
    size_t len = strlen(s);
    if (len % 4) return NULL;
    uint8_t *o = malloc(len / 4 * 3 + 1);
    if (!o) return NULL;
    size_t k = 0;
    for (size_t i = 0; i < len; i += 4) {
        uint32_t v = 0;
        int pad = 0;
        for (int t = 0; t < 4; t++) {
            const char *c = s[i + t] == '=' ? NULL : strchr(b64, s[i + t]);
            if (s[i + t] == '=' && i + 4 == len && t >= 2) pad++;
            else if (!c || !s[i + t] || pad) {
                free(o);
                return NULL;
            }
            v = v << 6 | (c ? (uint32_t)(c - b64) : 0);
        }
        o[k++] = (uint8_t)(v >> 16);
        if (pad < 2) o[k++] = (uint8_t)(v >> 8);
        if (pad < 1) o[k++] = (uint8_t)v;
    }
    *n = k;
    return o;
}

/* Builds a job (not yet visible) from a request; the JSON request text
 * for the store in *req_json when asked. */
static cuzk_status job_build(cuzk_engine *e, const cuzk_job_request *rq, ejob **out,
                             char **req_json, char *err)
{
    *out = NULL;
    if (!rq || !rq->circuit) {
        seterr(err, "submit: no circuit");
        return CUZK_ERR_INVALID_ARGUMENT;
    }
    if ((unsigned)rq->priority > CUZK_PRIO_CRITICAL) {
        seterr(err, "submit: bad priority %d", (int)rq->priority);
        return CUZK_ERR_INVALID_ARGUMENT;
    }
    if (rq->request_id && strlen(rq->request_id) >= CUZK_ENGINE_ID_LEN) {
        seterr(err, "submit: request_id longer than %d bytes", CUZK_ENGINE_ID_LEN - 1);
        return CUZK_ERR_INVALID_ARGUMENT;
    }
    pthread_mutex_lock(&e->mu);
    ecirc *c = circ_find(e, rq->circuit);
    cuzk_circuit_state cst = c ? c->state : CUZK_CIRCUIT_READY;
    uint32_t n_vars = c && cst == CUZK_CIRCUIT_READY ? c->n_vars : 0;
    if (cst == CUZK_CIRCUIT_FAILED)
        seterr(err, "submit: circuit %s failed to load: %s", c->name, c->load_error);
    pthread_mutex_unlock(&e->mu);
    if (!c) {
        seterr(err, "submit: unknown circuit \"%s\"", rq->circuit);
        return CUZK_ERR_INVALID_ARGUMENT;
    }
    if (cst == CUZK_CIRCUIT_FAILED) return CUZK_ERR_INVALID_ARGUMENT;
    int n_src = !!rq->inputs + !!rq->wtns + !!rq->wtns_path;
    if (n_src != 1) {
        seterr(err, "submit: give exactly one of inputs, wtns, wtns_path");
        return CUZK_ERR_INVALID_ARGUMENT;
    }
    if (c->builtin[0] && !rq->inputs) {
        seterr(err, "submit: %s is a built-in circuit: give inputs, not a .wtns", c->name);
        return CUZK_ERR_INVALID_ARGUMENT;
    }
    if (!c->builtin[0] && rq->inputs) {
        seterr(err, "submit: %s is a user key: give a .wtns, not inputs", c->name);
        return CUZK_ERR_INVALID_ARGUMENT;
    }
    ejob *j = calloc(1, sizeof *j);
    if (!j) goto oom;
    j->c = c;
    j->prio = rq->priority;
    copystr(j->request_id, sizeof j->request_id, rq->request_id);
    j->n_parts = c->partitions;
    j->parts = calloc(j->n_parts, sizeof *j->parts);
    if (!j->parts) goto oom;
    json_t *req = json_object();
    if (!req) goto oom;
    json_object_set_new(req, "circuit", json_string(c->name));
    json_object_set_new(req, "priority", json_string(cuzk_priority_name(j->prio)));
    cuzk_status s = CUZK_OK;
    if (rq->inputs) {
        size_t len = rq->inputs_len ? rq->inputs_len : strlen(rq->inputs);
        json_error_t je;
        json_t *v = json_loadb(rq->inputs, len, JSON_REJECT_DUPLICATES, &je);
        if (!v) {
            seterr(err, "inputs: bad JSON at line %d: %s", je.line, je.text);
            s = CUZK_ERR_INVALID_ARGUMENT;
        } else {
            if (!parse_inputs(j, v, err)) s = CUZK_ERR_INVALID_ARGUMENT;
            json_object_set_new(req, "inputs", v);
        }
    } else {
        cuzk_blob b = {0};
        if (rq->wtns_path) {
            s = cuzk_blob_read(&b, rq->wtns_path, err);
        } else {
            b.data = rq->wtns;
            b.size = rq->wtns_len;
        }
        if (s == CUZK_OK) {
            cuzk_wtns w;
            memset(&w, 0, sizeof w);
            s = cuzk_wtns_parse(&w, b.data, b.size, err);
            /* A LOADING key's count is not known yet: the witness
             * checks it (witness_compute). */
            if (s == CUZK_OK && n_vars && w.n != n_vars) {
                seterr(err, "wtns: %u values, the key of %s has %u variables", w.n, c->name,
                       n_vars);
                s = CUZK_ERR_INVALID_ARGUMENT;
            }
            cuzk_wtns_free(&w);
        }
        if (s == CUZK_OK) {
            j->wtns = malloc(b.size ? b.size : 1);
            char *enc = b64_encode(b.data, b.size);
            if (!j->wtns || !enc) {
                free(enc);
                s = CUZK_ERR_NO_MEMORY;
                seterr(err, "out of memory");
            } else {
                memcpy(j->wtns, b.data, b.size);
                j->wtns_len = b.size;
                json_object_set_new(req, "wtns", json_string(enc));
                free(enc);
            }
        }
        if (rq->wtns_path) cuzk_blob_release(&b);
    }
    if (s == CUZK_OK && req_json && !(*req_json = json_dumps(req, JSON_COMPACT))) {
        seterr(err, "out of memory");
        s = CUZK_ERR_NO_MEMORY;
    }
    json_decref(req);
    if (s != CUZK_OK) {
        job_free(j);
        return s;
    }
    atomic_init(&j->cancel, 0);
    *out = j;
    return CUZK_OK;
oom:
    if (j) job_free(j);
    seterr(err, "out of memory");
    return CUZK_ERR_NO_MEMORY;
}

static void job_publish(cuzk_engine *e, ejob *j)
{
    j->seq = e->next_seq++;
    j->state = CUZK_JOB_QUEUED;
    j->t_submit_us = cuzk__engine_now_us();
    j->next_all = e->all;
    e->all = j;
    e->n_all++;
    e->n_submitted++;
    if (j->c->state == CUZK_CIRCUIT_LOADING) { /* waits for the key: circ_loaded */
        ejob **pp = &e->parked;
        while (*pp) pp = &(*pp)->next_q;
        *pp = j;
        j->next_q = NULL;
        j->parked = 1;
    } else if (j->c->state == CUZK_CIRCUIT_FAILED) { /* failed since job_build looked */
        char msg[CUZK_ERRMSG_LEN];
        seterr(msg, "circuit %s failed to load: %s", j->c->name, j->c->load_error);
        job_stop(e, j, 2, j->c->load_status, msg);
    } else {
        job_admit(e, j);
    }
}

cuzk_status cuzk_engine_submit(cuzk_engine *e, const cuzk_job_request *rq, uint64_t *id,
                               int *existing, char *err)
{
    clrerr(err);
    if (existing) *existing = 0;
    *id = 0;
    pthread_mutex_lock(&e->mu);
    int stopping = e->stopping;
    ejob *dup = NULL;
    if (!stopping && rq && rq->request_id && *rq->request_id)
        dup = job_find_rid(e, rq->request_id);
    if (dup) *id = dup->id;
    pthread_mutex_unlock(&e->mu);
    if (stopping) {
        seterr(err, "shutting down");
        return CUZK_ERR_CANCELED;
    }
    if (dup) {
        if (existing) *existing = 1;
        return CUZK_OK;
    }
    ejob *j;
    char *req = NULL;
    cuzk_status s = job_build(e, rq, &j, e->cfg.store ? &req : NULL, err);
    if (s != CUZK_OK) return s;
    if (e->cfg.store) {
        cuzk_store_rec rec;
        memset(&rec, 0, sizeof rec);
        copystr(rec.request_id, sizeof rec.request_id, j->request_id);
        copystr(rec.circuit, sizeof rec.circuit, j->c->name);
        rec.priority = (int)j->prio;
        rec.request = req;
        rec.request_len = strlen(req);
        int ex = 0;
        /* With the store thread running, the row is committed in its next
         * group (with other submits' rows, leases and ends: one fsync for
         * all) and submit returns once that is done; else here. */
        pthread_mutex_lock(&e->smu);
        if (e->store_alive && e->cfg.store->batch) {
            eenq q;
            memset(&q, 0, sizeof q);
            q.rec = &rec;
            if (e->enq_tail) e->enq_tail->next = &q;
            else e->enq_head = &q;
            e->enq_tail = &q;
            pthread_cond_signal(&e->cv_store);
            while (!q.done) pthread_cond_wait(&e->cv_enq, &e->smu);
            pthread_mutex_unlock(&e->smu);
            s = q.st;
            j->id = q.id;
            ex = q.existing;
            if (s != CUZK_OK) seterr(err, "%s", q.err);
        } else {
            pthread_mutex_unlock(&e->smu);
            s = e->cfg.store->enqueue(e->cfg.store, &rec, wall_ms(), &j->id, &ex, err);
        }
        free(req);
        if (s != CUZK_OK) {
            job_free(j);
            return s;
        }
        if (ex) { /* the store knew this request_id: that job stands */
            *id = j->id;
            if (existing) *existing = 1;
            job_free(j);
            return CUZK_OK;
        }
    }
    pthread_mutex_lock(&e->mu);
    if (!e->cfg.store) {
        /* A racing submit with the same request_id may have won. */
        ejob *d = j->request_id[0] ? job_find_rid(e, j->request_id) : NULL;
        if (d) {
            *id = d->id;
            if (existing) *existing = 1;
            pthread_mutex_unlock(&e->mu);
            job_free(j);
            return CUZK_OK;
        }
        j->id = e->next_id++;
    }
    *id = j->id;
    job_publish(e, j);
    pthread_mutex_unlock(&e->mu);
    return CUZK_OK;
}

/* Drops the oldest finished jobs past results_keep. Under mu. */
static void jobs_trim(cuzk_engine *e)
{
    while (e->n_finished > e->cfg.results_keep) {
        ejob **oldest = NULL;
        for (ejob **pp = &e->all; *pp; pp = &(*pp)->next_all)
            if ((*pp)->state >= CUZK_JOB_DONE) oldest = pp;
        if (!oldest || (*oldest)->waiters) return;
        ejob *j = *oldest;
        *oldest = j->next_all;
        e->n_all--;
        e->n_finished--;
        job_free(j);
    }
}

/* The store's op that ends j in state st. */
static cuzk_store_op fin_op(const ejob *j, cuzk_job_state st, int64_t now_ms)
{
    cuzk_store_op o;
    memset(&o, 0, sizeof o);
    o.id = j->id;
    o.ms = now_ms;
    if (st == CUZK_JOB_DONE) {
        o.kind = CUZK_STORE_OP_COMPLETE;
        o.data = j->result_json;
        o.len = j->result_len;
    } else {
        o.kind = st == CUZK_JOB_CANCELED ? CUZK_STORE_OP_CANCEL : CUZK_STORE_OP_FAIL;
        o.data = j->error;
    }
    return o;
}

/* One op through the store's single calls (a store without batch, or the
 * engine not started or stopped). No lock held. */
static cuzk_status store_one(cuzk_store *st, cuzk_store_op *o)
{
    switch (o->kind) {
    case CUZK_STORE_OP_ENQUEUE:
        o->st = st->enqueue(st, o->rec, o->ms, &o->id, &o->existing, o->err);
        break;
    case CUZK_STORE_OP_LEASE: o->st = st->lease(st, o->id, o->ms, o->err); break;
    case CUZK_STORE_OP_COMPLETE:
        o->st = st->complete(st, o->id, o->data, o->len, o->ms, o->err);
        break;
    default:
        o->st = st->fail(st, o->id,
                         o->kind == CUZK_STORE_OP_CANCEL ? CUZK_STORE_CANCELED : CUZK_STORE_FAILED,
                         o->data, o->ms, o->err);
    }
    return o->st;
}

/* The second half of job_finish, once the store holds the end (so that a
 * waiter never sees a state the store does not hold): the state, the
 * counters, the waiters. Under mu. */
static void job_finished(cuzk_engine *e, ejob *j)
{
    cuzk_job_state st = j->fin_state;
    j->state = st;
    if (st == CUZK_JOB_DONE) e->n_done++;
    else if (st == CUZK_JOB_FAILED) e->n_failed++;
    else e->n_canceled++;
    double total_ms = (double)(j->t_end_us - j->t_submit_us) / 1e3;
    elog(e, "job %" PRIu64 " (%s): %s, %u of %u partitions in %.2f s%s%s", j->id, j->c->name,
         cuzk_job_state_name(st), j->parts_done, j->n_parts, total_ms / 1e3,
         st != CUZK_JOB_DONE && j->error[0] ? ": " : "", st != CUZK_JOB_DONE ? j->error : "");
    cuzk__engine_event(e,
                       st == CUZK_JOB_DONE     ? CUZK_EV_DONE
                       : st == CUZK_JOB_FAILED ? CUZK_EV_FAILED
                                               : CUZK_EV_CANCELED,
                       j, CUZK_EV_ALL_PARTITIONS, 0, 0, 0, total_ms, j->parts_done, j->status);
    if (st == CUZK_JOB_DONE) cuzk__engine_hist(e, EH_JOB, total_ms);
    e->n_finished++;
    pthread_cond_broadcast(&e->cv_done);
    pthread_cond_broadcast(&e->cv_work);
    jobs_trim(e);
}

/* Ends job j (state DONE, FAILED or CANCELED). With a store the end is
 * committed first: handed to the store thread, which commits ends in
 * groups and then calls job_finished (the finalizer does not wait for the
 * disk); before start or after stop, committed here with mu released.
 * Under mu; j->inflight is 0. */
static void job_finish(cuzk_engine *e, ejob *j, cuzk_job_state st)
{
    if (j->finishing) return;
    j->finishing = 1;
    parked_remove(e, j);
    runq_remove(e, j);
    if (j->collecting) batch_remove_job(e, j);
    j->t_end_us = cuzk__engine_now_us();
    if (st == CUZK_JOB_DONE) {
        j->result = cuzk__engine_make_result(j);
        if (!j->result ||
            cuzk_engine_result_json(j->result, &j->result_json, &j->result_len, NULL) != CUZK_OK) {
            st = CUZK_JOB_FAILED;
            j->status = CUZK_ERR_NO_MEMORY;
            seterr(j->error, "out of memory for the result");
        }
    }
    j->fin_state = st;
    if (e->cfg.store && e->store_alive) { /* store_alive: read under mu */
        pthread_mutex_lock(&e->smu);
        j->next_fin = NULL;
        if (e->fin_tail) e->fin_tail->next_fin = j;
        else e->fin_head = j;
        e->fin_tail = j;
        pthread_cond_signal(&e->cv_store);
        pthread_mutex_unlock(&e->smu);
        return;
    }
    if (e->cfg.store) {
        pthread_mutex_unlock(&e->mu);
        cuzk_store_op o = fin_op(j, st, wall_ms());
        if (store_one(e->cfg.store, &o) != CUZK_OK)
            fprintf(stderr, "cuzk: job %" PRIu64 ": %s\n", j->id, o.err);
        pthread_mutex_lock(&e->mu);
    }
    job_finished(e, j);
}

/* Marks j to stop (1 cancel, 2 failed with st/msg); ends it now when no
 * partition is in flight. Under mu. */
static void job_stop(cuzk_engine *e, ejob *j, int how, cuzk_status st, const char *msg)
{
    if (j->state >= CUZK_JOB_DONE || j->finishing || atomic_load(&j->cancel)) return;
    atomic_store(&j->cancel, how);
    j->status = st;
    copystr(j->error, sizeof j->error, msg);
    parked_remove(e, j);
    runq_remove(e, j);
    if (j->collecting) batch_remove_job(e, j);
    if (!j->inflight) job_finish(e, j, how == 1 ? CUZK_JOB_CANCELED : CUZK_JOB_FAILED);
    pthread_cond_broadcast(&e->cv_work);
}

/* -------------------------------------------------------- the workers -- */

/* Ready queue order: the run queue's, then partition. */
static void ready_insert(cuzk_engine *e, epart *p)
{
    epart **pp = &e->ready;
    while (*pp && !(job_before(p->j, (*pp)->j) || ((*pp)->j == p->j && p->idx < (*pp)->idx)))
        pp = &(*pp)->next;
    p->next = *pp;
    *pp = p;
    e->n_ready++;
}

static void final_push(cuzk_engine *e, epart *p)
{
    p->next = NULL;
    if (e->final_tail) e->final_tail->next = p;
    else e->final_head = p;
    e->final_tail = p;
    pthread_cond_broadcast(&e->cv_work);
}

/* Gives p's witness buffer back to its circuit's pool. Under mu. */
static void part_release(cuzk_engine *e, epart *p)
{
    ecirc *c = p->j->c;
    if (p->w) {
        if (c->n_wbuf == c->cap_wbuf) {
            unsigned cap = c->cap_wbuf ? 2 * c->cap_wbuf : 4;
            cuzk_witness_compact **nb = realloc(c->wbuf, cap * sizeof *nb);
            if (nb) {
                c->wbuf = nb;
                c->cap_wbuf = cap;
            }
        }
        if (c->n_wbuf < c->cap_wbuf) c->wbuf[c->n_wbuf++] = p->w;
        else wbuf_free(e, c, p->w);
        p->w = NULL;
    }
    c->refcount--;
    p->j->inflight--;
    e->n_inflight--;
    pthread_cond_broadcast(&e->cv_work);
}

/* A witness buffer from c's pool, or a new one charged to the host pool.
 * Under mu; may wait for the budget. */
static cuzk_status wbuf_take(cuzk_engine *e, ecirc *c, cuzk_witness_compact **out,
                             atomic_int *cancel, char *err)
{
    if (c->n_wbuf) {
        *out = c->wbuf[--c->n_wbuf];
        return CUZK_OK;
    }
    uint64_t b = cuzk_wc_bytes_for(c->n_vars, 0);
    cuzk_status s = reserve(e, 0, 0, b, NULL, cancel, err);
    if (s != CUZK_OK) return s;
    cuzk_witness_compact *wc = calloc(1, sizeof *wc);
    if (!wc || cuzk_wc_init(wc, c->n_vars) != CUZK_OK) {
        free(wc);
        e->host_res -= b;
        seterr(err, "out of memory for a witness");
        return CUZK_ERR_NO_MEMORY;
    }
    c->wbuf_total++;
    *out = wc;
    return CUZK_OK;
}

/* Computes p's witness into p->w (compact: a built-in circuit's straight
 * from its constraint system, a .wtns's from the parsed vector, which
 * lives only for this call). No lock held. */
static cuzk_status witness_compute(eworker *wk, epart *p, size_t ci_idx, unsigned nthreads,
                                   char *err)
{
    ejob *j = p->j;
    ecirc *c = j->c;
    if (!c->builtin[0]) {
        cuzk_wtns w;
        memset(&w, 0, sizeof w);
        cuzk_status s = cuzk_wtns_parse(&w, j->wtns, j->wtns_len, err);
        if (s == CUZK_OK && w.n != c->n_vars) { /* submitted while the key loaded */
            seterr(err, "wtns: %u values, the key of %s has %u variables", w.n, c->name,
                   c->n_vars);
            s = CUZK_ERR_INVALID_ARGUMENT;
        }
        if (s == CUZK_OK && (s = cuzk_wc_from_dense(p->w, w.w, w.n, nthreads)) != CUZK_OK)
            seterr(err, "witness: %s", cuzk_strerror(s));
        cuzk_wtns_free(&w);
        return s;
    }
    if (ci_idx >= wk->n_ci) {
        size_t n = ci_idx + 8;
        cuzk_circuit **nc = realloc(wk->ci, n * sizeof *nc);
        if (!nc) return CUZK_ERR_NO_MEMORY;
        wk->ci = nc;
        cuzk_cs *ns = realloc(wk->cs, n * sizeof *ns);
        if (!ns) return CUZK_ERR_NO_MEMORY;
        wk->cs = ns;
        for (size_t i = wk->n_ci; i < n; i++) {
            wk->ci[i] = NULL;
            memset(&wk->cs[i], 0, sizeof wk->cs[i]);
        }
        wk->n_ci = n;
    }
    cuzk_status s;
    if (!wk->ci[ci_idx] &&
        (s = cuzk_circuit_open(&wk->ci[ci_idx], c->builtin, c->log_size, err)) != CUZK_OK)
        return s;
    cuzk_circuit_job cj;
    memset(&cj, 0, sizeof cj);
    cj.id = c->builtin;
    cj.log_size = c->log_size;
    cj.partition = p->idx;
    if (j->has_seed) {
        cj.seed = j->seed;
    } else {
        cj.inputs = j->inputs[p->idx];
        cj.inputs_len = strlen(cj.inputs);
    }
    s = cuzk_circuit_job_witness(wk->ci[ci_idx], &cj, &wk->cs[ci_idx], nthreads, err);
    if (s == CUZK_OK) {
        cuzk_cs_shape sh;
        cuzk_cs_get_shape(&wk->cs[ci_idx], &sh);
        if ((uint64_t)sh.n_inputs + sh.n_aux != c->n_vars) {
            seterr(err, "witness: %s has %llu variables, its key %u: the key is for another "
                        "circuit or size", c->name, (unsigned long long)sh.n_inputs + sh.n_aux,
                   c->n_vars);
            return CUZK_ERR_INVALID_ARGUMENT;
        }
        s = cuzk_wc_from_cs(p->w, &wk->cs[ci_idx], nthreads);
    }
    if (s != CUZK_OK && err && !err[0]) seterr(err, "witness: %s", cuzk_strerror(s));
    return s;
}

/* The next partition to witness: the first job of the run queue with a
 * partition left (critical_only: the first CRITICAL one; the queue is in
 * priority order, so the scan stops at the first job below). Under mu. */
static epart *next_partition(cuzk_engine *e, int critical_only)
{
    for (ejob *j = e->runq; j; j = j->next_q) {
        if (critical_only && j->prio != CUZK_PRIO_CRITICAL) break;
        if (j->next_part >= j->n_parts || atomic_load(&j->cancel)) continue;
        epart *p = &j->parts[j->next_part++];
        p->j = j;
        p->idx = (unsigned)(p - j->parts);
        if (j->next_part == j->n_parts) runq_remove(e, j);
        return p;
    }
    return NULL;
}

/* wk holds p from now (status: its lane). Under mu. */
static void lane_take(eworker *wk, const epart *p, unsigned attempt)
{
    wk->lane_p = p;
    wk->lane_attempt = attempt;
    wk->lane_t0_us = cuzk__engine_now_us();
    atomic_store(&wk->lane_stage, CUZK_LANE_SETUP);
}

static void *witness_main(void *arg)
{
    eworker *wk = arg;
    cuzk_engine *e = wk->e;
    char err[CUZK_ERRMSG_LEN];
    /* Linux: a thread's nice is its own (setpriority on its tid). Raising
     * it needs no privilege; a failure leaves the thread as it was. */
    if (e->cfg.witness_nice && !wk->critical &&
        setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), e->cfg.witness_nice) != 0)
        fprintf(stderr, "cuzk: witness worker: setpriority(%d): %s\n", e->cfg.witness_nice,
                strerror(errno));
    pthread_mutex_lock(&e->mu);
    for (;;) {
        epart *p = NULL;
        /* Back-pressure: a partition is taken only when a ready slot is
         * free for it; the critical worker's few go past the bound. */
        while (!(e->stopping && (!e->drain || (!e->runq && !e->batches)))) {
            if ((wk->critical || e->n_ready + e->n_witnessing < e->ready_cap) &&
                (p = next_partition(e, wk->critical)))
                break;
            pthread_cond_wait(&e->cv_work, &e->mu);
        }
        if (!p) break;
        ejob *j = p->j;
        ecirc *c = j->c;
        lane_take(wk, p, 0);
        e->n_witnessing++;
        e->n_inflight++;
        j->inflight++;
        c->refcount++;
        int first = j->state == CUZK_JOB_QUEUED;
        if (first) {
            j->state = CUZK_JOB_RUNNING;
            j->t_start_us = cuzk__engine_now_us();
        }
        /* The lease is the store thread's (committed with others in one
         * transaction): the witness does not wait for the disk. A crash
         * before it commits leaves the job QUEUED, which a restart
         * re-queues just as it requeues a lease. */
        if (first && e->cfg.store && !j->leased) {
            j->leased = 1;
            pthread_mutex_lock(&e->smu);
            j->next_lease = NULL;
            if (e->lease_tail) e->lease_tail->next_lease = j;
            else e->lease_head = j;
            e->lease_tail = j;
            pthread_cond_signal(&e->cv_store);
            pthread_mutex_unlock(&e->smu);
        }
        err[0] = 0;
        cuzk_status s = key_acquire(e, c, &j->cancel, err);
        if (s == CUZK_OK && !p->w) s = wbuf_take(e, c, &p->w, &j->cancel, err);
        /* Room for the values the fill may add, reserved before it runs
         * for the worst case (every value other: what a dense witness
         * takes), so the budget holds whatever the witness; settled to
         * what it added once it ran (a PoRep partition: ~1% of it). */
        uint64_t before = p->w ? cuzk_wc_bytes(p->w) : 0, grow = 0;
        if (s == CUZK_OK) {
            uint64_t need = cuzk_wc_bytes_for(c->n_vars, c->n_vars);
            grow = need > before ? need - before : 0;
            if (grow && (s = reserve(e, 0, 0, grow, NULL, &j->cancel, err)) != CUZK_OK) grow = 0;
        }
        if (s == CUZK_OK && atomic_load(&j->cancel)) s = CUZK_ERR_CANCELED;
        if (s == CUZK_OK) {
            size_t ci_idx = circ_index(e, c);
            /* Yield to a busy prover (witness_threads); the event's value
             * is the ranges used, so the timeline shows the throttle. */
            unsigned busy = 0;
            for (unsigned d = 0; d < e->n_devices; d++) busy += e->dev_busy[d];
            unsigned nth = busy && e->cfg.witness_threads ? e->cfg.witness_threads
                                                          : e->cfg.prove_threads;
            cuzk__engine_event(e, CUZK_EV_WITNESS_START, j, p->idx, 0, 0, 0, 0, nth, CUZK_OK);
            atomic_store(&wk->lane_stage, CUZK_STAGE_WITNESS);
            pthread_mutex_unlock(&e->mu);
            int64_t t = cuzk__engine_now_us();
            s = witness_compute(wk, p, ci_idx, nth, err);
            p->witness_ms = (double)(cuzk__engine_now_us() - t) / 1e3;
            uint64_t rss = cuzk__engine_rss();
            pthread_mutex_lock(&e->mu);
            cuzk__engine_event(e, CUZK_EV_WITNESS_END, j, p->idx, 0, 0, 0, p->witness_ms, 0, s);
            cuzk__engine_mem_event(e, j, p->idx, rss);
            cuzk__engine_hist(e, EH_WITNESS, p->witness_ms);
        }
        if (p->w) { /* what the fill added, for what was reserved */
            e->host_res = e->host_res - grow + (cuzk_wc_bytes(p->w) - before);
            if (e->host_res > e->host_peak) e->host_peak = e->host_res;
        }
        e->n_witnessing--;
        wk->lane_p = NULL;
        p->st = s;
        if (s == CUZK_OK) {
            ready_insert(e, p);
        } else {
            copystr(p->err, sizeof p->err, err);
            final_push(e, p); /* the finalizer fails or cancels the job */
        }
        pthread_cond_broadcast(&e->cv_work);
    }
    e->n_witness_alive--;
    pthread_cond_broadcast(&e->cv_work);
    pthread_mutex_unlock(&e->mu);
    return NULL;
}

typedef struct {
    cuzk_engine *e;
    epart *p;
    eworker *wk;
} prog_ctx;

static int on_stage(void *ctx, cuzk_prove_stage next)
{
    prog_ctx *pc = ctx;
    atomic_store(&pc->wk->lane_stage, (int)next); /* for status */
    return atomic_load(&pc->p->j->cancel) != 0;
}

/* The ready partition device d takes: the first it may take (a retry
 * avoids the device that failed it when there is another; a CPU fallback
 * is the CPU lane's once that runs, and waits for its key's CPU
 * workspace), unless a later one of the same priority has a key with a
 * workspace on d already: that one, so keys are not made resident on
 * every device in turn. Under mu. */
static epart *ready_take(cuzk_engine *e, unsigned d)
{
    epart **pick = NULL;
    for (epart **pp = &e->ready; *pp; pp = &(*pp)->next) {
        epart *p = *pp;
        if (p->on_cpu && e->cpu_lane_on) continue;
        if (pick && p->j->prio != (*pick)->j->prio) break;
        if (p->attempt && p->last_device == d && e->n_devices > 1 &&
            p->attempt < e->cfg.max_attempts && !p->on_cpu)
            continue;
        if (p->on_cpu && p->j->c->ws_cpu_busy) continue;
        int here = e->n_devices == 1 || p->on_cpu || p->j->c->ws_count[d] > 0;
        if (!pick || here) pick = pp;
        if (here) break;
    }
    if (!pick) return NULL;
    epart *p = *pick;
    *pick = p->next;
    e->n_ready--;
    if (p->on_cpu) p->j->c->ws_cpu_busy = 1;
    return p;
}

/* The CPU lane's partition: the first CPU fallback whose key's CPU
 * workspace is free. Under mu. */
static epart *ready_take_cpu(cuzk_engine *e)
{
    for (epart **pp = &e->ready; *pp; pp = &(*pp)->next) {
        epart *p = *pp;
        if (!p->on_cpu || p->j->c->ws_cpu_busy) continue;
        *pp = p->next;
        e->n_ready--;
        p->j->c->ws_cpu_busy = 1;
        return p;
    }
    return NULL;
}

/* Stopping: the provers and the finalizer run until no partition is in
 * flight and no witness worker can start another. Under mu. */
static int pipeline_idle(const cuzk_engine *e)
{
    return e->stopping && !e->n_inflight && !e->n_witness_alive;
}

static void *prover_main(void *arg)
{
    eworker *wk = arg;
    cuzk_engine *e = wk->e;
    unsigned d = wk->device;
    char err[CUZK_ERRMSG_LEN];
    pthread_mutex_lock(&e->mu);
    for (;;) {
        epart *p = NULL;
        while (!(p = wk->cpu_lane ? ready_take_cpu(e) : ready_take(e, d))) {
            if (pipeline_idle(e)) break;
            pthread_cond_wait(&e->cv_work, &e->mu);
        }
        if (!p) break;
        pthread_cond_broadcast(&e->cv_work); /* a ready slot is free */
        /* The CPU lane proves for the device the partition failed on (its
         * events and counters are that device's). */
        if (wk->cpu_lane) d = p->last_device;
        ejob *j = p->j;
        ecirc *c = j->c;
        p->attempt++;
        p->device = d;
        p->last_device = d;
        lane_take(wk, p, p->attempt);
        err[0] = 0;
        cuzk_status s = CUZK_OK;
        if (atomic_load(&j->cancel)) s = CUZK_ERR_CANCELED;
        cuzk_workspace *ws = NULL;
        e->dev_busy[d]++;
        int on_cpu = p->on_cpu;
        if (s == CUZK_OK)
            s = on_cpu ? ws_take_cpu(e, c, &ws, &j->cancel, err)
                       : ws_take(e, c, d, &ws, &j->cancel, err);
        /* Whether this attempt was on another backend than the CPU. When
         * no workspace could be made: the backend of the key's earlier
         * ones, else the engine's unless "auto" (unknown: no fallback). */
        const char *bk = ws ? cuzk_workspace_backend(ws)
                         : on_cpu ? "cpu"
                         : c->ws_backend[0] ? c->ws_backend
                         : strcmp(e->backend_name, "auto") ? e->backend_name : "cpu";
        p->off_cpu = strcmp(bk, "cpu") != 0;
        if (s == CUZK_OK) {
            c->lru = ++e->lru_tick;
            copystr(p->backend, sizeof p->backend, cuzk_workspace_backend(ws));
            cuzk__engine_event(e, CUZK_EV_PROVE_START, j, p->idx, d, p->attempt, 0, 0,
                               (uint64_t)on_cpu, CUZK_OK);
            pthread_mutex_unlock(&e->mu);
            cuzk_fault f = e->cfg.fault ? e->cfg.fault(e->cfg.fault_ctx, j->id, p->idx,
                                                       p->attempt, d)
                                        : CUZK_FAULT_NONE;
            cuzk_prove_result res;
            memset(&res, 0, sizeof res);
            if (f == CUZK_FAULT_ERROR) {
                s = CUZK_ERR_CUDA;
                seterr(err, "injected backend error (device %u)", d);
            } else if (f == CUZK_FAULT_NO_MEMORY) {
                s = CUZK_ERR_NO_MEMORY;
                seterr(err, "injected out-of-memory (device %u)", d);
            } else {
                prog_ctx pc = {e, p, wk};
                cuzk_prove_job pj;
                memset(&pj, 0, sizeof pj);
                pj.witness = CUZK_WITNESS_COMPACT;
                pj.wc = p->w;
                pj.pce = c->has_pce ? &c->pce : NULL;
                pj.progress = on_stage;
                pj.progress_ctx = &pc;
                s = cuzk_prove(ws, &pj, &res, err);
                if (s == CUZK_OK) {
                    p->proof = res.proof;
                    p->t = res.t;
                    if (!p->pub) p->pub = malloc((size_t)c->n_public * sizeof(cuzk_fr) + 1);
                    if (!p->pub) {
                        s = CUZK_ERR_NO_MEMORY;
                        seterr(err, "out of memory");
                    } else {
                        memcpy(p->pub, res.pub, (size_t)c->n_public * sizeof(cuzk_fr));
                    }
                    if (f == CUZK_FAULT_BAD_PROOF) { /* a wrong but well-formed proof */
                        cuzk_g1_affine t = p->proof.a;
                        p->proof.a = p->proof.c;
                        p->proof.c = t;
                    }
                }
            }
            uint64_t rss = cuzk__engine_rss();
            pthread_mutex_lock(&e->mu);
            if (on_cpu) pthread_cond_broadcast(&e->cv_work);
            else ws_give(e, c, d, ws);
            if (s == CUZK_OK) {
                static const int hs[] = {EH_ROWS, EH_H, EH_MSM_A, EH_MSM_B2, EH_MSM_C,
                                         EH_ASSEMBLE};
                const double ms[] = {p->t.abc_ms, p->t.ntt_ms, p->t.msm_a_ms,
                                     p->t.msm_b2_ms, p->t.msm_c_ms, p->t.assemble_ms};
                for (int i = 0; i < 6; i++) {
                    cuzk__engine_event(e, CUZK_EV_STAGE, j, p->idx, d, p->attempt,
                                       CUZK_STAGE_ROWS + i, ms[i], 0, CUZK_OK);
                    cuzk__engine_hist(e, hs[i], ms[i]);
                }
                cuzk__engine_hist(e, EH_PROVE, p->t.total_ms);
            }
            cuzk__engine_event(e, CUZK_EV_PROVE_END, j, p->idx, d, p->attempt, 0, p->t.total_ms,
                               0, s);
            cuzk__engine_mem_event(e, j, p->idx, rss);
        }
        if (on_cpu) c->ws_cpu_busy = 0; /* also when the workspace failed */
        e->dev_busy[d]--;
        wk->lane_p = NULL;
        if (s == CUZK_OK) e->dev_proofs[d]++;
        else if (s != CUZK_ERR_CANCELED) e->dev_failures[d]++;
        p->st = s;
        copystr(p->err, sizeof p->err, err);
        final_push(e, p);
    }
    pthread_mutex_unlock(&e->mu);
    return NULL;
}

/* Starts the CPU fallback lane (once; not while stopping): a prover worker
 * that takes only the partitions sent to the CPU, so that a partition's
 * last attempt (minutes at full size on the CPU) does not hold its
 * device's lane. Without it (the thread could not start) the device lanes
 * take them, as before. Under mu. */
static void cpu_lane_start(cuzk_engine *e)
{
    if (e->cpu_lane_on || e->stopping || e->n_workers != e->cpu_slot) return;
    eworker *w = &e->workers[e->cpu_slot];
    w->e = e;
    w->index = (unsigned)e->cpu_slot;
    w->kind = 1;
    w->cpu_lane = 1;
    if (pthread_create(&w->th, NULL, prover_main, w)) return;
    w->started = 1;
    e->n_workers = e->cpu_slot + 1;
    e->cpu_lane_on = 1;
}

/* The self-check of p's proof, the same statuses as cuzk_groth16_verify:
 * with c's key prepared once (e(alpha, beta) and the lines of gamma and
 * delta), a check of porep-32g's 21 inputs takes ~1.0 ms plus vk_x instead
 * of ~1.7-2.0 ms (`cuzk-bench micro groth16_verify[_prepared]`, EPYC).
 * Finalizer thread only, outside mu. */
static cuzk_status final_verify(ecirc *c, const epart *p)
{
    if (!c->pvk_ready) {
        cuzk_vk_prepare(&c->pvk, &c->vk);
        c->pvk_ready = 1;
    }
    cuzk_g1_jac vk_x;
    cuzk_status s = cuzk_groth16_vk_x(&vk_x, &c->vk, p->pub, c->n_public, NULL, NULL);
    return s == CUZK_OK ? cuzk_groth16_verify_prepared(&c->pvk, &p->proof, &vk_x) : s;
}

static void *final_main(void *arg)
{
    eworker *wk = arg;
    cuzk_engine *e = wk->e;
    pthread_mutex_lock(&e->mu);
    for (;;) {
        while (!e->final_head && !pipeline_idle(e))
            pthread_cond_wait(&e->cv_work, &e->mu);
        epart *p = e->final_head;
        if (!p) break;
        e->final_head = p->next;
        if (!e->final_head) e->final_tail = NULL;
        ejob *j = p->j;
        ecirc *c = j->c;
        cuzk_status s = p->st;
        if (s == CUZK_OK && !atomic_load(&j->cancel) && e->cfg.self_verify) {
            pthread_mutex_unlock(&e->mu);
            int64_t t = cuzk__engine_now_us();
            s = final_verify(c, p);
            p->t.verify_ms = (double)(cuzk__engine_now_us() - t) / 1e3;
            pthread_mutex_lock(&e->mu);
            cuzk__engine_hist(e, EH_VERIFY, p->t.verify_ms);
            cuzk__engine_event(e, CUZK_EV_VERIFIED, j, p->idx, p->device, p->attempt, 0,
                               p->t.verify_ms, 0, s);
            if (s != CUZK_OK) {
                e->n_verify_fail++;
                s = CUZK_ERR_PROOF_INVALID;
                seterr(p->err, "the proof of partition %u failed self-verification on device "
                               "%u", p->idx, p->device);
            }
        }
        if (atomic_load(&j->cancel)) {
            part_release(e, p);
            if (!j->inflight)
                job_finish(e, j, atomic_load(&j->cancel) == 1 ? CUZK_JOB_CANCELED
                                                              : CUZK_JOB_FAILED);
        } else if (s == CUZK_OK) {
            p->done = 1;
            j->parts_done++;
            c->proofs++;
            e->n_parts_proved++;
            part_release(e, p);
            if (j->parts_done == j->n_parts) job_finish(e, j, CUZK_JOB_DONE);
        } else if (s == CUZK_ERR_CANCELED) {
            part_release(e, p); /* engine stopping without drain */
            if (!j->inflight && e->stopping && !e->cfg.store)
                job_stop(e, j, 1, CUZK_ERR_CANCELED, "engine stopped");
        } else if (retryable(s) && p->attempt < e->cfg.max_attempts && p->w &&
                   !(e->stopping && !e->drain)) {
            e->n_retries++;
            /* The last attempt of a partition that failed on a GPU runs on
             * the CPU backend: slower, but it does not share the fault. */
            p->on_cpu = p->off_cpu && p->attempt + 1 == e->cfg.max_attempts;
            if (p->on_cpu) cpu_lane_start(e);
            cuzk__engine_event(e, CUZK_EV_RETRY, j, p->idx, p->device, p->attempt, 0, 0,
                               p->on_cpu, s);
            elog(e, "job %" PRIu64 " partition %u: attempt %u on device %u failed: %s; retrying%s",
                 j->id, p->idx, p->attempt, p->device, p->err[0] ? p->err : cuzk_strerror(s),
                 p->on_cpu ? " on the CPU" : "");
            ready_insert(e, p);
            pthread_cond_broadcast(&e->cv_work);
        } else {
            char msg[CUZK_ERRMSG_LEN];
            snprintf(msg, sizeof msg, "partition %u: %.200s", p->idx,
                     p->err[0] ? p->err : cuzk_strerror(s));
            part_release(e, p);
            job_stop(e, j, 2, s, msg);
        }
    }
    pthread_mutex_unlock(&e->mu);
    return NULL;
}

/* The most ops the store thread commits in one transaction: a bound on
 * its ops array (made once) and on how long one commit holds the store;
 * a backlog past it takes several commits. */
#define STORE_GROUP_MAX 256

/* The store thread: takes every submit's row, lease and end queued
 * (leases before ends: a job's lease was queued before its end, and
 * complete needs LEASED), commits them in one transaction, then answers
 * the submitters and the waiters of the ended jobs. One fsync serves a
 * whole group, so the store costs the provers nothing while the disk keeps
 * up, a job is still accepted only once its row is committed and answered
 * only once its end is. Runs until stop has joined the pipeline and the
 * queues are empty. */
static void *store_main(void *arg)
{
    eworker *wk = arg;
    cuzk_engine *e = wk->e;
    cuzk_store *st = e->cfg.store;
    cuzk_store_op *ops = e->store_ops; /* made by start */
    ejob **jobs = e->store_jobs;
    pthread_mutex_lock(&e->smu);
    for (;;) {
        while (!e->lease_head && !e->fin_head && !e->enq_head && !e->store_quit)
            pthread_cond_wait(&e->cv_store, &e->smu);
        if (!e->lease_head && !e->fin_head && !e->enq_head) {
            /* Quitting: store_alive goes to 0 under both locks (in order),
             * once nothing was queued meanwhile. */
            pthread_mutex_unlock(&e->smu);
            pthread_mutex_lock(&e->mu);
            pthread_mutex_lock(&e->smu);
            int empty = !e->lease_head && !e->fin_head && !e->enq_head;
            if (empty) e->store_alive = 0;
            pthread_mutex_unlock(&e->mu);
            if (empty) break;
            continue;
        }
        size_t n = 0, n_enq, n_lease;
        int64_t now = wall_ms();
        eenq *enq = e->enq_head;
        while (e->enq_head && n < STORE_GROUP_MAX) {
            eenq *q = e->enq_head;
            e->enq_head = q->next;
            memset(&ops[n], 0, sizeof ops[n]);
            ops[n].kind = CUZK_STORE_OP_ENQUEUE;
            ops[n].rec = q->rec;
            ops[n].ms = now;
            jobs[n++] = NULL;
        }
        if (!e->enq_head) e->enq_tail = NULL;
        n_enq = n;
        while (e->lease_head && n < STORE_GROUP_MAX) {
            ejob *j = e->lease_head;
            e->lease_head = j->next_lease;
            memset(&ops[n], 0, sizeof ops[n]);
            ops[n].kind = CUZK_STORE_OP_LEASE;
            ops[n].id = j->id;
            ops[n].ms = now + (int64_t)e->cfg.lease_ms;
            jobs[n++] = j;
        }
        if (!e->lease_head) e->lease_tail = NULL;
        n_lease = n;
        /* A job's id, fin_state, result_json and error are not written
         * once it is queued here, and it is not freed before job_finished
         * below: read without mu. */
        while (e->fin_head && n < STORE_GROUP_MAX) {
            ejob *j = e->fin_head;
            e->fin_head = j->next_fin;
            ops[n] = fin_op(j, j->fin_state, now);
            jobs[n++] = j;
        }
        if (!e->fin_head) e->fin_tail = NULL;
        pthread_mutex_unlock(&e->smu);
        char err[CUZK_ERRMSG_LEN];
        if (st->batch) {
            if (st->batch(st, ops, n, err) != CUZK_OK)
                fprintf(stderr, "cuzk: store: %zu jobs not committed: %s\n", n, err);
        } else {
            for (size_t i = 0; i < n; i++) store_one(st, &ops[i]);
        }
        for (size_t i = n_enq; i < n; i++)
            if (ops[i].st != CUZK_OK)
                fprintf(stderr, "cuzk: job %" PRIu64 ": %s\n", ops[i].id, ops[i].err);
        if (n_lease < n) { /* the ended jobs' waiters: the engine's lock */
            pthread_mutex_lock(&e->mu);
            for (size_t i = n_lease; i < n; i++) job_finished(e, jobs[i]);
            pthread_mutex_unlock(&e->mu);
        }
        pthread_mutex_lock(&e->smu);
        e->n_store_commits += st->batch ? 1 : n;
        e->n_store_ops += n;
        for (size_t i = 0; i < n_enq; i++) { /* the submitters' answers */
            eenq *next = enq->next; /* enq lives on a stack that done frees */
            enq->id = ops[i].id;
            enq->existing = ops[i].existing;
            enq->st = ops[i].st;
            memcpy(enq->err, ops[i].err, sizeof enq->err);
            enq->done = 1;
            enq = next;
        }
        if (n_enq) pthread_cond_broadcast(&e->cv_enq);
    }
    pthread_mutex_unlock(&e->smu);
    return NULL;
}

/* The collector's timer: flushes batches whose wait is over. */
static void *collect_main(void *arg)
{
    eworker *wk = arg;
    cuzk_engine *e = wk->e;
    pthread_mutex_lock(&e->mu);
    while (!e->stopping) {
        int64_t now = cuzk__engine_now_us(), next = INT64_MAX;
        for (ebatch *b = e->batches, *nx; b; b = nx) {
            nx = b->next;
            if (b->deadline_us <= now) batch_flush(e, b, 1);
            else if (b->deadline_us < next) next = b->deadline_us;
        }
        if (next == INT64_MAX) {
            pthread_cond_wait(&e->cv_collect, &e->mu);
        } else {
            struct timespec ts = {(time_t)(next / 1000000), (long)(next % 1000000) * 1000};
            pthread_cond_timedwait(&e->cv_collect, &e->mu, &ts);
        }
    }
    /* Stopping: with drain, what the collector holds is run; else it stays
     * queued (in the store) or is canceled by stop. */
    if (e->drain)
        while (e->batches) batch_flush(e, e->batches, 1);
    pthread_mutex_unlock(&e->mu);
    return NULL;
}


/* ------------------------------------------------------- start, stop -- */

typedef struct {
    cuzk_store_rec *recs;
    size_t n, cap;
} rec_list;

static int collect_rec(void *ctx, const cuzk_store_rec *r)
{
    rec_list *l = ctx;
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 16;
        cuzk_store_rec *nr = realloc(l->recs, cap * sizeof *nr);
        if (!nr) return 1;
        l->recs = nr;
        l->cap = cap;
    }
    cuzk_store_rec *d = &l->recs[l->n];
    *d = *r;
    d->result = NULL;
    d->result_len = 0;
    d->request = malloc(r->request_len + 1);
    if (!d->request) return 1;
    memcpy(d->request, r->request, r->request_len);
    d->request[r->request_len] = 0;
    l->n++;
    return 0;
}

/* A stored request back into a job (the request JSON of job_build). */
static cuzk_status job_from_rec(cuzk_engine *e, const cuzk_store_rec *r, ejob **out, char *err)
{
    json_error_t je;
    json_t *v = json_loadb(r->request, r->request_len, 0, &je);
    if (!v) {
        seterr(err, "stored request of job %" PRIu64 ": bad JSON", r->id);
        return CUZK_ERR_BAD_ENCODING;
    }
    cuzk_job_request rq;
    memset(&rq, 0, sizeof rq);
    rq.circuit = json_string_value(json_object_get(v, "circuit"));
    const char *pr = json_string_value(json_object_get(v, "priority"));
    cuzk_status s = pr ? cuzk_priority_parse(pr, &rq.priority) : CUZK_ERR_INVALID_ARGUMENT;
    rq.request_id = r->request_id;
    char *inputs = NULL;
    uint8_t *wtns = NULL;
    json_t *in = json_object_get(v, "inputs");
    const char *w64 = json_string_value(json_object_get(v, "wtns"));
    if (in) {
        inputs = json_dumps(in, JSON_COMPACT | JSON_ENCODE_ANY);
        rq.inputs = inputs;
    } else if (w64) {
        wtns = b64_decode(w64, &rq.wtns_len);
        rq.wtns = wtns;
        if (!wtns) s = CUZK_ERR_BAD_ENCODING;
    }
    if (s == CUZK_OK) s = job_build(e, &rq, out, NULL, err);
    else seterr(err, "stored request of job %" PRIu64 " is malformed", r->id);
    free(inputs);
    free(wtns);
    json_decref(v);
    if (s == CUZK_OK) (*out)->id = r->id;
    return s;
}

static cuzk_status restart_from_store(cuzk_engine *e, size_t *requeued, char *err)
{
    cuzk_store *st = e->cfg.store;
    size_t n = 0;
    /* One daemon per store: every lease left belongs to a dead process. */
    cuzk_status s = st->requeue_expired(st, INT64_MAX, &n, err);
    if (s != CUZK_OK) return s;
    rec_list l = {0};
    s = st->scan(st, CUZK_STORE_QUEUED, collect_rec, &l, err);
    for (size_t i = 0; i < l.n && s == CUZK_OK; i++) {
        ejob *j;
        char jerr[CUZK_ERRMSG_LEN];
        if (job_from_rec(e, &l.recs[i], &j, jerr) != CUZK_OK) {
            st->fail(st, l.recs[i].id, CUZK_STORE_FAILED, jerr, wall_ms(), NULL);
            continue;
        }
        pthread_mutex_lock(&e->mu);
        if (job_find(e, j->id)) {
            job_free(j);
        } else {
            job_publish(e, j);
            if (requeued) (*requeued)++;
        }
        pthread_mutex_unlock(&e->mu);
    }
    for (size_t i = 0; i < l.n; i++) cuzk_store_rec_free(&l.recs[i]);
    free(l.recs);
    return s;
}

cuzk_status cuzk_engine_start(cuzk_engine *e, size_t *requeued, char *err)
{
    clrerr(err);
    if (requeued) *requeued = 0;
    pthread_mutex_lock(&e->mu);
    int bad = e->started || e->stopping;
    e->started = 1;
    pthread_mutex_unlock(&e->mu);
    if (bad) {
        seterr(err, "start: already started");
        return CUZK_ERR_INVALID_ARGUMENT;
    }
    cuzk_status s = CUZK_OK;
    if (e->cfg.store && (s = restart_from_store(e, requeued, err)) != CUZK_OK) return s;
    size_t n_pipe = e->n_witness + (size_t)e->n_devices * e->ppd;
    size_t n = n_pipe + 2 + (e->cfg.store ? 1 : 0);
    e->workers = calloc(n + 1, sizeof *e->workers); /* + the CPU lane's */
    e->cpu_slot = n;
    if (e->cfg.store) {
        e->store_ops = malloc(STORE_GROUP_MAX * sizeof *e->store_ops);
        e->store_jobs = malloc(STORE_GROUP_MAX * sizeof *e->store_jobs);
    }
    if (!e->workers || (e->cfg.store && (!e->store_ops || !e->store_jobs))) {
        seterr(err, "out of memory");
        return CUZK_ERR_NO_MEMORY;
    }
    pthread_mutex_lock(&e->mu);
    e->n_witness_alive = e->n_witness;
    for (size_t i = 0; i < n; i++) {
        eworker *w = &e->workers[i];
        w->e = e;
        w->index = (unsigned)i;
        void *(*fn)(void *);
        if (i < e->n_witness) {
            w->kind = 0;
            w->critical = e->cfg.critical_witness && i == e->n_witness - 1u;
            fn = witness_main;
        } else if (i < n_pipe) {
            w->kind = 1;
            w->device = (unsigned)((i - e->n_witness) / e->ppd);
            fn = prover_main;
        } else if (i == n_pipe) {
            w->kind = 2;
            fn = final_main;
        } else if (i == n_pipe + 1) {
            w->kind = 3;
            fn = collect_main;
        } else {
            w->kind = 4;
            fn = store_main;
            pthread_mutex_lock(&e->smu);
            e->store_alive = 1;
            pthread_mutex_unlock(&e->smu);
        }
        if (pthread_create(&w->th, NULL, fn, w)) {
            if (w->kind == 0) e->n_witness_alive--;
            if (w->kind == 4) {
                pthread_mutex_lock(&e->smu);
                e->store_alive = 0;
                pthread_mutex_unlock(&e->smu);
            }
            s = CUZK_ERR_NO_MEMORY;
            seterr(err, "cannot create threads");
            break;
        }
        w->started = 1;
        e->n_workers = i + 1;
    }
    pthread_mutex_unlock(&e->mu);
    if (s != CUZK_OK) cuzk_engine_stop(e, 0);
    return s;
}

void cuzk_engine_stop(cuzk_engine *e, int drain)
{
    pthread_mutex_lock(&e->mu);
    if (e->stopping) {
        pthread_mutex_unlock(&e->mu);
        return;
    }
    e->stopping = 1;
    e->drain = drain;
    pthread_cond_broadcast(&e->cv_work);
    pthread_cond_broadcast(&e->cv_collect);
    pthread_mutex_unlock(&e->mu);
    /* The collector first (a drain flushes its batches), then the rest. */
    for (size_t i = e->n_workers; i-- > 0;)
        if (e->workers[i].started && e->workers[i].kind == 3) pthread_join(e->workers[i].th, NULL);
    pthread_mutex_lock(&e->mu);
    pthread_cond_broadcast(&e->cv_work);
    pthread_mutex_unlock(&e->mu);
    for (size_t i = 0; i < e->n_workers; i++)
        if (e->workers[i].started && e->workers[i].kind < 3) pthread_join(e->workers[i].th, NULL);
    /* The store thread last: it commits what the pipeline ended. */
    pthread_mutex_lock(&e->smu);
    e->store_quit = 1;
    pthread_cond_broadcast(&e->cv_store);
    pthread_mutex_unlock(&e->smu);
    for (size_t i = 0; i < e->n_workers; i++)
        if (e->workers[i].started && e->workers[i].kind == 4) pthread_join(e->workers[i].th, NULL);
    pthread_mutex_lock(&e->mu);
    /* Without a store nothing unfinished survives: cancel it. With one,
     * unfinished jobs stay QUEUED or LEASED there for the next start. */
    if (!e->cfg.store)
        for (ejob *j = e->all; j; j = j->next_all)
            if (j->state < CUZK_JOB_DONE) {
                atomic_store(&j->cancel, 1);
                j->status = CUZK_ERR_CANCELED;
                seterr(j->error, "engine stopped");
                j->inflight = 0;
                job_finish(e, j, CUZK_JOB_CANCELED);
            }
    pthread_cond_broadcast(&e->cv_done);
    pthread_mutex_unlock(&e->mu);
}

void cuzk_engine_destroy(cuzk_engine *e)
{
    if (!e) return;
    cuzk_engine_stop(e, 0);
    for (size_t i = 0; i < e->n_workers; i++) {
        eworker *w = &e->workers[i];
        for (size_t k = 0; k < w->n_ci; k++) {
            cuzk_circuit_close(w->ci[k]);
            cuzk_cs_free(&w->cs[k]);
        }
        free(w->ci);
        free(w->cs);
    }
    free(e->workers);
    free(e->store_ops);
    free(e->store_jobs);
    while (e->batches) {
        ebatch *b = e->batches;
        e->batches = b->next;
        free(b);
    }
    for (ejob *j = e->all, *nx; j; j = nx) {
        nx = j->next_all;
        if (j->parts)
            for (unsigned i = 0; i < j->n_parts; i++) free(j->parts[i].w);
        job_free(j);
    }
    for (size_t i = 0; i < e->n_circ; i++) {
        ecirc *c = e->circ[i];
        for (unsigned d = 0; d < e->n_devices; d++) {
            ws_destroy_idle(e, c, d);
            free(c->ws_free[d]);
        }
        free(c->ws_free);
        free(c->ws_nfree);
        free(c->ws_count);
        ws_cpu_drop(e, c);
        wbuf_free_idle(e, c);
        free(c->wbuf);
        cuzk_groth16_pk_free(&c->pk);
        if (c->has_pce) cuzk_pce_free(&c->pce);
        cuzk_vk_free(&c->vk);
        free(c);
    }
    free(e->circ);
    free(e->ring);
    free(e->dev_res);
    free(e->dev_busy);
    free(e->dev_proofs);
    free(e->dev_failures);
    pthread_mutex_destroy(&e->mu);
    pthread_mutex_destroy(&e->obs_mu);
    pthread_mutex_destroy(&e->smu);
    pthread_cond_destroy(&e->cv_work);
    pthread_cond_destroy(&e->cv_done);
    pthread_cond_destroy(&e->cv_collect);
    pthread_cond_destroy(&e->cv_store);
    pthread_cond_destroy(&e->cv_enq);
    free(e);
}

/* ------------------------------------------------- job queries, cancel -- */

void cuzk_job_info_free(cuzk_job_info *info)
{
    if (!info) return;
    free(info->result_json);
    info->result_json = NULL;
}

static size_t queue_position(cuzk_engine *e, const ejob *j)
{
    size_t n = 0;
    for (ejob *o = e->all; o; o = o->next_all)
        if (o != j && o->state == CUZK_JOB_QUEUED && !atomic_load(&o->cancel) &&
            job_before(o, j))
            n++;
    return n;
}

static cuzk_status fill_info(cuzk_engine *e, const ejob *j, cuzk_job_info *info)
{
    memset(info, 0, sizeof *info);
    info->id = j->id;
    copystr(info->circuit, sizeof info->circuit, j->c->name);
    copystr(info->request_id, sizeof info->request_id, j->request_id);
    info->priority = j->prio;
    info->state = j->state;
    info->partitions = j->n_parts;
    info->partitions_done = j->parts_done;
    for (unsigned i = 0; i < j->n_parts; i++) info->attempts += j->parts[i].attempt;
    if (j->state == CUZK_JOB_QUEUED) info->queue_position = queue_position(e, j);
    info->status = j->state >= CUZK_JOB_FAILED ? j->status : CUZK_OK;
    if (j->state >= CUZK_JOB_FAILED) copystr(info->error, sizeof info->error, j->error);
    if (j->t_start_us) info->queued_ms = (double)(j->t_start_us - j->t_submit_us) / 1e3;
    if (j->t_end_us) info->total_ms = (double)(j->t_end_us - j->t_submit_us) / 1e3;
    if (j->state == CUZK_JOB_DONE && j->result_json) {
        if (!(info->result_json = malloc(j->result_len + 1))) return CUZK_ERR_NO_MEMORY;
        memcpy(info->result_json, j->result_json, j->result_len + 1);
        info->result_len = j->result_len;
    }
    return CUZK_OK;
}

/* A job no longer in memory, from the store. */
static cuzk_status info_from_store(cuzk_engine *e, uint64_t id, cuzk_job_info *info, char *err)
{
    cuzk_store_rec r;
    memset(&r, 0, sizeof r);
    cuzk_status s = e->cfg.store->get(e->cfg.store, id, NULL, &r, err);
    if (s != CUZK_OK) return s;
    memset(info, 0, sizeof *info);
    info->id = r.id;
    copystr(info->circuit, sizeof info->circuit, r.circuit);
    copystr(info->request_id, sizeof info->request_id, r.request_id);
    info->priority = (cuzk_priority)r.priority;
    info->attempts = r.attempts;
    static const cuzk_job_state map[] = {CUZK_JOB_QUEUED, CUZK_JOB_RUNNING, CUZK_JOB_DONE,
                                         CUZK_JOB_FAILED, CUZK_JOB_CANCELED};
    info->state = (unsigned)r.state < 5 ? map[r.state] : CUZK_JOB_FAILED;
    if (info->state >= CUZK_JOB_FAILED) {
        info->status = info->state == CUZK_JOB_CANCELED ? CUZK_ERR_CANCELED
                                                        : CUZK_ERR_INVALID_ARGUMENT;
        copystr(info->error, sizeof info->error, r.error);
    }
    if (r.finished_ms) info->total_ms = (double)(r.finished_ms - r.created_ms);
    if (r.result) {
        info->result_json = r.result;
        info->result_len = r.result_len;
        r.result = NULL;
    }
    cuzk_store_rec_free(&r);
    return CUZK_OK;
}

cuzk_status cuzk_engine_job(cuzk_engine *e, uint64_t id, cuzk_job_info *info, char *err)
{
    return cuzk_engine_wait(e, id, 0, info, err);
}

cuzk_status cuzk_engine_wait(cuzk_engine *e, uint64_t id, int64_t timeout_ms,
                             cuzk_job_info *info, char *err)
{
    clrerr(err);
    memset(info, 0, sizeof *info);
    int64_t end = timeout_ms < 0 ? INT64_MAX : cuzk__engine_now_us() + timeout_ms * 1000;
    pthread_mutex_lock(&e->mu);
    ejob *j = job_find(e, id);
    if (!j) {
        pthread_mutex_unlock(&e->mu);
        if (e->cfg.store) return info_from_store(e, id, info, err);
        seterr(err, "unknown job %" PRIu64, id);
        return CUZK_ERR_INVALID_ARGUMENT;
    }
    j->waiters++;
    while (j->state < CUZK_JOB_DONE && !(e->stopping && !e->n_workers)) {
        int64_t now = cuzk__engine_now_us();
        if (now >= end) break;
        if (end == INT64_MAX) {
            pthread_cond_wait(&e->cv_done, &e->mu);
        } else {
            struct timespec ts = {(time_t)(end / 1000000), (long)(end % 1000000) * 1000};
            pthread_cond_timedwait(&e->cv_done, &e->mu, &ts);
        }
        if (e->stopping && j->state < CUZK_JOB_DONE && !e->n_inflight && !e->n_witness_alive &&
            !(j->finishing && e->store_alive))
            break; /* stopped: it will not move any more */
    }
    j->waiters--;
    cuzk_status s = fill_info(e, j, info);
    pthread_mutex_unlock(&e->mu);
    if (s != CUZK_OK) seterr(err, "out of memory");
    return s;
}

cuzk_status cuzk_engine_cancel(cuzk_engine *e, uint64_t id, char *err)
{
    clrerr(err);
    pthread_mutex_lock(&e->mu);
    ejob *j = job_find(e, id);
    if (j) {
        job_stop(e, j, 1, CUZK_ERR_CANCELED, "canceled");
        /* A job that ended here (it was queued) is CANCELED once the store
         * thread committed it: wait for that (one group commit), so the
         * caller sees the state it made. A running one ends later. */
        j->waiters++;
        while (j->finishing && j->state < CUZK_JOB_DONE && e->store_alive)
            pthread_cond_wait(&e->cv_done, &e->mu);
        j->waiters--;
    }
    pthread_mutex_unlock(&e->mu);
    if (j) return CUZK_OK;
    if (e->cfg.store) {
        cuzk_job_info info;
        cuzk_status s = info_from_store(e, id, &info, err);
        cuzk_job_info_free(&info);
        return s;
    }
    seterr(err, "unknown job %" PRIu64, id);
    return CUZK_ERR_INVALID_ARGUMENT;
}

cuzk_status cuzk_engine_result(cuzk_engine *e, uint64_t id, cuzk_job_result **out, char *err)
{
    clrerr(err);
    *out = NULL;
    pthread_mutex_lock(&e->mu);
    ejob *j = job_find(e, id);
    if (j && j->state == CUZK_JOB_DONE && j->result) *out = cuzk__engine_make_result(j);
    cuzk_status s = !j || j->state != CUZK_JOB_DONE ? CUZK_ERR_INVALID_ARGUMENT
                    : *out                          ? CUZK_OK
                                                    : CUZK_ERR_NO_MEMORY;
    pthread_mutex_unlock(&e->mu);
    if (s == CUZK_ERR_INVALID_ARGUMENT) seterr(err, "job %" PRIu64 " has no result here", id);
    if (s == CUZK_ERR_NO_MEMORY) seterr(err, "out of memory");
    return s;
}

/* ------------------------------------------------------------- status -- */

cuzk_status cuzk_engine_status_get(cuzk_engine *e, cuzk_engine_status *st)
{
    memset(st, 0, sizeof *st);
    pthread_mutex_lock(&e->mu);
    st->uptime_s = (double)(cuzk__engine_now_us() - e->t0_us) / 1e6;
    st->running = e->started && !e->stopping;
    st->n_devices = e->n_devices;
    st->devices = calloc(e->n_devices, sizeof *st->devices);
    st->n_circuits = e->n_circ;
    st->circuits = calloc(e->n_circ ? e->n_circ : 1, sizeof *st->circuits);
    st->lanes = calloc(e->n_workers ? e->n_workers : 1, sizeof *st->lanes);
    if (!st->devices || !st->circuits || !st->lanes) {
        pthread_mutex_unlock(&e->mu);
        cuzk_engine_status_free(st);
        return CUZK_ERR_NO_MEMORY;
    }
    for (unsigned d = 0; d < e->n_devices; d++) {
        cuzk_device_status *ds = &st->devices[d];
        ds->index = d;
        copystr(ds->backend, sizeof ds->backend,
                e->dev_backend[d][0] ? e->dev_backend[d] : e->backend_name);
        ds->busy = e->dev_busy[d];
        ds->reserved = e->dev_res[d];
        ds->budget = e->cfg.budget_device;
        ds->proofs = e->dev_proofs[d];
        ds->failures = e->dev_failures[d];
    }
    for (size_t i = 0; i < e->n_circ; i++) fill_desc(e, e->circ[i], &st->circuits[i]);
    for (ebatch *b = e->batches; b; b = b->next) {
        st->jobs_collecting += b->n;
        st->prio[b->prio].collecting += b->n;
    }
    for (ejob *j = e->all; j; j = j->next_all) {
        cuzk_prio_status *ps = &st->prio[j->prio];
        if (j->state == CUZK_JOB_QUEUED && !j->collecting) {
            st->jobs_queued++;
            ps->queued++;
        }
        if (j->state == CUZK_JOB_RUNNING) {
            st->jobs_running++;
            ps->running++;
        }
        if (j->state < CUZK_JOB_DONE && !j->collecting && !atomic_load(&j->cancel)) {
            st->partitions_queued += j->n_parts - j->next_part;
            ps->partitions_queued += j->n_parts - j->next_part;
        }
        if (j->state < CUZK_JOB_DONE) ps->n++;
    }
    /* The oldest unfinished jobs of each priority, oldest first: e->all is
     * newest first, so the k-th one met is at n - k. */
    size_t seen[4] = {0, 0, 0, 0};
    for (ejob *j = e->all; j; j = j->next_all) {
        if (j->state >= CUZK_JOB_DONE) continue;
        cuzk_prio_status *ps = &st->prio[j->prio];
        size_t at = ps->n - ++seen[j->prio];
        if (at >= CUZK_STATUS_QUEUE_JOBS) continue;
        ps->jobs[at].id = j->id;
        ps->jobs[at].state = j->state;
        ps->jobs[at].collecting = j->collecting;
        ps->jobs[at].partitions = j->n_parts;
        ps->jobs[at].partitions_done = j->parts_done;
    }
    int64_t now = cuzk__engine_now_us();
    for (size_t i = 0; i < e->n_workers; i++) {
        const eworker *w = &e->workers[i];
        if (w->kind > 1) continue;
        cuzk_lane_status *l = &st->lanes[st->n_lanes++];
        l->prover = w->kind == 1;
        l->cpu_fallback = w->cpu_lane;
        l->critical = w->critical;
        l->device = w->cpu_lane ? (w->lane_p ? w->lane_p->device : 0) : l->prover ? w->device : 0;
        l->slot = w->cpu_lane  ? 0
                  : l->prover ? (unsigned)(i - e->n_witness) % e->ppd
                              : (unsigned)i;
        if (!w->lane_p) continue;
        l->job = w->lane_p->j->id;
        l->partition = w->lane_p->idx;
        l->attempt = w->lane_attempt;
        l->stage = atomic_load(&w->lane_stage);
        l->busy_ms = (double)(now - w->lane_t0_us) / 1e3;
        copystr(l->circuit, sizeof l->circuit, w->lane_p->j->c->name);
    }
    st->partitions_ready = e->n_ready;
    st->ready_capacity = e->ready_cap;
    st->host_reserved = e->host_res;
    st->host_budget = e->cfg.budget_host;
    st->host_peak = e->host_peak;
    st->pinned_reserved = e->pinned_res;
    st->pinned_budget = e->cfg.budget_pinned;
    st->pinned_peak = e->pinned_peak;
    st->device_reserved_peak = e->dev_peak;
    st->jobs_submitted = e->n_submitted;
    st->jobs_done = e->n_done;
    st->jobs_failed = e->n_failed;
    st->jobs_canceled = e->n_canceled;
    st->partitions_proved = e->n_parts_proved;
    st->retries = e->n_retries;
    st->verify_failures = e->n_verify_fail;
    st->evictions = e->n_evictions;
    st->threads_witness = e->n_witness;
    st->threads_prover = e->n_devices * e->ppd;
    st->threads_other = 2 + (e->cfg.store ? 1 : 0);
    pthread_mutex_lock(&e->smu);
    st->store_commits = e->n_store_commits;
    st->store_ops = e->n_store_ops;
    pthread_mutex_unlock(&e->smu);
    pthread_mutex_unlock(&e->mu);
    st->pool_threads = cuzk_pool_size();
    return CUZK_OK;
}

void cuzk_engine_status_free(cuzk_engine_status *st)
{
    if (!st) return;
    free(st->devices);
    free(st->circuits);
    free(st->lanes);
    st->devices = NULL;
    st->circuits = NULL;
    st->lanes = NULL;
}
