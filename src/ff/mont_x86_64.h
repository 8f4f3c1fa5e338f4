/* x86-64 Montgomery kernels using BMI2 (mulx) and ADX (adcx/adox):
 * declarations and the run-time switch. The code itself is in
 * mont_x86_64_impl.h, compiled once into fp.c.
 *
 * The kernels take the modulus by pointer, like mont_mul, and make the same
 * assumptions: a, b < p, p odd, n0 = -p^-1 mod 2^64, and p < 2^(64n - 2) so
 * that the running sum of the interleaved (CIOS) product never needs an extra
 * limb (true for q < 2^381 and r < 2^255). They do not branch on data and
 * return the fully reduced result; r may alias a or b.
 *
 * cuzk_mont_adx is 0 until a load-time constructor has checked CPUID, and the
 * callers fall back to the portable C code while it is 0. Define CUZK_NO_ASM
 * to compile the C code only. */
#ifndef CUZK_FF_MONT_X86_64_H
#define CUZK_FF_MONT_X86_64_H

#include <stdint.h>

#if !defined(CUZK_NO_ASM) && defined(__x86_64__) && defined(__ELF__) && defined(__GNUC__)
#define CUZK_MONT_ASM 1

#define MONT_HIDDEN __attribute__((visibility("hidden")))

extern MONT_HIDDEN int cuzk_mont_adx;

/* Pointers rather than arrays: at -O0 the calls for the other limb count
 * are not folded away and gcc would warn about the array sizes. */
MONT_HIDDEN void cuzk_mont_mul6_adx(uint64_t *r, const uint64_t *a, const uint64_t *b,
                                    const uint64_t *p, uint64_t n0);
MONT_HIDDEN void cuzk_mont_sqr6_adx(uint64_t *r, const uint64_t *a, const uint64_t *p, uint64_t n0);
MONT_HIDDEN void cuzk_mont_mul4_adx(uint64_t *r, const uint64_t *a, const uint64_t *b,
                                    const uint64_t *p, uint64_t n0);
MONT_HIDDEN void cuzk_mont_sqr4_adx(uint64_t *r, const uint64_t *a, const uint64_t *p, uint64_t n0);
#else
#define CUZK_MONT_ASM 0
#endif

#endif /* CUZK_FF_MONT_X86_64_H */
