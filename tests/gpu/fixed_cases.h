/* Edge-case scalars for the fixed-base multiplier (src/gpu/fixed.cuh),
 * shared by test_gpu_fixed (C, on a GPU) and test_gpu_fixed_emu (C++, the
 * device bodies on the host). */
#ifndef CUZK_TESTS_GPU_FIXED_CASES_H
#define CUZK_TESTS_GPU_FIXED_CASES_H

#include <string.h>

#include <cuzk/ff.h>

#define FIXED_MAX_EDGES 64

/* 2^e mod r in Montgomery form. */
static inline void fixed_pow2(cuzk_fr *r, unsigned e)
{
    *r = CUZK_FR_ONE;
    for (unsigned i = 0; i < e; i++) cuzk_fr_dbl(r, r);
}

/* Scalars that stress the w-bit signed digits (Montgomery form): 0 and
 * small values, a digit of exactly H = 2^(w-1) (kept positive) and H + 1
 * (negative, carries), runs of all-ones windows (every digit -1, a carry
 * through all of them), single top-window digits, r - 1, r - 2, (r +- 1)/2,
 * and s = r - 2 (r mod 2^(w (nwin - 1))) with its neighbours: for the w
 * where the lower digits of s carry into the top window (4, 6, 7, 9, 12,
 * 14, 18, 21, 22) the last mixed addition meets its own point (the
 * doubling branch of ec_madd). Writes at most FIXED_MAX_EDGES; returns the
 * count. */
static inline size_t fixed_edges(cuzk_fr *out, unsigned w)
{
    unsigned nwin = (256 + w - 1) / w, top = w * (nwin - 1);
    size_t n = 0;
    cuzk_fr one = CUZK_FR_ONE, t, u;
    static const uint64_t small[] = {0, 1, 2, 3, 5};
    for (size_t i = 0; i < sizeof small / sizeof small[0]; i++) cuzk_fr_from_u64(&out[n++], small[i]);
    uint64_t h = (uint64_t)1 << (w - 1);
    const uint64_t around[] = {h - 1, h, h + 1, 2 * h - 1, 2 * h, 2 * h + 1};
    for (size_t i = 0; i < sizeof around / sizeof around[0]; i++) cuzk_fr_from_u64(&out[n++], around[i]);
    const unsigned ks[] = {1, nwin / 2, nwin - 2, nwin - 1};
    for (size_t i = 0; i < sizeof ks / sizeof ks[0]; i++) {
        fixed_pow2(&t, w * ks[i]);
        cuzk_fr_from_u64(&u, h);
        cuzk_fr_mul(&out[n++], &t, &u);      /* digit H in window k */
        cuzk_fr_from_u64(&u, h + 1);
        cuzk_fr_mul(&out[n++], &t, &u);      /* digit -(H - 1), carry */
        cuzk_fr_sub(&out[n++], &t, &one);    /* windows below k all ones */
        out[n++] = t;                        /* a single digit 1 */
    }
    cuzk_fr_neg(&out[n++], &one);            /* r - 1 */
    cuzk_fr_from_u64(&u, 2);
    cuzk_fr_neg(&out[n++], &u);              /* r - 2 */
    cuzk_fr_inv(&t, &u);
    out[n++] = t;                            /* (r + 1) / 2 */
    cuzk_fr_sub(&out[n++], &t, &one);        /* (r - 1) / 2 */
    fixed_pow2(&t, 254);
    out[n++] = t;
    cuzk_fr_neg(&out[n++], &t);              /* r - 2^254 */
    /* m = r mod 2^top, s = r - 2m = -2m. */
    uint64_t m[CUZK_FR_LIMBS];
    for (int i = 0; i < CUZK_FR_LIMBS; i++) {
        unsigned lo = 64u * (unsigned)i;
        uint64_t mask = lo + 64 <= top ? ~0ull : lo >= top ? 0 : (((uint64_t)1 << (top - lo)) - 1);
        m[i] = CUZK_FR_MODULUS[i] & mask;
    }
    (void)cuzk_fr_from_limbs(&t, m);
    cuzk_fr_dbl(&t, &t);
    cuzk_fr_neg(&t, &t);
    out[n++] = t;
    cuzk_fr_add(&out[n++], &t, &one);
    cuzk_fr_sub(&out[n++], &t, &one);
    return n;
}

#endif /* CUZK_TESTS_GPU_FIXED_CASES_H */
