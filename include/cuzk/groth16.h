/* cuzk — Groth16 over BLS12-381: proving key, prover and verifier (CPU).
 *
 * The prover follows the algebra of shared/research/formats.md §5.3
 * (bellperson) and §10 (snarkjs); the two differ only in the roots of unity
 * and in the form of the H query:
 *
 *   CUZK_H_LAGRANGE (snarkjs .zkey): n points; the scalars are
 *     a(x_j) b(x_j) - c(x_j) on the odd coset x_j = g omega^j, g^2 = omega,
 *     with no division by Z (the key folds Z(x_j) = -2 in).
 *   CUZK_H_MONOMIAL (bellperson .params): n - 1 points tau^i Z(tau)/delta;
 *     the scalars are the coefficients of (ab - c)/Z, computed on the coset
 *     of 7 and brought back by an inverse coset NTT.
 *
 * The proof: with fresh random r, s from the OS CSPRNG,
 *   A = alpha + sum w_i A_i + r delta
 *   B = beta + sum w_i B_i + s delta                       (G2; and in G1)
 *   C = sum_{private} w_i L_i + H + s A + r B_G1 - r s delta
 */
#ifndef CUZK_GROTH16_H
#define CUZK_GROTH16_H

#include <stddef.h>
#include <stdint.h>

#include <cuzk/ec.h>
#include <cuzk/formats.h>
#include <cuzk/ff.h>
#include <cuzk/msm.h>
#include <cuzk/pairing.h>
#include <cuzk/poly.h>
#include <cuzk/status.h>

typedef enum {
    CUZK_H_LAGRANGE = 0, /* snarkjs */
    CUZK_H_MONOMIAL = 1  /* bellperson */
} cuzk_h_form;

/* Who owns the arrays of a proving key. cuzk_groth16_pk_free does the right
 * thing for each, so it is always the one way to release a key. */
typedef enum {
    CUZK_PK_OWNED = 0,  /* every array malloc'd for this key (the key builders,
                         * setup, cuzk_keyfile_load): freed */
    CUZK_PK_MAPPED = 1, /* views into a mapped .cuzk file that the key holds
                         * (cuzk_keyfile_map_pk): unmapped */
    CUZK_PK_VIEW = 2    /* views into memory another object owns (the pk of a
                         * cuzk_keyfile): nothing is freed, the key is zeroed */
} cuzk_pk_storage;

/* A proving key as the prover uses it, whichever file it came from. Its
 * storage says who owns the arrays it points to; release it with
 * cuzk_groth16_pk_free whatever the storage (a zeroed key is OWNED and
 * empty). The arrays are only read by the prover. */
typedef struct {
    cuzk_roots roots;
    cuzk_h_form h_form;
    uint32_t n_vars;      /* witness length, ONE (w_0 = 1) included */
    uint32_t n_public;    /* public inputs and outputs, ONE not counted */
    unsigned log_domain;  /* the domain has 2^log_domain points */
    cuzk_vk vk;           /* has_g1_extras = 1 (beta_g1, delta_g1 known) */
    cuzk_g1_affine *a;    /* dense: n_vars points (identity where A_i = 0) */
    /* B is filtered by its density: b1[j] (G1) and b2[j] (G2) belong to
     * variable b_var[j], j < n_b; b_var is strictly ascending and below
     * n_vars, and every variable not listed has B = identity in both
     * groups. A variable is listed when it has a nonzero coefficient in
     * some B row (keys from setup and bellperson .params: the density
     * bellperson filters by), or, for keys read from dense files (.zkey, a
     * snarkjs-exported .params), when its B1 or B2 point is not the
     * identity. In PoRep-like circuits ~25% of the variables are in B. */
    uint32_t n_b;
    uint32_t *b_var;
    cuzk_g1_affine *b1;
    cuzk_g2_affine *b2;
    cuzk_g1_affine *l;    /* n_vars - n_public - 1: variables n_public + 1.. */
    cuzk_g1_affine *h;    /* 2^log_domain (LAGRANGE) or 2^log_domain - 1 */
    /* Rows of A and B (and C if m.c.row_start != NULL) over the domain's
     * first m.n_rows points, input rows included. Without C the prover uses
     * c = a o b row by row, as snarkjs does; a witness that does not satisfy
     * the circuit then yields a proof that fails the self-check. */
    cuzk_matrices m;
    cuzk_pk_storage storage;
    cuzk_blob mapping_; /* private: the file a CUZK_PK_MAPPED key views */
} cuzk_groth16_pk;

/* A CUZK_PK_MAPPED key's pages dropped from the process (cuzk_blob_drop_pages):
 * once a device holds its points, the host need not hold the 47 GB of a
 * PoRep key resident too; a later read (a CPU fallback, a new workspace)
 * faults them back in from the file. A no-op for other storages. */
cuzk_status cuzk_groth16_pk_release_pages(const cuzk_groth16_pk *pk);

/* Builds a proving key from a parsed .zkey: decodes (and so checks: on the
 * curve, canonical) every point on up to nthreads threads, copies the
 * matrices, and filters B (the variables whose B1 and B2 are both the
 * identity are left out; the dense B vectors are held while filtering).
 * The zkey and its buffer may be released afterwards. */
cuzk_status cuzk_groth16_pk_from_zkey(cuzk_groth16_pk *pk, const cuzk_zkey *z,
                                      unsigned nthreads, char *err);
/* Builds a proving key from a parsed bellperson .params and the circuit it
 * belongs to. The A, B and C rows come from r1cs, with one input row
 * A = 1 * input_i appended per input (formats.md §5.1). A filtered a
 * vector is expanded to a dense one by the A density of r1cs (a variable is
 * in the A (B) density when it has a nonzero coefficient in some A (B) row;
 * inputs are always in A); filtered b vectors are kept as they are, with
 * b_var = the B density; the counts must match the file. Dense vectors (a
 * snarkjs export) have B filtered as cuzk_groth16_pk_from_zkey does. The
 * roots are those the params carry; the H query is monomial. params and
 * its buffer may be released afterwards. */
cuzk_status cuzk_groth16_pk_from_params(cuzk_groth16_pk *pk, const cuzk_bp_params *params,
                                        const cuzk_r1cs *r1cs, unsigned nthreads, char *err);
/* Releases pk as its storage says (frees, unmaps, or only forgets) and
 * zeroes it. Safe on a zeroed key and on NULL. */
void cuzk_groth16_pk_free(cuzk_groth16_pk *pk);
/* Writes a snarkjs-form proving key (roots CUZK_ROOTS_SNARKJS, h_form
 * CUZK_H_LAGRANGE; others are CUZK_ERR_INVALID_ARGUMENT) as a .zkey at path
 * (atomically, see cuzk_zkey_write): pk->m (A and B rows, input rows
 * included) becomes section 4, B1 and B2 are written dense (identity for
 * the variables outside b_var, as snarkjs expects), pk->l section 8.
 * mpc/mpc_len: section 10 as in cuzk_zkey_src (NULL: an empty contribution
 * section, zero csHash). */
cuzk_status cuzk_zkey_write_pk(const char *path, const cuzk_groth16_pk *pk, const uint8_t *mpc,
                               size_t mpc_len, char *err);

/* The prover is the prove layer's (include/cuzk/prove.h): a workspace per
 * key, a job per proof, CPU and GPU backends; cuzk_groth16_prove and
 * cuzk_groth16_prove_rows are declared there. */

/* Verifies proof against vk and the public inputs pub[0..n_pub) (without the
 * leading ONE): CUZK_OK if valid, CUZK_ERR_PROOF_INVALID if not,
 * CUZK_ERR_INVALID_ARGUMENT if n_pub != vk->n_ic - 1, the decoder status
 * when a proof point is off the curve or outside the subgroup, or
 * CUZK_ERR_NO_MEMORY (the working memory of its MSM over the inputs). */
cuzk_status cuzk_groth16_verify(const cuzk_vk *vk, const cuzk_proof *proof, const cuzk_fr *pub,
                                size_t n_pub);

/* cuzk_groth16_verify with the working memory of sum x_i IC_i (a variable-
 * time MSM on one thread) given, so that it allocates nothing: ws a G1 MSM
 * scratch for n_pub points or more and 1 thread, k room for n_pub scalars
 * (both borrowed). NULL and NULL allocate them per call, as
 * cuzk_groth16_verify does. */
cuzk_status cuzk_groth16_verify_ws(const cuzk_vk *vk, const cuzk_proof *proof,
                                   const cuzk_fr *pub, size_t n_pub, cuzk_g1_msm_scratch *ws,
                                   cuzk_scalar *k);

/* A verifying key prepared for many verifications against it: the Miller
 * loop's lines of gamma and delta, and e(alpha, beta)^-1, so that a check
 * runs the G2 arithmetic of B's pair only and three Miller pairs, not four.
 * ~40 KB (cuzk_vk_prepare: two line sets and one pairing). */
typedef struct {
    cuzk_g2_prepared lines[2]; /* gamma's, delta's */
    cuzk_fp12 ab_inv;          /* e(alpha, beta)^-1 */
} cuzk_vk_prepared;

void cuzk_vk_prepare(cuzk_vk_prepared *r, const cuzk_vk *vk);

/* vk_x = IC_0 + sum_i pub[i] IC_{i+1}, the inputs' part of a verification,
 * with cuzk_groth16_verify_ws's working memory (ws, k: NULL and NULL
 * allocate). CUZK_ERR_INVALID_ARGUMENT if n_pub != vk->n_ic - 1. */
cuzk_status cuzk_groth16_vk_x(cuzk_g1_jac *r, const cuzk_vk *vk, const cuzk_fr *pub, size_t n_pub,
                              cuzk_g1_msm_scratch *ws, cuzk_scalar *k);

/* cuzk_groth16_verify with the key prepared and vk_x already computed
 * (cuzk_groth16_vk_x): the same checks of the proof's points and the same
 * statuses. */
cuzk_status cuzk_groth16_verify_prepared(const cuzk_vk_prepared *pvk, const cuzk_proof *proof,
                                         const cuzk_g1_jac *vk_x);

/* The same check in three parts, each as soon as its points are known: the
 * prover's self-check runs the first two while the device still computes B
 * and C (src/prove/prove.c), so that only C's part follows the proof.
 *   begin   f = MillerLoop(vk_x, gamma)
 *   ab      A and B on the curve and in their subgroups; f *= MillerLoop(-A, B)
 *   end     C likewise; f *= MillerLoop(C, delta); CUZK_OK if
 *           final_exp(f) = e(alpha, beta)^-1
 * A part returns what cuzk_groth16_verify would for its points
 * (CUZK_ERR_INVALID_ARGUMENT for a NULL argument); after a failed part the
 * check is over. */
typedef struct {
    cuzk_fp12 f;
} cuzk_verify_parts;

cuzk_status cuzk_groth16_verify_begin(cuzk_verify_parts *v, const cuzk_vk_prepared *pvk,
                                      const cuzk_g1_jac *vk_x);
cuzk_status cuzk_groth16_verify_ab(cuzk_verify_parts *v, const cuzk_g1_affine *a,
                                   const cuzk_g2_affine *b);
cuzk_status cuzk_groth16_verify_end(cuzk_verify_parts *v, const cuzk_vk_prepared *pvk,
                                    const cuzk_g1_affine *c);

/* ====================================================== setup (begin) == */
/* Groth16 setup from R1CS matrices (src/groth16/setup.c; docs/keys.md).
 *
 * INSECURE: FOR TESTS AND BENCHMARKS. One party draws the toxic waste
 * (tau, alpha, beta, gamma, delta) and forgets it; there is no ceremony, so
 * whoever ran (or can reproduce) the setup can forge proofs. Every key made
 * here is labelled "insecure: for tests and benchmarks" wherever it is
 * described (key files, CLI output).
 *
 * Conventions (formats.md §5, §9, §11; trap 1):
 *   CUZK_ROOTS_SNARKJS     roots of 5, H query in snarkjs's Lagrange form on
 *                          the odd coset (h_form CUZK_H_LAGRANGE, n points):
 *                          H_j = L^(2n)_(2j+1)(tau) / delta
 *   CUZK_ROOTS_BELLPERSON  roots of 7, monomial H query (CUZK_H_MONOMIAL,
 *                          n - 1 points): h_i = tau^i Z(tau) / delta
 * Rows: the constraints of m, then one input row A = 1 * x_i per input i
 * (ONE included), exactly as the prover and cuzk_groth16_pk_from_zkey /
 * _from_params lay them out; the domain is the smallest power of two (>= 2)
 * holding them. A_i, B_i, C_i are the QAP polynomials of variable i,
 * evaluated at tau through the Lagrange basis of that domain.
 *   A:          A_i(tau) G1 for every variable (the identity where A_i = 0)
 *   B1, B2:     B_i(tau) G1, B_i(tau) G2 for the variables with a nonzero
 *               coefficient in some B row only (pk->b_var)
 *   IC_i  = (beta A_i + alpha B_i + C_i)(tau) / gamma G1,  i < n_inputs
 *   L_i   = (beta A_i + alpha B_i + C_i)(tau) / delta G1,  i >= n_inputs
 *
 * Memory (n_vars variables, n_b of them in B, N = 2^log_domain): the key
 * itself (192 n_vars + 292 n_b + 96 N bytes of points and b_var, plus
 * pk->m) and, while it is built, 96 n_vars + 32 N bytes of scalars and
 * either two fixed-base tables (<= 96 MiB G1, 192 MiB G2) or, with
 * fixed_mul, one batch of CUZK_SETUP_MUL_BATCH scalars (128 MiB). For a
 * PoRep-sized circuit (1.3e8 variables, 25% in B, N = 2^27) that is
 * ~47 GB of key + ~17 GB of scalars at the peak: it fits a 128 GiB
 * machine. */

/* Progress of a long run: stage (a static string such as "B (G2)"), work
 * done and total in that stage's units. Called on the caller's thread. */
typedef void (*cuzk_progress_fn)(void *ctx, const char *stage, uint64_t done, uint64_t total);

/* The toxic waste (Montgomery form). Tests read it to recompute points
 * independently; nothing else should ever see it. */
typedef struct {
    cuzk_fr tau, alpha, beta, gamma, delta;
} cuzk_toxic_waste;

/* Fixed-base multiplication offload for setup: out[i] = [s[i]] G for i < n,
 * G the generator of G1 (g2 = 0: out is cuzk_g1_affine[n]) or G2 (g2 = 1:
 * cuzk_g2_affine[n]); s in Montgomery form (cuzk_fr); a zero scalar gives
 * the identity (all-zero affine). 0 < n <= CUZK_SETUP_MUL_BATCH. Returns
 * CUZK_OK, or an error status that setup passes on; err is a buffer of
 * CUZK_ERRMSG_LEN bytes (status.h), an empty string on entry, where the
 * callback may write a one-line NUL-terminated message (setup puts it in
 * its own message, after the stage's name). Called on the caller's thread,
 * one batch at a time. */
typedef cuzk_status (*cuzk_fixed_mul_fn)(void *ctx, int g2, void *out, const cuzk_fr *s, size_t n,
                                         char *err);
#define CUZK_SETUP_MUL_BATCH ((size_t)1 << 22)

typedef struct {
    cuzk_roots roots;          /* CUZK_ROOTS_SNARKJS or CUZK_ROOTS_BELLPERSON */
    unsigned nthreads;         /* 0 = every core */
    /* NULL: the toxic waste comes from the OS CSPRNG (getrandom). Else it is
     * derived deterministically from *seed (splitmix64): reproducible keys
     * for tests, and trivially forgeable. */
    const uint64_t *seed;
    cuzk_progress_fn progress; /* may be NULL */
    void *progress_ctx;
    cuzk_toxic_waste *toxic_out; /* tests only: receives the secrets (may be NULL) */
    /* NULL: the fixed-base multiplications run on the CPU threads (tables,
     * as above). Else each stage (A, B1, B2, IC, L, H) makes its scalars on
     * the CPU threads, CUZK_SETUP_MUL_BATCH at a time, and hands each batch
     * to fixed_mul(fixed_mul_ctx, ...); no tables are built. The key is
     * the same either way. */
    cuzk_fixed_mul_fn fixed_mul;
    void *fixed_mul_ctx;
} cuzk_setup_opts;

/* The label every setup key carries (key files, CLI output). */
#define CUZK_SETUP_LABEL "insecure: for tests and benchmarks"

/* Generates a proving key for the constraint system m: n_rows constraints
 * (NO input rows: setup appends them), A, B and C all present, wires
 * 0 = ONE, 1..n_inputs-1 the public inputs, then n_aux private variables
 * (cuzk_cs_take_matrices, or the m of a parsed .r1cs with n_inputs =
 * n_public + 1). pk is filled and owned by the caller (cuzk_groth16_pk_free);
 * pk->m is a copy of m with the input rows appended. The work runs on
 * opts->nthreads threads; results do not depend on the thread count.
 * Errors: CUZK_ERR_INVALID_ARGUMENT (NULL, no C matrix, a wire or coefficient
 * out of range, a bad row table, unknown roots, more than 2^28 rows),
 * CUZK_ERR_NO_MEMORY, CUZK_ERR_IO (no OS randomness), or what fixed_mul
 * returned, each with a message. */
cuzk_status cuzk_groth16_setup(cuzk_groth16_pk *pk, const cuzk_matrices *m, uint32_t n_inputs,
                               uint32_t n_aux, const cuzk_setup_opts *opts, char *err);

/* ------------------------------------------------------ key files ------ */
/* The native key file ".cuzk" (src/groth16/keyfile.c; layout in
 * docs/keys.md): a 1024-byte header (magic "cuzk-key", version, roots,
 * H form, counts, a label, a section table, an XXH64 header checksum),
 * then 64-byte aligned sections laid out as the prover (and the GPU) reads
 * them: the vk, then the arrays of the pk (IC, A dense; b_var, B1 and B2
 * over n_b variables; L; H) as cuzk_g1_affine / cuzk_g2_affine in their
 * in-memory layout (Montgomery limbs, little-endian; identity = all-zero),
 * then optionally the matrices (pk->m, input rows included, as CSR
 * arrays). Each section carries its own XXH64 body checksum, so a loader
 * (or a GPU upload) can check sections independently and in parallel.
 * Version 2 (filtered B); version 1 files (dense B) are refused with a
 * message saying to re-create them. */

#define CUZK_KEYFILE_VERSION 2u

/* Writer flags. */
#define CUZK_KEYFILE_NO_MATRICES 1u /* leave pk->m out (the PCE carries it) */
/* Reader flags. */
#define CUZK_KEYFILE_TRUST_POINTS 1u /* skip the curve checks of the bulk vectors */
#define CUZK_KEYFILE_SKIP_HASH 2u    /* skip the body checksums (header still hashed) */

/* Writes pk to path atomically (path.tmp.<pid>, fsync, rename; on failure
 * path is untouched). label: a short description stored in the header (at
 * most 63 bytes; NULL = none; setup keys use CUZK_SETUP_LABEL). Memory:
 * nothing beyond a small buffer; the arrays are written as they are. */
cuzk_status cuzk_keyfile_write(const char *path, const cuzk_groth16_pk *pk, const char *label,
                               unsigned flags, char *err);

/* A checked key file image. pk holds VIEWS into the image (storage
 * CUZK_PK_VIEW: read-only, never write through it; cuzk_groth16_pk_free on
 * it only zeroes it); they stay valid until cuzk_keyfile_close. When the file has no matrices,
 * pk.m is all zero (n_rows 0) and the caller must supply them before
 * proving. */
typedef struct {
    cuzk_groth16_pk pk;
    char label[64];
    uint32_t version;
    int has_matrices;
    const uint8_t *image;
    size_t image_size;
    cuzk_blob blob_; /* private: the mapping of cuzk_keyfile_map */
} cuzk_keyfile;

/* Checks an image in a caller's buffer (8-byte aligned; it must outlive
 * kf): magic, version, header checksum, sizes and section table, body
 * checksums (unless CUZK_KEYFILE_SKIP_HASH), zero padding, every point
 * canonical and on its curve (unless CUZK_KEYFILE_TRUST_POINTS; in
 * parallel on nthreads threads, 0 = all), the six vk points and IC also in
 * the subgroup, b_var (strictly ascending, below n_vars; always checked)
 * and the matrices (row tables, wires, coefficients).
 * Errors (one-line message "key: ..."): CUZK_ERR_TRUNCATED (shorter than
 * the header or than the header says), CUZK_ERR_BAD_ENCODING (magic,
 * version, checksum, layout, counts, matrices), CUZK_ERR_NOT_CANONICAL /
 * CUZK_ERR_NOT_ON_CURVE / CUZK_ERR_NOT_IN_SUBGROUP (a bad point, named). */
cuzk_status cuzk_keyfile_open(cuzk_keyfile *kf, const uint8_t *data, size_t size,
                              unsigned flags, unsigned nthreads, char *err);
/* cuzk_keyfile_open on the file at path, mapped (cuzk_blob_map); kf owns
 * the mapping. */
cuzk_status cuzk_keyfile_map(cuzk_keyfile *kf, const char *path, unsigned flags,
                             unsigned nthreads, char *err);
/* Releases the mapping (if any) and zeroes kf. Safe on a zeroed kf. */
void cuzk_keyfile_close(cuzk_keyfile *kf);
/* Maps and checks the file at path as cuzk_keyfile_map does, and hands the
 * mapping to pk: pk views the file (storage CUZK_PK_MAPPED, nothing
 * copied) until cuzk_groth16_pk_free unmaps it. label (64 bytes, may be
 * NULL) receives the header's label. The way to prove from a key file
 * without holding it twice. */
cuzk_status cuzk_keyfile_map_pk(cuzk_groth16_pk *pk, const char *path, unsigned flags,
                                unsigned nthreads, char *label, char *err);
/* Maps, checks and copies the key into pk (owned: cuzk_groth16_pk_free);
 * the file is unmapped before returning. label (64 bytes, may be NULL)
 * receives the header's label. */
cuzk_status cuzk_keyfile_load(cuzk_groth16_pk *pk, const char *path, unsigned flags,
                              unsigned nthreads, char *label, char *err);

/* ----------------------------------------------- bellperson export ----- */
/* Writes pk as a bellperson .params (and its .vk when vk_path != NULL),
 * both atomically. The a, b_g1, b_g2 vectors are filtered as bellperson's
 * generator does (formats.md §5.2): a = every input, then the aux
 * variables with a nonzero coefficient in some A row; b = every variable
 * with a nonzero coefficient in some B row; the densities come from pk->m,
 * as cuzk_groth16_pk_from_params reads them back, and pk->b_var must be
 * exactly that B density (b1/b2 are written as they are). Needs a
 * monomial H (CUZK_H_MONOMIAL) and bellperson roots (a .params carries no
 * roots and every bellperson reader assumes 7); no point may be the
 * identity (bellperson rejects them): else CUZK_ERR_INVALID_ARGUMENT with
 * a message. */
cuzk_status cuzk_groth16_pk_write_params(const char *params_path, const char *vk_path,
                                         const cuzk_groth16_pk *pk, char *err);
/* ======================================================== setup (end) == */

#endif /* CUZK_GROTH16_H */
