/* Point views: decode and check encoded point vectors in place, in
 * parallel. */
#include <stdatomic.h>

#include "common/parallel.h"
#include "formats/fmt_internal.h"

static int bytes_all_zero(const uint8_t *p, size_t n)
{
    uint8_t acc = 0;
    for (size_t i = 0; i < n; i++) acc |= p[i];
    return acc == 0;
}

cuzk_status fmt_point_decode(void *out, const cuzk_points *v, uint64_t i, int subgroup)
{
    size_t ps = point_size(v);
    const uint8_t *b = v->bytes + i * ps;
    unsigned fl = subgroup ? CUZK_DECODE_SUBGROUP : 0;
    cuzk_status s;
    int inf;
    if (v->g2) {
        cuzk_g2_affine p;
        if (v->enc == CUZK_ENC_LEM)
            s = cuzk_g2_from_lem(&p, b, fl);
        else if (v->identity_ok && bytes_all_zero(b, ps))
            s = (memset(&p, 0, sizeof p), CUZK_OK);
        else
            s = cuzk_g2_from_uncompressed(&p, b, fl);
        if (s != CUZK_OK) return s;
        inf = cuzk_g2_affine_is_inf(&p);
        if (out) *(cuzk_g2_affine *)out = p;
    } else {
        cuzk_g1_affine p;
        if (v->enc == CUZK_ENC_LEM)
            s = cuzk_g1_from_lem(&p, b, fl);
        else if (v->identity_ok && bytes_all_zero(b, ps))
            s = (memset(&p, 0, sizeof p), CUZK_OK);
        else
            s = cuzk_g1_from_uncompressed(&p, b, fl);
        if (s != CUZK_OK) return s;
        inf = cuzk_g1_affine_is_inf(&p);
        if (out) *(cuzk_g1_affine *)out = p;
    }
    return inf && !v->identity_ok ? CUZK_ERR_BAD_ENCODING : CUZK_OK;
}

struct decode_ctx {
    const cuzk_points *v;
    uint8_t *out;      /* NULL: check only */
    uint64_t start;
    int subgroup;
    _Atomic uint64_t bad;
};

static void decode_range(void *vctx, size_t begin, size_t end)
{
    struct decode_ctx *ctx = vctx;
    size_t os = ctx->v->g2 ? sizeof(cuzk_g2_affine) : sizeof(cuzk_g1_affine);
    for (size_t i = begin; i < end; i++) {
        if ((i & 255) == 0 && i >= atomic_load(&ctx->bad)) return;
        void *o = ctx->out ? ctx->out + i * os : NULL;
        if (fmt_point_decode(o, ctx->v, ctx->start + i, ctx->subgroup) != CUZK_OK) {
            uint64_t cur = atomic_load(&ctx->bad);
            while (i < cur && !atomic_compare_exchange_weak(&ctx->bad, &cur, i)) {
            }
            return;
        }
    }
}

static cuzk_status decode_many(void *out, const cuzk_points *v, uint64_t start, uint64_t n,
                               int subgroup, unsigned nthreads, uint64_t *bad_index)
{
    if (bad_index) *bad_index = UINT64_MAX;
    if (!v || (!v->bytes && v->n)) return CUZK_ERR_INVALID_ARGUMENT;
    if (start > v->n || n > v->n - start) return CUZK_ERR_INVALID_ARGUMENT;
    struct decode_ctx ctx = {v, out, start, subgroup, UINT64_MAX};
    /* At least ~1 ms of work per range, against a few microseconds to
     * hand one to the pool (common/parallel.h): a curve check costs
     * 0.2-0.4 us, a subgroup check ~64 us (measured, formats.h). */
    size_t chunk = subgroup ? 16 : 4096;
    cuzk_parallel_for((size_t)n, chunk, nthreads ? nthreads : cuzk_ncores(), decode_range, &ctx);
    uint64_t bad = atomic_load(&ctx.bad);
    if (bad == UINT64_MAX) return CUZK_OK;
    if (bad_index) *bad_index = start + bad;
    return fmt_point_decode(NULL, v, start + bad, subgroup);
}

cuzk_status cuzk_points_decode_g1(cuzk_g1_affine *out, const cuzk_points *v, uint64_t start,
                                  uint64_t n, int subgroup, unsigned nthreads,
                                  uint64_t *bad_index)
{
    if (!out || !v || v->g2) return CUZK_ERR_INVALID_ARGUMENT;
    return decode_many(out, v, start, n, subgroup, nthreads, bad_index);
}

cuzk_status cuzk_points_decode_g2(cuzk_g2_affine *out, const cuzk_points *v, uint64_t start,
                                  uint64_t n, int subgroup, unsigned nthreads,
                                  uint64_t *bad_index)
{
    if (!out || !v || !v->g2) return CUZK_ERR_INVALID_ARGUMENT;
    return decode_many(out, v, start, n, subgroup, nthreads, bad_index);
}

cuzk_status cuzk_points_check(const cuzk_points *v, int subgroup, unsigned nthreads,
                              uint64_t *bad_index)
{
    if (!v) return CUZK_ERR_INVALID_ARGUMENT;
    return decode_many(NULL, v, 0, v->n, subgroup, nthreads, bad_index);
}

cuzk_status fmt_points_check_msg(const cuzk_points *v, int subgroup, const char *file,
                                 const char *what, char *err)
{
    uint64_t bad = UINT64_MAX;
    cuzk_status s = cuzk_points_check(v, subgroup, 0, &bad);
    if (s == CUZK_OK) return s;
    cuzk_points any = *v;
    any.identity_ok = 1;
    if (s == CUZK_ERR_BAD_ENCODING && fmt_point_decode(NULL, &any, bad, 0) == CUZK_OK)
        return fmt_fail(err, s, "%s: %s point %llu is the identity, which is not allowed here",
                        file, what, (unsigned long long)bad);
    return fmt_fail(err, s, "%s: %s point %llu: %s", file, what, (unsigned long long)bad,
                    cuzk_strerror(s));
}
