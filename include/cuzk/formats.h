/* cuzk — readers and writers for the files people already have.
 *
 *   iden3 container      .r1cs .wtns .zkey (.ptau)      formats.md §6
 *   .r1cs                circom constraint system        §7
 *   .wtns                circom/snarkjs witness          §8
 *   .zkey (Groth16)      snarkjs proving key             §9
 *   snarkjs JSON         vk.json, proof.json, public.json   §10, §12
 *   bellperson           .params, .vk                    §3
 *   Filecoin proof       192 bytes per partition         §4
 *
 * (§ = shared/research/formats.md.)
 *
 * Parsing model. Every parser reads from a memory buffer the caller owns (a
 * file mapped with cuzk_blob_map, read with cuzk_blob_read, or anything
 * else). Parsers never read outside [data, data + size), whatever the sizes
 * and counts inside the file say, and every allocation they make is bounded
 * by a small multiple of size. Big point vectors (.zkey sections 5-9,
 * .params h/l/a/b) are NOT copied: the parsed struct holds cuzk_points views
 * that point into the caller's buffer, so THE BUFFER MUST OUTLIVE THE PARSED
 * STRUCT (or at least every use of its views). Everything else a parsed
 * struct holds (decoded header points, IC, constraint matrices, witness
 * values) is owned by the struct and released by its _free function; a
 * _free function may be called on a zeroed struct and twice.
 *
 * Errors. Functions that take `char *err` write, on failure, one line of at
 * most CUZK_ERRMSG_LEN - 1 characters that names the file kind, what is
 * wrong and where, e.g.
 *   "zkey: section 5 (A points) is 12 bytes short of 672"
 *   "r1cs: prime is BN254 r (circom --prime bn128); cuzk needs --prime bls12381"
 * err may be NULL; on success err[0] is set to 0. Statuses:
 *   CUZK_ERR_TRUNCATED        the input ends before what it announces
 *   CUZK_ERR_BAD_ENCODING     wrong magic/version/sizes/counts/flags, a
 *                             missing or duplicated section, a wrong prime,
 *                             inconsistent counts, malformed JSON
 *   CUZK_ERR_NOT_CANONICAL    a field element >= its modulus
 *   CUZK_ERR_NOT_ON_CURVE, CUZK_ERR_NOT_IN_SUBGROUP, CUZK_ERR_NO_SQRT
 *                             a bad point (the status of the point decoder)
 *   CUZK_ERR_UNSATISFIED      cuzk_r1cs_check found a failing constraint, or
 *                             the witness does not fit the circuit
 *   CUZK_ERR_NO_MEMORY, CUZK_ERR_IO, CUZK_ERR_INVALID_ARGUMENT (NULL
 *                             pointers, a writer given an identity point)
 * On failure, the output struct is left zeroed (nothing to free).
 *
 * Point checks. Points read from the small, security-relevant parts of a key
 * (vk points, IC, the .zkey header) and from proofs are fully checked:
 * canonical coordinates, on the curve, in the prime-order subgroup. Bulk
 * vectors (millions of points) are checked for canonical coordinates and
 * the curve equation in parallel on every core, but NOT for subgroup
 * membership unless CUZK_FMT_SUBGROUP is given: measured on the 2-core dev
 * machine (gcc -O3), a curve check costs 0.18 us per LEM G1 point, 0.27 us
 * per zcash G1 point and 0.40 us per G2 point on one core; a subgroup check
 * ~64 us, 350x more. CUZK_FMT_TRUST_POINTS skips the bulk checks
 * altogether (sizes are still checked, and cuzk_points_decode_* checks each
 * point again when it decodes it): for a 47 GB Filecoin .params (~5e8
 * points, ~100 core-seconds of curve checks plus reading every page) that
 * is the sensible choice. Filecoin itself reads .params without subgroup
 * checks (formats.md §3.3).
 *
 * Roots of unity. A key is valid only with the roots it was made for
 * (formats.md §1, trap 1): every parsed key records them in `roots`
 * (CUZK_ROOTS_SNARKJS = 5 for .zkey and snarkjs-exported .params,
 * CUZK_ROOTS_BELLPERSON = 7 for bellperson .params).
 *
 * Thread safety: parsed structs are read-only after parsing; any number of
 * threads may use them. Functions keep no global state.
 */
#ifndef CUZK_FORMATS_H
#define CUZK_FORMATS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cuzk/ec.h>
#include <cuzk/ff.h>
#include <cuzk/poly.h>
#include <cuzk/status.h>

/* Parse flags (bit set; 0 is the safe default). */
#define CUZK_FMT_TRUST_POINTS 1u    /* skip the bulk point checks (sizes still checked) */
#define CUZK_FMT_SUBGROUP 2u        /* also subgroup-check bulk vectors (slow) */
#define CUZK_FMT_SNARKJS_BELLMAN 4u /* .params from `snarkjs zkey export bellman` */

/* ------------------------------------------------------------- files -- */

/* A whole file in memory: mapped read-only or read into a malloc'd buffer.
 * data/size are what parsers take; the rest is private. */
typedef struct {
    const uint8_t *data;
    size_t size;
    void *base_;  /* private */
    size_t len_;  /* private */
    int kind_;    /* private: 0 none, 1 mmap, 2 malloc */
} cuzk_blob;

/* Maps path read-only (MAP_PRIVATE). Nothing is read until touched, so this
 * is the way to open a 47 GB .params. If the file is truncated by someone
 * else while mapped, touching the lost pages raises SIGBUS: map only files
 * nobody is rewriting. An empty file gives size 0 and a non-NULL data. */
cuzk_status cuzk_blob_map(cuzk_blob *b, const char *path, char *err);
/* Reads the whole of path (a regular file, pipe or device) into memory. */
cuzk_status cuzk_blob_read(cuzk_blob *b, const char *path, char *err);
/* Unmaps or frees; leaves b zeroed. Safe on a zeroed blob. */
void cuzk_blob_release(cuzk_blob *b);
/* A mapped blob: drops its pages from this process (they stop counting in
 * its RSS; the page cache may keep them); a later read faults them back in
 * from the file, unchanged. A no-op for a read blob. CUZK_ERR_IO when the
 * kernel refuses. */
cuzk_status cuzk_blob_drop_pages(const cuzk_blob *b);
/* An output file being written (src/formats/outfile.c); every cuzk writer
 * goes through it. cuzk_out_open follows symlinks: the target is written,
 * the link kept. A path that exists and is not a regular file (a device, a
 * FIFO: /dev/null, /dev/stdout) is opened and written in place, never
 * renamed over. Otherwise the bytes go to a temporary "target.tmp.<pid>"
 * in the target's directory, fsync'd and renamed over the target by
 * cuzk_out_close (keeping an existing file's permissions): after a crash
 * the path holds the old or the new content, never half of it. A directory
 * or a socket is refused (CUZK_ERR_IO). Messages name the path given. */
typedef struct {
    int fd;          /* -1 when closed */
    int in_place;    /* written straight into path (not a regular file) */
    char *path;      /* the path given; owned copy */
    char *target;    /* path with its symlinks followed; owned */
    char *tmp;       /* the temporary (NULL in place); owned */
} cuzk_out;

cuzk_status cuzk_out_open(cuzk_out *o, const char *path, char *err);
/* Writes all of data; on failure o stays open (cuzk_out_abort it). */
cuzk_status cuzk_out_write(cuzk_out *o, const void *data, size_t len, char *err);
/* fsync, close and rename into place (in place: close). Releases o in every
 * case; on failure the temporary is removed and the target untouched. */
cuzk_status cuzk_out_close(cuzk_out *o, char *err);
/* Gives up: closes, removes the temporary, releases o. Safe on a zeroed or
 * released o (fd 0 is never ours: cuzk_out_open sets fd). */
void cuzk_out_abort(cuzk_out *o);
/* path with its symlinks followed, also a dangling one (the file writing
 * would create): what cuzk_out_open writes. malloc'd (free()); NULL with
 * errno set on failure (ELOOP, ENOMEM, ...). */
char *cuzk_out_target(const char *path);
/* The descriptor N when path names one of this process's open descriptors
 * (/dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N), else -1.
 * cuzk_out_open writes such a path through the descriptor, at its offset,
 * whatever it is open on (a shell's `> file` is appended to, not replaced). */
int cuzk_out_fd(const char *path);

/* Writes len bytes to path through cuzk_out (atomic for a regular file). */
cuzk_status cuzk_file_write(const char *path, const void *data, size_t len, char *err);

/* ------------------------------------------------- iden3 container §6 -- */

typedef struct {
    uint32_t type;
    uint64_t offset; /* of the payload, from the start of the buffer */
    uint64_t size;
} cuzk_bin_section;

typedef struct {
    const uint8_t *data; /* the caller's buffer (not owned) */
    size_t size;
    char magic[5];       /* NUL-terminated */
    uint32_t version;
    uint32_t n_sections;
    cuzk_bin_section *sections; /* owned; in file order */
} cuzk_bin;

/* Reads the container header and section table of data[0, size): checks
 * the magic (4 ASCII chars), 1 <= version <= max_version, and that every
 * section fits in the buffer and the last ends exactly at size. Sections
 * may come in any order; duplicates are detected by cuzk_bin_section_get. */
cuzk_status cuzk_bin_open(cuzk_bin *b, const uint8_t *data, size_t size, const char *magic,
                          uint32_t max_version, char *err);
/* Finds the section of a type, which must be unique. A missing section is
 * CUZK_ERR_BAD_ENCODING if required, else CUZK_OK with *payload = NULL and
 * *size = 0. payload points into the caller's buffer. */
cuzk_status cuzk_bin_section_get(const cuzk_bin *b, uint32_t type, int required,
                                 const uint8_t **payload, uint64_t *size, char *err);
void cuzk_bin_free(cuzk_bin *b);

/* ------------------------------------------------------- point views -- */

typedef enum {
    CUZK_ENC_LEM = 0,   /* snarkjs: LE Montgomery, Fp2 c0||c1, all-zero = identity */
    CUZK_ENC_ZCASH = 1  /* zcash uncompressed: BE, Fp2 c1||c0, flags in byte 0 */
} cuzk_point_encoding;

/* n encoded points in place in a caller's buffer. On a little-endian host
 * the bytes of a LEM G1 (G2) point are exactly a cuzk_g1_affine
 * (cuzk_g2_affine), so LEM views can be copied to the GPU unchanged, or cast
 * in place when bytes is 8-byte aligned. */
typedef struct {
    const uint8_t *bytes;
    uint64_t n;
    uint8_t g2;          /* 0: G1 (96 bytes a point), 1: G2 (192) */
    uint8_t enc;         /* cuzk_point_encoding */
    uint8_t identity_ok; /* identity allowed: LEM all-zero; zcash 0x40.. and,
                            for snarkjs-exported .params, all-zero */
} cuzk_points;

/* Decodes points [start, start + n) of v into out (n elements), checking
 * each (canonical, on the curve, subgroup if subgroup != 0, the identity
 * policy of v). Uses up to nthreads threads (0: every core). On error,
 * *bad_index (if not NULL) is the lowest failing index and out is
 * unspecified. v must be a G1 view for _g1 and a G2 view for _g2. */
cuzk_status cuzk_points_decode_g1(cuzk_g1_affine *out, const cuzk_points *v, uint64_t start,
                                  uint64_t n, int subgroup, unsigned nthreads,
                                  uint64_t *bad_index);
cuzk_status cuzk_points_decode_g2(cuzk_g2_affine *out, const cuzk_points *v, uint64_t start,
                                  uint64_t n, int subgroup, unsigned nthreads,
                                  uint64_t *bad_index);
/* Checks every point of v without storing it. */
cuzk_status cuzk_points_check(const cuzk_points *v, int subgroup, unsigned nthreads,
                              uint64_t *bad_index);

/* ------------------------------------------------ verifying key, proof -- */

/* A Groth16 verifying key: e(A, B) = e(alpha, beta) e(sum x_i IC_i, gamma)
 * e(C, delta), x_0 = 1. */
typedef struct {
    cuzk_g1_affine alpha_g1, beta_g1, delta_g1;
    cuzk_g2_affine beta_g2, gamma_g2, delta_g2;
    int has_g1_extras;    /* 0 if beta_g1/delta_g1 are unknown (vk.json) */
    uint32_t n_ic;        /* number of public inputs + 1 */
    cuzk_g1_affine *ic;   /* n_ic points, owned */
} cuzk_vk;

void cuzk_vk_free(cuzk_vk *vk);
/* Deep copy (dst must not hold an IC; it is overwritten). */
cuzk_status cuzk_vk_copy(cuzk_vk *dst, const cuzk_vk *src);
/* 1 if the keys are equal (beta_g1/delta_g1 compared only if both have them). */
int cuzk_vk_eq(const cuzk_vk *a, const cuzk_vk *b);

typedef struct {
    cuzk_g1_affine a;
    cuzk_g2_affine b;
    cuzk_g1_affine c;
} cuzk_proof;

/* ------------------------------------------------------------ r1cs §7 -- */

/* Coefficient dictionary slots that always exist. */
#define CUZK_COEFF_ONE 0u
#define CUZK_COEFF_MINUS_ONE 1u

/* One matrix in CSR form. Row j's terms are [row_start[j], row_start[j+1]):
 * wire[k] (a wire / signal index) times coeffs[coeff[k]] of the owning
 * cuzk_matrices. 8 bytes a term plus 8 a row; coefficients are stored once
 * per distinct value (most circuits have a few thousand). */
typedef struct {
    uint64_t n_terms;
    uint64_t *row_start; /* n_rows + 1 entries; NULL for an absent matrix */
    uint32_t *wire;
    uint32_t *coeff;
} cuzk_sparse;

typedef struct {
    uint64_t n_rows;
    cuzk_sparse a, b, c;
    cuzk_fr *coeffs;     /* n_coeffs distinct values, Montgomery form;
                            coeffs[0] = 1, coeffs[1] = -1 */
    uint32_t n_coeffs;
} cuzk_matrices;

/* Frees what a cuzk_matrices owns (arrays may be NULL) and zeroes it. */
void cuzk_matrices_free(cuzk_matrices *m);
/* *out = <row `row` of s, w>, coefficients from coeffs; 1 and -1 cost an
 * addition instead of a multiplication. */
void cuzk_sparse_row_dot(cuzk_fr *out, const cuzk_sparse *s, const cuzk_fr *coeffs,
                         const cuzk_fr *w, uint64_t row);

/* The constraint system exactly as in the file: rows 0..n_constraints-1,
 * no input rows (a prover appends them: formats.md §5.1, §9.4). Wire order:
 * 0 = ONE, 1..n_pub_out outputs, then public inputs, private inputs,
 * internal wires. Owns everything; the buffer may be released after
 * parsing. Terms of a row are in file order: circom does not always sort
 * them by wire, and a repeated wire simply adds its coefficients. */
typedef struct {
    uint32_t n_wires, n_pub_out, n_pub_in, n_prv_in, n_constraints;
    uint32_t n_public;    /* n_pub_out + n_pub_in (snarkjs nPublic) */
    uint64_t n_labels;
    cuzk_matrices m;      /* a, b, c; n_rows = n_constraints */
    uint64_t *labels;     /* wire -> label id, n_wires entries; NULL if the
                             file has no section 3 */
} cuzk_r1cs;

/* Rejects fields other than BLS12-381 r (BN254 with a message saying so),
 * custom gates (PLONK-only sections 4/5), wires out of range and
 * non-canonical coefficients. */
cuzk_status cuzk_r1cs_parse(cuzk_r1cs *r, const uint8_t *data, size_t size, char *err);
void cuzk_r1cs_free(cuzk_r1cs *r);

/* Checks <A_j, w> * <B_j, w> = <C_j, w> for every constraint j, and
 * w[0] = 1. w: n_w values in Montgomery form, n_w must equal n_wires.
 * Returns CUZK_ERR_UNSATISFIED with *first_bad (if not NULL) = the lowest
 * failing constraint index, or UINT64_MAX when the witness does not fit
 * (wrong length, w[0] != 1). Runs on every core for big systems. */
cuzk_status cuzk_r1cs_check(const cuzk_r1cs *r, const cuzk_fr *w, size_t n_w,
                            uint64_t *first_bad, char *err);

/* ------------------------------------------------------------ wtns §8 -- */

typedef struct {
    uint32_t n;
    cuzk_fr *w; /* n values, Montgomery form, owned */
} cuzk_wtns;

/* Checks the prime (BLS12-381 r), that section 2 holds exactly n values,
 * and that every value is canonical. */
cuzk_status cuzk_wtns_parse(cuzk_wtns *w, const uint8_t *data, size_t size, char *err);
void cuzk_wtns_free(cuzk_wtns *w);
/* Writes a version-2 .wtns image of w[0..n) into a malloc'd buffer *out
 * (*len bytes; free with free()). */
cuzk_status cuzk_wtns_encode(uint8_t **out, size_t *len, const cuzk_fr *w, size_t n);

/* ------------------------------------------------------- zkey (Groth16) §9 -- */

typedef struct {
    cuzk_roots roots;           /* CUZK_ROOTS_SNARKJS */
    uint32_t n_vars;            /* wires, including ONE */
    uint32_t n_public;          /* public outputs + inputs, ONE not counted */
    uint32_t domain_size;       /* power of two >= n_constraints + n_public + 1 */
    uint32_t log_domain;
    uint32_t n_constraints;     /* derived from section 4 (rows before the input rows) */
    cuzk_vk vk;                 /* header points and IC (section 3), decoded and
                                   subgroup-checked; gamma_g2 is the generator */
    /* Section 4 decoded: A and B (C is never stored; snarkjs uses A o B),
     * n_rows = n_constraints + n_public + 1, the last n_public + 1 rows being
     * the input rows A = 1 * w_s. Coefficients are the true values c in
     * Montgomery form (the file stores c R^2, formats.md §9.4). m.c is absent. */
    cuzk_matrices m;
    const uint8_t *coef_bytes;  /* the raw section 4 records (44 bytes each), in place */
    uint32_t n_coef_records;
    /* Point sections, in place, LEM (all-zero = identity):
     *   a, b1: n_vars G1;  b2: n_vars G2;  c: n_vars - n_public - 1 G1
     *   (private wires n_public+1..);  h: domain_size G1 (Lagrange form on
     *   the odd 2n-th roots, formats.md §9.5 and §11). */
    cuzk_points a, b1, b2, c, h;
    const uint8_t *mpc;         /* section 10 (contributions), raw, or NULL */
    uint64_t mpc_size;
} cuzk_zkey;

/* flags: CUZK_FMT_TRUST_POINTS, CUZK_FMT_SUBGROUP (see the top of this file). */
cuzk_status cuzk_zkey_parse(cuzk_zkey *z, const uint8_t *data, size_t size, unsigned flags,
                            char *err);
void cuzk_zkey_free(cuzk_zkey *z);
/* Checks that a zkey was made from an r1cs: same wires, public count,
 * constraint count, and the same A and B coefficients row by row. */
cuzk_status cuzk_zkey_check_r1cs(const cuzk_zkey *z, const cuzk_r1cs *r, char *err);

/* ------------------------------------------------- bellperson §3, §4 -- */

/* A bellperson .params file. vk is decoded (IC included, subgroup-checked,
 * IC identity rejected); the five vectors are zcash-uncompressed views into
 * the caller's buffer. Filtered vectors (bellperson): a = inputs, then aux
 * with A != 0; b_g1/b_g2 = input then aux variables with B != 0 (density
 * comes from the constraint system, §5.2); no identity points. With
 * CUZK_FMT_SNARKJS_BELLMAN the vectors are dense (n_a = n_b = n_ic + n_l),
 * all-zero entries are identities, and roots = CUZK_ROOTS_SNARKJS. */
typedef struct {
    cuzk_roots roots;
    cuzk_vk vk;
    cuzk_points h, l, a, b_g1, b_g2;
    uint32_t domain_size;       /* n_h + 1 (a power of two) */
    uint64_t trailer_offset;    /* bytes after b_g2 (MPC trailer, §3.4): not examined */
    uint64_t trailer_size;
} cuzk_bp_params;

/* flags: CUZK_FMT_TRUST_POINTS, CUZK_FMT_SUBGROUP, CUZK_FMT_SNARKJS_BELLMAN.
 * Trailing bytes after b_g2 are accepted (and recorded). */
cuzk_status cuzk_bp_params_parse(cuzk_bp_params *p, const uint8_t *data, size_t size,
                                 unsigned flags, char *err);
void cuzk_bp_params_free(cuzk_bp_params *p);

/* Reads a bellperson .vk. With consumed == NULL the buffer must be exactly
 * the key (868 + 96 n_ic bytes); otherwise trailing bytes are allowed and
 * *consumed is the key's length (e.g. to read the vk at the head of a
 * .params). All points are subgroup-checked; IC identities are rejected. */
cuzk_status cuzk_bp_vk_parse(cuzk_vk *vk, const uint8_t *data, size_t size, size_t *consumed,
                             char *err);
/* Size and encoding of a .vk (needs has_g1_extras). out holds
 * cuzk_bp_vk_size(vk) bytes. Rejects identity IC points. */
size_t cuzk_bp_vk_size(const cuzk_vk *vk);
cuzk_status cuzk_bp_vk_encode(uint8_t *out, const cuzk_vk *vk, char *err);

/* What cuzk_bp_params_write needs: the vk and the five vectors as affine
 * arrays (b_g1 and b_g2 have n_b points each). */
typedef struct {
    const cuzk_vk *vk;
    const cuzk_g1_affine *h, *l, *a, *b_g1;
    const cuzk_g2_affine *b_g2;
    uint32_t n_h, n_l, n_a, n_b;
} cuzk_bp_params_src;

/* Streams a .params to f (no MPC trailer). Rejects identity points in any
 * vector (bellperson readers reject them) and n_h + 1 not a power of two,
 * before writing anything. Encodes in parallel, 64 Ki points at a time. */
cuzk_status cuzk_bp_params_write(FILE *f, const cuzk_bp_params_src *src, char *err);
/* Size in bytes of the file cuzk_bp_params_write writes. */
uint64_t cuzk_bp_params_size(const cuzk_bp_params_src *src);

/* Filecoin proofs: A (G1 compressed, 48) || B (G2 compressed, 96) ||
 * C (G1 compressed, 48); several partitions are concatenated. */
#define CUZK_PROOF_BYTES 192
/* len must be exactly 192 n. Subgroup-checked; identities rejected. */
cuzk_status cuzk_proofs_from_bytes(cuzk_proof *out, size_t n, const uint8_t *in, size_t len,
                                   char *err);
/* out holds 192 n bytes. Identity points are rejected (INVALID_ARGUMENT). */
cuzk_status cuzk_proofs_to_bytes(uint8_t *out, const cuzk_proof *p, size_t n, char *err);

/* ------------------------------------------------------ snarkjs JSON §10, §12 -- */

/* Readers take text[0, len) (need not be NUL-terminated). Numbers are
 * decimal strings of canonical integers (plain JSON integers are accepted
 * too). Points: G1 [x, y, z], G2 [[x0, x1], [y0, y1], [z0, z1]]; z = 1 is
 * affine, z = 0 the identity, any other z a Jacobian Z (as ffjavascript
 * reads it, trap 12); a 2-element array is affine. Points are checked on
 * the curve and in the subgroup. "curve" must be "bls12381" and "protocol"
 * "groth16" when present.
 *
 * Writers produce snarkjs's layout (one-space indent, affine with z = "1",
 * identity as ["0", "1", "0"]) into a malloc'd NUL-terminated string *out
 * (free with free()). */
cuzk_status cuzk_vk_from_json(cuzk_vk *vk, const char *text, size_t len, char *err);
/* Writes vk_alphabeta_12 = e(alpha, beta) too (one pairing, ~1 ms). */
cuzk_status cuzk_vk_to_json(char **out, const cuzk_vk *vk, char *err);
cuzk_status cuzk_proof_from_json(cuzk_proof *p, const char *text, size_t len, char *err);
cuzk_status cuzk_proof_to_json(char **out, const cuzk_proof *p, char *err);
/* public.json: an array of decimal strings, each < r. *vals is malloc'd
 * (n values, Montgomery form; free with free(); NULL when n = 0). */
cuzk_status cuzk_public_from_json(cuzk_fr **vals, size_t *n, const char *text, size_t len,
                                  char *err);
cuzk_status cuzk_public_to_json(char **out, const cuzk_fr *vals, size_t n, char *err);

/* ================================================ iden3 writers (begin) == */
/* Writers of .r1cs and Groth16 .zkey files that circom tools and snarkjs
 * read (src/formats/write_iden3.c). Writers check their input before they
 * write anything: bad sizes, counts, indices or identity header points give
 * CUZK_ERR_INVALID_ARGUMENT with a message; NULL arguments give
 * CUZK_ERR_INVALID_ARGUMENT; a path that cannot be written gives CUZK_ERR_IO
 * (message: the path and the system error). Path variants write through
 * cuzk_out (above): atomically for a regular file, in place for a device or
 * FIFO; on failure the temporary is removed and path is untouched. Bulk points are written as given (not checked). */

/* .r1cs (formats.md §7), version 1, sections in circom's order 2, 1, 3:
 *   2  every constraint (A, B, C), terms in the order of r's rows,
 *      coefficients LE canonical (32 bytes)
 *   1  header: field size 32, BLS12-381 r, nWires, nPubOut, nPubIn, nPrvIn,
 *      nLabels, nConstraints
 *   3  wire -> label: r->labels, or when NULL the identity 0..nWires-1
 *      (nLabels is then max(r->n_labels, nWires))
 * r->m must have n_rows = n_constraints and no input rows (a parsed .r1cs
 * or cuzk_cs_take_r1cs); an absent matrix (row_start NULL) is written as
 * empty rows. A circom-made file re-encodes byte for byte. */
cuzk_status cuzk_r1cs_encode(uint8_t **out, size_t *len, const cuzk_r1cs *r, char *err);
cuzk_status cuzk_r1cs_write(const char *path, const cuzk_r1cs *r, char *err);

/* Everything a Groth16 .zkey holds (formats.md §9). All pointers are
 * borrowed; nothing is freed. */
typedef struct {
    uint32_t n_vars;              /* wires, ONE included */
    uint32_t n_public;            /* public outputs + inputs, ONE not counted */
    uint32_t domain_size;         /* a power of two >= m->n_rows */
    /* Header points alpha1, beta1, beta2, gamma2, delta1, delta2 (none may
     * be the identity; has_g1_extras must be 1) and IC (n_ic = n_public + 1,
     * section 3). */
    const cuzk_vk *vk;
    /* Section 4: the rows of A and B, INPUT ROWS INCLUDED: n_rows =
     * n_constraints + n_public + 1 and row n_constraints + s is exactly
     * 1 * wire s in A and empty in B (as cuzk_zkey_parse and
     * cuzk_groth16_pk_from_zkey give them). Written row by row, A terms then
     * B terms, each value c as c R^2 mod r (LE), as snarkjs does; m->c is
     * ignored (snarkjs never stores C). */
    const cuzk_matrices *m;
    /* Sections 5-9 (written LEM; identity points as all-zero bytes):
     * a: n_vars points; b1, b2: n_vars points when b_var is NULL, else n_b
     * points, those of the variables b_var[0..n_b) (strictly ascending,
     * below n_vars), the other variables written as the identity (a
     * cuzk_groth16_pk's filtered B, expanded while streaming);
     * c: n_vars - n_public - 1 (the private wires n_public + 1..);
     * h: domain_size (snarkjs Lagrange form, formats.md §9.5 — NOT
     * bellperson's monomial h). */
    const cuzk_g1_affine *a, *b1;
    const cuzk_g2_affine *b2;
    const uint32_t *b_var;
    uint32_t n_b;
    const cuzk_g1_affine *c, *h;
    /* Section 10 (MPC contributions), copied raw when mpc != NULL: 64-byte
     * csHash, u32 count, contributions (formats.md §9.6); its structure is
     * checked. When mpc is NULL an empty contribution section is written, as
     * snarkjs's `groth16 setup` writes it: csHash then count 0, csHash =
     * cs_hash (64 bytes) or 64 zero bytes when cs_hash is NULL. snarkjs
     * reads the csHash only in `zkey verify` (which needs the r1cs and ptau
     * the key came from), `zkey contribute`/`beacon` (copied into the
     * transcript) and `zkey export bellman` (copied); the prover and
     * `zkey export verificationkey` never read section 10. */
    const uint8_t *mpc;
    size_t mpc_size;
    const uint8_t *cs_hash;
} cuzk_zkey_src;

/* A version-1 .zkey with sections in the order 1, 2, 3, ..., 10 (the order
 * `snarkjs zkey contribute` writes; a contributed snarkjs key re-encodes
 * byte for byte). _encode builds it in a malloc'd buffer *out (*len bytes;
 * free with free()); _write streams it to path (atomic, see above). */
cuzk_status cuzk_zkey_encode(uint8_t **out, size_t *len, const cuzk_zkey_src *src, char *err);
cuzk_status cuzk_zkey_write(const char *path, const cuzk_zkey_src *src, char *err);
/* Size in bytes of the file (0 if src is NULL; src is not checked). */
uint64_t cuzk_zkey_size(const cuzk_zkey_src *src);
/* ================================================== iden3 writers (end) == */

/* ========================================== bellperson writers (begin) == */
/* Path writers of the bellperson formats (src/formats/write_bellperson.c),
 * byte for byte the encoders above (cuzk_bp_vk_encode, cuzk_bp_params_write)
 * and so what cuzk_bp_vk_parse / cuzk_bp_params_parse read back. Atomic: to
 * "path.tmp.<pid>", fsync, rename; on failure path is untouched. Errors as
 * the encoders (CUZK_ERR_INVALID_ARGUMENT for identity points, a vk without
 * beta_g1/delta_g1, n_h + 1 not a power of two), CUZK_ERR_IO naming the
 * path. Keys made by cuzk setup are insecure (for tests and benchmarks);
 * writing them as .params does not change that. */
cuzk_status cuzk_bp_vk_write(const char *path, const cuzk_vk *vk, char *err);
cuzk_status cuzk_bp_params_write_path(const char *path, const cuzk_bp_params_src *src,
                                      char *err);
/* ============================================ bellperson writers (end) == */

#endif /* CUZK_FORMATS_H */
