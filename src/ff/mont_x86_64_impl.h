/* x86-64 Montgomery kernels (BMI2 + ADX). Included by fp.c only, so each
 * symbol is defined once; declarations and assumptions are in
 * mont_x86_64.h.
 *
 * Each kernel is one file-scope asm function (System V ABI), so it has all 15
 * general registers and no compiler-chosen spills. The limbs of the running
 * sum live in registers; their names rotate by one limb per round instead of
 * being moved.
 *
 * Multiplication is CIOS: per limb b[i], add a * b[i] to the running sum t,
 * then add m * p with m = t0 * n0, which clears t0, and drop that limb. The
 * two sums of each row use two independent carry chains: adox (OF) for the
 * low halves of the products and adcx (CF) for the high halves, so the CPU
 * can overlap them. As t < 2p < 2^(64n - 1), the sum before the drop stays
 * below 2^(64(n+1)) and neither chain can carry out of the top limb.
 *
 * Squaring computes the 2n-limb square (each cross product once, then all
 * doubled and the diagonal squares added, again with two chains), reduces
 * the low n limbs by n Montgomery rounds and adds the high n limbs:
 * 21 + 36 instead of 72 multiplications for Fp.
 *
 * ns per operation, dependent chains, best of several runs (gcc 12 -O3):
 *                         fp_mul fp_sqr fr_mul fr_sqr
 *   Intel Xeon (ADX), ~2.6 GHz:
 *     portable C before     74.3   78.7   41.2   42.4
 *     portable C now        64.4   63.3   46.4   42.1   (clang 14: 56 55 32 31)
 *     these kernels         43.0   39.0   24.1   22.2
 *   AMD EPYC Zen 4 (dev machine, shared):
 *     portable C before     86.4   84.1   37.1   36.5
 *     portable C now        61.0   55.2   36.8   37.1
 *     these kernels         36.4   32.4   18.7   18.0
 * Both CPUs are bound by the multiplier: on the Xeon (one mulx per cycle, on
 * the same port as imul) an Fp product is 78 + 6 multiplications, ~110 core
 * cycles in a chain and ~100 with four independent chains; Zen 4 issues a
 * mulx about every 1.8 cycles. */
#ifndef CUZK_FF_MONT_X86_64_IMPL_H
#define CUZK_FF_MONT_X86_64_IMPL_H

#include "ff/mont_x86_64.h"

#if CUZK_MONT_ASM

#include <cpuid.h>

MONT_HIDDEN int cuzk_mont_adx;

/* CPUID leaf 7, EBX: bit 8 BMI2 (mulx), bit 19 ADX (adcx, adox). */
__attribute__((constructor)) static void cuzk_mont_detect(void)
{
    unsigned a, b, c, d;
    if (__get_cpuid_count(7, 0, &a, &b, &c, &d)) cuzk_mont_adx = ((b >> 8) & 1) && ((b >> 19) & 1);
}

/* ----------------------------------------------------- asm scaffolding -- */

/* pushsection/popsection leave the compiler's idea of the current section
 * intact; endbr64 marks a valid indirect-branch target under CET (a no-op
 * elsewhere); the .cfi lines keep backtraces through the kernels working. */
#define X_BEGIN(name)                                                        \
    ".pushsection .text\n.p2align 5\n.globl " #name "\n.hidden " #name "\n"  \
    ".type " #name ",@function\n" #name ":\n.cfi_startproc\nendbr64\n"
#define X_END(name) "ret\n.cfi_endproc\n.size " #name ",.-" #name "\n.popsection\n"
#define X_PUSH(r) "pushq %" #r "\n.cfi_adjust_cfa_offset 8\n.cfi_rel_offset %" #r ",0\n"
#define X_POP(r) "popq %" #r "\n.cfi_adjust_cfa_offset -8\n.cfi_restore %" #r "\n"

/* One product of a row: (HI, LO) = A[j] * rdx; LO is added into tj on the
 * OF chain (adox), HI into tj1 on the CF chain (adcx). Neither mulx nor the
 * movs touch the flags, so the two chains run through a whole row. */
#define X_ROW_STEP(A, j, LO, HI, tj, tj1)                                    \
    "mulxq " #j "(%" #A "), %" #LO ", %" #HI "\n"                            \
    "adoxq %" #LO ", %" #tj "\n"                                             \
    "adcxq %" #HI ", %" #tj1 "\n"

/* Start of a Montgomery round on t0..tn (tn holds the top of the last row,
 * or 0): rdx = m = t0 * n0, flags cleared. The round then adds m * p, which
 * leaves t0 = 0. N0 is an operand string for n0. X_CARRY_IN ends a row by
 * adding the pending CF and OF into its top limb. */
#define X_REDC_HEAD(N0, t0)                                                  \
    "movq %" #t0 ", %rdx\n"                                                  \
    "imulq " N0 ", %rdx\n"                                                   \
    "xorl %eax, %eax\n"
#define X_CARRY_IN(t)                                                        \
    "movl $0, %eax\n"                                                        \
    "adcxq %rax, %" #t "\n"                                                  \
    "adoxq %rax, %" #t "\n"

/* r = t - p if t >= p else t, t in registers, s* scratch, R output pointer:
 * the subtraction borrows (CF) exactly when t < p, and cmovc keeps t. */
#define X_FINAL_SUB(MEM, k, t, s) "movq %" #t ", %" #s "\n" k " " #MEM ", %" #s "\n"
#define X_CMOV(t, s) "cmovcq %" #t ", %" #s "\n"

/* ----------------------------------------------------- Fp: 6 limbs ------ */

#define X6_FIRST(t0, t1, t2, t3, t4, t5, t6)                                 \
    "movq (%rbx), %rdx\n"                                                    \
    "mulxq (%rsi), %" #t0 ", %" #t1 "\n"                                     \
    "mulxq 8(%rsi), %rax, %" #t2 "\n"                                        \
    "addq %rax, %" #t1 "\n"                                                  \
    "mulxq 16(%rsi), %rax, %" #t3 "\n"                                       \
    "adcq %rax, %" #t2 "\n"                                                  \
    "mulxq 24(%rsi), %rax, %" #t4 "\n"                                       \
    "adcq %rax, %" #t3 "\n"                                                  \
    "mulxq 32(%rsi), %rax, %" #t5 "\n"                                       \
    "adcq %rax, %" #t4 "\n"                                                  \
    "mulxq 40(%rsi), %rax, %" #t6 "\n"                                       \
    "adcq %rax, %" #t5 "\n"                                                  \
    "adcq $0, %" #t6 "\n"

#define X6_ROW(off, t0, t1, t2, t3, t4, t5, t6)                              \
    "movq " #off "(%rbx), %rdx\n"                                            \
    "xorl %eax, %eax\n"                                                      \
    X_ROW_STEP(rsi, 0, rax, rbp, t0, t1)                                     \
    X_ROW_STEP(rsi, 8, rax, rbp, t1, t2)                                     \
    X_ROW_STEP(rsi, 16, rax, rbp, t2, t3)                                    \
    X_ROW_STEP(rsi, 24, rax, rbp, t3, t4)                                    \
    X_ROW_STEP(rsi, 32, rax, rbp, t4, t5)                                    \
    "mulxq 40(%rsi), %rax, %" #t6 "\n"                                       \
    "adoxq %rax, %" #t5 "\n"                                                 \
    X_CARRY_IN(t6)

#define X6_REDC(P, N0, HI, t0, t1, t2, t3, t4, t5, t6)                       \
    X_REDC_HEAD(N0, t0)                                                      \
    X_ROW_STEP(P, 0, rax, HI, t0, t1)                                        \
    X_ROW_STEP(P, 8, rax, HI, t1, t2)                                        \
    X_ROW_STEP(P, 16, rax, HI, t2, t3)                                       \
    X_ROW_STEP(P, 24, rax, HI, t3, t4)                                       \
    X_ROW_STEP(P, 32, rax, HI, t4, t5)                                       \
    X_ROW_STEP(P, 40, rax, HI, t5, t6)                                       \
    "movl $0, %eax\n"                                                        \
    "adoxq %rax, %" #t6 "\n"

#define X6_FINAL(P, R, t0, t1, t2, t3, t4, t5, s0, s1, s2, s3, s4, s5)       \
    X_FINAL_SUB((%P), "subq", t0, s0)                                        \
    X_FINAL_SUB(8(%P), "sbbq", t1, s1)                                    \
    X_FINAL_SUB(16(%P), "sbbq", t2, s2)                                   \
    X_FINAL_SUB(24(%P), "sbbq", t3, s3)                                   \
    X_FINAL_SUB(32(%P), "sbbq", t4, s4)                                   \
    X_FINAL_SUB(40(%P), "sbbq", t5, s5)                                   \
    X_CMOV(t0, s0) X_CMOV(t1, s1) X_CMOV(t2, s2)                             \
    X_CMOV(t3, s3) X_CMOV(t4, s4) X_CMOV(t5, s5)                             \
    "movq %" #s0 ", (%" #R ")\n"                                             \
    "movq %" #s1 ", 8(%" #R ")\n"                                            \
    "movq %" #s2 ", 16(%" #R ")\n"                                           \
    "movq %" #s3 ", 24(%" #R ")\n"                                           \
    "movq %" #s4 ", 32(%" #R ")\n"                                           \
    "movq %" #s5 ", 40(%" #R ")\n"

/* cuzk_mont_mul6_adx(r = rdi, a = rsi, b = rdx, p = rcx, n0 = r8).
 * b moves to rbx; rax, rbp are product scratch; r9..r15 hold t. */
__asm__(X_BEGIN(cuzk_mont_mul6_adx)
        X_PUSH(rbx) X_PUSH(rbp) X_PUSH(r12) X_PUSH(r13) X_PUSH(r14) X_PUSH(r15)
        "movq %rdx, %rbx\n"
        X6_FIRST(r9, r10, r11, r12, r13, r14, r15)
        X6_REDC(rcx, "%r8", rbp, r9, r10, r11, r12, r13, r14, r15)
        X6_ROW(8, r10, r11, r12, r13, r14, r15, r9)
        X6_REDC(rcx, "%r8", rbp, r10, r11, r12, r13, r14, r15, r9)
        X6_ROW(16, r11, r12, r13, r14, r15, r9, r10)
        X6_REDC(rcx, "%r8", rbp, r11, r12, r13, r14, r15, r9, r10)
        X6_ROW(24, r12, r13, r14, r15, r9, r10, r11)
        X6_REDC(rcx, "%r8", rbp, r12, r13, r14, r15, r9, r10, r11)
        X6_ROW(32, r13, r14, r15, r9, r10, r11, r12)
        X6_REDC(rcx, "%r8", rbp, r13, r14, r15, r9, r10, r11, r12)
        X6_ROW(40, r14, r15, r9, r10, r11, r12, r13)
        X6_REDC(rcx, "%r8", rbp, r14, r15, r9, r10, r11, r12, r13)
        X6_FINAL(rcx, rdi, r15, r9, r10, r11, r12, r13, rax, rbp, rdx, rsi, rbx, r8)
        X_POP(r15) X_POP(r14) X_POP(r13) X_POP(r12) X_POP(rbp) X_POP(rbx)
        X_END(cuzk_mont_mul6_adx));

/* cuzk_mont_sqr6_adx(r = rdi, a = rsi, p = rdx, n0 = rcx).
 * Stack: 0 r, 8 p, 16 n0, 24..64 the high limbs w6..w11 of the square.
 * Square: cross products S1..S10 in rbx rbp rdi r8 r9 r10 r11 r12 r13 r14,
 * w0 in r15, scratch rax rcx; w11 ends in rsi. */
__asm__(X_BEGIN(cuzk_mont_sqr6_adx)
        X_PUSH(rbx) X_PUSH(rbp) X_PUSH(r12) X_PUSH(r13) X_PUSH(r14) X_PUSH(r15)
        "subq $72, %rsp\n.cfi_adjust_cfa_offset 72\n"
        "movq %rdi, 0(%rsp)\n"
        "movq %rdx, 8(%rsp)\n"
        "movq %rcx, 16(%rsp)\n"
        /* row 0: a0 * a1..a5 -> S1..S6 */
        "movq (%rsi), %rdx\n"
        "mulxq 8(%rsi), %rbx, %rbp\n"
        "mulxq 16(%rsi), %rax, %rdi\n"
        "addq %rax, %rbp\n"
        "mulxq 24(%rsi), %rax, %r8\n"
        "adcq %rax, %rdi\n"
        "mulxq 32(%rsi), %rax, %r9\n"
        "adcq %rax, %r8\n"
        "mulxq 40(%rsi), %rax, %r10\n"
        "adcq %rax, %r9\n"
        "adcq $0, %r10\n"
        /* row 1: a1 * a2..a5 -> S3..S7 */
        "movq 8(%rsi), %rdx\n"
        "xorl %eax, %eax\n"
        X_ROW_STEP(rsi, 16, rax, rcx, rdi, r8)
        X_ROW_STEP(rsi, 24, rax, rcx, r8, r9)
        X_ROW_STEP(rsi, 32, rax, rcx, r9, r10)
        "mulxq 40(%rsi), %rax, %r11\n"
        "adoxq %rax, %r10\n"
        X_CARRY_IN(r11)
        /* row 2: a2 * a3..a5 -> S5..S8 */
        "movq 16(%rsi), %rdx\n"
        "xorl %eax, %eax\n"
        X_ROW_STEP(rsi, 24, rax, rcx, r9, r10)
        X_ROW_STEP(rsi, 32, rax, rcx, r10, r11)
        "mulxq 40(%rsi), %rax, %r12\n"
        "adoxq %rax, %r11\n"
        X_CARRY_IN(r12)
        /* row 3: a3 * a4..a5 -> S7..S9 */
        "movq 24(%rsi), %rdx\n"
        "xorl %eax, %eax\n"
        X_ROW_STEP(rsi, 32, rax, rcx, r11, r12)
        "mulxq 40(%rsi), %rax, %r13\n"
        "adoxq %rax, %r12\n"
        X_CARRY_IN(r13)
        /* row 4: a4 * a5 -> S9..S10 */
        "movq 32(%rsi), %rdx\n"
        "mulxq 40(%rsi), %rax, %r14\n"
        "addq %rax, %r13\n"
        "adcq $0, %r14\n"
        /* w = 2 S + sum a_i^2 2^(128 i): doubling on CF, squares on OF */
        "xorl %eax, %eax\n"
        "movq (%rsi), %rdx\n"
        "mulxq %rdx, %r15, %rcx\n"
        "adcxq %rbx, %rbx\n" "adoxq %rcx, %rbx\n"
        "movq 8(%rsi), %rdx\n"
        "mulxq %rdx, %rax, %rcx\n"
        "adcxq %rbp, %rbp\n" "adoxq %rax, %rbp\n"
        "adcxq %rdi, %rdi\n" "adoxq %rcx, %rdi\n"
        "movq 16(%rsi), %rdx\n"
        "mulxq %rdx, %rax, %rcx\n"
        "adcxq %r8, %r8\n" "adoxq %rax, %r8\n"
        "adcxq %r9, %r9\n" "adoxq %rcx, %r9\n"
        "movq 24(%rsi), %rdx\n"
        "mulxq %rdx, %rax, %rcx\n"
        "adcxq %r10, %r10\n" "adoxq %rax, %r10\n"
        "adcxq %r11, %r11\n" "adoxq %rcx, %r11\n"
        "movq 32(%rsi), %rdx\n"
        "mulxq %rdx, %rax, %rcx\n"
        "adcxq %r12, %r12\n" "adoxq %rax, %r12\n"
        "adcxq %r13, %r13\n" "adoxq %rcx, %r13\n"
        "movq 40(%rsi), %rdx\n"
        "mulxq %rdx, %rax, %rsi\n"
        "adcxq %r14, %r14\n" "adoxq %rax, %r14\n"
        X_CARRY_IN(rsi)
        /* keep w6..w11 for the end; reduce w0..w5 = r15 rbx rbp rdi r8 r9 */
        "movq %r10, 24(%rsp)\n"
        "movq %r11, 32(%rsp)\n"
        "movq %r12, 40(%rsp)\n"
        "movq %r13, 48(%rsp)\n"
        "movq %r14, 56(%rsp)\n"
        "movq %rsi, 64(%rsp)\n"
        "movq 8(%rsp), %rcx\n"
        "xorl %r10d, %r10d\n"
        X6_REDC(rcx, "16(%rsp)", r11, r15, rbx, rbp, rdi, r8, r9, r10)
        X6_REDC(rcx, "16(%rsp)", r11, rbx, rbp, rdi, r8, r9, r10, r15)
        X6_REDC(rcx, "16(%rsp)", r11, rbp, rdi, r8, r9, r10, r15, rbx)
        X6_REDC(rcx, "16(%rsp)", r11, rdi, r8, r9, r10, r15, rbx, rbp)
        X6_REDC(rcx, "16(%rsp)", r11, r8, r9, r10, r15, rbx, rbp, rdi)
        X6_REDC(rcx, "16(%rsp)", r11, r9, r10, r15, rbx, rbp, rdi, r8)
        /* + w6..w11: the sum is < 2p, no carry out */
        "addq 24(%rsp), %r10\n"
        "adcq 32(%rsp), %r15\n"
        "adcq 40(%rsp), %rbx\n"
        "adcq 48(%rsp), %rbp\n"
        "adcq 56(%rsp), %rdi\n"
        "adcq 64(%rsp), %r8\n"
        "movq 0(%rsp), %r9\n"
        X6_FINAL(rcx, r9, r10, r15, rbx, rbp, rdi, r8, rax, r11, r12, r13, r14, rsi)
        "addq $72, %rsp\n.cfi_adjust_cfa_offset -72\n"
        X_POP(r15) X_POP(r14) X_POP(r13) X_POP(r12) X_POP(rbp) X_POP(rbx)
        X_END(cuzk_mont_sqr6_adx));

/* ----------------------------------------------------- Fr: 4 limbs ------ */

#define X4_FIRST(t0, t1, t2, t3, t4)                                         \
    "movq (%rbx), %rdx\n"                                                    \
    "mulxq (%rsi), %" #t0 ", %" #t1 "\n"                                     \
    "mulxq 8(%rsi), %rax, %" #t2 "\n"                                        \
    "addq %rax, %" #t1 "\n"                                                  \
    "mulxq 16(%rsi), %rax, %" #t3 "\n"                                       \
    "adcq %rax, %" #t2 "\n"                                                  \
    "mulxq 24(%rsi), %rax, %" #t4 "\n"                                       \
    "adcq %rax, %" #t3 "\n"                                                  \
    "adcq $0, %" #t4 "\n"

#define X4_ROW(off, t0, t1, t2, t3, t4)                                      \
    "movq " #off "(%rbx), %rdx\n"                                            \
    "xorl %eax, %eax\n"                                                      \
    X_ROW_STEP(rsi, 0, rax, rbp, t0, t1)                                     \
    X_ROW_STEP(rsi, 8, rax, rbp, t1, t2)                                     \
    X_ROW_STEP(rsi, 16, rax, rbp, t2, t3)                                    \
    "mulxq 24(%rsi), %rax, %" #t4 "\n"                                       \
    "adoxq %rax, %" #t3 "\n"                                                 \
    X_CARRY_IN(t4)

#define X4_REDC(P, N0, HI, t0, t1, t2, t3, t4)                               \
    X_REDC_HEAD(N0, t0)                                                      \
    X_ROW_STEP(P, 0, rax, HI, t0, t1)                                        \
    X_ROW_STEP(P, 8, rax, HI, t1, t2)                                        \
    X_ROW_STEP(P, 16, rax, HI, t2, t3)                                       \
    X_ROW_STEP(P, 24, rax, HI, t3, t4)                                       \
    "movl $0, %eax\n"                                                        \
    "adoxq %rax, %" #t4 "\n"

#define X4_FINAL(P, R, t0, t1, t2, t3, s0, s1, s2, s3)                       \
    X_FINAL_SUB((%P), "subq", t0, s0)                                        \
    X_FINAL_SUB(8(%P), "sbbq", t1, s1)                                    \
    X_FINAL_SUB(16(%P), "sbbq", t2, s2)                                   \
    X_FINAL_SUB(24(%P), "sbbq", t3, s3)                                   \
    X_CMOV(t0, s0) X_CMOV(t1, s1) X_CMOV(t2, s2) X_CMOV(t3, s3)              \
    "movq %" #s0 ", (%" #R ")\n"                                             \
    "movq %" #s1 ", 8(%" #R ")\n"                                            \
    "movq %" #s2 ", 16(%" #R ")\n"                                           \
    "movq %" #s3 ", 24(%" #R ")\n"

/* cuzk_mont_mul4_adx(r = rdi, a = rsi, b = rdx, p = rcx, n0 = r8).
 * b in rbx; scratch rax, rbp; t in r9..r13. */
__asm__(X_BEGIN(cuzk_mont_mul4_adx)
        X_PUSH(rbx) X_PUSH(rbp) X_PUSH(r12) X_PUSH(r13)
        "movq %rdx, %rbx\n"
        X4_FIRST(r9, r10, r11, r12, r13)
        X4_REDC(rcx, "%r8", rbp, r9, r10, r11, r12, r13)
        X4_ROW(8, r10, r11, r12, r13, r9)
        X4_REDC(rcx, "%r8", rbp, r10, r11, r12, r13, r9)
        X4_ROW(16, r11, r12, r13, r9, r10)
        X4_REDC(rcx, "%r8", rbp, r11, r12, r13, r9, r10)
        X4_ROW(24, r12, r13, r9, r10, r11)
        X4_REDC(rcx, "%r8", rbp, r12, r13, r9, r10, r11)
        X4_FINAL(rcx, rdi, r13, r9, r10, r11, rax, rbp, rdx, rsi)
        X_POP(r13) X_POP(r12) X_POP(rbp) X_POP(rbx)
        X_END(cuzk_mont_mul4_adx));

/* cuzk_mont_sqr4_adx(r = rdi, a = rsi, p = rdx, n0 = rcx).
 * p moves to r14, n0 to r15. Cross products S1..S6 in rbx rbp r8 r9 r10 r11,
 * w0 in r12, w7 in r13, scratch rax rcx. */
__asm__(X_BEGIN(cuzk_mont_sqr4_adx)
        X_PUSH(rbx) X_PUSH(rbp) X_PUSH(r12) X_PUSH(r13) X_PUSH(r14) X_PUSH(r15)
        "movq %rdx, %r14\n"
        "movq %rcx, %r15\n"
        /* row 0: a0 * a1..a3 -> S1..S4 */
        "movq (%rsi), %rdx\n"
        "mulxq 8(%rsi), %rbx, %rbp\n"
        "mulxq 16(%rsi), %rax, %r8\n"
        "addq %rax, %rbp\n"
        "mulxq 24(%rsi), %rax, %r9\n"
        "adcq %rax, %r8\n"
        "adcq $0, %r9\n"
        /* row 1: a1 * a2..a3 -> S3..S5 */
        "movq 8(%rsi), %rdx\n"
        "xorl %eax, %eax\n"
        X_ROW_STEP(rsi, 16, rax, rcx, r8, r9)
        "mulxq 24(%rsi), %rax, %r10\n"
        "adoxq %rax, %r9\n"
        X_CARRY_IN(r10)
        /* row 2: a2 * a3 -> S5..S6 */
        "movq 16(%rsi), %rdx\n"
        "mulxq 24(%rsi), %rax, %r11\n"
        "addq %rax, %r10\n"
        "adcq $0, %r11\n"
        /* w = 2 S + squares */
        "xorl %eax, %eax\n"
        "movq (%rsi), %rdx\n"
        "mulxq %rdx, %r12, %rcx\n"
        "adcxq %rbx, %rbx\n" "adoxq %rcx, %rbx\n"
        "movq 8(%rsi), %rdx\n"
        "mulxq %rdx, %rax, %rcx\n"
        "adcxq %rbp, %rbp\n" "adoxq %rax, %rbp\n"
        "adcxq %r8, %r8\n" "adoxq %rcx, %r8\n"
        "movq 16(%rsi), %rdx\n"
        "mulxq %rdx, %rax, %rcx\n"
        "adcxq %r9, %r9\n" "adoxq %rax, %r9\n"
        "adcxq %r10, %r10\n" "adoxq %rcx, %r10\n"
        "movq 24(%rsi), %rdx\n"
        "mulxq %rdx, %rax, %r13\n"
        "adcxq %r11, %r11\n" "adoxq %rax, %r11\n"
        X_CARRY_IN(r13)
        /* reduce w0..w3 = r12 rbx rbp r8, then add w4..w7 = r9 r10 r11 r13 */
        "xorl %esi, %esi\n"
        X4_REDC(r14, "%r15", rcx, r12, rbx, rbp, r8, rsi)
        X4_REDC(r14, "%r15", rcx, rbx, rbp, r8, rsi, r12)
        X4_REDC(r14, "%r15", rcx, rbp, r8, rsi, r12, rbx)
        X4_REDC(r14, "%r15", rcx, r8, rsi, r12, rbx, rbp)
        "addq %r9, %rsi\n"
        "adcq %r10, %r12\n"
        "adcq %r11, %rbx\n"
        "adcq %r13, %rbp\n"
        X4_FINAL(r14, rdi, rsi, r12, rbx, rbp, rax, rcx, rdx, r8)
        X_POP(r15) X_POP(r14) X_POP(r13) X_POP(r12) X_POP(rbp) X_POP(rbx)
        X_END(cuzk_mont_sqr4_adx));

#endif /* CUZK_MONT_ASM */

#endif /* CUZK_FF_MONT_X86_64_IMPL_H */
