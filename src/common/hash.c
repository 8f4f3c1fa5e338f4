/* XXH64 and the chunked body checksum (hash.h says why these). Checked
 * against libxxhash in the tests/test_pce.c vectors. */
#include <stdlib.h>
#include <string.h>

#include "common/hash.h"
#include "common/parallel.h"

/* Little-endian loads and stores (the formats are little-endian; so are
 * the hosts cuzk builds for). */
static inline uint64_t ld64(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}
static inline uint32_t ld32(const uint8_t *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}
static inline void st64(uint8_t *p, uint64_t v) { memcpy(p, &v, 8); }

#define P1 0x9E3779B185EBCA87ull
#define P2 0xC2B2AE3D27D4EB4Full
#define P3 0x165667B19E3779F9ull
#define P4 0x85EBCA77C2B2AE63ull
#define P5 0x27D4EB2F165667C5ull

static inline uint64_t rotl64(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }

static inline uint64_t round64(uint64_t acc, uint64_t in)
{
    acc += in * P2;
    acc = rotl64(acc, 31);
    return acc * P1;
}

static inline uint64_t merge64(uint64_t acc, uint64_t v)
{
    acc ^= round64(0, v);
    return acc * P1 + P4;
}

uint64_t cuzk_xxh64(const void *data, size_t len, uint64_t seed)
{
    const uint8_t *p = data, *end = p + len;
    uint64_t h;
    if (len >= 32) {
        uint64_t v1 = seed + P1 + P2, v2 = seed + P2, v3 = seed, v4 = seed - P1;
        const uint8_t *limit = end - 32;
        do {
            v1 = round64(v1, ld64(p));
            v2 = round64(v2, ld64(p + 8));
            v3 = round64(v3, ld64(p + 16));
            v4 = round64(v4, ld64(p + 24));
            p += 32;
        } while (p <= limit);
        h = rotl64(v1, 1) + rotl64(v2, 7) + rotl64(v3, 12) + rotl64(v4, 18);
        h = merge64(h, v1);
        h = merge64(h, v2);
        h = merge64(h, v3);
        h = merge64(h, v4);
    } else {
        h = seed + P5;
    }
    h += (uint64_t)len;
    while (end - p >= 8) {
        h ^= round64(0, ld64(p));
        h = rotl64(h, 27) * P1 + P4;
        p += 8;
    }
    if (end - p >= 4) {
        h ^= (uint64_t)ld32(p) * P1;
        h = rotl64(h, 23) * P2 + P3;
        p += 4;
    }
    while (p < end) {
        h ^= (uint64_t)*p++ * P5;
        h = rotl64(h, 11) * P1;
    }
    h ^= h >> 33;
    h *= P2;
    h ^= h >> 29;
    h *= P3;
    h ^= h >> 32;
    return h;
}

struct chunk_job {
    const uint8_t *data;
    size_t len;
    uint64_t *out;
};

static void chunk_range(void *ctx, size_t b, size_t e)
{
    struct chunk_job *j = ctx;
    for (size_t i = b; i < e; i++) {
        size_t off = i * CUZK_HASH_CHUNK;
        size_t n = j->len - off < CUZK_HASH_CHUNK ? j->len - off : CUZK_HASH_CHUNK;
        uint64_t h = cuzk_xxh64(j->data + off, n, i);
        st64((uint8_t *)&j->out[i], h);
    }
}

cuzk_status cuzk_body_hash(uint64_t *out, const uint8_t *data, size_t len, unsigned nthreads)
{
    size_t k = len / CUZK_HASH_CHUNK + (len % CUZK_HASH_CHUNK != 0);
    uint64_t small[64];
    uint64_t *hs = k <= 64 ? small : malloc(k * sizeof *hs);
    if (!hs) return CUZK_ERR_NO_MEMORY;
    struct chunk_job j = {data, len, hs};
    cuzk_parallel_for(k, 16, nthreads ? nthreads : cuzk_ncores(), chunk_range, &j);
    *out = cuzk_xxh64(hs, k * sizeof *hs, (uint64_t)len);
    if (hs != small) free(hs);
    return CUZK_OK;
}
