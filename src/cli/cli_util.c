/* cuzk — the command-line tool: helpers shared by the commands (cli.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <cuzk/pool.h>

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
    if (end == arg || *end || v < 0 || v > CUZK_POOL_MAX_THREADS) {
        cli_fail("--threads", "expects 0 (every core) to 256");
        return 0;
    }
    /* The process's one pool gets this size before any parallel work. */
    if (cuzk_pool_init((unsigned)v) != CUZK_OK) {
        cli_fail("--threads", "given twice with different values");
        return 0;
    }
    *out = (unsigned)v;
    return 1;
}

/* What an output path names, for cli_check_paths. */
typedef struct {
    int kind;        /* 0 new file, 1 regular file, 2 device or FIFO */
    dev_t dev;       /* kind 1 */
    ino_t ino;
    char *name;      /* kind 0: the canonical path it will have; malloc'd */
} out_id;

/* Fills id for output p; 0 with a message if it cannot be written. */
static int out_identify(const char *cmd, const cli_path *p, out_id *id)
{
    memset(id, 0, sizeof *id);
    if (cuzk_out_fd(p->path) >= 0) { /* written through the descriptor, in place */
        id->kind = 2;
        return 1;
    }
    char *t = cuzk_out_target(p->path);
    struct stat st;
    if (!t) {
        fprintf(stderr, "cuzk: %s: %s %s: %s\n", cmd, p->flag, p->path, strerror(errno));
        return 0;
    }
    if (stat(t, &st) == 0) {
        free(t);
        if (S_ISDIR(st.st_mode) || S_ISSOCK(st.st_mode)) {
            fprintf(stderr, "cuzk: %s: %s %s: is a %s, not a file\n", cmd, p->flag, p->path,
                    S_ISDIR(st.st_mode) ? "directory" : "socket");
            return 0;
        }
        id->kind = S_ISREG(st.st_mode) ? 1 : 2;
        id->dev = st.st_dev;
        id->ino = st.st_ino;
        return 1;
    }
    /* A new file: two outputs are the same when their directories (links
     * resolved) and names are. */
    char *slash = strrchr(t, '/');
    const char *base = slash ? slash + 1 : t;
    if (slash == t) { /* "/name" */
        id->name = strdup(t);
    } else {
        if (slash) *slash = 0;
        char *dir = realpath(slash ? t : ".", NULL);
        if (!dir) {
            fprintf(stderr, "cuzk: %s: %s %s: its directory: %s\n", cmd, p->flag, p->path,
                    strerror(errno));
            free(t);
            return 0;
        }
        size_t n = strlen(dir) + strlen(base) + 2;
        if ((id->name = malloc(n))) snprintf(id->name, n, "%s/%s", dir, base);
        free(dir);
    }
    free(t);
    if (!id->name) {
        fprintf(stderr, "cuzk: %s: out of memory\n", cmd);
        return 0;
    }
    return 1;
}

int cli_check_paths(const char *cmd, const cli_path *in, size_t n_in, const cli_path *out,
                    size_t n_out)
{
    out_id ids[8];
    size_t n = 0;
    int ok = 1;
    if (n_out > sizeof ids / sizeof ids[0]) { /* a command has at most 4 */
        cli_fail(cmd, "too many outputs");
        return 0;
    }
    for (size_t i = 0; ok && i < n_out; i++) {
        out_id *id = &ids[n];
        if (!out[i].path) continue;
        if (!(ok = out_identify(cmd, &out[i], id))) break;
        n++;
        /* Only a regular file can lose data: a device or FIFO takes both. */
        for (size_t j = 0; ok && id->kind == 1 && j < n_in; j++) {
            struct stat st;
            if (in[j].path && stat(in[j].path, &st) == 0 && S_ISREG(st.st_mode) &&
                st.st_dev == id->dev && st.st_ino == id->ino) {
                fprintf(stderr, "cuzk: %s: %s %s is the same file as the input %s %s: "
                        "writing it would destroy the input\n", cmd, out[i].flag, out[i].path,
                        in[j].flag, in[j].path);
                ok = 0;
            }
        }
        for (size_t j = 0, k = 0; ok && j < i; j++) {
            if (!out[j].path) continue;
            const out_id *o = &ids[k++];
            int same = id->kind == 1 ? o->kind == 1 && o->dev == id->dev && o->ino == id->ino
                       : id->kind == 0 ? o->kind == 0 && !strcmp(o->name, id->name)
                                       : 0;
            if (same) {
                fprintf(stderr, "cuzk: %s: %s %s and %s %s are the same file: one output "
                        "would replace the other\n", cmd, out[j].flag, out[j].path,
                        out[i].flag, out[i].path);
                ok = 0;
            }
        }
    }
    for (size_t i = 0; i < n; i++) free(ids[i].name);
    return ok;
}
