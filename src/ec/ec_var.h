/* Variable-time XYZZ group law for a = 0 curves, for MSM bucket work.
 *
 * A template like ec_internal.h, but private to its includers and made of
 * static inline functions: the including file defines
 *
 *   FE, F(name), FE_ONE_   the coordinate field (cuzk_fp / cuzk_fp2)
 *   AFF, XYZZ              the point types
 *
 * and includes this header once (no include guard). Unlike the group law in
 * ec_internal.h these functions BRANCH on their inputs (infinity, P = Q,
 * P = -Q): use them only on public data, such as the bases and buckets of a
 * Pippenger MSM (which is variable-time in the scalars anyway). They follow
 * the conventions of ec.h: XYZZ infinity has ZZ = 0, affine infinity is
 * (0, 0); outputs may alias inputs.
 *
 * Costs (EFD, a = 0), each special case being a plain branch:
 *   xyzz_madd_var   madd-2008-s     8M + 2S
 *   xyzz_add_var    add-2008-s     12M + 2S
 *   xyzz_dbl_var    dbl-2008-s-1    6M + 3S
 *   (affine doubling, mdbl-2008-s-1, 4M + 3S, for P = Q in the mixed case)
 */

/* r = 2 (x, y), (x, y) affine, finite (y != 0 on these curves). */
static inline void xyzz_mdbl_var(XYZZ *r, const FE *x, const FE *y)
{
    FE u, v, w, s, m, t, x3, y3;
    F(dbl)(&u, y);
    F(sqr)(&v, &u);
    F(mul)(&w, &u, &v);
    F(mul)(&s, x, &v);
    F(sqr)(&t, x);
    F(add)(&m, &t, &t);
    F(add)(&m, &m, &t);
    F(sqr)(&x3, &m);
    F(dbl)(&t, &s);
    F(sub)(&x3, &x3, &t);
    F(sub)(&y3, &s, &x3);
    F(mul)(&y3, &y3, &m);
    F(mul)(&t, &w, y);
    F(sub)(&r->y, &y3, &t);
    r->x = x3;
    r->zz = v;
    r->zzz = w;
}

/* r = 2 p (dbl-2008-s-1). */
static inline void xyzz_dbl_var(XYZZ *r, const XYZZ *p)
{
    if (F(is_zero)(&p->zz)) {
        *r = *p;
        return;
    }
    FE u, v, w, s, m, t, x3, y3;
    F(dbl)(&u, &p->y);
    F(sqr)(&v, &u);
    F(mul)(&w, &u, &v);
    F(mul)(&s, &p->x, &v);
    F(sqr)(&t, &p->x);
    F(add)(&m, &t, &t);
    F(add)(&m, &m, &t);
    F(sqr)(&x3, &m);
    F(dbl)(&t, &s);
    F(sub)(&x3, &x3, &t);
    F(sub)(&y3, &s, &x3);
    F(mul)(&y3, &y3, &m);
    F(mul)(&t, &w, &p->y);
    F(sub)(&y3, &y3, &t);
    F(mul)(&r->zz, &v, &p->zz);
    F(mul)(&r->zzz, &w, &p->zzz);
    r->x = x3;
    r->y = y3;
}

static inline void xyzz_set_inf_var(XYZZ *r)
{
    r->x = FE_ONE_;
    r->y = FE_ONE_;
    memset(&r->zz, 0, sizeof r->zz);
    memset(&r->zzz, 0, sizeof r->zzz);
}

/* r = p + q, q affine (madd-2008-s). */
static inline void xyzz_madd_var(XYZZ *r, const XYZZ *p, const AFF *q)
{
    if (F(is_zero)(&q->x) && F(is_zero)(&q->y)) {
        *r = *p;
        return;
    }
    if (F(is_zero)(&p->zz)) {
        r->x = q->x;
        r->y = q->y;
        r->zz = FE_ONE_;
        r->zzz = FE_ONE_;
        return;
    }
    FE u2, s2, pd, rr, pp, ppp, qq, t, x3, y3;
    F(mul)(&u2, &q->x, &p->zz);
    F(mul)(&s2, &q->y, &p->zzz);
    F(sub)(&pd, &u2, &p->x);
    F(sub)(&rr, &s2, &p->y);
    if (F(is_zero)(&pd)) {
        if (F(is_zero)(&rr))
            xyzz_mdbl_var(r, &q->x, &q->y);
        else
            xyzz_set_inf_var(r);
        return;
    }
    F(sqr)(&pp, &pd);
    F(mul)(&ppp, &pd, &pp);
    F(mul)(&qq, &p->x, &pp);
    F(sqr)(&x3, &rr);
    F(sub)(&x3, &x3, &ppp);
    F(sub)(&x3, &x3, &qq);
    F(sub)(&x3, &x3, &qq);
    F(sub)(&y3, &qq, &x3);
    F(mul)(&y3, &y3, &rr);
    F(mul)(&t, &p->y, &ppp);
    F(sub)(&r->y, &y3, &t);
    F(mul)(&r->zz, &p->zz, &pp);
    F(mul)(&r->zzz, &p->zzz, &ppp);
    r->x = x3;
}

/* r = p + q (add-2008-s). */
static inline void xyzz_add_var(XYZZ *r, const XYZZ *p, const XYZZ *q)
{
    if (F(is_zero)(&q->zz)) {
        *r = *p;
        return;
    }
    if (F(is_zero)(&p->zz)) {
        *r = *q;
        return;
    }
    FE u1, u2, s1, s2, pd, rr, pp, ppp, qq, t, x3, y3, zz3, zzz3;
    F(mul)(&u1, &p->x, &q->zz);
    F(mul)(&u2, &q->x, &p->zz);
    F(mul)(&s1, &p->y, &q->zzz);
    F(mul)(&s2, &q->y, &p->zzz);
    F(sub)(&pd, &u2, &u1);
    F(sub)(&rr, &s2, &s1);
    if (F(is_zero)(&pd)) {
        if (F(is_zero)(&rr))
            xyzz_dbl_var(r, p);
        else
            xyzz_set_inf_var(r);
        return;
    }
    F(sqr)(&pp, &pd);
    F(mul)(&ppp, &pd, &pp);
    F(mul)(&qq, &u1, &pp);
    F(sqr)(&x3, &rr);
    F(sub)(&x3, &x3, &ppp);
    F(sub)(&x3, &x3, &qq);
    F(sub)(&x3, &x3, &qq);
    F(sub)(&y3, &qq, &x3);
    F(mul)(&y3, &y3, &rr);
    F(mul)(&t, &s1, &ppp);
    F(sub)(&y3, &y3, &t);
    F(mul)(&zz3, &p->zz, &q->zz);
    F(mul)(&zz3, &zz3, &pp);
    F(mul)(&zzz3, &p->zzz, &q->zzz);
    F(mul)(&zzz3, &zzz3, &ppp);
    r->x = x3;
    r->y = y3;
    r->zz = zz3;
    r->zzz = zzz3;
}
