/* Poseidon over Fr with x^5 (eprint 2019/458): constants from the Grain
 * LFSR, native permutation and hash, and the circuit. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <cuzk/gadgets.h>

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
    return CUZK_OK;
}

void cuzk_poseidon_free(cuzk_poseidon *p)
{
    if (!p) return;
    free(p->rc);
    free(p->mds);
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

void cuzk_poseidon_permute_native(const cuzk_poseidon *p, cuzk_fr *s)
{
    unsigned t = p->t, half = p->rounds_full / 2, nr = p->rounds_full + p->rounds_partial;
    for (unsigned r = 0; r < nr; r++) {
        const cuzk_fr *rc = &p->rc[r * t];
        int full = r < half || r >= half + p->rounds_partial;
        for (unsigned j = 0; j < t; j++) cuzk_fr_add(&s[j], &s[j], &rc[j]);
        if (full)
            for (unsigned j = 0; j < t; j++) sbox(&s[j], &s[j]);
        else
            sbox(&s[0], &s[0]);
        mds_mul(p, s);
    }
}

void cuzk_poseidon_hash_native(const cuzk_poseidon *p, cuzk_fr *out, const cuzk_fr *in)
{
    cuzk_fr s[32];
    s[0] = CUZK_FR_ZERO;
    memcpy(&s[1], in, (p->t - 1) * sizeof *s);
    cuzk_poseidon_permute_native(p, s);
    *out = s[1];
}

/* ----------------------------------------------------------- circuit -- */

/* State while recording: element i = sum_k C[i][k] basis[k], basis[0] =
 * ONE and the rest S-box outputs (or inputs) since the last full round.
 * Witness mode keeps only values and which elements are constants. */
typedef struct {
    cuzk_cs *cs;
    const cuzk_poseidon *p;
    unsigned t, nb, cap;
    cuzk_var *basis; /* cap */
    cuzk_fr *c;      /* t * cap, row i at c + i cap */
    cuzk_fr *nc;     /* scratch for M C */
} lcstate;

/* x = <row, basis>: adds scale * row to matrix m of the open row. */
static void row_terms(lcstate *st, cuzk_abc m, const cuzk_fr *row)
{
    for (unsigned k = 0; k < st->nb; k++)
        if (!cuzk_fr_is_zero(&row[k]))
            cuzk_cs_term(st->cs, m, st->basis[k], cuzk_cs_coeff(st->cs, &row[k]));
}

/* y = x^5 with x = <row, basis> (value xv): allocates x^2, x^4, x^5 and
 * records x * x = x2, x2 * x2 = x4, x4 * x = x5. Returns the x5 variable. */
static cuzk_var sbox_gadget(cuzk_cs *cs, lcstate *st, const cuzk_fr *row, const cuzk_fr *xv,
                            cuzk_fr *yv)
{
    cuzk_fr x2, x4;
    cuzk_fr_sqr(&x2, xv);
    cuzk_fr_sqr(&x4, &x2);
    cuzk_fr_mul(yv, &x4, xv);
    cuzk_var v2 = cuzk_cs_alloc(cs, &x2);
    cuzk_var v4 = cuzk_cs_alloc(cs, &x4);
    cuzk_var v5 = cuzk_cs_alloc(cs, yv);
    if (st) {
        cuzk_cs_begin(cs);
        row_terms(st, CUZK_A, row);
        row_terms(st, CUZK_B, row);
        cuzk_cs_term(cs, CUZK_C, v2, CUZK_COEFF_ONE);
        cuzk_cs_end(cs);
        cuzk_cs_begin(cs);
        cuzk_cs_term(cs, CUZK_A, v2, CUZK_COEFF_ONE);
        cuzk_cs_term(cs, CUZK_B, v2, CUZK_COEFF_ONE);
        cuzk_cs_term(cs, CUZK_C, v4, CUZK_COEFF_ONE);
        cuzk_cs_end(cs);
        cuzk_cs_begin(cs);
        cuzk_cs_term(cs, CUZK_A, v4, CUZK_COEFF_ONE);
        row_terms(st, CUZK_B, row);
        cuzk_cs_term(cs, CUZK_C, v5, CUZK_COEFF_ONE);
        cuzk_cs_end(cs);
    }
    return v5;
}

/* C = M C over the current basis. */
static void lc_mds(lcstate *st)
{
    unsigned t = st->t, nb = st->nb, cap = st->cap;
    const cuzk_fr *M = st->p->mds;
    for (unsigned i = 0; i < t; i++)
        for (unsigned k = 0; k < nb; k++) {
            cuzk_fr acc = CUZK_FR_ZERO, x;
            for (unsigned j = 0; j < t; j++) {
                if (cuzk_fr_is_zero(&st->c[j * cap + k])) continue;
                cuzk_fr_mul(&x, &M[i * t + j], &st->c[j * cap + k]);
                cuzk_fr_add(&acc, &acc, &x);
            }
            st->nc[i * cap + k] = acc;
        }
    for (unsigned i = 0; i < t; i++) memcpy(&st->c[i * cap], &st->nc[i * cap], nb * sizeof(cuzk_fr));
}

/* Permutes values v[0..t) whose elements are the variables in[i] or, where
 * in[i] == CUZK_VAR_ONE, the constant v[i]. Leaves in st (recording) the
 * final state as combinations of the basis. */
static void permute_gadget(cuzk_cs *cs, const cuzk_poseidon *p, cuzk_fr *v, const cuzk_var *in,
                           lcstate *st)
{
    unsigned t = p->t, half = p->rounds_full / 2, nr = p->rounds_full + p->rounds_partial;
    /* is_const[i]: element i is a known constant (structurally: the same in
     * both modes) */
    uint8_t is_const[32];
    for (unsigned i = 0; i < t; i++) is_const[i] = in[i] == CUZK_VAR_ONE;
    if (st) { /* basis = ONE, the variable inputs */
        st->nb = 1;
        st->basis[0] = CUZK_VAR_ONE;
        memset(st->c, 0, (size_t)t * st->cap * sizeof(cuzk_fr));
        for (unsigned i = 0; i < t; i++) {
            if (is_const[i]) {
                st->c[i * st->cap] = v[i];
            } else {
                st->basis[st->nb] = in[i];
                st->c[i * st->cap + st->nb++] = CUZK_FR_ONE;
            }
        }
    }
    cuzk_var out5[32];
    for (unsigned r = 0; r < nr; r++) {
        const cuzk_fr *rc = &p->rc[r * t];
        int full = r < half || r >= half + p->rounds_partial;
        for (unsigned j = 0; j < t; j++) {
            cuzk_fr_add(&v[j], &v[j], &rc[j]);
            if (st) cuzk_fr_add(&st->c[j * st->cap], &st->c[j * st->cap], &rc[j]);
        }
        unsigned ns = full ? t : 1;
        for (unsigned j = 0; j < ns; j++) {
            if (is_const[j]) {
                sbox(&v[j], &v[j]);
                continue;
            }
            cuzk_fr y;
            out5[j] = sbox_gadget(cs, st, st ? &st->c[j * st->cap] : NULL, &v[j], &y);
            v[j] = y;
        }
        if (st) {
            if (full) { /* new basis: ONE and this round's S-box outputs */
                st->nb = 1;
                for (unsigned j = 0; j < t; j++) {
                    cuzk_fr *row = &st->c[j * st->cap];
                    memset(row, 0, st->cap * sizeof(cuzk_fr));
                    if (is_const[j]) {
                        row[0] = v[j];
                    } else {
                        st->basis[st->nb] = out5[j];
                        row[st->nb++] = CUZK_FR_ONE;
                    }
                }
            } else if (!is_const[0]) { /* element 0 becomes the new S-box output */
                cuzk_fr *row = &st->c[0];
                memset(row, 0, st->cap * sizeof(cuzk_fr));
                st->basis[st->nb] = out5[0];
                row[st->nb++] = CUZK_FR_ONE;
            } else {
                memset(&st->c[0], 0, st->cap * sizeof(cuzk_fr));
                st->c[0] = v[0];
            }
            lc_mds(st);
        }
        mds_mul(p, v);
        /* after the linear layer an element is constant only if all were */
        int all = 1;
        for (unsigned j = 0; j < t; j++) all &= is_const[j];
        for (unsigned j = 0; j < t; j++) is_const[j] = (uint8_t)all;
    }
}

static int lcstate_init(lcstate *st, cuzk_cs *cs, const cuzk_poseidon *p)
{
    st->cs = cs;
    st->p = p;
    st->t = p->t;
    st->cap = 1 + p->t + p->rounds_partial;
    st->basis = malloc(st->cap * sizeof *st->basis);
    st->c = malloc((size_t)p->t * st->cap * sizeof *st->c);
    st->nc = malloc((size_t)p->t * st->cap * sizeof *st->nc);
    if (st->basis && st->c && st->nc) return 1;
    free(st->basis);
    free(st->c);
    free(st->nc);
    cuzk_cs_fail(cs, CUZK_ERR_NO_MEMORY, "out of memory recording Poseidon");
    return 0;
}

static void lcstate_free(lcstate *st)
{
    free(st->basis);
    free(st->c);
    free(st->nc);
}

/* A new variable equal to element i of the final state: (row) * 1 = out. */
static cuzk_var alloc_output(cuzk_cs *cs, lcstate *st, unsigned i, const cuzk_fr *value)
{
    cuzk_var o = cuzk_cs_alloc(cs, value);
    if (st) {
        cuzk_cs_begin(cs);
        row_terms(st, CUZK_A, &st->c[i * st->cap]);
        cuzk_cs_term(cs, CUZK_B, CUZK_VAR_ONE, CUZK_COEFF_ONE);
        cuzk_cs_term(cs, CUZK_C, o, CUZK_COEFF_ONE);
        cuzk_cs_end(cs);
    }
    return o;
}

static int check_params(cuzk_cs *cs, const cuzk_poseidon *p)
{
    if (p && p->t >= 2 && p->t <= 32 && p->rc && p->mds) return 1;
    cuzk_cs_fail(cs, CUZK_ERR_INVALID_ARGUMENT, "Poseidon: bad parameters");
    return 0;
}

void cuzk_poseidon_permute(cuzk_cs *cs, const cuzk_poseidon *p, cuzk_var *out, const cuzk_var *in)
{
    if (!check_params(cs, p)) return;
    unsigned t = p->t;
    cuzk_fr v[32];
    for (unsigned i = 0; i < t; i++) cuzk_cs_value(cs, in[i], &v[i]);
    lcstate st, *sp = NULL;
    if (cuzk_cs_recording(cs)) {
        if (!lcstate_init(&st, cs, p)) return;
        sp = &st;
    }
    permute_gadget(cs, p, v, in, sp);
    for (unsigned i = 0; i < t; i++) out[i] = alloc_output(cs, sp, i, &v[i]);
    if (sp) lcstate_free(sp);
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
    lcstate st, *sp = NULL;
    if (cuzk_cs_recording(cs)) {
        if (!lcstate_init(&st, cs, p)) return CUZK_VAR_ONE;
        sp = &st;
    }
    permute_gadget(cs, p, v, vin, sp);
    cuzk_var o = alloc_output(cs, sp, 1, &v[1]);
    if (sp) lcstate_free(sp);
    return o;
}
