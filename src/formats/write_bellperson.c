/* bellperson .vk and .params writers to a path (formats.md §3): the
 * encoders of bellperson.c (cuzk_bp_vk_encode, cuzk_bp_params_write) with
 * the atomic write of every cuzk writer: a temporary "path.tmp.<pid>",
 * fsync, rename; on failure the temporary is removed and path untouched. */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "formats/fmt_internal.h"

cuzk_status cuzk_bp_vk_write(const char *path, const cuzk_vk *vk, char *err)
{
    fmt_clear(err);
    if (!path || !vk) return fmt_fail(err, CUZK_ERR_INVALID_ARGUMENT, "vk: NULL argument");
    size_t n = cuzk_bp_vk_size(vk);
    uint8_t *b = malloc(n);
    if (!b) return fmt_fail(err, CUZK_ERR_NO_MEMORY, "vk: out of memory");
    cuzk_status s = cuzk_bp_vk_encode(b, vk, err);
    if (s == CUZK_OK) s = cuzk_file_write(path, b, n, err);
    free(b);
    return s;
}

/* A write buffer of 8 MiB: the encoder hands fwrite 6-12 MiB at a time. */
#define PARAMS_BUF ((size_t)8 << 20)

cuzk_status cuzk_bp_params_write_path(const char *path, const cuzk_bp_params_src *src,
                                      char *err)
{
    fmt_clear(err);
    if (!path || !src) return fmt_fail(err, CUZK_ERR_INVALID_ARGUMENT, "params: NULL argument");
    size_t pl = strlen(path);
    char *tmp = malloc(pl + 32);
    if (!tmp) return fmt_fail(err, CUZK_ERR_NO_MEMORY, "params: out of memory");
    snprintf(tmp, pl + 32, "%s.tmp.%ld", path, (long)getpid());
    FILE *f = fopen(tmp, "wbe");
    if (!f) {
        int e = errno;
        free(tmp);
        return fmt_fail(err, CUZK_ERR_IO, "params: %s: %s", path, strerror(e));
    }
    setvbuf(f, NULL, _IOFBF, PARAMS_BUF);
    cuzk_status s = cuzk_bp_params_write(f, src, err);
    if (s == CUZK_OK && (fflush(f) != 0 || fsync(fileno(f)) != 0))
        s = fmt_fail(err, CUZK_ERR_IO, "params: %s: write: %s", path, strerror(errno));
    if (fclose(f) != 0 && s == CUZK_OK)
        s = fmt_fail(err, CUZK_ERR_IO, "params: %s: close: %s", path, strerror(errno));
    if (s == CUZK_OK && rename(tmp, path) != 0)
        s = fmt_fail(err, CUZK_ERR_IO, "params: %s: rename: %s", path, strerror(errno));
    if (s != CUZK_OK) unlink(tmp);
    free(tmp);
    return s;
}
