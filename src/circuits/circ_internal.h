/* Internals of the built-in circuits (src/circuits/): the per-kind
 * callbacks the driver (circuits.c) runs, the sparse Merkle trees the jobs
 * are computed with, and small helpers shared by the kinds. */
#ifndef CUZK_CIRCUITS_INTERNAL_H
#define CUZK_CIRCUITS_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include <cuzk/circuits.h>
#include <cuzk/gadgets.h>

/* The scaled structure of a circuit (which fields apply depends on the kind). */
typedef struct {
    unsigned pieces;    /* sub-circuits a partition: challenges (porep, snap), sectors (PoSt) */
    unsigned per_piece; /* PoSt: challenges a sector */
    unsigned sha_depth; /* porep: SHA-256 data tree depth (<= node_bits) */
    unsigned layers;    /* porep: labelling layers (>= 1) */
    unsigned slots;     /* porep: parent slots in a label message (>= 1) */
    unsigned parents;   /* porep: distinct parents (>= 1; the first min(6, n) are base parents) */
    unsigned pos_depth; /* Poseidon-8 tree depth (>= 2); node_bits = 3 pos_depth */
} circ_params;

static inline unsigned circ_node_bits(const circ_params *p) { return 3 * p->pos_depth; }

/* Native data of one job: the kinds' own struct behind it. */
typedef void circ_job;

/* Handles of prologue variables the pieces read. */
typedef struct {
    cuzk_var v[8];
    cuzk_bool bits[256];
} circ_vars;

typedef struct {
    const char *id, *what;
    unsigned partitions;
    circ_params full;
    uint64_t (*estimate)(const circ_params *p);            /* constraints a partition */
    void (*shrink)(circ_params *p, uint64_t target);        /* fit p to ~target constraints */
    unsigned (*n_challenges)(const circ_params *p);
    uint32_t (*n_inputs)(const circ_params *p);
    /* Native work: builds the job for (seed, partition, challenges) with up
     * to nthreads threads; challenges are already checked < 2^node_bits. */
    cuzk_status (*prepare)(circ_job **job, const circ_params *p, uint64_t seed,
                           unsigned partition, const uint64_t *challenges, unsigned nthreads,
                           char *err);
    void (*job_free)(circ_job *job);
    void (*prologue)(cuzk_cs *cs, const circ_params *p, const circ_job *job, circ_vars *v);
    size_t (*scratch_bytes)(const circ_params *p);
    void (*piece)(cuzk_cs *cs, const circ_params *p, const circ_job *job, const circ_vars *v,
                  unsigned k, void *scratch);
} circ_kind;

extern const circ_kind circ_porep_32g, circ_winning_32g, circ_wpost_32g, circ_snap_32g;

/* ------------------------------------------------------------ helpers -- */

/* Deterministic pseudo-random words: a hash of (seed, tag, a, b, i). */
uint64_t circ_rand(uint64_t seed, uint64_t tag, uint64_t a, uint64_t b, uint64_t i);
/* 32 random bytes whose message bits 254 and 255 are 0 (a "254-bit
 * domain" value, as Filecoin truncates its node hashes). */
void circ_rand_bytes254(uint8_t out[32], uint64_t seed, uint64_t tag, uint64_t a, uint64_t b);
/* A random field element < 2^254. */
void circ_rand_fr(cuzk_fr *out, uint64_t seed, uint64_t tag, uint64_t a, uint64_t b);
/* The field value sum_{i<254} 2^i m_i of message bits m (big-endian bytes:
 * m_i is bit 7 - i % 8 of byte i / 8) -- what cuzk_bool_pack(bits, 254)
 * gives -- and back (bits 254, 255 zero). */
void circ_fr_of_bytes254(cuzk_fr *out, const uint8_t b[32]);
void circ_bytes_of_fr254(uint8_t out[32], const cuzk_fr *v);

/* x = y: 1 constraint. */
void circ_enforce_eq(cuzk_cs *cs, cuzk_var x, cuzk_var y);
/* n new bits of v (least significant first), each proved boolean. */
void circ_alloc_bits(cuzk_cs *cs, cuzk_bool *out, uint64_t v, unsigned n);
/* k new field variables. */
void circ_alloc_frs(cuzk_cs *cs, cuzk_var *out, const cuzk_fr *v, unsigned k);

/* Poseidon binary path (arity-2 hash, node = H(left, right)), depth levels,
 * path[l] = 1 when the node is the right child: per level 2 constraints to
 * order the pair and a hash (241). Returns the root. */
cuzk_var circ_path_pos2(cuzk_cs *cs, cuzk_var leaf, const cuzk_bool *path, const cuzk_var *sib,
                        unsigned depth);

/* A bump allocator over a scratch buffer (8-byte aligned pieces). */
typedef struct {
    uint8_t *p;
    size_t used;
} circ_bump;
static inline void *circ_take(circ_bump *b, size_t bytes)
{
    void *r = b->p + b->used;
    b->used += (bytes + 7) & ~(size_t)7;
    return r;
}

/* -------------------------------------------------------- sparse trees -- */

/* A Merkle tree of which only the paths of some leaves are hashed; every
 * other node (a subtree no path enters) is a pseudo-random value drawn from
 * (seed, tag, level, index). Leaves and nodes are 32 bytes: SHA-256 digests
 * as bytes, or cuzk_fr for the Poseidon trees. */
typedef union {
    cuzk_fr f;
    uint8_t b[32];
} circ_node;

typedef enum { TREE_SHA2 = 0, TREE_POS2 = 1, TREE_POS8 = 2 } circ_tree_kind;

typedef struct {
    circ_tree_kind kind;
    unsigned log_arity, depth;
    uint64_t seed, tag;
    uint64_t *n;      /* depth + 1 counts of known nodes */
    uint64_t **idx;   /* per level, sorted indices */
    circ_node **val;  /* per level, values */
} circ_tree;

/* Builds the tree over n leaves (indices < 2^(depth log_arity), duplicates
 * allowed if their values are equal). Hashes each level on up to nthreads
 * threads. CUZK_ERR_NO_MEMORY, or CUZK_ERR_INVALID_ARGUMENT for two values
 * at one leaf. */
cuzk_status circ_tree_build(circ_tree *t, circ_tree_kind kind, unsigned depth, uint64_t seed,
                            uint64_t tag, const uint64_t *leaf_idx, const circ_node *leaf_val,
                            size_t n, unsigned nthreads);
void circ_tree_free(circ_tree *t);
const circ_node *circ_tree_root(const circ_tree *t);
/* The siblings of leaf index (which must be one of the leaves), level by
 * level, in child order without the node itself: (arity - 1) depth nodes. */
void circ_tree_siblings(const circ_tree *t, uint64_t index, circ_node *sib);

#endif /* CUZK_CIRCUITS_INTERNAL_H */
