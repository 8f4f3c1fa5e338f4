/* a, b, c = A w, B w, C w on the CPU from a compiled PCE.
 *
 * Work is handed out in chunks of CHUNK_BLOCKS blocks (4096 rows) from an
 * atomic counter, so threads stay busy whatever the row lengths; a chunk
 * evaluates its A rows, then its B rows, then its C rows, so the witness
 * entries it touches are still in cache for the second and third matrix.
 *
 * Per term (docs/pce.md has the measurements behind each choice):
 *   +1, -1        a + w or a - w, branch-free (the sign selects r - w by a
 *                 mask): one add/adc chain, one sub/sbb chain, four cmovs
 *   other         out of line: w = 0 skips, w = 1 adds the coefficient,
 *                 anything else costs one Montgomery multiplication
 *   bit column    (with bit_val) w is replaced by the constant 0 or 1 by a
 *                 branch-free pointer select, so w[col] is never loaded
 * Rows are written with non-temporal stores. CUZK_NO_ASM (as for ff) builds
 * the portable C versions of all of this. */
#include <stdlib.h>

#if defined(__x86_64__)
#include <x86intrin.h>
#endif

#include "common/parallel.h"
#include "ff/mont.h"
#include "r1cs/pce_internal.h"

#define CHUNK_BLOCKS 16 /* 4096 rows: ~20k terms of work for PoRep rows */

typedef struct {
    const cuzk_pce *p;
    const pce_priv *pv;
    const cuzk_fr *w;
    const uint64_t *is_bit, *bit_val;
    const cuzk_witness_view *view; /* compact witness (eval_view) */
    const uint32_t *rank;          /* view: bits before each layout word */
    cuzk_fr *out[3];
    uint64_t n_chunks;
    uint64_t next; /* atomic: next chunk to take */
} ejob;

/* r, as literals so that gcc keeps them in registers or immediates (the
 * extern CUZK_FR_MODULUS is reloaded from memory on every use). */
#define R0 0xffffffff00000001ull
#define R1 0x53bda402fffe5bfeull
#define R2 0x3339d80809a1d805ull
#define R3 0x73eda753299d7d48ull

/* The row accumulator, a value (registers, not a stack array). */
typedef struct {
    uint64_t l0, l1, l2, l3;
} acc4;

/* 4-limb modular add (values < r < 2^255: the sum does not carry out).
 * On x86-64 the two hot operations are inline asm: one add/adc chain, one
 * sub/sbb chain, four cmovs, ~9 cycles of latency on the accumulator. The
 * alternatives measured on the EPYC dev box (a dependent chain of adds):
 * mont_add of ff/mont.h 12 ns, _addcarry_u64 intrinsics 2.3 ns alone but
 * ~7 ns a term inside the SpMV loop (gcc 12 spills their out-parameters to
 * the stack, and turns ?: selects into a branch that random values
 * mispredict half of the time). */
static const uint64_t PCE_R[4] = {R0, R1, R2, R3};

static inline acc4 acc_sub(acc4 a, const uint64_t *x)
{
    uint64_t t[4] = {a.l0, a.l1, a.l2, a.l3};
    mont_sub(t, t, x, CUZK_FR_MODULUS, 4);
    return (acc4){t[0], t[1], t[2], t[3]};
}

#if defined(__x86_64__) && defined(__GNUC__) && !defined(CUZK_NO_ASM)
static inline acc4 acc_add(acc4 a, const uint64_t *x)
{
    uint64_t t0, t1, t2, t3;
    __asm__("addq 0(%[x]), %[a0]\n\t"
            "adcq 8(%[x]), %[a1]\n\t"
            "adcq 16(%[x]), %[a2]\n\t"
            "adcq 24(%[x]), %[a3]\n\t"
            "movq %[a0], %[t0]\n\t"
            "movq %[a1], %[t1]\n\t"
            "movq %[a2], %[t2]\n\t"
            "movq %[a3], %[t3]\n\t"
            "subq %[r0], %[t0]\n\t"
            "sbbq %[r1], %[t1]\n\t"
            "sbbq %[r2], %[t2]\n\t"
            "sbbq %[r3], %[t3]\n\t"
            "cmovaeq %[t0], %[a0]\n\t" /* no borrow: the sum was >= r */
            "cmovaeq %[t1], %[a1]\n\t"
            "cmovaeq %[t2], %[a2]\n\t"
            "cmovaeq %[t3], %[a3]"
            : [a0] "+r"(a.l0), [a1] "+r"(a.l1), [a2] "+r"(a.l2), [a3] "+r"(a.l3),
              [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3)
            : [x] "r"(x), "m"(*(const uint64_t(*)[4])x), [r0] "m"(PCE_R[0]),
              [r1] "m"(PCE_R[1]), [r2] "m"(PCE_R[2]), [r3] "m"(PCE_R[3])
            : "cc");
    return a;
}

/* a + (neg ? -x : x) with m = 0 - neg, no branch: y = r - x is selected by
 * mask (y = r, not reduced, for x = 0: a + r < 2r still reduces right). */
static inline acc4 acc_addsub(acc4 a, const uint64_t *x, uint64_t neg)
{
    uint64_t y0, y1, y2, y3, m = 0 - neg;
    __asm__("movq %[r0], %[y0]\n\t"
            "subq 0(%[x]), %[y0]\n\t"
            "movq %[r1], %[y1]\n\t"
            "sbbq 8(%[x]), %[y1]\n\t"
            "movq %[r2], %[y2]\n\t"
            "sbbq 16(%[x]), %[y2]\n\t"
            "movq %[r3], %[y3]\n\t"
            "sbbq 24(%[x]), %[y3]\n\t"
            /* y = x ^ ((x ^ (r - x)) & m) */
            "xorq 0(%[x]), %[y0]\n\t"
            "xorq 8(%[x]), %[y1]\n\t"
            "xorq 16(%[x]), %[y2]\n\t"
            "xorq 24(%[x]), %[y3]\n\t"
            "andq %[m], %[y0]\n\t"
            "andq %[m], %[y1]\n\t"
            "andq %[m], %[y2]\n\t"
            "andq %[m], %[y3]\n\t"
            "xorq 0(%[x]), %[y0]\n\t"
            "xorq 8(%[x]), %[y1]\n\t"
            "xorq 16(%[x]), %[y2]\n\t"
            "xorq 24(%[x]), %[y3]\n\t"
            /* a += y; a -= r unless that borrows */
            "addq %[y0], %[a0]\n\t"
            "adcq %[y1], %[a1]\n\t"
            "adcq %[y2], %[a2]\n\t"
            "adcq %[y3], %[a3]\n\t"
            "movq %[a0], %[y0]\n\t"
            "movq %[a1], %[y1]\n\t"
            "movq %[a2], %[y2]\n\t"
            "movq %[a3], %[y3]\n\t"
            "subq %[r0], %[y0]\n\t"
            "sbbq %[r1], %[y1]\n\t"
            "sbbq %[r2], %[y2]\n\t"
            "sbbq %[r3], %[y3]\n\t"
            "cmovaeq %[y0], %[a0]\n\t"
            "cmovaeq %[y1], %[a1]\n\t"
            "cmovaeq %[y2], %[a2]\n\t"
            "cmovaeq %[y3], %[a3]"
            : [a0] "+r"(a.l0), [a1] "+r"(a.l1), [a2] "+r"(a.l2), [a3] "+r"(a.l3),
              [y0] "=&r"(y0), [y1] "=&r"(y1), [y2] "=&r"(y2), [y3] "=&r"(y3)
            : [x] "r"(x), [m] "r"(m), "m"(*(const uint64_t(*)[4])x), [r0] "m"(PCE_R[0]),
              [r1] "m"(PCE_R[1]), [r2] "m"(PCE_R[2]), [r3] "m"(PCE_R[3])
            : "cc");
    return a;
}
#else
static inline acc4 acc_add(acc4 a, const uint64_t *x)
{
    uint64_t t[4] = {a.l0, a.l1, a.l2, a.l3};
    mont_add(t, t, x, CUZK_FR_MODULUS, 4);
    return (acc4){t[0], t[1], t[2], t[3]};
}
static inline acc4 acc_addsub(acc4 a, const uint64_t *x, uint64_t neg)
{
    return neg ? acc_sub(a, x) : acc_add(a, x);
}
#endif

static inline int is_zero4(const uint64_t *x) { return !(x[0] | x[1] | x[2] | x[3]); }
static inline int is_one4(const uint64_t *x)
{
    const uint64_t *o = CUZK_FR_ONE.l;
    return !((x[0] ^ o[0]) | (x[1] ^ o[1]) | (x[2] ^ o[2]) | (x[3] ^ o[3]));
}

/* A term whose coefficient is not +-1 (or is escaped), witness value x:
 * writes what it adds to the row into o and returns 1, or returns 0 when
 * it adds nothing. 0 and 1 cost no multiplication. Out of line: it is the
 * rare case, and inlining it costs the hot loop its registers. */
static __attribute__((noinline)) int slow_term(uint64_t o[4], const pce_coef *cf,
                                               const cuzk_fr *coeffs, const uint64_t *x)
{
    switch (cf->kind) {
    case K_ONE:
        memcpy(o, x, 32);
        return 1;
    case K_MINUS_ONE: {
        acc4 z = acc_sub((acc4){0, 0, 0, 0}, x);
        memcpy(o, &z, 32);
        return 1;
    }
    case K_BAD: /* only in a trusted, corrupt file */
        return 0;
    }
    if (is_zero4(x)) return 0;
    if (is_one4(x)) {
        memcpy(o, coeffs[cf->idx].l, 32);
        return 1;
    }
    cuzk_fr_mul((cuzk_fr *)o, (const cuzk_fr *)x, &coeffs[cf->idx]);
    return 1;
}

/* out = acc. Non-temporal stores on x86-64: a, b, c are 96 bytes a row that
 * the evaluation never reads back, so writing around the cache saves the
 * read-for-ownership of every line (7 -> 5 ns a row on the dev box). */
static inline void store_row(cuzk_fr *out, acc4 a)
{
#if defined(__x86_64__) && !defined(CUZK_NO_ASM)
    long long *o = (long long *)out->l;
    _mm_stream_si64(o, (long long)a.l0);
    _mm_stream_si64(o + 1, (long long)a.l1);
    _mm_stream_si64(o + 2, (long long)a.l2);
    _mm_stream_si64(o + 3, (long long)a.l3);
#else
    uint64_t res[4] = {a.l0, a.l1, a.l2, a.l3};
    memcpy(out->l, res, sizeof res);
#endif
}

static const cuzk_fr *const BIT_VALUE[2] = {&CUZK_FR_ZERO, &CUZK_FR_ONE};

/* Rows of blocks [blk0, blk1) of matrix k. bits: take the value of the
 * columns marked in is_bit from bit_val (a branch-free pointer select), so
 * their w entries are never read. */
static inline __attribute__((always_inline)) void eval_blocks(const ejob *j, int k,
                                                              uint64_t blk0, uint64_t blk1,
                                                              const int bits)
{
    const cuzk_pce *p = j->p;
    const cuzk_pce_matrix *m = &p->m[k];
    const pce_coef *ctab = j->pv->ctab[k], *dict = j->pv->dict;
    const uint8_t *ckind = j->pv->ckind[k];
    const cuzk_fr *coeffs = p->coeffs, *w = j->w;
    const uint64_t *is_bit = j->is_bit, *bit_val = j->bit_val;
    cuzk_fr *out = j->out[k];
    const uint32_t cbits = m->col_bits, W = cbits + m->code_bits, lb = m->len_bits;
    const uint64_t cmask = ((uint64_t)1 << cbits) - 1;
    const uint32_t codemask = (1u << m->code_bits) - 1, mark = (1u << lb) - 1;
    const uint8_t *terms = m->terms, *lens = m->lens;
    uint64_t r = blk0 * CUZK_PCE_BLOCK_ROWS, r1 = blk1 * CUZK_PCE_BLOCK_ROWS;
    if (r1 > p->n_rows) r1 = p->n_rows;
    uint64_t ei = m->blocks[blk0].esc, li = m->blocks[blk0].lng;
    uint64_t bit = m->blocks[blk0].term * W;
    for (; r < r1; r++) {
        uint64_t lbit = r * lb;
        uint64_t len = (uint32_t)(lens[lbit >> 3] >> (lbit & 7)) & mark;
        if (len == mark) len = m->longs[li++];
        acc4 acc = {0, 0, 0, 0};
        for (uint64_t i = 0; i < len; i++, bit += W) {
            uint64_t v = pce_ld64(terms + (bit >> 3)) >> (bit & 7);
            uint32_t col = (uint32_t)(v & cmask), code = (uint32_t)(v >> cbits) & codemask;
            uint32_t kind = ckind[code];
            const uint64_t *x;
            if (bits == 2) { /* compact: resolve through the layout */
                const cuzk_witness_view *wv = j->view;
                if (col < wv->n_inputs) {
                    x = wv->inputs[col].l;
                } else {
                    uint32_t a = col - wv->n_inputs, sh = a & 63;
                    uint64_t lw = wv->layout[a >> 6];
                    uint32_t bi = j->rank[a >> 6] +
                                  (uint32_t)__builtin_popcountll(lw & (((uint64_t)1 << sh) - 1));
                    if ((lw >> sh) & 1)
                        x = BIT_VALUE[(wv->bits[bi >> 6] >> (bi & 63)) & 1]->l;
                    else
                        x = wv->fields[a - bi].l;
                }
            } else {
                x = w[col].l;
            }
            if (bits == 1) {
                uint64_t b = (is_bit[col >> 6] >> (col & 63)) & 1;
                uint64_t one = (bit_val[col >> 6] >> (col & 63)) & 1;
                uintptr_t px = (uintptr_t)x, pb = (uintptr_t)BIT_VALUE[one]->l;
                x = (const uint64_t *)(px ^ ((px ^ pb) & (0 - (uintptr_t)b)));
            }
            if (kind <= K_MINUS_ONE) { /* +-1: no branch on the sign */
                acc = acc_addsub(acc, x, kind);
            } else {
                uint64_t o[4];
                if (slow_term(o, kind == K_ESC ? &dict[m->esc[ei++]] : &ctab[code], coeffs, x))
                    acc = acc_add(acc, o);
            }
        }
        store_row(&out[r], acc);
    }
}

/* One function per mode, so each gets its own register allocation. */
static __attribute__((noinline)) void eval_plain(const ejob *j, int k, uint64_t b0, uint64_t b1)
{
    eval_blocks(j, k, b0, b1, 0);
}
static __attribute__((noinline)) void eval_bits(const ejob *j, int k, uint64_t b0, uint64_t b1)
{
    eval_blocks(j, k, b0, b1, 1);
}
static __attribute__((noinline)) void eval_view(const ejob *j, int k, uint64_t b0, uint64_t b1)
{
    eval_blocks(j, k, b0, b1, 2);
}

static void eval_worker(void *ctx, size_t b, size_t e)
{
    ejob *j = ctx;
    (void)b;
    (void)e;
    void (*fn)(const ejob *, int, uint64_t, uint64_t) =
        j->view ? eval_view : j->bit_val ? eval_bits : eval_plain;
    for (;;) {
        uint64_t c = __atomic_fetch_add(&j->next, 1, __ATOMIC_RELAXED);
        if (c >= j->n_chunks) break;
        uint64_t blk0 = c * CHUNK_BLOCKS, blk1 = blk0 + CHUNK_BLOCKS;
        if (blk1 > j->p->n_blocks) blk1 = j->p->n_blocks;
        for (int k = 0; k < 3; k++)
            if (j->out[k]) fn(j, k, blk0, blk1);
    }
#if defined(__x86_64__) && !defined(CUZK_NO_ASM)
    _mm_sfence(); /* the non-temporal stores are visible before the join */
#endif
}

cuzk_status cuzk_pce_eval(const cuzk_pce *p, const cuzk_pce_witness *wit, cuzk_fr *a,
                          cuzk_fr *b, cuzk_fr *c, unsigned nthreads, char *err)
{
    if (err) err[0] = 0;
    if (!p || !p->priv_ || !wit || (!wit->w && p->n_cols))
        return pce_fail(err, CUZK_ERR_INVALID_ARGUMENT, "NULL argument");
    if (wit->n_w != p->n_cols)
        return pce_fail(err, CUZK_ERR_INVALID_ARGUMENT, "the witness has %zu values, the "
                        "circuit %llu columns", wit->n_w, (unsigned long long)p->n_cols);
    if (wit->bit_val && !wit->is_bit)
        return pce_fail(err, CUZK_ERR_INVALID_ARGUMENT, "bit_val given without is_bit");
    if (c && !(p->flags & CUZK_PCE_HAS_C))
        return pce_fail(err, CUZK_ERR_INVALID_ARGUMENT, "this PCE has no C matrix (c must be "
                        "NULL)");
    if (nthreads == 0) nthreads = cuzk_ncores();
    ejob j = {p, p->priv_, wit->w, wit->is_bit, wit->bit_val, NULL, NULL, {a, b, c}, 0, 0};
    j.n_chunks = p->n_blocks / CHUNK_BLOCKS + (p->n_blocks % CHUNK_BLOCKS != 0);
    if (!j.n_chunks) return CUZK_OK;
    unsigned t = nthreads;
    if (t > j.n_chunks) t = (unsigned)j.n_chunks;
    cuzk_parallel_for(t, 1, t, eval_worker, &j);
    return CUZK_OK;
}

cuzk_status cuzk_pce_eval_view(const cuzk_pce *p, const cuzk_witness_view *v, cuzk_fr *a,
                               cuzk_fr *b, cuzk_fr *c, unsigned nthreads, char *err)
{
    if (err) err[0] = 0;
    if (!p || !p->priv_ || !v || !v->inputs || !v->layout || (v->n_bits && !v->bits) ||
        (v->n_fields && !v->fields))
        return pce_fail(err, CUZK_ERR_INVALID_ARGUMENT, "NULL argument");
    if ((uint64_t)v->n_inputs + v->n_aux != p->n_cols || v->n_inputs != p->n_inputs)
        return pce_fail(err, CUZK_ERR_INVALID_ARGUMENT, "the witness has %u inputs and %u aux, "
                        "the circuit %llu and %llu", v->n_inputs, v->n_aux,
                        (unsigned long long)p->n_inputs, (unsigned long long)p->n_aux);
    if ((uint64_t)v->n_bits + v->n_fields != v->n_aux)
        return pce_fail(err, CUZK_ERR_INVALID_ARGUMENT, "witness view: %u bits + %u fields != "
                        "%u aux", v->n_bits, v->n_fields, v->n_aux);
    if (c && !(p->flags & CUZK_PCE_HAS_C))
        return pce_fail(err, CUZK_ERR_INVALID_ARGUMENT, "this PCE has no C matrix (c must be "
                        "NULL)");
    /* rank[i] = bits among aux 0..64i-1; the total must be n_bits, so that
     * every bit and field index the evaluation forms is in range */
    size_t nw = (size_t)v->n_aux / 64 + 1;
    uint32_t *rank = malloc(nw * sizeof *rank);
    if (!rank) return pce_fail(err, CUZK_ERR_NO_MEMORY, "out of memory");
    uint64_t r = 0;
    for (size_t i = 0; i < nw; i++) {
        rank[i] = (uint32_t)r;
        uint64_t lw = i * 64 < v->n_aux ? v->layout[i] : 0;
        if (v->n_aux - i * 64 < 64) lw &= ((uint64_t)1 << (v->n_aux - i * 64)) - 1;
        r += (uint64_t)__builtin_popcountll(lw);
    }
    if (r != v->n_bits) {
        free(rank);
        return pce_fail(err, CUZK_ERR_INVALID_ARGUMENT, "witness view: the layout marks %llu "
                        "bits, n_bits is %u", (unsigned long long)r, v->n_bits);
    }
    if (nthreads == 0) nthreads = cuzk_ncores();
    ejob j = {p, p->priv_, NULL, NULL, NULL, v, rank, {a, b, c}, 0, 0};
    j.n_chunks = p->n_blocks / CHUNK_BLOCKS + (p->n_blocks % CHUNK_BLOCKS != 0);
    if (j.n_chunks) {
        unsigned t = nthreads;
        if (t > j.n_chunks) t = (unsigned)j.n_chunks;
        cuzk_parallel_for(t, 1, t, eval_worker, &j);
    }
    free(rank);
    return CUZK_OK;
}

/* ---------------------------------------------------- boolean columns -- */

/* The terms of one row in column x and column 0, folded: c0 + c1 x.
 * Returns 0 if the row has a column other than 0 and *x (setting *x on the
 * first nonzero column met). */
static int fold_row(pce_cursor *cur, const cuzk_fr *coeffs, uint64_t *x, cuzk_fr *c0,
                    cuzk_fr *c1)
{
    uint64_t len = pce_cursor_len(cur);
    int ok = 1;
    *c0 = *c1 = CUZK_FR_ZERO;
    for (uint64_t i = 0; i < len; i++) {
        uint32_t col, d;
        pce_cursor_next(cur, &col, &d);
        if (!ok) continue;
        if (col == 0) {
            cuzk_fr_add(c0, c0, &coeffs[d]);
        } else if (*x == UINT64_MAX || *x == col) {
            *x = col;
            cuzk_fr_add(c1, c1, &coeffs[d]);
        } else {
            ok = 0;
        }
    }
    return ok;
}

struct bool_job {
    const cuzk_pce *p;
    uint64_t *bitmap;
    unsigned parts;
};

static void bool_range(void *ctx, size_t pb, size_t pe)
{
    struct bool_job *j = ctx;
    const cuzk_pce *p = j->p;
    for (size_t part = pb; part < pe; part++) {
        uint64_t b0 = p->n_blocks * part / j->parts, b1 = p->n_blocks * (part + 1) / j->parts;
        for (uint64_t blk = b0; blk < b1; blk++) {
            pce_cursor cu[3];
            for (int k = 0; k < 3; k++) pce_cursor_at_block(&cu[k], &p->m[k], blk);
            uint64_t r1 = cu[0].row + CUZK_PCE_BLOCK_ROWS;
            if (r1 > p->n_rows) r1 = p->n_rows;
            for (; cu[0].row < r1; cu[0].row++, cu[1].row++, cu[2].row++) {
                uint64_t x = UINT64_MAX;
                cuzk_fr a0, a1, b0c, b1c, c0, c1;
                int ok = fold_row(&cu[0], p->coeffs, &x, &a0, &a1);
                ok &= fold_row(&cu[1], p->coeffs, &x, &b0c, &b1c);
                ok &= fold_row(&cu[2], p->coeffs, &x, &c0, &c1); /* C has no terms without C */
                if (!ok || x == UINT64_MAX) continue;
                /* (a0 + a1 x)(b0 + b1 x) - (c0 + c1 x)
                 *   = a1 b1 x^2 + (a0 b1 + a1 b0 - c1) x + (a0 b0 - c0)
                 * has roots exactly {0, 1} iff a1 b1 != 0, a0 b0 = c0 and
                 * a0 b1 + a1 b0 - c1 = -a1 b1. */
                cuzk_fr q, l, k0, t;
                cuzk_fr_mul(&q, &a1, &b1c);
                if (cuzk_fr_is_zero(&q)) continue;
                cuzk_fr_mul(&k0, &a0, &b0c);
                if (!cuzk_fr_eq(&k0, &c0)) continue;
                cuzk_fr_mul(&l, &a0, &b1c);
                cuzk_fr_mul(&t, &a1, &b0c);
                cuzk_fr_add(&l, &l, &t);
                cuzk_fr_sub(&l, &l, &c1);
                cuzk_fr_add(&l, &l, &q);
                if (!cuzk_fr_is_zero(&l)) continue;
                __atomic_fetch_or(&j->bitmap[x >> 6], (uint64_t)1 << (x & 63), __ATOMIC_RELAXED);
            }
        }
    }
}

cuzk_status cuzk_pce_boolean_vars(const cuzk_pce *p, uint64_t *bitmap, uint64_t *count,
                                  unsigned nthreads)
{
    if (!p || !p->priv_ || (!bitmap && p->n_cols)) return CUZK_ERR_INVALID_ARGUMENT;
    uint64_t words = p->n_cols / 64 + (p->n_cols % 64 != 0);
    memset(bitmap, 0, words * 8);
    if (nthreads == 0) nthreads = cuzk_ncores();
    struct bool_job j = {p, bitmap, nthreads > 256 ? 256 : nthreads};
    if (j.parts > p->n_blocks) j.parts = p->n_blocks ? (unsigned)p->n_blocks : 1;
    cuzk_parallel_for(j.parts, 1, j.parts, bool_range, &j);
    if (count) {
        uint64_t n = 0;
        for (uint64_t i = 0; i < words; i++) n += (uint64_t)__builtin_popcountll(bitmap[i]);
        *count = n;
    }
    return CUZK_OK;
}
