/* cuzk — gadgets: booleans, 32-bit words, SHA-256, Poseidon, Merkle paths.
 *
 * Every gadget works in both modes of a cuzk_cs (r1cs.h): it computes its
 * values natively and, only when the cs is recording, writes its
 * constraints. Constraint counts are those of bellman/bellperson's gadgets
 * (the same constant folding, the same MultiEq packing of modular
 * additions), so a SHA-256 compression of variable data from the constant
 * IV costs 25,840 constraints, as in bellman; docs/circuits.md lists them
 * all.
 *
 * Bit order. A cuzk_u32 holds its bits least significant first (b[0] is
 * bit 0). Byte strings and SHA-256 blocks are bit strings in big-endian
 * order, as FIPS 180-4 writes them: bit i of a message is bit 7 - i % 8 of
 * byte i / 8.
 *
 * Errors go to the cs's sticky status (cuzk_cs_status); gadgets return no
 * status of their own except where an argument can be wrong in a way the cs
 * cannot see. Nothing here allocates in witness mode, except where noted.
 */
#ifndef CUZK_GADGETS_H
#define CUZK_GADGETS_H

#include <stddef.h>
#include <stdint.h>

#include <cuzk/ff.h>
#include <cuzk/r1cs.h>
#include <cuzk/status.h>

/* ---------------------------------------------------------- booleans -- */

/* A boolean: a constant, a bit variable, or the negation of one (so NOT is
 * free, as in bellman). value is the boolean's own value (after negation),
 * kept so that gadgets never look values up. */
typedef enum { CUZK_BOOL_CONST = 0, CUZK_BOOL_IS = 1, CUZK_BOOL_NOT = 2 } cuzk_bool_kind;
typedef struct {
    cuzk_var var;  /* a CUZK_VAR_BIT (or any variable known to be 0/1); unused for CONST */
    uint8_t kind;  /* cuzk_bool_kind */
    uint8_t value; /* 0 or 1 */
} cuzk_bool;

static inline cuzk_bool cuzk_bool_const(unsigned v)
{
    return (cuzk_bool){0, CUZK_BOOL_CONST, (uint8_t)(v & 1)};
}
static inline cuzk_bool cuzk_bool_not(cuzk_bool a)
{
    if (a.kind != CUZK_BOOL_CONST) a.kind = a.kind == CUZK_BOOL_IS ? CUZK_BOOL_NOT : CUZK_BOOL_IS;
    a.value ^= 1;
    return a;
}
static inline int cuzk_bool_is_const(cuzk_bool a) { return a.kind == CUZK_BOOL_CONST; }

/* A new bit variable proved boolean: (1 - b) * b = 0. 1 constraint. */
cuzk_bool cuzk_bool_alloc(cuzk_cs *cs, unsigned v);
/* A boolean for a variable that constraints elsewhere already force to be
 * 0 or 1 (no constraint). */
cuzk_bool cuzk_bool_of_var(const cuzk_cs *cs, cuzk_var v);

/* Operations fold constants: when the result is a constant or (the
 * negation of) an operand, they cost nothing. Otherwise the cost is the
 * count given, with a new bit variable for the result. */
cuzk_bool cuzk_bool_xor(cuzk_cs *cs, cuzk_bool a, cuzk_bool b);  /* 1: (2a) b = a + b - c */
cuzk_bool cuzk_bool_and(cuzk_cs *cs, cuzk_bool a, cuzk_bool b);  /* 1: a b = c */
cuzk_bool cuzk_bool_or(cuzk_cs *cs, cuzk_bool a, cuzk_bool b);   /* 1: not(and(not a, not b)) */
/* SHA-256 Ch: a ? b : c, 1 constraint; Maj: majority of a, b, c, 2. */
cuzk_bool cuzk_bool_ch(cuzk_cs *cs, cuzk_bool a, cuzk_bool b, cuzk_bool c);
cuzk_bool cuzk_bool_maj(cuzk_cs *cs, cuzk_bool a, cuzk_bool b, cuzk_bool c);
/* a = b: 1 constraint, none if both are constants (an error if they differ). */
void cuzk_bool_enforce_equal(cuzk_cs *cs, cuzk_bool a, cuzk_bool b);

/* Adds c * a to matrix m of the open row (a NOT adds c*ONE - c*var). */
void cuzk_bool_term(cuzk_cs *cs, cuzk_abc m, cuzk_bool a, cuzk_coeff c);

/* Packing. The field element sum 2^i bits[i] (bits least significant
 * first), n <= 254 so that the sum cannot wrap, as a new aux variable
 * (cuzk_bool_pack) or public input (cuzk_bool_pack_input): 1 constraint. */
cuzk_var cuzk_bool_pack(cuzk_cs *cs, const cuzk_bool *bits, size_t n);
cuzk_var cuzk_bool_pack_input(cuzk_cs *cs, const cuzk_bool *bits, size_t n);
/* The n low bits of variable x (least significant first), each proved
 * boolean, and sum 2^i bits[i] = x: n + 1 constraints, n <= 254. A value of
 * x >= 2^n is an error (CUZK_ERR_UNSATISFIED in the status). */
void cuzk_num_to_bits(cuzk_cs *cs, cuzk_bool *bits, cuzk_var x, size_t n);

/* ------------------------------------------------------- 32-bit words -- */

typedef struct {
    cuzk_bool b[32]; /* b[0] least significant */
    uint32_t value;
} cuzk_u32;

/* MultiEq (bellman): packs several equalities lhs_k = rhs_k, each side
 * known to be < 2^bits_k, into one constraint
 *     sum 2^{o_k} lhs_k = sum 2^{o_k} rhs_k,   o_k = bits_0 + ... + bits_{k-1},
 * while the total stays under 254 bits (so nothing wraps mod r): about 7
 * modular additions per constraint. Recording mode keeps the pending sums
 * in malloc'd buffers (witness mode: nothing). */
typedef struct {
    cuzk_cs *cs;
    unsigned bits_used;
    cuzk_term *lhs, *rhs;
    uint32_t n_lhs, n_rhs, cap_lhs, cap_rhs;
} cuzk_multieq;

void cuzk_multieq_init(cuzk_multieq *m, cuzk_cs *cs);
/* Adds lhs = rhs, both sides < 2^bits as integers (bits <= 253). */
void cuzk_multieq_add(cuzk_multieq *m, unsigned bits, const cuzk_lc *lhs, const cuzk_lc *rhs);
/* Writes the pending constraint, if any, and frees the buffers. */
void cuzk_multieq_finish(cuzk_multieq *m);

void cuzk_u32_const(cuzk_u32 *r, uint32_t v);
/* 32 new bits, each proved boolean: 32 constraints. */
void cuzk_u32_alloc(cuzk_cs *cs, cuzk_u32 *r, uint32_t v);
/* From / to 32 booleans, most significant first (SHA-256 order). Free. */
void cuzk_u32_from_bits_be(cuzk_u32 *r, const cuzk_bool *bits);
void cuzk_u32_to_bits_be(cuzk_bool *bits, const cuzk_u32 *a);
/* Rotations and shifts rename bits: free. r may equal a. */
void cuzk_u32_rotr(cuzk_u32 *r, const cuzk_u32 *a, unsigned k);
void cuzk_u32_shr(cuzk_u32 *r, const cuzk_u32 *a, unsigned k);
/* Bitwise, with the costs of the boolean operations bit by bit (at most 32
 * for xor and ch, 64 for maj). r may equal an operand. */
void cuzk_u32_xor(cuzk_cs *cs, cuzk_u32 *r, const cuzk_u32 *a, const cuzk_u32 *b);
void cuzk_u32_ch(cuzk_cs *cs, cuzk_u32 *r, const cuzk_u32 *a, const cuzk_u32 *b,
                 const cuzk_u32 *c);
void cuzk_u32_maj(cuzk_cs *cs, cuzk_u32 *r, const cuzk_u32 *a, const cuzk_u32 *b,
                  const cuzk_u32 *c);
/* r = ops[0] + ... + ops[n-1] mod 2^32, 1 <= n <= 2^20: allocates the
 * k = bit length of n (2^32 - 1) bits of the full sum (k booleanity
 * constraints) and proves sum ops = sum 2^i r_i: one more constraint, or a
 * share of one when meq is not NULL. Free if every operand is constant.
 * Recording mode allocates scratch for the sums. r may equal an operand. */
void cuzk_u32_addmany(cuzk_cs *cs, cuzk_u32 *r, const cuzk_u32 *const *ops, size_t n,
                      cuzk_multieq *meq);

/* ------------------------------------------------------------ SHA-256 -- */

extern const uint32_t CUZK_SHA256_IV[8];

/* One compression: out = state after processing block (512 booleans,
 * big-endian) from state in (e.g. cuzk_u32_const of the IV). out may equal
 * in. 25,840 constraints from a constant state (bellman's count), 26,192
 * from a variable one, 19,034 for a constant block (docs/circuits.md). */
void cuzk_sha256_compress(cuzk_cs *cs, cuzk_u32 out[8], const cuzk_u32 in[8],
                          const cuzk_bool *block);
/* The SHA-256 digest (256 booleans, big-endian) of a message of n_bits
 * booleans: FIPS 180-4 padding with constant bits, then one compression
 * per 512-bit block from the IV. */
void cuzk_sha256(cuzk_cs *cs, cuzk_bool *digest, const cuzk_bool *msg, size_t n_bits);

/* Native SHA-256 (for witnesses, trees and tests). */
void cuzk_sha256_compress_native(uint32_t state[8], const uint8_t block[64]);
void cuzk_sha256_native(uint8_t digest[32], const uint8_t *msg, size_t len);

/* Booleans of bytes (big-endian bit order) and back. */
void cuzk_bits_of_bytes(cuzk_bool *bits, const uint8_t *bytes, size_t n_bytes);
void cuzk_bytes_of_bits(uint8_t *bytes, const cuzk_bool *bits, size_t n_bytes);

/* ----------------------------------------------------------- Poseidon -- */

/* Poseidon over Fr with S-box x^5 (eprint 2019/458): state width t, R_F
 * full rounds (half before, half after) and R_P partial rounds (S-box on
 * state[0] only), each round = add round constants, S-boxes, multiply by
 * the MDS matrix. Constants from the paper's Grain LFSR (appendix E):
 * seed bits field = 1, S-box = 0, n = 255, t, R_F, R_P, then 30 ones;
 * round constants by rejection sampling, MDS = the first Cauchy matrix
 * M[i][j] = 1/(x_i + y_j). This is what @noble/curves' grainGenConstants
 * (skipMDS = 0) makes; tests/vectors/poseidon.json checks it. */
typedef struct {
    unsigned t, rounds_full, rounds_partial;
    cuzk_fr *rc;  /* (rounds_full + rounds_partial) * t, round by round */
    cuzk_fr *mds; /* t * t, row-major: new s_i = sum_j mds[i t + j] s_j */
    /* The partial rounds rewritten as in eprint 2019/458 appendix B, built
     * by cuzk_poseidon_init; all NULL (a hand-filled struct, or init found
     * a singular submatrix) runs the plain rounds, with the same values.
     * The constants of the partial rounds and of the first full round
     * after them move through the linear layers: one vector pre_rc (t) is
     * added when the partial rounds begin, then each partial round adds
     * partial_rc[r] to element 0 after its S-box, and that full round adds
     * none. The MDS products become one dense pre_mds ((t - 1)^2, row-major)
     * applied to elements 1..t-1 after pre_rc, and a sparse matrix a round:
     * sparse[r (2t - 1) ...] holds its first row (t), then its first column
     * below the diagonal (t - 1); the rest is the identity. Element 0 at
     * every S-box keeps its plain value (the changes of basis leave it
     * alone), so the gadget's witness is the same; docs/circuits.md. */
    cuzk_fr *pre_rc, *pre_mds, *partial_rc, *sparse;
    /* Private (src/gadgets/poseidon.c): the constraints of the hash gadget,
     * built once by cuzk_poseidon_init and replayed by every recording of a
     * hash (its coefficient ids memoised per cs: cuzk_cs_memo). NULL (a
     * hand-filled struct) records the slow way, with the same result. */
    struct cuzk_poseidon_tpl *tpl_;
} cuzk_poseidon;

/* Builds the constants (allocates; free with cuzk_poseidon_free). 2 <= t
 * <= 32, rounds_full even and >= 2, 1 <= rounds_partial < 1024. */
cuzk_status cuzk_poseidon_init(cuzk_poseidon *p, unsigned t, unsigned rounds_full,
                               unsigned rounds_partial);
void cuzk_poseidon_free(cuzk_poseidon *p);
/* The two instances cuzk uses, built once on first use (thread-safe) and
 * never freed: arity 2 = t 3, R_F 8, R_P 57; arity 8 = t 9, R_F 8, R_P 63
 * (docs/circuits.md says why). NULL for other arities or out of memory. */
const cuzk_poseidon *cuzk_poseidon_std(unsigned arity);

/* Native: permutes state[0..t) in place; hash of t - 1 inputs =
 * permutation([0, in...])[1] (noble's sponge with capacity 1). */
void cuzk_poseidon_permute_native(const cuzk_poseidon *p, cuzk_fr *state);
void cuzk_poseidon_hash_native(const cuzk_poseidon *p, cuzk_fr *out, const cuzk_fr *in);

/* Gadgets. 3 constraints per S-box (x^2, x^4, x^5) on a non-constant input:
 * 3 (t R_F + R_P) per permutation, less 3 for S-boxes of constants (the
 * zero capacity element in the first round of a hash), plus 1 per allocated
 * output: 241 for arity 2, 403 for arity 8. */
void cuzk_poseidon_permute(cuzk_cs *cs, const cuzk_poseidon *p, cuzk_var *out, const cuzk_var *in);
cuzk_var cuzk_poseidon_hash(cuzk_cs *cs, const cuzk_poseidon *p, const cuzk_var *in);

/* ------------------------------------------------------------- Merkle -- */

/* SHA-256 binary tree: node = SHA-256(left || right), 32-byte nodes. The
 * leaf's position is index; at level l its bit (index >> l) & 1 is 1 when
 * the current node is the right child. */
void cuzk_merkle_sha256_native(uint8_t root[32], const uint8_t leaf[32], uint64_t index,
                               const uint8_t *siblings /* 32 depth bytes */, unsigned depth);
/* The same in the circuit: path[l] is that bit (callers allocate it with
 * cuzk_bool_alloc), siblings 256 depth booleans, leaf and root 256.
 * Per level: 512 constraints to order the pair, then the two compressions
 * of a 64-byte message. */
void cuzk_merkle_sha256(cuzk_cs *cs, cuzk_bool *root, const cuzk_bool *leaf,
                        const cuzk_bool *path, const cuzk_bool *siblings, unsigned depth);

/* Poseidon arity-8 tree: node = cuzk_poseidon_hash(arity-8 instance) of the
 * 8 children. At level l the current node is child (index >> 3l) & 7; the 7
 * siblings of level l are siblings[7l..7l+7), in child order without it. */
void cuzk_merkle_poseidon8_native(cuzk_fr *root, const cuzk_poseidon *p, const cuzk_fr *leaf,
                                  uint64_t index, const cuzk_fr *siblings, unsigned depth);
/* In the circuit: path[3l + k] is bit k of the child position at level l
 * (proved boolean by the caller). Per level: 4 constraints for the products
 * of the position bits, 14 to place the node among its siblings, then one
 * hash (403): 421. */
cuzk_var cuzk_merkle_poseidon8(cuzk_cs *cs, const cuzk_poseidon *p, cuzk_var leaf,
                               const cuzk_bool *path, const cuzk_var *siblings, unsigned depth);

#endif /* CUZK_GADGETS_H */
