#!/usr/bin/env bash
# One device call: every kernel's duration (Nsight Compute, one metric, no
# clock control) in `cuzk-bench prove --runs 1` on porep-32g at the given
# sizes, to see where a small proof's time goes (docs/perf.md).
#   bench/device_kernels_trace.sh BIN_DIR "SIZES"     logs and CSVs in $OUT
set -u -o pipefail
B=$1; SIZES=$2
OUT=${OUT:-$PWD/trace_out}; WORK=${WORK:-/tmp/cuzk_trace}
mkdir -p "$OUT" "$WORK"
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
echo "ncu: $NCU; $("$B/cuzk" version)"
for S in $SIZES; do
    K=$WORK/k_$S.cuzk; P=$WORK/p_$S.pce
    "$B/cuzk" compile --circuit porep-32g --size "$S" --out "$P" >/dev/null 2>&1 &&
        "$B/cuzk" setup --circuit porep-32g --size "$S" --no-matrices --seed 11 --out "$K" \
            >/dev/null 2>&1 || { echo "size $S: key or PCE failed"; continue; }
    timeout 240 "$NCU" --clock-control none --metrics gpu__time_duration.sum --csv \
        --log-file "$OUT/ncu_$S.csv" "$B/cuzk-bench" prove --backend gpu --key "$K" --pce "$P" \
        --circuit porep-32g --size "$S" --runs 1 >"$OUT/prove_$S.log" 2>&1
    echo "size $S: exit $?"; tail -22 "$OUT/prove_$S.log"
    xz -1 "$OUT/ncu_$S.csv"
done
