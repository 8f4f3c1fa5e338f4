/* Tests of the gadgets (include/cuzk/gadgets.h).
 *
 * Independent references: FIPS 180-4's SHA-256 examples and OpenSSL's
 * libcrypto for SHA-256; @noble/curves' Poseidon (tests/vectors/poseidon.json,
 * written by tests/vectors/gen.mjs) for the Poseidon constants, permutation
 * and hash. For every gadget, the system recorded on one input is satisfied
 * by the witness-mode witness of other random inputs, and a corrupted
 * witness value is caught. Constraint counts are printed and asserted. */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <openssl/sha.h>

#include <cuzk/gadgets.h>

#include "test_util.h"

/* ------------------------------------------------------------ harness -- */

typedef void (*circuit_fn)(cuzk_cs *cs, const void *in);

static cuzk_fr *dense_witness(const cuzk_cs *cs, size_t *n)
{
    *n = (size_t)cs->n_inputs + cs->n_aux;
    cuzk_fr *w = malloc(*n * sizeof *w);
    if (w && cuzk_cs_witness(cs, w, *n) != CUZK_OK) {
        free(w);
        w = NULL;
    }
    return w;
}

/* Records f on rec_in (checking each constraint as it is made), then for
 * each of wit_in[0..n_wit): runs f in witness mode with the recorded shape
 * (fixed buffers), checks that the witness satisfies the recorded system and,
 * for the first one, that n_corrupt single-value corruptions of random aux
 * wires are each caught. The witness-mode witness of rec_in must equal the
 * recording-mode one. Returns the number of constraints. */
static uint64_t check_circuit(const char *name, circuit_fn f, const void *rec_in,
                              const void *const *wit_in, int n_wit, int n_corrupt)
{
    cuzk_cs rec, wit;
    const char *msg;
    CHECK(cuzk_cs_init(&rec, CUZK_CS_RECORD | CUZK_CS_CHECK, NULL) == CUZK_OK);
    f(&rec, rec_in);
    cuzk_status s = cuzk_cs_status(&rec, &msg);
    CHECK_MSG(s == CUZK_OK, "%s: recording: %s", name, msg);
    cuzk_cs_shape sh;
    cuzk_cs_get_shape(&rec, &sh);
    size_t n_rec;
    cuzk_fr *w_rec = dense_witness(&rec, &n_rec);
    cuzk_r1cs r;
    s = cuzk_cs_take_r1cs(&rec, &r);
    CHECK_MSG(s == CUZK_OK, "%s: take_r1cs: %d", name, s);
    cuzk_cs_free(&rec);
    if (s != CUZK_OK || !w_rec) {
        free(w_rec);
        return 0;
    }
    CHECK(cuzk_cs_init(&wit, CUZK_CS_WITNESS, &sh) == CUZK_OK);
    /* same input in both modes: the same witness */
    f(&wit, rec_in);
    size_t n;
    cuzk_fr *w = dense_witness(&wit, &n);
    int same = w && n == n_rec;
    for (size_t i = 0; same && i < n; i++) same = cuzk_fr_eq(&w[i], &w_rec[i]);
    CHECK_MSG(same, "%s: witness mode and recording mode disagree", name);
    free(w);
    free(w_rec);
    for (int k = 0; k < n_wit; k++) {
        cuzk_cs_reset(&wit);
        f(&wit, wit_in[k]);
        s = cuzk_cs_status(&wit, &msg);
        CHECK_MSG(s == CUZK_OK, "%s: witness %d: %s", name, k, msg);
        w = dense_witness(&wit, &n);
        uint64_t bad = 0;
        CHECK(w != NULL);
        if (!w) continue;
        s = cuzk_r1cs_check(&r, w, n, &bad, NULL);
        CHECK_MSG(s == CUZK_OK, "%s: witness %d fails constraint %llu", name, k,
                  (unsigned long long)bad);
        if (k == 0) {
            uint32_t n_in = r.n_wires - sh.n_aux;
            for (int c = 0; c < n_corrupt && sh.n_aux; c++) {
                size_t j = n_in + test_rand64() % sh.n_aux;
                cuzk_fr keep = w[j];
                /* a bit becomes the other bit; anything else is shifted by 1 */
                if (cuzk_fr_is_zero(&keep)) w[j] = CUZK_FR_ONE;
                else if (cuzk_fr_is_one(&keep)) w[j] = CUZK_FR_ZERO;
                else cuzk_fr_add(&w[j], &keep, &CUZK_FR_ONE);
                s = cuzk_r1cs_check(&r, w, n, &bad, NULL);
                CHECK_MSG(s == CUZK_ERR_UNSATISFIED, "%s: corrupted wire %zu not caught", name, j);
                w[j] = keep;
            }
        }
        free(w);
    }
    cuzk_cs_free(&wit);
    cuzk_r1cs_free(&r);
    return sh.n_constraints;
}

/* Constraints that f adds, in recording mode (for the count table). */
static uint64_t count_of(circuit_fn f, const void *in)
{
    cuzk_cs cs;
    if (cuzk_cs_init(&cs, CUZK_CS_RECORD, NULL) != CUZK_OK) return 0;
    f(&cs, in);
    uint64_t n = cuzk_cs_n_constraints(&cs);
    cuzk_cs_free(&cs);
    return n;
}

static void print_count(const char *what, uint64_t n) { printf("  %-52s %8llu\n", what, (unsigned long long)n); }

static void rand_bytes(uint8_t *b, size_t n)
{
    for (size_t i = 0; i < n; i++) b[i] = (uint8_t)test_rand64();
}

/* Allocated booleans of bytes (big-endian bit order). */
static void alloc_bytes(cuzk_cs *cs, cuzk_bool *bits, const uint8_t *b, size_t n)
{
    for (size_t i = 0; i < 8 * n; i++) bits[i] = cuzk_bool_alloc(cs, (b[i / 8] >> (7 - i % 8)) & 1);
}

/* ------------------------------------------------------------ booleans -- */

/* Operand kinds: 0 const 0, 1 const 1, 2 var = 0, 3 var = 1, 4 NOT var = 0
 * (value 1), 5 NOT var = 1 (value 0). */
static cuzk_bool make_bool(cuzk_cs *cs, int kind)
{
    if (kind < 2) return cuzk_bool_const((unsigned)kind);
    cuzk_bool b = cuzk_bool_alloc(cs, kind & 1);
    return kind >= 4 ? cuzk_bool_not(b) : b;
}

static unsigned truth(int op, unsigned a, unsigned b, unsigned c)
{
    switch (op) {
    case 0: return a ^ b;
    case 1: return a & b;
    case 2: return a | b;
    case 3: return a ? b : c;
    default: return (a & b) | (a & c) | (b & c);
    }
}

static void test_bool_ops(void)
{
    static const char *names[5] = {"xor", "and", "or", "ch", "maj"};
    static const unsigned max_cost[5] = {1, 1, 1, 1, 2};
    int ok_value = 1, ok_cost = 1, ok_fold = 1, ok_sound = 1, ok_status = 1;
    for (int op = 0; op < 5; op++) {
        int arity = op < 3 ? 2 : 3;
        int combos = arity == 2 ? 36 : 216;
        for (int k = 0; k < combos; k++) {
            int ka = k % 6, kb = k / 6 % 6, kc = k / 36;
            cuzk_cs cs;
            cuzk_cs_init(&cs, CUZK_CS_RECORD | CUZK_CS_CHECK, NULL);
            cuzk_bool a = make_bool(&cs, ka), b = make_bool(&cs, kb);
            cuzk_bool c = arity == 3 ? make_bool(&cs, kc) : cuzk_bool_const(0);
            uint64_t n0 = cuzk_cs_n_constraints(&cs);
            uint32_t aux0 = cs.n_aux;
            cuzk_bool r;
            switch (op) {
            case 0: r = cuzk_bool_xor(&cs, a, b); break;
            case 1: r = cuzk_bool_and(&cs, a, b); break;
            case 2: r = cuzk_bool_or(&cs, a, b); break;
            case 3: r = cuzk_bool_ch(&cs, a, b, c); break;
            default: r = cuzk_bool_maj(&cs, a, b, c); break;
            }
            uint64_t cost = cuzk_cs_n_constraints(&cs) - n0;
            ok_value &= r.value == truth(op, a.value, b.value, c.value);
            ok_cost &= cost <= max_cost[op];
            /* a constant result, or (the negation of) an operand, costs nothing */
            int literal = r.kind == CUZK_BOOL_CONST ||
                          (a.kind != CUZK_BOOL_CONST && r.var == a.var && cs.n_aux == aux0) ||
                          (b.kind != CUZK_BOOL_CONST && r.var == b.var && cs.n_aux == aux0) ||
                          (c.kind != CUZK_BOOL_CONST && r.var == c.var && cs.n_aux == aux0);
            ok_fold &= literal ? cost == 0 : cost > 0;
            /* when all operands are constants the result is too */
            if (a.kind == CUZK_BOOL_CONST && b.kind == CUZK_BOOL_CONST && c.kind == CUZK_BOOL_CONST)
                ok_fold &= r.kind == CUZK_BOOL_CONST;
            ok_status &= cuzk_cs_status(&cs, NULL) == CUZK_OK;
            /* soundness: the other value of a fresh result variable is rejected */
            if (cs.n_aux > aux0) {
                cuzk_r1cs sys;
                size_t n;
                cuzk_fr *w = dense_witness(&cs, &n);
                if (cuzk_cs_take_r1cs(&cs, &sys) == CUZK_OK && w) {
                    ok_sound &= cuzk_r1cs_check(&sys, w, n, NULL, NULL) == CUZK_OK;
                    size_t j = n - 1; /* the result is the last variable */
                    w[j] = cuzk_fr_is_one(&w[j]) ? CUZK_FR_ZERO : CUZK_FR_ONE;
                    ok_sound &= cuzk_r1cs_check(&sys, w, n, NULL, NULL) == CUZK_ERR_UNSATISFIED;
                    cuzk_r1cs_free(&sys);
                } else {
                    ok_sound = 0;
                }
                free(w);
            }
            cuzk_cs_free(&cs);
        }
        printf("  bool %-4s: %d operand kinds checked\n", names[op], combos);
    }
    CHECK(ok_value);
    CHECK(ok_cost);
    CHECK(ok_fold);
    CHECK(ok_sound);
    CHECK(ok_status);
}

/* Packing: bits -> number -> bits, as aux and as an input. */
typedef struct {
    uint8_t bytes[32];
    unsigned n;
} pack_in;

static void pack_circuit(cuzk_cs *cs, const void *vin)
{
    const pack_in *in = vin;
    cuzk_bool bits[256], back[256];
    alloc_bytes(cs, bits, in->bytes, 32);
    cuzk_var x = cuzk_bool_pack(cs, bits, in->n);
    cuzk_num_to_bits(cs, back, x, in->n);
    for (unsigned i = 0; i < in->n; i++) cuzk_bool_enforce_equal(cs, bits[i], back[i]);
    cuzk_bool_pack_input(cs, bits + 56, 200); /* bits 254, 255 are used only here */
}

static void test_pack(void)
{
    pack_in a, b, c;
    rand_bytes(a.bytes, 32);
    rand_bytes(b.bytes, 32);
    rand_bytes(c.bytes, 32);
    a.n = b.n = c.n = 254;
    const void *w[2] = {&b, &c};
    uint64_t n = check_circuit("pack", pack_circuit, &a, w, 2, 20);
    CHECK(n == 256 + 1 + 254 + 1 + 254 + 1);
    /* the value of a packed number */
    cuzk_cs cs;
    cuzk_cs_init(&cs, CUZK_CS_WITNESS, NULL);
    cuzk_bool bits[64];
    for (int i = 0; i < 64; i++) bits[i] = cuzk_bool_alloc(&cs, (0xfedcba9876543210ull >> i) & 1);
    cuzk_var x = cuzk_bool_pack(&cs, bits, 64);
    cuzk_fr v, e;
    cuzk_cs_value(&cs, x, &v);
    cuzk_fr_from_u64(&e, 0xfedcba9876543210ull);
    CHECK(cuzk_fr_eq(&v, &e));
    /* a number too big for its bits is an error */
    cuzk_num_to_bits(&cs, bits, x, 63);
    CHECK(cuzk_cs_status(&cs, NULL) == CUZK_ERR_UNSATISFIED);
    cuzk_cs_free(&cs);
}

/* ---------------------------------------------------------- 32-bit words -- */

typedef struct {
    uint32_t w[6];
} u32_in;

static void u32_native(uint32_t out[6], const uint32_t *w)
{
#define ROTR(x, k) ((x) >> (k) | (x) << (32 - (k)))
    out[0] = w[0] ^ ROTR(w[1], 7) ^ (w[2] >> 3);
    out[1] = (w[0] & w[1]) ^ (~w[0] & 0xdeadbeef);
    out[2] = (w[0] & w[1]) ^ (w[0] & w[2]) ^ (w[1] & w[2]);
    out[3] = w[0] + w[1] + 0x12345678u + w[2] + (w[3] ^ 0xffffffffu);
    out[4] = w[4] + 0xfffffff0u;
    out[5] = w[0] + w[1] + w[2] + w[3] + w[4] + w[5] + out[3] + out[0] + 7u;
#undef ROTR
}

static void u32_circuit(cuzk_cs *cs, const void *vin)
{
    const u32_in *in = vin;
    cuzk_u32 a[6], k1, k2, k3, k4, k5, t, r[6];
    for (int i = 0; i < 6; i++) cuzk_u32_alloc(cs, &a[i], in->w[i]);
    cuzk_u32_rotr(&t, &a[1], 7);
    cuzk_u32_xor(cs, &r[0], &a[0], &t);
    cuzk_u32_shr(&t, &a[2], 3);
    cuzk_u32_xor(cs, &r[0], &r[0], &t);
    cuzk_u32_const(&k1, 0xdeadbeef);
    cuzk_u32_ch(cs, &r[1], &a[0], &a[1], &k1);
    cuzk_u32_maj(cs, &r[2], &a[0], &a[1], &a[2]);
    cuzk_u32_const(&k2, 0x12345678);
    cuzk_u32_const(&k3, 0xffffffff);
    cuzk_u32_xor(cs, &t, &a[3], &k3); /* NOT bits: free */
    const cuzk_u32 *o3[4] = {&a[0], &a[1], &k2, &a[2]};
    cuzk_u32 s;
    cuzk_u32_addmany(cs, &s, o3, 4, NULL);
    const cuzk_u32 *o3b[2] = {&s, &t};
    cuzk_u32_addmany(cs, &r[3], o3b, 2, NULL);
    cuzk_u32_const(&k4, 0xfffffff0u);
    const cuzk_u32 *o4[2] = {&a[4], &k4};
    cuzk_u32_addmany(cs, &r[4], o4, 2, NULL);
    cuzk_u32_const(&k5, 7);
    const cuzk_u32 *o5[9] = {&a[0], &a[1], &a[2], &a[3], &a[4], &a[5], &r[3], &r[0], &k5};
    cuzk_multieq meq;
    cuzk_multieq_init(&meq, cs);
    cuzk_u32_addmany(cs, &r[5], o5, 9, &meq);
    cuzk_multieq_finish(&meq);
    /* constant-only sums fold */
    const cuzk_u32 *oc[2] = {&k1, &k2};
    cuzk_u32_addmany(cs, &t, oc, 2, NULL);
    if (t.value != 0xdeadbeefu + 0x12345678u || !cuzk_bool_is_const(t.b[5]))
        cuzk_cs_fail(cs, CUZK_ERR_UNSATISFIED, "constant addmany did not fold");
    uint32_t e[6];
    u32_native(e, in->w);
    for (int i = 0; i < 6; i++) {
        uint32_t v = 0;
        for (int j = 0; j < 32; j++) v |= (uint32_t)r[i].b[j].value << j;
        if (r[i].value != e[i] || v != e[i])
            cuzk_cs_fail(cs, CUZK_ERR_UNSATISFIED, "u32 result %d: %08x, expected %08x", i, v, e[i]);
    }
}

static void test_u32(void)
{
    u32_in in[4];
    for (int k = 0; k < 4; k++)
        for (int i = 0; i < 6; i++) in[k].w[i] = (uint32_t)test_rand64();
    in[3].w[0] = in[3].w[1] = in[3].w[2] = 0xffffffffu; /* carries everywhere */
    const void *w[3] = {&in[1], &in[2], &in[3]};
    uint64_t n = check_circuit("u32", u32_circuit, &in[0], w, 3, 40);
    /* 192 alloc + xor 32 + 29 + ch 32 + maj 64 + addmany (4 ops: 34+1) (2: 33+1)
     * (2 with a constant: 33+1) (9 with MultiEq: 36+1) */
    CHECK(n == 192 + 32 + 29 + 32 + 64 + 35 + 34 + 34 + 37);
}

/* ------------------------------------------------------------- SHA-256 -- */

static void hex_to_bytes(uint8_t *out, const char *hex)
{
    for (size_t i = 0; hex[2 * i]; i++) {
        unsigned v;
        sscanf(hex + 2 * i, "%2x", &v);
        out[i] = (uint8_t)v;
    }
}

typedef struct {
    const uint8_t *msg;
    size_t len;
    uint8_t digest[32]; /* out, for the caller */
} sha_in;

static void sha_circuit(cuzk_cs *cs, const void *vin)
{
    sha_in *in = (sha_in *)vin;
    cuzk_bool *bits = malloc((8 * in->len + 1) * sizeof *bits), d[256];
    if (!bits) {
        cuzk_cs_fail(cs, CUZK_ERR_NO_MEMORY, "test: out of memory");
        return;
    }
    alloc_bytes(cs, bits, in->msg, in->len);
    cuzk_sha256(cs, d, bits, 8 * in->len);
    cuzk_bytes_of_bits(in->digest, d, 32);
    free(bits);
}

/* The digest computed by the gadget in witness mode. */
static void sha_gadget(uint8_t d[32], const uint8_t *msg, size_t len)
{
    cuzk_cs cs;
    sha_in in = {msg, len, {0}};
    cuzk_cs_init(&cs, CUZK_CS_WITNESS, NULL);
    sha_circuit(&cs, &in);
    CHECK(cuzk_cs_status(&cs, NULL) == CUZK_OK);
    memcpy(d, in.digest, 32);
    cuzk_cs_free(&cs);
}

static void compress_const_iv(cuzk_cs *cs, const void *vin)
{
    const uint8_t *blk = vin;
    cuzk_bool bits[512];
    cuzk_u32 st[8];
    alloc_bytes(cs, bits, blk, 64);
    for (int j = 0; j < 8; j++) cuzk_u32_const(&st[j], CUZK_SHA256_IV[j]);
    cuzk_sha256_compress(cs, st, st, bits);
}

static void compress_var_iv(cuzk_cs *cs, const void *vin)
{
    const uint8_t *blk = vin;
    cuzk_bool bits[512];
    cuzk_u32 st[8];
    for (int j = 0; j < 8; j++) cuzk_u32_alloc(cs, &st[j], CUZK_SHA256_IV[j] ^ blk[j]);
    alloc_bytes(cs, bits, blk, 64);
    cuzk_sha256_compress(cs, st, st, bits);
}

static void test_sha256(void)
{
    /* FIPS 180-4 examples (and the empty message) */
    static const struct { const char *msg, *digest; } fips[] = {
        {"abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
        {"", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
        {"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
         "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"},
        {"abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopq"
         "klmnopqrlmnopqrsmnopqrstnopqrstu",
         "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"},
    };
    for (size_t i = 0; i < sizeof fips / sizeof fips[0]; i++) {
        uint8_t want[32], got[32];
        hex_to_bytes(want, fips[i].digest);
        size_t len = strlen(fips[i].msg);
        cuzk_sha256_native(got, (const uint8_t *)fips[i].msg, len);
        CHECK_MSG(!memcmp(got, want, 32), "native SHA-256 FIPS vector %zu", i);
        sha_gadget(got, (const uint8_t *)fips[i].msg, len);
        CHECK_MSG(!memcmp(got, want, 32), "SHA-256 gadget FIPS vector %zu", i);
    }
    /* OpenSSL on random messages: native for lengths 0..300, the gadget for
     * the lengths around the padding boundaries and some random ones */
    uint8_t msg[300], want[32], got[32];
    int ok_native = 1, ok_gadget = 1;
    for (size_t len = 0; len <= 300; len++) {
        rand_bytes(msg, len);
        SHA256(msg, len, want);
        cuzk_sha256_native(got, msg, len);
        ok_native &= !memcmp(got, want, 32);
    }
    static const size_t glen[] = {1, 32, 55, 56, 63, 64, 65, 119, 120, 128, 200};
    for (size_t i = 0; i < sizeof glen / sizeof glen[0]; i++) {
        size_t len = i + 1 < sizeof glen / sizeof glen[0] ? glen[i] : 1 + test_rand64() % 299;
        rand_bytes(msg, len);
        SHA256(msg, len, want);
        sha_gadget(got, msg, len);
        ok_gadget &= !memcmp(got, want, 32);
    }
    CHECK(ok_native);
    CHECK(ok_gadget);

    /* the recorded system and the witness; counts */
    uint8_t b0[64], b1[64], b2[64];
    rand_bytes(b0, 64);
    rand_bytes(b1, 64);
    rand_bytes(b2, 64);
    const void *w[2] = {b1, b2};
    uint64_t n_const = check_circuit("sha256 compress", compress_const_iv, b0, w, 2, 60) - 512;
    uint64_t n_var = check_circuit("sha256 compress, variable state", compress_var_iv, b0, w, 1, 30) -
                     512 - 256;
    sha_in m0 = {b0, 64, {0}}, m1 = {b1, 64, {0}};
    const void *wm[1] = {&m1};
    uint64_t n_64 = check_circuit("sha256 of 64 bytes", sha_circuit, &m0, wm, 1, 30) - 512;
    sha_in e0 = {b0, 0, {0}};
    uint64_t n_empty = count_of(sha_circuit, &e0);
    print_count("SHA-256 compression, constant IV (bellman: 25,840)", n_const);
    print_count("SHA-256 compression, variable state", n_var);
    print_count("SHA-256 of 64 bytes (2 compressions)", n_64);
    print_count("SHA-256 of a constant message", n_empty);
    CHECK(n_const == 25840);
    CHECK(n_var == 26192);
    CHECK(n_64 == 25840 + 19034);
    CHECK(n_empty == 0);
}

/* ------------------------------------------------------------ Poseidon -- */

static json_t *load_vectors(const char *name)
{
    const char *dir = getenv("CUZK_VECTORS");
    if (!dir || !*dir) dir = "tests/vectors";
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    json_error_t err;
    json_t *doc = json_load_file(path, 0, &err);
    CHECK_MSG(doc != NULL, "cannot read %s: %s", path, err.text);
    return doc;
}

static int fr_of_json(cuzk_fr *r, json_t *j)
{
    const char *h = json_string_value(j);
    uint8_t be[32];
    if (!h || strlen(h) != 64) return 0;
    hex_to_bytes(be, h);
    return cuzk_fr_from_be(r, be) == CUZK_OK;
}

typedef struct {
    const cuzk_poseidon *p;
    cuzk_fr x[9];
    cuzk_fr out;    /* hash result, for the caller */
    int permute;    /* 1: whole permutation */
    cuzk_fr outs[9];
} pos_in;

static void poseidon_circuit(cuzk_cs *cs, const void *vin)
{
    pos_in *in = (pos_in *)vin;
    unsigned t = in->p->t;
    cuzk_var v[9], o[9];
    for (unsigned i = 0; i < (in->permute ? t : t - 1); i++) v[i] = cuzk_cs_alloc(cs, &in->x[i]);
    if (in->permute) {
        cuzk_poseidon_permute(cs, in->p, o, v);
        for (unsigned i = 0; i < t; i++) cuzk_cs_value(cs, o[i], &in->outs[i]);
    } else {
        cuzk_var h = cuzk_poseidon_hash(cs, in->p, v);
        cuzk_cs_value(cs, h, &in->out);
    }
}

static void test_poseidon_group(json_t *doc, const char *g, unsigned arity)
{
    const cuzk_poseidon *p = cuzk_poseidon_std(arity);
    CHECK(p != NULL);
    if (!p) return;
    char key[64];
    json_t *par = json_object_get(doc, g);
    CHECK_MSG(par && json_integer_value(json_object_get(par, "t")) == p->t &&
                  json_integer_value(json_object_get(par, "rounds_full")) == p->rounds_full &&
                  json_integer_value(json_object_get(par, "rounds_partial")) == p->rounds_partial &&
                  json_integer_value(json_object_get(par, "alpha")) == 5,
              "poseidon %s: parameters", g);
    unsigned t = p->t, nr = p->rounds_full + p->rounds_partial;
    /* constants from the Grain LFSR = noble's */
    snprintf(key, sizeof key, "%s_round_constants", g);
    json_t *rc = json_object_get(doc, key);
    int ok = json_array_size(rc) == nr;
    for (unsigned r = 0; ok && r < nr; r++)
        for (unsigned j = 0; ok && j < t; j++) {
            cuzk_fr x;
            ok = fr_of_json(&x, json_array_get(json_array_get(rc, r), j)) &&
                 cuzk_fr_eq(&x, &p->rc[r * t + j]);
        }
    CHECK_MSG(ok, "poseidon %s: round constants differ from noble's", g);
    snprintf(key, sizeof key, "%s_mds", g);
    json_t *mds = json_object_get(doc, key);
    ok = json_array_size(mds) == t;
    for (unsigned i = 0; ok && i < t; i++)
        for (unsigned j = 0; ok && j < t; j++) {
            cuzk_fr x;
            ok = fr_of_json(&x, json_array_get(json_array_get(mds, i), j)) &&
                 cuzk_fr_eq(&x, &p->mds[i * t + j]);
        }
    CHECK_MSG(ok, "poseidon %s: MDS matrix differs from noble's", g);

    /* permutations: native and gadget */
    snprintf(key, sizeof key, "%s_permutation", g);
    json_t *perms = json_object_get(doc, key);
    CHECK(json_array_size(perms) >= 4);
    for (size_t k = 0; k < json_array_size(perms); k++) {
        json_t *v = json_array_get(perms, k);
        cuzk_fr s[9], e[9];
        ok = 1;
        for (unsigned i = 0; i < t; i++)
            ok &= fr_of_json(&s[i], json_array_get(json_object_get(v, "in"), i)) &&
                  fr_of_json(&e[i], json_array_get(json_object_get(v, "out"), i));
        CHECK(ok);
        pos_in in = {p, {{{0}}}, {{0}}, 1, {{{0}}}};
        memcpy(in.x, s, t * sizeof *s);
        cuzk_poseidon_permute_native(p, s);
        for (unsigned i = 0; i < t; i++) ok &= cuzk_fr_eq(&s[i], &e[i]);
        CHECK_MSG(ok, "poseidon %s: native permutation, vector %zu", g, k);
        if (k == 3) { /* the gadget, both modes */
            pos_in in2 = in;
            test_rand_fr(&in2.x[0]);
            const void *w[1] = {&in2};
            uint64_t n = check_circuit("poseidon permutation", poseidon_circuit, &in, w, 1, 20);
            CHECK(n == 3 * (t * p->rounds_full + p->rounds_partial) + t);
            cuzk_cs cs;
            cuzk_cs_init(&cs, CUZK_CS_WITNESS, NULL);
            poseidon_circuit(&cs, &in);
            for (unsigned i = 0; i < t; i++) ok &= cuzk_fr_eq(&in.outs[i], &e[i]);
            CHECK_MSG(ok, "poseidon %s: permutation gadget", g);
            cuzk_cs_free(&cs);
        }
    }
    /* hashes: native, gadget, the recorded system */
    snprintf(key, sizeof key, "%s_hash", g);
    json_t *hs = json_object_get(doc, key);
    CHECK(json_array_size(hs) >= 4);
    pos_in first;
    for (size_t k = 0; k < json_array_size(hs); k++) {
        json_t *v = json_array_get(hs, k);
        pos_in in = {p, {{{0}}}, {{0}}, 0, {{{0}}}};
        cuzk_fr e, got;
        ok = fr_of_json(&e, json_object_get(v, "out"));
        for (unsigned i = 0; i + 1 < t; i++)
            ok &= fr_of_json(&in.x[i], json_array_get(json_object_get(v, "in"), i));
        CHECK(ok);
        cuzk_poseidon_hash_native(p, &got, in.x);
        CHECK_MSG(cuzk_fr_eq(&got, &e), "poseidon %s: native hash, vector %zu", g, k);
        cuzk_cs cs;
        cuzk_cs_init(&cs, CUZK_CS_WITNESS, NULL);
        poseidon_circuit(&cs, &in);
        CHECK_MSG(cuzk_fr_eq(&in.out, &e), "poseidon %s: hash gadget, vector %zu", g, k);
        cuzk_cs_free(&cs);
        if (k == 0) first = in;
    }
    pos_in r1 = first, r2 = first;
    for (unsigned i = 0; i + 1 < t; i++) test_rand_fr(&r1.x[i]), test_rand_fr(&r2.x[i]);
    const void *w[2] = {&r1, &r2};
    uint64_t n = check_circuit("poseidon hash", poseidon_circuit, &first, w, 2, 30);
    char what[64];
    snprintf(what, sizeof what, "Poseidon hash, arity %u (t = %u, R_F %u, R_P %u)", arity, t,
             p->rounds_full, p->rounds_partial);
    print_count(what, n);
    CHECK(n == (arity == 2 ? 241u : 403u));
}

static void test_poseidon(void)
{
    json_t *doc = load_vectors("poseidon.json");
    if (!doc) return;
    test_poseidon_group(doc, "t3", 2);
    test_poseidon_group(doc, "t9", 8);
    json_decref(doc);
    CHECK(cuzk_poseidon_std(3) == NULL);
    CHECK(cuzk_poseidon_std(2) == cuzk_poseidon_std(2));
    /* parameter checks, and an instance built by hand equals the standard one */
    cuzk_poseidon q;
    CHECK(cuzk_poseidon_init(&q, 3, 7, 57) == CUZK_ERR_INVALID_ARGUMENT);
    CHECK(cuzk_poseidon_init(&q, 1, 8, 57) == CUZK_ERR_INVALID_ARGUMENT);
    CHECK(cuzk_poseidon_init(&q, 3, 8, 57) == CUZK_OK);
    CHECK(!memcmp(q.rc, cuzk_poseidon_std(2)->rc, 65 * 3 * sizeof(cuzk_fr)));
    cuzk_poseidon_free(&q);
}

/* The plain permutation, written from the definition (gadgets.h): every
 * round adds its constants, applies the S-boxes (all in a full round,
 * element 0 in a partial one) and multiplies by the MDS matrix. */
static void ref_permute(const cuzk_poseidon *p, cuzk_fr *s)
{
    unsigned t = p->t, half = p->rounds_full / 2;
    for (unsigned r = 0; r < p->rounds_full + p->rounds_partial; r++) {
        int full = r < half || r >= half + p->rounds_partial;
        for (unsigned j = 0; j < t; j++) cuzk_fr_add(&s[j], &s[j], &p->rc[r * t + j]);
        for (unsigned j = 0; j < (full ? t : 1); j++) {
            cuzk_fr x;
            cuzk_fr_sqr(&x, &s[j]);
            cuzk_fr_sqr(&x, &x);
            cuzk_fr_mul(&s[j], &x, &s[j]);
        }
        cuzk_fr n[32];
        for (unsigned i = 0; i < t; i++) {
            n[i] = CUZK_FR_ZERO;
            for (unsigned j = 0; j < t; j++) {
                cuzk_fr x;
                cuzk_fr_mul(&x, &p->mds[i * t + j], &s[j]);
                cuzk_fr_add(&n[i], &n[i], &x);
            }
        }
        memcpy(s, n, t * sizeof *s);
    }
}

/* A permutation of t allocated variables: the witness holds the inputs,
 * then x^2, x^4, x^5 of each S-box, then the t outputs. */
static void sparse_gadget(cuzk_cs *cs, const void *vin)
{
    const pos_in *in = vin;
    cuzk_var v[32], o[32];
    for (unsigned i = 0; i < in->p->t; i++) v[i] = cuzk_cs_alloc(cs, &in->x[i]);
    cuzk_poseidon_permute(cs, in->p, o, v);
}

/* The sparse partial rounds (cuzk_poseidon_init) against ref_permute and
 * against the library's plain rounds (a copy without the sparse form), on
 * random and edge states, natively and as the gadget's witness, for the
 * two standard instances and other shapes (t = 2, arity 4 and 11, one
 * partial round, R_F = 2). */
static void test_poseidon_sparse(void)
{
    static const unsigned par[][3] = {{3, 8, 57}, {9, 8, 63}, {2, 8, 56}, {5, 8, 60},
                                      {12, 8, 57}, {3, 2, 1}, {4, 4, 3}};
    for (size_t k = 0; k < sizeof par / sizeof par[0]; k++) {
        unsigned t = par[k][0];
        cuzk_poseidon q;
        CHECK(cuzk_poseidon_init(&q, t, par[k][1], par[k][2]) == CUZK_OK);
        CHECK_MSG(q.pre_rc && q.pre_mds && q.partial_rc && q.sparse, "t %u: no sparse form", t);
        cuzk_poseidon plain = q;
        plain.pre_rc = plain.pre_mds = plain.partial_rc = plain.sparse = NULL;
        plain.tpl_ = NULL;
        int ok_ref = 1, ok_plain = 1, ok_wit = 1;
        for (int n = 0; n < 12; n++) {
            cuzk_fr a[32], b[32], c[32];
            for (unsigned i = 0; i < t; i++) {
                if (n == 0) a[i] = CUZK_FR_ZERO;
                else if (n == 1) cuzk_fr_neg(&a[i], &CUZK_FR_ONE); /* r - 1 */
                else if (n == 2) a[i] = i == 0 ? CUZK_FR_ONE : CUZK_FR_ZERO;
                else test_rand_fr(&a[i]);
            }
            memcpy(b, a, t * sizeof *a);
            memcpy(c, a, t * sizeof *a);
            pos_in gi = {&q, {{{0}}}, {{0}}, 1, {{{0}}}}, gp = gi;
            gp.p = &plain;
            if (t <= 9) { /* pos_in holds 9 elements */
                memcpy(gi.x, a, t * sizeof *a);
                memcpy(gp.x, a, t * sizeof *a);
            }
            cuzk_poseidon_permute_native(&q, a);
            ref_permute(&q, b);
            cuzk_poseidon_permute_native(&plain, c);
            for (unsigned i = 0; i < t; i++) {
                ok_ref &= cuzk_fr_eq(&a[i], &b[i]);
                ok_plain &= cuzk_fr_eq(&c[i], &b[i]);
            }
            if (t > 9 || n > 4) continue;
            /* the gadget's witness, sparse and plain, both modes */
            for (int mode = 0; mode < 2; mode++) {
                cuzk_cs c1 = {0}, c2 = {0};
                unsigned fl = mode ? CUZK_CS_RECORD | CUZK_CS_CHECK : CUZK_CS_WITNESS;
                CHECK(cuzk_cs_init(&c1, fl, NULL) == CUZK_OK);
                CHECK(cuzk_cs_init(&c2, fl, NULL) == CUZK_OK);
                sparse_gadget(&c1, &gi);
                sparse_gadget(&c2, &gp);
                cuzk_witness_view v1, v2;
                cuzk_cs_witness_view(&c1, &v1);
                cuzk_cs_witness_view(&c2, &v2);
                ok_wit &= c1.status == CUZK_OK && c2.status == CUZK_OK &&
                          v1.n_fields == 3 * (t * q.rounds_full + q.rounds_partial) + 2 * t &&
                          v1.n_fields == v2.n_fields &&
                          !memcmp(v1.fields, v2.fields, v1.n_fields * sizeof *v1.fields);
                for (unsigned i = 0; i < t; i++) /* the outputs: the last t */
                    ok_wit &= cuzk_fr_eq(&v1.fields[v1.n_fields - t + i], &b[i]);
                cuzk_cs_free(&c1);
                cuzk_cs_free(&c2);
            }
        }
        CHECK_MSG(ok_ref, "t %u R_F %u R_P %u: sparse permutation != reference", t, par[k][1],
                  par[k][2]);
        CHECK_MSG(ok_plain, "t %u: the plain rounds (no sparse form) != reference", t);
        CHECK_MSG(ok_wit, "t %u: gadget witness, sparse != plain", t);
        cuzk_poseidon_free(&q);
        CHECK(q.sparse == NULL && q.rc == NULL);
    }
}

/* --------------------------------------------------------------- Merkle -- */

#define SHA_DEPTH 3
typedef struct {
    uint8_t leaf[32], sib[32 * SHA_DEPTH], root[32];
    uint64_t index;
} shatree_in;

static void shatree_circuit(cuzk_cs *cs, const void *vin)
{
    shatree_in *in = (shatree_in *)vin;
    cuzk_bool leaf[256], sib[256 * SHA_DEPTH], path[SHA_DEPTH], root[256];
    alloc_bytes(cs, leaf, in->leaf, 32);
    for (int l = 0; l < SHA_DEPTH; l++) path[l] = cuzk_bool_alloc(cs, (in->index >> l) & 1);
    alloc_bytes(cs, sib, in->sib, 32 * SHA_DEPTH);
    cuzk_merkle_sha256(cs, root, leaf, path, sib, SHA_DEPTH);
    cuzk_bytes_of_bits(in->root, root, 32);
}

static void test_merkle_sha256(void)
{
    shatree_in t[3];
    for (int k = 0; k < 3; k++) {
        rand_bytes(t[k].leaf, 32);
        rand_bytes(t[k].sib, sizeof t[k].sib);
        t[k].index = test_rand64() % (1u << SHA_DEPTH);
    }
    /* native = composition of OpenSSL hashes */
    uint8_t nat[32], cur[32], pair[64];
    memcpy(cur, t[0].leaf, 32);
    for (int l = 0; l < SHA_DEPTH; l++) {
        int right = (t[0].index >> l) & 1; /* the node is the right child */
        memcpy(pair + (right ? 32 : 0), cur, 32);
        memcpy(pair + (right ? 0 : 32), t[0].sib + 32 * l, 32);
        SHA256(pair, 64, cur);
    }
    cuzk_merkle_sha256_native(nat, t[0].leaf, t[0].index, t[0].sib, SHA_DEPTH);
    CHECK(!memcmp(nat, cur, 32));
    /* the gadget (witness mode) gives the same root, for every index */
    int ok = 1;
    for (uint64_t idx = 0; idx < (1u << SHA_DEPTH); idx++) {
        shatree_in in = t[1];
        in.index = idx;
        cuzk_cs cs;
        cuzk_cs_init(&cs, CUZK_CS_WITNESS, NULL);
        shatree_circuit(&cs, &in);
        cuzk_merkle_sha256_native(nat, in.leaf, idx, in.sib, SHA_DEPTH);
        ok &= cuzk_cs_status(&cs, NULL) == CUZK_OK && !memcmp(nat, in.root, 32);
        cuzk_cs_free(&cs);
    }
    CHECK(ok);
    const void *w[2] = {&t[1], &t[2]};
    uint64_t n = check_circuit("merkle sha256", shatree_circuit, &t[0], w, 2, 30);
    uint64_t per_level = (n - 256 - SHA_DEPTH - 256 * SHA_DEPTH) / SHA_DEPTH;
    print_count("Merkle SHA-256 level (order pair + 64-byte hash)", per_level);
    CHECK(per_level == 512 + 25840 + 19034);
}

#define POS_DEPTH 3
typedef struct {
    cuzk_fr leaf, sib[7 * POS_DEPTH], root;
    uint64_t index;
} postree_in;

static void postree_circuit(cuzk_cs *cs, const void *vin)
{
    postree_in *in = (postree_in *)vin;
    const cuzk_poseidon *p = cuzk_poseidon_std(8);
    cuzk_var leaf = cuzk_cs_alloc(cs, &in->leaf), sib[7 * POS_DEPTH];
    cuzk_bool path[3 * POS_DEPTH];
    for (int i = 0; i < 3 * POS_DEPTH; i++) path[i] = cuzk_bool_alloc(cs, (in->index >> i) & 1);
    for (int i = 0; i < 7 * POS_DEPTH; i++) sib[i] = cuzk_cs_alloc(cs, &in->sib[i]);
    cuzk_var root = cuzk_merkle_poseidon8(cs, p, leaf, path, sib, POS_DEPTH);
    cuzk_cs_value(cs, root, &in->root);
}

static void test_merkle_poseidon(void)
{
    const cuzk_poseidon *p = cuzk_poseidon_std(8);
    CHECK(p != NULL);
    if (!p) return;
    postree_in t[3];
    for (int k = 0; k < 3; k++) {
        test_rand_fr(&t[k].leaf);
        for (int i = 0; i < 7 * POS_DEPTH; i++) test_rand_fr(&t[k].sib[i]);
        t[k].index = test_rand64() % (1u << (3 * POS_DEPTH));
    }
    /* native = composition of hashes with the node inserted at its position */
    cuzk_fr cur = t[0].leaf, ch[8], nat;
    for (int l = 0; l < POS_DEPTH; l++) {
        unsigned pos = (t[0].index >> (3 * l)) & 7;
        for (unsigned j = 0, s = 0; j < 8; j++) ch[j] = j == pos ? cur : t[0].sib[7 * l + s++];
        cuzk_poseidon_hash_native(p, &cur, ch);
    }
    cuzk_merkle_poseidon8_native(&nat, p, &t[0].leaf, t[0].index, t[0].sib, POS_DEPTH);
    CHECK(cuzk_fr_eq(&nat, &cur));
    /* the gadget: every position at the first level, random above */
    int ok = 1;
    for (unsigned pos = 0; pos < 8; pos++) {
        postree_in in = t[1];
        in.index = (in.index & ~7ull) | pos;
        cuzk_cs cs;
        cuzk_cs_init(&cs, CUZK_CS_WITNESS, NULL);
        postree_circuit(&cs, &in);
        cuzk_merkle_poseidon8_native(&nat, p, &in.leaf, in.index, in.sib, POS_DEPTH);
        ok &= cuzk_cs_status(&cs, NULL) == CUZK_OK && cuzk_fr_eq(&nat, &in.root);
        cuzk_cs_free(&cs);
    }
    CHECK(ok);
    const void *w[2] = {&t[1], &t[2]};
    uint64_t n = check_circuit("merkle poseidon8", postree_circuit, &t[0], w, 2, 60);
    uint64_t per_level = (n - 3 * POS_DEPTH) / POS_DEPTH;
    print_count("Merkle Poseidon arity-8 level (place node + hash)", per_level);
    CHECK(per_level == 18 + 403);
}

int main(void)
{
    test_seed("test_gadgets");
    printf("constraint counts:\n");
    test_bool_ops();
    test_pack();
    test_u32();
    test_sha256();
    test_poseidon();
    test_poseidon_sparse();
    test_merkle_sha256();
    test_merkle_poseidon();
    return test_done("test_gadgets");
}
