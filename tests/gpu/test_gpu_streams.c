/* The GPU context's concurrency (include/cuzk/gpu.h, "Contexts, memory and
 * streams"): a G1 MSM, a G2 MSM and an NTT enqueued on the streams of one
 * context before any is waited for give the CPU's results (random inputs,
 * fresh seed); waits on idle streams; plans and domains larger than the
 * pool fail with CUZK_ERR_NO_MEMORY and a message; the pool is whole again
 * after destroys. */
#include <stdlib.h>
#include <string.h>

#include <cuzk/ec.h>
#include <cuzk/ff.h>
#include <cuzk/msm.h>
#include <cuzk/poly.h>

#include "gpu_test.h"
#include "test_points.h"

#define NAME "test_gpu_streams"

static void rand_scalars(cuzk_scalar *k, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        uint64_t w[4];
        for (int j = 0; j < 4; j++) w[j] = test_rand64();
        memcpy(&k[i], w, sizeof k[i]);
    }
}

/* Two MSMs (G1 on stream 0, G2 on stream 1) and an NTT (stream 2) all
 * enqueued before any wait; then a second G1 MSM on another plan of the
 * same points on stream 1 while the first is in flight. */
static void test_concurrent(cuzk_gpu_ctx *ctx)
{
    char err[CUZK_ERRMSG_LEN];
    const size_t n1 = 1 << 14, n2 = 1 << 12;
    const unsigned log_n = 16;
    const size_t nn = (size_t)1 << log_n;
    cuzk_g1_affine *p1 = test_xmalloc(n1 * sizeof *p1);
    cuzk_g2_affine *p2 = test_xmalloc(n2 * sizeof *p2);
    cuzk_scalar *k1 = test_xmalloc(n1 * sizeof *k1), *k1b = test_xmalloc(n1 * sizeof *k1b);
    cuzk_scalar *k2 = test_xmalloc(n2 * sizeof *k2);
    cuzk_fr *x = test_xmalloc(nn * sizeof *x), *y = test_xmalloc(nn * sizeof *y);
    test_g1_points(p1, n1);
    test_g2_points(p2, n2);
    rand_scalars(k1, n1);
    rand_scalars(k1b, n1);
    rand_scalars(k2, n2);
    for (size_t i = 0; i < nn; i++) test_rand_fr(&x[i]);

    cuzk_gpu_msm_opts o1 = {CUZK_GPU_G1, 0, 0, CUZK_GPU_MSM_ACC_DEFAULT, NULL, 0, 0};
    cuzk_gpu_msm_opts o1x = {CUZK_GPU_G1, 0, 0, CUZK_GPU_MSM_XYZZ, NULL, 0, 0};
    cuzk_gpu_msm_opts o2 = {CUZK_GPU_G2, 0, CUZK_GPU_MSM_BITS_TABLE, CUZK_GPU_MSM_ACC_DEFAULT,
                            NULL, 0, 0};
    cuzk_gpu_msm_plan *pa = NULL, *pb = NULL, *pc = NULL;
    cuzk_gpu_ntt_domain *d = NULL;
    cuzk_fr *dx = NULL;
    cuzk_scalar *dk = NULL;
    cuzk_status st = cuzk_gpu_msm_plan_create(&pa, ctx, &o1, p1, n1, err);
    CHECK_MSG(st == CUZK_OK && err[0] == 0, "G1 plan: %s", err);
    st = cuzk_gpu_msm_plan_create(&pb, ctx, &o1x, p1, n1, err);
    CHECK_MSG(st == CUZK_OK, "G1 XYZZ plan: %s", err);
    st = cuzk_gpu_msm_plan_create(&pc, ctx, &o2, p2, n2, err);
    CHECK_MSG(st == CUZK_OK, "G2 plan: %s", err);
    st = cuzk_gpu_ntt_domain_create(&d, ctx, log_n, CUZK_ROOTS_BELLPERSON, err);
    CHECK_MSG(st == CUZK_OK, "domain: %s", err);
    st = cuzk_gpu_buf_alloc((void **)&dx, ctx, nn * sizeof *dx, err);
    CHECK_MSG(st == CUZK_OK, "buf_alloc: %s", err);
    st = cuzk_gpu_buf_alloc((void **)&dk, ctx, n1 * sizeof *dk, err);
    CHECK_MSG(st == CUZK_OK, "buf_alloc: %s", err);
    if (!pa || !pb || !pc || !d || !dx || !dk) goto out;

    /* A wait on a stream with nothing enqueued returns at once. */
    CHECK(cuzk_gpu_stream_wait(ctx, 3, err) == CUZK_OK && err[0] == 0);

    /* Device scalars for the second G1 MSM, copied on stream 1 and ordered
     * before it by stream order. */
    CHECK(cuzk_gpu_memcpy(ctx, 1, dk, k1b, n1 * sizeof *dk, err) == CUZK_OK);
    CHECK(cuzk_gpu_memcpy(ctx, 2, dx, x, nn * sizeof *x, err) == CUZK_OK);

    CHECK_MSG(cuzk_gpu_msm_start_var(pa, 0, k1, n1, err) == CUZK_OK, "start G1: %s", err);
    CHECK_MSG(cuzk_gpu_msm_sparse_start_var(pc, 1, k2, n2, err) == CUZK_OK, "start G2: %s", err);
    CHECK_MSG(cuzk_gpu_ntt(d, 2, CUZK_GPU_NTT_COSET_FORWARD, dx, err) == CUZK_OK, "ntt: %s", err);
    CHECK_MSG(cuzk_gpu_msm_start_var(pb, 1, dk, n1, err) == CUZK_OK, "start G1 b: %s", err);
    /* A started plan is busy. */
    CHECK(cuzk_gpu_msm_start_var(pa, 3, k1, n1, err) == CUZK_ERR_INVALID_ARGUMENT &&
          strncmp(err, "gpu: ", 5) == 0);
    CHECK(cuzk_gpu_memcpy(ctx, 2, y, dx, nn * sizeof *y, err) == CUZK_OK);

    /* Finish in another order than started. */
    cuzk_g1_jac ga, gb, wa, wb;
    cuzk_g2_jac gc, wc;
    CHECK_MSG(cuzk_gpu_g2_msm_finish(&gc, pc, err) == CUZK_OK, "finish G2: %s", err);
    CHECK_MSG(cuzk_gpu_g1_msm_finish(&gb, pb, err) == CUZK_OK, "finish G1 b: %s", err);
    CHECK_MSG(cuzk_gpu_g1_msm_finish(&ga, pa, err) == CUZK_OK, "finish G1: %s", err);
    CHECK_MSG(cuzk_gpu_stream_wait(ctx, 2, err) == CUZK_OK, "wait: %s", err);
    /* Finishing twice, or with the other group, is misuse. */
    CHECK(cuzk_gpu_g1_msm_finish(&ga, pa, err) == CUZK_ERR_INVALID_ARGUMENT);
    CHECK(cuzk_gpu_g1_msm_finish(&ga, pc, err) == CUZK_ERR_INVALID_ARGUMENT);

    CHECK(cuzk_g1_msm_var(&wa, p1, k1, n1, 0) == CUZK_OK);
    CHECK(cuzk_g1_msm_var(&wb, p1, k1b, n1, 0) == CUZK_OK);
    CHECK(cuzk_g2_msm_var(&wc, p2, k2, n2, 0) == CUZK_OK);
    CHECK_MSG(cuzk_g1_jac_eq(&ga, &wa), "concurrent G1 MSM != CPU");
    CHECK_MSG(cuzk_g1_jac_eq(&gb, &wb), "concurrent G1 MSM (device scalars) != CPU");
    CHECK_MSG(cuzk_g2_jac_eq(&gc, &wc), "concurrent G2 sparse MSM != CPU");
    cuzk_ntt_domain *cd = NULL;
    CHECK(cuzk_ntt_domain_create(&cd, log_n, CUZK_ROOTS_BELLPERSON, 0) == CUZK_OK);
    if (cd) {
        cuzk_ntt_coset_forward(cd, x);
        CHECK_MSG(memcmp(x, y, nn * sizeof *x) == 0, "concurrent NTT != CPU");
        cuzk_ntt_domain_destroy(cd);
    }

    /* The same again through the synchronous forms on one plan, so a
     * finished plan is reusable. */
    CHECK(cuzk_gpu_g1_msm_var(&ga, pa, 1, k1b, n1, err) == CUZK_OK && cuzk_g1_jac_eq(&ga, &wb));
    /* An idle stream after all that. */
    CHECK(cuzk_gpu_stream_wait(ctx, 0, err) == CUZK_OK);
    /* Stream indices past the context's are misuse, with a message. */
    CHECK(cuzk_gpu_stream_wait(ctx, 4, err) == CUZK_ERR_INVALID_ARGUMENT &&
          strncmp(err, "gpu: ", 5) == 0);
    CHECK(cuzk_gpu_msm_start_var(pa, 4, k1, n1, err) == CUZK_ERR_INVALID_ARGUMENT);
    CHECK(cuzk_gpu_stream_order(ctx, 0, 1, err) == CUZK_OK);

out:
    cuzk_gpu_buf_free(ctx, dk);
    cuzk_gpu_buf_free(ctx, dx);
    cuzk_gpu_ntt_domain_destroy(d);
    cuzk_gpu_msm_plan_destroy(pc);
    cuzk_gpu_msm_plan_destroy(pb);
    cuzk_gpu_msm_plan_destroy(pa);
    free(p1);
    free(p2);
    free(k1);
    free(k1b);
    free(k2);
    free(x);
    free(y);
}

/* A small pool: objects that do not fit fail cleanly, with a message. */
static void test_pool_limit(void)
{
    char err[CUZK_ERRMSG_LEN];
    cuzk_gpu_ctx_opts o = {0, (size_t)8 << 20, 2};
    cuzk_gpu_ctx *ctx = NULL;
    cuzk_status st = cuzk_gpu_ctx_create(&ctx, &o, err);
    CHECK_MSG(st == CUZK_OK, "small context: %s", err);
    if (!ctx) return;
    size_t total = 0, used = 1;
    cuzk_gpu_ctx_pool(ctx, &total, &used);
    CHECK(total == (size_t)8 << 20 && used == 0);

    /* 2^16 G1 points: 6 MiB of points alone, ~30 MiB with the sort. */
    const size_t n = 1 << 16;
    cuzk_g1_affine *p = test_xmalloc(n * sizeof *p);
    test_g1_points(p, 16);
    for (size_t i = 16; i < n; i++) p[i] = p[i % 16];
    cuzk_gpu_msm_opts mo = {CUZK_GPU_G1, 0, 0, CUZK_GPU_MSM_ACC_DEFAULT, NULL, 0, 0};
    cuzk_gpu_msm_plan *plan = NULL;
    err[0] = 0;
    st = cuzk_gpu_msm_plan_create(&plan, ctx, &mo, p, n, err);
    CHECK_MSG(st == CUZK_ERR_NO_MEMORY && plan == NULL, "plan over the pool: %s",
              cuzk_strerror(st));
    CHECK_MSG(strncmp(err, "gpu: ", 5) == 0 && strstr(err, "pool"), "message: '%s'", err);

    /* A 2^20 domain's tables fit; its transform's data (32 MiB) does not. */
    cuzk_gpu_ntt_domain *d = NULL;
    st = cuzk_gpu_ntt_domain_create(&d, ctx, 20, CUZK_ROOTS_BELLPERSON, err);
    CHECK_MSG(st == CUZK_OK, "domain 2^20: %s", err);
    void *buf = NULL;
    st = cuzk_gpu_buf_alloc(&buf, ctx, (size_t)32 << 20, err);
    CHECK(st == CUZK_ERR_NO_MEMORY && buf == NULL && strncmp(err, "gpu: ", 5) == 0);
    if (d) {
        cuzk_fr *a = test_xmalloc(sizeof(cuzk_fr) << 20);
        memset(a, 0, sizeof(cuzk_fr) << 20);
        st = cuzk_gpu_ntt_host(d, CUZK_GPU_NTT_FORWARD, a, err);
        CHECK(st == CUZK_ERR_NO_MEMORY && strncmp(err, "gpu: ", 5) == 0);
        free(a);
    }
    cuzk_gpu_ntt_domain_destroy(d);
    /* A domain whose tables (~21 MiB at 2^28) are larger than the pool. */
    cuzk_gpu_ntt_domain *d2 = NULL;
    st = cuzk_gpu_ntt_domain_create(&d2, ctx, 28, CUZK_ROOTS_BELLPERSON, err);
    CHECK_MSG(st == CUZK_ERR_NO_MEMORY && d2 == NULL && strncmp(err, "gpu: ", 5) == 0,
              "domain 2^28 over an 8 MiB pool: %s (%s)", cuzk_strerror(st), err);
    cuzk_gpu_ntt_domain_destroy(d2);

    cuzk_gpu_ctx_pool(ctx, &total, &used);
    CHECK_MSG(used == 0, "pool in use after the destroys: %zu", used);
    /* A pool larger than the device. */
    cuzk_gpu_ctx *big = NULL;
    cuzk_gpu_ctx_opts ob = {0, (size_t)1 << 50, 1};
    st = cuzk_gpu_ctx_create(&big, &ob, err);
    CHECK_MSG(st == CUZK_ERR_NO_MEMORY && big == NULL && strncmp(err, "gpu: ", 5) == 0,
              "2^50-byte pool: %s", err);
    free(p);
    cuzk_gpu_ctx_destroy(ctx);
}

int main(void)
{
    int rc = gpu_test_start(NAME);
    if (rc) return rc;
    char err[CUZK_ERRMSG_LEN];
    cuzk_gpu_ctx_opts o = {0, (size_t)2 << 30, 4};
    cuzk_gpu_ctx *ctx = NULL;
    cuzk_status st = cuzk_gpu_ctx_create(&ctx, &o, err);
    CHECK_MSG(st == CUZK_OK, "context: %s", err);
    if (ctx) {
        CHECK(cuzk_gpu_ctx_streams(ctx) == 4);
        test_concurrent(ctx);
        cuzk_gpu_ctx_destroy(ctx);
    }
    test_pool_limit();
    /* Misuse of the context options. */
    cuzk_gpu_ctx_opts bad = {0, 0, CUZK_GPU_MAX_STREAMS + 1};
    ctx = NULL;
    CHECK(cuzk_gpu_ctx_create(&ctx, &bad, err) == CUZK_ERR_INVALID_ARGUMENT && ctx == NULL &&
          strncmp(err, "gpu: ", 5) == 0);
    bad.streams = 1;
    bad.device = 1 << 20;
    CHECK(cuzk_gpu_ctx_create(&ctx, &bad, err) == CUZK_ERR_INVALID_ARGUMENT && ctx == NULL);
    return test_done(NAME);
}
