/* Tests for G1, G2 (src/ec/g1.c, g2.c) and their encodings (src/ec/encode.c).
 *
 * The group tests are written once and run for both groups: this file
 * includes itself twice (the part below "#else") with the names of G1, then
 * of G2. Independent references: the expected encodings of G and [2]G were
 * computed with a separate Python big-integer implementation of the curve
 * (affine formulas, no Montgomery form); the subgroup check is compared with
 * the definition [r]P = O; every coordinate form is compared with the
 * others. */
#ifndef TEST_EC_GROUP

#include <string.h>

#include <cuzk/ec.h>

#include "test_util.h"

/* Parses an even-length hex string into out (length strlen(hex) / 2). */
static void hex_to_bytes(uint8_t *out, const char *hex)
{
    size_t n = strlen(hex) / 2;
    for (size_t i = 0; i < n; i++) {
        unsigned v;
        sscanf(hex + 2 * i, "%2x", &v);
        out[i] = (uint8_t)v;
    }
}

static void fp_from_hex(cuzk_fp *r, const char *hex)
{
    uint8_t b[48];
    hex_to_bytes(b, hex);
    cuzk_status s = cuzk_fp_from_be(r, b);
    CHECK(s == CUZK_OK);
}

/* q as 48 big-endian bytes: the smallest non-canonical coordinate. */
static void q_be(uint8_t out[48])
{
    for (int i = 0; i < 6; i++)
        for (int j = 0; j < 8; j++)
            out[47 - 8 * i - j] = (uint8_t)(CUZK_FP_MODULUS[i] >> (8 * j));
}

/* q as 48 little-endian bytes (a non-canonical LEM coordinate). */
static void q_le(uint8_t out[48])
{
    for (int i = 0; i < 6; i++)
        for (int j = 0; j < 8; j++) out[8 * i + j] = (uint8_t)(CUZK_FP_MODULUS[i] >> (8 * j));
}

static void rand_nonzero_fr(cuzk_fr *k)
{
    do test_rand_fr(k);
    while (cuzk_fr_is_zero(k));
}

static const uint64_t BLS_X_ABS = 0xd201000000010000ull;

/* r * h1 / 3: maps a point of E(Fp) to one of order 1 or 3. */
static const uint64_t G1_TO_ORDER3[6] = {0xd955555555558e39ull, 0x0a395554e5c6aaaaull,
                                         0xcd104635a790520cull, 0xcc27c3d6fbd7063full,
                                         0x190937e76bc3e447ull, 0x08ab05f8bdd54cdeull};
static const uint64_t G1_COFACTOR[2] = {0x8c00aaab0000aaabull, 0x396c8c005555e156ull};
static const uint64_t G2_COFACTOR[8] = {
    0xcf1c38e31c7238e5ull, 0x1616ec6e786f0c70ull, 0x21537e293a6691aeull, 0xa628f1cb4d9e82efull,
    0xa68a205b2e5a7ddfull, 0xcd91de4547085abaull, 0x091d50792876a202ull, 0x05d543a95414e7f1ull};

/* Encodings from the independent Python implementation. */
static const char *G1_GEN_COMPRESSED =
    "97f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb";
static const char *G1_GEN2_COMPRESSED =
    "a572cbea904d67468808c8eb50a9450c9721db309128012543902d0ac358a62ae28f75bb8f1c7c42c39a8c5529bf0f4e";
static const char *G1_GEN2_UNCOMPRESSED =
    "0572cbea904d67468808c8eb50a9450c9721db309128012543902d0ac358a62ae28f75bb8f1c7c42c39a8c5529bf0f4e"
    "166a9d8cabc673a322fda673779d8e3822ba3ecb8670e461f73bb9021d5fd76a4c56d9d4cd16bd1bba86881979749d28";
static const char *G2_GEN_COMPRESSED =
    "93e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57e5ac7d055d042b7e"
    "024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac0326a805bbefd48056c8c121bdb8";
static const char *G2_GEN2_COMPRESSED =
    "aa4edef9c1ed7f729f520e47730a124fd70662a904ba1074728114d1031e1572c6c886f6b57ec72a6178288c47c33577"
    "1638533957d540a9d2370f17cc7ed5863bc0b995b8825e0ee1ea1e1e4d00dbae81f14b0bf3611b78c952aacab827a053";
static const char *G2_GEN2_UNCOMPRESSED =
    "0a4edef9c1ed7f729f520e47730a124fd70662a904ba1074728114d1031e1572c6c886f6b57ec72a6178288c47c33577"
    "1638533957d540a9d2370f17cc7ed5863bc0b995b8825e0ee1ea1e1e4d00dbae81f14b0bf3611b78c952aacab827a053"
    "0f6d4552fa65dd2638b361543f887136a43253d9c66c411697003f7a13c308f5422e1aa0a59c8967acdefd8b6e36ccf3"
    "0468fb440d82b0630aeb8dca2b5256789a66da69bf91009cbfe6bd221e47aa8ae88dece9764bf3bd999d95d71e4c9899";

static void set_b_g1(cuzk_fp *b) { cuzk_fp_from_u64(b, 4); }
static void set_b_g2(cuzk_fp2 *b)
{
    cuzk_fp_from_u64(&b->c0, 4);
    b->c1 = b->c0;
}

/* ---------------------------------------------------------------- G1 -- */
#define TEST_EC_GROUP 1
#define PFX(n) g1_##n
#define G(n) cuzk_g1_##n
#define FE cuzk_fp
#define F(n) cuzk_fp_##n
#define AFF cuzk_g1_affine
#define JAC cuzk_g1_jac
#define XYZZ cuzk_g1_xyzz
#define GEN CUZK_G1_GENERATOR
#define RAND_FE test_rand_fp
#define SET_B set_b_g1
#define NAME "g1"
#define COMPRESSED_BYTES 48
#define COFACTOR G1_COFACTOR
#define GEN_COMPRESSED G1_GEN_COMPRESSED
#define GEN2_COMPRESSED G1_GEN2_COMPRESSED
#define GEN2_UNCOMPRESSED G1_GEN2_UNCOMPRESSED
#include "test_ec.c" /* the template part below */
#undef TEST_EC_GROUP
#undef PFX
#undef G
#undef FE
#undef F
#undef AFF
#undef JAC
#undef XYZZ
#undef GEN
#undef RAND_FE
#undef SET_B
#undef NAME
#undef COMPRESSED_BYTES
#undef COFACTOR
#undef GEN_COMPRESSED
#undef GEN2_COMPRESSED
#undef GEN2_UNCOMPRESSED

/* ---------------------------------------------------------------- G2 -- */
#define TEST_EC_GROUP 2
#define PFX(n) g2_##n
#define G(n) cuzk_g2_##n
#define FE cuzk_fp2
#define F(n) cuzk_fp2_##n
#define AFF cuzk_g2_affine
#define JAC cuzk_g2_jac
#define XYZZ cuzk_g2_xyzz
#define GEN CUZK_G2_GENERATOR
#define RAND_FE test_rand_fp2
#define SET_B set_b_g2
#define NAME "g2"
#define COMPRESSED_BYTES 96
#define COFACTOR G2_COFACTOR
#define GEN_COMPRESSED G2_GEN_COMPRESSED
#define GEN2_COMPRESSED G2_GEN2_COMPRESSED
#define GEN2_UNCOMPRESSED G2_GEN2_UNCOMPRESSED
#include "test_ec.c" /* the template part below */

/* ------------------------------------------------- group-specific tests -- */

static void test_generator_constants(void)
{
    cuzk_fp x, y;
    fp_from_hex(&x, "17f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb");
    fp_from_hex(&y, "08b3f481e3aaa0f1a09e30ed741d8ae4fcf5e095d5d00af600db18cb2c04b3edd03cc744a2888ae40caa232946c5e7e1");
    CHECK(cuzk_fp_eq(&x, &CUZK_G1_GENERATOR.x));
    CHECK(cuzk_fp_eq(&y, &CUZK_G1_GENERATOR.y));

    cuzk_g2_affine g;
    fp_from_hex(&g.x.c0, "024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac0326a805bbefd48056c8c121bdb8");
    fp_from_hex(&g.x.c1, "13e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57e5ac7d055d042b7e");
    fp_from_hex(&g.y.c0, "0ce5d527727d6e118cc9cdc6da2e351aadfd9baa8cbdd3a76d429a695160d12c923ac9cc3baca289e193548608b82801");
    fp_from_hex(&g.y.c1, "0606c4a02ea734cc32acd2b02bc28b99cb3e287e85a763af267492ab572e99ab3f370d275cec1da1aaa9075ff05f79be");
    CHECK(cuzk_g2_affine_eq(&g, &CUZK_G2_GENERATOR));
}

/* Points of order 3 in E(Fp) (from the cofactor 3 * 11^2 * ...): G1 + T
 * must fail the subgroup check. */
static void test_g1_order3(void)
{
    int found = 0;
    for (int it = 0; it < 20 && found < 4; it++) {
        cuzk_g1_affine z, ta, pa;
        cuzk_g1_jac t, p;
        g1_hash_point(&z);
        cuzk_g1_from_affine(&t, &z);
        cuzk_g1_mul_limbs(&t, &t, G1_TO_ORDER3, 6);
        if (cuzk_g1_jac_is_inf(&t)) continue;
        found++;
        cuzk_g1_to_affine(&ta, &t);
        CHECK(cuzk_g1_affine_on_curve(&ta));
        CHECK(!cuzk_g1_affine_in_subgroup(&ta));
        cuzk_g1_jac t3;
        cuzk_g1_dbl(&t3, &t);
        cuzk_g1_add(&t3, &t3, &t);
        CHECK(cuzk_g1_jac_is_inf(&t3)); /* order 3 indeed */
        g1_rand_point(&p);
        cuzk_g1_add(&p, &p, &t);
        cuzk_g1_to_affine(&pa, &p);
        CHECK(!cuzk_g1_affine_in_subgroup(&pa));
        CHECK(!g1_slow_in_subgroup(&pa));
    }
    CHECK(found > 0);
}

/* The independent reference encodings of the generators decode to the
 * constants. */
static void test_decode_generators(void)
{
    uint8_t b[96];
    cuzk_g1_affine p1;
    cuzk_g2_affine p2;
    hex_to_bytes(b, G1_GEN_COMPRESSED);
    CHECK(cuzk_g1_from_compressed(&p1, b, CUZK_DECODE_SUBGROUP) == CUZK_OK);
    CHECK(cuzk_g1_affine_eq(&p1, &CUZK_G1_GENERATOR));
    hex_to_bytes(b, G2_GEN_COMPRESSED);
    CHECK(cuzk_g2_from_compressed(&p2, b, CUZK_DECODE_SUBGROUP) == CUZK_OK);
    CHECK(cuzk_g2_affine_eq(&p2, &CUZK_G2_GENERATOR));
}

int main(void)
{
    test_seed("test_ec");
    test_generator_constants();
    test_decode_generators();
    g1_run_all();
    test_g1_order3();
    g2_run_all();
    return test_done("test_ec");
}

#else /* ===================================== per-group template part === */

/* A random point of the subgroup, with a random Z. */
static void PFX(rescale)(JAC *r, const JAC *p)
{
    FE l, l2, l3;
    do RAND_FE(&l);
    while (F(is_zero)(&l));
    F(sqr)(&l2, &l);
    F(mul)(&l3, &l2, &l);
    F(mul)(&r->x, &p->x, &l2);
    F(mul)(&r->y, &p->y, &l3);
    F(mul)(&r->z, &p->z, &l);
}

static void PFX(rand_point)(JAC *p)
{
    cuzk_fr k;
    JAC g;
    rand_nonzero_fr(&k);
    G(from_affine)(&g, &GEN);
    G(mul)(p, &g, &k);
    PFX(rescale)(p, p);
}

/* XYZZ with random scaling: (x l^2, y l^3, l^2, l^3). */
static void PFX(to_xyzz)(XYZZ *r, const JAC *p)
{
    AFF a;
    FE l, l2, l3;
    G(to_affine)(&a, p);
    if (G(affine_is_inf)(&a)) {
        G(xyzz_set_inf)(r);
        RAND_FE(&r->x); /* junk coordinates: only ZZ = 0 may matter */
        RAND_FE(&r->y);
        return;
    }
    do RAND_FE(&l);
    while (F(is_zero)(&l));
    F(sqr)(&l2, &l);
    F(mul)(&l3, &l2, &l);
    F(mul)(&r->x, &a.x, &l2);
    F(mul)(&r->y, &a.y, &l3);
    r->zz = l2;
    r->zzz = l3;
}

static int PFX(xyzz_eq)(const XYZZ *a, const JAC *b)
{
    JAC t;
    G(xyzz_to_jac)(&t, a);
    return G(jac_eq)(&t, b) && G(jac_on_curve)(&t);
}

/* A point of the whole curve E(F), not (in general) in the subgroup: try
 * random x until x^3 + b is a square. */
static void PFX(hash_point)(AFF *p)
{
    FE b, rhs;
    SET_B(&b);
    for (;;) {
        RAND_FE(&p->x);
        F(sqr)(&rhs, &p->x);
        F(mul)(&rhs, &rhs, &p->x);
        F(add)(&rhs, &rhs, &b);
        if (F(sqrt)(&p->y, &rhs)) return;
    }
}

/* The definition: [r] P = O. */
static int PFX(slow_in_subgroup)(const AFF *p)
{
    JAC t;
    G(from_affine)(&t, p);
    G(mul_limbs)(&t, &t, CUZK_FR_MODULUS, CUZK_FR_LIMBS);
    return G(jac_is_inf)(&t);
}

static void PFX(test_generator)(void)
{
    JAC g, t;
    CHECK(G(affine_on_curve)(&GEN));
    CHECK(!G(affine_is_inf)(&GEN));
    CHECK(G(affine_in_subgroup)(&GEN));
    CHECK(PFX(slow_in_subgroup)(&GEN));
    G(from_affine)(&g, &GEN);
    CHECK(G(jac_on_curve)(&g));
    G(mul_limbs)(&t, &g, CUZK_FR_MODULUS, CUZK_FR_LIMBS);
    CHECK(G(jac_is_inf)(&t));
}

static void PFX(test_group_laws)(void)
{
    JAC p, q, s, inf, t1, t2, t3, np;
    AFF pa, qa, infa, ta;
    XYZZ px, qx, sx, infx, tx;
    memset(&infa, 0, sizeof infa);
    G(jac_set_inf)(&inf);
    CHECK(G(jac_is_inf)(&inf));
    CHECK(G(jac_on_curve)(&inf));
    CHECK(G(affine_is_inf)(&infa));
    CHECK(G(affine_on_curve)(&infa));
    CHECK(G(affine_in_subgroup)(&infa));
    G(xyzz_set_inf)(&infx);

    for (int it = 0; it < 24; it++) {
        PFX(rand_point)(&p);
        PFX(rand_point)(&q);
        PFX(rand_point)(&s);
        CHECK(G(jac_on_curve)(&p));
        CHECK(!G(jac_is_inf)(&p));
        CHECK(!G(jac_eq)(&p, &q));
        CHECK(!G(jac_eq)(&p, &inf) && !G(jac_eq)(&inf, &p));
        G(to_affine)(&pa, &p);
        G(to_affine)(&qa, &q);
        CHECK(G(affine_on_curve)(&pa));
        CHECK(G(affine_in_subgroup)(&pa));
        G(from_affine)(&t1, &pa);
        CHECK(G(jac_eq)(&t1, &p));

        /* commutativity, associativity */
        G(add)(&t1, &p, &q);
        G(add)(&t2, &q, &p);
        CHECK(G(jac_eq)(&t1, &t2));
        CHECK(G(jac_on_curve)(&t1));
        G(add)(&t1, &t1, &s);
        G(add)(&t2, &q, &s);
        G(add)(&t2, &p, &t2);
        CHECK(G(jac_eq)(&t1, &t2));

        /* identity */
        G(add)(&t1, &p, &inf);
        CHECK(G(jac_eq)(&t1, &p));
        G(add)(&t1, &inf, &p);
        CHECK(G(jac_eq)(&t1, &p));
        G(add)(&t1, &inf, &inf);
        CHECK(G(jac_is_inf)(&t1));
        G(add_mixed)(&t1, &p, &infa);
        CHECK(G(jac_eq)(&t1, &p));
        G(add_mixed)(&t1, &inf, &qa);
        CHECK(G(jac_eq)(&t1, &q));
        G(add_mixed)(&t1, &inf, &infa);
        CHECK(G(jac_is_inf)(&t1));
        G(dbl)(&t1, &inf);
        CHECK(G(jac_is_inf)(&t1));

        /* inverse */
        G(neg)(&np, &p);
        CHECK(!G(jac_eq)(&np, &p));
        G(add)(&t1, &p, &np);
        CHECK(G(jac_is_inf)(&t1));
        G(affine_neg)(&ta, &pa);
        G(add_mixed)(&t1, &p, &ta);
        CHECK(G(jac_is_inf)(&t1));
        PFX(rescale)(&t2, &np);
        G(add)(&t1, &t2, &p);
        CHECK(G(jac_is_inf)(&t1));

        /* P + P = [2] P, with P given in two different representations */
        G(dbl)(&t3, &p);
        CHECK(G(jac_on_curve)(&t3));
        G(add)(&t1, &p, &p);
        CHECK(G(jac_eq)(&t1, &t3));
        PFX(rescale)(&t2, &p);
        G(add)(&t1, &p, &t2);
        CHECK(G(jac_eq)(&t1, &t3));
        G(add_mixed)(&t1, &p, &pa);
        CHECK(G(jac_eq)(&t1, &t3));

        /* mixed = full */
        G(add_mixed)(&t1, &p, &qa);
        G(add)(&t2, &p, &q);
        CHECK(G(jac_eq)(&t1, &t2));

        /* affine agreement: to_affine(P + Q) equals the affine sum
         * reached by another route */
        G(to_affine)(&ta, &t2);
        G(add_mixed)(&t1, &q, &pa);
        AFF ta2;
        G(to_affine)(&ta2, &t1);
        CHECK(G(affine_eq)(&ta, &ta2));

        /* XYZZ */
        PFX(to_xyzz)(&px, &p);
        PFX(to_xyzz)(&qx, &q);
        PFX(to_xyzz)(&sx, &s);
        G(xyzz_add)(&tx, &px, &qx);
        CHECK(PFX(xyzz_eq)(&tx, &t2));
        G(xyzz_add_mixed)(&tx, &px, &qa);
        CHECK(PFX(xyzz_eq)(&tx, &t2));
        G(xyzz_add)(&tx, &tx, &sx); /* (P + Q) + S vs P + (Q + S) */
        G(add)(&t1, &q, &s);
        G(add)(&t1, &t1, &p);
        CHECK(PFX(xyzz_eq)(&tx, &t1));
        G(xyzz_dbl)(&tx, &px);
        CHECK(PFX(xyzz_eq)(&tx, &t3));
        G(xyzz_add)(&tx, &px, &px);
        CHECK(PFX(xyzz_eq)(&tx, &t3));
        XYZZ px2;
        PFX(to_xyzz)(&px2, &p); /* same point, other scaling */
        G(xyzz_add)(&tx, &px, &px2);
        CHECK(PFX(xyzz_eq)(&tx, &t3));
        G(xyzz_add_mixed)(&tx, &px, &pa);
        CHECK(PFX(xyzz_eq)(&tx, &t3));
        /* XYZZ inverse and identity */
        XYZZ npx;
        PFX(to_xyzz)(&npx, &np);
        G(xyzz_add)(&tx, &px, &npx);
        CHECK(F(is_zero)(&tx.zz));
        G(affine_neg)(&ta, &pa);
        G(xyzz_add_mixed)(&tx, &px, &ta);
        CHECK(F(is_zero)(&tx.zz));
        G(xyzz_add)(&tx, &px, &infx);
        CHECK(PFX(xyzz_eq)(&tx, &p));
        G(xyzz_add)(&tx, &infx, &px);
        CHECK(PFX(xyzz_eq)(&tx, &p));
        G(xyzz_add)(&tx, &infx, &infx);
        CHECK(F(is_zero)(&tx.zz));
        G(xyzz_add_mixed)(&tx, &px, &infa);
        CHECK(PFX(xyzz_eq)(&tx, &p));
        G(xyzz_add_mixed)(&tx, &infx, &pa);
        CHECK(PFX(xyzz_eq)(&tx, &p));
        G(xyzz_add_mixed)(&tx, &infx, &infa);
        CHECK(F(is_zero)(&tx.zz));
        G(xyzz_dbl)(&tx, &infx);
        CHECK(F(is_zero)(&tx.zz));
        G(xyzz_from_affine)(&tx, &pa);
        CHECK(PFX(xyzz_eq)(&tx, &p));
        G(xyzz_from_affine)(&tx, &infa);
        CHECK(F(is_zero)(&tx.zz));
        G(xyzz_to_jac)(&t1, &infx);
        CHECK(G(jac_is_inf)(&t1));
        /* XYZZ commutativity */
        XYZZ tx2;
        G(xyzz_add)(&tx, &px, &qx);
        G(xyzz_add)(&tx2, &qx, &px);
        G(xyzz_to_jac)(&t1, &tx2);
        CHECK(PFX(xyzz_eq)(&tx, &t1));

        /* aliasing: r = p, r = q */
        t1 = p;
        G(add)(&t1, &t1, &q);
        CHECK(G(jac_eq)(&t1, &t2));
        t1 = q;
        G(add)(&t1, &p, &t1);
        CHECK(G(jac_eq)(&t1, &t2));
        t1 = p;
        G(add)(&t1, &t1, &t1);
        CHECK(G(jac_eq)(&t1, &t3));
    }
    /* infinity in another representation: (0, 0, 0) */
    {
        JAC z0;
        memset(&z0, 0, sizeof z0);
        PFX(rand_point)(&p);
        CHECK(G(jac_eq)(&z0, &inf));
        CHECK(!G(jac_eq)(&z0, &p) && !G(jac_eq)(&p, &z0));
        G(add)(&t1, &z0, &p);
        CHECK(G(jac_eq)(&t1, &p));
        G(add)(&t1, &p, &z0);
        CHECK(G(jac_eq)(&t1, &p));
    }
    /* to_affine / from_affine of infinity */
    G(to_affine)(&ta, &inf);
    CHECK(G(affine_is_inf)(&ta));
    G(from_affine)(&t1, &infa);
    CHECK(G(jac_is_inf)(&t1));
    G(affine_neg)(&ta, &infa);
    CHECK(G(affine_is_inf)(&ta));
    /* an off-curve point is reported as such */
    PFX(rand_point)(&p);
    F(add)(&p.y, &p.y, &p.x);
    CHECK(!G(jac_on_curve)(&p));
    G(to_affine)(&pa, &p);
    CHECK(!G(affine_on_curve)(&pa));
}

static void PFX(test_scalar_mul)(void)
{
    JAC g, p, t1, t2, t3, inf;
    G(from_affine)(&g, &GEN);
    G(jac_set_inf)(&inf);

    /* small scalars against repeated addition */
    PFX(rand_point)(&p);
    G(jac_set_inf)(&t2);
    for (uint64_t k = 0; k < 40; k++) {
        cuzk_fr kf;
        cuzk_fr_from_u64(&kf, k);
        G(mul)(&t1, &p, &kf);
        CHECK_MSG(G(jac_eq)(&t1, &t2), "%s [%llu]P", NAME, (unsigned long long)k);
        G(mul_limbs)(&t3, &p, &k, 1);
        CHECK(G(jac_eq)(&t3, &t2));
        G(add)(&t2, &t2, &p);
    }
    G(mul_limbs)(&t1, &p, NULL, 0);
    CHECK(G(jac_is_inf)(&t1));

    for (int it = 0; it < 8; it++) {
        cuzk_fr a, b, ab, apb;
        test_rand_fr(&a);
        test_rand_fr(&b);
        PFX(rand_point)(&p);
        /* [a]([b]P) = [ab]P */
        G(mul)(&t1, &p, &b);
        G(mul)(&t1, &t1, &a);
        cuzk_fr_mul(&ab, &a, &b);
        G(mul)(&t2, &p, &ab);
        CHECK(G(jac_eq)(&t1, &t2));
        /* [a]P + [b]P = [a+b]P */
        G(mul)(&t1, &p, &a);
        G(mul)(&t2, &p, &b);
        G(add)(&t1, &t1, &t2);
        cuzk_fr_add(&apb, &a, &b);
        G(mul)(&t2, &p, &apb);
        CHECK(G(jac_eq)(&t1, &t2));
        /* mul = mul_limbs */
        uint64_t al[CUZK_FR_LIMBS];
        cuzk_fr_to_limbs(al, &a);
        G(mul)(&t1, &p, &a);
        G(mul_limbs)(&t2, &p, al, CUZK_FR_LIMBS);
        CHECK(G(jac_eq)(&t1, &t2));
        /* [r]P = O, [r-1]P = -P */
        G(mul_limbs)(&t1, &p, CUZK_FR_MODULUS, CUZK_FR_LIMBS);
        CHECK(G(jac_is_inf)(&t1));
        cuzk_fr m1;
        cuzk_fr_neg(&m1, &CUZK_FR_ONE);
        G(mul)(&t1, &p, &m1);
        G(neg)(&t2, &p);
        CHECK(G(jac_eq)(&t1, &t2));
        /* [k] O = O, [0] P = O, [1] P = P, [2] P = dbl P */
        G(mul)(&t1, &inf, &a);
        CHECK(G(jac_is_inf)(&t1));
        G(mul)(&t1, &p, &CUZK_FR_ZERO);
        CHECK(G(jac_is_inf)(&t1));
        G(mul)(&t1, &p, &CUZK_FR_ONE);
        CHECK(G(jac_eq)(&t1, &p));
        cuzk_fr two;
        cuzk_fr_from_u64(&two, 2);
        G(mul)(&t1, &p, &two);
        G(dbl)(&t2, &p);
        CHECK(G(jac_eq)(&t1, &t2));
        /* aliasing r = p */
        t1 = p;
        G(mul)(&t1, &t1, &a);
        G(mul)(&t2, &p, &a);
        CHECK(G(jac_eq)(&t1, &t2));
    }
    /* the generator has order r: [r-1]G = -G, [r]G = O */
    {
        cuzk_fr m1;
        cuzk_fr_neg(&m1, &CUZK_FR_ONE);
        G(mul)(&t1, &g, &m1);
        G(add)(&t1, &t1, &g);
        CHECK(G(jac_is_inf)(&t1));
    }
    /* the BLS parameter: [x] P via mul_limbs (used by the subgroup checks)
     * agrees with the windowed mul by x mod r */
    {
        cuzk_fr xf;
        cuzk_fr_from_u64(&xf, BLS_X_ABS);
        PFX(rand_point)(&p);
        G(mul)(&t1, &p, &xf);
        G(mul_limbs)(&t2, &p, &BLS_X_ABS, 1);
        CHECK(G(jac_eq)(&t1, &t2));
    }
}

static void PFX(test_subgroup)(void)
{
    int outside = 0;
    for (int it = 0; it < 16; it++) {
        AFF z, a;
        JAC t, p;
        PFX(hash_point)(&z);
        CHECK(G(affine_on_curve)(&z));
        int fast = G(affine_in_subgroup)(&z), slow = PFX(slow_in_subgroup)(&z);
        CHECK(fast == slow);
        outside += !slow;
        /* [h] Z is in the subgroup */
        G(from_affine)(&t, &z);
        G(mul_limbs)(&t, &t, COFACTOR, sizeof COFACTOR / sizeof COFACTOR[0]);
        G(to_affine)(&a, &t);
        CHECK(G(affine_in_subgroup)(&a));
        CHECK(PFX(slow_in_subgroup)(&a));
        /* [r] Z has order dividing h; P + [r] Z is not in the subgroup */
        G(from_affine)(&t, &z);
        G(mul_limbs)(&t, &t, CUZK_FR_MODULUS, CUZK_FR_LIMBS);
        PFX(rand_point)(&p);
        G(add)(&p, &p, &t);
        G(to_affine)(&a, &p);
        CHECK(G(affine_on_curve)(&a));
        CHECK(G(affine_in_subgroup)(&a) == PFX(slow_in_subgroup)(&a));
        CHECK(!G(affine_in_subgroup)(&a));
    }
    CHECK(outside > 0);
    /* random subgroup points pass */
    for (int it = 0; it < 8; it++) {
        JAC p;
        AFF a;
        PFX(rand_point)(&p);
        G(to_affine)(&a, &p);
        CHECK(G(affine_in_subgroup)(&a));
    }
}

static void PFX(test_batch_to_affine)(void)
{
    enum { N = 37 };
    JAC p[N];
    AFF a[N], b;
    FE scratch[N];
    for (int i = 0; i < N; i++) {
        if (i % 7 == 3)
            G(jac_set_inf)(&p[i]);
        else
            PFX(rand_point)(&p[i]);
    }
    G(batch_to_affine)(a, p, N, scratch);
    for (int i = 0; i < N; i++) {
        G(to_affine)(&b, &p[i]);
        CHECK(G(affine_eq)(&a[i], &b));
        CHECK(G(affine_is_inf)(&a[i]) == (i % 7 == 3));
    }
    G(batch_to_affine)(a, p, 1, scratch);
    G(to_affine)(&b, &p[0]);
    CHECK(G(affine_eq)(&a[0], &b));
    G(batch_to_affine)(a, p, 0, scratch); /* no-op */
    JAC infs[3];
    for (int i = 0; i < 3; i++) G(jac_set_inf)(&infs[i]);
    G(batch_to_affine)(a, infs, 3, scratch);
    for (int i = 0; i < 3; i++) CHECK(G(affine_is_inf)(&a[i]));
}

/* Sizes of this group's encodings. */
enum {
    PFX(FEB) = COMPRESSED_BYTES,    /* one coordinate, zcash */
    PFX(UB) = 2 * COMPRESSED_BYTES, /* uncompressed, and LEM */
};

static void PFX(test_encodings)(void)
{
    uint8_t c[2 * COMPRESSED_BYTES], u[2 * COMPRESSED_BYTES], l[2 * COMPRESSED_BYTES];
    uint8_t ref[2 * COMPRESSED_BYTES];
    AFF a, d, inf, na;
    JAC p, g;
    const unsigned SUB = CUZK_DECODE_SUBGROUP;
    memset(&inf, 0, sizeof inf);

    /* reference vectors: G and [2]G */
    G(to_compressed)(c, &GEN);
    hex_to_bytes(ref, GEN_COMPRESSED);
    CHECK(memcmp(c, ref, PFX(FEB)) == 0);
    G(from_affine)(&g, &GEN);
    G(dbl)(&g, &g);
    G(to_affine)(&a, &g);
    G(to_compressed)(c, &a);
    hex_to_bytes(ref, GEN2_COMPRESSED);
    CHECK(memcmp(c, ref, PFX(FEB)) == 0);
    G(to_uncompressed)(u, &a);
    hex_to_bytes(ref, GEN2_UNCOMPRESSED);
    CHECK(memcmp(u, ref, PFX(UB)) == 0);
    CHECK(G(from_uncompressed)(&d, ref, SUB) == CUZK_OK && G(affine_eq)(&d, &a));

    /* round trips */
    for (int it = 0; it < 16; it++) {
        PFX(rand_point)(&p);
        G(to_affine)(&a, &p);
        G(to_compressed)(c, &a);
        G(to_uncompressed)(u, &a);
        G(to_lem)(l, &a);
        CHECK((c[0] & 0xc0) == 0x80);
        CHECK((u[0] & 0xe0) == 0);
        CHECK(memcmp(c + 1, u + 1, PFX(FEB) - 1) == 0);
        CHECK(G(from_compressed)(&d, c, SUB) == CUZK_OK && G(affine_eq)(&d, &a));
        CHECK(G(from_compressed)(&d, c, 0) == CUZK_OK && G(affine_eq)(&d, &a));
        CHECK(G(from_uncompressed)(&d, u, SUB) == CUZK_OK && G(affine_eq)(&d, &a));
        CHECK(G(from_uncompressed)(&d, u, 0) == CUZK_OK && G(affine_eq)(&d, &a));
        CHECK(G(from_lem)(&d, l, SUB) == CUZK_OK && G(affine_eq)(&d, &a));
        CHECK(G(from_lem)(&d, l, 0) == CUZK_OK && G(affine_eq)(&d, &a));
        /* -P differs only in the sort flag */
        uint8_t c2[2 * COMPRESSED_BYTES];
        G(affine_neg)(&na, &a);
        G(to_compressed)(c2, &na);
        CHECK((c[0] ^ c2[0]) == 0x20);
        CHECK(memcmp(c + 1, c2 + 1, PFX(FEB) - 1) == 0);
        CHECK(G(from_compressed)(&d, c2, SUB) == CUZK_OK && G(affine_eq)(&d, &na));
        /* flipping the sort flag of an encoding decodes to -P */
        c[0] ^= 0x20;
        CHECK(G(from_compressed)(&d, c, 0) == CUZK_OK && G(affine_eq)(&d, &na));
    }

    /* infinity */
    G(to_compressed)(c, &inf);
    G(to_uncompressed)(u, &inf);
    G(to_lem)(l, &inf);
    CHECK(c[0] == 0xc0);
    CHECK(u[0] == 0x40);
    int rest = 0;
    for (int i = 1; i < PFX(FEB); i++) rest |= c[i];
    for (int i = 1; i < PFX(UB); i++) rest |= u[i];
    for (int i = 0; i < PFX(UB); i++) rest |= l[i];
    CHECK(rest == 0);
    RAND_FE(&d.x);
    CHECK(G(from_compressed)(&d, c, SUB) == CUZK_OK && G(affine_is_inf)(&d));
    RAND_FE(&d.x);
    CHECK(G(from_uncompressed)(&d, u, SUB) == CUZK_OK && G(affine_is_inf)(&d));
    RAND_FE(&d.x);
    CHECK(G(from_lem)(&d, l, SUB) == CUZK_OK && G(affine_is_inf)(&d));

    /* ---- rejections ---- */
    PFX(rand_point)(&p);
    G(to_affine)(&a, &p);
    AFF keep = a;
    uint8_t bad[2 * COMPRESSED_BYTES];
#define EXPECT(call, want)                                                     \
    do {                                                                       \
        AFF r_ = keep;                                                         \
        cuzk_status s_ = (call);                                               \
        CHECK_MSG(s_ == (want), "%s: got %d want %d", NAME, (int)s_, (int)(want)); \
        CHECK(G(affine_eq)(&r_, &keep)); /* untouched on error */              \
        (void)r_;                                                              \
    } while (0)
#define DEC_C(buf) G(from_compressed)(&r_, (buf), SUB)
#define DEC_U(buf) G(from_uncompressed)(&r_, (buf), SUB)
#define DEC_L(buf) G(from_lem)(&r_, (buf), SUB)
    G(to_compressed)(c, &a);
    G(to_uncompressed)(u, &a);
    G(to_lem)(l, &a);

    /* compressed: no 0x80 flag */
    memcpy(bad, c, PFX(FEB));
    bad[0] &= 0x7f;
    EXPECT(DEC_C(bad), CUZK_ERR_BAD_ENCODING);
    /* compressed infinity with the sort flag, or with stray bits */
    memset(bad, 0, PFX(FEB));
    bad[0] = 0xe0;
    EXPECT(DEC_C(bad), CUZK_ERR_BAD_ENCODING);
    bad[0] = 0xc0;
    bad[PFX(FEB) - 1] = 1;
    EXPECT(DEC_C(bad), CUZK_ERR_BAD_ENCODING);
    bad[PFX(FEB) - 1] = 0;
    bad[0] = 0xc1;
    EXPECT(DEC_C(bad), CUZK_ERR_BAD_ENCODING);
    memcpy(bad, c, PFX(FEB)); /* infinity flag on a real x */
    bad[0] |= 0x40;
    EXPECT(DEC_C(bad), CUZK_ERR_BAD_ENCODING);
    /* uncompressed: 0x80, 0x20, 0x60 flags; infinity with stray bits */
    memcpy(bad, u, PFX(UB));
    bad[0] |= 0x80;
    EXPECT(DEC_U(bad), CUZK_ERR_BAD_ENCODING);
    memcpy(bad, u, PFX(UB));
    bad[0] |= 0x20;
    EXPECT(DEC_U(bad), CUZK_ERR_BAD_ENCODING);
    memset(bad, 0, PFX(UB));
    bad[0] = 0x60;
    EXPECT(DEC_U(bad), CUZK_ERR_BAD_ENCODING);
    bad[0] = 0x40;
    bad[PFX(UB) - 1] = 1;
    EXPECT(DEC_U(bad), CUZK_ERR_BAD_ENCODING);
    memcpy(bad, u, PFX(UB));
    bad[0] |= 0x40;
    EXPECT(DEC_U(bad), CUZK_ERR_BAD_ENCODING);
    /* a compressed encoding fed to the uncompressed reader */
    memset(bad, 0, PFX(UB));
    memcpy(bad, c, PFX(FEB));
    EXPECT(DEC_U(bad), CUZK_ERR_BAD_ENCODING);

    /* non-canonical coordinates: q in each 48-byte slot */
    for (int slot = 0; slot < PFX(UB) / 48; slot++) {
        memcpy(bad, u, PFX(UB));
        q_be(bad + 48 * slot);
        EXPECT(DEC_U(bad), CUZK_ERR_NOT_CANONICAL);
        memcpy(bad, l, PFX(UB));
        q_le(bad + 48 * slot);
        EXPECT(DEC_L(bad), CUZK_ERR_NOT_CANONICAL);
        if (slot < PFX(FEB) / 48) {
            memcpy(bad, c, PFX(FEB));
            q_be(bad + 48 * slot);
            bad[0] |= 0x80;
            EXPECT(DEC_C(bad), CUZK_ERR_NOT_CANONICAL);
        }
    }
    /* all ones under the flags: >= q too */
    memset(bad, 0xff, PFX(FEB));
    bad[0] = 0x9f;
    EXPECT(DEC_C(bad), CUZK_ERR_NOT_CANONICAL);

    /* off the curve: y + 1; and (0, 0) without the infinity flag */
    {
        AFF off = a;
        F(add)(&off.y, &off.y, &GEN.x); /* any nonzero element */
        G(to_uncompressed)(bad, &off);
        EXPECT(DEC_U(bad), CUZK_ERR_NOT_ON_CURVE);
        G(to_lem)(bad, &off);
        EXPECT(DEC_L(bad), CUZK_ERR_NOT_ON_CURVE);
        memset(bad, 0, PFX(UB));
        EXPECT(DEC_U(bad), CUZK_ERR_NOT_ON_CURVE);
        /* LEM: x = 0 with y = 0 is infinity, but x != 0, y = 0 is not */
        G(to_lem)(bad, &a);
        memset(bad + PFX(FEB), 0, PFX(FEB));
        EXPECT(DEC_L(bad), CUZK_ERR_NOT_ON_CURVE);
    }

    /* compressed x with no y: x^3 + b not a square */
    {
        FE b, rhs, y;
        AFF nx;
        SET_B(&b);
        for (;;) {
            RAND_FE(&nx.x);
            F(sqr)(&rhs, &nx.x);
            F(mul)(&rhs, &rhs, &nx.x);
            F(add)(&rhs, &rhs, &b);
            if (!F(sqrt)(&y, &rhs)) break;
        }
        nx.y = nx.x; /* only x and the sort flag are written */
        G(to_compressed)(bad, &nx);
        EXPECT(DEC_C(bad), CUZK_ERR_NO_SQRT);
    }

    /* on the curve, not in the subgroup: rejected with the flag only */
    {
        AFF z;
        do PFX(hash_point)(&z);
        while (PFX(slow_in_subgroup)(&z));
        G(to_compressed)(bad, &z);
        EXPECT(DEC_C(bad), CUZK_ERR_NOT_IN_SUBGROUP);
        CHECK(G(from_compressed)(&d, bad, 0) == CUZK_OK && G(affine_eq)(&d, &z));
        G(to_uncompressed)(bad, &z);
        EXPECT(DEC_U(bad), CUZK_ERR_NOT_IN_SUBGROUP);
        CHECK(G(from_uncompressed)(&d, bad, 0) == CUZK_OK && G(affine_eq)(&d, &z));
        G(to_lem)(bad, &z);
        EXPECT(DEC_L(bad), CUZK_ERR_NOT_IN_SUBGROUP);
        CHECK(G(from_lem)(&d, bad, 0) == CUZK_OK && G(affine_eq)(&d, &z));
    }
#undef EXPECT
#undef DEC_C
#undef DEC_U
#undef DEC_L
}

static void PFX(run_all)(void)
{
    PFX(test_generator)();
    PFX(test_group_laws)();
    PFX(test_scalar_mul)();
    PFX(test_subgroup)();
    PFX(test_batch_to_affine)();
    PFX(test_encodings)();
}

#endif /* TEST_EC_GROUP */
