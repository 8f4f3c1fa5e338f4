/* cuzk-bench prove's floor model (bench/floors.c) against values worked by
 * hand, and its H200 constants against the floors the docs quote.
 *
 * The shape: domain 2^10 (n = 1024), 1000 variables, 1024 H points, 50000
 * bytes of rows' source, a device backend; witness over all variables 400
 * zeros, 400 ones, 200 other; over the private ones 399 / 399 / 199; over
 * B's 100 / 150 / 50. The model: 1e12 products/s, 1e11 B/s device memory,
 * 1e10 B/s host -> device (round numbers, so every floor below is exact).
 *
 * One transform of 2^10: n log n / 2 - n + 1 = 1024 * 5 - 1024 + 1 = 4097
 * Fr multiplications (2^27: 2^27 * 13.5 - 2^27 + 1 = 1,677,721,601).
 *
 * H: (7 * 4097 + 6 * 1024) * 136 = 34823 * 136 = 4,735,928 products;
 *    7 * 64 * 1024 = 458,752 bytes. max(4.735928e-6 s, 4.58752e-6 s):
 *    floor 0.004735928 ms (compute-bound).
 *
 * a, b, c: upload = ceil(1000 / 64) = 16 words: 16 * 16 (two bitmaps)
 *    + 16 * 4 (offsets) + 200 * 32 (other values) = 6720 bytes, at 1e10:
 *    0.000672 ms; SpMV = 50000 + 32 * 1000 + 96 * 1024 = 180,304 bytes, at
 *    1e11: 0.00180304 ms. Stage: 187,024 bytes, 0.00247504 ms.
 *
 * MSM A (G1; 200 other, 400 ones), count W(c) * 200 * 1734 + 2^c * 4068:
 *    c = 8:  32 windows: 11,097,600 + 1,041,408 = 12,139,008
 *    c = 9:  29 windows: 10,057,200 + 2,082,816 = 12,140,016
 *    c = 10: 26 windows:  9,016,800 + 4,165,632 = 13,182,432
 *    so c = 8; + 400 ones * 1734 = 693,600: 12,832,608 products. Bytes
 *    (32 * 200 + 400) * 96 + 200 * 32 = 659,200. Floor 0.012832608 ms.
 *
 * MSM B2 (G2; 50 other, 150 ones), W(c) * 50 * 5100 + 2^c * 12000:
 *    c = 8: 8,160,000 + 3,072,000 = 11,232,000; c = 9: 7,395,000 +
 *    6,144,000 = 13,539,000; so c = 8; + 150 * 5100 = 765,000:
 *    11,997,000 products; bytes (32 * 50 + 150) * 192 + 50 * 32 = 337,600.
 *    Floor 0.011997 ms.
 *
 * H's MSM (G1, 1024 dense scalars), W(c) * 1024 * 1734 + 2^c * 4068:
 *    c = 9: 53,575,680; c = 10: 26 * 1,775,616 + 4,165,632 = 50,331,648;
 *    c = 11: 24 * 1,775,616 + 8,331,264 = 50,946,048; so c = 10.
 *
 * The H200 model (7.945e12 products/s): a 2^27 transform 1,677,721,601 *
 * 136 / 7.945e12 = 28.72 ms (docs/perf.md "GPU NTT": 28.6 ms); a dense
 * G1 MSM of 2^26, c = 24 (11 windows): 11 * 2^26 * 1734 + 2^24 * 4068 =
 * 1.348e12 products, 169.7 ms (DESIGN.md: ~170 ms); a full partition's H
 * stage and H MSM (2^27) 545.6 ms (issue 13: "~0.55 s"). */
#include <math.h>
#include <stdio.h>

#include <cuzk/prove.h>

#include "bench.h"
#include "test_util.h"

static int near(double got, double want, double rel)
{
    return fabs(got - want) <= rel * fabs(want);
}

int main(void)
{
    CHECK(bench_ntt_fr_muls(10) == 4097);
    CHECK(bench_ntt_fr_muls(27) == 1677721601.0);

    unsigned c = 0;
    CHECK(bench_msm_products(0, 200, 400, &c) == 12832608.0 && c == 8);
    CHECK(bench_msm_products(1, 50, 150, &c) == 11997000.0 && c == 8);
    CHECK(bench_msm_products(0, 1024, 0, &c) == 50331648.0 && c == 10);
    CHECK(bench_msm_products(0, 0, 7, &c) == 7 * 1734.0 && c == 0); /* ones only */
    CHECK(bench_msm_products(1, 0, 0, &c) == 0 && c == 0);

    bench_shape sh = {10, 1000, 1024, 50000, 1, {400, 400, 200}, {399, 399, 199},
                      {100, 150, 50}};
    bench_model m = {"test", 1e12, 1e11, 1e10, "", "", ""};
    bench_work w[BENCH_STAGES];
    bench_floor_work(&sh, w);
    const double tol = 1e-12;

    CHECK(w[CUZK_STAGE_WITNESS].n == 0 && bench_work_floor_ms(&w[CUZK_STAGE_WITNESS], &m) < 0);
    CHECK(w[CUZK_STAGE_ASSEMBLE].n == 0 && w[CUZK_STAGE_VERIFY].n == 0);

    const bench_work *h = &w[CUZK_STAGE_H];
    CHECK(h->n == 1 && h->part[0].products == 4735928.0 && h->part[0].bytes == 458752.0);
    CHECK(near(bench_work_floor_ms(h, &m), 0.004735928, tol));

    const bench_work *abc = &w[CUZK_STAGE_ROWS];
    CHECK(abc->n == 2 && abc->part[0].h2d && abc->part[0].bytes == 6720.0);
    CHECK(!abc->part[1].h2d && abc->part[1].bytes == 180304.0);
    CHECK(near(bench_part_floor_ms(&abc->part[0], &m), 0.000672, tol));
    CHECK(near(bench_work_floor_ms(abc, &m), 0.00247504, tol));
    CHECK(bench_work_bytes(abc) == 187024.0);

    const bench_work *a = &w[CUZK_STAGE_MSM_A];
    CHECK(a->n == 1 && a->part[0].products == 12832608.0 && a->part[0].bytes == 659200.0 &&
          a->part[0].c == 8);
    CHECK(near(bench_work_floor_ms(a, &m), 0.012832608, tol));

    const bench_work *b2 = &w[CUZK_STAGE_MSM_B2];
    CHECK(b2->n == 1 && b2->part[0].products == 11997000.0 && b2->part[0].bytes == 337600.0);
    CHECK(near(bench_work_floor_ms(b2, &m), 0.011997, tol));

    /* C = L + H + B1, in that order; H's part as worked above. */
    const bench_work *cw = &w[CUZK_STAGE_MSM_C];
    CHECK(cw->n == 3 && cw->part[1].products == 50331648.0 && cw->part[1].c == 10);
    CHECK(cw->part[0].products == bench_msm_products(0, 199, 399, NULL));
    CHECK(cw->part[2].products == bench_msm_products(0, 50, 150, NULL));

    /* On the CPU backend nothing is uploaded. */
    sh.device = 0;
    bench_floor_work(&sh, w);
    CHECK(w[CUZK_STAGE_ROWS].n == 1 && w[CUZK_STAGE_ROWS].part[0].bytes == 180304.0);

    /* The H200 constants against the floors the docs quote. */
    bench_model_h200(&m);
    CHECK(near(m.product_rate, 7.945344e12, 1e-9));
    CHECK(near(1e3 * bench_ntt_fr_muls(27) * 136 / m.product_rate, 28.6, 0.01));
    CHECK(near(1e3 * bench_msm_products(0, (uint64_t)1 << 26, 0, &c) / m.product_rate, 170,
               0.01) && c == 24);
    bench_shape full = {27, 130072767, (uint64_t)1 << 27, 0, 1, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}};
    bench_floor_work(&full, w);
    double h_ms = bench_work_floor_ms(&w[CUZK_STAGE_H], &m);
    double hmsm_ms = bench_part_floor_ms(&w[CUZK_STAGE_MSM_C].part[1], &m);
    printf("  h200, 2^27: H stage %.1f ms, H MSM %.1f ms\n", h_ms, hmsm_ms);
    CHECK(near(h_ms + hmsm_ms, 550, 0.02));
    return test_done("test_floors");
}
