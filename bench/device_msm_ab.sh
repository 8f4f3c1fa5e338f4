#!/usr/bin/env bash
# One device call: several builds' batch-affine MSM rows side by side (A, B,
# ..., then A, B, ... again, so clocks and card are the same for all), every
# row checked against the CPU by `cuzk-bench kernels --msm`. Optionally test
# binaries first.
#   bench/device_msm_ab.sh "A=BENCH B=BENCH ..." ["JOBS"]
#   JOBS: ';'-separated argument lists, default
#     "--msm 24,26 --affine --precompute;--msm 24 --g2 --affine --precompute"
#   TURNS: how many times each job runs over all builds (default 2).
#   Logs append to $OUT/ab.log, so calls with other jobs can follow.
#   TESTS="path/to/test ...": run first (CUZK_TEST_QUICK=1 unless FULL=1).
set -u -o pipefail
BENCHES=$1
JOBS=${2:-"--msm 24,26 --affine --precompute;--msm 24 --g2 --affine --precompute"}
OUT=${OUT:?set OUT}; L=$OUT/ab.log
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader >>"$L" 2>&1
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu --format=csv -lms 1000 \
    >>"$OUT/clocks.csv" 2>&1 &
SMI=$!
n=0
for t in ${TESTS:-}; do
    n=$((n + 1))
    echo "== test $t $(date +%T)" >>"$L"
    if [ "${FULL:-0}" = 1 ]; then timeout 480 "$t" >"$OUT/test_$n.log" 2>&1
    else CUZK_TEST_QUICK=1 timeout 240 "$t" >"$OUT/test_$n.log" 2>&1; fi
    echo "test rc=$? $(tail -1 "$OUT/test_$n.log")" >>"$L"
done
IFS=';' read -r -a JOBLIST <<<"$JOBS"
for turn in $(seq 1 "${TURNS:-2}"); do
    for j in "${JOBLIST[@]}"; do
        for b in $BENCHES; do
            echo "== ${b%%=*} $j (turn $turn) $(date +%T)" >>"$L"
            # shellcheck disable=SC2086 # the job's words are arguments
            timeout 200 "${b#*=}" kernels $j >>"$L" 2>&1
            echo "rc=$?" >>"$L"
        done
    done
done
kill $SMI 2>/dev/null
echo "device_msm_ab done $(date +%T)" >>"$L"
