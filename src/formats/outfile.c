/* Output files (formats.h: cuzk_out): the one way every cuzk writer puts
 * bytes at a path. A regular file (or a new one) is replaced atomically
 * through a temporary in its directory; a device or FIFO is written in
 * place, because renaming over it would replace a device node (/dev/null)
 * with a regular file; a symlink is followed so that its target, not the
 * link, gets the new content. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "formats/fmt_internal.h"

/* The symlinks followed by hand before ELOOP (the kernel's own limit). */
#define MAX_HOPS 40

char *cuzk_out_target(const char *path)
{
    if (!path || !*path) {
        errno = ENOENT;
        return NULL;
    }
    struct stat st;
    if (stat(path, &st) == 0) {
        /* A device or FIFO is opened by the path given: /dev/stdout is a
         * link into /proc whose target ("pipe:[..]") is no path at all. */
        if (!S_ISREG(st.st_mode)) return strdup(path);
        return realpath(path, NULL);
    }
    /* Nothing there, or a dangling link: follow the links by hand to the
     * file that writing would create. */
    char *cur = strdup(path);
    for (int hop = 0; cur && hop < MAX_HOPS; hop++) {
        char buf[PATH_MAX];
        if (lstat(cur, &st) != 0 || !S_ISLNK(st.st_mode)) return cur;
        ssize_t n = readlink(cur, buf, sizeof buf - 1);
        if (n <= 0) {
            free(cur);
            return NULL;
        }
        buf[n] = 0;
        /* A relative target is relative to the link's directory. */
        const char *slash = strrchr(cur, '/');
        size_t dl = buf[0] == '/' || !slash ? 0 : (size_t)(slash - cur) + 1;
        char *next = malloc(dl + (size_t)n + 1);
        if (next) {
            memcpy(next, cur, dl);
            memcpy(next + dl, buf, (size_t)n + 1);
        }
        free(cur);
        cur = next;
    }
    if (cur) {
        free(cur);
        errno = ELOOP;
    } else {
        errno = ENOMEM;
    }
    return NULL;
}

/* Following /dev/stdout's link to a regular file would replace (or reopen
 * and truncate) the file the shell redirected stdout to, losing what was
 * written there before: such paths are written through the descriptor. */
int cuzk_out_fd(const char *path)
{
    if (!strcmp(path, "/dev/stdout")) return 1;
    if (!strcmp(path, "/dev/stderr")) return 2;
    const char *num = !strncmp(path, "/dev/fd/", 8)         ? path + 8
                      : !strncmp(path, "/proc/self/fd/", 14) ? path + 14
                                                             : NULL;
    if (!num || *num < '0' || *num > '9') return -1;
    char *end;
    long n = strtol(num, &end, 10);
    return *end || n > INT_MAX ? -1 : (int)n;
}

static void out_release(cuzk_out *o)
{
    free(o->path);
    free(o->target);
    free(o->tmp);
    memset(o, 0, sizeof *o);
    o->fd = -1;
}

cuzk_status cuzk_out_open(cuzk_out *o, const char *path, char *err)
{
    fmt_clear(err);
    if (!o) return fmt_fail(err, CUZK_ERR_INVALID_ARGUMENT, "output: NULL argument");
    memset(o, 0, sizeof *o);
    o->fd = -1;
    if (!path) return fmt_fail(err, CUZK_ERR_INVALID_ARGUMENT, "output: NULL argument");
    if (!(o->path = strdup(path))) {
        out_release(o);
        return fmt_fail(err, CUZK_ERR_NO_MEMORY, "%s: out of memory", path);
    }
    int sfd = cuzk_out_fd(path);
    if (sfd >= 0) {
        fflush(NULL); /* what stdio holds comes first, as it was printed first */
        o->in_place = 1;
        if ((o->fd = fcntl(sfd, F_DUPFD_CLOEXEC, 3)) < 0) {
            int e = errno;
            out_release(o);
            return fmt_fail(err, CUZK_ERR_IO, "%s: %s", path, strerror(e));
        }
        return CUZK_OK;
    }
    if (!(o->target = cuzk_out_target(path))) {
        int e = errno;
        out_release(o);
        return fmt_fail(err, e == ENOMEM ? CUZK_ERR_NO_MEMORY : CUZK_ERR_IO, "%s: %s", path,
                        strerror(e));
    }
    struct stat st;
    int exists = stat(o->target, &st) == 0;
    if (!exists && errno != ENOENT) {
        int e = errno;
        out_release(o);
        return fmt_fail(err, CUZK_ERR_IO, "%s: %s", path, strerror(e));
    }
    if (exists && S_ISDIR(st.st_mode)) {
        out_release(o);
        return fmt_fail(err, CUZK_ERR_IO, "%s: is a directory, not a file", path);
    }
    if (exists && S_ISSOCK(st.st_mode)) {
        out_release(o);
        return fmt_fail(err, CUZK_ERR_IO, "%s: is a socket, not a file", path);
    }
    if (exists && !S_ISREG(st.st_mode)) { /* device or FIFO: in place */
        o->in_place = 1;
        o->fd = open(o->target, O_WRONLY | O_CLOEXEC | O_NOCTTY);
        if (o->fd < 0) {
            int e = errno;
            out_release(o);
            return fmt_fail(err, CUZK_ERR_IO, "%s: %s", path, strerror(e));
        }
        return CUZK_OK;
    }
    size_t tl = strlen(o->target) + 32;
    if (!(o->tmp = malloc(tl))) {
        out_release(o);
        return fmt_fail(err, CUZK_ERR_NO_MEMORY, "%s: out of memory", path);
    }
    snprintf(o->tmp, tl, "%s.tmp.%ld", o->target, (long)getpid());
    /* A leftover of a crashed run with our pid is ours to replace; O_EXCL
     * then makes sure nothing (a planted link) sits there. */
    unlink(o->tmp);
    o->fd = open(o->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (o->fd < 0) {
        int e = errno;
        out_release(o);
        return fmt_fail(err, CUZK_ERR_IO, "%s: %s", path, strerror(e));
    }
    /* The replacement keeps the file's permissions; best effort (a file
     * of another owner may refuse), the content matters more. */
    if (exists) (void)fchmod(o->fd, st.st_mode & 07777);
    return CUZK_OK;
}

cuzk_status cuzk_out_write(cuzk_out *o, const void *data, size_t len, char *err)
{
    fmt_clear(err);
    if (!o || !o->path || o->fd < 0 || (!data && len))
        return fmt_fail(err, CUZK_ERR_INVALID_ARGUMENT, "output: not open");
    const uint8_t *p = data;
    while (len) {
        ssize_t w = write(o->fd, p, len);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0)
            return fmt_fail(err, CUZK_ERR_IO, "%s: write: %s", o->path,
                            strerror(w < 0 ? errno : EIO));
        p += w;
        len -= (size_t)w;
    }
    return CUZK_OK;
}

/* Makes the rename itself durable; best effort (some file systems refuse
 * to fsync a directory, and the data is already safe). */
static void sync_dir_of(const char *target)
{
    const char *slash = strrchr(target, '/');
    char *dir = slash ? strndup(target, slash == target ? 1 : (size_t)(slash - target))
                      : strdup(".");
    if (!dir) return;
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) {
        (void)fsync(fd);
        close(fd);
    }
    free(dir);
}

cuzk_status cuzk_out_close(cuzk_out *o, char *err)
{
    fmt_clear(err);
    if (!o || !o->path || o->fd < 0)
        return fmt_fail(err, CUZK_ERR_INVALID_ARGUMENT, "output: not open");
    cuzk_status s = CUZK_OK;
    /* fsync before rename: after a crash the path holds the old or the new
     * content, never a torn file. A device or FIFO has nothing to sync. */
    if (!o->in_place && fsync(o->fd) != 0)
        s = fmt_fail(err, CUZK_ERR_IO, "%s: fsync: %s", o->path, strerror(errno));
    if (close(o->fd) != 0 && s == CUZK_OK)
        s = fmt_fail(err, CUZK_ERR_IO, "%s: close: %s", o->path, strerror(errno));
    o->fd = -1;
    if (s == CUZK_OK && !o->in_place) {
        if (rename(o->tmp, o->target) != 0)
            s = fmt_fail(err, CUZK_ERR_IO, "%s: rename: %s", o->path, strerror(errno));
        else
            sync_dir_of(o->target);
    }
    if (s != CUZK_OK && o->tmp) unlink(o->tmp);
    out_release(o);
    return s;
}

void cuzk_out_abort(cuzk_out *o)
{
    if (!o || !o->path) return;
    if (o->fd >= 0) close(o->fd);
    if (o->tmp) unlink(o->tmp);
    out_release(o);
}

cuzk_status cuzk_file_write(const char *path, const void *data, size_t len, char *err)
{
    fmt_clear(err);
    if (!path || (!data && len)) return fmt_fail(err, CUZK_ERR_INVALID_ARGUMENT, "NULL argument");
    cuzk_out o;
    cuzk_status s = cuzk_out_open(&o, path, err);
    if (s != CUZK_OK) return s;
    if ((s = cuzk_out_write(&o, data, len, err)) != CUZK_OK) {
        cuzk_out_abort(&o);
        return s;
    }
    return cuzk_out_close(&o, err);
}
