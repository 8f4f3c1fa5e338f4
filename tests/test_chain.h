/* The small circuit of the setup and prover tests: public x, y, out;
 * v_0 = x, (3 v_i) v_i = v_{i+1} - y, out = v_n; the low `bits` bits of x as
 * booleans (ones and zeros for the sparse MSMs). y, out and v_n are the
 * variables in no B row. */
#ifndef CUZK_TEST_CHAIN_H
#define CUZK_TEST_CHAIN_H

#include <stdlib.h>

#include <cuzk/gadgets.h>
#include <cuzk/r1cs.h>

typedef struct {
    cuzk_r1cs r;
    cuzk_fr *w; /* n_w values, malloc'd */
    size_t n_w;
} test_chain;

/* Records the circuit for x = xv, y = yv in c (zeroed first; the caller
 * frees c->r with cuzk_r1cs_free and c->w with free). 1 on success. */
static inline int test_chain_build(test_chain *c, unsigned steps, unsigned bits, uint64_t xv,
                                   uint64_t yv)
{
    cuzk_cs cs;
    memset(c, 0, sizeof *c);
    if (cuzk_cs_init(&cs, CUZK_CS_RECORD, NULL) != CUZK_OK) return 0;
    cuzk_fr x, y, v, t, three;
    cuzk_fr_from_u64(&x, xv);
    cuzk_fr_from_u64(&y, yv);
    cuzk_fr_from_u64(&three, 3);
    cuzk_var vx = cuzk_cs_alloc_input(&cs, &x), vy = cuzk_cs_alloc_input(&cs, &y);
    cuzk_coeff c3 = cuzk_cs_coeff(&cs, &three);
    cuzk_var cur = vx;
    v = x;
    for (unsigned i = 0; i < steps; i++) {
        cuzk_fr_mul(&t, &v, &v);
        cuzk_fr_mul(&t, &t, &three);
        cuzk_fr_add(&t, &t, &y);
        cuzk_var nx = cuzk_cs_alloc(&cs, &t);
        cuzk_cs_begin(&cs);
        cuzk_cs_term(&cs, CUZK_A, cur, c3);
        cuzk_cs_term(&cs, CUZK_B, cur, CUZK_COEFF_ONE);
        cuzk_cs_term(&cs, CUZK_C, nx, CUZK_COEFF_ONE);
        cuzk_cs_term(&cs, CUZK_C, vy, CUZK_COEFF_MINUS_ONE);
        cuzk_cs_end(&cs);
        cur = nx;
        v = t;
    }
    cuzk_var out = cuzk_cs_alloc_input(&cs, &v);
    cuzk_cs_begin(&cs);
    cuzk_cs_term(&cs, CUZK_A, cur, CUZK_COEFF_ONE);
    cuzk_cs_term(&cs, CUZK_B, CUZK_VAR_ONE, CUZK_COEFF_ONE);
    cuzk_cs_term(&cs, CUZK_C, out, CUZK_COEFF_ONE);
    cuzk_cs_end(&cs);
    cuzk_bool bv[64];
    cuzk_num_to_bits(&cs, bv, vx, bits > 64 ? 64 : bits);
    int ok = cuzk_cs_status(&cs, NULL) == CUZK_OK;
    cuzk_cs_shape sh;
    cuzk_cs_get_shape(&cs, &sh);
    c->n_w = (size_t)sh.n_inputs + sh.n_aux;
    c->w = malloc(c->n_w * sizeof *c->w);
    ok = ok && c->w && cuzk_cs_take_r1cs(&cs, &c->r) == CUZK_OK &&
         cuzk_cs_witness(&cs, c->w, c->n_w) == CUZK_OK;
    cuzk_cs_free(&cs);
    return ok;
}

#endif /* CUZK_TEST_CHAIN_H */
