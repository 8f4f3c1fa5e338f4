/* cuzk — the process's thread pool.
 *
 * Every parallel part of the library (witness generation, PCE evaluation,
 * NTT, MSM, key and file checks, setup) splits its work into ranges and runs
 * them on one set of worker threads, created once per process and shared by
 * every thread that calls into the library. Two proofs proven at once on two
 * threads share the workers: at most cuzk_pool_size() workers plus the
 * calling threads themselves run library work, whatever each call's
 * nthreads asks for (nthreads only says into how many ranges a call's work
 * is cut).
 *
 * Idle workers sleep on a condition variable (they never spin). A calling
 * thread runs ranges of its own call too, and while it waits for the rest it
 * runs pending ranges of calls nested in its own, so a range that itself
 * calls into a parallel part of the library never deadlocks, with any pool
 * size, 1 included.
 *
 * The pool starts on first use with cuzk_pool_init's size, or one worker
 * per online core if it was never called.
 */
#ifndef CUZK_POOL_H
#define CUZK_POOL_H

#include <stdint.h>

#include <cuzk/status.h>

/* Largest pool size accepted. */
#define CUZK_POOL_MAX_THREADS 256

/* Sets the number of worker threads (0: one per online core). Valid while
 * the pool is not running (before first use, or after cuzk_pool_shutdown);
 * on a running pool it succeeds only if the size is the one it runs with.
 * Returns CUZK_ERR_INVALID_ARGUMENT otherwise, or if nthreads >
 * CUZK_POOL_MAX_THREADS. Thread-safe. Does not start the workers. */
cuzk_status cuzk_pool_init(unsigned nthreads);

/* The number of worker threads the pool runs with, or will start with. If
 * the system refuses to create some of them, fewer run (and every range
 * still runs, on the calling threads if need be): cuzk_pool_threads_created
 * tells. */
unsigned cuzk_pool_size(void);

/* Stops and joins the workers, after they have finished any pending work;
 * the size set by cuzk_pool_init is kept, and a later parallel call starts
 * the pool again. For tests and a clean exit: call it from one thread at a
 * time, with no library call in progress on other threads. */
void cuzk_pool_shutdown(void);

/* Worker threads created since the process started, over every start of
 * the pool (a counter for tests: a running pool creates no more). */
uint64_t cuzk_pool_threads_created(void);

#endif /* CUZK_POOL_H */
