/* cuzk — the witness in compact form, as the GPU prover uploads it
 * (src/gpu/prover.cu): plain C, shared by the host code of the prover, its
 * device kernel (wc_source), src/prove/witness.c (cuzk_witness_compact of
 * prove.h) and the host test tests/test_witness_compact.c.
 *
 * A witness of n values (Montgomery form) is mostly 0 and 1 (a PoRep
 * partition: 51% zeros, 47.5% ones). Compact form:
 *   is_bit[k], bit_val[k]  words k < ceil(n / 64): bit i of word i / 64 says
 *                          value i is 0 or 1, and which (the bitmaps of
 *                          cuzk_pce_witness, so the SpMV reads them as they are)
 *   off[k]                 the number of other values before word k
 *   vals[]                 the other values, in order
 * 130 M values: 2 x 16 MB of bitmaps, 8 MB of offsets and 32 B for each
 * other value, instead of 4.2 GB.
 *
 * Filled in two passes over word ranges (so they run on many threads): the
 * bitmaps and each word's count (wc_classify), then, with the offsets summed
 * (wc_offsets), the values (wc_gather). Bits of the last word at and beyond
 * n are 0 in both bitmaps and count as no value. */
#ifndef CUZK_GPU_WCOMPACT_H
#define CUZK_GPU_WCOMPACT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cuzk/ff.h>

#if defined(__CUDACC__)
#define WC_FN static inline __host__ __device__
#else
#define WC_FN static inline
#endif

static inline size_t wc_words(size_t n) { return (n + 63) / 64; }

/* Words [kb, ke): bitmaps, and off[k] = the count of other values in word k
 * (summed into offsets by wc_offsets). */
static inline void wc_classify(const cuzk_fr *w, size_t n, size_t kb, size_t ke, uint64_t *is_bit,
                               uint64_t *bit_val, uint32_t *off)
{
    for (size_t k = kb; k < ke; k++) {
        uint64_t ib = 0, bv = 0;
        size_t e = (k + 1) * 64 < n ? (k + 1) * 64 : n;
        for (size_t i = k * 64; i < e; i++) {
            uint64_t m = (uint64_t)1 << (i & 63);
            if (cuzk_fr_is_zero(&w[i])) ib |= m;
            else if (cuzk_fr_is_one(&w[i])) ib |= m, bv |= m;
        }
        is_bit[k] = ib;
        bit_val[k] = bv;
        off[k] = (uint32_t)((e - k * 64) - (size_t)__builtin_popcountll(ib));
    }
}

/* Counts to offsets in place (an exclusive prefix sum); returns the number
 * of other values. n < 2^32, so every sum fits. */
static inline size_t wc_offsets(uint32_t *off, size_t nwords)
{
    uint32_t s = 0;
    for (size_t k = 0; k < nwords; k++) {
        uint32_t c = off[k];
        off[k] = s;
        s += c;
    }
    return s;
}

/* Words [kb, ke): the other values into vals at their offsets. */
static inline void wc_gather(const cuzk_fr *w, size_t n, size_t kb, size_t ke,
                             const uint64_t *is_bit, const uint32_t *off, cuzk_fr *vals)
{
    for (size_t k = kb; k < ke; k++) {
        size_t j = off[k];
        size_t e = (k + 1) * 64 < n ? (k + 1) * 64 : n;
        for (size_t i = k * 64; i < e; i++)
            if (!((is_bit[k] >> (i & 63)) & 1)) memcpy(&vals[j++], &w[i], sizeof *vals);
    }
}

/* Where value i comes from: WC_ZERO, WC_ONE, or an index into vals. */
#define WC_ZERO ((int64_t)-1)
#define WC_ONE ((int64_t)-2)

WC_FN int64_t wc_source(size_t i, const uint64_t *is_bit, const uint64_t *bit_val,
                        const uint32_t *off)
{
    size_t k = i / 64;
    unsigned b = (unsigned)(i & 63);
    uint64_t ib = is_bit[k];
    if ((ib >> b) & 1) return ((bit_val[k] >> b) & 1) ? WC_ONE : WC_ZERO;
    uint64_t below = ~ib & (((uint64_t)1 << b) - 1);
#if defined(__CUDA_ARCH__)
    return (int64_t)off[k] + __popcll(below);
#else
    return (int64_t)off[k] + __builtin_popcountll(below);
#endif
}

#endif /* CUZK_GPU_WCOMPACT_H */
