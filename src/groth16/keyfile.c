/* The native key file ".cuzk": writer, checking reader, loader.
 *
 * Layout (all integers little-endian; docs/keys.md has the full table):
 *   [0, 1024)  header: magic "cuzk-key", version (2), header size, file
 *              size, header XXH64 (of the 1024 bytes with this field
 *              zeroed), flags, roots, H form, log_domain, n_vars, n_public,
 *              n_rows, n_coeffs, n_sections, n_b, a 64-byte label, then the
 *              section table: per section id, element size, count, offset,
 *              XXH64 of its bytes (cuzk_body_hash: chunked, parallel)
 *   sections   in id order, each at the next multiple of 64, zero padding
 *              between them; the file ends at the last section's end
 *              rounded up to 64:
 *     1 vk       alpha_g1 beta_g1 beta_g2 gamma_g2 delta_g1 delta_g2 (864 B)
 *     2 IC       n_public + 1 cuzk_g1_affine
 *     3 A        n_vars cuzk_g1_affine (dense)
 *     4 B vars   n_b u32, strictly ascending, < n_vars (pk->b_var)
 *     5 B1       n_b cuzk_g1_affine       6 B2  n_b cuzk_g2_affine
 *     7 L        n_vars - n_public - 1 cuzk_g1_affine
 *     8 H        2^log_domain (Lagrange) or 2^log_domain - 1 (monomial)
 *     with the matrices (flag 1):
 *     9 coefficients  n_coeffs cuzk_fr (Montgomery)
 *     10..12 A: row starts (u64, n_rows + 1), wires (u32), coefficient
 *            indices (u32); 13..15 B; 16..18 C (flag 2)
 * Version 1 (dense B1/B2, no B vars, ids shifted) is refused by name.
 * Points are the in-memory structs (Montgomery limbs; identity = all
 * zero), so a section can be handed to the GPU or used in place. The
 * checksums are those of the PCE (src/common/hash.c). */
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cuzk/groth16.h>

#include "common/errmsg.h"
#include "common/hash.h" /* cuzk_xxh64, cuzk_body_hash */
#include "common/parallel.h"

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "key files store the in-memory layout of little-endian hosts"
#endif

#define KEY_MAGIC "cuzk-key"
#define KEY_HDR 1024u
#define KEY_ALIGN 64u
#define KEY_VK_BYTES 864u
#define KEY_MAX_SECTIONS 18u

enum {
    K_MAGIC = 0, K_VERSION = 8, K_HEADER_BYTES = 12, K_FILE_BYTES = 16, K_HEADER_HASH = 24,
    K_FLAGS = 32, K_ROOTS = 36, K_H_FORM = 40, K_LOG_DOMAIN = 44, K_N_VARS = 48,
    K_N_PUBLIC = 52, K_N_ROWS = 56, K_N_COEFFS = 64, K_N_SECTIONS = 68, K_N_B = 72,
    K_RESERVED = 76, /* ..127, zero */
    K_LABEL = 128,   /* 64 bytes, NUL-terminated */
    K_TABLE = 192,   /* 32 bytes a section */
    K_SEC_BYTES = 32
};
enum { F_MATRICES = 1u, F_C = 2u };
enum { KS_VK = 1, KS_IC, KS_A, KS_BVAR, KS_B1, KS_B2, KS_L, KS_H, KS_COEFFS, KS_MAT0 }; /* KS_MAT0 + 3k + {0,1,2} */

static const char *const SEC_NAME[] = {
    "?", "vk", "IC", "A", "B variables", "B (G1)", "B (G2)", "L", "H", "coefficients",
    "A row starts", "A wires", "A coefficient indices",
    "B row starts", "B wires", "B coefficient indices",
    "C row starts", "C wires", "C coefficient indices"};

#define kfail(err, s, ...) cuzk_errf((err), (s), "key: ", __VA_ARGS__)

static void wr32(uint8_t *p, uint32_t v) { memcpy(p, &v, 4); }
static void wr64(uint8_t *p, uint64_t v) { memcpy(p, &v, 8); }
static uint32_t rd32(const uint8_t *p) { uint32_t v; memcpy(&v, p, 4); return v; }
static uint64_t rd64(const uint8_t *p) { uint64_t v; memcpy(&v, p, 8); return v; }

/* One section as the layout sees it. */
typedef struct {
    uint32_t id, elem;
    uint64_t count, off, hash;
    const void *data; /* writer: the bytes */
} ksec;

static uint64_t n_h_of(uint32_t h_form, unsigned log_domain)
{
    uint64_t n = (uint64_t)1 << log_domain;
    return h_form == CUZK_H_LAGRANGE ? n : n - 1;
}

/* Section ids present for the flags, in order; returns their count. */
static unsigned section_ids(uint32_t flags, uint32_t *ids)
{
    unsigned n = 0;
    for (uint32_t id = KS_VK; id <= KS_H; id++) ids[n++] = id;
    if (flags & F_MATRICES) {
        ids[n++] = KS_COEFFS;
        for (uint32_t id = KS_MAT0; id < KS_MAT0 + ((flags & F_C) ? 9u : 6u); id++) ids[n++] = id;
    }
    return n;
}

static uint32_t elem_of(uint32_t id)
{
    switch (id) {
    case KS_VK: return KEY_VK_BYTES;
    case KS_B2: return sizeof(cuzk_g2_affine);
    case KS_IC: case KS_A: case KS_B1: case KS_L: case KS_H: return sizeof(cuzk_g1_affine);
    case KS_COEFFS: return sizeof(cuzk_fr);
    case KS_BVAR: return 4u;
    default: return (id - KS_MAT0) % 3 == 0 ? 8u : 4u;
    }
}

/* Assigns canonical offsets; 0 on overflow or beyond limit. */
static int layout(ksec *s, unsigned n, uint64_t limit, uint64_t *file_bytes)
{
    uint64_t pos = KEY_HDR, sz;
    for (unsigned i = 0; i < n; i++) {
        if (__builtin_mul_overflow(s[i].count, (uint64_t)s[i].elem, &sz)) return 0;
        if (__builtin_add_overflow(pos, KEY_ALIGN - 1, &pos)) return 0;
        pos &= ~(uint64_t)(KEY_ALIGN - 1);
        s[i].off = pos;
        if (__builtin_add_overflow(pos, sz, &pos) || pos > limit) return 0;
    }
    if (__builtin_add_overflow(pos, KEY_ALIGN - 1, &pos)) return 0;
    pos &= ~(uint64_t)(KEY_ALIGN - 1);
    if (pos > limit) return 0;
    *file_bytes = pos;
    return 1;
}

/* ------------------------------------------------------------ writer -- */

static int write_all(int fd, const void *data, uint64_t len)
{
    const uint8_t *p = data;
    while (len) {
        size_t c = len > ((size_t)1 << 30) ? (size_t)1 << 30 : (size_t)len;
        ssize_t w = write(fd, p, c);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) {
            if (w == 0) errno = EIO;
            return 0;
        }
        p += w;
        len -= (uint64_t)w;
    }
    return 1;
}

static void vk_bytes(uint8_t *out, const cuzk_vk *vk)
{
    memcpy(out, &vk->alpha_g1, 96);
    memcpy(out + 96, &vk->beta_g1, 96);
    memcpy(out + 192, &vk->beta_g2, 192);
    memcpy(out + 384, &vk->gamma_g2, 192);
    memcpy(out + 576, &vk->delta_g1, 96);
    memcpy(out + 672, &vk->delta_g2, 192);
}

cuzk_status cuzk_keyfile_write(const char *path, const cuzk_groth16_pk *pk, const char *label,
                               unsigned flags, char *err)
{
    if (err) err[0] = 0;
    if (!path || !pk) return kfail(err, CUZK_ERR_INVALID_ARGUMENT, "NULL argument");
    if (label && strlen(label) > 63)
        return kfail(err, CUZK_ERR_INVALID_ARGUMENT, "label longer than 63 bytes");
    if (pk->log_domain < 1 || pk->log_domain > CUZK_NTT_MAX_LOG || pk->n_vars < pk->n_public + 1 ||
        !pk->vk.has_g1_extras || pk->vk.n_ic != pk->n_public + 1 || !pk->a || !pk->h ||
        !pk->vk.ic || (pk->n_vars > pk->n_public + 1 && !pk->l) || pk->n_b > pk->n_vars ||
        (pk->n_b && (!pk->b_var || !pk->b1 || !pk->b2)))
        return kfail(err, CUZK_ERR_INVALID_ARGUMENT, "incomplete proving key");
    for (uint32_t j = 0; j < pk->n_b; j++)
        if (pk->b_var[j] >= pk->n_vars || (j && pk->b_var[j] <= pk->b_var[j - 1]))
            return kfail(err, CUZK_ERR_INVALID_ARGUMENT, "B variable list entry %u (%u) is not "
                         "ascending below %u", j, pk->b_var[j], pk->n_vars);
    uint32_t kf = 0;
    const cuzk_matrices *m = &pk->m;
    if (!(flags & CUZK_KEYFILE_NO_MATRICES) && m->a.row_start) {
        if (!m->b.row_start)
            return kfail(err, CUZK_ERR_INVALID_ARGUMENT, "the key's matrices have no B");
        kf = F_MATRICES | (m->c.row_start ? F_C : 0);
    }
    uint8_t vkb[KEY_VK_BYTES];
    vk_bytes(vkb, &pk->vk);
    ksec s[KEY_MAX_SECTIONS];
    uint32_t ids[KEY_MAX_SECTIONS];
    unsigned ns = section_ids(kf, ids);
    const cuzk_sparse *sp[3] = {&m->a, &m->b, &m->c};
    for (unsigned i = 0; i < ns; i++) {
        uint32_t id = ids[i];
        s[i] = (ksec){id, elem_of(id), 0, 0, 0, NULL};
        switch (id) {
        case KS_VK: s[i].count = 1; s[i].data = vkb; break;
        case KS_IC: s[i].count = pk->vk.n_ic; s[i].data = pk->vk.ic; break;
        case KS_A: s[i].count = pk->n_vars; s[i].data = pk->a; break;
        case KS_BVAR: s[i].count = pk->n_b; s[i].data = pk->b_var; break;
        case KS_B1: s[i].count = pk->n_b; s[i].data = pk->b1; break;
        case KS_B2: s[i].count = pk->n_b; s[i].data = pk->b2; break;
        case KS_L: s[i].count = pk->n_vars - pk->n_public - 1; s[i].data = pk->l; break;
        case KS_H: s[i].count = n_h_of(pk->h_form, pk->log_domain); s[i].data = pk->h; break;
        case KS_COEFFS: s[i].count = m->n_coeffs; s[i].data = m->coeffs; break;
        default: {
            const cuzk_sparse *q = sp[(id - KS_MAT0) / 3];
            unsigned f = (id - KS_MAT0) % 3;
            s[i].count = f == 0 ? m->n_rows + 1 : q->n_terms;
            s[i].data = f == 0 ? (const void *)q->row_start
                      : f == 1 ? (const void *)q->wire : (const void *)q->coeff;
        }
        }
        if (s[i].count && !s[i].data)
            return kfail(err, CUZK_ERR_INVALID_ARGUMENT, "section %s is NULL", SEC_NAME[id]);
        if (cuzk_body_hash(&s[i].hash, s[i].data, s[i].count * s[i].elem, 0) != CUZK_OK)
            return kfail(err, CUZK_ERR_NO_MEMORY, "out of memory (checksums)");
    }
    uint64_t file_bytes;
    if (!layout(s, ns, UINT64_MAX, &file_bytes))
        return kfail(err, CUZK_ERR_INVALID_ARGUMENT, "the key is too large");

    uint8_t hdr[KEY_HDR];
    memset(hdr, 0, sizeof hdr);
    memcpy(hdr + K_MAGIC, KEY_MAGIC, 8);
    wr32(hdr + K_VERSION, CUZK_KEYFILE_VERSION);
    wr32(hdr + K_HEADER_BYTES, KEY_HDR);
    wr64(hdr + K_FILE_BYTES, file_bytes);
    wr32(hdr + K_FLAGS, kf);
    wr32(hdr + K_ROOTS, (uint32_t)pk->roots);
    wr32(hdr + K_H_FORM, (uint32_t)pk->h_form);
    wr32(hdr + K_LOG_DOMAIN, pk->log_domain);
    wr32(hdr + K_N_VARS, pk->n_vars);
    wr32(hdr + K_N_PUBLIC, pk->n_public);
    wr64(hdr + K_N_ROWS, kf ? m->n_rows : 0);
    wr32(hdr + K_N_COEFFS, kf ? m->n_coeffs : 0);
    wr32(hdr + K_N_SECTIONS, ns);
    wr32(hdr + K_N_B, pk->n_b);
    if (label) memcpy(hdr + K_LABEL, label, strlen(label));
    for (unsigned i = 0; i < ns; i++) {
        uint8_t *e = hdr + K_TABLE + K_SEC_BYTES * i;
        wr32(e, s[i].id);
        wr32(e + 4, s[i].elem);
        wr64(e + 8, s[i].count);
        wr64(e + 16, s[i].off);
        wr64(e + 24, s[i].hash);
    }
    wr64(hdr + K_HEADER_HASH, cuzk_xxh64(hdr, KEY_HDR, 0));

    /* cuzk_out: atomic for a regular file (fsync + rename: after a crash
     * path holds the old or the new key), in place for a device or FIFO. */
    cuzk_out o;
    char oerr[CUZK_ERRMSG_LEN];
    if (cuzk_out_open(&o, path, oerr) != CUZK_OK)
        return kfail(err, CUZK_ERR_IO, "%s", oerr);
    static const uint8_t zeros[KEY_ALIGN];
    uint64_t pos = KEY_HDR;
    int ok = write_all(o.fd, hdr, KEY_HDR);
    for (unsigned i = 0; ok && i < ns; i++) {
        ok = write_all(o.fd, zeros, s[i].off - pos) &&
             write_all(o.fd, s[i].data, s[i].count * s[i].elem);
        pos = s[i].off + s[i].count * s[i].elem;
    }
    ok = ok && write_all(o.fd, zeros, file_bytes - pos);
    if (!ok) {
        cuzk_status st = kfail(err, CUZK_ERR_IO, "%s: write: %s", path, strerror(errno));
        cuzk_out_abort(&o);
        return st;
    }
    if (cuzk_out_close(&o, oerr) != CUZK_OK) return kfail(err, CUZK_ERR_IO, "%s", oerr);
    return CUZK_OK;
}

/* ------------------------------------------------------------ reader -- */

static int fp_canonical(const cuzk_fp *a)
{
    for (int i = CUZK_FP_LIMBS - 1; i >= 0; i--)
        if (a->l[i] != CUZK_FP_MODULUS[i]) return a->l[i] < CUZK_FP_MODULUS[i];
    return 0;
}

static int fr_canonical(const cuzk_fr *a)
{
    for (int i = CUZK_FR_LIMBS - 1; i >= 0; i--)
        if (a->l[i] != CUZK_FR_MODULUS[i]) return a->l[i] < CUZK_FR_MODULUS[i];
    return 0;
}

static cuzk_status g1_check(const cuzk_g1_affine *p, int subgroup)
{
    if (!fp_canonical(&p->x) || !fp_canonical(&p->y)) return CUZK_ERR_NOT_CANONICAL;
    if (!cuzk_g1_affine_on_curve(p)) return CUZK_ERR_NOT_ON_CURVE;
    if (subgroup && !cuzk_g1_affine_in_subgroup(p)) return CUZK_ERR_NOT_IN_SUBGROUP;
    return CUZK_OK;
}

static cuzk_status g2_check(const cuzk_g2_affine *p, int subgroup)
{
    if (!fp_canonical(&p->x.c0) || !fp_canonical(&p->x.c1) || !fp_canonical(&p->y.c0) ||
        !fp_canonical(&p->y.c1))
        return CUZK_ERR_NOT_CANONICAL;
    if (!cuzk_g2_affine_on_curve(p)) return CUZK_ERR_NOT_ON_CURVE;
    if (subgroup && !cuzk_g2_affine_in_subgroup(p)) return CUZK_ERR_NOT_IN_SUBGROUP;
    return CUZK_OK;
}

/* Bulk curve checks: the lowest failing index of each range, merged. */
struct pts_job {
    const void *pts;
    int g2;
    _Atomic uint64_t bad;
};

static void pts_range(void *vctx, size_t b, size_t e)
{
    struct pts_job *j = vctx;
    for (size_t i = b; i < e; i++) {
        cuzk_status s = j->g2 ? g2_check((const cuzk_g2_affine *)j->pts + i, 0)
                              : g1_check((const cuzk_g1_affine *)j->pts + i, 0);
        if (s != CUZK_OK) {
            uint64_t cur = atomic_load(&j->bad);
            while (i < cur && !atomic_compare_exchange_weak(&j->bad, &cur, i))
                ;
            return;
        }
    }
}

static cuzk_status check_points(const void *pts, uint64_t n, int g2, unsigned nthreads,
                                const char *name, char *err)
{
    struct pts_job j = {pts, g2, UINT64_MAX};
    cuzk_parallel_for(n, 4096, nthreads, pts_range, &j);
    uint64_t i = atomic_load(&j.bad);
    if (i == UINT64_MAX) return CUZK_OK;
    cuzk_status s = g2 ? g2_check((const cuzk_g2_affine *)pts + i, 0)
                       : g1_check((const cuzk_g1_affine *)pts + i, 0);
    return kfail(err, s, "%s point %llu: %s", name, (unsigned long long)i, cuzk_strerror(s));
}

static cuzk_status check_sparse(const cuzk_sparse *s, uint64_t n_rows, uint32_t n_vars,
                                uint32_t n_coeffs, char name, char *err)
{
    const uint64_t *rs = s->row_start;
    if (rs[0] != 0 || rs[n_rows] != s->n_terms)
        return kfail(err, CUZK_ERR_BAD_ENCODING, "%c row starts run from %llu to %llu, "
                     "expected 0 to %llu (terms)", name, (unsigned long long)rs[0],
                     (unsigned long long)rs[n_rows], (unsigned long long)s->n_terms);
    for (uint64_t r = 0; r < n_rows; r++)
        if (rs[r + 1] < rs[r])
            return kfail(err, CUZK_ERR_BAD_ENCODING, "%c row %llu ends before it starts", name,
                         (unsigned long long)r);
    for (uint64_t t = 0; t < s->n_terms; t++) {
        if (s->wire[t] >= n_vars)
            return kfail(err, CUZK_ERR_BAD_ENCODING, "%c term %llu: wire %u out of range "
                         "(%u variables)", name, (unsigned long long)t, s->wire[t], n_vars);
        if (s->coeff[t] >= n_coeffs)
            return kfail(err, CUZK_ERR_BAD_ENCODING, "%c term %llu: coefficient %u out of "
                         "range (%u)", name, (unsigned long long)t, s->coeff[t], n_coeffs);
    }
    return CUZK_OK;
}

cuzk_status cuzk_keyfile_open(cuzk_keyfile *kf, const uint8_t *data, size_t size,
                              unsigned flags, unsigned nthreads, char *err)
{
    if (err) err[0] = 0;
    if (!kf) return kfail(err, CUZK_ERR_INVALID_ARGUMENT, "NULL argument");
    memset(kf, 0, sizeof *kf);
    kf->pk.storage = CUZK_PK_VIEW; /* also on failure: the views are not owned */
    if (!data && size) return kfail(err, CUZK_ERR_INVALID_ARGUMENT, "NULL argument");
    /* Before the alignment: an empty file's buffer is anything. */
    if (size == 0) return kfail(err, CUZK_ERR_TRUNCATED, "empty file");
    if ((uintptr_t)data % 8)
        return kfail(err, CUZK_ERR_INVALID_ARGUMENT, "the buffer is not 8-byte aligned");
    if (nthreads == 0) nthreads = cuzk_ncores();
    size_t mg = size < 8 ? size : 8;
    if (memcmp(data, KEY_MAGIC, mg) != 0)
        return kfail(err, CUZK_ERR_BAD_ENCODING, "not a cuzk key file (bad magic)");
    if (size < KEY_HDR)
        return kfail(err, CUZK_ERR_TRUNCATED, "%zu bytes, shorter than the %u-byte header",
                     size, KEY_HDR);
    uint32_t version = rd32(data + K_VERSION);
    if (version == 1)
        return kfail(err, CUZK_ERR_BAD_ENCODING, "version 1 key file (dense B): re-create it "
                     "with this cuzk (this build reads version %u)", CUZK_KEYFILE_VERSION);
    if (version != CUZK_KEYFILE_VERSION)
        return kfail(err, CUZK_ERR_BAD_ENCODING, "version %u; this build reads version %u",
                     version, CUZK_KEYFILE_VERSION);
    if (rd32(data + K_HEADER_BYTES) != KEY_HDR)
        return kfail(err, CUZK_ERR_BAD_ENCODING, "header size %u, expected %u",
                     rd32(data + K_HEADER_BYTES), KEY_HDR);
    {
        uint8_t hdr[KEY_HDR];
        memcpy(hdr, data, KEY_HDR);
        memset(hdr + K_HEADER_HASH, 0, 8);
        if (cuzk_xxh64(hdr, KEY_HDR, 0) != rd64(data + K_HEADER_HASH))
            return kfail(err, CUZK_ERR_BAD_ENCODING, "header checksum mismatch (the header "
                         "is corrupted)");
    }
    uint64_t file_bytes = rd64(data + K_FILE_BYTES);
    if (file_bytes > size)
        return kfail(err, CUZK_ERR_TRUNCATED, "the file is %zu bytes, its header says %llu "
                     "(truncated)", size, (unsigned long long)file_bytes);
    if (file_bytes < size)
        return kfail(err, CUZK_ERR_BAD_ENCODING, "%llu bytes after the end the header gives "
                     "(%llu)", (unsigned long long)(size - file_bytes),
                     (unsigned long long)file_bytes);
    uint32_t fl = rd32(data + K_FLAGS), roots = rd32(data + K_ROOTS), hf = rd32(data + K_H_FORM);
    uint32_t logd = rd32(data + K_LOG_DOMAIN), n_vars = rd32(data + K_N_VARS);
    uint32_t n_pub = rd32(data + K_N_PUBLIC), n_coeffs = rd32(data + K_N_COEFFS);
    uint64_t n_rows = rd64(data + K_N_ROWS);
    uint32_t n_sec = rd32(data + K_N_SECTIONS), n_b = rd32(data + K_N_B);
    if (fl & ~(uint32_t)(F_MATRICES | F_C) || ((fl & F_C) && !(fl & F_MATRICES)))
        return kfail(err, CUZK_ERR_BAD_ENCODING, "unknown flags 0x%x", fl);
    if (roots != CUZK_ROOTS_SNARKJS && roots != CUZK_ROOTS_BELLPERSON)
        return kfail(err, CUZK_ERR_BAD_ENCODING, "roots %u (5: snarkjs, 7: bellperson)", roots);
    if (hf != CUZK_H_LAGRANGE && hf != CUZK_H_MONOMIAL)
        return kfail(err, CUZK_ERR_BAD_ENCODING, "H form %u (0: Lagrange, 1: monomial)", hf);
    if (hf == CUZK_H_LAGRANGE && roots != CUZK_ROOTS_SNARKJS)
        return kfail(err, CUZK_ERR_BAD_ENCODING, "a Lagrange H query needs snarkjs roots (5)");
    if (logd < 1 || logd > CUZK_NTT_MAX_LOG)
        return kfail(err, CUZK_ERR_BAD_ENCODING, "domain 2^%u (1..%u)", logd, CUZK_NTT_MAX_LOG);
    if ((uint64_t)n_pub + 1 > n_vars)
        return kfail(err, CUZK_ERR_BAD_ENCODING, "%u public inputs but %u variables", n_pub,
                     n_vars);
    if (n_b > n_vars)
        return kfail(err, CUZK_ERR_BAD_ENCODING, "%u B variables but %u variables", n_b, n_vars);
    if (fl & F_MATRICES) {
        if (n_rows < 1 || n_rows > ((uint64_t)1 << logd))
            return kfail(err, CUZK_ERR_BAD_ENCODING, "%llu rows for a domain of 2^%u",
                         (unsigned long long)n_rows, logd);
    } else if (n_rows || n_coeffs) {
        return kfail(err, CUZK_ERR_BAD_ENCODING, "row or coefficient counts without matrices");
    }
    for (unsigned i = K_RESERVED; i < K_LABEL; i++)
        if (data[i]) return kfail(err, CUZK_ERR_BAD_ENCODING, "reserved header byte %u is not zero", i);
    if (data[K_LABEL + 63])
        return kfail(err, CUZK_ERR_BAD_ENCODING, "the label is not NUL-terminated");

    /* Section table: exactly the canonical one for these counts. */
    uint32_t ids[KEY_MAX_SECTIONS];
    unsigned ns = section_ids(fl, ids);
    if (n_sec != ns)
        return kfail(err, CUZK_ERR_BAD_ENCODING, "%u sections, expected %u", n_sec, ns);
    ksec s[KEY_MAX_SECTIONS];
    uint64_t nnz[3] = {0, 0, 0};
    for (unsigned i = 0; i < ns; i++) {
        const uint8_t *e = data + K_TABLE + K_SEC_BYTES * i;
        s[i] = (ksec){rd32(e), rd32(e + 4), rd64(e + 8), rd64(e + 16), rd64(e + 24), NULL};
        uint32_t id = ids[i];
        if (s[i].id != id || s[i].elem != elem_of(id))
            return kfail(err, CUZK_ERR_BAD_ENCODING, "section %u is id %u of %u-byte elements, "
                         "expected %s", i, s[i].id, s[i].elem, SEC_NAME[id]);
        uint64_t want;
        switch (id) {
        case KS_VK: want = 1; break;
        case KS_IC: want = (uint64_t)n_pub + 1; break;
        case KS_A: want = n_vars; break;
        case KS_BVAR: case KS_B1: case KS_B2: want = n_b; break;
        case KS_L: want = (uint64_t)n_vars - n_pub - 1; break;
        case KS_H: want = n_h_of(hf, logd); break;
        case KS_COEFFS: want = n_coeffs; break;
        default:
            if ((id - KS_MAT0) % 3 == 0) {
                want = n_rows + 1;
            } else if ((id - KS_MAT0) % 3 == 1) {
                want = nnz[(id - KS_MAT0) / 3] = s[i].count;
            } else {
                want = nnz[(id - KS_MAT0) / 3];
            }
        }
        if (s[i].count != want)
            return kfail(err, CUZK_ERR_BAD_ENCODING, "section %s has %llu elements, expected "
                         "%llu", SEC_NAME[id], (unsigned long long)s[i].count,
                         (unsigned long long)want);
    }
    for (unsigned i = ns * K_SEC_BYTES + K_TABLE; i < KEY_HDR; i++)
        if (data[i]) return kfail(err, CUZK_ERR_BAD_ENCODING, "reserved header byte %u is not zero", i);
    ksec c[KEY_MAX_SECTIONS];
    memcpy(c, s, sizeof c);
    uint64_t fb;
    if (!layout(c, ns, file_bytes, &fb))
        return kfail(err, CUZK_ERR_BAD_ENCODING, "the sections do not fit in the %llu-byte file",
                     (unsigned long long)file_bytes);
    if (fb != file_bytes)
        return kfail(err, CUZK_ERR_BAD_ENCODING, "file size %llu, the sections give %llu",
                     (unsigned long long)file_bytes, (unsigned long long)fb);
    uint64_t pos = KEY_HDR;
    for (unsigned i = 0; i < ns; i++) {
        if (c[i].off != s[i].off)
            return kfail(err, CUZK_ERR_BAD_ENCODING, "section %s at offset %llu, expected %llu",
                         SEC_NAME[s[i].id], (unsigned long long)s[i].off,
                         (unsigned long long)c[i].off);
        for (uint64_t p = pos; p < s[i].off; p++)
            if (data[p])
                return kfail(err, CUZK_ERR_BAD_ENCODING, "padding byte %llu is not zero",
                             (unsigned long long)p);
        pos = s[i].off + s[i].count * s[i].elem;
    }
    for (uint64_t p = pos; p < file_bytes; p++)
        if (data[p])
            return kfail(err, CUZK_ERR_BAD_ENCODING, "padding byte %llu is not zero",
                         (unsigned long long)p);
    if (!(flags & CUZK_KEYFILE_SKIP_HASH))
        for (unsigned i = 0; i < ns; i++) {
            uint64_t h;
            if (cuzk_body_hash(&h, data + s[i].off, s[i].count * s[i].elem, nthreads) != CUZK_OK)
                return kfail(err, CUZK_ERR_NO_MEMORY, "out of memory (checksums)");
            if (h != s[i].hash)
                return kfail(err, CUZK_ERR_BAD_ENCODING, "section %s: checksum mismatch (the "
                             "file is corrupted)", SEC_NAME[s[i].id]);
        }

    /* Bind the views. */
    cuzk_groth16_pk *pk = &kf->pk;
    const void *at[KEY_MAX_SECTIONS + 1] = {0};
    for (unsigned i = 0; i < ns; i++) at[s[i].id] = data + s[i].off;
    pk->roots = (cuzk_roots)roots;
    pk->h_form = (cuzk_h_form)hf;
    pk->n_vars = n_vars;
    pk->n_public = n_pub;
    pk->log_domain = logd;
    const uint8_t *vk = at[KS_VK];
    memcpy(&pk->vk.alpha_g1, vk, 96);
    memcpy(&pk->vk.beta_g1, vk + 96, 96);
    memcpy(&pk->vk.beta_g2, vk + 192, 192);
    memcpy(&pk->vk.gamma_g2, vk + 384, 192);
    memcpy(&pk->vk.delta_g1, vk + 576, 96);
    memcpy(&pk->vk.delta_g2, vk + 672, 192);
    pk->vk.has_g1_extras = 1;
    pk->vk.n_ic = n_pub + 1;
    pk->vk.ic = (cuzk_g1_affine *)at[KS_IC];
    pk->a = (cuzk_g1_affine *)at[KS_A];
    pk->n_b = n_b;
    pk->b_var = (uint32_t *)at[KS_BVAR];
    pk->b1 = (cuzk_g1_affine *)at[KS_B1];
    pk->b2 = (cuzk_g2_affine *)at[KS_B2];
    pk->l = (cuzk_g1_affine *)at[KS_L];
    pk->h = (cuzk_g1_affine *)at[KS_H];
    if (fl & F_MATRICES) {
        pk->m.n_rows = n_rows;
        pk->m.n_coeffs = n_coeffs;
        pk->m.coeffs = (cuzk_fr *)at[KS_COEFFS];
        cuzk_sparse *sp[3] = {&pk->m.a, &pk->m.b, &pk->m.c};
        for (int k = 0; k < ((fl & F_C) ? 3 : 2); k++) {
            sp[k]->n_terms = nnz[k];
            sp[k]->row_start = (uint64_t *)at[KS_MAT0 + 3 * k];
            sp[k]->wire = (uint32_t *)at[KS_MAT0 + 3 * k + 1];
            sp[k]->coeff = (uint32_t *)at[KS_MAT0 + 3 * k + 2];
        }
    }

    /* B's variables: always (the prover indexes the witness with them). */
    for (uint32_t j = 0; j < n_b; j++) {
        if (pk->b_var[j] >= n_vars)
            return kfail(err, CUZK_ERR_BAD_ENCODING, "B variable list entry %u names variable "
                         "%u of %u", j, pk->b_var[j], n_vars);
        if (j && pk->b_var[j] <= pk->b_var[j - 1])
            return kfail(err, CUZK_ERR_BAD_ENCODING, "B variable list entry %u (%u) is not "
                         "above the one before (%u): not strictly ascending", j, pk->b_var[j],
                         pk->b_var[j - 1]);
    }

    /* Points: the vk and IC fully; the bulk vectors on the curve. */
    cuzk_status st;
    const struct { const void *p; int g2; const char *name; } vkp[6] = {
        {&pk->vk.alpha_g1, 0, "alpha_g1"}, {&pk->vk.beta_g1, 0, "beta_g1"},
        {&pk->vk.beta_g2, 1, "beta_g2"},   {&pk->vk.gamma_g2, 1, "gamma_g2"},
        {&pk->vk.delta_g1, 0, "delta_g1"}, {&pk->vk.delta_g2, 1, "delta_g2"}};
    for (int i = 0; i < 6; i++) {
        st = vkp[i].g2 ? g2_check(vkp[i].p, 1) : g1_check(vkp[i].p, 1);
        if (st != CUZK_OK)
            return kfail(err, st, "vk %s: %s", vkp[i].name, cuzk_strerror(st));
        if (vkp[i].g2 ? cuzk_g2_affine_is_inf(vkp[i].p) : cuzk_g1_affine_is_inf(vkp[i].p))
            return kfail(err, CUZK_ERR_BAD_ENCODING, "vk %s is the identity", vkp[i].name);
    }
    for (uint32_t i = 0; i <= n_pub; i++)
        if ((st = g1_check(&pk->vk.ic[i], 1)) != CUZK_OK)
            return kfail(err, st, "IC point %u: %s", i, cuzk_strerror(st));
    if (!(flags & CUZK_KEYFILE_TRUST_POINTS)) {
        if ((st = check_points(pk->a, n_vars, 0, nthreads, "A", err)) != CUZK_OK ||
            (st = check_points(pk->b1, n_b, 0, nthreads, "B (G1)", err)) != CUZK_OK ||
            (st = check_points(pk->b2, n_b, 1, nthreads, "B (G2)", err)) != CUZK_OK ||
            (st = check_points(pk->l, n_vars - n_pub - 1, 0, nthreads, "L", err)) != CUZK_OK ||
            (st = check_points(pk->h, n_h_of(hf, logd), 0, nthreads, "H", err)) != CUZK_OK)
            return st;
    }
    if (fl & F_MATRICES) {
        for (uint32_t i = 0; i < n_coeffs; i++)
            if (!fr_canonical(&pk->m.coeffs[i]))
                return kfail(err, CUZK_ERR_NOT_CANONICAL, "coefficient %u is not below r", i);
        if ((st = check_sparse(&pk->m.a, n_rows, n_vars, n_coeffs, 'A', err)) != CUZK_OK ||
            (st = check_sparse(&pk->m.b, n_rows, n_vars, n_coeffs, 'B', err)) != CUZK_OK ||
            ((fl & F_C) &&
             (st = check_sparse(&pk->m.c, n_rows, n_vars, n_coeffs, 'C', err)) != CUZK_OK))
            return st;
    }
    memcpy(kf->label, data + K_LABEL, 64);
    kf->version = version;
    kf->has_matrices = !!(fl & F_MATRICES);
    kf->image = data;
    kf->image_size = size;
    return CUZK_OK;
}

cuzk_status cuzk_keyfile_map(cuzk_keyfile *kf, const char *path, unsigned flags,
                             unsigned nthreads, char *err)
{
    if (err) err[0] = 0;
    if (!kf || !path) return kfail(err, CUZK_ERR_INVALID_ARGUMENT, "NULL argument");
    memset(kf, 0, sizeof *kf);
    cuzk_blob b;
    cuzk_status s = cuzk_blob_map(&b, path, err);
    if (s != CUZK_OK) return s;
    if ((s = cuzk_keyfile_open(kf, b.data, b.size, flags, nthreads, err)) != CUZK_OK) {
        cuzk_blob_release(&b);
        if (err) {
            size_t n = strlen(err);
            if (n + 4 < CUZK_ERRMSG_LEN) snprintf(err + n, CUZK_ERRMSG_LEN - n, " (%s)", path);
        }
        return s;
    }
    kf->blob_ = b;
    return CUZK_OK;
}

void cuzk_keyfile_close(cuzk_keyfile *kf)
{
    if (!kf) return;
    cuzk_blob_release(&kf->blob_);
    memset(kf, 0, sizeof *kf);
}

cuzk_status cuzk_keyfile_map_pk(cuzk_groth16_pk *pk, const char *path, unsigned flags,
                                unsigned nthreads, char *label, char *err)
{
    if (err) err[0] = 0;
    if (!pk || !path) return kfail(err, CUZK_ERR_INVALID_ARGUMENT, "NULL argument");
    memset(pk, 0, sizeof *pk);
    cuzk_keyfile kf;
    cuzk_status s = cuzk_keyfile_map(&kf, path, flags, nthreads, err);
    if (s != CUZK_OK) return s;
    if (label) memcpy(label, kf.label, 64);
    /* The views stay where they are; the mapping moves into the key. */
    *pk = kf.pk;
    pk->storage = CUZK_PK_MAPPED;
    pk->mapping_ = kf.blob_;
    memset(&kf, 0, sizeof kf);
    return CUZK_OK;
}

static void *dup_bytes(const void *p, size_t n)
{
    void *q = malloc(n ? n : 1);
    if (q && n) memcpy(q, p, n);
    return q;
}

cuzk_status cuzk_keyfile_load(cuzk_groth16_pk *pk, const char *path, unsigned flags,
                              unsigned nthreads, char *label, char *err)
{
    if (err) err[0] = 0;
    if (!pk || !path) return kfail(err, CUZK_ERR_INVALID_ARGUMENT, "NULL argument");
    memset(pk, 0, sizeof *pk);
    cuzk_keyfile kf;
    cuzk_status s = cuzk_keyfile_map(&kf, path, flags, nthreads, err);
    if (s != CUZK_OK) return s;
    const cuzk_groth16_pk *v = &kf.pk;
    size_t n = v->n_vars, nb = v->n_b, n_l = (size_t)v->n_vars - v->n_public - 1;
    size_t n_h = n_h_of(v->h_form, v->log_domain);
    *pk = *v;
    pk->storage = CUZK_PK_OWNED;
    memset(&pk->vk, 0, sizeof pk->vk);
    memset(&pk->m, 0, sizeof pk->m);
    pk->a = dup_bytes(v->a, n * sizeof *v->a);
    pk->b_var = dup_bytes(v->b_var, nb * sizeof *v->b_var);
    pk->b1 = dup_bytes(v->b1, nb * sizeof *v->b1);
    pk->b2 = dup_bytes(v->b2, nb * sizeof *v->b2);
    pk->l = dup_bytes(v->l, n_l * sizeof *v->l);
    pk->h = dup_bytes(v->h, n_h * sizeof *v->h);
    int ok = pk->a && pk->b_var && pk->b1 && pk->b2 && pk->l && pk->h &&
             cuzk_vk_copy(&pk->vk, &v->vk) == CUZK_OK;
    if (ok && kf.has_matrices) {
        const cuzk_sparse *src[3] = {&v->m.a, &v->m.b, &v->m.c};
        cuzk_sparse *dst[3] = {&pk->m.a, &pk->m.b, &pk->m.c};
        pk->m.n_rows = v->m.n_rows;
        pk->m.n_coeffs = v->m.n_coeffs;
        ok = (pk->m.coeffs = dup_bytes(v->m.coeffs, v->m.n_coeffs * sizeof(cuzk_fr))) != NULL;
        for (int k = 0; k < 3 && ok; k++) {
            if (!src[k]->row_start) continue;
            dst[k]->n_terms = src[k]->n_terms;
            dst[k]->row_start = dup_bytes(src[k]->row_start, (v->m.n_rows + 1) * 8);
            dst[k]->wire = dup_bytes(src[k]->wire, src[k]->n_terms * 4);
            dst[k]->coeff = dup_bytes(src[k]->coeff, src[k]->n_terms * 4);
            ok = dst[k]->row_start && dst[k]->wire && dst[k]->coeff;
        }
    }
    if (label) memcpy(label, kf.label, 64);
    cuzk_keyfile_close(&kf);
    if (!ok) {
        cuzk_groth16_pk_free(pk);
        return kfail(err, CUZK_ERR_NO_MEMORY, "%s: out of memory", path);
    }
    return CUZK_OK;
}
