/* Fork-join over the process's thread pool (include/cuzk/pool.h): split
 * [0, n) into contiguous ranges and run them on the pool's workers and the
 * calling thread. The workers are created once and shared by every caller,
 * so a call costs a few microseconds (a lock, a wake-up per worker used),
 * not a thread start; callers still keep ranges at a millisecond or more so
 * that the split pays for itself.
 *
 * Ranges of one call may run one after another, in any order, on fewer
 * threads than ranges (the pool may be smaller than nthreads, and busy with
 * other callers' work): a range function must never wait for another range
 * of its call. Ranges that share work through an atomic counter (claim the
 * next task until none is left) are fine: whichever range runs first takes
 * the work. A range may itself call cuzk_parallel_for. */
#ifndef CUZK_COMMON_PARALLEL_H
#define CUZK_COMMON_PARALLEL_H

#include <stddef.h>

typedef void (*cuzk_range_fn)(void *ctx, size_t begin, size_t end);

/* Number of online cores (at least 1). */
unsigned cuzk_ncores(void);

/* Runs fn(ctx, b, e) over a partition of [0, n) into at most nthreads
 * ranges (and at most 256) of at least min_chunk items each; returns when
 * all are done. Range i is [n i / parts, n (i + 1) / parts). Thread-safe;
 * the pool starts on first use. */
void cuzk_parallel_for(size_t n, size_t min_chunk, unsigned nthreads, cuzk_range_fn fn,
                       void *ctx);

#endif /* CUZK_COMMON_PARALLEL_H */
