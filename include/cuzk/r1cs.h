/* cuzk — constraint systems: variables, linear combinations, enforce(a, b, c).
 *
 * A circuit is a C function that takes a cuzk_cs and calls the functions
 * below (directly or through the gadgets of gadgets.h). The same function
 * runs in one of two modes:
 *
 *   CUZK_CS_RECORD   builds the R1CS: every constraint becomes one row of the
 *                    matrices A, B, C (cuzk_cs_take_matrices). Values are
 *                    computed as well, from whatever inputs the circuit is
 *                    given (dummy inputs are fine for setup), so that with
 *                    CUZK_CS_CHECK every constraint is tested as it is made.
 *                    Done once per circuit shape.
 *   CUZK_CS_WITNESS  computes values only: no linear combination is built and
 *                    no row is written. The per-proof fast path.
 *
 * A circuit therefore computes every value natively and writes its
 * constraints under `if (cuzk_cs_recording(cs))`:
 *
 *     cuzk_var c = cuzk_cs_alloc_bit(cs, va & vb);        // both modes
 *     if (cuzk_cs_recording(cs)) {                        // record only
 *         cuzk_cs_begin(cs);                              // a * b = c
 *         cuzk_cs_term(cs, CUZK_A, a, CUZK_COEFF_ONE);
 *         cuzk_cs_term(cs, CUZK_B, b, CUZK_COEFF_ONE);
 *         cuzk_cs_term(cs, CUZK_C, c, CUZK_COEFF_ONE);
 *         cuzk_cs_end(cs);
 *     }
 *
 * Variables and wire order. There are three kinds of variables: public inputs
 * (input 0 is the constant ONE, created by cuzk_cs_init), auxiliary field
 * variables and auxiliary bits. Inputs and aux may be allocated in any
 * interleaving. The wire order of the finished system is that of circom and
 * bellperson: ONE, the other inputs in allocation order, then every aux
 * variable (bit or field) in allocation order. So a circuit gives the same
 * wires here as its bellperson twin, and its matrices go straight to the
 * Groth16 prover and setup.
 *
 * Bit-aware storage. An aux bit (cuzk_cs_alloc_bit) is stored as one bit of a
 * bitmap; every other value as a cuzk_fr in a dense array. The "layout"
 * bitmap says, for each aux variable in allocation order, whether it is a
 * bit. cuzk_cs_witness expands this into a dense vector; cuzk_cs_witness_view
 * hands out the compact form. Allocating a bit does NOT constrain it: the
 * caller either proves it boolean (cuzk_bool_alloc in gadgets.h does so) or
 * allocates a value that other constraints already force to 0 or 1 (the
 * output of an XOR or AND of bits).
 *
 * Memory. In witness mode, a cs initialised with a shape (the counts a
 * recording run reports, cuzk_cs_get_shape) allocates every buffer once, in
 * cuzk_cs_init, and never again: cuzk_cs_reset makes it ready for the next
 * proof without allocating, so per-proof witness generation allocates
 * nothing. A cs without a shape grows its buffers by doubling (the first
 * witness run of an unknown circuit; recording mode always grows).
 *
 * Errors are sticky, as with ferror(): the first error (a bit assigned a
 * value other than 0/1, more variables than the shape allows, a failed
 * constraint under CUZK_CS_CHECK, out of memory, misuse) is kept with a
 * message, and later calls keep working on dummy slots without touching
 * memory out of bounds. A circuit checks cuzk_cs_status() once, at the end.
 *
 * Threads: a cs belongs to one thread at a time. Nothing here has global
 * state but the counter behind cuzk_cs_memo_key (atomic). The cuzk_cs
 * struct is in this header only so that the hot functions can be inlined;
 * its fields are private.
 */
#ifndef CUZK_R1CS_H
#define CUZK_R1CS_H

#include <stddef.h>
#include <stdint.h>

#include <cuzk/ff.h>
#include <cuzk/formats.h>
#include <cuzk/status.h>

/* ------------------------------------------------------------ handles -- */

/* A variable: 2 bits of kind, 30 bits of index within its kind. */
typedef uint32_t cuzk_var;
#define CUZK_VAR_INPUT 0x00000000u /* public input i (ONE is input 0) */
#define CUZK_VAR_FIELD 0x40000000u /* aux field variable (dense cuzk_fr array) */
#define CUZK_VAR_BIT 0x80000000u   /* aux bit (bitmap) */
#define CUZK_VAR_KIND_MASK 0xc0000000u
#define CUZK_VAR_INDEX_MASK 0x3fffffffu
#define CUZK_VAR_ONE CUZK_VAR_INPUT /* input 0, value 1 */

/* A coefficient: an index into the system's dictionary of distinct values
 * (the coeffs of cuzk_matrices). CUZK_COEFF_ONE and CUZK_COEFF_MINUS_ONE
 * (formats.h) always exist; CUZK_COEFF_ZERO marks "no term". */
typedef uint32_t cuzk_coeff;
#define CUZK_COEFF_ZERO 0xffffffffu

/* Which matrix a term goes to. */
typedef enum { CUZK_A = 0, CUZK_B = 1, CUZK_C = 2 } cuzk_abc;

/* A linear combination sum coeff * var in caller-owned storage:
 *     cuzk_term buf[8]; cuzk_lc lc = CUZK_LC_INIT(buf);
 * Adding past cap counts the terms without storing them; cuzk_cs_enforce
 * then fails with CUZK_ERR_INVALID_ARGUMENT. Only meaningful while
 * recording. */
typedef struct {
    cuzk_var var;
    cuzk_coeff coeff;
} cuzk_term;
typedef struct {
    cuzk_term *t;
    uint32_t n, cap;
} cuzk_lc;
#define CUZK_LC_INIT(buf) ((cuzk_lc){(buf), 0, (uint32_t)(sizeof(buf) / sizeof((buf)[0]))})

/* --------------------------------------------------------------- modes -- */

#define CUZK_CS_WITNESS 0u
#define CUZK_CS_RECORD 1u
#define CUZK_CS_CHECK 2u /* with RECORD: test each constraint against the
                            values as it is made (debugging circuits) */

/* The size of a circuit, as a recording (or a first witness) run finds it. */
typedef struct {
    uint32_t n_inputs;      /* public inputs, ONE included */
    uint32_t n_aux;         /* = n_aux_bits + n_aux_fields */
    uint32_t n_aux_bits;
    uint32_t n_aux_fields;
    uint64_t n_constraints; /* 0 when not recorded */
} cuzk_cs_shape;

struct cuzk_cs_rec; /* recording state, private to src/r1cs/cs.c */

typedef struct cuzk_cs {
    /* private: read through the functions below */
    cuzk_fr *inputs;   /* cap_inputs + 1 entries (the last one a dummy slot) */
    cuzk_fr *fields;   /* cap_fields + 1 */
    uint64_t *bits;    /* cap_bits + 64 bits, zero beyond n_bits */
    uint64_t *layout;  /* cap_bits + cap_fields + 64 bits: aux order -> is-bit */
    uint32_t n_inputs, n_fields, n_bits, n_aux;
    uint32_t cap_inputs, cap_fields, cap_bits;
    /* windows (see "Windows" below): global index of local variable 0, and
     * the cs that holds every variable before it; 0 and NULL otherwise */
    uint32_t base_bits, base_fields, base_aux;
    const struct cuzk_cs *outer;
    unsigned flags;
    int fixed;         /* 1: buffers sized by a shape, never grown */
    cuzk_status status;
    struct cuzk_cs_rec *rec; /* NULL in witness mode */
    char msg[160];
} cuzk_cs;

/* Initialises cs (all of it: it need not be zeroed) in mode flags
 * (CUZK_CS_WITNESS, or CUZK_CS_RECORD optionally | CUZK_CS_CHECK). shape may
 * be NULL; in witness mode a shape fixes the buffers (exactly its counts;
 * n_constraints is ignored) and nothing is allocated after this call.
 * Allocates; free with cuzk_cs_free. Returns CUZK_ERR_NO_MEMORY or
 * CUZK_ERR_INVALID_ARGUMENT (unknown flags, counts over 2^30). */
cuzk_status cuzk_cs_init(cuzk_cs *cs, unsigned flags, const cuzk_cs_shape *shape);
/* Frees everything cs owns (safe on a zeroed or already freed cs). */
void cuzk_cs_free(cuzk_cs *cs);
/* Forgets all variables and values (ONE is recreated) and clears the
 * status, keeping the buffers: the next witness run allocates nothing.
 * In recording mode it also drops the recorded rows. */
void cuzk_cs_reset(cuzk_cs *cs);

/* The first error and its message ("" when none); msg may be NULL. */
static inline cuzk_status cuzk_cs_status(const cuzk_cs *cs, const char **msg)
{
    if (msg) *msg = cs->msg;
    return cs->status;
}
/* Records an error from a gadget (the first one wins). printf-style. */
void cuzk_cs_fail(cuzk_cs *cs, cuzk_status s, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static inline int cuzk_cs_recording(const cuzk_cs *cs) { return cs->rec != NULL; }

void cuzk_cs_get_shape(const cuzk_cs *cs, cuzk_cs_shape *shape);

/* ------------------------------------------------------- allocation -- */

/* Slow paths of the inline functions below (growth, errors, recording). */
cuzk_var cuzk_cs_alloc_bit_slow(cuzk_cs *cs, unsigned bit);
cuzk_var cuzk_cs_alloc_slow(cuzk_cs *cs, const cuzk_fr *value);
cuzk_var cuzk_cs_alloc_input_slow(cuzk_cs *cs, const cuzk_fr *value);

/* A new aux bit with value bit (0 or 1; anything else is an error).
 * Not constrained: see the top of this file. */
static inline cuzk_var cuzk_cs_alloc_bit(cuzk_cs *cs, unsigned bit)
{
    uint32_t i = cs->n_bits, j = cs->n_aux;
    if (__builtin_expect(i >= cs->cap_bits || bit > 1 || cs->rec != NULL, 0))
        return cuzk_cs_alloc_bit_slow(cs, bit);
    cs->bits[i >> 6] |= (uint64_t)bit << (i & 63);
    cs->layout[j >> 6] |= (uint64_t)1 << (j & 63);
    cs->n_bits = i + 1;
    cs->n_aux = j + 1;
    return CUZK_VAR_BIT | (cs->base_bits + i);
}

/* A new aux field variable with the given value (Montgomery form). */
static inline cuzk_var cuzk_cs_alloc(cuzk_cs *cs, const cuzk_fr *value)
{
    uint32_t i = cs->n_fields;
    if (__builtin_expect(i >= cs->cap_fields || cs->rec != NULL, 0))
        return cuzk_cs_alloc_slow(cs, value);
    cs->fields[i] = *value;
    cs->n_fields = i + 1;
    cs->n_aux++;
    return CUZK_VAR_FIELD | (cs->base_fields + i);
}

/* A new public input. */
static inline cuzk_var cuzk_cs_alloc_input(cuzk_cs *cs, const cuzk_fr *value)
{
    return cuzk_cs_alloc_input_slow(cs, value);
}

/* ----------------------------------------------------------- values -- */

unsigned cuzk_cs_bit_outer(const cuzk_cs *cs, cuzk_var v);

/* The value of a bit variable (0 or 1); v must be a CUZK_VAR_BIT. */
static inline unsigned cuzk_cs_bit(const cuzk_cs *cs, cuzk_var v)
{
    uint32_t i = v & CUZK_VAR_INDEX_MASK;
    if (__builtin_expect(i < cs->base_bits, 0)) return cuzk_cs_bit_outer(cs, v);
    i -= cs->base_bits;
    return (unsigned)(cs->bits[i >> 6] >> (i & 63)) & 1u;
}

/* *out = the value of any variable (Montgomery form). A handle that names
 * no allocated variable reads as zero. */
void cuzk_cs_value(const cuzk_cs *cs, cuzk_var v, cuzk_fr *out);

/* The witness in wire order: w[0] = 1, the inputs, then every aux value in
 * allocation order. n_w must equal n_inputs + n_aux. */
cuzk_status cuzk_cs_witness(const cuzk_cs *cs, cuzk_fr *w, size_t n_w);

/* The witness without copying, valid until the next cs call that
 * allocates, resets or frees. Aux variable j (in allocation order) is a bit
 * if layout bit j is set; the k-th bit variable is bit k of `bits`, the k-th
 * field variable is fields[k]. */
typedef struct {
    uint32_t n_inputs, n_aux, n_bits, n_fields;
    const cuzk_fr *inputs;
    const cuzk_fr *fields;
    const uint64_t *bits;
    const uint64_t *layout;
} cuzk_witness_view;
void cuzk_cs_witness_view(const cuzk_cs *cs, cuzk_witness_view *view);

/* The witness in wire order for an evaluator that knows bits (the
 * cuzk_pce_witness of pce.h): w[i] for every wire that is not a bit (bit
 * wires are left untouched: they cost no 32-byte write), and bitmaps over
 * the n_w wires (ceil(n_w / 64) words each, overwritten): is_bit (wire i is
 * an aux bit) and bit_val (its value). n_w must equal n_inputs + n_aux. */
cuzk_status cuzk_cs_witness_split(const cuzk_cs *cs, cuzk_fr *w, uint64_t *is_bit,
                                  uint64_t *bit_val, size_t n_w);

/* ----------------------------------------------- recording constraints -- */

/* Dictionary index of a coefficient value (interned; recording only, else
 * CUZK_COEFF_ONE). Zero gives CUZK_COEFF_ZERO. */
cuzk_coeff cuzk_cs_coeff(cuzk_cs *cs, const cuzk_fr *value);
cuzk_coeff cuzk_cs_coeff_i64(cuzk_cs *cs, int64_t value);
/* 2^k and -2^k for k < 256 (cached). */
cuzk_coeff cuzk_cs_coeff_pow2(cuzk_cs *cs, unsigned k);
cuzk_coeff cuzk_cs_coeff_neg_pow2(cuzk_cs *cs, unsigned k);
/* -c and c * d, interned. */
cuzk_coeff cuzk_cs_coeff_neg(cuzk_cs *cs, cuzk_coeff c);
cuzk_coeff cuzk_cs_coeff_mul(cuzk_cs *cs, cuzk_coeff c, cuzk_coeff d);
/* The value of a dictionary entry (ZERO gives 0). */
void cuzk_cs_coeff_value(const cuzk_cs *cs, cuzk_coeff c, cuzk_fr *out);

/* Coefficient memos, for a gadget that records the same list of n non-zero
 * coefficient values again and again (the Poseidon gadget replays a
 * template of rows): interning a 32-byte value per term, every time, costs
 * more than the rest of recording the term.
 *
 * cuzk_cs_memo returns the cs's array of n ids for the list named key,
 * every entry CUZK_COEFF_UNSET when the array is new. The caller sets entry
 * k to cuzk_cs_coeff(cs, &value[k]) the first time it needs it and reads it
 * afterwards, so coefficients are interned in the same order as without a
 * memo (the dictionary's order is part of the output) and the ids are those
 * cuzk_cs_coeff would give (an interned value keeps its id). key must come
 * from cuzk_cs_memo_key (unique in the process: never reused, even after
 * the list is freed), and always name the same values and the same n. The
 * array is owned by cs and lives until the recording ends (take, free);
 * keys are for long-lived lists: each one used on a cs keeps an array there.
 * NULL, with the cs's status set, when out of memory, on a key already used
 * with another n, or when not recording (status untouched then). */
#define CUZK_COEFF_UNSET 0xfffffffeu
uint64_t cuzk_cs_memo_key(void);
cuzk_coeff *cuzk_cs_memo(cuzk_cs *cs, uint64_t key, uint32_t n);

/* One constraint, term by term: begin, any number of terms in any order
 * (repeated variables are merged, zero sums dropped, ONE is variable
 * CUZK_VAR_ONE), end. Rows are stored sorted by wire. Recording only (in
 * witness mode these do nothing, but callers should not build rows then). */
void cuzk_cs_begin(cuzk_cs *cs);
void cuzk_cs_term(cuzk_cs *cs, cuzk_abc m, cuzk_var v, cuzk_coeff c);
/* Adds scale * lc to matrix m of the open row. */
void cuzk_cs_term_lc(cuzk_cs *cs, cuzk_abc m, const cuzk_lc *lc, cuzk_coeff scale);
void cuzk_cs_end(cuzk_cs *cs);

/* <a, w> * <b, w> = <c, w>, from three linear combinations. */
void cuzk_cs_enforce(cuzk_cs *cs, const cuzk_lc *a, const cuzk_lc *b, const cuzk_lc *c);

static inline void cuzk_lc_add(cuzk_lc *lc, cuzk_var v, cuzk_coeff c)
{
    if (lc->n < lc->cap) lc->t[lc->n] = (cuzk_term){v, c};
    lc->n++;
}

/* The value <lc, w> under the current values (recording; for checks). */
void cuzk_cs_lc_value(const cuzk_cs *cs, const cuzk_lc *lc, cuzk_fr *out);

/* Number of rows recorded so far. */
uint64_t cuzk_cs_n_constraints(const cuzk_cs *cs);

/* ----------------------------------------------------------- windows -- */

/* Parallel witness generation. A circuit made of independent sub-circuits
 * (challenges, sectors) whose variable counts are known from a recording
 * (each allocates the same numbers of bits and field variables every time)
 * can compute them on several threads:
 *
 *   outer   a witness-mode cs with a shape (cuzk_cs_init), holding the
 *           circuit's inputs and the variables allocated before the
 *           sub-circuits (the "prologue"), run as usual on one thread;
 *   window  one per thread (cuzk_cs_window_init): a witness-mode cs whose
 *           variables get global handles starting at a given position, and
 *           that reads every variable before that position (inputs
 *           included) from outer. Gadgets run on it unchanged.
 *
 * For sub-circuit k at position at_k (the counts of aux bits, fields and
 * all aux before it: prologue + k pieces), a thread calls
 * cuzk_cs_window_start(w, outer, &at_k), runs the sub-circuit on w, checks
 * cuzk_cs_status(w) and calls cuzk_cs_window_commit(outer, w), which copies
 * the values into outer's buffers in wire order (bits are shifted into
 * place: windows need not start on a 64-bit boundary). When every thread is
 * done, cuzk_cs_skip(outer, &total) advances outer's counts over the
 * committed variables, and outer is the same cs, bit for bit, as one that
 * ran the sub-circuits itself. Call cuzk_cs_skip (or free outer) even when a
 * sub-circuit failed: cuzk_cs_reset clears only up to outer's counts.
 *
 * Thread safety: windows with disjoint ranges may commit concurrently while
 * other windows read outer's prologue (the 64-bit words a window shares
 * with its neighbours are OR'ed atomically). A window cannot allocate
 * inputs (an error), reads the variables of outer only below its position
 * (those at or past it read as zero), and must not record. */

/* Initialises window w for pieces of at most cap->n_aux_bits bits and
 * cap->n_aux_fields fields (other fields of cap ignored). Allocates once;
 * free with cuzk_cs_free. */
cuzk_status cuzk_cs_window_init(cuzk_cs *w, const cuzk_cs_shape *cap);
/* Forgets w's variables and places its next variable at aux position at of
 * outer (at->n_aux_bits bits, at->n_aux_fields fields and at->n_aux = their
 * sum before it, in allocation order). outer must stay alive and unchanged
 * below that position while w is used. CUZK_ERR_INVALID_ARGUMENT if the
 * counts are inconsistent or the window would pass 2^30 variables. */
cuzk_status cuzk_cs_window_start(cuzk_cs *w, const cuzk_cs *outer, const cuzk_cs_shape *at);
/* Copies w's values into outer at w's position (see above). Returns w's
 * status if it is not CUZK_OK, CUZK_ERR_INVALID_ARGUMENT if w is not a
 * window of outer or outer's buffers cannot hold the range. */
cuzk_status cuzk_cs_window_commit(cuzk_cs *outer, const cuzk_cs *w);
/* Counts n->n_aux_bits bits and n->n_aux_fields fields (n->n_aux must be
 * their sum) as allocated in outer, their values being those committed
 * (zero if none were). CUZK_ERR_INVALID_ARGUMENT past outer's shape. */
cuzk_status cuzk_cs_skip(cuzk_cs *outer, const cuzk_cs_shape *n);

/* ------------------------------------------------------- the result -- */

/* Moves the recorded system out: m gets n_rows = number of constraints,
 * wires numbered ONE, inputs, aux (see the top), rows sorted by wire; the
 * caller owns m (cuzk_matrices_free). The cs keeps its values (and can still
 * give the witness) but records nothing more; call cuzk_cs_reset to record
 * again. Fails if the status is not CUZK_OK or the cs is not recording. */
cuzk_status cuzk_cs_take_matrices(cuzk_cs *cs, cuzk_matrices *m);

/* The same, as a circom-style cuzk_r1cs (n_pub_out = 0, n_pub_in =
 * n_inputs - 1, n_prv_in = 0, no labels), for cuzk_r1cs_check and the
 * bellperson-params prover path. Free with cuzk_r1cs_free. */
cuzk_status cuzk_cs_take_r1cs(cuzk_cs *cs, cuzk_r1cs *r);

#endif /* CUZK_R1CS_H */
