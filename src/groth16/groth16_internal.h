/* cuzk — what the Groth16 sources share (internal). */
#ifndef CUZK_GROTH16_INTERNAL_H
#define CUZK_GROTH16_INTERNAL_H

#include <cuzk/formats.h>

/* dst = src with `extra` input rows appended: row n_rows + i is 1 * wire i
 * in A and empty in B and C (formats.md §5.1), the rows every key family
 * adds for its public inputs. An absent matrix stays absent. dst is
 * overwritten (zeroed first); on failure it holds what was allocated and
 * the caller frees it with cuzk_matrices_free. (key.c) */
cuzk_status g16_matrices_with_input_rows(cuzk_matrices *dst, const cuzk_matrices *src,
                                         uint32_t extra);

/* The B density of m over n_vars variables: *b_var (malloc'd, at least one
 * element; the caller frees it) lists in ascending order every wire with a
 * nonzero coefficient in some B row, *n_b of them; the filter of
 * bellperson's b_g1/b_g2 vectors and of cuzk_groth16_pk's B. Wires at or
 * above n_vars are ignored (the callers have checked them). (key.c) */
cuzk_status g16_b_density(uint32_t **b_var, uint32_t *n_b, const cuzk_matrices *m,
                          uint32_t n_vars);

/* Fills buf with n bytes from the OS CSPRNG (getrandom, retried on EINTR
 * and short reads); CUZK_ERR_IO when the OS refuses. (key.c; also the
 * prove layer's blinding scalars) */
cuzk_status g16_os_random(void *buf, size_t n);

#endif /* CUZK_GROTH16_INTERNAL_H */
