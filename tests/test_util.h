/* Minimal test harness: CHECK macros that count failures, and a seeded
 * xoshiro256** generator whose seed is printed so any failure can be replayed
 * with CUZK_SEED=<n>. */
#ifndef CUZK_TEST_UTIL_H
#define CUZK_TEST_UTIL_H

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static int test_failures;
static int test_checks;

#define CHECK(cond)                                                            \
    do {                                                                       \
        test_checks++;                                                         \
        if (!(cond)) {                                                         \
            test_failures++;                                                   \
            if (test_failures <= 20)                                           \
                fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__,         \
                        __LINE__, #cond);                                      \
        }                                                                      \
    } while (0)

#define CHECK_MSG(cond, ...)                                                   \
    do {                                                                       \
        test_checks++;                                                         \
        if (!(cond)) {                                                         \
            test_failures++;                                                   \
            if (test_failures <= 20) {                                         \
                fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__,         \
                        __LINE__, #cond);                                      \
                fprintf(stderr, __VA_ARGS__);                                  \
                fputc('\n', stderr);                                           \
            }                                                                  \
        }                                                                      \
    } while (0)

/* Call at the end of main: prints a summary and gives the exit status.
 * A test that ran no checks fails: it asserted nothing. */
static inline int test_done(const char *name)
{
    if (test_checks == 0) {
        fprintf(stderr, "%s: no checks ran\n", name);
        return 1;
    }
    printf("%s: %d checks, %d failed\n", name, test_checks, test_failures);
    return test_failures ? 1 : 0;
}

static uint64_t test_rng_s[4];

static inline uint64_t test_rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

static inline uint64_t test_rand64(void)
{
    uint64_t *s = test_rng_s;
    uint64_t r = test_rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
    s[2] ^= s[0]; s[3] ^= s[1]; s[1] ^= s[2]; s[0] ^= s[3];
    s[2] ^= t; s[3] = test_rotl(s[3], 45);
    return r;
}

/* Seeds from $CUZK_SEED or the clock, and prints the seed. */
static inline void test_seed(const char *name)
{
    const char *env = getenv("CUZK_SEED");
    uint64_t seed = env ? strtoull(env, NULL, 0)
                        : (uint64_t)time(NULL) ^ ((uint64_t)clock() << 32);
    printf("%s: seed %" PRIu64 " (replay with CUZK_SEED=%" PRIu64 ")\n", name, seed, seed);
    uint64_t z = seed;
    for (int i = 0; i < 4; i++) { /* splitmix64 */
        z += 0x9e3779b97f4a7c15ull;
        uint64_t x = z;
        x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
        x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
        test_rng_s[i] = x ^ (x >> 31);
    }
}

/* malloc that ends the test on failure (tests allocate what they check). */
static inline void *test_xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "out of memory (%zu bytes)\n", n);
        exit(1);
    }
    return p;
}

/* The folder of tests/data: $CUZK_TESTDATA (ctest sets it), else
 * "tests/data" (run from the repository root). */
static inline const char *test_data_dir(void)
{
    const char *d = getenv("CUZK_TESTDATA");
    return d && *d ? d : "tests/data";
}

/* Uniform random field elements by rejection sampling of canonical values. */
#include <cuzk/ff.h>

static inline void test_rand_fp(cuzk_fp *r)
{
    uint64_t v[CUZK_FP_LIMBS];
    do {
        for (int i = 0; i < CUZK_FP_LIMBS; i++) v[i] = test_rand64();
        v[CUZK_FP_LIMBS - 1] &= 0x1fffffffffffffffull; /* q < 2^381 */
    } while (cuzk_fp_from_limbs(r, v) != CUZK_OK);
}

static inline void test_rand_fr(cuzk_fr *r)
{
    uint64_t v[CUZK_FR_LIMBS];
    do {
        for (int i = 0; i < CUZK_FR_LIMBS; i++) v[i] = test_rand64();
        v[CUZK_FR_LIMBS - 1] &= 0x7fffffffffffffffull; /* r < 2^255 */
    } while (cuzk_fr_from_limbs(r, v) != CUZK_OK);
}

static inline void test_rand_fp2(cuzk_fp2 *r) { test_rand_fp(&r->c0); test_rand_fp(&r->c1); }

#endif /* CUZK_TEST_UTIL_H */
