/* Poseidon recording: the constraint system the gadgets record is pinned
 * down bit for bit. The recording path of cuzk_poseidon_hash replays a
 * template built once per parameter set (src/gadgets/poseidon.c); the
 * XXH64 digests below were taken from the recording path before it had one
 * (rebuilding every linear combination per hash). A digest covers the row
 * tables, wires and coefficient indices of A, B and C and the coefficient
 * values, so the same digest means the same matrices, coefficient table
 * order included. Also: the template path equals the template-less path
 * of a copy of the parameters (tpl_ = NULL) on random circuits, the
 * sparse partial rounds give the witness of the plain ones, and the values
 * stay those of the native hash. */
#include <stdlib.h>
#include <string.h>

#include <cuzk/circuits.h>
#include <cuzk/gadgets.h>

#include "common/hash.h"
#include "test_util.h"

static uint64_t hash_sparse(const cuzk_sparse *s, uint64_t n_rows, uint64_t h)
{
    h = cuzk_xxh64(s->row_start, (n_rows + 1) * sizeof *s->row_start, h);
    h = cuzk_xxh64(s->wire, s->n_terms * sizeof *s->wire, h);
    return cuzk_xxh64(s->coeff, s->n_terms * sizeof *s->coeff, h);
}

static uint64_t hash_matrices(const cuzk_matrices *m)
{
    uint64_t h = cuzk_xxh64(&m->n_rows, sizeof m->n_rows, 0);
    h = hash_sparse(&m->a, m->n_rows, h);
    h = hash_sparse(&m->b, m->n_rows, h);
    h = hash_sparse(&m->c, m->n_rows, h);
    return cuzk_xxh64(m->coeffs, (size_t)m->n_coeffs * sizeof *m->coeffs, h);
}

static cuzk_fr fr_of(uint64_t x)
{
    cuzk_fr f;
    cuzk_fr_from_u64(&f, x);
    return f;
}

/* A small circuit of hashes and permutations over p (arity t - 1): inputs
 * repeated (the same variable twice), chained outputs, public inputs, and
 * permutations with and without constant elements. */
static void gadget_circuit(cuzk_cs *cs, const cuzk_poseidon *p, uint64_t salt)
{
    unsigned t = p->t;
    cuzk_var x[32], o[32];
    cuzk_fr v = fr_of(salt + 1);
    x[0] = cuzk_cs_alloc_input(cs, &v);
    for (unsigned i = 1; i < t; i++) {
        v = fr_of(salt * 31 + i * 7 + 3);
        x[i] = cuzk_cs_alloc(cs, &v);
    }
    cuzk_var h1 = cuzk_poseidon_hash(cs, p, x);
    x[1] = x[0]; /* a repeated input */
    cuzk_var h2 = cuzk_poseidon_hash(cs, p, x);
    x[0] = h1;
    x[t - 2] = h2;
    cuzk_var h3 = cuzk_poseidon_hash(cs, p, x);
    x[0] = h3;
    cuzk_poseidon_permute(cs, p, o, x); /* all variables */
    o[2] = CUZK_VAR_ONE;                /* a constant element (its value) */
    cuzk_poseidon_permute(cs, p, x, o);
    (void)cuzk_poseidon_hash(cs, p, x + 1);
}

static uint64_t record_gadgets(const cuzk_poseidon *p, uint64_t salt, cuzk_matrices *m)
{
    cuzk_cs cs = {0};
    uint64_t h = 0;
    CHECK(cuzk_cs_init(&cs, CUZK_CS_RECORD | CUZK_CS_CHECK, NULL) == CUZK_OK);
    gadget_circuit(&cs, p, salt);
    CHECK_MSG(cs.status == CUZK_OK, "%s", cs.msg);
    if (cuzk_cs_take_matrices(&cs, m) == CUZK_OK) h = hash_matrices(m);
    cuzk_cs_free(&cs);
    return h;
}

static int sparse_eq(const cuzk_sparse *x, const cuzk_sparse *y, uint64_t n_rows)
{
    return x->n_terms == y->n_terms &&
           !memcmp(x->row_start, y->row_start, (n_rows + 1) * sizeof *x->row_start) &&
           !memcmp(x->wire, y->wire, x->n_terms * sizeof *x->wire) &&
           !memcmp(x->coeff, y->coeff, x->n_terms * sizeof *x->coeff);
}

static void test_gadgets(void)
{
    /* pinned: taken before the template existed */
    static const uint64_t want[2] = {0xb52eca7e6ab4ccdaull, 0xacd4d350b8d06891ull};
    for (unsigned k = 0; k < 2; k++) {
        const cuzk_poseidon *p = cuzk_poseidon_std(k ? 8 : 2);
        CHECK(p != NULL);
        if (!p) continue;
        cuzk_matrices m1, m2;
        uint64_t h = record_gadgets(p, 5, &m1);
        CHECK_MSG(h == want[k], "arity %u: recorded matrices changed (digest 0x%016llx)",
                  k ? 8 : 2, (unsigned long long)h);
        /* The template-less path (a copy of p without its template) records
         * the same matrices, for random values. */
        cuzk_poseidon bare = *p;
        bare.tpl_ = NULL;
        uint64_t salt = test_rand64() >> 8;
        cuzk_matrices_free(&m1);
        uint64_t h1 = record_gadgets(p, salt, &m1), h2 = record_gadgets(&bare, salt, &m2);
        CHECK(h1 == h2 && h1 == want[k]);
        CHECK(m1.n_rows == m2.n_rows && m1.n_coeffs == m2.n_coeffs &&
              sparse_eq(&m1.a, &m2.a, m1.n_rows) && sparse_eq(&m1.b, &m2.b, m1.n_rows) &&
              sparse_eq(&m1.c, &m2.c, m1.n_rows) &&
              !memcmp(m1.coeffs, m2.coeffs, m1.n_coeffs * sizeof *m1.coeffs));
        cuzk_matrices_free(&m1);
        cuzk_matrices_free(&m2);

        /* The sparse partial rounds give the witness of the plain ones (a
         * copy without the sparse form), in both modes. */
        cuzk_poseidon plain = bare;
        plain.pre_rc = plain.pre_mds = plain.partial_rc = plain.sparse = NULL;
        CHECK(p->sparse != NULL);
        for (int mode = 0; mode < 2; mode++) {
            cuzk_cs c1 = {0}, c2 = {0};
            unsigned fl = mode ? CUZK_CS_RECORD | CUZK_CS_CHECK : CUZK_CS_WITNESS;
            CHECK(cuzk_cs_init(&c1, fl, NULL) == CUZK_OK && cuzk_cs_init(&c2, fl, NULL) == CUZK_OK);
            gadget_circuit(&c1, p, salt);
            gadget_circuit(&c2, &plain, salt);
            cuzk_witness_view v1, v2;
            cuzk_cs_witness_view(&c1, &v1);
            cuzk_cs_witness_view(&c2, &v2);
            CHECK(c1.status == CUZK_OK && c2.status == CUZK_OK && v1.n_fields > 1000 &&
                  v1.n_fields == v2.n_fields && v1.n_inputs == v2.n_inputs &&
                  !memcmp(v1.fields, v2.fields, v1.n_fields * sizeof *v1.fields) &&
                  !memcmp(v1.inputs, v2.inputs, v1.n_inputs * sizeof *v1.inputs));
            cuzk_cs_free(&c1);
            cuzk_cs_free(&c2);
        }

        /* Values: the hash gadget in recording mode equals the native hash. */
        cuzk_cs cs = {0};
        cuzk_fr in[31], want_h, got;
        cuzk_var x[31];
        CHECK(cuzk_cs_init(&cs, CUZK_CS_RECORD | CUZK_CS_CHECK, NULL) == CUZK_OK);
        for (unsigned i = 0; i + 1 < p->t; i++) {
            in[i] = fr_of(test_rand64());
            x[i] = cuzk_cs_alloc(&cs, &in[i]);
        }
        cuzk_poseidon_hash_native(p, &want_h, in);
        cuzk_cs_value(&cs, cuzk_poseidon_hash(&cs, p, x), &got);
        CHECK(cs.status == CUZK_OK && cuzk_fr_eq(&got, &want_h));
        CHECK(cuzk_cs_n_constraints(&cs) == (p->t == 3 ? 241u : 403u));
        cuzk_cs_free(&cs);
    }
}

/* The Poseidon-built circuits at a small size: the recorded matrices are
 * the pinned ones. */
static void test_circuits(void)
{
    static const struct {
        const char *id;
        unsigned size;
        uint64_t digest;
    } want[] = {{"winning-32g", 13, 0xaa1a873a281e906dull},
                {"wpost-32g", 13, 0xb828804d4f8d7a48ull},
                {"snap-32g", 13, 0x2964db8343a2f843ull},
                {"wpost-32g", 15, 0x643572998569e70eull},
                {"snap-32g", 15, 0x4bc1f5e0586d6e08ull}};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        char err[CUZK_ERRMSG_LEN];
        cuzk_circuit *c = NULL;
        cuzk_matrices m;
        cuzk_cs_shape sh;
        CHECK(cuzk_circuit_open(&c, want[i].id, want[i].size, err) == CUZK_OK);
        CHECK_MSG(cuzk_circuit_record(c, &m, &sh, err) == CUZK_OK, "%s: %s", want[i].id, err);
        uint64_t h = hash_matrices(&m);
        CHECK_MSG(h == want[i].digest, "%s at 2^%u: recorded matrices changed (digest 0x%016llx)",
                  want[i].id, want[i].size, (unsigned long long)h);
        cuzk_matrices_free(&m);
        cuzk_circuit_close(c);
    }
}

int main(void)
{
    test_seed("test_poseidon_rec");
    test_gadgets();
    test_circuits();
    return test_done("test_poseidon_rec");
}
