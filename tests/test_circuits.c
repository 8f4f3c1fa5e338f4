/* Built-in circuits (circuits.h): for every id at small sizes, the witness
 * satisfies the recorded R1CS, the multithreaded witness equals the
 * single-threaded one bit for bit, the seed decides the witness, the
 * densities have the real circuits' shape, bad inputs are named; and the
 * PCE evaluation of the compact witness equals the dense one. */
#include <stdlib.h>
#include <string.h>

#include <cuzk/circuits.h>
#include <cuzk/gadgets.h>
#include <cuzk/pce.h>

#include "test_util.h"

static int view_eq(const cuzk_cs *x, const cuzk_cs *y)
{
    cuzk_witness_view a, b;
    cuzk_cs_witness_view(x, &a);
    cuzk_cs_witness_view(y, &b);
    if (a.n_inputs != b.n_inputs || a.n_aux != b.n_aux || a.n_bits != b.n_bits ||
        a.n_fields != b.n_fields)
        return 0;
    if (memcmp(a.inputs, b.inputs, a.n_inputs * sizeof *a.inputs) ||
        memcmp(a.fields, b.fields, a.n_fields * sizeof *a.fields))
        return 0;
    for (uint32_t i = 0; i < a.n_bits; i++)
        if (((a.bits[i / 64] ^ b.bits[i / 64]) >> (i % 64)) & 1) return 0;
    for (uint32_t i = 0; i < a.n_aux; i++)
        if (((a.layout[i / 64] ^ b.layout[i / 64]) >> (i % 64)) & 1) return 0;
    return 1;
}

static cuzk_fr *dense(const cuzk_cs *cs, size_t *n)
{
    cuzk_witness_view v;
    cuzk_cs_witness_view(cs, &v);
    *n = (size_t)v.n_inputs + v.n_aux;
    cuzk_fr *w = malloc(*n * sizeof *w);
    if (w && cuzk_cs_witness(cs, w, *n) != CUZK_OK) {
        free(w);
        return NULL;
    }
    return w;
}

/* A dense-witness check of a o b = c through the PCE, and the compact
 * witness evaluation against the dense one. */
static void check_pce(const cuzk_matrices *m, const cuzk_cs_shape *sh, const cuzk_cs *cs,
                      double *a_aux, double *b_aux)
{
    char err[CUZK_ERRMSG_LEN];
    cuzk_pce p;
    CHECK(cuzk_pce_compile(&p, m, sh->n_inputs, sh->n_aux, 0, 2, err) == CUZK_OK);
    size_t n_w;
    cuzk_fr *w = dense(cs, &n_w), *abc = malloc(6 * m->n_rows * sizeof *abc);
    CHECK(w && abc);
    if (!w || !abc) goto out;
    cuzk_fr *a = abc, *b = a + m->n_rows, *c = b + m->n_rows;
    cuzk_fr *a2 = c + m->n_rows, *b2 = a2 + m->n_rows, *c2 = b2 + m->n_rows;
    cuzk_pce_witness wit = {w, n_w, NULL, NULL};
    CHECK(cuzk_pce_eval(&p, &wit, a, b, c, 2, err) == CUZK_OK);
    uint64_t bad = 0;
    for (uint64_t r = 0; r < m->n_rows; r++) {
        cuzk_fr t;
        cuzk_fr_mul(&t, &a[r], &b[r]);
        bad += !cuzk_fr_eq(&t, &c[r]);
    }
    CHECK_MSG(bad == 0, "%llu rows with a b != c", (unsigned long long)bad);
    cuzk_witness_view v;
    cuzk_cs_witness_view(cs, &v);
    CHECK(cuzk_pce_eval_view(&p, &v, a2, b2, c2, 2, err) == CUZK_OK);
    CHECK(!memcmp(a, a2, 3 * m->n_rows * sizeof *a));
    /* a view that does not match is refused */
    cuzk_witness_view v2 = v;
    v2.n_bits++;
    v2.n_fields--;
    CHECK(cuzk_pce_eval_view(&p, &v2, a2, b2, c2, 1, err) == CUZK_ERR_INVALID_ARGUMENT);
    *a_aux = (double)p.dens_count[0][1] / (double)sh->n_aux;
    *b_aux = (double)p.dens_count[1][1] / (double)sh->n_aux;
out:
    free(w);
    free(abc);
    cuzk_pce_free(&p);
}

typedef struct {
    const char *id;
    unsigned log_size;
    double a_lo, a_hi, b_lo, b_hi; /* aux density ranges for A and B */
    double bits_lo;                /* least fraction of aux that are bits */
} case_t;

static void test_circuit(const case_t *t, uint64_t seed)
{
    char err[CUZK_ERRMSG_LEN], *js = NULL, *js2 = NULL;
    cuzk_circuit *c = NULL;
    CHECK(cuzk_circuit_open(&c, t->id, t->log_size, err) == CUZK_OK);
    if (!c) return;
    const cuzk_circuit_info *in = cuzk_circuit_describe(c);
    uint64_t est = in->n_constraints;
    cuzk_matrices m;
    cuzk_cs_shape sh;
    CHECK_MSG(cuzk_circuit_record(c, &m, &sh, err) == CUZK_OK, "%s: %s", t->id, err);
    /* the estimate is close, and the size near the one asked */
    CHECK_MSG(sh.n_constraints > est * 9 / 10 && sh.n_constraints < est * 11 / 10,
              "%s: %llu constraints, estimated %llu", t->id,
              (unsigned long long)sh.n_constraints, (unsigned long long)est);
    CHECK_MSG(sh.n_constraints <= (2ull << t->log_size) &&
                  sh.n_constraints >= (1ull << t->log_size) / 4,
              "%s: %llu constraints for 2^%u", t->id, (unsigned long long)sh.n_constraints,
              t->log_size);
    CHECK(sh.n_inputs == in->n_inputs);
    unsigned pieces = in->sectors > 1 ? in->sectors : in->challenges;
    CHECK_MSG(t->log_size < 17 || pieces >= 2, "%s: %u sub-circuits at 2^%u", t->id, pieces,
              t->log_size);
    CHECK((double)sh.n_aux_bits / sh.n_aux >= t->bits_lo);

    cuzk_cs w1 = {0}, w4 = {0}, w5 = {0};
    CHECK(cuzk_circuit_inputs_json(c, seed, in->partitions - 1, &js, err) == CUZK_OK);
    CHECK(cuzk_circuit_inputs_json(c, seed + 1, in->partitions - 1, &js2, err) == CUZK_OK);
    CHECK_MSG(cuzk_circuit_witness(c, js, strlen(js), &w1, 1, err) == CUZK_OK, "%s: %s", t->id,
              err);
    CHECK_MSG(cuzk_circuit_witness(c, js, strlen(js), &w4, 4, err) == CUZK_OK, "%s: %s", t->id,
              err);
    CHECK_MSG(view_eq(&w1, &w4), "%s: 4 threads differ from 1", t->id);
    cuzk_cs_shape ws;
    cuzk_cs_get_shape(&w1, &ws);
    CHECK(ws.n_inputs == sh.n_inputs && ws.n_aux_bits == sh.n_aux_bits &&
          ws.n_aux_fields == sh.n_aux_fields);

    /* the R1CS is satisfied: every SHA-256 and Poseidon output inside equals
     * the natively computed roots it is enforced equal to */
    size_t n_w;
    cuzk_fr *w = dense(&w1, &n_w);
    cuzk_r1cs r = {0};
    r.n_wires = (uint32_t)n_w;
    r.n_pub_in = r.n_public = sh.n_inputs - 1;
    r.n_constraints = (uint32_t)m.n_rows;
    r.m = m;
    uint64_t bad = 0;
    CHECK_MSG(w && cuzk_r1cs_check(&r, w, n_w, &bad, err) == CUZK_OK, "%s: constraint %llu: %s",
              t->id, (unsigned long long)bad, err);
    double da = 0, db = 0;
    check_pce(&m, &sh, &w1, &da, &db);
    printf("  %-12s 2^%-2u %8llu constraints, %u inputs, %.1f%% bits, A aux %.2f%%, B aux %.2f%%\n",
           t->id, t->log_size, (unsigned long long)sh.n_constraints, sh.n_inputs,
           100.0 * sh.n_aux_bits / sh.n_aux, 100 * da, 100 * db);
    CHECK_MSG(da >= t->a_lo && da <= t->a_hi, "%s: A aux density %.4f", t->id, da);
    CHECK_MSG(db >= t->b_lo && db <= t->b_hi, "%s: B aux density %.4f", t->id, db);

    /* same seed, same witness (the cs reused); another seed, another one */
    CHECK(cuzk_circuit_witness(c, js, strlen(js), &w4, 2, err) == CUZK_OK);
    CHECK(view_eq(&w1, &w4));
    CHECK(cuzk_circuit_witness(c, js2, strlen(js2), &w5, 2, err) == CUZK_OK);
    CHECK(!view_eq(&w1, &w5));
    size_t n5;
    cuzk_fr *w5d = dense(&w5, &n5);
    CHECK(w5d && n5 == n_w && cuzk_r1cs_check(&r, w5d, n5, &bad, err) == CUZK_OK);
    CHECK(w5d && memcmp(w5d + 1, w + 1, 32)); /* another commitment */
    free(w5d);
    /* a cs of another circuit is refused */
    if (strcmp(t->id, "winning-32g")) {
        cuzk_circuit *o = NULL;
        CHECK(cuzk_circuit_open(&o, "winning-32g", 12, err) == CUZK_OK);
        char *jo = NULL;
        CHECK(o && cuzk_circuit_inputs_json(o, 1, 0, &jo, err) == CUZK_OK);
        CHECK(o && jo && cuzk_circuit_witness(o, jo, strlen(jo), &w5, 1, err) ==
                             CUZK_ERR_INVALID_ARGUMENT);
        free(jo);
        cuzk_circuit_close(o);
    }
    free(w);
    cuzk_matrices_free(&m);
    cuzk_cs_free(&w1);
    cuzk_cs_free(&w4);
    cuzk_cs_free(&w5);
    free(js);
    free(js2);
    cuzk_circuit_close(c);
}

/* winning-32g: comm_r of the sector is Poseidon2 of the piece's first two
 * aux values, computed natively here. */
static void test_native_poseidon(void)
{
    char err[CUZK_ERRMSG_LEN], *js = NULL;
    cuzk_circuit *c = NULL;
    CHECK(cuzk_circuit_open(&c, "winning-32g", 12, err) == CUZK_OK);
    CHECK(c && cuzk_circuit_inputs_json(c, 5, 0, &js, err) == CUZK_OK);
    cuzk_cs cs = {0};
    CHECK(c && js && cuzk_circuit_witness(c, js, strlen(js), &cs, 1, err) == CUZK_OK);
    size_t n;
    cuzk_fr *w = dense(&cs, &n), h;
    uint32_t ni = cs.n_inputs;
    CHECK(w != NULL);
    if (w) {
        cuzk_fr in[2] = {w[ni], w[ni + 1]};
        cuzk_poseidon_hash_native(cuzk_poseidon_std(2), &h, in);
        CHECK(cuzk_fr_eq(&h, &w[1]));
    }
    free(w);
    free(js);
    cuzk_cs_free(&cs);
    cuzk_circuit_close(c);
}

static void bad_input(cuzk_circuit *c, const char *json, const char *want)
{
    char err[CUZK_ERRMSG_LEN] = "";
    cuzk_cs cs = {0};
    cuzk_status s = cuzk_circuit_witness(c, json, strlen(json), &cs, 1, err);
    CHECK_MSG(s == CUZK_ERR_BAD_ENCODING && strstr(err, want), "%s -> %d '%s'", json, s, err);
    cuzk_cs_free(&cs);
}

static void test_bad_inputs(void)
{
    char err[CUZK_ERRMSG_LEN];
    cuzk_circuit *c = NULL;
    CHECK(cuzk_circuit_open(&c, "nope", 0, err) == CUZK_ERR_INVALID_ARGUMENT && strstr(err, "nope"));
    CHECK(cuzk_circuit_open(&c, "porep-32g", 9, err) == CUZK_ERR_INVALID_ARGUMENT);
    CHECK(cuzk_circuit_open(&c, "porep-32g", 30, err) == CUZK_ERR_INVALID_ARGUMENT);
    CHECK(cuzk_circuit_open(&c, "snap-32g", 13, err) == CUZK_OK);
    if (!c) return;
    const cuzk_circuit_info *in = cuzk_circuit_describe(c);
    CHECK(in->challenges == 2 && in->node_bits == 6);
    bad_input(c, "{\"seed\": 1, ", "not JSON");
    bad_input(c, "[1, 2]", "expected a JSON object");
    bad_input(c, "{\"partition\": 0}", "missing field 'seed'");
    bad_input(c, "{\"seed\": 1}", "missing field 'partition'");
    bad_input(c, "{\"seed\": \"1\", \"partition\": 0}", "'seed' must be");
    bad_input(c, "{\"seed\": -1, \"partition\": 0}", "'seed' must be");
    bad_input(c, "{\"seed\": 1, \"partition\": 16}", "'partition' must be an integer in [0, 16)");
    bad_input(c, "{\"seed\": 1, \"partition\": 0, \"extra\": 1}", "unknown field 'extra'");
    bad_input(c, "{\"seed\": 1, \"partition\": 0, \"challenges\": 3}", "must be an array");
    bad_input(c, "{\"seed\": 1, \"partition\": 0, \"challenges\": [1]}", "has 1 entries");
    bad_input(c, "{\"seed\": 1, \"partition\": 0, \"challenges\": [3, 64]}",
              "challenge 1 (= 64) out of range [0, 2^6)");
    bad_input(c, "{\"seed\": 1, \"partition\": 0, \"challenges\": [-1, 0]}", "out of range");
    bad_input(c, "{\"seed\": 1, \"partition\": 0, \"challenges\": [1, 1.5]}", "not an integer");
    cuzk_cs cs = {0};
    const char *ok = "{\"seed\": 1, \"partition\": 15, \"challenges\": [63, 63]}";
    CHECK(cuzk_circuit_witness(c, ok, strlen(ok), &cs, 1, err) == CUZK_OK);
    cuzk_cs_free(&cs);
    CHECK(cuzk_circuit_count() == 4 && !strcmp(cuzk_circuit_id(0), "porep-32g") &&
          cuzk_circuit_id(4) == NULL);
    cuzk_circuit_close(c);
}

/* Full-size descriptions: the shapes of the real circuits. */
static void test_full_sizes(void)
{
    struct {
        const char *id;
        unsigned partitions;
        double lo, hi; /* million constraints a partition */
    } f[] = {{"porep-32g", 10, 125, 135}, {"winning-32g", 1, 0.25, 0.4},
             {"wpost-32g", 1, 95, 130}, {"snap-32g", 16, 75, 85}};
    for (int i = 0; i < 4; i++) {
        char err[CUZK_ERRMSG_LEN];
        cuzk_circuit *c = NULL;
        CHECK(cuzk_circuit_open(&c, f[i].id, 0, err) == CUZK_OK);
        if (!c) continue;
        const cuzk_circuit_info *in = cuzk_circuit_describe(c);
        double mc = in->n_constraints / 1e6;
        CHECK_MSG(in->partitions == f[i].partitions && mc >= f[i].lo && mc <= f[i].hi,
                  "%s: %u partitions, %.1f M constraints", f[i].id, in->partitions, mc);
        cuzk_circuit_close(c);
    }
}

int main(void)
{
    test_seed("test_circuits");
    uint64_t seed = test_rand64() >> 2;
    /* densities: SHA-256 work puts ~all aux in A and a quarter or so in B
     * (real PoRep: 99.7% and 25.4%); the Poseidon circuits are field-heavy */
    static const case_t cases[] = {
        {"porep-32g", 16, 0.97, 1.0, 0.10, 0.45, 0.9},
        {"porep-32g", 17, 0.97, 1.0, 0.10, 0.45, 0.9},
        {"winning-32g", 12, 0.9, 1.0, 0.5, 0.8, 0.0},
        {"wpost-32g", 10, 0.9, 1.0, 0.5, 0.8, 0.0},
        {"wpost-32g", 17, 0.9, 1.0, 0.5, 0.8, 0.0},
        {"snap-32g", 12, 0.9, 1.0, 0.5, 0.8, 0.0},
        {"snap-32g", 17, 0.9, 1.0, 0.5, 0.8, 0.0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) test_circuit(&cases[i], seed);
    test_native_poseidon();
    test_bad_inputs();
    test_full_sizes();
    return test_done("test_circuits");
}
