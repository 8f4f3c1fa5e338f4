/* snarkjs JSON for bls12381 (formats.md §10, §12): vk.json, proof.json,
 * public.json. Numbers are decimal strings of canonical integers; points
 * are projective triples read the way ffjavascript reads them (z = 1
 * affine, z = 0 identity, otherwise a Jacobian Z). */
#include <jansson.h>
#include <stdlib.h>

#include <cuzk/pairing.h>

#include "formats/fmt_internal.h"

/* ------------------------------------------------------------ decimals -- */

/* Parses a decimal string of at most nl 64-bit limbs. Returns 0, or 1 if s
 * is not a decimal number, 2 if it does not fit. */
static int dec_to_limbs(uint64_t *v, size_t nl, const char *s)
{
    memset(v, 0, nl * sizeof *v);
    if (!*s) return 1;
    for (; *s; s++) {
        if (*s < '0' || *s > '9') return 1;
        unsigned __int128 carry = (unsigned)(*s - '0');
        for (size_t i = 0; i < nl; i++) {
            unsigned __int128 t = (unsigned __int128)v[i] * 10 + carry;
            v[i] = (uint64_t)t;
            carry = t >> 64;
        }
        if (carry) return 2;
    }
    return 0;
}

/* Writes the decimal form of the nl-limb value v (nl <= 6) to out, which
 * holds at least 20 * nl + 1 bytes. */
static void dec_from_limbs(char *out, const uint64_t *v, size_t nl)
{
    uint64_t t[6];
    char rev[128];
    size_t n = 0;
    memcpy(t, v, nl * sizeof *t);
    for (;;) {
        /* t /= 10^19, keeping the remainder: 19 digits a step. */
        unsigned __int128 rem = 0;
        int nonzero = 0;
        for (size_t i = nl; i-- > 0;) {
            unsigned __int128 cur = (rem << 64) | t[i];
            t[i] = (uint64_t)(cur / 10000000000000000000ull);
            rem = cur % 10000000000000000000ull;
            nonzero |= t[i] != 0;
        }
        uint64_t r = (uint64_t)rem;
        for (int k = 0; k < 19; k++) {
            rev[n++] = (char)('0' + r % 10);
            r /= 10;
            if (!nonzero && r == 0) break;
        }
        if (!nonzero) break;
    }
    for (size_t i = 0; i < n; i++) out[i] = rev[n - 1 - i];
    out[n] = 0;
}

/* --------------------------------------------------------- JSON values -- */

typedef struct {
    const char *file; /* "vk JSON" */
    char *err;
} jctx;

/* Reads a decimal string (or non-negative JSON integer) into nl limbs. */
static cuzk_status j_limbs(uint64_t *v, size_t nl, const json_t *j, const jctx *c,
                           const char *path)
{
    char buf[32];
    const char *s;
    if (json_is_string(j)) {
        s = json_string_value(j);
        if (strlen(s) != json_string_length(j))
            return fmt_fail(c->err, CUZK_ERR_BAD_ENCODING, "%s: %s: NUL in a number", c->file,
                            path);
    } else if (json_is_integer(j) && json_integer_value(j) >= 0) {
        snprintf(buf, sizeof buf, "%lld", (long long)json_integer_value(j));
        s = buf;
    } else {
        return fmt_fail(c->err, CUZK_ERR_BAD_ENCODING, "%s: %s: expected a decimal string",
                        c->file, path);
    }
    int r = dec_to_limbs(v, nl, s);
    if (r == 1)
        return fmt_fail(c->err, CUZK_ERR_BAD_ENCODING, "%s: %s: \"%.40s\" is not a decimal number",
                        c->file, path, s);
    if (r == 2)
        return fmt_fail(c->err, CUZK_ERR_NOT_CANONICAL, "%s: %s: number too large", c->file, path);
    return CUZK_OK;
}

static cuzk_status j_fp(cuzk_fp *r, const json_t *j, const jctx *c, const char *path)
{
    uint64_t v[CUZK_FP_LIMBS];
    cuzk_status s = j_limbs(v, CUZK_FP_LIMBS, j, c, path);
    if (s != CUZK_OK) return s;
    if (cuzk_fp_from_limbs(r, v) != CUZK_OK)
        return fmt_fail(c->err, CUZK_ERR_NOT_CANONICAL, "%s: %s: not canonical (>= q)", c->file,
                        path);
    return CUZK_OK;
}

static cuzk_status j_fr(cuzk_fr *r, const json_t *j, const jctx *c, const char *path)
{
    uint64_t v[CUZK_FR_LIMBS];
    cuzk_status s = j_limbs(v, CUZK_FR_LIMBS, j, c, path);
    if (s != CUZK_OK) return s;
    if (cuzk_fr_from_limbs(r, v) != CUZK_OK)
        return fmt_fail(c->err, CUZK_ERR_NOT_CANONICAL, "%s: %s: not canonical (>= r)", c->file,
                        path);
    return CUZK_OK;
}

static cuzk_status j_fp2(cuzk_fp2 *r, const json_t *j, const jctx *c, const char *path)
{
    char p[96];
    cuzk_status s;
    if (!json_is_array(j) || json_array_size(j) != 2)
        return fmt_fail(c->err, CUZK_ERR_BAD_ENCODING, "%s: %s: expected [c0, c1]", c->file, path);
    snprintf(p, sizeof p, "%s[0]", path);
    if ((s = j_fp(&r->c0, json_array_get(j, 0), c, p)) != CUZK_OK) return s;
    snprintf(p, sizeof p, "%s[1]", path);
    return j_fp(&r->c1, json_array_get(j, 1), c, p);
}

/* y^2 = x^3 + 4, with no identity convention. */
static int g1_equation(const cuzk_fp *x, const cuzk_fp *y)
{
    cuzk_fp l, r, b;
    cuzk_fp_sqr(&l, y);
    cuzk_fp_sqr(&r, x);
    cuzk_fp_mul(&r, &r, x);
    cuzk_fp_from_u64(&b, 4);
    cuzk_fp_add(&r, &r, &b);
    return cuzk_fp_eq(&l, &r);
}

/* y^2 = x^3 + 4 (u + 1). */
static int g2_equation(const cuzk_fp2 *x, const cuzk_fp2 *y)
{
    cuzk_fp2 l, r, b;
    cuzk_fp2_sqr(&l, y);
    cuzk_fp2_sqr(&r, x);
    cuzk_fp2_mul(&r, &r, x);
    cuzk_fp_from_u64(&b.c0, 4);
    b.c1 = b.c0;
    cuzk_fp2_add(&r, &r, &b);
    return cuzk_fp2_eq(&l, &r);
}

static cuzk_status j_g1(cuzk_g1_affine *r, const json_t *j, const jctx *c, const char *path)
{
    char p[96];
    cuzk_status s;
    size_t n = json_array_size(j);
    if (!json_is_array(j) || (n != 2 && n != 3))
        return fmt_fail(c->err, CUZK_ERR_BAD_ENCODING, "%s: %s: expected a G1 point [x, y, z]",
                        c->file, path);
    cuzk_g1_jac q;
    snprintf(p, sizeof p, "%s[0]", path);
    if ((s = j_fp(&q.x, json_array_get(j, 0), c, p)) != CUZK_OK) return s;
    snprintf(p, sizeof p, "%s[1]", path);
    if ((s = j_fp(&q.y, json_array_get(j, 1), c, p)) != CUZK_OK) return s;
    q.z = CUZK_FP_ONE;
    snprintf(p, sizeof p, "%s[2]", path);
    if (n == 3 && (s = j_fp(&q.z, json_array_get(j, 2), c, p)) != CUZK_OK) return s;
    if (cuzk_fp_is_zero(&q.z)) {
        memset(r, 0, sizeof *r);
        return CUZK_OK;
    }
    cuzk_g1_affine a;
    cuzk_g1_to_affine(&a, &q); /* z = 1: unchanged; else Jacobian */
    if (!g1_equation(&a.x, &a.y))
        return fmt_fail(c->err, CUZK_ERR_NOT_ON_CURVE, "%s: %s: point is not on the curve",
                        c->file, path);
    if (!cuzk_g1_affine_in_subgroup(&a))
        return fmt_fail(c->err, CUZK_ERR_NOT_IN_SUBGROUP, "%s: %s: point is not in G1", c->file,
                        path);
    *r = a;
    return CUZK_OK;
}

static cuzk_status j_g2(cuzk_g2_affine *r, const json_t *j, const jctx *c, const char *path)
{
    char p[96];
    cuzk_status s;
    size_t n = json_array_size(j);
    if (!json_is_array(j) || (n != 2 && n != 3))
        return fmt_fail(c->err, CUZK_ERR_BAD_ENCODING,
                        "%s: %s: expected a G2 point [[x0, x1], [y0, y1], [z0, z1]]", c->file,
                        path);
    cuzk_g2_jac q;
    snprintf(p, sizeof p, "%s[0]", path);
    if ((s = j_fp2(&q.x, json_array_get(j, 0), c, p)) != CUZK_OK) return s;
    snprintf(p, sizeof p, "%s[1]", path);
    if ((s = j_fp2(&q.y, json_array_get(j, 1), c, p)) != CUZK_OK) return s;
    q.z = CUZK_FP2_ONE;
    snprintf(p, sizeof p, "%s[2]", path);
    if (n == 3 && (s = j_fp2(&q.z, json_array_get(j, 2), c, p)) != CUZK_OK) return s;
    if (cuzk_fp2_is_zero(&q.z)) {
        memset(r, 0, sizeof *r);
        return CUZK_OK;
    }
    cuzk_g2_affine a;
    cuzk_g2_to_affine(&a, &q);
    if (!g2_equation(&a.x, &a.y))
        return fmt_fail(c->err, CUZK_ERR_NOT_ON_CURVE, "%s: %s: point is not on the curve",
                        c->file, path);
    if (!cuzk_g2_affine_in_subgroup(&a))
        return fmt_fail(c->err, CUZK_ERR_NOT_IN_SUBGROUP, "%s: %s: point is not in G2", c->file,
                        path);
    *r = a;
    return CUZK_OK;
}

static cuzk_status j_load(json_t **root, const char *text, size_t len, const jctx *c)
{
    json_error_t e;
    if (!text && len) return fmt_fail(c->err, CUZK_ERR_INVALID_ARGUMENT, "%s: NULL text", c->file);
    *root = json_loadb(text ? text : "", len, JSON_REJECT_DUPLICATES, &e);
    if (!*root)
        return fmt_fail(c->err, CUZK_ERR_BAD_ENCODING, "%s: line %d column %d: %s", c->file,
                        e.line, e.column, e.text);
    return CUZK_OK;
}

/* "protocol" and "curve", when present, must be groth16 and bls12381. */
static cuzk_status j_check_kind(const json_t *root, const jctx *c)
{
    const json_t *p = json_object_get(root, "protocol"), *cv = json_object_get(root, "curve");
    if (p && (!json_is_string(p) || strcmp(json_string_value(p), "groth16")))
        return fmt_fail(c->err, CUZK_ERR_BAD_ENCODING, "%s: protocol is \"%.20s\", not groth16",
                        c->file, json_is_string(p) ? json_string_value(p) : "?");
    if (cv && (!json_is_string(cv) || strcmp(json_string_value(cv), "bls12381")))
        return fmt_fail(c->err, CUZK_ERR_BAD_ENCODING,
                        "%s: curve is \"%.20s\"; cuzk needs bls12381", c->file,
                        json_is_string(cv) ? json_string_value(cv) : "?");
    return CUZK_OK;
}

static const json_t *j_need(const json_t *root, const char *key, const jctx *c, cuzk_status *s)
{
    const json_t *v = json_object_get(root, key);
    if (!v) *s = fmt_fail(c->err, CUZK_ERR_BAD_ENCODING, "%s: \"%s\" is missing", c->file, key);
    return v;
}

/* ----------------------------------------------------------- writers -- */

static json_t *w_fp(const cuzk_fp *a)
{
    uint64_t v[CUZK_FP_LIMBS];
    char s[128];
    cuzk_fp_to_limbs(v, a);
    dec_from_limbs(s, v, CUZK_FP_LIMBS);
    return json_string(s);
}

static json_t *w_str(const char *s) { return json_string(s); }

static json_t *w_fp2(const cuzk_fp2 *a) { return json_pack("[o, o]", w_fp(&a->c0), w_fp(&a->c1)); }

static json_t *w_g1(const cuzk_g1_affine *p)
{
    if (cuzk_g1_affine_is_inf(p)) return json_pack("[s, s, s]", "0", "1", "0");
    return json_pack("[o, o, s]", w_fp(&p->x), w_fp(&p->y), "1");
}

static json_t *w_g2(const cuzk_g2_affine *p)
{
    if (cuzk_g2_affine_is_inf(p))
        return json_pack("[[s, s], [s, s], [s, s]]", "0", "0", "1", "0", "0", "0");
    return json_pack("[o, o, [s, s]]", w_fp2(&p->x), w_fp2(&p->y), "1", "0");
}

static cuzk_status w_dump(char **out, json_t *root, const char *file, char *err)
{
    if (!root) return fmt_fail(err, CUZK_ERR_NO_MEMORY, "%s: out of memory", file);
    *out = json_dumps(root, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
    json_decref(root);
    if (!*out) return fmt_fail(err, CUZK_ERR_NO_MEMORY, "%s: out of memory", file);
    return CUZK_OK;
}

/* ---------------------------------------------------------------- vk -- */

cuzk_status cuzk_vk_from_json(cuzk_vk *vk, const char *text, size_t len, char *err)
{
    jctx c = {"vk JSON", err};
    json_t *root = NULL;
    cuzk_status s = CUZK_OK;
    fmt_clear(err);
    if (!vk) return fmt_fail(err, CUZK_ERR_INVALID_ARGUMENT, "vk JSON: NULL argument");
    memset(vk, 0, sizeof *vk);
    if ((s = j_load(&root, text, len, &c)) != CUZK_OK) return s;
    const json_t *np, *ic, *a1, *b2, *g2, *d2;
    if (!json_is_object(root)) {
        s = fmt_fail(err, CUZK_ERR_BAD_ENCODING, "vk JSON: not a JSON object");
        goto done;
    }
    if ((s = j_check_kind(root, &c)) != CUZK_OK) goto done;
    if (!(np = j_need(root, "nPublic", &c, &s)) || !(ic = j_need(root, "IC", &c, &s)) ||
        !(a1 = j_need(root, "vk_alpha_1", &c, &s)) || !(b2 = j_need(root, "vk_beta_2", &c, &s)) ||
        !(g2 = j_need(root, "vk_gamma_2", &c, &s)) || !(d2 = j_need(root, "vk_delta_2", &c, &s)))
        goto done;
    if (!json_is_array(ic) || json_array_size(ic) == 0 || json_array_size(ic) > UINT32_MAX) {
        s = fmt_fail(err, CUZK_ERR_BAD_ENCODING, "vk JSON: IC must be a non-empty array of points");
        goto done;
    }
    if (!json_is_integer(np) || json_integer_value(np) < 0 ||
        (size_t)json_integer_value(np) + 1 != json_array_size(ic)) {
        s = fmt_fail(err, CUZK_ERR_BAD_ENCODING,
                     "vk JSON: nPublic must be an integer equal to the IC length - 1 (%zu)",
                     json_array_size(ic) - 1);
        goto done;
    }
    if ((s = j_g1(&vk->alpha_g1, a1, &c, "vk_alpha_1")) != CUZK_OK ||
        (s = j_g2(&vk->beta_g2, b2, &c, "vk_beta_2")) != CUZK_OK ||
        (s = j_g2(&vk->gamma_g2, g2, &c, "vk_gamma_2")) != CUZK_OK ||
        (s = j_g2(&vk->delta_g2, d2, &c, "vk_delta_2")) != CUZK_OK)
        goto done;
    vk->n_ic = (uint32_t)json_array_size(ic);
    vk->ic = malloc((size_t)vk->n_ic * sizeof *vk->ic);
    if (!vk->ic) {
        s = fmt_fail(err, CUZK_ERR_NO_MEMORY, "vk JSON: out of memory");
        goto done;
    }
    for (uint32_t i = 0; i < vk->n_ic; i++) {
        char p[32];
        snprintf(p, sizeof p, "IC[%u]", i);
        if ((s = j_g1(&vk->ic[i], json_array_get(ic, i), &c, p)) != CUZK_OK) goto done;
    }
done:
    json_decref(root);
    if (s != CUZK_OK) cuzk_vk_free(vk);
    return s;
}

cuzk_status cuzk_vk_to_json(char **out, const cuzk_vk *vk, char *err)
{
    fmt_clear(err);
    if (!out || !vk || (!vk->ic && vk->n_ic) || vk->n_ic == 0)
        return fmt_fail(err, CUZK_ERR_INVALID_ARGUMENT, "vk JSON: bad argument");
    *out = NULL;
    cuzk_fp12 ab;
    cuzk_pairing(&ab, &vk->alpha_g1, &vk->beta_g2);
    const cuzk_fp6 *h[2] = {&ab.c0, &ab.c1};
    json_t *abj = json_array();
    for (int i = 0; i < 2; i++)
        json_array_append_new(abj, json_pack("[o, o, o]", w_fp2(&h[i]->c0), w_fp2(&h[i]->c1),
                                             w_fp2(&h[i]->c2)));
    json_t *ic = json_array();
    for (uint32_t i = 0; i < vk->n_ic; i++) json_array_append_new(ic, w_g1(&vk->ic[i]));
    json_t *root = json_pack("{s: o, s: o, s: I, s: o, s: o, s: o, s: o, s: o, s: o}",
                             "protocol", w_str("groth16"), "curve", w_str("bls12381"),
                             "nPublic", (json_int_t)vk->n_ic - 1, "vk_alpha_1", w_g1(&vk->alpha_g1),
                             "vk_beta_2", w_g2(&vk->beta_g2), "vk_gamma_2", w_g2(&vk->gamma_g2),
                             "vk_delta_2", w_g2(&vk->delta_g2), "vk_alphabeta_12", abj, "IC", ic);
    return w_dump(out, root, "vk JSON", err);
}

/* ------------------------------------------------------------- proof -- */

cuzk_status cuzk_proof_from_json(cuzk_proof *pr, const char *text, size_t len, char *err)
{
    jctx c = {"proof JSON", err};
    json_t *root = NULL;
    cuzk_status s = CUZK_OK;
    fmt_clear(err);
    if (!pr) return fmt_fail(err, CUZK_ERR_INVALID_ARGUMENT, "proof JSON: NULL argument");
    memset(pr, 0, sizeof *pr);
    if ((s = j_load(&root, text, len, &c)) != CUZK_OK) return s;
    const json_t *a, *b, *cc;
    if (!json_is_object(root)) {
        s = fmt_fail(err, CUZK_ERR_BAD_ENCODING, "proof JSON: not a JSON object");
        goto done;
    }
    if ((s = j_check_kind(root, &c)) != CUZK_OK) goto done;
    if (!(a = j_need(root, "pi_a", &c, &s)) || !(b = j_need(root, "pi_b", &c, &s)) ||
        !(cc = j_need(root, "pi_c", &c, &s)))
        goto done;
    if ((s = j_g1(&pr->a, a, &c, "pi_a")) != CUZK_OK ||
        (s = j_g2(&pr->b, b, &c, "pi_b")) != CUZK_OK ||
        (s = j_g1(&pr->c, cc, &c, "pi_c")) != CUZK_OK)
        goto done;
done:
    json_decref(root);
    if (s != CUZK_OK) memset(pr, 0, sizeof *pr);
    return s;
}

cuzk_status cuzk_proof_to_json(char **out, const cuzk_proof *p, char *err)
{
    fmt_clear(err);
    if (!out || !p) return fmt_fail(err, CUZK_ERR_INVALID_ARGUMENT, "proof JSON: NULL argument");
    *out = NULL;
    json_t *root = json_pack("{s: o, s: o, s: o, s: o, s: o}", "pi_a", w_g1(&p->a), "pi_b",
                             w_g2(&p->b), "pi_c", w_g1(&p->c), "protocol", w_str("groth16"),
                             "curve", w_str("bls12381"));
    return w_dump(out, root, "proof JSON", err);
}

/* ------------------------------------------------------------ public -- */

cuzk_status cuzk_public_from_json(cuzk_fr **vals, size_t *n, const char *text, size_t len,
                                  char *err)
{
    jctx c = {"public JSON", err};
    json_t *root = NULL;
    cuzk_status s = CUZK_OK;
    fmt_clear(err);
    if (!vals || !n) return fmt_fail(err, CUZK_ERR_INVALID_ARGUMENT, "public JSON: NULL argument");
    *vals = NULL;
    *n = 0;
    if ((s = j_load(&root, text, len, &c)) != CUZK_OK) return s;
    cuzk_fr *v = NULL;
    size_t k = json_array_size(root);
    if (!json_is_array(root)) {
        s = fmt_fail(err, CUZK_ERR_BAD_ENCODING, "public JSON: not a JSON array");
        goto done;
    }
    if (k && !(v = malloc(k * sizeof *v))) {
        s = fmt_fail(err, CUZK_ERR_NO_MEMORY, "public JSON: out of memory");
        goto done;
    }
    for (size_t i = 0; i < k; i++) {
        char p[32];
        snprintf(p, sizeof p, "[%zu]", i);
        if ((s = j_fr(&v[i], json_array_get(root, i), &c, p)) != CUZK_OK) goto done;
    }
done:
    json_decref(root);
    if (s != CUZK_OK) {
        free(v);
        return s;
    }
    *vals = v;
    *n = k;
    return CUZK_OK;
}

cuzk_status cuzk_public_to_json(char **out, const cuzk_fr *vals, size_t n, char *err)
{
    fmt_clear(err);
    if (!out || (!vals && n))
        return fmt_fail(err, CUZK_ERR_INVALID_ARGUMENT, "public JSON: NULL argument");
    *out = NULL;
    json_t *root = json_array();
    for (size_t i = 0; root && i < n; i++) {
        uint64_t v[CUZK_FR_LIMBS];
        char s[96];
        cuzk_fr_to_limbs(v, &vals[i]);
        dec_from_limbs(s, v, CUZK_FR_LIMBS);
        json_array_append_new(root, json_string(s));
    }
    return w_dump(out, root, "public JSON", err);
}
