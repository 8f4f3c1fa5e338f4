/* Proving keys: building the prover's form from the files people have. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuzk/groth16.h>

static void set_err(char *err, const char *fmt, const char *what, cuzk_status s)
{
    if (err) snprintf(err, CUZK_ERRMSG_LEN, fmt, what, cuzk_strerror(s));
}

static void sparse_free(cuzk_sparse *s)
{
    free(s->row_start);
    free(s->wire);
    free(s->coeff);
    memset(s, 0, sizeof *s);
}

static cuzk_status sparse_copy(cuzk_sparse *dst, const cuzk_sparse *src, uint64_t n_rows)
{
    memset(dst, 0, sizeof *dst);
    if (!src->row_start) return CUZK_OK; /* absent matrix */
    dst->n_terms = src->n_terms;
    dst->row_start = malloc((n_rows + 1) * sizeof *dst->row_start);
    dst->wire = malloc((src->n_terms ? src->n_terms : 1) * sizeof *dst->wire);
    dst->coeff = malloc((src->n_terms ? src->n_terms : 1) * sizeof *dst->coeff);
    if (!dst->row_start || !dst->wire || !dst->coeff) {
        sparse_free(dst);
        return CUZK_ERR_NO_MEMORY;
    }
    memcpy(dst->row_start, src->row_start, (n_rows + 1) * sizeof *dst->row_start);
    memcpy(dst->wire, src->wire, src->n_terms * sizeof *dst->wire);
    memcpy(dst->coeff, src->coeff, src->n_terms * sizeof *dst->coeff);
    return CUZK_OK;
}

static void matrices_free(cuzk_matrices *m)
{
    sparse_free(&m->a);
    sparse_free(&m->b);
    sparse_free(&m->c);
    free(m->coeffs);
    memset(m, 0, sizeof *m);
}

static cuzk_status matrices_copy(cuzk_matrices *dst, const cuzk_matrices *src)
{
    memset(dst, 0, sizeof *dst);
    dst->n_rows = src->n_rows;
    dst->n_coeffs = src->n_coeffs;
    dst->coeffs = malloc((src->n_coeffs ? src->n_coeffs : 1) * sizeof *dst->coeffs);
    if (!dst->coeffs) return CUZK_ERR_NO_MEMORY;
    memcpy(dst->coeffs, src->coeffs, src->n_coeffs * sizeof *dst->coeffs);
    cuzk_status s;
    if ((s = sparse_copy(&dst->a, &src->a, src->n_rows)) != CUZK_OK ||
        (s = sparse_copy(&dst->b, &src->b, src->n_rows)) != CUZK_OK ||
        (s = sparse_copy(&dst->c, &src->c, src->n_rows)) != CUZK_OK) {
        matrices_free(dst);
        return s;
    }
    return CUZK_OK;
}

void cuzk_groth16_pk_free(cuzk_groth16_pk *pk)
{
    if (!pk) return;
    cuzk_vk_free(&pk->vk);
    free(pk->a);
    free(pk->b1);
    free(pk->b2);
    free(pk->l);
    free(pk->h);
    matrices_free(&pk->m);
    memset(pk, 0, sizeof *pk);
}

/* Decodes a whole G1 (G2) view into a new array; names the section on error. */
static cuzk_status decode_g1(cuzk_g1_affine **out, const cuzk_points *v, unsigned nthreads,
                             const char *what, char *err)
{
    *out = malloc((v->n ? v->n : 1) * sizeof **out);
    if (!*out) return CUZK_ERR_NO_MEMORY;
    uint64_t bad = 0;
    cuzk_status s = cuzk_points_decode_g1(*out, v, 0, v->n, 0, nthreads, &bad);
    if (s != CUZK_OK && err)
        snprintf(err, CUZK_ERRMSG_LEN, "zkey: %s point %llu: %s", what, (unsigned long long)bad,
                 cuzk_strerror(s));
    return s;
}

static cuzk_status decode_g2(cuzk_g2_affine **out, const cuzk_points *v, unsigned nthreads,
                             const char *what, char *err)
{
    *out = malloc((v->n ? v->n : 1) * sizeof **out);
    if (!*out) return CUZK_ERR_NO_MEMORY;
    uint64_t bad = 0;
    cuzk_status s = cuzk_points_decode_g2(*out, v, 0, v->n, 0, nthreads, &bad);
    if (s != CUZK_OK && err)
        snprintf(err, CUZK_ERRMSG_LEN, "zkey: %s point %llu: %s", what, (unsigned long long)bad,
                 cuzk_strerror(s));
    return s;
}

cuzk_status cuzk_groth16_pk_from_zkey(cuzk_groth16_pk *pk, const cuzk_zkey *z,
                                      unsigned nthreads, char *err)
{
    if (!pk || !z) return CUZK_ERR_INVALID_ARGUMENT;
    memset(pk, 0, sizeof *pk);
    if (err) err[0] = 0;
    pk->roots = z->roots;
    pk->h_form = CUZK_H_LAGRANGE;
    pk->n_vars = z->n_vars;
    pk->n_public = z->n_public;
    pk->log_domain = z->log_domain;
    cuzk_status s = cuzk_vk_copy(&pk->vk, &z->vk);
    if (s != CUZK_OK) {
        set_err(err, "%s: %s", "zkey verifying key", s);
        goto fail;
    }
    if ((s = decode_g1(&pk->a, &z->a, nthreads, "A", err)) != CUZK_OK ||
        (s = decode_g1(&pk->b1, &z->b1, nthreads, "B1", err)) != CUZK_OK ||
        (s = decode_g2(&pk->b2, &z->b2, nthreads, "B2", err)) != CUZK_OK ||
        (s = decode_g1(&pk->l, &z->c, nthreads, "C", err)) != CUZK_OK ||
        (s = decode_g1(&pk->h, &z->h, nthreads, "H", err)) != CUZK_OK)
        goto fail;
    if ((s = matrices_copy(&pk->m, &z->m)) != CUZK_OK) {
        set_err(err, "%s: %s", "zkey coefficients", s);
        goto fail;
    }
    return CUZK_OK;
fail:
    if (s == CUZK_ERR_NO_MEMORY && err && !err[0]) set_err(err, "%s: %s", "zkey", s);
    cuzk_groth16_pk_free(pk);
    return s;
}
