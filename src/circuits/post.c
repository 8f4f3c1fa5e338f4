/* winning-32g and wpost-32g: the shape of Filecoin's PoSt circuits,
 * synthetic.
 *
 * Public inputs: ONE, then per sector its comm_r, then the node index of
 * every challenge (sector-major). One piece per sector: comm_c and
 * comm_r_last (private) with comm_r = Poseidon2(comm_c, comm_r_last), and
 * per challenge the index bits (packed = the public input), the leaf and a
 * Poseidon-8 path of depth pos_depth to comm_r_last. Sector s of partition
 * t is sector t S + s of the proof; its replica leaves and comm_c come from
 * the seed. */
#include <stdlib.h>
#include <string.h>

#include "circuits/circ_internal.h"
#include "common/parallel.h"

enum { TAG_COMM_C = 20, TAG_LEAF, TAG_TREE };

typedef struct {
    circ_params p;
    uint64_t seed;
    unsigned partition;
    const uint64_t *chal; /* while preparing */
    uint64_t *node;       /* S K */
    cuzk_fr *comm_c, *comm_r_last, *comm_r; /* S */
    cuzk_fr *leaf;        /* S K */
    circ_node *sib;       /* S K 7 pos_depth */
    int oom;
} post_job;

static uint64_t piece_cost(const circ_params *p)
{
    return 242 + (uint64_t)p->per_piece * (circ_node_bits(p) + 2 + 421ull * p->pos_depth + 1);
}
static uint64_t estimate(const circ_params *p) { return p->pieces * piece_cost(p); }

static void shrink(circ_params *p, uint64_t target)
{
    unsigned *knob[] = {&p->pieces, &p->per_piece, &p->pos_depth, &p->pieces};
    unsigned min[] = {2, 1, 2, 1}; /* keep two sectors while the rest shrinks */
    for (int k = 0; k < 4; k++)
        while (estimate(p) > target && *knob[k] > min[k]) (*knob[k])--;
}

static unsigned n_challenges(const circ_params *p) { return p->pieces * p->per_piece; }
static uint32_t n_inputs(const circ_params *p) { return 1 + p->pieces * (1 + p->per_piece); }

static void prep_sector(void *ctx, size_t sb, size_t se)
{
    post_job *j = ctx;
    const circ_params *p = &j->p;
    unsigned K = p->per_piece, w = 7 * p->pos_depth;
    uint64_t *idx = malloc(K * sizeof *idx);
    circ_node *lv = malloc(K * sizeof *lv);
    for (size_t s = sb; s < se && idx && lv; s++) {
        uint64_t sector = (uint64_t)j->partition * p->pieces + s;
        circ_rand_fr(&j->comm_c[s], j->seed, TAG_COMM_C, sector, 0);
        for (unsigned c = 0; c < K; c++) {
            idx[c] = j->node[s * K + c] = j->chal[s * K + c];
            circ_rand_fr(&lv[c].f, j->seed, TAG_LEAF, sector, idx[c]);
            j->leaf[s * K + c] = lv[c].f;
        }
        circ_tree t;
        if (circ_tree_build(&t, TREE_POS8, p->pos_depth, j->seed, TAG_TREE + sector, idx, lv, K,
                            1) != CUZK_OK) {
            __atomic_store_n(&j->oom, 1, __ATOMIC_RELAXED);
            break;
        }
        j->comm_r_last[s] = circ_tree_root(&t)->f;
        cuzk_fr in2[2] = {j->comm_c[s], j->comm_r_last[s]};
        cuzk_poseidon_hash_native(cuzk_poseidon_std(2), &j->comm_r[s], in2);
        for (unsigned c = 0; c < K; c++) circ_tree_siblings(&t, idx[c], j->sib + (s * K + c) * w);
        circ_tree_free(&t);
    }
    if (!idx || !lv) __atomic_store_n(&j->oom, 1, __ATOMIC_RELAXED);
    free(idx);
    free(lv);
}

static void job_free(circ_job *job)
{
    post_job *j = job;
    if (!j) return;
    free(j->node);
    free(j->comm_c);
    free(j->comm_r_last);
    free(j->comm_r);
    free(j->leaf);
    free(j->sib);
    free(j);
}

static cuzk_status prepare(circ_job **out, const circ_params *p, uint64_t seed,
                           unsigned partition, const uint64_t *chal, unsigned nthreads,
                           char *err)
{
    (void)err;
    *out = NULL;
    post_job *j = calloc(1, sizeof *j);
    if (!j) return CUZK_ERR_NO_MEMORY;
    size_t S = p->pieces, n = S * p->per_piece;
    j->p = *p;
    j->seed = seed;
    j->partition = partition;
    j->chal = chal;
    j->node = malloc(n * sizeof *j->node);
    j->comm_c = malloc(S * sizeof *j->comm_c);
    j->comm_r_last = malloc(S * sizeof *j->comm_r_last);
    j->comm_r = malloc(S * sizeof *j->comm_r);
    j->leaf = malloc(n * sizeof *j->leaf);
    j->sib = malloc(n * 7 * p->pos_depth * sizeof *j->sib);
    if (!j->node || !j->comm_c || !j->comm_r_last || !j->comm_r || !j->leaf || !j->sib) {
        job_free(j);
        return CUZK_ERR_NO_MEMORY;
    }
    cuzk_parallel_for(S, 1, nthreads, prep_sector, j);
    j->chal = NULL;
    if (j->oom) {
        job_free(j);
        return CUZK_ERR_NO_MEMORY;
    }
    *out = j;
    return CUZK_OK;
}

static void prologue(cuzk_cs *cs, const circ_params *p, const circ_job *job, circ_vars *v)
{
    const post_job *j = job;
    (void)v;
    for (unsigned s = 0; s < p->pieces; s++) cuzk_cs_alloc_input(cs, &j->comm_r[s]);
    for (size_t c = 0; c < (size_t)p->pieces * p->per_piece; c++) {
        cuzk_fr x;
        cuzk_fr_from_u64(&x, j->node[c]);
        cuzk_cs_alloc_input(cs, &x);
    }
}

static size_t scratch_bytes(const circ_params *p)
{
    return sizeof(cuzk_bool) * circ_node_bits(p) + sizeof(cuzk_var) * 7 * p->pos_depth + 64;
}

static void piece(cuzk_cs *cs, const circ_params *p, const circ_job *job, const circ_vars *v,
                  unsigned s, void *scratch)
{
    const post_job *j = job;
    (void)v;
    unsigned K = p->per_piece, nb = circ_node_bits(p), w = 7 * p->pos_depth;
    circ_bump sb = {scratch, 0};
    cuzk_bool *idx = circ_take(&sb, nb * sizeof *idx);
    cuzk_var *sv = circ_take(&sb, w * sizeof *sv);
    cuzk_var in2[2];
    in2[0] = cuzk_cs_alloc(cs, &j->comm_c[s]);
    in2[1] = cuzk_cs_alloc(cs, &j->comm_r_last[s]);
    circ_enforce_eq(cs, cuzk_poseidon_hash(cs, cuzk_poseidon_std(2), in2), CUZK_VAR_INPUT | (1 + s));
    for (unsigned c = 0; c < K; c++) {
        size_t g = (size_t)s * K + c;
        circ_alloc_bits(cs, idx, j->node[g], nb);
        circ_enforce_eq(cs, cuzk_bool_pack(cs, idx, nb),
                        CUZK_VAR_INPUT | (uint32_t)(1 + p->pieces + g));
        cuzk_var leaf = cuzk_cs_alloc(cs, &j->leaf[g]);
        for (unsigned i = 0; i < w; i++) sv[i] = cuzk_cs_alloc(cs, &j->sib[g * w + i].f);
        cuzk_var r = cuzk_merkle_poseidon8(cs, cuzk_poseidon_std(8), leaf, idx, sv, p->pos_depth);
        circ_enforce_eq(cs, r, in2[1]);
    }
}

const circ_kind circ_winning_32g = {
    "winning-32g",
    "32 GiB WinningPoSt: 1 sector, 66 challenges, Poseidon-8 paths of depth 10",
    1,
    {1, 66, 0, 0, 0, 0, 10},
    estimate, shrink, n_challenges, n_inputs, prepare, job_free, prologue, scratch_bytes, piece,
};

const circ_kind circ_wpost_32g = {
    "wpost-32g",
    "32 GiB WindowPoSt partition: 2349 sectors x 10 challenges, Poseidon-8 paths",
    1,
    {2349, 10, 0, 0, 0, 0, 10},
    estimate, shrink, n_challenges, n_inputs, prepare, job_free, prologue, scratch_bytes, piece,
};
