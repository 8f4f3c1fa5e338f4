/* libFuzzer target: the snarkjs JSON readers (vk.json, proof.json,
 * public.json) on the same text. What parses must survive write -> read
 * unchanged. */
#include <stdlib.h>
#include <string.h>

#include <cuzk/formats.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[CUZK_ERRMSG_LEN];
    const char *t = (const char *)data;
    char *out;

    cuzk_vk vk, vk2;
    if (cuzk_vk_from_json(&vk, t, size, err) == CUZK_OK) {
        if (cuzk_vk_to_json(&out, &vk, err) != CUZK_OK) abort();
        if (cuzk_vk_from_json(&vk2, out, strlen(out), err) != CUZK_OK || !cuzk_vk_eq(&vk, &vk2))
            abort();
        free(out);
        cuzk_vk_free(&vk2);
        cuzk_vk_free(&vk);
    } else if (!err[0]) {
        abort();
    }

    cuzk_proof p, p2;
    if (cuzk_proof_from_json(&p, t, size, err) == CUZK_OK) {
        if (cuzk_proof_to_json(&out, &p, err) != CUZK_OK) abort();
        if (cuzk_proof_from_json(&p2, out, strlen(out), err) != CUZK_OK ||
            memcmp(&p, &p2, sizeof p))
            abort();
        free(out);
    } else if (!err[0]) {
        abort();
    }

    cuzk_fr *v, *v2;
    size_t n, n2;
    if (cuzk_public_from_json(&v, &n, t, size, err) == CUZK_OK) {
        if (cuzk_public_to_json(&out, v, n, err) != CUZK_OK) abort();
        if (cuzk_public_from_json(&v2, &n2, out, strlen(out), err) != CUZK_OK || n2 != n ||
            (n && memcmp(v, v2, n * sizeof *v)))
            abort();
        free(out);
        free(v);
        free(v2);
    } else if (!err[0]) {
        abort();
    }
    return 0;
}
