/* Group-independent parts of the MSM: constants, the cost model, scalar
 * conversion and classification. */
#include <string.h>
#include <unistd.h>

#include <cuzk/msm.h>

#include "common/parallel.h"
#include "msm/msm_internal.h"

const uint64_t MSM_R[4] = {0xffffffff00000001ull, 0x53bda402fffe5bfeull,
                           0x3339d80809a1d805ull, 0x73eda753299d7d48ull};
const uint64_t MSM_R_HALF[4] = {0x7fffffff80000000ull, 0xa9ded2017fff2dffull,
                                0x199cec0404d0ec02ull, 0x39f6d3a994cebea4ull};

/* L = x^2 = 0xac45a4010001a4020000000100000000. */
const uint64_t MSM_GLV_L[2] = {0x0000000100000000ull, 0xac45a4010001a402ull};

/* One step of schoolbook division by L (Knuth's algorithm D with a
 * two-limb divisor, normalised: the top bit of L is set): with *rem < L,
 * returns q = floor((*rem 2^64 + u) / L) < 2^64 and leaves the remainder in
 * *rem. The estimate from the top limb of L is at most 2 too large. */
static uint64_t glv_div_step(unsigned __int128 *rem, uint64_t u)
{
    typedef unsigned __int128 u128;
    const uint64_t l0 = MSM_GLV_L[0], l1 = MSM_GLV_L[1];
    uint64_t n2 = (uint64_t)(*rem >> 64), n1 = (uint64_t)*rem, n0 = u;
    uint64_t q = n2 >= l1 ? ~0ull : (uint64_t)(*rem / l1);
    /* p = q L, 192 bits */
    u128 t = (u128)q * l0;
    uint64_t p0 = (uint64_t)t;
    t = (u128)q * l1 + (uint64_t)(t >> 64);
    uint64_t p1 = (uint64_t)t, p2 = (uint64_t)(t >> 64);
    /* while p > n: q--, p -= L */
    while (p2 > n2 || (p2 == n2 && (p1 > n1 || (p1 == n1 && p0 > n0)))) {
        q--;
        u128 d = (u128)p0 - l0;
        p0 = (uint64_t)d;
        d = (u128)p1 - l1 - (uint64_t)((d >> 64) & 1);
        p1 = (uint64_t)d;
        p2 -= (uint64_t)((d >> 64) & 1);
    }
    /* the remainder is < L < 2^128: its top limb is zero */
    *rem = (((u128)n1 << 64) | n0) - (((u128)p1 << 64) | p0);
    return q;
}

/* k2 = floor(k' / L), k1 = k' mod L for k' = k mod r: k' = h 2^128 + l
 * with h < 2^127 <= L, so two 64-bit quotient digits. */
void msm_glv_split(uint64_t k1[2], uint64_t k2[2], const uint64_t k[4])
{
    uint64_t v[4] = {k[0], k[1], k[2], k[3]};
    while (msm_ge4(v, MSM_R)) msm_sub4(v, v, MSM_R);
    unsigned __int128 rem = ((unsigned __int128)v[3] << 64) | v[2];
    k2[1] = glv_div_step(&rem, v[1]);
    k2[0] = glv_div_step(&rem, v[0]);
    k1[0] = (uint64_t)rem, k1[1] = (uint64_t)(rem >> 64);
}

unsigned msm_threads(unsigned nthreads)
{
    unsigned t = nthreads ? nthreads : cuzk_ncores();
    return t > MSM_MAX_THREADS ? MSM_MAX_THREADS : t;
}

/* ------------------------------------------------------------ cost model --
 *
 * Unit: one mixed addition of an affine point into an XYZZ bucket. A call
 * with window size c has W = ceil(255 / c) windows (scalars folded below
 * 2^254, see msm_internal.h; ceil(129 / c) for the 128-bit GLV halves,
 * whose call then has 2n points) and 2^(c-1) buckets per window. Cutting the
 * points into R ranges gives W R independent tasks, each costing
 *     n / R * miss          bucket additions (digit 0 has probability 2^-c);
 *                           miss = 1, or MSM_L2_MISS once one thread's
 *                           bucket array outgrows the per-core L2 cache
 *   + 2^(c-1) * bucket      running-sum reduction: two XYZZ additions per
 *                           bucket, one XYZZ addition ~1.3 mixed additions
 * run on T threads in ceil(W R / T) rounds (tasks are claimed dynamically,
 * so this is the makespan when all tasks cost the same). Then, serially,
 * the W R task results are summed and the windows combined with ~255
 * (GLV: ~129) doublings; starting each extra thread costs `thread`. The model minimises
 * the total over c in [1, MSM_MAX_C] and R in [1, 4 T]. A larger R keeps
 * more cores busy when W is not a multiple of T, at the price of reducing
 * the buckets once more per range.
 *
 * The constants come from measurements (G1, random scalars, gcc -O3, the
 * field code in the tree at the time, best of 2-3; * marks the model's
 * choice after tuning). 16-core Intel Xeon (the GPU host), 2 MiB L2/core:
 *   primitives: fp_mul 50-54 ns, mixed addition 0.79-0.86 us, XYZZ
 *   addition 1.02-1.07 us (1.3 units), Jacobian doubling 0.67-0.72 us,
 *   fp_inv_var 3.5-3.8 us
 *   2^16, 1 thread:   c=12 1.04 s  c=13* 0.96 s  c=14 1.03 s
 *   2^18, 16 threads: c=12 0.395  c=13* 0.410  c=14 0.457  c=15 0.469
 *                     (first tuning run: c=16 0.467, cost per unit 1.37 us
 *                     against 1.03 us at c=13: 6 MiB of buckets per thread
 *                     miss L2, hence MSM_L2_MISS)
 *   2^20, 16 threads: c=13* 1.41   c=14 1.44   c=15 1.51   c=16 1.46
 * 2-core AMD EPYC development machine, 1 MiB L2/core, shared with other
 * jobs, so CPU time (summed over threads) rather than wall time:
 *   2^16, 2 threads: c=12 12.6  c=13* 12.4  c=14 13.1 cpu-us/point
 *   2^18, 2 threads: c=13* 11.1  c=14 10.9 cpu-us/point
 * The optimum is flat (+-5 % over c +- 1) and the model lands on it or next
 * to it; before the L2 term it chose c = 16 at 2^18 and 2^20 on 16 threads,
 * 10-20 % slower. Per-core throughput on 16 threads is ~1.5x lower than on
 * one (CPU time per point rises too: the machine, not load imbalance). */

/* Since then: variable-time XYZZ additions (the unit is now the
 * variable-time mixed addition, 8M + 2S) and batch-affine accumulation for
 * windows of >= MSM_BA_MIN_BUCKETS buckets, whose per-point cost `ba_point`
 * is relative to that unit; their buckets are affine (half the bytes), and
 * `bucket` was refitted to 2.0. 2-core EPYC, 1 thread, us/point (* = the
 * model's choice after the refit):
 *   G1 2^16: c=11 7.24  c=12 6.75  c=13* 6.56  c=14 7.01
 *   G1 2^18: c=12 6.47  c=13 5.97  c=14* 5.86  c=15 5.74
 *   G2 2^16: c=11 17.9  c=12* 17.2  c=13 16.6
 *
 * With GLV on G1 and G2 (2n points, 128-bit halves) and batches of nb / 4,
 * `bucket` was refitted to 1.3 on the prover's sizes (chain14 key: 5022,
 * 7536, 16026 and 16384 points), where 2.0 chose windows one bit too small.
 * 2-core EPYC, 1 thread, CPU ms, best of 3 (* = the model's choice at 1.3;
 * at 2.0 it took c=10 for 7536 and c=11 for 16384):
 *   G1   5022: c=10* 42.4  c=11 42.6  c=12 45.4  c=13 54.8
 *   G1   7536: c=10 62.0  c=11* 60.7  c=12 61.4  c=13 68.3
 *   G1  16384: c=10 138.6  c=11 122.0  c=12* 117.8  c=13 119.1
 *   G2   5022: c=9 117.3  c=10* 104.8  c=11 107.3  c=12 118.7
 * On 2 threads the model weighs in the rounds of windows per thread: for
 * 16384 it takes c=13 (10 windows, 5 per thread: 5 x 11.9 = 59.6 ms of the
 * per-window times above, against 6 x 10.7 = 64.3 at c=12).
 *
 * Then the batch-affine bucket reduction (msm_impl.h, ba_reduce) made
 * buckets cheaper again: `bucket` 1.3 -> 0.9. Same box and method:
 *   G1   5022: c=10 41.3  c=11* 39.7  c=12 39.5  c=13 42.0  c=14 52.5
 *   G1   7536: c=10 60.5  c=11 57.3  c=12* 55.7  c=13 57.1  c=14 67.9
 *   G1  32410: c=11 231.8  c=12 215.5  c=13* 202.4  c=14 219.2
 *   G2   5022: c=9 117.1  c=10 102.4  c=11* 98.9  c=12 100.5
 * (c=14 and up are held back by the L2 term on this 1 MiB-L2 box.) */

#define MSM_L2_MISS 1.35

/* Per-core L2 size; 1 MiB where the C library cannot tell. */
static double msm_l2_bytes(void)
{
    long l2 = 0;
#ifdef _SC_LEVEL2_CACHE_SIZE
    l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
#endif
    return l2 > 0 ? (double)l2 : (double)(1u << 20);
}

int msm_plan_choose(struct msm_plan *p, size_t n, unsigned nbits, unsigned nthreads,
                    unsigned c_forced, const struct msm_costs *costs, msm_plan_bytes_fn bytes,
                    size_t max_bytes)
{
    unsigned T = msm_threads(nthreads);
    double best = -1, l2 = msm_l2_bytes();
    unsigned cmin = c_forced ? c_forced : 1, cmax = c_forced ? c_forced : MSM_MAX_C;
    p->nbits = nbits;
    p->c = cmin, p->nwin = msm_nwindows(cmin, nbits), p->nranges = 1, p->nthreads = 1;
    for (unsigned c = cmin; c <= cmax; c++) {
        double nb = (double)((size_t)1 << (c - 1));
        int ba = ((size_t)1 << (c - 1)) >= MSM_BA_MIN_BUCKETS;
        double point = ba ? costs->ba_point : 1.0;
        double bk_bytes = nb * (double)(ba ? costs->aff_bytes : costs->bucket_bytes);
        /* Keep all threads' buckets under 1 GiB (only a forced c may not). */
        if (!c_forced && bk_bytes * T > (double)(1u << 30)) break;
        double miss = bk_bytes > l2 ? MSM_L2_MISS : 1.0;
        unsigned W = msm_nwindows(c, nbits);
        size_t rmax = (size_t)4 * T;
        if (rmax > n) rmax = n ? n : 1;
        for (size_t R = 1; R <= rmax; R++) {
            size_t tasks = W * R;
            size_t t = tasks < T ? tasks : T;
            size_t rounds = (tasks + t - 1) / t;
            double task = (double)((n + R - 1) / R) * point * miss + nb * costs->bucket;
            double total = (double)rounds * task + (double)(t - 1) * costs->thread +
                           (double)tasks * costs->bucket / 2 + (double)(nbits + 1) * costs->dbl;
            if (best >= 0 && total >= best) continue;
            struct msm_plan q = {nbits, c, W, (unsigned)R, (unsigned)t};
            if (bytes && bytes(&q, n) > max_bytes) continue;
            best = total;
            *p = q;
        }
    }
    return best >= 0;
}

/* ---------------------------------------------------- scalar conversion -- */

struct from_fr_ctx {
    cuzk_scalar *out;
    const cuzk_fr *in;
};

static void from_fr_range(void *arg, size_t b, size_t e)
{
    struct from_fr_ctx *x = arg;
    for (size_t i = b; i < e; i++) {
        uint64_t v[4];
        cuzk_fr_to_limbs(v, &x->in[i]);
        memcpy(x->out[i].l, v, sizeof v);
    }
}

void cuzk_scalar_from_fr(cuzk_scalar *out, const cuzk_fr *in, size_t n, unsigned nthreads)
{
    struct from_fr_ctx x = {out, in};
    /* ~50 ns per element: 2^14 elements (~1 ms) per thread at least. */
    cuzk_parallel_for(n, (size_t)1 << 14, msm_threads(nthreads), from_fr_range, &x);
}

/* ------------------------------------------------------- classification -- */

size_t msm_classify(uint64_t *ones, size_t *rest, const cuzk_scalar *scalars, size_t n)
{
    size_t m = 0;
    memset(ones, 0, ((n + 63) / 64) * sizeof(uint64_t));
    for (size_t i = 0; i < n; i++) {
        const uint64_t *k = scalars[i].l;
        uint64_t hi = k[1] | k[2] | k[3];
        if (!hi && k[0] <= 1) {
            if (k[0]) ones[i / 64] |= 1ull << (i % 64);
            continue;
        }
        if (msm_ge4(k, MSM_R)) { /* non-canonical: look at k mod r */
            uint64_t v[4];
            memcpy(v, k, sizeof v);
            while (msm_ge4(v, MSM_R)) msm_sub4(v, v, MSM_R);
            if (!(v[1] | v[2] | v[3]) && v[0] <= 1) {
                if (v[0]) ones[i / 64] |= 1ull << (i % 64);
                continue;
            }
        }
        rest[m++] = i;
    }
    return m;
}
