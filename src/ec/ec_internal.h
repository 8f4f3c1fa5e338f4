/* The group law of y^2 = x^3 + b (a = 0), written once for G1 and G2.
 *
 * This header is a template, not an ordinary header: g1.c and g2.c each
 * define the names below and include it once, so it has no include guard.
 *
 *   FE            the coordinate field type (cuzk_fp, cuzk_fp2)
 *   F(name)       its functions (cuzk_fp_##name, cuzk_fp2_##name)
 *   FE_ZERO_, FE_ONE_   its constants
 *   G(name)       the public point functions (cuzk_g1_##name, ...)
 *   AFF, JAC, XYZZ      the point types
 *   CURVE_B_      the curve constant b in Montgomery form (an FE)
 *
 * Every function here is constant-time in its point values and, for
 * G(mul), in the scalar: special cases (infinity, P = Q, P = -Q) are handled
 * by computing the generic result and selecting with cmov, never by
 * branching. Outputs may alias inputs: results are built in locals and
 * stored last.
 *
 * Addition in all three forms is "unified": P = Q is handled inside the
 * addition formula itself rather than by computing a separate doubling.
 * The chord formulas (EFD add-2007-bl, madd-2007-bl, add-2008-s,
 * madd-2008-s) compute the slope of the line through P and Q as N / D with
 * N ~ S2 - S1 and D ~ U2 - U1 (scaled by the common denominator). When
 * P = Q both are zero; the tangent slope 3 x^2 / (2 y) has the same shape
 * with N = 3 U1^2 and D = 2 S1, and the rest of each formula stays valid as
 * long as the term H * I (resp. P * PP), which is the only place where
 * x2 - x1 enters on its own, keeps the chord's H (which is 0). The cost is
 * one squaring (3 U1^2) and, for Jacobian, one multiplication over the EFD
 * count, against a whole doubling plus a point-sized cmov for "compute
 * both and select". P = -Q gives D = H = 0, hence Z = 0: infinity, with no
 * special code. BLS12-381 has no points of order 2 over Fp or Fp2 (both
 * cofactors are odd), so 2 y != 0 for every finite point and the tangent
 * denominator never vanishes.
 *
 * Costs are in field multiplications (M) and squarings (S) of FE.
 */

/* -------------------------------------------------------- small helpers -- */

/* 1 if a == b, for small non-negative values, without a branch. */
static inline int ct_eq_small(unsigned a, unsigned b)
{
    return (int)(((uint64_t)(a ^ b) - 1) >> 63);
}

static inline void fe_mul3(FE *r, const FE *a)
{
    FE t;
    F(dbl)(&t, a);
    F(add)(r, &t, a);
}

static inline void jac_cmov(JAC *r, const JAC *c, int flag)
{
    F(cmov)(&r->x, &c->x, flag);
    F(cmov)(&r->y, &c->y, flag);
    F(cmov)(&r->z, &c->z, flag);
}

static inline void xyzz_cmov(XYZZ *r, const XYZZ *c, int flag)
{
    F(cmov)(&r->x, &c->x, flag);
    F(cmov)(&r->y, &c->y, flag);
    F(cmov)(&r->zz, &c->zz, flag);
    F(cmov)(&r->zzz, &c->zzz, flag);
}

/* y^2 == x^3 + b for affine coordinates (no infinity convention). */
static int affine_eq_holds(const FE *x, const FE *y)
{
    FE l, r;
    F(sqr)(&l, y);
    F(sqr)(&r, x);
    F(mul)(&r, &r, x);
    F(add)(&r, &r, &CURVE_B_);
    return F(eq)(&l, &r);
}

/* ----------------------------------------------------------- predicates -- */

int G(affine_is_inf)(const AFF *p)
{
    return F(is_zero)(&p->x) & F(is_zero)(&p->y);
}

int G(jac_is_inf)(const JAC *p)
{
    return F(is_zero)(&p->z);
}

int G(affine_on_curve)(const AFF *p)
{
    return affine_eq_holds(&p->x, &p->y) | G(affine_is_inf)(p);
}

/* Y^2 = X^3 + b Z^6. 2M + 4S. */
int G(jac_on_curve)(const JAC *p)
{
    FE l, r, z6;
    F(sqr)(&z6, &p->z);
    F(sqr)(&l, &z6);
    F(mul)(&z6, &z6, &l);
    F(mul)(&z6, &z6, &CURVE_B_);
    F(sqr)(&l, &p->y);
    F(sqr)(&r, &p->x);
    F(mul)(&r, &r, &p->x);
    F(add)(&r, &r, &z6);
    return F(eq)(&l, &r) | G(jac_is_inf)(p);
}

int G(affine_eq)(const AFF *a, const AFF *b)
{
    return F(eq)(&a->x, &b->x) & F(eq)(&a->y, &b->y);
}

/* Both points over the common denominator: u = X Z'^2, s = Y Z'^3 (and
 * the squares z1z1 = Z1^2, z2z2 = Z2^2 that add-2007-bl reuses). 6M + 2S. */
static void G(jac_cross)(FE *z1z1, FE *z2z2, FE *u1, FE *u2, FE *s1, FE *s2, const JAC *a,
                         const JAC *b)
{
    F(sqr)(z1z1, &a->z);
    F(sqr)(z2z2, &b->z);
    F(mul)(u1, &a->x, z2z2);
    F(mul)(u2, &b->x, z1z1);
    F(mul)(s1, &a->y, &b->z);
    F(mul)(s1, s1, z2z2);
    F(mul)(s2, &b->y, &a->z);
    F(mul)(s2, s2, z1z1);
}

/* X1 Z2^2 = X2 Z1^2 and Y1 Z2^3 = Y2 Z1^3, or both infinite. 6M + 2S. */
int G(jac_eq)(const JAC *a, const JAC *b)
{
    FE z1z1, z2z2, u1, u2, s1, s2;
    int ia = G(jac_is_inf)(a), ib = G(jac_is_inf)(b);
    G(jac_cross)(&z1z1, &z2z2, &u1, &u2, &s1, &s2, a, b);
    int same = F(eq)(&u1, &u2) & F(eq)(&s1, &s2);
    return (ia & ib) | (((ia | ib) ^ 1) & same);
}

/* ---------------------------------------------------------- conversions -- */

void G(jac_set_inf)(JAC *r)
{
    r->x = FE_ONE_;
    r->y = FE_ONE_;
    r->z = FE_ZERO_;
}

void G(from_affine)(JAC *r, const AFF *p)
{
    JAC t = {p->x, p->y, FE_ONE_}, inf;
    G(jac_set_inf)(&inf);
    jac_cmov(&t, &inf, G(affine_is_inf)(p));
    *r = t;
}

/* x = X / Z^2, y = Y / Z^3: one inversion, 3M + 1S. Infinity gives (0, 0). */
void G(to_affine)(AFF *r, const JAC *p)
{
    FE zi, zi2, x, y;
    int inf = G(jac_is_inf)(p);
    F(inv)(&zi, &p->z);
    F(sqr)(&zi2, &zi);
    F(mul)(&x, &p->x, &zi2);
    F(mul)(&zi2, &zi2, &zi);
    F(mul)(&y, &p->y, &zi2);
    F(cmov)(&x, &FE_ZERO_, inf);
    F(cmov)(&y, &FE_ZERO_, inf);
    r->x = x;
    r->y = y;
}

/* Montgomery's trick over the Z coordinates: one inversion and 3(n-1) M,
 * then 3M + 1S per point. Z = 0 (infinity) is replaced by 1 in the product
 * and the output set to (0, 0). scratch[i] first holds Z_0 ... Z_{i-1},
 * then 1/Z_i; it must not overlap r or p. */
void G(batch_to_affine)(AFF *r, const JAC *p, size_t n, FE *scratch)
{
    if (n == 0) return;
    FE acc = FE_ONE_, z, inv, t;
    for (size_t i = 0; i < n; i++) {
        scratch[i] = acc;
        z = p[i].z;
        F(cmov)(&z, &FE_ONE_, F(is_zero)(&z));
        F(mul)(&acc, &acc, &z);
    }
    F(inv)(&inv, &acc);
    for (size_t i = n; i-- > 0;) {
        z = p[i].z;
        F(cmov)(&z, &FE_ONE_, F(is_zero)(&z));
        F(mul)(&t, &inv, &scratch[i]); /* 1 / Z_i */
        F(mul)(&inv, &inv, &z);        /* 1 / (Z_0 ... Z_{i-1}) */
        scratch[i] = t;
    }
    for (size_t i = 0; i < n; i++) {
        JAC pi = p[i];
        FE zi2, x, y;
        int inf = F(is_zero)(&pi.z);
        F(sqr)(&zi2, &scratch[i]);
        F(mul)(&x, &pi.x, &zi2);
        F(mul)(&zi2, &zi2, &scratch[i]);
        F(mul)(&y, &pi.y, &zi2);
        F(cmov)(&x, &FE_ZERO_, inf);
        F(cmov)(&y, &FE_ZERO_, inf);
        r[i].x = x;
        r[i].y = y;
    }
}

void G(neg)(JAC *r, const JAC *p)
{
    r->x = p->x;
    F(neg)(&r->y, &p->y);
    r->z = p->z;
}

void G(affine_neg)(AFF *r, const AFF *p)
{
    r->x = p->x;
    F(neg)(&r->y, &p->y); /* -0 = 0: infinity stays (0, 0) */
}

/* --------------------------------------------------- Jacobian group law -- */

/* dbl-2009-l (a = 0), 2M + 5S:
 *   A = X1^2, B = Y1^2, C = B^2, D = 2((X1 + B)^2 - A - C), E = 3A, F = E^2,
 *   X3 = F - 2D, Y3 = E (D - X3) - 8C, Z3 = 2 Y1 Z1.
 * Complete: Z1 = 0 gives Z3 = 0, and no finite point has Y1 = 0. */
void G(dbl)(JAC *r, const JAC *p)
{
    FE a, b, c, d, e, f, x3, y3, z3;
    F(sqr)(&a, &p->x);
    F(sqr)(&b, &p->y);
    F(sqr)(&c, &b);
    F(add)(&d, &p->x, &b);
    F(sqr)(&d, &d);
    F(sub)(&d, &d, &a);
    F(sub)(&d, &d, &c);
    F(dbl)(&d, &d);
    fe_mul3(&e, &a);
    F(sqr)(&f, &e);
    F(mul)(&z3, &p->y, &p->z);
    F(dbl)(&z3, &z3);
    F(dbl)(&x3, &d);
    F(sub)(&x3, &f, &x3);
    F(sub)(&y3, &d, &x3);
    F(mul)(&y3, &y3, &e);
    F(dbl)(&c, &c);
    F(dbl)(&c, &c);
    F(dbl)(&c, &c);
    F(sub)(&y3, &y3, &c);
    r->x = x3;
    r->y = y3;
    r->z = z3;
}

/* add-2007-bl, unified (see the top of this file), 12M + 6S
 * (EFD: 11M + 5S for the chord alone):
 *   Z1Z1 = Z1^2, Z2Z2 = Z2^2, U1 = X1 Z2Z2, U2 = X2 Z1Z1,
 *   S1 = Y1 Z2 Z2Z2, S2 = Y2 Z1 Z1Z1, H = U2 - U1, r = 2 (S2 - S1),
 *   chord:   N = r,         E = H
 *   tangent: N = 3 U1^2,    E = S1          (when H = r = 0)
 *   I = (2E)^2, J = H I, V = U1 I,
 *   X3 = N^2 - J - 2V, Y3 = N (V - X3) - S1 (2E) I,
 *   Z3 = ((Z1 + Z2)^2 - Z1Z1 - Z2Z2) E.
 * With E = H this is exactly add-2007-bl (2 E I = 2 J). Infinity on either
 * side selects the other operand. */
void G(add)(JAC *r, const JAC *p, const JAC *q)
{
    FE z1z1, z2z2, u1, u2, s1, s2, h, rr, n, e, e2, i, j, v, t;
    JAC o;
    int p_inf = G(jac_is_inf)(p), q_inf = G(jac_is_inf)(q);
    G(jac_cross)(&z1z1, &z2z2, &u1, &u2, &s1, &s2, p, q);
    F(sub)(&h, &u2, &u1);
    F(sub)(&rr, &s2, &s1);
    F(dbl)(&rr, &rr);
    int is_dbl = F(is_zero)(&h) & F(is_zero)(&rr);
    F(sqr)(&t, &u1);
    fe_mul3(&n, &t);
    F(cmov)(&n, &rr, is_dbl ^ 1);
    e = h;
    F(cmov)(&e, &s1, is_dbl);
    F(dbl)(&e2, &e);
    F(sqr)(&i, &e2);
    F(mul)(&j, &h, &i);
    F(mul)(&v, &u1, &i);
    F(sqr)(&o.x, &n);
    F(sub)(&o.x, &o.x, &j);
    F(sub)(&o.x, &o.x, &v);
    F(sub)(&o.x, &o.x, &v);
    F(sub)(&o.y, &v, &o.x);
    F(mul)(&o.y, &o.y, &n);
    F(mul)(&t, &e2, &i);
    F(mul)(&t, &t, &s1);
    F(sub)(&o.y, &o.y, &t);
    F(add)(&o.z, &p->z, &q->z);
    F(sqr)(&o.z, &o.z);
    F(sub)(&o.z, &o.z, &z1z1);
    F(sub)(&o.z, &o.z, &z2z2);
    F(mul)(&o.z, &o.z, &e);
    jac_cmov(&o, q, p_inf);
    jac_cmov(&o, p, q_inf);
    *r = o;
}

/* madd-2007-bl (Z2 = 1), unified, 8M + 5S (EFD: 7M + 4S for the chord):
 *   Z1Z1 = Z1^2, U2 = X2 Z1Z1, S2 = Y2 Z1 Z1Z1, H = U2 - X1,
 *   r = 2 (S2 - Y1),
 *   chord:   N = r,         E = H
 *   tangent: N = 3 X1^2,    E = Y1          (when H = r = 0)
 *   EE = E^2, I = 4 EE, J = H I, V = X1 I,
 *   X3 = N^2 - J - 2V, Y3 = N (V - X3) - Y1 (2E) I,
 *   Z3 = (Z1 + E)^2 - Z1Z1 - EE.
 * q = (0, 0) selects p; p at infinity selects (x2, y2, 1). */
void G(add_mixed)(JAC *r, const JAC *p, const AFF *q)
{
    FE z1z1, u2, s2, h, rr, n, e, ee, i, j, v, t;
    JAC o, qj = {q->x, q->y, FE_ONE_};
    int p_inf = G(jac_is_inf)(p), q_inf = G(affine_is_inf)(q);
    F(sqr)(&z1z1, &p->z);
    F(mul)(&u2, &q->x, &z1z1);
    F(mul)(&s2, &q->y, &p->z);
    F(mul)(&s2, &s2, &z1z1);
    F(sub)(&h, &u2, &p->x);
    F(sub)(&rr, &s2, &p->y);
    F(dbl)(&rr, &rr);
    int is_dbl = F(is_zero)(&h) & F(is_zero)(&rr);
    F(sqr)(&t, &p->x);
    fe_mul3(&n, &t);
    F(cmov)(&n, &rr, is_dbl ^ 1);
    e = h;
    F(cmov)(&e, &p->y, is_dbl);
    F(sqr)(&ee, &e);
    F(dbl)(&i, &ee);
    F(dbl)(&i, &i);
    F(mul)(&j, &h, &i);
    F(mul)(&v, &p->x, &i);
    F(sqr)(&o.x, &n);
    F(sub)(&o.x, &o.x, &j);
    F(sub)(&o.x, &o.x, &v);
    F(sub)(&o.x, &o.x, &v);
    F(sub)(&o.y, &v, &o.x);
    F(mul)(&o.y, &o.y, &n);
    F(dbl)(&t, &e);
    F(mul)(&t, &t, &i);
    F(mul)(&t, &t, &p->y);
    F(sub)(&o.y, &o.y, &t);
    F(add)(&o.z, &p->z, &e);
    F(sqr)(&o.z, &o.z);
    F(sub)(&o.z, &o.z, &z1z1);
    F(sub)(&o.z, &o.z, &ee);
    jac_cmov(&o, &qj, p_inf);
    jac_cmov(&o, p, q_inf);
    *r = o;
}

/* ------------------------------------------------------ scalar multiply -- */

/* Fixed 4-bit windows, most significant first: 252 doublings and 64
 * additions (plus 14 for the table), whatever the scalar. Each window's
 * table entry is fetched by scanning all 16 entries with cmov, and the
 * addition is the unified one, so neither the memory access pattern nor
 * the sequence of field operations depends on k. */
void G(mul)(JAC *r, const JAC *p, const cuzk_fr *k)
{
    uint64_t e[CUZK_FR_LIMBS];
    JAC tab[16], acc, t;
    cuzk_fr_to_limbs(e, k);
    G(jac_set_inf)(&tab[0]);
    tab[1] = *p;
    for (unsigned i = 2; i < 16; i++) {
        if (i & 1)
            G(add)(&tab[i], &tab[i - 1], &tab[1]);
        else
            G(dbl)(&tab[i], &tab[i / 2]);
    }
    G(jac_set_inf)(&acc);
    enum { WINDOWS = 16 * CUZK_FR_LIMBS }; /* 4-bit windows of 256 bits */
    for (int w = WINDOWS - 1; w >= 0; w--) {
        if (w != WINDOWS - 1) {
            G(dbl)(&acc, &acc);
            G(dbl)(&acc, &acc);
            G(dbl)(&acc, &acc);
            G(dbl)(&acc, &acc);
        }
        unsigned idx = (unsigned)(e[w / 16] >> (4 * (w % 16))) & 15;
        t = tab[0];
        for (unsigned j = 1; j < 16; j++) jac_cmov(&t, &tab[j], ct_eq_small(j, idx));
        G(add)(&acc, &acc, &t);
    }
    *r = acc;
    /* Do not leave the secret scalar on the stack. */
    volatile uint64_t *ve = e;
    for (size_t i = 0; i < CUZK_FR_LIMBS; i++) ve[i] = 0;
}

/* Left-to-right double-and-add over the bits of k. Variable time in k
 * (the number of additions and where they fall depend on its bits), so k
 * must be public: cofactors, the BLS parameter, the group order. Still
 * constant-time in p. k = 0 or n = 0 gives infinity. */
void G(mul_limbs)(JAC *r, const JAC *p, const uint64_t *k, size_t n)
{
    JAC acc, base = *p;
    size_t top = n;
    while (top > 0 && k[top - 1] == 0) top--;
    G(jac_set_inf)(&acc);
    if (top == 0) {
        *r = acc;
        return;
    }
    int bit = 63;
    while (!((k[top - 1] >> bit) & 1)) bit--;
    acc = base;
    for (size_t i = top; i-- > 0;) {
        for (int b = (i == top - 1) ? bit - 1 : 63; b >= 0; b--) {
            G(dbl)(&acc, &acc);
            if ((k[i] >> b) & 1) G(add)(&acc, &acc, &base);
        }
    }
    *r = acc;
}

/* ------------------------------------------------------- XYZZ group law -- */

void G(xyzz_set_inf)(XYZZ *r)
{
    r->x = FE_ONE_;
    r->y = FE_ONE_;
    r->zz = FE_ZERO_;
    r->zzz = FE_ZERO_;
}

void G(xyzz_from_affine)(XYZZ *r, const AFF *p)
{
    XYZZ t = {p->x, p->y, FE_ONE_, FE_ONE_}, inf;
    G(xyzz_set_inf)(&inf);
    xyzz_cmov(&t, &inf, G(affine_is_inf)(p));
    *r = t;
}

/* (X, Y, ZZ, ZZZ) -> (X ZZ, Y ZZZ, ZZ): with Z = ZZ, X ZZ / Z^2 = X / ZZ and
 * Y ZZZ / Z^3 = Y ZZZ / ZZZ^2 = Y / ZZZ. 2M. ZZ = 0 stays infinity. */
void G(xyzz_to_jac)(JAC *r, const XYZZ *p)
{
    JAC o;
    F(mul)(&o.x, &p->x, &p->zz);
    F(mul)(&o.y, &p->y, &p->zzz);
    o.z = p->zz;
    *r = o;
}

/* dbl-2008-s-1 (a = 0), 6M + 3S:
 *   U = 2 Y1, V = U^2, W = U V, S = X1 V, M = 3 X1^2,
 *   X3 = M^2 - 2S, Y3 = M (S - X3) - W Y1, ZZ3 = V ZZ1, ZZZ3 = W ZZZ1.
 * Complete: ZZ1 = 0 gives ZZ3 = 0. */
void G(xyzz_dbl)(XYZZ *r, const XYZZ *p)
{
    FE u, v, w, s, m, t;
    XYZZ o;
    F(dbl)(&u, &p->y);
    F(sqr)(&v, &u);
    F(mul)(&w, &u, &v);
    F(mul)(&s, &p->x, &v);
    F(sqr)(&t, &p->x);
    fe_mul3(&m, &t);
    F(sqr)(&o.x, &m);
    F(dbl)(&t, &s);
    F(sub)(&o.x, &o.x, &t);
    F(sub)(&o.y, &s, &o.x);
    F(mul)(&o.y, &o.y, &m);
    F(mul)(&t, &w, &p->y);
    F(sub)(&o.y, &o.y, &t);
    F(mul)(&o.zz, &v, &p->zz);
    F(mul)(&o.zzz, &w, &p->zzz);
    *r = o;
}

/* add-2008-s, unified, 12M + 3S (EFD: 12M + 2S for the chord):
 *   U1 = X1 ZZ2, U2 = X2 ZZ1, S1 = Y1 ZZZ2, S2 = Y2 ZZZ1,
 *   P = U2 - U1, R = S2 - S1,
 *   chord:   N = R,         D = P
 *   tangent: N = 3 U1^2,    D = 2 S1        (when P = R = 0)
 *   PP = D^2, PPP = D PP, Q = U1 PP, T = P PP (= PPP, or 0 for the tangent),
 *   X3 = N^2 - T - 2Q, Y3 = N (Q - X3) - S1 PPP,
 *   ZZ3 = ZZ1 ZZ2 PP, ZZZ3 = ZZZ1 ZZZ2 PPP. */
void G(xyzz_add)(XYZZ *r, const XYZZ *p, const XYZZ *q)
{
    FE u1, u2, s1, s2, pd, rr, n, d, pp, ppp, qq, t;
    XYZZ o;
    int p_inf = F(is_zero)(&p->zz), q_inf = F(is_zero)(&q->zz);
    F(mul)(&u1, &p->x, &q->zz);
    F(mul)(&u2, &q->x, &p->zz);
    F(mul)(&s1, &p->y, &q->zzz);
    F(mul)(&s2, &q->y, &p->zzz);
    F(sub)(&pd, &u2, &u1);
    F(sub)(&rr, &s2, &s1);
    int is_dbl = F(is_zero)(&pd) & F(is_zero)(&rr);
    F(sqr)(&t, &u1);
    fe_mul3(&n, &t);
    F(cmov)(&n, &rr, is_dbl ^ 1);
    F(dbl)(&d, &s1);
    F(cmov)(&d, &pd, is_dbl ^ 1);
    F(sqr)(&pp, &d);
    F(mul)(&ppp, &d, &pp);
    F(mul)(&qq, &u1, &pp);
    t = ppp;
    F(cmov)(&t, &FE_ZERO_, is_dbl);
    F(sqr)(&o.x, &n);
    F(sub)(&o.x, &o.x, &t);
    F(sub)(&o.x, &o.x, &qq);
    F(sub)(&o.x, &o.x, &qq);
    F(sub)(&o.y, &qq, &o.x);
    F(mul)(&o.y, &o.y, &n);
    F(mul)(&t, &s1, &ppp);
    F(sub)(&o.y, &o.y, &t);
    F(mul)(&o.zz, &p->zz, &q->zz);
    F(mul)(&o.zz, &o.zz, &pp);
    F(mul)(&o.zzz, &p->zzz, &q->zzz);
    F(mul)(&o.zzz, &o.zzz, &ppp);
    xyzz_cmov(&o, q, p_inf);
    xyzz_cmov(&o, p, q_inf);
    *r = o;
}

/* madd-2008-s (ZZ2 = ZZZ2 = 1), unified, 8M + 3S (EFD: 8M + 2S):
 *   U2 = X2 ZZ1, S2 = Y2 ZZZ1, P = U2 - X1, R = S2 - Y1,
 *   chord:   N = R,         D = P
 *   tangent: N = 3 X1^2,    D = 2 Y1        (when P = R = 0)
 *   PP = D^2, PPP = D PP, Q = X1 PP, T = P PP,
 *   X3 = N^2 - T - 2Q, Y3 = N (Q - X3) - Y1 PPP,
 *   ZZ3 = ZZ1 PP, ZZZ3 = ZZZ1 PPP.
 * q = (0, 0) selects p; p at infinity selects (x2, y2, 1, 1). */
void G(xyzz_add_mixed)(XYZZ *r, const XYZZ *p, const AFF *q)
{
    FE u2, s2, pd, rr, n, d, pp, ppp, qq, t;
    XYZZ o, qx = {q->x, q->y, FE_ONE_, FE_ONE_};
    int p_inf = F(is_zero)(&p->zz), q_inf = G(affine_is_inf)(q);
    F(mul)(&u2, &q->x, &p->zz);
    F(mul)(&s2, &q->y, &p->zzz);
    F(sub)(&pd, &u2, &p->x);
    F(sub)(&rr, &s2, &p->y);
    int is_dbl = F(is_zero)(&pd) & F(is_zero)(&rr);
    F(sqr)(&t, &p->x);
    fe_mul3(&n, &t);
    F(cmov)(&n, &rr, is_dbl ^ 1);
    F(dbl)(&d, &p->y);
    F(cmov)(&d, &pd, is_dbl ^ 1);
    F(sqr)(&pp, &d);
    F(mul)(&ppp, &d, &pp);
    F(mul)(&qq, &p->x, &pp);
    t = ppp;
    F(cmov)(&t, &FE_ZERO_, is_dbl);
    F(sqr)(&o.x, &n);
    F(sub)(&o.x, &o.x, &t);
    F(sub)(&o.x, &o.x, &qq);
    F(sub)(&o.x, &o.x, &qq);
    F(sub)(&o.y, &qq, &o.x);
    F(mul)(&o.y, &o.y, &n);
    F(mul)(&t, &p->y, &ppp);
    F(sub)(&o.y, &o.y, &t);
    F(mul)(&o.zz, &p->zz, &pp);
    F(mul)(&o.zzz, &p->zzz, &ppp);
    xyzz_cmov(&o, &qx, p_inf);
    xyzz_cmov(&o, p, q_inf);
    *r = o;
}
