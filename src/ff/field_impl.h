/* The operations Fp and Fr share, written once. fp.c and fr.c each define
 *   FIELD          the element type (cuzk_fp, cuzk_fr)
 *   FN(name)       the public name (cuzk_fp_##name, ...)
 *   NL, NB         the limb and byte counts
 *   P_, ONE_       the modulus limbs and the Montgomery one (public constants)
 *   N0             -P^-1 mod 2^64
 *   R2_, R3_       2^(128 NL), 2^(192 NL) mod P (canonical limbs)
 * and then include this file once. */

#include "ff/safegcd.h"

void FN(add)(FIELD *r, const FIELD *a, const FIELD *b) { mont_add(r->l, a->l, b->l, P_, NL); }
void FN(sub)(FIELD *r, const FIELD *a, const FIELD *b) { mont_sub(r->l, a->l, b->l, P_, NL); }
void FN(neg)(FIELD *r, const FIELD *a) { mont_neg(r->l, a->l, P_, NL); }
void FN(dbl)(FIELD *r, const FIELD *a) { mont_add(r->l, a->l, a->l, P_, NL); }
void FN(mul)(FIELD *r, const FIELD *a, const FIELD *b) { mont_mul(r->l, a->l, b->l, P_, N0, NL); }
void FN(sqr)(FIELD *r, const FIELD *a) { mont_sqr(r->l, a->l, P_, N0, NL); }

int FN(is_zero)(const FIELD *a) { return (int)mont_is_zero(a->l, NL); }
int FN(eq)(const FIELD *a, const FIELD *b) { return (int)mont_eq(a->l, b->l, NL); }
int FN(is_one)(const FIELD *a) { return (int)mont_eq(a->l, ONE_.l, NL); }
void FN(cmov)(FIELD *r, const FIELD *c, int flag) { mont_cmov(r->l, c->l, (uint64_t)(flag & 1), NL); }

/* Left-to-right square and multiply. The exponent is public, so the
 * sequence of operations may depend on it; it never depends on a. */
void FN(pow)(FIELD *r, const FIELD *a, const uint64_t *e, size_t n)
{
    FIELD acc = ONE_, base = *a;
    for (size_t i = n; i-- > 0;) {
        for (int bit = 63; bit >= 0; bit--) {
            FN(sqr)(&acc, &acc);
            if ((e[i] >> bit) & 1) FN(mul)(&acc, &acc, &base);
        }
    }
    *r = acc;
}

/* e = MOD - k for a small k (k <= MOD[0], true for the uses below). */
static void FN(mod_minus)(uint64_t e[NL], uint64_t k)
{
    memcpy(e, P_, sizeof(uint64_t) * NL);
    uint64_t borrow = k;
    for (size_t i = 0; i < NL && borrow; i++) {
        uint64_t old = e[i];
        e[i] = old - borrow;
        borrow = old < borrow;
    }
}

/* Constant time: a fixed number of safegcd batches (safegcd.h). Was Fermat
 * a^(p-2), 8-12x slower; the timings are in safegcd.h. */
void FN(inv)(FIELD *r, const FIELD *a) { sg_inverse(r->l, a->l, P_, N0, R3_, NL, 1); }

/* Variable time: safegcd with early exit. It inverts the Montgomery
 * representative itself and returns the Montgomery form of 1/a directly. */
void FN(inv_var)(FIELD *r, const FIELD *a) { sg_inverse(r->l, a->l, P_, N0, R3_, NL, 0); }

void FN(batch_inv_var)(FIELD *out, const FIELD *in, size_t n, FIELD *scratch)
{
    if (n == 0) return;
    /* scratch[i] = product of the nonzero in[0..i]; zeros are passed over so
     * one zero does not poison the rest. */
    FIELD acc = ONE_;
    for (size_t i = 0; i < n; i++) {
        if (!FN(is_zero)(&in[i])) FN(mul)(&acc, &acc, &in[i]);
        scratch[i] = acc;
    }
    FN(inv_var)(&acc, &acc);
    for (size_t i = n; i-- > 0;) {
        if (FN(is_zero)(&in[i])) {
            out[i] = in[i];
            continue;
        }
        FIELD prev = i ? scratch[i - 1] : ONE_, x = in[i];
        FN(mul)(&out[i], &acc, &prev);
        FN(mul)(&acc, &acc, &x);
    }
}

int FN(legendre)(const FIELD *a)
{
    uint64_t e[NL];
    FN(mod_minus)(e, 1);
    for (size_t i = 0; i + 1 < NL; i++) e[i] = (e[i] >> 1) | (e[i + 1] << 63);
    e[NL - 1] >>= 1;
    FIELD t;
    FN(pow)(&t, a, e, NL);
    if (FN(is_zero)(&t)) return 0;
    return FN(is_one)(&t) ? 1 : -1;
}

void FN(from_u64)(FIELD *r, uint64_t v)
{
    uint64_t t[NL] = {v};
    mont_mul(r->l, t, R2_, P_, N0, NL); /* v < 2^64 < MOD */
}

cuzk_status FN(from_limbs)(FIELD *r, const uint64_t v[NL])
{
    if (!mont_lt_var(v, P_, NL)) return CUZK_ERR_NOT_CANONICAL;
    mont_mul(r->l, v, R2_, P_, N0, NL);
    return CUZK_OK;
}

void FN(to_limbs)(uint64_t v[NL], const FIELD *a)
{
    const uint64_t one[NL] = {1};
    mont_mul(v, a->l, one, P_, N0, NL);
}

static void FN(limbs_from_le)(uint64_t v[NL], const uint8_t *in)
{
    for (size_t i = 0; i < NL; i++) {
        uint64_t w = 0;
        for (int b = 7; b >= 0; b--) w = (w << 8) | in[8 * i + (size_t)b];
        v[i] = w;
    }
}

static void FN(limbs_to_le)(uint8_t *out, const uint64_t v[NL])
{
    for (size_t i = 0; i < NL; i++)
        for (int b = 0; b < 8; b++) out[8 * i + (size_t)b] = (uint8_t)(v[i] >> (8 * b));
}

cuzk_status FN(from_le)(FIELD *r, const uint8_t in[NB])
{
    uint64_t v[NL];
    FN(limbs_from_le)(v, in);
    return FN(from_limbs)(r, v);
}

void FN(to_le)(uint8_t out[NB], const FIELD *a)
{
    uint64_t v[NL];
    FN(to_limbs)(v, a);
    FN(limbs_to_le)(out, v);
}

cuzk_status FN(from_be)(FIELD *r, const uint8_t in[NB])
{
    uint8_t le[NB];
    for (size_t i = 0; i < NB; i++) le[i] = in[NB - 1 - i];
    return FN(from_le)(r, le);
}

void FN(to_be)(uint8_t out[NB], const FIELD *a)
{
    uint8_t le[NB];
    FN(to_le)(le, a);
    for (size_t i = 0; i < NB; i++) out[i] = le[NB - 1 - i];
}

/* LEM: the bytes are the Montgomery representative; it must be < MOD. */
cuzk_status FN(from_lem)(FIELD *r, const uint8_t in[NB])
{
    uint64_t v[NL];
    FN(limbs_from_le)(v, in);
    if (!mont_lt_var(v, P_, NL)) return CUZK_ERR_NOT_CANONICAL;
    memcpy(r->l, v, sizeof v);
    return CUZK_OK;
}

void FN(to_lem)(uint8_t out[NB], const FIELD *a) { FN(limbs_to_le)(out, a->l); }

