/* cuzk — the command-line tool: helpers shared by the commands (cli.h). */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "cli.h"

double cli_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

int cli_fail(const char *what, const char *detail)
{
    fprintf(stderr, "cuzk: %s: %s\n", what, detail);
    return EXIT_UNUSABLE;
}

int cli_read_file(cuzk_blob *b, const char *path)
{
    char err[CUZK_ERRMSG_LEN];
    if (cuzk_blob_read(b, path, err) != CUZK_OK) {
        fprintf(stderr, "cuzk: %s\n", err);
        return 0;
    }
    return 1;
}

int cli_parse_threads(const char *arg, unsigned *out)
{
    char *end;
    long v = strtol(arg, &end, 10);
    if (end == arg || *end || v < 0 || v > 1024) {
        cli_fail("--threads", "expects 0..1024");
        return 0;
    }
    *out = (unsigned)v;
    return 1;
}
