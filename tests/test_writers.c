/* Tests of the iden3 writers (src/formats/write_iden3.c):
 *   - mul.r1cs (circom) parses and re-encodes byte for byte, through memory
 *     and through a file; without labels it gets circom's identity map;
 *     random systems survive write -> parse with every coefficient intact;
 *   - mul.zkey (snarkjs, contributed) parses and re-encodes byte for byte
 *     from its parsed parts and raw section 10; without section 10 an empty
 *     contribution section is written; random coefficients survive the
 *     c R^2 encoding; a key big enough to pass the file buffer streams to
 *     the same bytes as the memory image;
 *   - a cuzk_groth16_pk built from mul.zkey, written with
 *     cuzk_zkey_write_pk, re-parsed and rebuilt, proves mul.wtns and the
 *     proof verifies against vk.json (a working key);
 *   - errors: unwritable paths (CUZK_ERR_IO, message, old file untouched,
 *     no temporary left), NULL arguments and inconsistent inputs
 *     (CUZK_ERR_INVALID_ARGUMENT with a message).
 *
 * Data directory: $CUZK_TESTDATA, else "tests/data". */
#include <dirent.h>
#include <sys/stat.h>
#include <string.h>
#include <unistd.h>

#include <cuzk/groth16.h>
#include <cuzk/prove.h>
#include <cuzk/formats.h>

#include "test_util.h"

/* ------------------------------------------------------------- helpers -- */

typedef struct {
    uint8_t *p;
    size_t n;
} buf;

static buf load(const char *name)
{
    char path[1024], err[CUZK_ERRMSG_LEN];
    cuzk_blob b;
    buf r = {NULL, 0};
    snprintf(path, sizeof path, "%s/%s", test_data_dir(), name);
    if (cuzk_blob_read(&b, path, err) != CUZK_OK) {
        fprintf(stderr, "cannot read %s (%s): set CUZK_TESTDATA to tests/data\n", path, err);
        exit(1);
    }
    r.n = b.size;
    r.p = malloc(r.n ? r.n : 1);
    memcpy(r.p, b.data, r.n);
    cuzk_blob_release(&b);
    return r;
}

static int contains(const char *s, const char *sub) { return strstr(s, sub) != NULL; }

static uint32_t rd32le_u(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static char tmpdir[] = "/tmp/cuzk_test_writers_XXXXXX";

static const char *tmp_path(const char *name)
{
    static char p[2][256];
    static int k;
    k ^= 1;
    snprintf(p[k], sizeof p[k], "%s/%s", tmpdir, name);
    return p[k];
}

/* Number of entries in tmpdir other than . and .. */
static int tmpdir_entries(void)
{
    DIR *d = opendir(tmpdir);
    int n = 0;
    struct dirent *e;
    if (!d) return -1;
    while ((e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) n++;
    closedir(d);
    return n;
}

static void rm_tmpdir(void)
{
    DIR *d = opendir(tmpdir);
    struct dirent *e;
    char p[512];
    if (!d) return;
    while ((e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
            snprintf(p, sizeof p, "%s/%s", tmpdir, e->d_name);
            unlink(p);
        }
    closedir(d);
    rmdir(tmpdir);
}

static int file_equals(const char *path, const uint8_t *p, size_t n)
{
    cuzk_blob b;
    if (cuzk_blob_read(&b, path, NULL) != CUZK_OK) return 0;
    int eq = b.size == n && (n == 0 || !memcmp(b.data, p, n));
    cuzk_blob_release(&b);
    return eq;
}

/* Row j of s as values (in row order). Returns the length. */
static uint64_t row_values(cuzk_fr *vals, uint32_t *wires, const cuzk_sparse *s,
                           const cuzk_fr *coeffs, uint64_t j)
{
    if (!s->row_start) return 0;
    uint64_t n = 0;
    for (uint64_t k = s->row_start[j]; k < s->row_start[j + 1]; k++, n++) {
        vals[n] = coeffs[s->coeff[k]];
        wires[n] = s->wire[k];
    }
    return n;
}

/* 1 if the two matrices have the same rows, term for term, in order. */
static int sparse_same(const cuzk_sparse *x, const cuzk_fr *cx, const cuzk_sparse *y,
                       const cuzk_fr *cy, uint64_t n_rows)
{
    uint64_t nx = x->row_start ? x->n_terms : 0, ny = y->row_start ? y->n_terms : 0;
    if (nx != ny) return 0;
    cuzk_fr *vx = malloc((nx + 1) * sizeof *vx), *vy = malloc((nx + 1) * sizeof *vy);
    uint32_t *wx = malloc((nx + 1) * sizeof *wx), *wy = malloc((nx + 1) * sizeof *wy);
    int same = 1;
    for (uint64_t j = 0; same && j < n_rows; j++) {
        uint64_t a = row_values(vx, wx, x, cx, j), b = row_values(vy, wy, y, cy, j);
        same = a == b;
        for (uint64_t k = 0; same && k < a; k++)
            same = wx[k] == wy[k] && cuzk_fr_eq(&vx[k], &vy[k]);
    }
    free(vx);
    free(vy);
    free(wx);
    free(wy);
    return same;
}

static int r1cs_same(const cuzk_r1cs *x, const cuzk_r1cs *y)
{
    return x->n_wires == y->n_wires && x->n_pub_out == y->n_pub_out &&
           x->n_pub_in == y->n_pub_in && x->n_prv_in == y->n_prv_in &&
           x->n_constraints == y->n_constraints && x->n_public == y->n_public &&
           x->m.n_rows == y->m.n_rows &&
           sparse_same(&x->m.a, x->m.coeffs, &y->m.a, y->m.coeffs, x->m.n_rows) &&
           sparse_same(&x->m.b, x->m.coeffs, &y->m.b, y->m.coeffs, x->m.n_rows) &&
           sparse_same(&x->m.c, x->m.coeffs, &y->m.c, y->m.coeffs, x->m.n_rows);
}

static buf f_r1cs, f_zkey, f_wtns, f_vkjson;

/* --------------------------------------------------------------- r1cs -- */

static void test_r1cs_roundtrip(void)
{
    char err[CUZK_ERRMSG_LEN];
    cuzk_r1cs r, r2;
    uint8_t *out = NULL;
    size_t len = 0;
    CHECK_MSG(cuzk_r1cs_parse(&r, f_r1cs.p, f_r1cs.n, err) == CUZK_OK, "%s", err);
    CHECK(r.labels != NULL && r.n_labels == 7);

    /* circom's file, byte for byte (sections 2, 1, 3 as circom writes) */
    CHECK_MSG(cuzk_r1cs_encode(&out, &len, &r, err) == CUZK_OK, "%s", err);
    CHECK(err[0] == 0);
    CHECK_MSG(len == f_r1cs.n && !memcmp(out, f_r1cs.p, len), "len %zu vs %zu", len, f_r1cs.n);
    free(out);

    const char *path = tmp_path("w.r1cs");
    CHECK_MSG(cuzk_r1cs_write(path, &r, err) == CUZK_OK, "%s", err);
    CHECK(file_equals(path, f_r1cs.p, f_r1cs.n));

    /* no labels: the identity map, nLabels = nWires */
    uint64_t *labels = r.labels;
    r.labels = NULL;
    r.n_labels = 0;
    CHECK(cuzk_r1cs_encode(&out, &len, &r, err) == CUZK_OK);
    CHECK(len == f_r1cs.n);
    CHECK_MSG(cuzk_r1cs_parse(&r2, out, len, err) == CUZK_OK, "%s", err);
    CHECK(r1cs_same(&r, &r2));
    CHECK(r2.n_labels == r.n_wires && r2.labels != NULL);
    for (uint32_t i = 0; r2.labels && i < r2.n_wires; i++) CHECK(r2.labels[i] == i);
    cuzk_r1cs_free(&r2);
    free(out);
    r.labels = labels;
    r.n_labels = 7;

    /* an absent C matrix is written as empty rows */
    cuzk_sparse c = r.m.c;
    r.m.c.row_start = NULL;
    CHECK(cuzk_r1cs_encode(&out, &len, &r, err) == CUZK_OK);
    CHECK(cuzk_r1cs_parse(&r2, out, len, err) == CUZK_OK);
    CHECK(r2.m.c.n_terms == 0 && r2.m.a.n_terms == r.m.a.n_terms);
    cuzk_r1cs_free(&r2);
    free(out);
    r.m.c = c;
    cuzk_r1cs_free(&r);
}

/* A random system: n_cons constraints over n_wires wires, random terms
 * (wires in any order, repeats allowed, as circom may write), coefficients
 * random, small or +-1, labels random. */
static void random_r1cs(cuzk_r1cs *r, uint32_t n_wires, uint32_t n_cons)
{
    memset(r, 0, sizeof *r);
    r->n_wires = n_wires;
    r->n_pub_out = (uint32_t)(test_rand64() % 3);
    r->n_pub_in = (uint32_t)(test_rand64() % 3);
    r->n_prv_in = (uint32_t)(test_rand64() % 3);
    r->n_public = r->n_pub_out + r->n_pub_in;
    r->n_constraints = n_cons;
    r->m.n_rows = n_cons;
    r->m.n_coeffs = 2 + 50;
    r->m.coeffs = malloc(r->m.n_coeffs * sizeof *r->m.coeffs);
    r->m.coeffs[0] = CUZK_FR_ONE;
    cuzk_fr_neg(&r->m.coeffs[1], &CUZK_FR_ONE);
    for (uint32_t i = 2; i < r->m.n_coeffs; i++) {
        if (i % 5 == 0)
            cuzk_fr_from_u64(&r->m.coeffs[i], test_rand64() % 1000);
        else
            test_rand_fr(&r->m.coeffs[i]);
    }
    cuzk_sparse *mat[3] = {&r->m.a, &r->m.b, &r->m.c};
    for (int m = 0; m < 3; m++) {
        cuzk_sparse *s = mat[m];
        uint64_t cap = (uint64_t)n_cons * 6 + 1;
        s->row_start = malloc((n_cons + 1) * sizeof *s->row_start);
        s->wire = malloc(cap * sizeof *s->wire);
        s->coeff = malloc(cap * sizeof *s->coeff);
        uint64_t k = 0;
        for (uint32_t j = 0; j < n_cons; j++) {
            s->row_start[j] = k;
            uint32_t nt = (uint32_t)(test_rand64() % 6);
            for (uint32_t t = 0; t < nt; t++, k++) {
                s->wire[k] = (uint32_t)(test_rand64() % n_wires);
                s->coeff[k] = (uint32_t)(test_rand64() % r->m.n_coeffs);
            }
        }
        s->row_start[n_cons] = k;
        s->n_terms = k;
    }
    r->n_labels = (uint64_t)n_wires * 3 + 1;
    r->labels = malloc(n_wires * sizeof *r->labels);
    for (uint32_t i = 0; i < n_wires; i++) r->labels[i] = test_rand64() % r->n_labels;
}

static void test_r1cs_random(void)
{
    char err[CUZK_ERRMSG_LEN];
    for (int it = 0; it < 20; it++) {
        cuzk_r1cs r, r2;
        uint32_t n_wires = 8 + (uint32_t)(test_rand64() % 200);
        uint32_t n_cons = (uint32_t)(test_rand64() % 300);
        random_r1cs(&r, n_wires, n_cons);
        uint8_t *out;
        size_t len;
        CHECK_MSG(cuzk_r1cs_encode(&out, &len, &r, err) == CUZK_OK, "%s", err);
        CHECK_MSG(cuzk_r1cs_parse(&r2, out, len, err) == CUZK_OK, "%s", err);
        CHECK(r1cs_same(&r, &r2));
        CHECK(r2.n_labels == r.n_labels);
        for (uint32_t i = 0; r2.labels && i < n_wires; i++) CHECK(r2.labels[i] == r.labels[i]);
        /* and the re-encoding of the parsed system is the same file */
        uint8_t *out2;
        size_t len2;
        CHECK(cuzk_r1cs_encode(&out2, &len2, &r2, err) == CUZK_OK);
        CHECK(len2 == len && !memcmp(out, out2, len));
        free(out);
        free(out2);
        cuzk_r1cs_free(&r2);
        cuzk_r1cs_free(&r);
    }
}

static void test_r1cs_errors(void)
{
    char err[CUZK_ERRMSG_LEN];
    cuzk_r1cs r;
    uint8_t *out = (uint8_t *)1;
    size_t len = 1;
    CHECK(cuzk_r1cs_parse(&r, f_r1cs.p, f_r1cs.n, err) == CUZK_OK);

    CHECK(cuzk_r1cs_encode(NULL, &len, &r, err) == CUZK_ERR_INVALID_ARGUMENT && err[0]);
    CHECK(cuzk_r1cs_encode(&out, NULL, &r, err) == CUZK_ERR_INVALID_ARGUMENT);
    CHECK(cuzk_r1cs_encode(&out, &len, NULL, err) == CUZK_ERR_INVALID_ARGUMENT);
    CHECK(out == NULL && len == 0);
    CHECK(cuzk_r1cs_write(NULL, &r, err) == CUZK_ERR_INVALID_ARGUMENT);
    CHECK(cuzk_r1cs_write(tmp_path("x.r1cs"), NULL, err) == CUZK_ERR_INVALID_ARGUMENT);
    CHECK(cuzk_r1cs_encode(&out, &len, NULL, NULL) == CUZK_ERR_INVALID_ARGUMENT);

    CHECK(cuzk_r1cs_write("/nonexistent/dir/x.r1cs", &r, err) == CUZK_ERR_IO &&
          contains(err, "/nonexistent/dir/x.r1cs"));

    /* inconsistent systems */
    uint32_t w = r.m.a.wire[0];
    r.m.a.wire[0] = r.n_wires;
    CHECK(cuzk_r1cs_encode(&out, &len, &r, err) == CUZK_ERR_INVALID_ARGUMENT &&
          contains(err, "out of range"));
    r.m.a.wire[0] = w;
    uint32_t ci = r.m.b.coeff[0];
    r.m.b.coeff[0] = r.m.n_coeffs;
    CHECK(cuzk_r1cs_encode(&out, &len, &r, err) == CUZK_ERR_INVALID_ARGUMENT && err[0]);
    r.m.b.coeff[0] = ci;
    r.n_prv_in += 10;
    CHECK(cuzk_r1cs_encode(&out, &len, &r, err) == CUZK_ERR_INVALID_ARGUMENT && err[0]);
    r.n_prv_in -= 10;
    r.n_public++;
    CHECK(cuzk_r1cs_encode(&out, &len, &r, err) == CUZK_ERR_INVALID_ARGUMENT && err[0]);
    r.n_public--;
    r.n_constraints++;
    CHECK(cuzk_r1cs_encode(&out, &len, &r, err) == CUZK_ERR_INVALID_ARGUMENT && err[0]);
    r.n_constraints--;
    uint64_t rs = r.m.c.row_start[1];
    r.m.c.row_start[1] = r.m.c.n_terms + 5;
    CHECK(cuzk_r1cs_encode(&out, &len, &r, err) == CUZK_ERR_INVALID_ARGUMENT && err[0]);
    r.m.c.row_start[1] = rs;

    /* a failed write leaves an existing file as it was */
    const char *path = tmp_path("keep.r1cs");
    CHECK(cuzk_file_write(path, "old", 3, err) == CUZK_OK);
    r.m.a.wire[0] = r.n_wires;
    CHECK(cuzk_r1cs_write(path, &r, err) == CUZK_ERR_INVALID_ARGUMENT);
    r.m.a.wire[0] = w;
    CHECK(file_equals(path, (const uint8_t *)"old", 3));
    CHECK(cuzk_r1cs_encode(&out, &len, &r, err) == CUZK_OK);
    free(out);
    cuzk_r1cs_free(&r);
}

/* --------------------------------------------------------------- zkey -- */

/* Decoded point arrays of a parsed zkey, for a cuzk_zkey_src. */
typedef struct {
    cuzk_g1_affine *a, *b1, *c, *h;
    cuzk_g2_affine *b2;
} zpoints;

static void zpoints_decode(zpoints *p, const cuzk_zkey *z)
{
    p->a = malloc((z->a.n + 1) * sizeof *p->a);
    p->b1 = malloc((z->b1.n + 1) * sizeof *p->b1);
    p->b2 = malloc((z->b2.n + 1) * sizeof *p->b2);
    p->c = malloc((z->c.n + 1) * sizeof *p->c);
    p->h = malloc((z->h.n + 1) * sizeof *p->h);
    CHECK(cuzk_points_decode_g1(p->a, &z->a, 0, z->a.n, 0, 1, NULL) == CUZK_OK);
    CHECK(cuzk_points_decode_g1(p->b1, &z->b1, 0, z->b1.n, 0, 1, NULL) == CUZK_OK);
    CHECK(cuzk_points_decode_g2(p->b2, &z->b2, 0, z->b2.n, 0, 1, NULL) == CUZK_OK);
    CHECK(cuzk_points_decode_g1(p->c, &z->c, 0, z->c.n, 0, 1, NULL) == CUZK_OK);
    CHECK(cuzk_points_decode_g1(p->h, &z->h, 0, z->h.n, 0, 1, NULL) == CUZK_OK);
}

static void zpoints_free(zpoints *p)
{
    free(p->a);
    free(p->b1);
    free(p->b2);
    free(p->c);
    free(p->h);
}

static cuzk_zkey_src src_of(const cuzk_zkey *z, const zpoints *p)
{
    return (cuzk_zkey_src){.n_vars = z->n_vars,
                           .n_public = z->n_public,
                           .domain_size = z->domain_size,
                           .vk = &z->vk,
                           .m = &z->m,
                           .a = p->a,
                           .b1 = p->b1,
                           .b2 = p->b2,
                           .c = p->c,
                           .h = p->h,
                           .mpc = z->mpc,
                           .mpc_size = (size_t)z->mpc_size};
}

static void test_zkey_roundtrip(void)
{
    char err[CUZK_ERRMSG_LEN];
    cuzk_zkey z, z2;
    zpoints p;
    uint8_t *out;
    size_t len;
    CHECK_MSG(cuzk_zkey_parse(&z, f_zkey.p, f_zkey.n, CUZK_FMT_SUBGROUP, err) == CUZK_OK, "%s",
              err);
    CHECK(z.mpc != NULL && z.mpc_size == 625); /* one contribution, "two" */
    zpoints_decode(&p, &z);
    cuzk_zkey_src src = src_of(&z, &p);

    /* snarkjs's file, byte for byte */
    CHECK(cuzk_zkey_size(&src) == f_zkey.n);
    CHECK_MSG(cuzk_zkey_encode(&out, &len, &src, err) == CUZK_OK, "%s", err);
    CHECK(err[0] == 0);
    CHECK_MSG(len == f_zkey.n && !memcmp(out, f_zkey.p, len), "len %zu vs %zu", len, f_zkey.n);
    free(out);
    const char *path = tmp_path("w.zkey");
    CHECK_MSG(cuzk_zkey_write(path, &src, err) == CUZK_OK, "%s", err);
    CHECK(file_equals(path, f_zkey.p, f_zkey.n));

    /* no section 10: csHash (given or zero) and no contributions */
    uint8_t hash[64];
    for (int i = 0; i < 64; i++) hash[i] = (uint8_t)test_rand64();
    for (int with_hash = 0; with_hash < 2; with_hash++) {
        src.mpc = NULL;
        src.mpc_size = 0;
        src.cs_hash = with_hash ? hash : NULL;
        CHECK(cuzk_zkey_size(&src) == f_zkey.n - 625 + 68);
        CHECK(cuzk_zkey_encode(&out, &len, &src, err) == CUZK_OK);
        CHECK(len == f_zkey.n - 625 + 68);
        CHECK(!memcmp(out, f_zkey.p, len - 68 - 12 + 4)); /* all before section 10's size */
        CHECK_MSG(cuzk_zkey_parse(&z2, out, len, CUZK_FMT_SUBGROUP, err) == CUZK_OK, "%s", err);
        CHECK(z2.mpc_size == 68 && rd32le_u(z2.mpc + 64) == 0);
        uint8_t zero[64] = {0};
        CHECK(!memcmp(z2.mpc, with_hash ? hash : zero, 64));
        cuzk_zkey_free(&z2);
        free(out);
    }
    zpoints_free(&p);
    cuzk_zkey_free(&z);
}

/* Random coefficient values through section 4's c R^2 encoding: every
 * record is checked against the rows (A terms then B terms, row by row) and
 * the key re-parses to the same values. */
static void test_zkey_coefficients(void)
{
    char err[CUZK_ERRMSG_LEN];
    cuzk_zkey z, z2;
    zpoints p;
    CHECK(cuzk_zkey_parse(&z, f_zkey.p, f_zkey.n, 0, err) == CUZK_OK);
    zpoints_decode(&p, &z);
    /* R^2 mod r as an element (formats.md §1) */
    static const uint64_t R2[4] = {0xc999e990f3f29c6dull, 0x2b6cedcb87925c23ull,
                                   0x05d314967254398full, 0x0748d9d99f59ff11ull};
    cuzk_fr r2;
    CHECK(cuzk_fr_from_limbs(&r2, R2) == CUZK_OK);
    for (int it = 0; it < 10; it++) {
        cuzk_matrices m = z.m; /* shallow: the same rows, new values */
        m.n_coeffs = z.m.n_coeffs + 40;
        m.coeffs = malloc(m.n_coeffs * sizeof *m.coeffs);
        memcpy(m.coeffs, z.m.coeffs, z.m.n_coeffs * sizeof *m.coeffs);
        for (uint32_t i = z.m.n_coeffs; i < m.n_coeffs; i++) test_rand_fr(&m.coeffs[i]);
        cuzk_fr_from_u64(&m.coeffs[m.n_coeffs - 1], 0); /* zero too */
        cuzk_fr_from_u64(&m.coeffs[m.n_coeffs - 2], 7);
        uint32_t *ca = malloc(m.a.n_terms * sizeof *ca), *cb = malloc(m.b.n_terms * sizeof *cb);
        memcpy(ca, z.m.a.coeff, m.a.n_terms * sizeof *ca);
        memcpy(cb, z.m.b.coeff, m.b.n_terms * sizeof *cb);
        uint64_t n_cons = z.n_constraints; /* input rows keep their 1 */
        for (uint64_t k = 0; k < m.a.row_start[n_cons]; k++)
            ca[k] = (uint32_t)(test_rand64() % m.n_coeffs);
        for (uint64_t k = 0; k < m.b.row_start[n_cons]; k++)
            cb[k] = (uint32_t)(test_rand64() % m.n_coeffs);
        m.a.coeff = ca;
        m.b.coeff = cb;
        cuzk_zkey_src src = src_of(&z, &p);
        src.m = &m;
        uint8_t *out;
        size_t len;
        CHECK_MSG(cuzk_zkey_encode(&out, &len, &src, err) == CUZK_OK, "%s", err);
        CHECK_MSG(cuzk_zkey_parse(&z2, out, len, 0, err) == CUZK_OK, "%s", err);
        CHECK(z2.m.n_rows == m.n_rows && z2.n_constraints == z.n_constraints);
        CHECK(sparse_same(&m.a, m.coeffs, &z2.m.a, z2.m.coeffs, m.n_rows));
        CHECK(sparse_same(&m.b, m.coeffs, &z2.m.b, z2.m.coeffs, m.n_rows));
        CHECK(z2.n_coef_records == m.a.n_terms + m.b.n_terms);
        uint32_t i = 0;
        int ok = 1;
        for (uint64_t j = 0; j < m.n_rows; j++)
            for (uint32_t mat = 0; mat < 2; mat++) {
                const cuzk_sparse *s = mat ? &m.b : &m.a;
                for (uint64_t k = s->row_start[j]; k < s->row_start[j + 1]; k++, i++) {
                    if (i >= z2.n_coef_records) {
                        ok = 0;
                        continue;
                    }
                    const uint8_t *rec = z2.coef_bytes + 44 * (size_t)i;
                    cuzk_fr stored, want;
                    cuzk_fr_mul(&want, &m.coeffs[s->coeff[k]], &r2);
                    ok &= rd32le_u(rec) == mat && rd32le_u(rec + 4) == j &&
                          rd32le_u(rec + 8) == s->wire[k] &&
                          cuzk_fr_from_le(&stored, rec + 12) == CUZK_OK &&
                          cuzk_fr_eq(&stored, &want);
                }
            }
        CHECK(ok && i == z2.n_coef_records);
        cuzk_zkey_free(&z2);
        free(out);
        free(ca);
        free(cb);
        free(m.coeffs);
    }
    zpoints_free(&p);
    cuzk_zkey_free(&z);
}

/* A key larger than the writer's 1 MiB file buffer, with a 1.5 MB section
 * 10: the streamed file equals the memory image, and it parses. */
static void test_zkey_large(void)
{
    char err[CUZK_ERRMSG_LEN];
    const uint32_t n_vars = 3001, n_public = 2, domain = 4096;
    cuzk_g1_affine g1 = CUZK_G1_GENERATOR, inf1;
    cuzk_g2_affine g2 = CUZK_G2_GENERATOR, inf2;
    memset(&inf1, 0, sizeof inf1);
    memset(&inf2, 0, sizeof inf2);
    cuzk_g1_affine *a = malloc(n_vars * sizeof *a), *b1 = malloc(n_vars * sizeof *b1);
    cuzk_g2_affine *b2 = malloc(n_vars * sizeof *b2);
    cuzk_g1_affine *c = malloc(n_vars * sizeof *c), *h = malloc(domain * sizeof *h);
    uint8_t *bits = malloc(n_vars + domain);
    for (uint32_t i = 0; i < n_vars + domain; i++) bits[i] = (uint8_t)(test_rand64() & 1);
    for (uint32_t i = 0; i < n_vars; i++) {
        a[i] = bits[i] ? g1 : inf1;
        b1[i] = bits[i] ? inf1 : g1;
        b2[i] = bits[i] ? inf2 : g2;
        c[i] = g1;
    }
    for (uint32_t i = 0; i < domain; i++) h[i] = bits[n_vars + i] ? g1 : inf1;
    cuzk_g1_affine ic[3] = {g1, inf1, g1};
    cuzk_vk vk = {.alpha_g1 = g1, .beta_g1 = g1, .delta_g1 = g1, .beta_g2 = g2,
                  .gamma_g2 = g2, .delta_g2 = g2, .has_g1_extras = 1, .n_ic = 3, .ic = ic};
    /* one constraint (w3 * 2) * (w4) = ..., then the 3 input rows */
    uint64_t ars[5] = {0, 1, 2, 3, 4}, brs[5] = {0, 1, 1, 1, 1};
    uint32_t aw[4] = {3, 0, 1, 2}, ac[4] = {2, 0, 0, 0}, bw[1] = {4}, bc[1] = {1};
    cuzk_fr coeffs[3];
    coeffs[0] = CUZK_FR_ONE;
    cuzk_fr_neg(&coeffs[1], &CUZK_FR_ONE);
    cuzk_fr_from_u64(&coeffs[2], 2);
    cuzk_matrices m = {.n_rows = 4,
                       .a = {4, ars, aw, ac},
                       .b = {1, brs, bw, bc},
                       .coeffs = coeffs,
                       .n_coeffs = 3};
    size_t mpc_n = 68 + 552 + 1500000;
    uint8_t *mpc = malloc(mpc_n);
    for (size_t i = 0; i < mpc_n; i++) mpc[i] = (uint8_t)(i * 131 + 7);
    mpc[64] = 1, mpc[65] = mpc[66] = mpc[67] = 0; /* one contribution */
    size_t pl = 68 + 552 - 4;
    mpc[pl] = 0x60, mpc[pl + 1] = 0xe3, mpc[pl + 2] = 0x16, mpc[pl + 3] = 0; /* 1500000 */
    cuzk_zkey_src src = {.n_vars = n_vars, .n_public = n_public, .domain_size = domain,
                         .vk = &vk, .m = &m, .a = a, .b1 = b1, .b2 = b2,
                         .c = c, .h = h, .mpc = mpc, .mpc_size = mpc_n};
    uint8_t *out;
    size_t len;
    CHECK_MSG(cuzk_zkey_encode(&out, &len, &src, err) == CUZK_OK, "%s", err);
    CHECK(len == cuzk_zkey_size(&src) && len > (3u << 20));
    const char *path = tmp_path("large.zkey");
    CHECK_MSG(cuzk_zkey_write(path, &src, err) == CUZK_OK, "%s", err);
    CHECK(file_equals(path, out, len));
    cuzk_zkey z;
    CHECK_MSG(cuzk_zkey_parse(&z, out, len, 0, err) == CUZK_OK, "%s", err);
    CHECK(z.n_vars == n_vars && z.n_public == n_public && z.domain_size == domain);
    CHECK(z.n_constraints == 1 && z.mpc_size == mpc_n && !memcmp(z.mpc, mpc, mpc_n));
    int ok = 1;
    uint8_t e[192];
    for (uint32_t i = 0; i < n_vars; i++) {
        cuzk_g1_to_lem(e, &a[i]);
        ok &= !memcmp(z.a.bytes + 96 * (size_t)i, e, 96);
        cuzk_g2_to_lem(e, &b2[i]);
        ok &= !memcmp(z.b2.bytes + 192 * (size_t)i, e, 192);
        ok &= bits[i] ? !memcmp(z.b1.bytes + 96 * (size_t)i, (uint8_t[96]){0}, 96)
                      : memcmp(z.b1.bytes + 96 * (size_t)i, (uint8_t[96]){0}, 96) != 0;
    }
    for (uint32_t i = 0; i < domain; i++) {
        cuzk_g1_to_lem(e, &h[i]);
        ok &= !memcmp(z.h.bytes + 96 * (size_t)i, e, 96);
    }
    CHECK(ok);
    CHECK(z.c.n == n_vars - n_public - 1);
    CHECK(cuzk_g1_affine_is_inf(&z.vk.ic[1]) && !cuzk_g1_affine_is_inf(&z.vk.ic[2]));
    cuzk_fr two;
    cuzk_fr_from_u64(&two, 2);
    CHECK(z.m.a.wire[0] == 3 && cuzk_fr_eq(&z.m.coeffs[z.m.a.coeff[0]], &two));
    CHECK(z.m.b.wire[0] == 4 && z.m.b.coeff[0] == CUZK_COEFF_MINUS_ONE);
    cuzk_zkey_free(&z);

    /* B given filtered (a cuzk_groth16_pk's b_var, b1, b2): the same bytes,
     * the identities written for the variables left out. */
    uint32_t *bv = malloc(n_vars * sizeof *bv), nb = 0;
    cuzk_g1_affine *fb1 = malloc(n_vars * sizeof *fb1);
    cuzk_g2_affine *fb2 = malloc(n_vars * sizeof *fb2);
    for (uint32_t i = 0; i < n_vars; i++)
        if (!bits[i]) bv[nb] = i, fb1[nb] = b1[i], fb2[nb++] = b2[i];
    CHECK(nb > 0 && nb < n_vars);
    cuzk_zkey_src fsrc = src;
    fsrc.b1 = fb1;
    fsrc.b2 = fb2;
    fsrc.b_var = bv;
    fsrc.n_b = nb;
    uint8_t *fout;
    size_t flen;
    CHECK_MSG(cuzk_zkey_encode(&fout, &flen, &fsrc, err) == CUZK_OK, "%s", err);
    CHECK(flen == len && !memcmp(fout, out, len));
    free(fout);
    CHECK_MSG(cuzk_zkey_write(path, &fsrc, err) == CUZK_OK, "%s", err);
    CHECK(file_equals(path, out, len));
    /* a bad list: not ascending, out of range, longer than n_vars */
    uint32_t keep = bv[1];
    bv[1] = bv[0];
    CHECK(cuzk_zkey_encode(&fout, &flen, &fsrc, err) == CUZK_ERR_INVALID_ARGUMENT &&
          contains(err, "B variable"));
    bv[1] = keep;
    keep = bv[nb - 1];
    bv[nb - 1] = n_vars;
    CHECK(cuzk_zkey_encode(&fout, &flen, &fsrc, err) == CUZK_ERR_INVALID_ARGUMENT &&
          contains(err, "B variable"));
    bv[nb - 1] = keep;
    fsrc.n_b = n_vars + 1;
    CHECK(cuzk_zkey_encode(&fout, &flen, &fsrc, err) == CUZK_ERR_INVALID_ARGUMENT && err[0]);
    free(bv);
    free(fb1);
    free(fb2);

    /* broken section 10: truncated, trailing bytes, params past the end */
    free(out);
    src.mpc_size = mpc_n - 1;
    CHECK(cuzk_zkey_encode(&out, &len, &src, err) == CUZK_ERR_INVALID_ARGUMENT &&
          contains(err, "section 10"));
    uint8_t small[80] = {0};
    src.mpc = small;
    src.mpc_size = 67;
    CHECK(cuzk_zkey_encode(&out, &len, &src, err) == CUZK_ERR_INVALID_ARGUMENT && err[0]);
    src.mpc_size = 69; /* 0 contributions, 1 byte after */
    CHECK(cuzk_zkey_encode(&out, &len, &src, err) == CUZK_ERR_INVALID_ARGUMENT && err[0]);
    src.mpc_size = 68;
    CHECK(cuzk_zkey_encode(&out, &len, &src, err) == CUZK_OK);
    free(out);
    small[64] = 1; /* one contribution announced, none there */
    CHECK(cuzk_zkey_encode(&out, &len, &src, err) == CUZK_ERR_INVALID_ARGUMENT && err[0]);

    free(mpc);
    free(a);
    free(b1);
    free(b2);
    free(c);
    free(h);
    free(bits);
}

static void test_zkey_errors(void)
{
    char err[CUZK_ERRMSG_LEN];
    cuzk_zkey z;
    zpoints p;
    uint8_t *out = (uint8_t *)1;
    size_t len = 1;
    CHECK(cuzk_zkey_parse(&z, f_zkey.p, f_zkey.n, 0, err) == CUZK_OK);
    zpoints_decode(&p, &z);
    cuzk_zkey_src src = src_of(&z, &p);
    const char *path = tmp_path("x.zkey");

    CHECK(cuzk_zkey_encode(NULL, &len, &src, err) == CUZK_ERR_INVALID_ARGUMENT && err[0]);
    CHECK(cuzk_zkey_encode(&out, NULL, &src, err) == CUZK_ERR_INVALID_ARGUMENT);
    CHECK(cuzk_zkey_encode(&out, &len, NULL, err) == CUZK_ERR_INVALID_ARGUMENT);
    CHECK(out == NULL && len == 0);
    CHECK(cuzk_zkey_write(NULL, &src, err) == CUZK_ERR_INVALID_ARGUMENT);
    CHECK(cuzk_zkey_write(path, NULL, err) == CUZK_ERR_INVALID_ARGUMENT);
    CHECK(cuzk_zkey_size(NULL) == 0);
    CHECK(cuzk_zkey_write("/nonexistent/dir/x.zkey", &src, err) == CUZK_ERR_IO &&
          contains(err, "/nonexistent/dir/x.zkey"));

#define BAD(stmt, undo, what)                                                          \
    do {                                                                               \
        stmt;                                                                          \
        err[0] = 0;                                                                    \
        cuzk_status s_ = cuzk_zkey_encode(&out, &len, &src, err);                      \
        CHECK_MSG(s_ == CUZK_ERR_INVALID_ARGUMENT && err[0], "%s: status %d", what, s_); \
        undo;                                                                          \
    } while (0)
    cuzk_vk vk = z.vk;
    src.vk = &vk;
    cuzk_zkey_src keep = src;
    BAD(src.n_public = src.n_vars, src = keep, "n_public >= n_vars");
    BAD(src.domain_size = 12, src.domain_size = keep.domain_size, "domain not 2^k");
    BAD(src.domain_size = 4, src.domain_size = keep.domain_size, "domain < rows");
    BAD(memset(&vk.alpha_g1, 0, sizeof vk.alpha_g1), vk = z.vk, "identity alpha");
    BAD(memset(&vk.delta_g2, 0, sizeof vk.delta_g2), vk = z.vk, "identity delta2");
    BAD(vk.has_g1_extras = 0, vk = z.vk, "no beta1/delta1");
    BAD(vk.n_ic = 2, vk = z.vk, "IC count");
    BAD(src.m = NULL, src.m = keep.m, "no matrices");
    BAD(src.vk = NULL, src.vk = &vk, "no vk");
    BAD(src.h = NULL, src.h = keep.h, "no H");
    BAD(src.b2 = NULL, src.b2 = keep.b2, "no B2");
    /* the last rows must be the input rows */
    uint64_t last = z.m.a.row_start[z.m.n_rows - 1];
    BAD(z.m.a.wire[last] = 0, z.m.a.wire[last] = z.n_public, "input row wire");
    BAD(z.m.a.coeff[last] = CUZK_COEFF_MINUS_ONE, z.m.a.coeff[last] = CUZK_COEFF_ONE,
        "input row coefficient");
    uint32_t w0 = z.m.a.wire[0];
    BAD(z.m.a.wire[0] = z.n_vars, z.m.a.wire[0] = w0, "wire out of range");
    uint32_t c0 = z.m.b.coeff[0];
    BAD(z.m.b.coeff[0] = z.m.n_coeffs, z.m.b.coeff[0] = c0, "coefficient out of range");
    uint64_t rs = z.m.b.row_start[1];
    BAD(z.m.b.row_start[1] = z.m.b.n_terms + 1, z.m.b.row_start[1] = rs, "row starts");
    cuzk_zkey_src s2 = src;
    CHECK(cuzk_zkey_encode(&out, &len, &s2, err) == CUZK_OK); /* all undone */
    CHECK(len == f_zkey.n && !memcmp(out, f_zkey.p, len));
    free(out);
#undef BAD

    /* a failed write leaves an existing file as it was, and no temporary */
    CHECK(cuzk_file_write(path, "old", 3, err) == CUZK_OK);
    src.domain_size = 12;
    CHECK(cuzk_zkey_write(path, &src, err) == CUZK_ERR_INVALID_ARGUMENT);
    src.domain_size = keep.domain_size;
    CHECK(file_equals(path, (const uint8_t *)"old", 3));
    /* a directory as the target: the rename fails, the temporary goes */
    int before = tmpdir_entries();
    char sub[300], tmpname[340];
    snprintf(sub, sizeof sub, "%s/dir", tmpdir);
    CHECK(mkdir(sub, 0700) == 0);
    snprintf(tmpname, sizeof tmpname, "%s.tmp.%ld", sub, (long)getpid());
    CHECK(cuzk_zkey_write(sub, &src, err) == CUZK_ERR_IO && contains(err, sub));
    CHECK(access(tmpname, F_OK) != 0);
    CHECK(tmpdir_entries() == before + 1);
    rmdir(sub);
    zpoints_free(&p);
    cuzk_zkey_free(&z);
}

/* ------------------------------------------------ a written key proves -- */

static void test_pk_written_proves(void)
{
    char err[CUZK_ERRMSG_LEN];
    cuzk_zkey z;
    cuzk_groth16_pk pk;
    cuzk_wtns w;
    cuzk_vk vkj;
    CHECK_MSG(cuzk_zkey_parse(&z, f_zkey.p, f_zkey.n, 0, err) == CUZK_OK, "%s", err);
    CHECK_MSG(cuzk_groth16_pk_from_zkey(&pk, &z, 0, err) == CUZK_OK, "%s", err);
    CHECK_MSG(cuzk_wtns_parse(&w, f_wtns.p, f_wtns.n, err) == CUZK_OK, "%s", err);
    CHECK_MSG(cuzk_vk_from_json(&vkj, (const char *)f_vkjson.p, f_vkjson.n, err) == CUZK_OK, "%s",
              err);

    for (int with_mpc = 1; with_mpc >= 0; with_mpc--) {
        const char *path = tmp_path(with_mpc ? "pk_mpc.zkey" : "pk.zkey");
        CHECK_MSG(cuzk_zkey_write_pk(path, &pk, with_mpc ? z.mpc : NULL,
                                     with_mpc ? (size_t)z.mpc_size : 0, err) == CUZK_OK,
                  "%s", err);
        cuzk_blob b;
        CHECK(cuzk_blob_read(&b, path, err) == CUZK_OK);
        if (with_mpc) /* the pk holds everything the file did */
            CHECK(b.size == f_zkey.n && !memcmp(b.data, f_zkey.p, b.size));
        cuzk_zkey z2;
        cuzk_groth16_pk pk2;
        CHECK_MSG(cuzk_zkey_parse(&z2, b.data, b.size, CUZK_FMT_SUBGROUP, err) == CUZK_OK, "%s",
                  err);
        CHECK(cuzk_vk_eq(&z2.vk, &z.vk) && cuzk_vk_eq(&z2.vk, &vkj));
        CHECK_MSG(cuzk_groth16_pk_from_zkey(&pk2, &z2, 0, err) == CUZK_OK, "%s", err);
        cuzk_proof proof;
        CHECK_MSG(cuzk_groth16_prove(&proof, &pk2, w.w, w.n, 0, 0, NULL, err) == CUZK_OK, "%s",
                  err);
        CHECK(cuzk_groth16_verify(&vkj, &proof, w.w + 1, pk2.n_public) == CUZK_OK);
        cuzk_fr bad[2] = {w.w[1], w.w[2]};
        cuzk_fr_add(&bad[0], &bad[0], &CUZK_FR_ONE);
        CHECK(cuzk_groth16_verify(&vkj, &proof, bad, 2) == CUZK_ERR_PROOF_INVALID);
        cuzk_groth16_pk_free(&pk2);
        cuzk_zkey_free(&z2);
        cuzk_blob_release(&b);
    }

    /* errors */
    const char *path = tmp_path("bad_pk.zkey");
    CHECK(cuzk_zkey_write_pk(NULL, &pk, NULL, 0, err) == CUZK_ERR_INVALID_ARGUMENT && err[0]);
    CHECK(cuzk_zkey_write_pk(path, NULL, NULL, 0, err) == CUZK_ERR_INVALID_ARGUMENT && err[0]);
    CHECK(cuzk_zkey_write_pk(path, &pk, NULL, 5, err) == CUZK_ERR_INVALID_ARGUMENT && err[0]);
    CHECK(cuzk_zkey_write_pk("/nonexistent/dir/pk.zkey", &pk, NULL, 0, err) == CUZK_ERR_IO &&
          contains(err, "/nonexistent/dir/pk.zkey"));
    pk.roots = CUZK_ROOTS_BELLPERSON;
    CHECK(cuzk_zkey_write_pk(path, &pk, NULL, 0, err) == CUZK_ERR_INVALID_ARGUMENT &&
          contains(err, "roots"));
    pk.roots = CUZK_ROOTS_SNARKJS;
    pk.h_form = CUZK_H_MONOMIAL;
    CHECK(cuzk_zkey_write_pk(path, &pk, NULL, 0, err) == CUZK_ERR_INVALID_ARGUMENT &&
          contains(err, "monomial"));
    pk.h_form = CUZK_H_LAGRANGE;
    CHECK(access(path, F_OK) != 0);

    cuzk_vk_free(&vkj);
    cuzk_wtns_free(&w);
    cuzk_groth16_pk_free(&pk);
    cuzk_zkey_free(&z);
}

int main(void)
{
    test_seed("test_writers");
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return 1;
    }
    f_r1cs = load("mul.r1cs");
    f_zkey = load("mul.zkey");
    f_wtns = load("mul.wtns");
    f_vkjson = load("vk.json");
    test_r1cs_roundtrip();
    test_r1cs_random();
    test_r1cs_errors();
    test_zkey_roundtrip();
    test_zkey_coefficients();
    test_zkey_large();
    test_zkey_errors();
    test_pk_written_proves();
    /* keep the written files for a look with snarkjs when asked */
    if (!getenv("CUZK_KEEP_WRITTEN")) rm_tmpdir();
    else printf("test_writers: files kept in %s\n", tmpdir);
    free(f_r1cs.p);
    free(f_zkey.p);
    free(f_wtns.p);
    free(f_vkjson.p);
    return test_done("test_writers");
}
