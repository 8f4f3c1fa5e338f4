/* Known-answer tests: checks the library against vectors computed by an
 * independent implementation, @noble/curves 2.4.0 (tests/vectors/gen.mjs;
 * conventions in tests/vectors/README.md and in each file's "format").
 *
 * Vectors are read from $CUZK_VECTORS (set by ctest), else tests/vectors.
 * A missing or unreadable file, a missing group, a group this test does not
 * know and a malformed vector are all failures. Expected values never pass
 * through the library: they are parsed straight into canonical limbs and
 * compared with cuzk_*_to_limbs of what the library computed.
 *
 * Only the public headers are used. Every failure names the file, the group,
 * the vector index and the expected and computed values.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include <cuzk/ec.h>
#include <cuzk/ff.h>
#include <cuzk/pairing.h>
#include <cuzk/status.h>

#include "test_util.h"

/* ------------------------------------------------------------ context -- */

static const char *g_file = "";   /* current vector file */
static const char *g_group = "";  /* current group */
static size_t g_index;            /* current vector */
static int g_group_checks0, g_group_fail0;

#define VCHECK(cond, fmt, ...)                                                 \
    CHECK_MSG(cond, "%s %s[%zu]: " fmt, g_file, g_group, g_index, ##__VA_ARGS__)

/* A vector we cannot read is a failure, never a skip. */
#define BAD_VECTOR(why) VCHECK(0, "malformed vector: %s", why)

/* ok: the vector has every field the test reads, of the right type; a vector
 * without them fails (never skipped). */
static int fields_ok(int ok)
{
    if (!ok) BAD_VECTOR("a field is missing or of the wrong type");
    return ok;
}

/* Groups of the current file that a test consumed, to catch groups that the
 * generator writes but nothing checks. */
#define MAX_SEEN 64
static const char *g_seen[MAX_SEEN];
static size_t g_nseen;

static void mark_seen(const char *name)
{
    if (g_nseen < MAX_SEEN) g_seen[g_nseen++] = name;
}

/* Returns group `name` of doc (an array, or any value if !array), or NULL
 * after recording a failure. Starts the per-group counters. */
static json_t *group_begin(json_t *doc, const char *name, int array)
{
    g_group = name;
    g_index = 0;
    g_group_checks0 = test_checks;
    g_group_fail0 = test_failures;
    mark_seen(name);
    json_t *j = json_object_get(doc, name);
    if (!j || (array && (!json_is_array(j) || json_array_size(j) == 0))) {
        VCHECK(0, "group missing or empty in %s", g_file);
        return NULL;
    }
    return j;
}

static void group_end(size_t n)
{
    printf("  %-15s %-13s %4zu vectors %6d checks %4d failed\n", g_file, g_group, n,
           test_checks - g_group_checks0, test_failures - g_group_fail0);
}

static json_t *load_file(const char *name)
{
    const char *dir = getenv("CUZK_VECTORS");
    if (!dir || !*dir) dir = "tests/vectors";
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    json_error_t err;
    json_t *doc = json_load_file(path, 0, &err);
    g_file = name;
    g_group = "(file)";
    g_index = 0;
    g_nseen = 0;
    CHECK_MSG(doc != NULL, "cannot read vector file %s: %s (line %d)", path, err.text, err.line);
    if (doc && !json_is_object(doc)) {
        CHECK_MSG(0, "vector file %s: top level is not an object", path);
        json_decref(doc);
        return NULL;
    }
    return doc;
}

/* Every key of the file must have been checked. */
static void finish_file(json_t *doc)
{
    const char *key;
    json_t *val;
    g_group = "(file)";
    g_index = 0;
    json_object_foreach(doc, key, val) {
        (void)val;
        if (!strcmp(key, "format") || !strcmp(key, "source")) continue;
        int seen = 0;
        for (size_t i = 0; i < g_nseen; i++)
            if (!strcmp(g_seen[i], key)) seen = 1;
        VCHECK(seen, "group \"%s\" has no test", key);
    }
    json_decref(doc);
}

/* ---------------------------------------------------------------- hex -- */

static int hexval(int c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* Exactly n bytes from 2n hex digits. */
static int hex_bytes(uint8_t *out, size_t n, const char *h)
{
    if (!h || strlen(h) != 2 * n) return 0;
    for (size_t i = 0; i < n; i++) {
        int a = hexval(h[2 * i]), b = hexval(h[2 * i + 1]);
        if (a < 0 || b < 0) return 0;
        out[i] = (uint8_t)(a << 4 | b);
    }
    return 1;
}

static void bytes_hex(char *out, const uint8_t *in, size_t n)
{
    for (size_t i = 0; i < n; i++) sprintf(out + 2 * i, "%02x", in[i]);
    out[2 * n] = 0;
}

/* Big-endian hex of any length (at least one digit, at most 16*max) into
 * little-endian limbs; *n = number of limbs (at least 1). */
static int hex_limbs_var(uint64_t *v, size_t max, size_t *n, const char *h)
{
    size_t len = h ? strlen(h) : 0;
    if (len == 0 || len > 16 * max) return 0;
    *n = (len + 15) / 16;
    memset(v, 0, *n * sizeof *v);
    for (size_t i = 0; i < len; i++) {
        int d = hexval(h[len - 1 - i]);
        if (d < 0) return 0;
        v[i / 16] |= (uint64_t)d << (4 * (i % 16));
    }
    return 1;
}

/* Exactly 16*n hex digits into n limbs. */
static int hex_limbs(uint64_t *v, size_t n, const char *h)
{
    size_t got;
    if (!h || strlen(h) != 16 * n) return 0;
    return hex_limbs_var(v, n, &got, h) && got == n;
}

static void limbs_hex(char *out, const uint64_t *v, size_t n)
{
    for (size_t i = 0; i < n; i++) sprintf(out + 16 * i, "%016" PRIx64, v[n - 1 - i]);
    out[16 * n] = 0;
}

/* --------------------------------------------------- field elements -- */

enum kind { K_FP, K_FR, K_FP2, K_FP6, K_FP12 };

typedef union {
    cuzk_fp fp;
    cuzk_fr fr;
    cuzk_fp2 fp2;
    cuzk_fp6 fp6;
    cuzk_fp12 fp12;
} elem;

/* An element as canonical limbs: n coefficients in Fp (6 limbs each) in
 * tower order (c0 before c1 at every level), or one Fr value (4 limbs). */
typedef struct {
    size_t n;
    uint64_t l[12][6];
} limbs_t;

static size_t kind_n(enum kind k)
{
    switch (k) {
    case K_FP2: return 2;
    case K_FP6: return 6;
    case K_FP12: return 12;
    default: return 1;
    }
}

static size_t kind_width(enum kind k) { return k == K_FR ? CUZK_FR_LIMBS : CUZK_FP_LIMBS; }

static cuzk_fp2 *fp2_of6(cuzk_fp6 *s, size_t j) { return j == 0 ? &s->c0 : j == 1 ? &s->c1 : &s->c2; }

/* Coefficient i (tower order) of an Fp-based element. */
static cuzk_fp *fp_at(elem *e, enum kind k, size_t i)
{
    switch (k) {
    case K_FP: return &e->fp;
    case K_FP2: return i ? &e->fp2.c1 : &e->fp2.c0;
    case K_FP6: {
        cuzk_fp2 *c = fp2_of6(&e->fp6, i / 2);
        return i % 2 ? &c->c1 : &c->c0;
    }
    case K_FP12: {
        cuzk_fp6 *s = i / 6 ? &e->fp12.c1 : &e->fp12.c0;
        cuzk_fp2 *c = fp2_of6(s, (i % 6) / 2);
        return i % 2 ? &c->c1 : &c->c0;
    }
    default: return NULL;
    }
}

/* JSON shapes: Fp2 [c0,c1], Fp6 [Fp2 x3], Fp12 [Fp6 x2]. */
static int flat_parse(json_t *j, const size_t *shape, size_t depth, limbs_t *out)
{
    if (shape[depth] == 0) {
        if (out->n >= 12 || !json_is_string(j)) return 0;
        return hex_limbs(out->l[out->n++], 6, json_string_value(j));
    }
    if (!json_is_array(j) || json_array_size(j) != shape[depth]) return 0;
    for (size_t i = 0; i < shape[depth]; i++)
        if (!flat_parse(json_array_get(j, i), shape, depth + 1, out)) return 0;
    return 1;
}

static int json_limbs(limbs_t *out, enum kind k, json_t *j)
{
    static const size_t s_fp[] = {0}, s_fp2[] = {2, 0}, s_fp6[] = {3, 2, 0}, s_fp12[] = {2, 3, 2, 0};
    memset(out, 0, sizeof *out);
    switch (k) {
    case K_FR:
        out->n = 1;
        return json_is_string(j) && hex_limbs(out->l[0], 4, json_string_value(j));
    case K_FP: return flat_parse(j, s_fp, 0, out);
    case K_FP2: return flat_parse(j, s_fp2, 0, out) && out->n == 2;
    case K_FP6: return flat_parse(j, s_fp6, 0, out) && out->n == 6;
    case K_FP12: return flat_parse(j, s_fp12, 0, out) && out->n == 12;
    }
    return 0;
}

static void elem_to_limbs(limbs_t *out, enum kind k, const elem *e)
{
    memset(out, 0, sizeof *out);
    out->n = kind_n(k);
    if (k == K_FR) {
        cuzk_fr_to_limbs(out->l[0], &e->fr);
        return;
    }
    for (size_t i = 0; i < out->n; i++) cuzk_fp_to_limbs(out->l[i], fp_at((elem *)e, k, i));
}

static int elem_from_limbs(elem *e, enum kind k, const limbs_t *v)
{
    memset(e, 0, sizeof *e);
    if (k == K_FR) return cuzk_fr_from_limbs(&e->fr, v->l[0]) == CUZK_OK;
    for (size_t i = 0; i < kind_n(k); i++)
        if (cuzk_fp_from_limbs(fp_at(e, k, i), v->l[i]) != CUZK_OK) return 0;
    return 1;
}

/* Parses an input element; a malformed or non-canonical one is a bad vector. */
static int parse_elem(elem *e, enum kind k, json_t *j, const char *what)
{
    limbs_t v;
    if (!json_limbs(&v, k, j) || !elem_from_limbs(e, k, &v)) {
        VCHECK(0, "malformed vector: cannot parse %s", what);
        return 0;
    }
    return 1;
}

static int limbs_equal(const limbs_t *a, const limbs_t *b, enum kind k)
{
    for (size_t i = 0; i < kind_n(k); i++)
        if (memcmp(a->l[i], b->l[i], kind_width(k) * sizeof(uint64_t))) return 0;
    return 1;
}

static int limbs_is_small(const limbs_t *a, enum kind k, uint64_t v)
{
    for (size_t i = 0; i < kind_n(k); i++)
        for (size_t w = 0; w < kind_width(k); w++)
            if (a->l[i][w] != (i == 0 && w == 0 ? v : 0)) return 0;
    return 1;
}

/* Compares a computed element with the expected JSON value; on a mismatch
 * prints the first differing coefficient. Returns 1 if equal. */
static int check_elem(const elem *got, enum kind k, json_t *exp, const char *what)
{
    limbs_t e, g;
    if (!json_limbs(&e, k, exp)) {
        VCHECK(0, "malformed vector: cannot parse expected %s", what);
        return 0;
    }
    elem_to_limbs(&g, k, got);
    size_t w = kind_width(k), i = 0;
    while (i < kind_n(k) && !memcmp(e.l[i], g.l[i], w * sizeof(uint64_t))) i++;
    char he[97] = "", hg[97] = "";
    if (i < kind_n(k)) {
        limbs_hex(he, e.l[i], w);
        limbs_hex(hg, g.l[i], w);
    }
    VCHECK(i == kind_n(k), "%s: coefficient %zu of %zu: expected %s got %s", what, i, kind_n(k),
           he, hg);
    return i == kind_n(k);
}

/* ----------------------------------------------- generic field ops ---- */

typedef void (*binop)(elem *, const elem *, const elem *);
typedef void (*unop)(elem *, const elem *);

#define W2(name, T, fn) \
    static void name(elem *r, const elem *a, const elem *b) { fn(&r->T, &a->T, &b->T); }
#define W1(name, T, fn) \
    static void name(elem *r, const elem *a) { fn(&r->T, &a->T); }

W2(w_fp_add, fp, cuzk_fp_add) W2(w_fp_sub, fp, cuzk_fp_sub) W2(w_fp_mul, fp, cuzk_fp_mul)
W1(w_fp_neg, fp, cuzk_fp_neg) W1(w_fp_dbl, fp, cuzk_fp_dbl) W1(w_fp_sqr, fp, cuzk_fp_sqr)
W1(w_fp_inv, fp, cuzk_fp_inv) W1(w_fp_inv_var, fp, cuzk_fp_inv_var)
W2(w_fr_add, fr, cuzk_fr_add) W2(w_fr_sub, fr, cuzk_fr_sub) W2(w_fr_mul, fr, cuzk_fr_mul)
W1(w_fr_neg, fr, cuzk_fr_neg) W1(w_fr_dbl, fr, cuzk_fr_dbl) W1(w_fr_sqr, fr, cuzk_fr_sqr)
W1(w_fr_inv, fr, cuzk_fr_inv) W1(w_fr_inv_var, fr, cuzk_fr_inv_var)
W2(w_fp2_add, fp2, cuzk_fp2_add) W2(w_fp2_sub, fp2, cuzk_fp2_sub) W2(w_fp2_mul, fp2, cuzk_fp2_mul)
W1(w_fp2_neg, fp2, cuzk_fp2_neg) W1(w_fp2_dbl, fp2, cuzk_fp2_dbl) W1(w_fp2_sqr, fp2, cuzk_fp2_sqr)
W1(w_fp2_conj, fp2, cuzk_fp2_conj) W1(w_fp2_mul_nr, fp2, cuzk_fp2_mul_nr) W1(w_fp2_inv, fp2, cuzk_fp2_inv)
W2(w_fp6_add, fp6, cuzk_fp6_add) W2(w_fp6_sub, fp6, cuzk_fp6_sub) W2(w_fp6_mul, fp6, cuzk_fp6_mul)
W1(w_fp6_neg, fp6, cuzk_fp6_neg) W1(w_fp6_sqr, fp6, cuzk_fp6_sqr) W1(w_fp6_mul_v, fp6, cuzk_fp6_mul_v)
W1(w_fp6_inv, fp6, cuzk_fp6_inv)
W2(w_fp12_add, fp12, cuzk_fp12_add) W2(w_fp12_sub, fp12, cuzk_fp12_sub) W2(w_fp12_mul, fp12, cuzk_fp12_mul)
W1(w_fp12_sqr, fp12, cuzk_fp12_sqr) W1(w_fp12_inv, fp12, cuzk_fp12_inv) W1(w_fp12_conj, fp12, cuzk_fp12_conj)

static int elem_eq(enum kind k, const elem *a, const elem *b)
{
    switch (k) {
    case K_FP: return cuzk_fp_eq(&a->fp, &b->fp);
    case K_FR: return cuzk_fr_eq(&a->fr, &b->fr);
    case K_FP2: return cuzk_fp2_eq(&a->fp2, &b->fp2);
    case K_FP6: return cuzk_fp6_eq(&a->fp6, &b->fp6);
    case K_FP12: return cuzk_fp12_eq(&a->fp12, &b->fp12);
    }
    return 0;
}

/* -1 where the kind has no such predicate. */
static int elem_is_zero(enum kind k, const elem *a)
{
    switch (k) {
    case K_FP: return cuzk_fp_is_zero(&a->fp);
    case K_FR: return cuzk_fr_is_zero(&a->fr);
    case K_FP2: return cuzk_fp2_is_zero(&a->fp2);
    case K_FP6: return cuzk_fp6_is_zero(&a->fp6);
    default: return -1;
    }
}

static int elem_is_one(enum kind k, const elem *a)
{
    switch (k) {
    case K_FP: return cuzk_fp_is_one(&a->fp);
    case K_FR: return cuzk_fr_is_one(&a->fr);
    case K_FP2: return cuzk_fp2_is_one(&a->fp2);
    case K_FP12: return cuzk_fp12_is_one(&a->fp12);
    default: return -1;
    }
}

static void elem_pow(enum kind k, elem *r, const elem *a, const uint64_t *e, size_t n)
{
    switch (k) {
    case K_FP: cuzk_fp_pow(&r->fp, &a->fp, e, n); break;
    case K_FR: cuzk_fr_pow(&r->fr, &a->fr, e, n); break;
    case K_FP2: cuzk_fp2_pow(&r->fp2, &a->fp2, e, n); break;
    case K_FP12: cuzk_fp12_pow(&r->fp12, &a->fp12, e, n); break;
    default: break;
    }
}

static json_t *field(json_t *v, const char *name)
{
    json_t *j = json_object_get(v, name);
    if (!j) VCHECK(0, "malformed vector: no \"%s\"", name);
    return j;
}

/* Predicates checked on every parsed input: eq, is_zero, is_one. */
static void check_predicates(enum kind k, const elem *a, json_t *ja)
{
    limbs_t v;
    if (!json_limbs(&v, k, ja)) return;
    VCHECK(elem_eq(k, a, a) == 1, "eq(a, a) != 1");
    int z = elem_is_zero(k, a), o = elem_is_one(k, a);
    if (z >= 0) VCHECK(z == limbs_is_small(&v, k, 0), "is_zero(a) = %d", z);
    if (o >= 0) VCHECK(o == limbs_is_small(&v, k, 1), "is_one(a) = %d", o);
}

static void run_binary(json_t *doc, enum kind k, const char *name, binop f)
{
    json_t *g = group_begin(doc, name, 1);
    if (!g) return;
    size_t i;
    json_t *v;
    json_array_foreach(g, i, v) {
        g_index = i;
        elem a, b, r, t;
        json_t *ja = field(v, "a"), *jb = field(v, "b"), *jr = field(v, "r");
        if (!fields_ok(ja && jb && jr)) continue;
        if (!parse_elem(&a, k, ja, "a") || !parse_elem(&b, k, jb, "b")) continue;
        f(&r, &a, &b);
        check_elem(&r, k, jr, "r = a op b");
        t = a;
        f(&t, &t, &b);
        check_elem(&t, k, jr, "aliased (r = a)");
        t = b;
        f(&t, &a, &t);
        check_elem(&t, k, jr, "aliased (r = b)");
        limbs_t la, lr;
        json_limbs(&la, k, ja);
        if (json_limbs(&lr, k, jr))
            VCHECK(elem_eq(k, &a, &r) == limbs_equal(&la, &lr, k), "eq(a, r) wrong");
    }
    group_end(json_array_size(g));
}

static void run_unary(json_t *doc, enum kind k, const char *name, unop f, unop f2)
{
    json_t *g = group_begin(doc, name, 1);
    if (!g) return;
    size_t i;
    json_t *v;
    json_array_foreach(g, i, v) {
        g_index = i;
        elem a, r, t;
        json_t *ja = field(v, "a"), *jr = field(v, "r");
        if (!fields_ok(ja && jr)) continue;
        if (!parse_elem(&a, k, ja, "a")) continue;
        check_predicates(k, &a, ja);
        f(&r, &a);
        check_elem(&r, k, jr, "r = op(a)");
        t = a;
        f(&t, &t);
        check_elem(&t, k, jr, "aliased (r = a)");
        if (f2) {
            f2(&r, &a);
            check_elem(&r, k, jr, "r = op(a), second implementation (_var)");
        }
    }
    group_end(json_array_size(g));
}

static void run_pow(json_t *doc, enum kind k)
{
    json_t *g = group_begin(doc, "pow", 1);
    if (!g) return;
    size_t i;
    json_t *v;
    json_array_foreach(g, i, v) {
        g_index = i;
        elem a, r;
        uint64_t e[128];
        size_t n;
        json_t *ja = field(v, "a"), *je = field(v, "e"), *jr = field(v, "r");
        if (!fields_ok(ja && je && jr)) continue;
        if (!parse_elem(&a, k, ja, "a")) continue;
        if (!hex_limbs_var(e, 128, &n, json_string_value(je))) {
            BAD_VECTOR("e");
            continue;
        }
        elem_pow(k, &r, &a, e, n);
        check_elem(&r, k, jr, "r = a^e");
        /* The same exponent with a zero high limb must give the same. */
        e[n] = 0;
        elem_pow(k, &r, &a, e, n + 1);
        check_elem(&r, k, jr, "r = a^e (e with an extra zero limb)");
    }
    group_end(json_array_size(g));
}

/* inv and inv_var as unary ops, then batch_inv over the whole group. */
static void run_inv_batch(json_t *doc, enum kind k)
{
    json_t *g = json_object_get(doc, "inv");
    if (!g || !json_is_array(g)) return; /* already reported by run_unary */
    size_t n = json_array_size(g);
    elem *in = calloc(n, sizeof *in), *out = calloc(n, sizeof *out), *scr = calloc(n, sizeof *scr);
    int ok = in && out && scr;
    CHECK_MSG(ok, "out of memory");
    g_group = "inv(batch)";
    g_group_checks0 = test_checks;
    g_group_fail0 = test_failures;
    for (size_t i = 0; ok && i < n; i++) {
        g_index = i;
        json_t *ja = json_object_get(json_array_get(g, i), "a");
        if (!parse_elem(&in[i], k, ja, "a")) ok = 0;
    }
    if (ok) {
        /* The library's arrays are of its own types: copy in and out. */
        if (k == K_FP) {
            cuzk_fp *a = calloc(n, sizeof *a), *b = calloc(n, sizeof *b), *s = calloc(n, sizeof *s);
            CHECK_MSG(a && b && s, "out of memory");
            if (a && b && s) {
                for (size_t i = 0; i < n; i++) a[i] = in[i].fp;
                cuzk_fp_batch_inv_var(b, a, n, s);
                for (size_t i = 0; i < n; i++) out[i].fp = b[i];
                for (size_t i = 0; i < n; i++) {
                    g_index = i;
                    check_elem(&out[i], k, json_object_get(json_array_get(g, i), "r"), "batch_inv");
                }
                cuzk_fp_batch_inv_var(a, a, n, s); /* in place */
                for (size_t i = 0; i < n; i++) {
                    g_index = i;
                    out[i].fp = a[i];
                    check_elem(&out[i], k, json_object_get(json_array_get(g, i), "r"), "batch_inv in place");
                }
            }
            free(a), free(b), free(s);
        } else {
            cuzk_fr *a = calloc(n, sizeof *a), *b = calloc(n, sizeof *b), *s = calloc(n, sizeof *s);
            CHECK_MSG(a && b && s, "out of memory");
            if (a && b && s) {
                for (size_t i = 0; i < n; i++) a[i] = in[i].fr;
                cuzk_fr_batch_inv_var(b, a, n, s);
                for (size_t i = 0; i < n; i++) out[i].fr = b[i];
                for (size_t i = 0; i < n; i++) {
                    g_index = i;
                    check_elem(&out[i], k, json_object_get(json_array_get(g, i), "r"), "batch_inv");
                }
                cuzk_fr_batch_inv_var(a, a, n, s);
                for (size_t i = 0; i < n; i++) {
                    g_index = i;
                    out[i].fr = a[i];
                    check_elem(&out[i], k, json_object_get(json_array_get(g, i), "r"), "batch_inv in place");
                }
            }
            free(a), free(b), free(s);
        }
    }
    group_end(n);
    free(in), free(out), free(scr);
}

/* sqrt: "none" or a root; either sign of the root is accepted. */
static void run_sqrt(json_t *doc, enum kind k)
{
    json_t *g = group_begin(doc, "sqrt", 1);
    if (!g) return;
    size_t i;
    json_t *v;
    json_array_foreach(g, i, v) {
        g_index = i;
        elem a, r, sq, neg;
        json_t *ja = field(v, "a"), *jr = field(v, "r");
        if (!fields_ok(ja && jr)) continue;
        if (!parse_elem(&a, k, ja, "a")) continue;
        memset(&r, 0, sizeof r);
        int ok = k == K_FP ? cuzk_fp_sqrt(&r.fp, &a.fp)
               : k == K_FR ? cuzk_fr_sqrt_var(&r.fr, &a.fr)
                           : cuzk_fp2_sqrt(&r.fp2, &a.fp2);
        if (json_is_string(jr) && !strcmp(json_string_value(jr), "none")) {
            VCHECK(ok == 0, "sqrt of a non-square returned %d (expected 0)", ok);
            continue;
        }
        VCHECK(ok == 1, "sqrt of a square returned %d (expected 1)", ok);
        if (ok != 1) continue;
        limbs_t le, lg, ln;
        elem e;
        if (!json_limbs(&le, k, jr) || !elem_from_limbs(&e, k, &le)) {
            BAD_VECTOR("r");
            continue;
        }
        if (k == K_FP) cuzk_fp_neg(&neg.fp, &e.fp), cuzk_fp_sqr(&sq.fp, &r.fp);
        else if (k == K_FR) cuzk_fr_neg(&neg.fr, &e.fr), cuzk_fr_sqr(&sq.fr, &r.fr);
        else cuzk_fp2_neg(&neg.fp2, &e.fp2), cuzk_fp2_sqr(&sq.fp2, &r.fp2);
        elem_to_limbs(&lg, k, &r);
        elem_to_limbs(&ln, k, &neg);
        int match = limbs_equal(&lg, &le, k) || limbs_equal(&lg, &ln, k);
        VCHECK(match, "sqrt: the root is neither r nor -r");
        check_elem(&sq, k, ja, "sqrt(a)^2 = a");
    }
    group_end(json_array_size(g));
}

static void run_legendre(json_t *doc, enum kind k)
{
    json_t *g = group_begin(doc, "legendre", 1);
    if (!g) return;
    size_t i;
    json_t *v;
    json_array_foreach(g, i, v) {
        g_index = i;
        elem a;
        json_t *ja = field(v, "a"), *jr = field(v, "r");
        if (!fields_ok(ja && jr && json_is_integer(jr))) continue;
        if (!parse_elem(&a, k, ja, "a")) continue;
        int got = k == K_FP ? cuzk_fp_legendre(&a.fp) : cuzk_fr_legendre(&a.fr);
        VCHECK(got == (int)json_integer_value(jr), "legendre: expected %d got %d",
               (int)json_integer_value(jr), got);
    }
    group_end(json_array_size(g));
}

static void run_lexmax(json_t *doc, enum kind k)
{
    json_t *g = group_begin(doc, "lexmax", 1);
    if (!g) return;
    size_t i;
    json_t *v;
    json_array_foreach(g, i, v) {
        g_index = i;
        elem a;
        json_t *ja = field(v, "a"), *jr = field(v, "r");
        if (!fields_ok(ja && jr && json_is_boolean(jr))) continue;
        if (!parse_elem(&a, k, ja, "a")) continue;
        int got = k == K_FP ? cuzk_fp_is_lexmax(&a.fp) : cuzk_fp2_is_lexmax(&a.fp2);
        VCHECK(got == json_is_true(jr), "is_lexmax: expected %d got %d", json_is_true(jr), got);
    }
    group_end(json_array_size(g));
}

/* Canonical BE/LE and LEM encodings, from_limbs/to_limbs, cmov. */
static void run_encoding(json_t *doc, enum kind k)
{
    const size_t nb = k == K_FP ? CUZK_FP_BYTES : CUZK_FR_BYTES;
    json_t *g = group_begin(doc, "encoding", 1);
    if (!g) return;
    size_t i;
    json_t *v;
    json_array_foreach(g, i, v) {
        g_index = i;
        elem a, r;
        uint8_t be[48], le[48], lem[48], out[48];
        char hex[97];
        json_t *jv = field(v, "v");
        if (!fields_ok(jv != NULL)) continue;
        if (!parse_elem(&a, k, jv, "v")) continue;
        if (!hex_bytes(be, nb, json_string_value(json_object_get(v, "be"))) ||
            !hex_bytes(le, nb, json_string_value(json_object_get(v, "le"))) ||
            !hex_bytes(lem, nb, json_string_value(json_object_get(v, "lem")))) {
            BAD_VECTOR("be/le/lem");
            continue;
        }
        check_predicates(k, &a, jv);
        static const char *names[3] = {"be", "le", "lem"};
        const uint8_t *want[3] = {be, le, lem};
        for (int form = 0; form < 3; form++) {
            if (k == K_FP) {
                if (form == 0) cuzk_fp_to_be(out, &a.fp);
                if (form == 1) cuzk_fp_to_le(out, &a.fp);
                if (form == 2) cuzk_fp_to_lem(out, &a.fp);
            } else {
                if (form == 0) cuzk_fr_to_be(out, &a.fr);
                if (form == 1) cuzk_fr_to_le(out, &a.fr);
                if (form == 2) cuzk_fr_to_lem(out, &a.fr);
            }
            bytes_hex(hex, out, nb);
            VCHECK(!memcmp(out, want[form], nb), "to_%s: expected %s got %s", names[form],
                   json_string_value(json_object_get(v, names[form])), hex);
            cuzk_status st;
            memset(&r, 0, sizeof r);
            if (k == K_FP)
                st = form == 0 ? cuzk_fp_from_be(&r.fp, want[form])
                   : form == 1 ? cuzk_fp_from_le(&r.fp, want[form])
                               : cuzk_fp_from_lem(&r.fp, want[form]);
            else
                st = form == 0 ? cuzk_fr_from_be(&r.fr, want[form])
                   : form == 1 ? cuzk_fr_from_le(&r.fr, want[form])
                               : cuzk_fr_from_lem(&r.fr, want[form]);
            VCHECK(st == CUZK_OK, "from_%s: status %d", names[form], (int)st);
            char what[32];
            snprintf(what, sizeof what, "from_%s", names[form]);
            check_elem(&r, k, jv, what);
        }
        /* cmov */
        elem z;
        memset(&z, 0, sizeof z);
        if (k == K_FP) {
            z.fp = CUZK_FP_ZERO;
            r = z;
            cuzk_fp_cmov(&r.fp, &a.fp, 0);
            VCHECK(cuzk_fp_is_zero(&r.fp), "cmov(flag 0) changed r");
            cuzk_fp_cmov(&r.fp, &a.fp, 1);
        } else {
            z.fr = CUZK_FR_ZERO;
            r = z;
            cuzk_fr_cmov(&r.fr, &a.fr, 0);
            VCHECK(cuzk_fr_is_zero(&r.fr), "cmov(flag 0) changed r");
            cuzk_fr_cmov(&r.fr, &a.fr, 1);
        }
        check_elem(&r, k, jv, "cmov(flag 1)");
    }
    group_end(json_array_size(g));
}

static void run_noncanonical(json_t *doc, enum kind k)
{
    const size_t nb = k == K_FP ? CUZK_FP_BYTES : CUZK_FR_BYTES, nl = kind_width(k);
    json_t *g = group_begin(doc, "noncanonical", 1);
    if (!g) return;
    size_t i;
    json_t *v;
    json_array_foreach(g, i, v) {
        g_index = i;
        uint8_t be[48], le[48];
        uint64_t limbs[6];
        const char *h = json_string_value(json_object_get(v, "v"));
        if (!hex_bytes(be, nb, h) || !hex_limbs(limbs, nl, h)) {
            BAD_VECTOR("v");
            continue;
        }
        for (size_t b = 0; b < nb; b++) le[b] = be[nb - 1 - b];
        elem r, sentinel;
        memset(&sentinel, 0, sizeof sentinel);
        if (k == K_FP) cuzk_fp_from_u64(&sentinel.fp, 12345);
        else cuzk_fr_from_u64(&sentinel.fr, 12345);
        cuzk_status st[4];
        r = sentinel;
        if (k == K_FP) {
            st[0] = cuzk_fp_from_be(&r.fp, be);
            st[1] = cuzk_fp_from_le(&r.fp, le);
            st[2] = cuzk_fp_from_lem(&r.fp, le); /* v itself as the Montgomery value */
            st[3] = cuzk_fp_from_limbs(&r.fp, limbs);
        } else {
            st[0] = cuzk_fr_from_be(&r.fr, be);
            st[1] = cuzk_fr_from_le(&r.fr, le);
            st[2] = cuzk_fr_from_lem(&r.fr, le);
            st[3] = cuzk_fr_from_limbs(&r.fr, limbs);
        }
        static const char *names[4] = {"from_be", "from_le", "from_lem", "from_limbs"};
        for (int f = 0; f < 4; f++)
            VCHECK(st[f] == CUZK_ERR_NOT_CANONICAL, "%s(%s): expected NOT_CANONICAL got status %d",
                   names[f], h, (int)st[f]);
        VCHECK(elem_eq(k, &r, &sentinel), "from_limbs wrote r although it rejected the input");
    }
    group_end(json_array_size(g));
}

static void run_from_u64(json_t *doc, enum kind k)
{
    json_t *g = group_begin(doc, "from_u64", 1);
    if (!g) return;
    size_t i;
    json_t *v;
    json_array_foreach(g, i, v) {
        g_index = i;
        uint64_t u;
        elem r;
        json_t *jr = field(v, "r");
        if (!jr || !hex_limbs(&u, 1, json_string_value(json_object_get(v, "u")))) {
            BAD_VECTOR("u");
            continue;
        }
        if (k == K_FP) cuzk_fp_from_u64(&r.fp, u);
        else cuzk_fr_from_u64(&r.fr, u);
        check_elem(&r, k, jr, "from_u64");
    }
    group_end(json_array_size(g));
}

static void check_modulus(json_t *doc, enum kind k)
{
    json_t *j = group_begin(doc, "modulus", 0);
    if (!j) return;
    uint64_t m[6];
    const uint64_t *lib = k == K_FP ? CUZK_FP_MODULUS : CUZK_FR_MODULUS;
    size_t n = kind_width(k);
    if (!hex_limbs(m, n, json_string_value(j))) {
        BAD_VECTOR("modulus");
    } else {
        char he[97], hg[97];
        limbs_hex(he, m, n);
        limbs_hex(hg, lib, n);
        VCHECK(!memcmp(m, lib, n * sizeof *m), "modulus: expected %s got %s", he, hg);
    }
    group_end(1);
}

static void test_prime_field(const char *file, enum kind k)
{
    json_t *doc = load_file(file);
    if (!doc) return;
    int fp = k == K_FP;
    check_modulus(doc, k);
    run_binary(doc, k, "add", fp ? w_fp_add : w_fr_add);
    run_binary(doc, k, "sub", fp ? w_fp_sub : w_fr_sub);
    run_binary(doc, k, "mul", fp ? w_fp_mul : w_fr_mul);
    run_unary(doc, k, "neg", fp ? w_fp_neg : w_fr_neg, NULL);
    run_unary(doc, k, "dbl", fp ? w_fp_dbl : w_fr_dbl, NULL);
    run_unary(doc, k, "sqr", fp ? w_fp_sqr : w_fr_sqr, NULL);
    run_unary(doc, k, "inv", fp ? w_fp_inv : w_fr_inv, fp ? w_fp_inv_var : w_fr_inv_var);
    run_inv_batch(doc, k);
    run_pow(doc, k);
    run_sqrt(doc, k);
    run_legendre(doc, k);
    run_encoding(doc, k);
    run_noncanonical(doc, k);
    run_from_u64(doc, k);
    if (fp) run_lexmax(doc, k);
    if (!fp) {
        json_t *g = group_begin(doc, "reduce", 1);
        if (g) {
            size_t i;
            json_t *v;
            json_array_foreach(g, i, v) {
                g_index = i;
                uint64_t limbs[4];
                elem r;
                json_t *jr = field(v, "r");
                if (!jr || !hex_limbs(limbs, 4, json_string_value(json_object_get(v, "v")))) {
                    BAD_VECTOR("v");
                    continue;
                }
                cuzk_fr_from_limbs_reduce(&r.fr, limbs);
                check_elem(&r, k, jr, "from_limbs_reduce");
            }
            group_end(json_array_size(g));
        }
    }
    finish_file(doc);
}

/* frobenius {a, r[k] = a^(q^k)} */
static void run_frobenius(json_t *doc, enum kind k)
{
    json_t *g = group_begin(doc, "frobenius", 1);
    if (!g) return;
    size_t i, total = 0;
    json_t *v;
    json_array_foreach(g, i, v) {
        g_index = i;
        elem a, r;
        json_t *ja = field(v, "a"), *jr = field(v, "r");
        if (!fields_ok(ja && jr && json_is_array(jr))) continue;
        if (!parse_elem(&a, k, ja, "a")) continue;
        for (size_t p = 0; p < json_array_size(jr); p++, total++) {
            char what[48];
            snprintf(what, sizeof what, "frobenius power %zu", p);
            if (k == K_FP2) cuzk_fp2_frobenius(&r.fp2, &a.fp2, (unsigned)p);
            if (k == K_FP6) cuzk_fp6_frobenius(&r.fp6, &a.fp6, (unsigned)p);
            if (k == K_FP12) cuzk_fp12_frobenius(&r.fp12, &a.fp12, (unsigned)p);
            check_elem(&r, k, json_array_get(jr, p), what);
            elem t = a;
            if (k == K_FP2) cuzk_fp2_frobenius(&t.fp2, &t.fp2, (unsigned)p);
            if (k == K_FP6) cuzk_fp6_frobenius(&t.fp6, &t.fp6, (unsigned)p);
            if (k == K_FP12) cuzk_fp12_frobenius(&t.fp12, &t.fp12, (unsigned)p);
            strncat(what, " (aliased)", sizeof what - strlen(what) - 1);
            check_elem(&t, k, json_array_get(jr, p), what);
        }
    }
    group_end(total);
}

static void test_fp2(void)
{
    json_t *doc = load_file("fp2.json");
    if (!doc) return;
    const enum kind k = K_FP2;
    run_binary(doc, k, "add", w_fp2_add);
    run_binary(doc, k, "sub", w_fp2_sub);
    run_binary(doc, k, "mul", w_fp2_mul);
    run_unary(doc, k, "neg", w_fp2_neg, NULL);
    run_unary(doc, k, "dbl", w_fp2_dbl, NULL);
    run_unary(doc, k, "sqr", w_fp2_sqr, NULL);
    run_unary(doc, k, "conj", w_fp2_conj, NULL);
    run_unary(doc, k, "mul_nr", w_fp2_mul_nr, NULL);
    run_unary(doc, k, "inv", w_fp2_inv, NULL);
    json_t *g = group_begin(doc, "mul_fp", 1);
    if (g) {
        size_t i;
        json_t *v;
        json_array_foreach(g, i, v) {
            g_index = i;
            elem a, b, r;
            json_t *ja = field(v, "a"), *jb = field(v, "b"), *jr = field(v, "r");
            if (!ja || !jb || !jr || !parse_elem(&a, K_FP2, ja, "a") || !parse_elem(&b, K_FP, jb, "b"))
                continue;
            cuzk_fp2_mul_fp(&r.fp2, &a.fp2, &b.fp);
            check_elem(&r, k, jr, "mul_fp");
            cuzk_fp2_mul_fp(&a.fp2, &a.fp2, &b.fp);
            check_elem(&a, k, jr, "mul_fp (aliased)");
        }
        group_end(json_array_size(g));
    }
    run_pow(doc, k);
    run_sqrt(doc, k);
    run_lexmax(doc, k);
    run_frobenius(doc, k);
    /* constants */
    elem e;
    e.fp2 = CUZK_FP2_ONE;
    g_group = "constants";
    VCHECK(cuzk_fp2_is_one(&e.fp2) && !cuzk_fp2_is_zero(&e.fp2), "CUZK_FP2_ONE");
    e.fp2 = CUZK_FP2_ZERO;
    VCHECK(cuzk_fp2_is_zero(&e.fp2) && !cuzk_fp2_is_one(&e.fp2), "CUZK_FP2_ZERO");
    finish_file(doc);
}

static void test_fp6(void)
{
    json_t *doc = load_file("fp6.json");
    if (!doc) return;
    const enum kind k = K_FP6;
    run_binary(doc, k, "add", w_fp6_add);
    run_binary(doc, k, "sub", w_fp6_sub);
    run_binary(doc, k, "mul", w_fp6_mul);
    run_unary(doc, k, "neg", w_fp6_neg, NULL);
    run_unary(doc, k, "sqr", w_fp6_sqr, NULL);
    run_unary(doc, k, "mul_v", w_fp6_mul_v, NULL);
    run_unary(doc, k, "inv", w_fp6_inv, NULL);
    run_frobenius(doc, k);
    finish_file(doc);
}

static void test_fp12(void)
{
    json_t *doc = load_file("fp12.json");
    if (!doc) return;
    const enum kind k = K_FP12;
    json_t *one = group_begin(doc, "one", 0);
    if (one) {
        elem e;
        e.fp12 = CUZK_FP12_ONE;
        check_elem(&e, k, one, "CUZK_FP12_ONE");
        VCHECK(cuzk_fp12_is_one(&e.fp12), "is_one(CUZK_FP12_ONE) = 0");
        group_end(1);
    }
    run_binary(doc, k, "add", w_fp12_add);
    run_binary(doc, k, "sub", w_fp12_sub);
    run_binary(doc, k, "mul", w_fp12_mul);
    run_unary(doc, k, "sqr", w_fp12_sqr, NULL);
    run_unary(doc, k, "inv", w_fp12_inv, NULL);
    run_unary(doc, k, "conj", w_fp12_conj, NULL);
    run_pow(doc, k);
    run_frobenius(doc, k);
    finish_file(doc);
}

/* ------------------------------------------------------- G1 and G2 -- */

typedef union { cuzk_g1_affine g1; cuzk_g2_affine g2; } aff_t;
typedef union { cuzk_g1_jac g1; cuzk_g2_jac g2; } jac_t;
typedef union { cuzk_g1_xyzz g1; cuzk_g2_xyzz g2; } xyzz_t;

/* One set of entry points per group, so that the tests are written once. */
struct grp {
    const char *name;
    enum kind ck; /* coordinate field */
    size_t comp_len, uncomp_len, lem_len;
    void (*aff_set)(aff_t *, const elem *x, const elem *y);
    void (*aff_get)(const aff_t *, elem *x, elem *y);
    void (*generator)(aff_t *);
    int (*aff_is_inf)(const aff_t *);
    int (*jac_is_inf)(const jac_t *);
    int (*aff_on_curve)(const aff_t *);
    int (*jac_on_curve)(const jac_t *);
    int (*in_subgroup)(const aff_t *);
    int (*aff_eq)(const aff_t *, const aff_t *);
    int (*jac_eq)(const jac_t *, const jac_t *);
    void (*set_inf)(jac_t *);
    void (*from_affine)(jac_t *, const aff_t *);
    void (*to_affine)(aff_t *, const jac_t *);
    void (*batch_to_affine)(aff_t *, const jac_t *, size_t);
    void (*neg)(jac_t *, const jac_t *);
    void (*aff_neg)(aff_t *, const aff_t *);
    void (*dbl)(jac_t *, const jac_t *);
    void (*add)(jac_t *, const jac_t *, const jac_t *);
    void (*add_mixed)(jac_t *, const jac_t *, const aff_t *);
    void (*mul)(jac_t *, const jac_t *, const cuzk_fr *);
    void (*mul_limbs)(jac_t *, const jac_t *, const uint64_t *, size_t);
    void (*x_set_inf)(xyzz_t *);
    void (*x_from_affine)(xyzz_t *, const aff_t *);
    void (*x_to_jac)(jac_t *, const xyzz_t *);
    void (*x_dbl)(xyzz_t *, const xyzz_t *);
    void (*x_add)(xyzz_t *, const xyzz_t *, const xyzz_t *);
    void (*x_add_mixed)(xyzz_t *, const xyzz_t *, const aff_t *);
    /* Re-scales the projective coordinates by a small factor derived from s
     * (same point, Z != 1), using the documented coordinate forms. */
    void (*jac_scale)(jac_t *, uint64_t s);
    void (*xyzz_scale)(xyzz_t *, uint64_t s);
    void (*to_comp)(uint8_t *, const aff_t *);
    void (*to_uncomp)(uint8_t *, const aff_t *);
    void (*to_lem)(uint8_t *, const aff_t *);
    cuzk_status (*from_comp)(aff_t *, const uint8_t *, unsigned);
    cuzk_status (*from_uncomp)(aff_t *, const uint8_t *, unsigned);
    cuzk_status (*from_lem)(aff_t *, const uint8_t *, unsigned);
};

static void small_fp(cuzk_fp *z, uint64_t s) { cuzk_fp_from_u64(z, s); }
static void small_fp2(cuzk_fp2 *z, uint64_t s)
{
    cuzk_fp_from_u64(&z->c0, s);
    cuzk_fp_from_u64(&z->c1, 3 * s + 1);
}

#define GROUP_WRAPPERS(G, F, CT)                                                                   \
    static void G##_aff_set(aff_t *p, const elem *x, const elem *y) { p->G.x = x->F; p->G.y = y->F; } \
    static void G##_aff_get(const aff_t *p, elem *x, elem *y) { x->F = p->G.x; y->F = p->G.y; }    \
    static void G##_generator(aff_t *p) { p->G = CUZK_##CT##_GENERATOR; }                          \
    static int G##_aff_is_inf(const aff_t *p) { return cuzk_##G##_affine_is_inf(&p->G); }          \
    static int G##_jac_is_inf(const jac_t *p) { return cuzk_##G##_jac_is_inf(&p->G); }             \
    static int G##_aff_on_curve(const aff_t *p) { return cuzk_##G##_affine_on_curve(&p->G); }      \
    static int G##_jac_on_curve(const jac_t *p) { return cuzk_##G##_jac_on_curve(&p->G); }         \
    static int G##_in_subgroup(const aff_t *p) { return cuzk_##G##_affine_in_subgroup(&p->G); }    \
    static int G##_aff_eq(const aff_t *a, const aff_t *b) { return cuzk_##G##_affine_eq(&a->G, &b->G); } \
    static int G##_jac_eq(const jac_t *a, const jac_t *b) { return cuzk_##G##_jac_eq(&a->G, &b->G); } \
    static void G##_set_inf(jac_t *r) { cuzk_##G##_jac_set_inf(&r->G); }                           \
    static void G##_from_affine(jac_t *r, const aff_t *p) { cuzk_##G##_from_affine(&r->G, &p->G); } \
    static void G##_to_affine(aff_t *r, const jac_t *p) { cuzk_##G##_to_affine(&r->G, &p->G); }    \
    static void G##_batch_to_affine(aff_t *r, const jac_t *p, size_t n)                            \
    {                                                                                              \
        cuzk_##G##_jac *in = calloc(n ? n : 1, sizeof *in);                                        \
        cuzk_##G##_affine *out = calloc(n ? n : 1, sizeof *out);                                   \
        cuzk_##F *scratch = calloc(n ? n : 1, sizeof *scratch);                                    \
        CHECK_MSG(in && out && scratch, "out of memory");                                          \
        if (in && out && scratch) {                                                                \
            for (size_t i = 0; i < n; i++) in[i] = p[i].G;                                         \
            cuzk_##G##_batch_to_affine(out, in, n, scratch);                                       \
            for (size_t i = 0; i < n; i++) r[i].G = out[i];                                        \
        }                                                                                          \
        free(in), free(out), free(scratch);                                                        \
    }                                                                                              \
    static void G##_neg(jac_t *r, const jac_t *p) { cuzk_##G##_neg(&r->G, &p->G); }                \
    static void G##_aff_neg(aff_t *r, const aff_t *p) { cuzk_##G##_affine_neg(&r->G, &p->G); }     \
    static void G##_dbl(jac_t *r, const jac_t *p) { cuzk_##G##_dbl(&r->G, &p->G); }                \
    static void G##_add(jac_t *r, const jac_t *p, const jac_t *q) { cuzk_##G##_add(&r->G, &p->G, &q->G); } \
    static void G##_add_mixed(jac_t *r, const jac_t *p, const aff_t *q)                            \
    { cuzk_##G##_add_mixed(&r->G, &p->G, &q->G); }                                                 \
    static void G##_mul(jac_t *r, const jac_t *p, const cuzk_fr *k) { cuzk_##G##_mul(&r->G, &p->G, k); } \
    static void G##_mul_limbs(jac_t *r, const jac_t *p, const uint64_t *k, size_t n)               \
    { cuzk_##G##_mul_limbs(&r->G, &p->G, k, n); }                                                  \
    static void G##_x_set_inf(xyzz_t *r) { cuzk_##G##_xyzz_set_inf(&r->G); }                       \
    static void G##_x_from_affine(xyzz_t *r, const aff_t *p) { cuzk_##G##_xyzz_from_affine(&r->G, &p->G); } \
    static void G##_x_to_jac(jac_t *r, const xyzz_t *p) { cuzk_##G##_xyzz_to_jac(&r->G, &p->G); }  \
    static void G##_x_dbl(xyzz_t *r, const xyzz_t *p) { cuzk_##G##_xyzz_dbl(&r->G, &p->G); }       \
    static void G##_x_add(xyzz_t *r, const xyzz_t *p, const xyzz_t *q)                             \
    { cuzk_##G##_xyzz_add(&r->G, &p->G, &q->G); }                                                  \
    static void G##_x_add_mixed(xyzz_t *r, const xyzz_t *p, const aff_t *q)                        \
    { cuzk_##G##_xyzz_add_mixed(&r->G, &p->G, &q->G); }                                            \
    static void G##_jac_scale(jac_t *p, uint64_t s)                                                \
    {                                                                                              \
        cuzk_##F z, z2, z3;                                                                        \
        small_##F(&z, s);                                                                          \
        cuzk_##F##_sqr(&z2, &z);                                                                   \
        cuzk_##F##_mul(&z3, &z2, &z);                                                              \
        cuzk_##F##_mul(&p->G.x, &p->G.x, &z2);                                                     \
        cuzk_##F##_mul(&p->G.y, &p->G.y, &z3);                                                     \
        cuzk_##F##_mul(&p->G.z, &p->G.z, &z);                                                      \
    }                                                                                              \
    static void G##_xyzz_scale(xyzz_t *p, uint64_t s)                                              \
    {                                                                                              \
        cuzk_##F z, z2, z3;                                                                        \
        small_##F(&z, s);                                                                          \
        cuzk_##F##_sqr(&z2, &z);                                                                   \
        cuzk_##F##_mul(&z3, &z2, &z);                                                              \
        cuzk_##F##_mul(&p->G.x, &p->G.x, &z2);                                                     \
        cuzk_##F##_mul(&p->G.y, &p->G.y, &z3);                                                     \
        cuzk_##F##_mul(&p->G.zz, &p->G.zz, &z2);                                                   \
        cuzk_##F##_mul(&p->G.zzz, &p->G.zzz, &z3);                                                 \
    }                                                                                              \
    static void G##_to_comp(uint8_t *o, const aff_t *p) { cuzk_##G##_to_compressed(o, &p->G); }    \
    static void G##_to_uncomp(uint8_t *o, const aff_t *p) { cuzk_##G##_to_uncompressed(o, &p->G); } \
    static void G##_to_lem(uint8_t *o, const aff_t *p) { cuzk_##G##_to_lem(o, &p->G); }            \
    static cuzk_status G##_from_comp(aff_t *r, const uint8_t *in, unsigned f)                      \
    { return cuzk_##G##_from_compressed(&r->G, in, f); }                                           \
    static cuzk_status G##_from_uncomp(aff_t *r, const uint8_t *in, unsigned f)                    \
    { return cuzk_##G##_from_uncompressed(&r->G, in, f); }                                         \
    static cuzk_status G##_from_lem(aff_t *r, const uint8_t *in, unsigned f)                       \
    { return cuzk_##G##_from_lem(&r->G, in, f); }

GROUP_WRAPPERS(g1, fp, G1)
GROUP_WRAPPERS(g2, fp2, G2)

#define GROUP_TABLE(G, K, CL)                                                                      \
    {#G, K, CL, 2 * (CL), 2 * (CL), G##_aff_set, G##_aff_get, G##_generator, G##_aff_is_inf,       \
     G##_jac_is_inf, G##_aff_on_curve, G##_jac_on_curve, G##_in_subgroup, G##_aff_eq, G##_jac_eq,   \
     G##_set_inf, G##_from_affine, G##_to_affine, G##_batch_to_affine, G##_neg, G##_aff_neg,       \
     G##_dbl, G##_add, G##_add_mixed, G##_mul, G##_mul_limbs, G##_x_set_inf, G##_x_from_affine,    \
     G##_x_to_jac, G##_x_dbl, G##_x_add, G##_x_add_mixed, G##_jac_scale, G##_xyzz_scale,           \
     G##_to_comp, G##_to_uncomp, G##_to_lem, G##_from_comp, G##_from_uncomp, G##_from_lem}

static const struct grp GRP_G1 = GROUP_TABLE(g1, K_FP, 48);
static const struct grp GRP_G2 = GROUP_TABLE(g2, K_FP2, 96);

/* Parses a point: "inf" (x = y = 0) or {x, y}. No curve check: the
 * "check" group feeds points that are off the curve on purpose. */
static int parse_point(const struct grp *G, aff_t *p, json_t *j, const char *what)
{
    elem x, y;
    memset(p, 0, sizeof *p);
    memset(&x, 0, sizeof x);
    memset(&y, 0, sizeof y);
    if (json_is_string(j) && !strcmp(json_string_value(j), "inf")) {
        if (G->ck == K_FP) x.fp = y.fp = CUZK_FP_ZERO;
        else x.fp2 = y.fp2 = CUZK_FP2_ZERO;
        G->aff_set(p, &x, &y);
        return 1;
    }
    if (!json_is_object(j) || !parse_elem(&x, G->ck, json_object_get(j, "x"), what) ||
        !parse_elem(&y, G->ck, json_object_get(j, "y"), what)) {
        VCHECK(0, "malformed vector: cannot parse point %s", what);
        return 0;
    }
    G->aff_set(p, &x, &y);
    return 1;
}

static void point_hex(const struct grp *G, char *out, size_t cap, const aff_t *p)
{
    elem x, y;
    limbs_t lx, ly;
    G->aff_get(p, &x, &y);
    elem_to_limbs(&lx, G->ck, &x);
    elem_to_limbs(&ly, G->ck, &y);
    size_t pos = 0;
    pos += (size_t)snprintf(out + pos, cap - pos, "(x=");
    for (size_t i = 0; i < lx.n && pos < cap; i++) {
        char h[97];
        limbs_hex(h, lx.l[i], 6);
        pos += (size_t)snprintf(out + pos, cap - pos, "%s%s", i ? "," : "", h);
    }
    pos += (size_t)snprintf(out + pos, cap - pos, " y=");
    for (size_t i = 0; i < ly.n && pos < cap; i++) {
        char h[97];
        limbs_hex(h, ly.l[i], 6);
        pos += (size_t)snprintf(out + pos, cap - pos, "%s%s", i ? "," : "", h);
    }
    if (pos < cap) snprintf(out + pos, cap - pos, ")");
}

/* Compares an affine result with the expected point (x = y = 0 for "inf"). */
static int check_point(const struct grp *G, const aff_t *got, json_t *exp, const char *what)
{
    aff_t e;
    if (!parse_point(G, &e, exp, "expected")) return 0;
    elem gx, gy, ex, ey;
    limbs_t lgx, lgy, lex, ley;
    G->aff_get(got, &gx, &gy);
    G->aff_get(&e, &ex, &ey);
    elem_to_limbs(&lgx, G->ck, &gx);
    elem_to_limbs(&lgy, G->ck, &gy);
    elem_to_limbs(&lex, G->ck, &ex);
    elem_to_limbs(&ley, G->ck, &ey);
    int ok = limbs_equal(&lgx, &lex, G->ck) && limbs_equal(&lgy, &ley, G->ck);
    if (!ok) {
        char he[640], hg[640];
        point_hex(G, he, sizeof he, &e);
        point_hex(G, hg, sizeof hg, got);
        VCHECK(0, "%s: expected %s got %s", what, json_is_string(exp) ? "inf (0, 0)" : he, hg);
        return 0;
    }
    int inf = json_is_string(exp);
    VCHECK(G->aff_is_inf(got) == inf, "%s: affine_is_inf = %d", what, G->aff_is_inf(got));
    return 1;
}

/* Checks a Jacobian result: is_inf, on the curve, eq to the expected point,
 * and its affine form. */
static void check_jac(const struct grp *G, const jac_t *got, json_t *exp, const char *what)
{
    aff_t a, e;
    char w[96];
    G->to_affine(&a, got);
    if (!check_point(G, &a, exp, what)) return;
    if (!parse_point(G, &e, exp, "expected")) return;
    int inf = json_is_string(exp);
    jac_t ej;
    G->from_affine(&ej, &e);
    G->jac_scale(&ej, 7);
    snprintf(w, sizeof w, "%s: jac_is_inf", what);
    VCHECK(G->jac_is_inf(got) == inf, "%s = %d", w, G->jac_is_inf(got));
    VCHECK(G->jac_on_curve(got) == 1, "%s: jac_on_curve = 0", what);
    VCHECK(G->jac_eq(got, &ej) == 1, "%s: jac_eq(result, expected with another Z) = 0", what);
}

/* A Jacobian and an XYZZ form of p with Z != 1 (infinity left as made). */
static void make_forms(const struct grp *G, jac_t *j, xyzz_t *x, const aff_t *p, uint64_t s)
{
    G->from_affine(j, p);
    G->x_from_affine(x, p);
    if (!G->aff_is_inf(p)) {
        G->jac_scale(j, s);
        G->xyzz_scale(x, s);
    }
}

static void xyzz_result(const struct grp *G, jac_t *r, const xyzz_t *x) { G->x_to_jac(r, x); }

static void test_group(const struct grp *G, const char *file)
{
    json_t *doc = load_file(file);
    if (!doc) return;
    size_t i;
    json_t *v, *g;

    if ((g = group_begin(doc, "generator", 0))) {
        aff_t gen;
        G->generator(&gen);
        check_point(G, &gen, g, "generator constant");
        VCHECK(G->aff_on_curve(&gen) && G->in_subgroup(&gen), "generator not on curve / subgroup");
        group_end(1);
    }

    if ((g = group_begin(doc, "add", 1))) {
        size_t n = json_array_size(g);
        jac_t *res = calloc(n, sizeof *res);
        aff_t *aff = calloc(n, sizeof *aff);
        CHECK_MSG(res && aff, "out of memory");
        json_array_foreach(g, i, v) {
            g_index = i;
            aff_t p, q;
            jac_t P, Q, R, T;
            xyzz_t XP, XQ, XR;
            json_t *jr = field(v, "r");
            if (!jr || !parse_point(G, &p, json_object_get(v, "p"), "p") ||
                !parse_point(G, &q, json_object_get(v, "q"), "q"))
                continue;
            make_forms(G, &P, &XP, &p, 3 + i);
            make_forms(G, &Q, &XQ, &q, 1000 + i);
            G->add(&R, &P, &Q);
            check_jac(G, &R, jr, "add");
            if (res) res[i] = R;
            G->add_mixed(&R, &P, &q);
            check_jac(G, &R, jr, "add_mixed");
            T = P;
            G->add(&T, &T, &Q);
            check_jac(G, &T, jr, "add (aliased r = p)");
            T = Q;
            G->add(&T, &P, &T);
            check_jac(G, &T, jr, "add (aliased r = q)");
            G->x_add(&XR, &XP, &XQ);
            xyzz_result(G, &R, &XR);
            check_jac(G, &R, jr, "xyzz_add");
            G->x_add_mixed(&XR, &XP, &q);
            xyzz_result(G, &R, &XR);
            check_jac(G, &R, jr, "xyzz_add_mixed");
            XR = XP;
            G->x_add(&XR, &XR, &XQ);
            xyzz_result(G, &R, &XR);
            check_jac(G, &R, jr, "xyzz_add (aliased)");
            /* eq on inputs: the same point under two Z, and p vs r */
            jac_t P1;
            G->from_affine(&P1, &p);
            VCHECK(G->jac_eq(&P, &P1) == 1, "jac_eq(p with Z != 1, p with Z = 1) = 0");
            VCHECK(G->aff_eq(&p, &p) == 1, "affine_eq(p, p) = 0");
            aff_t r;
            if (parse_point(G, &r, jr, "r")) {
                int same = json_equal(json_object_get(v, "p"), jr);
                VCHECK(G->aff_eq(&p, &r) == same, "affine_eq(p, r) = %d, expected %d", G->aff_eq(&p, &r), same);
                jac_t Rj;
                G->from_affine(&Rj, &r);
                VCHECK(G->jac_eq(&P, &Rj) == same, "jac_eq(p, r) = %d, expected %d", G->jac_eq(&P, &Rj), same);
            }
        }
        if (res && aff) {
            const char *saved = g_group;
            g_group = "add(batch_to_affine)";
            G->batch_to_affine(aff, res, n);
            json_array_foreach(g, i, v) {
                g_index = i;
                check_point(G, &aff[i], json_object_get(v, "r"), "batch_to_affine");
            }
            g_group = saved;
        }
        free(res), free(aff);
        group_end(n);
    }

    if ((g = group_begin(doc, "dbl", 1))) {
        json_array_foreach(g, i, v) {
            g_index = i;
            aff_t p;
            jac_t P, R;
            xyzz_t XP, XR;
            json_t *jr = field(v, "r");
            if (!fields_ok(jr != NULL)) continue;
            if (!parse_point(G, &p, json_object_get(v, "p"), "p")) continue;
            make_forms(G, &P, &XP, &p, 11 + i);
            G->dbl(&R, &P);
            check_jac(G, &R, jr, "dbl");
            R = P;
            G->dbl(&R, &R);
            check_jac(G, &R, jr, "dbl (aliased)");
            G->add(&R, &P, &P);
            check_jac(G, &R, jr, "add(p, p)");
            G->add_mixed(&R, &P, &p);
            check_jac(G, &R, jr, "add_mixed(p, p)");
            G->x_dbl(&XR, &XP);
            xyzz_result(G, &R, &XR);
            check_jac(G, &R, jr, "xyzz_dbl");
            G->x_add(&XR, &XP, &XP);
            xyzz_result(G, &R, &XR);
            check_jac(G, &R, jr, "xyzz_add(p, p)");
            G->x_add_mixed(&XR, &XP, &p);
            xyzz_result(G, &R, &XR);
            check_jac(G, &R, jr, "xyzz_add_mixed(p, p)");
        }
        group_end(json_array_size(g));
    }

    if ((g = group_begin(doc, "neg", 1))) {
        json_array_foreach(g, i, v) {
            g_index = i;
            aff_t p, r;
            jac_t P, R;
            xyzz_t XP;
            json_t *jr = field(v, "r");
            if (!fields_ok(jr != NULL)) continue;
            if (!parse_point(G, &p, json_object_get(v, "p"), "p")) continue;
            make_forms(G, &P, &XP, &p, 17 + i);
            G->neg(&R, &P);
            check_jac(G, &R, jr, "neg");
            G->aff_neg(&r, &p);
            check_point(G, &r, jr, "affine_neg");
            r = p;
            G->aff_neg(&r, &r);
            check_point(G, &r, jr, "affine_neg (aliased)");
        }
        group_end(json_array_size(g));
    }

    if ((g = group_begin(doc, "mul", 1))) {
        json_array_foreach(g, i, v) {
            g_index = i;
            aff_t p;
            jac_t P, R;
            xyzz_t XP;
            elem k;
            uint64_t kl[4];
            json_t *jr = field(v, "r"), *jk = field(v, "k");
            if (!jr || !jk || !parse_point(G, &p, json_object_get(v, "p"), "p") ||
                !parse_elem(&k, K_FR, jk, "k") || !hex_limbs(kl, 4, json_string_value(jk)))
                continue;
            make_forms(G, &P, &XP, &p, 23 + i);
            G->mul(&R, &P, &k.fr);
            check_jac(G, &R, jr, "mul");
            R = P;
            G->mul(&R, &R, &k.fr);
            check_jac(G, &R, jr, "mul (aliased)");
            G->mul_limbs(&R, &P, kl, 4);
            check_jac(G, &R, jr, "mul_limbs");
        }
        group_end(json_array_size(g));
    }

    if ((g = group_begin(doc, "mul_limbs", 1))) {
        json_array_foreach(g, i, v) {
            g_index = i;
            aff_t p;
            jac_t P, R;
            xyzz_t XP;
            uint64_t kl[16];
            size_t n;
            json_t *jr = field(v, "r"), *jk = field(v, "k");
            if (!fields_ok(jr && jk)) continue;
            if (!parse_point(G, &p, json_object_get(v, "p"), "p")) continue;
            if (!hex_limbs_var(kl, 16, &n, json_string_value(jk))) {
                BAD_VECTOR("k");
                continue;
            }
            make_forms(G, &P, &XP, &p, 29 + i);
            G->mul_limbs(&R, &P, kl, n);
            check_jac(G, &R, jr, "mul_limbs");
        }
        group_end(json_array_size(g));
    }

    if ((g = group_begin(doc, "check", 1))) {
        json_array_foreach(g, i, v) {
            g_index = i;
            aff_t p;
            jac_t P;
            xyzz_t XP;
            json_t *jc = field(v, "on_curve"), *js = field(v, "in_subgroup");
            if (!fields_ok(jc && js)) continue;
            if (!parse_point(G, &p, json_object_get(v, "p"), "p")) continue;
            int on = json_is_true(jc);
            make_forms(G, &P, &XP, &p, 31 + i);
            VCHECK(G->aff_on_curve(&p) == on, "affine_on_curve = %d, expected %d", G->aff_on_curve(&p), on);
            VCHECK(G->jac_on_curve(&P) == on, "jac_on_curve = %d, expected %d", G->jac_on_curve(&P), on);
            if (on && json_is_boolean(js)) {
                int sub = json_is_true(js);
                VCHECK(G->in_subgroup(&p) == sub, "affine_in_subgroup = %d, expected %d", G->in_subgroup(&p), sub);
            }
        }
        group_end(json_array_size(g));
    }

    /* set_inf and the XYZZ infinity */
    g_group = "infinity";
    g_index = 0;
    {
        jac_t R;
        xyzz_t X;
        aff_t a;
        G->set_inf(&R);
        VCHECK(G->jac_is_inf(&R), "jac_set_inf: not infinity");
        G->to_affine(&a, &R);
        VCHECK(G->aff_is_inf(&a), "to_affine(infinity) is not (0, 0)");
        G->x_set_inf(&X);
        G->x_to_jac(&R, &X);
        VCHECK(G->jac_is_inf(&R), "xyzz_set_inf -> xyzz_to_jac: not infinity");
    }
    finish_file(doc);
}

/* ---------------------------------------------------------- encodings -- */

static const char *status_name(cuzk_status s)
{
    switch (s) {
    case CUZK_OK: return "OK";
    case CUZK_ERR_BAD_ENCODING: return "BAD_ENCODING";
    case CUZK_ERR_NOT_CANONICAL: return "NOT_CANONICAL";
    case CUZK_ERR_NOT_ON_CURVE: return "NOT_ON_CURVE";
    case CUZK_ERR_NOT_IN_SUBGROUP: return "NOT_IN_SUBGROUP";
    case CUZK_ERR_NO_SQRT: return "NO_SQRT";
    case CUZK_ERR_TRUNCATED: return "TRUNCATED";
    case CUZK_ERR_UNSATISFIED: return "UNSATISFIED";
    case CUZK_ERR_PROOF_INVALID: return "PROOF_INVALID";
    case CUZK_ERR_NO_MEMORY: return "NO_MEMORY";
    case CUZK_ERR_IO: return "IO";
    case CUZK_ERR_CUDA: return "CUDA";
    case CUZK_ERR_NO_DEVICE: return "NO_DEVICE";
    case CUZK_ERR_INVALID_ARGUMENT: return "INVALID_ARGUMENT";
    case CUZK_ERR_CANCELED: return "CANCELED";
    }
    return "?";
}

static int decode_form(const struct grp *G, const char *form, aff_t *r, const uint8_t *in, unsigned flags,
                       cuzk_status *st, size_t *len)
{
    if (!strcmp(form, "compressed")) *len = G->comp_len, *st = in ? G->from_comp(r, in, flags) : CUZK_OK;
    else if (!strcmp(form, "uncompressed")) *len = G->uncomp_len, *st = in ? G->from_uncomp(r, in, flags) : CUZK_OK;
    else if (!strcmp(form, "lem")) *len = G->lem_len, *st = in ? G->from_lem(r, in, flags) : CUZK_OK;
    else return 0;
    return 1;
}

static void test_encode(const struct grp *G, json_t *doc, const char *name)
{
    json_t *g = group_begin(doc, name, 1);
    if (!g) return;
    size_t i;
    json_t *v;
    static const char *forms[3] = {"compressed", "uncompressed", "lem"};
    json_array_foreach(g, i, v) {
        g_index = i;
        aff_t p;
        json_t *jp = field(v, "p");
        if (!fields_ok(jp != NULL)) continue;
        if (!parse_point(G, &p, jp, "p")) continue;
        for (int f = 0; f < 3; f++) {
            uint8_t want[192], out[192];
            char hex[385];
            cuzk_status st;
            size_t len;
            decode_form(G, forms[f], NULL, NULL, 0, &st, &len);
            const char *h = json_string_value(json_object_get(v, forms[f]));
            if (!hex_bytes(want, len, h)) {
                BAD_VECTOR(forms[f]);
                continue;
            }
            memset(out, 0xee, sizeof out);
            if (f == 0) G->to_comp(out, &p);
            if (f == 1) G->to_uncomp(out, &p);
            if (f == 2) G->to_lem(out, &p);
            bytes_hex(hex, out, len);
            VCHECK(!memcmp(out, want, len), "to_%s: expected %s got %s", forms[f], h, hex);
            for (unsigned flags = 0; flags < 2; flags++) {
                aff_t r;
                char what[64];
                memset(&r, 0, sizeof r);
                decode_form(G, forms[f], &r, want, flags, &st, &len);
                VCHECK(st == CUZK_OK, "from_%s(flags %u): expected OK got %s", forms[f], flags, status_name(st));
                snprintf(what, sizeof what, "from_%s(flags %u)", forms[f], flags);
                if (st == CUZK_OK) check_point(G, &r, jp, what);
            }
        }
    }
    group_end(json_array_size(g));
}

static void test_decode(const struct grp *G, json_t *doc, const char *name)
{
    json_t *g = group_begin(doc, name, 1);
    if (!g) return;
    size_t i;
    json_t *v;
    json_array_foreach(g, i, v) {
        g_index = i;
        const char *form = json_string_value(json_object_get(v, "form"));
        const char *h = json_string_value(json_object_get(v, "hex"));
        const char *want = json_string_value(json_object_get(v, "result"));
        const char *defect = json_string_value(json_object_get(v, "defect"));
        json_t *jf = json_object_get(v, "flags");
        uint8_t in[192];
        size_t len;
        cuzk_status st;
        aff_t r;
        if (!form || !h || !want || !json_is_integer(jf) || !decode_form(G, form, NULL, NULL, 0, &st, &len) ||
            !hex_bytes(in, len, h)) {
            BAD_VECTOR("form/hex/flags/result");
            continue;
        }
        unsigned flags = (unsigned)json_integer_value(jf) ? CUZK_DECODE_SUBGROUP : 0;
        memset(&r, 0, sizeof r);
        decode_form(G, form, &r, in, flags, &st, &len);
        VCHECK(!strcmp(status_name(st), want), "from_%s(flags %u) of %s [%s]: expected %s got %s", form, flags, h,
               defect ? defect : "", want, status_name(st));
        if (!strcmp(want, "OK") && st == CUZK_OK) {
            json_t *jp = field(v, "p");
            if (jp) check_point(G, &r, jp, "decoded point");
        }
    }
    group_end(json_array_size(g));
}

static void test_encodings(void)
{
    json_t *doc = load_file("encodings.json");
    if (!doc) return;
    test_encode(&GRP_G1, doc, "g1_encode");
    test_decode(&GRP_G1, doc, "g1_decode");
    test_encode(&GRP_G2, doc, "g2_encode");
    test_decode(&GRP_G2, doc, "g2_decode");
    finish_file(doc);
}

/* ------------------------------------------------------------ pairing -- */

/* On a GT mismatch, says whether the library computed the cube root of the
 * expected value, i.e. the textbook f^((q^12-1)/r) where noble and zkcrypto
 * compute f^(3(q^12-1)/r). */
static void check_gt(const elem *got, json_t *exp, const char *what)
{
    if (check_elem(got, K_FP12, exp, what)) return;
    elem c;
    cuzk_fp12_sqr(&c.fp12, &got->fp12);
    cuzk_fp12_mul(&c.fp12, &c.fp12, &got->fp12);
    limbs_t lc, le;
    elem_to_limbs(&lc, K_FP12, &c);
    if (json_limbs(&le, K_FP12, exp) && limbs_equal(&lc, &le, K_FP12))
        fprintf(stderr, "    note: %s[%zu] %s: got^3 equals the expected value: the library computes "
                        "f^((q^12-1)/r), the reference f^(3(q^12-1)/r) (noble, zkcrypto)\n",
                g_group, g_index, what);
}

static void test_pairing(void)
{
    json_t *doc = load_file("pairing.json");
    if (!doc) return;
    size_t i;
    json_t *v, *g;
    cuzk_g2_prepared *prep = calloc(8, sizeof *prep);
    CHECK_MSG(prep != NULL, "out of memory");
    if (!prep) {
        json_decref(doc);
        return;
    }

    if ((g = group_begin(doc, "pairing", 1))) {
        json_array_foreach(g, i, v) {
            g_index = i;
            aff_t p, q;
            elem f, r;
            json_t *jr = field(v, "r");
            if (!jr || !parse_point(&GRP_G1, &p, json_object_get(v, "p"), "p") ||
                !parse_point(&GRP_G2, &q, json_object_get(v, "q"), "q"))
                continue;
            cuzk_pairing(&r.fp12, &p.g1, &q.g2);
            check_gt(&r, jr, "pairing");
            cuzk_miller_loop(&f.fp12, &p.g1, &q.g2, 1);
            cuzk_final_exp(&r.fp12, &f.fp12);
            check_gt(&r, jr, "final_exp(miller_loop)");
            cuzk_g2_prepare(&prep[0], &q.g2);
            cuzk_miller_loop_prepared(&f.fp12, &p.g1, &prep[0], 1);
            cuzk_final_exp(&r.fp12, &f.fp12);
            check_gt(&r, jr, "final_exp(miller_loop_prepared)");
            limbs_t le;
            if (json_limbs(&le, K_FP12, jr)) {
                int one = limbs_is_small(&le, K_FP12, 1);
                int got = cuzk_pairing_product_is_one(&p.g1, &q.g2, 1);
                VCHECK(got == one, "pairing_product_is_one = %d, expected %d", got, one);
            }
        }
        group_end(json_array_size(g));
    }

    if ((g = group_begin(doc, "multi", 1))) {
        json_array_foreach(g, i, v) {
            g_index = i;
            json_t *pairs = json_object_get(v, "pairs"), *jr = field(v, "r"), *jo = field(v, "is_one");
            size_t n = json_array_size(pairs);
            if (!jr || !jo || !json_is_array(pairs) || n == 0 || n > 8) {
                BAD_VECTOR("pairs/r/is_one");
                continue;
            }
            cuzk_g1_affine ps[8];
            cuzk_g2_affine qs[8];
            int ok = 1;
            for (size_t k = 0; k < n && ok; k++) {
                aff_t p, q;
                json_t *pr = json_array_get(pairs, k);
                ok = parse_point(&GRP_G1, &p, json_object_get(pr, "p"), "p") &&
                     parse_point(&GRP_G2, &q, json_object_get(pr, "q"), "q");
                ps[k] = p.g1;
                qs[k] = q.g2;
                cuzk_g2_prepare(&prep[k], &q.g2);
            }
            if (!ok) continue;
            elem f, r;
            cuzk_miller_loop(&f.fp12, ps, qs, n);
            cuzk_final_exp(&r.fp12, &f.fp12);
            check_gt(&r, jr, "final_exp(miller_loop(pairs))");
            cuzk_miller_loop_prepared(&f.fp12, ps, prep, n);
            cuzk_final_exp(&r.fp12, &f.fp12);
            check_gt(&r, jr, "final_exp(miller_loop_prepared(pairs))");
            int want = json_is_true(jo), got = cuzk_pairing_product_is_one(ps, qs, n);
            VCHECK(got == want, "pairing_product_is_one = %d, expected %d (%s)", got, want,
                   json_string_value(json_object_get(v, "note")));
        }
        group_end(json_array_size(g));
    }

    if ((g = group_begin(doc, "final_exp", 1))) {
        json_array_foreach(g, i, v) {
            g_index = i;
            elem f, r;
            json_t *jf = field(v, "f"), *jr = field(v, "r");
            if (!fields_ok(jf && jr)) continue;
            if (!parse_elem(&f, K_FP12, jf, "f")) continue;
            cuzk_final_exp(&r.fp12, &f.fp12);
            check_gt(&r, jr, "final_exp");
            cuzk_final_exp(&f.fp12, &f.fp12);
            check_gt(&f, jr, "final_exp (aliased)");
        }
        group_end(json_array_size(g));
    }
    free(prep);
    finish_file(doc);
}

int main(void)
{
    printf("test_vectors: vectors from %s\n",
           getenv("CUZK_VECTORS") && *getenv("CUZK_VECTORS") ? getenv("CUZK_VECTORS") : "tests/vectors");
    test_prime_field("fp.json", K_FP);
    test_prime_field("fr.json", K_FR);
    test_fp2();
    test_fp6();
    test_fp12();
    test_group(&GRP_G1, "g1.json");
    test_group(&GRP_G2, "g2.json");
    test_encodings();
    test_pairing();
    return test_done("test_vectors");
}
