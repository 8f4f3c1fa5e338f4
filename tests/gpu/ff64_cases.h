/* Inputs for the FP64 field multiplication tests (test_gpu_ff64_emu.cu on the
 * host, test_gpu_ff64.c on the GPU): random reduced elements of three kinds,
 * and edge values. Elements are raw Montgomery limbs (any value below the
 * modulus is an element). Needs test_util.h and cuzk/ff.h. */
#ifndef CUZK_TEST_FF64_CASES_H
#define CUZK_TEST_FF64_CASES_H

#include <string.h>

/* 1 if v < m (nl little-endian 64-bit limbs). */
static inline int ff64c_below(const uint64_t *v, const uint64_t *m, int nl)
{
    for (int i = nl - 1; i >= 0; i--)
        if (v[i] != m[i]) return v[i] < m[i];
    return 0;
}

/* A random reduced element below m (bits = the modulus's bit length).
 * kind 0: uniform. kind 1: each 32-bit half-limb 0, all ones or random (long
 * carry chains). kind 2: each 16-bit piece 0, all ones or random, so the
 * 48- and 52-bit samples are often all zeros or all ones. */
static inline void ff64c_rand(uint64_t *v, const uint64_t *m, int nl, int bits, int kind)
{
    uint64_t top = bits % 64 ? (1ull << (bits % 64)) - 1 : ~0ull;
    do {
        for (int i = 0; i < nl; i++) {
            uint64_t x = test_rand64();
            if (kind) {
                int piece = kind == 1 ? 32 : 16;
                uint64_t sel = test_rand64();
                for (int h = 0; h < 64 / piece; h++) {
                    uint64_t mask = (piece == 32 ? 0xffffffffull : 0xffffull) << (piece * h);
                    switch ((sel >> (2 * h)) & 3) {
                    case 0: x &= ~mask; break;
                    case 1: x |= mask; break;
                    default: break;
                    }
                }
            }
            v[i] = x;
        }
        v[nl - 1] &= top;
    } while (!ff64c_below(v, m, nl));
}

/* Edge values below m into e (up to FF64C_MAX_EDGES of CUZK_FP_LIMBS limbs;
 * limbs past nl zero): 0, 1, the Montgomery one, m-1, m-2, 2^(bits-1) and
 * 2^(bits-1) - 1 (the largest powers of two near the modulus: 2^380 for Fp,
 * 2^254 for Fr), and for B in 32, 48, ..., m with its low B bits cleared,
 * minus 1 (all ones below bit B, so every sample below there all ones, and
 * the rest of m, the largest such values below m). Returns the count. */
#define FF64C_MAX_EDGES 32
static inline int ff64c_edges(uint64_t e[FF64C_MAX_EDGES][CUZK_FP_LIMBS], const uint64_t *m,
                              const uint64_t *one, int nl, int bits)
{
    static const int cuts[] = {32, 48, 52, 64, 96, 104, 128, 192, 208, 240, 256, 288, 320, 336,
                               364, 372};
    int k = 0;
    memset(e, 0, sizeof(uint64_t) * FF64C_MAX_EDGES * CUZK_FP_LIMBS);
    k++;                                       /* 0 */
    e[k++][0] = 1;                             /* raw 1 */
    memcpy(e[k++], one, nl * sizeof(uint64_t)); /* Montgomery 1 */
    memcpy(e[k], m, nl * sizeof(uint64_t)); e[k++][0] -= 1;
    memcpy(e[k], m, nl * sizeof(uint64_t)); e[k++][0] -= 2;
    e[k][(bits - 1) / 64] = 1ull << ((bits - 1) % 64); k++;
    for (int i = 0; i < (bits - 1) / 64; i++) e[k][i] = ~0ull;
    e[k][(bits - 1) / 64] = (1ull << ((bits - 1) % 64)) - 1; k++;
    for (size_t c = 0; c < sizeof cuts / sizeof cuts[0] && k < FF64C_MAX_EDGES; c++) {
        int b = cuts[c];
        if (b >= bits - 1) break;
        memcpy(e[k], m, nl * sizeof(uint64_t));
        for (int i = 0; i < b / 64; i++) e[k][i] = 0;
        if (b % 64) e[k][b / 64] &= ~((1ull << (b % 64)) - 1);
        for (int i = 0; i < nl; i++) /* minus 1 */
            if (e[k][i]-- != 0) break;
        k++;
    }
    return k;
}

#endif /* CUZK_TEST_FF64_CASES_H */
