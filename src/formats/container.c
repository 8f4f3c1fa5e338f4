/* The iden3 binary container (formats.md §6):
 *   magic[4] | u32 version | u32 nSections | nSections x {u32 type, u64 size, payload}
 * all little-endian. Sections may come in any order. */
#include <stdlib.h>

#include "formats/fmt_internal.h"

const char *fmt_section_name(char *buf, size_t cap, uint32_t type, const char *const *names,
                             size_t n_names)
{
    if (names && type < n_names && names[type])
        snprintf(buf, cap, "section %u (%s)", type, names[type]);
    else
        snprintf(buf, cap, "section %u", type);
    return buf;
}

cuzk_status fmt_bin_open(cuzk_bin *b, const uint8_t *data, size_t size, const char *magic,
                         uint32_t max_version, const char *const *names, size_t n_names,
                         char *err)
{
    char sname[64];
    fmt_clear(err);
    if (!b || (!data && size) || !magic || strlen(magic) != 4)
        return fmt_fail(err, CUZK_ERR_INVALID_ARGUMENT, "container: bad argument");
    memset(b, 0, sizeof *b);
    if (size < 4)
        return fmt_fail(err, CUZK_ERR_TRUNCATED, "%s: file is %zu bytes, too short for a header",
                        magic, size);
    if (memcmp(data, magic, 4) != 0) {
        char got[5];
        for (int i = 0; i < 4; i++)
            got[i] = data[i] >= 0x20 && data[i] < 0x7f ? (char)data[i] : '?';
        got[4] = 0;
        return fmt_fail(err, CUZK_ERR_BAD_ENCODING, "%s: wrong magic \"%s\" (not a .%s file)",
                        magic, got, magic);
    }
    if (size < 12)
        return fmt_fail(err, CUZK_ERR_TRUNCATED,
                        "%s: file is %zu bytes, too short for the 12-byte header", magic, size);
    uint32_t version = rd_u32le(data + 4), n = rd_u32le(data + 8);
    if (version == 0 || version > max_version)
        return fmt_fail(err, CUZK_ERR_BAD_ENCODING, "%s: version %u is not supported (1..%u)",
                        magic, version, max_version);
    if ((uint64_t)n > (size - 12) / 12)
        return fmt_fail(err, CUZK_ERR_TRUNCATED,
                        "%s: header announces %u sections; the %zu-byte file cannot hold them",
                        magic, n, size);
    cuzk_bin_section *sec = n ? malloc((size_t)n * sizeof *sec) : NULL;
    if (n && !sec) return fmt_fail(err, CUZK_ERR_NO_MEMORY, "%s: out of memory", magic);
    uint64_t pos = 12;
    for (uint32_t i = 0; i < n; i++) {
        if (size - pos < 12) {
            free(sec);
            return fmt_fail(err, CUZK_ERR_TRUNCATED,
                            "%s: file ends in the header of section entry %u of %u (offset %llu)",
                            magic, i + 1, n, (unsigned long long)pos);
        }
        uint32_t type = rd_u32le(data + pos);
        uint64_t sz = rd_u64le(data + pos + 4);
        pos += 12;
        if (sz > size - pos) {
            free(sec);
            return fmt_fail(err, CUZK_ERR_TRUNCATED,
                            "%s: %s claims %llu bytes at offset %llu; only %llu remain", magic,
                            fmt_section_name(sname, sizeof sname, type, names, n_names),
                            (unsigned long long)sz, (unsigned long long)pos,
                            (unsigned long long)(size - pos));
        }
        sec[i] = (cuzk_bin_section){type, pos, sz};
        pos += sz;
    }
    if (pos != size) {
        free(sec);
        return fmt_fail(err, CUZK_ERR_BAD_ENCODING, "%s: %llu bytes after the last section",
                        magic, (unsigned long long)(size - pos));
    }
    b->data = data;
    b->size = size;
    memcpy(b->magic, magic, 5);
    b->version = version;
    b->n_sections = n;
    b->sections = sec;
    return CUZK_OK;
}

cuzk_status fmt_bin_get(const cuzk_bin *b, uint32_t type, int required,
                        const char *const *names, size_t n_names, const uint8_t **payload,
                        uint64_t *size, char *err)
{
    char sname[64];
    const cuzk_bin_section *found = NULL;
    *payload = NULL;
    *size = 0;
    for (uint32_t i = 0; i < b->n_sections; i++) {
        if (b->sections[i].type != type) continue;
        if (found)
            return fmt_fail(err, CUZK_ERR_BAD_ENCODING, "%s: %s appears more than once",
                            b->magic, fmt_section_name(sname, sizeof sname, type, names, n_names));
        found = &b->sections[i];
    }
    if (!found) {
        if (!required) return CUZK_OK;
        return fmt_fail(err, CUZK_ERR_BAD_ENCODING, "%s: %s is missing", b->magic,
                        fmt_section_name(sname, sizeof sname, type, names, n_names));
    }
    *payload = b->data + found->offset;
    *size = found->size;
    return CUZK_OK;
}

cuzk_status cuzk_bin_open(cuzk_bin *b, const uint8_t *data, size_t size, const char *magic,
                          uint32_t max_version, char *err)
{
    return fmt_bin_open(b, data, size, magic, max_version, NULL, 0, err);
}

cuzk_status cuzk_bin_section_get(const cuzk_bin *b, uint32_t type, int required,
                                 const uint8_t **payload, uint64_t *size, char *err)
{
    fmt_clear(err);
    if (!b || !payload || !size)
        return fmt_fail(err, CUZK_ERR_INVALID_ARGUMENT, "container: NULL argument");
    return fmt_bin_get(b, type, required, NULL, 0, payload, size, err);
}

void cuzk_bin_free(cuzk_bin *b)
{
    if (!b) return;
    free(b->sections);
    memset(b, 0, sizeof *b);
}
