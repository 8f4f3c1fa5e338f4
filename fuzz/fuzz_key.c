/* libFuzzer target: the .cuzk key file reader (cuzk_keyfile_open).
 *
 * As with the PCE (fuzz_pce.c), checksums stop almost every raw mutation at
 * the header, so the first byte picks a mode:
 *
 *   even  the rest is a key image: opened as is, then with
 *         CUZK_KEYFILE_SKIP_HASH (the structural and point checks alone);
 *   odd   the rest describes a small constraint system; an insecure key is
 *         made for it (cuzk_groth16_setup, seeded), written and read back
 *         (it must open and prove); then bytes of the input overwrite bytes
 *         of the image, the header checksum is recomputed, and the damaged
 *         image is opened with SKIP_HASH: it must be rejected with a
 *         "key: ..." message, or be usable by the prover without a crash
 *         (a damaged B variable list included: the loader checks it).
 *
 * Build and run: fuzz/run.sh (target "key"; the corpus starts empty). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cuzk/groth16.h>
#include <cuzk/prove.h>

#include "common/hash.h" /* cuzk_xxh64 */

static void try_open(const uint8_t *data, size_t size, unsigned flags)
{
    uint8_t *b = malloc(size ? size : 1); /* exact size: ASan sees overreads */
    memcpy(b, data, size);
    char err[CUZK_ERRMSG_LEN];
    cuzk_keyfile kf;
    cuzk_status s = cuzk_keyfile_open(&kf, b, size, flags, 1, err);
    if (s != CUZK_OK) {
        if (strncmp(err, "key: ", 5) || !err[5]) abort();
    } else if (kf.has_matrices && kf.pk.n_vars <= 4096 && kf.pk.log_domain <= 12) {
        cuzk_fr *w = malloc(kf.pk.n_vars * sizeof *w);
        for (uint32_t i = 0; i < kf.pk.n_vars; i++) w[i] = CUZK_FR_ONE;
        cuzk_proof p;
        cuzk_groth16_prove(&p, &kf.pk, w, kf.pk.n_vars, 1, 0, NULL, err);
        free(w);
    }
    cuzk_keyfile_close(&kf);
    free(b);
}

typedef struct {
    const uint8_t *p;
    size_t n, i;
} rd;

static uint32_t rd_u8(rd *r) { return r->i < r->n ? r->p[r->i++] : 0; }

static void made_mode(const uint8_t *data, size_t size)
{
    rd r = {data, size, 0};
    uint32_t n_rows = 1 + rd_u8(&r) % 12, n_in = 1 + rd_u8(&r) % 3, n_aux = rd_u8(&r) % 9;
    uint32_t flags = rd_u8(&r), n_vars = n_in + n_aux;
    cuzk_matrices m;
    memset(&m, 0, sizeof m);
    m.n_rows = n_rows;
    m.n_coeffs = 3;
    m.coeffs = malloc(3 * sizeof *m.coeffs);
    m.coeffs[0] = CUZK_FR_ONE;
    cuzk_fr_neg(&m.coeffs[1], &CUZK_FR_ONE);
    cuzk_fr_from_u64(&m.coeffs[2], 5 + rd_u8(&r));
    cuzk_sparse *sp[3] = {&m.a, &m.b, &m.c};
    for (int k = 0; k < 3; k++) {
        sp[k]->row_start = malloc((n_rows + 1) * 8);
        sp[k]->wire = malloc(4 * n_rows * 4);
        sp[k]->coeff = malloc(4 * n_rows * 4);
        uint64_t t = 0;
        for (uint32_t j = 0; j < n_rows; j++) {
            sp[k]->row_start[j] = t;
            uint32_t len = rd_u8(&r) % 5;
            for (uint32_t i = 0; i < len; i++, t++) {
                sp[k]->wire[t] = rd_u8(&r) % n_vars;
                sp[k]->coeff[t] = rd_u8(&r) % 3;
            }
        }
        sp[k]->row_start[n_rows] = t;
        sp[k]->n_terms = t;
    }
    uint64_t seed = rd_u8(&r);
    cuzk_setup_opts o = {(flags & 1) ? CUZK_ROOTS_BELLPERSON : CUZK_ROOTS_SNARKJS, 1, &seed,
                         NULL, NULL, NULL, NULL, NULL};
    cuzk_groth16_pk pk;
    char err[CUZK_ERRMSG_LEN], path[64];
    if (cuzk_groth16_setup(&pk, &m, n_in, n_aux, &o, err) != CUZK_OK) abort();
    snprintf(path, sizeof path, "/tmp/fuzz_key_%ld.cuzk", (long)getpid());
    if (cuzk_keyfile_write(path, &pk, "fuzz", (flags & 2) ? CUZK_KEYFILE_NO_MATRICES : 0, err) !=
        CUZK_OK)
        abort();
    cuzk_blob b;
    if (cuzk_blob_read(&b, path, err) != CUZK_OK) abort();
    unlink(path);
    cuzk_keyfile kf;
    if (cuzk_keyfile_open(&kf, b.data, b.size, 0, 1, err) != CUZK_OK) abort();
    /* B round-trips filtered (n_b = 0 when no B row has a term). */
    if (kf.pk.n_b != pk.n_b || memcmp(kf.pk.b_var, pk.b_var, pk.n_b * sizeof *pk.b_var) ||
        memcmp(kf.pk.b2, pk.b2, pk.n_b * sizeof *pk.b2))
        abort();
    cuzk_keyfile_close(&kf);
    size_t n = b.size;
    uint8_t *img = malloc(n);
    memcpy(img, b.data, n);
    cuzk_blob_release(&b);
    int edits = 0;
    while (r.i + 3 <= r.n && edits < 8) {
        size_t at = ((size_t)rd_u8(&r) << 8 | rd_u8(&r)) * 13 % n;
        img[at] = (uint8_t)rd_u8(&r);
        edits++;
    }
    memset(img + 24, 0, 8);
    uint64_t h = cuzk_xxh64(img, 1024, 0);
    memcpy(img + 24, &h, 8);
    try_open(img, n, CUZK_KEYFILE_SKIP_HASH);
    try_open(img, n - 64 * (edits % 3), 0);
    free(img);
    cuzk_groth16_pk_free(&pk);
    cuzk_matrices_free(&m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0) return 0;
    if (data[0] & 1) {
        made_mode(data + 1, size - 1);
    } else {
        try_open(data + 1, size - 1, 0);
        try_open(data + 1, size - 1, CUZK_KEYFILE_SKIP_HASH);
    }
    return 0;
}
