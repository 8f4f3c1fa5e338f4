/* The GPU prover's compact witness (src/gpu/wcompact.h) on the host: the
 * bitmaps, offsets and values it uploads, and the per-value lookup its
 * device kernel makes (wc_source), against the dense witness. Runs without
 * a GPU (label cpu). Lengths around the word boundaries, witnesses of all
 * zeros, all ones, no bits, random mixes; the passes split over ranges of
 * words as the prover's threads split them. Replay with CUZK_SEED=<n>. */
#include <stdlib.h>
#include <string.h>

#include <cuzk/ff.h>

#include "gpu/wcompact.h"
#include "test_util.h"

/* kind 0: random mix of 0, 1 and other values; 1: all 0; 2: all 1; 3: no
 * 0 or 1; 4: runs of each (whole words of one kind). */
static void fill(cuzk_fr *w, size_t n, int kind)
{
    for (size_t i = 0; i < n; i++) {
        int t = kind == 0 ? (int)(test_rand64() % 3)
              : kind == 1 ? 0
              : kind == 2 ? 1
              : kind == 3 ? 2
                          : (int)((i / 64) % 3);
        if (t == 0) memset(&w[i], 0, sizeof w[i]);
        else if (t == 1) w[i] = CUZK_FR_ONE;
        else {
            uint64_t v[4] = {test_rand64(), test_rand64(), test_rand64(), test_rand64() >> 4};
            if (v[0] < 2) v[0] = 2; /* never 0 or 1 */
            cuzk_fr_from_limbs(&w[i], v);
        }
    }
}

static void check(size_t n, int kind, size_t parts)
{
    size_t nw = wc_words(n);
    cuzk_fr *w = malloc((n ? n : 1) * sizeof *w), *vals = malloc((n ? n : 1) * sizeof *vals);
    uint64_t *ib = malloc((nw ? nw : 1) * 8), *bv = malloc((nw ? nw : 1) * 8);
    uint32_t *off = malloc((nw ? nw : 1) * 4);
    CHECK(w && vals && ib && bv && off);
    if (!w || !vals || !ib || !bv || !off) goto out;
    fill(w, n, kind);
    for (size_t p = 0; p < parts; p++)
        wc_classify(w, n, nw * p / parts, nw * (p + 1) / parts, ib, bv, off);
    size_t n_other = wc_offsets(off, nw);
    for (size_t p = parts; p-- > 0;) /* the other order: ranges are independent */
        wc_gather(w, n, nw * p / parts, nw * (p + 1) / parts, ib, off, vals);
    size_t want_other = 0, bad = n;
    for (size_t i = 0; i < n; i++) {
        int is0 = cuzk_fr_is_zero(&w[i]), is1 = cuzk_fr_is_one(&w[i]);
        want_other += !is0 && !is1;
        int64_t src = wc_source(i, ib, bv, off);
        int ok = is0 ? src == WC_ZERO
               : is1 ? src == WC_ONE
                     : src >= 0 && (size_t)src < n_other && cuzk_fr_eq(&vals[src], &w[i]);
        if (!ok && bad == n) bad = i;
    }
    CHECK_MSG(bad == n, "n %zu kind %d parts %zu: value %zu not recovered", n, kind, parts, bad);
    CHECK_MSG(n_other == want_other, "n %zu kind %d: %zu other values, want %zu", n, kind,
              n_other, want_other);
    /* the bits past n are 0 in both bitmaps (the SpMV never sees them set) */
    if (n % 64) {
        uint64_t past = ~(((uint64_t)1 << (n % 64)) - 1);
        CHECK((ib[nw - 1] & past) == 0 && (bv[nw - 1] & past) == 0);
    }
    /* bit_val only where is_bit */
    for (size_t k = 0; k < nw; k++) CHECK((bv[k] & ~ib[k]) == 0);
out:
    free(w);
    free(vals);
    free(ib);
    free(bv);
    free(off);
}

int main(void)
{
    test_seed("test_gpu_wcompact");
    static const size_t sizes[] = {0, 1, 2, 63, 64, 65, 127, 128, 129, 1000, 4096, 70001};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (int kind = 0; kind < 5; kind++)
            for (size_t parts = 1; parts <= 7; parts += 3) check(sizes[s], kind, parts);
    return test_done("test_gpu_wcompact");
}
