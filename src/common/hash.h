/* The file checksums of cuzk: XXH64, and a chunked form of it that runs on
 * every core. Used by the PCE (src/r1cs/pce_io.c) and the .cuzk key file
 * (src/groth16/keyfile.c): one implementation for both formats.
 *
 * Why XXH64 and not CRC32C: a PoRep PCE is ~3 GB and a key ~75 GB. A 32-bit
 * check lets one random corruption in 2^32 through; a 64-bit hash makes a
 * miss negligible. XXH64 runs at ~2-3 bytes a cycle per core in portable C,
 * and the chunked form scales with cores. It is not a cryptographic hash: it
 * detects accidents (torn writes, bit rot, truncation); the readers'
 * structural checks, not the hash, stop hostile files. */
#ifndef CUZK_COMMON_HASH_H
#define CUZK_COMMON_HASH_H

#include <stddef.h>
#include <stdint.h>

#include <cuzk/status.h>

/* The chunk size of cuzk_body_hash. Part of both file formats: changing it
 * changes every stored body checksum. */
#define CUZK_HASH_CHUNK ((size_t)1 << 20)

/* XXH64 (Collet's xxHash, 64-bit variant), written from its specification
 * (https://github.com/Cyan4973/xxHash/blob/dev/doc/xxhash_spec.md). */
uint64_t cuzk_xxh64(const void *data, size_t len, uint64_t seed);

/* The body checksum: chunk i (CUZK_HASH_CHUNK bytes, the last shorter) gets
 * h_i = xxh64(chunk, seed i); the result is xxh64 of h_0..h_{k-1} as
 * little-endian u64s, seed len. Chunks hash in parallel on up to nthreads
 * threads (0 = every core); the result does not depend on the count. Fails
 * only for lack of memory (8 bytes a chunk). */
cuzk_status cuzk_body_hash(uint64_t *out, const uint8_t *data, size_t len, unsigned nthreads);

#endif /* CUZK_COMMON_HASH_H */
