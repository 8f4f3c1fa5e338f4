/* 32-bit word gadgets (bellman's UInt32) and MultiEq. */
#include <stdlib.h>
#include <string.h>

#include <cuzk/gadgets.h>

/* Fr has 254 bits of capacity (bellman's Scalar::CAPACITY): sums that stay
 * under 2^254 cannot wrap mod r. */
#define FR_CAPACITY 254u

/* ---------------------------------------------------------- MultiEq -- */

void cuzk_multieq_init(cuzk_multieq *m, cuzk_cs *cs)
{
    memset(m, 0, sizeof *m);
    m->cs = cs;
}

static void meq_flush(cuzk_multieq *m)
{
    cuzk_cs *cs = m->cs;
    if (m->bits_used == 0) return;
    /* (sum 2^o lhs) * 1 = (sum 2^o rhs) */
    cuzk_cs_begin(cs);
    for (uint32_t k = 0; k < m->n_lhs; k++)
        cuzk_cs_term(cs, CUZK_A, m->lhs[k].var, m->lhs[k].coeff);
    cuzk_cs_term(cs, CUZK_B, CUZK_VAR_ONE, CUZK_COEFF_ONE);
    for (uint32_t k = 0; k < m->n_rhs; k++)
        cuzk_cs_term(cs, CUZK_C, m->rhs[k].var, m->rhs[k].coeff);
    cuzk_cs_end(cs);
    m->n_lhs = m->n_rhs = 0;
    m->bits_used = 0;
}

static int meq_append(cuzk_multieq *m, cuzk_term **buf, uint32_t *n, uint32_t *cap,
                      const cuzk_lc *lc, cuzk_coeff scale)
{
    if (*n + lc->n > *cap) {
        uint32_t c = *cap ? *cap : 256;
        while (c < *n + lc->n) c *= 2;
        cuzk_term *t = realloc(*buf, (size_t)c * sizeof *t);
        if (!t) {
            cuzk_cs_fail(m->cs, CUZK_ERR_NO_MEMORY, "out of memory in MultiEq");
            return 0;
        }
        *buf = t;
        *cap = c;
    }
    for (uint32_t k = 0; k < lc->n; k++)
        (*buf)[(*n)++] =
            (cuzk_term){lc->t[k].var, cuzk_cs_coeff_mul(m->cs, lc->t[k].coeff, scale)};
    return 1;
}

void cuzk_multieq_add(cuzk_multieq *m, unsigned bits, const cuzk_lc *lhs, const cuzk_lc *rhs)
{
    cuzk_cs *cs = m->cs;
    if (!cuzk_cs_recording(cs)) return;
    if (bits >= FR_CAPACITY || lhs->n > lhs->cap || rhs->n > rhs->cap) {
        cuzk_cs_fail(cs, CUZK_ERR_INVALID_ARGUMENT, "MultiEq: bad equation (%u bits)", bits);
        return;
    }
    if (m->bits_used + bits >= FR_CAPACITY) meq_flush(m);
    cuzk_coeff scale = cuzk_cs_coeff_pow2(cs, m->bits_used);
    if (!meq_append(m, &m->lhs, &m->n_lhs, &m->cap_lhs, lhs, scale) ||
        !meq_append(m, &m->rhs, &m->n_rhs, &m->cap_rhs, rhs, scale))
        return;
    m->bits_used += bits;
}

void cuzk_multieq_finish(cuzk_multieq *m)
{
    if (cuzk_cs_recording(m->cs)) meq_flush(m);
    free(m->lhs);
    free(m->rhs);
    m->lhs = m->rhs = NULL;
    m->n_lhs = m->n_rhs = m->cap_lhs = m->cap_rhs = 0;
    m->bits_used = 0;
}

/* ------------------------------------------------------------- words -- */

void cuzk_u32_const(cuzk_u32 *r, uint32_t v)
{
    for (int i = 0; i < 32; i++) r->b[i] = cuzk_bool_const((v >> i) & 1);
    r->value = v;
}

void cuzk_u32_alloc(cuzk_cs *cs, cuzk_u32 *r, uint32_t v)
{
    for (int i = 0; i < 32; i++) r->b[i] = cuzk_bool_alloc(cs, (v >> i) & 1);
    r->value = v;
}

void cuzk_u32_from_bits_be(cuzk_u32 *r, const cuzk_bool *bits)
{
    uint32_t v = 0;
    for (int i = 0; i < 32; i++) {
        r->b[31 - i] = bits[i];
        v = v << 1 | bits[i].value;
    }
    r->value = v;
}

void cuzk_u32_to_bits_be(cuzk_bool *bits, const cuzk_u32 *a)
{
    for (int i = 0; i < 32; i++) bits[i] = a->b[31 - i];
}

void cuzk_u32_rotr(cuzk_u32 *r, const cuzk_u32 *a, unsigned k)
{
    cuzk_u32 t;
    k %= 32;
    for (unsigned i = 0; i < 32; i++) t.b[i] = a->b[(i + k) % 32];
    t.value = k ? (a->value >> k | a->value << (32 - k)) : a->value;
    *r = t;
}

void cuzk_u32_shr(cuzk_u32 *r, const cuzk_u32 *a, unsigned k)
{
    cuzk_u32 t;
    for (unsigned i = 0; i < 32; i++) t.b[i] = i + k < 32 ? a->b[i + k] : cuzk_bool_const(0);
    t.value = k < 32 ? a->value >> k : 0;
    *r = t;
}

void cuzk_u32_xor(cuzk_cs *cs, cuzk_u32 *r, const cuzk_u32 *a, const cuzk_u32 *b)
{
    uint32_t v = a->value ^ b->value;
    for (int i = 0; i < 32; i++) r->b[i] = cuzk_bool_xor(cs, a->b[i], b->b[i]);
    r->value = v;
}

void cuzk_u32_ch(cuzk_cs *cs, cuzk_u32 *r, const cuzk_u32 *a, const cuzk_u32 *b,
                 const cuzk_u32 *c)
{
    uint32_t v = (a->value & b->value) ^ (~a->value & c->value);
    for (int i = 0; i < 32; i++) r->b[i] = cuzk_bool_ch(cs, a->b[i], b->b[i], c->b[i]);
    r->value = v;
}

void cuzk_u32_maj(cuzk_cs *cs, cuzk_u32 *r, const cuzk_u32 *a, const cuzk_u32 *b,
                  const cuzk_u32 *c)
{
    uint32_t v = (a->value & b->value) ^ (a->value & c->value) ^ (b->value & c->value);
    for (int i = 0; i < 32; i++) r->b[i] = cuzk_bool_maj(cs, a->b[i], b->b[i], c->b[i]);
    r->value = v;
}

/* Records sum_ops = sum 2^i bits[i] (through meq, or as its own constraint
 * (lhs) * 1 = (rhs)). */
static void addmany_record(cuzk_cs *cs, const cuzk_u32 *const *ops, size_t n,
                           const cuzk_bool *bits, unsigned k, cuzk_multieq *meq)
{
    /* a NOT bit gives two terms (ONE and the variable) */
    size_t cap_l = n * 64 + 1;
    cuzk_term *tl = malloc(cap_l * sizeof *tl), *tr = malloc((size_t)k * sizeof *tr);
    if (!tl || !tr) {
        free(tl);
        free(tr);
        cuzk_cs_fail(cs, CUZK_ERR_NO_MEMORY, "out of memory recording a modular addition");
        return;
    }
    cuzk_lc lhs = {tl, 0, (uint32_t)cap_l}, rhs = {tr, 0, k};
    cuzk_fr ones = CUZK_FR_ZERO; /* constants of the left side, summed */
    for (size_t j = 0; j < n; j++)
        for (unsigned i = 0; i < 32; i++) {
            cuzk_bool b = ops[j]->b[i];
            if (b.kind == CUZK_BOOL_CONST) {
                if (b.value) {
                    cuzk_fr p;
                    cuzk_cs_coeff_value(cs, cuzk_cs_coeff_pow2(cs, i), &p);
                    cuzk_fr_add(&ones, &ones, &p);
                }
            } else if (b.kind == CUZK_BOOL_IS) {
                cuzk_lc_add(&lhs, b.var, cuzk_cs_coeff_pow2(cs, i));
            } else {
                cuzk_fr p;
                cuzk_cs_coeff_value(cs, cuzk_cs_coeff_pow2(cs, i), &p);
                cuzk_fr_add(&ones, &ones, &p);
                cuzk_lc_add(&lhs, b.var, cuzk_cs_coeff_neg_pow2(cs, i));
            }
        }
    cuzk_coeff cones = cuzk_cs_coeff(cs, &ones);
    if (cones != CUZK_COEFF_ZERO) cuzk_lc_add(&lhs, CUZK_VAR_ONE, cones);
    for (unsigned i = 0; i < k; i++) cuzk_lc_add(&rhs, bits[i].var, cuzk_cs_coeff_pow2(cs, i));
    if (meq) {
        cuzk_multieq_add(meq, k, &lhs, &rhs);
    } else {
        cuzk_cs_begin(cs);
        cuzk_cs_term_lc(cs, CUZK_A, &lhs, CUZK_COEFF_ONE);
        cuzk_cs_term(cs, CUZK_B, CUZK_VAR_ONE, CUZK_COEFF_ONE);
        cuzk_cs_term_lc(cs, CUZK_C, &rhs, CUZK_COEFF_ONE);
        cuzk_cs_end(cs);
    }
    free(tl);
    free(tr);
}

void cuzk_u32_addmany(cuzk_cs *cs, cuzk_u32 *r, const cuzk_u32 *const *ops, size_t n,
                      cuzk_multieq *meq)
{
    if (n == 0 || n > (1u << 20)) {
        cuzk_cs_fail(cs, CUZK_ERR_INVALID_ARGUMENT, "addmany of %zu words", n);
        cuzk_u32_const(r, 0);
        return;
    }
    uint64_t sum = 0;
    int all_const = 1;
    for (size_t j = 0; j < n; j++) {
        sum += ops[j]->value;
        for (int i = 0; i < 32 && all_const; i++) all_const = ops[j]->b[i].kind == CUZK_BOOL_CONST;
    }
    if (all_const) {
        cuzk_u32_const(r, (uint32_t)sum);
        return;
    }
    /* k = bit length of n (2^32 - 1), the largest possible sum */
    uint64_t max = (uint64_t)n * 0xffffffffull;
    unsigned k = 64 - (unsigned)__builtin_clzll(max);
    cuzk_bool bits[53];
    for (unsigned i = 0; i < k; i++) bits[i] = cuzk_bool_alloc(cs, (sum >> i) & 1);
    if (cuzk_cs_recording(cs)) addmany_record(cs, ops, n, bits, k, meq);
    for (int i = 0; i < 32; i++) r->b[i] = bits[i];
    r->value = (uint32_t)sum;
}
