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

/* Fills buf with n bytes from the OS CSPRNG (getrandom, retried on EINTR
 * and short reads); CUZK_ERR_IO when the OS refuses. (prove.c) */
cuzk_status g16_os_random(void *buf, size_t n);

#endif /* CUZK_GROTH16_INTERNAL_H */
