#!/usr/bin/env bash
# Whole-command benchmark: `snarkjs groth16 prove` against `cuzk prove` on the
# same key and witness, runs interleaved (so that a burst of load elsewhere
# hits both), wall-clock per run.
#
#   bash tests/interop/bench.sh CUZK_BINARY KEY.zkey W.wtns [RUNS]
#
# e.g. after `CUZK_INTEROP_BIG=1 bash tests/interop/run.sh build/cuzk build/interop`:
#   bash tests/interop/bench.sh build/cuzk build/interop/cache/chain14/chain14.zkey \
#        build/interop/cache/chain14/chain14.wtns 7
set -euo pipefail
if [ $# -lt 3 ]; then
  echo "usage: bench.sh CUZK_BINARY KEY.zkey W.wtns [RUNS]" >&2
  exit 2
fi
HERE=$(cd "$(dirname "$0")" && pwd)
CUZK=$1 ZKEY=$2 WTNS=$3 RUNS=${4:-5}
SJ=$HERE/node_modules/.bin/snarkjs
[ -x "$SJ" ] || (cd "$HERE" && npm ci --no-audit --no-fund --loglevel=error)
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT

now_us() { echo "${EPOCHREALTIME/./}"; }
declare -a S=() Z=()
run_sj() { "$SJ" groth16 prove "$ZKEY" "$WTNS" "$OUT/sj_proof.json" "$OUT/sj_public.json" >/dev/null; }
run_cz() { "$CUZK" prove --quiet --zkey "$ZKEY" --wtns "$WTNS" --proof "$OUT/cz_proof.json" --public "$OUT/cz_public.json"; }

echo "warm-up (page cache, JIT caches)"
run_sj
run_cz
for i in $(seq 1 "$RUNS"); do
  t=$(now_us); run_sj; S+=($(($(now_us) - t)))
  t=$(now_us); run_cz; Z+=($(($(now_us) - t)))
  printf 'run %d: snarkjs %7.3f s   cuzk %7.3f s\n' "$i" "$(echo "${S[-1]}" | awk '{print $1/1e6}')" \
    "$(echo "${Z[-1]}" | awk '{print $1/1e6}')"
done
stats() { # values in us -> "min median mean" in s
  printf '%s\n' "$@" | sort -n | awk '{v[NR]=$1; s+=$1} END {
    m = (NR % 2) ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2;
    printf "%.3f %.3f %.3f", v[1]/1e6, m/1e6, s/NR/1e6 }'
}
read -r smin smed smean <<<"$(stats "${S[@]}")"
read -r zmin zmed zmean <<<"$(stats "${Z[@]}")"
printf '\n%-26s %9s %9s %9s\n' "" "min" "median" "mean"
printf '%-26s %8.3fs %8.3fs %8.3fs\n' "snarkjs groth16 prove" "$smin" "$smed" "$smean"
printf '%-26s %8.3fs %8.3fs %8.3fs\n' "cuzk prove" "$zmin" "$zmed" "$zmean"
awk -v a="$smin" -v b="$zmin" -v c="$smed" -v d="$zmed" \
  'BEGIN { printf "speed-up: %.1fx (min), %.1fx (median)\n", a/b, c/d }'
