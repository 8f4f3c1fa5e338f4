/* Whole files in memory (mapped or read); writing is outfile.c. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "formats/fmt_internal.h"

enum { BLOB_NONE = 0, BLOB_MMAP = 1, BLOB_MALLOC = 2 };

static const uint64_t empty_file[1]; /* aligned like a mapping */

cuzk_status cuzk_blob_map(cuzk_blob *b, const char *path, char *err)
{
    fmt_clear(err);
    if (!b || !path) return fmt_fail(err, CUZK_ERR_INVALID_ARGUMENT, "blob: NULL argument");
    memset(b, 0, sizeof *b);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return fmt_fail(err, CUZK_ERR_IO, "%s: %s", path, strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        return fmt_fail(err, CUZK_ERR_IO, "%s: %s", path, strerror(e));
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        return fmt_fail(err, CUZK_ERR_IO, "%s: not a regular file (this file must be mappable)", path);
    }
    if (st.st_size == 0) {
        close(fd);
        b->data = (const uint8_t *)empty_file;
        return CUZK_OK;
    }
    if ((uint64_t)st.st_size > SIZE_MAX) {
        close(fd);
        return fmt_fail(err, CUZK_ERR_NO_MEMORY, "%s: too large to map", path);
    }
    void *p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    int e = errno;
    close(fd);
    if (p == MAP_FAILED)
        return fmt_fail(err, e == ENOMEM ? CUZK_ERR_NO_MEMORY : CUZK_ERR_IO, "%s: mmap: %s",
                        path, strerror(e));
    b->data = p;
    b->size = (size_t)st.st_size;
    b->base_ = p;
    b->len_ = (size_t)st.st_size;
    b->kind_ = BLOB_MMAP;
    return CUZK_OK;
}

cuzk_status cuzk_blob_read(cuzk_blob *b, const char *path, char *err)
{
    fmt_clear(err);
    if (!b || !path) return fmt_fail(err, CUZK_ERR_INVALID_ARGUMENT, "blob: NULL argument");
    memset(b, 0, sizeof *b);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return fmt_fail(err, CUZK_ERR_IO, "%s: %s", path, strerror(errno));
    struct stat st;
    size_t cap = 1 << 16;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 &&
        (uint64_t)st.st_size < SIZE_MAX)
        cap = (size_t)st.st_size + 1; /* +1: see EOF without a second grow */
    uint8_t *buf = malloc(cap);
    size_t n = 0;
    if (!buf) {
        close(fd);
        return fmt_fail(err, CUZK_ERR_NO_MEMORY, "%s: cannot allocate %zu bytes", path, cap);
    }
    for (;;) {
        if (n == cap) {
            size_t ncap = cap > SIZE_MAX / 2 ? SIZE_MAX : cap * 2;
            uint8_t *nb = ncap > cap ? realloc(buf, ncap) : NULL;
            if (!nb) {
                free(buf);
                close(fd);
                return fmt_fail(err, CUZK_ERR_NO_MEMORY, "%s: out of memory after %zu bytes",
                                path, n);
            }
            buf = nb;
            cap = ncap;
        }
        ssize_t r = read(fd, buf + n, cap - n);
        if (r < 0) {
            if (errno == EINTR) continue;
            int e = errno;
            free(buf);
            close(fd);
            return fmt_fail(err, CUZK_ERR_IO, "%s: read: %s", path, strerror(e));
        }
        if (r == 0) break;
        n += (size_t)r;
    }
    close(fd);
    b->data = buf;
    b->size = n;
    b->base_ = buf;
    b->len_ = cap;
    b->kind_ = BLOB_MALLOC;
    return CUZK_OK;
}

cuzk_status cuzk_blob_drop_pages(const cuzk_blob *b)
{
    if (!b || b->kind_ != BLOB_MMAP || !b->len_) return CUZK_OK;
    /* The mapping is read-only and private, never written: the pages
     * dropped are the file's, and a later read faults them back in. */
    return madvise(b->base_, b->len_, MADV_DONTNEED) == 0 ? CUZK_OK : CUZK_ERR_IO;
}

void cuzk_blob_release(cuzk_blob *b)
{
    if (!b) return;
    if (b->kind_ == BLOB_MMAP) munmap(b->base_, b->len_);
    if (b->kind_ == BLOB_MALLOC) free(b->base_);
    memset(b, 0, sizeof *b);
}
