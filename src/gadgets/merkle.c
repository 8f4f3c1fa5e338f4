/* Merkle inclusion: SHA-256 binary trees and Poseidon arity-8 trees. */
#include <string.h>

#include <cuzk/gadgets.h>

/* ------------------------------------------------------------ SHA-256 -- */

void cuzk_merkle_sha256_native(uint8_t root[32], const uint8_t leaf[32], uint64_t index,
                               const uint8_t *siblings, unsigned depth)
{
    uint8_t cur[32], pair[64];
    memcpy(cur, leaf, 32);
    for (unsigned l = 0; l < depth; l++) {
        int right = l < 64 && ((index >> l) & 1);
        memcpy(pair + (right ? 32 : 0), cur, 32);
        memcpy(pair + (right ? 0 : 32), siblings + 32 * (size_t)l, 32);
        cuzk_sha256_native(cur, pair, 64);
    }
    memcpy(root, cur, 32);
}

void cuzk_merkle_sha256(cuzk_cs *cs, cuzk_bool *root, const cuzk_bool *leaf,
                        const cuzk_bool *path, const cuzk_bool *siblings, unsigned depth)
{
    cuzk_bool cur[256], pair[512];
    memcpy(cur, leaf, sizeof cur);
    for (unsigned l = 0; l < depth; l++) {
        const cuzk_bool *sib = siblings + 256 * (size_t)l;
        /* left = bit ? sibling : node, right = bit ? node : sibling */
        for (int i = 0; i < 256; i++) {
            pair[i] = cuzk_bool_ch(cs, path[l], sib[i], cur[i]);
            pair[256 + i] = cuzk_bool_ch(cs, path[l], cur[i], sib[i]);
        }
        cuzk_sha256(cs, cur, pair, 512);
    }
    memcpy(root, cur, sizeof cur);
}

/* ----------------------------------------------------------- Poseidon -- */

void cuzk_merkle_poseidon8_native(cuzk_fr *root, const cuzk_poseidon *p, const cuzk_fr *leaf,
                                  uint64_t index, const cuzk_fr *siblings, unsigned depth)
{
    cuzk_fr cur = *leaf, ch[8];
    for (unsigned l = 0; l < depth; l++) {
        unsigned pos = 3 * l < 64 ? (unsigned)(index >> (3 * l)) & 7 : 0;
        const cuzk_fr *sib = siblings + 7 * (size_t)l;
        for (unsigned j = 0, s = 0; j < 8; j++) ch[j] = j == pos ? cur : sib[s++];
        cuzk_poseidon_hash_native(p, &cur, ch);
    }
    *root = cur;
}

/* Monomials in the three position bits x0, x1, x2: index m is the product
 * of the bits set in m (m = 0: ONE). eq_j = prod_k (j_k ? x_k : 1 - x_k)
 * expands to sum over m of c(j, m) mono(m) with c(j, m) = 0 unless every
 * bit k outside m has j_k = 0, and then (-1)^(number of k in m with j_k = 0). */
static int eq_coeff(unsigned j, unsigned m)
{
    if (~m & j & 7) return 0;
    return __builtin_popcount(m & ~j & 7) & 1 ? -1 : 1;
}

/* Adds scale * (eq_j), or scale * (lt_j = sum_{i<j} eq_i), to matrix mx. */
static void sel_terms(cuzk_cs *cs, cuzk_abc mx, const cuzk_bool mono[8], unsigned j, int lt,
                      int scale)
{
    for (unsigned m = 0; m < 8; m++) {
        int c = 0;
        if (lt)
            for (unsigned i = 0; i < j; i++) c += eq_coeff(i, m);
        else
            c = eq_coeff(j, m);
        if (c) cuzk_bool_term(cs, mx, mono[m], cuzk_cs_coeff_i64(cs, (int64_t)c * scale));
    }
}

cuzk_var cuzk_merkle_poseidon8(cuzk_cs *cs, const cuzk_poseidon *p, cuzk_var leaf,
                               const cuzk_bool *path, const cuzk_var *siblings, unsigned depth)
{
    if (!p || p->t != 9) {
        cuzk_cs_fail(cs, CUZK_ERR_INVALID_ARGUMENT, "Poseidon-8 tree needs the t = 9 instance");
        return CUZK_VAR_ONE;
    }
    cuzk_var cur = leaf;
    for (unsigned l = 0; l < depth; l++) {
        const cuzk_bool *x = path + 3 * (size_t)l;
        const cuzk_var *sib = siblings + 7 * (size_t)l;
        unsigned pos = x[0].value | x[1].value << 1 | x[2].value << 2;
        /* monomials: 1, x0, x1, x0x1, x2, x0x2, x1x2, x0x1x2 (4 constraints) */
        cuzk_bool mono[8];
        mono[0] = cuzk_bool_const(1);
        mono[1] = x[0];
        mono[2] = x[1];
        mono[4] = x[2];
        mono[3] = cuzk_bool_and(cs, x[0], x[1]);
        mono[5] = cuzk_bool_and(cs, x[0], x[2]);
        mono[6] = cuzk_bool_and(cs, x[1], x[2]);
        mono[7] = cuzk_bool_and(cs, mono[3], x[2]);
        /* child j = node if j = pos, sibling j if j < pos, sibling j - 1 if
         * j > pos:  out_j = s_j + eq_j (node - s_j) + lt_j (s_{j-1} - s_j),
         * with out_0 = s_0 + eq_0 (node - s_0), out_7 = s_6 + eq_7 (node - s_6) */
        cuzk_fr vn, vs[7];
        cuzk_cs_value(cs, cur, &vn);
        for (int k = 0; k < 7; k++) cuzk_cs_value(cs, sib[k], &vs[k]);
        cuzk_var child[8];
        for (unsigned j = 0; j < 8; j++) {
            cuzk_fr val = j == pos ? vn : j < pos ? vs[j] : vs[j - 1];
            unsigned sj = j < 7 ? j : 6; /* the sibling the eq term replaces */
            if (j == 0 || j == 7) { /* eq_j (node - s) = out - s */
                child[j] = cuzk_cs_alloc(cs, &val);
                if (cuzk_cs_recording(cs)) {
                    cuzk_cs_begin(cs);
                    sel_terms(cs, CUZK_A, mono, j, 0, 1);
                    cuzk_cs_term(cs, CUZK_B, cur, CUZK_COEFF_ONE);
                    cuzk_cs_term(cs, CUZK_B, sib[sj], CUZK_COEFF_MINUS_ONE);
                    cuzk_cs_term(cs, CUZK_C, child[j], CUZK_COEFF_ONE);
                    cuzk_cs_term(cs, CUZK_C, sib[sj], CUZK_COEFF_MINUS_ONE);
                    cuzk_cs_end(cs);
                }
                continue;
            }
            /* q = eq_j (node - s_j);  lt_j (s_{j-1} - s_j) = out - s_j - q */
            cuzk_fr qv = CUZK_FR_ZERO;
            if (j == pos) cuzk_fr_sub(&qv, &vn, &vs[j]);
            cuzk_var q = cuzk_cs_alloc(cs, &qv);
            child[j] = cuzk_cs_alloc(cs, &val);
            if (cuzk_cs_recording(cs)) {
                cuzk_cs_begin(cs);
                sel_terms(cs, CUZK_A, mono, j, 0, 1);
                cuzk_cs_term(cs, CUZK_B, cur, CUZK_COEFF_ONE);
                cuzk_cs_term(cs, CUZK_B, sib[j], CUZK_COEFF_MINUS_ONE);
                cuzk_cs_term(cs, CUZK_C, q, CUZK_COEFF_ONE);
                cuzk_cs_end(cs);
                cuzk_cs_begin(cs);
                sel_terms(cs, CUZK_A, mono, j, 1, 1);
                cuzk_cs_term(cs, CUZK_B, sib[j - 1], CUZK_COEFF_ONE);
                cuzk_cs_term(cs, CUZK_B, sib[j], CUZK_COEFF_MINUS_ONE);
                cuzk_cs_term(cs, CUZK_C, child[j], CUZK_COEFF_ONE);
                cuzk_cs_term(cs, CUZK_C, sib[j], CUZK_COEFF_MINUS_ONE);
                cuzk_cs_term(cs, CUZK_C, q, CUZK_COEFF_MINUS_ONE);
                cuzk_cs_end(cs);
            }
        }
        cur = cuzk_poseidon_hash(cs, p, child);
    }
    return cur;
}
