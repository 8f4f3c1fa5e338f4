#!/usr/bin/env bash
# One device call: several builds' NTT rows side by side (A, B, ..., A, B,
# ... in one call, so clocks and card are the same), for each table mode and
# FP64 share listed; `cuzk-bench kernels --ntt` with every row checked
# against the CPU. Optionally test binaries first.
#   bench/device_ntt_ab.sh "A=BENCH B=BENCH ..." ["CONFIGS"] [SIZES]
#   CONFIGS: words TW:F64 (CUZK_NTT_FULL_TW, CUZK_NTT_FP64), default "1:0 0:0 0:2"
#   SIZES: default 24,26,27.  TESTS="path/to/test_gpu_ntt ..." run first.
#   LAST_ONLY="0:1 0:2": configurations timed for the last build alone (once).
set -u -o pipefail
BENCHES=$1; CONFIGS=${2:-"1:0 0:0 0:2"}; SIZES=${3:-24,26,27}
OUT=${OUT:?set OUT}; L=$OUT/ab.log
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader >"$L" 2>&1
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu --format=csv -lms 1000 \
    >"$OUT/clocks.csv" 2>&1 &
SMI=$!
n=0
for t in ${TESTS:-}; do
    n=$((n + 1))
    echo "== test $t $(date +%T)" >>"$L"
    timeout 240 "$t" >"$OUT/test_ntt_$n.log" 2>&1
    echo "test rc=$? $(tail -1 "$OUT/test_ntt_$n.log")" >>"$L"
done
row() { # label, bench, tw, f64
    echo "== $1 tw=$3 f64=$4 $(date +%T)" >>"$L"
    CUZK_NTT_FULL_TW=$3 CUZK_NTT_FP64=$4 timeout 120 "$2" kernels --ntt --ntt-sizes "$SIZES" \
        --ntt-reps 9 2>&1 | grep -E "^[0-9]+ +(forward|inverse|coset|to coset)|rc=|rror" >>"$L"
}
for turn in 1 2; do
    for c in $CONFIGS; do
        for b in $BENCHES; do row "${b%%=*}" "${b#*=}" "${c%%:*}" "${c##*:}"; done
    done
done
last=${BENCHES##* }
for c in ${LAST_ONLY:-}; do row "${last%%=*}" "${last#*=}" "${c%%:*}" "${c##*:}"; done
kill $SMI 2>/dev/null
echo "device_ntt_ab done $(date +%T)" >>"$L"
