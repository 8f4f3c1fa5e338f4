/* libFuzzer target: the daemon's config file parser
 * (cuzk_server_config_parse) on any bytes, over the embedded default.
 * Checked: every rejection has a message naming the file and a line; an
 * accepted config keeps the parser's promises: the engine's own rules
 * hold (cuzk_engine_config_check), at least one HTTP thread, TCP only with
 * a token file, every circuit with a builtin or a key and a unique name,
 * a builtin's size 0 or 10..27, every string terminated inside its field.
 * The same input parsed again gives the same config. */
#include <stdlib.h>
#include <string.h>

#include <cuzk/engine.h>
#include <cuzk/server.h>

#define TERMINATED(f) (memchr((f), 0, sizeof(f)) != NULL)

static void check_accepted(const cuzk_server_config *c)
{
    cuzk_engine_config ec;
    char err[CUZK_ERRMSG_LEN];
    cuzk_server_config_engine(c, &ec);
    if (cuzk_engine_config_check(&ec, err) != CUZK_OK) abort();
    if (!c->http_threads) abort();
    if (!TERMINATED(c->dir) || !TERMINATED(c->socket) || !TERMINATED(c->store) ||
        !TERMINATED(c->log) || !TERMINATED(c->tcp) || !TERMINATED(c->token_file) ||
        !TERMINATED(c->backend))
        abort();
    if (c->tcp[0] && !c->token_file[0]) abort();
    if (c->n_circuits > CUZK_SERVER_MAX_CIRCUITS) abort();
    for (size_t i = 0; i < c->n_circuits; i++) {
        const cuzk_server_circuit *ci = &c->circuits[i];
        if (!TERMINATED(ci->name) || !TERMINATED(ci->builtin) || !TERMINATED(ci->key) ||
            !TERMINATED(ci->pce))
            abort();
        if (!ci->name[0] || (!ci->builtin[0] && !ci->key[0])) abort();
        if (ci->builtin[0] && ci->log_size && (ci->log_size < 10 || ci->log_size > 27)) abort();
        for (size_t j = 0; j < i; j++)
            if (!strcmp(c->circuits[j].name, ci->name)) abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static cuzk_server_config c, c2; /* ~70 KB each: off the stack */
    char err[CUZK_ERRMSG_LEN];
    cuzk_server_config_default(&c, "/d");
    cuzk_status s = cuzk_server_config_parse(&c, (const char *)data, size, "fuzz", err);
    if (s != CUZK_OK) {
        if (strncmp(err, "config: fuzz:", 13) != 0) abort(); /* names the file and line */
        return 0;
    }
    check_accepted(&c);
    cuzk_server_config_default(&c2, "/d");
    if (cuzk_server_config_parse(&c2, (const char *)data, size, "fuzz", err) != CUZK_OK ||
        memcmp(&c, &c2, sizeof c) != 0)
        abort();
    return 0;
}
