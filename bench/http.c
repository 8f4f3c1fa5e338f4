/* cuzk-bench's HTTP client (bench/http.h) on libcurl's easy interface. */
#include "http.h"

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <curl/curl.h>

struct bench_client {
    CURL *curl;   /* kept between requests: its connection is reused */
    char *addr;   /* as given, for messages */
    char *unix_path; /* NULL on TCP */
    char *base;   /* "http://HOST:PORT" (TCP) or "http://localhost" (unix) */
    char *auth;   /* "Authorization: Bearer TOKEN", or NULL */
};

static void set_err(char *err, const char *fmt, ...)
{
    if (!err) return;
    va_list ap;
    va_start(ap, fmt);
    int n = snprintf(err, CUZK_ERRMSG_LEN, "client: ");
    vsnprintf(err + n, CUZK_ERRMSG_LEN - (size_t)n, fmt, ap);
    va_end(ap);
}

/* curl_global_init is not safe to race: once per process, before any handle. */
static pthread_once_t global_once = PTHREAD_ONCE_INIT;
static CURLcode global_rc = CURLE_FAILED_INIT;
static void global_init(void) { global_rc = curl_global_init(CURL_GLOBAL_DEFAULT); }

static char *dup_str(const char *s, size_t n)
{
    char *d = malloc(n + 1);
    if (!d) return NULL;
    memcpy(d, s, n);
    d[n] = 0;
    return d;
}

cuzk_status bench_client_open(bench_client **out, const char *addr, const char *token, char *err)
{
    if (err) err[0] = 0;
    *out = NULL;
    if (!addr || !addr[0]) {
        set_err(err, "empty daemon address (use unix:PATH or http://HOST:PORT)");
        return CUZK_ERR_INVALID_ARGUMENT;
    }
    bench_client *c = calloc(1, sizeof *c);
    if (!c) goto nomem;
    if (!(c->addr = dup_str(addr, strlen(addr)))) goto nomem;
    if (!strncmp(addr, "unix:", 5)) {
        const char *p = addr + 5;
        if (!p[0]) {
            set_err(err, "address '%.100s': no socket path after 'unix:'", addr);
            bench_client_close(c);
            return CUZK_ERR_INVALID_ARGUMENT;
        }
        if (!(c->unix_path = dup_str(p, strlen(p)))) goto nomem;
        if (!(c->base = dup_str("http://localhost", 16))) goto nomem;
    } else if (!strncmp(addr, "http://", 7)) {
        const char *h = addr + 7;
        size_t n = strlen(h);
        while (n && h[n - 1] == '/') n--; /* "http://h:p/" names the same daemon */
        /* HOST:PORT only: a path would silently prefix every endpoint. */
        if (!n || memchr(h, '/', n) || memchr(h, '?', n) || memchr(h, '@', n)) {
            set_err(err, "address '%.100s': expected http://HOST:PORT", addr);
            bench_client_close(c);
            return CUZK_ERR_INVALID_ARGUMENT;
        }
        if (!(c->base = dup_str(addr, 7 + n))) goto nomem;
    } else {
        set_err(err, "address '%.100s': expected unix:PATH or http://HOST:PORT", addr);
        bench_client_close(c);
        return CUZK_ERR_INVALID_ARGUMENT;
    }
    if (token && token[0]) {
        size_t n = strlen(token);
        if (strpbrk(token, "\r\n")) {
            set_err(err, "the token holds a line break");
            bench_client_close(c);
            return CUZK_ERR_INVALID_ARGUMENT;
        }
        if (!(c->auth = malloc(n + 32))) goto nomem;
        snprintf(c->auth, n + 32, "Authorization: Bearer %s", token);
    }
    pthread_once(&global_once, global_init);
    if (global_rc != CURLE_OK) {
        set_err(err, "libcurl: %s", curl_easy_strerror(global_rc));
        bench_client_close(c);
        return CUZK_ERR_IO;
    }
    if (!(c->curl = curl_easy_init())) goto nomem;
    *out = c;
    return CUZK_OK;
nomem:
    set_err(err, "out of memory");
    bench_client_close(c);
    return CUZK_ERR_NO_MEMORY;
}

void bench_client_close(bench_client *c)
{
    if (!c) return;
    if (c->curl) curl_easy_cleanup(c->curl);
    free(c->addr);
    free(c->unix_path);
    free(c->base);
    free(c->auth);
    free(c);
}

void bench_resp_free(bench_resp *r)
{
    if (!r) return;
    free(r->body);
    r->body = NULL;
    r->len = 0;
    r->status = 0;
}

typedef struct {
    char *p;
    size_t len, cap;
    int oom;
} sink;

static size_t on_data(char *data, size_t size, size_t nmemb, void *arg)
{
    sink *s = arg;
    size_t n = size * nmemb;
    if (s->len + n + 1 > s->cap) {
        size_t cap = s->cap ? s->cap : 4096;
        while (cap < s->len + n + 1) cap *= 2;
        char *p = realloc(s->p, cap);
        if (!p) {
            s->oom = 1;
            return 0; /* curl aborts the transfer */
        }
        s->p = p;
        s->cap = cap;
    }
    memcpy(s->p + s->len, data, n);
    s->len += n;
    return n;
}

/* The message for a request that got no answer. For a unix socket, curl's
 * own text speaks of "localhost port 80": say what is wrong with the path. */
static void no_answer(const bench_client *c, CURLcode rc, const char *curl_msg, char *err)
{
    if (c->unix_path && rc == CURLE_COULDNT_CONNECT) {
        struct stat st;
        if (stat(c->unix_path, &st) != 0)
            set_err(err, "cannot connect to %.120s: %s (is `cuzk serve` running there?)", c->addr,
                    strerror(errno));
        else if (!S_ISSOCK(st.st_mode))
            set_err(err, "cannot connect to %.120s: not a socket", c->addr);
        else
            set_err(err, "cannot connect to %.120s: connection refused (no daemon listening)", c->addr);
        return;
    }
    const char *what = rc == CURLE_COULDNT_CONNECT || rc == CURLE_COULDNT_RESOLVE_HOST
                           ? "cannot connect to"
                           : "no answer from";
    set_err(err, "%s %.120s: %s", what, c->addr, curl_msg[0] ? curl_msg : curl_easy_strerror(rc));
}

static int add_header(struct curl_slist **l, const char *h)
{
    struct curl_slist *n = curl_slist_append(*l, h);
    if (!n) return 0;
    *l = n;
    return 1;
}

cuzk_status bench_request(bench_client *c, const char *method, const char *path, const char *content_type,
                          const void *body, size_t len, long timeout_s, bench_resp *r, char *err)
{
    if (err) err[0] = 0;
    memset(r, 0, sizeof *r);
    size_t ulen = strlen(c->base) + strlen(path) + 1;
    char *url = malloc(ulen);
    if (!url) {
        set_err(err, "out of memory");
        return CUZK_ERR_NO_MEMORY;
    }
    snprintf(url, ulen, "%s%s", c->base, path);

    struct curl_slist *hdr = NULL;
    char ctype[160];
    /* No "Expect: 100-continue" round trip before a .wtns body. */
    int ok = add_header(&hdr, "Expect:");
    if (ok && c->auth) ok = add_header(&hdr, c->auth);
    if (ok && content_type) {
        snprintf(ctype, sizeof ctype, "Content-Type: %s", content_type);
        ok = add_header(&hdr, ctype);
    }
    if (!ok) {
        curl_slist_free_all(hdr);
        free(url);
        set_err(err, "out of memory");
        return CUZK_ERR_NO_MEMORY;
    }

    sink s = {0};
    char cerr[CURL_ERROR_SIZE];
    cerr[0] = 0;
    CURL *k = c->curl;
    curl_easy_reset(k); /* keeps the live connection */
    curl_easy_setopt(k, CURLOPT_URL, url);
    if (c->unix_path) curl_easy_setopt(k, CURLOPT_UNIX_SOCKET_PATH, c->unix_path);
    curl_easy_setopt(k, CURLOPT_NOSIGNAL, 1L); /* threads: no SIGALRM for timeouts */
    curl_easy_setopt(k, CURLOPT_ERRORBUFFER, cerr);
    curl_easy_setopt(k, CURLOPT_HTTPHEADER, hdr);
    curl_easy_setopt(k, CURLOPT_WRITEFUNCTION, on_data);
    curl_easy_setopt(k, CURLOPT_WRITEDATA, &s);
    curl_easy_setopt(k, CURLOPT_CONNECTTIMEOUT, 10L);
    curl_easy_setopt(k, CURLOPT_TIMEOUT, timeout_s > 0 ? timeout_s : 0L);
    if (!strcmp(method, "GET")) {
        curl_easy_setopt(k, CURLOPT_HTTPGET, 1L);
    } else {
        if (!strcmp(method, "POST")) {
            curl_easy_setopt(k, CURLOPT_POST, 1L);
        } else {
            curl_easy_setopt(k, CURLOPT_CUSTOMREQUEST, method);
            if (body) curl_easy_setopt(k, CURLOPT_POST, 1L);
        }
        if (body || !strcmp(method, "POST")) {
            curl_easy_setopt(k, CURLOPT_POSTFIELDS, body ? (const char *)body : "");
            curl_easy_setopt(k, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)(body ? len : 0));
        }
    }
    CURLcode rc = curl_easy_perform(k);
    curl_slist_free_all(hdr);
    free(url);
    if (s.oom || rc != CURLE_OK) {
        free(s.p);
        if (s.oom) {
            set_err(err, "out of memory reading the answer of %.120s", c->addr);
            return CUZK_ERR_NO_MEMORY;
        }
        no_answer(c, rc, cerr, err);
        return CUZK_ERR_IO;
    }
    if (!s.p && !(s.p = malloc(1))) {
        set_err(err, "out of memory");
        return CUZK_ERR_NO_MEMORY;
    }
    s.p[s.len] = 0;
    curl_easy_getinfo(k, CURLINFO_RESPONSE_CODE, &r->status);
    r->body = s.p;
    r->len = s.len;
    return CUZK_OK;
}

/* ---- --addr / --token ------------------------------------------------- */

void bench_conn_init(bench_conn *c)
{
    const char *a = getenv("CUZK_ADDR"), *t = getenv("CUZK_TOKEN");
    c->addr = a && a[0] ? a : BENCH_DEFAULT_ADDR;
    c->token = t && t[0] ? t : NULL;
}

int bench_conn_arg(bench_conn *c, const char *prog, int argc, char **argv, int *i)
{
    static const char *const names[2] = {"--addr", "--token"};
    for (int k = 0; k < 2; k++) {
        size_t n = strlen(names[k]);
        const char *a = argv[*i], *v;
        if (strncmp(a, names[k], n)) continue;
        if (a[n] == '=') {
            v = a + n + 1;
        } else if (a[n] == 0) {
            if (*i + 1 >= argc) {
                fprintf(stderr, "%s: %s needs a value\n", prog, names[k]);
                return -1;
            }
            v = argv[++*i];
        } else {
            continue;
        }
        if (!v[0]) {
            fprintf(stderr, "%s: %s: empty value\n", prog, names[k]);
            return -1;
        }
        if (k == 0) c->addr = v;
        else c->token = v;
        return 1;
    }
    return 0;
}
