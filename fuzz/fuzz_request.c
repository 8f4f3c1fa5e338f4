/* libFuzzer target: the daemon's job request parser (cuzk_api_parse_job),
 * on the bytes a client sends. The input's first line is the query string
 * ("circuit=x&priority=high"), the rest is the body (JSON, or a .wtns
 * told by its magic). Checked: every rejection has a message; an accepted
 * request has exactly one witness source, a circuit, a priority in range,
 * and its inputs are a JSON object or array. The body also goes to the
 * circuit registration parser (cuzk_api_parse_circuit). */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include <cuzk/server.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *nl = memchr(data, '\n', size);
    size_t qlen = nl ? (size_t)(nl - data) : 0;
    const uint8_t *body = nl ? nl + 1 : data;
    size_t blen = size - (nl ? qlen + 1 : 0);

    /* The query, split on '&' and '=' as libmicrohttpd would (no
     * percent-decoding: the parser sees decoded values anyway). */
    char *q = malloc(qlen + 1);
    if (!q) return 0;
    memcpy(q, data, qlen);
    q[qlen] = 0;
    cuzk_api_arg args[8];
    size_t n = 0;
    for (char *p = q, *amp; p && *p && n < 8; p = amp) {
        if ((amp = strchr(p, '&'))) *amp++ = 0;
        char *eq = strchr(p, '=');
        if (eq) *eq++ = 0;
        args[n++] = (cuzk_api_arg){p, eq};
    }
    /* A copy of exactly blen bytes, so that ASan sees any over-read. */
    uint8_t *b = malloc(blen ? blen : 1);
    if (!b) {
        free(q);
        return 0;
    }
    memcpy(b, body, blen);

    char err[CUZK_ERRMSG_LEN];
    cuzk_api_job j;
    if (cuzk_api_parse_job(&j, b, blen, args, n, err) == CUZK_OK) {
        int sources = !!j.inputs + !!j.wtns_path + !!j.wtns;
        if (sources != 1 || !j.circuit[0] || j.priority < CUZK_PRIO_LOW ||
            j.priority > CUZK_PRIO_CRITICAL)
            abort();
        if (j.inputs) {
            json_t *v = json_loadb(j.inputs, j.inputs_len, 0, NULL);
            if (!json_is_object(v) && !json_is_array(v)) abort();
            json_decref(v);
        }
        if (j.wtns && (j.wtns != b || j.wtns_len != blen)) abort();
        cuzk_api_job_free(&j);
    } else if (!err[0]) {
        abort();
    }
    cuzk_api_circuit ci;
    if (cuzk_api_parse_circuit(&ci, b, blen, err) == CUZK_OK) {
        if (!ci.key_path && !ci.builtin) abort();
        cuzk_api_circuit_free(&ci);
    } else if (!err[0]) {
        abort();
    }
    unsigned w;
    if (cuzk_api_parse_wait(q, 3600, &w, err) == CUZK_OK ? w > 3600 : !err[0]) abort();
    free(b);
    free(q);
    return 0;
}
