/* Sparse Merkle trees and the small helpers of the built-in circuits. */
#include <stdlib.h>
#include <string.h>

#include "circuits/circ_internal.h"
#include "common/parallel.h"

/* ------------------------------------------------------------- random -- */

static uint64_t mix64(uint64_t x) /* splitmix64's finaliser */
{
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

uint64_t circ_rand(uint64_t seed, uint64_t tag, uint64_t a, uint64_t b, uint64_t i)
{
    uint64_t h = mix64(seed + 0x9e3779b97f4a7c15ull);
    h = mix64(h ^ (tag * 0xd6e8feb86659fd93ull));
    h = mix64(h ^ (a + 0x632be59bd9b4e019ull));
    h = mix64(h ^ (b * 0x8cb92ba72f3d8dd7ull));
    return mix64(h ^ (i + 1));
}

void circ_rand_bytes254(uint8_t out[32], uint64_t seed, uint64_t tag, uint64_t a, uint64_t b)
{
    for (int i = 0; i < 4; i++) {
        uint64_t r = circ_rand(seed, tag, a, b, (uint64_t)i);
        memcpy(out + 8 * i, &r, 8);
    }
    out[31] &= 0xfc; /* message bits 254, 255 */
}

void circ_fr_of_bytes254(cuzk_fr *out, const uint8_t b[32])
{
    uint64_t l[4] = {0, 0, 0, 0};
    for (unsigned i = 0; i < 254; i++)
        if ((b[i / 8] >> (7 - i % 8)) & 1) l[i / 64] |= (uint64_t)1 << (i % 64);
    cuzk_fr_from_limbs(out, l); /* < 2^254 < r: always canonical */
}

void circ_bytes_of_fr254(uint8_t out[32], const cuzk_fr *v)
{
    uint64_t l[4];
    cuzk_fr_to_limbs(l, v);
    memset(out, 0, 32);
    for (unsigned i = 0; i < 254; i++)
        if ((l[i / 64] >> (i % 64)) & 1) out[i / 8] |= (uint8_t)(0x80 >> (i % 8));
}

void circ_rand_fr(cuzk_fr *out, uint64_t seed, uint64_t tag, uint64_t a, uint64_t b)
{
    uint64_t l[4];
    for (int i = 0; i < 4; i++) l[i] = circ_rand(seed, tag, a, b, (uint64_t)i);
    l[3] &= 0x3fffffffffffffffull;
    cuzk_fr_from_limbs(out, l);
}

/* ------------------------------------------------------- small gadgets -- */

void circ_enforce_eq(cuzk_cs *cs, cuzk_var x, cuzk_var y)
{
    if (!cuzk_cs_recording(cs)) return;
    cuzk_cs_begin(cs); /* x * 1 = y */
    cuzk_cs_term(cs, CUZK_A, x, CUZK_COEFF_ONE);
    cuzk_cs_term(cs, CUZK_B, CUZK_VAR_ONE, CUZK_COEFF_ONE);
    cuzk_cs_term(cs, CUZK_C, y, CUZK_COEFF_ONE);
    cuzk_cs_end(cs);
}

void circ_alloc_bits(cuzk_cs *cs, cuzk_bool *out, uint64_t v, unsigned n)
{
    for (unsigned i = 0; i < n; i++) out[i] = cuzk_bool_alloc(cs, i < 64 ? (v >> i) & 1 : 0);
}

void circ_alloc_frs(cuzk_cs *cs, cuzk_var *out, const cuzk_fr *v, unsigned k)
{
    for (unsigned i = 0; i < k; i++) out[i] = cuzk_cs_alloc(cs, &v[i]);
}

/* out = b ? y : x as a new variable: (y - x) * b = out - x. 1 constraint. */
static cuzk_var select_var(cuzk_cs *cs, cuzk_bool b, cuzk_var x, cuzk_var y)
{
    cuzk_fr vx, vy;
    cuzk_cs_value(cs, x, &vx);
    cuzk_cs_value(cs, y, &vy);
    cuzk_var o = cuzk_cs_alloc(cs, b.value ? &vy : &vx);
    if (cuzk_cs_recording(cs)) {
        cuzk_cs_begin(cs);
        cuzk_cs_term(cs, CUZK_A, y, CUZK_COEFF_ONE);
        cuzk_cs_term(cs, CUZK_A, x, CUZK_COEFF_MINUS_ONE);
        cuzk_bool_term(cs, CUZK_B, b, CUZK_COEFF_ONE);
        cuzk_cs_term(cs, CUZK_C, o, CUZK_COEFF_ONE);
        cuzk_cs_term(cs, CUZK_C, x, CUZK_COEFF_MINUS_ONE);
        cuzk_cs_end(cs);
    }
    return o;
}

cuzk_var circ_path_pos2(cuzk_cs *cs, cuzk_var leaf, const cuzk_bool *path, const cuzk_var *sib,
                        unsigned depth)
{
    const cuzk_poseidon *p2 = cuzk_poseidon_std(2);
    if (!p2) {
        cuzk_cs_fail(cs, CUZK_ERR_NO_MEMORY, "out of memory for the Poseidon constants");
        return leaf;
    }
    cuzk_var cur = leaf;
    for (unsigned l = 0; l < depth; l++) {
        cuzk_var pair[2];
        pair[0] = select_var(cs, path[l], cur, sib[l]); /* left */
        pair[1] = select_var(cs, path[l], sib[l], cur); /* right */
        cur = cuzk_poseidon_hash(cs, p2, pair);
    }
    return cur;
}

/* -------------------------------------------------------- sparse trees -- */

static void node_hash(circ_tree_kind kind, circ_node *out, const circ_node *ch)
{
    switch (kind) {
    case TREE_SHA2: {
        uint8_t pair[64];
        memcpy(pair, ch[0].b, 32);
        memcpy(pair + 32, ch[1].b, 32);
        cuzk_sha256_native(out->b, pair, 64);
        return;
    }
    case TREE_POS2:
    case TREE_POS8: {
        cuzk_fr in[8];
        unsigned a = kind == TREE_POS2 ? 2 : 8;
        for (unsigned i = 0; i < a; i++) in[i] = ch[i].f;
        cuzk_poseidon_hash_native(cuzk_poseidon_std(a), &out->f, in);
        return;
    }
    }
}

static void node_rand(const circ_tree *t, circ_node *out, unsigned level, uint64_t index)
{
    if (t->kind == TREE_SHA2) {
        for (int i = 0; i < 4; i++) {
            uint64_t r = circ_rand(t->seed, t->tag, level, index, (uint64_t)i);
            memcpy(out->b + 8 * i, &r, 8);
        }
    } else {
        circ_rand_fr(&out->f, t->seed, t->tag, level, index);
    }
}

static int64_t find(const uint64_t *a, uint64_t n, uint64_t x)
{
    uint64_t lo = 0, hi = n;
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo) / 2;
        if (a[mid] < x) lo = mid + 1;
        else hi = mid;
    }
    return lo < n && a[lo] == x ? (int64_t)lo : -1;
}

/* Child c of the parent group `group` at level l: known or drawn. */
static void child(const circ_tree *t, unsigned l, uint64_t group, unsigned c, circ_node *out)
{
    uint64_t i = (group << t->log_arity) | c;
    int64_t k = find(t->idx[l], t->n[l], i);
    if (k >= 0) *out = t->val[l][k];
    else node_rand(t, out, l, i);
}

typedef struct {
    circ_tree *t;
    unsigned l; /* children level */
} level_job;

static void hash_level(void *ctx, size_t b, size_t e)
{
    level_job *j = ctx;
    circ_tree *t = j->t;
    unsigned l = j->l, a = 1u << t->log_arity;
    for (size_t k = b; k < e; k++) {
        circ_node ch[8];
        uint64_t g = t->idx[l + 1][k];
        for (unsigned c = 0; c < a; c++) child(t, l, g, c, &ch[c]);
        node_hash(t->kind, &t->val[l + 1][k], ch);
    }
}

typedef struct {
    uint64_t idx;
    circ_node v;
} leaf_rec;

static int leaf_cmp(const void *x, const void *y)
{
    uint64_t a = ((const leaf_rec *)x)->idx, b = ((const leaf_rec *)y)->idx;
    return a < b ? -1 : a > b;
}

void circ_tree_free(circ_tree *t)
{
    if (t->idx)
        for (unsigned l = 0; l <= t->depth; l++) {
            free(t->idx[l]);
            free(t->val[l]);
        }
    free(t->idx);
    free(t->val);
    free(t->n);
    memset(t, 0, sizeof *t);
}

cuzk_status circ_tree_build(circ_tree *t, circ_tree_kind kind, unsigned depth, uint64_t seed,
                            uint64_t tag, const uint64_t *leaf_idx, const circ_node *leaf_val,
                            size_t n, unsigned nthreads)
{
    memset(t, 0, sizeof *t);
    t->kind = kind;
    t->log_arity = kind == TREE_POS8 ? 3 : 1;
    t->depth = depth;
    t->seed = seed;
    t->tag = tag;
    t->n = calloc(depth + 1, sizeof *t->n);
    t->idx = calloc(depth + 1, sizeof *t->idx);
    t->val = calloc(depth + 1, sizeof *t->val);
    leaf_rec *lr = malloc((n ? n : 1) * sizeof *lr);
    if (!t->n || !t->idx || !t->val || !lr) goto oom;
    for (size_t i = 0; i < n; i++) lr[i] = (leaf_rec){leaf_idx[i], leaf_val[i]};
    qsort(lr, n, sizeof *lr, leaf_cmp);
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        if (m && lr[m - 1].idx == lr[i].idx) {
            if (memcmp(&lr[m - 1].v, &lr[i].v, sizeof lr[i].v)) {
                free(lr);
                circ_tree_free(t);
                return CUZK_ERR_INVALID_ARGUMENT;
            }
            continue;
        }
        lr[m++] = lr[i];
    }
    t->n[0] = m;
    t->idx[0] = malloc((m ? m : 1) * sizeof **t->idx);
    t->val[0] = malloc((m ? m : 1) * sizeof **t->val);
    if (!t->idx[0] || !t->val[0]) goto oom;
    for (size_t i = 0; i < m; i++) t->idx[0][i] = lr[i].idx, t->val[0][i] = lr[i].v;
    free(lr);
    lr = NULL;
    for (unsigned l = 0; l < depth; l++) {
        /* the parents of the known nodes (sorted input: sorted output) */
        uint64_t np = 0, *pi = malloc((t->n[l] ? t->n[l] : 1) * sizeof *pi);
        if (!pi) goto oom;
        for (uint64_t k = 0; k < t->n[l]; k++) {
            uint64_t g = t->idx[l][k] >> t->log_arity;
            if (!np || pi[np - 1] != g) pi[np++] = g;
        }
        t->idx[l + 1] = pi;
        t->n[l + 1] = np;
        t->val[l + 1] = malloc((np ? np : 1) * sizeof **t->val);
        if (!t->val[l + 1]) goto oom;
        level_job j = {t, l};
        /* ~100 us a Poseidon-8 hash: 16 nodes is worth a thread */
        cuzk_parallel_for(np, 16, nthreads ? nthreads : 1, hash_level, &j);
    }
    return CUZK_OK;
oom:
    free(lr);
    circ_tree_free(t);
    return CUZK_ERR_NO_MEMORY;
}

const circ_node *circ_tree_root(const circ_tree *t) { return &t->val[t->depth][0]; }

void circ_tree_siblings(const circ_tree *t, uint64_t index, circ_node *sib)
{
    unsigned a = 1u << t->log_arity;
    for (unsigned l = 0; l < t->depth; l++) {
        uint64_t i = index >> (l * t->log_arity), g = i >> t->log_arity;
        unsigned pos = (unsigned)(i & (a - 1));
        for (unsigned c = 0; c < a; c++)
            if (c != pos) child(t, l, g, c, sib++);
    }
}
