/* cuzk — the group G1 of BLS12-381 on the GPU (device code): affine and XYZZ
 * points, mixed addition, addition, doubling.
 *
 *   G1: y^2 = x^3 + 4 over Fp (a = 0).
 *
 * Layout: the CPU's (include/cuzk/ec.h). An affine point is x || y, each an
 * Fp element in Montgomery form (ff.cuh: 12 little-endian 32-bit limbs), 96
 * bytes, the bytes of a cuzk_g1_affine; infinity is (0, 0) and is never
 * passed to the formulas below (callers filter it). An XYZZ point
 * (X, Y, ZZ, ZZZ) = (X / ZZ, Y / ZZZ), ZZ^3 = ZZZ^2, is 192 bytes, the bytes
 * of a cuzk_g1_xyzz; infinity is ZZ = 0 (X, Y, ZZZ are then ignored).
 *
 * Formulas (Explicit-Formulas Database, "xyzz" coordinates, a = 0), with
 * their cost in Fp multiplications M and squarings S:
 *   ec_madd   madd-2008-s       8M + 2S   XYZZ += affine
 *   ec_add    add-2008-s       12M + 2S   XYZZ += XYZZ
 *   ec_dbl    dbl-2008-s-1      6M + 3S   XYZZ = 2 XYZZ
 *   ec_mdbl   mdbl-2008-s-1     4M + 3S   XYZZ = 2 affine
 * The additions branch to doubling when both operands are equal and to
 * infinity when they are opposite, so they are complete; these branches are
 * rare in an MSM (a bucket meeting its own point) and cost nothing when not
 * taken. Everything here is variable-time, as MSM is.
 *
 * Every function is inline with constant-index limb loops, so points live in
 * registers (check the kernels' `-Xptxas -v`: no stack frame).
 */
#ifndef CUZK_GPU_EC_CUH
#define CUZK_GPU_EC_CUH

#include "gpu/ff.cuh"

typedef FfFp EcF; /* the coordinate field */
#define EC_N 12   /* 32-bit limbs per coordinate */

struct ec_aff {
    uint32_t x[EC_N], y[EC_N];
};

struct ec_xyzz {
    uint32_t x[EC_N], y[EC_N], zz[EC_N], zzz[EC_N];
};

/* Montgomery form of 1 in Fp: 2^384 mod q (CUZK_FP_ONE). */
static FF_INLINE constexpr uint32_t ec_fp_one_limb(int i)
{
    return i == 0 ? 0x0002fffdu : i == 1 ? 0x76090000u : i == 2 ? 0xc40c0002u
         : i == 3 ? 0xebf4000bu : i == 4 ? 0x53c758bau : i == 5 ? 0x5f489857u
         : i == 6 ? 0x70525745u : i == 7 ? 0x77ce5853u : i == 8 ? 0xa256ec6du
         : i == 9 ? 0x5c071a97u : i == 10 ? 0xfa80e493u : 0x15f65ec3u;
}

FF_INLINE bool ec_fp_is_zero(const uint32_t a[EC_N])
{
    uint32_t t = 0;
#pragma unroll
    for (int k = 0; k < EC_N; k++) t |= a[k];
    return t == 0;
}

FF_INLINE void ec_fp_copy(uint32_t r[EC_N], const uint32_t a[EC_N])
{
#pragma unroll
    for (int k = 0; k < EC_N; k++) r[k] = a[k];
}

FF_INLINE void ec_fp_set_one(uint32_t r[EC_N])
{
#pragma unroll
    for (int k = 0; k < EC_N; k++) r[k] = ec_fp_one_limb(k);
}

/* r = 3a: two additions. */
FF_INLINE void ec_fp_mul3(uint32_t r[EC_N], const uint32_t a[EC_N])
{
    uint32_t t[EC_N];
    ff_add<EcF>(t, a, a);
    ff_add<EcF>(r, t, a);
}

/* ------------------------------------------------------------ points -- */

FF_INLINE bool ec_is_inf(const ec_xyzz &p) { return ec_fp_is_zero(p.zz); }

FF_INLINE void ec_set_inf(ec_xyzz &p)
{
#pragma unroll
    for (int k = 0; k < EC_N; k++) p.x[k] = p.y[k] = p.zz[k] = p.zzz[k] = 0;
}

/* (0, 0) is the affine point at infinity. */
FF_INLINE bool ec_aff_is_inf(const ec_aff &a)
{
    uint32_t t = 0;
#pragma unroll
    for (int k = 0; k < EC_N; k++) t |= a.x[k] | a.y[k];
    return t == 0;
}

FF_INLINE void ec_from_aff(ec_xyzz &p, const ec_aff &a)
{
    ec_fp_copy(p.x, a.x);
    ec_fp_copy(p.y, a.y);
    ec_fp_set_one(p.zz);
    ec_fp_set_one(p.zzz);
}

/* a = -a (y = q - y; a is not infinity, so y != 0). */
FF_INLINE void ec_aff_neg(ec_aff &a) { ff_neg<EcF>(a.y, a.y); }

/* p = 2 a, mdbl-2008-s-1 (ZZ1 = ZZZ1 = 1), 4M + 3S:
 *   U = 2 y, V = U^2, W = U V, S = x V, M = 3 x^2,
 *   X3 = M^2 - 2S, Y3 = M (S - X3) - W y, ZZ3 = V, ZZZ3 = W.
 * y != 0 (G1 has no point of order 2). */
FF_INLINE void ec_mdbl(ec_xyzz &p, const ec_aff &a)
{
    uint32_t u[EC_N], v[EC_N], w[EC_N], s[EC_N], m[EC_N], t[EC_N];
    ff_dbl<EcF>(u, a.y);
    ff_sqr<EcF>(v, u);
    ff_mul<EcF>(w, u, v);
    ff_mul<EcF>(s, a.x, v);
    ff_sqr<EcF>(t, a.x);
    ec_fp_mul3(m, t);
    ff_sqr<EcF>(p.x, m);
    ff_dbl<EcF>(t, s);
    ff_sub<EcF>(p.x, p.x, t);
    ff_sub<EcF>(t, s, p.x);
    ff_mul<EcF>(t, t, m);
    ff_mul<EcF>(p.y, w, a.y);
    ff_sub<EcF>(p.y, t, p.y);
    ec_fp_copy(p.zz, v);
    ec_fp_copy(p.zzz, w);
}

/* p = 2 p, dbl-2008-s-1 (a = 0), 6M + 3S:
 *   U = 2 Y1, V = U^2, W = U V, S = X1 V, M = 3 X1^2,
 *   X3 = M^2 - 2S, Y3 = M (S - X3) - W Y1, ZZ3 = V ZZ1, ZZZ3 = W ZZZ1.
 * Complete: ZZ1 = 0 gives ZZ3 = 0. */
FF_INLINE void ec_dbl(ec_xyzz &p)
{
    uint32_t u[EC_N], v[EC_N], w[EC_N], s[EC_N], m[EC_N], t[EC_N];
    ff_dbl<EcF>(u, p.y);
    ff_sqr<EcF>(v, u);
    ff_mul<EcF>(w, u, v);
    ff_mul<EcF>(s, p.x, v);
    ff_sqr<EcF>(t, p.x);
    ec_fp_mul3(m, t);
    ff_mul<EcF>(p.y, w, p.y);  /* W Y1; Y1 is not needed after this */
    ff_sqr<EcF>(p.x, m);
    ff_dbl<EcF>(t, s);
    ff_sub<EcF>(p.x, p.x, t);  /* X3 */
    ff_sub<EcF>(t, s, p.x);
    ff_mul<EcF>(t, t, m);
    ff_sub<EcF>(p.y, t, p.y);  /* Y3 */
    ff_mul<EcF>(p.zz, p.zz, v);
    ff_mul<EcF>(p.zzz, p.zzz, w);
}

/* p = 2^k p: k doublings. */
FF_INLINE void ec_dbl_n(ec_xyzz &p, unsigned k)
{
#pragma unroll 1
    for (unsigned i = 0; i < k; i++) ec_dbl(p);
}

/* p += a, madd-2008-s (ZZ2 = ZZZ2 = 1), 8M + 2S:
 *   U2 = x2 ZZ1, S2 = y2 ZZZ1, P = U2 - X1, R = S2 - Y1,
 *   PP = P^2, PPP = P PP, Q = X1 PP,
 *   X3 = R^2 - PPP - 2Q, Y3 = R (Q - X3) - Y1 PPP,
 *   ZZ3 = ZZ1 PP, ZZZ3 = ZZZ1 PPP.
 * p at infinity gives (x2, y2, 1, 1); P = R = 0 (p = a) doubles a; P = 0,
 * R != 0 (p = -a) gives infinity. a must not be infinity. */
FF_INLINE void ec_madd(ec_xyzz &p, const ec_aff &a)
{
    if (ec_is_inf(p)) {
        ec_from_aff(p, a);
        return;
    }
    uint32_t pd[EC_N], r[EC_N], pp[EC_N], ppp[EC_N], q[EC_N], t[EC_N];
    ff_mul<EcF>(t, a.x, p.zz);
    ff_sub<EcF>(pd, t, p.x);
    ff_mul<EcF>(t, a.y, p.zzz);
    ff_sub<EcF>(r, t, p.y);
    if (ec_fp_is_zero(pd)) {
        if (ec_fp_is_zero(r)) ec_mdbl(p, a);
        else ec_set_inf(p);
        return;
    }
    ff_sqr<EcF>(pp, pd);
    ff_mul<EcF>(ppp, pd, pp);
    ff_mul<EcF>(q, p.x, pp);
    ff_sqr<EcF>(t, r);
    ff_sub<EcF>(t, t, ppp);
    ff_sub<EcF>(t, t, q);
    ff_sub<EcF>(p.x, t, q);      /* X3 */
    ff_sub<EcF>(t, q, p.x);
    ff_mul<EcF>(t, t, r);        /* R (Q - X3) */
    ff_mul<EcF>(q, p.y, ppp);    /* Y1 PPP */
    ff_sub<EcF>(p.y, t, q);      /* Y3 */
    ff_mul<EcF>(p.zz, p.zz, pp);
    ff_mul<EcF>(p.zzz, p.zzz, ppp);
}

/* p += o, add-2008-s, 12M + 2S:
 *   U1 = X1 ZZ2, U2 = X2 ZZ1, S1 = Y1 ZZZ2, S2 = Y2 ZZZ1,
 *   P = U2 - U1, R = S2 - S1, PP = P^2, PPP = P PP, Q = U1 PP,
 *   X3 = R^2 - PPP - 2Q, Y3 = R (Q - X3) - S1 PPP,
 *   ZZ3 = ZZ1 ZZ2 PP, ZZZ3 = ZZZ1 ZZZ2 PPP.
 * Complete: infinity on either side, p = o (doubling), p = -o (infinity). */
FF_INLINE void ec_add(ec_xyzz &p, const ec_xyzz &o)
{
    if (ec_is_inf(o)) return;
    if (ec_is_inf(p)) {
        p = o;
        return;
    }
    uint32_t u1[EC_N], s1[EC_N], pd[EC_N], r[EC_N], pp[EC_N], ppp[EC_N], t[EC_N];
    ff_mul<EcF>(u1, p.x, o.zz);
    ff_mul<EcF>(t, o.x, p.zz);
    ff_sub<EcF>(pd, t, u1);
    ff_mul<EcF>(s1, p.y, o.zzz);
    ff_mul<EcF>(t, o.y, p.zzz);
    ff_sub<EcF>(r, t, s1);
    if (ec_fp_is_zero(pd)) {
        if (ec_fp_is_zero(r)) ec_dbl(p);
        else ec_set_inf(p);
        return;
    }
    ff_sqr<EcF>(pp, pd);
    ff_mul<EcF>(ppp, pd, pp);
    ff_mul<EcF>(u1, u1, pp);     /* Q */
    ff_sqr<EcF>(t, r);
    ff_sub<EcF>(t, t, ppp);
    ff_sub<EcF>(t, t, u1);
    ff_sub<EcF>(p.x, t, u1);     /* X3 */
    ff_sub<EcF>(t, u1, p.x);
    ff_mul<EcF>(t, t, r);        /* R (Q - X3) */
    ff_mul<EcF>(s1, s1, ppp);    /* S1 PPP */
    ff_sub<EcF>(p.y, t, s1);     /* Y3 */
    ff_mul<EcF>(p.zz, p.zz, o.zz);
    ff_mul<EcF>(p.zz, p.zz, pp);
    ff_mul<EcF>(p.zzz, p.zzz, o.zzz);
    ff_mul<EcF>(p.zzz, p.zzz, ppp);
}

/* ------------------------------------------------------ load / store -- */
/* Points are 16-byte aligned in device memory: affine 6 uint4, XYZZ 12. */

FF_INLINE void ec_load_aff(ec_aff &a, const uint4 *p)
{
    ff_load<EcF>(a.x, p);
    ff_load<EcF>(a.y, p + 3);
}

FF_INLINE void ec_store_aff(uint4 *p, const ec_aff &a)
{
    ff_store<EcF>(p, a.x);
    ff_store<EcF>(p + 3, a.y);
}

FF_INLINE void ec_load_xyzz(ec_xyzz &a, const uint4 *p)
{
    ff_load<EcF>(a.x, p);
    ff_load<EcF>(a.y, p + 3);
    ff_load<EcF>(a.zz, p + 6);
    ff_load<EcF>(a.zzz, p + 9);
}

FF_INLINE void ec_store_xyzz(uint4 *p, const ec_xyzz &a)
{
    ff_store<EcF>(p, a.x);
    ff_store<EcF>(p + 3, a.y);
    ff_store<EcF>(p + 6, a.zz);
    ff_store<EcF>(p + 9, a.zzz);
}

/* Only ZZ (the infinity test): 3 loads instead of 12. */
FF_INLINE bool ec_load_is_inf(const uint4 *p)
{
    uint32_t zz[EC_N];
    ff_load<EcF>(zz, p + 6);
    return ec_fp_is_zero(zz);
}

#endif /* CUZK_GPU_EC_CUH */
