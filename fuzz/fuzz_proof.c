/* libFuzzer target: Filecoin proof bytes (size / 192 partitions). What
 * parses must re-encode to exactly the same bytes (the decoder accepts
 * only canonical encodings). */
#include <stdlib.h>
#include <string.h>

#include <cuzk/formats.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[CUZK_ERRMSG_LEN];
    size_t n = size / CUZK_PROOF_BYTES;
    if (n > 64) return 0;
    cuzk_proof p[64];
    cuzk_status s = cuzk_proofs_from_bytes(p, n, data, size, err);
    if (s != CUZK_OK) {
        if (!err[0]) abort();
        return 0;
    }
    uint8_t out[64 * CUZK_PROOF_BYTES];
    if (cuzk_proofs_to_bytes(out, p, n, err) != CUZK_OK || memcmp(out, data, size)) abort();
    return 0;
}
