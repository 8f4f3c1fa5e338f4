/* Constraint system: storage of values (both modes), recording of rows,
 * the coefficient dictionary, and the finished matrices. See
 * include/cuzk/r1cs.h for the model. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuzk/r1cs.h>

#define AUX_TAG 0x80000000u   /* recorded wire: aux variable by allocation order */
#define MIN_CAP 1024u         /* first growth step of each value buffer */

/* One matrix while recording: CSR arrays that grow by doubling. */
typedef struct {
    uint32_t *wire, *coeff;
    uint64_t n, cap;     /* terms */
    uint64_t *row_start; /* n_rows + 1 entries, cap_rows + 1 allocated */
} rec_mat;

/* The terms of the open row of one matrix (variable handles). */
typedef struct {
    cuzk_term *t;
    uint32_t n, cap;
} open_row;

struct cuzk_cs_rec {
    uint32_t *field_order, *bit_order; /* kind index -> aux allocation order */
    uint32_t cap_field_order, cap_bit_order;
    open_row open[3];
    int row_open;
    /* The terms of the last row of 2 or more terms that flush_row
     * canonicalised (n = 0: none), and where its result went: matrix
     * rem_m, rem_len terms from rem_at. A row with the same terms has the
     * same result, which is copied (see flush_row). */
    open_row rem;
    int rem_m;
    uint64_t rem_at;
    uint32_t rem_len;
    rec_mat m[3];
    uint64_t n_rows, cap_rows;
    /* coefficient dictionary: values and an open-addressing index */
    cuzk_fr *coeffs;
    uint32_t n_coeffs, cap_coeffs;
    uint32_t *slots;     /* coefficient index + 1, 0 = empty */
    uint32_t slot_mask;  /* number of slots - 1 (a power of two minus one) */
    cuzk_coeff pow2[256], npow2[256];
    uint64_t *sort;      /* scratch: (wire << 32 | coeff) of one row */
    uint32_t cap_sort;
    /* coefficient memos (cuzk_cs_memo), in order of first use */
    struct rec_memo {
        uint64_t key;
        uint32_t n;
        cuzk_coeff *ids;
    } *memo;
    uint32_t n_memo, cap_memo;
};

/* ------------------------------------------------------------ errors -- */

void cuzk_cs_fail(cuzk_cs *cs, cuzk_status s, const char *fmt, ...)
{
    if (cs->status != CUZK_OK) return;
    cs->status = s;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cs->msg, sizeof cs->msg, fmt, ap);
    va_end(ap);
}

/* ----------------------------------------------------------- helpers -- */

/* realloc to n_new elements, the new ones zeroed (the bitmaps need it;
 * value arrays and maps are read only below their counts and use plain
 * realloc, which leaves the pages of the unused capacity untouched). */
static void *grow(void *p, size_t n_old, size_t n_new, size_t size)
{
    void *q = realloc(p, n_new * size);
    if (q && n_new > n_old) memset((char *)q + n_old * size, 0, (n_new - n_old) * size);
    return q;
}

static size_t words(size_t nbits) { return (nbits + 63) / 64; }

/* Bytes of bitmap for cap bits plus the 64-bit dummy area. */
static size_t bits_words(uint32_t cap) { return words((size_t)cap + 64); }

/* ---------------------------------------------------- value buffers -- */

static int grow_order(uint32_t **order, uint32_t *cap_order, uint32_t need)
{
    if (need <= *cap_order) return 1;
    uint32_t *o = realloc(*order, (size_t)need * sizeof **order);
    if (!o) return 0;
    *order = o;
    *cap_order = need;
    return 1;
}

/* Sizes layout for cap_bits + cap_fields aux variables (plus dummy). */
static int grow_layout(cuzk_cs *cs, uint32_t cap_bits, uint32_t cap_fields)
{
    size_t old = words((size_t)cs->cap_bits + cs->cap_fields + 64);
    size_t nw = words((size_t)cap_bits + cap_fields + 64);
    if (nw <= old && cs->layout) return 1;
    uint64_t *l = grow(cs->layout, cs->layout ? old : 0, nw, sizeof *l);
    if (!l) return 0;
    cs->layout = l;
    return 1;
}

static uint32_t next_cap(uint32_t cap)
{
    uint64_t c = cap < MIN_CAP ? MIN_CAP : (uint64_t)cap * 2;
    if (c > CUZK_VAR_INDEX_MASK) c = CUZK_VAR_INDEX_MASK;
    return (uint32_t)c;
}

static int grow_bits(cuzk_cs *cs)
{
    if (cs->cap_bits >= CUZK_VAR_INDEX_MASK) return 0;
    uint32_t cap = next_cap(cs->cap_bits);
    if (!grow_layout(cs, cap, cs->cap_fields)) return 0;
    uint64_t *b = grow(cs->bits, bits_words(cs->cap_bits), bits_words(cap), sizeof *b);
    if (!b) return 0;
    /* Bits past n_bits are zero: the dummy slot is never written. */
    cs->bits = b;
    cs->cap_bits = cap;
    return 1;
}

static int grow_fields(cuzk_cs *cs)
{
    if (cs->cap_fields >= CUZK_VAR_INDEX_MASK) return 0;
    uint32_t cap = next_cap(cs->cap_fields);
    if (!grow_layout(cs, cs->cap_bits, cap)) return 0;
    cuzk_fr *f = realloc(cs->fields, ((size_t)cap + 1) * sizeof *f);
    if (!f) return 0;
    cs->fields = f;
    cs->cap_fields = cap;
    return 1;
}

static int grow_inputs(cuzk_cs *cs)
{
    if (cs->cap_inputs >= CUZK_VAR_INDEX_MASK) return 0;
    uint32_t cap = cs->cap_inputs < 16 ? 16 : next_cap(cs->cap_inputs);
    cuzk_fr *f = grow(cs->inputs, (size_t)cs->cap_inputs + 1, (size_t)cap + 1, sizeof *f);
    if (!f) return 0;
    cs->inputs = f;
    cs->cap_inputs = cap;
    return 1;
}

cuzk_var cuzk_cs_alloc_bit_slow(cuzk_cs *cs, unsigned bit)
{
    if (bit > 1) {
        cuzk_cs_fail(cs, CUZK_ERR_UNSATISFIED,
                     "bit variable %u (aux %u) assigned the non-bit value %u", cs->n_bits,
                     cs->n_aux, bit);
        bit &= 1;
    }
    uint32_t i = cs->n_bits, j = cs->n_aux;
    if (i >= cs->cap_bits) {
        if (cs->fixed) {
            cuzk_cs_fail(cs, CUZK_ERR_INVALID_ARGUMENT,
                         "circuit allocates more than the %u bit variables of its shape",
                         cs->cap_bits);
            return CUZK_VAR_BIT | (cs->base_bits + cs->cap_bits); /* the dummy slot */
        }
        if (!grow_bits(cs)) {
            cuzk_cs_fail(cs, CUZK_ERR_NO_MEMORY, "out of memory for %u bit variables", i + 1);
            return CUZK_VAR_BIT | (cs->base_bits + cs->cap_bits);
        }
    }
    struct cuzk_cs_rec *r = cs->rec;
    if (r) {
        if (i >= r->cap_bit_order && !grow_order(&r->bit_order, &r->cap_bit_order, cs->cap_bits)) {
            cuzk_cs_fail(cs, CUZK_ERR_NO_MEMORY, "out of memory recording bit variables");
            return CUZK_VAR_BIT | (cs->base_bits + cs->cap_bits);
        }
        r->bit_order[i] = j;
    }
    cs->bits[i >> 6] |= (uint64_t)bit << (i & 63);
    cs->layout[j >> 6] |= (uint64_t)1 << (j & 63);
    cs->n_bits = i + 1;
    cs->n_aux = j + 1;
    return CUZK_VAR_BIT | (cs->base_bits + i);
}

cuzk_var cuzk_cs_alloc_slow(cuzk_cs *cs, const cuzk_fr *value)
{
    uint32_t i = cs->n_fields, j = cs->n_aux;
    if (i >= cs->cap_fields) {
        if (cs->fixed) {
            cuzk_cs_fail(cs, CUZK_ERR_INVALID_ARGUMENT,
                         "circuit allocates more than the %u field variables of its shape",
                         cs->cap_fields);
            cs->fields[cs->cap_fields] = *value;
            return CUZK_VAR_FIELD | (cs->base_fields + cs->cap_fields);
        }
        if (!grow_fields(cs)) {
            cuzk_cs_fail(cs, CUZK_ERR_NO_MEMORY, "out of memory for %u field variables", i + 1);
            return CUZK_VAR_FIELD | (cs->base_fields + cs->cap_fields);
        }
    }
    struct cuzk_cs_rec *r = cs->rec;
    if (r) {
        if (i >= r->cap_field_order &&
            !grow_order(&r->field_order, &r->cap_field_order, cs->cap_fields)) {
            cuzk_cs_fail(cs, CUZK_ERR_NO_MEMORY, "out of memory recording field variables");
            return CUZK_VAR_FIELD | (cs->base_fields + cs->cap_fields);
        }
        r->field_order[i] = j;
    }
    cs->fields[i] = *value;
    cs->n_fields = i + 1;
    cs->n_aux = j + 1;
    return CUZK_VAR_FIELD | (cs->base_fields + i);
}

cuzk_var cuzk_cs_alloc_input_slow(cuzk_cs *cs, const cuzk_fr *value)
{
    uint32_t i = cs->n_inputs;
    if (cs->outer) {
        cuzk_cs_fail(cs, CUZK_ERR_INVALID_ARGUMENT, "a window cannot allocate public inputs");
        return CUZK_VAR_INPUT | cs->cap_inputs; /* the dummy slot */
    }
    if (i >= cs->cap_inputs) {
        if (cs->fixed) {
            cuzk_cs_fail(cs, CUZK_ERR_INVALID_ARGUMENT,
                         "circuit allocates more than the %u inputs of its shape",
                         cs->cap_inputs);
            return CUZK_VAR_INPUT | cs->cap_inputs;
        }
        if (!grow_inputs(cs)) {
            cuzk_cs_fail(cs, CUZK_ERR_NO_MEMORY, "out of memory for %u inputs", i + 1);
            return CUZK_VAR_INPUT | cs->cap_inputs;
        }
    }
    cs->inputs[i] = *value;
    cs->n_inputs = i + 1;
    return CUZK_VAR_INPUT | i;
}

/* ------------------------------------------------------- dictionary -- */

static uint32_t fr_hash(const cuzk_fr *v)
{
    uint64_t h = v->l[0] * 0x9e3779b97f4a7c15ull;
    h ^= v->l[1] + (h << 6) + (h >> 2);
    h ^= v->l[2] * 0xbf58476d1ce4e5b9ull;
    h ^= v->l[3] * 0x94d049bb133111ebull;
    return (uint32_t)(h ^ (h >> 29) ^ (h >> 47));
}

static int dict_rehash(struct cuzk_cs_rec *r, uint32_t n_slots)
{
    uint32_t *s = calloc(n_slots, sizeof *s);
    if (!s) return 0;
    for (uint32_t k = 0; k < r->n_coeffs; k++) {
        uint32_t h = fr_hash(&r->coeffs[k]) & (n_slots - 1);
        while (s[h]) h = (h + 1) & (n_slots - 1);
        s[h] = k + 1;
    }
    free(r->slots);
    r->slots = s;
    r->slot_mask = n_slots - 1;
    return 1;
}

static cuzk_coeff intern(cuzk_cs *cs, const cuzk_fr *v)
{
    struct cuzk_cs_rec *r = cs->rec;
    if (!r) return CUZK_COEFF_ONE;
    if (cuzk_fr_is_zero(v)) return CUZK_COEFF_ZERO;
    uint32_t h = fr_hash(v) & r->slot_mask;
    for (; r->slots[h]; h = (h + 1) & r->slot_mask)
        if (cuzk_fr_eq(&r->coeffs[r->slots[h] - 1], v)) return r->slots[h] - 1;
    if (r->n_coeffs >= 0x7fffffffu) {
        cuzk_cs_fail(cs, CUZK_ERR_INVALID_ARGUMENT, "more than 2^31 distinct coefficients");
        return CUZK_COEFF_ONE;
    }
    if (r->n_coeffs == r->cap_coeffs) {
        uint32_t cap = r->cap_coeffs * 2;
        cuzk_fr *c = realloc(r->coeffs, (size_t)cap * sizeof *c);
        if (!c) {
            cuzk_cs_fail(cs, CUZK_ERR_NO_MEMORY, "out of memory for coefficients");
            return CUZK_COEFF_ONE;
        }
        r->coeffs = c;
        r->cap_coeffs = cap;
    }
    uint32_t k = r->n_coeffs++;
    r->coeffs[k] = *v;
    r->slots[h] = k + 1;
    /* keep the load factor under 1/2 */
    if ((uint64_t)r->n_coeffs * 2 > (uint64_t)r->slot_mask + 1 &&
        !dict_rehash(r, (r->slot_mask + 1) * 2))
        cuzk_cs_fail(cs, CUZK_ERR_NO_MEMORY, "out of memory for the coefficient index");
    return k;
}

cuzk_coeff cuzk_cs_coeff(cuzk_cs *cs, const cuzk_fr *value) { return intern(cs, value); }

cuzk_coeff cuzk_cs_coeff_i64(cuzk_cs *cs, int64_t value)
{
    if (value == 1) return CUZK_COEFF_ONE;
    if (value == -1) return CUZK_COEFF_MINUS_ONE;
    cuzk_fr v;
    uint64_t mag = value < 0 ? (uint64_t)0 - (uint64_t)value : (uint64_t)value;
    cuzk_fr_from_u64(&v, mag);
    if (value < 0) cuzk_fr_neg(&v, &v);
    return intern(cs, &v);
}

static cuzk_coeff pow2(cuzk_cs *cs, unsigned k, int neg)
{
    struct cuzk_cs_rec *r = cs->rec;
    if (!r) return CUZK_COEFF_ONE;
    if (k >= 256) {
        cuzk_cs_fail(cs, CUZK_ERR_INVALID_ARGUMENT, "coefficient 2^%u out of range", k);
        return CUZK_COEFF_ONE;
    }
    cuzk_coeff *slot = neg ? &r->npow2[k] : &r->pow2[k];
    if (*slot == CUZK_COEFF_UNSET) {
        uint64_t l[4] = {0, 0, 0, 0};
        l[k / 64] = 1ull << (k % 64);
        cuzk_fr v;
        cuzk_fr_from_limbs_reduce(&v, l);
        if (neg) cuzk_fr_neg(&v, &v);
        *slot = intern(cs, &v);
    }
    return *slot;
}

cuzk_coeff cuzk_cs_coeff_pow2(cuzk_cs *cs, unsigned k) { return pow2(cs, k, 0); }
cuzk_coeff cuzk_cs_coeff_neg_pow2(cuzk_cs *cs, unsigned k) { return pow2(cs, k, 1); }

void cuzk_cs_coeff_value(const cuzk_cs *cs, cuzk_coeff c, cuzk_fr *out)
{
    const struct cuzk_cs_rec *r = cs->rec;
    if (c == CUZK_COEFF_ZERO) *out = CUZK_FR_ZERO;
    else if (r && c < r->n_coeffs) *out = r->coeffs[c];
    else if (c == CUZK_COEFF_MINUS_ONE) cuzk_fr_neg(out, &CUZK_FR_ONE);
    else *out = CUZK_FR_ONE;
}

cuzk_coeff cuzk_cs_coeff_neg(cuzk_cs *cs, cuzk_coeff c)
{
    if (c == CUZK_COEFF_ONE) return CUZK_COEFF_MINUS_ONE;
    if (c == CUZK_COEFF_MINUS_ONE) return CUZK_COEFF_ONE;
    if (!cs->rec || c == CUZK_COEFF_ZERO) return c;
    cuzk_fr v;
    cuzk_cs_coeff_value(cs, c, &v);
    cuzk_fr_neg(&v, &v);
    return intern(cs, &v);
}

uint64_t cuzk_cs_memo_key(void)
{
    static uint64_t next = 1; /* the one global: a counter, shared by all threads */
    return __atomic_fetch_add(&next, 1, __ATOMIC_RELAXED);
}

cuzk_coeff *cuzk_cs_memo(cuzk_cs *cs, uint64_t key, uint32_t n)
{
    struct cuzk_cs_rec *r = cs->rec;
    if (!r) return NULL;
    /* a linear scan: a circuit has a few long-lived templates */
    for (uint32_t k = 0; k < r->n_memo; k++) {
        if (r->memo[k].key != key) continue;
        if (r->memo[k].n == n) return r->memo[k].ids;
        cuzk_cs_fail(cs, CUZK_ERR_INVALID_ARGUMENT,
                     "coefficient memo %llu used with %u and %u entries", (unsigned long long)key,
                     r->memo[k].n, n);
        return NULL;
    }
    if (r->n_memo == r->cap_memo) {
        uint32_t cap = r->cap_memo ? 2 * r->cap_memo : 4;
        struct rec_memo *m = realloc(r->memo, cap * sizeof *m);
        if (!m) goto oom;
        r->memo = m;
        r->cap_memo = cap;
    }
    cuzk_coeff *ids = malloc((n ? n : 1) * sizeof *ids);
    if (!ids) goto oom;
    for (uint32_t k = 0; k < n; k++) ids[k] = CUZK_COEFF_UNSET;
    r->memo[r->n_memo++] = (struct rec_memo){key, n, ids};
    return ids;
oom:
    cuzk_cs_fail(cs, CUZK_ERR_NO_MEMORY, "out of memory for a coefficient memo");
    return NULL;
}

cuzk_coeff cuzk_cs_coeff_mul(cuzk_cs *cs, cuzk_coeff c, cuzk_coeff d)
{
    if (c == CUZK_COEFF_ZERO || d == CUZK_COEFF_ZERO) return CUZK_COEFF_ZERO;
    if (c == CUZK_COEFF_ONE) return d;
    if (d == CUZK_COEFF_ONE) return c;
    if (!cs->rec) return CUZK_COEFF_ONE;
    cuzk_fr x, y;
    cuzk_cs_coeff_value(cs, c, &x);
    cuzk_cs_coeff_value(cs, d, &y);
    cuzk_fr_mul(&x, &x, &y);
    return intern(cs, &x);
}

/* ------------------------------------------------------ init, free -- */

static void rec_free(struct cuzk_cs_rec *r)
{
    if (!r) return;
    free(r->field_order);
    free(r->bit_order);
    for (int m = 0; m < 3; m++) {
        free(r->open[m].t);
        free(r->m[m].wire);
        free(r->m[m].coeff);
        free(r->m[m].row_start);
    }
    free(r->rem.t);
    free(r->coeffs);
    free(r->slots);
    free(r->sort);
    for (uint32_t k = 0; k < r->n_memo; k++) free(r->memo[k].ids);
    free(r->memo);
    free(r);
}

static struct cuzk_cs_rec *rec_new(void)
{
    struct cuzk_cs_rec *r = calloc(1, sizeof *r);
    if (!r) return NULL;
    r->cap_coeffs = 256;
    r->coeffs = malloc(r->cap_coeffs * sizeof *r->coeffs);
    r->cap_rows = 1024;
    int ok = r->coeffs != NULL;
    for (int m = 0; m < 3 && ok; m++) {
        r->m[m].row_start = calloc(r->cap_rows + 1, sizeof(uint64_t));
        r->open[m].cap = 64;
        r->open[m].t = malloc(r->open[m].cap * sizeof(cuzk_term));
        ok = r->m[m].row_start && r->open[m].t;
    }
    r->rem.cap = 64;
    r->rem.t = malloc(r->rem.cap * sizeof(cuzk_term));
    ok = ok && r->rem.t;
    for (int k = 0; k < 256; k++) r->pow2[k] = r->npow2[k] = CUZK_COEFF_UNSET;
    if (ok) {
        r->coeffs[0] = CUZK_FR_ONE;
        cuzk_fr_neg(&r->coeffs[1], &CUZK_FR_ONE);
        r->n_coeffs = 2;
        ok = dict_rehash(r, 1024);
    }
    if (!ok) {
        rec_free(r);
        return NULL;
    }
    return r;
}

cuzk_status cuzk_cs_init(cuzk_cs *cs, unsigned flags, const cuzk_cs_shape *shape)
{
    memset(cs, 0, sizeof *cs);
    if (flags & ~(CUZK_CS_RECORD | CUZK_CS_CHECK) ||
        ((flags & CUZK_CS_CHECK) && !(flags & CUZK_CS_RECORD)))
        return CUZK_ERR_INVALID_ARGUMENT;
    uint32_t ci = 16, cb = 0, cf = 0;
    if (shape && !(flags & CUZK_CS_RECORD)) {
        if (shape->n_inputs < 1 || shape->n_inputs > CUZK_VAR_INDEX_MASK ||
            shape->n_aux_bits > CUZK_VAR_INDEX_MASK || shape->n_aux_fields > CUZK_VAR_INDEX_MASK)
            return CUZK_ERR_INVALID_ARGUMENT;
        ci = shape->n_inputs;
        cb = shape->n_aux_bits;
        cf = shape->n_aux_fields;
        cs->fixed = 1;
    }
    cs->flags = flags;
    cs->cap_inputs = ci;
    cs->cap_bits = cb;
    cs->cap_fields = cf;
    cs->inputs = calloc((size_t)ci + 1, sizeof *cs->inputs);
    cs->fields = calloc((size_t)cf + 1, sizeof *cs->fields);
    cs->bits = calloc(bits_words(cb), sizeof *cs->bits);
    cs->layout = calloc(words((size_t)cb + cf + 64), sizeof *cs->layout);
    if (flags & CUZK_CS_RECORD) cs->rec = rec_new();
    if (!cs->inputs || !cs->fields || !cs->bits || !cs->layout ||
        ((flags & CUZK_CS_RECORD) && !cs->rec)) {
        cuzk_cs_free(cs);
        return CUZK_ERR_NO_MEMORY;
    }
    cs->inputs[0] = CUZK_FR_ONE;
    cs->n_inputs = 1;
    return CUZK_OK;
}

void cuzk_cs_free(cuzk_cs *cs)
{
    if (!cs) return;
    free(cs->inputs);
    free(cs->fields);
    free(cs->bits);
    free(cs->layout);
    rec_free(cs->rec);
    memset(cs, 0, sizeof *cs);
}

void cuzk_cs_reset(cuzk_cs *cs)
{
    /* Only what was used is dirty: bits and layout past n_bits and n_aux
     * are zero (the dummy slots are never written in them). */
    memset(cs->bits, 0, words(cs->n_bits) * sizeof *cs->bits);
    memset(cs->layout, 0, words(cs->n_aux) * sizeof *cs->layout);
    cs->n_inputs = cs->outer ? 0 : 1; /* a window's inputs are its outer's */
    cs->inputs[0] = CUZK_FR_ONE;
    cs->n_fields = cs->n_bits = cs->n_aux = 0;
    cs->status = CUZK_OK;
    cs->msg[0] = 0;
    if (cs->flags & CUZK_CS_RECORD) {
        if (cs->rec) {
            struct cuzk_cs_rec *r = cs->rec;
            for (int m = 0; m < 3; m++) r->m[m].n = 0, r->open[m].n = 0;
            r->n_rows = 0;
            r->row_open = 0;
            r->rem.n = 0;
        } else {
            cs->rec = rec_new();
            if (!cs->rec) cuzk_cs_fail(cs, CUZK_ERR_NO_MEMORY, "out of memory for recording");
        }
    }
}

void cuzk_cs_get_shape(const cuzk_cs *cs, cuzk_cs_shape *shape)
{
    shape->n_inputs = cs->n_inputs;
    shape->n_aux = cs->n_aux;
    shape->n_aux_bits = cs->n_bits;
    shape->n_aux_fields = cs->n_fields;
    shape->n_constraints = cs->rec ? cs->rec->n_rows : 0;
}

/* ----------------------------------------------------------- values -- */

/* A variable of a window's outer cs (below the window's position). Its bit
 * words may be OR'ed by other windows' commits at the same time: read them
 * atomically. */
unsigned cuzk_cs_bit_outer(const cuzk_cs *cs, cuzk_var v)
{
    const cuzk_cs *o = cs->outer;
    uint32_t i = v & CUZK_VAR_INDEX_MASK;
    if (!o || i >= o->n_bits) return 0;
    uint64_t word = __atomic_load_n(&o->bits[i >> 6], __ATOMIC_RELAXED);
    return (unsigned)(word >> (i & 63)) & 1u;
}

void cuzk_cs_value(const cuzk_cs *cs, cuzk_var v, cuzk_fr *out)
{
    uint32_t i = v & CUZK_VAR_INDEX_MASK;
    const cuzk_cs *o = cs->outer;
    switch (v & CUZK_VAR_KIND_MASK) {
    case CUZK_VAR_INPUT:
        if (o) cs = o;
        *out = i < cs->n_inputs ? cs->inputs[i] : CUZK_FR_ZERO;
        return;
    case CUZK_VAR_FIELD:
        if (i < cs->base_fields) {
            *out = o && i < o->n_fields ? o->fields[i] : CUZK_FR_ZERO;
            return;
        }
        i -= cs->base_fields;
        *out = i < cs->n_fields ? cs->fields[i] : CUZK_FR_ZERO;
        return;
    case CUZK_VAR_BIT:
        if (i < cs->base_bits) {
            *out = cuzk_cs_bit_outer(cs, v) ? CUZK_FR_ONE : CUZK_FR_ZERO;
            return;
        }
        *out = i - cs->base_bits < cs->n_bits && cuzk_cs_bit(cs, v) ? CUZK_FR_ONE : CUZK_FR_ZERO;
        return;
    default: *out = CUZK_FR_ZERO;
    }
}

cuzk_status cuzk_cs_witness(const cuzk_cs *cs, cuzk_fr *w, size_t n_w)
{
    if (n_w != (size_t)cs->n_inputs + cs->n_aux || !w) return CUZK_ERR_INVALID_ARGUMENT;
    memcpy(w, cs->inputs, cs->n_inputs * sizeof *w);
    w += cs->n_inputs;
    uint32_t bi = 0, fi = 0;
    for (uint32_t j = 0; j < cs->n_aux; j++) {
        if ((cs->layout[j >> 6] >> (j & 63)) & 1) {
            w[j] = (cs->bits[bi >> 6] >> (bi & 63)) & 1 ? CUZK_FR_ONE : CUZK_FR_ZERO;
            bi++;
        } else {
            w[j] = cs->fields[fi++];
        }
    }
    return CUZK_OK;
}

cuzk_status cuzk_cs_witness_split(const cuzk_cs *cs, cuzk_fr *w, uint64_t *is_bit,
                                  uint64_t *bit_val, size_t n_w)
{
    if (n_w != (size_t)cs->n_inputs + cs->n_aux || !w || !is_bit || !bit_val)
        return CUZK_ERR_INVALID_ARGUMENT;
    size_t nwords = words(n_w);
    memset(is_bit, 0, nwords * sizeof *is_bit);
    memset(bit_val, 0, nwords * sizeof *bit_val);
    memcpy(w, cs->inputs, cs->n_inputs * sizeof *w);
    uint32_t n_in = cs->n_inputs, bi = 0, fi = 0;
    /* 64 aux variables at a time: the layout word says which are bits */
    for (uint32_t j0 = 0; j0 < cs->n_aux; j0 += 64) {
        uint32_t n = cs->n_aux - j0 < 64 ? cs->n_aux - j0 : 64;
        uint64_t lay = cs->layout[j0 >> 6] & (n == 64 ? ~0ull : (1ull << n) - 1);
        uint64_t vals = 0;
        for (uint64_t m = lay; m; m &= m - 1, bi++) /* deposit the next bits */
            vals |= ((cs->bits[bi >> 6] >> (bi & 63)) & 1) << __builtin_ctzll(m);
        for (uint64_t m = ~lay & (n == 64 ? ~0ull : (1ull << n) - 1); m; m &= m - 1)
            w[n_in + j0 + __builtin_ctzll(m)] = cs->fields[fi++];
        /* wire = n_in + j: shift the 64-bit words into place */
        size_t wire = (size_t)n_in + j0, k = wire >> 6;
        unsigned sh = wire & 63;
        is_bit[k] |= lay << sh;
        bit_val[k] |= vals << sh;
        if (sh && k + 1 < nwords) {
            is_bit[k + 1] |= lay >> (64 - sh);
            bit_val[k + 1] |= vals >> (64 - sh);
        }
    }
    return CUZK_OK;
}

void cuzk_cs_witness_view(const cuzk_cs *cs, cuzk_witness_view *v)
{
    v->n_inputs = cs->n_inputs;
    v->n_aux = cs->n_aux;
    v->n_bits = cs->n_bits;
    v->n_fields = cs->n_fields;
    v->inputs = cs->inputs;
    v->fields = cs->fields;
    v->bits = cs->bits;
    v->layout = cs->layout;
}

/* ---------------------------------------------------------- windows -- */

cuzk_status cuzk_cs_window_init(cuzk_cs *w, const cuzk_cs_shape *cap)
{
    memset(w, 0, sizeof *w);
    if (!cap || cap->n_aux_bits > CUZK_VAR_INDEX_MASK ||
        cap->n_aux_fields > CUZK_VAR_INDEX_MASK)
        return CUZK_ERR_INVALID_ARGUMENT;
    cuzk_cs_shape sh = {1, cap->n_aux_bits + cap->n_aux_fields, cap->n_aux_bits,
                        cap->n_aux_fields, 0};
    cuzk_status s = cuzk_cs_init(w, CUZK_CS_WITNESS, &sh);
    if (s != CUZK_OK) return s;
    w->outer = w; /* a window (set to the real outer by window_start) */
    w->cap_inputs = 0; /* every input allocation fails */
    w->n_inputs = 0;
    return CUZK_OK;
}

cuzk_status cuzk_cs_window_start(cuzk_cs *w, const cuzk_cs *outer, const cuzk_cs_shape *at)
{
    if (!w->outer || !outer || outer->outer || outer->rec) return CUZK_ERR_INVALID_ARGUMENT;
    w->outer = outer;
    cuzk_cs_reset(w);
    if ((uint64_t)at->n_aux_bits + at->n_aux_fields != at->n_aux ||
        (uint64_t)at->n_aux_bits + w->cap_bits >= CUZK_VAR_INDEX_MASK ||
        (uint64_t)at->n_aux_fields + w->cap_fields >= CUZK_VAR_INDEX_MASK) {
        w->base_bits = w->base_fields = w->base_aux = 0;
        cuzk_cs_fail(w, CUZK_ERR_INVALID_ARGUMENT, "window position out of range");
        return CUZK_ERR_INVALID_ARGUMENT;
    }
    w->base_bits = at->n_aux_bits;
    w->base_fields = at->n_aux_fields;
    w->base_aux = at->n_aux;
    return CUZK_OK;
}

/* ORs n bits of src (bit 0 first, zero past n) into dst at bit offset off.
 * The first and last words written may be shared with a neighbour: atomic. */
static void or_bits_at(uint64_t *dst, uint64_t off, const uint64_t *src, uint64_t n)
{
    if (!n) return;
    uint64_t nw = words(n), d0 = off >> 6, dlast = (off + n - 1) >> 6;
    unsigned sh = off & 63;
    for (uint64_t k = 0; k < nw; k++) {
        uint64_t v = src[k];
        if (k == nw - 1 && (n & 63)) v &= ((uint64_t)1 << (n & 63)) - 1;
        uint64_t d = d0 + k;
        uint64_t lo = v << sh, hi = sh ? v >> (64 - sh) : 0;
        if (lo) {
            if (d == d0 || d == dlast) __atomic_fetch_or(&dst[d], lo, __ATOMIC_RELAXED);
            else dst[d] |= lo;
        }
        if (hi) {
            if (d + 1 == dlast) __atomic_fetch_or(&dst[d + 1], hi, __ATOMIC_RELAXED);
            else dst[d + 1] |= hi;
        }
    }
}

cuzk_status cuzk_cs_window_commit(cuzk_cs *outer, const cuzk_cs *w)
{
    if (w->status != CUZK_OK) return w->status;
    if (w->outer != outer || outer->rec) return CUZK_ERR_INVALID_ARGUMENT;
    if ((uint64_t)w->base_bits + w->n_bits > outer->cap_bits ||
        (uint64_t)w->base_fields + w->n_fields > outer->cap_fields ||
        (uint64_t)w->base_aux + w->n_aux > (uint64_t)outer->cap_bits + outer->cap_fields)
        return CUZK_ERR_INVALID_ARGUMENT;
    memcpy(outer->fields + w->base_fields, w->fields, (size_t)w->n_fields * sizeof *w->fields);
    or_bits_at(outer->bits, w->base_bits, w->bits, w->n_bits);
    or_bits_at(outer->layout, w->base_aux, w->layout, w->n_aux);
    return CUZK_OK;
}

cuzk_status cuzk_cs_skip(cuzk_cs *cs, const cuzk_cs_shape *n)
{
    if (cs->rec || cs->outer || (uint64_t)n->n_aux_bits + n->n_aux_fields != n->n_aux ||
        (uint64_t)cs->n_bits + n->n_aux_bits > cs->cap_bits ||
        (uint64_t)cs->n_fields + n->n_aux_fields > cs->cap_fields)
        return CUZK_ERR_INVALID_ARGUMENT;
    cs->n_bits += n->n_aux_bits;
    cs->n_fields += n->n_aux_fields;
    cs->n_aux += n->n_aux;
    return CUZK_OK;
}

/* -------------------------------------------------------- recording -- */

static int var_valid(const cuzk_cs *cs, cuzk_var v)
{
    uint32_t i = v & CUZK_VAR_INDEX_MASK;
    switch (v & CUZK_VAR_KIND_MASK) {
    case CUZK_VAR_INPUT: return i < cs->n_inputs;
    case CUZK_VAR_FIELD: return i < cs->n_fields;
    case CUZK_VAR_BIT: return i < cs->n_bits;
    default: return 0;
    }
}

void cuzk_cs_begin(cuzk_cs *cs)
{
    struct cuzk_cs_rec *r = cs->rec;
    if (!r) return;
    if (r->row_open)
        cuzk_cs_fail(cs, CUZK_ERR_INVALID_ARGUMENT, "cuzk_cs_begin inside an open constraint");
    r->row_open = 1;
    r->open[0].n = r->open[1].n = r->open[2].n = 0;
}

/* Checks term (v, c) (c not ZERO); 0 with the status set if it is bad. */
static int term_valid(cuzk_cs *cs, cuzk_var v, cuzk_coeff c)
{
    if (!var_valid(cs, v)) {
        cuzk_cs_fail(cs, CUZK_ERR_INVALID_ARGUMENT,
                     "constraint %llu uses variable 0x%08x, which was never allocated",
                     (unsigned long long)cs->rec->n_rows, v);
        return 0;
    }
    if (c >= cs->rec->n_coeffs) {
        cuzk_cs_fail(cs, CUZK_ERR_INVALID_ARGUMENT, "unknown coefficient index %u", c);
        return 0;
    }
    return 1;
}

/* Room for n more terms in the open row of matrix m (m checked, a row open). */
static open_row *open_reserve(cuzk_cs *cs, cuzk_abc m, uint32_t n)
{
    struct cuzk_cs_rec *r = cs->rec;
    if (!r->row_open || (unsigned)m > 2) {
        cuzk_cs_fail(cs, CUZK_ERR_INVALID_ARGUMENT, "term outside cuzk_cs_begin/end");
        return NULL;
    }
    open_row *o = &r->open[m];
    if ((uint64_t)o->n + n > o->cap) {
        uint64_t cap = o->cap;
        while (cap < (uint64_t)o->n + n) cap *= 2;
        cuzk_term *t = cap <= UINT32_MAX ? realloc(o->t, cap * sizeof *t) : NULL;
        if (!t) {
            cuzk_cs_fail(cs, CUZK_ERR_NO_MEMORY, "out of memory for a constraint");
            return NULL;
        }
        o->t = t;
        o->cap = (uint32_t)cap;
    }
    return o;
}

void cuzk_cs_term(cuzk_cs *cs, cuzk_abc m, cuzk_var v, cuzk_coeff c)
{
    if (!cs->rec || c == CUZK_COEFF_ZERO) return;
    open_row *o = open_reserve(cs, m, 1);
    if (o && term_valid(cs, v, c)) o->t[o->n++] = (cuzk_term){v, c};
}

void cuzk_cs_term_lc(cuzk_cs *cs, cuzk_abc m, const cuzk_lc *lc, cuzk_coeff scale)
{
    if (!cs->rec) return;
    if (lc->n > lc->cap) {
        cuzk_cs_fail(cs, CUZK_ERR_INVALID_ARGUMENT,
                     "linear combination of %u terms overflowed its storage of %u", lc->n,
                     lc->cap);
        return;
    }
    if (scale != CUZK_COEFF_ONE) {
        for (uint32_t k = 0; k < lc->n; k++)
            cuzk_cs_term(cs, m, lc->t[k].var, cuzk_cs_coeff_mul(cs, lc->t[k].coeff, scale));
        return;
    }
    /* scale 1: the terms as they are, in one go. A branch-free check of
     * the whole list first (a ZERO coefficient counts as bad: >= n_coeffs),
     * then one copy; term by term only if something is off. */
    open_row *o = open_reserve(cs, m, lc->n);
    if (!o) return;
    const uint32_t lim[4] = {cs->n_inputs, cs->n_fields, cs->n_bits, 0};
    uint32_t n_coeffs = cs->rec->n_coeffs, bad = 0;
    for (uint32_t k = 0; k < lc->n; k++) {
        cuzk_term t = lc->t[k];
        bad |= ((t.var & CUZK_VAR_INDEX_MASK) >= lim[t.var >> 30]) | (t.coeff >= n_coeffs);
    }
    if (!bad) {
        memcpy(o->t + o->n, lc->t, (size_t)lc->n * sizeof *o->t);
        o->n += lc->n;
        return;
    }
    for (uint32_t k = 0; k < lc->n; k++) {
        cuzk_term t = lc->t[k];
        if (t.coeff == CUZK_COEFF_ZERO) continue;
        if (!term_valid(cs, t.var, t.coeff)) return;
        o->t[o->n++] = t;
    }
}

static uint32_t wire_of(const cuzk_cs *cs, cuzk_var v)
{
    uint32_t i = v & CUZK_VAR_INDEX_MASK;
    switch (v & CUZK_VAR_KIND_MASK) {
    case CUZK_VAR_FIELD: return AUX_TAG | cs->rec->field_order[i];
    case CUZK_VAR_BIT: return AUX_TAG | cs->rec->bit_order[i];
    default: return i;
    }
}

/* Sorts a[0..n) by wire (the high 32 bits). Ties may come out in any
 * order: flush_row sums them. Most rows arrive sorted or nearly so
 * (gadgets emit terms in allocation order; a replayed Poseidon row has
 * only its t inputs out of place), so a linear pass first counts the
 * descents: none, and the row stays; few, and an insertion sort runs while
 * its moves stay under a budget (few descents can still mean many moves:
 * two interleaved runs); else, or past the budget, an LSD radix sort.
 * The limits (16 descents, 4n moves, about the radix sort's 8n reads and
 * writes) are not yet measured as crossovers. */
static void sort_u64(uint64_t *a, uint32_t n)
{
    uint32_t desc = 0;
    for (uint32_t i = 1; i < n; i++) desc += (a[i] >> 32) < (a[i - 1] >> 32);
    if (desc == 0) return;
    if (n <= 24 || desc <= 16) {
        uint64_t budget = n <= 24 ? UINT64_MAX : 4 * (uint64_t)n;
        uint32_t i = 1;
        for (; i < n && budget; i++) {
            uint64_t x = a[i];
            uint32_t j = i;
            for (; j > 0 && (a[j - 1] >> 32) > (x >> 32) && budget; j--, budget--) a[j] = a[j - 1];
            a[j] = x; /* a permutation of the row even when cut short */
        }
        if (i == n && budget) return;
    }
    /* LSD radix sort on the 32-bit wire: 4 passes of 8 bits, via a buffer
     * at a + n (the caller reserved 2n). */
    uint64_t *src = a, *dst = a + n;
    for (int pass = 0; pass < 4; pass++) {
        uint32_t cnt[257] = {0};
        unsigned sh = 32 + 8 * pass;
        for (uint32_t i = 0; i < n; i++) cnt[((src[i] >> sh) & 255) + 1]++;
        for (int b = 0; b < 256; b++) cnt[b + 1] += cnt[b];
        for (uint32_t i = 0; i < n; i++) dst[cnt[(src[i] >> sh) & 255]++] = src[i];
        uint64_t *t = src; src = dst; dst = t;
    }
    /* four passes: the result is back in a */
}

/* Room for n more terms in mat. */
static int mat_reserve(cuzk_cs *cs, rec_mat *mat, uint64_t n)
{
    if (mat->n + n <= mat->cap) return 1;
    uint64_t cap = mat->cap ? mat->cap : 4096;
    while (cap < mat->n + n) cap *= 2;
    uint32_t *wv = realloc(mat->wire, cap * sizeof *wv);
    if (wv) mat->wire = wv;
    uint32_t *cv = realloc(mat->coeff, cap * sizeof *cv);
    if (cv) mat->coeff = cv;
    if (!wv || !cv) {
        cuzk_cs_fail(cs, CUZK_ERR_NO_MEMORY, "out of memory for the matrices");
        return 0;
    }
    mat->cap = cap;
    return 1;
}

/* Canonicalises the open row of matrix m and appends it.
 *
 * A row's canonical form depends only on its terms: the wire of a variable
 * is fixed when it is allocated, and a merged sum is interned to the same
 * id every time (an interned value keeps its id). So a row with the same
 * terms, in the same order, as the last row of 2 or more terms that was
 * canonicalised copies that one's result (a row of one term costs less
 * than the compare). Gadgets repeat rows: the Poseidon S-box x^5 records
 * its input x three times (x * x = x2, x4 * x = x5), the long rows of the
 * partial rounds included; copying the two repeats took recording
 * wpost-32g at 2^20 from 0.54 to 0.49 s (docs/perf.md). */
static void flush_row(cuzk_cs *cs, int m)
{
    struct cuzk_cs_rec *r = cs->rec;
    open_row *o = &r->open[m];
    rec_mat *mat = &r->m[m];
    if (o->n <= 1) { /* most rows of most gadgets: nothing to sort or merge */
        if (o->n == 0 || !mat_reserve(cs, mat, 1)) return;
        mat->wire[mat->n] = wire_of(cs, o->t[0].var);
        mat->coeff[mat->n++] = o->t[0].coeff; /* open rows hold no ZERO */
        return;
    }
    if (o->n == r->rem.n && !memcmp(o->t, r->rem.t, o->n * sizeof *o->t)) {
        uint64_t len = r->rem_len;
        if (!mat_reserve(cs, mat, len)) return;
        const rec_mat *src = &r->m[r->rem_m]; /* after the reserve: it may be mat */
        memcpy(mat->wire + mat->n, src->wire + r->rem_at, len * sizeof *mat->wire);
        memcpy(mat->coeff + mat->n, src->coeff + r->rem_at, len * sizeof *mat->coeff);
        mat->n += len;
        return;
    }
    if ((uint64_t)o->n * 2 > r->cap_sort) {
        uint32_t cap = o->n * 2 < 128 ? 128 : o->n * 2;
        uint64_t *s = realloc(r->sort, (size_t)cap * sizeof *s);
        if (!s) {
            cuzk_cs_fail(cs, CUZK_ERR_NO_MEMORY, "out of memory for a constraint");
            return;
        }
        r->sort = s;
        r->cap_sort = cap;
    }
    uint64_t *s = r->sort;
    for (uint32_t k = 0; k < o->n; k++)
        s[k] = (uint64_t)wire_of(cs, o->t[k].var) << 32 | o->t[k].coeff;
    sort_u64(s, o->n);
    /* merge equal wires, drop zero sums */
    uint32_t out = 0;
    for (uint32_t k = 0; k < o->n;) {
        uint32_t w = (uint32_t)(s[k] >> 32);
        cuzk_coeff c = (uint32_t)s[k];
        uint32_t e = k + 1;
        if (e < o->n && (uint32_t)(s[e] >> 32) == w) {
            cuzk_fr sum, x;
            cuzk_cs_coeff_value(cs, c, &sum);
            for (; e < o->n && (uint32_t)(s[e] >> 32) == w; e++) {
                cuzk_cs_coeff_value(cs, (uint32_t)s[e], &x);
                cuzk_fr_add(&sum, &sum, &x);
            }
            c = intern(cs, &sum);
        }
        if (c != CUZK_COEFF_ZERO) s[out++] = (uint64_t)w << 32 | c;
        k = e;
    }
    if (!mat_reserve(cs, mat, out)) return;
    for (uint32_t k = 0; k < out; k++) {
        mat->wire[mat->n + k] = (uint32_t)(s[k] >> 32);
        mat->coeff[mat->n + k] = (uint32_t)s[k];
    }
    /* remember the row: its terms move to rem, rem's buffer to o */
    open_row t = r->rem;
    r->rem = *o;
    *o = t;
    o->n = 0;
    r->rem_m = m;
    r->rem_at = mat->n;
    r->rem_len = out;
    mat->n += out;
}

static void open_value(const cuzk_cs *cs, const open_row *o, cuzk_fr *acc)
{
    cuzk_fr x, c;
    *acc = CUZK_FR_ZERO;
    for (uint32_t k = 0; k < o->n; k++) {
        cuzk_cs_value(cs, o->t[k].var, &x);
        cuzk_cs_coeff_value(cs, o->t[k].coeff, &c);
        cuzk_fr_mul(&x, &x, &c);
        cuzk_fr_add(acc, acc, &x);
    }
}

void cuzk_cs_end(cuzk_cs *cs)
{
    struct cuzk_cs_rec *r = cs->rec;
    if (!r) return;
    if (!r->row_open) {
        cuzk_cs_fail(cs, CUZK_ERR_INVALID_ARGUMENT, "cuzk_cs_end without cuzk_cs_begin");
        return;
    }
    r->row_open = 0;
    if (cs->flags & CUZK_CS_CHECK) {
        cuzk_fr a, b, c;
        open_value(cs, &r->open[0], &a);
        open_value(cs, &r->open[1], &b);
        open_value(cs, &r->open[2], &c);
        cuzk_fr_mul(&a, &a, &b);
        if (!cuzk_fr_eq(&a, &c))
            cuzk_cs_fail(cs, CUZK_ERR_UNSATISFIED, "constraint %llu is not satisfied (A*B != C)",
                         (unsigned long long)r->n_rows);
    }
    if (r->n_rows == r->cap_rows) {
        uint64_t cap = r->cap_rows * 2;
        for (int m = 0; m < 3; m++) {
            uint64_t *rs = realloc(r->m[m].row_start, (cap + 1) * sizeof *rs);
            if (!rs) {
                cuzk_cs_fail(cs, CUZK_ERR_NO_MEMORY, "out of memory for the matrices");
                return;
            }
            r->m[m].row_start = rs;
        }
        r->cap_rows = cap;
    }
    for (int m = 0; m < 3; m++) {
        flush_row(cs, m);
        r->m[m].row_start[r->n_rows + 1] = r->m[m].n;
    }
    r->n_rows++;
}

void cuzk_cs_enforce(cuzk_cs *cs, const cuzk_lc *a, const cuzk_lc *b, const cuzk_lc *c)
{
    if (!cs->rec) return;
    cuzk_cs_begin(cs);
    cuzk_cs_term_lc(cs, CUZK_A, a, CUZK_COEFF_ONE);
    cuzk_cs_term_lc(cs, CUZK_B, b, CUZK_COEFF_ONE);
    cuzk_cs_term_lc(cs, CUZK_C, c, CUZK_COEFF_ONE);
    cuzk_cs_end(cs);
}

void cuzk_cs_lc_value(const cuzk_cs *cs, const cuzk_lc *lc, cuzk_fr *out)
{
    open_row o = {lc->t, lc->n <= lc->cap ? lc->n : lc->cap, lc->cap};
    open_value(cs, &o, out);
}

uint64_t cuzk_cs_n_constraints(const cuzk_cs *cs) { return cs->rec ? cs->rec->n_rows : 0; }

/* ----------------------------------------------------------- result -- */

cuzk_status cuzk_cs_take_matrices(cuzk_cs *cs, cuzk_matrices *out)
{
    memset(out, 0, sizeof *out);
    struct cuzk_cs_rec *r = cs->rec;
    if (!r) return CUZK_ERR_INVALID_ARGUMENT;
    if (r->row_open)
        cuzk_cs_fail(cs, CUZK_ERR_INVALID_ARGUMENT, "a constraint is still open (no cuzk_cs_end)");
    if ((uint64_t)cs->n_inputs + cs->n_aux > UINT32_MAX)
        cuzk_cs_fail(cs, CUZK_ERR_INVALID_ARGUMENT, "more than 2^32 wires");
    if (cs->status != CUZK_OK) return cs->status;
    uint32_t n_in = cs->n_inputs;
    cuzk_sparse *sp[3] = {&out->a, &out->b, &out->c};
    for (int m = 0; m < 3; m++) {
        rec_mat *mat = &r->m[m];
        for (uint64_t k = 0; k < mat->n; k++)
            if (mat->wire[k] & AUX_TAG) mat->wire[k] = n_in + (mat->wire[k] & ~AUX_TAG);
        /* an empty matrix still gets (1-element) arrays so that every
         * consumer can index them */
        if (!mat->wire) {
            mat->wire = malloc(sizeof *mat->wire);
            mat->coeff = malloc(sizeof *mat->coeff);
            if (!mat->wire || !mat->coeff) return CUZK_ERR_NO_MEMORY;
        }
        sp[m]->n_terms = mat->n;
        sp[m]->row_start = mat->row_start;
        sp[m]->wire = mat->wire;
        sp[m]->coeff = mat->coeff;
        mat->row_start = NULL;
        mat->wire = mat->coeff = NULL;
    }
    out->n_rows = r->n_rows;
    out->coeffs = r->coeffs;
    out->n_coeffs = r->n_coeffs;
    r->coeffs = NULL;
    rec_free(r);
    cs->rec = NULL;
    return CUZK_OK;
}

cuzk_status cuzk_cs_take_r1cs(cuzk_cs *cs, cuzk_r1cs *out)
{
    memset(out, 0, sizeof *out);
    if (cs->rec && cs->rec->n_rows > UINT32_MAX) {
        cuzk_cs_fail(cs, CUZK_ERR_INVALID_ARGUMENT, "more than 2^32 constraints for an r1cs");
        return cs->status;
    }
    uint32_t n_in = cs->n_inputs, n_aux = cs->n_aux;
    cuzk_status s = cuzk_cs_take_matrices(cs, &out->m);
    if (s != CUZK_OK) return s;
    out->n_wires = n_in + n_aux;
    out->n_pub_out = 0;
    out->n_pub_in = n_in - 1;
    out->n_prv_in = 0;
    out->n_public = n_in - 1;
    out->n_constraints = (uint32_t)out->m.n_rows;
    return CUZK_OK;
}
