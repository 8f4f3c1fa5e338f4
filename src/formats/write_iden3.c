/* Writers of the iden3 formats: circom .r1cs (formats.md §7) and snarkjs
 * Groth16 .zkey (§9), the inverses of r1cs.c and zkey.c.
 *
 *   .r1cs  "r1cs" v1, sections 2 (constraints), 1 (header), 3 (wire map):
 *          circom's order, so a circom file re-encodes byte for byte.
 *   .zkey  "zkey" v1, sections 1..10 in order, as `snarkjs zkey contribute`
 *          writes them (snarkjs's `groth16 setup` writes 1 2 4 3 9 8 5 6 7
 *          10; readers locate sections by type, so both are fine).
 *
 * Every input is checked before the first byte is written. Output goes to
 * a sink: a malloc'd buffer of the exact size (the size is computed first),
 * or a file written through a buffer and cuzk_out (atomic for a regular
 * file; a .zkey can be many GB: it is streamed, never held in memory twice). */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include <cuzk/formats.h>

#include "formats/fmt_internal.h"

/* --------------------------------------------------------------- sinks -- */

#define SINK_BUF (1u << 20)

typedef struct {
    uint8_t *mem;      /* memory sink: exact-size buffer */
    uint64_t pos, cap;
    int fd;            /* file sink (fd >= 0): buffered */
    uint8_t *buf;
    size_t n;
    int io_errno;      /* first write error (file sink) */
} sink;

static void sink_flush(sink *k)
{
    const uint8_t *p = k->buf;
    size_t left = k->n;
    while (left && !k->io_errno) {
        ssize_t w = write(k->fd, p, left);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) {
            k->io_errno = w < 0 ? errno : EIO;
            break;
        }
        p += w;
        left -= (size_t)w;
    }
    k->n = 0;
}

/* Room for len bytes (len <= SINK_BUF) at the write position. The sizes are
 * computed before writing, so a memory sink never runs out. */
static uint8_t *sink_reserve(sink *k, size_t len)
{
    if (k->fd < 0) {
        uint8_t *p = k->mem + k->pos;
        k->pos += len;
        return p;
    }
    if (SINK_BUF - k->n < len) sink_flush(k);
    uint8_t *p = k->buf + k->n;
    k->n += len;
    k->pos += len;
    return p;
}

static void sink_put(sink *k, const void *data, size_t len)
{
    const uint8_t *p = data;
    while (len) {
        size_t c = len < SINK_BUF ? len : SINK_BUF;
        memcpy(sink_reserve(k, c), p, c);
        p += c;
        len -= c;
    }
}

static void put_u32(sink *k, uint32_t v) { wr_u32le(sink_reserve(k, 4), v); }

static void put_section(sink *k, uint32_t type, uint64_t size)
{
    uint8_t *p = sink_reserve(k, 12);
    wr_u32le(p, type);
    wr_u64le(p + 4, size);
}

static void put_file_header(sink *k, const char *magic, uint32_t version, uint32_t n_sections)
{
    uint8_t *p = sink_reserve(k, 12);
    memcpy(p, magic, 4);
    wr_u32le(p + 4, version);
    wr_u32le(p + 8, n_sections);
}

static void put_fr_modulus(sink *k)
{
    uint8_t *p = sink_reserve(k, 32);
    for (int i = 0; i < CUZK_FR_LIMBS; i++) wr_u64le(p + 8 * i, CUZK_FR_MODULUS[i]);
}

static void put_fp_modulus(sink *k)
{
    uint8_t *p = sink_reserve(k, 48);
    for (int i = 0; i < CUZK_FP_LIMBS; i++) wr_u64le(p + 8 * i, CUZK_FP_MODULUS[i]);
}

/* The body of a file: writes exactly `size` bytes to the sink. */
typedef void (*body_fn)(sink *k, const void *ctx);

static cuzk_status emit_mem(uint8_t **out, size_t *len, uint64_t size, body_fn body,
                            const void *ctx, const char *what, char *err)
{
    if (size > SIZE_MAX)
        return fmt_fail(err, CUZK_ERR_NO_MEMORY, "%s: %llu bytes do not fit in memory", what,
                        (unsigned long long)size);
    sink k = {.fd = -1};
    k.mem = malloc(size ? (size_t)size : 1);
    if (!k.mem)
        return fmt_fail(err, CUZK_ERR_NO_MEMORY, "%s: out of memory for %llu bytes", what,
                        (unsigned long long)size);
    k.cap = size;
    body(&k, ctx);
    if (k.pos != size) { /* cannot happen: sizes and body agree */
        free(k.mem);
        return fmt_fail(err, CUZK_ERR_INVALID_ARGUMENT, "%s: internal size mismatch", what);
    }
    *out = k.mem;
    *len = (size_t)size;
    return CUZK_OK;
}

static cuzk_status emit_file(const char *path, uint64_t size, body_fn body, const void *ctx,
                             const char *what, char *err)
{
    sink k = {.fd = -1};
    cuzk_out o;
    if (!(k.buf = malloc(SINK_BUF)))
        return fmt_fail(err, CUZK_ERR_NO_MEMORY, "%s: %s: out of memory", what, path);
    cuzk_status s = cuzk_out_open(&o, path, err);
    if (s != CUZK_OK) {
        free(k.buf);
        return s;
    }
    k.fd = o.fd; /* lent: o closes it */
    body(&k, ctx);
    sink_flush(&k);
    if (k.io_errno)
        s = fmt_fail(err, CUZK_ERR_IO, "%s: %s: write: %s", what, path, strerror(k.io_errno));
    else if (k.pos != size)
        s = fmt_fail(err, CUZK_ERR_INVALID_ARGUMENT, "%s: internal size mismatch", what);
    free(k.buf);
    if (s != CUZK_OK) {
        cuzk_out_abort(&o);
        return s;
    }
    return cuzk_out_close(&o, err); /* fsync + rename: old or new file, never torn */
}

/* ------------------------------------------------------- matrix checks -- */

/* Checks a CSR matrix of n_rows rows over n_wires wires and n_coeffs
 * coefficients (an absent matrix, row_start NULL, is fine when absent_ok). */
static cuzk_status check_sparse(const cuzk_sparse *s, uint64_t n_rows, uint32_t n_wires,
                                uint32_t n_coeffs, int absent_ok, const char *what, char mat,
                                char *err)
{
    if (!s->row_start) {
        if (absent_ok) return CUZK_OK;
        return fmt_fail(err, CUZK_ERR_INVALID_ARGUMENT, "%s: matrix %c is absent", what, mat);
    }
    if ((s->n_terms && (!s->wire || !s->coeff)) || s->row_start[0] != 0 ||
        s->row_start[n_rows] != s->n_terms)
        return fmt_fail(err, CUZK_ERR_INVALID_ARGUMENT,
                        "%s: matrix %c: row starts do not span its %llu terms", what, mat,
                        (unsigned long long)s->n_terms);
    for (uint64_t j = 0; j < n_rows; j++)
        if (s->row_start[j + 1] < s->row_start[j])
            return fmt_fail(err, CUZK_ERR_INVALID_ARGUMENT,
                            "%s: matrix %c: row %llu ends before it starts", what, mat,
                            (unsigned long long)j);
    for (uint64_t t = 0; t < s->n_terms; t++) {
        if (s->wire[t] >= n_wires)
            return fmt_fail(err, CUZK_ERR_INVALID_ARGUMENT,
                            "%s: matrix %c term %llu: wire %u out of range (%u wires)", what, mat,
                            (unsigned long long)t, s->wire[t], n_wires);
        if (s->coeff[t] >= n_coeffs)
            return fmt_fail(err, CUZK_ERR_INVALID_ARGUMENT,
                            "%s: matrix %c term %llu: coefficient %u out of range (%u)", what,
                            mat, (unsigned long long)t, s->coeff[t], n_coeffs);
    }
    return CUZK_OK;
}

static uint64_t row_len(const cuzk_sparse *s, uint64_t j)
{
    return s->row_start ? s->row_start[j + 1] - s->row_start[j] : 0;
}

/* ================================================================ r1cs == */

#define R1CS_FS 32u
#define R1CS_HDR (4u + R1CS_FS + 28u)

typedef struct {
    const cuzk_r1cs *r;
    uint8_t *coef_le; /* n_coeffs x 32 bytes: each coefficient, LE canonical */
    uint64_t sec2;    /* size of section 2 */
    uint64_t n_labels;
} r1cs_ctx;

static void r1cs_body(sink *k, const void *vctx)
{
    const r1cs_ctx *c = vctx;
    const cuzk_r1cs *r = c->r;
    const cuzk_sparse *mat[3] = {&r->m.a, &r->m.b, &r->m.c};

    put_file_header(k, "r1cs", 1, 3);
    put_section(k, 2, c->sec2);
    for (uint64_t j = 0; j < r->n_constraints; j++)
        for (int m = 0; m < 3; m++) {
            const cuzk_sparse *s = mat[m];
            put_u32(k, (uint32_t)row_len(s, j));
            if (!s->row_start) continue;
            for (uint64_t t = s->row_start[j]; t < s->row_start[j + 1]; t++) {
                uint8_t *p = sink_reserve(k, 4 + R1CS_FS);
                wr_u32le(p, s->wire[t]);
                memcpy(p + 4, c->coef_le + (size_t)s->coeff[t] * R1CS_FS, R1CS_FS);
            }
        }

    put_section(k, 1, R1CS_HDR);
    put_u32(k, R1CS_FS);
    put_fr_modulus(k);
    put_u32(k, r->n_wires);
    put_u32(k, r->n_pub_out);
    put_u32(k, r->n_pub_in);
    put_u32(k, r->n_prv_in);
    wr_u64le(sink_reserve(k, 8), c->n_labels);
    put_u32(k, r->n_constraints);

    put_section(k, 3, 8 * (uint64_t)r->n_wires);
    for (uint32_t i = 0; i < r->n_wires; i++)
        wr_u64le(sink_reserve(k, 8), r->labels ? r->labels[i] : i);
}

/* Checks r and prepares the context; *size = the file size. */
static cuzk_status r1cs_prepare(r1cs_ctx *c, uint64_t *size, const cuzk_r1cs *r, char *err)
{
    static const char W[] = "r1cs writer";
    memset(c, 0, sizeof *c);
    c->r = r;
    if (r->n_wires == 0)
        return fmt_fail(err, CUZK_ERR_INVALID_ARGUMENT, "%s: no wires (wire 0 is ONE)", W);
    if (1 + (uint64_t)r->n_pub_out + r->n_pub_in + r->n_prv_in > r->n_wires)
        return fmt_fail(err, CUZK_ERR_INVALID_ARGUMENT,
                        "%s: 1 + %u outputs + %u public + %u private inputs exceed %u wires", W,
                        r->n_pub_out, r->n_pub_in, r->n_prv_in, r->n_wires);
    if ((uint64_t)r->n_pub_out + r->n_pub_in != r->n_public)
        return fmt_fail(err, CUZK_ERR_INVALID_ARGUMENT,
                        "%s: n_public %u is not n_pub_out %u + n_pub_in %u", W, r->n_public,
                        r->n_pub_out, r->n_pub_in);
    if (r->m.n_rows != r->n_constraints)
        return fmt_fail(err, CUZK_ERR_INVALID_ARGUMENT,
                        "%s: the matrices have %llu rows, not n_constraints = %u", W,
                        (unsigned long long)r->m.n_rows, r->n_constraints);
    if (r->m.n_coeffs && !r->m.coeffs)
        return fmt_fail(err, CUZK_ERR_INVALID_ARGUMENT, "%s: NULL coefficient table", W);
    const cuzk_sparse *mat[3] = {&r->m.a, &r->m.b, &r->m.c};
    uint64_t terms = 0;
    cuzk_status s;
    for (int m = 0; m < 3; m++) {
        if ((s = check_sparse(mat[m], r->n_constraints, r->n_wires, r->m.n_coeffs, 1, W,
                              "ABC"[m], err)) != CUZK_OK)
            return s;
        if (mat[m]->row_start) terms += mat[m]->n_terms;
    }
    for (int m = 0; m < 3; m++)
        for (uint64_t j = 0; mat[m]->row_start && j < r->n_constraints; j++)
            if (row_len(mat[m], j) > UINT32_MAX)
                return fmt_fail(err, CUZK_ERR_INVALID_ARGUMENT,
                                "%s: constraint %llu %c has over 2^32 terms", W,
                                (unsigned long long)j, "ABC"[m]);
    c->sec2 = 12 * (uint64_t)r->n_constraints + (4 + R1CS_FS) * terms;
    c->n_labels = r->n_labels;
    if (!r->labels && c->n_labels < r->n_wires) c->n_labels = r->n_wires;
    *size = 12 + (12 + c->sec2) + (12 + R1CS_HDR) + (12 + 8 * (uint64_t)r->n_wires);

    c->coef_le = malloc((size_t)(r->m.n_coeffs ? r->m.n_coeffs : 1) * R1CS_FS);
    if (!c->coef_le) return fmt_fail(err, CUZK_ERR_NO_MEMORY, "%s: out of memory", W);
    for (uint32_t i = 0; i < r->m.n_coeffs; i++)
        cuzk_fr_to_le(c->coef_le + (size_t)i * R1CS_FS, &r->m.coeffs[i]);
    return CUZK_OK;
}

cuzk_status cuzk_r1cs_encode(uint8_t **out, size_t *len, const cuzk_r1cs *r, char *err)
{
    fmt_clear(err);
    if (out) *out = NULL;
    if (len) *len = 0;
    if (!out || !len || !r)
        return fmt_fail(err, CUZK_ERR_INVALID_ARGUMENT, "r1cs writer: NULL argument");
    r1cs_ctx c;
    uint64_t size = 0;
    cuzk_status s = r1cs_prepare(&c, &size, r, err);
    if (s == CUZK_OK) s = emit_mem(out, len, size, r1cs_body, &c, "r1cs writer", err);
    free(c.coef_le);
    return s;
}

cuzk_status cuzk_r1cs_write(const char *path, const cuzk_r1cs *r, char *err)
{
    fmt_clear(err);
    if (!path || !r) return fmt_fail(err, CUZK_ERR_INVALID_ARGUMENT, "r1cs writer: NULL argument");
    uint8_t *buf;
    size_t len;
    cuzk_status s = cuzk_r1cs_encode(&buf, &len, r, err);
    if (s != CUZK_OK) return s;
    s = cuzk_file_write(path, buf, len, err);
    free(buf);
    return s;
}

/* ================================================================ zkey == */

#define ZKEY_HDR2 964u
#define ZKEY_COEF_REC 44u
#define ZKEY_MPC_CONTRIB_FIXED (3u * 96u + 192u + 64u + 4u + 4u) /* before the params */

typedef struct {
    const cuzk_zkey_src *z;
    uint8_t *coef_enc;  /* n_coeffs x 32 bytes: c R^2 mod r, LE */
    uint32_t n_coef;    /* records in section 4 */
    uint64_t n_priv;    /* points in section 8 */
} zkey_ctx;

static uint64_t zkey_n_coef(const cuzk_matrices *m)
{
    return (m->a.row_start ? m->a.n_terms : 0) + (m->b.row_start ? m->b.n_terms : 0);
}

uint64_t cuzk_zkey_size(const cuzk_zkey_src *z)
{
    if (!z) return 0;
    uint64_t nv = z->n_vars, np = z->n_public;
    uint64_t n_priv = nv > np ? nv - np - 1 : 0;
    uint64_t n_coef = z->m ? zkey_n_coef(z->m) : 0;
    uint64_t mpc = z->mpc ? z->mpc_size : 68;
    return 12 + 10 * 12 + 4 + ZKEY_HDR2 + 96 * (np + 1) + 4 + ZKEY_COEF_REC * n_coef +
           96 * nv * 2 + 192 * nv + 96 * n_priv + 96 * (uint64_t)z->domain_size + mpc;
}

static void put_g1s(sink *k, const cuzk_g1_affine *p, uint64_t n)
{
    for (uint64_t i = 0; i < n; i++) cuzk_g1_to_lem(sink_reserve(k, 96), &p[i]);
}

static void put_g2s(sink *k, const cuzk_g2_affine *p, uint64_t n)
{
    for (uint64_t i = 0; i < n; i++) cuzk_g2_to_lem(sink_reserve(k, 192), &p[i]);
}

/* B1 (g2 = 0) or B2 over all n_vars variables: dense as given, or expanded
 * from the n_b points of the variables b_var (identity = 0 bytes). */
static void put_b(sink *k, const cuzk_zkey_src *z, int g2)
{
    size_t es = g2 ? 192 : 96;
    if (!z->b_var) {
        if (g2) put_g2s(k, z->b2, z->n_vars);
        else put_g1s(k, z->b1, z->n_vars);
        return;
    }
    uint32_t j = 0;
    for (uint32_t i = 0; i < z->n_vars; i++) {
        uint8_t *p = sink_reserve(k, es);
        if (j < z->n_b && z->b_var[j] == i) {
            if (g2) cuzk_g2_to_lem(p, &z->b2[j]);
            else cuzk_g1_to_lem(p, &z->b1[j]);
            j++;
        } else {
            memset(p, 0, es);
        }
    }
}

static void put_coef_rows(sink *k, const zkey_ctx *c, const cuzk_sparse *s, uint32_t matrix,
                          uint64_t j)
{
    if (!s->row_start) return;
    for (uint64_t t = s->row_start[j]; t < s->row_start[j + 1]; t++) {
        uint8_t *p = sink_reserve(k, ZKEY_COEF_REC);
        wr_u32le(p, matrix);
        wr_u32le(p + 4, (uint32_t)j);
        wr_u32le(p + 8, s->wire[t]);
        memcpy(p + 12, c->coef_enc + (size_t)s->coeff[t] * 32, 32);
    }
}

static void zkey_body(sink *k, const void *vctx)
{
    const zkey_ctx *c = vctx;
    const cuzk_zkey_src *z = c->z;
    const cuzk_vk *vk = z->vk;

    put_file_header(k, "zkey", 1, 10);
    put_section(k, 1, 4);
    put_u32(k, 1); /* Groth16 */

    put_section(k, 2, ZKEY_HDR2);
    put_u32(k, 48);
    put_fp_modulus(k);
    put_u32(k, 32);
    put_fr_modulus(k);
    put_u32(k, z->n_vars);
    put_u32(k, z->n_public);
    put_u32(k, z->domain_size);
    cuzk_g1_to_lem(sink_reserve(k, 96), &vk->alpha_g1);
    cuzk_g1_to_lem(sink_reserve(k, 96), &vk->beta_g1);
    cuzk_g2_to_lem(sink_reserve(k, 192), &vk->beta_g2);
    cuzk_g2_to_lem(sink_reserve(k, 192), &vk->gamma_g2);
    cuzk_g1_to_lem(sink_reserve(k, 96), &vk->delta_g1);
    cuzk_g2_to_lem(sink_reserve(k, 192), &vk->delta_g2);

    put_section(k, 3, 96 * ((uint64_t)z->n_public + 1));
    put_g1s(k, vk->ic, (uint64_t)z->n_public + 1);

    /* snarkjs: for each constraint its A terms, then its B terms (zkey_new
     * processConstraints; writeZKey keeps that order in its stable sort). */
    put_section(k, 4, 4 + ZKEY_COEF_REC * (uint64_t)c->n_coef);
    put_u32(k, c->n_coef);
    for (uint64_t j = 0; j < z->m->n_rows; j++) {
        put_coef_rows(k, c, &z->m->a, 0, j);
        put_coef_rows(k, c, &z->m->b, 1, j);
    }

    put_section(k, 5, 96 * (uint64_t)z->n_vars);
    put_g1s(k, z->a, z->n_vars);
    put_section(k, 6, 96 * (uint64_t)z->n_vars);
    put_b(k, z, 0);
    put_section(k, 7, 192 * (uint64_t)z->n_vars);
    put_b(k, z, 1);
    put_section(k, 8, 96 * c->n_priv);
    put_g1s(k, z->c, c->n_priv);
    put_section(k, 9, 96 * (uint64_t)z->domain_size);
    put_g1s(k, z->h, z->domain_size);

    if (z->mpc) {
        put_section(k, 10, z->mpc_size);
        sink_put(k, z->mpc, z->mpc_size);
    } else {
        put_section(k, 10, 68);
        uint8_t *p = sink_reserve(k, 68);
        if (z->cs_hash)
            memcpy(p, z->cs_hash, 64);
        else
            memset(p, 0, 64);
        wr_u32le(p + 64, 0); /* no contributions */
    }
}

/* Checks the structure of a raw section 10 (zkey_utils.js readMPCParams):
 * csHash[64], u32 n, n x {deltaAfter, g1_s, g1_sx (G1), g2_spx (G2),
 * transcript[64], u32 type, u32 paramLength, params}, nothing after. */
static cuzk_status check_mpc(const uint8_t *p, uint64_t n, char *err)
{
    static const char W[] = "zkey writer: section 10 (contributions)";
    if (n < 68)
        return fmt_fail(err, CUZK_ERR_INVALID_ARGUMENT,
                        "%s is %llu bytes, too short for the csHash and count", W,
                        (unsigned long long)n);
    uint32_t nc = rd_u32le(p + 64);
    uint64_t pos = 68;
    for (uint32_t i = 0; i < nc; i++) {
        if (n - pos < ZKEY_MPC_CONTRIB_FIXED)
            return fmt_fail(err, CUZK_ERR_INVALID_ARGUMENT, "%s ends in contribution %u of %u",
                            W, i, nc);
        uint32_t plen = rd_u32le(p + pos + ZKEY_MPC_CONTRIB_FIXED - 4);
        pos += ZKEY_MPC_CONTRIB_FIXED;
        if (plen > n - pos)
            return fmt_fail(err, CUZK_ERR_INVALID_ARGUMENT,
                            "%s: contribution %u's %u parameter bytes run past the end", W, i,
                            plen);
        pos += plen;
    }
    if (pos != n)
        return fmt_fail(err, CUZK_ERR_INVALID_ARGUMENT,
                        "%s: %llu bytes after the %u contributions", W,
                        (unsigned long long)(n - pos), nc);
    return CUZK_OK;
}

static cuzk_status zkey_prepare(zkey_ctx *c, const cuzk_zkey_src *z, char *err)
{
    static const char W[] = "zkey writer";
    memset(c, 0, sizeof *c);
    c->z = z;
    const cuzk_vk *vk = z->vk;
    const cuzk_matrices *m = z->m;
    if (!vk || !m)
        return fmt_fail(err, CUZK_ERR_INVALID_ARGUMENT, "%s: NULL verifying key or matrices", W);
    uint64_t n_in = (uint64_t)z->n_public + 1;
    if (n_in > z->n_vars)
        return fmt_fail(err, CUZK_ERR_INVALID_ARGUMENT, "%s: n_public %u + 1 exceeds n_vars %u",
                        W, z->n_public, z->n_vars);
    c->n_priv = z->n_vars - n_in;
    if (!is_pow2_u64(z->domain_size))
        return fmt_fail(err, CUZK_ERR_INVALID_ARGUMENT,
                        "%s: domain size %u is not a power of two", W, z->domain_size);
    if (!vk->has_g1_extras)
        return fmt_fail(err, CUZK_ERR_INVALID_ARGUMENT,
                        "%s: the verifying key lacks beta1/delta1 (a .zkey header needs them)",
                        W);
    struct {
        const char *name;
        int inf;
    } hdr[6] = {{"alpha1", cuzk_g1_affine_is_inf(&vk->alpha_g1)},
                {"beta1", cuzk_g1_affine_is_inf(&vk->beta_g1)},
                {"beta2", cuzk_g2_affine_is_inf(&vk->beta_g2)},
                {"gamma2", cuzk_g2_affine_is_inf(&vk->gamma_g2)},
                {"delta1", cuzk_g1_affine_is_inf(&vk->delta_g1)},
                {"delta2", cuzk_g2_affine_is_inf(&vk->delta_g2)}};
    for (int i = 0; i < 6; i++)
        if (hdr[i].inf)
            return fmt_fail(err, CUZK_ERR_INVALID_ARGUMENT,
                            "%s: header point %s is the identity", W, hdr[i].name);
    if (vk->n_ic != n_in || !vk->ic)
        return fmt_fail(err, CUZK_ERR_INVALID_ARGUMENT,
                        "%s: the verifying key has %u IC points; %u public need %llu", W,
                        vk->n_ic, z->n_public, (unsigned long long)n_in);
    uint64_t n_b = z->b_var ? z->n_b : z->n_vars;
    if ((z->n_vars && !z->a) || (n_b && (!z->b1 || !z->b2)) || (c->n_priv && !z->c) || !z->h)
        return fmt_fail(err, CUZK_ERR_INVALID_ARGUMENT, "%s: NULL point array", W);
    if (z->b_var) {
        if (z->n_b > z->n_vars)
            return fmt_fail(err, CUZK_ERR_INVALID_ARGUMENT,
                            "%s: %u B variables for %u variables", W, z->n_b, z->n_vars);
        for (uint32_t j = 0; j < z->n_b; j++)
            if (z->b_var[j] >= z->n_vars || (j && z->b_var[j] <= z->b_var[j - 1]))
                return fmt_fail(err, CUZK_ERR_INVALID_ARGUMENT,
                                "%s: B variable list entry %u (%u) is not ascending below %u", W,
                                j, z->b_var[j], z->n_vars);
    }

    /* Section 4 */
    if (m->n_rows < n_in || m->n_rows > z->domain_size)
        return fmt_fail(err, CUZK_ERR_INVALID_ARGUMENT,
                        "%s: %llu rows; need the %llu input rows and at most the domain "
                        "size %u", W, (unsigned long long)m->n_rows, (unsigned long long)n_in,
                        z->domain_size);
    if (m->n_coeffs && !m->coeffs)
        return fmt_fail(err, CUZK_ERR_INVALID_ARGUMENT, "%s: NULL coefficient table", W);
    cuzk_status s;
    if ((s = check_sparse(&m->a, m->n_rows, z->n_vars, m->n_coeffs, 0, W, 'A', err)) != CUZK_OK ||
        (s = check_sparse(&m->b, m->n_rows, z->n_vars, m->n_coeffs, 1, W, 'B', err)) != CUZK_OK)
        return s;
    uint64_t n_cons = m->n_rows - n_in;
    for (uint64_t i = 0; i < n_in; i++) {
        uint64_t j = n_cons + i, k = m->a.row_start[j];
        if (row_len(&m->a, j) != 1 || m->a.wire[k] != i ||
            !cuzk_fr_is_one(&m->coeffs[m->a.coeff[k]]) || row_len(&m->b, j) != 0)
            return fmt_fail(err, CUZK_ERR_INVALID_ARGUMENT,
                            "%s: row %llu is not the input row 1 * wire %llu (the last "
                            "n_public + 1 rows must be input rows)", W, (unsigned long long)j,
                            (unsigned long long)i);
    }
    uint64_t nc = zkey_n_coef(m);
    if (nc > UINT32_MAX)
        return fmt_fail(err, CUZK_ERR_INVALID_ARGUMENT,
                        "%s: %llu coefficients do not fit section 4's u32 count", W,
                        (unsigned long long)nc);
    c->n_coef = (uint32_t)nc;
    if (z->mpc && (s = check_mpc(z->mpc, z->mpc_size, err)) != CUZK_OK) return s;

    /* The stored value of c is c R^2 (formats.md §9.4): the Montgomery
     * product of c (limbs c R) and the element whose limbs are R^2, i.e. the
     * element R (from_limbs(R) has limbs R * R), has limbs c R R^2 / R. */
    c->coef_enc = malloc((size_t)(m->n_coeffs ? m->n_coeffs : 1) * 32);
    if (!c->coef_enc) return fmt_fail(err, CUZK_ERR_NO_MEMORY, "%s: out of memory", W);
    cuzk_fr r_elem, t;
    cuzk_fr_from_limbs(&r_elem, CUZK_FR_ONE.l); /* CUZK_FR_ONE's limbs are R mod r */
    for (uint32_t i = 0; i < m->n_coeffs; i++) {
        cuzk_fr_mul(&t, &m->coeffs[i], &r_elem);
        cuzk_fr_to_lem(c->coef_enc + (size_t)i * 32, &t);
    }
    return CUZK_OK;
}

cuzk_status cuzk_zkey_encode(uint8_t **out, size_t *len, const cuzk_zkey_src *src, char *err)
{
    fmt_clear(err);
    if (out) *out = NULL;
    if (len) *len = 0;
    if (!out || !len || !src)
        return fmt_fail(err, CUZK_ERR_INVALID_ARGUMENT, "zkey writer: NULL argument");
    zkey_ctx c;
    cuzk_status s = zkey_prepare(&c, src, err);
    if (s == CUZK_OK)
        s = emit_mem(out, len, cuzk_zkey_size(src), zkey_body, &c, "zkey writer", err);
    free(c.coef_enc);
    return s;
}

cuzk_status cuzk_zkey_write(const char *path, const cuzk_zkey_src *src, char *err)
{
    fmt_clear(err);
    if (!path || !src) return fmt_fail(err, CUZK_ERR_INVALID_ARGUMENT, "zkey writer: NULL argument");
    zkey_ctx c;
    cuzk_status s = zkey_prepare(&c, src, err);
    if (s == CUZK_OK)
        s = emit_file(path, cuzk_zkey_size(src), zkey_body, &c, "zkey writer", err);
    free(c.coef_enc);
    return s;
}
