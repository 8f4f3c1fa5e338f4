/* libFuzzer target: cuzk_r1cs_parse, then cuzk_r1cs_check on what parses. */
#include <stdlib.h>

#include <cuzk/formats.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[CUZK_ERRMSG_LEN];
    cuzk_r1cs r;
    cuzk_status s = cuzk_r1cs_parse(&r, data, size, err);
    if (s != CUZK_OK) {
        if (!err[0]) abort(); /* every failure carries a message */
        return 0;
    }
    if (r.n_wires <= (1u << 16)) { /* nWires is not bounded by the file size */
        cuzk_fr *w = malloc((size_t)r.n_wires * sizeof *w);
        for (uint32_t i = 0; i < r.n_wires; i++) cuzk_fr_from_u64(&w[i], i == 0 ? 1 : i + 7);
        uint64_t bad;
        s = cuzk_r1cs_check(&r, w, r.n_wires, &bad, err);
        if (s != CUZK_OK && (s != CUZK_ERR_UNSATISFIED || bad >= r.n_constraints)) abort();
        free(w);
    }
    cuzk_r1cs_free(&r);
    return 0;
}
