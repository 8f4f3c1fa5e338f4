/* Poseidon over Fr with x^5 (eprint 2019/458): constants from the Grain
 * LFSR, native permutation and hash, and the circuit. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <cuzk/gadgets.h>

struct cuzk_poseidon_tpl;
static struct cuzk_poseidon_tpl *tpl_build_hash(const cuzk_poseidon *p);
static void tpl_free(struct cuzk_poseidon_tpl *T);
static cuzk_status opt_build(cuzk_poseidon *p);

/* -------------------------------------------------------- Grain LFSR -- */

/* The 80-bit LFSR of the paper's appendix E, in self-shrinking mode. */
typedef struct {
    uint8_t s[80];
    unsigned pos;
} grain;

static unsigned grain_step(grain *g)
{
    /* b_{i+80} = b_{i+62} ^ b_{i+51} ^ b_{i+38} ^ b_{i+23} ^ b_{i+13} ^ b_i */
    static const unsigned tap[5] = {62, 51, 38, 23, 13};
    unsigned b = g->s[g->pos];
    for (int k = 0; k < 5; k++) b ^= g->s[(g->pos + tap[k]) % 80];
    g->s[g->pos] = (uint8_t)b;
    g->pos = (g->pos + 1) % 80;
    return b;
}

static void grain_init(grain *g, unsigned t, unsigned rf, unsigned rp)
{
    unsigned p = 0;
    memset(g->s, 1, sizeof g->s); /* b50..b79 stay 1 */
    /* field = 1 (prime field, 2 bits), S-box = 0 (x^alpha, 4 bits), n = 255
     * (12), t (12), R_F (10), R_P (10); each most significant bit first */
    const struct { unsigned v, bits; } f[6] = {{1, 2}, {0, 4}, {255, 12}, {t, 12}, {rf, 10}, {rp, 10}};
    for (int k = 0; k < 6; k++)
        for (int i = (int)f[k].bits - 1; i >= 0; i--) g->s[p++] = (f[k].v >> i) & 1;
    g->pos = 0;
    for (int i = 0; i < 160; i++) grain_step(g);
}

static unsigned grain_bit(grain *g)
{
    for (;;) { /* pairs (b1, b2): output b2 when b1 = 1 */
        unsigned b1 = grain_step(g), b2 = grain_step(g);
        if (b1) return b2;
    }
}

/* A field element from 255 output bits, most significant first: rejected
 * and drawn again when >= r if reject, else reduced mod r. */
static void grain_fr(grain *g, cuzk_fr *out, int reject)
{
    for (;;) {
        uint64_t l[4] = {0, 0, 0, 0};
        for (int i = 254; i >= 0; i--) l[i / 64] |= (uint64_t)grain_bit(g) << (i % 64);
        if (!reject) {
            cuzk_fr_from_limbs_reduce(out, l);
            return;
        }
        if (cuzk_fr_from_limbs(out, l) == CUZK_OK) return;
    }
}

cuzk_status cuzk_poseidon_init(cuzk_poseidon *p, unsigned t, unsigned rf, unsigned rp)
{
    memset(p, 0, sizeof *p);
    if (t < 2 || t > 32 || rf < 2 || rf % 2 || rf >= 1024 || rp < 1 || rp >= 1024)
        return CUZK_ERR_INVALID_ARGUMENT;
    size_t nrc = (size_t)(rf + rp) * t;
    p->rc = malloc(nrc * sizeof *p->rc);
    p->mds = malloc((size_t)t * t * sizeof *p->mds);
    cuzk_fr *xy = malloc(2 * (size_t)t * sizeof *xy);
    if (!p->rc || !p->mds || !xy) {
        free(xy);
        cuzk_poseidon_free(p);
        return CUZK_ERR_NO_MEMORY;
    }
    grain g;
    grain_init(&g, t, rf, rp);
    for (size_t i = 0; i < nrc; i++) grain_fr(&g, &p->rc[i], 1);
    for (unsigned i = 0; i < 2 * t; i++) grain_fr(&g, &xy[i], 0);
    for (unsigned i = 0; i < t; i++)
        for (unsigned j = 0; j < t; j++) {
            cuzk_fr s;
            cuzk_fr_add(&s, &xy[i], &xy[t + j]);
            if (cuzk_fr_is_zero(&s)) { /* a Cauchy matrix needs x_i + y_j != 0 */
                free(xy);
                cuzk_poseidon_free(p);
                return CUZK_ERR_INVALID_ARGUMENT;
            }
            cuzk_fr_inv(&p->mds[i * t + j], &s);
        }
    free(xy);
    p->t = t;
    p->rounds_full = rf;
    p->rounds_partial = rp;
    if (opt_build(p) != CUZK_OK || !(p->tpl_ = tpl_build_hash(p))) {
        cuzk_poseidon_free(p);
        return CUZK_ERR_NO_MEMORY;
    }
    return CUZK_OK;
}

void cuzk_poseidon_free(cuzk_poseidon *p)
{
    if (!p) return;
    free(p->rc);
    free(p->mds);
    free(p->pre_rc);
    free(p->pre_mds);
    free(p->partial_rc);
    free(p->sparse);
    tpl_free(p->tpl_);
    memset(p, 0, sizeof *p);
}

static cuzk_poseidon std_p[2];
static int std_ok[2];
static pthread_once_t std_once = PTHREAD_ONCE_INIT;

static void std_init(void)
{
    /* R_P: the reference script's 128-bit minimum (56 for t = 3, 57 for
     * t = 9, margin included) rounded up to a multiple of t, as the paper's
     * published instances (t = 3: 57, t = 5: 60) do. docs/circuits.md. */
    std_ok[0] = cuzk_poseidon_init(&std_p[0], 3, 8, 57) == CUZK_OK;
    std_ok[1] = cuzk_poseidon_init(&std_p[1], 9, 8, 63) == CUZK_OK;
}

const cuzk_poseidon *cuzk_poseidon_std(unsigned arity)
{
    int k = arity == 2 ? 0 : arity == 8 ? 1 : -1;
    if (k < 0) return NULL;
    pthread_once(&std_once, std_init);
    return std_ok[k] ? &std_p[k] : NULL;
}

/* ------------------------------------------- sparse partial rounds -- */

/* inv = a^-1 for the n x n row-major matrix a, which is destroyed
 * (Gauss-Jordan). 0 if a is singular. Init only: not constant time. */
static int mat_inv(cuzk_fr *inv, cuzk_fr *a, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        for (unsigned j = 0; j < n; j++) inv[i * n + j] = i == j ? CUZK_FR_ONE : CUZK_FR_ZERO;
    for (unsigned c = 0; c < n; c++) {
        unsigned pv = c;
        while (pv < n && cuzk_fr_is_zero(&a[pv * n + c])) pv++;
        if (pv == n) return 0;
        for (unsigned j = 0; pv != c && j < n; j++) {
            cuzk_fr x = a[c * n + j];
            a[c * n + j] = a[pv * n + j], a[pv * n + j] = x;
            x = inv[c * n + j];
            inv[c * n + j] = inv[pv * n + j], inv[pv * n + j] = x;
        }
        cuzk_fr d, f, x;
        cuzk_fr_inv_var(&d, &a[c * n + c]);
        for (unsigned j = 0; j < n; j++) {
            cuzk_fr_mul(&a[c * n + j], &a[c * n + j], &d);
            cuzk_fr_mul(&inv[c * n + j], &inv[c * n + j], &d);
        }
        for (unsigned i = 0; i < n; i++) {
            if (i == c || cuzk_fr_is_zero(&a[i * n + c])) continue;
            f = a[i * n + c];
            for (unsigned j = 0; j < n; j++) {
                cuzk_fr_mul(&x, &f, &a[c * n + j]);
                cuzk_fr_sub(&a[i * n + j], &a[i * n + j], &x);
                cuzk_fr_mul(&x, &f, &inv[c * n + j]);
                cuzk_fr_sub(&inv[i * n + j], &inv[i * n + j], &x);
            }
        }
    }
    return 1;
}

/* Fills pre_rc, pre_mds, partial_rc and sparse (gadgets.h). With half =
 * R_F / 2 and P = R_P, partial round r (0 <= r < P) is round half + r;
 * plain: s = M S0(s + c_r), S0 the S-box on element 0 only.
 *
 * Constants, from the last partial round back: a vector added after a
 * round's M equals M^-1 of it added before M, i.e. after S0; of that,
 * element 0 must stay after S0 (partial_rc[r]), the rest commutes with S0
 * and joins c_r before it. Starting from the constants of the first full
 * round after the partial ones, this leaves pre_rc before round 0 and one
 * scalar a round. Nothing with a non-zero element 0 crosses an S-box, so
 * element 0 at each S0 is unchanged; the other elements differ by the
 * vectors moved.
 *
 * Matrices, from the last round back: a round's matrix M_r (M for the
 * last) splits as M_r = S_r D_r with D_r = diag(1, H), H the lower right
 * (t-1) x (t-1) block of M_r, and S_r = [[M_r[0][0], v H^-1], [w, I]] (v:
 * the rest of M_r's first row, w: of its first column). D_r leaves element
 * 0 alone, so it commutes with S0 and with partial_rc, and joins the
 * previous round's matrix: M_{r-1} = D_r M. D_0 = diag(1, pre_mds) is
 * applied after pre_rc. CUZK_ERR_NO_MEMORY when out of memory; CUZK_OK
 * with all four NULL (plain rounds) if a block is singular. */
static cuzk_status opt_build(cuzk_poseidon *p)
{
    unsigned t = p->t, n = t - 1, np = p->rounds_partial, half = p->rounds_full / 2;
    size_t tt = (size_t)t * t, nn = (size_t)n * n;
    cuzk_fr *tmp = malloc(tt * sizeof *tmp), *minv = malloc(tt * sizeof *minv);
    cuzk_fr *mr = malloc(tt * sizeof *mr), *h = malloc(nn * sizeof *h);
    cuzk_fr *hinv = malloc(nn * sizeof *hinv);
    p->pre_rc = malloc(t * sizeof *p->pre_rc);
    p->pre_mds = malloc(nn * sizeof *p->pre_mds);
    p->partial_rc = malloc(np * sizeof *p->partial_rc);
    p->sparse = malloc((size_t)np * (2 * t - 1) * sizeof *p->sparse);
    cuzk_status st = CUZK_ERR_NO_MEMORY;
    int ok = 0;
    if (!tmp || !minv || !mr || !h || !hinv || !p->pre_rc || !p->pre_mds || !p->partial_rc ||
        !p->sparse)
        goto out;
    st = CUZK_OK;
    memcpy(tmp, p->mds, tt * sizeof *tmp);
    ok = mat_inv(minv, tmp, t);
    /* constants; acc: the vector added at the start of round r + 1 */
    cuzk_fr acc[32], w[32], x;
    memcpy(acc, &p->rc[(size_t)(half + np) * t], t * sizeof *acc);
    for (unsigned r = np; ok && r-- > 0;) {
        for (unsigned i = 0; i < t; i++) {
            w[i] = CUZK_FR_ZERO;
            for (unsigned j = 0; j < t; j++) {
                cuzk_fr_mul(&x, &minv[i * t + j], &acc[j]);
                cuzk_fr_add(&w[i], &w[i], &x);
            }
        }
        p->partial_rc[r] = w[0];
        w[0] = CUZK_FR_ZERO;
        const cuzk_fr *rc = &p->rc[(size_t)(half + r) * t];
        for (unsigned i = 0; i < t; i++) cuzk_fr_add(&acc[i], &rc[i], &w[i]);
    }
    memcpy(p->pre_rc, acc, t * sizeof *acc);
    /* matrices; mr = M_r */
    memcpy(mr, p->mds, tt * sizeof *mr);
    for (unsigned r = np; ok && r-- > 0;) {
        for (unsigned i = 0; i < n; i++)
            for (unsigned j = 0; j < n; j++) h[i * n + j] = mr[(1 + i) * t + 1 + j];
        memcpy(tmp, h, nn * sizeof *tmp);
        if (!(ok = mat_inv(hinv, tmp, n))) break;
        cuzk_fr *sp = &p->sparse[(size_t)r * (2 * t - 1)];
        sp[0] = mr[0];
        for (unsigned j = 0; j < n; j++) { /* v H^-1 */
            sp[1 + j] = CUZK_FR_ZERO;
            for (unsigned k = 0; k < n; k++) {
                cuzk_fr_mul(&x, &mr[1 + k], &hinv[k * n + j]);
                cuzk_fr_add(&sp[1 + j], &sp[1 + j], &x);
            }
        }
        for (unsigned i = 0; i < n; i++) sp[t + i] = mr[(1 + i) * t];
        /* M_{r-1} = diag(1, H) M */
        memcpy(mr, p->mds, t * sizeof *mr);
        for (unsigned i = 0; i < n; i++)
            for (unsigned j = 0; j < t; j++) {
                cuzk_fr *e = &mr[(1 + i) * t + j];
                *e = CUZK_FR_ZERO;
                for (unsigned k = 0; k < n; k++) {
                    cuzk_fr_mul(&x, &h[i * n + k], &p->mds[(1 + k) * t + j]);
                    cuzk_fr_add(e, e, &x);
                }
            }
    }
    if (ok) memcpy(p->pre_mds, h, nn * sizeof *h); /* H of round 0 */
out:
    if (st != CUZK_OK || !ok) {
        free(p->pre_rc), free(p->pre_mds), free(p->partial_rc), free(p->sparse);
        p->pre_rc = p->pre_mds = p->partial_rc = p->sparse = NULL;
    }
    free(tmp), free(minv), free(mr), free(h), free(hinv);
    return st;
}

/* ------------------------------------------------------------ native -- */

/* x^5 = (x^2)^2 x: 2 squarings, 1 multiplication. */
static inline void sbox(cuzk_fr *r, const cuzk_fr *x)
{
    cuzk_fr x4;
    cuzk_fr_sqr(&x4, x);
    cuzk_fr_sqr(&x4, &x4);
    cuzk_fr_mul(r, &x4, x);
}

/* s = M s: t^2 multiplications. */
static void mds_mul(const cuzk_poseidon *p, cuzk_fr *s)
{
    unsigned t = p->t;
    cuzk_fr n[32];
    for (unsigned i = 0; i < t; i++) {
        cuzk_fr acc = CUZK_FR_ZERO, x;
        for (unsigned j = 0; j < t; j++) {
            cuzk_fr_mul(&x, &p->mds[i * t + j], &s[j]);
            cuzk_fr_add(&acc, &acc, &x);
        }
        n[i] = acc;
    }
    memcpy(s, n, t * sizeof *s);
}

/* s = S s for a sparse matrix sp (gadgets.h): 2t - 1 multiplications. */
static void sparse_mul(const cuzk_fr *sp, cuzk_fr *s, unsigned t)
{
    cuzk_fr acc, x;
    cuzk_fr_mul(&acc, &sp[0], &s[0]);
    for (unsigned j = 1; j < t; j++) {
        cuzk_fr_mul(&x, &sp[j], &s[j]);
        cuzk_fr_add(&acc, &acc, &x);
    }
    for (unsigned i = 1; i < t; i++) {
        cuzk_fr_mul(&x, &sp[t - 1 + i], &s[0]);
        cuzk_fr_add(&s[i], &s[i], &x);
    }
    s[0] = acc;
}

/* s[1..t) = pre_mds s[1..t): (t - 1)^2 multiplications, once a permutation. */
static void pre_mul(const cuzk_poseidon *p, cuzk_fr *s)
{
    unsigned n = p->t - 1;
    cuzk_fr o[32];
    for (unsigned i = 0; i < n; i++) {
        cuzk_fr acc = CUZK_FR_ZERO, x;
        for (unsigned j = 0; j < n; j++) {
            cuzk_fr_mul(&x, &p->pre_mds[i * n + j], &s[1 + j]);
            cuzk_fr_add(&acc, &acc, &x);
        }
        o[i] = acc;
    }
    memcpy(&s[1], o, n * sizeof *s);
}

/* The gadget's side of a permutation (NULL: native). */
typedef struct {
    cuzk_cs *cs;
    const struct cuzk_poseidon_tpl *T; /* recording mode: the template; NULL: witness */
    cuzk_var *var;                     /* recording mode: symbol -> variable */
    cuzk_coeff *id;                    /* recording mode: T's coefficient ids */
    cuzk_term *buf;                    /* recording mode: T->max_row terms */
    unsigned t, s;                     /* s: S-boxes on variables so far */
    /* is_const[i]: element i is a known constant (structurally: the same
     * in both modes) */
    uint8_t is_const[32];
} gadget;

static void gadget_sbox(gadget *g, cuzk_fr *x);

/* x = x^5, element j's S-box: a gadget's one when g != NULL. */
static inline void round_sbox(gadget *g, unsigned j, cuzk_fr *x)
{
    if (g && !g->is_const[j])
        gadget_sbox(g, x);
    else
        sbox(x, x);
}

/* After a round's linear layer an element is constant only if all were. */
static inline void round_mixed(gadget *g)
{
    if (!g) return;
    int all = 1;
    for (unsigned j = 0; j < g->t; j++) all &= g->is_const[j];
    for (unsigned j = 0; j < g->t; j++) g->is_const[j] = (uint8_t)all;
}

/* The permutation of s, natively (g NULL) or for the gadget g. The values
 * at every S-box are those of the plain rounds, whichever form the partial
 * rounds take. */
static void permute(const cuzk_poseidon *p, cuzk_fr *s, gadget *g)
{
    unsigned t = p->t, half = p->rounds_full / 2, np = p->rounds_partial;
    unsigned nr = p->rounds_full + np;
    int sparse = p->sparse != NULL;
    for (unsigned r = 0; r < nr; r++) {
        const cuzk_fr *rc = &p->rc[r * t];
        if (r >= half && r < half + np) { /* partial */
            if (sparse) {
                unsigned k = r - half;
                if (k == 0) {
                    for (unsigned j = 0; j < t; j++) cuzk_fr_add(&s[j], &s[j], &p->pre_rc[j]);
                    pre_mul(p, s);
                }
                round_sbox(g, 0, &s[0]);
                cuzk_fr_add(&s[0], &s[0], &p->partial_rc[k]);
                sparse_mul(&p->sparse[(size_t)k * (2 * t - 1)], s, t);
            } else {
                for (unsigned j = 0; j < t; j++) cuzk_fr_add(&s[j], &s[j], &rc[j]);
                round_sbox(g, 0, &s[0]);
                mds_mul(p, s);
            }
        } else { /* full; the sparse form added the constants after the partial rounds */
            if (!sparse || r != half + np)
                for (unsigned j = 0; j < t; j++) cuzk_fr_add(&s[j], &s[j], &rc[j]);
            for (unsigned j = 0; j < t; j++) round_sbox(g, j, &s[j]);
            mds_mul(p, s);
        }
        round_mixed(g);
    }
}

void cuzk_poseidon_permute_native(const cuzk_poseidon *p, cuzk_fr *s) { permute(p, s, NULL); }

void cuzk_poseidon_hash_native(const cuzk_poseidon *p, cuzk_fr *out, const cuzk_fr *in)
{
    cuzk_fr s[32];
    s[0] = CUZK_FR_ZERO;
    memcpy(&s[1], in, (p->t - 1) * sizeof *s);
    cuzk_poseidon_permute_native(p, s);
    *out = s[1];
}

/* ----------------------------------------------------------- circuit -- */

/* Recording a permutation means writing, for every S-box on a variable, its
 * input x as a linear combination, and the outputs likewise. Element i of
 * the state is tracked as a combination of a basis: ONE and the S-box
 * outputs (or inputs) since the last full round; each round adds its
 * constants to the ONE column and multiplies by the MDS matrix. Through the
 * partial rounds the basis grows by one a round, so computing those rows
 * costs ~t^2 nb multiplications a round: ~0.2 M for arity 8, ~30 times the
 * witness. The rows depend only on the parameters and on which state
 * elements are constants (and their values), never on the inputs, so they
 * are computed once into a template, in the symbols
 *     0 = ONE, 1 + i = the input variable of state element i,
 *     1 + t + s = the x^5 output of the s-th S-box on a variable,
 * and every recording replays it. cuzk_poseidon_init builds the template of
 * the hash (element 0 the constant 0, the rest variables); a permutation
 * with other constants builds its own and frees it. Replaying emits the
 * same terms in the same order as computing the rows in place did (zero
 * coefficients skipped, basis order), so the coefficient table and the
 * matrices are the same bit for bit (tests/test_poseidon_rec.c).
 *
 * Replaying costs per term, so it does little per term: the coefficient
 * ids of p's template are memoised in each cs (cuzk_cs_memo: interned the
 * first time a term is recorded, in recording order, which keeps the
 * coefficient table's order), and an S-box's input row is built once as a
 * linear combination for its three uses, the two repeats of which the cs
 * copies instead of sorting them again (flush_row in src/r1cs/cs.c). */

/* Rows 0..n_sbox-1: the S-box inputs in recording order; rows n_sbox +
 * i: the final state element i. Term k is coefficient c[k] times symbol
 * sym[k] (apart: a replay reads c only the first time, see row_lc).
 * Owned by its cuzk_poseidon (or caller). */
struct cuzk_poseidon_tpl {
    unsigned n_sbox;
    uint32_t max_row; /* the most terms in a row */
    uint32_t *start; /* n_sbox + t + 1 row starts into the terms */
    uint32_t *sym;
    cuzk_fr *c;
    uint64_t memo_key; /* the coefficient memo of c (cuzk_cs_memo) */
};

static void tpl_free(struct cuzk_poseidon_tpl *T)
{
    if (!T) return;
    free(T->start);
    free(T->sym);
    free(T->c);
    free(T);
}

/* Appends the non-zero entries of row (over basis) as the next row. */
static int tpl_push(struct cuzk_poseidon_tpl *T, unsigned row, size_t *cap, const cuzk_fr *c,
                    const uint32_t *basis, unsigned nb)
{
    uint32_t n = T->start[row];
    if (n + nb > *cap) {
        size_t nc = (*cap + nb) * 2;
        uint32_t *sym = realloc(T->sym, nc * sizeof *sym);
        if (sym) T->sym = sym;
        cuzk_fr *cv = realloc(T->c, nc * sizeof *cv);
        if (cv) T->c = cv;
        if (!sym || !cv) return 0;
        *cap = nc;
    }
    for (unsigned k = 0; k < nb; k++)
        if (!cuzk_fr_is_zero(&c[k])) T->sym[n] = basis[k], T->c[n++] = c[k];
    T->start[row + 1] = n;
    return 1;
}

/* Builds the template of a permutation whose element i is the constant
 * v[i] where is_const[i], else a variable. NULL when out of memory. */
static struct cuzk_poseidon_tpl *tpl_build(const cuzk_poseidon *p, const uint8_t *is_const_in,
                                           const cuzk_fr *v_in)
{
    unsigned t = p->t, half = p->rounds_full / 2, nr = p->rounds_full + p->rounds_partial;
    unsigned cap = 1 + t + p->rounds_partial, max_rows = t * p->rounds_full + p->rounds_partial + t;
    struct cuzk_poseidon_tpl *T = calloc(1, sizeof *T);
    uint32_t *basis = malloc(cap * sizeof *basis);
    cuzk_fr *c = calloc((size_t)t * cap, sizeof *c), *nc = malloc((size_t)t * cap * sizeof *nc);
    size_t tcap = 0;
    int ok = T && basis && c && nc && (T->start = malloc((max_rows + 1) * sizeof *T->start));
    uint8_t is_const[32];
    cuzk_fr v[32]; /* the values of the constant elements */
    memcpy(is_const, is_const_in, t);
    memcpy(v, v_in, t * sizeof *v);
    unsigned nb = 1, s = 0;
    if (ok) {
        T->start[0] = 0;
        basis[0] = 0;
        for (unsigned i = 0; i < t; i++) {
            if (is_const[i]) {
                c[i * cap] = v[i];
            } else {
                basis[nb] = 1 + i;
                c[i * cap + nb++] = CUZK_FR_ONE;
            }
        }
    }
    for (unsigned r = 0; ok && r < nr; r++) {
        const cuzk_fr *rc = &p->rc[r * t];
        int full = r < half || r >= half + p->rounds_partial;
        unsigned ns = full ? t : 1;
        for (unsigned j = 0; j < t; j++) {
            cuzk_fr_add(&v[j], &v[j], &rc[j]);
            cuzk_fr_add(&c[j * cap], &c[j * cap], &rc[j]);
        }
        uint32_t out5[32];
        for (unsigned j = 0; j < ns; j++) {
            if (is_const[j]) {
                sbox(&v[j], &v[j]);
                continue;
            }
            ok &= tpl_push(T, s, &tcap, &c[j * cap], basis, nb);
            out5[j] = 1 + t + s++;
        }
        if (full) { /* new basis: ONE and this round's S-box outputs */
            nb = 1;
            for (unsigned j = 0; j < t; j++) {
                cuzk_fr *row = &c[j * cap];
                memset(row, 0, cap * sizeof *row);
                if (is_const[j]) {
                    row[0] = v[j];
                } else {
                    basis[nb] = out5[j];
                    row[nb++] = CUZK_FR_ONE;
                }
            }
        } else if (!is_const[0]) { /* element 0 becomes the new S-box output */
            memset(c, 0, cap * sizeof *c);
            basis[nb] = out5[0];
            c[nb++] = CUZK_FR_ONE;
        } else {
            memset(c, 0, cap * sizeof *c);
            c[0] = v[0];
        }
        /* C = M C over the basis */
        const cuzk_fr *M = p->mds;
        for (unsigned i = 0; i < t; i++)
            for (unsigned k = 0; k < nb; k++) {
                cuzk_fr acc = CUZK_FR_ZERO, x;
                for (unsigned j = 0; j < t; j++) {
                    if (cuzk_fr_is_zero(&c[j * cap + k])) continue;
                    cuzk_fr_mul(&x, &M[i * t + j], &c[j * cap + k]);
                    cuzk_fr_add(&acc, &acc, &x);
                }
                nc[i * cap + k] = acc;
            }
        for (unsigned i = 0; i < t; i++) memcpy(&c[i * cap], &nc[i * cap], nb * sizeof *c);
        mds_mul(p, v);
        /* after the linear layer an element is constant only if all were */
        int all = 1;
        for (unsigned j = 0; j < t; j++) all &= is_const[j];
        for (unsigned j = 0; j < t; j++) is_const[j] = (uint8_t)all;
    }
    if (ok) T->n_sbox = s;
    for (unsigned i = 0; ok && i < t; i++) ok &= tpl_push(T, s + i, &tcap, &c[i * cap], basis, nb);
    for (unsigned i = 0; ok && i < s + t; i++)
        if (T->start[i + 1] - T->start[i] > T->max_row) T->max_row = T->start[i + 1] - T->start[i];
    if (ok) T->memo_key = cuzk_cs_memo_key();
    free(basis);
    free(c);
    free(nc);
    if (ok) return T;
    tpl_free(T);
    return NULL;
}

/* Row r of T over the symbols' variables var, in buf (T->max_row terms).
 * id: T's coefficient ids in cs (CUZK_COEFF_UNSET: not yet interned),
 * filled here: in the order the terms are first recorded, as long as the
 * row is recorded before the next one is made. */
static cuzk_lc row_lc(cuzk_cs *cs, const struct cuzk_poseidon_tpl *T, unsigned r,
                      const cuzk_var *var, cuzk_coeff *id, cuzk_term *buf)
{
    cuzk_lc lc = {buf, 0, T->max_row};
    for (uint32_t k = T->start[r]; k < T->start[r + 1]; k++) {
        if (__builtin_expect(id[k] == CUZK_COEFF_UNSET, 0)) id[k] = cuzk_cs_coeff(cs, &T->c[k]);
        buf[lc.n++] = (cuzk_term){var[T->sym[k]], id[k]};
    }
    return lc;
}

/* y = x^5 for a variable state element j: allocates x^2, x^4, x^5 and,
 * when recording, records x * x = x2, x2 * x2 = x4, x4 * x = x5 (x is the
 * template's row for this S-box). */
static void gadget_sbox(gadget *g, cuzk_fr *x)
{
    cuzk_cs *cs = g->cs;
    const struct cuzk_poseidon_tpl *T = g->T;
    cuzk_fr x2, x4;
    cuzk_fr_sqr(&x2, x);
    cuzk_fr_sqr(&x4, &x2);
    cuzk_fr_mul(x, &x4, x);
    cuzk_var v2 = cuzk_cs_alloc(cs, &x2);
    cuzk_var v4 = cuzk_cs_alloc(cs, &x4);
    cuzk_var v5 = cuzk_cs_alloc(cs, x);
    if (T) {
        /* x three times: flush_row (cs.c) canonicalises it once */
        cuzk_lc lx = row_lc(cs, T, g->s, g->var, g->id, g->buf);
        cuzk_cs_begin(cs);
        cuzk_cs_term_lc(cs, CUZK_A, &lx, CUZK_COEFF_ONE);
        cuzk_cs_term_lc(cs, CUZK_B, &lx, CUZK_COEFF_ONE);
        cuzk_cs_term(cs, CUZK_C, v2, CUZK_COEFF_ONE);
        cuzk_cs_end(cs);
        cuzk_cs_begin(cs);
        cuzk_cs_term(cs, CUZK_A, v2, CUZK_COEFF_ONE);
        cuzk_cs_term(cs, CUZK_B, v2, CUZK_COEFF_ONE);
        cuzk_cs_term(cs, CUZK_C, v4, CUZK_COEFF_ONE);
        cuzk_cs_end(cs);
        cuzk_cs_begin(cs);
        cuzk_cs_term(cs, CUZK_A, v4, CUZK_COEFF_ONE);
        cuzk_cs_term_lc(cs, CUZK_B, &lx, CUZK_COEFF_ONE);
        cuzk_cs_term(cs, CUZK_C, v5, CUZK_COEFF_ONE);
        cuzk_cs_end(cs);
        g->var[1 + g->t + g->s] = v5;
    }
    g->s++;
}

/* Permutes values v[0..t) whose elements are the variables in[i] or, where
 * in[i] == CUZK_VAR_ONE, the constant v[i]; then allocates the final state
 * elements i in outs[0..n_out) as variables out[k]. Records the
 * constraints from T when T != NULL (recording mode). */
static void permute_gadget(cuzk_cs *cs, const cuzk_poseidon *p, cuzk_fr *v, const cuzk_var *in,
                           const struct cuzk_poseidon_tpl *T, cuzk_var *var, cuzk_coeff *id,
                           cuzk_term *buf, const unsigned *outs, unsigned n_out, cuzk_var *out)
{
    unsigned t = p->t;
    gadget g = {cs, T, var, id, buf, t, 0, {0}};
    for (unsigned i = 0; i < t; i++) g.is_const[i] = in[i] == CUZK_VAR_ONE;
    if (T) { /* var: symbol -> variable */
        var[0] = CUZK_VAR_ONE;
        for (unsigned i = 0; i < t; i++) var[1 + i] = in[i];
    }
    permute(p, v, &g);
    /* a new variable equal to element i of the final state: (row) * 1 = o */
    for (unsigned k = 0; k < n_out; k++) {
        out[k] = cuzk_cs_alloc(cs, &v[outs[k]]);
        if (T) {
            cuzk_cs_begin(cs);
            cuzk_lc lo = row_lc(cs, T, T->n_sbox + outs[k], var, id, buf);
            cuzk_cs_term_lc(cs, CUZK_A, &lo, CUZK_COEFF_ONE);
            cuzk_cs_term(cs, CUZK_B, CUZK_VAR_ONE, CUZK_COEFF_ONE);
            cuzk_cs_term(cs, CUZK_C, out[k], CUZK_COEFF_ONE);
            cuzk_cs_end(cs);
        }
    }
}

static int check_params(cuzk_cs *cs, const cuzk_poseidon *p)
{
    if (p && p->t >= 2 && p->t <= 32 && p->rc && p->mds) return 1;
    cuzk_cs_fail(cs, CUZK_ERR_INVALID_ARGUMENT, "Poseidon: bad parameters");
    return 0;
}

/* Runs the gadget on state v / in: with p's hash template when recording a
 * hash (use_tpl) and p has one, else with a template built for this call. */
static void run_gadget(cuzk_cs *cs, const cuzk_poseidon *p, cuzk_fr *v, const cuzk_var *in,
                       int use_tpl, const unsigned *outs, unsigned n_out, cuzk_var *out)
{
    unsigned t = p->t;
    if (!cuzk_cs_recording(cs)) {
        permute_gadget(cs, p, v, in, NULL, NULL, NULL, NULL, outs, n_out, out);
        return;
    }
    const struct cuzk_poseidon_tpl *T = use_tpl ? p->tpl_ : NULL;
    struct cuzk_poseidon_tpl *own = NULL;
    if (!T) {
        uint8_t is_const[32];
        for (unsigned i = 0; i < t; i++) is_const[i] = in[i] == CUZK_VAR_ONE;
        T = own = tpl_build(p, is_const, v);
    }
    /* The coefficient ids: the cs's memo for p's template, which lives as
     * long as p; one array for this call for a template of its own (its
     * rows still repeat: each S-box input is recorded three times). */
    uint32_t n_terms = T ? T->start[T->n_sbox + t] : 0;
    cuzk_var *var = T ? malloc((1 + t + (size_t)T->n_sbox) * sizeof *var) : NULL;
    cuzk_term *buf = T ? malloc(((size_t)T->max_row + 1) * sizeof *buf) : NULL;
    cuzk_coeff *id = NULL;
    if (own) {
        id = malloc((n_terms ? n_terms : 1) * sizeof *id);
        for (uint32_t k = 0; id && k < n_terms; k++) id[k] = CUZK_COEFF_UNSET;
    } else if (T) {
        id = cuzk_cs_memo(cs, T->memo_key, n_terms);
    }
    if (!var || !id || !buf) {
        cuzk_cs_fail(cs, CUZK_ERR_NO_MEMORY, "out of memory recording Poseidon");
        for (unsigned k = 0; k < n_out; k++) out[k] = CUZK_VAR_ONE;
    } else {
        permute_gadget(cs, p, v, in, T, var, id, buf, outs, n_out, out);
    }
    free(var);
    free(buf);
    if (own) free(id);
    tpl_free(own);
}

void cuzk_poseidon_permute(cuzk_cs *cs, const cuzk_poseidon *p, cuzk_var *out, const cuzk_var *in)
{
    if (!check_params(cs, p)) return;
    unsigned t = p->t, outs[32];
    cuzk_fr v[32];
    for (unsigned i = 0; i < t; i++) {
        cuzk_cs_value(cs, in[i], &v[i]);
        outs[i] = i;
    }
    run_gadget(cs, p, v, in, 0, outs, t, out);
}

cuzk_var cuzk_poseidon_hash(cuzk_cs *cs, const cuzk_poseidon *p, const cuzk_var *in)
{
    if (!check_params(cs, p)) return CUZK_VAR_ONE;
    unsigned t = p->t;
    cuzk_fr v[32];
    cuzk_var vin[32];
    v[0] = CUZK_FR_ZERO; /* capacity: the constant 0 */
    vin[0] = CUZK_VAR_ONE;
    for (unsigned i = 1; i < t; i++) {
        vin[i] = in[i - 1];
        cuzk_cs_value(cs, in[i - 1], &v[i]);
        if (in[i - 1] == CUZK_VAR_ONE) {
            cuzk_cs_fail(cs, CUZK_ERR_INVALID_ARGUMENT, "Poseidon input is the ONE variable");
            return CUZK_VAR_ONE;
        }
    }
    static const unsigned out1 = 1;
    cuzk_var o;
    run_gadget(cs, p, v, vin, 1, &out1, 1, &o);
    return o;
}

/* The hash's template: element 0 the constant 0, the others variables. */
static struct cuzk_poseidon_tpl *tpl_build_hash(const cuzk_poseidon *p)
{
    uint8_t is_const[32] = {1};
    cuzk_fr v[32];
    memset(v, 0, sizeof v);
    return tpl_build(p, is_const, v);
}
