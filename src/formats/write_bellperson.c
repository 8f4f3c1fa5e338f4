/* bellperson .vk and .params writers to a path (formats.md §3): the
 * encoders of bellperson.c (cuzk_bp_vk_encode, cuzk_bp_params_write) with
 * the output of every cuzk writer (cuzk_out: atomic for a regular file, in
 * place for a device or FIFO); on failure path is untouched. */
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
    cuzk_out o;
    cuzk_status s = cuzk_out_open(&o, path, err);
    if (s != CUZK_OK) return s;
    /* The encoder writes to a FILE: a stream over a duplicate of the
     * output's descriptor, closed before cuzk_out_close syncs and renames. */
    int fd = dup(o.fd);
    FILE *f = fd >= 0 ? fdopen(fd, "wb") : NULL;
    if (!f) {
        s = fmt_fail(err, CUZK_ERR_IO, "params: %s: %s", path, strerror(errno));
        if (fd >= 0) close(fd);
        cuzk_out_abort(&o);
        return s;
    }
    setvbuf(f, NULL, _IOFBF, PARAMS_BUF);
    s = cuzk_bp_params_write(f, src, err);
    if (s == CUZK_OK && fflush(f) != 0)
        s = fmt_fail(err, CUZK_ERR_IO, "params: %s: write: %s", path, strerror(errno));
    if (fclose(f) != 0 && s == CUZK_OK)
        s = fmt_fail(err, CUZK_ERR_IO, "params: %s: close: %s", path, strerror(errno));
    if (s != CUZK_OK) {
        cuzk_out_abort(&o);
        return s;
    }
    return cuzk_out_close(&o, err);
}
