/* The thread pool (cuzk/pool.h) and cuzk_parallel_for on it: every index
 * visited once whatever the split, nested calls, several callers at once
 * on a small pool without extra threads, and the library's parallel parts
 * that coordinate their ranges (work claimed through an atomic counter, a
 * per-range slot of memory) giving the same result on pools of 1, 2 and 4
 * as the work is cut into 8 ranges. */
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include <cuzk/circuits.h>
#include <cuzk/formats.h>
#include <cuzk/msm.h>
#include <cuzk/pce.h>
#include <cuzk/pool.h>
#include <cuzk/r1cs.h>

#include "common/parallel.h"
#include "test_points.h"
#include "test_util.h"

/* Stops the pool and sets its size to n: the next call starts n workers. */
static void pool_restart(unsigned n)
{
    cuzk_pool_shutdown();
    CHECK(cuzk_pool_init(n) == CUZK_OK);
    CHECK(cuzk_pool_size() == n);
}

/* ------------------------------------------------------------ partition -- */

#define MAX_N 5000

struct visit {
    atomic_uint hits[MAX_N];
    atomic_uint ranges;
    atomic_size_t min_len;  /* shortest range */
    atomic_uint running, peak;
};

/* Records the peak of ranges running at once. */
static void enter(struct visit *v)
{
    unsigned r = atomic_fetch_add(&v->running, 1) + 1, p = atomic_load(&v->peak);
    while (r > p && !atomic_compare_exchange_weak(&v->peak, &p, r)) {
    }
}

static void visit_range(void *ctx, size_t b, size_t e)
{
    struct visit *v = ctx;
    enter(v);
    atomic_fetch_add(&v->ranges, 1);
    size_t len = e - b, m = atomic_load(&v->min_len);
    while (len < m && !atomic_compare_exchange_weak(&v->min_len, &m, len)) {
    }
    for (size_t i = b; i < e; i++) atomic_fetch_add(&v->hits[i], 1);
    atomic_fetch_sub(&v->running, 1);
}

static void visit_reset(struct visit *v, size_t n)
{
    for (size_t i = 0; i < n; i++) atomic_init(&v->hits[i], 0);
    atomic_init(&v->ranges, 0);
    atomic_init(&v->min_len, SIZE_MAX);
    atomic_init(&v->running, 0);
    atomic_init(&v->peak, 0);
}

static void test_partition(unsigned pool)
{
    static struct visit v;
    static const size_t ns[] = {0, 1, 2, 3, 7, 64, 255, 1000, 4097, MAX_N};
    static const size_t chunks[] = {0, 1, 3, 64, 1000, 6000};
    static const unsigned threads[] = {0, 1, 2, 3, 5, 8, 64, 300};
    for (size_t a = 0; a < sizeof ns / sizeof *ns; a++)
        for (size_t b = 0; b < sizeof chunks / sizeof *chunks; b++)
            for (size_t c = 0; c < sizeof threads / sizeof *threads; c++) {
                size_t n = ns[a], mc = chunks[b] ? chunks[b] : 1;
                unsigned t = threads[c];
                visit_reset(&v, n);
                cuzk_parallel_for(n, chunks[b], t, visit_range, &v);
                unsigned bad = 0;
                for (size_t i = 0; i < n; i++) bad += atomic_load(&v.hits[i]) != 1;
                unsigned nr = atomic_load(&v.ranges);
                size_t cap = t ? t : 1;
                if (cap > 256) cap = 256;
                if (cap > n / mc) cap = n / mc;
                if (cap < 1) cap = 1;
                CHECK_MSG(bad == 0, "pool %u n %zu chunk %zu t %u: %u indices not visited once",
                          pool, n, chunks[b], t, bad);
                CHECK_MSG(n == 0 ? nr == 0 : nr == cap, "pool %u n %zu chunk %zu t %u: %u ranges",
                          pool, n, chunks[b], t, nr);
                CHECK_MSG(nr <= 1 || atomic_load(&v.min_len) >= mc,
                          "pool %u n %zu chunk %zu t %u: a range of %zu", pool, n, chunks[b], t,
                          atomic_load(&v.min_len));
                /* one caller: at most the workers and itself at once */
                CHECK(atomic_load(&v.peak) <= pool + 1);
            }
}

/* --------------------------------------------------------------- nested -- */

struct nest {
    atomic_uint hits[8 * 9 * 10];
    unsigned depth_threads;
};

struct nest_arg {
    struct nest *x;
    size_t base, level;
};

static void nest_range(void *ctx, size_t b, size_t e)
{
    const struct nest_arg *a = ctx;
    static const size_t fan[3] = {8, 9, 10};
    for (size_t i = b; i < e; i++) {
        size_t idx = a->base * fan[a->level] + i;
        if (a->level == 2) {
            atomic_fetch_add(&a->x->hits[idx], 1);
        } else {
            struct nest_arg in = {a->x, idx, a->level + 1};
            cuzk_parallel_for(fan[a->level + 1], 1, a->x->depth_threads, nest_range, &in);
        }
    }
}

static void test_nested(unsigned pool)
{
    static struct nest x;
    static const unsigned threads[] = {2, 3, 8, 64};
    for (size_t t = 0; t < sizeof threads / sizeof *threads; t++) {
        for (size_t i = 0; i < 8 * 9 * 10; i++) atomic_init(&x.hits[i], 0);
        x.depth_threads = threads[t];
        struct nest_arg top = {&x, 0, 0};
        cuzk_parallel_for(8, 1, threads[t], nest_range, &top);
        unsigned bad = 0;
        for (size_t i = 0; i < 8 * 9 * 10; i++) bad += atomic_load(&x.hits[i]) != 1;
        CHECK_MSG(bad == 0, "pool %u nested, %u ranges: %u indices not visited once", pool,
                  threads[t], bad);
    }
}

/* -------------------------------------------------------------- callers -- */

#define CALLERS 4

struct caller {
    struct visit *shared; /* peak over every caller's ranges */
    uint64_t sum;
    int ok;
};

struct sum_job {
    struct visit *v;
    atomic_uint_fast64_t sum;
};

static void sum_range(void *ctx, size_t b, size_t e)
{
    struct sum_job *j = ctx;
    enter(j->v);
    uint64_t s = 0;
    for (size_t i = b; i < e; i++) s += i * i;
    for (volatile unsigned k = 0; k < 20000; k++) { /* long enough to overlap */
    }
    atomic_fetch_add(&j->sum, s);
    atomic_fetch_sub(&j->v->running, 1);
}

static void *caller_main(void *arg)
{
    struct caller *c = arg;
    c->ok = 1;
    for (size_t r = 0; r < 50; r++) {
        size_t n = 1000 + 37 * r;
        struct sum_job j = {c->shared, 0};
        cuzk_parallel_for(n, 1, 1 + (unsigned)(r % 9), sum_range, &j);
        uint64_t want = 0;
        for (size_t i = 0; i < n; i++) want += i * i;
        if (atomic_load(&j.sum) != want) c->ok = 0;
    }
    return NULL;
}

static void test_callers(void)
{
    static struct visit shared;
    pool_restart(2);
    visit_reset(&shared, 0);
    uint64_t before = cuzk_pool_threads_created();
    pthread_t tid[CALLERS];
    struct caller c[CALLERS];
    for (int i = 0; i < CALLERS; i++) {
        c[i] = (struct caller){&shared, 0, 0};
        CHECK(pthread_create(&tid[i], NULL, caller_main, &c[i]) == 0);
    }
    for (int i = 0; i < CALLERS; i++) {
        pthread_join(tid[i], NULL);
        CHECK_MSG(c[i].ok, "caller %d got a wrong sum", i);
    }
    /* the 2 workers, started by the first call, and no more */
    CHECK_MSG(cuzk_pool_threads_created() - before == 2, "%llu threads created",
              (unsigned long long)(cuzk_pool_threads_created() - before));
    unsigned peak = atomic_load(&shared.peak);
    CHECK_MSG(peak <= 2 + CALLERS, "%u ranges ran at once", peak);
    printf("  4 callers on a pool of 2: at most %u ranges at once\n", peak);
}

/* ------------------------------------------------------------ lifecycle -- */

static void noop_range(void *ctx, size_t b, size_t e)
{
    (void)ctx;
    (void)b;
    (void)e;
}

static void test_lifecycle(void)
{
    cuzk_pool_shutdown();
    CHECK(cuzk_pool_init(CUZK_POOL_MAX_THREADS + 1) == CUZK_ERR_INVALID_ARGUMENT);
    CHECK(cuzk_pool_init(0) == CUZK_OK);
    CHECK(cuzk_pool_size() == cuzk_ncores());
    CHECK(cuzk_pool_init(3) == CUZK_OK);
    CHECK(cuzk_pool_init(5) == CUZK_OK); /* not started: the last one counts */
    CHECK(cuzk_pool_size() == 5);
    uint64_t c0 = cuzk_pool_threads_created();
    cuzk_parallel_for(10, 1, 10, noop_range, NULL);
    CHECK(cuzk_pool_threads_created() - c0 == 5);
    /* running: the same size is fine, another is refused */
    CHECK(cuzk_pool_init(5) == CUZK_OK);
    CHECK(cuzk_pool_init(4) == CUZK_ERR_INVALID_ARGUMENT);
    CHECK(cuzk_pool_size() == 5);
    /* 100 calls create no thread */
    for (int i = 0; i < 100; i++) cuzk_parallel_for(100, 1, 1 + (unsigned)(i % 12), noop_range, NULL);
    CHECK(cuzk_pool_threads_created() - c0 == 5);
    /* one that runs on the caller only starts nothing either */
    cuzk_pool_shutdown();
    cuzk_pool_shutdown(); /* twice is fine */
    cuzk_parallel_for(100, 1, 1, noop_range, NULL);
    CHECK(cuzk_pool_threads_created() - c0 == 5);
    /* after a shutdown the size may change, and the next call restarts */
    CHECK(cuzk_pool_init(4) == CUZK_OK);
    cuzk_parallel_for(100, 1, 8, noop_range, NULL);
    CHECK(cuzk_pool_threads_created() - c0 == 9);
}

/* ------------------------------------------------- the library's ranges -- */

/* A sparse MSM with 8 ranges (Pippenger slots claiming tasks, batch-sum
 * slots) and a plain batch sum, on the current pool. */
struct msm_out {
    cuzk_g1_jac sparse, bsum;
};

static void run_msm(struct msm_out *o, const cuzk_g1_affine *p, const cuzk_scalar *k, size_t n)
{
    CHECK(cuzk_g1_msm_sparse_var(&o->sparse, p, k, n, 8) == CUZK_OK);
    CHECK(cuzk_g1_batch_sum_var(&o->bsum, p, n, 8) == CUZK_OK);
}

static void test_msm(void)
{
    /* 2^16 points: the batch sum cuts them into 8 slots (one per 8
     * buffers), the sparse MSM's ones (half) into 4. */
    const size_t n = (size_t)1 << 16;
    cuzk_g1_affine *p = test_xmalloc(n * sizeof *p);
    cuzk_scalar *k = test_xmalloc(n * sizeof *k);
    test_g1_points(p, n);
    /* witness-like scalars: half ones, a quarter zeros, the rest random */
    for (size_t i = 0; i < n; i++) {
        uint64_t r = test_rand64();
        memset(&k[i], 0, sizeof k[i]);
        if (r % 4 < 2) {
            k[i].l[0] = 1;
        } else if (r % 4 == 3) {
            for (int l = 0; l < 4; l++) k[i].l[l] = test_rand64();
            k[i].l[3] >>= 3;
        }
    }
    struct msm_out want, got;
    pool_restart(4);
    run_msm(&want, p, k, n);
    static const unsigned pools[] = {1, 2};
    for (size_t q = 0; q < 2; q++) {
        pool_restart(pools[q]);
        run_msm(&got, p, k, n);
        CHECK_MSG(cuzk_g1_jac_eq(&got.sparse, &want.sparse), "sparse MSM on a pool of %u",
                  pools[q]);
        CHECK_MSG(cuzk_g1_jac_eq(&got.bsum, &want.bsum), "batch sum on a pool of %u",
                  pools[q]);
    }
    /* and one range on the caller only */
    cuzk_g1_jac one;
    CHECK(cuzk_g1_msm_sparse_var(&one, p, k, n, 1) == CUZK_OK && cuzk_g1_jac_eq(&one, &want.sparse));
    free(p);
    free(k);
}

/* A built-in circuit's witness (sub-circuits claimed by 8 window slots)
 * and its PCE evaluation (row chunks claimed by 8 ranges). */
static void test_circuit(void)
{
    char err[CUZK_ERRMSG_LEN], *js = NULL;
    cuzk_circuit *c = NULL;
    cuzk_matrices m;
    cuzk_cs_shape sh;
    cuzk_pce pce;
    memset(&pce, 0, sizeof pce);
    pool_restart(4);
    CHECK_MSG(cuzk_circuit_open(&c, "winning-32g", 16, err) == CUZK_OK, "%s", err);
    if (!c) return;
    CHECK_MSG(cuzk_circuit_record(c, &m, &sh, err) == CUZK_OK, "%s", err);
    CHECK_MSG(cuzk_pce_compile(&pce, &m, sh.n_inputs, sh.n_aux, 0, 8, err) == CUZK_OK, "%s",
              err);
    CHECK_MSG(cuzk_circuit_inputs_json(c, test_rand64() >> 1, 0, &js, err) == CUZK_OK, "%s", err);
    uint64_t nr = pce.n_rows;
    CHECK_MSG(pce.n_blocks >= 8 * 16, "%llu blocks", (unsigned long long)pce.n_blocks);
    cuzk_fr *want = test_xmalloc(6 * nr * sizeof *want), *got = want + 3 * nr;
    cuzk_cs w4 = {0}, wq = {0};
    CHECK_MSG(cuzk_circuit_witness(c, js, strlen(js), &w4, 8, err) == CUZK_OK, "%s", err);
    cuzk_witness_view v4, vq;
    cuzk_cs_witness_view(&w4, &v4);
    CHECK(cuzk_pce_eval_view(&pce, &v4, want, want + nr, want + 2 * nr, 8, err) == CUZK_OK);
    /* satisfied: the evaluation is meaningful */
    uint64_t bad = 0;
    for (uint64_t r = 0; r < nr; r++) {
        cuzk_fr t;
        cuzk_fr_mul(&t, &want[r], &want[nr + r]);
        bad += !cuzk_fr_eq(&t, &want[2 * nr + r]);
    }
    CHECK_MSG(bad == 0, "%llu rows unsatisfied", (unsigned long long)bad);
    static const unsigned pools[] = {1, 2};
    for (size_t q = 0; q < 2; q++) {
        pool_restart(pools[q]);
        CHECK_MSG(cuzk_circuit_witness(c, js, strlen(js), &wq, 8, err) == CUZK_OK, "%s", err);
        cuzk_cs_witness_view(&wq, &vq);
        CHECK(vq.n_bits == v4.n_bits && vq.n_fields == v4.n_fields &&
              !memcmp(vq.fields, v4.fields, v4.n_fields * sizeof *v4.fields) &&
              !memcmp(vq.bits, v4.bits, v4.n_bits / 64 * 8));
        CHECK(cuzk_pce_eval_view(&pce, &vq, got, got + nr, got + 2 * nr, 8, err) == CUZK_OK);
        CHECK_MSG(!memcmp(got, want, 3 * nr * sizeof *got), "PCE eval on a pool of %u",
                  pools[q]);
    }
    cuzk_cs_free(&w4);
    cuzk_cs_free(&wq);
    free(want);
    free(js);
    cuzk_pce_free(&pce);
    cuzk_matrices_free(&m);
    cuzk_circuit_close(c);
}

int main(void)
{
    test_seed("test_pool");
    test_lifecycle();
    static const unsigned pools[] = {1, 2, 4};
    for (size_t q = 0; q < 3; q++) {
        pool_restart(pools[q]);
        test_partition(pools[q]);
        test_nested(pools[q]);
    }
    test_callers();
    test_msm();
    test_circuit();
    cuzk_pool_shutdown();
    return test_done("test_pool");
}
