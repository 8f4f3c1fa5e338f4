#!/usr/bin/env bash
# One device call (docs/device-runs.md): the GPU prover on porep-32g at the
# sizes the issue's targets name, with the stage floors measured on the card.
#   bench/device_sizes.sh BIN_DIR "SIZES" [RUNS]
#   SIZES: e.g. "full 20 24 25". Logs in $OUT.
# Keys are made on the machine (cuzk compile; cuzk setup --no-matrices) in
# WORK (default /tmp/cuzk_sizes) and removed after each size.
set -u -o pipefail
B=$1; SIZES=$2; RUNS=${3:-5}
OUT=${OUT:-$PWD/sizes_out}; WORK=${WORK:-/tmp/cuzk_sizes}
mkdir -p "$OUT" "$WORK"
say() { echo "== $(date +%T) $*" | tee -a "$OUT/sizes.log"; }
say "$("$B/cuzk" version); sizes $SIZES; runs $RUNS"
nvidia-smi --query-gpu=name,clocks.sm,memory.total --format=csv,noheader | tee -a "$OUT/sizes.log"
for S in $SIZES; do
    SZ=(); [ "$S" != full ] && SZ=(--size "$S")
    K=$WORK/k_$S.cuzk; P=$WORK/p_$S.pce
    t0=$(date +%s)
    "$B/cuzk" compile --circuit porep-32g "${SZ[@]}" --out "$P" >"$OUT/compile_$S.log" 2>&1 &&
        "$B/cuzk" setup --circuit porep-32g "${SZ[@]}" --no-matrices --seed 11 --out "$K" \
            >"$OUT/setup_$S.log" 2>&1 || { say "size $S: key or PCE failed"; continue; }
    say "size $S: PCE and key made in $(($(date +%s) - t0)) s"
    "$B/cuzk-bench" prove --backend gpu --key "$K" --pce "$P" --circuit porep-32g \
        "${SZ[@]}" --runs "$RUNS" --calibrate >"$OUT/prove_$S.log" 2>&1
    say "size $S: exit $?"
    tail -30 "$OUT/prove_$S.log"
    rm -f "$K" "$P"
done
say done
