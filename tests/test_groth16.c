/* Groth16 prover and verifier against snarkjs's files (tests/data, made by
 * snarkjs 0.7.6 with a contributed key): our proofs verify under the key's
 * vk.json, snarkjs's proof verifies under ours, tampering is rejected, and a
 * bad witness is refused instead of producing a proof. */
#include <stdlib.h>
#include <string.h>

#include <cuzk/formats.h>
#include <cuzk/groth16.h>
#include <cuzk/prove.h>

#include "test_util.h"

/* The verifier both ways: cuzk_groth16_verify, and a prepared key with vk_x
 * computed apart (as the prover's self-check runs it); the two must agree. */
static cuzk_status verify2(const cuzk_vk *vk, const cuzk_proof *p, const cuzk_fr *pub, size_t n)
{
    cuzk_status a = cuzk_groth16_verify(vk, p, pub, n);
    cuzk_vk_prepared *pvk = malloc(sizeof *pvk);
    if (!pvk) return CUZK_ERR_NO_MEMORY;
    cuzk_g1_jac x;
    cuzk_vk_prepare(pvk, vk);
    cuzk_status b = cuzk_groth16_vk_x(&x, vk, pub, n, NULL, NULL);
    if (b == CUZK_OK) b = cuzk_groth16_verify_prepared(pvk, p, &x);
    free(pvk);
    CHECK_MSG(a == b, "verify: %s, prepared: %s", cuzk_strerror(a), cuzk_strerror(b));
    return a;
}

static int load(cuzk_blob *b, const char *name)
{
    char err[CUZK_ERRMSG_LEN], path[1024];
    snprintf(path, sizeof path, "%s/%s", test_data_dir(), name);
    cuzk_status s = cuzk_blob_read(b, path, err);
    CHECK_MSG(s == CUZK_OK, "%s: %s", name, err);
    return s == CUZK_OK;
}

/* The bellperson path (.params + .r1cs, monomial H) on snarkjs's export of
 * the same key: once dense as exported, once filtered the way bellperson
 * writes its vectors (identity points dropped, densities from the r1cs). */
static void test_params(const cuzk_r1cs *r1cs, const cuzk_wtns *w, const cuzk_vk *vk)
{
    char err[CUZK_ERRMSG_LEN];
    cuzk_blob pb = {0};
    if (!load(&pb, "mul.params")) return;
    cuzk_bp_params bp;
    cuzk_groth16_pk pk;
    cuzk_proof proof;
    CHECK(cuzk_bp_params_parse(&bp, pb.data, pb.size, CUZK_FMT_SNARKJS_BELLMAN, err) == CUZK_OK);
    CHECK_MSG(cuzk_groth16_pk_from_params(&pk, &bp, r1cs, 2, err) == CUZK_OK, "%s", err);
    CHECK(pk.h_form == CUZK_H_MONOMIAL && pk.roots == CUZK_ROOTS_SNARKJS);
    CHECK_MSG(cuzk_groth16_prove(&proof, &pk, w->w, w->n, 2, 0, NULL, err) == CUZK_OK, "%s", err);
    CHECK(verify2(vk, &proof, w->w + 1, 2) == CUZK_OK);

    /* Filtered copy: keep a for inputs and non-identity aux; b as the key
     * holds it (the dense export's non-identity points). */
    uint32_t n = pk.n_vars, n_in = pk.n_public + 1, na = 0, nb = pk.n_b;
    cuzk_g1_affine *a = malloc(n * sizeof *a);
    for (uint32_t i = 0; i < n; i++)
        if (i < n_in || !cuzk_g1_affine_is_inf(&pk.a[i])) a[na++] = pk.a[i];
    for (uint32_t j = 0; j < nb; j++) CHECK(!cuzk_g1_affine_is_inf(&pk.b1[j]));
    CHECK(na < n && nb < n); /* the circuit has zero polynomials to drop */
    cuzk_bp_params_src src = {&pk.vk, pk.h, pk.l, a, pk.b1, pk.b2,
                              (uint32_t)(1u << pk.log_domain) - 1, n - n_in, na, nb};
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    CHECK(f && cuzk_bp_params_write(f, &src, err) == CUZK_OK);
    fclose(f);
    cuzk_bp_params fp;
    cuzk_groth16_pk fpk;
    CHECK_MSG(cuzk_bp_params_parse(&fp, (const uint8_t *)buf, len, 0, err) == CUZK_OK, "%s", err);
    CHECK(fp.roots == CUZK_ROOTS_BELLPERSON);
    CHECK_MSG(cuzk_groth16_pk_from_params(&fpk, &fp, r1cs, 1, err) == CUZK_OK, "%s", err);
    fpk.roots = CUZK_ROOTS_SNARKJS; /* the points were made with snarkjs's roots */
    for (uint32_t i = 0; i < n; i++) CHECK(cuzk_g1_affine_eq(&fpk.a[i], &pk.a[i]));
    /* The density of the r1cs picks the same variables as the identities did. */
    CHECK(fpk.n_b == nb && !memcmp(fpk.b_var, pk.b_var, nb * sizeof *pk.b_var));
    for (uint32_t j = 0; j < nb; j++) {
        CHECK(cuzk_g1_affine_eq(&fpk.b1[j], &pk.b1[j]));
        CHECK(cuzk_g2_affine_eq(&fpk.b2[j], &pk.b2[j]));
    }
    CHECK_MSG(cuzk_groth16_prove(&proof, &fpk, w->w, w->n, 1, 0, NULL, err) == CUZK_OK, "%s", err);
    CHECK(verify2(vk, &proof, w->w + 1, 2) == CUZK_OK);
    /* With the roots the file claims (7), the proof is refused, not returned. */
    fpk.roots = CUZK_ROOTS_BELLPERSON;
    CHECK(cuzk_groth16_prove(&proof, &fpk, w->w, w->n, 1, 0, NULL, err) == CUZK_ERR_UNSATISFIED);
    cuzk_groth16_pk_free(&fpk);

    /* A circuit that does not fit the key. */
    cuzk_r1cs other = *r1cs;
    other.n_constraints = 1000;
    CHECK(cuzk_groth16_pk_from_params(&fpk, &fp, &other, 1, err) == CUZK_ERR_BAD_ENCODING);
    CHECK(strstr(err, "domain") != NULL);
    other = *r1cs;
    other.n_public = 1;
    CHECK(cuzk_groth16_pk_from_params(&fpk, &fp, &other, 1, err) == CUZK_ERR_BAD_ENCODING);

    cuzk_bp_params_free(&fp);
    free(buf);
    free(a);
    cuzk_groth16_pk_free(&pk);
    cuzk_bp_params_free(&bp);
    cuzk_blob_release(&pb);
}

int main(void)
{
    test_seed("test_groth16");
    char err[CUZK_ERRMSG_LEN];
    cuzk_blob zb = {0}, wb = {0}, vb = {0}, pb = {0}, ub = {0}, rb = {0};
    if (!load(&zb, "mul.zkey") || !load(&wb, "mul.wtns") || !load(&vb, "vk.json") ||
        !load(&pb, "proof.json") || !load(&ub, "public.json") || !load(&rb, "mul.r1cs"))
        return test_done("test_groth16");

    cuzk_zkey z;
    cuzk_wtns w;
    cuzk_vk vk;
    cuzk_proof theirs, ours, other;
    cuzk_r1cs r1cs;
    cuzk_fr *pub = NULL;
    size_t n_pub = 0;
    CHECK(cuzk_zkey_parse(&z, zb.data, zb.size, 0, err) == CUZK_OK);
    CHECK(cuzk_wtns_parse(&w, wb.data, wb.size, err) == CUZK_OK);
    CHECK(cuzk_r1cs_parse(&r1cs, rb.data, rb.size, err) == CUZK_OK);
    CHECK(cuzk_vk_from_json(&vk, (const char *)vb.data, vb.size, err) == CUZK_OK);
    CHECK(cuzk_proof_from_json(&theirs, (const char *)pb.data, pb.size, err) == CUZK_OK);
    CHECK(cuzk_public_from_json(&pub, &n_pub, (const char *)ub.data, ub.size, err) == CUZK_OK);
    CHECK(n_pub == 2 && z.n_public == 2);

    /* snarkjs's proof verifies under our verifier, with both keys. */
    CHECK(verify2(&vk, &theirs, pub, n_pub) == CUZK_OK);
    CHECK(verify2(&z.vk, &theirs, pub, n_pub) == CUZK_OK);

    /* Our proof verifies under snarkjs's vk.json. */
    cuzk_groth16_pk pk;
    CHECK(cuzk_groth16_pk_from_zkey(&pk, &z, 2, err) == CUZK_OK);
    cuzk_prove_timings t;
    CHECK_MSG(cuzk_groth16_prove(&ours, &pk, w.w, w.n, 2, 0, &t, err) == CUZK_OK, "%s", err);
    CHECK(verify2(&vk, &ours, w.w + 1, 2) == CUZK_OK);
    CHECK(t.total_ms > 0 && t.verify_ms > 0);
    /* Fresh randomness: a second proof differs and verifies too. */
    CHECK(cuzk_groth16_prove(&other, &pk, w.w, w.n, 1, 0, NULL, err) == CUZK_OK);
    CHECK(!cuzk_g1_affine_eq(&ours.a, &other.a));
    CHECK(verify2(&vk, &other, w.w + 1, 2) == CUZK_OK);

    /* Tampering: a public input, each proof element, the input count. */
    cuzk_fr bad_pub[2] = {pub[0], pub[1]};
    cuzk_fr_add(&bad_pub[1], &bad_pub[1], &CUZK_FR_ONE);
    CHECK(verify2(&vk, &ours, bad_pub, 2) == CUZK_ERR_PROOF_INVALID);
    CHECK(verify2(&vk, &theirs, bad_pub, 2) == CUZK_ERR_PROOF_INVALID);
    cuzk_proof tp = ours;
    cuzk_g1_affine_neg(&tp.a, &tp.a);
    CHECK(verify2(&vk, &tp, pub, 2) == CUZK_ERR_PROOF_INVALID);
    tp = ours;
    tp.c = other.c;
    CHECK(verify2(&vk, &tp, pub, 2) == CUZK_ERR_PROOF_INVALID);
    tp = ours;
    tp.b = theirs.b;
    CHECK(verify2(&vk, &tp, pub, 2) == CUZK_ERR_PROOF_INVALID);
    tp = ours;
    cuzk_fp_add(&tp.a.y, &tp.a.y, &CUZK_FP_ONE); /* off the curve */
    CHECK(verify2(&vk, &tp, pub, 2) == CUZK_ERR_NOT_ON_CURVE);
    CHECK(verify2(&vk, &ours, pub, 1) == CUZK_ERR_INVALID_ARGUMENT);
    {
        /* The prepared check's NULL arguments. */
        cuzk_vk_prepared *pvk = malloc(sizeof *pvk);
        cuzk_verify_parts v;
        cuzk_g1_jac x;
        CHECK(pvk != NULL);
        if (pvk) {
            cuzk_vk_prepare(pvk, &vk);
            CHECK(cuzk_groth16_vk_x(&x, &vk, pub, 2, NULL, NULL) == CUZK_OK);
            CHECK(cuzk_groth16_vk_x(NULL, &vk, pub, 2, NULL, NULL) == CUZK_ERR_INVALID_ARGUMENT);
            CHECK(cuzk_groth16_verify_prepared(pvk, NULL, &x) == CUZK_ERR_INVALID_ARGUMENT);
            CHECK(cuzk_groth16_verify_prepared(NULL, &ours, &x) == CUZK_ERR_INVALID_ARGUMENT);
            CHECK(cuzk_groth16_verify_prepared(pvk, &ours, NULL) == CUZK_ERR_INVALID_ARGUMENT);
            CHECK(cuzk_groth16_verify_begin(&v, pvk, &x) == CUZK_OK);
            CHECK(cuzk_groth16_verify_ab(&v, NULL, &ours.b) == CUZK_ERR_INVALID_ARGUMENT);
            CHECK(cuzk_groth16_verify_ab(&v, &ours.a, &ours.b) == CUZK_OK);
            CHECK(cuzk_groth16_verify_end(&v, NULL, &ours.c) == CUZK_ERR_INVALID_ARGUMENT);
            CHECK(cuzk_groth16_verify_end(&v, pvk, &ours.c) == CUZK_OK);
            free(pvk);
        }
    }

    /* A witness that does not satisfy the circuit: refused, with no proof. */
    cuzk_fr *bad_w = malloc(w.n * sizeof *bad_w);
    memcpy(bad_w, w.w, w.n * sizeof *bad_w);
    cuzk_fr_add(&bad_w[w.n - 1], &bad_w[w.n - 1], &CUZK_FR_ONE);
    uint64_t first_bad = 0;
    CHECK(cuzk_r1cs_check(&r1cs, bad_w, w.n, &first_bad, err) == CUZK_ERR_UNSATISFIED);
    CHECK(cuzk_groth16_prove(&tp, &pk, bad_w, w.n, 1, 0, NULL, err) == CUZK_ERR_UNSATISFIED);
    CHECK(strstr(err, "does not verify") != NULL);
    CHECK(cuzk_groth16_prove(&tp, &pk, bad_w, w.n - 1, 1, 0, NULL, err) == CUZK_ERR_UNSATISFIED);
    bad_w[0] = CUZK_FR_ZERO;
    CHECK(cuzk_groth16_prove(&tp, &pk, bad_w, w.n, 1, 0, NULL, err) == CUZK_ERR_UNSATISFIED);
    free(bad_w);

    test_params(&r1cs, &w, &vk);

    free(pub);
    cuzk_groth16_pk_free(&pk);
    cuzk_vk_free(&vk);
    cuzk_r1cs_free(&r1cs);
    cuzk_wtns_free(&w);
    cuzk_zkey_free(&z);
    cuzk_blob_release(&zb);
    cuzk_blob_release(&wb);
    cuzk_blob_release(&vb);
    cuzk_blob_release(&pb);
    cuzk_blob_release(&ub);
    cuzk_blob_release(&rb);
    return test_done("test_groth16");
}
