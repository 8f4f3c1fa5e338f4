/* porep-32g: the shape of a 32 GiB PoRep (SDR) partition, synthetic.
 *
 * Public inputs: ONE, replica_id, comm_d, comm_r, then the node index of
 * each challenge. Prologue: the 254 bits of replica_id; comm_c and
 * comm_r_last (private) with comm_r = Poseidon2(comm_c, comm_r_last).
 * One piece per challenge, for node x with parents p_0..p_{P-1}:
 *   - x's index bits, packed = its public input;
 *   - the data leaf d(x) (254 bits) on a SHA-256 binary path of depth
 *     sha_depth to comm_d (the root's first 254 bits);
 *   - every parent's column (its labels at all layers, 254 bits each, drawn
 *     from the seed), packed to field values;
 *   - labels l = 1..L of x: SHA-256(replica_id || l || x || 0^20 || slots
 *     parent labels), the slots filled cyclically from the base parents'
 *     labels at layer l, and for l >= 2 the expander parents' labels at
 *     layer l - 1 and x's own label at l - 1 (the chain);
 *   - the column hashes (Poseidon arity 8, chained) of x and its parents,
 *     each on a Poseidon-8 path of depth pos_depth to comm_c;
 *   - replica = d(x) + label_L(x) on a Poseidon-8 path to comm_r_last.
 * The parents are drawn from the seed (never a challenged node), their
 * labels too: the real SDR graph and its labels are not computed. */
#include <stdlib.h>
#include <string.h>

#include "circuits/circ_internal.h"
#include "common/parallel.h"

enum { TAG_RID = 1, TAG_DATA, TAG_PARENT, TAG_PLABEL, TAG_TREE_D, TAG_TREE_C, TAG_TREE_R,
       TAG_CHAL };

typedef struct {
    circ_params p;
    uint64_t seed;
    unsigned n; /* challenges */
    cuzk_fr replica_id, comm_d, comm_c, comm_r_last, comm_r;
    uint64_t *node;     /* n */
    uint8_t *data;      /* n x 32 */
    uint64_t *parent;   /* n x P */
    uint8_t *plabel;    /* n x P x L x 32 */
    circ_node *sib_d;   /* n x sha_depth */
    circ_node *sib_c;   /* n x (P + 1) x 7 pos_depth */
    circ_node *sib_r;   /* n x 7 pos_depth */
    /* while preparing */
    uint8_t *own;       /* n x L x 32 labels of the challenged nodes */
    uint64_t *leaf_c_idx;
    circ_node *leaf_c, *leaf_r, *leaf_d;
    uint64_t *leaf_d_idx;
    circ_tree td, tc, tr;
} porep_job;

static unsigned n_base(const circ_params *p) { return p->parents < 6 ? p->parents : 6; }
static unsigned label_bytes(const circ_params *p) { return 64 + 32 * p->slots; }
static unsigned n_colhash(unsigned L) { return L <= 8 ? 1 : 1 + (L - 8 + 6) / 7; }

/* bellman's SHA-256 costs (gadgets.h) for a message of variable bytes. */
static uint64_t sha_cost(unsigned bytes)
{
    unsigned blocks = (bytes + 9 + 63) / 64;
    uint64_t c = 25840 + (uint64_t)(blocks - 2) * 26192;
    return c + (bytes % 64 == 0 ? 19034 : 26192);
}

static uint64_t piece_cost(const circ_params *p)
{
    uint64_t nb = circ_node_bits(p), L = p->layers, P = p->parents, pd = p->pos_depth;
    uint64_t c = nb + 2 + 255;                                            /* index, data */
    c += p->sha_depth ? p->sha_depth * (256ull + 45386) + 2 : 1;            /* tree D */
    c += P * (nb + L * 255);                                              /* parents */
    c += L * (sha_cost(label_bytes(p)) + 1);                              /* labels */
    c += (P + 1) * (n_colhash(p->layers) * 403 + pd * 421 + 1);           /* tree C */
    c += 1 + pd * 421 + 1;                                                /* tree R */
    return c;
}

static uint64_t estimate(const circ_params *p) { return 497 + p->pieces * piece_cost(p); }

static void shrink(circ_params *p, uint64_t target)
{
    /* two challenges are kept while the rest shrinks, so that small sizes
     * still have sub-circuits to run in parallel */
    unsigned *knob[] = {&p->pieces, &p->layers, &p->slots, &p->parents, &p->pos_depth,
                        &p->sha_depth, &p->pieces};
    unsigned min[] = {2, 1, 1, 1, 2, 0, 1};
    for (int k = 0; k < 7; k++)
        while (estimate(p) > target && *knob[k] > min[k]) {
            (*knob[k])--;
            if (p->sha_depth > circ_node_bits(p)) p->sha_depth = circ_node_bits(p);
        }
}

static unsigned n_challenges(const circ_params *p) { return p->pieces; }
static uint32_t n_inputs(const circ_params *p) { return 4 + p->pieces; }

/* --------------------------------------------------------------- native -- */

/* Chained Poseidon-8 over L values: H(v0..v7) (cyclic if L < 8), then
 * H(acc, next 7 (cyclic within the chunk)) until all are in. */
static void colhash_native(cuzk_fr *out, const cuzk_fr *v, unsigned L)
{
    const cuzk_poseidon *p8 = cuzk_poseidon_std(8);
    cuzk_fr it[8];
    for (unsigned i = 0; i < 8; i++) it[i] = v[i % (L < 8 ? L : 8)];
    cuzk_poseidon_hash_native(p8, out, it);
    for (unsigned pos = 8; pos < L; pos += 7) {
        unsigned c = L - pos < 7 ? L - pos : 7;
        it[0] = *out;
        for (unsigned i = 0; i < 7; i++) it[1 + i] = v[pos + i % c];
        cuzk_poseidon_hash_native(p8, out, it);
    }
}

static cuzk_var colhash(cuzk_cs *cs, const cuzk_var *v, unsigned L)
{
    const cuzk_poseidon *p8 = cuzk_poseidon_std(8);
    cuzk_var it[8];
    for (unsigned i = 0; i < 8; i++) it[i] = v[i % (L < 8 ? L : 8)];
    cuzk_var acc = cuzk_poseidon_hash(cs, p8, it);
    for (unsigned pos = 8; pos < L; pos += 7) {
        unsigned c = L - pos < 7 ? L - pos : 7;
        it[0] = acc;
        for (unsigned i = 0; i < 7; i++) it[1 + i] = v[pos + i % c];
        acc = cuzk_poseidon_hash(cs, p8, it);
    }
    return acc;
}

/* The parent labels slot s of layer l (1-based) holds, for node k. */
static const uint8_t *slot_label(const porep_job *j, unsigned k, unsigned l, unsigned s,
                                 int *own)
{
    const circ_params *p = &j->p;
    unsigned b = n_base(p), P = p->parents, L = p->layers;
    unsigned len = l == 1 ? b : P + 1, e = s % len;
    *own = 0;
    if (e < b) return j->plabel + (((size_t)k * P + e) * L + (l - 1)) * 32;
    if (e < P) return j->plabel + (((size_t)k * P + e) * L + (l - 2)) * 32;
    *own = 1;
    return j->own + ((size_t)k * L + (l - 2)) * 32;
}

typedef struct {
    porep_job *j;
    const uint64_t *chal;
    int oom;
} prep_ctx;

static void prep_challenge(void *ctx, size_t kb, size_t ke)
{
    prep_ctx *c = ctx;
    porep_job *j = c->j;
    const circ_params *p = &j->p;
    unsigned P = p->parents, L = p->layers, nb = circ_node_bits(p), lb = label_bytes(p);
    uint64_t N = (uint64_t)1 << nb, seed = j->seed;
    uint8_t rid[32], *msg = malloc(lb);
    cuzk_fr *col = malloc(sizeof *col * (L + 1));
    if (!msg || !col) {
        free(msg);
        free(col);
        __atomic_store_n(&c->oom, 1, __ATOMIC_RELAXED);
        return;
    }
    circ_bytes_of_fr254(rid, &j->replica_id);
    for (size_t k = kb; k < ke; k++) {
        uint64_t x = j->node[k];
        uint64_t xd = p->sha_depth < 64 ? x & (((uint64_t)1 << p->sha_depth) - 1) : x;
        circ_rand_bytes254(j->data + 32 * k, seed, TAG_DATA, xd, 0);
        for (unsigned q = 0; q < P; q++) {
            uint64_t y = circ_rand(seed, TAG_PARENT, x, q, 0) & (N - 1);
            for (int hit = 1; hit;) { /* never a challenged node */
                hit = 0;
                for (unsigned i = 0; i < j->n; i++)
                    if (c->chal[i] == y) hit = 1;
                if (hit) y = (y + 1) & (N - 1);
            }
            j->parent[(size_t)k * P + q] = y;
            for (unsigned l = 0; l < L; l++)
                circ_rand_bytes254(j->plabel + (((size_t)k * P + q) * L + l) * 32, seed,
                                   TAG_PLABEL, y, l);
        }
        for (unsigned l = 1; l <= L; l++) {
            memcpy(msg, rid, 32);
            memset(msg + 32, 0, 32);
            for (int i = 0; i < 4; i++) msg[32 + i] = (uint8_t)(l >> (24 - 8 * i));
            for (int i = 0; i < 8; i++) msg[36 + i] = (uint8_t)(x >> (56 - 8 * i));
            for (unsigned s = 0; s < p->slots; s++) {
                int own;
                memcpy(msg + 64 + 32 * s, slot_label(j, (unsigned)k, l, s, &own), 32);
            }
            cuzk_sha256_native(j->own + ((size_t)k * L + (l - 1)) * 32, msg, lb);
        }
        /* tree leaves */
        size_t cb = k * (P + 1);
        for (unsigned l = 0; l < L; l++)
            circ_fr_of_bytes254(&col[l], j->own + ((size_t)k * L + l) * 32);
        cuzk_fr key = col[L - 1], d;
        colhash_native(&j->leaf_c[cb].f, col, L);
        j->leaf_c_idx[cb] = x;
        for (unsigned q = 0; q < P; q++) {
            for (unsigned l = 0; l < L; l++)
                circ_fr_of_bytes254(&col[l], j->plabel + (((size_t)k * P + q) * L + l) * 32);
            colhash_native(&j->leaf_c[cb + 1 + q].f, col, L);
            j->leaf_c_idx[cb + 1 + q] = j->parent[(size_t)k * P + q];
        }
        circ_fr_of_bytes254(&d, j->data + 32 * k);
        cuzk_fr_add(&j->leaf_r[k].f, &d, &key);
        memcpy(j->leaf_d[k].b, j->data + 32 * k, 32);
        j->leaf_d_idx[k] = xd;
    }
    free(col);
    free(msg);
}

static void prep_siblings(void *ctx, size_t kb, size_t ke)
{
    porep_job *j = ((prep_ctx *)ctx)->j;
    const circ_params *p = &j->p;
    unsigned P = p->parents, w = 7 * p->pos_depth;
    for (size_t k = kb; k < ke; k++) {
        circ_tree_siblings(&j->td, j->leaf_d_idx[k], j->sib_d + k * p->sha_depth);
        circ_tree_siblings(&j->tr, j->node[k], j->sib_r + k * w);
        for (unsigned q = 0; q <= P; q++)
            circ_tree_siblings(&j->tc, j->leaf_c_idx[k * (P + 1) + q],
                               j->sib_c + (k * (P + 1) + q) * w);
    }
}

static void job_free(circ_job *job)
{
    porep_job *j = job;
    if (!j) return;
    free(j->node);
    free(j->data);
    free(j->parent);
    free(j->plabel);
    free(j->sib_d);
    free(j->sib_c);
    free(j->sib_r);
    free(j->own);
    free(j->leaf_c_idx);
    free(j->leaf_c);
    free(j->leaf_r);
    free(j->leaf_d);
    free(j->leaf_d_idx);
    circ_tree_free(&j->td);
    circ_tree_free(&j->tc);
    circ_tree_free(&j->tr);
    free(j);
}

static cuzk_status prepare(circ_job **out, const circ_params *p, uint64_t seed,
                           unsigned partition, const uint64_t *chal, unsigned nthreads,
                           char *err)
{
    (void)partition;
    (void)err;
    *out = NULL;
    porep_job *j = calloc(1, sizeof *j);
    if (!j) return CUZK_ERR_NO_MEMORY;
    j->p = *p;
    j->seed = seed;
    unsigned n = j->n = p->pieces, P = p->parents, L = p->layers, w = 7 * p->pos_depth;
    j->node = malloc(n * sizeof *j->node);
    j->data = malloc((size_t)n * 32);
    j->parent = malloc((size_t)n * P * sizeof *j->parent);
    j->plabel = malloc((size_t)n * P * L * 32);
    j->own = malloc((size_t)n * L * 32);
    j->sib_d = malloc(((size_t)n * p->sha_depth + 1) * sizeof *j->sib_d);
    j->sib_c = malloc((size_t)n * (P + 1) * w * sizeof *j->sib_c);
    j->sib_r = malloc((size_t)n * w * sizeof *j->sib_r);
    j->leaf_c_idx = malloc((size_t)n * (P + 1) * sizeof *j->leaf_c_idx);
    j->leaf_c = malloc((size_t)n * (P + 1) * sizeof *j->leaf_c);
    j->leaf_r = calloc(n, sizeof *j->leaf_r);
    j->leaf_d = malloc(n * sizeof *j->leaf_d);
    j->leaf_d_idx = malloc(n * sizeof *j->leaf_d_idx);
    if (!j->node || !j->data || !j->parent || !j->plabel || !j->own || !j->sib_d || !j->sib_c ||
        !j->sib_r || !j->leaf_c_idx || !j->leaf_c || !j->leaf_r || !j->leaf_d ||
        !j->leaf_d_idx) {
        job_free(j);
        return CUZK_ERR_NO_MEMORY;
    }
    memcpy(j->node, chal, n * sizeof *chal);
    circ_rand_fr(&j->replica_id, seed, TAG_RID, 0, 0);
    prep_ctx c = {j, chal, 0};
    cuzk_parallel_for(n, 1, nthreads, prep_challenge, &c);
    if (c.oom) {
        job_free(j);
        return CUZK_ERR_NO_MEMORY;
    }
    cuzk_status s = circ_tree_build(&j->td, TREE_SHA2, p->sha_depth, seed, TAG_TREE_D,
                                    j->leaf_d_idx, j->leaf_d, n, nthreads);
    if (s == CUZK_OK)
        s = circ_tree_build(&j->tc, TREE_POS8, p->pos_depth, seed, TAG_TREE_C, j->leaf_c_idx,
                            j->leaf_c, (size_t)n * (P + 1), nthreads);
    if (s == CUZK_OK)
        s = circ_tree_build(&j->tr, TREE_POS8, p->pos_depth, seed, TAG_TREE_R, j->node,
                            j->leaf_r, n, nthreads);
    if (s != CUZK_OK) { /* two values at one leaf cannot happen: out of memory */
        job_free(j);
        return s == CUZK_ERR_INVALID_ARGUMENT ? CUZK_ERR_NO_MEMORY : s;
    }
    circ_fr_of_bytes254(&j->comm_d, circ_tree_root(&j->td)->b);
    j->comm_c = circ_tree_root(&j->tc)->f;
    j->comm_r_last = circ_tree_root(&j->tr)->f;
    cuzk_fr in2[2] = {j->comm_c, j->comm_r_last};
    cuzk_poseidon_hash_native(cuzk_poseidon_std(2), &j->comm_r, in2);
    cuzk_parallel_for(n, 1, nthreads, prep_siblings, &c);
    *out = j;
    return CUZK_OK;
}

/* -------------------------------------------------------------- circuit -- */

static void prologue(cuzk_cs *cs, const circ_params *p, const circ_job *job, circ_vars *v)
{
    const porep_job *j = job;
    v->v[0] = cuzk_cs_alloc_input(cs, &j->replica_id);
    v->v[1] = cuzk_cs_alloc_input(cs, &j->comm_d);
    v->v[2] = cuzk_cs_alloc_input(cs, &j->comm_r);
    for (unsigned k = 0; k < p->pieces; k++) {
        cuzk_fr x;
        cuzk_fr_from_u64(&x, j->node[k]);
        cuzk_cs_alloc_input(cs, &x);
    }
    cuzk_num_to_bits(cs, v->bits, v->v[0], 254);
    v->bits[254] = v->bits[255] = cuzk_bool_const(0);
    cuzk_var in2[2];
    in2[0] = v->v[3] = cuzk_cs_alloc(cs, &j->comm_c);
    in2[1] = v->v[4] = cuzk_cs_alloc(cs, &j->comm_r_last);
    circ_enforce_eq(cs, cuzk_poseidon_hash(cs, cuzk_poseidon_std(2), in2), v->v[2]);
}

static size_t scratch_bytes(const circ_params *p)
{
    size_t P = p->parents, L = p->layers, nb = circ_node_bits(p), B = sizeof(cuzk_bool);
    return B * (nb + 256 + 256 * (size_t)p->sha_depth + 256 + P * nb + P * L * 256 +
                8 * (size_t)label_bytes(p) + 256) +
           sizeof(cuzk_var) * (P * L + L + 7 * (size_t)p->pos_depth + 8) + 128;
}

/* 254 new bits of a 254-bit value given as bytes, and 2 constant zeros. */
static void alloc_bits254(cuzk_cs *cs, cuzk_bool *out, const uint8_t b[32])
{
    for (unsigned i = 0; i < 254; i++) out[i] = cuzk_bool_alloc(cs, (b[i / 8] >> (7 - i % 8)) & 1);
    out[254] = out[255] = cuzk_bool_const(0);
}

/* A Poseidon-8 path from leaf with the given index bits to root. */
static void pos8_path(cuzk_cs *cs, const circ_params *p, cuzk_var leaf, const cuzk_bool *path,
                      const circ_node *sib, cuzk_var *sv, cuzk_var root)
{
    unsigned w = 7 * p->pos_depth;
    for (unsigned i = 0; i < w; i++) sv[i] = cuzk_cs_alloc(cs, &sib[i].f);
    cuzk_var r = cuzk_merkle_poseidon8(cs, cuzk_poseidon_std(8), leaf, path, sv, p->pos_depth);
    circ_enforce_eq(cs, r, root);
}

static void piece(cuzk_cs *cs, const circ_params *p, const circ_job *job, const circ_vars *v,
                  unsigned k, void *scratch)
{
    const porep_job *j = job;
    unsigned P = p->parents, L = p->layers, nb = circ_node_bits(p), sd = p->sha_depth;
    unsigned w = 7 * p->pos_depth, lb = label_bytes(p);
    circ_bump sb = {scratch, 0};
    cuzk_bool *idx = circ_take(&sb, nb * sizeof *idx);
    cuzk_bool *data = circ_take(&sb, 256 * sizeof *data);
    cuzk_bool *sibd = circ_take(&sb, (256 * (size_t)sd + 1) * sizeof *sibd);
    cuzk_bool *root = circ_take(&sb, 256 * sizeof *root);
    cuzk_bool *pidx = circ_take(&sb, (size_t)P * nb * sizeof *pidx);
    cuzk_bool *plab = circ_take(&sb, (size_t)P * L * 256 * sizeof *plab);
    cuzk_bool *msg = circ_take(&sb, 8 * (size_t)lb * sizeof *msg);
    cuzk_bool *prev = circ_take(&sb, 256 * sizeof *prev);
    cuzk_var *pcol = circ_take(&sb, (size_t)P * L * sizeof *pcol);
    cuzk_var *ocol = circ_take(&sb, L * sizeof *ocol);
    cuzk_var *sv = circ_take(&sb, (w + 8) * sizeof *sv);
    uint64_t x = j->node[k];

    /* the challenge index, public */
    circ_alloc_bits(cs, idx, x, nb);
    circ_enforce_eq(cs, cuzk_bool_pack(cs, idx, nb), CUZK_VAR_INPUT | (4 + k));

    /* data leaf and its SHA-256 path to comm_d */
    alloc_bits254(cs, data, j->data + 32 * (size_t)k);
    cuzk_var dv = cuzk_bool_pack(cs, data, 254);
    if (sd) {
        for (unsigned l = 0; l < sd; l++) {
            const uint8_t *b = j->sib_d[(size_t)k * sd + l].b;
            for (unsigned i = 0; i < 256; i++)
                sibd[256 * l + i] = cuzk_bool_alloc(cs, (b[i / 8] >> (7 - i % 8)) & 1);
        }
        cuzk_merkle_sha256(cs, root, data, idx, sibd, sd);
        circ_enforce_eq(cs, cuzk_bool_pack(cs, root, 254), v->v[1]);
    } else {
        circ_enforce_eq(cs, dv, v->v[1]);
    }

    /* the parents' indices and columns */
    for (unsigned q = 0; q < P; q++) {
        circ_alloc_bits(cs, pidx + (size_t)q * nb, j->parent[(size_t)k * P + q], nb);
        for (unsigned l = 0; l < L; l++) {
            cuzk_bool *b = plab + ((size_t)q * L + l) * 256;
            alloc_bits254(cs, b, j->plabel + (((size_t)k * P + q) * L + l) * 32);
            pcol[(size_t)q * L + l] = cuzk_bool_pack(cs, b, 254);
        }
    }

    /* labelling: layer by layer, through the node's previous label */
    unsigned b = n_base(p);
    for (unsigned l = 1; l <= L; l++) {
        for (unsigned i = 0; i < 256; i++) msg[i] = v->bits[i];
        for (unsigned i = 0; i < 32; i++) msg[256 + i] = cuzk_bool_const((l >> (31 - i)) & 1);
        for (unsigned i = 0; i < 64; i++)
            msg[288 + i] = 63 - i < nb ? idx[63 - i] : cuzk_bool_const(0);
        for (unsigned i = 352; i < 512; i++) msg[i] = cuzk_bool_const(0);
        unsigned len = l == 1 ? b : P + 1;
        for (unsigned s = 0; s < p->slots; s++) {
            unsigned e = s % len;
            const cuzk_bool *src = e < b    ? plab + ((size_t)e * L + (l - 1)) * 256
                                   : e < P ? plab + ((size_t)e * L + (l - 2)) * 256
                                           : prev;
            memcpy(msg + 512 + 256 * (size_t)s, src, 256 * sizeof *src);
        }
        cuzk_sha256(cs, prev, msg, 8 * (size_t)lb);
        ocol[l - 1] = cuzk_bool_pack(cs, prev, 254);
    }

    /* columns in tree C */
    size_t cb = (size_t)k * (P + 1);
    pos8_path(cs, p, colhash(cs, ocol, L), idx, j->sib_c + cb * w, sv, v->v[3]);
    for (unsigned q = 0; q < P; q++)
        pos8_path(cs, p, colhash(cs, pcol + (size_t)q * L, L), pidx + (size_t)q * nb,
                  j->sib_c + (cb + 1 + q) * w, sv, v->v[3]);

    /* the encoding: replica = data + key, in tree R */
    cuzk_fr dval, kval, rval;
    cuzk_cs_value(cs, dv, &dval);
    cuzk_cs_value(cs, ocol[L - 1], &kval);
    cuzk_fr_add(&rval, &dval, &kval);
    cuzk_var rep = cuzk_cs_alloc(cs, &rval);
    if (cuzk_cs_recording(cs)) { /* (d + key) * 1 = replica */
        cuzk_cs_begin(cs);
        cuzk_cs_term(cs, CUZK_A, dv, CUZK_COEFF_ONE);
        cuzk_cs_term(cs, CUZK_A, ocol[L - 1], CUZK_COEFF_ONE);
        cuzk_cs_term(cs, CUZK_B, CUZK_VAR_ONE, CUZK_COEFF_ONE);
        cuzk_cs_term(cs, CUZK_C, rep, CUZK_COEFF_ONE);
        cuzk_cs_end(cs);
    }
    pos8_path(cs, p, rep, idx, j->sib_r + (size_t)k * w, sv, v->v[4]);
}

const circ_kind circ_porep_32g = {
    "porep-32g",
    "32 GiB PoRep partition: SHA-256 labelling + data tree, Poseidon-8 columns/replica trees",
    10,
    {18, 1, 30, 11, 37, 14, 10},
    estimate, shrink, n_challenges, n_inputs, prepare, job_free, prologue, scratch_bytes, piece,
};
