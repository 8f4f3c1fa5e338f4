/* The CPU prover backend: the reference the other backends are tested
 * against, and the fallback when they cannot run.
 *
 * Stages: rows (the key's matrices, a PCE, or the caller's rows) into
 * a, b, c; the H polynomial by NTTs, in place in a, whose result becomes
 * the H scalars in place; three sparse MSMs (witnesses are mostly 0 and
 * 1). Every buffer is the workspace's, made once per key. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuzk/msm.h>
#include <cuzk/prove.h>

#include "common/parallel.h"

typedef struct {
    const cuzk_groth16_pk *pk; /* borrowed */
    unsigned nthreads;         /* resolved: never 0 */
    size_t n, n_h, n_priv;     /* domain points, H scalars, private variables */
    cuzk_ntt_domain *d;        /* owned: twiddles and coset tables */
    cuzk_fr *abc;              /* owned: 3n (NULL with CUZK_WS_CALLER_ROWS) */
    cuzk_fr *a, *b, *c;        /* this proof's rows: abc, or the caller's */
    cuzk_scalar *ws;           /* owned: n_vars, w as scalars */
    cuzk_scalar *hs;           /* view: a, converted in place (n_h) */
    cuzk_scalar *wsb;          /* owned: n_b, w of B's variables */
    cuzk_scalar *rws;          /* owned: n_b, r w of B's variables */
    cuzk_g1_msm_scratch *m1;   /* owned: every G1 MSM's working memory */
    cuzk_g2_msm_scratch *m2;   /* owned: the G2 MSM's */
    uint64_t bytes;
} cpu_ws;

static void cpu_ws_destroy(void *p)
{
    cpu_ws *cw = p;
    if (!cw) return;
    cuzk_ntt_domain_destroy(cw->d);
    free(cw->abc);
    free(cw->ws);
    free(cw->wsb);
    free(cw->rws);
    cuzk_g1_msm_scratch_free(cw->m1);
    cuzk_g2_msm_scratch_free(cw->m2);
    free(cw);
}

static cuzk_status cpu_ws_create(void **out, const cuzk_groth16_pk *pk, const cuzk_config *cfg,
                                 char *err)
{
    *out = NULL;
    cpu_ws *cw = calloc(1, sizeof *cw);
    if (!cw) return CUZK_ERR_NO_MEMORY;
    cw->pk = pk;
    cw->nthreads = cfg->nthreads ? cfg->nthreads : cuzk_ncores();
    cw->n = (size_t)1 << pk->log_domain;
    cw->n_h = pk->h_form == CUZK_H_LAGRANGE ? cw->n : cw->n - 1;
    cw->n_priv = (size_t)pk->n_vars - pk->n_public - 1;
    size_t nb = pk->n_b ? pk->n_b : 1;
    cuzk_status s = cuzk_ntt_domain_create(&cw->d, pk->log_domain, pk->roots, cw->nthreads);
    if (s != CUZK_OK) {
        if (err) snprintf(err, CUZK_ERRMSG_LEN, "prove: NTT domain: %s", cuzk_strerror(s));
        cpu_ws_destroy(cw);
        return s;
    }
    if (!(cfg->ws_flags & CUZK_WS_CALLER_ROWS)) cw->abc = malloc(3 * cw->n * sizeof *cw->abc);
    cw->ws = malloc(pk->n_vars * sizeof *cw->ws);
    cw->wsb = malloc(nb * sizeof *cw->wsb);
    cw->rws = malloc(nb * sizeof *cw->rws);
    /* The G1 MSMs run one after another and share one scratch, sized for
     * the largest: the merged C sum over L, H and B1. */
    size_t m1_n = cw->n_priv + cw->n_h + pk->n_b;
    if (m1_n < pk->n_vars) m1_n = pk->n_vars;
    if (cuzk_g1_msm_scratch_new(&cw->m1, m1_n, cw->nthreads) != CUZK_OK ||
        cuzk_g2_msm_scratch_new(&cw->m2, pk->n_b, cw->nthreads) != CUZK_OK)
        cw->m1 = NULL; /* reported below with the rest */
    if ((!cw->abc && !(cfg->ws_flags & CUZK_WS_CALLER_ROWS)) || !cw->ws || !cw->wsb ||
        !cw->rws || !cw->m1 || !cw->m2) {
        if (err) snprintf(err, CUZK_ERRMSG_LEN, "prove: out of memory for the workspace");
        cpu_ws_destroy(cw);
        return CUZK_ERR_NO_MEMORY;
    }
    cw->bytes = sizeof *cw + (cw->abc ? 3 * cw->n : 0) * sizeof(cuzk_fr) +
                (pk->n_vars + 2 * nb) * sizeof(cuzk_scalar) + cuzk_ntt_domain_bytes(cw->d) +
                cuzk_g1_msm_scratch_size(cw->m1) + cuzk_g2_msm_scratch_size(cw->m2);
    *out = cw;
    return CUZK_OK;
}

static uint64_t cpu_ws_bytes(const void *p) { return ((const cpu_ws *)p)->bytes; }

/* ------------------------------------------------------------- rows -- */

struct rows_job {
    const cuzk_matrices *m;
    const cuzk_sparse *s;
    const cuzk_fr *w;
    cuzk_fr *out;
};

static void rows_range(void *ctx, size_t b, size_t e)
{
    const struct rows_job *j = ctx;
    for (size_t row = b; row < e; row++)
        cuzk_sparse_row_dot(&j->out[row], j->s, j->m->coeffs, j->w, row);
}

static void eval_matrix(cuzk_fr *out, size_t n, const cuzk_matrices *m, const cuzk_sparse *s,
                        const cuzk_fr *w, unsigned nthreads)
{
    struct rows_job j = {m, s, w, out};
    cuzk_parallel_for(m->n_rows, 1024, nthreads, rows_range, &j);
    memset(out + m->n_rows, 0, (n - m->n_rows) * sizeof *out);
}

/* After m rows are in a, b, c (c = a o b already done where needed):
 * zero the rest of the domain and append the input rows (a = w_i,
 * b = c = 0) unless they are there, as the key's matrices lay them out. */
static void finish_rows(cpu_ws *cw, size_t m, int has_input_rows, const cuzk_fr *w)
{
    size_t n = cw->n;
    memset(cw->a + m, 0, (n - m) * sizeof *cw->a);
    memset(cw->b + m, 0, (n - m) * sizeof *cw->b);
    memset(cw->c + m, 0, (n - m) * sizeof *cw->c);
    if (!has_input_rows) memcpy(cw->a + m, w, ((size_t)cw->pk->n_public + 1) * sizeof *cw->a);
}

static cuzk_status cpu_eval_rows(void *p, const cuzk_stage_in *in, char *err)
{
    cpu_ws *cw = p;
    const cuzk_groth16_pk *pk = in->pk;
    const cuzk_groth16_rows *r = in->rows;
    if (r && r->in_place) {
        cw->a = r->a, cw->b = r->b, cw->c = r->c;
    } else if (!cw->abc) {
        if (err)
            snprintf(err, CUZK_ERRMSG_LEN,
                     "prove: the workspace holds no rows (CUZK_WS_CALLER_ROWS): give them in "
                     "place");
        return CUZK_ERR_INVALID_ARGUMENT;
    } else {
        cw->a = cw->abc, cw->b = cw->abc + cw->n, cw->c = cw->abc + 2 * cw->n;
    }
    if (r) {
        size_t m = r->n_rows;
        if (cw->a != r->a) memcpy(cw->a, r->a, m * sizeof *cw->a);
        if (cw->b != r->b) memcpy(cw->b, r->b, m * sizeof *cw->b);
        if (r->c && cw->c != r->c) memcpy(cw->c, r->c, m * sizeof *cw->c);
        else if (!r->c)
            for (size_t i = 0; i < m; i++) cuzk_fr_mul(&cw->c[i], &cw->a[i], &cw->b[i]);
        finish_rows(cw, m, r->has_input_rows, in->w);
    } else if (in->pce) {
        const cuzk_pce *pce = in->pce;
        int has_c = (pce->flags & CUZK_PCE_HAS_C) != 0;
        size_t m = pce->n_rows;
        cuzk_pce_witness pw = {in->w, pk->n_vars, NULL, NULL};
        cuzk_status s = cuzk_pce_eval(pce, &pw, cw->a, cw->b, has_c ? cw->c : NULL,
                                      cw->nthreads, err);
        if (s != CUZK_OK) return s;
        /* No C matrix (a .zkey's): c = a o b row by row. */
        if (!has_c)
            for (size_t i = 0; i < m; i++) cuzk_fr_mul(&cw->c[i], &cw->a[i], &cw->b[i]);
        finish_rows(cw, m, (pce->flags & CUZK_PCE_HAS_INPUT_ROWS) != 0, in->w);
    } else {
        eval_matrix(cw->a, cw->n, &pk->m, &pk->m.a, in->w, cw->nthreads);
        eval_matrix(cw->b, cw->n, &pk->m, &pk->m.b, in->w, cw->nthreads);
        if (pk->m.c.row_start) eval_matrix(cw->c, cw->n, &pk->m, &pk->m.c, in->w, cw->nthreads);
        else
            for (size_t i = 0; i < cw->n; i++) cuzk_fr_mul(&cw->c[i], &cw->a[i], &cw->b[i]);
    }
    return CUZK_OK;
}

/* ---------------------------------------------------------------- H -- */

struct pointwise_job {
    cuzk_fr *a;
    const cuzk_fr *b, *c;
    cuzk_fr z_inv; /* 1 for the Lagrange form */
};

/* a[i] = (a[i] b[i] - c[i]) z_inv */
static void pointwise_range(void *ctx, size_t b, size_t e)
{
    struct pointwise_job *j = ctx;
    for (size_t i = b; i < e; i++) {
        cuzk_fr_mul(&j->a[i], &j->a[i], &j->b[i]);
        cuzk_fr_sub(&j->a[i], &j->a[i], &j->c[i]);
        cuzk_fr_mul(&j->a[i], &j->a[i], &j->z_inv);
    }
}

/* The scalars of B's variables: out[j] = ws[b_var[j]] (canonical), j < n_b.
 * A variable index out of range (a malformed pk) sets bad, never read. */
/* b_var was checked against n_vars when the workspace was made (prove.c). */
struct gather_job {
    cuzk_scalar *out;
    const cuzk_scalar *ws;
    const uint32_t *b_var;
};

static void gather_range(void *ctx, size_t b, size_t e)
{
    const struct gather_job *j = ctx;
    for (size_t i = b; i < e; i++) j->out[i] = j->ws[j->b_var[i]];
}

static cuzk_status cpu_h_poly(void *p, const cuzk_stage_in *in, char *err)
{
    (void)err; /* nothing here fails: the key was checked with the workspace */
    cpu_ws *cw = p;
    const cuzk_groth16_pk *pk = in->pk;
    cuzk_fr *v[3] = {cw->a, cw->b, cw->c};
    for (int k = 0; k < 3; k++) cuzk_ntt_to_coset(cw->d, v[k]); /* allocates nothing */
    struct pointwise_job j = {cw->a, cw->b, cw->c, CUZK_FR_ONE};
    if (pk->h_form == CUZK_H_MONOMIAL) {
        /* Z(g omega^j) = g^n - 1 for every j: one inverse for all. */
        uint64_t e = cw->n;
        cuzk_fr_pow(&j.z_inv, cuzk_ntt_coset_shift(cw->d), &e, 1);
        cuzk_fr_sub(&j.z_inv, &j.z_inv, &CUZK_FR_ONE);
        cuzk_fr_inv(&j.z_inv, &j.z_inv);
    }
    cuzk_parallel_for(cw->n, 4096, cw->nthreads, pointwise_range, &j);
    if (pk->h_form == CUZK_H_MONOMIAL) cuzk_ntt_coset_inverse(cw->d, cw->a);
    /* The H scalars in place of a (msm.h allows out == in): no array more. */
    cw->hs = (cuzk_scalar *)cw->a;
    cuzk_scalar_from_fr(cw->hs, cw->a, cw->n_h, cw->nthreads);
    cuzk_scalar_from_fr(cw->ws, in->w, pk->n_vars, cw->nthreads);
    struct gather_job gj = {cw->wsb, cw->ws, pk->b_var};
    cuzk_parallel_for(pk->n_b, (size_t)1 << 16, cw->nthreads, gather_range, &gj);
    return CUZK_OK;
}

/* --------------------------------------------------------------- MSMs -- */

/* ===== THE MSM CALLS: the only place the CPU backend calls msm.h, each
 * with the workspace's scratch, so a proof allocates nothing here. ===== */
static cuzk_status msm_g1_sparse(cpu_ws *cw, cuzk_g1_jac *r, const cuzk_g1_affine *points,
                                 const cuzk_scalar *scalars, size_t n, char *err)
{
    return cuzk_g1_msm_sparse_ws_var(r, points, scalars, n, cw->nthreads, cw->m1, err);
}

static cuzk_status msm_g2_sparse(cpu_ws *cw, cuzk_g2_jac *r, const cuzk_g2_affine *points,
                                 const cuzk_scalar *scalars, size_t n, char *err)
{
    return cuzk_g2_msm_sparse_ws_var(r, points, scalars, n, cw->nthreads, cw->m2, err);
}

static cuzk_status msm_g1_sparse_sum(cpu_ws *cw, cuzk_g1_jac *r, const cuzk_g1_msm_vec *v,
                                     size_t nv, char *err)
{
    return cuzk_g1_msm_sparse_sum_ws_var(r, v, nv, cw->nthreads, cw->m1, err);
}
/* ===== end of the MSM calls ===== */

static cuzk_status cpu_msm_a(void *p, const cuzk_stage_in *in, cuzk_g1_jac *out, char *err)
{
    cpu_ws *cw = p;
    return msm_g1_sparse(cw, out, in->pk->a, cw->ws, in->pk->n_vars, err);
}

static cuzk_status cpu_msm_b2(void *p, const cuzk_stage_in *in, cuzk_g2_jac *out, char *err)
{
    cpu_ws *cw = p;
    return msm_g2_sparse(cw, out, in->pk->b2, cw->wsb, in->pk->n_b, err);
}

struct scaled_job {
    cuzk_scalar *out;
    const cuzk_fr *w;
    const uint32_t *b_var;
    cuzk_fr r;
};

/* out[j] = canonical form of r w[b_var[j]] (b_var checked by the gather) */
static void scaled_range(void *ctx, size_t b, size_t e)
{
    struct scaled_job *j = ctx;
    for (size_t i = b; i < e; i++) {
        cuzk_fr t;
        uint64_t v[4];
        cuzk_fr_mul(&t, &j->w[j->b_var[i]], &j->r);
        cuzk_fr_to_limbs(v, &t);
        memcpy(j->out[i].l, v, sizeof v);
    }
}

/* B1 (G1) enters the proof only as r B1 in C, and L and H only in C, so
 * with
 *   C = L + H + s A + r B1 - r s delta
 *     = (L + H + r sum_i w_i B1_i) + s A + r beta
 * (B1 = beta + sum_i w_i B1_i + s delta). Two ways to get the bracket:
 *  - merged: one MSM over L, H and B1 with the scalars w, h and r w
 *    (one bucket reduction per window, a larger window);
 *  - separate: sum_i w_i B1_i by the sparse MSM, whose 0/1 path adds
 *    the bases of w_i = 1 with no digits, then one multiplication by r.
 * r w_i is a full-size scalar even where w_i = 1, so the merged form
 * loses when many w_i are 1 (bit-heavy circuits). Measured on the 2-core
 * dev box (cuzk prove, whole command): chain14 (Poseidon, few ones)
 * merged 10.3x snarkjs; porep-32g at 2^16 (47% ones) merged 0.46 s,
 * separate 0.31 s. The switch, n_one > n_b / 8 with the ones counted
 * among B's variables (whose scalars the choice is about), lies between
 * the two: porep-32g 42% of B's w_i are 1 (45% of all w_i), winning-,
 * wpost- and snap-32g (Poseidon) under 1% either way. */
static cuzk_status cpu_msm_c(void *p, const cuzk_stage_in *in, cuzk_g1_jac *out, char *err)
{
    cpu_ws *cw = p;
    const cuzk_groth16_pk *pk = in->pk;
    cuzk_status s;
    size_t n_one = 0;
    for (size_t i = 0; i < pk->n_b; i++)
        n_one += cw->wsb[i].l[0] == 1 && !(cw->wsb[i].l[1] | cw->wsb[i].l[2] | cw->wsb[i].l[3]);
    if (n_one > pk->n_b / 8) {
        cuzk_g1_jac pb1;
        const cuzk_g1_msm_vec cv[2] = {{pk->l, cw->ws + pk->n_public + 1, cw->n_priv},
                                       {pk->h, cw->hs, cw->n_h}};
        if ((s = msm_g1_sparse_sum(cw, out, cv, 2, err)) != CUZK_OK ||
            (s = msm_g1_sparse(cw, &pb1, pk->b1, cw->wsb, pk->n_b, err)) != CUZK_OK)
            return s;
        cuzk_g1_mul(&pb1, &pb1, &in->r);
        cuzk_g1_add(out, out, &pb1);
        return CUZK_OK;
    }
    struct scaled_job sj = {cw->rws, in->w, pk->b_var, in->r};
    /* ~70 ns per element: 2^14 (~1 ms) per thread at least. */
    cuzk_parallel_for(pk->n_b, (size_t)1 << 14, cw->nthreads, scaled_range, &sj);
    const cuzk_g1_msm_vec cv[3] = {{pk->l, cw->ws + pk->n_public + 1, cw->n_priv},
                                   {pk->h, cw->hs, cw->n_h},
                                   {pk->b1, cw->rws, pk->n_b}};
    return msm_g1_sparse_sum(cw, out, cv, 3, err);
}

static const cuzk_prover_backend CPU_BACKEND = {
    "cpu",       cpu_ws_create, cpu_ws_destroy, cpu_ws_bytes, cpu_eval_rows,
    cpu_h_poly,  cpu_msm_a,     cpu_msm_b2,     cpu_msm_c,   0};

const cuzk_prover_backend *cuzk_backend_cpu(void) { return &CPU_BACKEND; }
