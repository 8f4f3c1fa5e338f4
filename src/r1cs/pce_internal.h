/* Internals of the PCE (src/r1cs/pce_*.c): the file layout, the hash, the
 * evaluation tables and the term decoder shared by the reader, the
 * evaluator and the decompiler. */
#ifndef CUZK_R1CS_PCE_INTERNAL_H
#define CUZK_R1CS_PCE_INTERNAL_H

#include <stdarg.h>
#include <stdint.h>
#include <string.h>

#include <cuzk/pce.h>

#include "common/errmsg.h"
#include "common/hash.h" /* cuzk_xxh64, cuzk_body_hash: the checksums */

/* ------------------------------------------------------------- layout -- */

#define PCE_MAGIC "cuzk-pce"
#define PCE_HEADER_BYTES 512u
#define PCE_ALIGN 64u
#define PCE_MAX_CODE_BITS 16u

/* Header field offsets (all little-endian). */
enum {
    H_MAGIC = 0,         /* 8 bytes "cuzk-pce" */
    H_VERSION = 8,       /* u32 */
    H_HEADER_BYTES = 12, /* u32 = 512 */
    H_FILE_BYTES = 16,   /* u64 */
    H_HEADER_HASH = 24,  /* u64: xxh64 of the 512 header bytes, this field zeroed */
    H_BODY_HASH = 32,    /* u64: cuzk_body_hash of bytes [512, file_bytes) */
    H_FLAGS = 40,        /* u32 */
    H_BLOCK_ROWS = 44,   /* u32 = 256 */
    H_N_ROWS = 48,
    H_N_INPUTS = 56,
    H_N_AUX = 64,
    H_N_COEFFS = 72,
    H_COEFFS_OFF = 80,
    H_DENS_OFF = 88,     /* 2 x u64: A, B */
    H_DENS_COUNT = 104,  /* 4 x u64: A inputs, A aux, B inputs, B aux */
    H_MATRIX = 136,      /* 3 records of M_BYTES */
    H_END = H_MATRIX + 3 * 96 /* 424; bytes 424..511 are reserved, zero */
};
/* Matrix record fields, from the record's start. */
enum {
    M_NNZ = 0, M_N_ESC = 8, M_N_LONG = 16,
    M_COL_BITS = 24, M_CODE_BITS = 28, M_N_CODES = 32, M_ESC_CODE = 36,
    M_LEN_BITS = 40, M_PAD = 44,
    M_CODES_OFF = 48, M_BLOCKS_OFF = 56, M_LENS_OFF = 64, M_LONGS_OFF = 72,
    M_TERMS_OFF = 80, M_ESC_OFF = 88,
    M_BYTES = 96
};

/* Sections in file order; per matrix k, section 3 + 6k + j. */
enum { S_COEFFS = 0, S_DENS_A = 1, S_DENS_B = 2, S_MAT = 3, S_PER_MAT = 6, S_COUNT = 21 };
enum { SM_CODES = 0, SM_BLOCKS = 1, SM_LENS = 2, SM_LONGS = 3, SM_TERMS = 4, SM_ESC = 5 };

/* The counts a layout derives from (what the header holds). */
typedef struct {
    uint32_t version, header_bytes, flags, block_rows;
    uint64_t file_bytes, header_hash, body_hash;
    uint64_t n_rows, n_inputs, n_aux, n_coeffs;
    uint64_t dens_count[2][2];
    struct {
        uint64_t nnz, n_esc, n_long;
        uint32_t col_bits, code_bits, n_codes, esc_code, len_bits;
    } m[3];
    uint64_t off[S_COUNT]; /* as stored (open) or computed (compile) */
} pce_header;

/* Computes the canonical section offsets and sizes of h's counts, and the
 * file size. Fails (returns 0) if a size overflows or exceeds `limit`
 * bytes; then *what names the section. */
int pce_layout(const pce_header *h, uint64_t limit, uint64_t off[S_COUNT],
               uint64_t size[S_COUNT], uint64_t *file_bytes, const char **what);
const char *pce_section_name(unsigned s);
void pce_header_write(uint8_t *img, const pce_header *h);
void pce_header_read(pce_header *h, const uint8_t *img);
static inline uint64_t pce_n_blocks(uint64_t n_rows)
{
    return n_rows / CUZK_PCE_BLOCK_ROWS + (n_rows % CUZK_PCE_BLOCK_ROWS != 0);
}
static inline uint32_t pce_bits_for(uint64_t max_value) /* bits to hold 0..max_value, >= 1 */
{
    uint32_t b = 1;
    while (b < 64 && (max_value >> b)) b++;
    return b;
}

/* --------------------------------------------------- evaluation tables -- */

enum { K_ONE = 0, K_MINUS_ONE = 1, K_SMALL = 2, K_DICT = 3, K_ESC = 4, K_BAD = 5 };

/* A coefficient as the evaluator sees it: its class (K_ONE and K_MINUS_ONE
 * take the add/subtract path; K_SMALL, |v| < 2^31, and K_DICT are added
 * when w is 0 or 1 and multiplied otherwise), its value if small, and its
 * dictionary index. */
typedef struct {
    int64_t small;
    uint32_t kind;
    uint32_t idx;
} pce_coef;

typedef struct {
    int own;            /* 0: caller's buffer, 1: anonymous mapping, 2: blob */
    void *map;
    size_t map_len;
    cuzk_blob blob;
    pce_coef *dict;     /* n_coeffs entries */
    pce_coef *ctab[3];  /* n_codes entries per matrix (inside dict's allocation) */
    uint8_t *ckind[3];  /* 2^code_bits entries per matrix: the kind of each code,
                           K_ESC for the escape code, K_BAD for unused codes */
} pce_priv;

/* Fills p's pointers from its image and header, and builds priv's tables.
 * Used by compile and open after the image is complete (and checked). */
cuzk_status pce_bind(cuzk_pce *p, const pce_header *h, pce_priv *pv, char *err);

/* ------------------------------------------------------------ decoder -- */

static inline uint64_t pce_ld64(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}

/* Length field of row j (len_bits in {1,2,4,8}: never crosses a byte). */
static inline uint32_t pce_len_field(const cuzk_pce_matrix *m, uint64_t row)
{
    uint64_t bit = row * m->len_bits;
    return (uint32_t)(m->lens[bit >> 3] >> (bit & 7)) & ((1u << m->len_bits) - 1);
}

/* Term t: column in *col, code returned. */
static inline uint32_t pce_term(const cuzk_pce_matrix *m, uint64_t t, uint32_t *col)
{
    uint32_t w = m->col_bits + m->code_bits;
    uint64_t bit = t * w;
    uint64_t v = pce_ld64(m->terms + (bit >> 3)) >> (bit & 7);
    *col = (uint32_t)(v & ((1ull << m->col_bits) - 1));
    return (uint32_t)(v >> m->col_bits) & ((1u << m->code_bits) - 1);
}

/* A cursor over one matrix, row by row from the start of a block. */
typedef struct {
    const cuzk_pce_matrix *m;
    uint64_t row, term, esc, lng;
} pce_cursor;

static inline void pce_cursor_at_block(pce_cursor *c, const cuzk_pce_matrix *m, uint64_t blk)
{
    c->m = m;
    c->row = blk * CUZK_PCE_BLOCK_ROWS;
    c->term = m->blocks[blk].term;
    c->esc = m->blocks[blk].esc;
    c->lng = m->blocks[blk].lng;
}

/* Length of the cursor's row (consumes a long-row entry if needed). */
static inline uint64_t pce_cursor_len(pce_cursor *c)
{
    uint32_t f = pce_len_field(c->m, c->row);
    if (f == (1u << c->m->len_bits) - 1) return c->m->longs[c->lng++];
    return f;
}

/* Next term of the row: column and dictionary index. */
static inline void pce_cursor_next(pce_cursor *c, uint32_t *col, uint32_t *dict)
{
    uint32_t code = pce_term(c->m, c->term++, col);
    *dict = code == c->m->esc_code ? c->m->esc[c->esc++] : c->m->codes[code];
}

/* -------------------------------------------------------------- misc -- */

#define pce_fail(err, s, ...) cuzk_errf((err), (s), "pce: ", __VA_ARGS__)

static inline void pce_wr32(uint8_t *p, uint32_t v) { memcpy(p, &v, 4); }
static inline void pce_wr64(uint8_t *p, uint64_t v) { memcpy(p, &v, 8); }
static inline uint32_t pce_rd32(const uint8_t *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}
static inline uint64_t pce_rd64(const uint8_t *p) { return pce_ld64(p); }

static const char PCE_MAT_NAME[3] = {'A', 'B', 'C'};

#endif /* CUZK_R1CS_PCE_INTERNAL_H */
