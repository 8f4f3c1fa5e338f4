/* circom/snarkjs .wtns (formats.md §8):
 *   section 1  u32 n8 = 32, prime[32] (LE) = r, u32 nWitness
 *   section 2  nWitness x 32-byte LE canonical values, by wire index */
#include <stdlib.h>

#include "formats/fmt_internal.h"

static const char *const WTNS_NAMES[] = {NULL, "header", "values"};
#define N_NAMES (sizeof WTNS_NAMES / sizeof WTNS_NAMES[0])

cuzk_status cuzk_wtns_parse(cuzk_wtns *w, const uint8_t *data, size_t size, char *err)
{
    cuzk_bin bin;
    cuzk_status s;
    const uint8_t *p;
    uint64_t n;

    fmt_clear(err);
    if (!w || (!data && size))
        return fmt_fail(err, CUZK_ERR_INVALID_ARGUMENT, "wtns: NULL argument");
    memset(w, 0, sizeof *w);
    if ((s = fmt_bin_open(&bin, data, size, "wtns", 2, WTNS_NAMES, N_NAMES, err)) != CUZK_OK)
        return s;

    if ((s = fmt_bin_get(&bin, 1, 1, WTNS_NAMES, N_NAMES, &p, &n, err)) != CUZK_OK) goto fail;
    if (n < 4) {
        s = fmt_fail(err, CUZK_ERR_TRUNCATED, "wtns: section 1 (header) is %llu bytes, too "
                     "short for the field size", (unsigned long long)n);
        goto fail;
    }
    uint32_t n8 = rd_u32le(p);
    if (n8 > n - 4) {
        s = fmt_fail(err, CUZK_ERR_TRUNCATED, "wtns: section 1 (header) ends inside the "
                     "%u-byte prime", n8);
        goto fail;
    }
    if (n8 != 32 || fmt_prime_id(p + 4, n8) != PRIME_BLS_R) {
        s = fmt_wrong_prime(err, "wtns: prime", p + 4, n8, PRIME_BLS_R);
        goto fail;
    }
    if (n != 4 + 32 + 4) {
        s = fmt_fail(err, n < 40 ? CUZK_ERR_TRUNCATED : CUZK_ERR_BAD_ENCODING,
                     "wtns: section 1 (header) is %llu bytes, expected 40",
                     (unsigned long long)n);
        goto fail;
    }
    uint32_t count = rd_u32le(p + 36);

    if ((s = fmt_bin_get(&bin, 2, 1, WTNS_NAMES, N_NAMES, &p, &n, err)) != CUZK_OK) goto fail;
    uint64_t need = (uint64_t)count * 32;
    if (n != need) {
        if (n < need)
            s = fmt_fail(err, CUZK_ERR_TRUNCATED,
                         "wtns: section 2 (values) is %llu bytes short of %llu (%u values)",
                         (unsigned long long)(need - n), (unsigned long long)need, count);
        else
            s = fmt_fail(err, CUZK_ERR_BAD_ENCODING,
                         "wtns: section 2 (values) is %llu bytes, expected %llu (%u values)",
                         (unsigned long long)n, (unsigned long long)need, count);
        goto fail;
    }
    w->w = malloc((size_t)(count ? count : 1) * sizeof *w->w);
    if (!w->w) {
        s = fmt_fail(err, CUZK_ERR_NO_MEMORY, "wtns: out of memory for %u values", count);
        goto fail;
    }
    for (uint32_t i = 0; i < count; i++) {
        if (cuzk_fr_from_le(&w->w[i], p + 32 * (uint64_t)i) != CUZK_OK) {
            s = fmt_fail(err, CUZK_ERR_NOT_CANONICAL, "wtns: value %u is not canonical (>= r)", i);
            goto fail;
        }
    }
    w->n = count;
    cuzk_bin_free(&bin);
    return CUZK_OK;

fail:
    cuzk_bin_free(&bin);
    cuzk_wtns_free(w);
    return s;
}

void cuzk_wtns_free(cuzk_wtns *w)
{
    if (!w) return;
    free(w->w);
    memset(w, 0, sizeof *w);
}

cuzk_status cuzk_wtns_encode(uint8_t **out, size_t *len, const cuzk_fr *w, size_t n)
{
    if (!out || !len || (!w && n) || n > UINT32_MAX) return CUZK_ERR_INVALID_ARGUMENT;
    *out = NULL;
    *len = 0;
    size_t total = 12 + 12 + 40 + 12 + 32 * n;
    uint8_t *b = malloc(total), *p = b;
    if (!b) return CUZK_ERR_NO_MEMORY;
    memcpy(p, "wtns", 4);
    wr_u32le(p + 4, 2);
    wr_u32le(p + 8, 2);
    p += 12;
    wr_u32le(p, 1);
    wr_u64le(p + 4, 40);
    wr_u32le(p + 12, 32);
    for (int i = 0; i < CUZK_FR_LIMBS; i++) wr_u64le(p + 16 + 8 * i, CUZK_FR_MODULUS[i]);
    wr_u32le(p + 48, (uint32_t)n);
    p += 52;
    wr_u32le(p, 2);
    wr_u64le(p + 4, 32 * (uint64_t)n);
    p += 12;
    for (size_t i = 0; i < n; i++) cuzk_fr_to_le(p + 32 * i, &w[i]);
    *out = b;
    *len = total;
    return CUZK_OK;
}
