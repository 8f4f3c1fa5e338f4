/* Fp2 = Fp[u] / (u^2 + 1).
 *
 * Multiplication counts below are in Fp (M = multiplication, S = squaring;
 * additions not counted). All functions take temporaries before writing r,
 * so outputs may alias inputs. */
#include <cuzk/ff.h>

#include "ff/tower.h"

const cuzk_fp2 CUZK_FP2_ZERO = {{{0}}, {{0}}};
const cuzk_fp2 CUZK_FP2_ONE = {{{/* 2^384 mod q */
                                   0x760900000002fffdull, 0xebf4000bc40c0002ull,
                                   0x5f48985753c758baull, 0x77ce585370525745ull,
                                   0x5c071a97a256ec6dull, 0x15f65ec3fa80e493ull}},
                               {{0}}};

/* -1 in Montgomery form: q - 2^384 mod q. */
static const cuzk_fp FP_MINUS_ONE = {{0x43f5fffffffcaaaeull, 0x32b7fff2ed47fffdull,
                                      0x07e83a49a2e99d69ull, 0xeca8f3318332bb7aull,
                                      0xef148d1ea0f4c069ull, 0x040ab3263eff0206ull}};
/* (q - 3)/4 and (q - 1)/2, little-endian limbs, for cuzk_fp2_sqrt. */
static const uint64_t Q_MINUS_3_DIV_4[CUZK_FP_LIMBS] = {
    0xee7fbfffffffeaaaull, 0x07aaffffac54ffffull, 0xd9cc34a83dac3d89ull,
    0xd91dd2e13ce144afull, 0x92c6e9ed90d2eb35ull, 0x0680447a8e5ff9a6ull};
static const uint64_t Q_MINUS_1_DIV_2[CUZK_FP_LIMBS] = {
    0xdcff7fffffffd555ull, 0x0f55ffff58a9ffffull, 0xb39869507b587b12ull,
    0xb23ba5c279c2895full, 0x258dd3db21a5d66bull, 0x0d0088f51cbff34dull};

/* ------------------------------------------- x86-64 wide kernels -- *
 *
 * The two halves of lazy reduction (tower.h) in BMI2/ADX assembly, used when
 * the Montgomery kernels of fp.c are (cuzk_mont_adx, set at load time):
 *
 *   cuzk_fpw_mul6_adx(r[12], a[6], b[6])      r = a b (schoolbook, 36 mulx;
 *                                             r must not overlap a or b)
 *   cuzk_fpw_redc6_adx(r[6], t[12], p[6], n0) r = t / 2^384 mod p, t < p 2^384
 *
 * The product keeps seven limbs of the running sum in registers (r8..r14,
 * renamed by one per row) and adds each row a * b[i] with two carry chains:
 * adox for the low halves of the partial products, adcx for the high halves.
 * The reduction runs six Montgomery rounds on the low half only,
 * (t_lo + m p) / 2^384 <= p, then adds the high half t_hi < p and subtracts p
 * once if needed: t R^-1 = t_lo R^-1 + t_hi, so each round touches only
 * seven limbs and no carry has to ripple into the high half. Neither
 * branches on data. */
#if CUZK_MONT_ASM

#define W_BEGIN(name)                                                        \
    ".pushsection .text\n.p2align 5\n.globl " #name "\n.hidden " #name "\n"  \
    ".type " #name ",@function\n" #name ":\n.cfi_startproc\nendbr64\n"
#define W_END(name) "ret\n.cfi_endproc\n.size " #name ",.-" #name "\n.popsection\n"
#define W_PUSH(r) "pushq %" #r "\n.cfi_adjust_cfa_offset 8\n.cfi_rel_offset %" #r ",0\n"
#define W_POP(r) "popq %" #r "\n.cfi_adjust_cfa_offset -8\n.cfi_restore %" #r "\n"

/* lo(rdx * [B + off]) into X (OF chain), hi into Y (CF chain); HI scratch. */
#define W_MAC(B, off, HI, X, Y)                                              \
    "mulxq " #off "(%" #B "), %rax, %" #HI "\n"                              \
    "adoxq %rax, %" #X "\n"                                                  \
    "adcxq %" #HI ", %" #Y "\n"

/* Row i >= 1 of the product: w0..w5 += a * b[i], new top limb into wt,
 * then r[i] = w0. */
#define W_ROW(i, w0, w1, w2, w3, w4, w5, wt)                                 \
    "movq 8*" #i "(%rcx), %rdx\n"                                            \
    "xorl %eax, %eax\n"                                                      \
    W_MAC(rsi, 0, r15, w0, w1)                                               \
    W_MAC(rsi, 8, r15, w1, w2)                                               \
    W_MAC(rsi, 16, r15, w2, w3)                                              \
    W_MAC(rsi, 24, r15, w3, w4)                                              \
    W_MAC(rsi, 32, r15, w4, w5)                                              \
    "mulxq 40(%rsi), %rax, %" #wt "\n"                                       \
    "adoxq %rax, %" #w5 "\n"                                                 \
    "movl $0, %eax\n"                                                        \
    "adcxq %rax, %" #wt "\n"                                                 \
    "adoxq %rax, %" #wt "\n"                                                 \
    "movq %" #w0 ", 8*" #i "(%rdi)\n"

/* cuzk_fpw_mul6_adx(r = rdi, a = rsi, b = rdx). */
__asm__(W_BEGIN(cuzk_fpw_mul6_adx)
        W_PUSH(r12) W_PUSH(r13) W_PUSH(r14) W_PUSH(r15)
        "movq %rdx, %rcx\n"
        /* row 0: r8..r14 = a * b[0] */
        "movq (%rcx), %rdx\n"
        "mulxq (%rsi), %r8, %r9\n"
        "mulxq 8(%rsi), %rax, %r10\n"
        "addq %rax, %r9\n"
        "mulxq 16(%rsi), %rax, %r11\n"
        "adcq %rax, %r10\n"
        "mulxq 24(%rsi), %rax, %r12\n"
        "adcq %rax, %r11\n"
        "mulxq 32(%rsi), %rax, %r13\n"
        "adcq %rax, %r12\n"
        "mulxq 40(%rsi), %rax, %r14\n"
        "adcq %rax, %r13\n"
        "adcq $0, %r14\n"
        "movq %r8, (%rdi)\n"
        W_ROW(1, r9, r10, r11, r12, r13, r14, r8)
        W_ROW(2, r10, r11, r12, r13, r14, r8, r9)
        W_ROW(3, r11, r12, r13, r14, r8, r9, r10)
        W_ROW(4, r12, r13, r14, r8, r9, r10, r11)
        W_ROW(5, r13, r14, r8, r9, r10, r11, r12)
        "movq %r14, 48(%rdi)\n"
        "movq %r8, 56(%rdi)\n"
        "movq %r9, 64(%rdi)\n"
        "movq %r10, 72(%rdi)\n"
        "movq %r11, 80(%rdi)\n"
        "movq %r12, 88(%rdi)\n"
        W_POP(r15) W_POP(r14) W_POP(r13) W_POP(r12)
        W_END(cuzk_fpw_mul6_adx));

/* One Montgomery round on w0..w5: m = w0 n0 (n0 in rcx, p in r11),
 * w += m p; w0 becomes 0 and the new top limb goes to wt. */
#define W_ROUND(w0, w1, w2, w3, w4, w5, wt)                                  \
    "movq %" #w0 ", %rdx\n"                                                  \
    "imulq %rcx, %rdx\n"                                                     \
    "xorl %eax, %eax\n"                                                      \
    W_MAC(r11, 0, rbx, w0, w1)                                               \
    W_MAC(r11, 8, rbx, w1, w2)                                               \
    W_MAC(r11, 16, rbx, w2, w3)                                              \
    W_MAC(r11, 24, rbx, w3, w4)                                              \
    W_MAC(r11, 32, rbx, w4, w5)                                              \
    "mulxq 40(%r11), %rax, %" #wt "\n"                                       \
    "adoxq %rax, %" #w5 "\n"                                                 \
    "movl $0, %eax\n"                                                        \
    "adcxq %rax, %" #wt "\n"                                                 \
    "adoxq %rax, %" #wt "\n"

/* cuzk_fpw_redc6_adx(r = rdi, t = rsi, p = rdx, n0 = rcx). */
__asm__(W_BEGIN(cuzk_fpw_redc6_adx)
        W_PUSH(rbx) W_PUSH(r12) W_PUSH(r13) W_PUSH(r14) W_PUSH(r15)
        "movq %rdx, %r11\n"
        "movq (%rsi), %r8\n"
        "movq 8(%rsi), %r9\n"
        "movq 16(%rsi), %r10\n"
        "movq 24(%rsi), %r12\n"
        "movq 32(%rsi), %r13\n"
        "movq 40(%rsi), %r14\n"
        W_ROUND(r8, r9, r10, r12, r13, r14, r15)
        W_ROUND(r9, r10, r12, r13, r14, r15, r8)
        W_ROUND(r10, r12, r13, r14, r15, r8, r9)
        W_ROUND(r12, r13, r14, r15, r8, r9, r10)
        W_ROUND(r13, r14, r15, r8, r9, r10, r12)
        W_ROUND(r14, r15, r8, r9, r10, r12, r13)
        /* + t_hi: the sum is < 2p, no carry out */
        "addq 48(%rsi), %r15\n"
        "adcq 56(%rsi), %r8\n"
        "adcq 64(%rsi), %r9\n"
        "adcq 72(%rsi), %r10\n"
        "adcq 80(%rsi), %r12\n"
        "adcq 88(%rsi), %r13\n"
        /* subtract p; keep the sum if that borrows */
        "movq %r15, %rax\n"
        "subq (%r11), %rax\n"
        "movq %r8, %rbx\n"
        "sbbq 8(%r11), %rbx\n"
        "movq %r9, %rdx\n"
        "sbbq 16(%r11), %rdx\n"
        "movq %r10, %rsi\n"
        "sbbq 24(%r11), %rsi\n"
        "movq %r12, %rcx\n"
        "sbbq 32(%r11), %rcx\n"
        "movq %r13, %r14\n"
        "sbbq 40(%r11), %r14\n"
        "cmovcq %r15, %rax\n"
        "cmovcq %r8, %rbx\n"
        "cmovcq %r9, %rdx\n"
        "cmovcq %r10, %rsi\n"
        "cmovcq %r12, %rcx\n"
        "cmovcq %r13, %r14\n"
        "movq %rax, (%rdi)\n"
        "movq %rbx, 8(%rdi)\n"
        "movq %rdx, 16(%rdi)\n"
        "movq %rsi, 24(%rdi)\n"
        "movq %rcx, 32(%rdi)\n"
        "movq %r14, 40(%rdi)\n"
        W_POP(r15) W_POP(r14) W_POP(r13) W_POP(r12) W_POP(rbx)
        W_END(cuzk_fpw_redc6_adx));

#endif /* CUZK_MONT_ASM */

void cuzk_fp2_add(cuzk_fp2 *r, const cuzk_fp2 *a, const cuzk_fp2 *b)
{
    fp_add_(&r->c0, &a->c0, &b->c0);
    fp_add_(&r->c1, &a->c1, &b->c1);
}

void cuzk_fp2_sub(cuzk_fp2 *r, const cuzk_fp2 *a, const cuzk_fp2 *b)
{
    fp_sub_(&r->c0, &a->c0, &b->c0);
    fp_sub_(&r->c1, &a->c1, &b->c1);
}

void cuzk_fp2_neg(cuzk_fp2 *r, const cuzk_fp2 *a)
{
    fp_neg_(&r->c0, &a->c0);
    fp_neg_(&r->c1, &a->c1);
}

void cuzk_fp2_dbl(cuzk_fp2 *r, const cuzk_fp2 *a)
{
    fp_dbl_(&r->c0, &a->c0);
    fp_dbl_(&r->c1, &a->c1);
}

/* r = a + b as integers (no reduction): < 2q for reduced inputs. */
static inline void fp_add_nored(cuzk_fp *r, const cuzk_fp *a, const cuzk_fp *b)
{
    uint64_t carry = 0;
    for (int i = 0; i < CUZK_FP_LIMBS; i++) {
        mont_u128 s = (mont_u128)a->l[i] + b->l[i] + carry;
        r->l[i] = (uint64_t)s;
        carry = (uint64_t)(s >> 64);
    }
}

/* Karatsuba, 3 wide M, no reduction (lazy reduction, Aranha et al. 2011):
 * (a0 + a1 u)(b0 + b1 u) = (a0 b0 - a1 b1) + ((a0 + a1)(b0 + b1) - a0 b0 - a1 b1) u.
 * c1 = a0 b1 + a1 b0 < 2 q^2 needs no wrap; c0 is taken mod q R. */
void cuzk_fp2w_mul(cuzk_fp2w *r, const cuzk_fp2 *a, const cuzk_fp2 *b)
{
    cuzk_fpw t0, t1, t2;
    cuzk_fp sa, sb;
    fpw_mul_(&t0, &a->c0, &b->c0);
    fpw_mul_(&t1, &a->c1, &b->c1);
    fp_add_nored(&sa, &a->c0, &a->c1);
    fp_add_nored(&sb, &b->c0, &b->c1);
    fpw_mul_(&t2, &sa, &sb); /* < 4 q^2 */
    fpw_sub_nowrap_(&t2, &t2, &t0);
    fpw_sub_nowrap_(&r->c1, &t2, &t1);
    fpw_sub_(&r->c0, &t0, &t1);
}

/* Complex squaring, 2 wide M: (a0 + a1)(a0 - a1) + 2 a0 a1 u, both < 2 q^2. */
void cuzk_fp2w_sqr(cuzk_fp2w *r, const cuzk_fp2 *a)
{
    cuzk_fp s, d;
    cuzk_fpw m;
    fp_add_nored(&s, &a->c0, &a->c1);
    fp_sub_(&d, &a->c0, &a->c1);
    fpw_mul_(&m, &a->c0, &a->c1);
    fpw_mul_(&r->c0, &s, &d);
    uint64_t carry = 0;
    for (int i = 0; i < 2 * CUZK_FP_LIMBS; i++) {
        uint64_t w = m.l[i];
        r->c1.l[i] = (w << 1) | carry;
        carry = w >> 63;
    }
}

void cuzk_fp2w_add(cuzk_fp2w *r, const cuzk_fp2w *a, const cuzk_fp2w *b)
{
    fpw_add_(&r->c0, &a->c0, &b->c0);
    fpw_add_(&r->c1, &a->c1, &b->c1);
}

void cuzk_fp2w_sub(cuzk_fp2w *r, const cuzk_fp2w *a, const cuzk_fp2w *b)
{
    fpw_sub_(&r->c0, &a->c0, &b->c0);
    fpw_sub_(&r->c1, &a->c1, &b->c1);
}

/* (c0 + c1 u)(1 + u) = (c0 - c1) + (c0 + c1) u. */
void cuzk_fp2w_mul_nr(cuzk_fp2w *r, const cuzk_fp2w *a)
{
    cuzk_fpw t0, t1;
    fpw_sub_(&t0, &a->c0, &a->c1);
    fpw_add_(&t1, &a->c0, &a->c1);
    r->c0 = t0;
    r->c1 = t1;
}

void cuzk_fp2w_redc(cuzk_fp2 *r, const cuzk_fp2w *a)
{
    fpw_redc_(&r->c0, &a->c0);
    fpw_redc_(&r->c1, &a->c1);
}

/* Karatsuba with lazy reduction: 3 wide M + 2 REDC (vs 3 Montgomery M). */
void cuzk_fp2_mul(cuzk_fp2 *r, const cuzk_fp2 *a, const cuzk_fp2 *b)
{
    cuzk_fp2w t;
    cuzk_fp2w_mul(&t, a, b);
    cuzk_fp2w_redc(r, &t);
}

/* Complex squaring, 2M: (a0 + a1 u)^2 = (a0 + a1)(a0 - a1) + 2 a0 a1 u,
 * as 2 wide M + 2 REDC. */
void cuzk_fp2_sqr(cuzk_fp2 *r, const cuzk_fp2 *a)
{
    cuzk_fp2w t;
    cuzk_fp2w_sqr(&t, a);
    cuzk_fp2w_redc(r, &t);
}

/* 2M. */
void cuzk_fp2_mul_fp(cuzk_fp2 *r, const cuzk_fp2 *a, const cuzk_fp *b)
{
    cuzk_fp t = *b;
    fp_mul_(&r->c0, &a->c0, &t);
    fp_mul_(&r->c1, &a->c1, &t);
}

/* 0M: (a0 + a1 u)(1 + u) = (a0 - a1) + (a0 + a1) u. */
void cuzk_fp2_mul_nr(cuzk_fp2 *r, const cuzk_fp2 *a)
{
    cuzk_fp t0, t1;
    fp_sub_(&t0, &a->c0, &a->c1);
    fp_add_(&t1, &a->c0, &a->c1);
    r->c0 = t0;
    r->c1 = t1;
}

void cuzk_fp2_conj(cuzk_fp2 *r, const cuzk_fp2 *a)
{
    r->c0 = a->c0;
    fp_neg_(&r->c1, &a->c1);
}

/* Norm to Fp, 2S + 2M + one Fp inversion: 1/a = conj(a) / (a0^2 + a1^2).
 * Constant-time (Fermat inversion); 1/0 = 0. */
void cuzk_fp2_inv(cuzk_fp2 *r, const cuzk_fp2 *a)
{
    cuzk_fp n, t;
    fp_mul_(&n, &a->c0, &a->c0);
    fp_mul_(&t, &a->c1, &a->c1);
    fp_add_(&n, &n, &t);
    cuzk_fp_inv(&n, &n);
    fp_mul_(&t, &a->c1, &n);
    fp_mul_(&r->c0, &a->c0, &n);
    fp_neg_(&r->c1, &t);
}

/* Left-to-right square and multiply; the exponent is public. */
void cuzk_fp2_pow(cuzk_fp2 *r, const cuzk_fp2 *a, const uint64_t *e, size_t n)
{
    cuzk_fp2 acc = CUZK_FP2_ONE, base = *a;
    for (size_t i = n; i-- > 0;) {
        for (int bit = 63; bit >= 0; bit--) {
            cuzk_fp2_sqr(&acc, &acc);
            if ((e[i] >> bit) & 1) cuzk_fp2_mul(&acc, &acc, &base);
        }
    }
    *r = acc;
}

int cuzk_fp2_is_zero(const cuzk_fp2 *a)
{
    return cuzk_fp_is_zero(&a->c0) & cuzk_fp_is_zero(&a->c1);
}

int cuzk_fp2_is_one(const cuzk_fp2 *a)
{
    return cuzk_fp_is_one(&a->c0) & cuzk_fp_is_zero(&a->c1);
}

int cuzk_fp2_eq(const cuzk_fp2 *a, const cuzk_fp2 *b)
{
    return cuzk_fp_eq(&a->c0, &b->c0) & cuzk_fp_eq(&a->c1, &b->c1);
}

int cuzk_fp2_is_lexmax(const cuzk_fp2 *a)
{
    return cuzk_fp_is_lexmax(&a->c1) | (cuzk_fp_is_zero(&a->c1) & cuzk_fp_is_lexmax(&a->c0));
}

void cuzk_fp2_cmov(cuzk_fp2 *r, const cuzk_fp2 *c, int flag)
{
    cuzk_fp_cmov(&r->c0, &c->c0, flag);
    cuzk_fp_cmov(&r->c1, &c->c1, flag);
}

/* a^q = conj(a), since u^q = -u (q = 3 mod 4). */
void cuzk_fp2_frobenius(cuzk_fp2 *r, const cuzk_fp2 *a, unsigned power)
{
    if (power & 1)
        cuzk_fp2_conj(r, a);
    else
        *r = *a;
}

/* Adj & Rodriguez-Henriquez 2012, "Square root computation over even
 * extension fields", Algorithm 9 (q = 3 mod 4); two Fp2 exponentiations.
 *   a1 = a^((q-3)/4), alpha = a1^2 a = a^((q-1)/2), x0 = a1 a;
 *   alpha = -1: x = u x0;  otherwise x = (1 + alpha)^((q-1)/2) x0.
 * Both candidates are computed and one is selected without branching; the
 * result is a root exactly when x^2 = a, which is what is returned (this
 * also covers the non-square case alpha^(q+1) = -1, and a = 0). */
int cuzk_fp2_sqrt(cuzk_fp2 *r, const cuzk_fp2 *a)
{
    cuzk_fp2 in = *a, a1, alpha, x0, x, xu, b, chk;
    cuzk_fp2_pow(&a1, &in, Q_MINUS_3_DIV_4, CUZK_FP_LIMBS);
    cuzk_fp2_sqr(&alpha, &a1);
    cuzk_fp2_mul(&alpha, &alpha, &in);
    cuzk_fp2_mul(&x0, &a1, &in);

    /* u * (c0 + c1 u) = -c1 + c0 u */
    fp_neg_(&xu.c0, &x0.c1);
    xu.c1 = x0.c0;

    b = alpha;
    fp_add_(&b.c0, &b.c0, &CUZK_FP_ONE);
    cuzk_fp2_pow(&b, &b, Q_MINUS_1_DIV_2, CUZK_FP_LIMBS);
    cuzk_fp2_mul(&x, &b, &x0);

    int alpha_is_minus_one = cuzk_fp_eq(&alpha.c0, &FP_MINUS_ONE) & cuzk_fp_is_zero(&alpha.c1);
    cuzk_fp2_cmov(&x, &xu, alpha_is_minus_one);

    cuzk_fp2_sqr(&chk, &x);
    *r = x;
    return cuzk_fp2_eq(&chk, &in);
}
