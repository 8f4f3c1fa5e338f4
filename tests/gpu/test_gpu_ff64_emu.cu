/* The FP64 field multiplication of src/gpu/ff_fp64.cuh compiled for the host
 * (CUZK_FF_HOST_EMULATION: fma() of <math.h> with the rounding mode set to
 * toward zero stands for the device's __fma_rz; both are IEEE 754
 * fusedMultiplyAdd, so this runs the same floating-point arithmetic as the
 * GPU), against the CPU backend, bit for bit (ff64_mul, ff64_sqr and Fp's
 * ff64_mul_fc against cuzk_{fr,fp}_{mul,sqr}): 1e6 fresh random products and squares per field (uniform, carry-heavy, and with
 * all-zero / all-one samples), all pairs of edge values, and a check of the
 * constants (modulus samples, -p^-1). Seeded: replay with CUZK_SEED=<n>.
 * CUZK_TEST_QUICK=1 runs 1e4 per field. */
#define CUZK_FF_HOST_EMULATION 1
#include "gpu/ff_fp64.cuh"

#include <fenv.h>
#include <string.h>

extern "C" {
#include <cuzk/ff.h>

#include "test_util.h"
}
#include "gpu/ff64_cases.h"

#define NAME "test_gpu_ff64_emu"

/* The samples of P reassemble the CPU's modulus, MP p = -1 mod 2^64, and
 * the column offsets cancel the exponents: a product of zeros is zero. */
template <class P>
static void check_constants(const char *name, const uint64_t *mod, int nl)
{
    uint64_t rebuilt[CUZK_FP_LIMBS] = {0};
    for (int j = 0; j < P::S; j++) {
        CHECK_MSG(P::p(j) < (1ull << P::W), "%s sample %d too wide", name, j);
        for (int b = 0; b < P::W; b++) {
            int bit = P::W * j + b;
            if ((P::p(j) >> b & 1) && bit < 64 * nl) rebuilt[bit / 64] |= 1ull << (bit % 64);
        }
    }
    CHECK_MSG(memcmp(rebuilt, mod, nl * 8) == 0, "%s: samples do not rebuild the modulus", name);
    CHECK_MSG(P::MP * mod[0] == ~0ull, "%s: MP is not -p^-1 mod 2^64", name);
}

template <class P, class E>
static void check_field(const char *name, const uint64_t *mod, const E *one, int bits,
                        long iters, void (*mul)(E *, const E *, const E *),
                        void (*sqr)(E *, const E *))
{
    typedef typename P::F F;
    const int nl = (int)(sizeof(E) / 8);
    check_constants<P>(name, mod, nl);
    long bad = 0, sbad = 0, fbad = 0;
    for (long it = 0; it < iters; it++) {
        E a, b, want;
        ff64c_rand(a.l, mod, nl, bits, (int)(it % 3));
        ff64c_rand(b.l, mod, nl, bits, (int)((it / 3) % 3));
        uint32_t x[F::N], y[F::N], z[F::N];
        memcpy(x, &a, sizeof a);
        memcpy(y, &b, sizeof b);
        mul(&want, &a, &b);
        if (ff64_fc_ok<P>()) { /* Fp: column sums in doubles */
            ff64_mul_fc_or<P>(z, x, y);
            fbad += memcmp(z, &want, sizeof want) != 0;
        }
        ff64_mul<P>(z, x, y);
        if (memcmp(z, &want, sizeof want) && bad++ < 3) {
            fprintf(stderr, "%s random #%ld differs\n", name, it);
            for (int k = nl - 1; k >= 0; k--)
                fprintf(stderr, "  limb %d a %016llx b %016llx\n", k,
                        (unsigned long long)a.l[k], (unsigned long long)b.l[k]);
        }
        /* the squaring, and the multiplication with a = b */
        sqr(&want, &a);
        ff64_sqr<P>(z, x);
        sbad += memcmp(z, &want, sizeof want) != 0;
        if (it % 16 == 0) {
            ff64_mul<P>(z, x, x);
            bad += memcmp(z, &want, sizeof want) != 0;
        }
    }
    CHECK_MSG(bad == 0, "%s: %ld of %ld random products differ", name, bad, iters);
    CHECK_MSG(sbad == 0, "%s: %ld of %ld random squares differ", name, sbad, iters);
    if (ff64_fc_ok<P>())
        CHECK_MSG(fbad == 0, "%s: %ld of %ld random products (ff64_mul_fc) differ", name, fbad,
                  iters);

    uint64_t e[FF64C_MAX_EDGES][CUZK_FP_LIMBS];
    int k = ff64c_edges(e, mod, one->l, nl, bits);
    int ebad = 0;
    for (int i = 0; i < k; i++) {
        CHECK(ff64c_below(e[i], mod, nl));
        for (int j = 0; j < k; j++) {
            E a, b, want;
            memcpy(a.l, e[i], sizeof a);
            memcpy(b.l, e[j], sizeof b);
            uint32_t x[F::N], y[F::N], z[F::N];
            memcpy(x, &a, sizeof a);
            memcpy(y, &b, sizeof b);
            mul(&want, &a, &b);
            ff64_mul<P>(z, x, y);
            if (memcmp(z, &want, sizeof want) && ebad++ < 3)
                fprintf(stderr, "%s edge pair (%d, %d) differs\n", name, i, j);
            if (ff64_fc_ok<P>()) {
                ff64_mul_fc_or<P>(z, x, y);
                if (memcmp(z, &want, sizeof want) && ebad++ < 3)
                    fprintf(stderr, "%s edge pair (%d, %d) differs (fc)\n", name, i, j);
            }
        }
        E a, want;
        memcpy(a.l, e[i], sizeof a);
        uint32_t x[F::N], z[F::N];
        memcpy(x, &a, sizeof a);
        sqr(&want, &a);
        ff64_sqr<P>(z, x);
        if (memcmp(z, &want, sizeof want) && ebad++ < 3)
            fprintf(stderr, "%s edge square %d differs\n", name, i);
    }
    CHECK_MSG(ebad == 0, "%s: %d of %d edge pairs and squares differ", name, ebad, k * k + k);
}

int main(void)
{
    test_seed(NAME);
    /* The host's fma must round toward zero, as the device's __fma_rz:
     * (2^52 + 1)(2^52 - 1) = 2^104 - 1 rounds to 2^104 - 2^51 toward zero
     * (to 2^104 to nearest). */
    CHECK(fesetround(FE_TOWARDZERO) == 0);
    CHECK(ff64_fma_rz(4503599627370497.0, 4503599627370495.0, 0.0) ==
          20282409603651670423947251286016.0 - 2251799813685248.0);
    const char *quick = getenv("CUZK_TEST_QUICK");
    long iters = quick && *quick && *quick != '0' ? 10000 : 1000000;
    check_field<Ff64Fr, cuzk_fr>("Fr", CUZK_FR_MODULUS, &CUZK_FR_ONE, 255, iters, cuzk_fr_mul,
                                cuzk_fr_sqr);
    check_field<Ff64Fp, cuzk_fp>("Fp", CUZK_FP_MODULUS, &CUZK_FP_ONE, 381, iters, cuzk_fp_mul,
                                cuzk_fp_sqr);
    return test_done(NAME);
}
