/* The device field code of src/gpu/ff.cuh compiled for the host, with the PTX
 * carry-chain instructions emulated (CUZK_FF_HOST_EMULATION), against the CPU
 * backend. It checks the limb logic (indices, carries, bounds) on machines
 * without a GPU, so it runs with the CPU tests; test_gpu_ff checks the real
 * kernels on a GPU. Seeded: replay with CUZK_SEED=<n>. */
#define CUZK_FF_HOST_EMULATION 1
#include "gpu/ff.cuh"
#include "gpu/ff_kara.cuh"

#include <string.h>

extern "C" {
#include "test_util.h"
}

#define NAME "test_gpu_ff_emu"

/* A random reduced raw element, often with 32-bit limbs 0 or all ones, and
 * now and then p - 1, p - 2, p - 3 (long carry and borrow chains). */
static void rand_raw(uint64_t *v, const uint64_t *m, int nl, uint64_t top)
{
    for (;;) {
        for (int i = 0; i < nl; i++) {
            uint64_t x = test_rand64(), sel = test_rand64();
            for (int h = 0; h < 2; h++) {
                uint64_t half = 0xffffffffull << (32 * h);
                switch ((sel >> (2 * h)) & 3) {
                case 0: x &= ~half; break;
                case 1: x |= half; break;
                default: break;
                }
            }
            v[i] = x;
        }
        v[nl - 1] &= top;
        if (test_rand64() % 8 == 0) {
            memcpy(v, m, nl * sizeof *v);
            v[0] -= 1 + test_rand64() % 3;
        }
        if (test_rand64() % 16 == 0) memset(v, 0, nl * sizeof *v);
        int lt = 0;
        for (int i = nl - 1; i >= 0; i--)
            if (v[i] != m[i]) { lt = v[i] < m[i]; break; }
        if (lt) return;
    }
}

template <class F, class E>
static void check_field(const char *name, const uint64_t *mod, uint64_t top, int iters,
                        void (*mul)(E *, const E *, const E *), void (*sqr)(E *, const E *),
                        void (*add)(E *, const E *, const E *),
                        void (*sub)(E *, const E *, const E *), void (*neg)(E *, const E *))
{
    const int nl = (int)(sizeof(E) / 8);
    int bad[7] = {0};
    for (int it = 0; it < iters; it++) {
        E a, b, want;
        rand_raw(a.l, mod, nl, top);
        rand_raw(b.l, mod, nl, top);
        uint32_t x[F::N], y[F::N], z[F::N];
        memcpy(x, &a, sizeof a);
        memcpy(y, &b, sizeof b);
        mul(&want, &a, &b);
        ff_mul<F>(z, x, y);
        bad[0] += memcmp(z, &want, sizeof want) != 0;
        ff_mul_sos<F>(z, x, y);
        bad[1] += memcmp(z, &want, sizeof want) != 0;
        ff_mul_kara<F>(z, x, y);
        bad[6] += memcmp(z, &want, sizeof want) != 0;
        sqr(&want, &a);
        ff_sqr<F>(z, x);
        bad[2] += memcmp(z, &want, sizeof want) != 0;
        add(&want, &a, &b);
        ff_add<F>(z, x, y);
        bad[3] += memcmp(z, &want, sizeof want) != 0;
        sub(&want, &a, &b);
        ff_sub<F>(z, x, y);
        bad[4] += memcmp(z, &want, sizeof want) != 0;
        neg(&want, &a);
        ff_neg<F>(z, x);
        bad[5] += memcmp(z, &want, sizeof want) != 0;
    }
    static const char *ops[7] = {"mul", "mul_sos", "sqr", "add", "sub", "neg", "mul_kara"};
    for (int k = 0; k < 7; k++)
        CHECK_MSG(bad[k] == 0, "%s %s: %d of %d differ", name, ops[k], bad[k], iters);
}

int main(void)
{
    test_seed(NAME);
    /* the library's Fr (the generic steps), then the step variants */
    check_field<FfFr, cuzk_fr>("Fr", CUZK_FR_MODULUS, 0x7fffffffffffffffull, 200000, cuzk_fr_mul,
                               cuzk_fr_sqr, cuzk_fr_add, cuzk_fr_sub, cuzk_fr_neg);
    check_field<FfFrT<FF_CONST_MEM_P0ONE>, cuzk_fr>("Fr (r0 = 1 steps)", CUZK_FR_MODULUS,
                                                    0x7fffffffffffffffull, 50000, cuzk_fr_mul,
                                                    cuzk_fr_sqr, cuzk_fr_add, cuzk_fr_sub,
                                                    cuzk_fr_neg);
    check_field<FfFrT<FF_CONST_MEM_P01>, cuzk_fr>("Fr (r0 = 1, r1 = 2^32 - 1 steps)",
                                                  CUZK_FR_MODULUS, 0x7fffffffffffffffull, 50000,
                                                  cuzk_fr_mul, cuzk_fr_sqr, cuzk_fr_add,
                                                  cuzk_fr_sub, cuzk_fr_neg);
    check_field<FfFp, cuzk_fp>("Fp", CUZK_FP_MODULUS, 0x1fffffffffffffffull, 100000, cuzk_fp_mul,
                               cuzk_fp_sqr, cuzk_fp_add, cuzk_fp_sub, cuzk_fp_neg);
    return test_done(NAME);
}
