/* Prime identification, the coefficient dictionary and the
 * verifying-key helpers shared by the format readers. */
#include <stdio.h>
#include <stdlib.h>

#include "formats/fmt_internal.h"

/* ------------------------------------------------------------- primes -- */

static const uint64_t BN254_R[4] = {0x43e1f593f0000001ull, 0x2833e84879b97091ull,
                                    0xb85045b68181585dull, 0x30644e72e131a029ull};
static const uint64_t BN254_Q[4] = {0x3c208c16d87cfd47ull, 0x97816a916871ca8dull,
                                    0xb85045b68181585dull, 0x30644e72e131a029ull};

/* 1 if the n-byte LE integer le equals the nl-limb value v. */
static int le_equals(const uint8_t *le, uint64_t n, const uint64_t *v, size_t nl)
{
    if (n != 8 * nl) return 0;
    for (size_t i = 0; i < nl; i++)
        if (rd_u64le(le + 8 * i) != v[i]) return 0;
    return 1;
}

fmt_prime fmt_prime_id(const uint8_t *le, uint64_t n)
{
    if (le_equals(le, n, CUZK_FR_MODULUS, CUZK_FR_LIMBS)) return PRIME_BLS_R;
    if (le_equals(le, n, CUZK_FP_MODULUS, CUZK_FP_LIMBS)) return PRIME_BLS_Q;
    if (le_equals(le, n, BN254_R, 4)) return PRIME_BN_R;
    if (le_equals(le, n, BN254_Q, 4)) return PRIME_BN_Q;
    return PRIME_OTHER;
}

cuzk_status fmt_wrong_prime(char *err, const char *what, const uint8_t *le, uint64_t n,
                            fmt_prime want)
{
    const char *want_s = want == PRIME_BLS_R ? "BLS12-381 r" : "BLS12-381 q";
    switch (fmt_prime_id(le, n)) {
    case PRIME_BN_R:
    case PRIME_BN_Q:
        return fmt_fail(err, CUZK_ERR_BAD_ENCODING,
                        "%s is BN254 %s (this file is for bn128: circom --prime bn128); "
                        "cuzk needs %s (--prime bls12381)",
                        what, fmt_prime_id(le, n) == PRIME_BN_R ? "r" : "q", want_s);
    case PRIME_BLS_R:
    case PRIME_BLS_Q:
        return fmt_fail(err, CUZK_ERR_BAD_ENCODING, "%s is BLS12-381 %s, expected %s", what,
                        fmt_prime_id(le, n) == PRIME_BLS_R ? "r" : "q", want_s);
    default:
        return fmt_fail(err, CUZK_ERR_BAD_ENCODING,
                        "%s is an unknown %llu-byte prime, not %s", what,
                        (unsigned long long)n, want_s);
    }
}

/* ------------------------------------------------ coefficient dictionary -- */

static uint64_t fr_hash(const cuzk_fr *v)
{
    uint64_t h = v->l[0] ^ (v->l[1] * 0x9e3779b97f4a7c15ull) ^ (v->l[2] * 0xc2b2ae3d27d4eb4full) ^
                 (v->l[3] * 0x165667b19e3779f9ull);
    h ^= h >> 29;
    h *= 0xbf58476d1ce4e5b9ull;
    return h ^ (h >> 32);
}

static int cd_rehash(coeff_dict *d, uint64_t nslot)
{
    uint32_t *s = calloc(nslot, sizeof *s);
    if (!s) return 0;
    for (uint32_t i = 0; i < d->n; i++) {
        uint64_t h = fr_hash(&d->v[i]) & (nslot - 1);
        while (s[h]) h = (h + 1) & (nslot - 1);
        s[h] = i + 1;
    }
    free(d->slot);
    d->slot = s;
    d->nslot = nslot;
    return 1;
}

cuzk_status cd_init(coeff_dict *d)
{
    memset(d, 0, sizeof *d);
    d->cap = 64;
    d->v = malloc(d->cap * sizeof *d->v);
    if (!d->v || !cd_rehash(d, 128)) {
        cd_free(d);
        return CUZK_ERR_NO_MEMORY;
    }
    cuzk_fr m1;
    cuzk_fr_neg(&m1, &CUZK_FR_ONE);
    if (cd_intern(d, &CUZK_FR_ONE) != CUZK_COEFF_ONE ||
        cd_intern(d, &m1) != CUZK_COEFF_MINUS_ONE) {
        cd_free(d);
        return CUZK_ERR_NO_MEMORY;
    }
    return CUZK_OK;
}

uint32_t cd_intern(coeff_dict *d, const cuzk_fr *v)
{
    uint64_t mask = d->nslot - 1, h = fr_hash(v) & mask;
    for (;;) {
        uint32_t s = d->slot[h];
        if (!s) break;
        if (!memcmp(&d->v[s - 1], v, sizeof *v)) return s - 1;
        h = (h + 1) & mask;
    }
    if (d->n == UINT32_MAX - 1) return UINT32_MAX;
    if (d->n == d->cap) {
        uint32_t cap = d->cap > UINT32_MAX / 2 ? UINT32_MAX - 1 : d->cap * 2;
        cuzk_fr *nv = realloc(d->v, (size_t)cap * sizeof *nv);
        if (!nv) return UINT32_MAX;
        d->v = nv;
        d->cap = cap;
    }
    d->v[d->n] = *v;
    d->slot[h] = d->n + 1;
    d->n++;
    if ((uint64_t)d->n * 2 > d->nslot && !cd_rehash(d, d->nslot * 2)) {
        d->n--; /* keep the table consistent: forget the new value */
        d->slot[h] = 0;
        return UINT32_MAX;
    }
    return d->n - 1;
}

void cd_finish(coeff_dict *d, cuzk_matrices *m)
{
    cuzk_fr *v = d->n ? realloc(d->v, (size_t)d->n * sizeof *v) : NULL;
    m->coeffs = v ? v : d->v;
    m->n_coeffs = d->n;
    free(d->slot);
    memset(d, 0, sizeof *d);
}

void cd_free(coeff_dict *d)
{
    free(d->v);
    free(d->slot);
    memset(d, 0, sizeof *d);
}

void fmt_sparse_free(cuzk_sparse *s)
{
    free(s->row_start);
    free(s->wire);
    free(s->coeff);
    memset(s, 0, sizeof *s);
}

void cuzk_matrices_free(cuzk_matrices *m)
{
    fmt_sparse_free(&m->a);
    fmt_sparse_free(&m->b);
    fmt_sparse_free(&m->c);
    free(m->coeffs);
    memset(m, 0, sizeof *m);
}

void cuzk_sparse_row_dot(cuzk_fr *out, const cuzk_sparse *s, const cuzk_fr *coeffs,
                         const cuzk_fr *w, uint64_t j)
{
    cuzk_fr acc = CUZK_FR_ZERO, t;
    for (uint64_t k = s->row_start[j]; k < s->row_start[j + 1]; k++) {
        const cuzk_fr *x = &w[s->wire[k]];
        uint32_t c = s->coeff[k];
        if (c == CUZK_COEFF_ONE) {
            cuzk_fr_add(&acc, &acc, x);
        } else if (c == CUZK_COEFF_MINUS_ONE) {
            cuzk_fr_sub(&acc, &acc, x);
        } else {
            cuzk_fr_mul(&t, &coeffs[c], x);
            cuzk_fr_add(&acc, &acc, &t);
        }
    }
    *out = acc;
}

/* ----------------------------------------------------- verifying keys -- */

void cuzk_vk_free(cuzk_vk *vk)
{
    if (!vk) return;
    free(vk->ic);
    memset(vk, 0, sizeof *vk);
}

cuzk_status cuzk_vk_copy(cuzk_vk *dst, const cuzk_vk *src)
{
    if (!dst || !src) return CUZK_ERR_INVALID_ARGUMENT;
    cuzk_g1_affine *ic = NULL;
    if (src->n_ic) {
        ic = malloc((size_t)src->n_ic * sizeof *ic);
        if (!ic) return CUZK_ERR_NO_MEMORY;
        memcpy(ic, src->ic, (size_t)src->n_ic * sizeof *ic);
    }
    *dst = *src;
    dst->ic = ic;
    return CUZK_OK;
}

int cuzk_vk_eq(const cuzk_vk *a, const cuzk_vk *b)
{
    if (!cuzk_g1_affine_eq(&a->alpha_g1, &b->alpha_g1) ||
        !cuzk_g2_affine_eq(&a->beta_g2, &b->beta_g2) ||
        !cuzk_g2_affine_eq(&a->gamma_g2, &b->gamma_g2) ||
        !cuzk_g2_affine_eq(&a->delta_g2, &b->delta_g2) || a->n_ic != b->n_ic)
        return 0;
    if (a->has_g1_extras && b->has_g1_extras &&
        (!cuzk_g1_affine_eq(&a->beta_g1, &b->beta_g1) ||
         !cuzk_g1_affine_eq(&a->delta_g1, &b->delta_g1)))
        return 0;
    for (uint32_t i = 0; i < a->n_ic; i++)
        if (!cuzk_g1_affine_eq(&a->ic[i], &b->ic[i])) return 0;
    return 1;
}
