/* Compiling cuzk_matrices into the PCE form (include/cuzk/pce.h).
 *
 * Four passes over the rows, each split into contiguous block ranges, one
 * per thread:
 *   1. check the CSR input and count, per matrix, the terms of every
 *      coefficient slot and how many rows reach each row-length width;
 *   -  (serial) build the dictionary of distinct nonzero values, pick each
 *      matrix's codes (most frequent values first) and code/length widths by
 *      size;
 *   2. count terms, escapes and long rows per 256-row block -> block records;
 *   3. write row lengths, long rows, terms, escapes and densities straight
 *      into the image (anonymous memory, zero-filled), each thread its own
 *      blocks; bit-packed words shared by two threads are OR-ed atomically.
 * Then the header and the hashes. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "common/parallel.h"
#include "r1cs/pce_internal.h"

#define DROP 0xffffffffu
#define MAX_PARTS 256
#define LOCAL_SLOTS 16384 /* per-thread histogram slots; rarer slots count atomically */

typedef struct {
    const cuzk_matrices *m;
    const cuzk_sparse *src[3]; /* NULL: absent (no terms) */
    uint64_t n_rows_in, n_rows, n_inputs, n_cols, nb;
    unsigned parts;
    uint8_t *slot_zero;   /* n_coeffs */
    uint32_t *slot_dict;  /* n_coeffs -> dictionary index, DROP for zero */
    uint64_t nloc;
    uint64_t *hist;       /* parts x 3 x nloc */
    uint64_t *hist_big;   /* 3 x n_coeffs (slots >= nloc), atomic; NULL if none */
    uint64_t lencls[MAX_PARTS][3][4]; /* rows with length >= 1, 3, 15, 255 */
    uint64_t rows_nnz[MAX_PARTS][3];
    struct {
        uint64_t row;     /* UINT64_MAX: fine */
        char msg[160];
    } fail[MAX_PARTS];
    /* codes */
    uint32_t *code_of[3]; /* dictionary index -> code (esc_code when escaped) */
    uint32_t col_bits, code_bits[3], esc_code[3], len_bits[3];
    cuzk_pce_block *blk[3]; /* nb + 1 records (counts, then prefix sums) */
    /* image */
    uint8_t *img;
    uint64_t off[S_COUNT];
} cjob;

/* Rows [lo, hi) of part i. */
static void part_rows(const cjob *j, unsigned i, uint64_t *lo, uint64_t *hi, uint64_t *b0,
                      uint64_t *b1)
{
    *b0 = j->nb * i / j->parts;
    *b1 = j->nb * (i + 1) / j->parts;
    *lo = *b0 * CUZK_PCE_BLOCK_ROWS;
    *hi = *b1 * CUZK_PCE_BLOCK_ROWS;
    if (*hi > j->n_rows) *hi = j->n_rows;
}

/* Source span of row r of matrix k: returns 1 and [*b, *e) for a CSR row,
 * 0 for an input row (one term, column r - n_rows_in, coefficient 1, only
 * in A) or an absent matrix (*b = *e = 0). */
static inline int row_span(const cjob *j, int k, uint64_t r, uint64_t *b, uint64_t *e)
{
    *b = *e = 0;
    if (r < j->n_rows_in) {
        if (!j->src[k]) return 0;
        *b = j->src[k]->row_start[r];
        *e = j->src[k]->row_start[r + 1];
        return 1;
    }
    if (k == 0) *e = 1; /* input row: one term */
    return 0;
}

/* ------------------------------------------------------------ pass 1 -- */

static void pass1_range(void *ctx, size_t pb, size_t pe)
{
    cjob *j = ctx;
    for (size_t part = pb; part < pe; part++) {
        uint64_t lo, hi, b0, b1;
        part_rows(j, (unsigned)part, &lo, &hi, &b0, &b1);
        uint64_t *loc = j->hist + (uint64_t)part * 3 * j->nloc;
        for (int k = 0; k < 3; k++) {
            const cuzk_sparse *s = j->src[k];
            uint64_t *h = loc + (uint64_t)k * j->nloc;
            uint64_t *cls = j->lencls[part][k], nnz = 0;
            for (uint64_t r = lo; r < hi; r++) {
                uint64_t b, e, len = 0;
                if (!row_span(j, k, r, &b, &e)) {
                    len = e; /* an input row (counted as dictionary 0 later) or none */
                } else {
                    if (e < b || e > s->n_terms) {
                        if (j->fail[part].row == UINT64_MAX) {
                            j->fail[part].row = r;
                            snprintf(j->fail[part].msg, sizeof j->fail[part].msg,
                                     "%c row %llu: offsets %llu..%llu are not inside 0..%llu",
                                     PCE_MAT_NAME[k], (unsigned long long)r,
                                     (unsigned long long)b, (unsigned long long)e,
                                     (unsigned long long)s->n_terms);
                        }
                        goto next_part;
                    }
                    for (uint64_t t = b; t < e; t++) {
                        uint32_t w = s->wire[t], c = s->coeff[t];
                        if (w >= j->n_cols || c >= j->m->n_coeffs) {
                            if (j->fail[part].row == UINT64_MAX) {
                                j->fail[part].row = r;
                                if (w >= j->n_cols)
                                    snprintf(j->fail[part].msg, sizeof j->fail[part].msg,
                                             "%c row %llu: wire %u out of range (%llu columns)",
                                             PCE_MAT_NAME[k], (unsigned long long)r, w,
                                             (unsigned long long)j->n_cols);
                                else
                                    snprintf(j->fail[part].msg, sizeof j->fail[part].msg,
                                             "%c row %llu: coefficient index %u out of range "
                                             "(%u)", PCE_MAT_NAME[k], (unsigned long long)r, c,
                                             j->m->n_coeffs);
                            }
                            goto next_part;
                        }
                        if (j->slot_zero[c]) continue;
                        len++;
                        if (c < j->nloc)
                            h[c]++;
                        else
                            __atomic_fetch_add(&j->hist_big[(uint64_t)k * j->m->n_coeffs + c], 1,
                                               __ATOMIC_RELAXED);
                    }
                    if (len >= ((uint64_t)1 << 32)) {
                        if (j->fail[part].row == UINT64_MAX) {
                            j->fail[part].row = r;
                            snprintf(j->fail[part].msg, sizeof j->fail[part].msg,
                                     "%c row %llu has 2^32 terms or more", PCE_MAT_NAME[k],
                                     (unsigned long long)r);
                        }
                        goto next_part;
                    }
                }
                nnz += len;
                cls[0] += len >= 1;
                cls[1] += len >= 3;
                cls[2] += len >= 15;
                cls[3] += len >= 255;
            }
            j->rows_nnz[part][k] = nnz;
        }
    next_part:;
    }
}

/* ------------------------------------------------------ dictionary -- */

typedef struct {
    cuzk_fr *v;
    uint64_t n, cap;
    uint32_t *slot; /* index + 1, 0 empty */
    uint64_t nslot;
} dict_t;

static uint64_t fr_hash(const cuzk_fr *v) { return cuzk_xxh64(v, sizeof *v, 0x5eed); }

static int dict_grow(dict_t *d)
{
    uint64_t ns = d->nslot ? d->nslot * 2 : 64;
    uint32_t *s = calloc(ns, sizeof *s);
    if (!s) return 0;
    for (uint64_t i = 0; i < d->n; i++) {
        uint64_t h = fr_hash(&d->v[i]) & (ns - 1);
        while (s[h]) h = (h + 1) & (ns - 1);
        s[h] = (uint32_t)i + 1;
    }
    free(d->slot);
    d->slot = s;
    d->nslot = ns;
    return 1;
}

/* Index of v, inserted if new; UINT32_MAX when out of memory. */
static uint32_t dict_intern(dict_t *d, const cuzk_fr *v)
{
    if ((d->n + 1) * 2 > d->nslot && !dict_grow(d)) return UINT32_MAX;
    uint64_t h = fr_hash(v) & (d->nslot - 1);
    while (d->slot[h]) {
        if (!memcmp(&d->v[d->slot[h] - 1], v, sizeof *v)) return d->slot[h] - 1;
        h = (h + 1) & (d->nslot - 1);
    }
    if (d->n == d->cap) {
        uint64_t cap = d->cap ? d->cap * 2 : 64;
        cuzk_fr *nv = realloc(d->v, cap * sizeof *nv);
        if (!nv) return UINT32_MAX;
        d->v = nv;
        d->cap = cap;
    }
    d->v[d->n] = *v;
    d->slot[h] = (uint32_t)d->n + 1;
    return (uint32_t)d->n++;
}

/* ------------------------------------------------------------ codes -- */

typedef struct {
    uint64_t count;
    uint32_t dict;
} freq_t;

static int freq_cmp(const void *x, const void *y)
{
    const freq_t *a = x, *b = y;
    if (a->count != b->count) return a->count > b->count ? -1 : 1;
    return a->dict < b->dict ? -1 : a->dict > b->dict;
}

/* Picks the code width minimising nnz * code_bits + escapes * 32 bits;
 * fills code_of[dict] and *tab (code -> dictionary index, malloc'd).
 * Returns the number of codes, or -1 when out of memory. */
static int64_t choose_codes(cjob *j, int k, const uint64_t *cnt, uint64_t n_dict, uint64_t nnz,
                            uint32_t **tab)
{
    freq_t *f = malloc((n_dict ? n_dict : 1) * sizeof *f);
    j->code_of[k] = malloc((n_dict ? n_dict : 1) * sizeof(uint32_t));
    *tab = malloc(((uint64_t)1 << PCE_MAX_CODE_BITS) * sizeof(uint32_t));
    if (!f || !j->code_of[k] || !*tab) {
        free(f);
        return -1;
    }
    uint64_t D = 0;
    for (uint64_t d = 0; d < n_dict; d++)
        if (cnt[d]) f[D++] = (freq_t){cnt[d], (uint32_t)d};
    qsort(f, D, sizeof *f, freq_cmp);
    uint64_t best_bits = UINT64_MAX, covered = 0, ncov = 0;
    uint32_t best_cb = 0, best_codes = 0, best_esc = CUZK_PCE_NO_ESCAPE;
    for (uint32_t cb = 0; cb <= PCE_MAX_CODE_BITS; cb++) {
        uint64_t cap = (uint64_t)1 << cb, esc_terms = 0, ncodes = D;
        uint32_t esc = CUZK_PCE_NO_ESCAPE;
        if (D > cap) { /* the 2^cb - 1 most frequent values get codes */
            ncodes = cap - 1;
            while (ncov < ncodes) covered += f[ncov++].count;
            esc_terms = nnz - covered;
            esc = (uint32_t)(cap - 1);
        }
        uint64_t bits = nnz * cb + esc_terms * 32;
        if (bits < best_bits) {
            best_bits = bits;
            best_cb = cb;
            best_codes = (uint32_t)ncodes;
            best_esc = esc;
        }
        if (D <= cap) break; /* wider codes only cost more */
    }
    j->code_bits[k] = best_cb;
    j->esc_code[k] = best_esc;
    for (uint64_t d = 0; d < n_dict; d++) j->code_of[k][d] = best_esc;
    for (uint32_t c = 0; c < best_codes; c++) {
        j->code_of[k][f[c].dict] = c;
        (*tab)[c] = f[c].dict;
    }
    free(f);
    return best_codes;
}

/* ------------------------------------------------------------ pass 2 -- */

static void pass2_range(void *ctx, size_t pb, size_t pe)
{
    cjob *j = ctx;
    for (size_t part = pb; part < pe; part++) {
        uint64_t lo, hi, b0, b1;
        part_rows(j, (unsigned)part, &lo, &hi, &b0, &b1);
        for (int k = 0; k < 3; k++) {
            const cuzk_sparse *s = j->src[k];
            uint64_t mark = ((uint64_t)1 << j->len_bits[k]) - 1;
            for (uint64_t blk = b0; blk < b1; blk++) {
                uint64_t r0 = blk * CUZK_PCE_BLOCK_ROWS, r1 = r0 + CUZK_PCE_BLOCK_ROWS;
                if (r1 > j->n_rows) r1 = j->n_rows;
                uint64_t terms = 0, esc = 0, lng = 0;
                for (uint64_t r = r0; r < r1; r++) {
                    uint64_t b, e, len = 0;
                    if (row_span(j, k, r, &b, &e)) {
                        for (uint64_t t = b; t < e; t++) {
                            uint32_t d = j->slot_dict[s->coeff[t]];
                            if (d == DROP) continue;
                            len++;
                            esc += j->code_of[k][d] == j->esc_code[k];
                        }
                    } else if (e) {
                        len = 1;
                        esc += j->code_of[k][0] == j->esc_code[k];
                    }
                    terms += len;
                    lng += len >= mark;
                }
                j->blk[k][blk + 1] = (cuzk_pce_block){terms, esc, lng};
            }
        }
    }
}

/* ------------------------------------------------------------ pass 3 -- */

typedef struct {
    uint64_t *words;
    uint64_t word, cur, first;
    unsigned off, w;
} bitw;

static inline void bw_flush(bitw *b)
{
    if (b->first) {
        __atomic_fetch_or(&b->words[b->word], b->cur, __ATOMIC_RELAXED);
        b->first = 0;
    } else {
        b->words[b->word] = b->cur;
    }
}

static inline void bw_put(bitw *b, uint64_t v)
{
    b->cur |= v << b->off;
    b->off += b->w;
    if (b->off >= 64) {
        bw_flush(b);
        b->word++;
        b->off -= 64;
        b->cur = b->off ? v >> (b->w - b->off) : 0;
    }
}

static inline void bw_finish(bitw *b)
{
    if (b->off) __atomic_fetch_or(&b->words[b->word], b->cur, __ATOMIC_RELAXED);
}

static inline void set_bit_atomic(uint64_t *bm, uint32_t col)
{
    uint64_t bit = (uint64_t)1 << (col & 63);
    uint64_t *w = &bm[col >> 6];
    if (!(__atomic_load_n(w, __ATOMIC_RELAXED) & bit)) __atomic_fetch_or(w, bit, __ATOMIC_RELAXED);
}

static void pass3_range(void *ctx, size_t pb, size_t pe)
{
    cjob *j = ctx;
    for (size_t part = pb; part < pe; part++) {
        uint64_t lo, hi, b0, b1;
        part_rows(j, (unsigned)part, &lo, &hi, &b0, &b1);
        if (lo >= hi) continue;
        for (int k = 0; k < 3; k++) {
            const cuzk_sparse *s = j->src[k];
            const uint64_t *o = &j->off[S_MAT + S_PER_MAT * k];
            uint8_t *lens = j->img + o[SM_LENS];
            uint32_t *longs = (uint32_t *)(j->img + o[SM_LONGS]);
            uint32_t *escs = (uint32_t *)(j->img + o[SM_ESC]);
            uint64_t *dens = k < 2 ? (uint64_t *)(j->img + j->off[S_DENS_A + k]) : NULL;
            uint32_t lb = j->len_bits[k], mark = (1u << lb) - 1, esc_code = j->esc_code[k];
            uint32_t cbits = j->col_bits;
            const uint32_t *code_of = j->code_of[k];
            uint64_t lng = j->blk[k][b0].lng, esc = j->blk[k][b0].esc;
            bitw bw = {(uint64_t *)(j->img + o[SM_TERMS]), 0, 0, 1, 0,
                       cbits + j->code_bits[k]};
            uint64_t bit0 = j->blk[k][b0].term * bw.w;
            bw.word = bit0 >> 6;
            bw.off = (unsigned)(bit0 & 63);
            for (uint64_t r = lo; r < hi; r++) {
                uint64_t b, e, len = 0;
                int csr = row_span(j, k, r, &b, &e);
                if (csr) {
                    for (uint64_t t = b; t < e; t++) len += j->slot_dict[s->coeff[t]] != DROP;
                } else {
                    len = e;
                }
                uint64_t bit = r * lb;
                lens[bit >> 3] |= (uint8_t)((len >= mark ? mark : len) << (bit & 7));
                if (len >= mark) longs[lng++] = (uint32_t)len;
                if (csr) {
                    for (uint64_t t = b; t < e; t++) {
                        uint32_t d = j->slot_dict[s->coeff[t]];
                        if (d == DROP) continue;
                        uint32_t col = s->wire[t], code = code_of[d];
                        if (code == esc_code) escs[esc++] = d;
                        bw_put(&bw, (uint64_t)col | (uint64_t)code << cbits);
                        if (dens) set_bit_atomic(dens, col);
                    }
                } else if (len) {
                    uint32_t col = (uint32_t)(r - j->n_rows_in), code = code_of[0];
                    if (code == esc_code) escs[esc++] = 0;
                    bw_put(&bw, (uint64_t)col | (uint64_t)code << cbits);
                    set_bit_atomic(dens, col);
                }
            }
            bw_finish(&bw);
        }
    }
}

/* ----------------------------------------------------------- compile -- */

static uint64_t popcount_cols(const uint64_t *bm, uint64_t lo, uint64_t hi)
{
    uint64_t n = 0;
    for (uint64_t i = lo; i < hi;) {
        if (!(i & 63) && i + 64 <= hi) {
            n += (uint64_t)__builtin_popcountll(bm[i >> 6]);
            i += 64;
        } else {
            n += (bm[i >> 6] >> (i & 63)) & 1;
            i++;
        }
    }
    return n;
}

static int fr_canonical(const cuzk_fr *v)
{
    for (int i = CUZK_FR_LIMBS - 1; i >= 0; i--)
        if (v->l[i] != CUZK_FR_MODULUS[i]) return v->l[i] < CUZK_FR_MODULUS[i];
    return 0;
}

static void cjob_free(cjob *j)
{
    free(j->slot_zero);
    free(j->slot_dict);
    free(j->hist);
    free(j->hist_big);
    for (int k = 0; k < 3; k++) {
        free(j->code_of[k]);
        free(j->blk[k]);
    }
    free(j);
}

/* Lowest failing row of pass 1, as an error; CUZK_OK if none. */
static cuzk_status pass1_status(const cjob *j, char *err)
{
    int worst = -1;
    for (unsigned i = 0; i < j->parts; i++)
        if (j->fail[i].row != UINT64_MAX && (worst < 0 || j->fail[i].row < j->fail[worst].row))
            worst = (int)i;
    if (worst < 0) return CUZK_OK;
    return pce_fail(err, CUZK_ERR_BAD_ENCODING, "compile: %s", j->fail[worst].msg);
}

/* Checks the arguments and the CSR offsets' ends; fills j's shape. */
static cuzk_status setup(cjob *j, const cuzk_matrices *m, uint64_t n_inputs, uint64_t n_aux,
                         unsigned flags, unsigned nthreads, char *err)
{
    if (flags & ~(unsigned)CUZK_PCE_INPUT_ROWS)
        return pce_fail(err, CUZK_ERR_INVALID_ARGUMENT, "unknown compile flags 0x%x", flags);
    if (n_inputs == 0)
        return pce_fail(err, CUZK_ERR_INVALID_ARGUMENT, "no input columns (column 0 is ONE)");
    if (n_inputs > ((uint64_t)1 << 32) || n_aux > ((uint64_t)1 << 32) - n_inputs)
        return pce_fail(err, CUZK_ERR_INVALID_ARGUMENT, "%llu + %llu columns exceed 2^32",
                        (unsigned long long)n_inputs, (unsigned long long)n_aux);
    if (m->n_coeffs && !m->coeffs)
        return pce_fail(err, CUZK_ERR_INVALID_ARGUMENT, "NULL coefficient table");
    j->m = m;
    j->n_rows_in = m->n_rows;
    j->n_rows = m->n_rows + ((flags & CUZK_PCE_INPUT_ROWS) ? n_inputs : 0);
    if (m->n_rows > ((uint64_t)1 << 40))
        return pce_fail(err, CUZK_ERR_INVALID_ARGUMENT, "%llu rows: too many",
                        (unsigned long long)m->n_rows);
    j->n_inputs = n_inputs;
    j->n_cols = n_inputs + n_aux;
    j->nb = pce_n_blocks(j->n_rows);
    j->parts = nthreads > MAX_PARTS ? MAX_PARTS : nthreads;
    if (j->parts > j->nb) j->parts = j->nb ? (unsigned)j->nb : 1;
    j->col_bits = pce_bits_for(j->n_cols - 1);
    const cuzk_sparse *srcs[3] = {&m->a, &m->b, &m->c};
    for (int k = 0; k < 3; k++) {
        const cuzk_sparse *s = srcs[k];
        if (!s->row_start) {
            if (s->n_terms)
                return pce_fail(err, CUZK_ERR_BAD_ENCODING, "%c has %llu terms but no rows",
                                PCE_MAT_NAME[k], (unsigned long long)s->n_terms);
            continue;
        }
        if (s->n_terms && (!s->wire || !s->coeff))
            return pce_fail(err, CUZK_ERR_INVALID_ARGUMENT, "%c: NULL term arrays",
                            PCE_MAT_NAME[k]);
        if (s->row_start[0] != 0 || s->row_start[j->n_rows_in] != s->n_terms)
            return pce_fail(err, CUZK_ERR_BAD_ENCODING, "%c: row offsets run %llu..%llu, not "
                            "0..%llu", PCE_MAT_NAME[k], (unsigned long long)s->row_start[0],
                            (unsigned long long)s->row_start[j->n_rows_in],
                            (unsigned long long)s->n_terms);
        j->src[k] = s;
    }
    return CUZK_OK;
}

cuzk_status cuzk_pce_compile(cuzk_pce *p, const cuzk_matrices *m, uint64_t n_inputs,
                             uint64_t n_aux, unsigned flags, unsigned nthreads, char *err)
{
    if (err) err[0] = 0;
    if (!p) return pce_fail(err, CUZK_ERR_INVALID_ARGUMENT, "NULL argument");
    memset(p, 0, sizeof *p);
    if (!m) return pce_fail(err, CUZK_ERR_INVALID_ARGUMENT, "NULL argument");
    if (nthreads == 0) nthreads = cuzk_ncores();

    cuzk_status st;
    dict_t d = {0};
    uint64_t *cnt[3] = {NULL, NULL, NULL}, *slot_cnt = NULL;
    uint32_t *code_tab[3] = {NULL, NULL, NULL};
    void *map = MAP_FAILED;
    pce_priv *pv = NULL;
    pce_header h;
    memset(&h, 0, sizeof h);
    cjob *j = calloc(1, sizeof *j);
    if (!j) return pce_fail(err, CUZK_ERR_NO_MEMORY, "out of memory");
    if ((st = setup(j, m, n_inputs, n_aux, flags, nthreads, err)) != CUZK_OK) goto out;

    /* Slots: canonical values, zeros. */
    uint32_t nco = m->n_coeffs;
    j->slot_zero = calloc(nco ? nco : 1, 1);
    j->slot_dict = malloc((nco ? nco : 1) * sizeof *j->slot_dict);
    j->nloc = nco < LOCAL_SLOTS ? nco : LOCAL_SLOTS;
    j->hist = calloc((size_t)j->parts * 3 * (j->nloc ? j->nloc : 1), sizeof *j->hist);
    if (nco > j->nloc) j->hist_big = calloc((size_t)3 * nco, sizeof *j->hist_big);
    slot_cnt = calloc((size_t)3 * (nco ? nco : 1), sizeof *slot_cnt);
    if (!j->slot_zero || !j->slot_dict || !j->hist || (nco > j->nloc && !j->hist_big) ||
        !slot_cnt)
        goto oom;
    for (uint32_t i = 0; i < nco; i++) {
        if (!fr_canonical(&m->coeffs[i])) {
            st = pce_fail(err, CUZK_ERR_NOT_CANONICAL, "coefficient %u is not below r", i);
            goto out;
        }
        j->slot_zero[i] = (uint8_t)cuzk_fr_is_zero(&m->coeffs[i]);
    }

    /* Pass 1: check, count. */
    for (unsigned i = 0; i < j->parts; i++) j->fail[i].row = UINT64_MAX;
    cuzk_parallel_for(j->parts, 1, j->parts, pass1_range, j);
    if ((st = pass1_status(j, err)) != CUZK_OK) goto out;

    /* Dictionary of the nonzero values in use: 1, -1, then by slot. */
    cuzk_fr m1;
    cuzk_fr_neg(&m1, &CUZK_FR_ONE);
    if (dict_intern(&d, &CUZK_FR_ONE) != 0 || dict_intern(&d, &m1) != 1) goto oom;
    for (int k = 0; k < 3; k++)
        for (uint32_t c = 0; c < nco; c++) {
            uint64_t v = 0;
            if (c < j->nloc)
                for (unsigned i = 0; i < j->parts; i++)
                    v += j->hist[((uint64_t)i * 3 + k) * j->nloc + c];
            else
                v = j->hist_big[(uint64_t)k * nco + c];
            slot_cnt[(uint64_t)k * nco + c] = v;
        }
    for (uint32_t c = 0; c < nco; c++) {
        j->slot_dict[c] = DROP;
        if (j->slot_zero[c]) continue;
        if (!(slot_cnt[c] | slot_cnt[(uint64_t)nco + c] | slot_cnt[2 * (uint64_t)nco + c]))
            continue;
        if ((j->slot_dict[c] = dict_intern(&d, &m->coeffs[c])) == UINT32_MAX) goto oom;
    }
    for (int k = 0; k < 3; k++) {
        if (!(cnt[k] = calloc(d.n, sizeof *cnt[k]))) goto oom;
        for (uint32_t c = 0; c < nco; c++)
            if (j->slot_dict[c] != DROP) cnt[k][j->slot_dict[c]] += slot_cnt[(uint64_t)k * nco + c];
    }
    cnt[0][0] += j->n_rows - j->n_rows_in; /* input rows: 1 * x_i in A */

    /* Codes and widths per matrix. */
    for (int k = 0; k < 3; k++) {
        uint64_t nnz = 0, cls[4] = {0, 0, 0, 0};
        for (unsigned i = 0; i < j->parts; i++) {
            nnz += j->rows_nnz[i][k];
            for (int c = 0; c < 4; c++) cls[c] += j->lencls[i][k][c];
        }
        int64_t nc = choose_codes(j, k, cnt[k], d.n, nnz, &code_tab[k]);
        if (nc < 0) goto oom;
        if (!(j->blk[k] = calloc(j->nb + 1, sizeof(cuzk_pce_block)))) goto oom;
        static const uint32_t LB[4] = {1, 2, 4, 8};
        uint64_t best = UINT64_MAX;
        for (int c = 0; c < 4; c++) { /* rows of length >= 2^lb - 1 go to the long table */
            uint64_t bits = j->n_rows * LB[c] + cls[c] * 32;
            if (bits < best) {
                best = bits;
                j->len_bits[k] = LB[c];
            }
        }
        h.m[k].nnz = nnz;
        h.m[k].col_bits = j->col_bits;
        h.m[k].code_bits = j->code_bits[k];
        h.m[k].esc_code = j->esc_code[k];
        h.m[k].n_codes = (uint32_t)nc;
        h.m[k].len_bits = j->len_bits[k];
    }

    /* Pass 2: block records. */
    cuzk_parallel_for(j->parts, 1, j->parts, pass2_range, j);
    for (int k = 0; k < 3; k++) {
        cuzk_pce_block *b = j->blk[k];
        for (uint64_t i = 1; i <= j->nb; i++) {
            b[i].term += b[i - 1].term;
            b[i].esc += b[i - 1].esc;
            b[i].lng += b[i - 1].lng;
        }
        h.m[k].n_esc = b[j->nb].esc;
        h.m[k].n_long = b[j->nb].lng;
    }

    /* Layout and image. */
    h.version = CUZK_PCE_VERSION;
    h.header_bytes = PCE_HEADER_BYTES;
    h.block_rows = CUZK_PCE_BLOCK_ROWS;
    h.flags = (m->c.row_start ? CUZK_PCE_HAS_C : 0) |
              ((flags & CUZK_PCE_INPUT_ROWS) ? CUZK_PCE_HAS_INPUT_ROWS : 0);
    h.n_rows = j->n_rows;
    h.n_inputs = n_inputs;
    h.n_aux = n_aux;
    h.n_coeffs = d.n;
    uint64_t sz[S_COUNT];
    const char *what;
    if (!pce_layout(&h, UINT64_MAX, h.off, sz, &h.file_bytes, &what) ||
        h.file_bytes > SIZE_MAX) {
        st = pce_fail(err, CUZK_ERR_NO_MEMORY, "the image would be too big (%s)",
                      what ? what : "file size");
        goto out;
    }
    map = mmap(NULL, (size_t)h.file_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
               -1, 0);
    if (map == MAP_FAILED) {
        st = pce_fail(err, CUZK_ERR_NO_MEMORY, "out of memory (%llu-byte image)",
                      (unsigned long long)h.file_bytes);
        goto out;
    }
    j->img = map;
    memcpy(j->off, h.off, sizeof j->off);
    memcpy(j->img + h.off[S_COEFFS], d.v, d.n * sizeof *d.v);
    for (int k = 0; k < 3; k++) {
        const uint64_t *o = &h.off[S_MAT + S_PER_MAT * k];
        memcpy(j->img + o[SM_CODES], code_tab[k], (size_t)h.m[k].n_codes * 4);
        memcpy(j->img + o[SM_BLOCKS], j->blk[k], (size_t)(j->nb + 1) * sizeof(cuzk_pce_block));
    }

    /* Pass 3: the body. */
    cuzk_parallel_for(j->parts, 1, j->parts, pass3_range, j);
    for (int k = 0; k < 2; k++) {
        const uint64_t *bm = (const uint64_t *)(j->img + h.off[S_DENS_A + k]);
        h.dens_count[k][0] = popcount_cols(bm, 0, n_inputs);
        h.dens_count[k][1] = popcount_cols(bm, n_inputs, j->n_cols);
    }
    if (cuzk_body_hash(&h.body_hash, j->img + PCE_HEADER_BYTES,
                      (size_t)h.file_bytes - PCE_HEADER_BYTES, nthreads) != CUZK_OK)
        goto oom;
    pce_header_write(j->img, &h);

    if (!(pv = calloc(1, sizeof *pv))) goto oom;
    pv->own = 1;
    pv->map = map;
    pv->map_len = (size_t)h.file_bytes;
    p->image = j->img;
    p->image_size = h.file_bytes;
    if ((st = pce_bind(p, &h, pv, err)) == CUZK_OK) map = MAP_FAILED; /* p owns it now */
    goto out;

oom:
    st = pce_fail(err, CUZK_ERR_NO_MEMORY, "out of memory");
out:
    if (st != CUZK_OK) {
        free(pv);
        memset(p, 0, sizeof *p);
        if (map != MAP_FAILED) munmap(map, (size_t)h.file_bytes);
    }
    for (int k = 0; k < 3; k++) {
        free(cnt[k]);
        free(code_tab[k]);
    }
    free(slot_cnt);
    free(d.v);
    free(d.slot);
    cjob_free(j);
    return st;
}

cuzk_status cuzk_pce_from_r1cs(cuzk_pce *p, const cuzk_r1cs *r, unsigned flags,
                               unsigned nthreads, char *err)
{
    if (!r) {
        if (p) memset(p, 0, sizeof *p);
        return pce_fail(err, CUZK_ERR_INVALID_ARGUMENT, "NULL argument");
    }
    uint64_t n_in = 1 + (uint64_t)r->n_public;
    if (n_in > r->n_wires) {
        if (p) memset(p, 0, sizeof *p);
        return pce_fail(err, CUZK_ERR_INVALID_ARGUMENT, "1 + %u public signals exceed %u wires",
                        r->n_public, r->n_wires);
    }
    return cuzk_pce_compile(p, &r->m, n_in, r->n_wires - n_in, flags, nthreads, err);
}
