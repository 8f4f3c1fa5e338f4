/* Built-in circuits end to end: for every circuit id at a small size,
 * record -> Groth16 setup -> witness from an inputs JSON -> prove ->
 * verify. A tampered public input is CUZK_ERR_PROOF_INVALID; a key of
 * another circuit (or of the same circuit at another size) is refused with
 * an error, never a proof; a witness of another job of the same circuit
 * proves with the same key (the key is the circuit's, not the job's). Both
 * root conventions for one id. Keys are seeded, so a failure replays. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuzk/circuits.h>
#include <cuzk/groth16.h>
#include <cuzk/prove.h>
#include <cuzk/pce.h>

#include "test_util.h"

#define THREADS 2

typedef struct {
    const char *id;
    unsigned size;
    cuzk_groth16_pk pk; /* snarkjs roots */
    cuzk_fr *w;         /* the witness of the job proven */
    size_t n_w;
} case_t;

/* Records c and runs the setup in roots convention roots. */
static int make_key(cuzk_groth16_pk *pk, cuzk_circuit *c, cuzk_roots roots, uint64_t seed,
                    cuzk_cs_shape *sh)
{
    char err[CUZK_ERRMSG_LEN];
    cuzk_matrices m;
    int ok = cuzk_circuit_record(c, &m, sh, err) == CUZK_OK;
    CHECK_MSG(ok, "record: %s", err);
    if (!ok) return 0;
    cuzk_setup_opts o = {roots, THREADS, &seed, NULL, NULL, NULL, NULL, NULL};
    ok = cuzk_groth16_setup(pk, &m, sh->n_inputs, sh->n_aux, &o, err) == CUZK_OK;
    CHECK_MSG(ok, "setup: %s", err);
    cuzk_matrices_free(&m);
    if (!ok) return 0;
    /* the key's counts are the circuit's */
    CHECK(pk->n_vars == sh->n_inputs + sh->n_aux && pk->n_public + 1 == sh->n_inputs);
    uint64_t rows = sh->n_constraints + sh->n_inputs;
    CHECK(((uint64_t)1 << pk->log_domain) >= rows && ((uint64_t)1 << (pk->log_domain - 1)) < rows);
    return 1;
}

/* The dense witness of inputs JSON js (malloc'd), n_inputs with ONE. */
static cuzk_fr *witness(cuzk_circuit *c, const char *js, size_t *n, uint32_t *n_inputs)
{
    char err[CUZK_ERRMSG_LEN];
    cuzk_cs cs = {0};
    cuzk_fr *w = NULL;
    cuzk_status s = cuzk_circuit_witness(c, js, strlen(js), &cs, THREADS, err);
    CHECK_MSG(s == CUZK_OK, "witness: %s", err);
    if (s == CUZK_OK) {
        cuzk_cs_shape sh;
        cuzk_cs_get_shape(&cs, &sh);
        *n = (size_t)sh.n_inputs + sh.n_aux;
        *n_inputs = sh.n_inputs;
        w = malloc(*n * sizeof *w);
        CHECK(w && cuzk_cs_witness(&cs, w, *n) == CUZK_OK);
        CHECK(w && cuzk_fr_eq(&w[0], &CUZK_FR_ONE));
    }
    cuzk_cs_free(&cs);
    return w;
}

/* Proves w with pk and checks the proof: valid with w's public inputs,
 * invalid with each of a few tampered ones. */
static void prove_verify(const char *what, const cuzk_groth16_pk *pk, const cuzk_fr *w,
                         size_t n_w)
{
    char err[CUZK_ERRMSG_LEN];
    cuzk_proof proof;
    cuzk_status s = cuzk_groth16_prove(&proof, pk, w, n_w, THREADS, 0, NULL, err);
    CHECK_MSG(s == CUZK_OK, "%s: prove: %s", what, err);
    if (s != CUZK_OK) return;
    size_t n_pub = pk->n_public;
    CHECK_MSG(cuzk_groth16_verify(&pk->vk, &proof, w + 1, n_pub) == CUZK_OK, "%s: verify",
              what);
    cuzk_fr *pub = malloc(n_pub * sizeof *pub);
    CHECK(pub != NULL);
    if (!pub) return;
    /* tamper with the first, the last and a random public input */
    size_t which[3] = {0, n_pub - 1, (size_t)(test_rand64() % n_pub)};
    for (int k = 0; k < 3; k++) {
        memcpy(pub, w + 1, n_pub * sizeof *pub);
        cuzk_fr_add(&pub[which[k]], &pub[which[k]], &CUZK_FR_ONE);
        CHECK_MSG(cuzk_groth16_verify(&pk->vk, &proof, pub, n_pub) == CUZK_ERR_PROOF_INVALID,
                  "%s: a tampered public input %zu verifies", what, which[k]);
    }
    /* a proof of another statement: A and C swapped is not a proof */
    cuzk_proof bad = proof;
    bad.a = proof.c;
    bad.c = proof.a;
    CHECK(cuzk_groth16_verify(&pk->vk, &bad, w + 1, n_pub) == CUZK_ERR_PROOF_INVALID);
    free(pub);
}

static void run_case(case_t *t, uint64_t key_seed)
{
    char err[CUZK_ERRMSG_LEN], what[64], *js = NULL;
    cuzk_circuit *c = NULL;
    cuzk_cs_shape sh;
    snprintf(what, sizeof what, "%s 2^%u", t->id, t->size);
    CHECK_MSG(cuzk_circuit_open(&c, t->id, t->size, err) == CUZK_OK, "%s: %s", what, err);
    if (!c || !make_key(&t->pk, c, CUZK_ROOTS_SNARKJS, key_seed, &sh)) goto out;

    /* A job from the generator, and one written by hand (explicit
     * challenges, the last partition): both prove with the circuit's key. */
    const cuzk_circuit_info *in = cuzk_circuit_describe(c);
    uint64_t seed = test_rand64() >> 20;
    CHECK(cuzk_circuit_inputs_json(c, seed, 0, &js, err) == CUZK_OK);
    uint32_t n_in;
    t->w = js ? witness(c, js, &t->n_w, &n_in) : NULL;
    if (!t->w) goto out;
    CHECK(t->n_w == t->pk.n_vars && n_in == in->n_inputs);
    prove_verify(what, &t->pk, t->w, t->n_w);

    char buf[4096];
    int len = snprintf(buf, sizeof buf, "{\"seed\": %llu, \"partition\": %u, \"challenges\": [",
                       (unsigned long long)(seed + 1), in->partitions - 1);
    for (unsigned k = 0; k < in->challenges && len < (int)sizeof buf - 64; k++)
        len += snprintf(buf + len, sizeof buf - len, "%s%llu", k ? ", " : "",
                        (unsigned long long)(test_rand64() & ((1ull << in->node_bits) - 1)));
    snprintf(buf + len, sizeof buf - len, "]}");
    size_t n2;
    cuzk_fr *w2 = witness(c, buf, &n2, &n_in);
    if (w2) {
        CHECK(n2 == t->n_w);
        /* another job: other public inputs (roots depend on the seed) */
        CHECK(memcmp(w2 + 1, t->w + 1, t->pk.n_public * sizeof *w2) != 0);
        prove_verify(what, &t->pk, w2, n2);
        free(w2);
    }

    /* A wrong witness for the right key: never a proof. */
    cuzk_fr keep = t->w[t->n_w - 1];
    cuzk_fr_add(&t->w[t->n_w - 1], &keep, &CUZK_FR_ONE);
    cuzk_proof proof;
    CHECK(cuzk_groth16_prove(&proof, &t->pk, t->w, t->n_w, THREADS, 0, NULL, err) ==
          CUZK_ERR_UNSATISFIED);
    t->w[t->n_w - 1] = keep;
out:
    free(js);
    cuzk_circuit_close(c);
}

/* Rows from the circuit's PCE instead of the key's matrices
 * (cuzk_groth16_prove_rows), with the PCE compiled with and without the
 * input rows, and with a key that has no matrices at all. */
static void pce_rows(case_t *t)
{
    char err[CUZK_ERRMSG_LEN];
    cuzk_circuit *c = NULL;
    cuzk_matrices m = {0};
    cuzk_cs_shape sh;
    cuzk_pce pce[2] = {{0}, {0}};
    cuzk_fr *abc = NULL;
    CHECK(cuzk_circuit_open(&c, t->id, t->size, err) == CUZK_OK);
    if (!c || cuzk_circuit_record(c, &m, &sh, err) != CUZK_OK) goto out;
    for (int k = 0; k < 2; k++)
        CHECK_MSG(cuzk_pce_compile(&pce[k], &m, sh.n_inputs, sh.n_aux,
                                   k ? CUZK_PCE_INPUT_ROWS : 0, THREADS, err) == CUZK_OK,
                  "compile: %s", err);
    size_t rows_max = pce[1].n_rows;
    abc = malloc(3 * rows_max * sizeof *abc);
    CHECK(abc != NULL);
    if (!abc) goto out;
    cuzk_groth16_pk bare = t->pk; /* the key without its matrices (shallow) */
    memset(&bare.m, 0, sizeof bare.m);
    cuzk_proof proof;
    CHECK(cuzk_groth16_prove(&proof, &bare, t->w, t->n_w, THREADS, 0, NULL, err) ==
          CUZK_ERR_INVALID_ARGUMENT);
    CHECK(strstr(err, "no matrices") != NULL);
    for (int k = 0; k < 2; k++) {
        cuzk_pce_witness pw = {t->w, t->n_w, NULL, NULL};
        cuzk_fr *a = abc, *b = abc + rows_max, *cc = abc + 2 * rows_max;
        CHECK(cuzk_pce_eval(&pce[k], &pw, a, b, cc, THREADS, err) == CUZK_OK);
        cuzk_groth16_rows r = {a, b, cc, pce[k].n_rows, k, 0};
        for (int keyk = 0; keyk < 2; keyk++) {
            const cuzk_groth16_pk *pk = keyk ? &bare : &t->pk;
            cuzk_status s = cuzk_groth16_prove_rows(&proof, pk, t->w, t->n_w, &r, THREADS, 0,
                                                    NULL, err);
            CHECK_MSG(s == CUZK_OK, "%s: rows (input rows %d, matrices %d): %s", t->id, k,
                      !keyk, err);
            if (s == CUZK_OK)
                CHECK(cuzk_groth16_verify(&pk->vk, &proof, t->w + 1, pk->n_public) == CUZK_OK);
        }
        /* without C: c = a o b row by row, as for a key without C */
        cuzk_groth16_rows r_noc = {a, b, NULL, pce[k].n_rows, k, 0};
        CHECK(cuzk_groth16_prove_rows(&proof, &bare, t->w, t->n_w, &r_noc, THREADS, 0, NULL,
                                      err) == CUZK_OK);
        /* rows that do not belong to the witness: never a proof */
        cuzk_fr keep = a[1];
        cuzk_fr_add(&a[1], &a[1], &CUZK_FR_ONE);
        CHECK(cuzk_groth16_prove_rows(&proof, &bare, t->w, t->n_w, &r, THREADS, 0, NULL, err) ==
              CUZK_ERR_UNSATISFIED);
        a[1] = keep;
        /* a row count that is not the key's */
        cuzk_groth16_rows r_short = {a, b, cc, pce[k].n_rows - 1, k, 0};
        CHECK(cuzk_groth16_prove_rows(&proof, &t->pk, t->w, t->n_w, &r_short, THREADS, 0, NULL,
                                      err) == CUZK_ERR_INVALID_ARGUMENT);
        CHECK(err[0] != 0);
        cuzk_groth16_rows r_null = {NULL, b, cc, pce[k].n_rows, k, 0};
        CHECK(cuzk_groth16_prove_rows(&proof, &bare, t->w, t->n_w, &r_null, THREADS, 0, NULL,
                                      err) == CUZK_ERR_INVALID_ARGUMENT);
    }
    CHECK(cuzk_groth16_prove_rows(&proof, &bare, t->w, t->n_w, NULL, THREADS, 0, NULL, err) ==
          CUZK_ERR_INVALID_ARGUMENT);
    /* in place: the rows evaluated straight into domain-sized arrays */
    {
        size_t n = (size_t)1 << t->pk.log_domain;
        cuzk_fr *big = malloc(3 * n * sizeof *big);
        cuzk_pce_witness pw = {t->w, t->n_w, NULL, NULL};
        CHECK(big && cuzk_pce_eval(&pce[0], &pw, big, big + n, big + 2 * n, THREADS, err) ==
                         CUZK_OK);
        if (big) {
            cuzk_groth16_rows r = {big, big + n, big + 2 * n, pce[0].n_rows, 0, 1};
            cuzk_status s = cuzk_groth16_prove_rows(&proof, &bare, t->w, t->n_w, &r, THREADS, 0,
                                                    NULL, err);
            CHECK_MSG(s == CUZK_OK, "%s: rows in place: %s", t->id, err);
            if (s == CUZK_OK)
                CHECK(cuzk_groth16_verify(&bare.vk, &proof, t->w + 1, bare.n_public) == CUZK_OK);
            cuzk_groth16_rows r_noc = {big, big + n, NULL, pce[0].n_rows, 0, 1};
            CHECK(cuzk_groth16_prove_rows(&proof, &bare, t->w, t->n_w, &r_noc, THREADS, 0, NULL,
                                          err) == CUZK_ERR_INVALID_ARGUMENT);
        }
        free(big);
    }
out:
    free(abc);
    cuzk_pce_free(&pce[0]);
    cuzk_pce_free(&pce[1]);
    cuzk_matrices_free(&m);
    cuzk_circuit_close(c);
}

/* The bellperson convention (roots of 7, monomial H) for one id. */
static void bellperson_roots(const case_t *t)
{
    char err[CUZK_ERRMSG_LEN];
    cuzk_circuit *c = NULL;
    cuzk_cs_shape sh;
    cuzk_groth16_pk pk = {0};
    CHECK(cuzk_circuit_open(&c, t->id, t->size, err) == CUZK_OK);
    if (c && make_key(&pk, c, CUZK_ROOTS_BELLPERSON, 99, &sh)) {
        CHECK(pk.roots == CUZK_ROOTS_BELLPERSON && pk.h_form == CUZK_H_MONOMIAL);
        prove_verify("bellperson roots", &pk, t->w, t->n_w);
        /* the snarkjs key's proof does not verify under this vk */
        cuzk_proof proof;
        CHECK(cuzk_groth16_prove(&proof, &t->pk, t->w, t->n_w, THREADS, 0, NULL, err) ==
              CUZK_OK);
        CHECK(cuzk_groth16_verify(&pk.vk, &proof, t->w + 1, pk.n_public) ==
              CUZK_ERR_PROOF_INVALID);
    }
    cuzk_groth16_pk_free(&pk);
    cuzk_circuit_close(c);
}

int main(void)
{
    test_seed("test_circuit_prove");
    /* porep cannot go below one labelling hash (~2^15.7) */
    case_t cases[] = {{"porep-32g", 16, {0}, NULL, 0},
                      {"winning-32g", 12, {0}, NULL, 0},
                      {"wpost-32g", 12, {0}, NULL, 0},
                      {"snap-32g", 12, {0}, NULL, 0},
                      {"wpost-32g", 13, {0}, NULL, 0}};
    size_t n = sizeof cases / sizeof cases[0];
    CHECK(cuzk_circuit_count() == 4);
    for (size_t i = 0; i < n; i++) run_case(&cases[i], 1000 + i);
    /* Each witness with every other key: refused, with a message. */
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++) {
            if (i == j || !cases[i].w || !cases[j].pk.n_vars) continue;
            char err[CUZK_ERRMSG_LEN] = "";
            cuzk_proof proof;
            cuzk_status s = cuzk_groth16_prove(&proof, &cases[j].pk, cases[i].w, cases[i].n_w,
                                               THREADS, 0, NULL, err);
            CHECK_MSG(s == CUZK_ERR_INVALID_ARGUMENT || s == CUZK_ERR_UNSATISFIED,
                      "witness of %s 2^%u with the key of %s 2^%u: status %d", cases[i].id,
                      cases[i].size, cases[j].id, cases[j].size, (int)s);
            CHECK(err[0] != 0);
        }
    for (size_t i = 0; i < n; i++)
        if (cases[i].w && cases[i].pk.n_vars) pce_rows(&cases[i]);
    bellperson_roots(&cases[1]);
    for (size_t i = 0; i < n; i++) {
        cuzk_groth16_pk_free(&cases[i].pk);
        free(cases[i].w);
    }
    return test_done("test_circuit_prove");
}
