/* The Groth16 prover on the CPU (see include/cuzk/groth16.h for the algebra).
 *
 * Stages: evaluate the rows a, b, c; the H polynomial by NTTs; three MSMs
 * (A, B_G2, and L + H + r B_G1 as one; all sparse, since witnesses are
 * mostly 0 and 1); blinding; a self-check by the verifier. */
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include <cuzk/groth16.h>
#include <cuzk/msm.h>

#include "common/parallel.h"

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static void set_err(char *err, const char *msg, cuzk_status s)
{
    if (err) snprintf(err, CUZK_ERRMSG_LEN, "prove: %s: %s", msg, cuzk_strerror(s));
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

/* A uniform nonzero scalar from the OS CSPRNG, by rejection sampling. */
static cuzk_status random_fr(cuzk_fr *r)
{
    for (;;) {
        uint64_t v[4];
        cuzk_status s = g16_os_random(v, sizeof v);
        if (s != CUZK_OK) return s;
        v[3] &= 0x7fffffffffffffffull; /* r < 2^255 */
        if (cuzk_fr_from_limbs(r, v) == CUZK_OK && !cuzk_fr_is_zero(r)) return CUZK_OK;
    }
}

/* ------------------------------------------------------ row evaluation -- */

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

static void eval_rows(cuzk_fr *out, size_t n, const cuzk_matrices *m, const cuzk_sparse *s,
                      const cuzk_fr *w, unsigned nthreads)
{
    struct rows_job j = {m, s, w, out};
    cuzk_parallel_for(m->n_rows, 1024, nthreads, rows_range, &j);
    memset(out + m->n_rows, 0, (n - m->n_rows) * sizeof *out);
}

/* ------------------------------------------------------------------ H -- */

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

/* Leaves the H scalars in a[0..n_h). */
static cuzk_status compute_h(const cuzk_groth16_pk *pk, const cuzk_ntt_domain *d, cuzk_fr *a,
                             cuzk_fr *b, cuzk_fr *c, unsigned nthreads)
{
    size_t n = cuzk_ntt_size(d);
    cuzk_fr *v[3] = {a, b, c};
    for (int k = 0; k < 3; k++) {
        cuzk_status s = cuzk_ntt_to_coset(d, v[k]);
        if (s != CUZK_OK) return s;
    }
    struct pointwise_job j = {a, b, c, CUZK_FR_ONE};
    if (pk->h_form == CUZK_H_MONOMIAL) {
        /* Z(g omega^j) = g^n - 1 for every j: one inverse for all. */
        uint64_t e = n;
        cuzk_fr_pow(&j.z_inv, cuzk_ntt_coset_shift(d), &e, 1);
        cuzk_fr_sub(&j.z_inv, &j.z_inv, &CUZK_FR_ONE);
        cuzk_fr_inv(&j.z_inv, &j.z_inv);
    }
    cuzk_parallel_for(n, 4096, nthreads, pointwise_range, &j);
    if (pk->h_form == CUZK_H_MONOMIAL) cuzk_ntt_coset_inverse(d, a);
    return CUZK_OK;
}

/* ----------------------------------------------------------- B scalars -- */

/* The scalars of B's variables: out[j] = ws[b_var[j]] (canonical), j < n_b.
 * A variable index out of range (a malformed pk) sets bad, never read. */
struct gather_job {
    cuzk_scalar *out;
    const cuzk_scalar *ws;
    const uint32_t *b_var;
    uint32_t n_vars;
    atomic_int bad;
};

static void gather_range(void *ctx, size_t b, size_t e)
{
    struct gather_job *j = ctx;
    for (size_t i = b; i < e; i++) {
        uint32_t v = j->b_var[i];
        if (v >= j->n_vars) {
            atomic_store(&j->bad, 1);
            return;
        }
        j->out[i] = j->ws[v];
    }
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

/* -------------------------------------------------------------- prove -- */

/* Copies the caller's rows into a, b, c (n points each), appending the
 * input rows (a = w_i, b = c = 0) when they are not included, as the key's
 * matrices lay them out; c = a o b where the caller gives no C. */
static void copy_rows(cuzk_fr *a, cuzk_fr *b, cuzk_fr *c, size_t n, const cuzk_groth16_rows *r,
                      const cuzk_fr *w, size_t n_inputs)
{
    size_t m = r->n_rows;
    if (a != r->a) memcpy(a, r->a, m * sizeof *a);
    if (b != r->b) memcpy(b, r->b, m * sizeof *b);
    if (r->c && c != r->c) memcpy(c, r->c, m * sizeof *c);
    else if (!r->c)
        for (size_t i = 0; i < m; i++) cuzk_fr_mul(&c[i], &a[i], &b[i]);
    memset(a + m, 0, (n - m) * sizeof *a);
    memset(b + m, 0, (n - m) * sizeof *b);
    memset(c + m, 0, (n - m) * sizeof *c);
    if (!r->has_input_rows) memcpy(a + m, w, n_inputs * sizeof *a);
}

static cuzk_status prove(cuzk_proof *proof, const cuzk_groth16_pk *pk, const cuzk_fr *w,
                         size_t n_w, const cuzk_groth16_rows *rows, unsigned nthreads,
                         unsigned flags, cuzk_groth16_timings *t, char *err)
{
    cuzk_groth16_timings tm;
    memset(&tm, 0, sizeof tm);
    if (err) err[0] = 0;
    if (!proof || !pk || !w) return CUZK_ERR_INVALID_ARGUMENT;
    if (n_w != pk->n_vars) {
        if (err)
            snprintf(err, CUZK_ERRMSG_LEN,
                     "prove: the witness has %zu values but the key expects %u", n_w,
                     pk->n_vars);
        return CUZK_ERR_UNSATISFIED;
    }
    if (!cuzk_fr_is_one(&w[0])) {
        if (err) snprintf(err, CUZK_ERRMSG_LEN, "prove: witness value 0 must be 1");
        return CUZK_ERR_UNSATISFIED;
    }
    size_t n = (size_t)1 << pk->log_domain, n_inputs = (size_t)pk->n_public + 1;
    if (rows) {
        size_t total = rows->n_rows + (rows->has_input_rows ? 0 : n_inputs);
        if (!rows->a || !rows->b || (rows->in_place && !rows->c) || total > n ||
            (pk->m.n_rows && total != pk->m.n_rows)) {
            if (err)
                snprintf(err, CUZK_ERRMSG_LEN,
                         "prove: %zu rows (input rows included) do not fit the key (%llu rows, "
                         "domain 2^%u)%s", total, (unsigned long long)pk->m.n_rows,
                         pk->log_domain, rows->a && rows->b ? "" : "; or a NULL row array");
            return CUZK_ERR_INVALID_ARGUMENT;
        }
    } else if (pk->m.n_rows == 0) {
        if (err)
            snprintf(err, CUZK_ERRMSG_LEN,
                     "prove: the key has no matrices: give the rows (cuzk_groth16_prove_rows)");
        return CUZK_ERR_INVALID_ARGUMENT;
    }
    if (nthreads == 0) nthreads = cuzk_ncores();
    double t0 = now_ms(), ts;
    size_t n_h = pk->h_form == CUZK_H_LAGRANGE ? n : n - 1;
    size_t n_priv = (size_t)pk->n_vars - pk->n_public - 1;

    cuzk_status s = CUZK_OK;
    cuzk_ntt_domain *d = NULL;
    int in_place = rows && rows->in_place;
    cuzk_fr *abc = in_place ? NULL : malloc(3 * n * sizeof *abc);
    cuzk_scalar *ws = malloc(pk->n_vars * sizeof *ws);
    cuzk_scalar *hs = malloc(n_h * sizeof *hs);
    cuzk_scalar *wsb = malloc((pk->n_b ? pk->n_b : 1) * sizeof *wsb); /* w of B's variables */
    cuzk_scalar *rws = NULL; /* r w of B's variables, for the merged MSM C only */
    if (pk->n_b > pk->n_vars || (pk->n_b && !pk->b_var)) {
        s = CUZK_ERR_INVALID_ARGUMENT;
        if (err)
            snprintf(err, CUZK_ERRMSG_LEN, "prove: the key lists %u B variables of %u", pk->n_b,
                     pk->n_vars);
        goto out;
    }
    if ((!abc && !in_place) || !ws || !hs || !wsb) {
        s = CUZK_ERR_NO_MEMORY;
        set_err(err, "working memory", s);
        goto out;
    }
    if ((s = cuzk_ntt_domain_create(&d, pk->log_domain, pk->roots, nthreads)) != CUZK_OK) {
        set_err(err, "NTT domain", s);
        goto out;
    }
    cuzk_fr *a = in_place ? rows->a : abc, *b = in_place ? rows->b : abc + n,
           *c = in_place ? rows->c : abc + 2 * n;

    /* a, b, c */
    ts = now_ms();
    if (rows) {
        copy_rows(a, b, c, n, rows, w, n_inputs);
    } else {
        eval_rows(a, n, &pk->m, &pk->m.a, w, nthreads);
        eval_rows(b, n, &pk->m, &pk->m.b, w, nthreads);
        if (pk->m.c.row_start) eval_rows(c, n, &pk->m, &pk->m.c, w, nthreads);
        else
            for (size_t i = 0; i < n; i++) cuzk_fr_mul(&c[i], &a[i], &b[i]);
    }
    tm.abc_ms = now_ms() - ts;

    /* H */
    ts = now_ms();
    if ((s = compute_h(pk, d, a, b, c, nthreads)) != CUZK_OK) {
        set_err(err, "H polynomial", s);
        goto out;
    }
    cuzk_scalar_from_fr(hs, a, n_h, nthreads);
    cuzk_scalar_from_fr(ws, w, pk->n_vars, nthreads);
    {
        struct gather_job gj = {wsb, ws, pk->b_var, pk->n_vars, 0};
        cuzk_parallel_for(pk->n_b, (size_t)1 << 16, nthreads, gather_range, &gj);
        if (atomic_load(&gj.bad)) {
            s = CUZK_ERR_INVALID_ARGUMENT;
            if (err)
                snprintf(err, CUZK_ERRMSG_LEN,
                         "prove: the key's B variable list names a variable above %u",
                         pk->n_vars - 1);
            goto out;
        }
    }
    tm.ntt_ms = now_ms() - ts;

    /* The blinding scalars r and s. */
    cuzk_fr r, sr;
    if ((s = random_fr(&r)) != CUZK_OK || (s = random_fr(&sr)) != CUZK_OK) {
        set_err(err, "reading randomness from the OS", s);
        goto out;
    }

    /* MSMs. B1 (G1) enters the proof only as r B1 in C, and L and H only
     * in C, so with
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
     * wpost- and snap-32g (Poseidon) under 1% either way. Time: msm_c_ms
     * either way. */
    cuzk_g1_jac pa, pc;
    cuzk_g2_jac pb2;
    ts = now_ms();
    if ((s = cuzk_g1_msm_sparse(&pa, pk->a, ws, pk->n_vars, nthreads)) != CUZK_OK) goto msm_fail;
    tm.msm_a_ms = now_ms() - ts;
    ts = now_ms();
    if ((s = cuzk_g2_msm_sparse(&pb2, pk->b2, wsb, pk->n_b, nthreads)) != CUZK_OK) goto msm_fail;
    tm.msm_b2_ms = now_ms() - ts;
    ts = now_ms();
    size_t n_one = 0;
    for (size_t i = 0; i < pk->n_b; i++)
        n_one += wsb[i].l[0] == 1 && !(wsb[i].l[1] | wsb[i].l[2] | wsb[i].l[3]);
    if (n_one > pk->n_b / 8) {
        cuzk_g1_jac pb1;
        const cuzk_g1_msm_vec cv[2] = {{pk->l, ws + pk->n_public + 1, n_priv}, {pk->h, hs, n_h}};
        if ((s = cuzk_g1_msm_sparse_sum(&pc, cv, 2, nthreads)) != CUZK_OK ||
            (s = cuzk_g1_msm_sparse(&pb1, pk->b1, wsb, pk->n_b, nthreads)) != CUZK_OK)
            goto msm_fail;
        cuzk_g1_mul(&pb1, &pb1, &r);
        cuzk_g1_add(&pc, &pc, &pb1);
    } else {
        if (!(rws = malloc((pk->n_b ? pk->n_b : 1) * sizeof *rws))) {
            s = CUZK_ERR_NO_MEMORY;
            set_err(err, "working memory", s);
            goto out;
        }
        struct scaled_job sj = {rws, w, pk->b_var, r};
        /* ~70 ns per element: 2^14 (~1 ms) per thread at least. */
        cuzk_parallel_for(pk->n_b, (size_t)1 << 14, nthreads, scaled_range, &sj);
        const cuzk_g1_msm_vec cv[3] = {{pk->l, ws + pk->n_public + 1, n_priv},
                                       {pk->h, hs, n_h},
                                       {pk->b1, rws, pk->n_b}};
        if ((s = cuzk_g1_msm_sparse_sum(&pc, cv, 3, nthreads)) != CUZK_OK) goto msm_fail;
    }
    tm.msm_c_ms = now_ms() - ts;

    /* Blinding. */
    ts = now_ms();
    cuzk_g1_jac t1, delta1;
    cuzk_g2_jac t2, delta2;
    cuzk_g1_from_affine(&delta1, &pk->vk.delta_g1);
    cuzk_g2_from_affine(&delta2, &pk->vk.delta_g2);
    /* A = alpha + sum + r delta */
    cuzk_g1_add_mixed(&pa, &pa, &pk->vk.alpha_g1);
    cuzk_g1_mul(&t1, &delta1, &r);
    cuzk_g1_add(&pa, &pa, &t1);
    /* B (G2) = beta + sum + s delta */
    cuzk_g2_add_mixed(&pb2, &pb2, &pk->vk.beta_g2);
    cuzk_g2_mul(&t2, &delta2, &sr);
    cuzk_g2_add(&pb2, &pb2, &t2);
    /* C = (L + H + r sum) + s A + r beta (above) */
    cuzk_g1_mul(&t1, &pa, &sr);
    cuzk_g1_add(&pc, &pc, &t1);
    cuzk_g1_from_affine(&t1, &pk->vk.beta_g1);
    cuzk_g1_mul(&t1, &t1, &r);
    cuzk_g1_add(&pc, &pc, &t1);
    cuzk_g1_to_affine(&proof->a, &pa);
    cuzk_g2_to_affine(&proof->b, &pb2);
    cuzk_g1_to_affine(&proof->c, &pc);
    tm.assemble_ms = now_ms() - ts;

    if (!(flags & CUZK_PROVE_NO_SELF_CHECK)) {
        ts = now_ms();
        s = cuzk_groth16_verify(&pk->vk, proof, w + 1, pk->n_public);
        tm.verify_ms = now_ms() - ts;
        if (s != CUZK_OK) {
            if (err)
                snprintf(err, CUZK_ERRMSG_LEN,
                         "prove: the proof does not verify (%s): the witness does not "
                         "satisfy the circuit of this key",
                         cuzk_strerror(s));
            s = CUZK_ERR_UNSATISFIED;
            memset(proof, 0, sizeof *proof);
        }
    }
    goto out;
msm_fail:
    set_err(err, "MSM", s);
out:
    cuzk_ntt_domain_destroy(d);
    free(abc);
    free(ws);
    free(hs);
    free(wsb);
    free(rws);
    tm.total_ms = now_ms() - t0;
    if (t) *t = tm;
    return s;
}

cuzk_status cuzk_groth16_prove(cuzk_proof *proof, const cuzk_groth16_pk *pk, const cuzk_fr *w,
                               size_t n_w, unsigned nthreads, unsigned flags,
                               cuzk_groth16_timings *t, char *err)
{
    return prove(proof, pk, w, n_w, NULL, nthreads, flags, t, err);
}

cuzk_status cuzk_groth16_prove_rows(cuzk_proof *proof, const cuzk_groth16_pk *pk,
                                    const cuzk_fr *w, size_t n_w, const cuzk_groth16_rows *rows,
                                    unsigned nthreads, unsigned flags, cuzk_groth16_timings *t,
                                    char *err)
{
    if (err) err[0] = 0;
    if (!rows) return CUZK_ERR_INVALID_ARGUMENT;
    return prove(proof, pk, w, n_w, rows, nthreads, flags, t, err);
}
