/* The GPU prover backend (src/gpu/prover.cu) against the CPU backend.
 *
 * With the same witness and fixed r, s (cuzk_prove_job.fixed_r/fixed_s)
 * the two backends must give the same proof, byte for byte; each GPU proof
 * also verifies with the CPU verifier (and passed the self-check). Cases:
 * every built-in circuit at a small size (snarkjs roots) through the key's
 * matrices, through its PCE (compiled with and without the input rows, on
 * a key without matrices), as a circuit job, and with the caller's rows;
 * a bellperson-form key (CUZK_ROOTS_BELLPERSON, monomial H); tests/data's
 * mul.zkey + mul.wtns (snarkjs, no C matrix); many proofs on one
 * workspace; a proof stopped between stages, then the next one; a wrong
 * witness (CUZK_ERR_UNSATISFIED, never a proof); a pool too small for the
 * key (CUZK_ERR_NO_MEMORY with a message) and a table mode that is none
 * (gpu_ntt_full_twiddles 12: CUZK_ERR_INVALID_ARGUMENT); the plans sharing one MSM
 * scratch (gpu_streams 2); the sparse MSMs started beside the NTTs
 * (gpu_sparse_early); the NTTs' full and positional twiddle tables, and
 * the full one with the coset table, and both as Shoup pairs
 * (gpu_ntt_full_twiddles 1, 2, 5, 13); porep
 * at 2^18 and 2^20; witnesses whose aux part is all 0 or all 1, and a
 * circuit of public inputs only; a bit flipped in a key point in device
 * memory (CUZK_ERR_PROOF_INVALID, never a proof).
 *
 * Exit 77 (ctest: skipped) without a GPU. Replay with CUZK_SEED=<n>. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuzk/circuits.h>
#include <cuzk/formats.h>
#include <cuzk/gpu.h>
#include <cuzk/groth16.h>
#include <cuzk/pce.h>
#include <cuzk/prove.h>

#include "gpu/gpu_testing.h"
#include "gpu_test.h"

#define NAME "test_gpu_prove"
#define THREADS 0 /* every core */

/* A random nonzero scalar. */
static void rand_fr(cuzk_fr *r)
{
    do {
        uint64_t v[4] = {test_rand64(), test_rand64(), test_rand64(), test_rand64() >> 3};
        cuzk_fr_from_limbs_reduce(r, v);
    } while (cuzk_fr_is_zero(r));
}

typedef struct {
    cuzk_workspace *cpu, *gpu;
} pair_t;

/* gpu_msm_flags: 0 (the backend's upgrades), or plans as given: PLAIN
 * (a bit outside the plan flags: plain plans), CUZK_GPU_MSM_BITS_TABLE, ... */
#define PLAIN 0x100u
static unsigned msm_flags;
/* gpu_streams: 0 (the backend's: the MSMs on their own streams), 2 (one
 * scratch shared by the five plans, their MSMs in turn) or 3 (two: H | the
 * sparse MSMs, windows sorted in batches). */
static unsigned gpu_streams;
/* ws_flags of the workspaces pair_open makes (CUZK_WS_COMPACT_WITNESS). */
static unsigned ws_flags;
/* gpu_ntt_fp64 and gpu_msm_fp64: the FP64 shares (0: integer only). */
static unsigned ntt_fp64, msm_fp64;
/* gpu_sparse_early: the sparse MSMs started before the NTTs. */
static unsigned sparse_early;
/* gpu_ntt_full_twiddles: the NTTs' pass 1 from a full (1) or positional
 * (2) twiddle table, plus 4: the coset table too, plus 8: as Shoup pairs. */
static unsigned full_tw;
/* The device pool of each GPU workspace pair_open makes: a fifth of the
 * card, so the three pairs circuit_case holds at once fit beside the
 * kernels' local memory. A default pool takes 7/8 of what is free, and a
 * third one then gets nothing (CUZK_ERR_NO_MEMORY, by design). */
static uint64_t pair_pool;

static int pair_open(pair_t *p, const cuzk_groth16_pk *pk, const char *what)
{
    char err[CUZK_ERRMSG_LEN];
    cuzk_config cfg;
    cuzk_config_default(&cfg);
    cfg.nthreads = THREADS;
    cfg.gpu_msm_flags = msm_flags;
    cfg.gpu_streams = gpu_streams;
    cfg.ws_flags = ws_flags;
    cfg.gpu_ntt_fp64 = ntt_fp64;
    cfg.gpu_msm_fp64 = msm_fp64;
    cfg.gpu_sparse_early = sparse_early;
    cfg.gpu_ntt_full_twiddles = full_tw;
    cfg.gpu_pool_bytes = pair_pool;
    memset(p, 0, sizeof *p);
    cfg.backend = "cpu";
    cuzk_status s = cuzk_workspace_create(&p->cpu, pk, &cfg, err);
    CHECK_MSG(s == CUZK_OK, "%s: cpu workspace: %s", what, err);
    cfg.backend = "gpu";
    cuzk_status s2 = cuzk_workspace_create(&p->gpu, pk, &cfg, err);
    CHECK_MSG(s2 == CUZK_OK, "%s: gpu workspace: %s (%s)", what, err, cuzk_strerror(s2));
    if (s2 == CUZK_OK) {
        CHECK(!strcmp(cuzk_workspace_backend(p->gpu), "gpu"));
        /* The full table comes from what the plans leave: always room with
         * plain plans; with upgrades, either is right. */
        cuzk_gpu_ntt_info ni;
        CHECK(cuzk_gpu_testing_ws_ntt(p->gpu, &ni, err) == CUZK_OK);
        if (!full_tw || msm_flags == PLAIN)
            CHECK_MSG(ni.full_twiddles == (pk->log_domain >= 3 ? (int)(full_tw & 3) : 0) &&
                          ni.coset_table == (pk->log_domain >= 3 && (full_tw & 4)) &&
                          ni.shoup_tables == (pk->log_domain >= 3 && (full_tw & 8)),
                      "%s: full twiddles %d, coset table %d, Shoup pairs %d, asked %u", what,
                      ni.full_twiddles, ni.coset_table, ni.shoup_tables, full_tw);
    }
    return s == CUZK_OK && s2 == CUZK_OK;
}

static void pair_close(pair_t *p)
{
    cuzk_workspace_destroy(p->cpu);
    cuzk_workspace_destroy(p->gpu);
    memset(p, 0, sizeof *p);
}

/* Proves job on both workspaces with one fresh r, s; checks the GPU proof
 * equals the CPU's and verifies. Returns 1 when both proved and agree. */
static int prove_both(pair_t *p, const cuzk_groth16_pk *pk, cuzk_prove_job job,
                      const char *what)
{
    char err[CUZK_ERRMSG_LEN];
    cuzk_fr r, s;
    rand_fr(&r);
    rand_fr(&s);
    job.fixed_r = &r;
    job.fixed_s = &s;
    cuzk_prove_result rc, rg;
    cuzk_status sc = cuzk_prove(p->cpu, &job, &rc, err);
    CHECK_MSG(sc == CUZK_OK, "%s: cpu prove: %s", what, err);
    cuzk_status sg = cuzk_prove(p->gpu, &job, &rg, err);
    CHECK_MSG(sg == CUZK_OK, "%s: gpu prove: %s (%s, stage %s)", what, err, cuzk_strerror(sg),
              cuzk_prove_stage_name(rg.stage));
    if (sc != CUZK_OK || sg != CUZK_OK) return 0;
    CHECK_MSG(cuzk_groth16_verify(&pk->vk, &rg.proof, rg.pub, rg.n_public) == CUZK_OK,
              "%s: the GPU proof does not verify", what);
    int same = !memcmp(&rc.proof.a, &rg.proof.a, sizeof rc.proof.a) &&
               !memcmp(&rc.proof.b, &rg.proof.b, sizeof rc.proof.b) &&
               !memcmp(&rc.proof.c, &rg.proof.c, sizeof rc.proof.c);
    CHECK_MSG(same, "%s: GPU proof differs from the CPU's (A %s, B %s, C %s)", what,
              memcmp(&rc.proof.a, &rg.proof.a, sizeof rc.proof.a) ? "differs" : "equal",
              memcmp(&rc.proof.b, &rg.proof.b, sizeof rc.proof.b) ? "differs" : "equal",
              memcmp(&rc.proof.c, &rg.proof.c, sizeof rc.proof.c) ? "differs" : "equal");
    return same;
}

static cuzk_prove_job dense_job(const cuzk_fr *w, size_t n)
{
    cuzk_prove_job j;
    memset(&j, 0, sizeof j);
    j.witness = CUZK_WITNESS_DENSE;
    j.w = w;
    j.n_w = n;
    return j;
}

/* ------------------------------------------------- built-in circuits -- */

typedef struct {
    const char *id;
    unsigned size;
} circ_case;

static void circuit_case(const circ_case *t, cuzk_roots roots)
{
    char err[CUZK_ERRMSG_LEN], what[96], *js = NULL;
    cuzk_circuit *c = NULL;
    cuzk_matrices m = {0};
    cuzk_cs_shape sh;
    cuzk_groth16_pk pk = {0};
    cuzk_pce pce[2] = {{0}, {0}};
    cuzk_cs cs = {0};
    cuzk_fr *w = NULL, *abc = NULL;
    pair_t pr = {0}, pb = {0};
    snprintf(what, sizeof what, "%s 2^%u %s", t->id, t->size,
             roots == CUZK_ROOTS_BELLPERSON ? "bellperson" : "snarkjs");
    CHECK_MSG(cuzk_circuit_open(&c, t->id, t->size, err) == CUZK_OK, "%s: %s", what, err);
    if (!c || cuzk_circuit_record(c, &m, &sh, err) != CUZK_OK) {
        CHECK_MSG(0, "%s: record: %s", what, err);
        goto out;
    }
    uint64_t seed = test_rand64();
    cuzk_setup_opts o = {roots, THREADS, &seed, NULL, NULL, NULL, NULL, NULL};
    if (cuzk_groth16_setup(&pk, &m, sh.n_inputs, sh.n_aux, &o, err) != CUZK_OK) {
        CHECK_MSG(0, "%s: setup: %s", what, err);
        goto out;
    }
    for (int k = 0; k < 2; k++)
        CHECK_MSG(cuzk_pce_compile(&pce[k], &m, sh.n_inputs, sh.n_aux,
                                   k ? CUZK_PCE_INPUT_ROWS : 0, THREADS, err) == CUZK_OK,
                  "%s: compile: %s", what, err);
    uint64_t jseed = test_rand64() >> 20;
    if (cuzk_circuit_inputs_json(c, jseed, 0, &js, err) != CUZK_OK ||
        cuzk_circuit_witness(c, js, strlen(js), &cs, THREADS, err) != CUZK_OK) {
        CHECK_MSG(0, "%s: witness: %s", what, err);
        goto out;
    }
    size_t n_w = pk.n_vars;
    w = malloc(n_w * sizeof *w);
    CHECK(w && cuzk_cs_witness(&cs, w, n_w) == CUZK_OK);
    if (!w) goto out;

    /* The key's matrices (compiled into a device PCE at workspace creation). */
    if (!pair_open(&pr, &pk, what)) goto out;
    char sub[160];
    snprintf(sub, sizeof sub, "%s, matrices", what);
    prove_both(&pr, &pk, dense_job(w, n_w), sub);
    if (roots == CUZK_ROOTS_BELLPERSON) goto out; /* the H form is what differs */

    /* Its PCE, with and without the input rows, on a key without matrices
     * (and the first also on the key with them). */
    cuzk_groth16_pk bare = pk;
    memset(&bare.m, 0, sizeof bare.m);
    if (!pair_open(&pb, &bare, what)) goto out;
    for (int k = 0; k < 2; k++) {
        cuzk_prove_job j = dense_job(w, n_w);
        j.pce = &pce[k];
        snprintf(sub, sizeof sub, "%s, PCE (input rows %d)", what, k);
        prove_both(&pb, &bare, j, sub);
        if (k == 0) prove_both(&pr, &pk, j, sub);
    }
    /* A circuit job: the witness computed in the workspace. */
    {
        cuzk_prove_job j;
        memset(&j, 0, sizeof j);
        j.witness = CUZK_WITNESS_CIRCUIT;
        j.circuit.id = t->id;
        j.circuit.log_size = t->size;
        j.circuit.seed = jseed + 7;
        j.pce = &pce[1];
        snprintf(sub, sizeof sub, "%s, circuit job", what);
        prove_both(&pb, &bare, j, sub);
    }
    /* A compact witness made from the cs (as the engine's workers make
     * it): on these workspaces, and on a pair made for compact witnesses,
     * whose GPU side has no pinned staging until a dense job needs it. */
    {
        cuzk_witness_compact wc;
        CHECK(cuzk_wc_init(&wc, n_w) == CUZK_OK && cuzk_wc_from_cs(&wc, &cs, THREADS) == CUZK_OK);
        cuzk_prove_job j;
        memset(&j, 0, sizeof j);
        j.witness = CUZK_WITNESS_COMPACT;
        j.wc = &wc;
        j.pce = &pce[0];
        snprintf(sub, sizeof sub, "%s, compact witness", what);
        prove_both(&pb, &bare, j, sub);
        pair_t pc = {0};
        ws_flags = CUZK_WS_COMPACT_WITNESS;
        if (pair_open(&pc, &bare, what)) {
            /* the first job copies its PCE to the device: bytes after it */
            snprintf(sub, sizeof sub, "%s, compact witness, compact workspace", what);
            prove_both(&pc, &bare, j, sub);
            uint64_t b0 = cuzk_workspace_bytes(pc.gpu);
            prove_both(&pc, &bare, j, sub);
            CHECK(cuzk_workspace_bytes(pc.gpu) == b0);
            cuzk_prove_job d = dense_job(w, n_w);
            d.pce = &pce[0];
            snprintf(sub, sizeof sub, "%s, dense witness, compact workspace", what);
            prove_both(&pc, &bare, d, sub);
            CHECK_MSG(cuzk_workspace_bytes(pc.gpu) >= b0 + n_w * sizeof(cuzk_fr),
                      "%s: no staging made for the dense job", what);
        }
        ws_flags = 0;
        pair_close(&pc);
        cuzk_wc_free(&wc);
    }
    /* The caller's rows, with and without c. */
    {
        size_t nr = pce[0].n_rows;
        abc = malloc(3 * (nr ? nr : 1) * sizeof *abc);
        cuzk_pce_witness pw = {w, n_w, NULL, NULL};
        CHECK(abc && cuzk_pce_eval(&pce[0], &pw, abc, abc + nr, abc + 2 * nr, THREADS, err) ==
                         CUZK_OK);
        if (abc) {
            for (int withc = 1; withc >= 0; withc--) {
                cuzk_groth16_rows r = {abc, abc + nr, withc ? abc + 2 * nr : NULL, nr, 0, 0};
                cuzk_prove_job j = dense_job(w, n_w);
                j.rows = &r;
                snprintf(sub, sizeof sub, "%s, caller's rows (c %d)", what, withc);
                prove_both(&pb, &bare, j, sub);
            }
        }
    }
    /* A wrong witness: never a proof. */
    {
        cuzk_fr keep = w[n_w - 1];
        cuzk_fr_add(&w[n_w - 1], &keep, &CUZK_FR_ONE);
        cuzk_prove_job j = dense_job(w, n_w);
        j.pce = &pce[0];
        cuzk_prove_result res;
        /* On the GPU a failed self-check cannot tell a wrong witness from
         * a device fault: CUZK_ERR_PROOF_INVALID (prove.h). */
        CHECK_MSG(cuzk_prove(pb.gpu, &j, &res, err) == CUZK_ERR_PROOF_INVALID,
                  "%s: a wrong witness was not refused", what);
        w[n_w - 1] = keep;
        snprintf(sub, sizeof sub, "%s, after a refused witness", what);
        prove_both(&pb, &bare, j, sub);
    }
out:
    pair_close(&pr);
    pair_close(&pb);
    free(abc);
    free(w);
    free(js);
    cuzk_cs_free(&cs);
    cuzk_pce_free(&pce[0]);
    cuzk_pce_free(&pce[1]);
    cuzk_groth16_pk_free(&pk);
    cuzk_matrices_free(&m);
    cuzk_circuit_close(c);
}

/* ------------------------------------------- one workspace, many jobs -- */

static int stop_at;
static int stop_hook(void *ctx, cuzk_prove_stage next)
{
    (void)ctx;
    return (int)next == stop_at;
}

/* Many proofs on one workspace (other witnesses, r and s), some stopped
 * between stages (the MSMs h_poly or msm_a started are then finished by
 * the next proof), each compared with the CPU's. */
static void many_proofs(const circ_case *t, unsigned count)
{
    char err[CUZK_ERRMSG_LEN], what[96];
    cuzk_circuit *c = NULL;
    cuzk_matrices m = {0};
    cuzk_cs_shape sh;
    cuzk_groth16_pk pk = {0};
    cuzk_pce pce = {0};
    pair_t p = {0};
    snprintf(what, sizeof what, "%s 2^%u many", t->id, t->size);
    if (cuzk_circuit_open(&c, t->id, t->size, err) != CUZK_OK ||
        cuzk_circuit_record(c, &m, &sh, err) != CUZK_OK) {
        CHECK_MSG(0, "%s: %s", what, err);
        goto out;
    }
    uint64_t seed = test_rand64();
    cuzk_setup_opts o = {CUZK_ROOTS_SNARKJS, THREADS, &seed, NULL, NULL, NULL, NULL, NULL};
    if (cuzk_groth16_setup(&pk, &m, sh.n_inputs, sh.n_aux, &o, err) != CUZK_OK ||
        cuzk_pce_compile(&pce, &m, sh.n_inputs, sh.n_aux, 0, THREADS, err) != CUZK_OK) {
        CHECK_MSG(0, "%s: %s", what, err);
        goto out;
    }
    if (!pair_open(&p, &pk, what)) goto out;
    unsigned agree = 0;
    for (unsigned i = 0; i < count; i++) {
        cuzk_prove_job j;
        memset(&j, 0, sizeof j);
        j.witness = CUZK_WITNESS_CIRCUIT;
        j.circuit.id = t->id;
        j.circuit.log_size = t->size;
        j.circuit.seed = test_rand64() >> 20;
        j.pce = i % 3 ? &pce : NULL; /* the key's matrices every third */
        if (i % 4 == 3) { /* stopped after its MSMs started, then proven again */
            cuzk_prove_result res;
            stop_at = i % 12 == 3   ? CUZK_STAGE_MSM_B2
                      : i % 12 == 7 ? CUZK_STAGE_MSM_A /* after h_poly */
                                    : CUZK_STAGE_MSM_C;
            j.progress = stop_hook;
            CHECK(cuzk_prove(p.gpu, &j, &res, err) == CUZK_ERR_CANCELED);
            j.progress = NULL;
        }
        char sub[128];
        snprintf(sub, sizeof sub, "%s, proof %u", what, i);
        agree += prove_both(&p, &pk, j, sub);
    }
    CHECK_MSG(agree == count, "%s: %u of %u proofs agree", what, agree, count);
out:
    pair_close(&p);
    cuzk_pce_free(&pce);
    cuzk_groth16_pk_free(&pk);
    cuzk_matrices_free(&m);
    cuzk_circuit_close(c);
}

/* ---------------------------------------------------- memory, errors -- */

static void too_big(const circ_case *t)
{
    char err[CUZK_ERRMSG_LEN];
    cuzk_circuit *c = NULL;
    cuzk_matrices m = {0};
    cuzk_cs_shape sh;
    cuzk_groth16_pk pk = {0};
    if (cuzk_circuit_open(&c, t->id, t->size, err) != CUZK_OK ||
        cuzk_circuit_record(c, &m, &sh, err) != CUZK_OK) {
        CHECK_MSG(0, "too big: %s", err);
        goto out;
    }
    uint64_t seed = 5;
    cuzk_setup_opts o = {CUZK_ROOTS_SNARKJS, THREADS, &seed, NULL, NULL, NULL, NULL, NULL};
    if (cuzk_groth16_setup(&pk, &m, sh.n_inputs, sh.n_aux, &o, err) != CUZK_OK) goto out;
    cuzk_config cfg;
    cuzk_config_default(&cfg);
    cfg.backend = "gpu";
    cfg.gpu_pool_bytes = (uint64_t)4 << 20; /* 4 MiB: the plans alone need more */
    cuzk_workspace *ws = NULL;
    cuzk_status s = cuzk_workspace_create(&ws, &pk, &cfg, err);
    CHECK_MSG(s == CUZK_ERR_NO_MEMORY, "a 4 MiB pool: %s (%s)", cuzk_strerror(s), err);
    CHECK_MSG(strstr(err, "does not fit") != NULL, "message: %s", err);
    printf("%s: a 4 MiB pool: %s\n", NAME, err);
    cuzk_workspace_destroy(ws);
    /* a table mode that is none: refused before the pool is asked */
    cfg.gpu_ntt_full_twiddles = 12;
    ws = NULL;
    s = cuzk_workspace_create(&ws, &pk, &cfg, err);
    CHECK_MSG(s == CUZK_ERR_INVALID_ARGUMENT && !ws && strstr(err, "gpu_ntt_full_twiddles 12"),
              "table mode 12: %s (%s)", cuzk_strerror(s), err);
    cfg.gpu_ntt_full_twiddles = 13;
    /* "auto" falls back to the CPU for the same key */
    cfg.backend = "auto";
    ws = NULL;
    s = cuzk_workspace_create(&ws, &pk, &cfg, err);
    CHECK(s == CUZK_OK && ws && !strcmp(cuzk_workspace_backend(ws), "cpu"));
    cuzk_workspace_destroy(ws);
out:
    cuzk_groth16_pk_free(&pk);
    cuzk_matrices_free(&m);
    cuzk_circuit_close(c);
}

/* ------------------------------------------------------- snarkjs keys -- */

static int read_data(cuzk_blob *b, const char *name)
{
    char path[512], err[CUZK_ERRMSG_LEN];
    const char *dir = getenv("CUZK_TESTDATA");
    snprintf(path, sizeof path, "%s/%s", dir ? dir : "tests/data", name);
    if (cuzk_blob_read(b, path, err) != CUZK_OK) {
        CHECK_MSG(0, "cannot read %s (set CUZK_TESTDATA to tests/data): %s", path, err);
        return 0;
    }
    return 1;
}

static void snarkjs_mul(void)
{
    char err[CUZK_ERRMSG_LEN];
    cuzk_blob zb = {0}, wb = {0};
    cuzk_zkey z = {0};
    cuzk_wtns w = {0};
    cuzk_groth16_pk pk = {0};
    pair_t p = {0};
    if (!read_data(&zb, "mul.zkey") || !read_data(&wb, "mul.wtns")) goto out;
    if (cuzk_zkey_parse(&z, zb.data, zb.size, 0, err) != CUZK_OK ||
        cuzk_wtns_parse(&w, wb.data, wb.size, err) != CUZK_OK ||
        cuzk_groth16_pk_from_zkey(&pk, &z, THREADS, err) != CUZK_OK) {
        CHECK_MSG(0, "mul.zkey: %s", err);
        goto out;
    }
    if (!pair_open(&p, &pk, "mul.zkey")) goto out;
    for (int i = 0; i < 3; i++) prove_both(&p, &pk, dense_job(w.w, w.n), "mul.zkey + mul.wtns");
out:
    pair_close(&p);
    cuzk_groth16_pk_free(&pk);
    cuzk_wtns_free(&w);
    cuzk_zkey_free(&z);
    cuzk_blob_release(&zb);
    cuzk_blob_release(&wb);
}

/* ------------------------------------------- shaped witnesses, faults -- */

enum { SHAPE_PUBLIC_ONLY, SHAPE_ZEROS, SHAPE_ONES, SHAPE_ALL_BITS, SHAPE_COUNT };
static const char *const shape_name[SHAPE_COUNT] = {"public inputs only", "aux all 0",
                                                    "aux all 1", "every value 0 or 1"};

/* A circuit of `rows` constraints: public x, y with x x = y each row
 * (SHAPE_PUBLIC_ONLY: no aux variable at all), or aux variables b_i with
 * b_i b_i = b_i, all 0 or all 1 (the sparse MSMs' extreme vectors), and one
 * x x = y row; SHAPE_ALL_BITS: x = y = 1 too, so the sparse MSMs' bound is
 * 0. Keyed, proved on both backends with a few r, s. */
static void shape_case(int shape, unsigned rows)
{
    char err[CUZK_ERRMSG_LEN], what[96];
    cuzk_cs cs;
    cuzk_matrices m = {0};
    cuzk_cs_shape sh;
    cuzk_groth16_pk pk = {0};
    cuzk_fr *w = NULL;
    pair_t p = {0};
    snprintf(what, sizeof what, "%s, %u rows", shape_name[shape], rows);
    CHECK(cuzk_cs_init(&cs, CUZK_CS_RECORD, NULL) == CUZK_OK);
    cuzk_fr x, y, bit;
    rand_fr(&x);
    if (shape == SHAPE_ALL_BITS) x = CUZK_FR_ONE; /* no value neither 0 nor 1 at all */
    cuzk_fr_mul(&y, &x, &x);
    bit = shape == SHAPE_ONES || shape == SHAPE_ALL_BITS ? CUZK_FR_ONE : (cuzk_fr){{0}};
    cuzk_var vx = cuzk_cs_alloc_input(&cs, &x), vy = cuzk_cs_alloc_input(&cs, &y);
    for (unsigned i = 0; i < rows; i++) {
        cuzk_var a = vx, b = vx, c = vy;
        if (shape != SHAPE_PUBLIC_ONLY && i) a = b = c = cuzk_cs_alloc(&cs, &bit);
        cuzk_cs_begin(&cs);
        cuzk_cs_term(&cs, CUZK_A, a, CUZK_COEFF_ONE);
        cuzk_cs_term(&cs, CUZK_B, b, CUZK_COEFF_ONE);
        cuzk_cs_term(&cs, CUZK_C, c, CUZK_COEFF_ONE);
        cuzk_cs_end(&cs);
    }
    cuzk_cs_get_shape(&cs, &sh);
    size_t n_w = (size_t)sh.n_inputs + sh.n_aux;
    w = malloc(n_w * sizeof *w);
    uint64_t seed = test_rand64();
    cuzk_setup_opts o = {CUZK_ROOTS_SNARKJS, THREADS, &seed, NULL, NULL, NULL, NULL, NULL};
    if (!w || cuzk_cs_status(&cs, NULL) != CUZK_OK || cuzk_cs_witness(&cs, w, n_w) != CUZK_OK ||
        cuzk_cs_take_matrices(&cs, &m) != CUZK_OK ||
        cuzk_groth16_setup(&pk, &m, sh.n_inputs, sh.n_aux, &o, err) != CUZK_OK) {
        CHECK_MSG(0, "%s: circuit or setup: %s", what, err);
        goto out;
    }
    if (!pair_open(&p, &pk, what)) goto out;
    for (int i = 0; i < 3; i++) prove_both(&p, &pk, dense_job(w, n_w), what);
out:
    pair_close(&p);
    free(w);
    cuzk_groth16_pk_free(&pk);
    cuzk_matrices_free(&m);
    cuzk_cs_free(&cs);
}

/* A bit flipped in a key point in device memory between proofs: the
 * self-check catches it (CUZK_ERR_PROOF_INVALID, no proof); flipped back,
 * proofs agree with the CPU's again. */
static void fault_case(const circ_case *t)
{
    char err[CUZK_ERRMSG_LEN], what[96];
    cuzk_circuit *c = NULL;
    cuzk_matrices m = {0};
    cuzk_cs_shape sh;
    cuzk_groth16_pk pk = {0};
    pair_t p = {0};
    snprintf(what, sizeof what, "%s 2^%u fault", t->id, t->size);
    uint64_t seed = test_rand64();
    cuzk_setup_opts o = {CUZK_ROOTS_SNARKJS, THREADS, &seed, NULL, NULL, NULL, NULL, NULL};
    if (cuzk_circuit_open(&c, t->id, t->size, err) != CUZK_OK ||
        cuzk_circuit_record(c, &m, &sh, err) != CUZK_OK ||
        cuzk_groth16_setup(&pk, &m, sh.n_inputs, sh.n_aux, &o, err) != CUZK_OK) {
        CHECK_MSG(0, "%s: %s", what, err);
        goto out;
    }
    if (!pair_open(&p, &pk, what)) goto out;
    cuzk_prove_job j;
    memset(&j, 0, sizeof j);
    j.witness = CUZK_WITNESS_CIRCUIT;
    j.circuit.id = t->id;
    j.circuit.log_size = t->size;
    j.circuit.seed = test_rand64() >> 20;
    prove_both(&p, &pk, j, what);
    /* H's scalars are dense, so every point counts (the sparse plans may
     * sum a point through its subset-sum table instead of reading it). */
    static const char *const which[3] = {"H", "H", "H"};
    for (int k = 0; k < 3; k++) {
        size_t idx = (size_t)(test_rand64() % 1000);
        unsigned bit = (unsigned)(test_rand64() % 380); /* within x */
        CHECK(cuzk_gpu_testing_ws_flip(p.gpu, which[k], idx, bit, err) == CUZK_OK);
        cuzk_prove_result res;
        memset(&res, 0x5a, sizeof res);
        cuzk_status s = cuzk_prove(p.gpu, &j, &res, err);
        CHECK_MSG(s == CUZK_ERR_PROOF_INVALID && strstr(err, "does not verify"),
                  "%s: %s point %zu bit %u flipped: %s (%s)", what, which[k], idx, bit,
                  cuzk_strerror(s), err);
        cuzk_proof zero;
        memset(&zero, 0, sizeof zero);
        CHECK_MSG(!memcmp(&res.proof, &zero, sizeof zero), "%s: a proof came back", what);
        printf("%s: %s point %zu bit %u flipped: %s\n", NAME, which[k], idx, bit, err);
        CHECK(cuzk_gpu_testing_ws_flip(p.gpu, which[k], idx, bit, err) == CUZK_OK);
        char sub[128];
        snprintf(sub, sizeof sub, "%s, %s restored", what, which[k]);
        prove_both(&p, &pk, j, sub);
    }
    CHECK(cuzk_gpu_testing_ws_flip(p.cpu, "H", 0, 0, err) == CUZK_ERR_INVALID_ARGUMENT);
    CHECK(cuzk_gpu_testing_ws_flip(p.gpu, "Q", 0, 0, err) == CUZK_ERR_INVALID_ARGUMENT);
out:
    pair_close(&p);
    cuzk_groth16_pk_free(&pk);
    cuzk_matrices_free(&m);
    cuzk_circuit_close(c);
}

int main(void)
{
    int rc = gpu_test_start(NAME);
    if (rc) return rc;
    CHECK(cuzk_gpu_backend_register() == CUZK_OK);
    CHECK(cuzk_gpu_backend_register() == CUZK_OK); /* again: a no-op */
    CHECK(cuzk_backend_find("gpu") == cuzk_gpu_backend());
    cuzk_gpu_device_info info;
    char ierr[CUZK_ERRMSG_LEN];
    CHECK_MSG(cuzk_gpu_get_device_info(&info, 0, ierr) == CUZK_OK, "device info: %s", ierr);
    pair_pool = info.global_mem / 5;
    /* porep cannot go below one labelling hash (~2^15.7) */
    static const circ_case cases[] = {
        {"porep-32g", 16}, {"winning-32g", 12}, {"wpost-32g", 12}, {"snap-32g", 12},
        {"wpost-32g", 13}};
    setvbuf(stdout, NULL, _IOLBF, 0);
    /* CUZK_TEST_PART=late: only the cases after the plans-as-given ones (a
     * short device call). */
    const char *part = getenv("CUZK_TEST_PART");
    if (part && !strcmp(part, "late")) goto late;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        circuit_case(&cases[i], CUZK_ROOTS_SNARKJS);
    circuit_case(&cases[1], CUZK_ROOTS_BELLPERSON);
    circuit_case(&cases[2], CUZK_ROOTS_BELLPERSON);
    snarkjs_mul();
    many_proofs(&cases[1], 12);
    many_proofs(&cases[0], 4);
    /* Plans as given instead of upgraded: plain, tables only, precomputed only. */
    static const unsigned given[3] = {PLAIN, CUZK_GPU_MSM_BITS_TABLE, CUZK_GPU_MSM_PRECOMPUTE};
    for (int k = 0; k < 3; k++) {
        msm_flags = given[k];
        printf("%s: plans with gpu_msm_flags %#x\n", NAME, msm_flags);
        many_proofs(&cases[0], 3);
        snarkjs_mul();
    }
    msm_flags = 0;
late:;
    static const circ_case big[2] = {{"porep-32g", 18}, {"porep-32g", 20}};
    /* One scratch shared by the five plans (their MSMs in turn), then two
     * (H | the sparse MSMs, windows sorted in batches); then the sparse
     * MSMs started by h_poly, beside the NTTs (cuzk_config.gpu_sparse_early,
     * read when a workspace is made), on their own streams and on one
     * shared scratch, with proofs stopped before msm_a. */
    static const struct {
        unsigned streams, early;
    } rounds[4] = {{2, 0}, {3, 0}, {0, 1}, {2, 1}};
    for (int k = 0; k < 4; k++) {
        gpu_streams = rounds[k].streams;
        sparse_early = rounds[k].early;
        printf("%s: gpu_streams %u, sparse MSMs %s\n", NAME, gpu_streams,
               rounds[k].early ? "beside the NTTs" : "after them");
        circuit_case(&cases[0], CUZK_ROOTS_SNARKJS);
        circuit_case(&cases[2], CUZK_ROOTS_BELLPERSON);
        many_proofs(&cases[1], rounds[k].early ? 8 : 6);
        snarkjs_mul();
    }
    gpu_streams = 0;
    many_proofs(&big[0], 2);
    sparse_early = 0;
    /* Products on the FP64 pipe too (the prover's shares), bit for bit. */
    static const unsigned shares[3][2] = {{2, 3}, {4, 4}, {1, 1}};
    for (int k = 0; k < 3; k++) {
        ntt_fp64 = shares[k][0];
        msm_fp64 = shares[k][1];
        printf("%s: FP64 shares: NTT %u, MSM %u\n", NAME, ntt_fp64, msm_fp64);
        circuit_case(&cases[0], CUZK_ROOTS_SNARKJS);
        many_proofs(&cases[1], 3);
        snarkjs_mul();
    }
    ntt_fp64 = msm_fp64 = 0;
    /* The NTTs' pass 1 from a full, then a positional twiddle table, then
     * the full one with the coset table (both root conventions: the
     * bellperson H uses the inverse and coset transforms too), with plain
     * plans (which leave them room) and upgraded ones. */
    static const unsigned tws[4] = {1, 2, 5, 13};
    for (int ti = 0; ti < 4; ti++)
        for (int k = 0; k < 2; k++) {
            full_tw = tws[ti];
            msm_flags = k ? 0 : PLAIN;
            printf("%s: NTT twiddles from a %s table%s%s, gpu_msm_flags %#x\n", NAME,
                   (full_tw & 3) == 1 ? "full" : "positional",
                   full_tw & 4 ? " and the coset table" : "",
                   full_tw & 8 ? " as Shoup pairs" : "", msm_flags);
            circuit_case(&cases[0], CUZK_ROOTS_SNARKJS);
            circuit_case(&cases[2], CUZK_ROOTS_BELLPERSON);
            many_proofs(&cases[1], 3);
        }
    msm_flags = 0;
    full_tw = 0;
    fault_case(&cases[1]);
    fault_case(&cases[0]);
    for (int shape = 0; shape < SHAPE_COUNT; shape++) {
        shape_case(shape, 1000);
        shape_case(shape, 70000); /* a 2^17 domain */
    }
    /* Larger domains (issue 13: 2^16 .. 2^20, several seeds). */
    for (int k = 0; k < 2; k++) many_proofs(&big[k], 3);
    too_big(&cases[0]);
    return test_done(NAME);
}
