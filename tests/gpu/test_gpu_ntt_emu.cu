/* The GPU NTT's pass phases (src/gpu/ntt.cuh) compiled for the host, with the
 * PTX carry chains emulated (CUZK_FF_HOST_EMULATION), against the CPU NTT
 * (cuzk_ntt_*, src/poly/ntt.c), bit for bit. Each kernel launch of
 * src/gpu/ntt.cu is replaced by a loop over its blocks; within a block every
 * phase runs for all threads in turn before the next phase starts (the
 * kernel's barriers), with a host array as the shared memory. Every kernel
 * variant (8 and 4 elements per thread, and the 8-element kernels with 1 .. 4
 * quarters of their multiplications on the FP64 path of ff_fp64.cuh: the
 * elems_per_thread and fp64_share options of cuzk_gpu_ntt_domain_create_ex;
 * and the integer ones with pass 1's full or positional twiddle table,
 * full_twiddles 1 and 2, the table filled by the device fill's
 * ntt_full_entry, and each of the three with the coset table, full_twiddles
 * + 4, on the coset transforms),
 * so it checks the index logic and the FP64 path on machines without a GPU
 * (the host's fma() in round-toward-zero mode stands for the device's
 * __fma_rz, as in test_gpu_ff64_emu); test_gpu_ntt checks the real kernels
 * on a GPU.
 *
 * Checked: every size 2^1 .. 2^14 and 2^16 with every valid split (forced
 * ones through ntt_tables_layout's force_k1; the planned one at 2^15 and
 * 2^16), both conventions, all four transforms; 2^20 (7, 6, 7), and the
 * forced splits (8, 1, 8) at 2^17, (9, 1, 9) at 2^19 and (10, 1, 10) at 2^21
 * (the column tile of 2^27) with fewer transforms (CUZK_TEST_QUICK=1: up to
 * 2^12 only); the integer variants (two-level, full and positional
 * tables) everywhere, the FP64 shares all four up
 * to 2^12 and one per domain beyond (see main). Random inputs with zeros
 * and r - 1 mixed in. Also, per block and phase, from a hook on every
 * shared-memory access: every slot is in the tile and read / written at most
 * once (exactly once when the whole tile is in use), a round that is not the
 * last writes back exactly the slots its thread read (it has no barrier
 * between), and the coset shift touches only its thread's own slots; and it
 * counts bank conflicts per warp-wide access (reported, not asserted).
 * Seeded: replay with CUZK_SEED=<n>. */
#define CUZK_FF_HOST_EMULATION 1

#include <fenv.h>
#include <stdint.h>
#include <string.h>

#include <algorithm>
#include <map>
#include <tuple>
#include <vector>

/* ------------------------------------------- the shared-memory hook -- */

/* Every access of the phase being emulated: per thread, slot << 1 | write. */
enum { EMU_MAX_ACC = 16 }; /* per thread and phase: 2^UB reads + 2^UB writes */
static std::vector<uint32_t> emu_acc, emu_cnt;
static uint32_t emu_tid, emu_T;
static long emu_bad_access;

void emu_hook(uint32_t slot, int write) /* not static: nvcc's device pass never uses it */
{
    if (slot >= emu_T || emu_cnt[emu_tid] >= EMU_MAX_ACC) {
        emu_bad_access++;
        return;
    }
    emu_acc[(size_t)emu_tid * EMU_MAX_ACC + emu_cnt[emu_tid]++] = slot << 1 | (uint32_t)write;
}
#ifdef __CUDA_ARCH__
#define NTT_SM_HOOK(slot, write) ((void)0) /* nvcc's device pass: never run */
#else
#define NTT_SM_HOOK(slot, write) emu_hook((slot), (write))
#endif

#include "gpu/ntt.cuh"

extern "C" {
#include <cuzk/ff.h>
#include <cuzk/poly.h>

#include "test_util.h"
}

#include "gpu/ntt_plan.cuh"

#define NAME "test_gpu_ntt_emu"

/* ------------------------------------------------ the phase checks -- */

enum { PH_LOAD, PH_PRE, PH_RREAD, PH_RWRITE, PH_LAST, PH_STORE, PH_N };
static const char *ph_names[PH_N] = {"load", "coset", "round read", "round write",
                                     "last write", "store"};

/* Bank conflicts: key (ub, pass kind, k, phase) -> warp-wide accesses, extra
 * wavefronts (sum over accesses of the largest number of distinct slots in
 * one bank, minus 1). One access is 8 shared-memory instructions, one per
 * limb plane, all with the same banks (planes are T >= 32 words apart). */
typedef std::tuple<int, int, int, int> ConfKey;
static std::map<ConfKey, std::pair<long, long>> conflicts;
static long phase_bad;

static void phase_begin(uint32_t nthr)
{
    emu_cnt.assign(nthr, 0);
    if (emu_acc.size() < (size_t)nthr * EMU_MAX_ACC) emu_acc.resize((size_t)nthr * EMU_MAX_ACC);
}

/* After a phase of nthr threads over a tile of T slots: each slot read at
 * most once and written at most once; with want_r / want_w slots read /
 * written in all. */
static void phase_end(const NttPass &p, int ph, uint32_t nthr, size_t want_r, size_t want_w)
{
    std::vector<uint8_t> nr(emu_T, 0), nw(emu_T, 0);
    size_t tr = 0, tw = 0;
    for (uint32_t t = 0; t < nthr; t++)
        for (uint32_t k = 0; k < emu_cnt[t]; k++) {
            uint32_t e = emu_acc[(size_t)t * EMU_MAX_ACC + k], s = e >> 1;
            if (e & 1) {
                phase_bad += nw[s]++ != 0;
                tw++;
            } else {
                phase_bad += nr[s]++ != 0;
                tr++;
            }
        }
    phase_bad += tr != want_r || tw != want_w;
    /* bank conflicts of the warps whose 32 lanes all take part */
    std::pair<long, long> &c = conflicts[ConfKey(p.ub, p.kind, p.k, ph)];
    for (uint32_t w0 = 0; w0 + 32 <= nthr; w0 += 32) {
        uint32_t n = emu_cnt[w0];
        bool same = true;
        for (uint32_t l = 1; l < 32; l++) same &= emu_cnt[w0 + l] == n;
        if (!same) continue;
        for (uint32_t k = 0; k < n; k++) {
            uint32_t slot[32];
            for (uint32_t l = 0; l < 32; l++)
                slot[l] = emu_acc[(size_t)(w0 + l) * EMU_MAX_ACC + k] >> 1;
            std::sort(slot, slot + 32);
            int per_bank[32] = {0}, worst = 0;
            for (int l = 0; l < 32; l++)
                if (l == 0 || slot[l] != slot[l - 1])
                    worst = std::max(worst, ++per_bank[slot[l] & 31]);
            c.first++;
            c.second += worst - 1;
        }
    }
}

/* The thread's slot set of the last phase (sorted). */
static std::vector<uint32_t> thread_slots(uint32_t t, int write)
{
    std::vector<uint32_t> s;
    for (uint32_t k = 0; k < emu_cnt[t]; k++) {
        uint32_t e = emu_acc[(size_t)t * EMU_MAX_ACC + k];
        if ((int)(e & 1) == write) s.push_back(e >> 1);
    }
    std::sort(s.begin(), s.end());
    return s;
}

/* ------------------------------------------------ the emulated launch -- */

/* The load phase of every thread into a fresh tile (a read of a slot
 * nobody wrote shows in the result); loaded[t] gets thread t's slots. */
template <int KIND, int UB>
static void emu_load(const NttPass &p, const NttBlock &B, uint32_t nthr, const uint4 *data,
                     std::vector<uint32_t> &sm, size_t used,
                     std::vector<std::vector<uint32_t>> &loaded)
{
    std::fill(sm.begin(), sm.end(), 0xa5a5a5a5u);
    phase_begin(nthr);
    for (emu_tid = 0; emu_tid < nthr; emu_tid++)
        ntt_load_phase<KIND, UB>(p, B, emu_tid, data, sm.data());
    phase_end(p, PH_LOAD, nthr, 0, used);
    for (uint32_t t = 0; t < nthr; t++) loaded[t] = thread_slots(t, 1);
}

/* The coset shift (ntt_pre_phase, FL's PRE or PRE1) of every thread; it
 * must touch exactly the slots `own` (those its thread loaded). */
template <int FL, int UB, int F64>
static void emu_pre(const NttPass &p, const NttBlock &B, uint32_t nthr, uint32_t *sm,
                    const std::vector<std::vector<uint32_t>> &own, size_t used)
{
    phase_begin(nthr);
    for (emu_tid = 0; emu_tid < nthr; emu_tid++) {
        if (FL & NTT_F_PRE1) ntt_pre_phase<UB, F64, true, (FL & NTT_F_SH1) != 0>(p, B, emu_tid, sm);
        else ntt_pre_phase<UB, F64, false, false>(p, B, emu_tid, sm);
    }
    phase_end(p, PH_PRE, nthr, used, used);
    for (uint32_t t = 0; t < nthr; t++)
        phase_bad += thread_slots(t, 0) != own[t] || thread_slots(t, 1) != own[t];
}

/* The rounds of pass p (ntt.cu's ntt_rounds), each phase for every thread
 * in turn; a round that is not the last writes back what its thread read. */
template <int KIND, int UB, int F64>
static void emu_rounds(const NttPass &p, const NttBlock &B, uint32_t nthr, uint32_t *sm,
                       std::vector<NttRegs<UB>> &R, size_t rused)
{
    for (int q = 0; q < p.nrounds; q++) {
        const bool last = q == p.nrounds - 1;
        phase_begin(nthr);
        for (emu_tid = 0; emu_tid < nthr; emu_tid++)
            ntt_round_compute<KIND, UB, F64>(p, q, B, emu_tid, sm, R[emu_tid]);
        phase_end(p, PH_RREAD, nthr, rused, 0);
        std::vector<std::vector<uint32_t>> read(nthr);
        for (uint32_t t = 0; t < nthr; t++) read[t] = thread_slots(t, 0);
        phase_begin(nthr);
        for (emu_tid = 0; emu_tid < nthr; emu_tid++)
            ntt_round_write<KIND, UB>(p, q, B, R[emu_tid], sm);
        phase_end(p, last ? PH_LAST : PH_RWRITE, nthr, 0, rused);
        if (!last)
            for (uint32_t t = 0; t < nthr; t++) phase_bad += thread_slots(t, 1) != read[t];
    }
}

/* One launch of ntt_pass_kernel<KIND, FL, UB, F64> (ntt.cu) over data or,
 * with p3, of ntt_fused_kernel<FL, UB> (KIND COL, F64 0): p3's load and
 * rounds, then p's shift (on the slots its thread loaded, as in the pass
 * kernel; there after the rounds' barrier), rounds and store. */
template <int KIND, int FL, int UB, int F64>
static void emu_pass(const NttPass &p, uint4 *data, size_t blocks, const NttPass *p3 = nullptr)
{
    const uint32_t T = 1u << p.tbits, nthr = T >> UB;
    std::vector<uint32_t> sm((size_t)8 * T);
    std::vector<NttRegs<UB>> R(nthr);
    std::vector<std::vector<uint32_t>> loaded(nthr);
    emu_T = T;
    for (size_t b = 0; b < blocks; b++) {
        const NttBlock B = ntt_block<KIND>(p, (uint32_t)b);
        const size_t used = KIND == NTT_COL || B.offdiag ? T : T / 2;
        /* with 4 elements per thread the rounds also transform the absent
         * square of a diagonal MID block (ntt_round_compute) */
        const size_t rused = UB == 2 ? T : used;
        emu_load<KIND, UB>(p3 ? *p3 : p, B, nthr, data, sm, used, loaded);
        if (p3) emu_rounds<KIND, UB, F64>(*p3, B, nthr, sm.data(), R, rused);
        if (FL & (NTT_F_PRE | NTT_F_PRE1)) emu_pre<FL, UB, F64>(p, B, nthr, sm.data(), loaded, used);
        emu_rounds<KIND, UB, F64>(p, B, nthr, sm.data(), R, rused);
        phase_begin(nthr);
        for (emu_tid = 0; emu_tid < nthr; emu_tid++)
            ntt_store_phase<KIND, FL & ~(NTT_F_PRE | NTT_F_PRE1), UB, F64>(p, B, emu_tid, data,
                                                                          sm.data());
        phase_end(p, PH_STORE, nthr, used, 0);
    }
}

/* The fused kernel that ntt.cu's ntt_fused_for picks for p1; false: none
 * (the two passes then run apart). */
template <int UB>
static bool emu_run_fused(const NttPass &p3, const NttPass &p1, uint4 *data, int L)
{
    const size_t blocks = ntt_plan_blocks(p1, L);
    switch (ntt_pass_flags(p1)) {
    case NTT_F_TW | NTT_F_PRE: emu_pass<NTT_COL, NTT_F_TW | NTT_F_PRE, UB, 0>(p1, data, blocks, &p3); break;
    case NTT_F_TWF | NTT_F_PRE: emu_pass<NTT_COL, NTT_F_TWF | NTT_F_PRE, UB, 0>(p1, data, blocks, &p3); break;
    case NTT_F_TWP | NTT_F_PRE: emu_pass<NTT_COL, NTT_F_TWP | NTT_F_PRE, UB, 0>(p1, data, blocks, &p3); break;
    case NTT_F_TW | NTT_F_PRE1: emu_pass<NTT_COL, NTT_F_TW | NTT_F_PRE1, UB, 0>(p1, data, blocks, &p3); break;
    case NTT_F_TWF | NTT_F_PRE1: emu_pass<NTT_COL, NTT_F_TWF | NTT_F_PRE1, UB, 0>(p1, data, blocks, &p3); break;
    case NTT_F_TWP | NTT_F_PRE1: emu_pass<NTT_COL, NTT_F_TWP | NTT_F_PRE1, UB, 0>(p1, data, blocks, &p3); break;
    case NTT_F_TWF | NTT_F_PRE | NTT_F_SH1:
        if (UB != 3) return false;
        emu_pass<NTT_COL, NTT_F_TWF | NTT_F_PRE | NTT_F_SH1, UB, 0>(p1, data, blocks, &p3);
        break;
    case NTT_F_TWF | NTT_F_PRE1 | NTT_F_SH1:
        if (UB != 3) return false;
        emu_pass<NTT_COL, NTT_F_TWF | NTT_F_PRE1 | NTT_F_SH1, UB, 0>(p1, data, blocks, &p3);
        break;
    default: return false;
    }
    return true;
}

/* The kernel that ntt.cu's ntt_kernel_for picks for p. */
template <int UB, int F64>
static bool emu_run_pass(const NttPass &p, uint4 *data, int L)
{
    const int fl = ntt_pass_flags(p);
    const size_t blocks = ntt_plan_blocks(p, L);
    if (p.kind == NTT_COL && fl == NTT_F_TW) emu_pass<NTT_COL, NTT_F_TW, UB, F64>(p, data, blocks);
    else if (p.kind == NTT_COL && fl == (NTT_F_TW | NTT_F_PRE))
        emu_pass<NTT_COL, NTT_F_TW | NTT_F_PRE, UB, F64>(p, data, blocks);
    /* n-entry tables: ntt.cu has these for the integer kernels only */
    else if (F64 == 0 && p.kind == NTT_COL && fl == NTT_F_TWF)
        emu_pass<NTT_COL, NTT_F_TWF, UB, 0>(p, data, blocks);
    else if (F64 == 0 && p.kind == NTT_COL && fl == (NTT_F_TWF | NTT_F_PRE))
        emu_pass<NTT_COL, NTT_F_TWF | NTT_F_PRE, UB, 0>(p, data, blocks);
    else if (F64 == 0 && p.kind == NTT_COL && fl == NTT_F_TWP)
        emu_pass<NTT_COL, NTT_F_TWP, UB, 0>(p, data, blocks);
    else if (F64 == 0 && p.kind == NTT_COL && fl == (NTT_F_TWP | NTT_F_PRE))
        emu_pass<NTT_COL, NTT_F_TWP | NTT_F_PRE, UB, 0>(p, data, blocks);
    /* the coset table: integer kernels only too */
    else if (F64 == 0 && p.kind == NTT_COL && fl == (NTT_F_TW | NTT_F_PRE1))
        emu_pass<NTT_COL, NTT_F_TW | NTT_F_PRE1, UB, 0>(p, data, blocks);
    else if (F64 == 0 && p.kind == NTT_COL && fl == (NTT_F_TWF | NTT_F_PRE1))
        emu_pass<NTT_COL, NTT_F_TWF | NTT_F_PRE1, UB, 0>(p, data, blocks);
    else if (F64 == 0 && p.kind == NTT_COL && fl == (NTT_F_TWP | NTT_F_PRE1))
        emu_pass<NTT_COL, NTT_F_TWP | NTT_F_PRE1, UB, 0>(p, data, blocks);
    else if (F64 == 0 && p.kind == NTT_COL && fl == NTT_F_POST1)
        emu_pass<NTT_COL, NTT_F_POST1, UB, 0>(p, data, blocks);
    /* the full and coset tables as Shoup pairs: 8 elements per thread */
    else if (F64 == 0 && UB == 3 && p.kind == NTT_COL && fl == (NTT_F_TWF | NTT_F_SH1))
        emu_pass<NTT_COL, NTT_F_TWF | NTT_F_SH1, UB, 0>(p, data, blocks);
    else if (F64 == 0 && UB == 3 && p.kind == NTT_COL &&
             fl == (NTT_F_TWF | NTT_F_PRE | NTT_F_SH1))
        emu_pass<NTT_COL, NTT_F_TWF | NTT_F_PRE | NTT_F_SH1, UB, 0>(p, data, blocks);
    else if (F64 == 0 && UB == 3 && p.kind == NTT_COL &&
             fl == (NTT_F_TWF | NTT_F_PRE1 | NTT_F_SH1))
        emu_pass<NTT_COL, NTT_F_TWF | NTT_F_PRE1 | NTT_F_SH1, UB, 0>(p, data, blocks);
    else if (F64 == 0 && UB == 3 && p.kind == NTT_COL && fl == (NTT_F_POST1 | NTT_F_SH1))
        emu_pass<NTT_COL, NTT_F_POST1 | NTT_F_SH1, UB, 0>(p, data, blocks);
    else if (p.kind == NTT_MID && fl == NTT_F_TWD)
        emu_pass<NTT_MID, NTT_F_TWD, UB, F64>(p, data, blocks);
    else if (p.kind == NTT_COL && fl == 0) emu_pass<NTT_COL, 0, UB, F64>(p, data, blocks);
    else if (p.kind == NTT_COL && fl == NTT_F_POST)
        emu_pass<NTT_COL, NTT_F_POST, UB, F64>(p, data, blocks);
    else return false;
    return true;
}

/* The kernel variants of ntt.cu: (log2 elements per thread, FP64 share in
 * quarters, the tables NTT_TW_*: pass 1's twiddles, plus NTT_TW_COSET,
 * plus NTT_TW_SHOUP). */
struct Variant {
    int ub, f64, tw;
};
static const Variant VARIANTS[] = {{3, 0, 0}, {2, 0, 0}, {3, 1, 0}, {3, 2, 0}, {3, 3, 0},
                                   {3, 4, 0}, {3, 0, 1}, {2, 0, 1}, {3, 0, 2}, {2, 0, 2},
                                   {3, 0, 4}, {2, 0, 4}, {3, 0, 5}, {2, 0, 5}, {3, 0, 6},
                                   {2, 0, 6}, {3, 0, 9}, {3, 0, 13}};
enum { NTW = 14 }; /* table modes 0 .. 13 (3, 7, 8, 10 .. 12 unused) */
static const char *tw_names[NTW] = {"2lvl", "full", "pos", "-", "2lvl+g", "full+g", "pos+g",
                                    "-", "-", "full+sh", "-", "-", "-", "full+g+sh"};
static bool tw_used(int tw) { return tw <= 6 ? tw != 3 : tw == 9 || tw == 13; }
enum { NVARIANTS = sizeof VARIANTS / sizeof VARIANTS[0] };

static bool emu_run_variant(const NttPass &p, uint4 *data, int L, int ub, int f64)
{
    if (ub == 2) return f64 == 0 && emu_run_pass<2, 0>(p, data, L);
    switch (f64) {
    case 0: return emu_run_pass<3, 0>(p, data, L);
    case 1: return emu_run_pass<3, 1>(p, data, L);
    case 2: return emu_run_pass<3, 2>(p, data, L);
    case 3: return emu_run_pass<3, 3>(p, data, L);
    case 4: return emu_run_pass<3, 4>(p, data, L);
    default: return false;
    }
}

/* Transform `kind` of a (2^L elements) as ntt.cu's run() does it, with
 * 2^ub elements per thread and f64 quarters of the multiplications on the
 * FP64 path, from the host tables tab (layout t). Kind 4
 * (CUZK_GPU_NTT_TO_COSET): the inverse's passes 1 and 2, the fused kernel,
 * the coset forward's passes 2 and 3 (integer kernels; else the two
 * transforms apart). */
static void emu_ntt(cuzk_fr *a, const NttTables &t, const cuzk_fr *tab, int kind, int ub, int f64)
{
    const uint4 *T4 = (const uint4 *)tab;
    uint4 *data = (uint4 *)a;
    const int L = t.L;
    if (kind == 4 && (L < 3 || f64)) {
        emu_ntt(a, t, tab, 1, ub, f64);
        emu_ntt(a, t, tab, 2, ub, f64);
        return;
    }
    if (kind == 4) {
        NttPass pi[3], pc[3];
        ntt_plan_passes(pi, t, T4, 1, ub);
        ntt_plan_passes(pc, t, T4, 2, ub);
        for (int i = 0; i < 2; i++)
            CHECK_MSG(emu_run_variant(pi[i], data, L, ub, 0), "2^%d inverse pass %d", L, i);
        CHECK(ntt_pass_flags(pi[2]) == 0);
        bool ok = ub == 3 ? emu_run_fused<3>(pi[2], pc[0], data, L)
                          : emu_run_fused<2>(pi[2], pc[0], data, L);
        CHECK_MSG(ok, "2^%d: no fused kernel for flags %d", L, ntt_pass_flags(pc[0]));
        for (int i = 1; i < 3; i++)
            CHECK_MSG(emu_run_variant(pc[i], data, L, ub, 0), "2^%d coset pass %d", L, i);
        return;
    }
    if (L < 3) {
        const bool inv = kind == 1 || kind == 3, cf = kind == 2, ci = kind == 3;
        ntt_tiny(data, L, T4 + 2 * (inv ? t.inner_i : t.inner_f), t.kt, t.w,
                 cf ? T4 + 2 * t.glo : NULL, cf ? T4 + 2 * t.ghi : NULL,
                 ci ? T4 + 2 * t.gilo : NULL, ci ? T4 + 2 * t.gihi : NULL,
                 inv ? T4 + 2 * t.ninv : NULL);
        return;
    }
    NttPass ps[3];
    ntt_plan_passes(ps, t, T4, kind, ub);
    for (int i = 0; i < 3; i++) {
        CHECK(ps[i].ub == ub && ps[i].nrounds >= 1 && ps[i].nrounds <= NTT_MAX_ROUNDS &&
              ps[i].tbits <= NTT_TILE_LOG && ps[i].tbits >= ub);
        bool ok = emu_run_variant(ps[i], data, L, ub, f64);
        CHECK_MSG(ok, "2^%d pass %d: no kernel for its flags", L, i);
    }
}

/* ------------------------------------------------------------ checks -- */

static const uint64_t R_LIMBS[4] = {0xffffffff00000001ull, 0x53bda402fffe5bfeull,
                                    0x3339d80809a1d805ull, 0x73eda753299d7d48ull};

/* Random reduced raw element (any value below r is a valid Montgomery
 * form); 1 in 16 is 0 and 1 in 16 is r - 1. */
static void rand_fr(cuzk_fr *x)
{
    uint64_t sel = test_rand64() % 16;
    if (sel == 0) {
        memset(x, 0, sizeof *x);
        return;
    }
    if (sel == 1) {
        memcpy(x, R_LIMBS, sizeof *x);
        x->l[0] -= 1;
        return;
    }
    for (;;) {
        for (int i = 0; i < 4; i++) x->l[i] = test_rand64();
        x->l[3] &= 0x7fffffffffffffffull;
        int lt = 0;
        for (int i = 3; i >= 0; i--)
            if (x->l[i] != R_LIMBS[i]) {
                lt = x->l[i] < R_LIMBS[i];
                break;
            }
        if (lt) return;
    }
}

static const char *kind_names[5] = {"forward", "inverse", "coset fwd", "coset inv", "to coset"};
static int sizes_run;
static long variant_runs[NVARIANTS]; /* transforms compared, per variant */

/* Variant masks for check(): bit v = VARIANTS[v]; V_INT the integer ones,
 * with each of pass 1's tables, with and without the coset table (V_COSET:
 * run on the coset transforms only, the others' kernels being those of
 * the same variant without it). */
enum {
    V_FULL = 0xc0,
    V_POS = 0x300,
    V_COSET = 0x2fc00,
    V_SH = 0x30000,
    V_INT = 0x3 | V_FULL | V_POS | V_COSET | V_SH,
    V_ALL = (1 << NVARIANTS) - 1
};
static unsigned v_f64(int share) { return 1u << (1 + share); } /* share 1 .. 4 */

/* The tables of layout t as ntt.cu makes them: the host fill, then the
 * device's fill of the n-entry tables (ntt_full_fill_kernel), emulated. */
static std::vector<cuzk_fr> emu_tables(const NttTables &t, const cuzk_ntt_domain *cd)
{
    std::vector<cuzk_fr> tab(t.total);
    ntt_tables_fill(tab.data(), t, cuzk_ntt_omega(cd), cuzk_ntt_coset_shift(cd));
    uint4 *T4 = (uint4 *)tab.data();
    NttFill f[2];
    ntt_fills(f, t);
    NttShoupM m;
    ff_shoup_m(m.m, CUZK_FR_MODULUS, 8);
    for (int r = 0; r < 2; r++)
        for (size_t i = 0; i < f[r].count; i++)
            ntt_full_entry(T4 + 2 * f[r].off, T4 + 2 * f[r].lo, T4 + 2 * f[r].hi, t.w,
                           f[r].pos_bits, (uint32_t)i, t.sh ? &m : nullptr);
    return tab;
}

/* Transforms `kinds` (bit mask) of a random input of 2^L elements with
 * split k1 (0: planned), the kernel variants in vmask, against the CPU. */
static void check(int L, cuzk_roots roots, int k1, unsigned kinds, unsigned vmask)
{
    const size_t n = (size_t)1 << L;
    cuzk_ntt_domain *cd = NULL;
    CHECK(cuzk_ntt_domain_create(&cd, (unsigned)L, roots, 1) == CUZK_OK);
    if (!cd) return;
    /* [tw]: the tables with pass 1's twiddles NTT_TW_* (2lvl, full,
     * positional; the last two add the same n-entry region), and each with
     * the coset table (tw + 4: n + 1 entries more, and the scaled 1/n,
     * with the full table also as Shoup pairs); tw + 8 (full only): the
     * n-entry tables as Shoup pairs, twice the elements */
    NttTables t[NTW];
    for (int tw = 0; tw < NTW; tw++) t[tw] = ntt_tables_layout(L, k1, tw_used(tw) ? tw : 0);
    if (L >= 3) CHECK(t[0].k1 >= 1 && ntt_split_ok(L, t[0].k1));
    CHECK(t[0].tw == NTT_TW_2LVL && !t[0].coset && t[0].total == t[0].full);
    for (int tw = 1; tw < NTW; tw++) {
        if (!tw_used(tw)) continue;
        const size_t nd = (size_t)1 << (L - t[0].k1), nhi = (size_t)1 << (L - t[0].w);
        const bool c = (tw & 4) && L >= 3, sh = (tw & 8) && L >= 3;
        const size_t ent = sh ? 2 : 1;
        CHECK(t[tw].k1 == t[0].k1 && t[tw].tw == (L >= 3 ? (tw & 3) : NTT_TW_2LVL) &&
              t[tw].coset == c && t[tw].sh == sh &&
              t[tw].total - t[tw].full == ent * ((L >= 3 && (tw & 3) ? n : 0) + (c ? n + 1 : 0)) &&
              t[tw].full == t[0].total + (c ? ((tw & 3) == NTT_TW_FULL ? 3 * nd : nhi) : 0));
    }
    std::vector<cuzk_fr> tab[NTW], in(n), want(n), got(n);
    for (int v = 0; v < NVARIANTS; v++) {
        const int tw = VARIANTS[v].tw;
        if ((tw == 0 || vmask >> v & 1) && tab[tw].empty()) tab[tw] = emu_tables(t[tw], cd);
    }
    for (int kind = 0; kind < 5; kind++) {
        if (!(kinds >> kind & 1)) continue;
        for (size_t i = 0; i < n; i++) rand_fr(&in[i]);
        want = in;
        switch (kind) {
        case 0: cuzk_ntt_forward(cd, want.data()); break;
        case 1: cuzk_ntt_inverse(cd, want.data()); break;
        case 2: cuzk_ntt_coset_forward(cd, want.data()); break;
        case 3: cuzk_ntt_coset_inverse(cd, want.data()); break;
        default:
            cuzk_ntt_inverse(cd, want.data());
            cuzk_ntt_coset_forward(cd, want.data());
            break;
        }
        for (int v = 0; v < NVARIANTS; v++) {
            if (!(vmask >> v & 1) || (V_COSET >> v & 1 && kind < 2)) continue;
            const int ub = VARIANTS[v].ub, f64 = VARIANTS[v].f64, tw = VARIANTS[v].tw;
            got = in;
            emu_ntt(got.data(), t[tw], tab[tw].data(), kind, ub, f64);
            variant_runs[v]++;
            size_t bad = 0, first = 0;
            for (size_t i = 0; i < n; i++)
                if (memcmp(&got[i], &want[i], sizeof got[i])) {
                    if (!bad) first = i;
                    bad++;
                }
            CHECK_MSG(bad == 0, "2^%d %s split (%d, %d, %d) %s, %d elements per thread, FP64 share "
                      "%d/4, twiddles %s: %zu of %zu differ, the first at %zu", L,
                      roots == CUZK_ROOTS_SNARKJS ? "snarkjs" : "bellperson", t[0].k1, t[0].k2,
                      t[0].k1, kind_names[kind], 1 << ub, f64, tw_names[tw], bad, n, first);
        }
    }
    sizes_run++;
    cuzk_ntt_domain_destroy(cd);
}

int main(void)
{
    test_seed(NAME);
    /* The FP64 path's products (ff_fp64.cuh) need the host's fma to round
     * toward zero, as the device's __fma_rz does: (2^52 + 1)(2^52 - 1) =
     * 2^104 - 1 rounds to 2^104 - 2^51 toward zero (to 2^104 to nearest).
     * The CPU NTT and the index logic use no floating point that this
     * changes (ntt_block's square root is corrected by integer steps). */
    CHECK(fesetround(FE_TOWARDZERO) == 0);
    CHECK(ff64_fma_rz(4503599627370497.0, 4503599627370495.0, 0.0) ==
          20282409603651670423947251286016.0 - 2251799813685248.0);
    /* CUZK_TEST_QUICK=1: sizes up to 2^12 only (a few seconds) */
    const char *quick_env = getenv("CUZK_TEST_QUICK");
    const bool quick = quick_env && atoi(quick_env) != 0;
    const cuzk_roots both[2] = {CUZK_ROOTS_BELLPERSON, CUZK_ROOTS_SNARKJS};
    /* The integer variants (8 and 4 elements per thread) everywhere; the
     * FP64 shares (8 elements, 1 .. 4 quarters on the FP64 path) all four at
     * every planned size up to 2^12, elsewhere one share per domain in turn
     * (all four would double the run time; the shares differ only in which
     * butterflies and elements take the FP64 path, see ntt_f64_mask). */
    for (int ri = 0; ri < 2; ri++) {
        /* every size up to 2^14 with every split, 2^15 and 2^16 planned */
        for (int L = 1; L <= (quick ? 12 : 16); L++) {
            check(L, both[ri], 0, 31, L <= 12 ? (unsigned)V_ALL : V_INT | v_f64(1 + (L + ri) % 4));
            if (L > 14) continue;
            for (int k1 = 1; k1 <= 10; k1++) {
                int pk1, pk2;
                if (!ntt_split_ok(L, k1) || (ntt_plan_digits(L, &pk1, &pk2) && pk1 == k1))
                    continue;
                check(L, both[ri], k1, 31, V_INT | v_f64(1 + (L + k1 + ri) % 4));
            }
        }
    }
    /* the large column tiles (k1 = 8, 9, 10) and a planned large size */
    if (!quick) {
        /* (the middle tile of 2^20, k2 = 6, has FP64 checks at 2^14) */
        check(17, CUZK_ROOTS_BELLPERSON, 8, 1 << 2, V_INT | v_f64(1));
        check(19, CUZK_ROOTS_SNARKJS, 9, 1 << 3 | 1 << 4, V_INT | v_f64(3));
        check(20, CUZK_ROOTS_BELLPERSON, 0, 1 << 0, V_INT);
        check(20, CUZK_ROOTS_SNARKJS, 0, 1 << 1, V_INT);
        check(21, CUZK_ROOTS_BELLPERSON, 10, 1 << 0, V_INT | v_f64(2));
    }
    CHECK_MSG(emu_bad_access == 0, "%ld shared-memory accesses out of the tile", emu_bad_access);
    CHECK_MSG(phase_bad == 0, "%ld phase ownership violations", phase_bad);

    printf("%s: %d domains; bank conflicts (extra wavefronts per warp-wide access, where "
           "nonzero):\n", NAME, sizes_run);
    int quiet = 1;
    for (const auto &e : conflicts) {
        if (e.second.second == 0) continue;
        quiet = 0;
        printf("  %d elements/thread, %s k = %2d, %-11s: %ld accesses, %.3f extra each\n",
               1 << std::get<0>(e.first), std::get<1>(e.first) == NTT_MID ? "MID" : "COL",
               std::get<2>(e.first), ph_names[std::get<3>(e.first)], e.second.first,
               (double)e.second.second / (double)e.second.first);
    }
    if (quiet) printf("  none\n");
    printf("%s: transforms compared per variant:", NAME);
    for (int v = 0; v < NVARIANTS; v++)
        printf(" %d elements/FP64 %d/4/%s: %ld%s", 1 << VARIANTS[v].ub, VARIANTS[v].f64,
               tw_names[VARIANTS[v].tw], variant_runs[v], v + 1 < NVARIANTS ? "," : "\n");
    return test_done(NAME);
}
