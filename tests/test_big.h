/* Little arbitrary-size integers for tests that check exponents such as
 * (q^12 - 1)/r by plain exponentiation. Schoolbook and slow; tests only. */
#ifndef CUZK_TEST_BIG_H
#define CUZK_TEST_BIG_H

#include <stdint.h>
#include <string.h>

#include <cuzk/ff.h>

/* Little-endian limb integers, enough for q^12 (4572 bits). */
#define BIG_LIMBS 80
typedef struct { uint64_t l[BIG_LIMBS]; size_t n; } big;

static inline void big_set(big *r, const uint64_t *v, size_t n)
{
    memset(r, 0, sizeof *r);
    memcpy(r->l, v, n * sizeof(uint64_t));
    r->n = n;
}

static inline void big_mul(big *r, const big *a, const big *b)
{
    big t;
    memset(&t, 0, sizeof t);
    for (size_t i = 0; i < a->n; i++) {
        uint64_t carry = 0;
        for (size_t j = 0; j < b->n; j++) {
            unsigned __int128 p = (unsigned __int128)a->l[i] * b->l[j] + t.l[i + j] + carry;
            t.l[i + j] = (uint64_t)p;
            carry = (uint64_t)(p >> 64);
        }
        t.l[i + b->n] = carry;
    }
    t.n = a->n + b->n;
    while (t.n > 1 && t.l[t.n - 1] == 0) t.n--;
    *r = t;
}

static inline void big_sub_small(big *r, uint64_t k)
{
    for (size_t i = 0; i < r->n && k; i++) {
        uint64_t old = r->l[i];
        r->l[i] = old - k;
        k = old < k;
    }
}

/* r = a / d for a small d, returns the remainder. */
static inline uint64_t big_div_small(big *r, const big *a, uint64_t d)
{
    unsigned __int128 rem = 0;
    big t = *a;
    for (size_t i = a->n; i-- > 0;) {
        unsigned __int128 cur = (rem << 64) | a->l[i];
        t.l[i] = (uint64_t)(cur / d);
        rem = cur % d;
    }
    *r = t;
    return (uint64_t)rem;
}

/* q^k */
static inline void big_qpow(big *r, unsigned k)
{
    big q;
    big_set(&q, CUZK_FP_MODULUS, CUZK_FP_LIMBS);
    uint64_t one = 1;
    big_set(r, &one, 1);
    for (unsigned i = 0; i < k; i++) big_mul(r, r, &q);
}

#endif /* CUZK_TEST_BIG_H */
