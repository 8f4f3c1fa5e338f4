/* Edge cases shared by the GPU MSM tests: test_gpu_msm (C, on a GPU),
 * test_gpu_msm_emu and test_gpu_msm_affine_emu (C++, the device bodies on
 * the host). The scalars of each case are made here; the point sets by each
 * test in its own point type (the E_REPEAT* / E_NEGPAIR / E_*INF cases).
 * Include after test_util.h (test_rand_fr). */
#ifndef CUZK_TESTS_GPU_MSM_CASES_H
#define CUZK_TESTS_GPU_MSM_CASES_H

#include <string.h>

#include <cuzk/ff.h>
#include <cuzk/msm.h>

/* r, little-endian. */
static const uint64_t R_LIMBS[4] = {0xffffffff00000001ull, 0x53bda402fffe5bfeull,
                                    0x3339d80809a1d805ull, 0x73eda753299d7d48ull};

enum {
    E_ZERO, E_ONE, E_RM1, E_MAX, E_SMALL, E_REPEAT_EQ, E_REPEAT, E_NEGPAIR, E_INF, E_ALLINF,
    E_EQ_SCALARS, E_COUNT
};
static const char *const edge_names[E_COUNT] = {
    "all 0", "all 1", "all r-1", "all 2^256-1", "small", "repeated point, equal scalars",
    "repeated point", "P, -P pairs", "some infinity", "all infinity", "equal scalars"};

static inline void rand_scalar(cuzk_scalar *s)
{
    cuzk_fr f;
    test_rand_fr(&f); /* uniform below r; its raw limbs are as good */
    memcpy(s->l, f.l, sizeof s->l);
}

/* k of point i in edge case e: 0, 1, r - 1, 2^256 - 1 (taken mod r), small
 * values (empty buckets), *one (equal scalars: E_REPEAT_EQ, E_EQ_SCALARS),
 * else random. E_NEGPAIR's odd points then copy the scalar before them. */
static inline void edge_scalar(int e, size_t i, const cuzk_scalar *one, cuzk_scalar *k)
{
    rand_scalar(k);
    switch (e) {
    case E_ZERO: memset(k, 0, sizeof *k); break;
    case E_ONE: memset(k, 0, sizeof *k); k->l[0] = 1; break;
    case E_RM1: memcpy(k->l, R_LIMBS, sizeof k->l); k->l[0] -= 1; break;
    case E_MAX: memset(k->l, 0xff, sizeof k->l); break;
    case E_SMALL: memset(k, 0, sizeof *k); k->l[0] = i % 7; break;
    case E_REPEAT_EQ:
    case E_EQ_SCALARS: *k = *one; break;
    default: break;
    }
}

#ifdef __cplusplus
/* The emulation tests' edge case e on n points: p from base (G::aff, G::neg
 * as in their group structs), scalars k. */
template <class G>
static void edge_case(int e, const typename G::aff *base, typename G::aff *p, cuzk_scalar *k,
                      size_t n)
{
    memcpy(p, base, n * sizeof *p);
    cuzk_scalar one_k;
    rand_scalar(&one_k);
    for (size_t i = 0; i < n; i++) {
        edge_scalar(e, i, &one_k, &k[i]);
        switch (e) {
        case E_REPEAT_EQ: p[i] = base[0]; break;
        case E_REPEAT: p[i] = base[i % 3]; break;
        case E_NEGPAIR:
            if (i & 1) {
                G::neg(&p[i], &p[i - 1]);
                k[i] = k[i - 1];
            }
            break;
        case E_INF: if (i % 3 == 1) memset(&p[i], 0, sizeof p[i]); break;
        case E_ALLINF: memset(&p[i], 0, sizeof p[i]); break;
        default: break;
        }
    }
}
#endif

#endif /* CUZK_TESTS_GPU_MSM_CASES_H */
