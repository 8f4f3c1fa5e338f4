/* libFuzzer target: bellperson .params (both identity policies) and .vk.
 * A .vk that parses must re-encode to the same bytes. */
#include <stdlib.h>
#include <string.h>

#include <cuzk/formats.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[CUZK_ERRMSG_LEN];
    cuzk_bp_params p;
    static const unsigned flags[2] = {0, CUZK_FMT_SNARKJS_BELLMAN};
    for (int i = 0; i < 2; i++) {
        cuzk_status s = cuzk_bp_params_parse(&p, data, size, flags[i], err);
        if (s != CUZK_OK && !err[0]) abort();
        cuzk_bp_params_free(&p);
    }
    cuzk_vk vk;
    size_t used;
    if (cuzk_bp_vk_parse(&vk, data, size, &used, err) == CUZK_OK) {
        uint8_t *b = malloc(cuzk_bp_vk_size(&vk));
        if (cuzk_bp_vk_encode(b, &vk, err) != CUZK_OK || cuzk_bp_vk_size(&vk) != used ||
            memcmp(b, data, used))
            abort();
        free(b);
        cuzk_vk_free(&vk);
    } else if (!err[0]) {
        abort();
    }
    return 0;
}
