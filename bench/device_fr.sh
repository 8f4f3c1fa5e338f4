#!/usr/bin/env bash
# One device call for the Fr and Fp multiplication variants (issue 16,
# part 1; docs/perf.md, "Fr's low limb is 1"): the SASS histograms of
# their throughput loops, then in one process (one pool) the throughput of
# the library's code (variant 0: the generic steps) against Fr's steps that
# skip r0 = 1 (11) or r0 and r1 (13) and one Karatsuba level (12, Fr and
# Fp), twice; then the NTT rows of this build against builds whose Fr uses
# the r0 = 1 steps (P0ONE_BENCH: a cuzk-bench linked with an ntt.cu
# compiled with -DCUZK_FR_P0ONE_STEPS) and the r0, r1 steps (P01_BENCH).
# Logs go to $OUT as they are written.
# Env: OUT (required), P0ONE_BENCH, P01_BENCH (optional), B (build-gpu).
set -u -o pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=${OUT:?set OUT}
B=${B:-$ROOT/build-gpu}
L=$OUT/fr.log
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv >"$L" 2>&1
if command -v cuobjdump >/dev/null; then
    cuobjdump -sass "$B/cuzk-bench" >/tmp/fr_sass.txt 2>&1
    python3 "$ROOT/src/gpu/tools/sass_hist.py" /tmp/fr_sass.txt >/tmp/fr_hist.txt 2>&1
    grep -A2 -E "^== .*throughput.*(FfFrTILi[234]EELi[01]ELi1ELi0E|Li1ELi12E)" /tmp/fr_hist.txt |
        cut -c1-600 >"$OUT/fr_sass.txt"
fi
echo "== field loops $(date +%T)" >>"$L"
timeout 200 "$B/cuzk-bench" kernels --no-fp64 --no-ntt --variants 0,11,13,12,0,11,13,12 2>&1 |
    grep -E "^(kernel|Fr |Fp |  )" >>"$L"
for turn in generic p0one p01; do
    bin=$B/cuzk-bench
    [ $turn = p0one ] && bin=${P0ONE_BENCH:-}
    [ $turn = p01 ] && bin=${P01_BENCH:-}
    [ -n "$bin" ] && [ -x "$bin" ] || continue
    echo "== NTT, $turn steps $(date +%T)" >>"$L"
    timeout 100 "$bin" kernels --ntt --ntt-sizes 24,26,27 --ntt-reps 9 2>&1 |
        grep -vE "^\s*$" | tail -16 >>"$L"
done
nvidia-smi --query-gpu=clocks.sm --format=csv >>"$L" 2>&1
echo "device_fr done $(date +%T)" >>"$L"
