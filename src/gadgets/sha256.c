/* SHA-256 (FIPS 180-4): the compression function as a circuit, in the
 * structure of bellman's sha256 gadget (the same operations in the same
 * order, MultiEq over the whole compression, the additions into e and a
 * deferred so that each becomes one modular addition of many words), and a
 * native implementation. */
#include <string.h>

#include <cuzk/gadgets.h>

const uint32_t CUZK_SHA256_IV[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                    0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};

static const uint32_t K[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4,
    0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe,
    0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f,
    0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7,
    0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc,
    0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
    0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116,
    0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
    0xc67178f2};

/* -------------------------------------------------------------- circuit -- */

/* x rotr r0 ^ x rotr r1 ^ (x rotr r2, or x shr r2 if shift) */
static void sigma(cuzk_cs *cs, cuzk_u32 *out, const cuzk_u32 *x, unsigned r0, unsigned r1,
                  unsigned r2, int shift)
{
    cuzk_u32 a, b, c;
    cuzk_u32_rotr(&a, x, r0);
    cuzk_u32_rotr(&b, x, r1);
    if (shift) cuzk_u32_shr(&c, x, r2);
    else cuzk_u32_rotr(&c, x, r2);
    cuzk_u32_xor(cs, &a, &a, &b);
    cuzk_u32_xor(cs, out, &a, &c);
}

/* A word that is either known (concrete) or a pending sum of words
 * (bellman's Maybe::Deferred): the new e and a of a round are only summed
 * when used, so that the final additions of the state fold into them. */
typedef struct {
    int deferred;
    cuzk_u32 v;              /* concrete value */
    const cuzk_u32 *ops[8];  /* deferred operands */
    size_t n;
} maybe_u32;

static void maybe_compute(cuzk_cs *cs, cuzk_u32 *out, maybe_u32 *m, const cuzk_u32 *extra,
                          cuzk_multieq *meq)
{
    if (!m->deferred) {
        if (!extra) {
            *out = m->v;
            return;
        }
        const cuzk_u32 *ops[2] = {&m->v, extra};
        cuzk_u32_addmany(cs, out, ops, 2, meq);
        return;
    }
    if (extra) m->ops[m->n++] = extra;
    cuzk_u32_addmany(cs, out, m->ops, m->n, meq);
}

void cuzk_sha256_compress(cuzk_cs *cs, cuzk_u32 out[8], const cuzk_u32 in[8],
                          const cuzk_bool *block)
{
    cuzk_multieq meq;
    cuzk_multieq_init(&meq, cs);
    cuzk_u32 w[64];
    for (int i = 0; i < 16; i++) cuzk_u32_from_bits_be(&w[i], block + 32 * i);
    for (int i = 16; i < 64; i++) {
        cuzk_u32 s0, s1;
        sigma(cs, &s0, &w[i - 15], 7, 18, 3, 1);
        sigma(cs, &s1, &w[i - 2], 17, 19, 10, 1);
        const cuzk_u32 *ops[4] = {&w[i - 16], &s0, &w[i - 7], &s1};
        cuzk_u32_addmany(cs, &w[i], ops, 4, &meq);
    }

    /* Words of the previous rounds stay alive in ring buffers: the state
     * refers to them by pointer. Round i's words live in slot i % 8; the
     * longest-lived, the e of round i, is last read in round i + 4 (as the
     * h in the deferred sums). */
    cuzk_u32 kc[8], s1w[8], chw[8], s0w[8], majw[8], ew[8], aw[8];
    cuzk_u32 hs[8]; /* the input state, copied (out may equal in) */
    memcpy(hs, in, sizeof hs);
    maybe_u32 a = {0, hs[0], {0}, 0}, e = {0, hs[4], {0}, 0};
    const cuzk_u32 *b = &hs[1], *c = &hs[2], *d = &hs[3];
    const cuzk_u32 *f = &hs[5], *g = &hs[6], *h = &hs[7];
    for (int i = 0; i < 64; i++) {
        int s = i % 8;
        maybe_compute(cs, &ew[s], &e, NULL, &meq);
        sigma(cs, &s1w[s], &ew[s], 6, 11, 25, 0);
        cuzk_u32_ch(cs, &chw[s], &ew[s], f, g);
        cuzk_u32_const(&kc[s], K[i]);
        maybe_compute(cs, &aw[s], &a, NULL, &meq);
        sigma(cs, &s0w[s], &aw[s], 2, 13, 22, 0);
        cuzk_u32_maj(cs, &majw[s], &aw[s], b, c);
        /* temp1 = h + S1 + ch + k + w;  e' = d + temp1;  a' = temp1 + S0 + maj */
        const cuzk_u32 *t1[5] = {h, &s1w[s], &chw[s], &kc[s], &w[i]};
        h = g;
        g = f;
        f = &ew[s];
        e.deferred = 1;
        memcpy(e.ops, t1, sizeof t1);
        e.ops[5] = d;
        e.n = 6;
        d = c;
        c = b;
        b = &aw[s];
        a.deferred = 1;
        memcpy(a.ops, t1, sizeof t1);
        a.ops[5] = &s0w[s];
        a.ops[6] = &majw[s];
        a.n = 7;
    }
    cuzk_u32 r[8];
    const cuzk_u32 *rest[8] = {NULL, b, c, d, NULL, f, g, h};
    maybe_compute(cs, &r[0], &a, &hs[0], &meq);
    for (int j = 1; j < 4; j++) {
        const cuzk_u32 *ops[2] = {&hs[j], rest[j]};
        cuzk_u32_addmany(cs, &r[j], ops, 2, &meq);
    }
    maybe_compute(cs, &r[4], &e, &hs[4], &meq);
    for (int j = 5; j < 8; j++) {
        const cuzk_u32 *ops[2] = {&hs[j], rest[j]};
        cuzk_u32_addmany(cs, &r[j], ops, 2, &meq);
    }
    cuzk_multieq_finish(&meq);
    memcpy(out, r, sizeof r);
}

void cuzk_sha256(cuzk_cs *cs, cuzk_bool *digest, const cuzk_bool *msg, size_t n_bits)
{
    cuzk_u32 st[8];
    for (int j = 0; j < 8; j++) cuzk_u32_const(&st[j], CUZK_SHA256_IV[j]);
    /* padded length: n_bits + 1 + zeros + 64, a multiple of 512 */
    size_t total = (n_bits + 1 + 64 + 511) / 512 * 512;
    cuzk_bool block[512];
    for (size_t base = 0; base < total; base += 512) {
        for (size_t i = 0; i < 512; i++) {
            size_t p = base + i;
            if (p < n_bits) block[i] = msg[p];
            else if (p == n_bits) block[i] = cuzk_bool_const(1);
            else if (p >= total - 64) block[i] = cuzk_bool_const((n_bits >> (total - 1 - p)) & 1);
            else block[i] = cuzk_bool_const(0);
        }
        cuzk_sha256_compress(cs, st, st, block);
    }
    for (int j = 0; j < 8; j++) cuzk_u32_to_bits_be(digest + 32 * j, &st[j]);
}

void cuzk_bits_of_bytes(cuzk_bool *bits, const uint8_t *bytes, size_t n_bytes)
{
    for (size_t i = 0; i < 8 * n_bytes; i++)
        bits[i] = cuzk_bool_const((bytes[i / 8] >> (7 - i % 8)) & 1);
}

void cuzk_bytes_of_bits(uint8_t *bytes, const cuzk_bool *bits, size_t n_bytes)
{
    memset(bytes, 0, n_bytes);
    for (size_t i = 0; i < 8 * n_bytes; i++)
        bytes[i / 8] |= (uint8_t)(bits[i].value << (7 - i % 8));
}

/* --------------------------------------------------------------- native -- */

static inline uint32_t rotr(uint32_t x, unsigned k) { return x >> k | x << (32 - k); }

void cuzk_sha256_compress_native(uint32_t state[8], const uint8_t block[64])
{
    uint32_t w[64];
    for (int i = 0; i < 16; i++)
        w[i] = (uint32_t)block[4 * i] << 24 | (uint32_t)block[4 * i + 1] << 16 |
               (uint32_t)block[4 * i + 2] << 8 | block[4 * i + 3];
    for (int i = 16; i < 64; i++) {
        uint32_t s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
        uint32_t s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
        w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    uint32_t a = state[0], b = state[1], c = state[2], d = state[3];
    uint32_t e = state[4], f = state[5], g = state[6], h = state[7];
    for (int i = 0; i < 64; i++) {
        uint32_t t1 = h + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + K[i] + w[i];
        uint32_t t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
        h = g;
        g = f;
        f = e;
        e = d + t1;
        d = c;
        c = b;
        b = a;
        a = t1 + t2;
    }
    state[0] += a;
    state[1] += b;
    state[2] += c;
    state[3] += d;
    state[4] += e;
    state[5] += f;
    state[6] += g;
    state[7] += h;
}

void cuzk_sha256_native(uint8_t digest[32], const uint8_t *msg, size_t len)
{
    uint32_t st[8];
    memcpy(st, CUZK_SHA256_IV, sizeof st);
    size_t full = len / 64;
    for (size_t i = 0; i < full; i++) cuzk_sha256_compress_native(st, msg + 64 * i);
    uint8_t tail[128] = {0};
    size_t rem = len - 64 * full;
    if (rem) memcpy(tail, msg + 64 * full, rem);
    tail[rem] = 0x80;
    size_t tl = rem + 1 + 8 <= 64 ? 64 : 128;
    uint64_t bits = (uint64_t)len * 8;
    for (int i = 0; i < 8; i++) tail[tl - 1 - i] = (uint8_t)(bits >> (8 * i));
    cuzk_sha256_compress_native(st, tail);
    if (tl == 128) cuzk_sha256_compress_native(st, tail + 64);
    for (int j = 0; j < 8; j++) {
        digest[4 * j] = (uint8_t)(st[j] >> 24);
        digest[4 * j + 1] = (uint8_t)(st[j] >> 16);
        digest[4 * j + 2] = (uint8_t)(st[j] >> 8);
        digest[4 * j + 3] = (uint8_t)st[j];
    }
}
