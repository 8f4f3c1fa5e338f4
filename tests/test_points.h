/* Distinct pseudo-random points for MSM tests: P_0 = [a] G, P_i = P_(i-1) +
 * [b] G for fresh random a, b (test_util.h's seeded generator), made in
 * Jacobian form and converted to affine with one inversion. out holds n
 * points (cuzk_g1_affine / cuzk_g2_affine; void * so that tables of
 * generators can hold both). */
#ifndef CUZK_TEST_POINTS_H
#define CUZK_TEST_POINTS_H

#include <stdlib.h>

#include <cuzk/ec.h>

#include "test_util.h"

static inline void test_g1_points(void *out, size_t n)
{
    cuzk_g1_jac *j = (cuzk_g1_jac *)test_xmalloc(n * sizeof *j), base, step;
    cuzk_fp *scratch = (cuzk_fp *)test_xmalloc(n * sizeof *scratch);
    cuzk_fr a, b;
    test_rand_fr(&a);
    test_rand_fr(&b);
    cuzk_g1_from_affine(&base, &CUZK_G1_GENERATOR);
    cuzk_g1_mul(&j[0], &base, &a);
    cuzk_g1_mul(&step, &base, &b);
    for (size_t i = 1; i < n; i++) cuzk_g1_add(&j[i], &j[i - 1], &step);
    cuzk_g1_batch_to_affine((cuzk_g1_affine *)out, j, n, scratch);
    free(j);
    free(scratch);
}

static inline void test_g2_points(void *out, size_t n)
{
    cuzk_g2_jac *j = (cuzk_g2_jac *)test_xmalloc(n * sizeof *j), base, step;
    cuzk_fp2 *scratch = (cuzk_fp2 *)test_xmalloc(n * sizeof *scratch);
    cuzk_fr a, b;
    test_rand_fr(&a);
    test_rand_fr(&b);
    cuzk_g2_from_affine(&base, &CUZK_G2_GENERATOR);
    cuzk_g2_mul(&j[0], &base, &a);
    cuzk_g2_mul(&step, &base, &b);
    for (size_t i = 1; i < n; i++) cuzk_g2_add(&j[i], &j[i - 1], &step);
    cuzk_g2_batch_to_affine((cuzk_g2_affine *)out, j, n, scratch);
    free(j);
    free(scratch);
}

#endif /* CUZK_TEST_POINTS_H */
