/* cuzk — the daemon's config file.
 *
 * Format: `key = value` lines, '#' comments, [server], [engine] and
 * [circuit ID] sections. Chosen over JSON because a config is written by
 * hand and needs comments; it has no nesting deeper than a section, so a
 * line reader of ~100 lines covers it with exact FILE:LINE messages. */
#include <ctype.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <cuzk/engine.h>
#include <cuzk/formats.h>
#include <cuzk/server.h>

#include "common/errmsg.h"

static const char *const builtin_ids[] = {"porep-32g", "winning-32g", "wpost-32g", "snap-32g"};

static void set_str(char *dst, size_t cap, const char *src)
{
    size_t n = strlen(src);
    if (n >= cap) n = cap - 1;
    memcpy(dst, src, n);
    dst[n] = 0;
}

void cuzk_server_config_default(cuzk_server_config *c, const char *dir)
{
    cuzk_engine_config e;
    cuzk_engine_config_default(&e);
    memset(c, 0, sizeof *c);
    set_str(c->dir, sizeof c->dir, dir ? dir : ".");
    set_str(c->socket, sizeof c->socket, "cuzk.sock");
    set_str(c->store, sizeof c->store, "cuzk.db");
    c->max_body = 64u << 20;  /* a .wtns of 2^21 values */
    c->http_threads = 2;      /* handlers only parse and queue: the cores prove */
    c->max_wait_s = 3600;
    c->conn_timeout_s = 60;
    c->keep_results_s = 7 * 24 * 3600;
    set_str(c->backend, sizeof c->backend, "auto");
    c->devices = e.n_devices;
    c->provers_per_device = e.provers_per_device;
    c->witness_workers = e.witness_workers;
    c->ready_capacity = e.ready_capacity;
    c->prove_threads = e.prove_threads;
    c->witness_threads = e.witness_threads;
    c->witness_nice = (unsigned)e.witness_nice;
    c->critical_witness = e.critical_witness;
    c->gpu_ntt_full_twiddles = e.gpu_ntt_full_twiddles;
    c->max_batch_size = e.max_batch_size;
    c->max_batch_wait_ms = e.max_batch_wait_ms;
    c->max_attempts = e.max_attempts;
    c->self_verify = e.self_verify;
    c->budget_host = e.budget_host;
    c->budget_pinned = e.budget_pinned;
    c->budget_device = e.budget_device;
    c->lease_ms = e.lease_ms;
    c->timeline_capacity = (unsigned)e.timeline_capacity;
    c->results_keep = (unsigned)e.results_keep;
    for (size_t i = 0; i < 4; i++) {
        cuzk_server_circuit *ci = &c->circuits[c->n_circuits++];
        set_str(ci->name, sizeof ci->name, builtin_ids[i]);
        set_str(ci->builtin, sizeof ci->builtin, builtin_ids[i]);
        ci->log_size = 10;
    }
}

void cuzk_server_config_engine(const cuzk_server_config *c, cuzk_engine_config *ec)
{
    cuzk_engine_config_default(ec);
    ec->backend = c->backend;
    ec->n_devices = c->devices;
    ec->provers_per_device = c->provers_per_device;
    ec->witness_workers = c->witness_workers;
    ec->ready_capacity = c->ready_capacity;
    ec->prove_threads = c->prove_threads;
    ec->witness_threads = c->witness_threads;
    ec->witness_nice = (int)c->witness_nice;
    ec->critical_witness = c->critical_witness;
    ec->gpu_ntt_fp64 = c->gpu_ntt_fp64;
    ec->gpu_msm_fp64 = c->gpu_msm_fp64;
    ec->gpu_ntt_full_twiddles = c->gpu_ntt_full_twiddles;
    ec->gpu_pool_bytes = c->gpu_pool;
    ec->max_batch_size = c->max_batch_size;
    ec->max_batch_wait_ms = c->max_batch_wait_ms;
    ec->self_verify = c->self_verify;
    ec->max_attempts = c->max_attempts;
    ec->budget_host = c->budget_host;
    ec->budget_pinned = c->budget_pinned;
    ec->budget_device = c->budget_device;
    ec->lease_ms = c->lease_ms;
    ec->timeline_capacity = c->timeline_capacity;
    ec->results_keep = c->results_keep;
}

/* One key of the file: where it lives and what it means (--help). */
typedef enum { K_STR, K_UINT, K_SIZE, K_BOOL, K_U64 } kind;
typedef struct {
    const char *section, *key;
    kind k;
    size_t off, cap; /* cap: K_STR capacity; K_UINT: the maximum */
    const char *help;
} keydef;

#define S(f) offsetof(cuzk_server_config, f), sizeof(((cuzk_server_config *)0)->f)
/* The cap of an [engine] key whose range is the engine's rule: the parser
 * runs cuzk_engine_config_check after the key, so the range lives there
 * (INT_MAX: witness_nice becomes an int unchanged). */
#define BY_ENGINE 0x7fffffffu
#define U(f, max) offsetof(cuzk_server_config, f), (max)
#define C(f) offsetof(cuzk_server_circuit, f), sizeof(((cuzk_server_circuit *)0)->f)
#define CU(f, max) offsetof(cuzk_server_circuit, f), (max)

static const keydef keys[] = {
    {"server", "socket", K_STR, S(socket), "unix socket, relative to --dir (cuzk.sock); mode 0600"},
    {"server", "store", K_STR, S(store), "SQLite job store, relative to --dir (cuzk.db); empty: in memory"},
    {"server", "log", K_STR, S(log), "log file, relative to --dir; empty: stderr (default)"},
    {"server", "log_timeline", K_BOOL, U(log_timeline, 1), "log every timeline event as a line (no)"},
    {"server", "tcp", K_STR, S(tcp), "also listen on HOST:PORT (IPv4, e.g. 127.0.0.1:8181); needs token_file"},
    {"server", "token_file", K_STR, S(token_file), "file whose first line is the bearer token TCP clients send"},
    {"server", "max_body", K_SIZE, S(max_body), "largest request body, bytes, suffix K/M/G (64M); larger: 413"},
    {"server", "http_threads", K_UINT, U(http_threads, 64), "HTTP polling threads (2)"},
    {"server", "max_wait", K_UINT, U(max_wait_s, 86400), "longest ?wait= in seconds (3600)"},
    {"server", "conn_timeout", K_UINT, U(conn_timeout_s, 86400), "idle connection timeout, seconds (60)"},
    {"server", "keep_results", K_UINT, U(keep_results_s, 0xffffffffu), "seconds finished jobs stay in the store, and their request_ids hold (604800)"},
    {"engine", "threads", K_UINT, U(threads, 256), "the process's thread pool; 0 = every core (0)"},
    {"engine", "backend", K_STR, S(backend), "auto (GPU if present, else CPU), cpu or gpu (auto)"},
    {"engine", "devices", K_UINT, U(devices, BY_ENGINE), "devices, at most 32; on the CPU backend simulated ones (1)"},
    {"engine", "provers_per_device", K_UINT, U(provers_per_device, 64), "prover workers per device (1)"},
    {"engine", "witness_workers", K_UINT, U(witness_workers, 256), "witness workers (1)"},
    {"engine", "ready_capacity", K_UINT, U(ready_capacity, 4096), "ready-queue slots; 0 = 2 per device"},
    {"engine", "prove_threads", K_UINT, U(prove_threads, 256), "threads of one proof; 0 = the pool's size"},
    {"engine", "witness_threads", K_UINT, U(witness_threads, 256), "threads of a witness while a prover is busy; 0 = prove_threads (0)"},
    {"engine", "witness_nice", K_UINT, U(witness_nice, BY_ENGINE), "nice of the witness workers, 0..19 (0)"},
    {"engine", "critical_witness", K_BOOL, U(critical_witness, 1), "one more witness worker, for CRITICAL jobs only (yes)"},
    {"engine", "gpu_ntt_fp64", K_UINT, U(gpu_ntt_fp64, BY_ENGINE), "GPU: of every 4 NTT products, how many on the FP64 pipe, 0..4 (0)"},
    {"engine", "gpu_msm_fp64", K_UINT, U(gpu_msm_fp64, BY_ENGINE), "GPU: of the 6 products of an MSM addition, how many on the FP64 pipe, 0..4 (0)"},
    {"engine", "gpu_ntt_full_twiddles", K_UINT, U(gpu_ntt_full_twiddles, BY_ENGINE), "GPU: the NTTs' twiddles from 0 two small tables, 1 a full one where the pool has room, 2 a positional one; plus 4: the coset table too (5); plus 8 with 1: both as Shoup pairs where room is left (13)"},
    {"engine", "gpu_pool", K_SIZE, S(gpu_pool), "GPU: each workspace's device pool, bytes (0: the free memory less a sixteenth)"},
    {"engine", "max_batch_size", K_UINT, U(max_batch_size, 4096), "same-circuit jobs batched (8); 0/1: none"},
    {"engine", "max_batch_wait_ms", K_UINT, U(max_batch_wait_ms, 600000), "longest a batch is held (0: none)"},
    {"engine", "max_attempts", K_UINT, U(max_attempts, 100), "proving attempts per partition (3)"},
    {"engine", "self_verify", K_BOOL, U(self_verify, 1), "verify every proof before returning it (yes)"},
    {"engine", "budget_host", K_SIZE, S(budget_host), "host memory budget, bytes (0: unlimited)"},
    {"engine", "budget_pinned", K_SIZE, S(budget_pinned), "pinned memory budget, bytes (0: unlimited)"},
    {"engine", "budget_device", K_SIZE, S(budget_device), "memory budget per device, bytes (0: unlimited)"},
    {"engine", "lease_ms", K_UINT, U(lease_ms, 0xffffffffu), "a running job's lease in the store (0: 10 min)"},
    {"engine", "timeline_capacity", K_UINT, U(timeline_capacity, 1u << 24), "timeline events kept (0: 65536)"},
    {"engine", "results_keep", K_UINT, U(results_keep, 1u << 24), "finished jobs kept in memory (0: 4096)"},
};

static const keydef circuit_keys[] = {
    {"circuit", "builtin", K_STR, C(builtin), "a built-in circuit (cuzk circuits): porep-32g, ..."},
    {"circuit", "size", K_UINT, CU(log_size, 27), "builtin: ~2^size constraints a partition, 10..27; 0 = full (10)"},
    {"circuit", "key", K_STR, C(key), "a snarkjs .zkey or a .cuzk key (builtin: optional, else INSECURE setup)"},
    {"circuit", "pce", K_STR, C(pce), "builtin: its compiled PCE (cuzk compile), optional"},
    {"circuit", "setup_seed", K_U64, offsetof(cuzk_server_circuit, setup_seed), 0,
     "builtin without key: the setup's seed, so the key survives restarts (random)"},
    {"circuit", "preload", K_BOOL, CU(preload, 1), "make the key resident at start (no)"},
};

void cuzk_server_config_help(FILE *f)
{
    const char *sec = "";
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        if (strcmp(sec, keys[i].section)) fprintf(f, "  [%s]\n", sec = keys[i].section);
        fprintf(f, "    %-18s %s\n", keys[i].key, keys[i].help);
    }
    fprintf(f, "  [circuit NAME]  (one per circuit, NAME is the id jobs use; builtin or key)\n");
    for (size_t i = 0; i < sizeof circuit_keys / sizeof circuit_keys[0]; i++)
        fprintf(f, "    %-18s %s\n", circuit_keys[i].key, circuit_keys[i].help);
}

#define CFG_ERR(err, name, line, ...)                                                         \
    cfg_err(err, name, line, __VA_ARGS__)

__attribute__((format(printf, 4, 5))) static cuzk_status cfg_err(char *err, const char *name,
                                                                 unsigned line, const char *fmt,
                                                                 ...)
{
    char msg[CUZK_ERRMSG_LEN];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return cuzk_errf(err, CUZK_ERR_INVALID_ARGUMENT, "config: ", "%s:%u: %s", name, line, msg);
}

static int parse_u64(const char *v, uint64_t *out, int suffix)
{
    if (!isdigit((unsigned char)*v)) return 0;
    errno = 0;
    char *end;
    unsigned long long x = strtoull(v, &end, 10);
    if (errno) return 0;
    unsigned shift = 0;
    if (suffix && *end) {
        switch (*end++) {
        case 'K': case 'k': shift = 10; break;
        case 'M': case 'm': shift = 20; break;
        case 'G': case 'g': shift = 30; break;
        default: return 0;
        }
    }
    if (*end || (shift && x > (UINT64_MAX >> shift))) return 0;
    *out = (uint64_t)x << shift;
    return 1;
}

/* Stores value v for key d into the struct at base. */
static cuzk_status set_key(void *base, const keydef *d, const char *v, const char *name,
                           unsigned line, char *err)
{
    char *p = (char *)base + d->off;
    uint64_t x;
    switch (d->k) {
    case K_STR:
        if (strlen(v) >= d->cap) return CFG_ERR(err, name, line, "%s: too long", d->key);
        strcpy(p, v);
        return CUZK_OK;
    case K_U64:
        if (!parse_u64(v, &x, 0)) return CFG_ERR(err, name, line, "%s: expected an integer", d->key);
        memcpy(p, &x, sizeof x);
        if (d->off == offsetof(cuzk_server_circuit, setup_seed))
            ((cuzk_server_circuit *)base)->has_seed = 1;
        return CUZK_OK;
    case K_SIZE:
        if (!parse_u64(v, &x, 1))
            return CFG_ERR(err, name, line, "%s: expected bytes (N, NK, NM or NG)", d->key);
        memcpy(p, &x, sizeof x);
        return CUZK_OK;
    case K_UINT:
        if (!parse_u64(v, &x, 0) || x > d->cap)
            return CFG_ERR(err, name, line, "%s: expected an integer from 0 to %zu", d->key, d->cap);
        *(unsigned *)p = (unsigned)x;
        return CUZK_OK;
    case K_BOOL:
        if (!strcmp(v, "yes") || !strcmp(v, "true") || !strcmp(v, "1")) *(int *)p = 1;
        else if (!strcmp(v, "no") || !strcmp(v, "false") || !strcmp(v, "0")) *(int *)p = 0;
        else return CFG_ERR(err, name, line, "%s: expected yes or no", d->key);
        return CUZK_OK;
    }
    return CUZK_OK;
}

static char *trim(char *s)
{
    while (*s == ' ' || *s == '\t') s++;
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r')) s[--n] = 0;
    return s;
}

/* A finished [circuit] section must name exactly one key source. */
static cuzk_status check_circuit(const cuzk_server_circuit *ci, const char *name, unsigned line,
                                 char *err)
{
    if (!ci->builtin[0] && !ci->key[0])
        return CFG_ERR(err, name, line, "[circuit %s]: give builtin or key", ci->name);
    if (!ci->builtin[0] && (ci->pce[0] || ci->has_seed))
        return CFG_ERR(err, name, line, "[circuit %s]: pce and setup_seed go with builtin",
                       ci->name);
    if (ci->builtin[0] && ci->log_size && ci->log_size < 10)
        return CFG_ERR(err, name, line, "[circuit %s]: size: 0 (full) or 10..27", ci->name);
    return CUZK_OK;
}

cuzk_status cuzk_server_config_parse(cuzk_server_config *c, const char *text, size_t len,
                                     const char *name, char *err)
{
    if (err) err[0] = 0;
    char *buf = malloc(len + 1);
    if (!buf) return CUZK_ERR_NO_MEMORY;
    memcpy(buf, text, len);
    buf[len] = 0;
    cuzk_status s = CUZK_OK;
    const char *nul = memchr(text, 0, len);
    if (nul) { /* a binary file given by mistake */
        unsigned at = 1;
        for (const char *p = text; p < nul; p++) at += *p == '\n';
        free(buf);
        return CFG_ERR(err, name, at, "a NUL byte: not a text file");
    }
    const char *section = "server";
    cuzk_server_circuit *ci = NULL;
    unsigned line = 0, ci_line = 0;
    int own_circuits = 0;
    char *next = buf;
    while (next && s == CUZK_OK) {
        char *l = next;
        line++;
        if ((next = strchr(l, '\n'))) *next++ = 0;
        char *hash = strchr(l, '#');
        if (hash) *hash = 0;
        l = trim(l);
        if (!*l) continue;
        if (*l == '[') {
            char *end = strchr(l, ']');
            if (!end || *trim(end + 1)) {
                s = CFG_ERR(err, name, line, "expected [section]");
                break;
            }
            *end = 0;
            char *sec = trim(l + 1);
            if (ci && (s = check_circuit(ci, name, ci_line, err)) != CUZK_OK) break;
            ci = NULL;
            if (!strcmp(sec, "server") || !strcmp(sec, "engine")) {
                section = !strcmp(sec, "server") ? "server" : "engine";
            } else if (!strncmp(sec, "circuit", 7) && (sec[7] == ' ' || sec[7] == '\t')) {
                char *id = trim(sec + 7);
                if (!own_circuits) { /* the config's circuits replace the defaults */
                    c->n_circuits = 0;
                    own_circuits = 1;
                }
                size_t n = strlen(id);
                int ok = n > 0 && n < CUZK_STORE_ID_LEN;
                for (size_t i = 0; ok && i < n; i++) ok = id[i] > ' ' && id[i] <= '~';
                if (!ok) {
                    s = CFG_ERR(err, name, line, "[circuit ID]: ID is 1..%d printable characters",
                                CUZK_STORE_ID_LEN - 1);
                    break;
                }
                for (size_t i = 0; i < c->n_circuits; i++)
                    if (!strcmp(c->circuits[i].name, id)) {
                        s = CFG_ERR(err, name, line, "circuit %s defined twice", id);
                        break;
                    }
                if (s != CUZK_OK) break;
                if (c->n_circuits == CUZK_SERVER_MAX_CIRCUITS) {
                    s = CFG_ERR(err, name, line, "more than %d circuits", CUZK_SERVER_MAX_CIRCUITS);
                    break;
                }
                ci = &c->circuits[c->n_circuits++];
                memset(ci, 0, sizeof *ci);
                strcpy(ci->name, id);
                ci->log_size = 10;
                ci_line = line;
                section = "circuit";
            } else {
                s = CFG_ERR(err, name, line, "unknown section [%.64s]", sec);
            }
            continue;
        }
        char *eq = strchr(l, '=');
        if (!eq) {
            s = CFG_ERR(err, name, line, "expected key = value");
            break;
        }
        *eq = 0;
        char *k = trim(l), *v = trim(eq + 1);
        const keydef *tab = ci ? circuit_keys : keys;
        size_t n = ci ? sizeof circuit_keys / sizeof circuit_keys[0] : sizeof keys / sizeof keys[0];
        const keydef *d = NULL;
        for (size_t i = 0; i < n && !d; i++)
            if (!strcmp(tab[i].section, section) && !strcmp(tab[i].key, k)) d = &tab[i];
        if (!d) {
            s = CFG_ERR(err, name, line, "unknown key \"%.64s\" in [%s]", k, section);
            break;
        }
        s = set_key(ci ? (void *)ci : (void *)c, d, v, name, line, err);
        if (s == CUZK_OK && !strcmp(section, "engine")) { /* the engine's own rules */
            cuzk_engine_config ec;
            char e2[CUZK_ERRMSG_LEN];
            cuzk_server_config_engine(c, &ec);
            if (cuzk_engine_config_check(&ec, e2) != CUZK_OK)
                s = CFG_ERR(err, name, line, "%s", e2);
        }
    }
    if (s == CUZK_OK && ci) s = check_circuit(ci, name, ci_line, err);
    if (s == CUZK_OK && c->tcp[0] && !c->token_file[0])
        s = CFG_ERR(err, name, line, "tcp needs token_file: TCP clients must authenticate");
    if (s == CUZK_OK && !c->http_threads) s = CFG_ERR(err, name, line, "http_threads: at least 1");
    free(buf);
    return s;
}

cuzk_status cuzk_server_config_load(cuzk_server_config *c, const char *path, char *err)
{
    cuzk_blob b = {0};
    char e[CUZK_ERRMSG_LEN];
    if (cuzk_blob_read(&b, path, e) != CUZK_OK)
        return cuzk_errf(err, CUZK_ERR_IO, "config: ", "%s", e);
    cuzk_status s = cuzk_server_config_parse(c, (const char *)b.data, b.size, path, err);
    cuzk_blob_release(&b);
    return s;
}
