/* Groth16 setup, the .cuzk key file and the bellperson writers.
 *
 *   - setup -> prove -> verify in both conventions, on a circuit built with
 *     the constraint system (domain 2^11; also as a .r1cs file) and on
 *     tests/data/mul.r1cs (snarkjs's example, domain 8);
 *     a wrong witness is refused (CUZK_ERR_UNSATISFIED);
 *   - key points against an independent evaluation: A_i(tau) and B_i(tau)
 *     by interpolation (inverse NTT of the column, Horner at tau), H by
 *     its definition, from the toxic waste the seeded setup reports;
 *   - B is filtered: b_var is exactly the variables with a nonzero B
 *     coefficient (recomputed here); a circuit with an empty B works;
 *   - seeded setup is deterministic and independent of the thread count,
 *     and the same through a fixed_mul offload callback (CPU), whose errors
 *     are passed on with their message;
 *   - the key file: round trip (copy and in-place view), every corruption
 *     rejected with the right status and message (version 1 files and bad
 *     B variable lists by name);
 *   - a bellperson-rooted (7) key through .params + .vk: written, read back
 *     with the existing readers, cuzk_groth16_pk_from_params, proven,
 *     verified, re-written byte for byte;
 *   - a snarkjs-rooted key through .zkey (cuzk_zkey_write_pk). */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cuzk/formats.h>
#include <cuzk/gadgets.h>
#include <cuzk/groth16.h>
#include <cuzk/prove.h>
#include <cuzk/r1cs.h>

#include "common/hash.h" /* cuzk_xxh64, to re-seal a header in tests */
#include "test_chain.h"
#include "test_util.h"

/* ------------------------------------------------------------ circuit -- */

/* test_chain.h's circuit with the low 64 bits of x as booleans. */
typedef test_chain circuit;

static int build(circuit *c, unsigned steps, uint64_t xv, uint64_t yv)
{
    return test_chain_build(c, steps, 64, xv, yv);
}

static void circuit_free(circuit *c)
{
    cuzk_r1cs_free(&c->r);
    free(c->w);
}

/* ----------------------------------------------------- independent check -- */

static void g1_of(cuzk_g1_affine *r, const cuzk_fr *k)
{
    cuzk_g1_jac g, p;
    cuzk_g1_from_affine(&g, &CUZK_G1_GENERATOR);
    cuzk_g1_mul(&p, &g, k);
    cuzk_g1_to_affine(r, &p);
}

static void g2_of(cuzk_g2_affine *r, const cuzk_fr *k)
{
    cuzk_g2_jac g, p;
    cuzk_g2_from_affine(&g, &CUZK_G2_GENERATOR);
    cuzk_g2_mul(&p, &g, k);
    cuzk_g2_to_affine(r, &p);
}

/* The value at tau of the polynomial through (w^j, col_j) of matrix s of
 * pk->m for variable v: column values, inverse NTT, Horner. */
static void column_at(cuzk_fr *out, const cuzk_groth16_pk *pk, const cuzk_sparse *s, uint32_t v,
                      const cuzk_fr *tau)
{
    size_t n = (size_t)1 << pk->log_domain;
    cuzk_fr *col = calloc(n, sizeof *col), t;
    for (uint64_t r = 0; r < pk->m.n_rows; r++)
        for (uint64_t k = s->row_start[r]; k < s->row_start[r + 1]; k++)
            if (s->wire[k] == v) cuzk_fr_add(&col[r], &col[r], &pk->m.coeffs[s->coeff[k]]);
    cuzk_ntt_domain *d;
    CHECK(cuzk_ntt_domain_create(&d, pk->log_domain, pk->roots, 1) == CUZK_OK);
    cuzk_ntt_inverse(d, col);
    cuzk_ntt_domain_destroy(d);
    *out = CUZK_FR_ZERO;
    for (size_t i = n; i-- > 0;) {
        cuzk_fr_mul(&t, out, tau);
        cuzk_fr_add(out, &t, &col[i]);
    }
    free(col);
}

/* B1 and B2 of variable v: its entry in b_var, or the identity. */
static void b_points(cuzk_g1_affine *p, cuzk_g2_affine *q, const cuzk_groth16_pk *pk, uint32_t v)
{
    memset(p, 0, sizeof *p);
    memset(q, 0, sizeof *q);
    for (uint32_t j = 0; j < pk->n_b; j++)
        if (pk->b_var[j] == v) {
            *p = pk->b1[j];
            *q = pk->b2[j];
        }
}

/* b_var lists exactly the variables with a nonzero coefficient in B. */
static int b_var_is_density(const cuzk_groth16_pk *pk)
{
    uint8_t *d = calloc(pk->n_vars, 1);
    const cuzk_sparse *b = &pk->m.b;
    for (uint64_t k = 0; k < b->n_terms; k++)
        if (!cuzk_fr_is_zero(&pk->m.coeffs[b->coeff[k]])) d[b->wire[k]] = 1;
    uint32_t j = 0;
    int ok = 1;
    for (uint32_t v = 0; v < pk->n_vars; v++) {
        if (!d[v]) continue;
        ok &= j < pk->n_b && pk->b_var[j] == v;
        j++;
    }
    free(d);
    return ok && j == pk->n_b;
}

static void check_points(const cuzk_groth16_pk *pk, const cuzk_toxic_waste *tw)
{
    uint32_t vars[5] = {0, 1, 2, pk->n_vars / 2, pk->n_vars - 1};
    int absent = 0;
    for (int i = 0; i < 5; i++) {
        cuzk_fr av, bv;
        cuzk_g1_affine p, pb;
        cuzk_g2_affine q, qb;
        column_at(&av, pk, &pk->m.a, vars[i], &tw->tau);
        column_at(&bv, pk, &pk->m.b, vars[i], &tw->tau);
        g1_of(&p, &av);
        CHECK_MSG(cuzk_g1_affine_eq(&p, &pk->a[vars[i]]), "A of variable %u", vars[i]);
        b_points(&pb, &qb, pk, vars[i]);
        absent += cuzk_fr_is_zero(&bv);
        g1_of(&p, &bv);
        CHECK_MSG(cuzk_g1_affine_eq(&p, &pb), "B1 of variable %u", vars[i]);
        g2_of(&q, &bv);
        CHECK(cuzk_g2_affine_eq(&q, &qb));
    }
    CHECK(absent == 1); /* variable 2 (y) is in no B row */
    /* y, out and v_n (only in A, in out = v_n) are the variables in no B row. */
    CHECK_MSG(b_var_is_density(pk) && pk->n_b == pk->n_vars - 3, "%u of %u", pk->n_b,
              pk->n_vars);
    /* H: monomial tau^i Z(tau) / delta; Lagrange L^(2N)_(2j+1)(tau) / delta
     * = (tau^2N - 1) x / (2N (tau - x)) for x = g w^j (the coset shift of
     * the snarkjs domain), checked at j = 0 and the last j. */
    size_t N = (size_t)1 << pk->log_domain;
    cuzk_fr zt, t, dinv, e;
    uint64_t ex = N;
    cuzk_fr_pow(&zt, &tw->tau, &ex, 1);
    cuzk_fr_inv(&dinv, &tw->delta);
    cuzk_g1_affine p;
    if (pk->h_form == CUZK_H_MONOMIAL) {
        cuzk_fr_sub(&zt, &zt, &CUZK_FR_ONE);
        cuzk_fr_mul(&e, &zt, &dinv);
        g1_of(&p, &e);
        CHECK(cuzk_g1_affine_eq(&p, &pk->h[0]));
        ex = N - 2;
        cuzk_fr_pow(&t, &tw->tau, &ex, 1);
        cuzk_fr_mul(&e, &e, &t);
        g1_of(&p, &e);
        CHECK(cuzk_g1_affine_eq(&p, &pk->h[N - 2]));
    } else {
        cuzk_ntt_domain *d;
        CHECK(cuzk_ntt_domain_create(&d, pk->log_domain, pk->roots, 1) == CUZK_OK);
        cuzk_fr x = *cuzk_ntt_coset_shift(d), num, den, n2;
        cuzk_fr_sqr(&zt, &zt);
        cuzk_fr_sub(&zt, &zt, &CUZK_FR_ONE);
        cuzk_fr_from_u64(&n2, 2 * (uint64_t)N);
        for (int k = 0; k < 2; k++) {
            size_t j = k ? N - 1 : 0;
            if (k) {
                ex = j;
                cuzk_fr_pow(&t, cuzk_ntt_omega(d), &ex, 1);
                cuzk_fr_mul(&x, &x, &t);
            }
            cuzk_fr_mul(&num, &zt, &x);
            cuzk_fr_sub(&den, &tw->tau, &x);
            cuzk_fr_mul(&den, &den, &n2);
            cuzk_fr_mul(&den, &den, &tw->delta);
            cuzk_fr_inv(&den, &den);
            cuzk_fr_mul(&e, &num, &den);
            g1_of(&p, &e);
            CHECK_MSG(cuzk_g1_affine_eq(&p, &pk->h[j]), "H point %zu", j);
        }
        cuzk_ntt_domain_destroy(d);
    }
}

static int pk_points_eq(const cuzk_groth16_pk *x, const cuzk_groth16_pk *y)
{
    size_t n = x->n_vars, nl = n - x->n_public - 1, nb = x->n_b;
    size_t nh = ((size_t)1 << x->log_domain) - (x->h_form == CUZK_H_MONOMIAL);
    return x->n_vars == y->n_vars && x->n_public == y->n_public && x->n_b == y->n_b &&
           x->log_domain == y->log_domain && x->roots == y->roots && x->h_form == y->h_form &&
           !memcmp(x->a, y->a, n * sizeof *x->a) &&
           !memcmp(x->b_var, y->b_var, nb * sizeof *x->b_var) &&
           !memcmp(x->b1, y->b1, nb * sizeof *x->b1) &&
           !memcmp(x->b2, y->b2, nb * sizeof *x->b2) && !memcmp(x->l, y->l, nl * sizeof *x->l) &&
           !memcmp(x->h, y->h, nh * sizeof *x->h) && cuzk_vk_eq(&x->vk, &y->vk);
}

static void tmp_path(char *buf, size_t cap, const char *name)
{
    const char *d = getenv("TMPDIR");
    snprintf(buf, cap, "%s/cuzk_test_setup_%ld_%s", d && *d ? d : "/tmp", (long)getpid(), name);
}

static int progress_calls;
static void on_progress(void *ctx, const char *stage, uint64_t done, uint64_t total)
{
    (void)ctx;
    if (stage && done <= total) progress_calls++;
}

/* ------------------------------------------------- fixed-base offload -- */

/* A CPU stand-in for a GPU fixed_mul: [s_i] G by the variable-base
 * multiplication, independent of setup's tables. fail_at > 0 makes call
 * number fail_at return CUZK_ERR_IO (with msg, if any). */
typedef struct {
    int calls, g1_calls, g2_calls, bad_args, fail_at;
    size_t points;
    const char *msg;
} fake_gpu;

static cuzk_status fake_fixed_mul(void *ctx, int g2, void *out, const cuzk_fr *s, size_t n,
                                  char *err)
{
    fake_gpu *f = ctx;
    f->calls++;
    if (n == 0 || n > CUZK_SETUP_MUL_BATCH || (g2 != 0 && g2 != 1) || !err || err[0])
        f->bad_args++;
    if (f->calls == f->fail_at) {
        if (f->msg) snprintf(err, CUZK_ERRMSG_LEN, "%s", f->msg);
        return CUZK_ERR_IO;
    }
    if (g2) f->g2_calls++;
    else f->g1_calls++;
    f->points += n;
    for (size_t i = 0; i < n; i++) {
        if (g2) g2_of((cuzk_g2_affine *)out + i, &s[i]);
        else g1_of((cuzk_g1_affine *)out + i, &s[i]);
    }
    return CUZK_OK;
}

static void test_fixed_mul(const cuzk_groth16_pk *ref, const cuzk_matrices *m, uint32_t n_in,
                           uint32_t n_aux, cuzk_roots roots, uint64_t seed)
{
    char err[CUZK_ERRMSG_LEN];
    fake_gpu f = {0};
    cuzk_setup_opts o = {roots, 2, &seed, on_progress, NULL, NULL, fake_fixed_mul, &f};
    cuzk_groth16_pk pk;
    progress_calls = 0;
    CHECK_MSG(cuzk_groth16_setup(&pk, m, n_in, n_aux, &o, err) == CUZK_OK, "%s", err);
    CHECK(pk_points_eq(ref, &pk));
    /* One batch a stage: A, B1, IC, L, H in G1, B2 in G2; every point. */
    size_t n_h = ((size_t)1 << ref->log_domain) - (ref->h_form == CUZK_H_MONOMIAL);
    CHECK(f.bad_args == 0 && f.g1_calls == 5 && f.g2_calls == 1);
    CHECK(f.points == 2 * (size_t)ref->n_vars + 2 * (size_t)ref->n_b + n_h);
    CHECK(progress_calls >= 6);
    cuzk_groth16_pk_free(&pk);

    /* A failing callback: its status and message (or the status's text),
     * the stage named, no key (and no leak: the ASan build runs this). */
    const char *msgs[2] = {"fake device lost", NULL}, *stages[2] = {"B (G2)", "A (G1)"};
    const int fail_at[2] = {3, 1};
    for (int k = 0; k < 2; k++) {
        fake_gpu g = {0};
        g.fail_at = fail_at[k];
        g.msg = msgs[k];
        o.fixed_mul_ctx = &g;
        memset(&pk, 0xa5, sizeof pk);
        CHECK(cuzk_groth16_setup(&pk, m, n_in, n_aux, &o, err) == CUZK_ERR_IO);
        CHECK_MSG(!strncmp(err, "setup: ", 7) && strstr(err, stages[k]) &&
                      strstr(err, msgs[k] ? msgs[k] : cuzk_strerror(CUZK_ERR_IO)),
                  "%s", err);
        CHECK(pk.a == NULL && pk.b_var == NULL && pk.b1 == NULL && pk.n_b == 0);
        CHECK(g.calls == fail_at[k]);
        cuzk_groth16_pk_free(&pk); /* a no-op on the zeroed key */
    }
}

/* A circuit whose B is empty (n_b = 0): (x + y) * 0 = 0 (C empty), over
 * the domain 2^2; set up, written and mapped, proven and verified. */
static void test_empty_b(uint64_t seed)
{
    char err[CUZK_ERRMSG_LEN], path[512];
    uint64_t rs_a[2] = {0, 2}, rs_0[2] = {0, 0};
    uint32_t aw[2] = {1, 2}, ac[2] = {0, 0}, none[1] = {0};
    cuzk_fr coeffs[2] = {CUZK_FR_ONE, CUZK_FR_ONE};
    cuzk_fr_neg(&coeffs[1], &CUZK_FR_ONE);
    cuzk_matrices m = {.n_rows = 1, .a = {2, rs_a, aw, ac}, .b = {0, rs_0, none, none},
                       .c = {0, rs_0, none, none}, .coeffs = coeffs, .n_coeffs = 2};
    cuzk_setup_opts o = {CUZK_ROOTS_SNARKJS, 1, &seed, NULL, NULL, NULL, NULL, NULL};
    cuzk_groth16_pk pk;
    CHECK_MSG(cuzk_groth16_setup(&pk, &m, 2, 1, &o, err) == CUZK_OK, "%s", err);
    CHECK(pk.n_b == 0 && pk.n_vars == 3);
    cuzk_fr w[3] = {CUZK_FR_ONE, CUZK_FR_ONE, CUZK_FR_ONE};
    cuzk_fr_from_u64(&w[1], 7);
    cuzk_fr_from_u64(&w[2], 9);
    cuzk_proof proof;
    CHECK_MSG(cuzk_groth16_prove(&proof, &pk, w, 3, 1, 0, NULL, err) == CUZK_OK, "%s", err);
    CHECK(cuzk_groth16_verify(&pk.vk, &proof, w + 1, 1) == CUZK_OK);
    tmp_path(path, sizeof path, "empty_b.cuzk");
    CHECK_MSG(cuzk_keyfile_write(path, &pk, NULL, 0, err) == CUZK_OK, "%s", err);
    cuzk_keyfile kf;
    CHECK_MSG(cuzk_keyfile_map(&kf, path, 0, 1, err) == CUZK_OK, "%s", err);
    CHECK(kf.pk.n_b == 0);
    CHECK_MSG(cuzk_groth16_prove(&proof, &kf.pk, w, 3, 1, 0, NULL, err) == CUZK_OK, "%s", err);
    cuzk_keyfile_close(&kf);
    /* Through a .zkey: B written as identities, read back as empty. */
    tmp_path(path, sizeof path, "empty_b.zkey");
    CHECK_MSG(cuzk_zkey_write_pk(path, &pk, NULL, 0, err) == CUZK_OK, "%s", err);
    cuzk_blob zb;
    cuzk_zkey z;
    cuzk_groth16_pk zpk;
    CHECK(cuzk_blob_read(&zb, path, err) == CUZK_OK);
    CHECK_MSG(cuzk_zkey_parse(&z, zb.data, zb.size, 0, err) == CUZK_OK, "%s", err);
    CHECK(cuzk_groth16_pk_from_zkey(&zpk, &z, 1, err) == CUZK_OK);
    CHECK(zpk.n_b == 0 && pk_points_eq(&pk, &zpk));
    cuzk_groth16_pk_free(&zpk);
    cuzk_zkey_free(&z);
    cuzk_blob_release(&zb);
    unlink(path);
    tmp_path(path, sizeof path, "empty_b.cuzk");
    unlink(path);
    /* A malformed key: a B variable out of range is refused, not read. */
    uint32_t bad_var = 3;
    cuzk_g1_affine b1 = CUZK_G1_GENERATOR;
    cuzk_g2_affine b2 = CUZK_G2_GENERATOR;
    cuzk_groth16_pk bad = pk;
    bad.n_b = 1;
    bad.b_var = &bad_var;
    bad.b1 = &b1;
    bad.b2 = &b2;
    CHECK(cuzk_groth16_prove(&proof, &bad, w, 3, 1, 0, NULL, err) == CUZK_ERR_INVALID_ARGUMENT &&
          strstr(err, "B variable"));
    CHECK(cuzk_keyfile_write(path, &bad, NULL, 0, err) == CUZK_ERR_INVALID_ARGUMENT &&
          strstr(err, "B variable"));
    cuzk_groth16_pk_free(&pk);
}

/* ---------------------------------------------------------- key files -- */

static cuzk_status open_copy(const uint8_t *img, size_t n, unsigned flags, char *err)
{
    uint8_t *b = malloc(n ? n : 1);
    memcpy(b, img, n);
    cuzk_keyfile kf;
    cuzk_status s = cuzk_keyfile_open(&kf, b, n, flags, 2, err);
    cuzk_keyfile_close(&kf);
    free(b);
    return s;
}

static void reseal(uint8_t *img)
{
    memset(img + 24, 0, 8);
    uint64_t h = cuzk_xxh64(img, 1024, 0);
    memcpy(img + 24, &h, 8);
}

static void test_keyfile(const cuzk_groth16_pk *pk, const circuit *c)
{
    char err[CUZK_ERRMSG_LEN], path[512], label[64];
    tmp_path(path, sizeof path, "key.cuzk");
    CHECK_MSG(cuzk_keyfile_write(path, pk, CUZK_SETUP_LABEL, 0, err) == CUZK_OK, "%s", err);
    cuzk_groth16_pk k2;
    CHECK_MSG(cuzk_keyfile_load(&k2, path, 0, 2, label, err) == CUZK_OK, "%s", err);
    CHECK(!strcmp(label, CUZK_SETUP_LABEL));
    CHECK(pk_points_eq(pk, &k2));
    CHECK(k2.m.n_rows == pk->m.n_rows && k2.m.c.row_start &&
          !memcmp(k2.m.a.wire, pk->m.a.wire, pk->m.a.n_terms * 4) &&
          !memcmp(k2.m.c.row_start, pk->m.c.row_start, (pk->m.n_rows + 1) * 8));
    cuzk_proof proof;
    CHECK_MSG(cuzk_groth16_prove(&proof, &k2, c->w, c->n_w, 2, 0, NULL, err) == CUZK_OK, "%s",
              err);
    CHECK(cuzk_groth16_verify(&pk->vk, &proof, c->w + 1, pk->n_public) == CUZK_OK);
    cuzk_groth16_pk_free(&k2);

    /* Proving straight from the mapped view. */
    cuzk_keyfile kf;
    CHECK_MSG(cuzk_keyfile_map(&kf, path, 0, 2, err) == CUZK_OK, "%s", err);
    CHECK(kf.has_matrices && kf.version == CUZK_KEYFILE_VERSION &&
          ((uintptr_t)kf.pk.a % 64) == 0 && ((uintptr_t)kf.pk.b2 % 64) == 0);
    CHECK(cuzk_groth16_prove(&proof, &kf.pk, c->w, c->n_w, 1, 0, NULL, err) == CUZK_OK);
    cuzk_keyfile_close(&kf);

    cuzk_blob b;
    CHECK(cuzk_blob_read(&b, path, err) == CUZK_OK);
    size_t n = b.size;
    uint8_t *img = malloc(n);
    memcpy(img, b.data, n);
    cuzk_blob_release(&b);
    CHECK(n % 64 == 0 && open_copy(img, n, 0, err) == CUZK_OK);

    /* Truncation anywhere. */
    size_t cuts[] = {0, 5, 8, 100, 1023, 1024, 1100, n / 2, n - 64, n - 1};
    for (size_t i = 0; i < sizeof cuts / sizeof cuts[0]; i++) {
        cuzk_status s = open_copy(img, cuts[i], 0, err);
        CHECK_MSG(s == CUZK_ERR_TRUNCATED, "cut at %zu: %s", cuts[i], err);
        CHECK(!strncmp(err, "key: ", 5));
    }
    /* Trailing bytes. */
    uint8_t *big = calloc(n + 64, 1);
    memcpy(big, img, n);
    CHECK(open_copy(big, n + 64, 0, err) == CUZK_ERR_BAD_ENCODING && strstr(err, "after the end"));
    free(big);
    /* Bad magic. */
    img[0] ^= 1;
    CHECK(open_copy(img, n, 0, err) == CUZK_ERR_BAD_ENCODING && strstr(err, "magic"));
    img[0] ^= 1;
    /* Wrong version, sealed or not; version 1 (dense B) by name. */
    CHECK(img[8] == 2 && CUZK_KEYFILE_VERSION == 2);
    img[8] = 3;
    CHECK(open_copy(img, n, 0, err) == CUZK_ERR_BAD_ENCODING && strstr(err, "version 3"));
    reseal(img);
    CHECK(open_copy(img, n, 0, err) == CUZK_ERR_BAD_ENCODING && strstr(err, "version 3"));
    img[8] = 1;
    reseal(img);
    CHECK_MSG(open_copy(img, n, 0, err) == CUZK_ERR_BAD_ENCODING &&
                  strstr(err, "version 1 key file") && strstr(err, "re-create it"), "%s", err);
    img[8] = 2;
    reseal(img);
    CHECK(open_copy(img, n, 0, err) == CUZK_OK);
    /* Header bytes: counts (72: n_b), flags, label, table. */
    size_t hdr_at[] = {16, 32, 36, 44, 48, 56, 72, 100, 130, 200, 230, 700, 760};
    for (size_t i = 0; i < sizeof hdr_at / sizeof hdr_at[0]; i++) {
        img[hdr_at[i]] ^= 0x10;
        cuzk_status s = open_copy(img, n, 0, err);
        CHECK_MSG(s == CUZK_ERR_BAD_ENCODING && strstr(err, "header checksum"), "byte %zu: %s",
                  hdr_at[i], err);
        /* Resealed, the structural checks still catch it (a changed label
         * byte is fine: the label is free text). */
        reseal(img);
        s = open_copy(img, n, 0, err);
        if (hdr_at[i] == 130) CHECK(s == CUZK_OK);
        else CHECK_MSG(s != CUZK_OK && !strncmp(err, "key: ", 5), "resealed byte %zu", hdr_at[i]);
        img[hdr_at[i]] ^= 0x10;
        reseal(img);
    }
    CHECK(open_copy(img, n, 0, err) == CUZK_OK);
    /* Body bytes: in every section the checksum catches it; without the
     * checksum, a point off the curve or a bad index is still caught. */
    size_t body_at[] = {1024 + 10, n / 3, n / 2, n - 70};
    for (size_t i = 0; i < sizeof body_at / sizeof body_at[0]; i++) {
        img[body_at[i]] ^= 0x04;
        cuzk_status s = open_copy(img, n, 0, err);
        CHECK_MSG(s == CUZK_ERR_BAD_ENCODING && strstr(err, "checksum mismatch"), "byte %zu: %s",
                  body_at[i], err);
        img[body_at[i]] ^= 0x04;
    }
    /* A point of A off the curve (hash skipped), and trusted. */
    size_t a_off = 0, bv_off = 0;
    uint32_t n_b = 0;
    for (unsigned i = 0; i < 18; i++) {
        uint32_t id;
        memcpy(&id, img + 192 + 32 * i, 4);
        if (id == 3) memcpy(&a_off, img + 192 + 32 * i + 16, 8);
        if (id == 4) {
            memcpy(&n_b, img + 192 + 32 * i + 8, 4);
            memcpy(&bv_off, img + 192 + 32 * i + 16, 8);
        }
    }
    CHECK(a_off > 1024 && bv_off > a_off && n_b == pk->n_b && n_b >= 2);
    /* The B variable list: checked even when the points are trusted. */
    uint32_t *bvar = (uint32_t *)(img + bv_off);
    CHECK(!memcmp(bvar, pk->b_var, n_b * 4));
    bvar[1] = bvar[0];
    CHECK_MSG(open_copy(img, n, CUZK_KEYFILE_SKIP_HASH | CUZK_KEYFILE_TRUST_POINTS, err) ==
                  CUZK_ERR_BAD_ENCODING && strstr(err, "B variable list entry 1") &&
                  strstr(err, "ascending"), "%s", err);
    bvar[1] = pk->b_var[1];
    bvar[n_b - 1] = pk->n_vars;
    CHECK_MSG(open_copy(img, n, CUZK_KEYFILE_SKIP_HASH | CUZK_KEYFILE_TRUST_POINTS, err) ==
                  CUZK_ERR_BAD_ENCODING && strstr(err, "names variable"), "%s", err);
    bvar[n_b - 1] = pk->b_var[n_b - 1];
    CHECK(open_copy(img, n, 0, err) == CUZK_OK);
    cuzk_g1_affine *pa = (cuzk_g1_affine *)(img + a_off) + 1;
    cuzk_g1_affine save = *pa;
    cuzk_fp_add(&pa->y, &pa->y, &CUZK_FP_ONE);
    CHECK(open_copy(img, n, CUZK_KEYFILE_SKIP_HASH, err) == CUZK_ERR_NOT_ON_CURVE &&
          strstr(err, "A point 1"));
    CHECK(open_copy(img, n, CUZK_KEYFILE_SKIP_HASH | CUZK_KEYFILE_TRUST_POINTS, err) == CUZK_OK);
    pa->y.l[5] = ~0ull;
    CHECK(open_copy(img, n, CUZK_KEYFILE_SKIP_HASH, err) == CUZK_ERR_NOT_CANONICAL);
    *pa = save;
    CHECK(open_copy(img, n, 0, err) == CUZK_OK);
    /* Unaligned buffers are refused, not read. */
    cuzk_keyfile kf2;
    CHECK(cuzk_keyfile_open(&kf2, img + 1, n - 1, 0, 1, err) == CUZK_ERR_INVALID_ARGUMENT);
    free(img);

    /* Without matrices. */
    CHECK(cuzk_keyfile_write(path, pk, NULL, CUZK_KEYFILE_NO_MATRICES, err) == CUZK_OK);
    CHECK(cuzk_keyfile_map(&kf, path, 0, 2, err) == CUZK_OK);
    CHECK(!kf.has_matrices && kf.pk.m.n_rows == 0 && kf.label[0] == 0);
    cuzk_keyfile_close(&kf);
    /* A missing file. */
    CHECK(cuzk_keyfile_load(&k2, "/nonexistent/key.cuzk", 0, 1, NULL, err) == CUZK_ERR_IO);
    unlink(path);
}

/* -------------------------------------------------------- bellperson -- */

static void test_params(const cuzk_groth16_pk *pk, const circuit *c)
{
    char err[CUZK_ERRMSG_LEN], pp[512], vp[512], pp2[512];
    tmp_path(pp, sizeof pp, "key.params");
    tmp_path(vp, sizeof vp, "key.vk");
    tmp_path(pp2, sizeof pp2, "key2.params");
    CHECK_MSG(cuzk_groth16_pk_write_params(pp, vp, pk, err) == CUZK_OK, "%s", err);
    cuzk_blob pb, vb;
    CHECK(cuzk_blob_read(&pb, pp, err) == CUZK_OK && cuzk_blob_read(&vb, vp, err) == CUZK_OK);
    cuzk_bp_params bp;
    cuzk_vk vk;
    CHECK_MSG(cuzk_bp_params_parse(&bp, pb.data, pb.size, 0, err) == CUZK_OK, "%s", err);
    CHECK(cuzk_bp_vk_parse(&vk, vb.data, vb.size, NULL, err) == CUZK_OK);
    CHECK(bp.roots == CUZK_ROOTS_BELLPERSON && cuzk_vk_eq(&vk, &pk->vk));
    /* The .vk is the head of the .params (formats.md §3.1). */
    CHECK(vb.size < pb.size && !memcmp(vb.data, pb.data, vb.size));
    /* Filtered: y and out have no B term. */
    CHECK(bp.b_g1.n + 2 <= pk->n_vars && bp.a.n <= pk->n_vars);
    cuzk_groth16_pk k2;
    CHECK_MSG(cuzk_groth16_pk_from_params(&k2, &bp, &c->r, 2, err) == CUZK_OK, "%s", err);
    CHECK(pk_points_eq(pk, &k2));
    cuzk_proof proof;
    CHECK_MSG(cuzk_groth16_prove(&proof, &k2, c->w, c->n_w, 2, 0, NULL, err) == CUZK_OK, "%s",
              err);
    CHECK(cuzk_groth16_verify(&vk, &proof, c->w + 1, pk->n_public) == CUZK_OK);
    uint8_t fb[CUZK_PROOF_BYTES];
    cuzk_proof back;
    CHECK(cuzk_proofs_to_bytes(fb, &proof, 1, err) == CUZK_OK &&
          cuzk_proofs_from_bytes(&back, 1, fb, sizeof fb, err) == CUZK_OK &&
          cuzk_groth16_verify(&vk, &back, c->w + 1, pk->n_public) == CUZK_OK);
    /* Re-written from what was read: the same bytes. */
    CHECK(cuzk_groth16_pk_write_params(pp2, NULL, &k2, err) == CUZK_OK);
    cuzk_blob p2;
    CHECK(cuzk_blob_read(&p2, pp2, err) == CUZK_OK);
    CHECK(p2.size == pb.size && !memcmp(p2.data, pb.data, pb.size));
    cuzk_blob_release(&p2);
    /* B over other variables than the matrices' density: refused. */
    cuzk_groth16_pk other = *pk;
    other.n_b = pk->n_b - 1;
    CHECK_MSG(cuzk_groth16_pk_write_params(pp2, NULL, &other, err) == CUZK_ERR_INVALID_ARGUMENT &&
                  strstr(err, "B variables"), "%s", err);
    /* A snarkjs-form key cannot be a .params. */
    other = *pk;
    other.roots = CUZK_ROOTS_SNARKJS;
    other.h_form = CUZK_H_LAGRANGE;
    CHECK(cuzk_groth16_pk_write_params(pp2, NULL, &other, err) == CUZK_ERR_INVALID_ARGUMENT &&
          strstr(err, "roots"));
    cuzk_groth16_pk_free(&k2);
    cuzk_vk_free(&vk);
    cuzk_bp_params_free(&bp);
    cuzk_blob_release(&pb);
    cuzk_blob_release(&vb);
    unlink(pp);
    unlink(vp);
    unlink(pp2);
}

/* ---------------------------------------------------------------- main -- */

static void test_circuit(cuzk_roots roots, uint64_t seed)
{
    char err[CUZK_ERRMSG_LEN];
    circuit c;
    CHECK(build(&c, 1100, test_rand64() | 1, test_rand64()));
    uint32_t n_in = c.r.n_public + 1;
    cuzk_toxic_waste tw;
    cuzk_setup_opts o = {roots, 2, &seed, on_progress, NULL, &tw, NULL, NULL};
    cuzk_groth16_pk pk;
    progress_calls = 0;
    CHECK_MSG(cuzk_groth16_setup(&pk, &c.r.m, n_in, c.r.n_wires - n_in, &o, err) == CUZK_OK, "%s",
              err);
    CHECK(progress_calls >= 6);
    CHECK(pk.log_domain == 11 && pk.n_public == 3 && pk.roots == roots &&
          pk.h_form == (roots == CUZK_ROOTS_SNARKJS ? CUZK_H_LAGRANGE : CUZK_H_MONOMIAL));
    check_points(&pk, &tw);

    cuzk_proof proof;
    CHECK_MSG(cuzk_groth16_prove(&proof, &pk, c.w, c.n_w, 2, 0, NULL, err) == CUZK_OK, "%s", err);
    CHECK(cuzk_groth16_verify(&pk.vk, &proof, c.w + 1, 3) == CUZK_OK);
    cuzk_fr bad[3] = {c.w[1], c.w[2], c.w[3]};
    cuzk_fr_add(&bad[2], &bad[2], &CUZK_FR_ONE);
    CHECK(cuzk_groth16_verify(&pk.vk, &proof, bad, 3) == CUZK_ERR_PROOF_INVALID);
    /* A wrong witness: one aux value changed. */
    cuzk_fr keep = c.w[10];
    cuzk_fr_add(&c.w[10], &c.w[10], &CUZK_FR_ONE);
    CHECK(cuzk_groth16_prove(&proof, &pk, c.w, c.n_w, 2, 0, NULL, err) == CUZK_ERR_UNSATISFIED);
    c.w[10] = keep;

    /* Same seed, one thread: the same key. Another seed: another key. */
    cuzk_groth16_pk pk1;
    o.nthreads = 1;
    o.progress = NULL;
    o.toxic_out = NULL;
    CHECK(cuzk_groth16_setup(&pk1, &c.r.m, n_in, c.r.n_wires - n_in, &o, err) == CUZK_OK);
    CHECK(pk_points_eq(&pk, &pk1));
    cuzk_groth16_pk_free(&pk1);
    /* The same through the fixed-base offload hook. */
    test_fixed_mul(&pk, &c.r.m, n_in, c.r.n_wires - n_in, roots, seed);
    uint64_t seed2 = seed + 1;
    o.seed = &seed2;
    CHECK(cuzk_groth16_setup(&pk1, &c.r.m, n_in, c.r.n_wires - n_in, &o, err) == CUZK_OK);
    CHECK(!cuzk_g1_affine_eq(&pk.a[1], &pk1.a[1]));
    cuzk_groth16_pk_free(&pk1);
    /* The OS CSPRNG: two keys differ. */
    o.seed = NULL;
    CHECK(cuzk_groth16_setup(&pk1, &c.r.m, n_in, c.r.n_wires - n_in, &o, err) == CUZK_OK);
    CHECK(!cuzk_g1_affine_eq(&pk.a[1], &pk1.a[1]));
    CHECK(cuzk_groth16_prove(&proof, &pk1, c.w, c.n_w, 2, 0, NULL, err) == CUZK_OK);
    cuzk_groth16_pk_free(&pk1);

    if (roots == CUZK_ROOTS_SNARKJS) { /* the same circuit as a .r1cs file */
        char path[512];
        tmp_path(path, sizeof path, "circuit.r1cs");
        cuzk_blob rb;
        cuzk_r1cs rf;
        CHECK(cuzk_r1cs_write(path, &c.r, err) == CUZK_OK);
        CHECK(cuzk_blob_read(&rb, path, err) == CUZK_OK);
        CHECK(cuzk_r1cs_parse(&rf, rb.data, rb.size, err) == CUZK_OK);
        o.seed = &seed;
        CHECK(cuzk_groth16_setup(&pk1, &rf.m, rf.n_public + 1, rf.n_wires - rf.n_public - 1, &o,
                                 err) == CUZK_OK);
        CHECK(pk_points_eq(&pk, &pk1));
        CHECK(cuzk_groth16_prove(&proof, &pk1, c.w, c.n_w, 2, 0, NULL, err) == CUZK_OK);
        CHECK(cuzk_groth16_verify(&pk1.vk, &proof, c.w + 1, 3) == CUZK_OK);
        cuzk_groth16_pk_free(&pk1);
        cuzk_r1cs_free(&rf);
        cuzk_blob_release(&rb);
        unlink(path);
    }
    if (roots == CUZK_ROOTS_BELLPERSON) test_params(&pk, &c);
    else test_keyfile(&pk, &c);
    cuzk_groth16_pk_free(&pk);
    circuit_free(&c);
}

/* tests/data/mul.r1cs + mul.wtns (snarkjs's example, domain 8): setup,
 * prove, verify; through a .zkey as well. */
static void test_r1cs_file(uint64_t seed)
{
    char err[CUZK_ERRMSG_LEN], path[1024];
    cuzk_blob rb = {0}, wb = {0};
    snprintf(path, sizeof path, "%s/mul.r1cs", test_data_dir());
    cuzk_status s = cuzk_blob_read(&rb, path, err);
    CHECK_MSG(s == CUZK_OK, "%s", err);
    if (s != CUZK_OK) return;
    snprintf(path, sizeof path, "%s/mul.wtns", test_data_dir());
    s = cuzk_blob_read(&wb, path, err);
    CHECK_MSG(s == CUZK_OK, "%s", err);
    if (s != CUZK_OK) {
        cuzk_blob_release(&rb);
        return;
    }
    cuzk_r1cs r;
    cuzk_wtns w;
    CHECK(cuzk_r1cs_parse(&r, rb.data, rb.size, err) == CUZK_OK);
    CHECK(cuzk_wtns_parse(&w, wb.data, wb.size, err) == CUZK_OK);
    cuzk_setup_opts o = {CUZK_ROOTS_SNARKJS, 2, &seed, NULL, NULL, NULL, NULL, NULL};
    cuzk_groth16_pk pk;
    uint32_t n_in = r.n_public + 1;
    CHECK_MSG(cuzk_groth16_setup(&pk, &r.m, n_in, r.n_wires - n_in, &o, err) == CUZK_OK, "%s", err);
    CHECK(pk.log_domain == 3); /* 3 constraints + 3 input rows */
    cuzk_proof proof;
    CHECK_MSG(cuzk_groth16_prove(&proof, &pk, w.w, w.n, 2, 0, NULL, err) == CUZK_OK, "%s", err);
    CHECK(cuzk_groth16_verify(&pk.vk, &proof, w.w + 1, r.n_public) == CUZK_OK);

    /* Through a .zkey: written, parsed, proven, verified. */
    tmp_path(path, sizeof path, "key.zkey");
    CHECK_MSG(cuzk_zkey_write_pk(path, &pk, NULL, 0, err) == CUZK_OK, "%s", err);
    cuzk_blob zb;
    cuzk_zkey z;
    cuzk_groth16_pk zpk;
    CHECK(cuzk_blob_read(&zb, path, err) == CUZK_OK);
    CHECK_MSG(cuzk_zkey_parse(&z, zb.data, zb.size, 0, err) == CUZK_OK, "%s", err);
    CHECK(cuzk_zkey_check_r1cs(&z, &r, err) == CUZK_OK);
    CHECK(cuzk_groth16_pk_from_zkey(&zpk, &z, 2, err) == CUZK_OK);
    CHECK(pk_points_eq(&pk, &zpk));
    CHECK(cuzk_groth16_prove(&proof, &zpk, w.w, w.n, 2, 0, NULL, err) == CUZK_OK);
    CHECK(cuzk_groth16_verify(&z.vk, &proof, w.w + 1, r.n_public) == CUZK_OK);
    unlink(path);
    cuzk_groth16_pk_free(&zpk);
    cuzk_zkey_free(&z);
    cuzk_blob_release(&zb);

    /* Bad inputs: a clear error, never a crash. */
    cuzk_groth16_pk bad;
    CHECK(cuzk_groth16_setup(&bad, &r.m, 0, r.n_wires, &o, err) == CUZK_ERR_INVALID_ARGUMENT);
    CHECK(cuzk_groth16_setup(&bad, &r.m, n_in, r.n_wires - n_in - 1, &o, err) ==
              CUZK_ERR_INVALID_ARGUMENT && strstr(err, "wire"));
    cuzk_matrices noc = r.m;
    noc.c.row_start = NULL;
    CHECK(cuzk_groth16_setup(&bad, &noc, n_in, r.n_wires - n_in, &o, err) ==
              CUZK_ERR_INVALID_ARGUMENT && strstr(err, "C"));
    o.roots = (cuzk_roots)3;
    CHECK(cuzk_groth16_setup(&bad, &r.m, n_in, r.n_wires - n_in, &o, err) ==
          CUZK_ERR_INVALID_ARGUMENT);
    cuzk_groth16_pk_free(&pk);
    cuzk_r1cs_free(&r);
    cuzk_wtns_free(&w);
    cuzk_blob_release(&rb);
    cuzk_blob_release(&wb);
}

int main(void)
{
    test_seed("test_setup");
    uint64_t seed = test_rand64();
    test_circuit(CUZK_ROOTS_SNARKJS, seed);
    test_circuit(CUZK_ROOTS_BELLPERSON, seed);
    test_r1cs_file(seed);
    test_empty_b(seed);
    return test_done("test_setup");
}
