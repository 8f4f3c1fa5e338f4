/* PCE files: layout, header, the checking reader, binding a checked image
 * to a cuzk_pce, save/load, and the decompiler.
 *
 * File layout (docs/pce.md has the full table):
 *   [0, 512)  header (pce_internal.h lists the fields)
 *   then, each at the next multiple of 64 bytes, in this order:
 *     coefficients         n_coeffs x 32 (Montgomery, LE limbs)
 *     A density, B density ceil(n_cols / 64) x u64
 *     for A, B, C: codes (u32), blocks (3 x u64), row lengths (bits),
 *                  long rows (u32), terms (bits + 8 bytes), escapes (u32)
 *   file size = end of the last section rounded up to 64.
 * The offsets are stored in the header and must equal the canonical ones. */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "common/parallel.h"
#include "r1cs/pce_internal.h"

static const char *const SEC_NAMES[S_COUNT] = {
    "coefficients", "A density", "B density",
    "A codes", "A block records", "A row lengths", "A long rows", "A terms", "A escapes",
    "B codes", "B block records", "B row lengths", "B long rows", "B terms", "B escapes",
    "C codes", "C block records", "C row lengths", "C long rows", "C terms", "C escapes"};

const char *pce_section_name(unsigned s) { return s < S_COUNT ? SEC_NAMES[s] : "?"; }

/* ------------------------------------------------------------- layout -- */

static int mul_ok(uint64_t a, uint64_t b, uint64_t *r) { return !__builtin_mul_overflow(a, b, r); }
static int add_ok(uint64_t a, uint64_t b, uint64_t *r) { return !__builtin_add_overflow(a, b, r); }

int pce_layout(const pce_header *h, uint64_t limit, uint64_t off[S_COUNT],
               uint64_t size[S_COUNT], uint64_t *file_bytes, const char **what)
{
    uint64_t n_cols, words, t;
    *what = "column count";
    if (!add_ok(h->n_inputs, h->n_aux, &n_cols)) return 0;
    words = n_cols / 64 + (n_cols % 64 != 0);
    *what = pce_section_name(S_COEFFS);
    if (!mul_ok(h->n_coeffs, 32, &size[S_COEFFS])) return 0;
    size[S_DENS_A] = size[S_DENS_B] = words * 8; /* words <= 2^58 */
    for (int k = 0; k < 3; k++) {
        uint64_t *sz = &size[S_MAT + S_PER_MAT * k];
        unsigned s0 = S_MAT + S_PER_MAT * k;
        uint64_t w = (uint64_t)h->m[k].col_bits + h->m[k].code_bits;
        *what = pce_section_name(s0 + SM_CODES);
        if (!mul_ok(h->m[k].n_codes, 4, &sz[SM_CODES])) return 0;
        *what = pce_section_name(s0 + SM_BLOCKS);
        if (!mul_ok(pce_n_blocks(h->n_rows) + 1, sizeof(cuzk_pce_block), &sz[SM_BLOCKS]))
            return 0;
        *what = pce_section_name(s0 + SM_LENS);
        if (!mul_ok(h->n_rows, h->m[k].len_bits, &t)) return 0;
        sz[SM_LENS] = t / 8 + (t % 8 != 0);
        *what = pce_section_name(s0 + SM_LONGS);
        if (!mul_ok(h->m[k].n_long, 4, &sz[SM_LONGS])) return 0;
        *what = pce_section_name(s0 + SM_TERMS);
        if (!mul_ok(h->m[k].nnz, w, &t)) return 0;
        sz[SM_TERMS] = t / 8 + (t % 8 != 0) + 8;
        *what = pce_section_name(s0 + SM_ESC);
        if (!mul_ok(h->m[k].n_esc, 4, &sz[SM_ESC])) return 0;
    }
    uint64_t pos = PCE_HEADER_BYTES;
    for (unsigned s = 0; s < S_COUNT; s++) {
        *what = pce_section_name(s);
        if (!add_ok(pos, PCE_ALIGN - 1, &pos)) return 0;
        pos &= ~(uint64_t)(PCE_ALIGN - 1);
        off[s] = pos;
        if (!add_ok(pos, size[s], &pos) || pos > limit) return 0;
    }
    *what = "file size";
    if (!add_ok(pos, PCE_ALIGN - 1, &pos)) return 0;
    pos &= ~(uint64_t)(PCE_ALIGN - 1);
    if (pos > limit) return 0;
    *file_bytes = pos;
    *what = NULL;
    return 1;
}

/* ------------------------------------------------------------- header -- */

static const uint16_t MREC_OFF[S_PER_MAT] = {M_CODES_OFF, M_BLOCKS_OFF, M_LENS_OFF,
                                             M_LONGS_OFF, M_TERMS_OFF, M_ESC_OFF};

void pce_header_write(uint8_t *img, const pce_header *h)
{
    memset(img, 0, PCE_HEADER_BYTES);
    memcpy(img + H_MAGIC, PCE_MAGIC, 8);
    pce_wr32(img + H_VERSION, h->version);
    pce_wr32(img + H_HEADER_BYTES, h->header_bytes);
    pce_wr64(img + H_FILE_BYTES, h->file_bytes);
    pce_wr64(img + H_BODY_HASH, h->body_hash);
    pce_wr32(img + H_FLAGS, h->flags);
    pce_wr32(img + H_BLOCK_ROWS, h->block_rows);
    pce_wr64(img + H_N_ROWS, h->n_rows);
    pce_wr64(img + H_N_INPUTS, h->n_inputs);
    pce_wr64(img + H_N_AUX, h->n_aux);
    pce_wr64(img + H_N_COEFFS, h->n_coeffs);
    pce_wr64(img + H_COEFFS_OFF, h->off[S_COEFFS]);
    pce_wr64(img + H_DENS_OFF, h->off[S_DENS_A]);
    pce_wr64(img + H_DENS_OFF + 8, h->off[S_DENS_B]);
    for (int i = 0; i < 4; i++) pce_wr64(img + H_DENS_COUNT + 8 * i, h->dens_count[i / 2][i % 2]);
    for (int k = 0; k < 3; k++) {
        uint8_t *r = img + H_MATRIX + M_BYTES * k;
        pce_wr64(r + M_NNZ, h->m[k].nnz);
        pce_wr64(r + M_N_ESC, h->m[k].n_esc);
        pce_wr64(r + M_N_LONG, h->m[k].n_long);
        pce_wr32(r + M_COL_BITS, h->m[k].col_bits);
        pce_wr32(r + M_CODE_BITS, h->m[k].code_bits);
        pce_wr32(r + M_N_CODES, h->m[k].n_codes);
        pce_wr32(r + M_ESC_CODE, h->m[k].esc_code);
        pce_wr32(r + M_LEN_BITS, h->m[k].len_bits);
        for (int j = 0; j < S_PER_MAT; j++)
            pce_wr64(r + MREC_OFF[j], h->off[S_MAT + S_PER_MAT * k + j]);
    }
    uint64_t hh = cuzk_xxh64(img, PCE_HEADER_BYTES, 0);
    pce_wr64(img + H_HEADER_HASH, hh);
}

void pce_header_read(pce_header *h, const uint8_t *img)
{
    memset(h, 0, sizeof *h);
    h->version = pce_rd32(img + H_VERSION);
    h->header_bytes = pce_rd32(img + H_HEADER_BYTES);
    h->file_bytes = pce_rd64(img + H_FILE_BYTES);
    h->header_hash = pce_rd64(img + H_HEADER_HASH);
    h->body_hash = pce_rd64(img + H_BODY_HASH);
    h->flags = pce_rd32(img + H_FLAGS);
    h->block_rows = pce_rd32(img + H_BLOCK_ROWS);
    h->n_rows = pce_rd64(img + H_N_ROWS);
    h->n_inputs = pce_rd64(img + H_N_INPUTS);
    h->n_aux = pce_rd64(img + H_N_AUX);
    h->n_coeffs = pce_rd64(img + H_N_COEFFS);
    h->off[S_COEFFS] = pce_rd64(img + H_COEFFS_OFF);
    h->off[S_DENS_A] = pce_rd64(img + H_DENS_OFF);
    h->off[S_DENS_B] = pce_rd64(img + H_DENS_OFF + 8);
    for (int i = 0; i < 4; i++) h->dens_count[i / 2][i % 2] = pce_rd64(img + H_DENS_COUNT + 8 * i);
    for (int k = 0; k < 3; k++) {
        const uint8_t *r = img + H_MATRIX + M_BYTES * k;
        h->m[k].nnz = pce_rd64(r + M_NNZ);
        h->m[k].n_esc = pce_rd64(r + M_N_ESC);
        h->m[k].n_long = pce_rd64(r + M_N_LONG);
        h->m[k].col_bits = pce_rd32(r + M_COL_BITS);
        h->m[k].code_bits = pce_rd32(r + M_CODE_BITS);
        h->m[k].n_codes = pce_rd32(r + M_N_CODES);
        h->m[k].esc_code = pce_rd32(r + M_ESC_CODE);
        h->m[k].len_bits = pce_rd32(r + M_LEN_BITS);
        for (int j = 0; j < S_PER_MAT; j++)
            h->off[S_MAT + S_PER_MAT * k + j] = pce_rd64(r + MREC_OFF[j]);
    }
}

/* --------------------------------------------------------------- bind -- */

static void classify(pce_coef *c, const cuzk_fr *v, uint32_t idx)
{
    uint64_t x[4], y[4];
    cuzk_fr_to_limbs(x, v);
    c->idx = idx;
    c->small = 0;
    c->kind = K_DICT;
    /* y = r - x */
    unsigned __int128 bw = 0;
    for (int i = 0; i < 4; i++) {
        unsigned __int128 d = (unsigned __int128)CUZK_FR_MODULUS[i] - x[i] - (uint64_t)bw;
        y[i] = (uint64_t)d;
        bw = (d >> 64) & 1;
    }
    const uint64_t lim = (uint64_t)1 << 31;
    if (!(x[1] | x[2] | x[3]) && x[0] < lim) {
        c->small = (int64_t)x[0];
    } else if (!(y[1] | y[2] | y[3]) && y[0] < lim) {
        c->small = -(int64_t)y[0];
    } else {
        return;
    }
    c->kind = c->small == 1 ? K_ONE : c->small == -1 ? K_MINUS_ONE : K_SMALL;
}

cuzk_status pce_bind(cuzk_pce *p, const pce_header *h, pce_priv *pv, char *err)
{
    const uint8_t *img = p->image;
    p->flags = h->flags;
    p->n_rows = h->n_rows;
    p->n_inputs = h->n_inputs;
    p->n_aux = h->n_aux;
    p->n_cols = h->n_inputs + h->n_aux;
    p->n_blocks = pce_n_blocks(h->n_rows);
    p->n_coeffs = h->n_coeffs;
    p->coeffs = (const cuzk_fr *)(img + h->off[S_COEFFS]);
    p->density[0] = (const uint64_t *)(img + h->off[S_DENS_A]);
    p->density[1] = (const uint64_t *)(img + h->off[S_DENS_B]);
    memcpy(p->dens_count, h->dens_count, sizeof p->dens_count);
    uint64_t total_codes = 0;
    for (int k = 0; k < 3; k++) {
        cuzk_pce_matrix *m = &p->m[k];
        const uint64_t *o = &h->off[S_MAT + S_PER_MAT * k];
        m->nnz = h->m[k].nnz;
        m->n_esc = h->m[k].n_esc;
        m->n_long = h->m[k].n_long;
        m->col_bits = h->m[k].col_bits;
        m->code_bits = h->m[k].code_bits;
        m->n_codes = h->m[k].n_codes;
        m->esc_code = h->m[k].esc_code;
        m->len_bits = h->m[k].len_bits;
        m->codes = (const uint32_t *)(img + o[SM_CODES]);
        m->blocks = (const cuzk_pce_block *)(img + o[SM_BLOCKS]);
        m->lens = img + o[SM_LENS];
        m->longs = (const uint32_t *)(img + o[SM_LONGS]);
        m->terms = img + o[SM_TERMS];
        m->esc = (const uint32_t *)(img + o[SM_ESC]);
        total_codes += m->n_codes;
    }
    size_t n = (size_t)(p->n_coeffs + total_codes), nk = 0;
    for (int k = 0; k < 3; k++) nk += (size_t)1 << p->m[k].code_bits;
    pv->dict = malloc((n ? n : 1) * sizeof *pv->dict);
    pv->ckind[0] = malloc(nk);
    if (!pv->dict || !pv->ckind[0]) {
        free(pv->dict);
        free(pv->ckind[0]);
        pv->dict = NULL;
        pv->ckind[0] = NULL;
        return pce_fail(err, CUZK_ERR_NO_MEMORY, "out of memory (coefficient tables)");
    }
    for (uint64_t i = 0; i < p->n_coeffs; i++) classify(&pv->dict[i], &p->coeffs[i], (uint32_t)i);
    pce_coef *t = pv->dict + p->n_coeffs;
    for (int k = 0; k < 3; k++) {
        pv->ctab[k] = t;
        for (uint32_t c = 0; c < p->m[k].n_codes; c++) t[c] = pv->dict[p->m[k].codes[c]];
        t += p->m[k].n_codes;
        size_t ncode = (size_t)1 << p->m[k].code_bits;
        if (k) pv->ckind[k] = pv->ckind[k - 1] + ((size_t)1 << p->m[k - 1].code_bits);
        for (size_t c = 0; c < ncode; c++)
            pv->ckind[k][c] = c < p->m[k].n_codes ? (uint8_t)pv->ctab[k][c].kind
                            : c == p->m[k].esc_code ? K_ESC : K_BAD;
    }
    p->priv_ = pv;
    return CUZK_OK;
}

/* --------------------------------------------------------------- open -- */

static int fr_canonical(const cuzk_fr *v)
{
    for (int i = CUZK_FR_LIMBS - 1; i >= 0; i--)
        if (v->l[i] != CUZK_FR_MODULUS[i]) return v->l[i] < CUZK_FR_MODULUS[i];
    return 0;
}

/* Full check of every block of every matrix, in parallel. Each worker keeps
 * the first failure of its range; the lowest one is reported. */
struct check_job {
    const cuzk_pce *p;
    uint64_t *dens[2];       /* recomputed densities (atomic OR) */
    unsigned parts;
    struct {
        uint64_t blk;        /* UINT64_MAX: no failure */
        int mat;
        char msg[160];
    } fail[256];
};

static void set_bit_atomic(uint64_t *bm, uint32_t col)
{
    uint64_t bit = (uint64_t)1 << (col & 63);
    uint64_t *w = &bm[col >> 6];
    if (!(__atomic_load_n(w, __ATOMIC_RELAXED) & bit)) __atomic_fetch_or(w, bit, __ATOMIC_RELAXED);
}

static int check_block(struct check_job *j, int k, uint64_t blk, char *msg, size_t cap)
{
    const cuzk_pce *p = j->p;
    const cuzk_pce_matrix *m = &p->m[k];
    const cuzk_pce_block *b0 = &m->blocks[blk], *b1 = &m->blocks[blk + 1];
    uint64_t r0 = blk * CUZK_PCE_BLOCK_ROWS, r1 = r0 + CUZK_PCE_BLOCK_ROWS;
    if (r1 > p->n_rows) r1 = p->n_rows;
    uint32_t mark = (1u << m->len_bits) - 1;
    uint64_t lng = b0->lng, terms = 0;
    for (uint64_t r = r0; r < r1; r++) {
        uint32_t f = pce_len_field(m, r);
        if (f == mark) {
            if (lng >= b1->lng) {
                snprintf(msg, cap, "row %llu needs a long-row entry beyond its block's",
                         (unsigned long long)r);
                return 0;
            }
            uint32_t L = m->longs[lng++];
            if (L < mark) {
                snprintf(msg, cap, "row %llu: long-row length %u is below %u",
                         (unsigned long long)r, L, mark);
                return 0;
            }
            terms += L;
        } else {
            terms += f;
        }
    }
    if (lng != b1->lng) {
        snprintf(msg, cap, "block %llu uses %llu long rows, its records say %llu",
                 (unsigned long long)blk, (unsigned long long)(lng - b0->lng),
                 (unsigned long long)(b1->lng - b0->lng));
        return 0;
    }
    if (terms != b1->term - b0->term) {
        snprintf(msg, cap, "block %llu: row lengths sum to %llu terms, its records say %llu",
                 (unsigned long long)blk, (unsigned long long)terms,
                 (unsigned long long)(b1->term - b0->term));
        return 0;
    }
    uint64_t esc = b0->esc;
    for (uint64_t t = b0->term; t < b1->term; t++) {
        uint32_t col, code = pce_term(m, t, &col), d;
        if (col >= p->n_cols) {
            snprintf(msg, cap, "block %llu, term %llu: column %u out of range (%llu columns)",
                     (unsigned long long)blk, (unsigned long long)t, col,
                     (unsigned long long)p->n_cols);
            return 0;
        }
        if (code == m->esc_code) {
            if (esc >= b1->esc) {
                snprintf(msg, cap, "block %llu has more escaped terms than its records say",
                         (unsigned long long)blk);
                return 0;
            }
            d = m->esc[esc++];
            if (d >= p->n_coeffs) {
                snprintf(msg, cap, "escape %llu: coefficient %u out of range (%llu)",
                         (unsigned long long)(esc - 1), d, (unsigned long long)p->n_coeffs);
                return 0;
            }
        } else if (code >= m->n_codes) {
            snprintf(msg, cap, "block %llu, term %llu: code %u out of range (%u codes)",
                     (unsigned long long)blk, (unsigned long long)t, code, m->n_codes);
            return 0;
        }
        if (k < 2) set_bit_atomic(j->dens[k], col);
    }
    if (esc != b1->esc) {
        snprintf(msg, cap, "block %llu has %llu escaped terms, its records say %llu",
                 (unsigned long long)blk, (unsigned long long)(esc - b0->esc),
                 (unsigned long long)(b1->esc - b0->esc));
        return 0;
    }
    return 1;
}

static void check_range(void *ctx, size_t b, size_t e)
{
    struct check_job *j = ctx;
    for (size_t part = b; part < e; part++) {
        uint64_t nb = j->p->n_blocks;
        uint64_t lo = nb * part / j->parts, hi = nb * (part + 1) / j->parts;
        for (uint64_t blk = lo; blk < hi; blk++)
            for (int k = 0; k < 3; k++)
                if (!check_block(j, k, blk, j->fail[part].msg, sizeof j->fail[part].msg)) {
                    j->fail[part].blk = blk;
                    j->fail[part].mat = k;
                    goto next;
                }
    next:;
    }
}

static uint64_t popcount_range(const uint64_t *bm, uint64_t lo, uint64_t hi)
{
    uint64_t n = 0;
    for (uint64_t i = lo; i < hi; i++) n += (bm[i >> 6] >> (i & 63)) & 1;
    return n;
}

static uint64_t popcount_cols(const uint64_t *bm, uint64_t lo, uint64_t hi)
{
    uint64_t n = 0, a = (lo + 63) & ~(uint64_t)63, z = hi & ~(uint64_t)63;
    if (a >= z) return popcount_range(bm, lo, hi);
    n += popcount_range(bm, lo, a) + popcount_range(bm, z, hi);
    for (uint64_t w = a / 64; w < z / 64; w++) n += (uint64_t)__builtin_popcountll(bm[w]);
    return n;
}

/* Everything but the terms: header fields, layout, hashes, coefficients,
 * codes, block records, density bitmaps. */
static cuzk_status check_structure(const uint8_t *data, size_t size, unsigned flags,
                                   unsigned nthreads, pce_header *h, char *err)
{
    if (size >= 8 && memcmp(data, PCE_MAGIC, 8) != 0)
        return pce_fail(err, CUZK_ERR_BAD_ENCODING, "not a cuzk PCE file (bad magic)");
    if (size < PCE_HEADER_BYTES)
        return pce_fail(err, CUZK_ERR_TRUNCATED, "%zu bytes, shorter than the %u-byte header",
                        size, PCE_HEADER_BYTES);
    pce_header_read(h, data);
    if (h->version != CUZK_PCE_VERSION)
        return pce_fail(err, CUZK_ERR_BAD_ENCODING, "version %u; this build reads version %u",
                        h->version, CUZK_PCE_VERSION);
    if (h->header_bytes != PCE_HEADER_BYTES)
        return pce_fail(err, CUZK_ERR_BAD_ENCODING, "header size %u, expected %u",
                        h->header_bytes, PCE_HEADER_BYTES);
    if (!(flags & CUZK_PCE_SKIP_HASH)) {
        uint8_t hdr[PCE_HEADER_BYTES];
        memcpy(hdr, data, sizeof hdr);
        memset(hdr + H_HEADER_HASH, 0, 8);
        if (cuzk_xxh64(hdr, sizeof hdr, 0) != h->header_hash)
            return pce_fail(err, CUZK_ERR_BAD_ENCODING, "header checksum mismatch "
                            "(the header is corrupted)");
    }
    if (h->file_bytes > size)
        return pce_fail(err, CUZK_ERR_TRUNCATED, "the file is %zu bytes, its header says "
                        "%llu (truncated)", size, (unsigned long long)h->file_bytes);
    if (h->file_bytes < size)
        return pce_fail(err, CUZK_ERR_BAD_ENCODING, "%llu bytes after the end the header "
                        "gives (%llu)", (unsigned long long)(size - h->file_bytes),
                        (unsigned long long)h->file_bytes);
    if (h->block_rows != CUZK_PCE_BLOCK_ROWS)
        return pce_fail(err, CUZK_ERR_BAD_ENCODING, "block size %u rows, expected %u",
                        h->block_rows, CUZK_PCE_BLOCK_ROWS);
    if (h->flags & ~(uint32_t)(CUZK_PCE_HAS_C | CUZK_PCE_HAS_INPUT_ROWS))
        return pce_fail(err, CUZK_ERR_BAD_ENCODING, "unknown flags 0x%x", h->flags);
    for (unsigned i = H_END; i < PCE_HEADER_BYTES; i++)
        if (data[i])
            return pce_fail(err, CUZK_ERR_BAD_ENCODING, "reserved header byte %u is not zero", i);
    for (int k = 0; k < 3; k++)
        if (pce_rd32(data + H_MATRIX + M_BYTES * k + M_PAD))
            return pce_fail(err, CUZK_ERR_BAD_ENCODING, "%c: reserved field is not zero",
                            PCE_MAT_NAME[k]);
    if (h->n_inputs == 0)
        return pce_fail(err, CUZK_ERR_BAD_ENCODING, "no input columns (column 0 is ONE)");
    if (h->n_inputs > ((uint64_t)1 << 32) || h->n_aux > ((uint64_t)1 << 32) - h->n_inputs)
        return pce_fail(err, CUZK_ERR_BAD_ENCODING, "%llu + %llu columns exceed 2^32",
                        (unsigned long long)h->n_inputs, (unsigned long long)h->n_aux);
    if (h->n_coeffs < 2)
        return pce_fail(err, CUZK_ERR_BAD_ENCODING, "%llu coefficients; 1 and -1 must be there",
                        (unsigned long long)h->n_coeffs);
    uint64_t n_cols = h->n_inputs + h->n_aux;
    uint32_t col_bits = pce_bits_for(n_cols - 1);
    for (int k = 0; k < 3; k++) {
        char M = PCE_MAT_NAME[k];
        if (h->m[k].col_bits != col_bits)
            return pce_fail(err, CUZK_ERR_BAD_ENCODING, "%c: %u column bits, expected %u for "
                            "%llu columns", M, h->m[k].col_bits, col_bits,
                            (unsigned long long)n_cols);
        uint32_t cb = h->m[k].code_bits, lb = h->m[k].len_bits;
        if (cb > PCE_MAX_CODE_BITS)
            return pce_fail(err, CUZK_ERR_BAD_ENCODING, "%c: %u code bits (at most %u)", M, cb,
                            PCE_MAX_CODE_BITS);
        if (lb != 1 && lb != 2 && lb != 4 && lb != 8)
            return pce_fail(err, CUZK_ERR_BAD_ENCODING, "%c: row-length width %u bits (1, 2, 4 "
                            "or 8)", M, lb);
        uint32_t esc = h->m[k].esc_code;
        if (esc == CUZK_PCE_NO_ESCAPE) {
            if (h->m[k].n_codes > (1u << cb))
                return pce_fail(err, CUZK_ERR_BAD_ENCODING, "%c: %u codes do not fit %u bits",
                                M, h->m[k].n_codes, cb);
            if (h->m[k].n_esc)
                return pce_fail(err, CUZK_ERR_BAD_ENCODING, "%c: escaped terms without an "
                                "escape code", M);
        } else if (esc != (1u << cb) - 1 || h->m[k].n_codes > esc) {
            return pce_fail(err, CUZK_ERR_BAD_ENCODING, "%c: escape code %u with %u codes of "
                            "%u bits", M, esc, h->m[k].n_codes, cb);
        }
    }
    if (!(h->flags & CUZK_PCE_HAS_C) && h->m[2].nnz)
        return pce_fail(err, CUZK_ERR_BAD_ENCODING, "C has terms but the header says no C");
    uint64_t off[S_COUNT], sz[S_COUNT], fb;
    const char *what;
    if (!pce_layout(h, h->file_bytes, off, sz, &fb, &what))
        return pce_fail(err, CUZK_ERR_TRUNCATED, "%s do not fit in the %llu-byte file", what,
                        (unsigned long long)h->file_bytes);
    for (unsigned s = 0; s < S_COUNT; s++)
        if (off[s] != h->off[s])
            return pce_fail(err, CUZK_ERR_BAD_ENCODING, "section %s at offset %llu, expected "
                            "%llu", pce_section_name(s), (unsigned long long)h->off[s],
                            (unsigned long long)off[s]);
    if (fb != h->file_bytes)
        return pce_fail(err, CUZK_ERR_BAD_ENCODING, "file size %llu, the sections give %llu",
                        (unsigned long long)h->file_bytes, (unsigned long long)fb);
    if (!(flags & CUZK_PCE_SKIP_HASH)) {
        uint64_t bh;
        if (cuzk_body_hash(&bh, data + PCE_HEADER_BYTES, size - PCE_HEADER_BYTES, nthreads) !=
            CUZK_OK)
            return pce_fail(err, CUZK_ERR_NO_MEMORY, "out of memory (body checksum)");
        if (bh != h->body_hash)
            return pce_fail(err, CUZK_ERR_BAD_ENCODING, "body checksum mismatch (the file is "
                            "corrupted)");
    }
    /* Coefficients. */
    const cuzk_fr *cf = (const cuzk_fr *)(data + off[S_COEFFS]);
    cuzk_fr m1;
    cuzk_fr_neg(&m1, &CUZK_FR_ONE);
    if (!cuzk_fr_eq(&cf[0], &CUZK_FR_ONE) || !cuzk_fr_eq(&cf[1], &m1))
        return pce_fail(err, CUZK_ERR_BAD_ENCODING, "coefficients 0 and 1 are not 1 and -1");
    for (uint64_t i = 2; i < h->n_coeffs; i++) {
        if (!fr_canonical(&cf[i]))
            return pce_fail(err, CUZK_ERR_NOT_CANONICAL, "coefficient %llu is not below r",
                            (unsigned long long)i);
        if (cuzk_fr_is_zero(&cf[i]))
            return pce_fail(err, CUZK_ERR_BAD_ENCODING, "coefficient %llu is zero",
                            (unsigned long long)i);
    }
    /* Codes and block records. */
    uint64_t nb = pce_n_blocks(h->n_rows);
    for (int k = 0; k < 3; k++) {
        const uint64_t *o = &off[S_MAT + S_PER_MAT * k];
        const uint32_t *codes = (const uint32_t *)(data + o[SM_CODES]);
        for (uint32_t c = 0; c < h->m[k].n_codes; c++)
            if (codes[c] >= h->n_coeffs)
                return pce_fail(err, CUZK_ERR_BAD_ENCODING, "%c: code %u names coefficient %u "
                                "of %llu", PCE_MAT_NAME[k], c, codes[c],
                                (unsigned long long)h->n_coeffs);
        const cuzk_pce_block *bl = (const cuzk_pce_block *)(data + o[SM_BLOCKS]);
        if (bl[0].term || bl[0].esc || bl[0].lng)
            return pce_fail(err, CUZK_ERR_BAD_ENCODING, "%c: block 0 does not start at 0",
                            PCE_MAT_NAME[k]);
        for (uint64_t i = 0; i < nb; i++)
            if (bl[i + 1].term < bl[i].term || bl[i + 1].esc < bl[i].esc ||
                bl[i + 1].lng < bl[i].lng)
                return pce_fail(err, CUZK_ERR_BAD_ENCODING, "%c: block records %llu and %llu "
                                "go backwards", PCE_MAT_NAME[k], (unsigned long long)i,
                                (unsigned long long)i + 1);
        if (bl[nb].term != h->m[k].nnz || bl[nb].esc != h->m[k].n_esc ||
            bl[nb].lng != h->m[k].n_long)
            return pce_fail(err, CUZK_ERR_BAD_ENCODING, "%c: block totals do not match the "
                            "header's counts", PCE_MAT_NAME[k]);
        if (h->m[k].n_long > h->n_rows)
            return pce_fail(err, CUZK_ERR_BAD_ENCODING, "%c: more long rows than rows",
                            PCE_MAT_NAME[k]);
    }
    /* Density bitmaps: nothing past n_cols, counts as stated. */
    for (int k = 0; k < 2; k++) {
        const uint64_t *bm = (const uint64_t *)(data + off[S_DENS_A + k]);
        if (n_cols % 64 && (bm[n_cols / 64] >> (n_cols % 64)))
            return pce_fail(err, CUZK_ERR_BAD_ENCODING, "%c density has bits past column %llu",
                            PCE_MAT_NAME[k], (unsigned long long)n_cols);
        if (popcount_cols(bm, 0, h->n_inputs) != h->dens_count[k][0] ||
            popcount_cols(bm, h->n_inputs, n_cols) != h->dens_count[k][1])
            return pce_fail(err, CUZK_ERR_BAD_ENCODING, "%c density counts do not match its "
                            "bitmap", PCE_MAT_NAME[k]);
    }
    return CUZK_OK;
}

static void priv_release(pce_priv *pv)
{
    if (!pv) return;
    free(pv->dict);
    free(pv->ckind[0]);
    if (pv->own == 1 && pv->map) munmap(pv->map, pv->map_len);
    if (pv->own == 2) cuzk_blob_release(&pv->blob);
    free(pv);
}

cuzk_status cuzk_pce_open(cuzk_pce *p, const uint8_t *data, size_t size, unsigned flags,
                          unsigned nthreads, char *err)
{
    if (err) err[0] = 0;
    if (!p) return pce_fail(err, CUZK_ERR_INVALID_ARGUMENT, "NULL argument");
    memset(p, 0, sizeof *p);
    if (!data && size) return pce_fail(err, CUZK_ERR_INVALID_ARGUMENT, "NULL argument");
    /* Before the alignment: an empty file's buffer is anything. */
    if (size == 0) return pce_fail(err, CUZK_ERR_TRUNCATED, "empty file");
    if ((uintptr_t)data % 8)
        return pce_fail(err, CUZK_ERR_INVALID_ARGUMENT, "the buffer is not 8-byte aligned");
    if (nthreads == 0) nthreads = cuzk_ncores();
    pce_header h;
    cuzk_status s = check_structure(data, size, flags, nthreads, &h, err);
    if (s != CUZK_OK) return s;
    pce_priv *pv = calloc(1, sizeof *pv);
    if (!pv) return pce_fail(err, CUZK_ERR_NO_MEMORY, "out of memory");
    p->image = data;
    p->image_size = size;
    if ((s = pce_bind(p, &h, pv, err)) != CUZK_OK) {
        priv_release(pv);
        memset(p, 0, sizeof *p);
        return s;
    }
    if (!(flags & CUZK_PCE_TRUST)) {
        struct check_job *j = calloc(1, sizeof *j);
        uint64_t words = p->n_cols / 64 + (p->n_cols % 64 != 0);
        uint64_t *d = calloc(2 * words + 1, 8);
        if (!j || !d) {
            free(j);
            free(d);
            cuzk_pce_free(p);
            return pce_fail(err, CUZK_ERR_NO_MEMORY, "out of memory (checking terms)");
        }
        j->p = p;
        j->dens[0] = d;
        j->dens[1] = d + words;
        unsigned parts = nthreads > 256 ? 256 : nthreads;
        if (parts > p->n_blocks) parts = p->n_blocks ? (unsigned)p->n_blocks : 1;
        j->parts = parts;
        for (unsigned i = 0; i < parts; i++) j->fail[i].blk = UINT64_MAX;
        cuzk_parallel_for(parts, 1, parts, check_range, j);
        int worst = -1;
        for (unsigned i = 0; i < parts; i++)
            if (j->fail[i].blk != UINT64_MAX && (worst < 0 || j->fail[i].blk < j->fail[worst].blk))
                worst = (int)i;
        if (worst >= 0) {
            s = pce_fail(err, CUZK_ERR_BAD_ENCODING, "%c: %s", PCE_MAT_NAME[j->fail[worst].mat],
                         j->fail[worst].msg);
        } else {
            for (int k = 0; k < 2 && s == CUZK_OK; k++)
                if (memcmp(j->dens[k], p->density[k], words * 8))
                    s = pce_fail(err, CUZK_ERR_BAD_ENCODING, "%c density does not match the "
                                 "matrix's columns", PCE_MAT_NAME[k]);
        }
        free(j);
        free(d);
        if (s != CUZK_OK) {
            cuzk_pce_free(p);
            return s;
        }
    }
    return CUZK_OK;
}

cuzk_status cuzk_pce_load(cuzk_pce *p, const char *path, unsigned flags, unsigned nthreads,
                          char *err)
{
    if (err) err[0] = 0;
    if (!p || !path) return pce_fail(err, CUZK_ERR_INVALID_ARGUMENT, "NULL argument");
    memset(p, 0, sizeof *p);
    cuzk_blob b;
    cuzk_status s = cuzk_blob_map(&b, path, err);
    if (s != CUZK_OK) return s;
    if ((s = cuzk_pce_open(p, b.data, b.size, flags, nthreads, err)) != CUZK_OK) {
        cuzk_blob_release(&b);
        if (err) { /* name the file */
            size_t n = strlen(err);
            if (n + 4 < CUZK_ERRMSG_LEN) snprintf(err + n, CUZK_ERRMSG_LEN - n, " (%s)", path);
        }
        return s;
    }
    pce_priv *pv = p->priv_;
    pv->own = 2;
    pv->blob = b;
    return CUZK_OK;
}

cuzk_status cuzk_pce_save(const cuzk_pce *p, const char *path, char *err)
{
    if (err) err[0] = 0;
    if (!p || !p->image || !path) return pce_fail(err, CUZK_ERR_INVALID_ARGUMENT, "NULL argument");
    return cuzk_file_write(path, p->image, p->image_size, err);
}

void cuzk_pce_free(cuzk_pce *p)
{
    if (!p) return;
    priv_release(p->priv_);
    memset(p, 0, sizeof *p);
}

uint64_t cuzk_pce_nnz(const cuzk_pce *p)
{
    return p ? p->m[0].nnz + p->m[1].nnz + p->m[2].nnz : 0;
}

double cuzk_pce_bytes_per_nnz(const cuzk_pce *p)
{
    uint64_t n = cuzk_pce_nnz(p);
    return n ? (double)p->image_size / (double)n : 0.0;
}

/* --------------------------------------------------------- decompile -- */

void cuzk_pce_matrices_free(cuzk_matrices *m)
{
    if (!m) return;
    cuzk_sparse *s[3] = {&m->a, &m->b, &m->c};
    for (int k = 0; k < 3; k++) {
        free(s[k]->row_start);
        free(s[k]->wire);
        free(s[k]->coeff);
    }
    free(m->coeffs);
    memset(m, 0, sizeof *m);
}

cuzk_status cuzk_pce_to_matrices(const cuzk_pce *p, cuzk_matrices *m, char *err)
{
    if (err) err[0] = 0;
    if (!m) return pce_fail(err, CUZK_ERR_INVALID_ARGUMENT, "NULL argument");
    memset(m, 0, sizeof *m);
    if (!p || !p->priv_) return pce_fail(err, CUZK_ERR_INVALID_ARGUMENT, "NULL argument");
    if (p->n_coeffs > UINT32_MAX || p->n_rows >= SIZE_MAX / 8)
        return pce_fail(err, CUZK_ERR_INVALID_ARGUMENT, "too big for cuzk_matrices");
    m->n_rows = p->n_rows;
    m->n_coeffs = (uint32_t)p->n_coeffs;
    m->coeffs = malloc((size_t)p->n_coeffs * sizeof *m->coeffs);
    if (!m->coeffs) goto oom;
    memcpy(m->coeffs, p->coeffs, (size_t)p->n_coeffs * sizeof *m->coeffs);
    cuzk_sparse *s[3] = {&m->a, &m->b, &m->c};
    for (int k = 0; k < 3; k++) {
        if (k == 2 && !(p->flags & CUZK_PCE_HAS_C)) break;
        const cuzk_pce_matrix *pm = &p->m[k];
        s[k]->n_terms = pm->nnz;
        s[k]->row_start = malloc((size_t)(p->n_rows + 1) * sizeof(uint64_t));
        s[k]->wire = malloc((size_t)(pm->nnz ? pm->nnz : 1) * sizeof(uint32_t));
        s[k]->coeff = malloc((size_t)(pm->nnz ? pm->nnz : 1) * sizeof(uint32_t));
        if (!s[k]->row_start || !s[k]->wire || !s[k]->coeff) goto oom;
        uint64_t t = 0;
        s[k]->row_start[0] = 0;
        for (uint64_t blk = 0; blk < p->n_blocks; blk++) {
            pce_cursor c;
            pce_cursor_at_block(&c, pm, blk);
            uint64_t r1 = c.row + CUZK_PCE_BLOCK_ROWS;
            if (r1 > p->n_rows) r1 = p->n_rows;
            for (; c.row < r1; c.row++) {
                uint64_t len = pce_cursor_len(&c);
                for (uint64_t i = 0; i < len; i++, t++) pce_cursor_next(&c, &s[k]->wire[t], &s[k]->coeff[t]);
                s[k]->row_start[c.row + 1] = t;
            }
        }
    }
    return CUZK_OK;
oom:
    cuzk_pce_matrices_free(m);
    return pce_fail(err, CUZK_ERR_NO_MEMORY, "out of memory (decompiling)");
}
