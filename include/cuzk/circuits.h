/* cuzk — built-in circuits: synthetic workloads with the shapes of the
 * Filecoin proofs.
 *
 * Four circuit ids, each the shape of a real Filecoin circuit for 32 GiB
 * sectors, built from the gadgets of gadgets.h (docs/circuits.md, "Built-in
 * workloads", gives every number):
 *
 *   porep-32g    10 partitions. Per challenge: a SHA-256 binary Merkle path
 *                of depth 30 (the data tree), 11 layers of SHA-256 labelling
 *                (each label the hash of a 1,248-byte message: header and 37
 *                parent slots filled from 6 base and 8 expander parents, the
 *                chain passing through the node's previous label), Poseidon
 *                arity-8 column hashes and paths of depth 10 (tree C) for the
 *                node and its 14 parents, and the encoding checked in tree R.
 *                18 challenges a partition, ~130 M constraints; 99.8% of the
 *                aux variables are bits.
 *   winning-32g  1 partition: 1 sector, 66 challenges, each a Poseidon
 *                arity-8 path of depth 10 in the sector's tree R, and comm_r
 *                = Poseidon(comm_c, comm_r_last) per sector.
 *   wpost-32g    1 partition (per proof) of 2,349 sectors x 10 challenges of
 *                the same kind (~100 M constraints with these gadgets).
 *   snap-32g     16 partitions. Per challenge: a Poseidon binary path of
 *                depth 30 (the new data tree), Poseidon arity-8 paths in the
 *                old and new replica trees, rho = Poseidon(phi, high index
 *                bits) and new = old + data * rho. ~81 M constraints.
 *
 * These are SYNTHETIC: valid Groth16 circuits of the same structure and
 * size, proven with keys made for them, not Filecoin's circuits (other node
 * hashes, constants and layouts; no Filecoin verifier accepts the proofs).
 *
 * Size. Every function takes log_size: the circuit is scaled so that a
 * partition has about 2^log_size constraints (0 = full size). Scaling drops
 * challenges (sectors) first, then shortens the per-challenge work (layers,
 * message length, parents, tree depths), so the biggest circuits keep their
 * proportions down to ~2^17; below that the smallest structure is used (a
 * porep partition cannot go below one labelling hash, ~2^15.7).
 *
 * Jobs. A proof's inputs are a small JSON object:
 *     {"seed": 42, "partition": 3, "challenges": [17, 90210, ...]}
 * seed (integer >= 0) stands for the sector: it derives the replica id, the
 * data, the labels of the parents and every tree node that no challenge
 * opens; partition is < the circuit's partition count; challenges (optional:
 * derived from seed and partition when absent) lists the node indices of
 * the partition's challenges (sector-major for the PoSts), each
 * < 2^node_bits. From it the witness is computed natively, as the real
 * system computes it from a vanilla proof: the trees are built sparsely
 * (only the challenged paths are hashed; the other subtrees are pseudo-
 * random nodes), so the public inputs (roots, commitments, challenge
 * indices) depend on the seed and the challenge set.
 *
 * Memory at full size (one porep-32g partition, 130 M constraints):
 *   witness (cuzk_circuit_witness)   bits 16 MB + layout 16 MB + fields
 *                                    ~0.3 M x 32 B = ~10 MB: ~45 MB, plus
 *                                    per thread a window of one challenge
 *                                    (~1 MB); a dense witness would be 4.2 GB
 *   recording (cuzk_circuit_record)  the CSR matrices: 8 bytes a term, 722 M
 *                                    terms -> ~6 GB, plus 24 bytes a row
 *                                    (3 GB) and ~1 GB of variable maps:
 *                                    ~11 GB peak; then the PCE ~3.2 GB
 * wpost-32g: witness ~2.6 GB (field variables dominate); recording ~29 GB:
 * 287 bytes a constraint (measured at 2^20 to 2^22: ~29 terms at 8 bytes,
 * 24 bytes of row starts, ~31 of values), and `cuzk compile` peaks at ~1.3
 * times the recording (matrices and PCE together).
 *
 * Errors: statuses as elsewhere, and err (CUZK_ERRMSG_LEN bytes, may be
 * NULL) gets a message naming what is wrong ("inputs: challenge 3 (= ...)
 * out of range ..."). Thread safety: a cuzk_circuit may be used by one
 * thread at a time; distinct ones are independent.
 */
#ifndef CUZK_CIRCUITS_H
#define CUZK_CIRCUITS_H

#include <stddef.h>
#include <stdint.h>

#include <cuzk/formats.h>
#include <cuzk/r1cs.h>
#include <cuzk/status.h>

/* What a circuit id at a size is. */
typedef struct {
    const char *id;          /* "porep-32g", ... */
    const char *what;        /* one line */
    unsigned partitions;     /* partition circuits per proof */
    unsigned log_size;       /* as asked (0: full) */
    unsigned challenges;     /* per partition */
    unsigned node_bits;      /* challenges are < 2^node_bits */
    uint64_t n_constraints;  /* estimate per partition (exact after a record) */
    uint32_t n_inputs;       /* exact: ONE, the commitments, challenge indices */
    /* the scaled structure, for the curious (0 where it does not apply) */
    unsigned sectors, sha_depth, layers, label_bytes, parents, poseidon_depth;
} cuzk_circuit_info;

typedef struct cuzk_circuit cuzk_circuit;

/* Number of built-in circuits, and the id of the i-th (NULL past the end). */
unsigned cuzk_circuit_count(void);
const char *cuzk_circuit_id(unsigned i);

/* Opens circuit id at log_size (0 = full size, else 10..27). Allocates;
 * close with cuzk_circuit_close. CUZK_ERR_INVALID_ARGUMENT for an unknown id
 * or size (err names it). */
cuzk_status cuzk_circuit_open(cuzk_circuit **c, const char *id, unsigned log_size, char *err);
void cuzk_circuit_close(cuzk_circuit *c); /* NULL is fine */
const cuzk_circuit_info *cuzk_circuit_describe(const cuzk_circuit *c);

/* Records the R1CS of one partition (every partition has the same one):
 * m gets the matrices (caller frees with cuzk_matrices_free), shape the
 * counts (inputs with ONE, aux bits and fields, constraints). The values
 * come from a job derived from seed 0, partition 0, prepared on every core
 * (its native trees); the recording itself is single-threaded: about 4.6
 * M constraints/s for porep-32g (Xeon), ~2.3 M/s for the Poseidon-heavy ids
 * on the 2-core dev box, whose constraints have ~29 terms against porep's
 * ~6 (the Poseidon hash replays a per-parameter template, gadgets.h). */
cuzk_status cuzk_circuit_record(cuzk_circuit *c, cuzk_matrices *m, cuzk_cs_shape *shape,
                                char *err);

/* A valid inputs JSON for partition of the sector "seed" with the
 * challenges derived as when they are absent: *json malloc'd (free()). */
cuzk_status cuzk_circuit_inputs_json(const cuzk_circuit *c, uint64_t seed, unsigned partition,
                                     char **json, char *err);

/* Computes the witness of one partition from an inputs JSON of len bytes.
 * cs: a zeroed cuzk_cs, or one filled by an earlier call with the same c
 * (then nothing is allocated: it is reset and refilled). On success cs is a
 * witness-mode cs holding the witness in wire order (cuzk_cs_witness,
 * _view, _split of r1cs.h); the caller frees it with cuzk_cs_free, also on
 * failure. Uses up to nthreads threads (0: every core): the sub-circuits
 * (challenges, sectors) run in windows (r1cs.h), and the result is the same
 * bit for bit whatever the thread count. The first call on a c runs one
 * sub-circuit more to learn the shape. */
cuzk_status cuzk_circuit_witness(cuzk_circuit *c, const char *json, size_t len, cuzk_cs *cs,
                                 unsigned nthreads, char *err);

#endif /* CUZK_CIRCUITS_H */
