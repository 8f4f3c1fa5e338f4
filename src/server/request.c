/* cuzk — the daemon's request parser: bytes in, a checked job request out.
 *
 * Kept apart from the HTTP code so that it sees nothing but bytes (the
 * body and the query arguments) and can be fuzzed (fuzz/fuzz_request.c).
 * Every rejection is CUZK_ERR_INVALID_ARGUMENT with a message naming the
 * field, which the server returns as 400. */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include <cuzk/server.h>

#include "common/errmsg.h"

#define REQ_ERR(err, ...) cuzk_errf(err, CUZK_ERR_INVALID_ARGUMENT, "request: ", __VA_ARGS__)

/* Spelled as engine.h's cuzk_priority_name; kept here so the parser
 * links without the engine (the fuzz target). */
static int priority_parse(const char *s)
{
    static const char *const names[] = {"low", "normal", "high", "critical"};
    for (int i = 0; i < 4; i++)
        if (!strcmp(s, names[i])) return i;
    return -1;
}

void cuzk_api_job_free(cuzk_api_job *j)
{
    free(j->inputs);
    free(j->wtns_path);
    memset(j, 0, sizeof *j);
}

/* An id (circuit, request_id): 1..CUZK_STORE_ID_LEN-1 printable ASCII
 * bytes without spaces, so that it can be logged and used in a URL as is. */
static cuzk_status copy_id(char *dst, const char *what, const char *s, size_t len, char *err)
{
    if (len == 0 || len >= CUZK_STORE_ID_LEN)
        return REQ_ERR(err, "%s: expected 1 to %d characters", what, CUZK_STORE_ID_LEN - 1);
    for (size_t i = 0; i < len; i++)
        if (s[i] <= ' ' || s[i] > '~')
            return REQ_ERR(err, "%s: only printable ASCII without spaces is allowed", what);
    memcpy(dst, s, len);
    dst[len] = 0;
    return CUZK_OK;
}

static cuzk_status set_priority(cuzk_api_job *j, const char *s, char *err)
{
    int p = priority_parse(s);
    if (p < 0) return REQ_ERR(err, "priority: expected low, normal, high or critical");
    j->priority = (cuzk_priority)p;
    return CUZK_OK;
}

/* A JSON body: {"circuit", "priority", "request_id", and one of "inputs",
 * "seed", "wtns_path"}. Unknown fields are refused so a
 * typo ("priorty") is not silently ignored. */
static cuzk_status parse_json(cuzk_api_job *j, const uint8_t *body, size_t len, char *err)
{
    json_error_t je;
    json_t *root = json_loadb((const char *)body, len, JSON_REJECT_DUPLICATES, &je);
    if (!root) return REQ_ERR(err, "malformed JSON at line %d column %d: %s", je.line, je.column, je.text);
    cuzk_status s = CUZK_OK;
    if (!json_is_object(root)) {
        s = REQ_ERR(err, "the body must be a JSON object");
        goto out;
    }
    const char *key;
    json_t *v;
    int have_circuit = 0;
    json_object_foreach(root, key, v) {
        if (!strcmp(key, "circuit") || !strcmp(key, "request_id") || !strcmp(key, "priority") ||
            !strcmp(key, "wtns_path")) {
            if (!json_is_string(v)) {
                s = REQ_ERR(err, "%s: expected a string", key);
                goto out;
            }
            const char *str = json_string_value(v);
            size_t n = json_string_length(v);
            if (strlen(str) != n) {
                s = REQ_ERR(err, "%s: contains a NUL character", key);
                goto out;
            }
            if (!strcmp(key, "circuit")) {
                s = copy_id(j->circuit, key, str, n, err);
                have_circuit = 1;
            } else if (!strcmp(key, "request_id")) {
                s = copy_id(j->request_id, key, str, n, err);
            } else if (!strcmp(key, "priority")) {
                s = set_priority(j, str, err);
            } else {
                if (n == 0 || n >= CUZK_API_PATH_MAX) {
                    s = REQ_ERR(err, "wtns_path: expected 1 to %d bytes", CUZK_API_PATH_MAX - 1);
                    goto out;
                }
                if (!(j->wtns_path = strdup(str))) s = CUZK_ERR_NO_MEMORY;
            }
            if (s != CUZK_OK) goto out;
        } else if (!strcmp(key, "inputs")) {
            if (!json_is_object(v) && !json_is_array(v)) {
                s = REQ_ERR(err, "inputs: expected an object or an array of objects");
                goto out;
            }
            if (j->inputs) {
                s = REQ_ERR(err, "give exactly one of inputs, seed and wtns_path");
                goto out;
            }
            /* Kept as text: the circuit's own reader checks it. */
            if (!(j->inputs = json_dumps(v, JSON_COMPACT))) {
                s = CUZK_ERR_NO_MEMORY;
                goto out;
            }
            j->inputs_len = strlen(j->inputs);
        } else if (!strcmp(key, "seed")) {
            json_int_t x = json_is_integer(v) ? json_integer_value(v) : -1;
            if (x < 0) {
                s = REQ_ERR(err, "seed: expected an integer >= 0");
                goto out;
            }
            if (j->inputs) {
                s = REQ_ERR(err, "give exactly one of inputs, seed and wtns_path");
                goto out;
            }
            char buf[48]; /* every partition's inputs derive from the seed */
            int n = snprintf(buf, sizeof buf, "{\"seed\":%lld}", (long long)x);
            if (!(j->inputs = strdup(buf))) {
                s = CUZK_ERR_NO_MEMORY;
                goto out;
            }
            j->inputs_len = (size_t)n;
        } else {
            s = REQ_ERR(err, "unknown field \"%.64s\"", key);
            goto out;
        }
    }
    if (!have_circuit) {
        s = REQ_ERR(err, "circuit: required");
        goto out;
    }
    if (!j->inputs == !j->wtns_path) s = REQ_ERR(err, "give exactly one of inputs, seed and wtns_path");
out:
    json_decref(root);
    return s;
}

cuzk_status cuzk_api_parse_job(cuzk_api_job *j, const uint8_t *body, size_t len,
                               const cuzk_api_arg *args, size_t n_args, char *err)
{
    memset(j, 0, sizeof *j);
    j->priority = CUZK_PRIO_NORMAL;
    if (err) err[0] = 0;
    cuzk_status s = CUZK_OK;
    /* A .wtns is told apart from JSON by its magic, whatever the
     * Content-Type says: one body is never both. */
    int wtns = len >= 4 && !memcmp(body, "wtns", 4);
    int have_circuit = 0;
    for (size_t i = 0; i < n_args && s == CUZK_OK; i++) {
        const char *k = args[i].key, *v = args[i].value ? args[i].value : "";
        if (!strcmp(k, "wait")) continue; /* the HTTP layer's */
        if (!wtns) {
            s = REQ_ERR(err, "query argument \"%.64s\": only with a .wtns body (a JSON body "
                             "carries its fields)", k);
        } else if (!strcmp(k, "circuit")) {
            s = copy_id(j->circuit, "circuit", v, strlen(v), err);
            have_circuit = 1;
        } else if (!strcmp(k, "request_id")) {
            s = copy_id(j->request_id, "request_id", v, strlen(v), err);
        } else if (!strcmp(k, "priority")) {
            s = set_priority(j, v, err);
        } else {
            s = REQ_ERR(err, "unknown query argument \"%.64s\"", k);
        }
    }
    if (s != CUZK_OK) goto fail;
    if (!wtns) {
        if (len == 0) {
            s = REQ_ERR(err, "empty body: expected a JSON object or a .wtns");
            goto fail;
        }
        if ((s = parse_json(j, body, len, err)) != CUZK_OK) goto fail;
        return CUZK_OK;
    }
    if (!have_circuit) {
        s = REQ_ERR(err, "a .wtns body needs the query argument circuit=ID");
        goto fail;
    }
    /* Checked here so a bad upload is a 400 now, not a failed job later. */
    cuzk_wtns w;
    char werr[CUZK_ERRMSG_LEN];
    if (cuzk_wtns_parse(&w, body, len, werr) != CUZK_OK) {
        s = REQ_ERR(err, "the .wtns body: %s", werr);
        goto fail;
    }
    cuzk_wtns_free(&w);
    j->wtns = body;
    j->wtns_len = len;
    return CUZK_OK;
fail:
    cuzk_api_job_free(j);
    return s;
}

void cuzk_api_circuit_free(cuzk_api_circuit *c)
{
    free(c->name);
    free(c->key_path);
    free(c->builtin);
    free(c->pce_path);
    memset(c, 0, sizeof *c);
}

cuzk_status cuzk_api_parse_circuit(cuzk_api_circuit *c, const uint8_t *body, size_t len,
                                   char *err)
{
    memset(c, 0, sizeof *c);
    if (err) err[0] = 0;
    json_error_t je;
    json_t *root = json_loadb((const char *)body, len, JSON_REJECT_DUPLICATES, &je);
    if (!root) return REQ_ERR(err, "malformed JSON at line %d column %d: %s", je.line, je.column, je.text);
    cuzk_status s = CUZK_OK;
    const char *key;
    json_t *v;
    if (!json_is_object(root)) {
        s = REQ_ERR(err, "the body must be a JSON object");
        goto out;
    }
    json_object_foreach(root, key, v) {
        int is_key = !strcmp(key, "zkey_path") || !strcmp(key, "key_path");
        char **dst = is_key                      ? &c->key_path
                     : !strcmp(key, "name")      ? &c->name
                     : !strcmp(key, "builtin")   ? &c->builtin
                     : !strcmp(key, "pce_path")  ? &c->pce_path
                                                 : NULL;
        if (dst) {
            size_t n = json_is_string(v) ? json_string_length(v) : 0;
            if (!json_is_string(v) || strlen(json_string_value(v)) != n || n == 0 ||
                n >= CUZK_API_PATH_MAX) {
                s = REQ_ERR(err, "%s: expected a string of 1 to %d bytes", key, CUZK_API_PATH_MAX - 1);
                goto out;
            }
            if (*dst) {
                s = REQ_ERR(err, "give one of zkey_path and key_path");
                goto out;
            }
            if (!(*dst = strdup(json_string_value(v)))) {
                s = CUZK_ERR_NO_MEMORY;
                goto out;
            }
        } else if (!strcmp(key, "size")) {
            json_int_t x = json_is_integer(v) ? json_integer_value(v) : -1;
            if (x != 0 && (x < 10 || x > 27)) {
                s = REQ_ERR(err, "size: expected 0 (full) or 10..27");
                goto out;
            }
            c->log_size = (unsigned)x;
        } else if (!strcmp(key, "setup_seed")) {
            if (!json_is_integer(v) || json_integer_value(v) < 0) {
                s = REQ_ERR(err, "setup_seed: expected an integer >= 0");
                goto out;
            }
            c->has_seed = 1;
            c->setup_seed = (uint64_t)json_integer_value(v);
        } else if (!strcmp(key, "preload")) {
            if (!json_is_boolean(v)) {
                s = REQ_ERR(err, "preload: expected true or false");
                goto out;
            }
            c->preload = json_is_true(v);
        } else {
            s = REQ_ERR(err, "unknown field \"%.64s\"", key);
            goto out;
        }
    }
    if (!c->key_path && !c->builtin) s = REQ_ERR(err, "give zkey_path (or key_path, or builtin)");
    else if (!c->builtin && (c->pce_path || c->has_seed))
        s = REQ_ERR(err, "pce_path and setup_seed go with builtin");
out:
    json_decref(root);
    if (s != CUZK_OK) cuzk_api_circuit_free(c);
    return s;
}

cuzk_status cuzk_api_parse_wait(const char *v, unsigned max_s, unsigned *out, char *err)
{
    char *end;
    if (!v || !*v || *v < '0' || *v > '9')
        return REQ_ERR(err, "wait: expected seconds, 0 to %u", max_s);
    unsigned long x = strtoul(v, &end, 10);
    if (*end || x > max_s) return REQ_ERR(err, "wait: expected seconds, 0 to %u", max_s);
    *out = (unsigned)x;
    return CUZK_OK;
}
