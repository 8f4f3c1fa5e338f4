#include "common/parallel.h"

#include <pthread.h>
#include <unistd.h>

#define PARALLEL_MAX_THREADS 256

unsigned cuzk_ncores(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > PARALLEL_MAX_THREADS ? PARALLEL_MAX_THREADS : (unsigned)n;
}

struct range_job {
    cuzk_range_fn fn;
    void *ctx;
    size_t begin, end;
};

static void *range_thread(void *arg)
{
    struct range_job *j = arg;
    j->fn(j->ctx, j->begin, j->end);
    return NULL;
}

void cuzk_parallel_for(size_t n, size_t min_chunk, unsigned nthreads, cuzk_range_fn fn,
                       void *ctx)
{
    if (n == 0) return;
    if (min_chunk == 0) min_chunk = 1;
    size_t parts = nthreads ? nthreads : 1;
    if (parts > PARALLEL_MAX_THREADS) parts = PARALLEL_MAX_THREADS;
    if (parts > n / min_chunk) parts = n / min_chunk;
    if (parts <= 1) {
        fn(ctx, 0, n);
        return;
    }
    struct range_job jobs[PARALLEL_MAX_THREADS];
    pthread_t tid[PARALLEL_MAX_THREADS];
    int started[PARALLEL_MAX_THREADS] = {0};
    for (size_t i = 0; i < parts; i++) {
        jobs[i] = (struct range_job){fn, ctx, n * i / parts, n * (i + 1) / parts};
        if (i > 0) started[i] = pthread_create(&tid[i], NULL, range_thread, &jobs[i]) == 0;
    }
    fn(ctx, jobs[0].begin, jobs[0].end);
    for (size_t i = 1; i < parts; i++) {
        if (started[i])
            pthread_join(tid[i], NULL);
        else
            fn(ctx, jobs[i].begin, jobs[i].end);
    }
}
