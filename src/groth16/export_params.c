/* A proving key as a bellperson .params (+ .vk): the A vector of
 * cuzk_groth16_pk filtered by density, B as the pk holds it (already
 * filtered), as bellperson's generator writes them (formats.md §3.2, §5.2),
 * so that cuzk_groth16_pk_from_params (and bellperson, supraseal) read the
 * same key back. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuzk/groth16.h>

#include "groth16/groth16_internal.h"

static cuzk_status efail(char *err, cuzk_status s, const char *msg)
{
    if (err) snprintf(err, CUZK_ERRMSG_LEN, "params export: %s", msg);
    return s;
}

/* dens[w] = 1 for every wire with a nonzero coefficient in matrix s. */
static void mark(uint8_t *dens, const cuzk_sparse *s, const cuzk_matrices *m)
{
    for (uint64_t k = 0; k < s->n_terms; k++)
        if (!cuzk_fr_is_zero(&m->coeffs[s->coeff[k]])) dens[s->wire[k]] = 1;
}

cuzk_status cuzk_groth16_pk_write_params(const char *params_path, const char *vk_path,
                                         const cuzk_groth16_pk *pk, char *err)
{
    if (err) err[0] = 0;
    if (!params_path || !pk) return efail(err, CUZK_ERR_INVALID_ARGUMENT, "NULL argument");
    if (pk->h_form != CUZK_H_MONOMIAL || pk->roots != CUZK_ROOTS_BELLPERSON)
        return efail(err, CUZK_ERR_INVALID_ARGUMENT,
                     "a .params needs bellperson roots (7) and the monomial H query "
                     "(make the key with --roots bellperson)");
    if (!pk->m.a.row_start || !pk->m.b.row_start)
        return efail(err, CUZK_ERR_INVALID_ARGUMENT,
                     "the key has no matrices (the densities come from them)");
    uint32_t n = pk->n_vars, n_in = pk->n_public + 1;
    uint8_t *da = calloc(n, 1);
    uint32_t *db = NULL, nb = 0;
    cuzk_g1_affine *a = malloc(n * sizeof *a);
    cuzk_status s = CUZK_ERR_NO_MEMORY;
    if (!da || !a || g16_b_density(&db, &nb, &pk->m, n) != CUZK_OK) {
        efail(err, s, "out of memory");
        goto out;
    }
    /* bellperson writes b_g1/b_g2 over the B density: the pk's B must be
     * over exactly those variables. */
    if (nb != pk->n_b || (nb && memcmp(db, pk->b_var, nb * sizeof *db) != 0)) {
        uint32_t j = 0;
        while (j < nb && j < pk->n_b && db[j] == pk->b_var[j]) j++;
        s = CUZK_ERR_INVALID_ARGUMENT;
        if (err)
            snprintf(err, CUZK_ERRMSG_LEN,
                     "params export: the key's B variables (%u) are not the B density of its "
                     "matrices (%u variables; first difference at entry %u)",
                     pk->n_b, nb, j);
        goto out;
    }
    mark(da, &pk->m.a, &pk->m);
    memset(da, 1, n_in); /* the input rows: every input is in A */
    uint32_t na = 0;
    for (uint32_t i = 0; i < n; i++)
        if (da[i]) a[na++] = pk->a[i];
    cuzk_bp_params_src src = {&pk->vk, pk->h, pk->l, a, pk->b1, pk->b2,
                              (uint32_t)(((uint64_t)1 << pk->log_domain) - 1), n - n_in, na, nb};
    s = cuzk_bp_params_write_path(params_path, &src, err);
    if (s == CUZK_OK && vk_path) s = cuzk_bp_vk_write(vk_path, &pk->vk, err);
out:
    free(da);
    free(db);
    free(a);
    return s;
}
