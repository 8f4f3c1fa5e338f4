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
    int bad[8] = {0};
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
        { /* the unreduced difference: a - b + p as integers (in [1, 2p)),
           * which reduces to the CPU's a - b */
            uint32_t u[F::N], v[F::N];
            int64_t c = 0;
            ff_sub_lazy<F>(u, x, y);
            for (int k = 0; k < F::N; k++) {
                int64_t t = (int64_t)x[k] - y[k] + F::p(k) + c;
                v[k] = (uint32_t)t;
                c = (t - (int64_t)v[k]) / ((int64_t)1 << 32);
            }
            ff_reduce_once<F>(z, u);
            bad[7] += c != 0 || memcmp(u, v, sizeof v) != 0 || memcmp(z, &want, sizeof want) != 0;
        }
        neg(&want, &a);
        ff_neg<F>(z, x);
        bad[5] += memcmp(z, &want, sizeof want) != 0;
    }
    static const char *ops[8] = {"mul", "mul_sos", "sqr", "add", "sub", "neg", "mul_kara",
                                 "sub_lazy"};
    for (int k = 0; k < 8; k++)
        CHECK_MSG(bad[k] == 0, "%s %s: %d of %d differ", name, ops[k], bad[k], iters);
}

/* Raw little-endian 64-bit limbs: a < b, and a -= b. */
static int raw_lt(const uint64_t *a, const uint64_t *b, int nl)
{
    for (int i = nl - 1; i >= 0; i--)
        if (a[i] != b[i]) return a[i] < b[i];
    return 0;
}

static void raw_sub(uint64_t *a, const uint64_t *b, int nl)
{
    unsigned borrow = 0;
    for (int i = 0; i < nl; i++) {
        uint64_t d = a[i] - b[i] - borrow;
        borrow = a[i] < b[i] || (a[i] == b[i] && borrow);
        a[i] = d;
    }
}

/* ff_mul_shoup against the CPU: a (raw, a Montgomery-form element) times
 * the plain constant w gives the raw bits of a * Mont(w) on the CPU. Cases:
 * random a and w (rand_raw's long chains and p - 1 included), the edges 0,
 * 1, p - 1 of both, and a built so that the quotient estimate runs short
 * (q = q* - 1, the case the bound in ff.cuh covers): w < 2^31, so wq has
 * two limbs, and a = ceil(k W^N / wq) makes a wq just above k W^N, below
 * what the dropped columns carry. Those cases must occur (counted against
 * the full product), or the test would not test that branch of the bound.
 * Unreduced inputs (a < 2p, as ff_sub_lazy gives): a + p for every reduced
 * a, and the built cases whose a falls in [p, 2p). */
template <class F, class E>
static void check_shoup(const char *name, const uint64_t *mod, uint64_t top, int iters,
                        void (*mul)(E *, const E *, const E *),
                        cuzk_status (*from_limbs)(E *, const uint64_t *))
{
    constexpr int n = F::N;
    const int nl = n / 2;
    int bad = 0, short_q = 0, built = 0, bad_q = 0, above = 0, bad_lazy = 0;
    uint32_t m[n];
    ff_shoup_m(m, mod, n);
    for (int it = 0; it < iters; it++) {
        uint64_t av[n / 2], wv[n / 2];
        int mode = it % 4;
        rand_raw(av, mod, nl, top);
        rand_raw(wv, mod, nl, top);
        if (it < 9) { /* the edges: 0, 1, p - 1 for each */
            static const int pick[3] = {0, 1, 2};
            for (int s = 0; s < 2; s++) {
                uint64_t *v = s ? wv : av;
                int c = pick[s ? it % 3 : it / 3];
                memset(v, 0, nl * sizeof *v);
                if (c == 1) v[0] = 1;
                if (c == 2) { memcpy(v, mod, nl * sizeof *v); v[0] -= 1; }
            }
            mode = 0;
        }
        uint32_t a[n], w[n], wm[n], wq[n], z[n];
        memcpy(w, wv, sizeof w);
        if (mode == 3) { /* the short estimate: a 31-bit w */
            memset(w, 0, sizeof w);
            w[0] = (uint32_t)(test_rand64() >> 34) | 0x40000000u;
        }
        /* wq from w's Montgomery form (the CPU's) */
        E ea, ew, want;
        uint64_t w64[n / 2];
        memcpy(w64, w, sizeof w64);
        CHECK(from_limbs(&ew, w64) == CUZK_OK);
        memcpy(wm, ew.l, sizeof wm);
        ff_shoup_quot(wq, wm, m, n);
        if (mode == 3) {
            uint64_t d = ((uint64_t)wq[1] << 32) | wq[0];
            /* a ~ k p / w: k < 2w keeps it below 2p, and about half the
             * cases fall in [p, 2p) */
            uint32_t k = 1 + (uint32_t)(test_rand64() % (2 * (uint64_t)w[0] - 1));
            /* a = ceil(k W^n / d): long division of k W^n (words n..n) */
            unsigned __int128 rem = 0;
            uint32_t num[n + 1];
            memset(num, 0, sizeof num);
            num[n] = k;
            uint32_t quo[n + 1];
            for (int i = n; i >= 0; i--) {
                rem = (rem << 32) | num[i];
                quo[i] = (uint32_t)(rem / d);
                rem %= d;
            }
            if (quo[n] != 0) continue;
            memcpy(a, quo, sizeof a);
            if (rem) { /* + 1 */
                int i = 0;
                while (i < n && ++a[i] == 0) i++;
            }
            memcpy(av, a, sizeof a);
            /* a in [p, 2p) is an unreduced input (ff_sub_lazy's): the
             * CPU's operand is then a - p */
            if (!raw_lt(av, mod, nl)) {
                raw_sub(av, mod, nl);
                if (!raw_lt(av, mod, nl)) continue; /* 2p or more */
                above++;
            }
            built++;
        } else {
            memcpy(a, av, sizeof a);
        }
        { /* wq by its definition: 0 <= w W^n - wq p < p */
            uint32_t pl[n], qp[2 * n], d[2 * n];
            memcpy(pl, mod, sizeof pl);
            ff_prod<n>(qp, wq, pl);
            uint64_t b = 0;
            for (int k = 0; k < 2 * n; k++) {
                uint64_t x = (uint64_t)(k >= n ? w[k - n] : 0) - qp[k] - b;
                d[k] = (uint32_t)x;
                b = x >> 63;
            }
            int lt = 0; /* d < p */
            for (int k = 2 * n - 1; k >= 0; k--) {
                uint32_t pk = k < n ? pl[k] : 0;
                if (d[k] != pk) { lt = d[k] < pk; break; }
            }
            bad_q += b != 0 || !lt;
        }
        memcpy(ea.l, av, sizeof ea.l);
        mul(&want, &ea, &ew);
        ff_mul_shoup<F>(z, a, w, wq);
        bad += memcmp(z, want.l, sizeof z) != 0;
        if (memcmp(a, av, sizeof a) == 0) { /* reduced a: a + p too */
            uint32_t ap[n], pl[n];
            uint64_t c = 0;
            memcpy(pl, mod, sizeof pl);
            for (int k = 0; k < n; k++) {
                c += (uint64_t)a[k] + pl[k];
                ap[k] = (uint32_t)c;
                c >>= 32;
            }
            ff_mul_shoup<F>(z, ap, w, wq);
            bad_lazy += memcmp(z, want.l, sizeof z) != 0;
        }
        /* was the estimate short? */
        uint32_t full[2 * n], win[2 * n];
        ff_prod<n>(full, a, wq);
        ff_prod_win<n, n - 1, 2 * n - 1, 0>(win, a, wq, nullptr);
        short_q += memcmp(full + n, win + n, n * sizeof(uint32_t)) != 0;
    }
    CHECK_MSG(bad == 0, "%s mul_shoup: %d of %d differ", name, bad, iters);
    CHECK_MSG(bad_lazy == 0, "%s mul_shoup, a + p: %d of %d differ", name, bad_lazy, iters);
    CHECK_MSG(above > built / 8, "%s mul_shoup: %d of %d built cases above p", name, above,
              built);
    CHECK_MSG(bad_q == 0, "%s shoup_quot: %d of %d wrong", name, bad_q, iters);
    CHECK_MSG(built > iters / 8 && short_q > built / 2,
              "%s mul_shoup: %d short estimates in %d built cases", name, short_q, built);
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
    check_shoup<FfFr, cuzk_fr>("Fr", CUZK_FR_MODULUS, 0x7fffffffffffffffull, 100000, cuzk_fr_mul,
                               cuzk_fr_from_limbs);
    check_shoup<FfFp, cuzk_fp>("Fp", CUZK_FP_MODULUS, 0x1fffffffffffffffull, 40000, cuzk_fp_mul,
                               cuzk_fp_from_limbs);
    return test_done(NAME);
}
