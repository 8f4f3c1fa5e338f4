/* Proving keys: building the prover's form from the files people have. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include <cuzk/groth16.h>

#include "groth16/groth16_internal.h"

static void set_err(char *err, const char *fmt, const char *what, cuzk_status s)
{
    if (err) snprintf(err, CUZK_ERRMSG_LEN, fmt, what, cuzk_strerror(s));
}

/* dst = src with `extra` input rows appended: row n_rows + i is 1 * wire i
 * in A and empty in B and C (formats.md §5.1). An absent matrix stays
 * absent. On failure dst holds what was allocated: the caller frees it with
 * cuzk_matrices_free. */
static cuzk_status sparse_with_input_rows(cuzk_sparse *dst, const cuzk_sparse *src,
                                          uint64_t n_rows, uint32_t extra, int is_a)
{
    if (!src->row_start) return CUZK_OK;
    uint64_t n_terms = src->n_terms + (is_a ? extra : 0);
    dst->n_terms = n_terms;
    dst->row_start = malloc((n_rows + extra + 1) * sizeof *dst->row_start);
    dst->wire = malloc((n_terms ? n_terms : 1) * sizeof *dst->wire);
    dst->coeff = malloc((n_terms ? n_terms : 1) * sizeof *dst->coeff);
    if (!dst->row_start || !dst->wire || !dst->coeff) return CUZK_ERR_NO_MEMORY;
    memcpy(dst->row_start, src->row_start, (n_rows + 1) * sizeof *dst->row_start);
    memcpy(dst->wire, src->wire, src->n_terms * sizeof *dst->wire);
    memcpy(dst->coeff, src->coeff, src->n_terms * sizeof *dst->coeff);
    for (uint32_t i = 0; i < extra; i++) {
        uint64_t k = dst->row_start[n_rows + i];
        if (is_a) {
            dst->wire[k] = i;
            dst->coeff[k] = CUZK_COEFF_ONE;
            k++;
        }
        dst->row_start[n_rows + i + 1] = k;
    }
    return CUZK_OK;
}

cuzk_status g16_matrices_with_input_rows(cuzk_matrices *dst, const cuzk_matrices *src,
                                         uint32_t extra)
{
    memset(dst, 0, sizeof *dst);
    dst->n_rows = src->n_rows + extra;
    dst->n_coeffs = src->n_coeffs;
    dst->coeffs = malloc((src->n_coeffs ? src->n_coeffs : 1) * sizeof *dst->coeffs);
    if (!dst->coeffs) return CUZK_ERR_NO_MEMORY;
    memcpy(dst->coeffs, src->coeffs, src->n_coeffs * sizeof *dst->coeffs);
    cuzk_status s;
    if ((s = sparse_with_input_rows(&dst->a, &src->a, src->n_rows, extra, 1)) != CUZK_OK ||
        (s = sparse_with_input_rows(&dst->b, &src->b, src->n_rows, extra, 0)) != CUZK_OK ||
        (s = sparse_with_input_rows(&dst->c, &src->c, src->n_rows, extra, 0)) != CUZK_OK)
        return s;
    return CUZK_OK;
}

cuzk_status g16_b_density(uint32_t **b_var, uint32_t *n_b, const cuzk_matrices *m,
                          uint32_t n_vars)
{
    *b_var = NULL;
    *n_b = 0;
    uint8_t *d = calloc(n_vars ? n_vars : 1, 1);
    if (!d) return CUZK_ERR_NO_MEMORY;
    const cuzk_sparse *b = &m->b;
    if (b->row_start)
        for (uint64_t k = 0; k < b->n_terms; k++)
            if (b->wire[k] < n_vars && !cuzk_fr_is_zero(&m->coeffs[b->coeff[k]])) d[b->wire[k]] = 1;
    uint32_t n = 0;
    for (uint32_t i = 0; i < n_vars; i++) n += d[i];
    uint32_t *v = malloc((n ? n : 1) * sizeof *v);
    if (!v) {
        free(d);
        return CUZK_ERR_NO_MEMORY;
    }
    for (uint32_t i = 0, j = 0; i < n_vars; i++)
        if (d[i]) v[j++] = i;
    free(d);
    *b_var = v;
    *n_b = n;
    return CUZK_OK;
}

cuzk_status g16_os_random(void *buf, size_t n)
{
    size_t got = 0;
    while (got < n) {
        ssize_t k = getrandom((uint8_t *)buf + got, n - got, 0);
        if (k < 0) {
            if (errno == EINTR) continue;
            return CUZK_ERR_IO;
        }
        got += (size_t)k;
    }
    return CUZK_OK;
}

cuzk_status cuzk_groth16_pk_release_pages(const cuzk_groth16_pk *pk)
{
    return pk && pk->storage == CUZK_PK_MAPPED ? cuzk_blob_drop_pages(&pk->mapping_) : CUZK_OK;
}

void cuzk_groth16_pk_free(cuzk_groth16_pk *pk)
{
    if (!pk) return;
    if (pk->storage != CUZK_PK_OWNED) {
        /* The arrays (vk.ic and the matrices too) are views: into the
         * key's own mapping (released here) or someone else's memory. */
        if (pk->storage == CUZK_PK_MAPPED) cuzk_blob_release(&pk->mapping_);
        memset(pk, 0, sizeof *pk);
        return;
    }
    cuzk_vk_free(&pk->vk);
    free(pk->a);
    free(pk->b_var);
    free(pk->b1);
    free(pk->b2);
    free(pk->l);
    free(pk->h);
    cuzk_matrices_free(&pk->m);
    memset(pk, 0, sizeof *pk);
}

/* 1 if point i of a zcash view is all-zero bytes: how a snarkjs-exported
 * .params writes the identity, which bellperson's format does not allow;
 * the likely cause of an off-curve point when that export is read as a
 * bellperson file. */
static int zero_zcash(const cuzk_points *v, uint64_t i)
{
    if (v->enc != CUZK_ENC_ZCASH || i >= v->n) return 0;
    size_t sz = v->g2 ? 192 : 96;
    const uint8_t *b = v->bytes + i * sz;
    for (size_t k = 0; k < sz; k++)
        if (b[k]) return 0;
    return 1;
}

/* Decodes view v (n points) and spreads them over the n_vars slots whose
 * dens[] is set (when dens is NULL, n_vars = v->n and every slot is used);
 * the other slots are identity. Errors name the file and the vector.
 * Without dens and with n_vars = v->n (a .zkey) the points are decoded
 * straight into *out: no second array to fill and copy. */
#define EXPAND(NAME, AFF, DECODE)                                                           \
    static cuzk_status NAME(AFF **out, const cuzk_points *v, const uint8_t *dens,            \
                            uint64_t n_vars, unsigned nthreads, const char *file,            \
                            const char *what, char *err)                                     \
    {                                                                                        \
        AFF *tmp;                                                                            \
        int direct = !dens && v->n == n_vars;                                                \
        if (direct) {                                                                        \
            tmp = *out = malloc((n_vars ? n_vars : 1) * sizeof **out);                       \
        } else {                                                                             \
            tmp = malloc((v->n ? v->n : 1) * sizeof *tmp);                                   \
            *out = calloc(n_vars ? n_vars : 1, sizeof **out);                                \
        }                                                                                    \
        if (!tmp || !*out) {                                                                 \
            if (tmp != *out) free(tmp);                                                      \
            return CUZK_ERR_NO_MEMORY;                                                       \
        }                                                                                    \
        uint64_t bad = 0;                                                                    \
        cuzk_status s = DECODE(tmp, v, 0, v->n, 0, nthreads, &bad);                          \
        if (s != CUZK_OK) {                                                                  \
            if (err)                                                                         \
                snprintf(err, CUZK_ERRMSG_LEN, "%s: %s point %llu: %s%s", file, what,      \
                         (unsigned long long)bad, cuzk_strerror(s),                          \
                         zero_zcash(v, bad) ? " (all-zero bytes: the identity as `snarkjs "  \
                                              "zkey export bellman` writes it; such a file " \
                                              "needs --snarkjs-export)" : "");               \
            if (tmp != *out) free(tmp);                                                      \
            return s;                                                                        \
        }                                                                                    \
        if (direct) return CUZK_OK;                                                          \
        for (uint64_t i = 0, k = 0; i < n_vars && k < v->n; i++)                             \
            if (!dens || dens[i]) (*out)[i] = tmp[k++];                                      \
        free(tmp);                                                                           \
        return CUZK_OK;                                                                      \
    }
EXPAND(expand_g1, cuzk_g1_affine, cuzk_points_decode_g1)
EXPAND(expand_g2, cuzk_g2_affine, cuzk_points_decode_g2)

/* Filters the dense pk->b1, pk->b2 (n_vars points each) in place: keeps
 * the variables whose B1 or B2 is not the identity, lists them in
 * pk->b_var and shrinks the arrays to n_b. */
static cuzk_status filter_b(cuzk_groth16_pk *pk)
{
    uint32_t n = pk->n_vars, nb = 0;
    for (uint32_t i = 0; i < n; i++)
        nb += !cuzk_g1_affine_is_inf(&pk->b1[i]) || !cuzk_g2_affine_is_inf(&pk->b2[i]);
    if (!(pk->b_var = malloc((nb ? nb : 1) * sizeof *pk->b_var))) return CUZK_ERR_NO_MEMORY;
    for (uint32_t i = 0, j = 0; i < n; i++) {
        if (cuzk_g1_affine_is_inf(&pk->b1[i]) && cuzk_g2_affine_is_inf(&pk->b2[i])) continue;
        pk->b_var[j] = i;
        pk->b1[j] = pk->b1[i]; /* j <= i: moves down only */
        pk->b2[j] = pk->b2[i];
        j++;
    }
    pk->n_b = nb;
    /* Shrinking: a failure leaves the larger block, still valid. */
    void *p1 = realloc(pk->b1, (nb ? nb : 1) * sizeof *pk->b1);
    if (p1) pk->b1 = p1;
    void *p2 = realloc(pk->b2, (nb ? nb : 1) * sizeof *pk->b2);
    if (p2) pk->b2 = p2;
    return CUZK_OK;
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
    if ((s = expand_g1(&pk->a, &z->a, NULL, z->a.n, nthreads, "zkey", "A", err)) != CUZK_OK ||
        (s = expand_g1(&pk->b1, &z->b1, NULL, z->b1.n, nthreads, "zkey", "B1", err)) != CUZK_OK ||
        (s = expand_g2(&pk->b2, &z->b2, NULL, z->b2.n, nthreads, "zkey", "B2", err)) != CUZK_OK ||
        (s = expand_g1(&pk->l, &z->c, NULL, z->c.n, nthreads, "zkey", "C", err)) != CUZK_OK ||
        (s = expand_g1(&pk->h, &z->h, NULL, z->h.n, nthreads, "zkey", "H", err)) != CUZK_OK)
        goto fail;
    if (z->b1.n != pk->n_vars || z->b2.n != pk->n_vars) {
        s = CUZK_ERR_BAD_ENCODING;
        if (err)
            snprintf(err, CUZK_ERRMSG_LEN, "zkey: B1/B2 have %llu/%llu points for %u variables",
                     (unsigned long long)z->b1.n, (unsigned long long)z->b2.n, pk->n_vars);
        goto fail;
    }
    if ((s = filter_b(pk)) != CUZK_OK) goto fail;
    if ((s = g16_matrices_with_input_rows(&pk->m, &z->m, 0)) != CUZK_OK) {
        set_err(err, "%s: %s", "zkey coefficients", s);
        goto fail;
    }
    return CUZK_OK;
fail:
    if (s == CUZK_ERR_NO_MEMORY && err && !err[0]) set_err(err, "%s: %s", "zkey", s);
    cuzk_groth16_pk_free(pk);
    return s;
}

/* ------------------------------------------------ bellperson .params -- */

/* Marks in dens[] every wire with a nonzero coefficient in matrix s. */
static void mark_density(uint8_t *dens, const cuzk_sparse *s, const cuzk_matrices *m)
{
    for (uint64_t k = 0; k < s->n_terms; k++)
        if (!cuzk_fr_is_zero(&m->coeffs[s->coeff[k]])) dens[s->wire[k]] = 1;
}

static cuzk_status params_err(char *err, cuzk_status s, const char *fmt, uint64_t a, uint64_t b)
{
    if (err) {
        int k = snprintf(err, CUZK_ERRMSG_LEN, "params: ");
        snprintf(err + k, CUZK_ERRMSG_LEN - (size_t)k, fmt, (unsigned long long)a,
                 (unsigned long long)b);
    }
    return s;
}


cuzk_status cuzk_groth16_pk_from_params(cuzk_groth16_pk *pk, const cuzk_bp_params *p,
                                        const cuzk_r1cs *r, unsigned nthreads, char *err)
{
    if (!pk || !p || !r) return CUZK_ERR_INVALID_ARGUMENT;
    memset(pk, 0, sizeof *pk);
    if (err) err[0] = 0;
    uint32_t n_in = r->n_public + 1, n_vars = r->n_wires;
    uint64_t n_rows = (uint64_t)r->n_constraints + n_in;
    if (p->vk.n_ic != n_in)
        return params_err(err, CUZK_ERR_BAD_ENCODING,
                          "the key has %llu IC points but the circuit has %llu inputs",
                          p->vk.n_ic, n_in);
    if (p->l.n != (uint64_t)n_vars - n_in)
        return params_err(err, CUZK_ERR_BAD_ENCODING,
                          "the key has %llu L points but the circuit has %llu private variables",
                          p->l.n, (uint64_t)n_vars - n_in);
    if (p->domain_size < n_rows)
        return params_err(err, CUZK_ERR_BAD_ENCODING,
                          "the key's domain (%llu) is smaller than the circuit's %llu rows",
                          p->domain_size, n_rows);

    /* Densities (bellperson's filter of the a, b_g1, b_g2 vectors). */
    uint8_t *da = calloc(n_vars ? n_vars : 1, 1);
    uint32_t *b_var = NULL, nb = 0;
    cuzk_status s = CUZK_ERR_NO_MEMORY;
    if (!da || g16_b_density(&b_var, &nb, &r->m, n_vars) != CUZK_OK) goto fail;
    mark_density(da, &r->m.a, &r->m);
    memset(da, 1, n_in); /* the input rows put every input in A */
    uint64_t na = 0;
    for (uint32_t i = 0; i < n_vars; i++) na += da[i];
    int dense = p->a.n == n_vars && p->b_g1.n == n_vars;
    if (!dense && (p->a.n != na || p->b_g1.n != nb || p->b_g2.n != nb)) {
        s = params_err(err, CUZK_ERR_BAD_ENCODING,
                       "the key's A/B vectors (%llu/%llu points) do not match the circuit's "
                       "densities",
                       p->a.n, p->b_g1.n);
        goto fail;
    }
    pk->roots = p->roots;
    pk->h_form = CUZK_H_MONOMIAL;
    pk->n_vars = n_vars;
    pk->n_public = r->n_public;
    for (pk->log_domain = 0; ((uint64_t)1 << pk->log_domain) < p->domain_size; pk->log_domain++)
        ;
    if ((s = cuzk_vk_copy(&pk->vk, &p->vk)) != CUZK_OK ||
        (s = expand_g1(&pk->a, &p->a, dense ? NULL : da, n_vars, nthreads, "params", "a",
                       err)) != CUZK_OK ||
        (s = expand_g1(&pk->b1, &p->b_g1, NULL, p->b_g1.n, nthreads, "params", "b_g1",
                       err)) != CUZK_OK ||
        (s = expand_g2(&pk->b2, &p->b_g2, NULL, p->b_g2.n, nthreads, "params", "b_g2",
                       err)) != CUZK_OK ||
        (s = expand_g1(&pk->l, &p->l, NULL, p->l.n, nthreads, "params", "l", err)) != CUZK_OK ||
        (s = expand_g1(&pk->h, &p->h, NULL, p->h.n, nthreads, "params", "h", err)) != CUZK_OK)
        goto fail;
    if (dense) { /* a snarkjs export: B by its identity points */
        if ((s = filter_b(pk)) != CUZK_OK) goto fail;
    } else { /* bellperson's filter: B by the density */
        pk->b_var = b_var;
        pk->n_b = nb;
        b_var = NULL;
    }

    /* The circuit's rows plus the input rows. */
    if ((s = g16_matrices_with_input_rows(&pk->m, &r->m, n_in)) != CUZK_OK) goto fail;
    free(da);
    free(b_var);
    return CUZK_OK;
fail:
    if (s == CUZK_ERR_NO_MEMORY && err && !err[0]) set_err(err, "%s: %s", "params", s);
    free(da);
    free(b_var);
    cuzk_groth16_pk_free(pk);
    return s;
}

/* ----------------------------------------------------- .zkey output -- */

cuzk_status cuzk_zkey_write_pk(const char *path, const cuzk_groth16_pk *pk, const uint8_t *mpc,
                               size_t mpc_len, char *err)
{
    if (err) err[0] = 0;
    if (!path || !pk || (!mpc && mpc_len)) {
        if (err) snprintf(err, CUZK_ERRMSG_LEN, "zkey writer: NULL argument");
        return CUZK_ERR_INVALID_ARGUMENT;
    }
    if (pk->roots != CUZK_ROOTS_SNARKJS || pk->h_form != CUZK_H_LAGRANGE || pk->log_domain > 31) {
        if (err)
            snprintf(err, CUZK_ERRMSG_LEN,
                     "zkey writer: the key has %s roots, a %s H query and domain 2^%u; a .zkey "
                     "needs snarkjs roots (5), the Lagrange H query and a domain <= 2^31",
                     pk->roots == CUZK_ROOTS_SNARKJS ? "snarkjs (5)" : "bellperson (7)",
                     pk->h_form == CUZK_H_LAGRANGE ? "Lagrange" : "monomial", pk->log_domain);
        return CUZK_ERR_INVALID_ARGUMENT;
    }
    if (!pk->b_var) {
        if (err) snprintf(err, CUZK_ERRMSG_LEN, "zkey writer: the key has no B variable list");
        return CUZK_ERR_INVALID_ARGUMENT;
    }
    cuzk_zkey_src src = {
        .n_vars = pk->n_vars,
        .n_public = pk->n_public,
        .domain_size = (uint32_t)1 << pk->log_domain,
        .vk = &pk->vk,
        .m = &pk->m,
        .a = pk->a,
        .b1 = pk->b1,
        .b2 = pk->b2,
        .b_var = pk->b_var, /* expanded to dense while writing */
        .n_b = pk->n_b,
        .c = pk->l,
        .h = pk->h,
        .mpc = mpc,
        .mpc_size = mpc_len,
        .cs_hash = NULL,
    };
    return cuzk_zkey_write(path, &src, err);
}
