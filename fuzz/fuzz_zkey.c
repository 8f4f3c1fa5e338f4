/* libFuzzer target: cuzk_zkey_parse (default flags), then decoding every
 * bulk point of what parses (the parse checked them: decoding must agree). */
#include <stdlib.h>

#include <cuzk/formats.h>

static void decode_all(const cuzk_points *v)
{
    for (uint64_t i = 0; i < v->n; i++) {
        cuzk_g1_affine a;
        cuzk_g2_affine b;
        cuzk_status s = v->g2 ? cuzk_points_decode_g2(&b, v, i, 1, 0, 1, NULL)
                              : cuzk_points_decode_g1(&a, v, i, 1, 0, 1, NULL);
        if (s != CUZK_OK) abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[CUZK_ERRMSG_LEN];
    cuzk_zkey z;
    cuzk_status s = cuzk_zkey_parse(&z, data, size, 0, err);
    if (s != CUZK_OK) {
        if (!err[0]) abort();
        return 0;
    }
    decode_all(&z.a);
    decode_all(&z.b1);
    decode_all(&z.b2);
    decode_all(&z.c);
    decode_all(&z.h);
    /* the CSR arrays are consistent */
    const cuzk_sparse *m[2] = {&z.m.a, &z.m.b};
    for (int k = 0; k < 2; k++) {
        if (m[k]->row_start[0] != 0 || m[k]->row_start[z.m.n_rows] != m[k]->n_terms) abort();
        for (uint64_t t = 0; t < m[k]->n_terms; t++)
            if (m[k]->wire[t] >= z.n_vars || m[k]->coeff[t] >= z.m.n_coeffs) abort();
    }
    cuzk_zkey_free(&z);
    return 0;
}
