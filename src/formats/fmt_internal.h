/* Shared helpers of the format readers and writers (src/formats). */
#ifndef CUZK_FORMATS_INTERNAL_H
#define CUZK_FORMATS_INTERNAL_H

#include <stdarg.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>

#include <cuzk/formats.h>

#include "common/errmsg.h"

/* ------------------------------------------------------------- errors -- */

/* Writes the message to err (if not NULL) and returns s. */
#define fmt_fail(err, s, ...) cuzk_errf((err), (s), "", __VA_ARGS__)

static inline void fmt_clear(char *err)
{
    if (err) err[0] = 0;
}

/* ------------------------------------------------------------- integers -- */

static inline uint32_t rd_u32le(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint64_t rd_u64le(const uint8_t *p)
{
    return (uint64_t)rd_u32le(p) | (uint64_t)rd_u32le(p + 4) << 32;
}

static inline uint32_t rd_u32be(const uint8_t *p)
{
    return (uint32_t)p[3] | (uint32_t)p[2] << 8 | (uint32_t)p[1] << 16 | (uint32_t)p[0] << 24;
}

static inline void wr_u32le(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}

static inline void wr_u64le(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
}

static inline void wr_u32be(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (24 - 8 * i));
}

static inline int is_pow2_u64(uint64_t v) { return v && !(v & (v - 1)); }

static inline unsigned log2_u64(uint64_t v)
{
    unsigned l = 0;
    while (v > 1) v >>= 1, l++;
    return l;
}

/* 1 if the 32-byte little-endian integer le is < r (a canonical Fr). */
static inline int fr_le_is_canonical(const uint8_t *le)
{
    for (int i = CUZK_FR_LIMBS - 1; i >= 0; i--) {
        uint64_t v = rd_u64le(le + 8 * i);
        if (v != CUZK_FR_MODULUS[i]) return v < CUZK_FR_MODULUS[i];
    }
    return 0;
}

/* ------------------------------------------------------------- primes -- */

typedef enum {
    PRIME_OTHER = 0,
    PRIME_BLS_R,   /* BLS12-381 scalar field */
    PRIME_BLS_Q,   /* BLS12-381 base field */
    PRIME_BN_R,    /* BN254 (bn128) scalar field */
    PRIME_BN_Q     /* BN254 base field */
} fmt_prime;

/* Identifies an n-byte little-endian prime. */
fmt_prime fmt_prime_id(const uint8_t *le, uint64_t n);

/* Fails with a message saying which prime was found instead of `want`.
 * what: e.g. "r1cs: prime", "zkey: r". */
cuzk_status fmt_wrong_prime(char *err, const char *what, const uint8_t *le, uint64_t n,
                            fmt_prime want);

/* ---------------------------------------------------------- container -- */

/* cuzk_bin_open with a per-format table of section names (index = type,
 * NULL or short tables allowed) used in messages. */
cuzk_status fmt_bin_open(cuzk_bin *b, const uint8_t *data, size_t size, const char *magic,
                         uint32_t max_version, const char *const *names, size_t n_names,
                         char *err);
cuzk_status fmt_bin_get(const cuzk_bin *b, uint32_t type, int required,
                        const char *const *names, size_t n_names, const uint8_t **payload,
                        uint64_t *size, char *err);
/* "section 5 (A points)" into buf. */
const char *fmt_section_name(char *buf, size_t cap, uint32_t type, const char *const *names,
                             size_t n_names);

/* ------------------------------------------------ coefficient dictionary -- */

typedef struct {
    cuzk_fr *v;       /* distinct values */
    uint32_t n, cap;
    uint32_t *slot;   /* open addressing: index + 1, 0 = empty */
    uint64_t nslot;   /* power of two */
} coeff_dict;

/* Starts a dictionary holding 1 and -1 (slots 0 and 1). */
cuzk_status cd_init(coeff_dict *d);
/* Index of v, inserting it if new. UINT32_MAX when out of memory or full. */
uint32_t cd_intern(coeff_dict *d, const cuzk_fr *v);
/* Moves the value table into m (coeffs, n_coeffs) and frees the rest. */
void cd_finish(coeff_dict *d, cuzk_matrices *m);
void cd_free(coeff_dict *d);

void fmt_sparse_free(cuzk_sparse *s);

/* -------------------------------------------------------------- points -- */

static inline size_t point_size(const cuzk_points *v) { return v->g2 ? 192 : 96; }

/* Checks every point of v; on failure writes
 * "<file>: <what>[i] <problem>" to err. */
cuzk_status fmt_points_check_msg(const cuzk_points *v, int subgroup, const char *file,
                                 const char *what, char *err);

/* Decodes one point of a view (G1 or G2 by v->g2) into *out (a
 * cuzk_g1_affine or cuzk_g2_affine; may be NULL to only check). */
cuzk_status fmt_point_decode(void *out, const cuzk_points *v, uint64_t i, int subgroup);

#endif /* CUZK_FORMATS_INTERNAL_H */
