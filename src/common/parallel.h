/* A minimal fork-join helper: split [0, n) into contiguous ranges and run
 * them on up to nthreads threads (the caller's thread included). Threads are
 * created per call, which costs tens of microseconds: callers use it only for
 * work of a millisecond or more. If a thread cannot be created its range runs
 * on the caller's thread, so no work is ever dropped. */
#ifndef CUZK_COMMON_PARALLEL_H
#define CUZK_COMMON_PARALLEL_H

#include <stddef.h>

typedef void (*cuzk_range_fn)(void *ctx, size_t begin, size_t end);

/* Number of online cores (at least 1). */
unsigned cuzk_ncores(void);

/* Runs fn(ctx, b, e) over a partition of [0, n) into at most nthreads
 * ranges of at least min_chunk items each; returns when all are done. */
void cuzk_parallel_for(size_t n, size_t min_chunk, unsigned nthreads, cuzk_range_fn fn,
                       void *ctx);

#endif /* CUZK_COMMON_PARALLEL_H */
