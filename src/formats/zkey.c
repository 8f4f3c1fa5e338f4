/* snarkjs Groth16 .zkey (formats.md §9).
 *
 *   1  u32 protocol (1 = Groth16)
 *   2  Groth16 header, 964 bytes: n8q, q, n8r, r, nVars, nPublic, domainSize,
 *      alpha1, beta1, beta2, gamma2, delta1, delta2 (LEM points)
 *   3  IC: nPublic + 1 G1
 *   4  u32 nCoef, nCoef x {u32 matrix, u32 row, u32 signal, value[32]},
 *      value = c R^2 mod r (LE)
 *   5  A: nVars G1      6  B1: nVars G1      7  B2: nVars G2
 *   8  C: nVars - nPublic - 1 G1            9  H: domainSize G1
 *   10 MPC contributions (kept raw)
 *
 * Point sections are checked for size before section 4 is read, so every
 * allocation (CSR rows <= domainSize, terms <= nCoef) is bounded by the
 * file size. */
#include <stdlib.h>

#include "formats/fmt_internal.h"

static const char *const ZKEY_NAMES[] = {
    NULL,       "header",    "Groth16 header", "IC",       "coefficients", "A points",
    "B1 points", "B2 points", "C points",      "H points", "contributions"};
#define N_NAMES (sizeof ZKEY_NAMES / sizeof ZKEY_NAMES[0])

#define HDR2_SIZE 964u
#define COEF_REC 44u

/* Decodes a header point (fully checked, identity rejected). */
static cuzk_status hdr_g1(cuzk_g1_affine *r, const uint8_t *p, const char *name, char *err)
{
    cuzk_status s = cuzk_g1_from_lem(r, p, CUZK_DECODE_SUBGROUP);
    if (s != CUZK_OK) return fmt_fail(err, s, "zkey: header point %s: %s", name, cuzk_strerror(s));
    if (cuzk_g1_affine_is_inf(r))
        return fmt_fail(err, CUZK_ERR_BAD_ENCODING, "zkey: header point %s is the identity", name);
    return CUZK_OK;
}

static cuzk_status hdr_g2(cuzk_g2_affine *r, const uint8_t *p, const char *name, char *err)
{
    cuzk_status s = cuzk_g2_from_lem(r, p, CUZK_DECODE_SUBGROUP);
    if (s != CUZK_OK) return fmt_fail(err, s, "zkey: header point %s: %s", name, cuzk_strerror(s));
    if (cuzk_g2_affine_is_inf(r))
        return fmt_fail(err, CUZK_ERR_BAD_ENCODING, "zkey: header point %s is the identity", name);
    return CUZK_OK;
}

static cuzk_status read_groth_header(cuzk_zkey *z, const uint8_t *p, uint64_t n, char *err)
{
    cuzk_status s;
    if (n < 4)
        return fmt_fail(err, CUZK_ERR_TRUNCATED, "zkey: section 2 (Groth16 header) is %llu "
                        "bytes short of %u", (unsigned long long)(HDR2_SIZE - n), HDR2_SIZE);
    uint32_t n8q = rd_u32le(p);
    if (n8q != 48) {
        if (n8q <= n - 4)
            return fmt_wrong_prime(err, "zkey: base field q", p + 4, n8q, PRIME_BLS_Q);
        return fmt_fail(err, CUZK_ERR_BAD_ENCODING,
                        "zkey: base field is %u bytes, expected 48 (BLS12-381)", n8q);
    }
    if (n < 56)
        return fmt_fail(err, CUZK_ERR_TRUNCATED, "zkey: section 2 (Groth16 header) is %llu "
                        "bytes short of %u", (unsigned long long)(HDR2_SIZE - n), HDR2_SIZE);
    if (fmt_prime_id(p + 4, 48) != PRIME_BLS_Q)
        return fmt_wrong_prime(err, "zkey: base field q", p + 4, 48, PRIME_BLS_Q);
    uint32_t n8r = rd_u32le(p + 52);
    if (n8r != 32 || n < 88 || fmt_prime_id(p + 56, 32) != PRIME_BLS_R) {
        if (n8r <= n - 56)
            return fmt_wrong_prime(err, "zkey: scalar field r", p + 56, n8r, PRIME_BLS_R);
        if (n8r == 32)
            return fmt_fail(err, CUZK_ERR_TRUNCATED, "zkey: section 2 (Groth16 header) is "
                            "%llu bytes short of %u", (unsigned long long)(HDR2_SIZE - n),
                            HDR2_SIZE);
        return fmt_fail(err, CUZK_ERR_BAD_ENCODING, "zkey: scalar field is %u bytes, expected 32",
                        n8r);
    }
    if (n != HDR2_SIZE) {
        if (n < HDR2_SIZE)
            return fmt_fail(err, CUZK_ERR_TRUNCATED, "zkey: section 2 (Groth16 header) is "
                            "%llu bytes short of %u", (unsigned long long)(HDR2_SIZE - n),
                            HDR2_SIZE);
        return fmt_fail(err, CUZK_ERR_BAD_ENCODING, "zkey: section 2 (Groth16 header) is %llu "
                        "bytes, expected %u", (unsigned long long)n, HDR2_SIZE);
    }
    z->n_vars = rd_u32le(p + 88);
    z->n_public = rd_u32le(p + 92);
    z->domain_size = rd_u32le(p + 96);
    if ((uint64_t)z->n_public + 1 > z->n_vars)
        return fmt_fail(err, CUZK_ERR_BAD_ENCODING,
                        "zkey: nPublic %u + 1 exceeds nVars %u", z->n_public, z->n_vars);
    if (!is_pow2_u64(z->domain_size))
        return fmt_fail(err, CUZK_ERR_BAD_ENCODING,
                        "zkey: domain size %u is not a power of two", z->domain_size);
    z->log_domain = log2_u64(z->domain_size);
    cuzk_vk *vk = &z->vk;
    if ((s = hdr_g1(&vk->alpha_g1, p + 100, "alpha1", err)) != CUZK_OK) return s;
    if ((s = hdr_g1(&vk->beta_g1, p + 196, "beta1", err)) != CUZK_OK) return s;
    if ((s = hdr_g2(&vk->beta_g2, p + 292, "beta2", err)) != CUZK_OK) return s;
    if ((s = hdr_g2(&vk->gamma_g2, p + 484, "gamma2", err)) != CUZK_OK) return s;
    if ((s = hdr_g1(&vk->delta_g1, p + 676, "delta1", err)) != CUZK_OK) return s;
    if ((s = hdr_g2(&vk->delta_g2, p + 772, "delta2", err)) != CUZK_OK) return s;
    vk->has_g1_extras = 1;
    return CUZK_OK;
}

/* Looks up a point section and checks its exact size. */
static cuzk_status point_section(cuzk_points *v, const cuzk_bin *bin, uint32_t type,
                                 uint64_t count, int g2, char *err)
{
    const uint8_t *p;
    uint64_t n;
    cuzk_status s = fmt_bin_get(bin, type, 1, ZKEY_NAMES, N_NAMES, &p, &n, err);
    if (s != CUZK_OK) return s;
    uint64_t need = count * (g2 ? 192 : 96);
    if (n != need) {
        if (n < need)
            return fmt_fail(err, CUZK_ERR_TRUNCATED,
                            "zkey: section %u (%s) is %llu bytes short of %llu (%llu points)",
                            type, ZKEY_NAMES[type], (unsigned long long)(need - n),
                            (unsigned long long)need, (unsigned long long)count);
        return fmt_fail(err, CUZK_ERR_BAD_ENCODING,
                        "zkey: section %u (%s) is %llu bytes, expected %llu (%llu points)", type,
                        ZKEY_NAMES[type], (unsigned long long)n, (unsigned long long)need,
                        (unsigned long long)count);
    }
    *v = (cuzk_points){p, count, (uint8_t)g2, CUZK_ENC_LEM, 1};
    return CUZK_OK;
}

/* Decodes a section 4 value (c R^2, LE) into Montgomery c: reading the
 * bytes as a Montgomery representative gives the element c R; one
 * Montgomery multiplication by the raw representative 1 divides by R. */
static cuzk_status coef_value(cuzk_fr *c, const uint8_t *b)
{
    static const cuzk_fr RAW_ONE = {{1, 0, 0, 0}};
    cuzk_fr e;
    cuzk_status s = cuzk_fr_from_lem(&e, b);
    if (s != CUZK_OK) return s;
    cuzk_fr_mul(c, &e, &RAW_ONE);
    return CUZK_OK;
}

static cuzk_status read_coefficients(cuzk_zkey *z, const uint8_t *p, uint64_t n, char *err)
{
    if (n < 4)
        return fmt_fail(err, CUZK_ERR_TRUNCATED, "zkey: section 4 (coefficients) is %llu bytes, "
                        "too short for its count", (unsigned long long)n);
    uint32_t nc = rd_u32le(p);
    uint64_t need = 4 + (uint64_t)nc * COEF_REC;
    if (n != need)
        return fmt_fail(err, n < need ? CUZK_ERR_TRUNCATED : CUZK_ERR_BAD_ENCODING,
                        "zkey: section 4 (coefficients) is %llu bytes, expected %llu (%u records)",
                        (unsigned long long)n, (unsigned long long)need, nc);
    z->coef_bytes = p + 4;
    z->n_coef_records = nc;
    const uint8_t *rec = p + 4;

    /* Pass 1: validate, find the row count and the term counts. */
    uint64_t max_row = 0, counts[2] = {0, 0};
    for (uint32_t i = 0; i < nc; i++) {
        const uint8_t *r = rec + (uint64_t)i * COEF_REC;
        uint32_t m = rd_u32le(r), row = rd_u32le(r + 4), sig = rd_u32le(r + 8);
        if (m > 1)
            return fmt_fail(err, CUZK_ERR_BAD_ENCODING,
                            "zkey: coefficient %u: matrix %u (only 0 = A and 1 = B exist)", i, m);
        if (row >= z->domain_size)
            return fmt_fail(err, CUZK_ERR_BAD_ENCODING,
                            "zkey: coefficient %u: row %u is outside the domain of %u", i, row,
                            z->domain_size);
        if (sig >= z->n_vars)
            return fmt_fail(err, CUZK_ERR_BAD_ENCODING,
                            "zkey: coefficient %u: signal %u out of range (%u signals)", i, sig,
                            z->n_vars);
        if (!fr_le_is_canonical(r + 12))
            return fmt_fail(err, CUZK_ERR_NOT_CANONICAL,
                            "zkey: coefficient %u: value is not canonical (>= r)", i);
        if (row > max_row) max_row = row;
        counts[m]++;
    }
    uint64_t n_in = (uint64_t)z->n_public + 1;
    uint64_t n_rows = nc ? max_row + 1 : 0;
    if (n_rows < n_in)
        return fmt_fail(err, CUZK_ERR_BAD_ENCODING,
                        "zkey: section 4 has %llu rows, fewer than the %llu input rows",
                        (unsigned long long)n_rows, (unsigned long long)n_in);
    z->n_constraints = (uint32_t)(n_rows - n_in);
    z->m.n_rows = n_rows;

    /* Pass 2: counting sort by row (stable: file order within a row). */
    cuzk_sparse *mat[2] = {&z->m.a, &z->m.b};
    for (int m = 0; m < 2; m++) {
        mat[m]->n_terms = counts[m];
        mat[m]->row_start = calloc((size_t)n_rows + 1, sizeof(uint64_t));
        mat[m]->wire = malloc((size_t)(counts[m] ? counts[m] : 1) * sizeof(uint32_t));
        mat[m]->coeff = malloc((size_t)(counts[m] ? counts[m] : 1) * sizeof(uint32_t));
        if (!mat[m]->row_start || !mat[m]->wire || !mat[m]->coeff)
            return fmt_fail(err, CUZK_ERR_NO_MEMORY, "zkey: out of memory for %llu coefficients",
                            (unsigned long long)counts[m]);
    }
    for (uint32_t i = 0; i < nc; i++) {
        const uint8_t *r = rec + (uint64_t)i * COEF_REC;
        mat[rd_u32le(r)]->row_start[rd_u32le(r + 4) + 1]++;
    }
    for (int m = 0; m < 2; m++)
        for (uint64_t j = 0; j < n_rows; j++) mat[m]->row_start[j + 1] += mat[m]->row_start[j];

    /* The stored values of 1 and -1 (R^2 and -R^2), to skip the lookup. */
    uint8_t one_b[32], m1_b[32];
    cuzk_fr rval, t;
    cuzk_fr_from_limbs(&rval, CUZK_FR_ONE.l); /* the element R, representative R^2 */
    cuzk_fr_to_lem(one_b, &rval);
    cuzk_fr_neg(&t, &rval);
    cuzk_fr_to_lem(m1_b, &t);

    coeff_dict d;
    if (cd_init(&d) != CUZK_OK) return fmt_fail(err, CUZK_ERR_NO_MEMORY, "zkey: out of memory");
    for (uint32_t i = 0; i < nc; i++) {
        const uint8_t *r = rec + (uint64_t)i * COEF_REC;
        cuzk_sparse *sp = mat[rd_u32le(r)];
        uint64_t k = sp->row_start[rd_u32le(r + 4)]++;
        uint32_t idx;
        if (!memcmp(r + 12, one_b, 32)) {
            idx = CUZK_COEFF_ONE;
        } else if (!memcmp(r + 12, m1_b, 32)) {
            idx = CUZK_COEFF_MINUS_ONE;
        } else {
            cuzk_fr c;
            coef_value(&c, r + 12); /* canonical: checked by pass 1 */
            idx = cd_intern(&d, &c);
            if (idx == UINT32_MAX) {
                cd_free(&d);
                return fmt_fail(err, CUZK_ERR_NO_MEMORY, "zkey: out of memory for coefficients");
            }
        }
        sp->wire[k] = rd_u32le(r + 8);
        sp->coeff[k] = idx;
    }
    cd_finish(&d, &z->m);
    for (int m = 0; m < 2; m++) { /* the cursors now hold row ends: shift back */
        for (uint64_t j = n_rows; j > 0; j--) mat[m]->row_start[j] = mat[m]->row_start[j - 1];
        mat[m]->row_start[0] = 0;
    }

    /* The input rows: A row n_constraints + s is exactly 1 * signal s. */
    for (uint64_t s = 0; s < n_in; s++) {
        uint64_t j = z->n_constraints + s;
        const cuzk_sparse *a = &z->m.a, *b = &z->m.b;
        if (a->row_start[j + 1] - a->row_start[j] != 1 || a->wire[a->row_start[j]] != s ||
            a->coeff[a->row_start[j]] != CUZK_COEFF_ONE || b->row_start[j + 1] != b->row_start[j])
            return fmt_fail(err, CUZK_ERR_BAD_ENCODING,
                            "zkey: section 4: row %llu should be the input row 1 * signal %llu",
                            (unsigned long long)j, (unsigned long long)s);
    }
    return CUZK_OK; /* n_rows <= domain_size: every row was checked < domain_size */
}

cuzk_status cuzk_zkey_parse(cuzk_zkey *z, const uint8_t *data, size_t size, unsigned flags,
                            char *err)
{
    cuzk_bin bin;
    cuzk_status s;
    const uint8_t *p;
    uint64_t n;

    fmt_clear(err);
    if (!z || (!data && size))
        return fmt_fail(err, CUZK_ERR_INVALID_ARGUMENT, "zkey: NULL argument");
    memset(z, 0, sizeof *z);
    z->roots = CUZK_ROOTS_SNARKJS;
    if ((s = fmt_bin_open(&bin, data, size, "zkey", 2, ZKEY_NAMES, N_NAMES, err)) != CUZK_OK)
        return s;

    if ((s = fmt_bin_get(&bin, 1, 1, ZKEY_NAMES, N_NAMES, &p, &n, err)) != CUZK_OK) goto fail;
    if (n != 4) {
        s = fmt_fail(err, n < 4 ? CUZK_ERR_TRUNCATED : CUZK_ERR_BAD_ENCODING,
                     "zkey: section 1 (header) is %llu bytes, expected 4", (unsigned long long)n);
        goto fail;
    }
    uint32_t proto = rd_u32le(p);
    if (proto != 1) {
        const char *name = proto == 2 ? " (PLONK)" : proto == 10 ? " (FFLONK)" : "";
        s = fmt_fail(err, CUZK_ERR_BAD_ENCODING, "zkey: protocol %u%s is not Groth16 (1)", proto,
                     name);
        goto fail;
    }

    if ((s = fmt_bin_get(&bin, 2, 1, ZKEY_NAMES, N_NAMES, &p, &n, err)) != CUZK_OK) goto fail;
    if ((s = read_groth_header(z, p, n, err)) != CUZK_OK) goto fail;

    /* Sizes of every point section first: they bound the rest. */
    uint64_t n_priv = (uint64_t)z->n_vars - z->n_public - 1;
    cuzk_points ic;
    if ((s = point_section(&ic, &bin, 3, (uint64_t)z->n_public + 1, 0, err)) != CUZK_OK ||
        (s = point_section(&z->a, &bin, 5, z->n_vars, 0, err)) != CUZK_OK ||
        (s = point_section(&z->b1, &bin, 6, z->n_vars, 0, err)) != CUZK_OK ||
        (s = point_section(&z->b2, &bin, 7, z->n_vars, 1, err)) != CUZK_OK ||
        (s = point_section(&z->c, &bin, 8, n_priv, 0, err)) != CUZK_OK ||
        (s = point_section(&z->h, &bin, 9, z->domain_size, 0, err)) != CUZK_OK)
        goto fail;

    z->vk.n_ic = z->n_public + 1;
    z->vk.ic = malloc((size_t)z->vk.n_ic * sizeof *z->vk.ic);
    if (!z->vk.ic) {
        s = fmt_fail(err, CUZK_ERR_NO_MEMORY, "zkey: out of memory");
        goto fail;
    }
    for (uint32_t i = 0; i < z->vk.n_ic; i++) {
        if ((s = fmt_point_decode(&z->vk.ic[i], &ic, i, 1)) != CUZK_OK) {
            fmt_fail(err, s, "zkey: IC point %u: %s", i, cuzk_strerror(s));
            goto fail;
        }
    }

    if ((s = fmt_bin_get(&bin, 4, 1, ZKEY_NAMES, N_NAMES, &p, &n, err)) != CUZK_OK) goto fail;
    if ((s = read_coefficients(z, p, n, err)) != CUZK_OK) goto fail;

    if ((s = fmt_bin_get(&bin, 10, 0, ZKEY_NAMES, N_NAMES, &p, &n, err)) != CUZK_OK) goto fail;
    z->mpc = p;
    z->mpc_size = n;

    if (!(flags & CUZK_FMT_TRUST_POINTS)) {
        int sg = !!(flags & CUZK_FMT_SUBGROUP);
        if ((s = fmt_points_check_msg(&z->a, sg, "zkey", "section 5 (A)", err)) != CUZK_OK ||
            (s = fmt_points_check_msg(&z->b1, sg, "zkey", "section 6 (B1)", err)) != CUZK_OK ||
            (s = fmt_points_check_msg(&z->b2, sg, "zkey", "section 7 (B2)", err)) != CUZK_OK ||
            (s = fmt_points_check_msg(&z->c, sg, "zkey", "section 8 (C)", err)) != CUZK_OK ||
            (s = fmt_points_check_msg(&z->h, sg, "zkey", "section 9 (H)", err)) != CUZK_OK)
            goto fail;
    }
    cuzk_bin_free(&bin);
    return CUZK_OK;

fail:
    cuzk_bin_free(&bin);
    cuzk_zkey_free(z);
    return s;
}

void cuzk_zkey_free(cuzk_zkey *z)
{
    if (!z) return;
    cuzk_vk_free(&z->vk);
    cuzk_matrices_free(&z->m);
    memset(z, 0, sizeof *z);
}

/* ------------------------------------------------------ zkey vs r1cs -- */

typedef struct {
    uint32_t wire;
    cuzk_fr v;
} term;

static int term_cmp(const void *x, const void *y)
{
    const term *a = x, *b = y;
    if (a->wire != b->wire) return a->wire < b->wire ? -1 : 1;
    return memcmp(&a->v, &b->v, sizeof a->v);
}

/* Loads row j of s (values from coeffs) into t, sorted. Returns the count. */
static uint64_t load_row(term *t, const cuzk_sparse *s, const cuzk_fr *coeffs, uint64_t j)
{
    uint64_t n = 0;
    for (uint64_t k = s->row_start[j]; k < s->row_start[j + 1]; k++, n++)
        t[n] = (term){s->wire[k], coeffs[s->coeff[k]]};
    qsort(t, n, sizeof *t, term_cmp);
    return n;
}

cuzk_status cuzk_zkey_check_r1cs(const cuzk_zkey *z, const cuzk_r1cs *r, char *err)
{
    fmt_clear(err);
    if (!z || !r) return fmt_fail(err, CUZK_ERR_INVALID_ARGUMENT, "zkey/r1cs: NULL argument");
    if (z->n_vars != r->n_wires || z->n_public != r->n_public ||
        z->n_constraints != r->n_constraints)
        return fmt_fail(err, CUZK_ERR_BAD_ENCODING,
                        "zkey/r1cs mismatch: zkey has %u signals, %u public, %u constraints; "
                        "r1cs has %u, %u, %u", z->n_vars, z->n_public, z->n_constraints,
                        r->n_wires, r->n_public, r->n_constraints);
    uint64_t longest = 1;
    const cuzk_sparse *zm[2] = {&z->m.a, &z->m.b}, *rm[2] = {&r->m.a, &r->m.b};
    for (int m = 0; m < 2; m++)
        for (uint64_t j = 0; j < r->n_constraints; j++) {
            uint64_t lz = zm[m]->row_start[j + 1] - zm[m]->row_start[j];
            uint64_t lr = rm[m]->row_start[j + 1] - rm[m]->row_start[j];
            if (lz > longest) longest = lz;
            if (lr > longest) longest = lr;
        }
    term *tz = malloc(longest * sizeof *tz), *tr = malloc(longest * sizeof *tr);
    cuzk_status s = CUZK_OK;
    if (!tz || !tr) {
        s = fmt_fail(err, CUZK_ERR_NO_MEMORY, "zkey/r1cs: out of memory");
        goto done;
    }
    for (int m = 0; m < 2; m++)
        for (uint64_t j = 0; j < r->n_constraints; j++) {
            uint64_t nz = load_row(tz, zm[m], z->m.coeffs, j);
            uint64_t nr = load_row(tr, rm[m], r->m.coeffs, j);
            int same = nz == nr;
            for (uint64_t k = 0; same && k < nz; k++)
                same = tz[k].wire == tr[k].wire && cuzk_fr_eq(&tz[k].v, &tr[k].v);
            if (!same) {
                s = fmt_fail(err, CUZK_ERR_BAD_ENCODING,
                             "zkey/r1cs mismatch: constraint %llu, matrix %c differs",
                             (unsigned long long)j, "AB"[m]);
                goto done;
            }
        }
done:
    free(tz);
    free(tr);
    return s;
}
