/* Boolean gadgets: allocation, xor/and/or, SHA-256 Ch and Maj, packing.
 *
 * Constant folding and the A/B/C placement of every constraint follow
 * bellman's Boolean/AllocatedBit, so that the matrices have bellman's
 * shape (which variables land in A and in B matters to the prover's
 * densities) and its constraint counts. */
#include <string.h>

#include <cuzk/gadgets.h>

/* The value of the underlying variable of a non-constant boolean. */
static inline unsigned var_value(cuzk_bool a) { return a.value ^ (a.kind == CUZK_BOOL_NOT); }

static inline cuzk_bool of_bit(cuzk_var v, unsigned value)
{
    return (cuzk_bool){v, CUZK_BOOL_IS, (uint8_t)value};
}

void cuzk_bool_term(cuzk_cs *cs, cuzk_abc m, cuzk_bool a, cuzk_coeff c)
{
    switch (a.kind) {
    case CUZK_BOOL_CONST:
        if (a.value) cuzk_cs_term(cs, m, CUZK_VAR_ONE, c);
        break;
    case CUZK_BOOL_IS: cuzk_cs_term(cs, m, a.var, c); break;
    default:
        cuzk_cs_term(cs, m, CUZK_VAR_ONE, c);
        cuzk_cs_term(cs, m, a.var, cuzk_cs_coeff_neg(cs, c));
    }
}

/* Adds c * (1 - v) for a bit variable v. */
static void term_one_minus(cuzk_cs *cs, cuzk_abc m, cuzk_var v)
{
    cuzk_cs_term(cs, m, CUZK_VAR_ONE, CUZK_COEFF_ONE);
    cuzk_cs_term(cs, m, v, CUZK_COEFF_MINUS_ONE);
}

cuzk_bool cuzk_bool_alloc(cuzk_cs *cs, unsigned v)
{
    cuzk_var x = cuzk_cs_alloc_bit(cs, v);
    if (cuzk_cs_recording(cs)) { /* (1 - x) * x = 0 */
        cuzk_cs_begin(cs);
        term_one_minus(cs, CUZK_A, x);
        cuzk_cs_term(cs, CUZK_B, x, CUZK_COEFF_ONE);
        cuzk_cs_end(cs);
    }
    return of_bit(x, v & 1);
}

cuzk_bool cuzk_bool_of_var(const cuzk_cs *cs, cuzk_var v)
{
    cuzk_fr x;
    cuzk_cs_value(cs, v, &x);
    return of_bit(v, cuzk_fr_is_one(&x));
}

cuzk_bool cuzk_bool_xor(cuzk_cs *cs, cuzk_bool a, cuzk_bool b)
{
    if (a.kind == CUZK_BOOL_CONST) return a.value ? cuzk_bool_not(b) : b;
    if (b.kind == CUZK_BOOL_CONST) return b.value ? cuzk_bool_not(a) : a;
    /* xor of the variables; one NOT among the operands negates the result */
    unsigned xv = var_value(a), yv = var_value(b);
    cuzk_var z = cuzk_cs_alloc_bit(cs, xv ^ yv);
    if (cuzk_cs_recording(cs)) { /* (2x) * (y) = (x + y - z) */
        cuzk_cs_begin(cs);
        cuzk_cs_term(cs, CUZK_A, a.var, cuzk_cs_coeff_pow2(cs, 1));
        cuzk_cs_term(cs, CUZK_B, b.var, CUZK_COEFF_ONE);
        cuzk_cs_term(cs, CUZK_C, a.var, CUZK_COEFF_ONE);
        cuzk_cs_term(cs, CUZK_C, b.var, CUZK_COEFF_ONE);
        cuzk_cs_term(cs, CUZK_C, z, CUZK_COEFF_MINUS_ONE);
        cuzk_cs_end(cs);
    }
    cuzk_bool r = of_bit(z, xv ^ yv);
    return (a.kind == CUZK_BOOL_NOT) != (b.kind == CUZK_BOOL_NOT) ? cuzk_bool_not(r) : r;
}

cuzk_bool cuzk_bool_and(cuzk_cs *cs, cuzk_bool a, cuzk_bool b)
{
    if (a.kind == CUZK_BOOL_CONST) return a.value ? b : cuzk_bool_const(0);
    if (b.kind == CUZK_BOOL_CONST) return b.value ? a : cuzk_bool_const(0);
    if (a.kind == CUZK_BOOL_NOT && b.kind == CUZK_BOOL_IS) { /* and_not(b, a) */
        cuzk_bool t = a;
        a = b;
        b = t;
    }
    unsigned v = a.value & b.value;
    cuzk_var z = cuzk_cs_alloc_bit(cs, v);
    if (cuzk_cs_recording(cs)) {
        /* and: a b = z; and_not: a (1 - b) = z; nor: (1 - a)(1 - b) = z */
        cuzk_cs_begin(cs);
        if (a.kind == CUZK_BOOL_IS) cuzk_cs_term(cs, CUZK_A, a.var, CUZK_COEFF_ONE);
        else term_one_minus(cs, CUZK_A, a.var);
        if (b.kind == CUZK_BOOL_IS) cuzk_cs_term(cs, CUZK_B, b.var, CUZK_COEFF_ONE);
        else term_one_minus(cs, CUZK_B, b.var);
        cuzk_cs_term(cs, CUZK_C, z, CUZK_COEFF_ONE);
        cuzk_cs_end(cs);
    }
    return of_bit(z, v);
}

cuzk_bool cuzk_bool_or(cuzk_cs *cs, cuzk_bool a, cuzk_bool b)
{
    return cuzk_bool_not(cuzk_bool_and(cs, cuzk_bool_not(a), cuzk_bool_not(b)));
}

cuzk_bool cuzk_bool_ch(cuzk_cs *cs, cuzk_bool a, cuzk_bool b, cuzk_bool c)
{
    if (a.kind == CUZK_BOOL_CONST) return a.value ? b : c;
    if (b.kind == CUZK_BOOL_CONST && c.kind == CUZK_BOOL_CONST) {
        if (b.value == c.value) return b;
        return b.value ? a : cuzk_bool_not(a);
    }
    if (c.kind == CUZK_BOOL_CONST) /* c = 0: a & b;  c = 1: !a | b = !(a & !b) */
        return c.value ? cuzk_bool_not(cuzk_bool_and(cs, a, cuzk_bool_not(b)))
                       : cuzk_bool_and(cs, a, b);
    if (b.kind == CUZK_BOOL_CONST) /* b = 0: !a & c;  b = 1: a | c */
        return b.value ? cuzk_bool_or(cs, a, c) : cuzk_bool_and(cs, cuzk_bool_not(a), c);
    unsigned v = a.value ? b.value : c.value;
    cuzk_var z = cuzk_cs_alloc_bit(cs, v);
    if (cuzk_cs_recording(cs)) { /* (b - c) * a = z - c */
        cuzk_cs_begin(cs);
        cuzk_bool_term(cs, CUZK_A, b, CUZK_COEFF_ONE);
        cuzk_bool_term(cs, CUZK_A, c, CUZK_COEFF_MINUS_ONE);
        cuzk_bool_term(cs, CUZK_B, a, CUZK_COEFF_ONE);
        cuzk_cs_term(cs, CUZK_C, z, CUZK_COEFF_ONE);
        cuzk_bool_term(cs, CUZK_C, c, CUZK_COEFF_MINUS_ONE);
        cuzk_cs_end(cs);
    }
    return of_bit(z, v);
}

cuzk_bool cuzk_bool_maj(cuzk_cs *cs, cuzk_bool a, cuzk_bool b, cuzk_bool c)
{
    /* With one constant operand, maj is the and (0) or the or (1) of the
     * other two. */
    if (a.kind == CUZK_BOOL_CONST)
        return a.value ? cuzk_bool_or(cs, b, c) : cuzk_bool_and(cs, b, c);
    if (b.kind == CUZK_BOOL_CONST)
        return b.value ? cuzk_bool_or(cs, a, c) : cuzk_bool_and(cs, a, c);
    if (c.kind == CUZK_BOOL_CONST)
        return c.value ? cuzk_bool_or(cs, a, b) : cuzk_bool_and(cs, a, b);
    /* maj = bc + a (b + c - 2bc):  (2bc - b - c) * a = bc - maj */
    cuzk_bool bc = cuzk_bool_and(cs, b, c);
    unsigned v = (a.value & b.value) | (a.value & c.value) | (b.value & c.value);
    cuzk_var z = cuzk_cs_alloc_bit(cs, v);
    if (cuzk_cs_recording(cs)) {
        cuzk_cs_begin(cs);
        cuzk_bool_term(cs, CUZK_A, bc, cuzk_cs_coeff_pow2(cs, 1));
        cuzk_bool_term(cs, CUZK_A, b, CUZK_COEFF_MINUS_ONE);
        cuzk_bool_term(cs, CUZK_A, c, CUZK_COEFF_MINUS_ONE);
        cuzk_bool_term(cs, CUZK_B, a, CUZK_COEFF_ONE);
        cuzk_bool_term(cs, CUZK_C, bc, CUZK_COEFF_ONE);
        cuzk_cs_term(cs, CUZK_C, z, CUZK_COEFF_MINUS_ONE);
        cuzk_cs_end(cs);
    }
    return of_bit(z, v);
}

void cuzk_bool_enforce_equal(cuzk_cs *cs, cuzk_bool a, cuzk_bool b)
{
    if (a.kind == CUZK_BOOL_CONST && b.kind == CUZK_BOOL_CONST) {
        if (a.value != b.value)
            cuzk_cs_fail(cs, CUZK_ERR_UNSATISFIED, "two different constant booleans made equal");
        return;
    }
    if (a.value != b.value)
        cuzk_cs_fail(cs, CUZK_ERR_UNSATISFIED, "booleans enforced equal differ");
    if (cuzk_cs_recording(cs)) { /* (a - b) * 1 = 0 */
        cuzk_cs_begin(cs);
        cuzk_bool_term(cs, CUZK_A, a, CUZK_COEFF_ONE);
        cuzk_bool_term(cs, CUZK_A, b, CUZK_COEFF_MINUS_ONE);
        cuzk_cs_term(cs, CUZK_B, CUZK_VAR_ONE, CUZK_COEFF_ONE);
        cuzk_cs_end(cs);
    }
}

/* ----------------------------------------------------------- packing -- */

static void pack_value(cuzk_fr *out, const cuzk_bool *bits, size_t n)
{
    uint64_t l[4] = {0, 0, 0, 0};
    for (size_t i = 0; i < n; i++) l[i / 64] |= (uint64_t)bits[i].value << (i % 64);
    cuzk_fr_from_limbs_reduce(out, l); /* < 2^254 < r: no reduction happens */
}

static cuzk_var pack(cuzk_cs *cs, const cuzk_bool *bits, size_t n, int input)
{
    if (n > 254) {
        cuzk_cs_fail(cs, CUZK_ERR_INVALID_ARGUMENT, "packing %zu bits (at most 254)", n);
        n = 254;
    }
    cuzk_fr v;
    pack_value(&v, bits, n);
    cuzk_var x = input ? cuzk_cs_alloc_input(cs, &v) : cuzk_cs_alloc(cs, &v);
    if (cuzk_cs_recording(cs)) { /* (sum 2^i b_i) * 1 = x */
        cuzk_cs_begin(cs);
        for (size_t i = 0; i < n; i++)
            cuzk_bool_term(cs, CUZK_A, bits[i], cuzk_cs_coeff_pow2(cs, (unsigned)i));
        cuzk_cs_term(cs, CUZK_B, CUZK_VAR_ONE, CUZK_COEFF_ONE);
        cuzk_cs_term(cs, CUZK_C, x, CUZK_COEFF_ONE);
        cuzk_cs_end(cs);
    }
    return x;
}

cuzk_var cuzk_bool_pack(cuzk_cs *cs, const cuzk_bool *bits, size_t n)
{
    return pack(cs, bits, n, 0);
}

cuzk_var cuzk_bool_pack_input(cuzk_cs *cs, const cuzk_bool *bits, size_t n)
{
    return pack(cs, bits, n, 1);
}

void cuzk_num_to_bits(cuzk_cs *cs, cuzk_bool *bits, cuzk_var x, size_t n)
{
    if (n > 254) {
        cuzk_cs_fail(cs, CUZK_ERR_INVALID_ARGUMENT, "unpacking into %zu bits (at most 254)", n);
        n = 254;
    }
    cuzk_fr v;
    uint64_t l[4];
    cuzk_cs_value(cs, x, &v);
    cuzk_fr_to_limbs(l, &v);
    for (size_t i = n; i < 256; i++)
        if ((l[i / 64] >> (i % 64)) & 1) {
            cuzk_cs_fail(cs, CUZK_ERR_UNSATISFIED, "value does not fit in %zu bits", n);
            break;
        }
    for (size_t i = 0; i < n; i++) bits[i] = cuzk_bool_alloc(cs, (l[i / 64] >> (i % 64)) & 1);
    if (cuzk_cs_recording(cs)) { /* (sum 2^i b_i) * 1 = x */
        cuzk_cs_begin(cs);
        for (size_t i = 0; i < n; i++)
            cuzk_bool_term(cs, CUZK_A, bits[i], cuzk_cs_coeff_pow2(cs, (unsigned)i));
        cuzk_cs_term(cs, CUZK_B, CUZK_VAR_ONE, CUZK_COEFF_ONE);
        cuzk_cs_term(cs, CUZK_C, x, CUZK_COEFF_ONE);
        cuzk_cs_end(cs);
    }
}
