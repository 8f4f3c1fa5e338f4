/* The process's thread pool and cuzk_parallel_for on top of it.
 *
 * One mutex guards everything: the queue of calls with ranges left to
 * claim, the counters of each call, the worker bookkeeping. Claiming a
 * range takes the lock once and finishing it once; ranges are a millisecond
 * or more (parallel.h), so the lock is never contended for long. An empty
 * call of 2 ranges takes 2-7 us (2-core EPYC, shared and loaded), against
 * 47-110 us when each call created its threads.
 *
 * A call (struct pf_call) lives on its caller's stack. It is in the queue
 * while some of its ranges are unclaimed; the caller claims ranges of its
 * own call like any worker, and returns once every range has finished, so
 * no worker touches the call after that (finishing is under the lock).
 *
 * Nesting: a thread running a range of call P that calls cuzk_parallel_for
 * makes a call C with C.parent = P. While a caller waits it runs unclaimed
 * ranges of calls descending from its own (they are part of its work, and
 * no other work, which could be long, delays its return). This cannot
 * deadlock: a call's ranges are all claimed by threads that are running
 * them, since its caller claims whatever is left; and a thread only waits
 * for a call it made itself, at the top of its stack. */
#include "common/parallel.h"

#include <cuzk/pool.h>

#include <pthread.h>
#include <unistd.h>

/* Most ranges one call is cut into. */
#define PARALLEL_MAX_RANGES 256

unsigned cuzk_ncores(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > CUZK_POOL_MAX_THREADS ? CUZK_POOL_MAX_THREADS : (unsigned)n;
}

struct pf_call {
    cuzk_range_fn fn;
    void *ctx;
    size_t n, parts;
    size_t next;             /* ranges claimed */
    size_t done;             /* ranges finished */
    struct pf_call *parent;  /* the call whose range made this one; NULL: none */
    struct pf_call *qnext;   /* queue link */
    int waiting;             /* the caller sleeps on cv */
    pthread_cond_t cv;       /* signalled when done == parts, or a descendant is queued */
};

static struct {
    pthread_mutex_t lock;
    pthread_cond_t work;            /* idle workers sleep here */
    struct pf_call *head, *tail;    /* calls with unclaimed ranges, oldest first */
    unsigned size;                  /* workers to start; 0: cuzk_ncores() */
    unsigned nworkers;              /* workers created by this start */
    unsigned idle;                  /* workers sleeping on work */
    unsigned woken;                 /* of those, signalled and not yet awake */
    int started, stopping;
    uint64_t created;               /* threads ever created */
    pthread_t tid[CUZK_POOL_MAX_THREADS];
} pool = {.lock = PTHREAD_MUTEX_INITIALIZER, .work = PTHREAD_COND_INITIALIZER};

/* The call whose range this thread is running (NULL: none): the parent of
 * any call it makes. */
static _Thread_local struct pf_call *tls_call;

static void queue_remove(struct pf_call *c)
{
    struct pf_call **pp = &pool.head, *prev = NULL;
    while (*pp != c) prev = *pp, pp = &(*pp)->qnext;
    *pp = c->qnext;
    if (pool.tail == c) pool.tail = prev;
    c->qnext = NULL;
}

/* Claims the next range of c and runs it. Called and returns with the lock
 * held; c has an unclaimed range. */
static void run_range(struct pf_call *c)
{
    size_t i = c->next++;
    if (c->next == c->parts) queue_remove(c);
    pthread_mutex_unlock(&pool.lock);
    struct pf_call *saved = tls_call;
    tls_call = c;
    c->fn(c->ctx, c->n * i / c->parts, c->n * (i + 1) / c->parts);
    tls_call = saved;
    pthread_mutex_lock(&pool.lock);
    if (++c->done == c->parts && c->waiting) pthread_cond_signal(&c->cv);
}

static void *worker_main(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&pool.lock);
    for (;;) {
        if (pool.head) {
            run_range(pool.head);
            continue;
        }
        if (pool.stopping) break;
        pool.idle++;
        pthread_cond_wait(&pool.work, &pool.lock);
        pool.idle--;
        if (pool.woken) pool.woken--;
    }
    pthread_mutex_unlock(&pool.lock);
    return NULL;
}

/* Lock held. If a thread cannot be created the pool runs with fewer: every
 * range still runs, on its caller's thread if no worker takes it. */
static void pool_start(void)
{
    if (!pool.size) pool.size = cuzk_ncores();
    pool.nworkers = 0;
    for (unsigned i = 0; i < pool.size; i++) {
        if (pthread_create(&pool.tid[i], NULL, worker_main, NULL) != 0) break;
        pool.nworkers++;
        pool.created++;
    }
    pool.started = 1;
}

/* An unclaimed range of a call descending from c (c included), or NULL. */
static struct pf_call *find_descendant(const struct pf_call *c)
{
    for (struct pf_call *q = pool.head; q; q = q->qnext)
        for (const struct pf_call *a = q; a; a = a->parent)
            if (a == c) return q;
    return NULL;
}

void cuzk_parallel_for(size_t n, size_t min_chunk, unsigned nthreads, cuzk_range_fn fn,
                       void *ctx)
{
    if (n == 0) return;
    if (min_chunk == 0) min_chunk = 1;
    size_t parts = nthreads ? nthreads : 1;
    if (parts > PARALLEL_MAX_RANGES) parts = PARALLEL_MAX_RANGES;
    if (parts > n / min_chunk) parts = n / min_chunk;
    if (parts <= 1) {
        fn(ctx, 0, n);
        return;
    }
    struct pf_call c = {.fn = fn, .ctx = ctx, .n = n, .parts = parts, .parent = tls_call};
    pthread_cond_init(&c.cv, NULL);
    pthread_mutex_lock(&pool.lock);
    if (!pool.started) pool_start();
    if (pool.tail)
        pool.tail->qnext = &c;
    else
        pool.head = &c;
    pool.tail = &c;
    /* Wake as many sleeping workers as there are ranges for others, and
     * the waiting callers above this call (they help with nested work). */
    unsigned avail = pool.idle > pool.woken ? pool.idle - pool.woken : 0;
    size_t wake = parts - 1 < avail ? parts - 1 : avail;
    pool.woken += (unsigned)wake;
    for (size_t i = 0; i < wake; i++) pthread_cond_signal(&pool.work);
    for (struct pf_call *a = c.parent; a; a = a->parent)
        if (a->waiting) pthread_cond_signal(&a->cv);

    while (c.next < c.parts) run_range(&c);
    while (c.done < c.parts) {
        struct pf_call *d = find_descendant(&c);
        if (d) {
            run_range(d);
            continue;
        }
        c.waiting = 1;
        pthread_cond_wait(&c.cv, &pool.lock);
        c.waiting = 0;
    }
    pthread_mutex_unlock(&pool.lock);
    pthread_cond_destroy(&c.cv);
}

cuzk_status cuzk_pool_init(unsigned nthreads)
{
    if (nthreads > CUZK_POOL_MAX_THREADS) return CUZK_ERR_INVALID_ARGUMENT;
    if (nthreads == 0) nthreads = cuzk_ncores();
    cuzk_status s = CUZK_OK;
    pthread_mutex_lock(&pool.lock);
    if (!pool.started)
        pool.size = nthreads;
    else if (pool.size != nthreads)
        s = CUZK_ERR_INVALID_ARGUMENT;
    pthread_mutex_unlock(&pool.lock);
    return s;
}

unsigned cuzk_pool_size(void)
{
    pthread_mutex_lock(&pool.lock);
    unsigned n = pool.size ? pool.size : cuzk_ncores();
    pthread_mutex_unlock(&pool.lock);
    return n;
}

void cuzk_pool_shutdown(void)
{
    pthread_mutex_lock(&pool.lock);
    if (!pool.started || pool.stopping) {
        pthread_mutex_unlock(&pool.lock);
        return;
    }
    pool.stopping = 1;
    pthread_cond_broadcast(&pool.work);
    unsigned n = pool.nworkers;
    pthread_mutex_unlock(&pool.lock);
    for (unsigned i = 0; i < n; i++) pthread_join(pool.tid[i], NULL);
    pthread_mutex_lock(&pool.lock);
    pool.started = pool.stopping = 0;
    pool.nworkers = pool.idle = pool.woken = 0;
    pthread_mutex_unlock(&pool.lock);
}

uint64_t cuzk_pool_threads_created(void)
{
    pthread_mutex_lock(&pool.lock);
    uint64_t n = pool.created;
    pthread_mutex_unlock(&pool.lock);
    return n;
}
