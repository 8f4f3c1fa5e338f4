/* Tests of src/formats against real files made by circom2 and snarkjs
 * (tests/data, see README.md there): every parser on its file, the
 * cross-checks between them (zkey header = vk.json = exported bellman vk,
 * wtns satisfies r1cs, zkey matrices = r1cs, proof.json verifies with a
 * pairing and survives the 192-byte round trip, writers reproduce snarkjs's
 * bytes and JSON), and every kind of bad input: truncation at every byte,
 * byte flips at every offset, BN254 files, wrong counts, non-canonical
 * field elements, points off the curve or outside the subgroup, duplicate,
 * missing and reordered sections. Bad input must give the documented status
 * and a message, never a crash.
 *
 * Data directory: $CUZK_TESTDATA, else "tests/data", else the data/ folder
 * beside this file. */
#include <jansson.h>
#include <string.h>
#include <unistd.h>

#include <cuzk/formats.h>
#include <cuzk/pairing.h>

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
    cuzk_status s = cuzk_blob_read(&b, path, err);
    CHECK_MSG(s == CUZK_OK, "%s", err);
    if (s != CUZK_OK) {
        fprintf(stderr, "cannot read %s: set CUZK_TESTDATA to tests/data\n", path);
        exit(1);
    }
    r.n = b.size;
    r.p = malloc(r.n + 1);
    memcpy(r.p, b.data, r.n);
    r.p[r.n] = 0;
    cuzk_blob_release(&b);
    return r;
}

static buf dup_buf(const uint8_t *p, size_t n)
{
    buf r = {malloc(n ? n : 1), n};
    memcpy(r.p, p, n);
    return r;
}

static int contains(const char *s, const char *sub) { return strstr(s, sub) != NULL; }

static uint32_t rd32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void wr32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}

static void wr64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
}

/* Offset of the payload of the first section of a type in an iden3 file. */
static size_t sec_off(const buf *b, uint32_t type, uint64_t *size)
{
    size_t pos = 12;
    uint32_t n = rd32(b->p + 8);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t t = rd32(b->p + pos);
        uint64_t sz = rd32(b->p + pos + 4) | (uint64_t)rd32(b->p + pos + 8) << 32;
        if (t == type) {
            if (size) *size = sz;
            return pos + 12;
        }
        pos += 12 + sz;
    }
    CHECK_MSG(0, "section %u not found", type);
    return 0;
}

/* Rebuilds an iden3 file from the sections of b in the given order
 * (indices into b's table; an index may repeat). */
static buf rebuild(const buf *b, const uint32_t *order, size_t k)
{
    cuzk_bin bin;
    cuzk_status s = cuzk_bin_open(&bin, b->p, b->n, (const char[]){(char)b->p[0], (char)b->p[1],
                                  (char)b->p[2], (char)b->p[3], 0}, 9, NULL);
    CHECK(s == CUZK_OK);
    size_t total = 12;
    for (size_t i = 0; i < k; i++) total += 12 + bin.sections[order[i]].size;
    buf r = {malloc(total), total};
    memcpy(r.p, b->p, 8);
    wr32(r.p + 8, (uint32_t)k);
    size_t pos = 12;
    for (size_t i = 0; i < k; i++) {
        const cuzk_bin_section *sec = &bin.sections[order[i]];
        wr32(r.p + pos, sec->type);
        wr64(r.p + pos + 4, sec->size);
        memcpy(r.p + pos + 12, b->p + sec->offset, sec->size);
        pos += 12 + sec->size;
    }
    cuzk_bin_free(&bin);
    return r;
}

static void fr_u64(cuzk_fr *r, uint64_t v) { cuzk_fr_from_u64(r, v); }

/* The decimal string of an Fp element as a JSON string (test-only: one
 * digit per pass of a long division). */
static json_t *json_fp(const cuzk_fp *a)
{
    uint64_t v[6];
    char rev[130], dec[130];
    int n = 0;
    cuzk_fp_to_limbs(v, a);
    do {
        unsigned __int128 rem = 0;
        for (int k = 5; k >= 0; k--) {
            unsigned __int128 cur = (rem << 64) | v[k];
            v[k] = (uint64_t)(cur / 10);
            rem = cur % 10;
        }
        rev[n++] = (char)('0' + (int)rem);
    } while (v[0] | v[1] | v[2] | v[3] | v[4] | v[5]);
    for (int k = 0; k < n; k++) dec[k] = rev[n - 1 - k];
    dec[n] = 0;
    return json_string(dec);
}

/* An affine point on E(Fp) that is not in G1 (the cofactor is large, so
 * the first x with a square x^3 + 4 gives one). */
static void g1_off_subgroup(cuzk_g1_affine *p)
{
    for (uint64_t x = 1;; x++) {
        cuzk_fp rhs, four;
        cuzk_fp_from_u64(&p->x, x);
        cuzk_fp_from_u64(&four, 4);
        cuzk_fp_sqr(&rhs, &p->x);
        cuzk_fp_mul(&rhs, &rhs, &p->x);
        cuzk_fp_add(&rhs, &rhs, &four);
        if (cuzk_fp_sqrt(&p->y, &rhs) && !cuzk_g1_affine_in_subgroup(p)) return;
    }
}

/* Groth16 verification: e(-A, B) e(IC(x), gamma) e(C, delta) e(alpha, beta) = 1. */
static int groth16_verify(const cuzk_vk *vk, const cuzk_proof *p, const cuzk_fr *pub, size_t n)
{
    if (n + 1 != vk->n_ic) return 0;
    cuzk_g1_jac acc, t;
    cuzk_g1_from_affine(&acc, &vk->ic[0]);
    for (size_t i = 0; i < n; i++) {
        cuzk_g1_from_affine(&t, &vk->ic[i + 1]);
        cuzk_g1_mul(&t, &t, &pub[i]);
        cuzk_g1_add(&acc, &acc, &t);
    }
    cuzk_g1_affine g1[4];
    cuzk_g2_affine g2[4];
    cuzk_g1_affine_neg(&g1[0], &p->a);
    g2[0] = p->b;
    cuzk_g1_to_affine(&g1[1], &acc);
    g2[1] = vk->gamma_g2;
    g1[2] = p->c;
    g2[2] = vk->delta_g2;
    g1[3] = vk->alpha_g1;
    g2[3] = vk->beta_g2;
    return cuzk_pairing_product_is_one(g1, g2, 4);
}

/* ------------------------------------------------------------- files -- */

static buf f_r1cs, f_wtns, f_zkey, f_params, f_proof, f_vkjson, f_proofjson, f_publicjson;
static buf f_bn_r1cs, f_bn_zkey, f_bn_wtns;

static void load_all(void)
{
    f_r1cs = load("mul.r1cs");
    f_wtns = load("mul.wtns");
    f_zkey = load("mul.zkey");
    f_params = load("mul.params");
    f_proof = load("mul.proof");
    f_vkjson = load("vk.json");
    f_proofjson = load("proof.json");
    f_publicjson = load("public.json");
    f_bn_r1cs = load("mul_bn254.r1cs");
    f_bn_zkey = load("mul_bn254.zkey");
    f_bn_wtns = load("mul_bn254.wtns");
}

/* --------------------------------------------------------------- r1cs -- */

/* The circuit (mul.circom) with a = 3, b = 5, k = 11:
 *   wires 0 ONE, 1 c (out), 2 a (public), 3 b, 4 k, 5 t, 6 u
 *   0: (-a - 2b) * (3a - b) = -t      t = 52
 *   1: (-t) * k = -u                  u = 572
 *   2: (-u) * u = 7 - c               c = 327191 */
static const uint64_t WITNESS[7] = {1, 327191, 3, 5, 11, 52, 572};

static int fr_is_small(const cuzk_fr *v, int64_t k)
{
    cuzk_fr t;
    fr_u64(&t, (uint64_t)(k < 0 ? -k : k));
    if (k < 0) cuzk_fr_neg(&t, &t);
    return cuzk_fr_eq(v, &t);
}

static void test_r1cs(void)
{
    char err[CUZK_ERRMSG_LEN];
    cuzk_r1cs r;
    cuzk_status s = cuzk_r1cs_parse(&r, f_r1cs.p, f_r1cs.n, err);
    CHECK_MSG(s == CUZK_OK, "%s", err);
    CHECK(r.n_wires == 7 && r.n_pub_out == 1 && r.n_pub_in == 1 && r.n_prv_in == 2);
    CHECK(r.n_constraints == 3 && r.n_public == 2 && r.m.n_rows == 3);
    CHECK(r.labels != NULL && r.labels[0] == 0);
    CHECK(r.m.a.n_terms == 4 && r.m.b.n_terms == 4 && r.m.c.n_terms == 4);
    /* constraint 0: A = -1 a - 2 b, B = 3 a - b, C = -t */
    const cuzk_sparse *a = &r.m.a, *b = &r.m.b, *c = &r.m.c;
    CHECK(a->row_start[0] == 0 && a->row_start[1] == 2);
    CHECK(a->wire[0] == 2 && a->coeff[0] == CUZK_COEFF_MINUS_ONE);
    CHECK(a->wire[1] == 3 && fr_is_small(&r.m.coeffs[a->coeff[1]], -2));
    CHECK(b->wire[0] == 2 && fr_is_small(&r.m.coeffs[b->coeff[0]], 3));
    CHECK(b->wire[1] == 3 && b->coeff[1] == CUZK_COEFF_MINUS_ONE);
    CHECK(c->row_start[1] == 1 && c->wire[0] == 5 && c->coeff[0] == CUZK_COEFF_MINUS_ONE);
    /* constraint 2: C = 7 - c */
    uint64_t k = c->row_start[2];
    CHECK(c->row_start[3] - k == 2 && c->wire[k] == 0 && fr_is_small(&r.m.coeffs[c->coeff[k]], 7));
    CHECK(c->wire[k + 1] == 1 && c->coeff[k + 1] == CUZK_COEFF_MINUS_ONE);
    CHECK(fr_is_small(&r.m.coeffs[CUZK_COEFF_ONE], 1));
    CHECK(fr_is_small(&r.m.coeffs[CUZK_COEFF_MINUS_ONE], -1));

    /* Sections in any order: reversed and rotated tables parse the same. */
    uint32_t rev[3] = {2, 1, 0}, rot[3] = {1, 2, 0};
    for (int o = 0; o < 2; o++) {
        buf x = rebuild(&f_r1cs, o ? rot : rev, 3);
        cuzk_r1cs r2;
        s = cuzk_r1cs_parse(&r2, x.p, x.n, err);
        CHECK_MSG(s == CUZK_OK, "%s", err);
        CHECK(r2.m.c.n_terms == 4 && !memcmp(r2.m.a.wire, a->wire, 16));
        cuzk_r1cs_free(&r2);
        free(x.p);
    }
    /* Without the (optional) wire map. */
    {
        cuzk_bin bin;
        cuzk_bin_open(&bin, f_r1cs.p, f_r1cs.n, "r1cs", 1, NULL);
        uint32_t keep[2], nk = 0;
        for (uint32_t i = 0; i < bin.n_sections; i++)
            if (bin.sections[i].type != 3) keep[nk++] = i;
        cuzk_bin_free(&bin);
        buf x = rebuild(&f_r1cs, keep, nk);
        cuzk_r1cs r2;
        s = cuzk_r1cs_parse(&r2, x.p, x.n, err);
        CHECK_MSG(s == CUZK_OK && r2.labels == NULL, "%s", err);
        cuzk_r1cs_free(&r2);
        free(x.p);
    }
    /* Duplicate header section. */
    {
        buf x = rebuild(&f_r1cs, (const uint32_t[]){0, 1, 2, 1}, 4);
        cuzk_r1cs r2;
        s = cuzk_r1cs_parse(&r2, x.p, x.n, err);
        CHECK_MSG(s == CUZK_ERR_BAD_ENCODING && contains(err, "more than once"), "%d %s", s, err);
        free(x.p);
    }
    /* BN254. */
    {
        cuzk_r1cs r2;
        s = cuzk_r1cs_parse(&r2, f_bn_r1cs.p, f_bn_r1cs.n, err);
        CHECK_MSG(s == CUZK_ERR_BAD_ENCODING && contains(err, "BN254") && contains(err, "bn128"),
                  "%d %s", s, err);
        printf("  bn254 r1cs: %s\n", err);
    }
    /* A non-canonical coefficient (r itself), a wire out of range, unsorted wires. */
    {
        uint64_t n2;
        size_t o = sec_off(&f_r1cs, 2, &n2);
        buf x = dup_buf(f_r1cs.p, f_r1cs.n);
        for (int i = 0; i < 4; i++) wr64(x.p + o + 8 + 8 * i, CUZK_FR_MODULUS[i]);
        cuzk_r1cs r2;
        s = cuzk_r1cs_parse(&r2, x.p, x.n, err);
        CHECK_MSG(s == CUZK_ERR_NOT_CANONICAL && contains(err, "constraint 0 A term 0"), "%d %s",
                  s, err);
        memcpy(x.p, f_r1cs.p, f_r1cs.n);
        wr32(x.p + o + 4, 7);
        s = cuzk_r1cs_parse(&r2, x.p, x.n, err);
        CHECK_MSG(s == CUZK_ERR_BAD_ENCODING && contains(err, "out of range"), "%d %s", s, err);
        memcpy(x.p, f_r1cs.p, f_r1cs.n);
        wr32(x.p + o + 4 + 36, 2); /* second A term: wire 2 again (unsorted, repeated) */
        s = cuzk_r1cs_parse(&r2, x.p, x.n, err); /* circom writes unsorted rows: accepted */
        CHECK_MSG(s == CUZK_OK, "%d %s", s, err);
        cuzk_r1cs_free(&r2);
        free(x.p);
    }
    /* Header inconsistencies: more inputs than wires; the custom gates section. */
    {
        size_t o = sec_off(&f_r1cs, 1, NULL);
        buf x = dup_buf(f_r1cs.p, f_r1cs.n);
        wr32(x.p + o + 4 + 32 + 12, 9); /* nPrvIn */
        cuzk_r1cs r2;
        s = cuzk_r1cs_parse(&r2, x.p, x.n, err);
        CHECK_MSG(s == CUZK_ERR_BAD_ENCODING && contains(err, "exceed"), "%d %s", s, err);
        memcpy(x.p, f_r1cs.p, f_r1cs.n);
        wr32(x.p + 12, 4); /* first section's type becomes 4 */
        s = cuzk_r1cs_parse(&r2, x.p, x.n, err);
        CHECK_MSG(s == CUZK_ERR_BAD_ENCODING && contains(err, "custom gates"), "%d %s", s, err);
        free(x.p);
    }
    cuzk_r1cs_free(&r);
}

/* --------------------------------------------------------------- wtns -- */

static void test_wtns(void)
{
    char err[CUZK_ERRMSG_LEN];
    cuzk_wtns w;
    cuzk_r1cs r;
    cuzk_status s = cuzk_wtns_parse(&w, f_wtns.p, f_wtns.n, err);
    CHECK_MSG(s == CUZK_OK, "%s", err);
    CHECK(w.n == 7);
    for (int i = 0; i < 7 && w.n == 7; i++) CHECK(fr_is_small(&w.w[i], (int64_t)WITNESS[i]));

    /* encode reproduces snarkjs's bytes */
    uint8_t *enc;
    size_t len;
    CHECK(cuzk_wtns_encode(&enc, &len, w.w, w.n) == CUZK_OK);
    CHECK(len == f_wtns.n && !memcmp(enc, f_wtns.p, len));
    free(enc);

    /* satisfies the r1cs; each change is caught at the right constraint */
    CHECK(cuzk_r1cs_parse(&r, f_r1cs.p, f_r1cs.n, err) == CUZK_OK);
    uint64_t bad = 0;
    s = cuzk_r1cs_check(&r, w.w, w.n, &bad, err);
    CHECK_MSG(s == CUZK_OK && bad == UINT64_MAX, "%s", err);
    static const struct { int wire; uint64_t first; } cases[] = {
        {1, 2}, {2, 0}, {3, 0}, {4, 1}, {5, 0}, {6, 1}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cuzk_fr keep = w.w[cases[i].wire];
        cuzk_fr_add(&w.w[cases[i].wire], &keep, &CUZK_FR_ONE);
        s = cuzk_r1cs_check(&r, w.w, w.n, &bad, err);
        CHECK_MSG(s == CUZK_ERR_UNSATISFIED && bad == cases[i].first && contains(err, "constraint"),
                  "wire %d: %d %llu %s", cases[i].wire, s, (unsigned long long)bad, err);
        w.w[cases[i].wire] = keep;
    }
    s = cuzk_r1cs_check(&r, w.w, 6, &bad, err);
    CHECK_MSG(s == CUZK_ERR_UNSATISFIED && bad == UINT64_MAX && contains(err, "6 values"), "%s",
              err);
    cuzk_fr keep = w.w[0];
    w.w[0] = CUZK_FR_ZERO;
    s = cuzk_r1cs_check(&r, w.w, w.n, &bad, err);
    CHECK_MSG(s == CUZK_ERR_UNSATISFIED && contains(err, "ONE"), "%s", err);
    w.w[0] = keep;

    /* a wrong count in the header: too many -> truncated, too few -> bad */
    size_t o1 = sec_off(&f_wtns, 1, NULL), o2 = sec_off(&f_wtns, 2, NULL);
    buf x = dup_buf(f_wtns.p, f_wtns.n);
    cuzk_wtns w2;
    wr32(x.p + o1 + 36, 8);
    s = cuzk_wtns_parse(&w2, x.p, x.n, err);
    CHECK_MSG(s == CUZK_ERR_TRUNCATED && contains(err, "short"), "%d %s", s, err);
    wr32(x.p + o1 + 36, 6);
    s = cuzk_wtns_parse(&w2, x.p, x.n, err);
    CHECK_MSG(s == CUZK_ERR_BAD_ENCODING, "%d %s", s, err);
    /* a non-canonical value: w[3] = r + 5 does not fit, w[3] = r is not canonical */
    memcpy(x.p, f_wtns.p, f_wtns.n);
    for (int i = 0; i < 4; i++) wr64(x.p + o2 + 96 + 8 * i, CUZK_FR_MODULUS[i]);
    s = cuzk_wtns_parse(&w2, x.p, x.n, err);
    CHECK_MSG(s == CUZK_ERR_NOT_CANONICAL && contains(err, "value 3"), "%d %s", s, err);
    x.p[o2 + 96 + 31] = 0xff;
    s = cuzk_wtns_parse(&w2, x.p, x.n, err);
    CHECK_MSG(s == CUZK_ERR_NOT_CANONICAL, "%d %s", s, err);
    free(x.p);
    /* BN254 */
    s = cuzk_wtns_parse(&w2, f_bn_wtns.p, f_bn_wtns.n, err);
    CHECK_MSG(s == CUZK_ERR_BAD_ENCODING && contains(err, "BN254"), "%d %s", s, err);
    /* A witness file for another circuit (wrong length) fails the check. */
    {
        cuzk_fr v[5];
        for (int i = 0; i < 5; i++) fr_u64(&v[i], 1);
        CHECK(cuzk_wtns_encode(&enc, &len, v, 5) == CUZK_OK);
        CHECK(cuzk_wtns_parse(&w2, enc, len, err) == CUZK_OK && w2.n == 5);
        s = cuzk_r1cs_check(&r, w2.w, w2.n, &bad, err);
        CHECK_MSG(s == CUZK_ERR_UNSATISFIED && contains(err, "7 wires"), "%s", err);
        cuzk_wtns_free(&w2);
        free(enc);
    }
    cuzk_r1cs_free(&r);
    cuzk_wtns_free(&w);
}

/* --------------------------------------------------------------- zkey -- */

static void test_zkey(void)
{
    char err[CUZK_ERRMSG_LEN];
    cuzk_zkey z;
    cuzk_status s = cuzk_zkey_parse(&z, f_zkey.p, f_zkey.n, 0, err);
    CHECK_MSG(s == CUZK_OK, "%s", err);
    CHECK(z.roots == CUZK_ROOTS_SNARKJS && z.roots == 5);
    CHECK(z.n_vars == 7 && z.n_public == 2 && z.domain_size == 8 && z.log_domain == 3);
    CHECK(z.n_constraints == 3 && z.m.n_rows == 6 && z.m.c.row_start == NULL);
    CHECK(z.n_coef_records == 4 + 4 + 3 && z.m.a.n_terms == 7 && z.m.b.n_terms == 4);
    CHECK(z.a.n == 7 && z.b1.n == 7 && z.b2.n == 7 && z.c.n == 4 && z.h.n == 8);
    CHECK(z.a.enc == CUZK_ENC_LEM && z.b2.g2 == 1 && z.mpc != NULL && z.mpc_size > 68);
    CHECK(z.vk.n_ic == 3 && z.vk.has_g1_extras);
    CHECK(cuzk_g2_affine_eq(&z.vk.gamma_g2, &CUZK_G2_GENERATOR));
    /* contributed key: delta is not the generator */
    CHECK(!cuzk_g1_affine_eq(&z.vk.delta_g1, &CUZK_G1_GENERATOR));

    /* with every bulk point subgroup-checked too */
    cuzk_zkey z2;
    s = cuzk_zkey_parse(&z2, f_zkey.p, f_zkey.n, CUZK_FMT_SUBGROUP, err);
    CHECK_MSG(s == CUZK_OK, "%s", err);
    cuzk_zkey_free(&z2);
    cuzk_zkey_free(&z2); /* twice is fine */

    /* B1/B2 are dense with identities (signals with no B term) */
    int zeros = 0;
    for (uint64_t i = 0; i < z.b1.n; i++) {
        cuzk_g1_affine p;
        CHECK(cuzk_points_decode_g1(&p, &z.b1, i, 1, 1, 1, NULL) == CUZK_OK);
        zeros += cuzk_g1_affine_is_inf(&p);
    }
    CHECK(zeros == 3); /* ONE, c, t have no B term */

    /* header == vk.json */
    cuzk_vk vj;
    s = cuzk_vk_from_json(&vj, (const char *)f_vkjson.p, f_vkjson.n, err);
    CHECK_MSG(s == CUZK_OK, "%s", err);
    CHECK(vj.n_ic == 3 && !vj.has_g1_extras && cuzk_vk_eq(&z.vk, &vj));

    /* matrices == r1cs */
    cuzk_r1cs r;
    CHECK(cuzk_r1cs_parse(&r, f_r1cs.p, f_r1cs.n, err) == CUZK_OK);
    s = cuzk_zkey_check_r1cs(&z, &r, err);
    CHECK_MSG(s == CUZK_OK, "%s", err);
    /* ... and a changed coefficient is seen (constraint 1, A: -t becomes -t * 2) */
    {
        cuzk_fr two;
        fr_u64(&two, 2);
        uint64_t k = z.m.a.row_start[1];
        uint32_t keep = z.m.a.coeff[k];
        z.m.a.coeff[k] = 2 < z.m.n_coeffs ? 2 : 0;
        s = cuzk_zkey_check_r1cs(&z, &r, err);
        CHECK_MSG(s == CUZK_ERR_BAD_ENCODING && contains(err, "constraint 1"), "%d %s", s, err);
        z.m.a.coeff[k] = keep;
    }

    /* the input rows: row 3 + s is 1 * signal s */
    for (uint32_t i = 0; i < 3; i++) {
        uint64_t k = z.m.a.row_start[3 + i];
        CHECK(z.m.a.row_start[4 + i] - k == 1 && z.m.a.wire[k] == i &&
              z.m.a.coeff[k] == CUZK_COEFF_ONE);
    }

    /* zkey A/B matrices x witness agree with the r1cs (A w o B w = C w) */
    cuzk_wtns w;
    CHECK(cuzk_wtns_parse(&w, f_wtns.p, f_wtns.n, err) == CUZK_OK);
    for (uint64_t j = 0; j < z.n_constraints; j++) {
        cuzk_fr acc[2];
        const cuzk_sparse *sp[2] = {&z.m.a, &z.m.b};
        for (int m = 0; m < 2; m++) {
            acc[m] = CUZK_FR_ZERO;
            for (uint64_t k = sp[m]->row_start[j]; k < sp[m]->row_start[j + 1]; k++) {
                cuzk_fr t;
                cuzk_fr_mul(&t, &z.m.coeffs[sp[m]->coeff[k]], &w.w[sp[m]->wire[k]]);
                cuzk_fr_add(&acc[m], &acc[m], &t);
            }
        }
        cuzk_fr c = CUZK_FR_ZERO, t;
        for (uint64_t k = r.m.c.row_start[j]; k < r.m.c.row_start[j + 1]; k++) {
            cuzk_fr_mul(&t, &r.m.coeffs[r.m.c.coeff[k]], &w.w[r.m.c.wire[k]]);
            cuzk_fr_add(&c, &c, &t);
        }
        cuzk_fr_mul(&t, &acc[0], &acc[1]);
        CHECK(cuzk_fr_eq(&t, &c));
    }
    cuzk_wtns_free(&w);

    /* the zkey's A/B1/B2/C points equal the exported bellman file's a/b_g1/b_g2/l */
    cuzk_bp_params p;
    s = cuzk_bp_params_parse(&p, f_params.p, f_params.n, CUZK_FMT_SNARKJS_BELLMAN, err);
    CHECK_MSG(s == CUZK_OK, "%s", err);
    const cuzk_points *zv[4] = {&z.a, &z.b1, &z.c, &z.b2}, *pv[4] = {&p.a, &p.b_g1, &p.l, &p.b_g2};
    for (int v = 0; v < 4; v++) {
        CHECK(zv[v]->n == pv[v]->n);
        for (uint64_t i = 0; i < zv[v]->n && zv[v]->n == pv[v]->n; i++) {
            if (v < 3) {
                cuzk_g1_affine x, y;
                CHECK(cuzk_points_decode_g1(&x, zv[v], i, 1, 0, 1, NULL) == CUZK_OK);
                CHECK(cuzk_points_decode_g1(&y, pv[v], i, 1, 0, 1, NULL) == CUZK_OK);
                CHECK(cuzk_g1_affine_eq(&x, &y));
            } else {
                cuzk_g2_affine x, y;
                CHECK(cuzk_points_decode_g2(&x, zv[v], i, 1, 0, 1, NULL) == CUZK_OK);
                CHECK(cuzk_points_decode_g2(&y, pv[v], i, 1, 0, 1, NULL) == CUZK_OK);
                CHECK(cuzk_g2_affine_eq(&x, &y));
            }
        }
    }
    /* LEM bytes are the in-memory layout: the whole A section decodes in one call */
    {
        cuzk_g1_affine all[7];
        CHECK(cuzk_points_decode_g1(all, &z.a, 0, 7, 0, 2, NULL) == CUZK_OK);
        CHECK(!memcmp(all, z.a.bytes, sizeof all)); /* little-endian host */
    }
    cuzk_bp_params_free(&p);
    cuzk_vk_free(&vj);
    cuzk_r1cs_free(&r);
    cuzk_zkey_free(&z);
}

static void test_zkey_bad(void)
{
    char err[CUZK_ERRMSG_LEN];
    cuzk_zkey z;
    cuzk_status s;

    s = cuzk_zkey_parse(&z, f_bn_zkey.p, f_bn_zkey.n, 0, err);
    CHECK_MSG(s == CUZK_ERR_BAD_ENCODING && contains(err, "BN254"), "%d %s", s, err);
    printf("  bn254 zkey: %s\n", err);
    /* a .r1cs given as a .zkey */
    s = cuzk_zkey_parse(&z, f_r1cs.p, f_r1cs.n, 0, err);
    CHECK_MSG(s == CUZK_ERR_BAD_ENCODING && contains(err, "magic"), "%d %s", s, err);

    buf x = dup_buf(f_zkey.p, f_zkey.n);
    /* version 3 */
    wr32(x.p + 4, 3);
    s = cuzk_zkey_parse(&z, x.p, x.n, 0, err);
    CHECK_MSG(s == CUZK_ERR_BAD_ENCODING && contains(err, "version"), "%d %s", s, err);
    memcpy(x.p, f_zkey.p, x.n);
    /* PLONK */
    wr32(x.p + sec_off(&f_zkey, 1, NULL), 2);
    s = cuzk_zkey_parse(&z, x.p, x.n, 0, err);
    CHECK_MSG(s == CUZK_ERR_BAD_ENCODING && contains(err, "PLONK"), "%d %s", s, err);
    memcpy(x.p, f_zkey.p, x.n);
    /* a section renamed away: missing A */
    {
        size_t o5 = sec_off(&f_zkey, 5, NULL);
        wr32(x.p + o5 - 12, 55);
        s = cuzk_zkey_parse(&z, x.p, x.n, 0, err);
        CHECK_MSG(s == CUZK_ERR_BAD_ENCODING && contains(err, "section 5 (A points) is missing"),
                  "%d %s", s, err);
        memcpy(x.p, f_zkey.p, x.n);
    }
    /* a huge (u64) section size */
    {
        size_t o5 = sec_off(&f_zkey, 5, NULL);
        wr64(x.p + o5 - 8, 0xfffffffffffffff0ull);
        s = cuzk_zkey_parse(&z, x.p, x.n, 0, err);
        CHECK_MSG(s == CUZK_ERR_TRUNCATED, "%d %s", s, err);
        memcpy(x.p, f_zkey.p, x.n);
    }
    /* a huge section count */
    wr32(x.p + 8, 0xffffffffu);
    s = cuzk_zkey_parse(&z, x.p, x.n, 0, err);
    CHECK_MSG(s == CUZK_ERR_TRUNCATED && contains(err, "sections"), "%d %s", s, err);
    memcpy(x.p, f_zkey.p, x.n);
    /* header counts: domain not a power of two; bigger nVars than the sections hold */
    size_t o2 = sec_off(&f_zkey, 2, NULL);
    wr32(x.p + o2 + 96, 12);
    s = cuzk_zkey_parse(&z, x.p, x.n, 0, err);
    CHECK_MSG(s == CUZK_ERR_BAD_ENCODING && contains(err, "power of two"), "%d %s", s, err);
    wr32(x.p + o2 + 96, 16);
    s = cuzk_zkey_parse(&z, x.p, x.n, 0, err);
    CHECK_MSG(s == CUZK_ERR_TRUNCATED && contains(err, "section 9 (H points) is 768 bytes short"),
              "%d %s", s, err);
    wr32(x.p + o2 + 96, 4);
    s = cuzk_zkey_parse(&z, x.p, x.n, 0, err);
    CHECK_MSG(s == CUZK_ERR_BAD_ENCODING && contains(err, "section 9"), "%d %s", s, err);
    memcpy(x.p, f_zkey.p, x.n);
    wr32(x.p + o2 + 88, 8);
    s = cuzk_zkey_parse(&z, x.p, x.n, 0, err);
    CHECK_MSG(s == CUZK_ERR_TRUNCATED && contains(err, "section 5 (A points) is 96 bytes short"),
              "%d %s", s, err);
    printf("  nVars 8 zkey: %s\n", err);
    memcpy(x.p, f_zkey.p, x.n);
    /* a header point off the curve */
    x.p[o2 + 100 + 50] ^= 1;
    s = cuzk_zkey_parse(&z, x.p, x.n, 0, err);
    CHECK_MSG(s == CUZK_ERR_NOT_ON_CURVE && contains(err, "alpha1"), "%d %s", s, err);
    memcpy(x.p, f_zkey.p, x.n);
    /* the identity as delta2 */
    memset(x.p + o2 + 772, 0, 192);
    s = cuzk_zkey_parse(&z, x.p, x.n, 0, err);
    CHECK_MSG(s == CUZK_ERR_BAD_ENCODING && contains(err, "delta2"), "%d %s", s, err);
    memcpy(x.p, f_zkey.p, x.n);
    /* a non-canonical coordinate (q) in B2 point 3 */
    {
        size_t o7 = sec_off(&f_zkey, 7, NULL) + 3 * 192;
        for (int i = 0; i < 6; i++) wr64(x.p + o7 + 8 * i, CUZK_FP_MODULUS[i]);
        s = cuzk_zkey_parse(&z, x.p, x.n, 0, err);
        CHECK_MSG(s == CUZK_ERR_NOT_CANONICAL && contains(err, "section 7 (B2) point 3"), "%d %s",
                  s, err);
        s = cuzk_zkey_parse(&z, x.p, x.n, CUZK_FMT_TRUST_POINTS, err);
        CHECK_MSG(s == CUZK_OK, "trusted: %s", err);
        cuzk_zkey_free(&z);
        memcpy(x.p, f_zkey.p, x.n);
    }
    /* an H point off the curve; a C point on the curve but outside G1 */
    {
        size_t o9 = sec_off(&f_zkey, 9, NULL) + 5 * 96;
        x.p[o9 + 60] ^= 0x10;
        s = cuzk_zkey_parse(&z, x.p, x.n, 0, err);
        CHECK_MSG(s == CUZK_ERR_NOT_ON_CURVE && contains(err, "section 9 (H) point 5"), "%d %s",
                  s, err);
        memcpy(x.p, f_zkey.p, x.n);
        cuzk_g1_affine bad;
        g1_off_subgroup(&bad);
        cuzk_g1_to_lem(x.p + sec_off(&f_zkey, 8, NULL) + 2 * 96, &bad);
        s = cuzk_zkey_parse(&z, x.p, x.n, 0, err);
        CHECK_MSG(s == CUZK_OK, "default: no bulk subgroup check: %s", err);
        cuzk_zkey_free(&z);
        s = cuzk_zkey_parse(&z, x.p, x.n, CUZK_FMT_SUBGROUP, err);
        CHECK_MSG(s == CUZK_ERR_NOT_IN_SUBGROUP && contains(err, "section 8 (C) point 2"), "%d %s",
                  s, err);
        /* ... and as an IC point it is always caught */
        cuzk_g1_to_lem(x.p + sec_off(&f_zkey, 3, NULL) + 96, &bad);
        s = cuzk_zkey_parse(&z, x.p, x.n, 0, err);
        CHECK_MSG(s == CUZK_ERR_NOT_IN_SUBGROUP && contains(err, "IC point 1"), "%d %s", s, err);
        memcpy(x.p, f_zkey.p, x.n);
    }
    /* coefficients: bad matrix, row, signal, non-canonical value, broken input row */
    {
        size_t o4 = sec_off(&f_zkey, 4, NULL) + 4;
        static const struct {
            size_t rec, field;
            uint32_t v;
            cuzk_status want;
            const char *msg;
        } cs[] = {
            {0, 0, 2, CUZK_ERR_BAD_ENCODING, "matrix 2"},
            {1, 4, 8, CUZK_ERR_BAD_ENCODING, "outside the domain"},
            {2, 8, 7, CUZK_ERR_BAD_ENCODING, "signal 7"},
            {10, 8, 1, CUZK_ERR_BAD_ENCODING, "input row"},
            {10, 4, 7, CUZK_ERR_BAD_ENCODING, "input row"},
        };
        for (size_t i = 0; i < sizeof cs / sizeof cs[0]; i++) {
            wr32(x.p + o4 + 44 * cs[i].rec + cs[i].field, cs[i].v);
            s = cuzk_zkey_parse(&z, x.p, x.n, 0, err);
            CHECK_MSG(s == cs[i].want && contains(err, cs[i].msg), "case %zu: %d %s", i, s, err);
            memcpy(x.p, f_zkey.p, x.n);
        }
        for (int i = 0; i < 4; i++) wr64(x.p + o4 + 44 * 5 + 12 + 8 * i, CUZK_FR_MODULUS[i]);
        s = cuzk_zkey_parse(&z, x.p, x.n, 0, err);
        CHECK_MSG(s == CUZK_ERR_NOT_CANONICAL && contains(err, "coefficient 5"), "%d %s", s, err);
        memcpy(x.p, f_zkey.p, x.n);
    }
    /* duplicate section; trailing bytes */
    {
        cuzk_bin bin;
        CHECK(cuzk_bin_open(&bin, f_zkey.p, f_zkey.n, "zkey", 2, err) == CUZK_OK);
        uint32_t order[16], n = bin.n_sections;
        for (uint32_t i = 0; i < n; i++) order[i] = i;
        order[n] = 3; /* the 4th section again */
        cuzk_bin_free(&bin);
        buf y = rebuild(&f_zkey, order, n + 1);
        s = cuzk_zkey_parse(&z, y.p, y.n, 0, err);
        CHECK_MSG(s == CUZK_ERR_BAD_ENCODING && contains(err, "more than once"), "%d %s", s, err);
        free(y.p);
        y.p = calloc(f_zkey.n + 3, 1);
        memcpy(y.p, f_zkey.p, f_zkey.n);
        y.n = f_zkey.n + 3;
        s = cuzk_zkey_parse(&z, y.p, y.n, 0, err);
        CHECK_MSG(s == CUZK_ERR_BAD_ENCODING && contains(err, "3 bytes after"), "%d %s", s, err);
        free(y.p);
    }
    free(x.p);
}

/* ---------------------------------------------------------- bellperson -- */

static void test_params(void)
{
    char err[CUZK_ERRMSG_LEN];
    cuzk_bp_params p;
    cuzk_status s;
    cuzk_zkey z;
    CHECK(cuzk_zkey_parse(&z, f_zkey.p, f_zkey.n, 0, err) == CUZK_OK);

    s = cuzk_bp_params_parse(&p, f_params.p, f_params.n, CUZK_FMT_SNARKJS_BELLMAN, err);
    CHECK_MSG(s == CUZK_OK, "%s", err);
    CHECK(p.roots == CUZK_ROOTS_SNARKJS && p.domain_size == 8);
    CHECK(p.h.n == 7 && p.l.n == 4 && p.a.n == 7 && p.b_g1.n == 7 && p.b_g2.n == 7);
    CHECK(p.trailer_size == 612 && p.trailer_offset + 612 == f_params.n);
    CHECK(cuzk_vk_eq(&p.vk, &z.vk)); /* the exported vk == the zkey header */

    /* without the flag, the all-zero identities are refused with a hint */
    cuzk_bp_params q;
    s = cuzk_bp_params_parse(&q, f_params.p, f_params.n, 0, err);
    CHECK_MSG(s == CUZK_ERR_NOT_ON_CURVE && contains(err, "CUZK_FMT_SNARKJS_BELLMAN"), "%d %s", s,
              err);
    printf("  snarkjs params read as bellperson: %s\n", err);
    s = cuzk_bp_params_parse(&q, f_params.p, f_params.n, CUZK_FMT_TRUST_POINTS, err);
    CHECK_MSG(s == CUZK_OK && q.roots == CUZK_ROOTS_BELLPERSON, "%s", err);
    cuzk_bp_params_free(&q);

    /* .vk: the encoder reproduces the exported bytes; the reader reads them */
    size_t vks = cuzk_bp_vk_size(&z.vk);
    CHECK(vks == 868 + 3 * 96);
    uint8_t *vkb = malloc(vks);
    CHECK(cuzk_bp_vk_encode(vkb, &z.vk, err) == CUZK_OK);
    CHECK(!memcmp(vkb, f_params.p, vks));
    cuzk_vk v2;
    size_t used = 0;
    s = cuzk_bp_vk_parse(&v2, vkb, vks, NULL, err);
    CHECK_MSG(s == CUZK_OK && cuzk_vk_eq(&v2, &z.vk), "%s", err);
    cuzk_vk_free(&v2);
    s = cuzk_bp_vk_parse(&v2, f_params.p, f_params.n, NULL, err);
    CHECK_MSG(s == CUZK_ERR_BAD_ENCODING && contains(err, "after the key"), "%d %s", s, err);
    s = cuzk_bp_vk_parse(&v2, f_params.p, f_params.n, &used, err);
    CHECK_MSG(s == CUZK_OK && used == vks, "%s", err);
    cuzk_vk_free(&v2);
    for (size_t n = 0; n < vks; n++) {
        s = cuzk_bp_vk_parse(&v2, vkb, n, NULL, err);
        CHECK_MSG(s == CUZK_ERR_TRUNCATED && err[0], "vk cut at %zu: %d %s", n, s, err);
    }
    /* IC identity is refused by the reader and by the encoder */
    {
        uint8_t *y = malloc(vks);
        memcpy(y, vkb, vks);
        memset(y + 868 + 96, 0, 96);
        y[868 + 96] = 0x40;
        s = cuzk_bp_vk_parse(&v2, y, vks, NULL, err);
        CHECK_MSG(s == CUZK_ERR_BAD_ENCODING && contains(err, "ic point 1"), "%d %s", s, err);
        cuzk_vk t;
        cuzk_vk_copy(&t, &z.vk);
        memset(&t.ic[2], 0, sizeof t.ic[2]);
        s = cuzk_bp_vk_encode(y, &t, err);
        CHECK_MSG(s == CUZK_ERR_INVALID_ARGUMENT, "%d %s", s, err);
        cuzk_vk_free(&t);
        free(y);
    }
    free(vkb);

    /* .params writer: bellperson-style filtered vectors (no identities) */
    uint32_t n_ic = p.vk.n_ic;
    cuzk_g1_affine *h = malloc(7 * sizeof *h), *l = malloc(4 * sizeof *l),
                   *a = malloc(7 * sizeof *a), *b1 = malloc(7 * sizeof *b1);
    cuzk_g2_affine *b2 = malloc(7 * sizeof *b2);
    CHECK(cuzk_points_decode_g1(h, &p.h, 0, 7, 0, 0, NULL) == CUZK_OK);
    CHECK(cuzk_points_decode_g1(l, &p.l, 0, 4, 0, 0, NULL) == CUZK_OK);
    uint32_t na = 0, nb = 0;
    for (uint32_t i = 0; i < 7; i++) {
        cuzk_g1_affine x;
        cuzk_g2_affine y;
        CHECK(cuzk_points_decode_g1(&x, &p.a, i, 1, 0, 1, NULL) == CUZK_OK);
        if (i < n_ic || !cuzk_g1_affine_is_inf(&x)) a[na++] = x;
        CHECK(cuzk_points_decode_g1(&x, &p.b_g1, i, 1, 0, 1, NULL) == CUZK_OK);
        CHECK(cuzk_points_decode_g2(&y, &p.b_g2, i, 1, 0, 1, NULL) == CUZK_OK);
        CHECK(cuzk_g1_affine_is_inf(&x) == cuzk_g2_affine_is_inf(&y));
        if (!cuzk_g1_affine_is_inf(&x)) b1[nb] = x, b2[nb++] = y;
    }
    CHECK(na == 6 && nb == 4); /* k has no A term; ONE, c, t have no B term */
    cuzk_bp_params_src src = {&p.vk, h, l, a, b1, b2, 7, 4, na, nb};
    FILE *f = tmpfile();
    CHECK(f != NULL);
    s = cuzk_bp_params_write(f, &src, err);
    CHECK_MSG(s == CUZK_OK, "%s", err);
    long sz = ftell(f);
    CHECK((uint64_t)sz == cuzk_bp_params_size(&src));
    uint8_t *wb = malloc((size_t)sz);
    rewind(f);
    CHECK(fread(wb, 1, (size_t)sz, f) == (size_t)sz);
    fclose(f);
    /* vk, h and l are byte-identical to snarkjs's export */
    size_t hl = 868 + 96 * 3 + 4 + 96 * 7 + 4 + 96 * 4;
    CHECK(!memcmp(wb, f_params.p, hl));
    s = cuzk_bp_params_parse(&q, wb, (size_t)sz, CUZK_FMT_SUBGROUP, err);
    CHECK_MSG(s == CUZK_OK, "%s", err);
    CHECK(q.roots == CUZK_ROOTS_BELLPERSON && q.trailer_size == 0 && q.a.n == na && q.b_g2.n == nb);
    CHECK(cuzk_vk_eq(&q.vk, &p.vk));
    for (uint32_t i = 0; i < nb; i++) {
        cuzk_g2_affine y;
        CHECK(cuzk_points_decode_g2(&y, &q.b_g2, i, 1, 1, 1, NULL) == CUZK_OK);
        CHECK(cuzk_g2_affine_eq(&y, &b2[i]));
    }
    cuzk_bp_params_free(&q);
    /* truncation: TRUNCATED (every byte of the vk, every 5th after) */
    for (size_t n = 0; n < (size_t)sz; n += n < 1200 ? 1 : 5) {
        s = cuzk_bp_params_parse(&q, wb, n, 0, err);
        CHECK_MSG(s == CUZK_ERR_TRUNCATED && err[0], "params cut at %zu: %d %s", n, s, err);
    }
    /* corruptions: the counts, a point off the curve, an identity */
    {
        size_t oh = 868 + 96 * 3;
        uint8_t keep[4];
        memcpy(keep, wb + oh, 4);
        wb[oh + 3] = 6; /* n_h = 6: not 2^k - 1 */
        s = cuzk_bp_params_parse(&q, wb, (size_t)sz, 0, err);
        CHECK_MSG(s != CUZK_OK && err[0], "%d %s", s, err);
        memcpy(wb + oh, keep, 4);
        wb[oh + 4 + 96 * 2 + 95] ^= 1; /* h[2].y */
        s = cuzk_bp_params_parse(&q, wb, (size_t)sz, 0, err);
        CHECK_MSG(s == CUZK_ERR_NOT_ON_CURVE && contains(err, "h point 2"), "%d %s", s, err);
        wb[oh + 4 + 96 * 2 + 95] ^= 1;
        uint8_t pt[96];
        memcpy(pt, wb + oh + 4, 96);
        memset(wb + oh + 4, 0, 96);
        wb[oh + 4] = 0x40;
        s = cuzk_bp_params_parse(&q, wb, (size_t)sz, 0, err);
        CHECK_MSG(s == CUZK_ERR_BAD_ENCODING && contains(err, "identity"), "%d %s", s, err);
        memcpy(wb + oh + 4, pt, 96);
        cuzk_g1_affine bad;
        g1_off_subgroup(&bad);
        cuzk_g1_to_uncompressed(wb + oh + 4 + 96, &bad);
        s = cuzk_bp_params_parse(&q, wb, (size_t)sz, 0, err);
        CHECK_MSG(s == CUZK_OK, "%s", err);
        cuzk_bp_params_free(&q);
        s = cuzk_bp_params_parse(&q, wb, (size_t)sz, CUZK_FMT_SUBGROUP, err);
        CHECK_MSG(s == CUZK_ERR_NOT_IN_SUBGROUP && contains(err, "h point 1"), "%d %s", s, err);
    }
    free(wb);
    /* the writer refuses identities before writing anything */
    {
        cuzk_g1_affine keep = a[4];
        memset(&a[4], 0, sizeof a[4]);
        f = tmpfile();
        s = cuzk_bp_params_write(f, &src, err);
        CHECK_MSG(s == CUZK_ERR_INVALID_ARGUMENT && contains(err, "a point 4") && ftell(f) == 0,
                  "%d %s", s, err);
        fclose(f);
        a[4] = keep;
    }
    free(h), free(l), free(a), free(b1), free(b2);
    cuzk_bp_params_free(&p);
    cuzk_zkey_free(&z);
}

/* ------------------------------------------------------- proof, JSON -- */

static void test_proof_json(void)
{
    char err[CUZK_ERRMSG_LEN];
    cuzk_status s;
    cuzk_vk vk;
    cuzk_proof pr;
    cuzk_fr *pub;
    size_t npub;

    CHECK(cuzk_vk_from_json(&vk, (const char *)f_vkjson.p, f_vkjson.n, err) == CUZK_OK);
    s = cuzk_proof_from_json(&pr, (const char *)f_proofjson.p, f_proofjson.n, err);
    CHECK_MSG(s == CUZK_OK, "%s", err);
    s = cuzk_public_from_json(&pub, &npub, (const char *)f_publicjson.p, f_publicjson.n, err);
    CHECK_MSG(s == CUZK_OK && npub == 2, "%s", err);
    CHECK(npub == 2 && fr_is_small(&pub[0], 327191) && fr_is_small(&pub[1], 3));

    /* the snarkjs proof verifies (an independent check of every decoder) */
    CHECK(groth16_verify(&vk, &pr, pub, npub));
    cuzk_fr keep = pub[1];
    fr_u64(&pub[1], 4);
    CHECK(!groth16_verify(&vk, &pr, pub, npub));
    pub[1] = keep;

    /* writers reproduce snarkjs's JSON (as JSON values) */
    char *out;
    json_t *mine, *theirs;
    struct { cuzk_status s; const buf *ref; } w[3];
    cuzk_zkey z;
    CHECK(cuzk_zkey_parse(&z, f_zkey.p, f_zkey.n, 0, err) == CUZK_OK);
    char *outs[3] = {NULL, NULL, NULL};
    w[0].s = cuzk_vk_to_json(&outs[0], &z.vk, err), w[0].ref = &f_vkjson;
    w[1].s = cuzk_proof_to_json(&outs[1], &pr, err), w[1].ref = &f_proofjson;
    w[2].s = cuzk_public_to_json(&outs[2], pub, npub, err), w[2].ref = &f_publicjson;
    for (int i = 0; i < 3; i++) {
        CHECK(w[i].s == CUZK_OK && outs[i]);
        if (!outs[i]) continue;
        mine = json_loads(outs[i], 0, NULL);
        theirs = json_loadb((const char *)w[i].ref->p, w[i].ref->n, 0, NULL);
        CHECK_MSG(mine && theirs && json_equal(mine, theirs), "writer %d differs:\n%s", i, outs[i]);
        json_decref(mine);
        json_decref(theirs);
    }
    /* byte-identical, modulo the final newline snarkjs does not write */
    CHECK(outs[1] && strlen(outs[1]) == f_proofjson.n &&
          !memcmp(outs[1], f_proofjson.p, f_proofjson.n));
    CHECK(outs[0] && strlen(outs[0]) == f_vkjson.n && !memcmp(outs[0], f_vkjson.p, f_vkjson.n));
    for (int i = 0; i < 3; i++) free(outs[i]);
    cuzk_zkey_free(&z);

    /* proof.json -> 192 bytes -> proof -> JSON -> proof */
    uint8_t b[2 * CUZK_PROOF_BYTES];
    CHECK(cuzk_proofs_to_bytes(b, &pr, 1, err) == CUZK_OK);
    CHECK((b[0] & 0x80) && (b[48] & 0x80) && (b[144] & 0x80));
    /* ... equal to @noble/curves's encoding of the same proof.json */
    CHECK(f_proof.n == CUZK_PROOF_BYTES && !memcmp(b, f_proof.p, CUZK_PROOF_BYTES));
    memcpy(b + CUZK_PROOF_BYTES, b, CUZK_PROOF_BYTES); /* two partitions */
    cuzk_proof back[2];
    s = cuzk_proofs_from_bytes(back, 2, b, sizeof b, err);
    CHECK_MSG(s == CUZK_OK, "%s", err);
    CHECK(cuzk_g1_affine_eq(&back[1].a, &pr.a) && cuzk_g2_affine_eq(&back[1].b, &pr.b) &&
          cuzk_g1_affine_eq(&back[1].c, &pr.c));
    CHECK(cuzk_proof_to_json(&out, &back[0], err) == CUZK_OK);
    cuzk_proof again;
    CHECK(cuzk_proof_from_json(&again, out, strlen(out), err) == CUZK_OK);
    CHECK(!memcmp(&again, &pr, sizeof pr));
    free(out);
    /* exact length, identities, flags */
    CHECK(cuzk_proofs_from_bytes(back, 2, b, sizeof b - 1, err) == CUZK_ERR_TRUNCATED);
    CHECK(cuzk_proofs_from_bytes(back, 1, b, sizeof b, err) == CUZK_ERR_BAD_ENCODING);
    for (size_t n = 0; n < CUZK_PROOF_BYTES; n++) {
        s = cuzk_proofs_from_bytes(back, 1, b, n, err);
        CHECK_MSG(s == CUZK_ERR_TRUNCATED && err[0], "%zu: %d", n, s);
    }
    {
        uint8_t y[CUZK_PROOF_BYTES];
        memcpy(y, b, sizeof y);
        memset(y + 144, 0, 48);
        y[144] = 0xc0; /* C = identity */
        s = cuzk_proofs_from_bytes(back, 1, y, sizeof y, err);
        CHECK_MSG(s == CUZK_ERR_BAD_ENCODING && contains(err, "C is the identity"), "%d %s", s,
                  err);
        memcpy(y, b, sizeof y);
        y[48] &= 0x7f; /* B without the compression flag */
        s = cuzk_proofs_from_bytes(back, 1, y, sizeof y, err);
        CHECK_MSG(s == CUZK_ERR_BAD_ENCODING && contains(err, "B"), "%d %s", s, err);
        cuzk_proof id = pr;
        memset(&id.b, 0, sizeof id.b);
        CHECK(cuzk_proofs_to_bytes(y, &id, 1, err) == CUZK_ERR_INVALID_ARGUMENT);
        /* every single-byte change is refused or gives another valid point */
        for (size_t i = 0; i < sizeof y; i++) {
            memcpy(y, b, sizeof y);
            y[i] ^= (uint8_t)(1u << (i % 8));
            s = cuzk_proofs_from_bytes(back, 1, y, sizeof y, err);
            CHECK(s != CUZK_OK ? err[0] != 0 : 1);
        }
    }

    /* Jacobian z (trap 12): (x z^2, y z^3, z) reads as (x, y); z = 0 is the identity */
    {
        json_t *root = json_loadb((const char *)f_proofjson.p, f_proofjson.n, 0, NULL);
        json_t *pa = json_object_get(root, "pi_a"), *pb = json_object_get(root, "pi_b");
        cuzk_fp z, z2, z3, x, y;
        cuzk_fp_from_u64(&z, 2);
        cuzk_fp_sqr(&z2, &z);
        cuzk_fp_mul(&z3, &z2, &z);
        cuzk_fp_mul(&x, &pr.a.x, &z2);
        cuzk_fp_mul(&y, &pr.a.y, &z3);
        json_array_set_new(pa, 0, json_fp(&x));
        json_array_set_new(pa, 1, json_fp(&y));
        json_array_set_new(pa, 2, json_fp(&z));
        /* G2 with z = 2 + u */
        cuzk_fp2 zz, zz2, zz3, xx, yy;
        cuzk_fp_from_u64(&zz.c0, 2);
        cuzk_fp_from_u64(&zz.c1, 1);
        cuzk_fp2_sqr(&zz2, &zz);
        cuzk_fp2_mul(&zz3, &zz2, &zz);
        cuzk_fp2_mul(&xx, &pr.b.x, &zz2);
        cuzk_fp2_mul(&yy, &pr.b.y, &zz3);
        json_array_set_new(pb, 0, json_pack("[o, o]", json_fp(&xx.c0), json_fp(&xx.c1)));
        json_array_set_new(pb, 1, json_pack("[o, o]", json_fp(&yy.c0), json_fp(&yy.c1)));
        json_array_set_new(pb, 2, json_pack("[o, o]", json_fp(&zz.c0), json_fp(&zz.c1)));
        char *txt = json_dumps(root, 0);
        cuzk_proof pj;
        s = cuzk_proof_from_json(&pj, txt, strlen(txt), err);
        CHECK_MSG(s == CUZK_OK && cuzk_g1_affine_eq(&pj.a, &pr.a) && cuzk_g2_affine_eq(&pj.b, &pr.b),
                  "jacobian: %d %s", s, err);
        free(txt);
        /* G2 z = 0: the identity */
        json_array_set_new(pb, 2, json_pack("[s, s]", "0", "0"));
        txt = json_dumps(root, 0);
        s = cuzk_proof_from_json(&pj, txt, strlen(txt), err);
        CHECK_MSG(s == CUZK_OK && cuzk_g2_affine_is_inf(&pj.b), "%d %s", s, err);
        free(txt);
        /* G1 z = 0: the identity */
        json_array_set_new(pa, 2, json_string("0"));
        txt = json_dumps(root, 0);
        s = cuzk_proof_from_json(&pj, txt, strlen(txt), err);
        CHECK_MSG(s == CUZK_OK && cuzk_g1_affine_is_inf(&pj.a), "%d %s", s, err);
        free(txt);
        /* z = 1 with Jacobian x, y: off the curve */
        json_array_set_new(pa, 2, json_string("1"));
        txt = json_dumps(root, 0);
        s = cuzk_proof_from_json(&pj, txt, strlen(txt), err);
        CHECK_MSG(s == CUZK_ERR_NOT_ON_CURVE && contains(err, "pi_a"), "%d %s", s, err);
        free(txt);
        /* an affine point on the curve but outside G1 */
        cuzk_g1_affine bad;
        g1_off_subgroup(&bad);
        json_array_set_new(pa, 0, json_fp(&bad.x));
        json_array_set_new(pa, 1, json_fp(&bad.y));
        txt = json_dumps(root, 0);
        s = cuzk_proof_from_json(&pj, txt, strlen(txt), err);
        CHECK_MSG(s == CUZK_ERR_NOT_IN_SUBGROUP && contains(err, "pi_a"), "%d %s", s, err);
        free(txt);
        /* q itself: not canonical; junk; too large; wrong curve; missing key */
        json_array_set_new(pa, 0, json_string("4002409555221667393417789825735904156556882819939007885332058136124031650490837864442687629129015664037894272559787"));
        txt = json_dumps(root, 0);
        s = cuzk_proof_from_json(&pj, txt, strlen(txt), err);
        CHECK_MSG(s == CUZK_ERR_NOT_CANONICAL && contains(err, "pi_a[0]"), "%d %s", s, err);
        free(txt);
        json_array_set_new(pa, 0, json_string("12x"));
        txt = json_dumps(root, 0);
        s = cuzk_proof_from_json(&pj, txt, strlen(txt), err);
        CHECK_MSG(s == CUZK_ERR_BAD_ENCODING && contains(err, "decimal"), "%d %s", s, err);
        free(txt);
        json_array_set_new(pa, 0, json_string("1000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"));
        txt = json_dumps(root, 0);
        s = cuzk_proof_from_json(&pj, txt, strlen(txt), err);
        CHECK_MSG(s == CUZK_ERR_NOT_CANONICAL, "%d %s", s, err);
        free(txt);
        json_object_set_new(root, "curve", json_string("bn128"));
        txt = json_dumps(root, 0);
        s = cuzk_proof_from_json(&pj, txt, strlen(txt), err);
        CHECK_MSG(s == CUZK_ERR_BAD_ENCODING && contains(err, "bn128"), "%d %s", s, err);
        free(txt);
        json_object_set_new(root, "curve", json_string("bls12381"));
        json_object_del(root, "pi_c");
        txt = json_dumps(root, 0);
        s = cuzk_proof_from_json(&pj, txt, strlen(txt), err);
        CHECK_MSG(s == CUZK_ERR_BAD_ENCODING && contains(err, "pi_c"), "%d %s", s, err);
        free(txt);
        json_decref(root);
    }
    /* vk.json: nPublic must match IC */
    {
        json_t *root = json_loadb((const char *)f_vkjson.p, f_vkjson.n, 0, NULL);
        json_object_set_new(root, "nPublic", json_integer(3));
        char *txt = json_dumps(root, 0);
        cuzk_vk tv;
        s = cuzk_vk_from_json(&tv, txt, strlen(txt), err);
        CHECK_MSG(s == CUZK_ERR_BAD_ENCODING && contains(err, "nPublic"), "%d %s", s, err);
        free(txt);
        json_decref(root);
    }
    /* public.json: r is not canonical */
    {
        const char *t = "[\"52435875175126190479447740508185965837690552500527637822603658699938581184513\"]";
        cuzk_fr *v;
        size_t n;
        s = cuzk_public_from_json(&v, &n, t, strlen(t), err);
        CHECK_MSG(s == CUZK_ERR_NOT_CANONICAL && contains(err, "[0]"), "%d %s", s, err);
        s = cuzk_public_from_json(&v, &n, "[1, \"2\"]", 8, err);
        CHECK_MSG(s == CUZK_OK && n == 2 && fr_is_small(&v[0], 1), "%d %s", s, err);
        free(v);
        s = cuzk_public_from_json(&v, &n, "{}", 2, err);
        CHECK(s == CUZK_ERR_BAD_ENCODING);
        s = cuzk_public_from_json(&v, &n, "[\"1\"", 4, err);
        CHECK_MSG(s == CUZK_ERR_BAD_ENCODING && contains(err, "line"), "%d %s", s, err);
    }
    free(pub);
    cuzk_vk_free(&vk);
}

/* --------------------------------------------------------- robustness -- */

typedef cuzk_status (*parse_fn)(const uint8_t *p, size_t n, char *err);

static cuzk_status p_r1cs(const uint8_t *p, size_t n, char *err)
{
    cuzk_r1cs r;
    cuzk_status s = cuzk_r1cs_parse(&r, p, n, err);
    cuzk_r1cs_free(&r);
    return s;
}

static cuzk_status p_wtns(const uint8_t *p, size_t n, char *err)
{
    cuzk_wtns w;
    cuzk_status s = cuzk_wtns_parse(&w, p, n, err);
    cuzk_wtns_free(&w);
    return s;
}

static cuzk_status p_zkey(const uint8_t *p, size_t n, char *err)
{
    cuzk_zkey z;
    cuzk_status s = cuzk_zkey_parse(&z, p, n, 0, err);
    cuzk_zkey_free(&z);
    return s;
}

static cuzk_status p_params(const uint8_t *p, size_t n, char *err)
{
    cuzk_bp_params q;
    cuzk_status s = cuzk_bp_params_parse(&q, p, n, CUZK_FMT_SNARKJS_BELLMAN, err);
    cuzk_bp_params_free(&q);
    return s;
}

static cuzk_status p_vkjson(const uint8_t *p, size_t n, char *err)
{
    cuzk_vk vk;
    cuzk_status s = cuzk_vk_from_json(&vk, (const char *)p, n, err);
    cuzk_vk_free(&vk);
    return s;
}

static cuzk_status p_proofjson(const uint8_t *p, size_t n, char *err)
{
    cuzk_proof pr;
    return cuzk_proof_from_json(&pr, (const char *)p, n, err);
}

static cuzk_status p_publicjson(const uint8_t *p, size_t n, char *err)
{
    cuzk_fr *v;
    size_t k;
    cuzk_status s = cuzk_public_from_json(&v, &k, (const char *)p, n, err);
    if (s == CUZK_OK) free(v);
    return s;
}

/* Truncation at every byte must give TRUNCATED (complete = the shortest
 * prefix that parses: the end of the layout) and a message. */
static void truncate_all(const char *name, parse_fn f, const buf *b, size_t complete,
                         int want_truncated, size_t stride)
{
    char err[CUZK_ERRMSG_LEN];
    int bad = 0;
    clock_t t0 = clock();
    for (size_t n = 0; n < b->n; n += n < 1200 ? 1 : stride) {
        err[0] = 0;
        cuzk_status s = f(b->p, n, err);
        int ok = n < complete ? (want_truncated ? s == CUZK_ERR_TRUNCATED : s != CUZK_OK) && err[0]
                              : s == CUZK_OK;
        if (!ok && bad++ < 3)
            fprintf(stderr, "%s cut at %zu: status %d: %s\n", name, n, s, err);
    }
    CHECK_MSG(bad == 0, "%s: %d truncations misreported", name, bad);
    printf("  %s: truncations (%.1f s)\n", name, (double)(clock() - t0) / CLOCKS_PER_SEC);
    CHECK(f(b->p, b->n, err) == CUZK_OK);
}

/* Bytes changed at every offset of the first 1200 (headers), then every
 * stride-th (npat patterns): never a crash,
 * and a message whenever it fails. */
static void flip_all(const char *name, parse_fn f, const buf *b, size_t stride, int npat)
{
    char err[CUZK_ERRMSG_LEN];
    buf x = dup_buf(b->p, b->n);
    int fails = 0, nomsg = 0, tries = 0;
    static const uint8_t pat[3] = {0x01, 0x80, 0xff};
    clock_t t0 = clock();
    for (size_t i = 0; i < b->n; i += i < 1200 ? 1 : stride)
        for (int k = 0; k < npat; k++) {
            x.p[i] ^= pat[k];
            err[0] = 0;
            cuzk_status s = f(x.p, x.n, err);
            tries++;
            fails += s != CUZK_OK;
            nomsg += s != CUZK_OK && !err[0];
            x.p[i] = b->p[i];
        }
    printf("  %s: %d byte flips, %d rejected (%.1f s)\n", name, tries, fails,
           (double)(clock() - t0) / CLOCKS_PER_SEC);
    CHECK_MSG(nomsg == 0, "%s: %d failures without a message", name, nomsg);
    CHECK(fails > 0);
    free(x.p);
}

static void test_robustness(void)
{
    /* At every byte (past the first 1200 bytes of params, every 3rd: each
     * of those parses subgroup-checks the whole vk first). */
    truncate_all("r1cs", p_r1cs, &f_r1cs, f_r1cs.n, 1, 1);
    truncate_all("wtns", p_wtns, &f_wtns, f_wtns.n, 1, 1);
    truncate_all("zkey", p_zkey, &f_zkey, f_zkey.n, 1, 1);
    truncate_all("params", p_params, &f_params, f_params.n - 612, 1, 3);
    truncate_all("vk.json", p_vkjson, &f_vkjson, f_vkjson.n, 0, 1);
    truncate_all("proof.json", p_proofjson, &f_proofjson, f_proofjson.n, 0, 1);
    truncate_all("public.json", p_publicjson, &f_publicjson, f_publicjson.n, 0, 1);
    /* Every byte of r1cs/wtns/public.json with three patterns; past the
     * headers, every 3rd byte of zkey/params (each parse subgroup-checks
     * the 9 header points: ~0.6 ms). */
    flip_all("r1cs", p_r1cs, &f_r1cs, 1, 3);
    flip_all("wtns", p_wtns, &f_wtns, 1, 3);
    flip_all("zkey", p_zkey, &f_zkey, 3, 1);
    flip_all("params", p_params, &f_params, 3, 1);
    flip_all("vk.json", p_vkjson, &f_vkjson, 5, 1);
    flip_all("proof.json", p_proofjson, &f_proofjson, 3, 1);
    flip_all("public.json", p_publicjson, &f_publicjson, 1, 3);
    /* random garbage of every small length */
    char err[CUZK_ERRMSG_LEN];
    uint8_t g[256];
    for (size_t n = 0; n < sizeof g; n++) {
        for (size_t i = 0; i < n; i++) g[i] = (uint8_t)test_rand64();
        if (n >= 4) memcpy(g, "zkey", 4);
        CHECK(p_zkey(g, n, err) != CUZK_OK && err[0]);
        if (n >= 4) memcpy(g, "r1cs", 4);
        CHECK(p_r1cs(g, n, err) != CUZK_OK && err[0]);
        CHECK(p_params(g, n, err) != CUZK_OK && err[0]);
    }
    /* NULL with size 0 is an empty file; NULL with a size is misuse */
    cuzk_zkey z;
    CHECK(cuzk_zkey_parse(&z, NULL, 0, 0, err) == CUZK_ERR_TRUNCATED);
    CHECK(cuzk_zkey_parse(&z, NULL, 5, 0, err) == CUZK_ERR_INVALID_ARGUMENT);
    CHECK(cuzk_zkey_parse(&z, f_zkey.p, f_zkey.n, 0, NULL) == CUZK_OK);
    cuzk_zkey_free(&z);
}

/* --------------------------------------------------------------- files -- */

static void test_files(void)
{
    char path[1024], err[CUZK_ERRMSG_LEN];
    cuzk_blob b;
    snprintf(path, sizeof path, "%s/mul.zkey", test_data_dir());
    CHECK(cuzk_blob_map(&b, path, err) == CUZK_OK);
    CHECK(b.size == f_zkey.n && !memcmp(b.data, f_zkey.p, b.size));
    cuzk_zkey z;
    CHECK(cuzk_zkey_parse(&z, b.data, b.size, 0, err) == CUZK_OK);
    cuzk_zkey_free(&z);
    cuzk_blob_release(&b);
    cuzk_blob_release(&b);
    CHECK(cuzk_blob_map(&b, "/nonexistent/x.zkey", err) == CUZK_ERR_IO &&
          contains(err, "nonexistent"));
    CHECK(cuzk_blob_read(&b, "/nonexistent/x.zkey", err) == CUZK_ERR_IO);

    char tmp[] = "/tmp/cuzk_test_formats_XXXXXX";
    int fd = mkstemp(tmp);
    CHECK(fd >= 0);
    close(fd);
    CHECK(cuzk_file_write(tmp, f_wtns.p, f_wtns.n, err) == CUZK_OK);
    CHECK(cuzk_blob_map(&b, tmp, err) == CUZK_OK && b.size == f_wtns.n);
    cuzk_blob_release(&b);
    CHECK(cuzk_file_write(tmp, "", 0, err) == CUZK_OK);
    CHECK(cuzk_blob_map(&b, tmp, err) == CUZK_OK && b.size == 0 && b.data != NULL);
    cuzk_wtns w;
    CHECK(cuzk_wtns_parse(&w, b.data, b.size, err) == CUZK_ERR_TRUNCATED);
    cuzk_blob_release(&b);
    CHECK(cuzk_blob_read(&b, tmp, err) == CUZK_OK && b.size == 0);
    cuzk_blob_release(&b);
    unlink(tmp);
}

int main(void)
{
    test_seed("test_formats");
    load_all();
    test_r1cs();
    test_wtns();
    test_zkey();
    test_zkey_bad();
    test_params();
    test_proof_json();
    test_files();
    test_robustness();
    buf *all[] = {&f_r1cs,      &f_wtns,         &f_zkey,    &f_params,  &f_proof,  &f_vkjson,
                  &f_proofjson, &f_publicjson, &f_bn_r1cs, &f_bn_zkey, &f_bn_wtns};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) free(all[i]->p);
    return test_done("test_formats");
}
