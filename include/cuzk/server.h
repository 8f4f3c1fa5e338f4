/* cuzk — the daemon: an HTTP/1.1 + JSON API over the engine.
 *
 * `cuzk serve` is a thin main around this layer: it reads a config
 * (cuzk_server_config_*), starts a server (cuzk_server_start), waits for
 * SIGTERM/SIGINT and stops it (cuzk_server_stop). The server listens on a
 * unix socket (mode 0600: the file system is the access control) and,
 * optionally, on TCP, where every request must carry
 * "Authorization: Bearer TOKEN", except GET / (the dashboard page, which
 * holds no data and sends the token with each of its API calls:
 * docs/dashboard.md).
 *
 * HTTP is libmicrohttpd (a small pool of polling threads); JSON is
 * jansson. A long poll (GET /v1/jobs/ID?wait=S) does not hold a thread:
 * the connection is suspended (MHD_suspend_connection) and a waker thread
 * resumes it when the job finishes or the wait ends, so 200 waiting
 * clients cost 200 sockets, not 200 threads.
 *
 * The request parser takes bytes only (cuzk_api_parse_job), so that it
 * can be fuzzed without a server (fuzz/fuzz_request.c). */
#ifndef CUZK_SERVER_H
#define CUZK_SERVER_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cuzk/engine.h>
#include <cuzk/status.h>
#include <cuzk/store.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------ requests -- */

#define CUZK_API_PATH_MAX 4096 /* wtns_path, key paths: bytes */

/* One query argument (?key=value), as the HTTP layer decoded it. */
typedef struct {
    const char *key;
    const char *value; /* NULL: given without '=' */
} cuzk_api_arg;

/* A parsed job submission (POST /v1/jobs). Exactly one witness source:
 * inputs (a built-in circuit's inputs: one object, or an array of one per
 * partition; "seed": N becomes {"seed": N}), wtns_path (a .wtns file the
 * daemon reads), or wtns (the request body was a .wtns). */
typedef struct {
    char circuit[CUZK_STORE_ID_LEN];
    char request_id[CUZK_STORE_ID_LEN]; /* "" = none */
    cuzk_priority priority;
    char *inputs;           /* compact JSON text, malloc'd, or NULL */
    size_t inputs_len;
    char *wtns_path;        /* malloc'd, or NULL */
    const uint8_t *wtns;    /* borrowed from the body, or NULL */
    size_t wtns_len;
} cuzk_api_job;

/* Parses a submission: body is a JSON object
 *   {"circuit": ID, "priority": "low|normal|high|critical",
 *    "request_id": STR, and one of "inputs": {...} or [...], "seed": N,
 *    "wtns_path": PATH}
 * (args may then hold only "wait"), or a .wtns image (told by its magic
 * "wtns"), with circuit, priority and request_id as query arguments.
 * Unknown fields or arguments, wrong types and a malformed .wtns are
 * CUZK_ERR_INVALID_ARGUMENT with err set ("request: ..."); nothing is
 * allocated then. On success the caller frees j with cuzk_api_job_free;
 * j->wtns points into body. */
cuzk_status cuzk_api_parse_job(cuzk_api_job *j, const uint8_t *body, size_t len,
                               const cuzk_api_arg *args, size_t n_args, char *err);
void cuzk_api_job_free(cuzk_api_job *j);

/* A parsed circuit registration (POST /v1/circuits): a key file
 * ("zkey_path" or "key_path": a snarkjs .zkey or a .cuzk key), or a
 * built-in circuit ("builtin", "size", "setup_seed", "pce_path"); "name"
 * and "preload" optional. Strings are malloc'd (NULL when absent). */
typedef struct {
    char *name, *key_path, *builtin, *pce_path;
    unsigned log_size;
    int has_seed;
    uint64_t setup_seed;
    int preload;
} cuzk_api_circuit;

/* Parses a registration body as cuzk_api_parse_job does a job's (unknown
 * fields and wrong types: CUZK_ERR_INVALID_ARGUMENT, err set, nothing
 * allocated). The caller frees c with cuzk_api_circuit_free. */
cuzk_status cuzk_api_parse_circuit(cuzk_api_circuit *c, const uint8_t *body, size_t len,
                                   char *err);
void cuzk_api_circuit_free(cuzk_api_circuit *c);

/* A ?wait= value: decimal seconds 0..max_s. */
cuzk_status cuzk_api_parse_wait(const char *v, unsigned max_s, unsigned *out, char *err);

/* -------------------------------------------------------------- config -- */

#define CUZK_SERVER_MAX_CIRCUITS 32

/* A circuit registered at start (cuzk_circuit_spec of engine.h): a
 * built-in one at log_size (a key made by an insecure setup, or key), or a
 * user's key file (key: a snarkjs .zkey or a .cuzk file). */
typedef struct {
    char name[CUZK_STORE_ID_LEN];    /* the id jobs use */
    char builtin[CUZK_STORE_ID_LEN]; /* "porep-32g", ... or "" */
    unsigned log_size;               /* builtin: 10..27, 0 = full size */
    char key[CUZK_API_PATH_MAX];     /* "" = none */
    char pce[CUZK_API_PATH_MAX];     /* builtin: its PCE, optional */
    int has_seed;                    /* builtin setup: seed given */
    uint64_t setup_seed;
    int preload;                     /* make it resident at start */
} cuzk_server_circuit;

/* Everything `cuzk serve` reads from its config file; paths relative to
 * dir. cuzk_server_config_default gives the embedded default. */
typedef struct {
    char dir[CUZK_API_PATH_MAX];        /* --dir, else "." */
    char socket[CUZK_API_PATH_MAX];     /* "cuzk.sock" */
    char store[CUZK_API_PATH_MAX];      /* "cuzk.db"; "" = in memory only */
    char log[CUZK_API_PATH_MAX];        /* "" = stderr, else a file */
    char tcp[128];                      /* "" = none, else "HOST:PORT" */
    char token_file[CUZK_API_PATH_MAX]; /* the TCP bearer token's file */
    uint64_t max_body;                  /* bytes of a request body */
    unsigned http_threads;              /* libmicrohttpd's polling threads */
    unsigned max_wait_s;                /* the longest ?wait= */
    unsigned conn_timeout_s;            /* an idle connection is closed */
    unsigned keep_results_s;            /* finished jobs kept in the store */
    int log_timeline;                   /* write every timeline event to the log */
    unsigned threads;                   /* the process's pool; 0 = every core */
    /* The engine's knobs, copied into cuzk_engine_config (engine.h). */
    char backend[16];
    unsigned devices, provers_per_device, witness_workers, ready_capacity, prove_threads;
    unsigned witness_threads, witness_nice;
    int critical_witness;
    unsigned gpu_ntt_fp64, gpu_msm_fp64, gpu_ntt_full_twiddles;
    unsigned max_batch_size, max_batch_wait_ms, max_attempts;
    int self_verify;
    uint64_t gpu_pool;
    uint64_t budget_host, budget_pinned, budget_device;
    unsigned lease_ms;
    unsigned timeline_capacity, results_keep;
    cuzk_server_circuit circuits[CUZK_SERVER_MAX_CIRCUITS];
    size_t n_circuits;
} cuzk_server_config;

/* The embedded default: socket cuzk.sock and store cuzk.db in dir (NULL:
 * "."), no TCP, backend "auto", the engine's defaults, and the built-in
 * circuits registered at log size 10 under their ids ("porep-32g", ...). */
void cuzk_server_config_default(cuzk_server_config *c, const char *dir);

/* Reads a config file of `key = value` lines over c (start from
 * cuzk_server_config_default): '#' starts a comment, [server], [engine]
 * and [circuit NAME] start sections (the first [circuit] section drops the
 * default circuits). An unknown key or section, a bad value or a repeated
 * circuit is CUZK_ERR_INVALID_ARGUMENT with "config: FILE:LINE: ..." in
 * err. cuzk_server_config_parse does the same on text (tests, fuzzing). */
cuzk_status cuzk_server_config_load(cuzk_server_config *c, const char *path, char *err);
cuzk_status cuzk_server_config_parse(cuzk_server_config *c, const char *text, size_t len,
                                     const char *name, char *err);

/* The engine's config from c's [engine] values (no store, no log: the
 * server adds its own). The parser runs cuzk_engine_config_check on it
 * after every [engine] key, so a file the engine would refuse fails at
 * that key's line, and `cuzk serve --check` says so. */
void cuzk_server_config_engine(const cuzk_server_config *c, cuzk_engine_config *ec);

/* Writes every key with its meaning (`cuzk serve --help`). */
void cuzk_server_config_help(FILE *f);

/* -------------------------------------------------------------- server -- */

typedef struct cuzk_server cuzk_server;

/* Opens the store and the engine, registers the circuits, binds the unix
 * socket (refusing one a live daemon still listens on; a stale one is
 * replaced) and TCP when configured, and starts serving. The caller owns
 * *s (cuzk_server_stop). Errors: CUZK_ERR_IO (sockets, store, files),
 * CUZK_ERR_INVALID_ARGUMENT (config), or the engine's status, err set. */
cuzk_status cuzk_server_start(cuzk_server **s, const cuzk_server_config *c, char *err);

/* Stops: new requests get 503, the engine finishes or persists the work
 * in flight (jobs not finished stay in the store and are re-queued at the
 * next start), waiting clients get their job's state, the sockets close
 * and the socket file is removed. Frees s (NULL is fine). */
void cuzk_server_stop(cuzk_server *s);

#ifdef __cplusplus
}
#endif

#endif /* CUZK_SERVER_H */
