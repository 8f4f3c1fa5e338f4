/* libFuzzer target: cuzk_wtns_parse; what parses must survive
 * encode -> parse unchanged. */
#include <stdlib.h>
#include <string.h>

#include <cuzk/formats.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[CUZK_ERRMSG_LEN];
    cuzk_wtns w, w2;
    cuzk_status s = cuzk_wtns_parse(&w, data, size, err);
    if (s != CUZK_OK) {
        if (!err[0]) abort();
        return 0;
    }
    uint8_t *enc;
    size_t len;
    if (cuzk_wtns_encode(&enc, &len, w.w, w.n) != CUZK_OK) abort();
    if (cuzk_wtns_parse(&w2, enc, len, err) != CUZK_OK || w2.n != w.n ||
        (w.n && memcmp(w.w, w2.w, w.n * sizeof *w.w)))
        abort();
    free(enc);
    cuzk_wtns_free(&w2);
    cuzk_wtns_free(&w);
    return 0;
}
