/* cuzk-bench prove's compute-floor model: for each stage of a proof
 * (cuzk_prove_stage), the work it cannot avoid, counted from the key's
 * sizes and the witness's values, and the time that work takes at a device
 * model's rates. A stage's ratio to its floor is then how far the code is
 * from the hardware, whatever the size.
 *
 * Work is counted in two currencies:
 *   products  32x32 -> 64-bit partial products on the integer multiply-add
 *             pipe; a Montgomery multiplication of N 32-bit limbs is
 *             2N^2 + N of them (Fr: N = 8, 136; Fp: N = 12, 300;
 *             shared/DESIGN.md "H200 facts measured here"), a squaring
 *             N(N-1)/2 + N + N^2 + N (Fp: 234; bench/kernels.c "own pk");
 *   bytes     what must cross device memory (or the host link, for the
 *             witness upload) at least once.
 * A part's floor is max(products / rate, bytes / bandwidth): in a perfect
 * kernel the two overlap. A stage's floor is the sum of its parts' (they
 * run one after another). Host-only stages (the witness, assembly, the
 * self-check) have no model: their floor is "none", never a guess.
 *
 * Not counted, so the floor stays below what any implementation pays: the
 * SpMV's multiplications by coefficients other than +-1 (a few percent of
 * the terms), the inversions of batch-affine additions (one per batch,
 * shared by its additions), the conversions to canonical MSM scalars
 * (H's folds into the inverse transform's 1/n; the witness's touches only
 * its other values), window combination (~255 doublings an MSM) and
 * r B1 (one scalar multiplication). */
#include <math.h>
#include <stddef.h>
#include <string.h>

#include <cuzk/prove.h>

#include "bench.h"

_Static_assert(CUZK_STAGE_DONE == BENCH_STAGES, "bench_work arrays are indexed by stage");

/* ----------------------------------------------------- product counts -- */

#define FR_MUL 136.0 /* 2N^2 + N, N = 8 */
#define FP_MUL 300.0 /* 2N^2 + N, N = 12 */
#define FP_SQR 234.0 /* N(N-1)/2 + N + N^2 + N, N = 12 */
/* Fp2 = Fp[u]/(u^2 + 1): Karatsuba multiplication 3 Fp multiplications,
 * squaring (a + b)(a - b), 2ab: 2. */
#define FP2_MUL (3 * FP_MUL)
#define FP2_SQR (2 * FP_MUL)
/* Affine addition, its inversion shared by a batch (Montgomery's trick,
 * src/gpu/msm_affine.cuh): l = (y2 - y1) / (x2 - x1), x3 = l^2 - x1 - x2,
 * y3 = l (x1 - x3) - y1: 5M + 1S with the batch's 3 products per element.
 * G1 5 x 300 + 234 = 1734, G2 5 x 900 + 600 = 5100 (bench/kernels.c's
 * msm_floor_ms uses the same). */
#define G1_AFF_ADD (5 * FP_MUL + FP_SQR)
#define G2_AFF_ADD (5 * FP2_MUL + FP2_SQR)
/* XYZZ addition (add-2008-s, 12M + 2S), what the bucket reduction adds:
 * G1 4068, G2 12000. */
#define G1_XYZZ_ADD (12 * FP_MUL + 2 * FP_SQR)
#define G2_XYZZ_ADD (12 * FP2_MUL + 2 * FP2_SQR)
/* Affine points: 2 coordinates of 48 bytes (G1) or 96 (G2). */
#define G1_POINT 96.0
#define G2_POINT 192.0
#define FR_BYTES 32.0

/* The window range of the library's Pippenger (src/gpu/msm.cu: msm_choose_c
 * starts at 8; MSM_PRE_C_MAX = 24, the digit reader's limit). */
#define MSM_C_MIN 8u
#define MSM_C_MAX 24u

double bench_ntt_fr_muls(unsigned log_n)
{
    /* Radix-2: log_n levels of n/2 butterflies, one multiplication each,
     * less those by w^0 = 1: the level of span 2^s has n / 2^s of them, so
     * sum_s n/2 - n/2^s = n log_n / 2 - n + 1 (2^27: 12.5 per element,
     * docs/perf.md "GPU NTT"). */
    double n = ldexp(1.0, (int)log_n);
    return n * log_n / 2 - n + 1;
}

unsigned bench_msm_windows(unsigned c)
{
    return (255 + c - 1) / c; /* signed c-bit digits of a 255-bit scalar (msm.cu) */
}

double bench_msm_products(int g2, uint64_t other, uint64_t ones, unsigned *c_out)
{
    /* The method assumed: zeros skipped; ones summed by a batch-affine
     * addition each (ones - 1 to sum them, one to add the sum to the rest);
     * the other scalars by batch-affine Pippenger with signed c-bit
     * windows, its windows folded into one set of 2^(c-1) buckets (as
     * precomputed window tables do: the smallest count of a bucket method,
     * docs/perf.md "GPU MSM with precomputed window tables"): W(c) x other
     * affine additions, then the running-sum reduction, two XYZZ additions
     * a bucket: 2^c. c is the one of [8, 24] that minimises the count. A
     * plain plan reduces W bucket sets; the floor does not charge that. */
    double aff = g2 ? G2_AFF_ADD : G1_AFF_ADD, xyzz = g2 ? G2_XYZZ_ADD : G1_XYZZ_ADD;
    double best = 0;
    unsigned bc = 0;
    if (other) {
        for (unsigned c = MSM_C_MIN; c <= MSM_C_MAX; c++) {
            double p = (double)bench_msm_windows(c) * (double)other * aff + ldexp(xyzz, (int)c);
            if (!bc || p < best) best = p, bc = c;
        }
    }
    if (c_out) *c_out = bc;
    return best + (double)ones * aff;
}

/* ---------------------------------------------------------- the stages -- */

static void add_part(bench_work *w, const char *name, double products, double bytes, int h2d,
                     unsigned c)
{
    bench_part *p = &w->part[w->n++];
    p->name = name;
    p->products = products;
    p->bytes = bytes;
    p->h2d = h2d;
    p->c = c;
}

/* One MSM's part: products as above; bytes: each other scalar's point
 * read once per window and each one's point once, and the other scalars
 * themselves (zeros and ones come as bitmaps, counted in the upload). */
static void msm_part(bench_work *w, const char *name, int g2, const bench_wcount *k)
{
    unsigned c = 0;
    double prod = bench_msm_products(g2, k->other, k->ones, &c);
    double reads = (c ? (double)bench_msm_windows(c) * (double)k->other : 0) + (double)k->ones;
    add_part(w, name, prod, reads * (g2 ? G2_POINT : G1_POINT) + FR_BYTES * (double)k->other, 0,
             c);
}

void bench_floor_work(const bench_shape *s, bench_work w[BENCH_STAGES])
{
    memset(w, 0, BENCH_STAGES * sizeof *w);
    double n = ldexp(1.0, (int)s->log_domain), v = (double)s->n_vars;

    /* a, b, c. On a device backend the witness goes up first in the compact
     * form of src/gpu/wcompact.h: two bitmaps (is 0/1, which) of
     * ceil(V/64) words, a 4-byte offset a word, 32 bytes an other value.
     * Then the SpMV reads the rows' source (s->rows_bytes: a PCE image, or
     * the key's CSR matrices) and the witness once, and writes a, b, c over
     * the domain (96 bytes a point). */
    bench_work *abc = &w[CUZK_STAGE_ROWS];
    if (s->device) {
        double words = ceil(v / 64);
        add_part(abc, "upload", 0,
                 words * 16 + words * 4 + FR_BYTES * (double)s->w_all.other, 1, 0);
    }
    add_part(abc, "SpMV", 0, (double)s->rows_bytes + FR_BYTES * v + 3 * FR_BYTES * n, 0, 0);

    /* H: inverse transforms of a, b, c; coset transforms of the three;
     * (a b - c) z^-1 on the coset; the coset inverse transform: 7
     * transforms (bench_ntt_fr_muls each), the coset factor g^(+-i) on 4 of
     * them (n each), the pointwise product and the scaling by z^-1 (2n): Fr
     * multiplications at 136 products. Bytes: one pass (read and write
     * 32n) a transform; the pointwise work fused into a pass. */
    add_part(&w[CUZK_STAGE_H], "NTTs",
             (7 * bench_ntt_fr_muls(s->log_domain) + 6 * n) * FR_MUL, 7 * 2 * FR_BYTES * n, 0, 0);

    /* The MSMs, as the library splits them into stages (prove.h): A over
     * every variable; B2 (G2) over the n_b variables of B; C = L over the
     * private variables + H over the h_points dense scalars + B1 over B's
     * variables. */
    msm_part(&w[CUZK_STAGE_MSM_A], "A", 0, &s->w_all);
    msm_part(&w[CUZK_STAGE_MSM_B2], "B2", 1, &s->w_b);
    bench_wcount h = {0, 0, s->h_points};
    msm_part(&w[CUZK_STAGE_MSM_C], "L", 0, &s->w_priv);
    msm_part(&w[CUZK_STAGE_MSM_C], "H", 0, &h);
    msm_part(&w[CUZK_STAGE_MSM_C], "B1", 0, &s->w_b);
}

/* ------------------------------------------------------------- models -- */

void bench_model_h200(bench_model *m)
{
    m->name = "h200";
    /* IMAD.WIDE.U32.X (a mad.lo.cc / madc.hi.cc pair, what the field code
     * compiles to) measured at 30.4 products a clock per SM by `cuzk-bench
     * kernels --calibrate` (docs/perf.md "GPU field arithmetic"), 132 SMs
     * at 1.98 GHz: 7.95 T/s (DESIGN.md: "~8 T/s"). */
    m->product_rate = 30.4 * 132 * 1.98e9;
    m->product_src = "docs/perf.md: IMAD.WIDE pair 30.4 products/clk/SM x 132 SMs x 1.98 GHz";
    m->hbm = 4.25e12; /* DESIGN.md: device copy 4.25 TB/s */
    m->hbm_src = "DESIGN.md: device copy 4.25 TB/s";
    m->h2d = 55.5e9; /* DESIGN.md: host -> device 55.5 GB/s pinned (8.6 pageable) */
    m->h2d_src = "DESIGN.md: host->device 55.5 GB/s pinned";
}

double bench_part_floor_ms(const bench_part *p, const bench_model *m)
{
    double compute = p->products / m->product_rate;
    double memory = p->bytes / (p->h2d ? m->h2d : m->hbm);
    return 1e3 * (compute > memory ? compute : memory);
}

double bench_work_floor_ms(const bench_work *w, const bench_model *m)
{
    if (!w->n) return -1;
    double ms = 0;
    for (unsigned i = 0; i < w->n; i++) ms += bench_part_floor_ms(&w->part[i], m);
    return ms;
}

double bench_work_bytes(const bench_work *w)
{
    double b = 0;
    for (unsigned i = 0; i < w->n; i++) b += w->part[i].bytes;
    return b;
}
