/* The proof job (prove.h): workspaces, backends, cancellation, key storage.
 *
 *   - 50 proofs in one process on one workspace: every proof verifies, no
 *     proof after the first calls malloc, calloc or realloc (wrapped at link
 *     time: alloc_count.h), and the live heap after each proof is the live
 *     heap after the first (mallinfo2, or the sanitizer allocator's count
 *     under ASan);
 *   - fixed r, s: proofs are deterministic, and two proofs of two keys at
 *     once (two threads, two workspaces) equal the same proofs one after
 *     the other;
 *   - a cancel before each stage returns CUZK_ERR_CANCELED at that stage,
 *     leaks nothing (live heap unchanged; ASan's leak check), and leaves the
 *     workspace usable;
 *   - the registry: a backend registered at run time that delegates to the
 *     CPU is chosen by name and by "auto", proves the same proof; one that
 *     refuses the key makes "auto" fall back to the CPU;
 *   - job checks: witness length, rows of the wrong count, a PCE of another
 *     shape, a key without matrices, each blaming the right input;
 *   - key storage: a key file mapped into a pk (CUZK_PK_MAPPED) proves and
 *     is released by cuzk_groth16_pk_free; the view of a cuzk_keyfile is
 *     only forgotten by it. */
#include <malloc.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cuzk/gadgets.h>
#include <cuzk/prove.h>
#include <cuzk/r1cs.h>

#include "alloc_count.h"
#include "test_chain.h"
#include "test_util.h"

#if defined(__SANITIZE_ADDRESS__)
/* The sanitizer runtime's count (its header is not always installed). */
size_t __sanitizer_get_current_allocated_bytes(void);
static size_t live_bytes(void) { return __sanitizer_get_current_allocated_bytes(); }
#else
static size_t live_bytes(void)
{
    struct mallinfo2 m = mallinfo2();
    return m.uordblks + m.hblkhd;
}
#endif

#define THREADS 2

/* test_chain.h's circuit with the low 16 bits of x as booleans, and its
 * key. */
typedef struct {
    cuzk_r1cs r;
    cuzk_fr *w;
    size_t n_w;
    cuzk_groth16_pk pk;
} circuit;

static int build(circuit *c, unsigned steps, cuzk_roots roots, uint64_t seed)
{
    char err[CUZK_ERRMSG_LEN];
    memset(c, 0, sizeof *c);
    test_chain ch;
    uint64_t x = (test_rand64() & 0xffff) | 1, y = test_rand64();
    int ok = test_chain_build(&ch, steps, 16, x, y);
    c->r = ch.r;
    c->w = ch.w;
    c->n_w = ch.n_w;
    if (!ok) return 0;
    uint32_t n_in = c->r.n_public + 1;
    cuzk_setup_opts o = {roots, THREADS, &seed, NULL, NULL, NULL, NULL, NULL};
    ok = cuzk_groth16_setup(&c->pk, &c->r.m, n_in, c->r.n_wires - n_in, &o, err) == CUZK_OK;
    CHECK_MSG(ok, "setup: %s", err);
    return ok;
}

static void circuit_free(circuit *c)
{
    cuzk_groth16_pk_free(&c->pk);
    cuzk_r1cs_free(&c->r);
    free(c->w);
}

static cuzk_prove_job dense_job(const circuit *c)
{
    cuzk_prove_job j;
    memset(&j, 0, sizeof j);
    j.witness = CUZK_WITNESS_DENSE;
    j.w = c->w;
    j.n_w = c->n_w;
    return j;
}

static cuzk_config cpu_config(void)
{
    cuzk_config cfg;
    cuzk_config_default(&cfg);
    cfg.backend = "cpu";
    cfg.nthreads = THREADS;
    return cfg;
}

/* ------------------------------------------------ 50 proofs, one ws -- */

static void test_reuse(const circuit *c)
{
    char err[CUZK_ERRMSG_LEN];
    cuzk_config cfg = cpu_config();
    cuzk_workspace *ws = NULL;
    CHECK_MSG(cuzk_workspace_create(&ws, &c->pk, &cfg, err) == CUZK_OK, "%s", err);
    if (!ws) return;
    size_t n = (size_t)1 << c->pk.log_domain;
    uint64_t bytes = cuzk_workspace_bytes(ws);
    CHECK(bytes >= 3 * n * 32 + (uint64_t)c->pk.n_vars * 32);
    CHECK(!strcmp(cuzk_workspace_backend(ws), "cpu"));
    cuzk_prove_job job = dense_job(c);
    size_t live1 = 0, live_max = 0, allocs1 = 0;
    int valid = 0;
    /* The check below with its own working memory, made here: it is not
     * the prover's to count. */
    cuzk_g1_msm_scratch *vs = NULL;
    cuzk_scalar *vk = malloc((c->pk.n_public + 1) * sizeof *vk);
    CHECK(vk && cuzk_g1_msm_scratch_new(&vs, c->pk.n_public + 1, 1) == CUZK_OK);
    for (int i = 0; i < 50; i++) {
        cuzk_prove_result res;
        if (i == 1) allocs1 = atomic_load(&allocs);
        cuzk_status s = cuzk_prove(ws, &job, &res, err);
        CHECK_MSG(s == CUZK_OK, "proof %d: %s", i, err);
        if (s != CUZK_OK) break;
        /* verified by the self-check, and here again on its own */
        valid += cuzk_groth16_verify_ws(&c->pk.vk, &res.proof, res.pub, res.n_public, vs, vk) ==
                 CUZK_OK;
        CHECK(res.stage == CUZK_STAGE_DONE && res.n_public == c->pk.n_public &&
              !memcmp(res.pub, c->w + 1, res.n_public * sizeof *res.pub));
        CHECK(res.t.total_ms > 0 && res.t.msm_c_ms > 0 && res.t.verify_ms > 0);
        size_t live = live_bytes();
        if (i == 0) live1 = live;
        else if (live > live_max) live_max = live;
    }
    CHECK(valid == 50);
    cuzk_g1_msm_scratch_free(vs);
    free(vk);
    printf("  50 proofs on one workspace (%llu bytes): live heap after proof 1 %zu, at most %zu "
           "after proofs 2..50\n", (unsigned long long)bytes, live1, live_max);
    CHECK_MSG(live_max <= live1, "the live heap grew by %zu bytes over 49 proofs",
              live_max - live1);
    size_t n_alloc = atomic_load(&allocs) - allocs1;
    if (allocs_counted()) {
        printf("  allocations in proofs 2..50: %zu\n", n_alloc);
        CHECK_MSG(n_alloc == 0, "proofs 2..50 allocated %zu times", n_alloc);
    } else {
        printf("  allocations not counted (malloc is not wrapped in this build)\n");
    }
    CHECK(cuzk_workspace_bytes(ws) == bytes);
    cuzk_workspace_destroy(ws);

    /* Rows in place: a workspace without a, b, c is 96 bytes a point smaller. */
    cfg.ws_flags = CUZK_WS_CALLER_ROWS;
    CHECK(cuzk_workspace_create(&ws, &c->pk, &cfg, err) == CUZK_OK);
    if (ws) {
        CHECK(cuzk_workspace_bytes(ws) == bytes - 3 * n * 32);
        cuzk_prove_result res;
        CHECK(cuzk_prove(ws, &job, &res, err) == CUZK_ERR_INVALID_ARGUMENT &&
              strstr(err, "in place"));
        cuzk_workspace_destroy(ws);
    }
}

/* ----------------------------------------- fixed r, s; two at once -- */

typedef struct {
    const circuit *c;
    cuzk_fr r, s;
    cuzk_proof proof;
    cuzk_status st;
} par_job;

static void *prove_thread(void *arg)
{
    par_job *p = arg;
    char err[CUZK_ERRMSG_LEN];
    cuzk_config cfg = cpu_config();
    cuzk_workspace *ws = NULL;
    p->st = cuzk_workspace_create(&ws, &p->c->pk, &cfg, err);
    if (p->st != CUZK_OK) return NULL;
    cuzk_prove_job job = dense_job(p->c);
    job.fixed_r = &p->r;
    job.fixed_s = &p->s;
    cuzk_prove_result res;
    p->st = cuzk_prove(ws, &job, &res, err);
    p->proof = res.proof;
    cuzk_workspace_destroy(ws);
    return NULL;
}

static void random_fr(cuzk_fr *x)
{
    cuzk_fr_from_u64(x, test_rand64());
    cuzk_fr t;
    cuzk_fr_from_u64(&t, test_rand64());
    cuzk_fr_mul(x, x, &t);
}

static void test_parallel(const circuit *c1, const circuit *c2)
{
    par_job seq[2], par[2];
    memset(seq, 0, sizeof seq);
    seq[0].c = c1;
    seq[1].c = c2;
    for (int k = 0; k < 2; k++) {
        random_fr(&seq[k].r);
        random_fr(&seq[k].s);
        par[k] = seq[k];
    }
    prove_thread(&seq[0]);
    prove_thread(&seq[1]);
    CHECK(seq[0].st == CUZK_OK && seq[1].st == CUZK_OK);
    /* deterministic with r, s fixed */
    par_job again = seq[0];
    prove_thread(&again);
    CHECK(again.st == CUZK_OK && !memcmp(&again.proof, &seq[0].proof, sizeof again.proof));
    pthread_t th[2];
    int started[2];
    for (int k = 0; k < 2; k++) started[k] = pthread_create(&th[k], NULL, prove_thread, &par[k]) == 0;
    CHECK(started[0] && started[1]);
    for (int k = 0; k < 2; k++)
        if (started[k]) pthread_join(th[k], NULL);
    for (int k = 0; k < 2; k++) {
        CHECK(par[k].st == CUZK_OK);
        CHECK(!memcmp(&par[k].proof, &seq[k].proof, sizeof par[k].proof));
        const circuit *c = k ? c2 : c1;
        CHECK(cuzk_groth16_verify(&c->pk.vk, &par[k].proof, c->w + 1, c->pk.n_public) == CUZK_OK);
    }
    /* a different r gives a different (still valid) proof */
    CHECK(memcmp(&seq[0].proof, &seq[1].proof, sizeof seq[0].proof) != 0);
}

/* ------------------------------------------------------------ cancel -- */

typedef struct {
    cuzk_prove_stage cancel_at;
    cuzk_prove_stage seen[16];
    int n_seen;
} cancel_ctx;

static int on_stage(void *ctx, cuzk_prove_stage next)
{
    cancel_ctx *c = ctx;
    if (c->n_seen < 16) c->seen[c->n_seen++] = next;
    return next == c->cancel_at;
}

static void test_cancel(const circuit *c)
{
    char err[CUZK_ERRMSG_LEN];
    cuzk_config cfg = cpu_config();
    cuzk_workspace *ws = NULL;
    CHECK(cuzk_workspace_create(&ws, &c->pk, &cfg, err) == CUZK_OK);
    if (!ws) return;
    cuzk_prove_job job = dense_job(c);
    cuzk_prove_result res;
    CHECK(cuzk_prove(ws, &job, &res, err) == CUZK_OK); /* warm: live heap settles */
    size_t live0 = live_bytes();
    for (int st = CUZK_STAGE_ROWS; st <= CUZK_STAGE_VERIFY; st++) {
        cancel_ctx cc = {(cuzk_prove_stage)st, {0}, 0};
        job.progress = on_stage;
        job.progress_ctx = &cc;
        cuzk_status s = cuzk_prove(ws, &job, &res, err);
        CHECK_MSG(s == CUZK_ERR_CANCELED && res.stage == (cuzk_prove_stage)st,
                  "cancel at %s: status %d, stage %d", cuzk_prove_stage_name(st), (int)s,
                  (int)res.stage);
        CHECK(strstr(err, "canceled") && strstr(err, cuzk_prove_stage_name(st)));
        /* the stages ran in order up to the canceled one, a dense job has
         * no witness stage, and the proof is not returned */
        CHECK(cc.n_seen == st - CUZK_STAGE_ROWS + 1);
        for (int k = 0; k < cc.n_seen; k++) CHECK((int)cc.seen[k] == CUZK_STAGE_ROWS + k);
        cuzk_proof zero;
        memset(&zero, 0, sizeof zero);
        CHECK(!memcmp(&res.proof, &zero, sizeof zero) && res.bad_input == CUZK_INPUT_NONE);
        CHECK_MSG(live_bytes() == live0, "cancel at %s: live heap %zu, was %zu",
                  cuzk_prove_stage_name(st), live_bytes(), live0);
    }
    /* the workspace proves again, and a hook that says go sees every stage */
    cancel_ctx go = {CUZK_STAGE_DONE, {0}, 0};
    job.progress_ctx = &go;
    CHECK(cuzk_prove(ws, &job, &res, err) == CUZK_OK);
    CHECK(go.n_seen == CUZK_STAGE_VERIFY - CUZK_STAGE_ROWS + 1);
    CHECK(cuzk_groth16_verify(&c->pk.vk, &res.proof, c->w + 1, c->pk.n_public) == CUZK_OK);
    cuzk_workspace_destroy(ws);
    CHECK(!strcmp(cuzk_strerror(CUZK_ERR_CANCELED), "canceled"));
}

/* ---------------------------------------------------------- backends -- */

/* A backend registered at run time, as the GPU's will be: it delegates
 * every stage to the CPU backend and counts the calls. */
static int fake_calls, fake_refuse;

static cuzk_status fake_create(void **bws, const cuzk_groth16_pk *pk, const cuzk_config *cfg,
                               char *err)
{
    if (fake_refuse) {
        if (err) snprintf(err, CUZK_ERRMSG_LEN, "fake: no device");
        return CUZK_ERR_NO_DEVICE;
    }
    return cuzk_backend_cpu()->ws_create(bws, pk, cfg, err);
}
static void fake_destroy(void *b) { cuzk_backend_cpu()->ws_destroy(b); }
static uint64_t fake_bytes(const void *b) { return cuzk_backend_cpu()->ws_bytes(b); }
static cuzk_status fake_rows(void *b, const cuzk_stage_in *in, char *err)
{
    fake_calls++;
    return cuzk_backend_cpu()->eval_rows(b, in, err);
}
static cuzk_status fake_h(void *b, const cuzk_stage_in *in, char *err)
{
    fake_calls++;
    return cuzk_backend_cpu()->h_poly(b, in, err);
}
static cuzk_status fake_a(void *b, const cuzk_stage_in *in, cuzk_g1_jac *o, char *err)
{
    fake_calls++;
    return cuzk_backend_cpu()->msm_a(b, in, o, err);
}
static cuzk_status fake_b2(void *b, const cuzk_stage_in *in, cuzk_g2_jac *o, char *err)
{
    fake_calls++;
    return cuzk_backend_cpu()->msm_b2(b, in, o, err);
}
static cuzk_status fake_c(void *b, const cuzk_stage_in *in, cuzk_g1_jac *o, char *err)
{
    fake_calls++;
    return cuzk_backend_cpu()->msm_c(b, in, o, err);
}
static const cuzk_prover_backend FAKE = {"fake-gpu", fake_create, fake_destroy, fake_bytes,
                                         fake_rows,  fake_h,      fake_a,       fake_b2,
                                         fake_c,     0};

static void test_backends(const circuit *c)
{
    char err[CUZK_ERRMSG_LEN];
    CHECK(cuzk_backend_find("cpu") == cuzk_backend_cpu());
    CHECK(cuzk_backend_find("fake-gpu") == NULL);
    CHECK(cuzk_backend_register(&FAKE) == CUZK_OK);
    CHECK(cuzk_backend_register(&FAKE) == CUZK_ERR_INVALID_ARGUMENT); /* name taken */
    CHECK(cuzk_backend_register(cuzk_backend_cpu()) == CUZK_ERR_INVALID_ARGUMENT);
    CHECK(cuzk_backend_find("fake-gpu") == &FAKE);
    cuzk_fr r, s;
    random_fr(&r);
    random_fr(&s);
    cuzk_proof proofs[3];
    const char *names[3] = {"cpu", "fake-gpu", "auto"};
    for (int k = 0; k < 3; k++) {
        cuzk_config cfg = cpu_config();
        cfg.backend = names[k];
        cuzk_workspace *ws = NULL;
        fake_calls = 0;
        CHECK(cuzk_workspace_create(&ws, &c->pk, &cfg, err) == CUZK_OK);
        if (!ws) return;
        CHECK(!strcmp(cuzk_workspace_backend(ws), k ? "fake-gpu" : "cpu"));
        CHECK(!cuzk_workspace_note(ws)[0]);
        cuzk_prove_job job = dense_job(c);
        job.fixed_r = &r;
        job.fixed_s = &s;
        cuzk_prove_result res;
        CHECK(cuzk_prove(ws, &job, &res, err) == CUZK_OK);
        CHECK(fake_calls == (k ? 5 : 0));
        proofs[k] = res.proof;
        cuzk_workspace_destroy(ws);
    }
    CHECK(!memcmp(&proofs[0], &proofs[1], sizeof proofs[0]) &&
          !memcmp(&proofs[0], &proofs[2], sizeof proofs[0]));
    /* a backend that cannot take the key: "auto" falls back to the CPU,
     * asked by name it is an error */
    fake_refuse = 1;
    cuzk_config cfg = cpu_config();
    cfg.backend = NULL; /* auto */
    cuzk_workspace *ws = NULL;
    CHECK(cuzk_workspace_create(&ws, &c->pk, &cfg, err) == CUZK_OK);
    CHECK(ws && !strcmp(cuzk_workspace_backend(ws), "cpu"));
    /* ... saying why (the engine logs it) */
    CHECK(ws && !strcmp(cuzk_workspace_note(ws), "fake-gpu: fake: no device"));
    cuzk_workspace_destroy(ws);
    cfg.backend = "fake-gpu";
    CHECK(cuzk_workspace_create(&ws, &c->pk, &cfg, err) == CUZK_ERR_NO_DEVICE && !ws);
    cfg.backend = "nope";
    CHECK(cuzk_workspace_create(&ws, &c->pk, &cfg, err) == CUZK_ERR_INVALID_ARGUMENT &&
          strstr(err, "nope"));
    fake_refuse = 0;
}

/* -------------------------------------------------- compact witness -- */

/* A backend that takes compact witnesses (as the GPU's does): each stage
 * checks it got wc and no w, and runs the CPU's stages on the expansion. */
static cuzk_fr *fc_w;
static int fc_seen_wc;

static cuzk_stage_in fc_in(const cuzk_stage_in *in)
{
    cuzk_stage_in d = *in;
    fc_seen_wc += in->wc != NULL && in->w == NULL;
    d.w = fc_w;
    d.wc = NULL;
    return d;
}
static cuzk_status fc_rows(void *b, const cuzk_stage_in *in, char *err)
{
    free(fc_w);
    if (!in->wc || !(fc_w = malloc(in->wc->n * sizeof *fc_w))) return CUZK_ERR_NO_MEMORY;
    cuzk_status s = cuzk_wc_expand(in->wc, fc_w, in->wc->n, 1);
    if (s != CUZK_OK) return s;
    cuzk_stage_in d = fc_in(in);
    return cuzk_backend_cpu()->eval_rows(b, &d, err);
}
static cuzk_status fc_h(void *b, const cuzk_stage_in *in, char *err)
{
    cuzk_stage_in d = fc_in(in);
    return cuzk_backend_cpu()->h_poly(b, &d, err);
}
static cuzk_status fc_a(void *b, const cuzk_stage_in *in, cuzk_g1_jac *o, char *err)
{
    cuzk_stage_in d = fc_in(in);
    return cuzk_backend_cpu()->msm_a(b, &d, o, err);
}
static cuzk_status fc_b2(void *b, const cuzk_stage_in *in, cuzk_g2_jac *o, char *err)
{
    cuzk_stage_in d = fc_in(in);
    return cuzk_backend_cpu()->msm_b2(b, &d, o, err);
}
static cuzk_status fc_c(void *b, const cuzk_stage_in *in, cuzk_g1_jac *o, char *err)
{
    cuzk_stage_in d = fc_in(in);
    return cuzk_backend_cpu()->msm_c(b, &d, o, err);
}
static const cuzk_prover_backend FAKE_COMPACT = {
    "fake-compact", fake_create, fake_destroy, fake_bytes, fc_rows, fc_h, fc_a, fc_b2, fc_c,
    CUZK_BACKEND_COMPACT};

/* A compact witness proves as its dense form does (same r, s: the same
 * bytes), on the CPU backend (expanded) and on a compact backend (as it
 * is); its workspace flag makes the dense buffer at creation; a wrong
 * count or w[0] != 1 is refused as for a dense witness. */
static void test_compact(const circuit *c)
{
    char err[CUZK_ERRMSG_LEN];
    cuzk_witness_compact wc;
    CHECK(cuzk_wc_init(&wc, c->n_w) == CUZK_OK);
    CHECK(cuzk_wc_from_dense(&wc, c->w, c->n_w, THREADS) == CUZK_OK);
    CHECK(cuzk_backend_register(&FAKE_COMPACT) == CUZK_OK);
    cuzk_fr r, s;
    random_fr(&r);
    random_fr(&s);
    cuzk_proof want;
    const char *names[3] = {"cpu", "cpu", "fake-compact"};
    for (int k = 0; k < 3; k++) {
        cuzk_config cfg = cpu_config();
        cfg.backend = names[k];
        cuzk_workspace *ws = NULL;
        CHECK(cuzk_workspace_create(&ws, &c->pk, &cfg, err) == CUZK_OK);
        if (!ws) break;
        uint64_t b0 = cuzk_workspace_bytes(ws);
        cuzk_prove_job job = dense_job(c);
        if (k) {
            job.witness = CUZK_WITNESS_COMPACT;
            job.w = NULL;
            job.wc = &wc;
        }
        job.fixed_r = &r;
        job.fixed_s = &s;
        cuzk_prove_result res;
        fc_seen_wc = 0;
        CHECK_MSG(cuzk_prove(ws, &job, &res, err) == CUZK_OK, "%s: %s", names[k], err);
        if (k == 0) want = res.proof;
        else CHECK_MSG(!memcmp(&want, &res.proof, sizeof want), "%s: another proof", names[k]);
        CHECK(res.n_public == c->pk.n_public &&
              !memcmp(res.pub, c->w + 1, res.n_public * sizeof *res.pub));
        CHECK(fc_seen_wc == (k == 2 ? 5 : 0));
        /* the CPU backend expanded it into a buffer it keeps */
        if (k == 1) CHECK(cuzk_workspace_bytes(ws) == b0 + (uint64_t)c->pk.n_vars * 32);
        /* the r1cs check reads an expansion, on either kind of backend */
        job.r1cs = &c->r;
        CHECK_MSG(cuzk_prove(ws, &job, &res, err) == CUZK_OK, "%s, r1cs: %s", names[k], err);
        CHECK(!memcmp(&want, &res.proof, sizeof want));
        job.r1cs = NULL;
        /* refused as a dense witness would be */
        cuzk_witness_compact bad;
        CHECK(cuzk_wc_init(&bad, c->n_w - 1) == CUZK_OK);
        CHECK(cuzk_wc_from_dense(&bad, c->w, c->n_w - 1, 1) == CUZK_OK);
        job.witness = CUZK_WITNESS_COMPACT;
        job.wc = &bad;
        CHECK(cuzk_prove(ws, &job, &res, err) == CUZK_ERR_UNSATISFIED &&
              res.bad_input == CUZK_INPUT_WITNESS && strstr(err, "values"));
        cuzk_wc_free(&bad);
        cuzk_fr keep = c->w[0];
        c->w[0] = CUZK_FR_ZERO;
        CHECK(cuzk_wc_init(&bad, c->n_w) == CUZK_OK);
        CHECK(cuzk_wc_from_dense(&bad, c->w, c->n_w, 1) == CUZK_OK);
        c->w[0] = keep;
        CHECK(cuzk_prove(ws, &job, &res, err) == CUZK_ERR_UNSATISFIED && strstr(err, "must be 1"));
        cuzk_wc_free(&bad);
        CHECK(cuzk_wc_init(&bad, c->n_w) == CUZK_OK); /* made, never filled */
        job.wc = &bad;
        CHECK(cuzk_prove(ws, &job, &res, err) == CUZK_ERR_INVALID_ARGUMENT &&
              strstr(err, "not filled") && res.bad_input == CUZK_INPUT_WITNESS);
        cuzk_wc_free(&bad);
        job.wc = NULL;
        CHECK(cuzk_prove(ws, &job, &res, err) == CUZK_ERR_INVALID_ARGUMENT &&
              strstr(err, "without a witness"));
        cuzk_workspace_destroy(ws);
    }
    /* CUZK_WS_COMPACT_WITNESS: the dense buffer is made (and counted) at
     * creation on a backend that needs it, not on a compact one. */
    cuzk_config cfg = cpu_config();
    cuzk_workspace *w1 = NULL, *w2 = NULL, *w3 = NULL;
    CHECK(cuzk_workspace_create(&w1, &c->pk, &cfg, err) == CUZK_OK);
    cfg.ws_flags = CUZK_WS_COMPACT_WITNESS;
    CHECK(cuzk_workspace_create(&w2, &c->pk, &cfg, err) == CUZK_OK);
    cfg.backend = "fake-compact";
    CHECK(cuzk_workspace_create(&w3, &c->pk, &cfg, err) == CUZK_OK);
    if (w1 && w2 && w3) {
        CHECK(cuzk_workspace_bytes(w2) == cuzk_workspace_bytes(w1) + (uint64_t)c->pk.n_vars * 32);
        CHECK(cuzk_workspace_bytes(w3) == cuzk_workspace_bytes(w1));
    }
    cuzk_workspace_destroy(w1);
    cuzk_workspace_destroy(w2);
    cuzk_workspace_destroy(w3);
    free(fc_w);
    fc_w = NULL;
    cuzk_wc_free(&wc);
}

/* ------------------------------------------------------- job checks -- */

static void test_job_checks(const circuit *c)
{
    char err[CUZK_ERRMSG_LEN];
    cuzk_config cfg = cpu_config();
    cuzk_workspace *ws = NULL;
    CHECK(cuzk_workspace_create(&ws, &c->pk, &cfg, err) == CUZK_OK);
    if (!ws) return;
    cuzk_prove_result res;
    cuzk_prove_job job = dense_job(c);
    job.n_w--;
    CHECK(cuzk_prove(ws, &job, &res, err) == CUZK_ERR_UNSATISFIED &&
          res.bad_input == CUZK_INPUT_WITNESS);
    job = dense_job(c);
    job.r1cs = &c->r; /* the witness checked first: it satisfies */
    CHECK(cuzk_prove(ws, &job, &res, err) == CUZK_OK);
    cuzk_fr keep = c->w[5];
    cuzk_fr_add(&c->w[5], &c->w[5], &CUZK_FR_ONE);
    CHECK(cuzk_prove(ws, &job, &res, err) == CUZK_ERR_UNSATISFIED &&
          res.bad_input == CUZK_INPUT_R1CS);
    job.r1cs = NULL; /* the self-check catches it too */
    CHECK(cuzk_prove(ws, &job, &res, err) == CUZK_ERR_UNSATISFIED &&
          res.bad_input == CUZK_INPUT_WITNESS && res.stage == CUZK_STAGE_VERIFY);
    c->w[5] = keep;
    /* rows of the wrong count; a PCE of another shape; both at once */
    cuzk_fr one = CUZK_FR_ONE;
    cuzk_groth16_rows rows = {&one, &one, NULL, 1, 0, 0};
    job.rows = &rows;
    CHECK(cuzk_prove(ws, &job, &res, err) == CUZK_ERR_INVALID_ARGUMENT &&
          res.bad_input == CUZK_INPUT_ROWS);
    cuzk_pce pce;
    memset(&pce, 0, sizeof pce);
    pce.n_cols = c->n_w + 1;
    job.pce = &pce;
    CHECK(cuzk_prove(ws, &job, &res, err) == CUZK_ERR_INVALID_ARGUMENT);
    job.rows = NULL;
    CHECK(cuzk_prove(ws, &job, &res, err) == CUZK_ERR_INVALID_ARGUMENT &&
          res.bad_input == CUZK_INPUT_PCE && strstr(err, "another circuit"));
    cuzk_workspace_destroy(ws);
    /* a key without matrices needs rows */
    cuzk_groth16_pk bare = c->pk; /* shallow: never freed */
    memset(&bare.m, 0, sizeof bare.m);
    CHECK(cuzk_workspace_create(&ws, &bare, &cfg, err) == CUZK_OK);
    job = dense_job(c);
    CHECK(ws && cuzk_prove(ws, &job, &res, err) == CUZK_ERR_INVALID_ARGUMENT &&
          res.bad_input == CUZK_INPUT_KEY && strstr(err, "no matrices"));
    cuzk_workspace_destroy(ws);
    job.fixed_r = &one; /* r without s */
    CHECK(cuzk_prove(NULL, &job, &res, err) == CUZK_ERR_INVALID_ARGUMENT);
}

/* --------------------------------------------------------- key storage -- */

/* Resident kB of the mapping that starts at base (/proc/self/smaps), or -1
 * when it cannot be read (not Linux). */
static long mapping_rss_kb(const void *base)
{
    FILE *f = fopen("/proc/self/smaps", "r");
    if (!f) return -1;
    char line[512];
    int in = 0;
    long kb = -1;
    while (fgets(line, sizeof line, f)) {
        unsigned long lo, hi;
        if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 && strchr(line, '-') < strchr(line, ' ')) {
            in = lo == (unsigned long)(uintptr_t)base;
            continue;
        }
        if (in && sscanf(line, "Rss: %ld kB", &kb) == 1) break;
    }
    fclose(f);
    return kb;
}

static void test_key_storage(const circuit *c)
{
    char err[CUZK_ERRMSG_LEN], path[64];
    snprintf(path, sizeof path, "/tmp/test_prove_%d.cuzk", (int)getpid());
    CHECK(c->pk.storage == CUZK_PK_OWNED);
    CHECK_MSG(cuzk_keyfile_write(path, &c->pk, "test", 0, err) == CUZK_OK, "%s", err);
    cuzk_groth16_pk pk;
    char label[64];
    CHECK_MSG(cuzk_keyfile_map_pk(&pk, path, 0, THREADS, label, err) == CUZK_OK, "%s", err);
    CHECK(pk.storage == CUZK_PK_MAPPED && !strcmp(label, "test"));
    cuzk_proof proof;
    CHECK_MSG(cuzk_groth16_prove(&proof, &pk, c->w, c->n_w, THREADS, 0, NULL, err) == CUZK_OK,
              "%s", err);
    CHECK(cuzk_groth16_verify(&c->pk.vk, &proof, c->w + 1, c->pk.n_public) == CUZK_OK);
    /* Its pages dropped (a device would hold the points): the mapping's
     * RSS goes to 0, and the next proof reads the file again. */
    long before = mapping_rss_kb(pk.mapping_.base_);
    CHECK(cuzk_groth16_pk_release_pages(&pk) == CUZK_OK);
    long after = mapping_rss_kb(pk.mapping_.base_);
    if (before >= 0) {
        CHECK_MSG(before > 0 && after == 0, "mapped key RSS %ld kB, after release %ld kB",
                  before, after);
    } else {
        printf("test_prove: no /proc/self/smaps: the key's RSS not checked\n");
    }
    CHECK_MSG(cuzk_groth16_prove(&proof, &pk, c->w, c->n_w, THREADS, 0, NULL, err) == CUZK_OK,
              "%s", err);
    CHECK(cuzk_groth16_verify(&c->pk.vk, &proof, c->w + 1, c->pk.n_public) == CUZK_OK);
    CHECK(mapping_rss_kb(pk.mapping_.base_) != 0);
    cuzk_groth16_pk_free(&pk); /* unmaps (ASan would see a leak otherwise: the blob) */
    CHECK(pk.a == NULL && pk.storage == CUZK_PK_OWNED);
    cuzk_keyfile kf;
    CHECK(cuzk_keyfile_map(&kf, path, 0, THREADS, err) == CUZK_OK);
    CHECK(kf.pk.storage == CUZK_PK_VIEW);
    cuzk_groth16_pk view = kf.pk;
    cuzk_groth16_pk_free(&view); /* forgets; frees nothing it does not own */
    CHECK(view.a == NULL && kf.pk.a != NULL);
    cuzk_keyfile_close(&kf);
    CHECK(cuzk_keyfile_map_pk(&pk, "/nonexistent/k.cuzk", 0, 1, NULL, err) == CUZK_ERR_IO);
    cuzk_groth16_pk_free(&pk);
    unlink(path);
}

/* gpu_ntt_full_twiddles: exactly 0, 1, 2, 4, 5, 6, 9 and 13 are values,
 * and the default is one of them. */
static void test_ntt_tables_valid(void)
{
    static const unsigned ok[] = {0, 1, 2, 4, 5, 6, 9, 13};
    for (unsigned v = 0; v < 40; v++) {
        int want = 0;
        for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) want |= ok[i] == v;
        CHECK_MSG(cuzk_ntt_tables_valid(v) == want, "gpu_ntt_full_twiddles %u: %d", v,
                  cuzk_ntt_tables_valid(v));
    }
    cuzk_config cfg;
    cuzk_config_default(&cfg);
    CHECK(cuzk_ntt_tables_valid(cfg.gpu_ntt_full_twiddles));
}

int main(void)
{
    test_seed("test_prove");
    test_ntt_tables_valid();
    circuit c1, c2;
    int ok1 = build(&c1, 300, CUZK_ROOTS_SNARKJS, test_rand64());
    int ok2 = build(&c2, 420, CUZK_ROOTS_BELLPERSON, test_rand64());
    CHECK(ok1 && ok2);
    if (ok1 && ok2) {
        test_reuse(&c1);
        test_parallel(&c1, &c2);
        test_cancel(&c2);
        test_backends(&c1);
        test_compact(&c1);
        test_job_checks(&c1);
        test_key_storage(&c2);
    }
    circuit_free(&c1);
    circuit_free(&c2);
    return test_done("test_prove");
}
