/* bellperson .params / .vk (formats.md §3) and Filecoin proof bytes (§4).
 *
 * .vk:     alpha_g1 beta_g1 beta_g2 gamma_g2 delta_g1 delta_g2 (zcash
 *          uncompressed), u32 BE n_ic, n_ic G1
 * .params: the .vk, then five vectors, each u32 BE count + points:
 *          h (G1), l (G1), a (G1), b_g1 (G1), b_g2 (G2); trailing bytes
 *          (the phase2 MPC trailer) are tolerated.
 * proof:   A (G1 compressed) || B (G2 compressed) || C (G1 compressed). */
#include <stdlib.h>

#include "common/parallel.h"
#include "formats/fmt_internal.h"

#define VK_FIXED 864u /* six points before n_ic */

/* ------------------------------------------------------------------ vk -- */

static cuzk_status vk_g1(cuzk_g1_affine *r, const uint8_t *p, const char *file,
                         const char *name, char *err)
{
    cuzk_status s = cuzk_g1_from_uncompressed(r, p, CUZK_DECODE_SUBGROUP);
    if (s != CUZK_OK) return fmt_fail(err, s, "%s: %s: %s", file, name, cuzk_strerror(s));
    return CUZK_OK;
}

static cuzk_status vk_g2(cuzk_g2_affine *r, const uint8_t *p, const char *file,
                         const char *name, char *err)
{
    cuzk_status s = cuzk_g2_from_uncompressed(r, p, CUZK_DECODE_SUBGROUP);
    if (s != CUZK_OK) return fmt_fail(err, s, "%s: %s: %s", file, name, cuzk_strerror(s));
    return CUZK_OK;
}

/* Reads the vk at the head of data; *used = its length. */
static cuzk_status vk_read(cuzk_vk *vk, const uint8_t *data, size_t size, size_t *used,
                           const char *file, char *err)
{
    cuzk_status s;
    memset(vk, 0, sizeof *vk);
    if (size < VK_FIXED + 4)
        return fmt_fail(err, CUZK_ERR_TRUNCATED,
                        "%s: %zu bytes, shorter than the 868-byte verifying key header", file,
                        size);
    if ((s = vk_g1(&vk->alpha_g1, data, file, "vk alpha_g1", err)) != CUZK_OK ||
        (s = vk_g1(&vk->beta_g1, data + 96, file, "vk beta_g1", err)) != CUZK_OK ||
        (s = vk_g2(&vk->beta_g2, data + 192, file, "vk beta_g2", err)) != CUZK_OK ||
        (s = vk_g2(&vk->gamma_g2, data + 384, file, "vk gamma_g2", err)) != CUZK_OK ||
        (s = vk_g1(&vk->delta_g1, data + 576, file, "vk delta_g1", err)) != CUZK_OK ||
        (s = vk_g2(&vk->delta_g2, data + 672, file, "vk delta_g2", err)) != CUZK_OK)
        return s;
    vk->has_g1_extras = 1;
    uint32_t n_ic = rd_u32be(data + VK_FIXED);
    uint64_t need = VK_FIXED + 4 + (uint64_t)n_ic * 96;
    if (need > size)
        return fmt_fail(err, CUZK_ERR_TRUNCATED, "%s: vk ic (%u points) is %llu bytes short",
                        file, n_ic, (unsigned long long)(need - size));
    if (n_ic == 0)
        return fmt_fail(err, CUZK_ERR_BAD_ENCODING, "%s: vk ic is empty (input ONE is missing)",
                        file);
    vk->ic = malloc((size_t)n_ic * sizeof *vk->ic);
    if (!vk->ic) return fmt_fail(err, CUZK_ERR_NO_MEMORY, "%s: out of memory", file);
    vk->n_ic = n_ic;
    for (uint32_t i = 0; i < n_ic; i++) {
        const uint8_t *p = data + VK_FIXED + 4 + 96 * (uint64_t)i;
        s = cuzk_g1_from_uncompressed(&vk->ic[i], p, CUZK_DECODE_SUBGROUP);
        if (s != CUZK_OK) {
            cuzk_vk_free(vk);
            return fmt_fail(err, s, "%s: vk ic point %u: %s", file, i, cuzk_strerror(s));
        }
        if (cuzk_g1_affine_is_inf(&vk->ic[i])) {
            cuzk_vk_free(vk);
            return fmt_fail(err, CUZK_ERR_BAD_ENCODING, "%s: vk ic point %u is the identity",
                            file, i);
        }
    }
    *used = (size_t)need;
    return CUZK_OK;
}

cuzk_status cuzk_bp_vk_parse(cuzk_vk *vk, const uint8_t *data, size_t size, size_t *consumed,
                             char *err)
{
    size_t used;
    fmt_clear(err);
    if (!vk || (!data && size))
        return fmt_fail(err, CUZK_ERR_INVALID_ARGUMENT, "vk: NULL argument");
    cuzk_status s = vk_read(vk, data, size, &used, "vk", err);
    if (s != CUZK_OK) {
        cuzk_vk_free(vk);
        return s;
    }
    if (!consumed && used != size) {
        cuzk_vk_free(vk);
        return fmt_fail(err, CUZK_ERR_BAD_ENCODING, "vk: %zu bytes after the key (%zu bytes)",
                        size - used, used);
    }
    if (consumed) *consumed = used;
    return CUZK_OK;
}

size_t cuzk_bp_vk_size(const cuzk_vk *vk) { return VK_FIXED + 4 + 96 * (size_t)vk->n_ic; }

cuzk_status cuzk_bp_vk_encode(uint8_t *out, const cuzk_vk *vk, char *err)
{
    fmt_clear(err);
    if (!out || !vk || (!vk->ic && vk->n_ic))
        return fmt_fail(err, CUZK_ERR_INVALID_ARGUMENT, "vk: NULL argument");
    if (!vk->has_g1_extras)
        return fmt_fail(err, CUZK_ERR_INVALID_ARGUMENT,
                        "vk: beta_g1/delta_g1 unknown (a key read from vk.json cannot be "
                        "written as a bellperson .vk)");
    for (uint32_t i = 0; i < vk->n_ic; i++)
        if (cuzk_g1_affine_is_inf(&vk->ic[i]))
            return fmt_fail(err, CUZK_ERR_INVALID_ARGUMENT,
                            "vk: ic point %u is the identity (bellperson rejects it)", i);
    cuzk_g1_to_uncompressed(out, &vk->alpha_g1);
    cuzk_g1_to_uncompressed(out + 96, &vk->beta_g1);
    cuzk_g2_to_uncompressed(out + 192, &vk->beta_g2);
    cuzk_g2_to_uncompressed(out + 384, &vk->gamma_g2);
    cuzk_g1_to_uncompressed(out + 576, &vk->delta_g1);
    cuzk_g2_to_uncompressed(out + 672, &vk->delta_g2);
    wr_u32be(out + VK_FIXED, vk->n_ic);
    for (uint32_t i = 0; i < vk->n_ic; i++)
        cuzk_g1_to_uncompressed(out + VK_FIXED + 4 + 96 * (size_t)i, &vk->ic[i]);
    return CUZK_OK;
}

/* -------------------------------------------------------------- params -- */

static cuzk_status read_vector(cuzk_points *v, const uint8_t *data, size_t size, uint64_t *pos,
                               int g2, int identity_ok, const char *name, char *err)
{
    if (size - *pos < 4)
        return fmt_fail(err, CUZK_ERR_TRUNCATED,
                        "params: file ends before the count of vector %s (offset %llu)", name,
                        (unsigned long long)*pos);
    uint32_t n = rd_u32be(data + *pos);
    *pos += 4;
    uint64_t need = (uint64_t)n * (g2 ? 192 : 96);
    if (need > size - *pos)
        return fmt_fail(err, CUZK_ERR_TRUNCATED,
                        "params: vector %s (%u points) is %llu bytes short", name, n,
                        (unsigned long long)(need - (size - *pos)));
    *v = (cuzk_points){data + *pos, n, (uint8_t)g2, CUZK_ENC_ZCASH, (uint8_t)identity_ok};
    *pos += need;
    return CUZK_OK;
}

static cuzk_status check_vector(const cuzk_points *v, int subgroup, const char *name,
                                char *err)
{
    uint64_t bad = UINT64_MAX;
    cuzk_status s = cuzk_points_check(v, subgroup, 0, &bad);
    if (s == CUZK_OK) return s;
    const uint8_t *b = v->bytes + bad * point_size(v);
    int zero = 1;
    for (size_t i = 0; i < point_size(v); i++) zero &= b[i] == 0;
    if (zero)
        return fmt_fail(err, s,
                        "params: %s point %llu is all-zero bytes (identity as written by "
                        "`snarkjs zkey export bellman`: read it with CUZK_FMT_SNARKJS_BELLMAN, "
                        "cuzk --snarkjs-export)",
                        name, (unsigned long long)bad);
    return fmt_points_check_msg(v, subgroup, "params", name, err);
}

cuzk_status cuzk_bp_params_parse(cuzk_bp_params *p, const uint8_t *data, size_t size,
                                 unsigned flags, char *err)
{
    cuzk_status s;
    size_t used;
    fmt_clear(err);
    if (!p || (!data && size))
        return fmt_fail(err, CUZK_ERR_INVALID_ARGUMENT, "params: NULL argument");
    memset(p, 0, sizeof *p);
    int sj = !!(flags & CUZK_FMT_SNARKJS_BELLMAN);
    p->roots = sj ? CUZK_ROOTS_SNARKJS : CUZK_ROOTS_BELLPERSON;
    if ((s = vk_read(&p->vk, data, size, &used, "params", err)) != CUZK_OK) goto fail;
    uint64_t pos = used;
    if ((s = read_vector(&p->h, data, size, &pos, 0, sj, "h", err)) != CUZK_OK ||
        (s = read_vector(&p->l, data, size, &pos, 0, sj, "l", err)) != CUZK_OK ||
        (s = read_vector(&p->a, data, size, &pos, 0, sj, "a", err)) != CUZK_OK ||
        (s = read_vector(&p->b_g1, data, size, &pos, 0, sj, "b_g1", err)) != CUZK_OK ||
        (s = read_vector(&p->b_g2, data, size, &pos, 1, sj, "b_g2", err)) != CUZK_OK)
        goto fail;
    p->trailer_offset = pos;
    p->trailer_size = size - pos;

    uint64_t n_ic = p->vk.n_ic, n_vars = n_ic + p->l.n;
    if (!is_pow2_u64(p->h.n + 1)) {
        s = fmt_fail(err, CUZK_ERR_BAD_ENCODING,
                     "params: h has %llu points; it must have (a power of two) - 1",
                     (unsigned long long)p->h.n);
        goto fail;
    }
    if (p->h.n + 1 > (1ull << 31)) {
        s = fmt_fail(err, CUZK_ERR_BAD_ENCODING, "params: a domain of %llu points is not "
                     "supported (at most 2^31)", (unsigned long long)p->h.n + 1);
        goto fail;
    }
    p->domain_size = (uint32_t)(p->h.n + 1);
    if (p->b_g1.n != p->b_g2.n) {
        s = fmt_fail(err, CUZK_ERR_BAD_ENCODING, "params: b_g1 has %llu points but b_g2 %llu",
                     (unsigned long long)p->b_g1.n, (unsigned long long)p->b_g2.n);
        goto fail;
    }
    if (p->a.n < n_ic || p->a.n > n_vars || p->b_g1.n > n_vars) {
        s = fmt_fail(err, CUZK_ERR_BAD_ENCODING,
                     "params: a has %llu points and b %llu, for %llu inputs and %llu aux "
                     "variables", (unsigned long long)p->a.n, (unsigned long long)p->b_g1.n,
                     (unsigned long long)n_ic, (unsigned long long)p->l.n);
        goto fail;
    }
    if (sj && (p->a.n != n_vars || p->b_g1.n != n_vars)) {
        s = fmt_fail(err, CUZK_ERR_BAD_ENCODING,
                     "params: a snarkjs export has dense a and b (%llu points each), found "
                     "%llu and %llu", (unsigned long long)n_vars, (unsigned long long)p->a.n,
                     (unsigned long long)p->b_g1.n);
        goto fail;
    }
    if (!(flags & CUZK_FMT_TRUST_POINTS)) {
        int sg = !!(flags & CUZK_FMT_SUBGROUP);
        if ((s = check_vector(&p->h, sg, "h", err)) != CUZK_OK ||
            (s = check_vector(&p->l, sg, "l", err)) != CUZK_OK ||
            (s = check_vector(&p->a, sg, "a", err)) != CUZK_OK ||
            (s = check_vector(&p->b_g1, sg, "b_g1", err)) != CUZK_OK ||
            (s = check_vector(&p->b_g2, sg, "b_g2", err)) != CUZK_OK)
            goto fail;
    }
    return CUZK_OK;

fail:
    cuzk_bp_params_free(p);
    return s;
}

void cuzk_bp_params_free(cuzk_bp_params *p)
{
    if (!p) return;
    cuzk_vk_free(&p->vk);
    memset(p, 0, sizeof *p);
}

/* ------------------------------------------------------- params writer -- */

uint64_t cuzk_bp_params_size(const cuzk_bp_params_src *src)
{
    return (uint64_t)VK_FIXED + 4 + 96 * (uint64_t)src->vk->n_ic + 20 +
           96 * ((uint64_t)src->n_h + src->n_l + src->n_a + src->n_b) + 192 * (uint64_t)src->n_b;
}

/* Points encoded per fwrite: 12 MiB of G2 (6 of G1), ~19 ms (G2) or ~8 ms
 * (G1) of encoding on one core (measured 0.29 / 0.12 us a point, gcc -O3),
 * so thread start-up (tens of us) and the write calls are negligible while
 * the buffer stays small. */
#define WRITE_CHUNK 65536u

struct enc_ctx {
    const void *pts;
    uint8_t *out;
    int g2;
};

static void encode_range(void *vctx, size_t begin, size_t end)
{
    struct enc_ctx *c = vctx;
    for (size_t i = begin; i < end; i++) {
        if (c->g2)
            cuzk_g2_to_uncompressed(c->out + 192 * i, (const cuzk_g2_affine *)c->pts + i);
        else
            cuzk_g1_to_uncompressed(c->out + 96 * i, (const cuzk_g1_affine *)c->pts + i);
    }
}

static int write_vector(FILE *f, const void *pts, uint32_t n, int g2, uint8_t *buf)
{
    uint8_t cnt[4];
    wr_u32be(cnt, n);
    if (fwrite(cnt, 1, 4, f) != 4) return 0;
    size_t ps = g2 ? 192 : 96, es = g2 ? sizeof(cuzk_g2_affine) : sizeof(cuzk_g1_affine);
    for (uint64_t at = 0; at < n; at += WRITE_CHUNK) {
        size_t k = n - at < WRITE_CHUNK ? (size_t)(n - at) : WRITE_CHUNK;
        struct enc_ctx c = {(const uint8_t *)pts + at * es, buf, g2};
        cuzk_parallel_for(k, 1024, cuzk_ncores(), encode_range, &c);
        if (fwrite(buf, ps, k, f) != k) return 0;
    }
    return 1;
}

static cuzk_status no_identity(const void *pts, uint32_t n, int g2, const char *name, char *err)
{
    if (n && !pts)
        return fmt_fail(err, CUZK_ERR_INVALID_ARGUMENT, "params: vector %s is NULL", name);
    for (uint32_t i = 0; i < n; i++) {
        int inf = g2 ? cuzk_g2_affine_is_inf((const cuzk_g2_affine *)pts + i)
                     : cuzk_g1_affine_is_inf((const cuzk_g1_affine *)pts + i);
        if (inf)
            return fmt_fail(err, CUZK_ERR_INVALID_ARGUMENT,
                            "params: %s point %u is the identity (bellperson rejects it)",
                            name, i);
    }
    return CUZK_OK;
}

cuzk_status cuzk_bp_params_write(FILE *f, const cuzk_bp_params_src *src, char *err)
{
    cuzk_status s;
    fmt_clear(err);
    if (!f || !src || !src->vk)
        return fmt_fail(err, CUZK_ERR_INVALID_ARGUMENT, "params: NULL argument");
    if (!is_pow2_u64((uint64_t)src->n_h + 1))
        return fmt_fail(err, CUZK_ERR_INVALID_ARGUMENT,
                        "params: n_h = %u is not (a power of two) - 1", src->n_h);
    if ((s = no_identity(src->h, src->n_h, 0, "h", err)) != CUZK_OK ||
        (s = no_identity(src->l, src->n_l, 0, "l", err)) != CUZK_OK ||
        (s = no_identity(src->a, src->n_a, 0, "a", err)) != CUZK_OK ||
        (s = no_identity(src->b_g1, src->n_b, 0, "b_g1", err)) != CUZK_OK ||
        (s = no_identity(src->b_g2, src->n_b, 1, "b_g2", err)) != CUZK_OK)
        return s;
    size_t vks = cuzk_bp_vk_size(src->vk);
    size_t bufsz = vks > (size_t)WRITE_CHUNK * 192 ? vks : (size_t)WRITE_CHUNK * 192;
    uint8_t *buf = malloc(bufsz);
    if (!buf) return fmt_fail(err, CUZK_ERR_NO_MEMORY, "params: out of memory");
    if ((s = cuzk_bp_vk_encode(buf, src->vk, err)) != CUZK_OK) {
        free(buf);
        return s;
    }
    int ok = fwrite(buf, 1, vks, f) == vks && write_vector(f, src->h, src->n_h, 0, buf) &&
             write_vector(f, src->l, src->n_l, 0, buf) &&
             write_vector(f, src->a, src->n_a, 0, buf) &&
             write_vector(f, src->b_g1, src->n_b, 0, buf) &&
             write_vector(f, src->b_g2, src->n_b, 1, buf);
    free(buf);
    if (!ok) return fmt_fail(err, CUZK_ERR_IO, "params: write failed");
    return CUZK_OK;
}

/* -------------------------------------------------------------- proofs -- */

cuzk_status cuzk_proofs_from_bytes(cuzk_proof *out, size_t n, const uint8_t *in, size_t len,
                                   char *err)
{
    fmt_clear(err);
    if ((!out && n) || (!in && len))
        return fmt_fail(err, CUZK_ERR_INVALID_ARGUMENT, "proof: NULL argument");
    if (n > SIZE_MAX / CUZK_PROOF_BYTES || len != n * CUZK_PROOF_BYTES)
        return fmt_fail(err,
                        len < n * CUZK_PROOF_BYTES ? CUZK_ERR_TRUNCATED : CUZK_ERR_BAD_ENCODING,
                        "proof: %zu bytes, expected %zu (%zu x 192)", len,
                        n * CUZK_PROOF_BYTES, n);
    for (size_t i = 0; i < n; i++) {
        const uint8_t *p = in + CUZK_PROOF_BYTES * i;
        cuzk_proof q;
        cuzk_status s;
        const char *what = "A";
        if ((s = cuzk_g1_from_compressed(&q.a, p, CUZK_DECODE_SUBGROUP)) == CUZK_OK) {
            what = "B";
            if ((s = cuzk_g2_from_compressed(&q.b, p + 48, CUZK_DECODE_SUBGROUP)) == CUZK_OK) {
                what = "C";
                s = cuzk_g1_from_compressed(&q.c, p + 144, CUZK_DECODE_SUBGROUP);
            }
        }
        if (s != CUZK_OK)
            return fmt_fail(err, s, "proof %zu: %s: %s", i, what, cuzk_strerror(s));
        if (cuzk_g1_affine_is_inf(&q.a) || cuzk_g2_affine_is_inf(&q.b) ||
            cuzk_g1_affine_is_inf(&q.c))
            return fmt_fail(err, CUZK_ERR_BAD_ENCODING, "proof %zu: %s is the identity", i,
                            cuzk_g1_affine_is_inf(&q.a) ? "A"
                            : cuzk_g2_affine_is_inf(&q.b) ? "B" : "C");
        out[i] = q;
    }
    return CUZK_OK;
}

cuzk_status cuzk_proofs_to_bytes(uint8_t *out, const cuzk_proof *p, size_t n, char *err)
{
    fmt_clear(err);
    if ((!out || !p) && n) return fmt_fail(err, CUZK_ERR_INVALID_ARGUMENT, "proof: NULL argument");
    for (size_t i = 0; i < n; i++)
        if (cuzk_g1_affine_is_inf(&p[i].a) || cuzk_g2_affine_is_inf(&p[i].b) ||
            cuzk_g1_affine_is_inf(&p[i].c))
            return fmt_fail(err, CUZK_ERR_INVALID_ARGUMENT,
                            "proof %zu has an identity point (Filecoin rejects it)", i);
    for (size_t i = 0; i < n; i++) {
        uint8_t *o = out + CUZK_PROOF_BYTES * i;
        cuzk_g1_to_compressed(o, &p[i].a);
        cuzk_g2_to_compressed(o + 48, &p[i].b);
        cuzk_g1_to_compressed(o + 144, &p[i].c);
    }
    return CUZK_OK;
}
