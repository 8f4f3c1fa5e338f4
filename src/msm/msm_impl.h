/* Pippenger MSM, batch affine summation and the sparse MSM, written once
 * for G1 and G2.
 *
 * This header is a template, not an ordinary header: g1_msm.c and g2_msm.c
 * each define the names below and include it once, so it has no include
 * guard.
 *
 *   FE              the coordinate field type (cuzk_fp, cuzk_fp2)
 *   F(name)         its functions (cuzk_fp_##name, ...)
 *   FE_ONE_         its one (Montgomery form)
 *   FE_INV_VAR      r = 1/a, variable time: void (FE *r, const FE *a)
 *   G(name)         the group's functions (cuzk_g1_##name, ...)
 *   AFF, JAC, XYZZ  the point types
 *   VEC             the group's cuzk_gN_msm_vec
 *   MSM_COSTS       a struct msm_costs initialiser for the cost model
 *   BSUM_STOP       batch-sum levels stop at this many points (see below)
 *   GLV_NEG_PHI     GLV_NEG_PHI(AFF *r, const AFF *p) sets r = [L] p
 *                   (L = x^2, msm_internal.h) by an endomorphism: -phi(p)
 *                   on G1, psi^2(p) on G2; the MSMs run Pippenger on the
 *                   128-bit GLV halves (below)
 *
 * Everything here is variable-time in the scalars, and branches on
 * whether points are equal, opposite or at infinity.
 */

#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/errmsg.h"
#include "ec/ec_var.h"

/* ------------------------------------------------------------ Pippenger -- */

#ifndef GLV_NEG_PHI
#error "msm_impl.h: define GLV_NEG_PHI"
#endif

struct pip_ctx {
    const AFF *points;
    const int32_t *digits; /* plan.nwin * n: digit of point j in window w at w n + j */
    size_t n;
    struct msm_plan plan;
    size_t nb_max;       /* buckets per thread */
    XYZZ *buckets;       /* plan.nthreads * nb_max */
    unsigned char *bamem; /* plan.nthreads * BA_MEM_BYTES(nb_max) */
    XYZZ *results;       /* one per task: window w, range q at w * nranges + q */
    atomic_size_t next;  /* next task to claim */
};

/* The digit in window w of the next point at or after *j (before end)
 * whose digit is nonzero; *p is that point. Returns 0 when there is none.
 * (Points at infinity have all digits 0, see glv_range.) */
static inline int64_t pip_next(const struct pip_ctx *x, size_t *j, size_t end, unsigned w,
                               const AFF **p)
{
    const int32_t *dg = x->digits + (size_t)w * x->n;
    while (*j < end) {
        size_t s = (*j)++;
        if (dg[s] == 0) continue;
        *p = &x->points[s];
        return dg[s];
    }
    return 0;
}

/* ------------------------------------------- batch-affine accumulation --
 *
 * For windows with at least BA_MIN_BUCKETS buckets the buckets are kept in
 * affine form and filled in batches: a batch holds up to B additions into
 * distinct buckets, whose denominators (x2 - x1, or 2 y1 for P = Q) share
 * one inversion by Montgomery's trick. Per addition, 1 M for the prefix
 * product, 2 M walking back, then lambda = N / D (1 M), x3 = lambda^2 - x1
 * - x2 (1 S), y3 = lambda (x1 - x3) - y1 (1 M): 5 M + 1 S plus 1/B of an
 * inversion, against 8 M + 2 S for an XYZZ mixed addition. An empty bucket
 * takes the point as is, and P + (-P) empties the bucket at once, so neither
 * enters a batch. A point whose bucket already has an addition pending in
 * the current batch is deferred to a queue (BA_QUEUE entries) that is
 * retried first after each flush. If the queue overflows while the batch is
 * still small (many points into few buckets: equal scalars, tiny windows),
 * or once the input is used up, the buckets are converted to XYZZ in place
 * and the remaining points are added by variable-time mixed additions. */

#define BA_MAX 512           /* additions per batch at most */
#define BA_QUEUE BA_MAX      /* deferred points at most */
#define BA_MIN_BUCKETS MSM_BA_MIN_BUCKETS /* smaller windows: XYZZ */

/* Batch size for a window of nb buckets: nb / 4 keeps a new point's chance
 * of hitting a bucket already in the batch at most 1/4 (the others wait in
 * the queue) while sharing each inversion between more additions. Measured
 * (2-core EPYC, 1 thread, CPU time, best of 3; GLV halves): nb / 8 -> nb / 4
 * G1 5022 points c = 10 44.3 -> 42.5 ms, G2 5022 c = 10 107.4 -> 106.3 ms,
 * G1 16026 c = 12 116.3 -> 114.7 ms; nb / 2 no better than nb / 4. */
static inline size_t ba_batch(size_t nb)
{
    size_t b = nb / 4;
    return b > BA_MAX ? BA_MAX : b;
}

/* The batch inversion runs over BI elements: by default the denominators
 * themselves (BI = FE). A group may instead define BI, BI_OF (bi = a field
 * element whose inverse gives the denominator's: for G2 the Fp norm
 * d0^2 + d1^2 of d = d0 + d1 u), BI_MUL, BI_INV_VAR, BI_UNDO (1/d from
 * 1/bi and d: conj(d) / norm(d)) and BI_STORE (keep bi in the batch entry
 * rather than recompute it), so that the 3 multiplications per addition of
 * Montgomery's trick happen in the smaller field. */
#ifndef BI
#define BI FE
#define BI_OF(bi, d) (*(bi) = *(d))
#define BI_MUL F(mul)
#define BI_INV_VAR FE_INV_VAR
#define BI_UNDO(r, t, d) (*(r) = *(t))
#endif

struct ba_ent {
    AFF p;      /* the point to add, sign applied */
#ifdef BI_STORE
    BI bi;      /* BI_OF of its denominator */
#endif
    uint32_t b; /* its bucket */
    uint32_t tangent;
};

struct ba_def {
    const AFF *p;
    int64_t d;
};

/* Per-thread working memory besides the bucket array. */
struct ba_mem {
    uint32_t *mark; /* nb_max: the batch generation that last touched a bucket */
    struct ba_ent *ent;
    FE *pref;
    struct ba_def *q;
};

#define BA_MEM_BYTES(nbmax)                                                       \
    (((nbmax) * sizeof(uint32_t) + 7) / 8 * 8 + BA_MAX * (sizeof(struct ba_ent) + sizeof(FE)) + \
     BA_QUEUE * sizeof(struct ba_def) + 64)

struct ba_state {
    AFF *ab;
    struct ba_mem *mm;
    uint32_t gen;
    size_t m, qn, B;
};

/* Adds the point of signed digit d into its bucket, or queues the addition
 * in the batch. Returns 0 (nothing done) if the bucket has one pending. */
static inline int ba_insert(struct ba_state *st, const AFF *p, int64_t d)
{
    size_t b = (size_t)(d < 0 ? -d : d) - 1;
    if (st->mm->mark[b] == st->gen) return 0;
    AFF *a = &st->ab[b];
    AFF q = *p;
    if (d < 0) F(neg)(&q.y, &q.y);
    if (F(is_zero)(&a->x) && F(is_zero)(&a->y)) {
        *a = q;
        return 1;
    }
    FE den;
    uint32_t tangent = 0;
    if (!F(eq)(&a->x, &q.x)) {
        F(sub)(&den, &q.x, &a->x);
    } else if (F(eq)(&a->y, &q.y)) {
        F(dbl)(&den, &a->y);
        tangent = 1;
    } else {
        memset(a, 0, sizeof *a); /* P + (-P) */
        return 1;
    }
    size_t m = st->m;
    struct ba_ent *e = &st->mm->ent[m];
    BI *pref = (BI *)(void *)st->mm->pref;
    e->p = q;
    e->b = (uint32_t)b;
    e->tangent = tangent;
    BI bi;
    BI_OF(&bi, &den);
#ifdef BI_STORE
    e->bi = bi;
#endif
    if (m == 0)
        pref[0] = bi;
    else
        BI_MUL(&pref[m], &pref[m - 1], &bi);
    st->m = m + 1;
    st->mm->mark[b] = st->gen;
    return 1;
}

/* Performs the pending additions; starts a new batch. */
static void ba_flush(struct ba_state *st)
{
    size_t m = st->m;
    st->m = 0;
    st->gen++;
    if (m == 0) return;
    struct ba_ent *e = st->mm->ent;
    BI *pref = (BI *)(void *)st->mm->pref;
    BI inv, bt;
    FE t, den, num, lam, x3, y3;
    BI_INV_VAR(&inv, &pref[m - 1]);
    for (size_t i = m; i-- > 0;) {
        AFF *a = &st->ab[e[i].b];
        const AFF *p = &e[i].p;
        if (e[i].tangent) {
            F(dbl)(&den, &a->y);
            F(sqr)(&t, &a->x);
            F(add)(&num, &t, &t);
            F(add)(&num, &num, &t);
        } else {
            F(sub)(&den, &p->x, &a->x);
            F(sub)(&num, &p->y, &a->y);
        }
        if (i > 0) {
            BI_MUL(&bt, &inv, &pref[i - 1]); /* 1 / bi_i */
#ifdef BI_STORE
            BI_MUL(&inv, &inv, &e[i].bi);
#else
            BI bi;
            BI_OF(&bi, &den);
            BI_MUL(&inv, &inv, &bi);
#endif
        } else {
            bt = inv;
        }
        BI_UNDO(&t, &bt, &den); /* 1 / den_i */
        F(mul)(&lam, &num, &t);
        F(sqr)(&x3, &lam);
        F(sub)(&x3, &x3, &a->x);
        F(sub)(&x3, &x3, &p->x);
        F(sub)(&y3, &a->x, &x3);
        F(mul)(&y3, &y3, &lam);
        F(sub)(&a->y, &y3, &a->y);
        a->x = x3;
    }
}

/* Flushes, then moves queued points into the new batch (flushing again
 * whenever it fills). */
static void ba_flush_retry(struct ba_state *st)
{
    ba_flush(st);
    size_t k = 0;
    struct ba_def *q = st->mm->q;
    for (size_t i = 0; i < st->qn; i++) {
        if (st->m == st->B) ba_flush(st);
        if (!ba_insert(st, q[i].p, q[i].d)) q[k++] = q[i];
    }
    st->qn = k;
}

/* The affine buckets ab[0..nb) (overlaying bk) become XYZZ buckets, in
 * place: bk[i] covers ab[2i] and ab[2i + 1], so going down from the top
 * every affine bucket is read before it is overwritten. */
static void ba_to_xyzz(XYZZ *bk, size_t nb)
{
    AFF *ab = (AFF *)(void *)bk;
    for (size_t i = nb; i-- > 0;) {
        AFF a = ab[i];
        if (F(is_zero)(&a.x) && F(is_zero)(&a.y)) {
            xyzz_set_inf_var(&bk[i]);
        } else {
            bk[i].x = a.x;
            bk[i].y = a.y;
            bk[i].zz = FE_ONE_;
            bk[i].zzz = FE_ONE_;
        }
    }
}

/* ------------------------------------------- batch-affine reduction --
 *
 * When a window's buckets are all still affine (the batches drained their
 * queue), sum_i i B_i is computed in affine form as well: the nb buckets are
 * cut into K chains of Lc = nb / K consecutive buckets, and the K chains
 * run their running sums in lockstep, top bucket first, so each step is two
 * batches of K independent affine additions (S_k += B, then T_k += S_k),
 * each batch sharing one inversion. After the last step chain k holds
 * S_k = sum_t B_{k Lc + t} and T_k = sum_t (t + 1) B_{k Lc + t}, and
 *   sum_i i B_i = sum_k T_k + Lc sum_k k S_k,
 * the second sum by a short XYZZ running sum over the K chains and log2 Lc
 * doublings. Per bucket: two affine additions (5 M + 1 S each, plus 2/K of
 * an inversion) instead of an XYZZ mixed addition (8 M + 2 S) and an XYZZ
 * addition (12 M + 2 S). Measured (2-core EPYC, 1 thread, CPU time): the
 * XYZZ reduction took 0.85 us per G1 bucket (16 % of a 2^15-point MSM at
 * c = 13) and 2.4 us per G2 bucket. */

/* Chains at most; K = nb / 16 below that (nb >= BA_MIN_BUCKETS = 128 gives
 * K >= 8), so that the XYZZ tail (~3 K additions) stays small next to the
 * 2 nb affine ones. */
#define BA_RED_CHAINS 256

enum { BR_SKIP, BR_CHORD, BR_TANGENT };

/* acc[k] += src[k * stride] for k < K, affine, one shared inversion.
 * Infinity is (0, 0) on both sides. pref holds K field elements. */
static void ba_add_many(AFF *acc, const AFF *src, size_t stride, size_t K, FE *pref,
                        unsigned char *kind)
{
    size_t m = 0;
    FE den, inv, t, num, lam, x3, y3;
    for (size_t k = 0; k < K; k++) {
        const AFF *q = &src[k * stride];
        AFF *a = &acc[k];
        kind[k] = BR_SKIP;
        if (F(is_zero)(&q->x) && F(is_zero)(&q->y)) continue;
        if (F(is_zero)(&a->x) && F(is_zero)(&a->y)) {
            *a = *q;
            continue;
        }
        if (!F(eq)(&a->x, &q->x)) {
            F(sub)(&den, &q->x, &a->x);
            kind[k] = BR_CHORD;
        } else if (F(eq)(&a->y, &q->y)) {
            F(dbl)(&den, &a->y);
            kind[k] = BR_TANGENT;
        } else {
            memset(a, 0, sizeof *a); /* P + (-P) */
            continue;
        }
        if (m == 0)
            pref[0] = den;
        else
            F(mul)(&pref[m], &pref[m - 1], &den);
        m++;
    }
    if (m == 0) return;
    FE_INV_VAR(&inv, &pref[m - 1]);
    for (size_t k = K; k-- > 0;) {
        if (kind[k] == BR_SKIP) continue;
        AFF *a = &acc[k];
        const AFF *q = &src[k * stride];
        if (kind[k] == BR_TANGENT) {
            F(dbl)(&den, &a->y);
            F(sqr)(&t, &a->x);
            F(add)(&num, &t, &t);
            F(add)(&num, &num, &t);
        } else {
            F(sub)(&den, &q->x, &a->x);
            F(sub)(&num, &q->y, &a->y);
        }
        if (--m > 0) {
            F(mul)(&t, &inv, &pref[m - 1]); /* 1 / den */
            F(mul)(&inv, &inv, &den);
        } else {
            t = inv;
        }
        F(mul)(&lam, &num, &t);
        F(sqr)(&x3, &lam);
        F(sub)(&x3, &x3, &a->x);
        F(sub)(&x3, &x3, &q->x);
        F(sub)(&y3, &a->x, &x3);
        F(mul)(&y3, &y3, &lam);
        F(sub)(&a->y, &y3, &a->y);
        a->x = x3;
    }
}

/* *out = sum_{i=1..nb} i ab[i - 1] for affine buckets ab (nb a power of two
 * >= 128); mm's batch arrays are the scratch. */
static void ba_reduce(XYZZ *out, const AFF *ab, size_t nb, struct ba_mem *mm)
{
    size_t K = nb / 16 < BA_RED_CHAINS ? nb / 16 : BA_RED_CHAINS, Lc = nb / K;
    AFF *S = (AFF *)(void *)mm->ent, *T = S + K; /* 2 K <= BA_MAX entries */
    unsigned char kind[BA_RED_CHAINS];
    memset(S, 0, 2 * K * sizeof(AFF));
    for (size_t t = Lc; t-- > 0;) {
        ba_add_many(S, ab + t, Lc, K, mm->pref, kind);
        ba_add_many(T, S, 1, K, mm->pref, kind);
    }
    /* Lc sum_k k S_k: running sum over k = K-1 .. 1, then doublings. */
    XYZZ sum, tot;
    G(xyzz_set_inf)(&sum);
    G(xyzz_set_inf)(&tot);
    for (size_t k = K; k-- > 1;) {
        if (!(F(is_zero)(&S[k].x) && F(is_zero)(&S[k].y))) xyzz_madd_var(&sum, &sum, &S[k]);
        xyzz_add_var(&tot, &tot, &sum);
    }
    for (size_t l = Lc; l > 1; l >>= 1) xyzz_dbl_var(&tot, &tot);
    for (size_t k = 0; k < K; k++)
        if (!(F(is_zero)(&T[k].x) && F(is_zero)(&T[k].y))) xyzz_madd_var(&tot, &tot, &T[k]);
    *out = tot;
}

static inline void pip_madd_digit(XYZZ *bk, const AFF *p, int64_t d)
{
    if (d > 0) {
        xyzz_madd_var(&bk[d - 1], &bk[d - 1], p);
    } else {
        AFF np;
        G(affine_neg)(&np, p);
        xyzz_madd_var(&bk[-d - 1], &bk[-d - 1], &np);
    }
}

static void pip_task(struct pip_ctx *x, XYZZ *bk, struct ba_mem *mm, size_t task)
{
    unsigned c = x->plan.c, R = x->plan.nranges;
    unsigned w = (unsigned)(task / R), q = (unsigned)(task % R);
    size_t nb = msm_window_buckets(w, c, x->plan.nbits);
    size_t j = x->n * q / R, end = x->n * (q + 1) / R;

    /* The next point's digit is found first so that its bucket can be
     * prefetched while this one is handled. */
    const AFF *p = NULL, *pn = NULL;
    int64_t d = pip_next(x, &j, end, w, &p);
    if (nb >= BA_MIN_BUCKETS && nb <= x->nb_max) {
        struct ba_state st = {(AFF *)(void *)bk, mm, 1, 0, 0, ba_batch(nb)};
        memset(st.ab, 0, nb * sizeof(AFF));
        memset(mm->mark, 0, nb * sizeof(uint32_t));
        const AFF *pc = NULL; /* crowded: the point that found the queue full */
        int64_t dc = 0;
        while (d != 0) {
            int64_t dn = pip_next(x, &j, end, w, &pn);
            if (dn != 0) __builtin_prefetch(&st.ab[(dn < 0 ? -dn : dn) - 1], 0);
            if (!ba_insert(&st, p, d)) {
                if (st.qn == BA_QUEUE) {
                    if (st.m < st.B / 2) { /* crowded: finish in XYZZ */
                        pc = p, dc = d;
                        d = dn, p = pn;
                        break;
                    }
                    ba_flush_retry(&st);
                }
                if (!ba_insert(&st, p, d)) mm->q[st.qn++] = (struct ba_def){p, d};
            }
            if (st.m == st.B) ba_flush_retry(&st);
            d = dn, p = pn;
        }
        /* Drain the queue in affine while that goes well (each round takes
         * at least half of it), then reduce in affine if nothing is left. */
        while (!pc && st.qn) {
            size_t before = st.qn;
            ba_flush_retry(&st);
            if (2 * st.qn > before) break;
        }
        ba_flush(&st);
        if (!pc && st.qn == 0) {
            ba_reduce(&x->results[task], st.ab, nb, mm);
            return;
        }
        ba_to_xyzz(bk, nb);
        for (size_t i = 0; i < st.qn; i++) pip_madd_digit(bk, mm->q[i].p, mm->q[i].d);
        if (pc) pip_madd_digit(bk, pc, dc);
    } else {
        for (size_t b = 0; b < nb; b++) xyzz_set_inf_var(&bk[b]);
    }
    /* XYZZ accumulation: small windows, and whatever the batches left. */
    while (d != 0) {
        int64_t dn = pip_next(x, &j, end, w, &pn);
        if (dn != 0) __builtin_prefetch(&bk[(dn < 0 ? -dn : dn) - 1], 1);
        pip_madd_digit(bk, p, d);
        d = dn, p = pn;
    }

    /* Running sum over B_i = bk[i - 1] (the points of digit i), top first:
     * after B_i, sum = B_i + ... + B_nb and tot = sum_{i' >= i} (i' - i + 1)
     * B_i', so after B_1 tot = sum_i i B_i. Two additions per bucket (a mixed
     * one for sum when the bucket is still affine, ZZ = 1);
     * empty buckets (ZZ = 0) are not added to sum. */
    XYZZ sum, tot;
    G(xyzz_set_inf)(&sum);
    G(xyzz_set_inf)(&tot);
    int sum_inf = 1;
    for (size_t b = nb; b-- > 0;) {
        if (!F(is_zero)(&bk[b].zz)) {
            if (F(eq)(&bk[b].zz, &FE_ONE_)) {
                AFF a = {bk[b].x, bk[b].y};
                xyzz_madd_var(&sum, &sum, &a);
            } else {
                xyzz_add_var(&sum, &sum, &bk[b]);
            }
            sum_inf = 0;
        }
        if (!sum_inf) xyzz_add_var(&tot, &tot, &sum);
    }
    x->results[task] = tot;
}

static void pip_worker(void *arg, size_t b, size_t e)
{
    struct pip_ctx *x = arg;
    size_t ntasks = (size_t)x->plan.nwin * x->plan.nranges;
    /* One slot (buckets and batch memory) per range; ranges may run one
     * after another on a busy or small pool, so a slot claims tasks until
     * none is left and the later slots find nothing to do. */
    for (size_t slot = b; slot < e; slot++) {
        XYZZ *bk = x->buckets + slot * x->nb_max;
        unsigned char *raw = x->bamem + slot * BA_MEM_BYTES(x->nb_max);
        struct ba_mem mm;
        mm.ent = (struct ba_ent *)(void *)raw;
        mm.pref = (FE *)(void *)(mm.ent + BA_MAX);
        mm.q = (struct ba_def *)(void *)(mm.pref + BA_MAX);
        mm.mark = (uint32_t *)(void *)(mm.q + BA_QUEUE);
        for (;;) {
            size_t t = atomic_fetch_add_explicit(&x->next, 1, memory_order_relaxed);
            if (t >= ntasks) break;
            pip_task(x, bk, &mm, t);
        }
    }
}

/* Pippenger over points j < n with the digits of plan (n > 0). The caller
 * owns buckets (plan.nthreads * 2^(c-1)), results (one per task) and bamem
 * (plan.nthreads * BA_MEM_BYTES(2^(c-1))); see pip_carve. */
static void pip_run(JAC *r, const AFF *points, const int32_t *digits, size_t n,
                    const struct msm_plan *plan, XYZZ *buckets, XYZZ *results,
                    unsigned char *bamem)
{
    struct pip_ctx x = {.points = points, .digits = digits, .n = n, .plan = *plan};
    x.nb_max = (size_t)1 << (x.plan.c - 1);
    x.buckets = buckets;
    x.results = results;
    x.bamem = bamem;
    atomic_init(&x.next, 0);
    /* Slots claim tasks from x.next, so the result is the same whether the
     * slots run at once or one after another. */
    cuzk_parallel_for(x.plan.nthreads, 1, x.plan.nthreads, pip_worker, &x);

    /* Sum each window's ranges, then Horner over the windows (top first):
     * acc = 2^c acc + window w. c Jacobian doublings (2M + 5S each) per
     * window, ~nbits + 1 in all. */
    JAC acc, t;
    G(jac_set_inf)(&acc);
    for (unsigned w = x.plan.nwin; w-- > 0;) {
        XYZZ s = x.results[(size_t)w * x.plan.nranges];
        for (unsigned q = 1; q < x.plan.nranges; q++)
            xyzz_add_var(&s, &s, &x.results[(size_t)w * x.plan.nranges + q]);
        if (w + 1 < x.plan.nwin)
            for (unsigned i = 0; i < x.plan.c; i++) G(dbl)(&acc, &acc);
        G(xyzz_to_jac)(&t, &s);
        G(add)(&acc, &acc, &t);
    }
    *r = acc;
}

/* ------------------------------------------------------------------ GLV --
 *
 * Each k_i is split as k1 + k2 L (msm_glv_split, both halves in
 * [0, 2^128)) and Pippenger runs over the 2n points P_i, [L] P_i =
 * GLV_NEG_PHI(P_i) with 128-bit scalars: ceil(129 / c) windows instead of
 * ceil(255 / c) and ~129 doublings instead of ~255, for one (G1) or two
 * (G2) field multiplications per point and the split (two steps of division
 * by L, ~35 ns). The 2n points and the digits of their halves in every
 * window (computed here once, so Pippenger only reads them) go into a
 * temporary array (sizeof(AFF) + 4 ceil(129 / c) bytes per point, twice),
 * allocated per call and freed before return, or cut from a scratch. G2 measured (2-core EPYC,
 * 1 thread, CPU time, 5022 points, random scalars): 124.4 ms without GLV
 * (c = 9), 107.1 ms with it (c = 10).
 *
 * The input is a list of parts (vectors whose MSMs are only needed as a
 * sum), each read directly or through an index list; all go into the one
 * Pippenger call. */

struct msm_part {
    const AFF *points;
    const cuzk_scalar *scalars;
    const size_t *idx; /* NULL: point j is points[j]; else points[idx[j]] */
    size_t n;
};

struct glv_ctx {
    const struct msm_part *parts;
    AFF *gp;          /* 2n: P_j at 2j, [L] P_j at 2j + 1 */
    int32_t *digits;  /* nwin * 2n, window-major: see pip_ctx */
    size_t n2;        /* 2n */
    unsigned c, nwin;
};

/* Builds the GLV points and the signed digits of their halves in every
 * window, at once per scalar (the halves are < 2^128: nothing to fold). A
 * point at infinity gets digits 0, so Pippenger never looks at it. */
static void glv_range(void *arg, size_t b, size_t e)
{
    struct glv_ctx *x = arg;
    const struct msm_part *pt = x->parts;
    size_t base = 0; /* index of pt's first point in the concatenation */
    for (size_t j = b; j < e; j++) {
        while (j - base >= pt->n) base += (pt++)->n;
        size_t s = pt->idx ? pt->idx[j - base] : j - base;
        uint64_t k1[4] = {0}, k2[4] = {0};
        int inf = G(affine_is_inf)(&pt->points[s]);
        if (!inf) msm_glv_split(k1, k2, pt->scalars[s].l);
        x->gp[2 * j] = pt->points[s];
        GLV_NEG_PHI(&x->gp[2 * j + 1], &pt->points[s]);
        int32_t *dg = x->digits + 2 * j;
        for (unsigned w = 0; w < x->nwin; w++, dg += x->n2) {
            dg[0] = (int32_t)msm_digit(k1, w, x->c);
            dg[1] = (int32_t)msm_digit(k2, w, x->c);
        }
    }
}

/* Offsets are rounded to cache lines. */
#define MSM_ALIGN(x) (((x) + (size_t)63) & ~(size_t)63)

/* The working memory of msm_run for n (= 2 x inputs) GLV points and plan
 * p, in the order pip_carve lays it out: the points, their digits, then
 * per thread the buckets and the batch state, and a result per task.
 * SIZE_MAX if it does not fit in a size_t. */
static size_t pip_bytes(const struct msm_plan *p, size_t n)
{
    size_t nb = (size_t)1 << (p->c - 1), ntasks = (size_t)p->nwin * p->nranges;
    if (n > SIZE_MAX / 4 / (sizeof(AFF) + p->nwin * sizeof(int32_t))) return SIZE_MAX;
    return MSM_ALIGN(n * sizeof(AFF)) + MSM_ALIGN(n * p->nwin * sizeof(int32_t)) +
           MSM_ALIGN(p->nthreads * nb * sizeof(XYZZ)) + MSM_ALIGN(ntasks * sizeof(XYZZ)) +
           p->nthreads * BA_MEM_BYTES(nb);
}

struct pip_mem {
    AFF *gp;
    int32_t *digits;
    XYZZ *buckets, *results;
    unsigned char *bamem;
};

/* Cuts mem (pip_bytes(p, n) bytes, 64-byte aligned or malloc's alignment)
 * into the arrays of struct pip_mem. */
static void pip_carve(struct pip_mem *m, unsigned char *mem, const struct msm_plan *p, size_t n)
{
    size_t nb = (size_t)1 << (p->c - 1), ntasks = (size_t)p->nwin * p->nranges;
    m->gp = (AFF *)(void *)mem;
    mem += MSM_ALIGN(n * sizeof(AFF));
    m->digits = (int32_t *)(void *)mem;
    mem += MSM_ALIGN(n * p->nwin * sizeof(int32_t));
    m->buckets = (XYZZ *)(void *)mem;
    mem += MSM_ALIGN(p->nthreads * nb * sizeof(XYZZ));
    m->results = (XYZZ *)(void *)mem;
    mem += MSM_ALIGN(ntasks * sizeof(XYZZ));
    m->bamem = mem;
}

/* The MSM over the concatenation of parts[0..nparts); c = 0: chosen by the
 * cost model. work = NULL: the working memory (pip_bytes) is malloc'ed and
 * freed here. Otherwise it is carved from work (caller-owned, work_bytes
 * long, 64-byte aligned), and the plan is the cost model's best among
 * those that fit; CUZK_ERR_INVALID_ARGUMENT if none does. */
static cuzk_status msm_run(JAC *r, const struct msm_part *parts, size_t nparts,
                           unsigned nthreads, unsigned c, unsigned char *work,
                           size_t work_bytes)
{
    size_t n = 0;
    for (size_t q = 0; q < nparts; q++) n += parts[q].n;
    if (n == 0) {
        G(jac_set_inf)(r);
        return CUZK_OK;
    }
    static const struct msm_costs costs = MSM_COSTS;
    struct msm_plan plan;
    if (n > SIZE_MAX / 4) return CUZK_ERR_NO_MEMORY;
    if (!msm_plan_choose(&plan, 2 * n, MSM_GLV_BITS, nthreads, c, &costs,
                         work ? pip_bytes : NULL, work_bytes))
        return CUZK_ERR_INVALID_ARGUMENT;
    unsigned char *mem = work;
    if (!work) {
        size_t bytes = pip_bytes(&plan, 2 * n);
        if (bytes == SIZE_MAX || !(mem = malloc(bytes))) return CUZK_ERR_NO_MEMORY;
    }
    struct pip_mem m;
    pip_carve(&m, mem, &plan, 2 * n);
    struct glv_ctx x = {parts, m.gp, m.digits, 2 * n, plan.c, plan.nwin};
    /* ~0.3 us per point: 2^12 points (~1 ms) per thread at least. */
    cuzk_parallel_for(n, (size_t)1 << 12, msm_threads(nthreads), glv_range, &x);
    pip_run(r, x.gp, x.digits, 2 * n, &plan, m.buckets, m.results, m.bamem);
    if (!work) free(mem);
    return CUZK_OK;
}

unsigned G(msm_window)(size_t n, unsigned nthreads)
{
    static const struct msm_costs costs = MSM_COSTS;
    struct msm_plan p;
    msm_plan_choose(&p, 2 * n, MSM_GLV_BITS, nthreads, 0, &costs, NULL, 0);
    return p.c;
}

cuzk_status G(msm_var)(JAC *r, const AFF *points, const cuzk_scalar *scalars, size_t n,
                   unsigned nthreads)
{
    return G(msm_ws_var)(r, points, scalars, n, nthreads, NULL, NULL);
}

cuzk_status G(msm_c_var)(JAC *r, const AFF *points, const cuzk_scalar *scalars, size_t n,
                     unsigned nthreads, unsigned c)
{
    if (c > MSM_MAX_C) return CUZK_ERR_INVALID_ARGUMENT;
    struct msm_part part = {points, scalars, NULL, n};
    return msm_run(r, &part, 1, nthreads, c, NULL, 0);
}

/* ---------------------------------------------------- batch affine sum --
 *
 * Each thread gathers its selected points into a buffer of
 * CUZK_BATCH_SUM_CHUNK, adds them in pairs (2i, 2i + 1) -> i, refills the
 * freed half from its input and repeats; when the input is used up it keeps
 * halving until BSUM_STOP points are left and adds those into an XYZZ
 * accumulator with mixed additions. Each level of pairs costs one field
 * inversion, shared by Montgomery's trick (3 M per pair), plus per pair
 *   chord    (P != +-Q): lambda = (y2 - y1) / (x2 - x1)    1 M
 *   tangent  (P = Q):    lambda = 3 x1^2 / (2 y1)          1 M + 1 S
 *   opposite (P = -Q):   the pair gives infinity and is dropped
 *   x3 = lambda^2 - x1 - x2, y3 = lambda (x1 - x3) - y1    1 M + 1 S
 * i.e. 5 M + 1 S per addition against 8 M + 3 S for an XYZZ mixed addition.
 * The inversion (~15-35 us for Fp, measured, binary Euclid) is shared by
 * CHUNK / 2 = 512 pairs while the input lasts; below BSUM_STOP points a
 * level saves less than its inversion costs. */

#define BSUM_CHUNK CUZK_BATCH_SUM_CHUNK

enum { PAIR_CHORD, PAIR_TANGENT, PAIR_OPPOSITE };

/* One level: buf[0..k) -> buf[0..return), pairwise sums, in place.
 * pref holds k / 2 elements. */
static size_t bsum_level(AFF *buf, size_t k, FE *pref, unsigned char *kind)
{
    size_t m = k / 2;
    FE den, inv, t, lam, x3, y3;
    /* Denominators and their prefix products. */
    for (size_t i = 0; i < m; i++) {
        const AFF *a = &buf[2 * i], *b = &buf[2 * i + 1];
        if (!F(eq)(&a->x, &b->x)) {
            kind[i] = PAIR_CHORD;
            F(sub)(&den, &b->x, &a->x);
        } else if (F(eq)(&a->y, &b->y)) {
            kind[i] = PAIR_TANGENT;
            F(dbl)(&den, &a->y); /* y != 0: no point of order 2 */
        } else {
            kind[i] = PAIR_OPPOSITE;
            den = FE_ONE_;
        }
        if (i == 0)
            pref[0] = den;
        else
            F(mul)(&pref[i], &pref[i - 1], &den);
    }
    /* One inversion; walking back, pref[i] becomes 1 / den_i. */
    FE_INV_VAR(&inv, &pref[m - 1]);
    for (size_t i = m; i-- > 1;) {
        const AFF *a = &buf[2 * i], *b = &buf[2 * i + 1];
        if (kind[i] == PAIR_CHORD)
            F(sub)(&den, &b->x, &a->x);
        else if (kind[i] == PAIR_TANGENT)
            F(dbl)(&den, &a->y);
        else
            den = FE_ONE_;
        F(mul)(&t, &inv, &pref[i - 1]);
        F(mul)(&inv, &inv, &den);
        pref[i] = t;
    }
    pref[0] = inv;
    /* The sums, written over the front of buf: output j <= i is never an
     * input of a later pair. */
    size_t j = 0;
    for (size_t i = 0; i < m; i++) {
        AFF a = buf[2 * i], b = buf[2 * i + 1];
        if (kind[i] == PAIR_OPPOSITE) continue;
        if (kind[i] == PAIR_CHORD) {
            F(sub)(&t, &b.y, &a.y);
        } else {
            F(sqr)(&t, &a.x);
            F(add)(&lam, &t, &t);
            F(add)(&t, &lam, &t);
        }
        F(mul)(&lam, &t, &pref[i]);
        F(sqr)(&x3, &lam);
        F(sub)(&x3, &x3, &a.x);
        F(sub)(&x3, &x3, &b.x);
        F(sub)(&y3, &a.x, &x3);
        F(mul)(&y3, &y3, &lam);
        F(sub)(&y3, &y3, &a.y);
        buf[j].x = x3;
        buf[j].y = y3;
        j++;
    }
    if (k & 1) buf[j++] = buf[k - 1];
    return j;
}

struct bsum_ctx {
    const AFF *points;
    const uint64_t *bitmap; /* NULL: every point */
    size_t n;
    size_t nslots;
    unsigned char *mem;     /* per slot: BSUM_CHUNK AFF, then BSUM_CHUNK / 2 FE */
    XYZZ *results;          /* one per slot */
};

#define BSUM_SLOT_BYTES (BSUM_CHUNK * sizeof(AFF) + BSUM_CHUNK / 2 * sizeof(FE))

static void bsum_slot(struct bsum_ctx *x, size_t slot)
{
    AFF *buf = (AFF *)(void *)(x->mem + slot * BSUM_SLOT_BYTES);
    FE *pref = (FE *)(void *)(buf + BSUM_CHUNK);
    unsigned char kind[BSUM_CHUNK / 2];
    /* Slot ranges are whole 64-point words of the bitmap. */
    size_t words = (x->n + 63) / 64;
    size_t pos = words * slot / x->nslots * 64;
    size_t end = words * (slot + 1) / x->nslots * 64;
    if (end > x->n) end = x->n;
    if (pos > end) pos = end;
    XYZZ acc;
    G(xyzz_set_inf)(&acc);
    size_t k = 0;
    for (;;) {
        while (k < BSUM_CHUNK && pos < end) {
            if (x->bitmap) {
                uint64_t wd = x->bitmap[pos / 64] >> (pos % 64);
                if (wd == 0) { /* skip to the next word */
                    pos = (pos / 64 + 1) * 64;
                    continue;
                }
                pos += (size_t)__builtin_ctzll(wd);
                if (pos >= end) break;
            }
            const AFF *p = &x->points[pos++];
            if (!G(affine_is_inf)(p)) buf[k++] = *p;
        }
        if (pos >= end) pos = end;
        if (pos == end && k <= BSUM_STOP) break;
        k = bsum_level(buf, k, pref, kind);
    }
    for (size_t i = 0; i < k; i++) xyzz_madd_var(&acc, &acc, &buf[i]);
    x->results[slot] = acc;
}

static void bsum_worker(void *arg, size_t b, size_t e)
{
    for (size_t s = b; s < e; s++) bsum_slot(arg, s);
}

/* Working memory of bsum_run for a number of slots (one per thread at
 * most): a buffer and a result each. */
static size_t bsum_bytes(size_t slots)
{
    return slots * (BSUM_SLOT_BYTES + sizeof(XYZZ));
}

/* The sum of the points selected by bitmap (NULL: all). work = NULL: the
 * working memory is malloc'ed and freed here; otherwise work
 * (caller-owned) holds at least bsum_bytes(msm_threads(nthreads)). */

static cuzk_status bsum_run(JAC *r, const AFF *points, const uint64_t *bitmap, size_t n,
                            unsigned nthreads, unsigned char *work)
{
    /* A slot ends with ~log2(CHUNK / BSUM_STOP) levels of shrinking size,
     * each paying a whole inversion: give each thread at least 8 chunks. */
    size_t T = msm_threads(nthreads);
    size_t slots = n / (8 * BSUM_CHUNK);
    if (slots > T) slots = T;
    if (slots < 1) slots = 1;
    struct bsum_ctx x = {points, bitmap, n, slots, work, NULL};
    if (!work && !(x.mem = malloc(bsum_bytes(slots)))) return CUZK_ERR_NO_MEMORY;
    x.results = (XYZZ *)(void *)(x.mem + slots * BSUM_SLOT_BYTES);
    cuzk_parallel_for(slots, 1, (unsigned)slots, bsum_worker, &x);
    XYZZ acc = x.results[0];
    for (size_t s = 1; s < slots; s++) xyzz_add_var(&acc, &acc, &x.results[s]);
    if (!work) free(x.mem);
    G(xyzz_to_jac)(r, &acc);
    return CUZK_OK;
}

cuzk_status G(batch_sum_var)(JAC *r, const AFF *points, size_t n, unsigned nthreads)
{
    return bsum_run(r, points, NULL, n, nthreads, NULL);
}

cuzk_status G(batch_sum_bitmap_var)(JAC *r, const AFF *points, const uint64_t *bitmap,
                                size_t n, unsigned nthreads)
{
    return bsum_run(r, points, bitmap, n, nthreads, NULL);
}

/* -------------------------------------------------------------- scratch --
 *
 * One block, laid out as
 *   ones   ceil(max_n / 64) + CUZK_MSM_MAX_VECS words: the parts' bitmaps
 *   rest   max_n indices: the parts' index lists
 *   work   the batch sums' slots, and after them (the sums are done by
 *          then) the GLV points, digits, buckets and batch state of the
 *          one Pippenger call: scratch_work_bytes.
 */
struct G(msm_scratch) {
    unsigned char *mem; /* owned: bytes */
    size_t bytes, max_n, work_bytes;
    unsigned nthreads;  /* resolved: never 0 */
    uint64_t *ones;
    size_t *rest;
    unsigned char *work;
};

/* The work area for up to max_n inputs on T threads: the batch sums' slots,
 * or the Pippenger memory of the cost model's plan for a grid of input
 * counts (max_n, then 1/16 steps down to max_n / 16, then halvings), so
 * those and sizes near them get the plan they would get without a scratch.
 * Any other count m <= max_n gets the best plan that fits, and one does:
 * the plan of max_n restricted to R = 1 needs no more than the plan of
 * max_n itself. SIZE_MAX if too large. */
static size_t scratch_work_bytes(size_t max_n, unsigned T)
{
    static const struct msm_costs costs = MSM_COSTS;
    size_t w = bsum_bytes(T);
    if (max_n > SIZE_MAX / 4) return SIZE_MAX;
    for (unsigned k = 0; k < 16 + 64; k++) {
        size_t m = k < 16 ? max_n - max_n / 16 * k : max_n >> (k - 15);
        if (m == 0) break;
        struct msm_plan p;
        msm_plan_choose(&p, 2 * m, MSM_GLV_BITS, T, 0, &costs, NULL, 0);
        size_t b = pip_bytes(&p, 2 * m);
        if (b == SIZE_MAX) return SIZE_MAX;
        if (b > w) w = b;
    }
    return MSM_ALIGN(w);
}

size_t G(msm_scratch_bytes)(size_t max_n, unsigned nthreads)
{
    if (max_n > SIZE_MAX / 64) return SIZE_MAX;
    size_t words = (max_n + 63) / 64 + CUZK_MSM_MAX_VECS;
    size_t w = scratch_work_bytes(max_n, msm_threads(nthreads));
    size_t head = MSM_ALIGN(words * sizeof(uint64_t)) + MSM_ALIGN(max_n * sizeof(size_t));
    return w > SIZE_MAX - head ? SIZE_MAX : head + w;
}

cuzk_status G(msm_scratch_new)(struct G(msm_scratch) **out, size_t max_n, unsigned nthreads)
{
    *out = NULL;
    size_t bytes = G(msm_scratch_bytes)(max_n, nthreads);
    if (bytes == SIZE_MAX) return CUZK_ERR_NO_MEMORY;
    struct G(msm_scratch) *s = malloc(sizeof *s);
    if (!s) return CUZK_ERR_NO_MEMORY;
    /* aligned_alloc: the carved arrays start on cache lines. */
    if (!(s->mem = aligned_alloc(64, bytes))) {
        free(s);
        return CUZK_ERR_NO_MEMORY;
    }
    size_t words = (max_n + 63) / 64 + CUZK_MSM_MAX_VECS;
    s->bytes = bytes;
    s->max_n = max_n;
    s->nthreads = msm_threads(nthreads);
    s->ones = (uint64_t *)(void *)s->mem;
    s->rest = (size_t *)(void *)(s->mem + MSM_ALIGN(words * sizeof(uint64_t)));
    s->work = (unsigned char *)(void *)s->rest + MSM_ALIGN(max_n * sizeof(size_t));
    s->work_bytes = bytes - (size_t)(s->work - s->mem);
    *out = s;
    return CUZK_OK;
}

size_t G(msm_scratch_size)(const struct G(msm_scratch) *s)
{
    return s ? s->bytes + sizeof *s : 0;
}

void G(msm_scratch_free)(struct G(msm_scratch) *s)
{
    if (!s) return;
    free(s->mem);
    free(s);
}

/* Checks a call of n inputs in all on nthreads threads against ws's limits. */
static cuzk_status scratch_check(const struct G(msm_scratch) *ws, size_t n, unsigned nthreads,
                                 char *err)
{
    if (n > ws->max_n)
        return cuzk_errf(err, CUZK_ERR_INVALID_ARGUMENT, "msm: ",
                         "%zu points, but the scratch was made for at most %zu", n, ws->max_n);
    if (msm_threads(nthreads) > ws->nthreads)
        return cuzk_errf(err, CUZK_ERR_INVALID_ARGUMENT, "msm: ",
                         "%u threads, but the scratch was made for at most %u",
                         msm_threads(nthreads), ws->nthreads);
    return CUZK_OK;
}

/* A failure after scratch_check passed: should not happen (see
 * scratch_work_bytes), but says so rather than return a bare status. */
static cuzk_status scratch_status(cuzk_status st, const struct G(msm_scratch) *ws, char *err)
{
    if (st == CUZK_ERR_INVALID_ARGUMENT && ws)
        return cuzk_errf(err, st, "msm: ", "no Pippenger plan fits the scratch");
    if (st != CUZK_OK) return cuzk_errf(err, st, "msm: ", "%s", cuzk_strerror(st));
    return st;
}

cuzk_status G(msm_ws_var)(JAC *r, const AFF *points, const cuzk_scalar *scalars, size_t n,
                      unsigned nthreads, struct G(msm_scratch) *ws, char *err)
{
    if (err) err[0] = 0;
    cuzk_status st;
    if (ws && (st = scratch_check(ws, n, nthreads, err)) != CUZK_OK) return st;
    struct msm_part part = {points, scalars, NULL, n};
    st = msm_run(r, &part, 1, nthreads, 0, ws ? ws->work : NULL, ws ? ws->work_bytes : 0);
    return scratch_status(st, ws, err);
}

/* ----------------------------------------------------------- sparse MSM --
 *
 * Per part: scalars 0 are skipped, the points of scalar 1 batch-summed, the
 * rest (indices into the part, points at infinity dropped) go into one
 * Pippenger call over all parts. With ws the bitmaps and index lists are
 * cut from ws's ones and rest, part after part, and the sums and the
 * Pippenger call run in ws's work area; without, they are malloc'ed and
 * freed here. */

static cuzk_status sparse_run(JAC *r, const struct msm_part *in, size_t nparts,
                              unsigned nthreads, struct G(msm_scratch) *ws)
{
    struct msm_part parts[CUZK_MSM_MAX_VECS];
    uint64_t *ones[CUZK_MSM_MAX_VECS] = {NULL};
    size_t *rest[CUZK_MSM_MAX_VECS] = {NULL};
    if (nparts > CUZK_MSM_MAX_VECS) return CUZK_ERR_INVALID_ARGUMENT;
    cuzk_status st = CUZK_ERR_NO_MEMORY;
    JAC acc, t;
    G(jac_set_inf)(&acc);
    size_t words_used = 0, rest_used = 0;
    for (size_t q = 0; q < nparts; q++) {
        size_t n = in[q].n;
        if (ws) { /* sparse_check: these fit */
            ones[q] = ws->ones + words_used;
            rest[q] = ws->rest + rest_used;
            words_used += (n + 63) / 64;
            rest_used += n;
        } else {
            ones[q] = malloc(n ? (n + 63) / 64 * sizeof(uint64_t) : 1);
            rest[q] = malloc(n ? n * sizeof(size_t) : 1);
            if (!ones[q] || !rest[q]) goto out;
        }
        size_t m = msm_classify(ones[q], rest[q], in[q].scalars, n);
        /* Points at infinity would be skipped in every window anyway, but
         * they would count in n when the window is chosen (a Groth16 A
         * query is about half identity points): drop them here. */
        size_t k = 0;
        for (size_t i = 0; i < m; i++)
            if (!G(affine_is_inf)(&in[q].points[rest[q][i]])) rest[q][k++] = rest[q][i];
        parts[q] = (struct msm_part){in[q].points, in[q].scalars, rest[q], k};
        st = bsum_run(&t, in[q].points, ones[q], n, nthreads, ws ? ws->work : NULL);
        if (st != CUZK_OK) goto out;
        G(add)(&acc, &acc, &t);
    }
    st = msm_run(&t, parts, nparts, nthreads, 0, ws ? ws->work : NULL, ws ? ws->work_bytes : 0);
    if (st != CUZK_OK) goto out;
    G(add)(r, &acc, &t);
out:
    if (!ws) {
        for (size_t q = 0; q < nparts; q++) {
            free(ones[q]);
            free(rest[q]);
        }
    }
    return st;
}

cuzk_status G(msm_sparse_ws_var)(JAC *r, const AFF *points, const cuzk_scalar *scalars, size_t n,
                             unsigned nthreads, struct G(msm_scratch) *ws, char *err)
{
    if (err) err[0] = 0;
    cuzk_status st;
    if (ws && (st = scratch_check(ws, n, nthreads, err)) != CUZK_OK) return st;
    struct msm_part part = {points, scalars, NULL, n};
    return scratch_status(sparse_run(r, &part, 1, nthreads, ws), ws, err);
}

cuzk_status G(msm_sparse_var)(JAC *r, const AFF *points, const cuzk_scalar *scalars, size_t n,
                          unsigned nthreads)
{
    return G(msm_sparse_ws_var)(r, points, scalars, n, nthreads, NULL, NULL);
}

cuzk_status G(msm_sparse_sum_ws_var)(JAC *r, const VEC *v, size_t nv, unsigned nthreads,
                                 struct G(msm_scratch) *ws, char *err)
{
    if (err) err[0] = 0;
    struct msm_part parts[CUZK_MSM_MAX_VECS];
    if (nv > CUZK_MSM_MAX_VECS)
        return cuzk_errf(err, CUZK_ERR_INVALID_ARGUMENT, "msm: ",
                         "%zu vectors in a sum, at most %d", nv, CUZK_MSM_MAX_VECS);
    size_t total = 0;
    for (size_t q = 0; q < nv; q++) {
        parts[q] = (struct msm_part){v[q].points, v[q].scalars, NULL, v[q].n};
        total = v[q].n > SIZE_MAX - total ? SIZE_MAX : total + v[q].n;
    }
    cuzk_status st;
    if (ws && (st = scratch_check(ws, total, nthreads, err)) != CUZK_OK) return st;
    return scratch_status(sparse_run(r, parts, nv, nthreads, ws), ws, err);
}

cuzk_status G(msm_sparse_sum_var)(JAC *r, const VEC *v, size_t nv, unsigned nthreads)
{
    return G(msm_sparse_sum_ws_var)(r, v, nv, nthreads, NULL, NULL);
}
