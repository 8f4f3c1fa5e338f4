/* circom .r1cs (formats.md §7; iden3 r1csfile doc/r1cs_bin_format.md).
 *
 *   section 1  header: u32 fs, prime[fs], u32 nWires, nPubOut, nPubIn,
 *              nPrvIn, u64 nLabels, u32 nConstraints
 *   section 2  nConstraints x (A, B, C), each LC = u32 nTerms,
 *              nTerms x {u32 wire, fs-byte LE canonical coefficient}
 *   section 3  nWires x u64 label id (optional)
 *   4, 5       custom gates (PLONK only): rejected
 *
 * Section 2 is walked twice: once to validate it and count the terms of
 * each matrix (so every allocation is exact and bounded by the file size),
 * once to fill the CSR arrays. */
#include <stdatomic.h>
#include <stdlib.h>

#include "common/parallel.h"
#include "formats/fmt_internal.h"

static const char *const R1CS_NAMES[] = {NULL, "header", "constraints", "wire map",
                                         "custom gates list", "custom gates uses"};
#define N_NAMES (sizeof R1CS_NAMES / sizeof R1CS_NAMES[0])

#define FS 32u
#define TERM (4u + FS)
static const char MAT[3] = {'A', 'B', 'C'};

static cuzk_status read_header(cuzk_r1cs *r, const uint8_t *p, uint64_t n, char *err)
{
    if (n < 4)
        return fmt_fail(err, CUZK_ERR_TRUNCATED, "r1cs: section 1 (header) is %llu bytes, "
                        "too short for the field size", (unsigned long long)n);
    uint32_t fs = rd_u32le(p);
    if (fs != FS) {
        if (fs <= n - 4) return fmt_wrong_prime(err, "r1cs: prime", p + 4, fs, PRIME_BLS_R);
        return fmt_fail(err, CUZK_ERR_BAD_ENCODING,
                        "r1cs: field size is %u bytes, expected 32 (BLS12-381 r)", fs);
    }
    uint64_t need = 4 + FS + 28;
    if (n < 4 + FS)
        return fmt_fail(err, CUZK_ERR_TRUNCATED, "r1cs: section 1 (header) is %llu bytes "
                        "short of %llu", (unsigned long long)(need - n), (unsigned long long)need);
    if (fmt_prime_id(p + 4, FS) != PRIME_BLS_R)
        return fmt_wrong_prime(err, "r1cs: prime", p + 4, FS, PRIME_BLS_R);
    if (n != need)
        return fmt_fail(err, n < need ? CUZK_ERR_TRUNCATED : CUZK_ERR_BAD_ENCODING,
                        "r1cs: section 1 (header) is %llu bytes, expected %llu",
                        (unsigned long long)n, (unsigned long long)need);
    p += 4 + FS;
    r->n_wires = rd_u32le(p);
    r->n_pub_out = rd_u32le(p + 4);
    r->n_pub_in = rd_u32le(p + 8);
    r->n_prv_in = rd_u32le(p + 12);
    r->n_labels = rd_u64le(p + 16);
    r->n_constraints = rd_u32le(p + 24);
    if (r->n_wires == 0)
        return fmt_fail(err, CUZK_ERR_BAD_ENCODING, "r1cs: nWires is 0 (wire 0 is ONE)");
    uint64_t io = 1 + (uint64_t)r->n_pub_out + r->n_pub_in + r->n_prv_in;
    if (io > r->n_wires)
        return fmt_fail(err, CUZK_ERR_BAD_ENCODING,
                        "r1cs: 1 + %u outputs + %u public + %u private inputs exceed %u wires",
                        r->n_pub_out, r->n_pub_in, r->n_prv_in, r->n_wires);
    r->n_public = r->n_pub_out + r->n_pub_in;
    return CUZK_OK;
}

/* Pass 1: validates section 2 and counts the terms of each matrix. */
static cuzk_status scan_constraints(const cuzk_r1cs *r, const uint8_t *p, uint64_t n,
                                    uint64_t counts[3], char *err)
{
    uint64_t pos = 0;
    counts[0] = counts[1] = counts[2] = 0;
    if ((uint64_t)r->n_constraints * 12 > n)
        return fmt_fail(err, CUZK_ERR_TRUNCATED,
                        "r1cs: section 2 (constraints) is %llu bytes; %u constraints need at "
                        "least %llu", (unsigned long long)n, r->n_constraints,
                        (unsigned long long)r->n_constraints * 12);
    for (uint32_t j = 0; j < r->n_constraints; j++) {
        for (int m = 0; m < 3; m++) {
            if (n - pos < 4)
                return fmt_fail(err, CUZK_ERR_TRUNCATED,
                                "r1cs: section 2 (constraints) ends in constraint %u (%c)", j,
                                MAT[m]);
            uint32_t nt = rd_u32le(p + pos);
            pos += 4;
            if ((uint64_t)nt * TERM > n - pos)
                return fmt_fail(err, CUZK_ERR_TRUNCATED,
                                "r1cs: section 2 (constraints) ends in constraint %u (%c, %u "
                                "terms)", j, MAT[m], nt);
            /* Terms are not required to be sorted by wire: circom 2.2 writes
             * some rows out of order (examples/poseidon_chain.r1cs). */
            for (uint32_t t = 0; t < nt; t++, pos += TERM) {
                uint32_t w = rd_u32le(p + pos);
                if (w >= r->n_wires)
                    return fmt_fail(err, CUZK_ERR_BAD_ENCODING,
                                    "r1cs: constraint %u %c term %u: wire %u out of range "
                                    "(%u wires)", j, MAT[m], t, w, r->n_wires);
                if (!fr_le_is_canonical(p + pos + 4))
                    return fmt_fail(err, CUZK_ERR_NOT_CANONICAL,
                                    "r1cs: constraint %u %c term %u: coefficient is not "
                                    "canonical (>= r)", j, MAT[m], t);
            }
            counts[m] += nt;
        }
    }
    if (pos != n)
        return fmt_fail(err, CUZK_ERR_BAD_ENCODING,
                        "r1cs: %llu bytes after the last constraint in section 2",
                        (unsigned long long)(n - pos));
    return CUZK_OK;
}

/* Pass 2: fills the CSR arrays (p was validated by pass 1). */
static cuzk_status fill_constraints(cuzk_r1cs *r, const uint8_t *p, coeff_dict *d, char *err)
{
    uint8_t one_le[FS], m1_le[FS];
    cuzk_fr m1;
    cuzk_fr_to_le(one_le, &CUZK_FR_ONE);
    cuzk_fr_neg(&m1, &CUZK_FR_ONE);
    cuzk_fr_to_le(m1_le, &m1);
    cuzk_sparse *mat[3] = {&r->m.a, &r->m.b, &r->m.c};
    uint64_t fill[3] = {0, 0, 0}, pos = 0;
    for (uint32_t j = 0; j < r->n_constraints; j++) {
        for (int m = 0; m < 3; m++) {
            cuzk_sparse *s = mat[m];
            uint32_t nt = rd_u32le(p + pos);
            pos += 4;
            s->row_start[j] = fill[m];
            for (uint32_t t = 0; t < nt; t++, pos += TERM) {
                const uint8_t *c = p + pos + 4;
                uint32_t idx;
                if (!memcmp(c, one_le, FS)) {
                    idx = CUZK_COEFF_ONE;
                } else if (!memcmp(c, m1_le, FS)) {
                    idx = CUZK_COEFF_MINUS_ONE;
                } else {
                    cuzk_fr v;
                    cuzk_fr_from_le(&v, c); /* canonical: checked by pass 1 */
                    idx = cd_intern(d, &v);
                    if (idx == UINT32_MAX)
                        return fmt_fail(err, CUZK_ERR_NO_MEMORY,
                                        "r1cs: out of memory for distinct coefficients");
                }
                s->wire[fill[m]] = rd_u32le(p + pos);
                s->coeff[fill[m]] = idx;
                fill[m]++;
            }
        }
    }
    for (int m = 0; m < 3; m++) mat[m]->row_start[r->n_constraints] = fill[m];
    return CUZK_OK;
}

cuzk_status cuzk_r1cs_parse(cuzk_r1cs *r, const uint8_t *data, size_t size, char *err)
{
    cuzk_bin bin;
    cuzk_status s;
    const uint8_t *p;
    uint64_t n;
    coeff_dict dict = {0};

    fmt_clear(err);
    if (!r || (!data && size))
        return fmt_fail(err, CUZK_ERR_INVALID_ARGUMENT, "r1cs: NULL argument");
    memset(r, 0, sizeof *r);
    if ((s = fmt_bin_open(&bin, data, size, "r1cs", 1, R1CS_NAMES, N_NAMES, err)) != CUZK_OK)
        return s;

    if ((s = fmt_bin_get(&bin, 4, 0, R1CS_NAMES, N_NAMES, &p, &n, err)) != CUZK_OK) goto fail;
    const uint8_t *p5;
    uint64_t n5;
    if ((s = fmt_bin_get(&bin, 5, 0, R1CS_NAMES, N_NAMES, &p5, &n5, err)) != CUZK_OK) goto fail;
    if (p || p5) {
        s = fmt_fail(err, CUZK_ERR_BAD_ENCODING,
                     "r1cs: the circuit uses custom gates (sections 4/5, PLONK only); "
                     "Groth16 cannot prove it");
        goto fail;
    }

    if ((s = fmt_bin_get(&bin, 1, 1, R1CS_NAMES, N_NAMES, &p, &n, err)) != CUZK_OK) goto fail;
    if ((s = read_header(r, p, n, err)) != CUZK_OK) goto fail;

    if ((s = fmt_bin_get(&bin, 3, 0, R1CS_NAMES, N_NAMES, &p, &n, err)) != CUZK_OK) goto fail;
    if (p) {
        if (n != (uint64_t)r->n_wires * 8) {
            s = fmt_fail(err, n < (uint64_t)r->n_wires * 8 ? CUZK_ERR_TRUNCATED
                                                            : CUZK_ERR_BAD_ENCODING,
                         "r1cs: section 3 (wire map) is %llu bytes, expected %llu (%u wires)",
                         (unsigned long long)n, (unsigned long long)r->n_wires * 8, r->n_wires);
            goto fail;
        }
        r->labels = malloc((size_t)r->n_wires * sizeof *r->labels);
        if (!r->labels) {
            s = fmt_fail(err, CUZK_ERR_NO_MEMORY, "r1cs: out of memory");
            goto fail;
        }
        for (uint32_t i = 0; i < r->n_wires; i++) r->labels[i] = rd_u64le(p + 8 * (uint64_t)i);
    }

    if ((s = fmt_bin_get(&bin, 2, 1, R1CS_NAMES, N_NAMES, &p, &n, err)) != CUZK_OK) goto fail;
    uint64_t counts[3];
    if ((s = scan_constraints(r, p, n, counts, err)) != CUZK_OK) goto fail;

    r->m.n_rows = r->n_constraints;
    cuzk_sparse *mat[3] = {&r->m.a, &r->m.b, &r->m.c};
    for (int m = 0; m < 3; m++) {
        cuzk_sparse *sp = mat[m];
        sp->n_terms = counts[m];
        sp->row_start = malloc(((size_t)r->n_constraints + 1) * sizeof *sp->row_start);
        sp->wire = malloc((size_t)(counts[m] ? counts[m] : 1) * sizeof *sp->wire);
        sp->coeff = malloc((size_t)(counts[m] ? counts[m] : 1) * sizeof *sp->coeff);
        if (!sp->row_start || !sp->wire || !sp->coeff) {
            s = fmt_fail(err, CUZK_ERR_NO_MEMORY, "r1cs: out of memory for %llu terms",
                         (unsigned long long)counts[m]);
            goto fail;
        }
    }
    if ((s = cd_init(&dict)) != CUZK_OK) {
        fmt_fail(err, s, "r1cs: out of memory");
        goto fail;
    }
    if ((s = fill_constraints(r, p, &dict, err)) != CUZK_OK) goto fail;
    cd_finish(&dict, &r->m);
    cuzk_bin_free(&bin);
    return CUZK_OK;

fail:
    cd_free(&dict);
    cuzk_bin_free(&bin);
    cuzk_r1cs_free(r);
    return s;
}

void cuzk_r1cs_free(cuzk_r1cs *r)
{
    if (!r) return;
    cuzk_matrices_free(&r->m);
    free(r->labels);
    memset(r, 0, sizeof *r);
}

/* ---------------------------------------------------------------- check -- */

struct check_ctx {
    const cuzk_r1cs *r;
    const cuzk_fr *w;
    _Atomic uint64_t first_bad;
};

static void check_range(void *vctx, size_t begin, size_t end)
{
    struct check_ctx *ctx = vctx;
    const cuzk_matrices *m = &ctx->r->m;
    for (size_t j = begin; j < end; j++) {
        /* Rows past an already-found failure cannot lower the answer. */
        if ((j & 1023) == 0 && j >= atomic_load(&ctx->first_bad)) return;
        cuzk_fr a, b, c;
        cuzk_sparse_row_dot(&a, &m->a, m->coeffs, ctx->w, j);
        cuzk_sparse_row_dot(&b, &m->b, m->coeffs, ctx->w, j);
        cuzk_sparse_row_dot(&c, &m->c, m->coeffs, ctx->w, j);
        cuzk_fr_mul(&a, &a, &b);
        if (!cuzk_fr_eq(&a, &c)) {
            uint64_t cur = atomic_load(&ctx->first_bad);
            while (j < cur && !atomic_compare_exchange_weak(&ctx->first_bad, &cur, j)) {
            }
            return;
        }
    }
}

cuzk_status cuzk_r1cs_check(const cuzk_r1cs *r, const cuzk_fr *w, size_t n_w,
                            uint64_t *first_bad, char *err)
{
    fmt_clear(err);
    if (first_bad) *first_bad = UINT64_MAX;
    if (!r || (!w && n_w))
        return fmt_fail(err, CUZK_ERR_INVALID_ARGUMENT, "r1cs check: NULL argument");
    if (n_w != r->n_wires)
        return fmt_fail(err, CUZK_ERR_UNSATISFIED,
                        "witness has %zu values but the r1cs has %u wires", n_w, r->n_wires);
    if (!cuzk_fr_is_one(&w[0]))
        return fmt_fail(err, CUZK_ERR_UNSATISFIED, "witness value 0 (the ONE wire) is not 1");
    struct check_ctx ctx = {r, w, UINT64_MAX};
    /* 4096 rows of at least three dot products each: over a millisecond,
     * against a few microseconds to hand a range to the pool. */
    cuzk_parallel_for(r->n_constraints, 4096, cuzk_ncores(), check_range, &ctx);
    uint64_t bad = atomic_load(&ctx.first_bad);
    if (bad == UINT64_MAX) return CUZK_OK;
    if (first_bad) *first_bad = bad;
    return fmt_fail(err, CUZK_ERR_UNSATISFIED,
                    "witness does not satisfy constraint %llu (A*B != C)",
                    (unsigned long long)bad);
}
