/* The PCE file checksum: XXH64, and a chunked form of it that runs on every
 * core.
 *
 * Why XXH64 and not CRC32C: a PoRep PCE is ~3 GB. A 32-bit check lets one
 * random corruption in 2^32 through and its burst-error guarantees are for
 * short messages; a 64-bit hash makes a miss negligible. XXH64 runs at
 * ~2-3 bytes a cycle per core in portable C (4 independent multiply-rotate
 * lanes), as fast as a hardware CRC32C without needing SSE4.2 or the ARM CRC
 * extension, and the chunked form scales with cores, so checking a 3 GB file
 * on 16 cores costs well under a second. It is not a cryptographic hash: it
 * detects accidents (torn writes, bit rot, truncation), and the reader's
 * structural checks, not the hash, stop hostile files.
 *
 * Specification: https://github.com/Cyan4973/xxHash/blob/dev/doc/xxhash_spec.md
 * (XXH64). Checked against libxxhash in tests/test_pce.c vectors. */
#include <stdlib.h>

#include "common/parallel.h"
#include "r1cs/pce_internal.h"

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

uint64_t pce_xxh64(const void *data, size_t len, uint64_t seed)
{
    const uint8_t *p = data, *end = p + len;
    uint64_t h;
    if (len >= 32) {
        uint64_t v1 = seed + P1 + P2, v2 = seed + P2, v3 = seed, v4 = seed - P1;
        const uint8_t *limit = end - 32;
        do {
            v1 = round64(v1, pce_ld64(p));
            v2 = round64(v2, pce_ld64(p + 8));
            v3 = round64(v3, pce_ld64(p + 16));
            v4 = round64(v4, pce_ld64(p + 24));
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
        h ^= round64(0, pce_ld64(p));
        h = rotl64(h, 27) * P1 + P4;
        p += 8;
    }
    if (end - p >= 4) {
        h ^= (uint64_t)pce_rd32(p) * P1;
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
        size_t off = i * PCE_HASH_CHUNK;
        size_t n = j->len - off < PCE_HASH_CHUNK ? j->len - off : PCE_HASH_CHUNK;
        uint64_t h = pce_xxh64(j->data + off, n, i);
        pce_wr64((uint8_t *)&j->out[i], h);
    }
}

cuzk_status pce_body_hash(uint64_t *out, const uint8_t *data, size_t len, unsigned nthreads)
{
    size_t k = len / PCE_HASH_CHUNK + (len % PCE_HASH_CHUNK != 0);
    uint64_t small[64];
    uint64_t *hs = k <= 64 ? small : malloc(k * sizeof *hs);
    if (!hs) return CUZK_ERR_NO_MEMORY;
    struct chunk_job j = {data, len, hs};
    cuzk_parallel_for(k, 16, nthreads ? nthreads : cuzk_ncores(), chunk_range, &j);
    *out = pce_xxh64(hs, k * sizeof *hs, (uint64_t)len);
    if (hs != small) free(hs);
    return CUZK_OK;
}
