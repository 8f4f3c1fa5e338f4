/* cuzk — the groups G1 and G2 of BLS12-381 on the GPU (device code): affine
 * and XYZZ points, mixed addition, addition, doubling.
 *
 *   G1: y^2 = x^3 + 4          over Fp
 *   G2: y^2 = x^3 + 4 (u + 1)  over Fp2 = Fp[u] / (u^2 + 1)
 *
 * Both have a = 0, and the XYZZ formulas below never use b, so they are
 * written once, as templates over the coordinate field: EcFp (G1) or EcFp2
 * (G2), two structs with the same static operations on their element type E.
 *
 * Layout: the CPU's (include/cuzk/ec.h). An Fp element is 12 little-endian
 * 32-bit limbs in Montgomery form (ff.cuh), 48 bytes; an Fp2 element is
 * c0 || c1, 96 bytes. An affine point is x || y (G1 96 bytes, G2 192: the
 * bytes of cuzk_g1_affine / cuzk_g2_affine); infinity is (0, 0) and is never
 * passed to the formulas (callers filter it). An XYZZ point
 * (X, Y, ZZ, ZZZ) = (X / ZZ, Y / ZZZ), ZZ^3 = ZZZ^2, is 4 elements (the bytes
 * of cuzk_g1_xyzz / cuzk_g2_xyzz); infinity is ZZ = 0 (X, Y, ZZZ are then
 * ignored).
 *
 * Formulas (Explicit-Formulas Database, "xyzz" coordinates, a = 0), with
 * their cost in multiplications M and squarings S of the coordinate field
 * (an Fp2 M is 3 Fp M, an Fp2 S is 2 Fp M):
 *   ec_madd   madd-2008-s       8M + 2S   XYZZ += affine
 *   ec_add    add-2008-s       12M + 2S   XYZZ += XYZZ
 *   ec_dbl    dbl-2008-s-1      6M + 3S   XYZZ = 2 XYZZ
 *   ec_mdbl   mdbl-2008-s-1     4M + 3S   XYZZ = 2 affine
 * The additions branch to doubling when both operands are equal and to
 * infinity when they are opposite, so they are complete; these branches are
 * rare in an MSM (a bucket meeting its own point) and cost nothing when not
 * taken. Everything here is variable-time, as MSM is.
 *
 * Every function is inline with constant-index limb loops, so G1 points live
 * in registers (check the kernels' `-Xptxas -v`: no stack frame). A G2 XYZZ
 * point alone is 96 registers, so G2 kernels spill some temporaries.
 */
#ifndef CUZK_GPU_EC_CUH
#define CUZK_GPU_EC_CUH

#include "gpu/ff.cuh"

/* ----------------------------------------------------- coordinate fields -- */

/* Fp: 12 limbs, 3 uint4 in memory. */
struct EcFp {
    static constexpr int U4 = 3; /* uint4 per element */
    struct E {
        uint32_t l[12];
    };

    /* Montgomery form of 1: 2^384 mod q (CUZK_FP_ONE). */
    static FF_INLINE constexpr uint32_t one_limb(int i)
    {
        return i == 0 ? 0x0002fffdu : i == 1 ? 0x76090000u : i == 2 ? 0xc40c0002u
             : i == 3 ? 0xebf4000bu : i == 4 ? 0x53c758bau : i == 5 ? 0x5f489857u
             : i == 6 ? 0x70525745u : i == 7 ? 0x77ce5853u : i == 8 ? 0xa256ec6du
             : i == 9 ? 0x5c071a97u : i == 10 ? 0xfa80e493u : 0x15f65ec3u;
    }
    /* The product and squaring: inlined, or real calls where EC_FP_CALL
     * (below) says so. */
    static FF_INLINE void mul(E &r, const E &a, const E &b);
    static FF_INLINE void sqr(E &r, const E &a);
    static FF_INLINE void add(E &r, const E &a, const E &b) { ff_add<FfFp>(r.l, a.l, b.l); }
    static FF_INLINE void sub(E &r, const E &a, const E &b) { ff_sub<FfFp>(r.l, a.l, b.l); }
    static FF_INLINE void dbl(E &r, const E &a) { ff_add<FfFp>(r.l, a.l, a.l); }
    static FF_INLINE void neg(E &r, const E &a) { ff_neg<FfFp>(r.l, a.l); }
    static FF_INLINE bool is_zero(const E &a)
    {
        uint32_t t = 0;
#pragma unroll
        for (int k = 0; k < 12; k++) t |= a.l[k];
        return t == 0;
    }
    static FF_INLINE void set_zero(E &r)
    {
#pragma unroll
        for (int k = 0; k < 12; k++) r.l[k] = 0;
    }
    static FF_INLINE void set_one(E &r)
    {
#pragma unroll
        for (int k = 0; k < 12; k++) r.l[k] = one_limb(k);
    }
    static FF_INLINE void load(E &r, const uint4 *p) { ff_load<FfFp>(r.l, p); }
    static FF_INLINE void store(uint4 *p, const E &a) { ff_store<FfFp>(p, a.l); }
    /* Bit i of q - 2. */
    static FF_INLINE uint32_t qm2_bit(unsigned i)
    {
        unsigned limb = i >> 5;
        uint32_t v = 0;
#pragma unroll
        for (unsigned j = 0; j < 12; j++) v = j == limb ? ff_fp_imm((int)j) : v;
        if (limb == 0) v -= 2; /* q = ...aaab: no borrow */
        return (v >> (i & 31)) & 1;
    }
    /* r = a^(q-2) = 1/a (0 for 0): 380 S + ~190 M; only for set-up work. */
    static FF_INLINE void inv(E &r, const E &a)
    {
        E x = a; /* bit 380 of q - 2 is set */
#pragma unroll 1
        for (int i = 379; i >= 0; i--) {
            sqr(x, x);
            if (qm2_bit((unsigned)i)) mul(x, x, a);
        }
        r = x;
    }
};

/* Fp2 = Fp[u] / (u^2 + 1): c0 + c1 u. */
struct ec_fp2_e {
    EcFp::E c0, c1;
};

/* The G2 formulas inlined whole would be ~3x G1's code (an Fp2 M is 3 Fp M),
 * far beyond the instruction cache, and nvcc's optimiser takes tens of
 * minutes over such kernels. So the Fp2 multiplication and squaring are
 * real calls, by value (arguments and result travel in registers), and the
 * kernels of a source file share one copy of each. Static: every .cu that
 * includes this header (msm.cu, fixed.cu) has its own copy, and the host
 * symbols nvcc emits for each copy must not collide at link time. In the
 * host emulation a unit may leave some of them unused. */
#ifdef CUZK_FF_HOST_EMULATION
#define EC_NOINLINE static __attribute__((unused)) __host__ __device__ __noinline__
#else
#define EC_NOINLINE static __device__ __noinline__
#endif

/* G1's product and squaring as real calls, the same way: a G1 kernel that
 * inlines them holds tens of copies of ~590 instructions each (147-454 KB
 * of code) and stalls on instruction fetch (docs/perf.md, "The
 * accumulation's code"). EC_FP_CALL 1 (a build define, default 0; on in
 * msm_g1.cu) makes every EcFp::mul and sqr of a unit such a call. */
EC_NOINLINE EcFp::E ec_fp_mul_call(EcFp::E a, EcFp::E b)
{
    EcFp::E r;
    ff_mul<FfFp>(r.l, a.l, b.l);
    return r;
}
EC_NOINLINE EcFp::E ec_fp_sqr_call(EcFp::E a)
{
    EcFp::E r;
    ff_sqr<FfFp>(r.l, a.l);
    return r;
}
#ifndef EC_FP_CALL
#define EC_FP_CALL 0
#endif
FF_INLINE void EcFp::mul(E &r, const E &a, const E &b)
{
#if EC_FP_CALL
    r = ec_fp_mul_call(a, b);
#else
    ff_mul<FfFp>(r.l, a.l, b.l);
#endif
}
FF_INLINE void EcFp::sqr(E &r, const E &a)
{
#if EC_FP_CALL
    r = ec_fp_sqr_call(a);
#else
    ff_sqr<FfFp>(r.l, a.l);
#endif
}

/* An Fp product or squaring inside the Fp2 ones below: EcFp's (a call where
 * EC_FP_CALL says so) or, FC, a call in any case. */
template <bool FC>
FF_INLINE void ec_fp2_part_mul(EcFp::E &r, const EcFp::E &a, const EcFp::E &b)
{
    if constexpr (FC) r = ec_fp_mul_call(a, b);
    else EcFp::mul(r, a, b);
}

/* Karatsuba, 3 Fp M: (a0 b0 - a1 b1) + ((a0 + a1)(b0 + b1) - a0 b0 - a1 b1) u. */
template <bool FC>
FF_INLINE ec_fp2_e ec_fp2_mul_body(const ec_fp2_e &a, const ec_fp2_e &b)
{
    EcFp::E t0, t1, s, t;
    ec_fp2_e r;
    ec_fp2_part_mul<FC>(t0, a.c0, b.c0);
    ec_fp2_part_mul<FC>(t1, a.c1, b.c1);
    EcFp::add(s, a.c0, a.c1);
    EcFp::add(t, b.c0, b.c1);
    ec_fp2_part_mul<FC>(s, s, t);
    EcFp::sub(r.c0, t0, t1);
    EcFp::sub(s, s, t0);
    EcFp::sub(r.c1, s, t1);
    return r;
}

/* 2 Fp M: (a0 + a1)(a0 - a1) + 2 a0 a1 u. */
template <bool FC>
FF_INLINE ec_fp2_e ec_fp2_sqr_body(const ec_fp2_e &a)
{
    EcFp::E s, d, m;
    ec_fp2_e r;
    EcFp::add(s, a.c0, a.c1);
    EcFp::sub(d, a.c0, a.c1);
    ec_fp2_part_mul<FC>(m, a.c0, a.c1);
    ec_fp2_part_mul<FC>(r.c0, s, d);
    EcFp::dbl(r.c1, m);
    return r;
}

EC_NOINLINE ec_fp2_e ec_fp2_mul(ec_fp2_e a, ec_fp2_e b) { return ec_fp2_mul_body<false>(a, b); }
EC_NOINLINE ec_fp2_e ec_fp2_sqr(ec_fp2_e a) { return ec_fp2_sqr_body<false>(a); }
/* The same with the Fp products as calls whatever EC_FP_CALL says: for the
 * G2 batch-affine accumulation (msm_affine.cuh), whose code they shrink
 * (130 -> 81 KB), while the G2 reductions keep them inlined (measured both
 * ways on the H200: docs/perf.md, "The full size with the calls, and two
 * more variants"). */
EC_NOINLINE ec_fp2_e ec_fp2_mul_fc(ec_fp2_e a, ec_fp2_e b) { return ec_fp2_mul_body<true>(a, b); }
EC_NOINLINE ec_fp2_e ec_fp2_sqr_fc(ec_fp2_e a) { return ec_fp2_sqr_body<true>(a); }

/* 6 uint4 in memory. */
struct EcFp2 {
    static constexpr int U4 = 6;
    typedef ec_fp2_e E;

    static FF_INLINE void mul(E &r, const E &a, const E &b) { r = ec_fp2_mul(a, b); }
    static FF_INLINE void sqr(E &r, const E &a) { r = ec_fp2_sqr(a); }
    static FF_INLINE void add(E &r, const E &a, const E &b)
    {
        EcFp::add(r.c0, a.c0, b.c0);
        EcFp::add(r.c1, a.c1, b.c1);
    }
    static FF_INLINE void sub(E &r, const E &a, const E &b)
    {
        EcFp::sub(r.c0, a.c0, b.c0);
        EcFp::sub(r.c1, a.c1, b.c1);
    }
    static FF_INLINE void dbl(E &r, const E &a) { add(r, a, a); }
    static FF_INLINE void neg(E &r, const E &a)
    {
        EcFp::neg(r.c0, a.c0);
        EcFp::neg(r.c1, a.c1);
    }
    static FF_INLINE bool is_zero(const E &a) { return EcFp::is_zero(a.c0) && EcFp::is_zero(a.c1); }
    static FF_INLINE void set_zero(E &r)
    {
        EcFp::set_zero(r.c0);
        EcFp::set_zero(r.c1);
    }
    static FF_INLINE void set_one(E &r)
    {
        EcFp::set_one(r.c0);
        EcFp::set_zero(r.c1);
    }
    static FF_INLINE void load(E &r, const uint4 *p)
    {
        EcFp::load(r.c0, p);
        EcFp::load(r.c1, p + 3);
    }
    static FF_INLINE void store(uint4 *p, const E &a)
    {
        EcFp::store(p, a.c0);
        EcFp::store(p + 3, a.c1);
    }
    /* 1 / (a0 + a1 u) = (a0 - a1 u) / (a0^2 + a1^2); 0 for 0. */
    static FF_INLINE void inv(E &r, const E &a)
    {
        EcFp::E n, t;
        EcFp::sqr(n, a.c0);
        EcFp::sqr(t, a.c1);
        EcFp::add(n, n, t);
        EcFp::inv(n, n);
        EcFp::mul(r.c0, a.c0, n);
        EcFp::mul(t, a.c1, n);
        EcFp::neg(r.c1, t);
    }
};

/* ------------------------------------------------------------ points -- */

template <class F>
struct ec_aff {
    typename F::E x, y;
    static constexpr int U4 = 2 * F::U4; /* uint4 per point in memory */
};

template <class F>
struct ec_xyzz {
    typename F::E x, y, zz, zzz;
    static constexpr int U4 = 4 * F::U4;
};

template <class F>
FF_INLINE bool ec_is_inf(const ec_xyzz<F> &p) { return F::is_zero(p.zz); }

template <class F>
FF_INLINE void ec_set_inf(ec_xyzz<F> &p)
{
    F::set_zero(p.x);
    F::set_zero(p.y);
    F::set_zero(p.zz);
    F::set_zero(p.zzz);
}

/* (0, 0) is the affine point at infinity. */
template <class F>
FF_INLINE bool ec_aff_is_inf(const ec_aff<F> &a) { return F::is_zero(a.x) && F::is_zero(a.y); }

template <class F>
FF_INLINE void ec_from_aff(ec_xyzz<F> &p, const ec_aff<F> &a)
{
    p.x = a.x;
    p.y = a.y;
    F::set_one(p.zz);
    F::set_one(p.zzz);
}

/* a = -a (y = -y; a is not infinity, so y != 0). */
template <class F>
FF_INLINE void ec_aff_neg(ec_aff<F> &a) { F::neg(a.y, a.y); }

/* r = 3a: two additions. */
template <class F>
FF_INLINE void ec_mul3(typename F::E &r, const typename F::E &a)
{
    typename F::E t;
    F::add(t, a, a);
    F::add(r, t, a);
}

/* p = 2 a, mdbl-2008-s-1 (ZZ1 = ZZZ1 = 1), 4M + 3S:
 *   U = 2 y, V = U^2, W = U V, S = x V, M = 3 x^2,
 *   X3 = M^2 - 2S, Y3 = M (S - X3) - W y, ZZ3 = V, ZZZ3 = W.
 * y != 0 (neither group has a point of order 2). */
template <class F>
FF_INLINE void ec_mdbl(ec_xyzz<F> &p, const ec_aff<F> &a)
{
    typename F::E u, v, w, s, m, t;
    F::dbl(u, a.y);
    F::sqr(v, u);
    F::mul(w, u, v);
    F::mul(s, a.x, v);
    F::sqr(t, a.x);
    ec_mul3<F>(m, t);
    F::sqr(p.x, m);
    F::dbl(t, s);
    F::sub(p.x, p.x, t);
    F::sub(t, s, p.x);
    F::mul(t, t, m);
    F::mul(p.y, w, a.y);
    F::sub(p.y, t, p.y);
    p.zz = v;
    p.zzz = w;
}

/* p = 2 p, dbl-2008-s-1 (a = 0), 6M + 3S:
 *   U = 2 Y1, V = U^2, W = U V, S = X1 V, M = 3 X1^2,
 *   X3 = M^2 - 2S, Y3 = M (S - X3) - W Y1, ZZ3 = V ZZ1, ZZZ3 = W ZZZ1.
 * Complete: ZZ1 = 0 gives ZZ3 = 0. */
template <class F>
FF_INLINE void ec_dbl(ec_xyzz<F> &p)
{
    typename F::E u, v, w, s, m, t;
    F::dbl(u, p.y);
    F::sqr(v, u);
    F::mul(w, u, v);
    F::mul(s, p.x, v);
    F::sqr(t, p.x);
    ec_mul3<F>(m, t);
    F::mul(p.y, w, p.y); /* W Y1; Y1 is not needed after this */
    F::sqr(p.x, m);
    F::dbl(t, s);
    F::sub(p.x, p.x, t); /* X3 */
    F::sub(t, s, p.x);
    F::mul(t, t, m);
    F::sub(p.y, t, p.y); /* Y3 */
    F::mul(p.zz, p.zz, v);
    F::mul(p.zzz, p.zzz, w);
}

/* p = 2^k p: k doublings. */
template <class F>
FF_INLINE void ec_dbl_n(ec_xyzz<F> &p, unsigned k)
{
#pragma unroll 1
    for (unsigned i = 0; i < k; i++) ec_dbl<F>(p);
}

/* p += a, madd-2008-s (ZZ2 = ZZZ2 = 1), 8M + 2S:
 *   U2 = x2 ZZ1, S2 = y2 ZZZ1, P = U2 - X1, R = S2 - Y1,
 *   PP = P^2, PPP = P PP, Q = X1 PP,
 *   X3 = R^2 - PPP - 2Q, Y3 = R (Q - X3) - Y1 PPP,
 *   ZZ3 = ZZ1 PP, ZZZ3 = ZZZ1 PPP.
 * p at infinity gives (x2, y2, 1, 1); P = R = 0 (p = a) doubles a; P = 0,
 * R != 0 (p = -a) gives infinity. a must not be infinity. */
template <class F>
FF_INLINE void ec_madd(ec_xyzz<F> &p, const ec_aff<F> &a)
{
    if (ec_is_inf<F>(p)) {
        ec_from_aff<F>(p, a);
        return;
    }
    typename F::E pd, r, pp, ppp, q, t;
    F::mul(t, a.x, p.zz);
    F::sub(pd, t, p.x);
    F::mul(t, a.y, p.zzz);
    F::sub(r, t, p.y);
    if (F::is_zero(pd)) {
        if (F::is_zero(r)) ec_mdbl<F>(p, a);
        else ec_set_inf<F>(p);
        return;
    }
    F::sqr(pp, pd);
    F::mul(ppp, pd, pp);
    F::mul(q, p.x, pp);
    F::sqr(t, r);
    F::sub(t, t, ppp);
    F::sub(t, t, q);
    F::sub(p.x, t, q);     /* X3 */
    F::sub(t, q, p.x);
    F::mul(t, t, r);       /* R (Q - X3) */
    F::mul(q, p.y, ppp);   /* Y1 PPP */
    F::sub(p.y, t, q);     /* Y3 */
    F::mul(p.zz, p.zz, pp);
    F::mul(p.zzz, p.zzz, ppp);
}

/* p += o, add-2008-s, 12M + 2S:
 *   U1 = X1 ZZ2, U2 = X2 ZZ1, S1 = Y1 ZZZ2, S2 = Y2 ZZZ1,
 *   P = U2 - U1, R = S2 - S1, PP = P^2, PPP = P PP, Q = U1 PP,
 *   X3 = R^2 - PPP - 2Q, Y3 = R (Q - X3) - S1 PPP,
 *   ZZ3 = ZZ1 ZZ2 PP, ZZZ3 = ZZZ1 ZZZ2 PPP.
 * Complete: infinity on either side, p = o (doubling), p = -o (infinity). */
template <class F>
FF_INLINE void ec_add(ec_xyzz<F> &p, const ec_xyzz<F> &o)
{
    if (ec_is_inf<F>(o)) return;
    if (ec_is_inf<F>(p)) {
        p = o;
        return;
    }
    typename F::E u1, s1, pd, r, pp, ppp, t;
    F::mul(u1, p.x, o.zz);
    F::mul(t, o.x, p.zz);
    F::sub(pd, t, u1);
    F::mul(s1, p.y, o.zzz);
    F::mul(t, o.y, p.zzz);
    F::sub(r, t, s1);
    if (F::is_zero(pd)) {
        if (F::is_zero(r)) ec_dbl<F>(p);
        else ec_set_inf<F>(p);
        return;
    }
    F::sqr(pp, pd);
    F::mul(ppp, pd, pp);
    F::mul(u1, u1, pp);    /* Q */
    F::sqr(t, r);
    F::sub(t, t, ppp);
    F::sub(t, t, u1);
    F::sub(p.x, t, u1);    /* X3 */
    F::sub(t, u1, p.x);
    F::mul(t, t, r);       /* R (Q - X3) */
    F::mul(s1, s1, ppp);   /* S1 PPP */
    F::sub(p.y, t, s1);    /* Y3 */
    F::mul(p.zz, p.zz, o.zz);
    F::mul(p.zz, p.zz, pp);
    F::mul(p.zzz, p.zzz, o.zzz);
    F::mul(p.zzz, p.zzz, ppp);
}

/* ------------------------------------------------------ load / store -- */
/* Points are 16-byte aligned in device memory; p points at the point's first
 * uint4 (ec_aff<F>::U4 or ec_xyzz<F>::U4 of them). */

template <class F>
FF_INLINE void ec_load_aff(ec_aff<F> &a, const uint4 *p)
{
    F::load(a.x, p);
    F::load(a.y, p + F::U4);
}

template <class F>
FF_INLINE void ec_store_aff(uint4 *p, const ec_aff<F> &a)
{
    F::store(p, a.x);
    F::store(p + F::U4, a.y);
}

template <class F>
FF_INLINE void ec_load_xyzz(ec_xyzz<F> &a, const uint4 *p)
{
    F::load(a.x, p);
    F::load(a.y, p + F::U4);
    F::load(a.zz, p + 2 * F::U4);
    F::load(a.zzz, p + 3 * F::U4);
}

template <class F>
FF_INLINE void ec_store_xyzz(uint4 *p, const ec_xyzz<F> &a)
{
    F::store(p, a.x);
    F::store(p + F::U4, a.y);
    F::store(p + 2 * F::U4, a.zz);
    F::store(p + 3 * F::U4, a.zzz);
}

/* Only ZZ (the infinity test): a quarter of the loads. */
template <class F>
FF_INLINE bool ec_load_is_inf(const uint4 *p)
{
    typename F::E zz;
    F::load(zz, p + 2 * F::U4);
    return F::is_zero(zz);
}

/* Back-substitution of Montgomery's trick for one point: pt holds the XYZZ
 * point's X, Y and tm its ZZ, ZZZ and the product of the ZZZs before it;
 * inv is the inverse of the product of the ZZZs up to and including this
 * one. Writes x = X / ZZ, y = Y / ZZZ to pt and leaves in inv the inverse
 * of the product before it. A point at infinity (ZZ = 0, left out of the
 * product) becomes (0, 0). */
template <class F>
FF_INLINE void ec_unbatch_affine(uint4 *pt, const uint4 *tm, typename F::E &inv)
{
    constexpr int E = F::U4;
    typename F::E zz, zzz, iq, t1, t2;
    F::load(zz, tm);
    if (F::is_zero(zz)) {
        F::set_zero(t1);
        F::store(pt, t1);
        F::store(pt + E, t1);
        return;
    }
    F::load(zzz, tm + E);
    F::load(t1, tm + 2 * E);
    F::mul(iq, inv, t1);       /* 1 / ZZZ_q */
    F::mul(inv, inv, zzz);
    F::mul(t2, iq, zz);        /* 1 / Z */
    F::sqr(t2, t2);            /* 1 / ZZ */
    F::load(t1, pt);
    F::mul(t1, t1, t2);
    F::store(pt, t1);
    F::load(t1, pt + E);
    F::mul(t1, t1, iq);
    F::store(pt + E, t1);
}

#endif /* CUZK_GPU_EC_CUH */
