/* cuzk-bench's HTTP client for a running `cuzk serve` (libcurl).
 *
 * One bench_client is one connection (kept alive between requests) to one
 * daemon; it is not shared between threads: a thread that talks to the
 * daemon opens its own. Requests are synchronous. */
#ifndef CUZK_BENCH_HTTP_H
#define CUZK_BENCH_HTTP_H

#include <stddef.h>

#include <cuzk/status.h>

/* addr: "unix:PATH" or "http://HOST:PORT"; token may be NULL (sent as "Authorization: Bearer" when set). */
typedef struct bench_client bench_client;
typedef struct { long status; char *body; size_t len; } bench_resp; /* body NUL-terminated; owned, free with bench_resp_free */

/* Opens a client for addr (the address is checked here; nothing is
 * connected until the first request). *c is owned by the caller, closed
 * with bench_client_close. addr and token are copied. Errors:
 * CUZK_ERR_INVALID_ARGUMENT (an address of neither form), CUZK_ERR_NO_MEMORY;
 * err (CUZK_ERRMSG_LEN bytes, may be NULL) says which, prefixed "client: ". */
cuzk_status bench_client_open(bench_client **c, const char *addr, const char *token, char *err);

/* One request: method ("GET", "POST", "DELETE"), path ("/v1/status",
 * with its query), a body of len bytes (NULL/0: none) of content_type (NULL:
 * none sent). timeout_s bounds the whole request (0: no bound). On CUZK_OK,
 * r holds the HTTP status and the body, whatever the status (a 4xx is the
 * daemon's answer, not a transport error): the caller frees it with
 * bench_resp_free. Errors: CUZK_ERR_IO when no answer came (refused
 * connection, no such socket, timeout), err naming the address;
 * CUZK_ERR_NO_MEMORY. On error r is empty. */
cuzk_status bench_request(bench_client *c, const char *method, const char *path, const char *content_type,
                          const void *body, size_t len, long timeout_s, bench_resp *r, char *err);

void bench_resp_free(bench_resp *r);      /* frees r's body; r may be empty */
void bench_client_close(bench_client *c); /* c may be NULL */

/* ---- --addr / --token, shared by every client command ----------------- */

#define BENCH_DEFAULT_ADDR "unix:./cuzk.sock"

typedef struct {
    const char *addr;  /* never NULL after bench_conn_init */
    const char *token; /* NULL: none */
} bench_conn;

/* The defaults: $CUZK_ADDR, else BENCH_DEFAULT_ADDR; $CUZK_TOKEN, else none
 * (an empty variable counts as unset). The strings are borrowed from the
 * environment or argv. */
void bench_conn_init(bench_conn *c);

/* If argv[*i] is "--addr A", "--addr=A", "--token T" or "--token=T", takes
 * it (advancing *i past a separate value) and returns 1; returns 0 when it
 * is another argument, and -1 (a message on stderr naming prog) when the
 * value is missing or empty. */
int bench_conn_arg(bench_conn *c, const char *prog, int argc, char **argv, int *i);

/* The help lines of those two options, for a command's --help. */
#define BENCH_CONN_HELP                                                                    \
    "  --addr ADDR    the daemon: unix:PATH or http://HOST:PORT (default: $CUZK_ADDR, else " \
    BENCH_DEFAULT_ADDR ")\n"                                                               \
    "  --token TOKEN  the bearer token the daemon asks for on TCP (default: $CUZK_TOKEN)\n"

#endif /* CUZK_BENCH_HTTP_H */
