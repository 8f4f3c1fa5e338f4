#!/usr/bin/env bash
# One device call (issue 16; docs/perf.md, "Where the NTT's time goes"):
# the SASS opcode histograms and Nsight Compute's pipe, issue and stall
# figures of the NTT's pass kernels (forward, 2^24 and 2^27: the integer
# kernels with the full twiddle table, the prover's default, and with the
# two-level tables; FP64 share 2) and of the field loops (Fr and Fp: the
# integer kernel, the FP64 one, the mixed ones).
#   bench/device_ncu.sh BIN_DIR        BIN_DIR holds cuzk-bench; logs in $OUT
#   PARTS="sass ntt field msm" (default the first three; msm: the G1 MSM's
#   bucket accumulation, batch-affine and XYZZ); NTT_SIZES (default "24 27")
#   Summary: python3 src/gpu/tools/ncu_sum.py $OUT/ncu_*.txt
set -u -o pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
B=$1; OUT=${OUT:?set OUT}; PARTS=${PARTS:-sass ntt field}
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
L=$OUT/ncu.log
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv >"$L" 2>&1
echo "ncu: $NCU" >>"$L"
# Per pipe: instructions issued to it and cycles it was busy, as % of peak.
M=smsp__issue_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,gpu__time_duration.sum
for p in fmaheavy fma alu fp64 lsu uniform adu cbu; do
    M=$M,sm__inst_executed_pipe_$p.avg.pct_of_peak_sustained_active
    M=$M,sm__pipe_${p}_cycles_active.avg.pct_of_peak_sustained_active
    M=$M,smsp__inst_executed_pipe_$p.sum
done
SECT=(--section Occupancy --section WarpStateStats --section SchedulerStats --section LaunchStats
      --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis)
prof() { # name, env..., -- cuzk-bench args; launches matched by $KRE after $SKIP
    local name=$1; shift
    echo "== $name $(date +%T)" >>"$L"
    env "$@" timeout 200 "$NCU" --clock-control none -k "regex:$KRE" --launch-skip "$SKIP" \
        --launch-count "$CNT" "${SECT[@]}" --metrics "$M" --print-details all \
        "$B/cuzk-bench" kernels "${ARGS[@]}" >"$OUT/ncu_$name.txt" 2>&1
    echo "rc=$?" >>"$OUT/ncu_$name.txt"
}
if [[ " $PARTS " == *" sass "* ]] && command -v cuobjdump >/dev/null; then
    cuobjdump -sass "$B/cuzk-bench" >/tmp/ncu_sass.txt 2>&1
    python3 "$ROOT/src/gpu/tools/sass_hist.py" /tmp/ncu_sass.txt >/tmp/ncu_hist.txt 2>&1
    grep -A2 -E "^== .*(ntt_pass_kernel|throughput)" /tmp/ncu_hist.txt | cut -c1-900 \
        >"$OUT/sass_hist.txt"
    echo "sass: $(grep -c '^==' "$OUT/sass_hist.txt") kernels" >>"$L"
fi
if [[ " $PARTS " == *" ntt "* ]]; then
    # The timed forward transform's 3 passes follow the warm-up's 3.
    KRE=ntt_pass_kernel; SKIP=3; CNT=3
    for S in ${NTT_SIZES:-24 27}; do
        ARGS=(--ntt --ntt-sizes $S --ntt-reps 1)
        prof ntt${S}_full CUZK_NTT_FULL_TW=1 CUZK_NTT_FP64=0
        prof ntt${S}_2lvl CUZK_NTT_FULL_TW=0 CUZK_NTT_FP64=0
        prof ntt${S}_f64s2 CUZK_NTT_FULL_TW=0 CUZK_NTT_FP64=2
    done
fi
if [[ " $PARTS " == *" field "* ]]; then
    # A small checking run comes first (warm-up + reps), then the timed one:
    # all of them are profiled and the summary takes the largest.
    KRE=throughput; SKIP=0; CNT=6
    for k in fr-mul fp-mul; do
        vs="0 5 6"; [ $k = fp-mul ] && vs="0 5 6 9 10"
        for v in $vs; do
            ARGS=(--no-ntt --no-fp64 --kernel $k --variants $v --reps 2 --waves 1)
            prof ${k}_v$v CUZK_NTT_FP64=0
        done
    done
fi
if [[ " $PARTS " == *" msm "* ]]; then
    # The bucket accumulation at G1 2^24 (c = 20): batch-affine and XYZZ;
    # the first MSM's launch is skipped, the second one profiled.
    SKIP=1; CNT=1; ARGS=(--msm 24 --msm-reps 2)
    KRE=msm_aff_accumulate; ARGS+=(--affine); prof msm24_affine
    KRE=msm_accumulate_kernel; ARGS=(--msm 24 --msm-reps 2); prof msm24_xyzz
fi
echo "device_ncu done $(date +%T)" >>"$L"
