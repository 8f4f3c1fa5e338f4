/* Private to the pairing layer and its tests. */
#ifndef CUZK_PAIRING_INTERNAL_H
#define CUZK_PAIRING_INTERNAL_H

#include <cuzk/ff.h>

/* r = f^((q^12 - 1)/r), the textbook reduced pairing exponent. cuzk_final_exp
 * returns the cube of this (the noble / zkcrypto / blst convention); see
 * pairing.c. */
void cuzk_final_exp_exact(cuzk_fp12 *r, const cuzk_fp12 *f);

#endif /* CUZK_PAIRING_INTERNAL_H */
