/* Fr, the 255-bit scalar field of BLS12-381. Shared operations come from
 * field_impl.h; this file holds the constants and what only Fr has. */
#include <string.h>

#include <cuzk/ff.h>

#include "ff/mont.h"

const uint64_t CUZK_FR_MODULUS[CUZK_FR_LIMBS] = {
    0xffffffff00000001ull, 0x53bda402fffe5bfeull, 0x3339d80809a1d805ull,
    0x73eda753299d7d48ull};
const cuzk_fr CUZK_FR_ZERO = {{0}};
const cuzk_fr CUZK_FR_ONE = {{/* 2^256 mod r */
    0x00000001fffffffeull, 0x5884b7fa00034802ull, 0x998c4fefecbc4ff5ull,
    0x1824b159acc5056full}};
static const uint64_t FR_R2[CUZK_FR_LIMBS] = { /* 2^512 mod r */
    0xc999e990f3f29c6dull, 0x2b6cedcb87925c23ull, 0x05d314967254398full,
    0x0748d9d99f59ff11ull};
static const uint64_t FR_R3[CUZK_FR_LIMBS] = { /* 2^768 mod r */
    0xc62c1807439b73afull, 0x1b3e0d188cf06990ull, 0x73d13c71c7b5f418ull,
    0x6e2a5bb9c8db33e9ull};

#define FIELD cuzk_fr
#define FN(name) cuzk_fr_##name
#define NL CUZK_FR_LIMBS
#define NB CUZK_FR_BYTES
#define P_ CUZK_FR_MODULUS
#define ONE_ CUZK_FR_ONE
#define N0 0xfffffffeffffffffull
#define R2_ FR_R2
#define R3_ FR_R3
#include "ff/field_impl.h"

/* r - 1 = 2^32 t, t odd. */
#define FR_TWO_ADICITY 32
static const uint64_t FR_T[CUZK_FR_LIMBS] = {
    0xfffe5bfeffffffffull, 0x09a1d80553bda402ull, 0x299d7d483339d808ull,
    0x0000000073eda753ull};
/* 5^t: a primitive 2^32-th root of unity (5 is the least non-residue). */
static const uint64_t FR_ROOT_5[CUZK_FR_LIMBS] = {
    0x1b788f500b912f1full, 0xc4024ff270b3e094ull, 0x0fd56dc8d168d6c0ull,
    0x0212d79e5b416b6full};

/* Tonelli-Shanks. Variable time in the 2-adic part of a. */
int cuzk_fr_sqrt_var(cuzk_fr *r, const cuzk_fr *a)
{
    if (cuzk_fr_is_zero(a)) {
        *r = *a;
        return 1;
    }
    uint64_t e[NL];
    memcpy(e, FR_T, sizeof e);
    /* (t + 1) / 2: t is odd, so this is (t >> 1) + 1. */
    for (size_t i = 0; i + 1 < NL; i++) e[i] = (e[i] >> 1) | (e[i + 1] << 63);
    e[NL - 1] >>= 1;
    e[0] += 1; /* no carry: the low limb of t >> 1 is 0x...7fffffff */
    cuzk_fr x, b, z, t;
    cuzk_fr_pow(&x, a, e, NL);   /* x = a^((t+1)/2) */
    cuzk_fr_pow(&b, a, FR_T, NL); /* b = a^t */
    cuzk_fr_from_limbs(&z, FR_ROOT_5);
    unsigned m = FR_TWO_ADICITY;
    while (!cuzk_fr_is_one(&b)) {
        unsigned i = 0;
        t = b;
        while (!cuzk_fr_is_one(&t)) {
            cuzk_fr_sqr(&t, &t);
            if (++i == m) return 0; /* b has order 2^m: a is a non-square */
        }
        cuzk_fr w = z;
        for (unsigned k = 0; k + i + 1 < m; k++) cuzk_fr_sqr(&w, &w);
        cuzk_fr_mul(&x, &x, &w);
        cuzk_fr_sqr(&z, &w);
        cuzk_fr_mul(&b, &b, &z);
        m = i;
    }
    *r = x;
    return 1;
}

/* v < 2^256 < 3r: at most two subtractions, both done unconditionally. */
void cuzk_fr_from_limbs_reduce(cuzk_fr *r, const uint64_t v[CUZK_FR_LIMBS])
{
    uint64_t t[NL];
    mont_reduce_once(t, v, P_, NL);
    mont_reduce_once(t, t, P_, NL);
    mont_mul(r->l, t, R2_, P_, N0, NL);
}
