/* Point encodings: zcash (bellperson, Filecoin, blst) and snarkjs "LEM".
 * See shared/research/formats.md sections 2 and 9.1.
 *
 * zcash: big-endian coordinates, Fp2 as c1 || c0, flags in the top three
 * bits of byte 0: 0x80 compressed, 0x40 infinity, 0x20 "y is the
 * lexicographically largest of +-y" (compressed, finite points only).
 * Readers are strict: they accept exactly the encodings the writers
 * produce, i.e. the canonical encoding of each point.
 *
 * LEM: little-endian bytes of the Montgomery form, Fp2 as c0 || c1,
 * infinity as all-zero bytes, no flags.
 *
 * Decoders leave *r untouched on error. The encoders are branch-free in the
 * point; the decoders return early on bad input (whether an input is valid
 * is not a secret). */
#include <string.h>

#include <cuzk/ec.h>

#define FLAG_COMPRESSED 0x80u
#define FLAG_INFINITY 0x40u
#define FLAG_SORT 0x20u
#define FLAG_MASK 0xe0u

/* 1 if in[0..n) are all zero, with the top three bits of in[0] masked off
 * first (the flags are checked separately). */
static int rest_is_zero(const uint8_t *in, size_t n)
{
    uint8_t acc = in[0] & (uint8_t)~FLAG_MASK;
    for (size_t i = 1; i < n; i++) acc |= in[i];
    return acc == 0;
}

/* Reads a 48-byte big-endian coordinate, ignoring the flag bits if this is
 * the first coordinate of an encoding. */
static cuzk_status read_fp_be(cuzk_fp *r, const uint8_t *in, int first)
{
    uint8_t buf[CUZK_FP_BYTES];
    memcpy(buf, in, CUZK_FP_BYTES);
    if (first) buf[0] &= (uint8_t)~FLAG_MASK;
    return cuzk_fp_from_be(r, buf);
}

/* Fp2 as c1 || c0. */
static cuzk_status read_fp2_be(cuzk_fp2 *r, const uint8_t *in, int first)
{
    cuzk_status s = read_fp_be(&r->c1, in, first);
    if (s != CUZK_OK) return s;
    return read_fp_be(&r->c0, in + CUZK_FP_BYTES, 0);
}

static void write_fp2_be(uint8_t *out, const cuzk_fp2 *a)
{
    cuzk_fp_to_be(out, &a->c1);
    cuzk_fp_to_be(out + CUZK_FP_BYTES, &a->c0);
}

/* y^2 = x^3 + b without the (0, 0) = infinity convention of
 * cuzk_g1_affine_on_curve: a decoded (0, 0) without the infinity flag is
 * off the curve. */
static int g1_eq_holds(const cuzk_g1_affine *p)
{
    return cuzk_g1_affine_on_curve(p) & (cuzk_g1_affine_is_inf(p) ^ 1);
}

static int g2_eq_holds(const cuzk_g2_affine *p)
{
    return cuzk_g2_affine_on_curve(p) & (cuzk_g2_affine_is_inf(p) ^ 1);
}

/* x^3 + 4 */
static void g1_rhs(cuzk_fp *r, const cuzk_fp *x)
{
    cuzk_fp t, four;
    cuzk_fp_from_u64(&four, 4);
    cuzk_fp_sqr(&t, x);
    cuzk_fp_mul(&t, &t, x);
    cuzk_fp_add(r, &t, &four);
}

/* x^3 + 4 (u + 1) */
static void g2_rhs(cuzk_fp2 *r, const cuzk_fp2 *x)
{
    cuzk_fp2 t, b;
    cuzk_fp_from_u64(&b.c0, 4);
    b.c1 = b.c0;
    cuzk_fp2_sqr(&t, x);
    cuzk_fp2_mul(&t, &t, x);
    cuzk_fp2_add(r, &t, &b);
}

/* ---------------------------------------------------------- zcash, G1 -- */

void cuzk_g1_to_compressed(uint8_t out[48], const cuzk_g1_affine *p)
{
    /* Infinity is (0, 0): x writes as zeros and y is not "largest". */
    int inf = cuzk_g1_affine_is_inf(p);
    cuzk_fp_to_be(out, &p->x);
    out[0] |= (uint8_t)(FLAG_COMPRESSED | ((unsigned)inf << 6) |
                        ((unsigned)cuzk_fp_is_lexmax(&p->y) << 5));
}

void cuzk_g1_to_uncompressed(uint8_t out[96], const cuzk_g1_affine *p)
{
    int inf = cuzk_g1_affine_is_inf(p);
    cuzk_fp_to_be(out, &p->x);
    cuzk_fp_to_be(out + 48, &p->y);
    out[0] |= (uint8_t)((unsigned)inf << 6);
}

cuzk_status cuzk_g1_from_compressed(cuzk_g1_affine *r, const uint8_t in[48], unsigned flags)
{
    unsigned f = in[0] & FLAG_MASK;
    cuzk_g1_affine p;
    cuzk_fp rhs;
    cuzk_status s;

    if (!(f & FLAG_COMPRESSED)) return CUZK_ERR_BAD_ENCODING;
    if (f & FLAG_INFINITY) {
        if ((f & FLAG_SORT) || !rest_is_zero(in, 48)) return CUZK_ERR_BAD_ENCODING;
        memset(r, 0, sizeof *r);
        return CUZK_OK;
    }
    if ((s = read_fp_be(&p.x, in, 1)) != CUZK_OK) return s;
    g1_rhs(&rhs, &p.x);
    if (!cuzk_fp_sqrt(&p.y, &rhs)) return CUZK_ERR_NO_SQRT;
    if (cuzk_fp_is_lexmax(&p.y) != !!(f & FLAG_SORT)) cuzk_fp_neg(&p.y, &p.y);
    if ((flags & CUZK_DECODE_SUBGROUP) && !cuzk_g1_affine_in_subgroup(&p))
        return CUZK_ERR_NOT_IN_SUBGROUP;
    *r = p;
    return CUZK_OK;
}

cuzk_status cuzk_g1_from_uncompressed(cuzk_g1_affine *r, const uint8_t in[96], unsigned flags)
{
    unsigned f = in[0] & FLAG_MASK;
    cuzk_g1_affine p;
    cuzk_status s;

    if (f & (FLAG_COMPRESSED | FLAG_SORT)) return CUZK_ERR_BAD_ENCODING;
    if (f & FLAG_INFINITY) {
        if (!rest_is_zero(in, 96)) return CUZK_ERR_BAD_ENCODING;
        memset(r, 0, sizeof *r);
        return CUZK_OK;
    }
    if ((s = read_fp_be(&p.x, in, 1)) != CUZK_OK) return s;
    if ((s = read_fp_be(&p.y, in + 48, 0)) != CUZK_OK) return s;
    if (!g1_eq_holds(&p)) return CUZK_ERR_NOT_ON_CURVE;
    if ((flags & CUZK_DECODE_SUBGROUP) && !cuzk_g1_affine_in_subgroup(&p))
        return CUZK_ERR_NOT_IN_SUBGROUP;
    *r = p;
    return CUZK_OK;
}

/* ---------------------------------------------------------- zcash, G2 -- */

void cuzk_g2_to_compressed(uint8_t out[96], const cuzk_g2_affine *p)
{
    int inf = cuzk_g2_affine_is_inf(p);
    write_fp2_be(out, &p->x);
    out[0] |= (uint8_t)(FLAG_COMPRESSED | ((unsigned)inf << 6) |
                        ((unsigned)cuzk_fp2_is_lexmax(&p->y) << 5));
}

void cuzk_g2_to_uncompressed(uint8_t out[192], const cuzk_g2_affine *p)
{
    int inf = cuzk_g2_affine_is_inf(p);
    write_fp2_be(out, &p->x);
    write_fp2_be(out + 96, &p->y);
    out[0] |= (uint8_t)((unsigned)inf << 6);
}

cuzk_status cuzk_g2_from_compressed(cuzk_g2_affine *r, const uint8_t in[96], unsigned flags)
{
    unsigned f = in[0] & FLAG_MASK;
    cuzk_g2_affine p;
    cuzk_fp2 rhs;
    cuzk_status s;

    if (!(f & FLAG_COMPRESSED)) return CUZK_ERR_BAD_ENCODING;
    if (f & FLAG_INFINITY) {
        if ((f & FLAG_SORT) || !rest_is_zero(in, 96)) return CUZK_ERR_BAD_ENCODING;
        memset(r, 0, sizeof *r);
        return CUZK_OK;
    }
    if ((s = read_fp2_be(&p.x, in, 1)) != CUZK_OK) return s;
    g2_rhs(&rhs, &p.x);
    if (!cuzk_fp2_sqrt(&p.y, &rhs)) return CUZK_ERR_NO_SQRT;
    if (cuzk_fp2_is_lexmax(&p.y) != !!(f & FLAG_SORT)) cuzk_fp2_neg(&p.y, &p.y);
    if ((flags & CUZK_DECODE_SUBGROUP) && !cuzk_g2_affine_in_subgroup(&p))
        return CUZK_ERR_NOT_IN_SUBGROUP;
    *r = p;
    return CUZK_OK;
}

cuzk_status cuzk_g2_from_uncompressed(cuzk_g2_affine *r, const uint8_t in[192], unsigned flags)
{
    unsigned f = in[0] & FLAG_MASK;
    cuzk_g2_affine p;
    cuzk_status s;

    if (f & (FLAG_COMPRESSED | FLAG_SORT)) return CUZK_ERR_BAD_ENCODING;
    if (f & FLAG_INFINITY) {
        if (!rest_is_zero(in, 192)) return CUZK_ERR_BAD_ENCODING;
        memset(r, 0, sizeof *r);
        return CUZK_OK;
    }
    if ((s = read_fp2_be(&p.x, in, 1)) != CUZK_OK) return s;
    if ((s = read_fp2_be(&p.y, in + 96, 0)) != CUZK_OK) return s;
    if (!g2_eq_holds(&p)) return CUZK_ERR_NOT_ON_CURVE;
    if ((flags & CUZK_DECODE_SUBGROUP) && !cuzk_g2_affine_in_subgroup(&p))
        return CUZK_ERR_NOT_IN_SUBGROUP;
    *r = p;
    return CUZK_OK;
}

/* ---------------------------------------------------------------- LEM -- */

static int all_zero(const uint8_t *in, size_t n)
{
    uint8_t acc = 0;
    for (size_t i = 0; i < n; i++) acc |= in[i];
    return acc == 0;
}

void cuzk_g1_to_lem(uint8_t out[96], const cuzk_g1_affine *p)
{
    /* Infinity (0, 0) writes as 96 zero bytes, as snarkjs expects. */
    cuzk_fp_to_lem(out, &p->x);
    cuzk_fp_to_lem(out + 48, &p->y);
}

cuzk_status cuzk_g1_from_lem(cuzk_g1_affine *r, const uint8_t in[96], unsigned flags)
{
    cuzk_g1_affine p;
    cuzk_status s;

    if (all_zero(in, 96)) {
        memset(r, 0, sizeof *r);
        return CUZK_OK;
    }
    if ((s = cuzk_fp_from_lem(&p.x, in)) != CUZK_OK) return s;
    if ((s = cuzk_fp_from_lem(&p.y, in + 48)) != CUZK_OK) return s;
    if (!g1_eq_holds(&p)) return CUZK_ERR_NOT_ON_CURVE;
    if ((flags & CUZK_DECODE_SUBGROUP) && !cuzk_g1_affine_in_subgroup(&p))
        return CUZK_ERR_NOT_IN_SUBGROUP;
    *r = p;
    return CUZK_OK;
}

void cuzk_g2_to_lem(uint8_t out[192], const cuzk_g2_affine *p)
{
    cuzk_fp_to_lem(out, &p->x.c0);
    cuzk_fp_to_lem(out + 48, &p->x.c1);
    cuzk_fp_to_lem(out + 96, &p->y.c0);
    cuzk_fp_to_lem(out + 144, &p->y.c1);
}

cuzk_status cuzk_g2_from_lem(cuzk_g2_affine *r, const uint8_t in[192], unsigned flags)
{
    cuzk_g2_affine p;
    cuzk_status s;

    if (all_zero(in, 192)) {
        memset(r, 0, sizeof *r);
        return CUZK_OK;
    }
    if ((s = cuzk_fp_from_lem(&p.x.c0, in)) != CUZK_OK) return s;
    if ((s = cuzk_fp_from_lem(&p.x.c1, in + 48)) != CUZK_OK) return s;
    if ((s = cuzk_fp_from_lem(&p.y.c0, in + 96)) != CUZK_OK) return s;
    if ((s = cuzk_fp_from_lem(&p.y.c1, in + 144)) != CUZK_OK) return s;
    if (!g2_eq_holds(&p)) return CUZK_ERR_NOT_ON_CURVE;
    if ((flags & CUZK_DECODE_SUBGROUP) && !cuzk_g2_affine_in_subgroup(&p))
        return CUZK_ERR_NOT_IN_SUBGROUP;
    *r = p;
    return CUZK_OK;
}
