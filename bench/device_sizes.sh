#!/usr/bin/env bash
# One device call (docs/device-runs.md): the GPU prover on porep-32g at the
# sizes the issue's targets name, with the stage floors measured on the card.
#   bench/device_sizes.sh BIN_DIR "SIZES" [RUNS]
#   SIZES: e.g. "full 20 24 25". Logs in $OUT.
#   JOB=1: also a porep-32g job (its 10 partitions: SupraSeal's batch of 10)
#   through `cuzk serve` at each size, twice (the first loads the key), and
#   the second's waterfall (WITNESS_WORKERS, default 8).
# Keys are made on the machine (cuzk compile; cuzk setup --no-matrices) in
# WORK (default /tmp/cuzk_sizes) and removed after each size.
set -u -o pipefail
. "$(dirname "$0")/serve_start.sh"
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
    if [ "${JOB:-0}" = 1 ]; then
        D=$WORK/daemon_$S
        mkdir -p "$D"
        printf '[engine]\nbackend = gpu\nwitness_workers = %s\n[circuit porep-32g]\nbuiltin = porep-32g\nsize = %s\nkey = %s\npce = %s\npreload = yes\n' \
            "${WITNESS_WORKERS:-8}" "${S/full/0}" "$K" "$P" >"$D/cuzk.conf"
        serve_start "$B/cuzk" "$D" "$OUT/daemon_$S.log" || say "size $S: the daemon did not start"
        A=unix:$D/cuzk.sock
        for seed in 3 4; do
            "$B/cuzk-bench" single porep-32g --addr "$A" --seed $seed --timeout 5m \
                >"$OUT/job_${S}_$seed.log" 2>&1
            say "size $S: job (seed $seed) exit $?"
        done
        cat "$OUT/job_${S}_4.log"
        "$B/cuzk-bench" waterfall --addr "$A" --width 100 >"$OUT/waterfall_$S.log" 2>&1
        grep -iE 'efficien|gpu|wall' "$OUT/waterfall_$S.log" | head -12
        kill -TERM $DPID; wait $DPID; say "size $S: daemon exit $?"
        rm -rf "$D"
    fi
    rm -f "$K" "$P"
done
say done
