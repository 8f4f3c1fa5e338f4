/* cuzk — the pre-compiled constraint evaluator (PCE).
 *
 * A circuit's matrices A, B, C compiled once into a compact, mmap-able form,
 * and the evaluation a = A w, b = B w, c = C w that every proof needs, done
 * in one multithreaded pass over the rows. docs/pce.md explains the layout
 * and gives measured sizes and speeds.
 *
 * Compact form. Per matrix, a CSR whose terms are fixed-width bit fields
 * (column | coefficient code), col_bits = bits of n_cols - 1 and code_bits
 * chosen per matrix to minimise the size; a code names a coefficient of a
 * small per-matrix table (the most frequent values: +1, -1, small integers,
 * other field elements from the shared dictionary) or is the escape code,
 * whose dictionary index is in a side array. Row lengths are len_bits-wide
 * fields (1, 2, 4 or 8 bits, chosen per matrix; the largest value sends the
 * length to the long-row table); every 256 rows a block record holds where
 * the block starts in the term, escape and long-row arrays, so any block can
 * be decoded on its own (by a thread here, by a warp on the GPU). For a
 * PoRep-shaped circuit (~2^27 columns, almost all coefficients +-1 or powers
 * of two) a term is 32-33 bits and the whole file ~4.2-4.4 bytes per
 * non-zero, against 36 for the reference's CSR of 32-byte coefficients.
 *
 * Densities. For A and B, a bitmap over all n_cols columns of the variables
 * that appear in some row with a nonzero coefficient (bellperson's density
 * trackers, formats.md §5.2). bellperson's A query also holds every input,
 * whatever its density; compile with CUZK_PCE_INPUT_ROWS and the input rows
 * put every input in A anyway.
 *
 * Columns. Column i is variable i of the witness: inputs first (column 0 is
 * the constant ONE), then aux; n_cols = n_inputs + n_aux. For a circom
 * .r1cs, inputs are ONE and the public signals (1 + n_public wires), aux
 * everything after.
 *
 * File. Little-endian, versioned, a 512-byte header protected by its own
 * hash, every section 64-byte aligned, the body covered by a 64-bit hash
 * (xxh64 of 1 MiB chunks, hashed again: checked on every core). The memory
 * image of a compiled PCE IS the file: saving writes it as is (atomically),
 * loading maps it and points into it. A file that fails any check is
 * rejected with a status and a message naming the part that is wrong; the
 * reader never reads outside the buffer, and (unless told to trust the
 * file) it checks every term, so evaluating a loaded PCE cannot read outside
 * the witness.
 *
 * Errors: statuses and `err` messages as in formats.h ("pce: ..."); on
 * failure the output struct is left zeroed. Thread safety: a compiled or
 * loaded PCE is read-only; any number of threads may evaluate it at once.
 * Host byte order must be little-endian (every target of cuzk is).
 */
#ifndef CUZK_PCE_H
#define CUZK_PCE_H

#include <stddef.h>
#include <stdint.h>

#include <cuzk/ff.h>
#include <cuzk/formats.h>
#include <cuzk/r1cs.h>
#include <cuzk/status.h>

#define CUZK_PCE_VERSION 1u
#define CUZK_PCE_BLOCK_ROWS 256u /* rows per block record */
#define CUZK_PCE_NO_ESCAPE 0xffffffffu

/* Compile flags. */
#define CUZK_PCE_INPUT_ROWS 1u  /* append one row A = 1 * x_i, B = C = 0 per input
                                   i < n_inputs, after the matrices' rows: the
                                   input rows bellperson and snarkjs add
                                   (formats.md §5.1) */
/* Open/load flags. */
#define CUZK_PCE_SKIP_HASH 2u   /* do not check the header and body hashes */
#define CUZK_PCE_TRUST 4u       /* check the header, the hashes and the block
                                   records, but not every term: for a file this
                                   process wrote. A corrupt file opened this way
                                   may make evaluation read outside the witness. */

/* Header flags (cuzk_pce.flags). */
#define CUZK_PCE_HAS_C 1u          /* the C matrix was given (a .zkey has none) */
#define CUZK_PCE_HAS_INPUT_ROWS 2u /* compiled with CUZK_PCE_INPUT_ROWS */

enum { CUZK_PCE_A = 0, CUZK_PCE_B = 1, CUZK_PCE_C = 2 };

/* Where block k (rows 256k..) starts in the term, escape and long-row arrays
 * of its matrix; record n_blocks holds the totals. */
typedef struct {
    uint64_t term, esc, lng;
} cuzk_pce_block;

/* One compiled matrix (pointers into the image). Term t of the matrix is the
 * bit field [t W, (t + 1) W) of `terms`, W = col_bits + code_bits, read as a
 * little-endian bit string: column = low col_bits bits, code = the rest. A
 * code < n_codes is the coefficient coeffs[codes[code]]; code == esc_code
 * takes the next entry of `esc` (a dictionary index) instead. */
typedef struct {
    uint64_t nnz;        /* terms (nonzero coefficients) */
    uint64_t n_esc;      /* escaped terms */
    uint64_t n_long;     /* rows of 2^len_bits - 1 terms or more */
    uint32_t col_bits;   /* 1..32 */
    uint32_t code_bits;  /* 0..16 */
    uint32_t n_codes;    /* <= 2^code_bits (2^code_bits - 1 with escapes) */
    uint32_t esc_code;   /* 2^code_bits - 1, or CUZK_PCE_NO_ESCAPE */
    uint32_t len_bits;   /* 1, 2, 4 or 8; a length field 2^len_bits - 1 means
                            "the next `longs` entry" */
    const uint32_t *codes;        /* n_codes dictionary indices */
    const cuzk_pce_block *blocks; /* n_blocks + 1 records */
    const uint8_t *lens;          /* n_rows len_bits-wide row lengths, row j at
                                     bit j len_bits (never across a byte) */
    const uint32_t *longs;        /* n_long lengths of long rows, in row order */
    const uint8_t *terms;         /* ceil(nnz W / 8) + 8 bytes (8 of slack so a
                                     64-bit load at any term stays inside) */
    const uint32_t *esc;          /* n_esc dictionary indices, in term order */
} cuzk_pce_matrix;

/* A compiled constraint system. Every field is read-only; the arrays point
 * into `image` (owned by the struct, or the caller's buffer for
 * cuzk_pce_open). Free with cuzk_pce_free (safe on a zeroed struct, twice). */
typedef struct {
    uint32_t flags;       /* CUZK_PCE_HAS_C | CUZK_PCE_HAS_INPUT_ROWS */
    uint64_t n_rows;      /* rows of every matrix, input rows included */
    uint64_t n_inputs;    /* columns 0..n_inputs-1 (ONE included) */
    uint64_t n_aux;       /* columns n_inputs..n_cols-1 */
    uint64_t n_cols;      /* n_inputs + n_aux <= 2^32 */
    uint64_t n_blocks;    /* ceil(n_rows / 256) */
    uint64_t n_coeffs;    /* distinct nonzero coefficients; [0] = 1, [1] = -1 */
    const cuzk_fr *coeffs; /* Montgomery form */
    cuzk_pce_matrix m[3];  /* A, B, C (C has no terms without CUZK_PCE_HAS_C) */
    /* density[0] (A), density[1] (B): ceil(n_cols / 64) words, bit i of
     * word i / 64 set when column i has a nonzero coefficient in that
     * matrix. dens_count[k][0] counts the inputs, dens_count[k][1] the aux. */
    const uint64_t *density[2];
    uint64_t dens_count[2][2];
    const uint8_t *image; /* the file image */
    uint64_t image_size;  /* bytes (in memory and on disk) */
    void *priv_;          /* private: evaluation tables, ownership */
} cuzk_pce;

/* Compiles matrices m (n_rows rows; a, b and c are CSR, c.row_start may be
 * NULL for a system without C, as a .zkey's) over n_inputs + n_aux columns.
 * Terms with a zero coefficient are dropped (they count for no density
 * either); others are kept in row order, duplicates included. Checks the
 * input: CSR offsets monotone and consistent, every wire < n_cols, every
 * coefficient index < n_coeffs and its value canonical
 * (CUZK_ERR_BAD_ENCODING / CUZK_ERR_NOT_CANONICAL); n_inputs >= 1,
 * n_cols <= 2^32, rows shorter than 2^32 terms (CUZK_ERR_INVALID_ARGUMENT).
 * Uses up to nthreads threads (0: every core). m may be released afterwards.
 * The image is anonymous memory (4.4 bytes a term for a PoRep shape); while
 * it runs, compile also needs 72 bytes per 256 rows, ~13 bytes a distinct
 * coefficient, and up to 400 KB of histograms per thread. */
cuzk_status cuzk_pce_compile(cuzk_pce *p, const cuzk_matrices *m, uint64_t n_inputs,
                             uint64_t n_aux, unsigned flags, unsigned nthreads, char *err);
/* The same for a circom .r1cs: n_inputs = 1 + n_public, n_aux = the rest. */
cuzk_status cuzk_pce_from_r1cs(cuzk_pce *p, const cuzk_r1cs *r, unsigned flags,
                               unsigned nthreads, char *err);

/* Opens an image in the caller's buffer (8-byte aligned, else
 * CUZK_ERR_INVALID_ARGUMENT): checks it as described at the top and points
 * into it; THE BUFFER MUST OUTLIVE p. flags: CUZK_PCE_SKIP_HASH,
 * CUZK_PCE_TRUST. */
cuzk_status cuzk_pce_open(cuzk_pce *p, const uint8_t *data, size_t size, unsigned flags,
                          unsigned nthreads, char *err);
/* Maps a file (cuzk_blob_map) and opens it; p owns the mapping. */
cuzk_status cuzk_pce_load(cuzk_pce *p, const char *path, unsigned flags, unsigned nthreads,
                          char *err);
/* Writes p->image to path atomically (temp file + fsync + rename). */
cuzk_status cuzk_pce_save(const cuzk_pce *p, const char *path, char *err);
void cuzk_pce_free(cuzk_pce *p);

/* The witness as the evaluator reads it. w holds n_w = n_cols values in
 * Montgomery form. Optional bit information (bit i of word i / 64), for a
 * witness that keeps its 0/1 values as bits:
 *   is_bit   column i is a bit ...
 *   bit_val  ... of this value. With both, w[i] is never read for the
 *            columns marked in is_bit (they may be left unset in w, and
 *            their memory is not touched). The caller promises them: a
 *            marked column counts as its bit_val bit whatever w holds.
 * is_bit without bit_val changes nothing. Either way no 0 or 1 is ever
 * multiplied: +-1 coefficients add or subtract, and other coefficients
 * recognise w = 0 (skip) and w = 1 (add the coefficient) by comparing. */
typedef struct {
    const cuzk_fr *w;
    size_t n_w;
    const uint64_t *is_bit;
    const uint64_t *bit_val;
} cuzk_pce_witness;

/* a[j] = <A_j, w>, b[j] = <B_j, w>, c[j] = <C_j, w> for j < n_rows, in one
 * pass: each 4096-row chunk evaluates its A, B and C rows together, so the
 * witness entries a chunk needs are read from memory once. Any of a, b, c
 * may be NULL to skip that matrix; c must be NULL when the PCE has no C
 * (CUZK_ERR_INVALID_ARGUMENT). Allocates nothing; up to nthreads threads
 * (0: every core). The results equal the plain evaluation
 * sum coeff * w exactly (field arithmetic is exact). On x86-64 a, b, c are
 * written with non-temporal stores (they bypass the cache). */
cuzk_status cuzk_pce_eval(const cuzk_pce *p, const cuzk_pce_witness *wit, cuzk_fr *a,
                          cuzk_fr *b, cuzk_fr *c, unsigned nthreads, char *err);
/* The same from a constraint system's compact witness (cuzk_cs_witness_view
 * of r1cs.h: inputs, the dense field array, the bit bitmap and the layout)
 * with no wire-order copy at all: column n_inputs + j is aux variable j,
 * a bit (value from the bitmap, never multiplied) or the next field value,
 * found by the rank of j in the layout (a popcount and a table of 4 bytes
 * per 64 aux, malloc'd here: 8 MB at 2^27). The view must match the PCE
 * (same inputs and aux counts; the layout must mark n_bits bits), else
 * CUZK_ERR_INVALID_ARGUMENT; then no read leaves the view's arrays.
 * Results equal cuzk_pce_eval of the dense witness exactly. */
cuzk_status cuzk_pce_eval_view(const cuzk_pce *p, const cuzk_witness_view *v, cuzk_fr *a,
                               cuzk_fr *b, cuzk_fr *c, unsigned nthreads, char *err);
/* Variables the circuit itself forces to be 0 or 1: columns x != 0 with a
 * row (a0 + a1 x)(b0 + b1 x) = c0 + c1 x whose roots are exactly {0, 1}
 * (bellperson's (1 - x) x = 0, circom's x (x - 1) === 0, x x = x, ...).
 * A witness that satisfies the circuit has bits there: the bitmap is an
 * is_bit for a checked witness, or tells a witness generator which values
 * to keep as bits. bitmap: ceil(n_cols / 64) words, caller-owned,
 * overwritten; *count (if not NULL) = bits set. */
cuzk_status cuzk_pce_boolean_vars(const cuzk_pce *p, uint64_t *bitmap, uint64_t *count,
                                  unsigned nthreads);

/* Decompiles p into plain CSR matrices (for tests and tools): the same
 * terms in the same order, coefficient indices into a copy of p->coeffs.
 * Free with cuzk_pce_matrices_free. */
cuzk_status cuzk_pce_to_matrices(const cuzk_pce *p, cuzk_matrices *m, char *err);
/* Frees what cuzk_pce_to_matrices allocated; leaves m zeroed. */
void cuzk_pce_matrices_free(cuzk_matrices *m);

/* Total terms, and image bytes per term (0 when there are none). */
uint64_t cuzk_pce_nnz(const cuzk_pce *p);
double cuzk_pce_bytes_per_nnz(const cuzk_pce *p);

#endif /* CUZK_PCE_H */
