/* cuzk-bench store: the SQLite job store's rates on this machine's disk.
 * Each enqueue, lease and complete is a committed transaction (an fsync of
 * the WAL), so the rates are the file system's fsync rate more than
 * SQLite's; the table also shows the calls that commit nothing (get) and
 * the bulk ones (requeue, purge). The store is a fresh file in a temporary
 * directory (--dir: where; default $TMPDIR or /tmp), removed afterwards. */
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cuzk/store.h>

#include "bench.h"

/* A request of the size the engine writes (a JSON object naming files). */
static const char REQUEST[] =
    "{\"circuit\":\"porep-32g\",\"key\":\"/var/lib/cuzk/porep-32g.cuzk\","
    "\"witness\":\"/var/lib/cuzk/in/job.json\",\"partitions\":10,\"priority\":1}";

typedef struct {
    cuzk_store *s;
    int t, jobs, errors;
} worker;

/* enqueue + lease + complete, `jobs` times: the life of a proved job. */
static void *life(void *arg)
{
    worker *w = arg;
    char proof[1920]; /* 10 partitions of 192 bytes */
    memset(proof, 0x5a, sizeof proof);
    for (int i = 0; i < w->jobs; i++) {
        cuzk_store_rec r;
        memset(&r, 0, sizeof r);
        snprintf(r.request_id, sizeof r.request_id, "bench-%d-%d", w->t, i);
        snprintf(r.circuit, sizeof r.circuit, "porep-32g");
        r.request = (char *)REQUEST;
        r.request_len = sizeof REQUEST - 1;
        uint64_t id;
        int existing;
        char err[CUZK_ERRMSG_LEN];
        if (w->s->enqueue(w->s, &r, i, &id, &existing, err) != CUZK_OK ||
            w->s->lease(w->s, id, i + 1000, err) != CUZK_OK ||
            w->s->complete(w->s, id, proof, sizeof proof, i + 1, err) != CUZK_OK) {
            if (!w->errors++) fprintf(stderr, "cuzk-bench store: %s\n", err);
        }
    }
    return NULL;
}

static void rm_store(const char *path) /* path: at most PATH_MAX + 16 bytes */
{
    char p[PATH_MAX + 32];
    unlink(path);
    snprintf(p, sizeof p, "%s-wal", path);
    unlink(p);
    snprintf(p, sizeof p, "%s-shm", path);
    unlink(p);
}

int bench_store(int argc, char **argv)
{
    int jobs = 300, threads = 4;
    const char *where = getenv("TMPDIR");
    if (!where || !*where) where = "/tmp";
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            printf("usage: cuzk-bench store [--jobs N] [--threads T] [--dir DIR]\n"
                   "  N jobs (default 300) enqueued, leased and completed one after the\n"
                   "  other, then by T threads at once (default 4), in a fresh store in DIR;\n"
                   "  then get, requeue_expired and purge over all of them.\n");
            return 0;
        }
        if (!v) {
            fprintf(stderr, "cuzk-bench store: %s needs a value\n", a);
            return 2;
        }
        if (!strcmp(a, "--jobs"))
            jobs = atoi(v);
        else if (!strcmp(a, "--threads"))
            threads = atoi(v);
        else if (!strcmp(a, "--dir"))
            where = v;
        else {
            fprintf(stderr, "cuzk-bench store: unknown option %s\n", a);
            return 2;
        }
        i++;
    }
    if (jobs < 1 || threads < 1 || threads > 64) {
        fprintf(stderr, "cuzk-bench store: --jobs >= 1, --threads 1..64\n");
        return 2;
    }

    char dir[PATH_MAX], path[PATH_MAX + 16];
    snprintf(dir, sizeof dir, "%s/cuzk-bench-store-XXXXXX", where);
    if (!mkdtemp(dir)) {
        perror("cuzk-bench store: mkdtemp");
        return 2;
    }
    snprintf(path, sizeof path, "%s/jobs.db", dir);
    cuzk_store *s;
    char err[CUZK_ERRMSG_LEN];
    if (cuzk_store_open_sqlite(&s, path, err) != CUZK_OK) {
        fprintf(stderr, "cuzk-bench store: %s\n", err);
        rmdir(dir);
        return 2;
    }

    printf("store: %s (WAL, synchronous=FULL), %d jobs, %zu-byte request, 1920-byte result\n",
           path, jobs, sizeof REQUEST - 1);
    printf("%-36s %12s %12s\n", "operation", "jobs/s", "ms/job");

    /* One thread: the latency of each committed step. */
    worker w1 = {s, 0, jobs, 0};
    double t = bench_now_ns();
    life(&w1);
    t = bench_now_ns() - t;
    printf("%-36s %12.0f %12.3f\n", "enqueue+lease+complete, 1 thread", jobs / (t * 1e-9),
           t * 1e-6 / jobs);

    /* T threads: commits are serialized, so this shows the mutex's cost
     * (or gain, were SQLite to group commits). */
    worker *w = calloc((size_t)threads, sizeof *w);
    pthread_t *th = calloc((size_t)threads, sizeof *th);
    int errors = w1.errors;
    if (w && th) {
        int per = (jobs + threads - 1) / threads;
        t = bench_now_ns();
        for (int i = 0; i < threads; i++) {
            w[i] = (worker){s, i + 1, per, 0};
            pthread_create(&th[i], NULL, life, &w[i]);
        }
        for (int i = 0; i < threads; i++) pthread_join(th[i], NULL);
        t = bench_now_ns() - t;
        for (int i = 0; i < threads; i++) errors += w[i].errors;
        char label[64];
        snprintf(label, sizeof label, "enqueue+lease+complete, %d threads", threads);
        printf("%-36s %12.0f %12.3f\n", label, per * threads / (t * 1e-9),
               t * 1e-6 / (per * threads));
    }
    free(w);
    free(th);

    /* Reads: no commit. */
    t = bench_now_ns();
    for (int i = 1; i <= jobs; i++) {
        cuzk_store_rec r;
        if (s->get(s, (uint64_t)i, NULL, &r, err) != CUZK_OK) errors++;
        cuzk_store_rec_free(&r);
    }
    t = bench_now_ns() - t;
    printf("%-36s %12.0f %12.3f\n", "get by id (with request and result)", jobs / (t * 1e-9),
           t * 1e-6 / jobs);

    size_t n = 0;
    t = bench_now_ns();
    if (s->requeue_expired(s, INT64_MAX, &n, err) != CUZK_OK) errors++;
    printf("%-36s %.3f ms for %zu leases (one transaction)\n", "requeue_expired",
           (bench_now_ns() - t) * 1e-6, n);
    t = bench_now_ns();
    if (s->purge(s, INT64_MAX, &n, err) != CUZK_OK) errors++;
    printf("%-36s %.3f ms for %zu finished jobs (one transaction)\n", "purge",
           (bench_now_ns() - t) * 1e-6, n);

    cuzk_store_close(s);
    rm_store(path);
    rmdir(dir);
    if (errors) fprintf(stderr, "cuzk-bench store: %d calls failed\n", errors);
    return errors ? 1 : 0;
}
