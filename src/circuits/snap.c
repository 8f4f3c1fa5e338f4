/* snap-32g: the shape of a 32 GiB SnapDeals (empty-sector update)
 * partition, synthetic.
 *
 * Public inputs: ONE, comm_r_old, comm_d_new, comm_r_new, phi, then the node
 * index of each challenge. One piece per challenge at node x (index bits
 * packed = its public input):
 *   - the new data d(x) on a Poseidon binary path of depth 3 pos_depth to
 *     comm_d_new;
 *   - the old replica leaf o(x) on a Poseidon-8 path to comm_r_old;
 *   - rho = Poseidon2(phi, the high HIGH_BITS bits of x);
 *   - the new replica leaf n(x) = o(x) + d(x) rho on a Poseidon-8 path to
 *     comm_r_new.
 * d, o and phi come from the seed. */
#include <stdlib.h>
#include <string.h>

#include "circuits/circ_internal.h"
#include "common/parallel.h"

enum { TAG_PHI = 40, TAG_DATA, TAG_OLD, TAG_TREE_D, TAG_TREE_OLD, TAG_TREE_NEW };
#define HIGH_BITS 6u /* bits of the index that select rho */

typedef struct {
    circ_params p;
    uint64_t seed;
    unsigned n;
    cuzk_fr phi, comm_r_old, comm_d_new, comm_r_new;
    uint64_t *node;
    circ_node *data, *old, *neu, *rho; /* n each */
    circ_node *sib_d, *sib_o, *sib_n;  /* n x nb, n x 7 pd, n x 7 pd */
    circ_tree td, to, tn;
    int oom;
} snap_job;

static unsigned high_bits(const circ_params *p)
{
    return circ_node_bits(p) < HIGH_BITS ? circ_node_bits(p) : HIGH_BITS;
}

static uint64_t piece_cost(const circ_params *p)
{
    uint64_t nb = circ_node_bits(p), pd = p->pos_depth;
    return nb + 2 + 1 + nb * 243 + 1 + 1 + pd * 421 + 1 + 1 + 241 + 2 + pd * 421 + 1;
}
static uint64_t estimate(const circ_params *p) { return p->pieces * piece_cost(p); }

static void shrink(circ_params *p, uint64_t target)
{
    while (estimate(p) > target && p->pieces > 2) p->pieces--;
    while (estimate(p) > target && p->pos_depth > 2) p->pos_depth--;
    while (estimate(p) > target && p->pieces > 1) p->pieces--;
}

static unsigned n_challenges(const circ_params *p) { return p->pieces; }
static uint32_t n_inputs(const circ_params *p) { return 5 + p->pieces; }

static void prep_leaves(void *ctx, size_t b, size_t e)
{
    snap_job *j = ctx;
    unsigned nb = circ_node_bits(&j->p), hb = high_bits(&j->p);
    for (size_t k = b; k < e; k++) {
        uint64_t x = j->node[k];
        circ_rand_fr(&j->data[k].f, j->seed, TAG_DATA, x, 0);
        circ_rand_fr(&j->old[k].f, j->seed, TAG_OLD, x, 0);
        cuzk_fr in2[2] = {j->phi}, t;
        cuzk_fr_from_u64(&in2[1], x >> (nb - hb));
        cuzk_poseidon_hash_native(cuzk_poseidon_std(2), &j->rho[k].f, in2);
        cuzk_fr_mul(&t, &j->data[k].f, &j->rho[k].f);
        cuzk_fr_add(&j->neu[k].f, &j->old[k].f, &t);
    }
}

static void prep_siblings(void *ctx, size_t b, size_t e)
{
    snap_job *j = ctx;
    unsigned nb = circ_node_bits(&j->p), w = 7 * j->p.pos_depth;
    for (size_t k = b; k < e; k++) {
        circ_tree_siblings(&j->td, j->node[k], j->sib_d + k * nb);
        circ_tree_siblings(&j->to, j->node[k], j->sib_o + k * w);
        circ_tree_siblings(&j->tn, j->node[k], j->sib_n + k * w);
    }
}

static void job_free(circ_job *job)
{
    snap_job *j = job;
    if (!j) return;
    free(j->node);
    free(j->data);
    free(j->old);
    free(j->neu);
    free(j->rho);
    free(j->sib_d);
    free(j->sib_o);
    free(j->sib_n);
    circ_tree_free(&j->td);
    circ_tree_free(&j->to);
    circ_tree_free(&j->tn);
    free(j);
}

static cuzk_status prepare(circ_job **out, const circ_params *p, uint64_t seed,
                           unsigned partition, const uint64_t *chal, unsigned nthreads,
                           char *err)
{
    (void)partition;
    (void)err;
    *out = NULL;
    snap_job *j = calloc(1, sizeof *j);
    if (!j) return CUZK_ERR_NO_MEMORY;
    j->p = *p;
    j->seed = seed;
    size_t n = j->n = p->pieces, nb = circ_node_bits(p), w = 7 * p->pos_depth;
    j->node = malloc(n * sizeof *j->node);
    j->data = malloc(n * sizeof *j->data);
    j->old = malloc(n * sizeof *j->old);
    j->neu = malloc(n * sizeof *j->neu);
    j->rho = malloc(n * sizeof *j->rho);
    j->sib_d = malloc(n * nb * sizeof *j->sib_d);
    j->sib_o = malloc(n * w * sizeof *j->sib_o);
    j->sib_n = malloc(n * w * sizeof *j->sib_n);
    if (!j->node || !j->data || !j->old || !j->neu || !j->rho || !j->sib_d || !j->sib_o ||
        !j->sib_n) {
        job_free(j);
        return CUZK_ERR_NO_MEMORY;
    }
    memcpy(j->node, chal, n * sizeof *chal);
    circ_rand_fr(&j->phi, seed, TAG_PHI, 0, 0);
    cuzk_parallel_for(n, 64, nthreads, prep_leaves, j);
    cuzk_status s = circ_tree_build(&j->td, TREE_POS2, (unsigned)nb, seed, TAG_TREE_D, j->node,
                                    j->data, n, nthreads);
    if (s == CUZK_OK)
        s = circ_tree_build(&j->to, TREE_POS8, p->pos_depth, seed, TAG_TREE_OLD, j->node, j->old,
                            n, nthreads);
    if (s == CUZK_OK)
        s = circ_tree_build(&j->tn, TREE_POS8, p->pos_depth, seed, TAG_TREE_NEW, j->node, j->neu,
                            n, nthreads);
    if (s != CUZK_OK) {
        job_free(j);
        return CUZK_ERR_NO_MEMORY;
    }
    j->comm_d_new = circ_tree_root(&j->td)->f;
    j->comm_r_old = circ_tree_root(&j->to)->f;
    j->comm_r_new = circ_tree_root(&j->tn)->f;
    cuzk_parallel_for(n, 64, nthreads, prep_siblings, j);
    *out = j;
    return CUZK_OK;
}

static void prologue(cuzk_cs *cs, const circ_params *p, const circ_job *job, circ_vars *v)
{
    const snap_job *j = job;
    v->v[0] = cuzk_cs_alloc_input(cs, &j->comm_r_old);
    v->v[1] = cuzk_cs_alloc_input(cs, &j->comm_d_new);
    v->v[2] = cuzk_cs_alloc_input(cs, &j->comm_r_new);
    v->v[3] = cuzk_cs_alloc_input(cs, &j->phi);
    for (unsigned k = 0; k < p->pieces; k++) {
        cuzk_fr x;
        cuzk_fr_from_u64(&x, j->node[k]);
        cuzk_cs_alloc_input(cs, &x);
    }
}

static size_t scratch_bytes(const circ_params *p)
{
    return sizeof(cuzk_bool) * circ_node_bits(p) +
           sizeof(cuzk_var) * (circ_node_bits(p) + 7 * p->pos_depth) + 64;
}

static void piece(cuzk_cs *cs, const circ_params *p, const circ_job *job, const circ_vars *v,
                  unsigned k, void *scratch)
{
    const snap_job *j = job;
    unsigned nb = circ_node_bits(p), w = 7 * p->pos_depth, hb = high_bits(p);
    const cuzk_poseidon *p8 = cuzk_poseidon_std(8), *p2 = cuzk_poseidon_std(2);
    circ_bump sb = {scratch, 0};
    cuzk_bool *idx = circ_take(&sb, nb * sizeof *idx);
    cuzk_var *sv = circ_take(&sb, (nb > w ? nb : w) * sizeof *sv);

    circ_alloc_bits(cs, idx, j->node[k], nb);
    circ_enforce_eq(cs, cuzk_bool_pack(cs, idx, nb), CUZK_VAR_INPUT | (5 + k));

    /* new data in tree D */
    cuzk_var d = cuzk_cs_alloc(cs, &j->data[k].f);
    for (unsigned i = 0; i < nb; i++) sv[i] = cuzk_cs_alloc(cs, &j->sib_d[(size_t)k * nb + i].f);
    circ_enforce_eq(cs, circ_path_pos2(cs, d, idx, sv, nb), v->v[1]);

    /* old replica leaf in tree R_old */
    cuzk_var o = cuzk_cs_alloc(cs, &j->old[k].f);
    for (unsigned i = 0; i < w; i++) sv[i] = cuzk_cs_alloc(cs, &j->sib_o[(size_t)k * w + i].f);
    circ_enforce_eq(cs, cuzk_merkle_poseidon8(cs, p8, o, idx, sv, p->pos_depth), v->v[0]);

    /* rho and the encoding: d * rho = new - old */
    cuzk_var in2[2] = {v->v[3], cuzk_bool_pack(cs, idx + (nb - hb), hb)};
    cuzk_var rho = cuzk_poseidon_hash(cs, p2, in2);
    cuzk_var nw = cuzk_cs_alloc(cs, &j->neu[k].f);
    if (cuzk_cs_recording(cs)) {
        cuzk_cs_begin(cs);
        cuzk_cs_term(cs, CUZK_A, d, CUZK_COEFF_ONE);
        cuzk_cs_term(cs, CUZK_B, rho, CUZK_COEFF_ONE);
        cuzk_cs_term(cs, CUZK_C, nw, CUZK_COEFF_ONE);
        cuzk_cs_term(cs, CUZK_C, o, CUZK_COEFF_MINUS_ONE);
        cuzk_cs_end(cs);
    }

    /* new replica leaf in tree R_new */
    for (unsigned i = 0; i < w; i++) sv[i] = cuzk_cs_alloc(cs, &j->sib_n[(size_t)k * w + i].f);
    circ_enforce_eq(cs, cuzk_merkle_poseidon8(cs, p8, nw, idx, sv, p->pos_depth), v->v[2]);
}

const circ_kind circ_snap_32g = {
    "snap-32g",
    "32 GiB SnapDeals partition: Poseidon binary data tree + old/new Poseidon-8 replica trees",
    16,
    {5000, 1, 0, 0, 0, 0, 10},
    estimate, shrink, n_challenges, n_inputs, prepare, job_free, prologue, scratch_bytes, piece,
};
