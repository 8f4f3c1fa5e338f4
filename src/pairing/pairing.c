/* The optimal ate pairing of BLS12-381.
 *
 * Miller loop: f_{|x|,Q}(P) over the bits of |x| = 0xd201000000010000, with
 * Q kept in homogeneous projective coordinates on the twist
 * E': y^2 = x^3 + 4 xi and the lines evaluated at P in E(Fp); conjugated at
 * the end because x < 0. BLS12-381 uses an M-type twist: the untwisting map
 * is (x', y') -> (x' / w^2, y' / w^3), and a line through points of E',
 * evaluated at P = (xp, yp) and scaled by w^3 (an element of Fp4, removed
 * by the final exponentiation), is
 *     l = c0 + (c1 xp) w^2 + (c2 yp) w^3,
 * which lands in the tower slots 0, 1 and 4 (cuzk_fp12_mul_by_014). Lines
 * are kept as (c0, c1, c2) in Fp2 so a prepared G2 point is 68 of them:
 * 63 doublings + 5 additions (|x| has 64 bits, 6 of them set).
 *
 * Final exponentiation: easy part f^((q^6 - 1)(q^2 + 1)) (one Fp12
 * inversion), then the hard part by the x-chain of Hayashida, Hayasaka,
 * Teruya 2020, "Efficient final exponentiation via cyclotomic structure for
 * pairings over families of elliptic curves" (eprint 2020/875):
 *     3 (q^4 - q^2 + 1)/r = (x - 1)^2 (x + q) (x^2 + q^2 - 1) + 3.
 * That exponent is 3x the textbook one, and it is what noble, zkcrypto and
 * blst compute, so cuzk_final_exp returns f^(3 (q^12 - 1)/r) — the same GT
 * element as those libraries (e(G1, G2) = zkcrypto's Gt::generator()), the
 * cube of the textbook reduced pairing. cuzk_final_exp_exact
 * (pairing_internal.h) returns the textbook f^((q^12 - 1)/r) from the same
 * identity divided by 3:
 *     (q^4 - q^2 + 1)/r = ((x - 1)^2 / 3) (x + q) (x^2 + q^2 - 1) + 1,
 * with (x - 1)^2 / 3 = d (|x| + 1), d = (|x| + 1)/3 an integer. Both are
 * non-degenerate bilinear pairings (3 is prime to r); product checks such
 * as cuzk_pairing_product_is_one give the same answer with either.
 *
 * Counts are in Fp2 operations (M, S) unless stated. Inputs are public
 * (verification), so these routines branch on them (point at infinity). */
#include <string.h>

#include <cuzk/pairing.h>

#include "ff/tower.h"
#include "pairing/pairing_internal.h"

#define X_ABS 0xd201000000010000ull /* |x|; x = -|x| */
#define X_BITS 64
#define D_EXP 0x460055555555aaabull /* (|x| + 1)/3 */

/* Pairs processed together by the unprepared multi-Miller loop: they share
 * one squaring chain and need this many projective points on the stack. */
#define MILLER_CHUNK 8

typedef struct { cuzk_fp2 x, y, z; } g2_proj;

/* 12 xi c = 3 b' c, b' = 4 xi the twist's constant. 0M. */
static void mul_by_3b(cuzk_fp2 *r, const cuzk_fp2 *c)
{
    cuzk_fp2 t, s;
    cuzk_fp2_mul_nr(&t, c);
    cuzk_fp2_dbl(&s, &t);
    cuzk_fp2_add(&s, &s, &t); /* 3 xi c */
    cuzk_fp2_dbl(&s, &s);
    cuzk_fp2_dbl(r, &s);
}

/* T = 2T and the tangent line at T. 3M + 6S. Costello, Lange, Naehrig 2010,
 * "Faster pairing computations on curves with high-degree twists"
 * (homogeneous coordinates, a = 0), in the operation order of Aranha,
 * Karabina, Longa, Gebotys, Lopez 2011 — with the output scaled by 4 so
 * that no halving is needed:
 *   A = X Y, B = Y^2, C = Z^2, E = 3 b' C, F = 3 E, H = (Y + Z)^2 - B - C,
 *   X3 = 2 A (B - F), Y3 = (B + F)^2 - 12 E^2, Z3 = 4 B H;
 *   line: c0 = E - B, c1 = 3 X^2, c2 = -H. */
static void dbl_step(cuzk_fp2 ell[3], g2_proj *t)
{
    cuzk_fp2 A, B, C, E, F, H, J, s;
    cuzk_fp2_mul(&A, &t->x, &t->y);
    cuzk_fp2_sqr(&B, &t->y);
    cuzk_fp2_sqr(&C, &t->z);
    mul_by_3b(&E, &C);
    cuzk_fp2_dbl(&F, &E);
    cuzk_fp2_add(&F, &F, &E);
    cuzk_fp2_add(&H, &t->y, &t->z);
    cuzk_fp2_sqr(&H, &H);
    cuzk_fp2_sub(&H, &H, &B);
    cuzk_fp2_sub(&H, &H, &C);
    cuzk_fp2_sqr(&J, &t->x);

    /* line */
    cuzk_fp2_sub(&ell[0], &E, &B);
    cuzk_fp2_dbl(&ell[1], &J);
    cuzk_fp2_add(&ell[1], &ell[1], &J);
    cuzk_fp2_neg(&ell[2], &H);

    /* point */
    cuzk_fp2_sub(&s, &B, &F);
    cuzk_fp2_mul(&t->x, &A, &s);
    cuzk_fp2_dbl(&t->x, &t->x);
    cuzk_fp2_mul(&t->z, &B, &H);
    cuzk_fp2_dbl(&t->z, &t->z);
    cuzk_fp2_dbl(&t->z, &t->z);
    cuzk_fp2_add(&s, &B, &F);
    cuzk_fp2_sqr(&s, &s);
    cuzk_fp2_sqr(&E, &E);
    cuzk_fp2_dbl(&F, &E);
    cuzk_fp2_add(&F, &F, &E); /* 3 E^2 */
    cuzk_fp2_dbl(&F, &F);
    cuzk_fp2_dbl(&F, &F); /* 12 E^2 */
    cuzk_fp2_sub(&t->y, &s, &F);
}

/* T = T + Q (Q affine, T != +-Q) and the line through them. 11M + 2S.
 * Costello, Lange, Naehrig 2010 / Aranha et al. 2011:
 *   theta = Y - yq Z, lambda = X - xq Z, C = theta^2, D = lambda^2,
 *   E = lambda D, F = Z C, G = X D, H = E + F - 2 G,
 *   X3 = lambda H, Y3 = theta (G - H) - Y E, Z3 = Z E;
 *   line: c0 = theta xq - lambda yq, c1 = -theta, c2 = lambda. */
static void add_step(cuzk_fp2 ell[3], g2_proj *t, const cuzk_g2_affine *q)
{
    cuzk_fp2 theta, lambda, C, D, E, F, G, H, s;
    cuzk_fp2_mul(&theta, &q->y, &t->z);
    cuzk_fp2_sub(&theta, &t->y, &theta);
    cuzk_fp2_mul(&lambda, &q->x, &t->z);
    cuzk_fp2_sub(&lambda, &t->x, &lambda);
    cuzk_fp2_sqr(&C, &theta);
    cuzk_fp2_sqr(&D, &lambda);
    cuzk_fp2_mul(&E, &lambda, &D);
    cuzk_fp2_mul(&F, &t->z, &C);
    cuzk_fp2_mul(&G, &t->x, &D);
    cuzk_fp2_add(&H, &E, &F);
    cuzk_fp2_sub(&H, &H, &G);
    cuzk_fp2_sub(&H, &H, &G);

    cuzk_fp2_mul(&t->x, &lambda, &H);
    cuzk_fp2_sub(&s, &G, &H);
    cuzk_fp2_mul(&s, &s, &theta);
    cuzk_fp2_mul(&t->y, &t->y, &E);
    cuzk_fp2_sub(&t->y, &s, &t->y);
    cuzk_fp2_mul(&t->z, &t->z, &E);

    cuzk_fp2_mul(&s, &theta, &q->x);
    cuzk_fp2_mul(&ell[0], &lambda, &q->y);
    cuzk_fp2_sub(&ell[0], &s, &ell[0]);
    cuzk_fp2_neg(&ell[1], &theta);
    ell[2] = lambda;
}

/* f = f * l(P): 4 Fp M + the 13M sparse product. */
static void ell_mul(cuzk_fp12 *f, const cuzk_fp2 ell[3], const cuzk_g1_affine *p)
{
    cuzk_fp2 b, c;
    cuzk_fp2_mul_fp(&b, &ell[1], &p->x);
    cuzk_fp2_mul_fp(&c, &ell[2], &p->y);
    cuzk_fp12_mul_by_014(f, f, &ell[0], &b, &c);
}

static int g1_is_inf(const cuzk_g1_affine *p)
{
    return cuzk_fp_is_zero(&p->x) & cuzk_fp_is_zero(&p->y);
}

static int g2_is_inf(const cuzk_g2_affine *q)
{
    return cuzk_fp2_is_zero(&q->x) & cuzk_fp2_is_zero(&q->y);
}

static void proj_from_affine(g2_proj *t, const cuzk_g2_affine *q)
{
    t->x = q->x;
    t->y = q->y;
    t->z = CUZK_FP2_ONE;
}

void cuzk_g2_prepare(cuzk_g2_prepared *r, const cuzk_g2_affine *q)
{
    memset(r, 0, sizeof *r);
    r->inf = g2_is_inf(q);
    if (r->inf) return;
    g2_proj t;
    proj_from_affine(&t, q);
    size_t k = 0;
    for (int i = X_BITS - 2; i >= 0; i--) {
        dbl_step(r->ell[k++], &t);
        if ((X_ABS >> i) & 1) add_step(r->ell[k++], &t, q);
    }
}

/* One squaring chain for up to MILLER_CHUNK pairs; f = 1 if none counts. */
static void miller_chunk(cuzk_fp12 *f, const cuzk_g1_affine *p, const cuzk_g2_affine *q, size_t n)
{
    g2_proj t[MILLER_CHUNK];
    size_t idx[MILLER_CHUNK], m = 0;
    for (size_t j = 0; j < n; j++) {
        if (g1_is_inf(&p[j]) || g2_is_inf(&q[j])) continue;
        idx[m] = j;
        proj_from_affine(&t[m], &q[j]);
        m++;
    }
    cuzk_fp12 acc = CUZK_FP12_ONE;
    cuzk_fp2 ell[3];
    if (m == 0) {
        *f = acc;
        return;
    }
    for (int i = X_BITS - 2; i >= 0; i--) {
        if (i != X_BITS - 2) cuzk_fp12_sqr(&acc, &acc);
        for (size_t j = 0; j < m; j++) {
            dbl_step(ell, &t[j]);
            ell_mul(&acc, ell, &p[idx[j]]);
        }
        if ((X_ABS >> i) & 1) {
            for (size_t j = 0; j < m; j++) {
                add_step(ell, &t[j], &q[idx[j]]);
                ell_mul(&acc, ell, &p[idx[j]]);
            }
        }
    }
    *f = acc;
}

void cuzk_miller_loop(cuzk_fp12 *f, const cuzk_g1_affine *p, const cuzk_g2_affine *q, size_t n)
{
    cuzk_fp12 acc = CUZK_FP12_ONE, part;
    for (size_t j = 0; j < n; j += MILLER_CHUNK) {
        size_t k = n - j < MILLER_CHUNK ? n - j : MILLER_CHUNK;
        miller_chunk(&part, p + j, q + j, k);
        if (j == 0)
            acc = part;
        else
            cuzk_fp12_mul(&acc, &acc, &part);
    }
    cuzk_fp12_conj(f, &acc); /* x < 0 */
}

void cuzk_miller_loop_prepared(cuzk_fp12 *f, const cuzk_g1_affine *p,
                               const cuzk_g2_prepared *q, size_t n)
{
    cuzk_fp12 acc = CUZK_FP12_ONE;
    size_t k = 0, active = 0;
    for (size_t j = 0; j < n; j++) active += !q[j].inf && !g1_is_inf(&p[j]);
    if (active == 0) {
        *f = acc;
        return;
    }
    for (int i = X_BITS - 2; i >= 0; i--) {
        if (i != X_BITS - 2) cuzk_fp12_sqr(&acc, &acc);
        for (size_t j = 0; j < n; j++) {
            if (q[j].inf || g1_is_inf(&p[j])) continue;
            ell_mul(&acc, q[j].ell[k], &p[j]);
        }
        k++;
        if ((X_ABS >> i) & 1) {
            for (size_t j = 0; j < n; j++) {
                if (q[j].inf || g1_is_inf(&p[j])) continue;
                ell_mul(&acc, q[j].ell[k], &p[j]);
            }
            k++;
        }
    }
    cuzk_fp12_conj(f, &acc);
}

/* r = a^|x| for a in the cyclotomic subgroup: 63 Granger-Scott squarings
 * and 5 multiplications. */
static void cyclotomic_exp_x(cuzk_fp12 *r, const cuzk_fp12 *a)
{
    cuzk_fp12 base = *a, acc = *a;
    for (int i = X_BITS - 2; i >= 0; i--) {
        cuzk_fp12_cyclotomic_sqr(&acc, &acc);
        if ((X_ABS >> i) & 1) cuzk_fp12_mul(&acc, &acc, &base);
    }
    *r = acc;
}

/* r = a^d, d = (|x| + 1)/3, a cyclotomic: sliding window of 3 bits over the
 * odd powers a, a^3, a^5, a^7 — 62 squarings + 18 multiplications (27 for
 * plain square and multiply: d has 28 bits set). */
static void cyclotomic_exp_d(cuzk_fp12 *r, const cuzk_fp12 *a)
{
    cuzk_fp12 odd[4], a2, acc;
    odd[0] = *a;
    cuzk_fp12_cyclotomic_sqr(&a2, a);
    for (int k = 1; k < 4; k++) cuzk_fp12_mul(&odd[k], &odd[k - 1], &a2);

    const uint64_t e = D_EXP;
    int i = 63;
    while (!((e >> i) & 1)) i--;
    int started = 0;
    while (i >= 0) {
        if (!((e >> i) & 1)) {
            cuzk_fp12_cyclotomic_sqr(&acc, &acc);
            i--;
            continue;
        }
        /* the longest window [i, j] of at most 3 bits that ends in a 1 */
        int j = i - 2 < 0 ? 0 : i - 2;
        while (!((e >> j) & 1)) j++;
        unsigned w = (unsigned)((e >> j) & ((1u << (i - j + 1)) - 1));
        if (started) {
            for (int s = 0; s <= i - j; s++) cuzk_fp12_cyclotomic_sqr(&acc, &acc);
            cuzk_fp12_mul(&acc, &acc, &odd[w >> 1]);
        } else {
            acc = odd[w >> 1];
            started = 1;
        }
        i = j - 1;
    }
    *r = acc;
}

/* Shared by both final exponentiations. Easy part m = f^((q^6 - 1)(q^2 + 1))
 * (one Fp12 inversion), then with s = m^d (exact) or s = m^(|x| + 1) (cube),
 * so that s^(|x| + 1) = m^((x - 1)^2 / 3) or m^((x - 1)^2):
 *   A = s^(|x| + 1)                        63 S + 6 M
 *   B = A^(x + q) = conj(A^|x|) A^q         63 S + 6 M
 *   C = B^(x^2 + q^2 - 1)                  126 S + 12 M
 *     = B^(|x|^2) B^(q^2) conj(B)
 *   r = C m  (exact)  or  C m^3  (cube). */
static void final_exp_impl(cuzk_fp12 *r, const cuzk_fp12 *f, int exact)
{
    cuzk_fp12 m, t, A, B, C;

    /* easy part */
    cuzk_fp12_inv(&t, f);
    cuzk_fp12_conj(&m, f);
    cuzk_fp12_mul(&m, &m, &t);
    cuzk_fp12_frobenius(&t, &m, 2);
    cuzk_fp12_mul(&m, &m, &t);

    if (exact) {
        cyclotomic_exp_d(&t, &m);
    } else {
        cyclotomic_exp_x(&t, &m);
        cuzk_fp12_mul(&t, &t, &m);
    }
    cyclotomic_exp_x(&A, &t);
    cuzk_fp12_mul(&A, &A, &t);

    cyclotomic_exp_x(&B, &A);
    cuzk_fp12_conj(&B, &B);
    cuzk_fp12_frobenius(&t, &A, 1);
    cuzk_fp12_mul(&B, &B, &t);

    cyclotomic_exp_x(&C, &B);
    cyclotomic_exp_x(&C, &C);
    cuzk_fp12_frobenius(&t, &B, 2);
    cuzk_fp12_mul(&C, &C, &t);
    cuzk_fp12_conj(&t, &B);
    cuzk_fp12_mul(&C, &C, &t);

    if (!exact) {
        cuzk_fp12_cyclotomic_sqr(&t, &m);
        cuzk_fp12_mul(&C, &C, &t);
    }
    cuzk_fp12_mul(r, &C, &m);
}

/* The GT convention of noble, zkcrypto and blst (and of
 * tests/vectors/pairing.json): f^(3 (q^12 - 1)/r). */
void cuzk_final_exp(cuzk_fp12 *r, const cuzk_fp12 *f) { final_exp_impl(r, f, 0); }

void cuzk_final_exp_exact(cuzk_fp12 *r, const cuzk_fp12 *f) { final_exp_impl(r, f, 1); }

void cuzk_pairing(cuzk_fp12 *r, const cuzk_g1_affine *p, const cuzk_g2_affine *q)
{
    cuzk_fp12 f;
    cuzk_miller_loop(&f, p, q, 1);
    cuzk_final_exp(r, &f);
}

int cuzk_pairing_product_is_one(const cuzk_g1_affine *p, const cuzk_g2_affine *q, size_t n)
{
    cuzk_fp12 f;
    cuzk_miller_loop(&f, p, q, n);
    cuzk_final_exp(&f, &f);
    return cuzk_fp12_is_one(&f);
}
