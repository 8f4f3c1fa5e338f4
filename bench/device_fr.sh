#!/usr/bin/env bash
# One device call for Fr's r0 = 1 Montgomery steps (issue 16, part 1;
# src/gpu/ff.cuh, FF_CONST_MEM_P0ONE): the field and NTT suites (quick),
# then Fr mul/sqr throughput of the library's code (variant 0) against the
# generic steps (variant 4), the steps that also skip r1 (11) and one
# Karatsuba level (12; Fp mul too), and the
# NTT rows of this build against a build with the generic steps (OLD_BENCH:
# a cuzk-bench built with -DCUZK_FR_GENERIC_STEPS) and one whose Fr skips
# r1 too (P01_BENCH: -DCUZK_FR_P01_STEPS), in turns: new, old, p01, new,
# old, p01. Logs go to $OUT as they are written.
# Env: OUT (required), OLD_BENCH, P01_BENCH (optional), B (build-gpu),
# T (seconds per suite, 120).
set -u -o pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=${OUT:?set OUT}
T=${T:-120}
B=${B:-$ROOT/build-gpu}
L=$OUT/fr.log
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv >"$L" 2>&1
# The SASS of the Fr throughput loops: generic (FfFrT<2>), library (<3>), r1 too (<4>).
if command -v cuobjdump >/dev/null; then
    cuobjdump -sass "$B/cuzk-bench" >/tmp/fr_sass.txt 2>&1
    python3 "$ROOT/src/gpu/tools/sass_hist.py" /tmp/fr_sass.txt >/tmp/fr_hist.txt 2>&1
    grep -A2 "^== .*throughput.*FfFrTILi[234]EE" /tmp/fr_hist.txt | cut -c1-600 >"$OUT/fr_sass.txt"
fi
for t in test_gpu_ff test_gpu_ntt; do
    if [ -x "$B/src/gpu/$t" ]; then
        (cd "$B/src/gpu" && CUZK_TEST_QUICK=1 timeout "$T" "./$t" >"$OUT/$t.log" 2>&1)
        echo "$t exit $?" >>"$L"
        tail -3 "$OUT/$t.log" >>"$L"
    fi
done
# kernel:variant, twice: Fr mul/sqr of the library (0), generic (4), r1 too
# (11), Karatsuba (12, on the library's steps); Fp mul plain and Karatsuba.
for pass in 1 2; do
    for kv in fr-mul:0 fr-mul:4 fr-mul:11 fr-mul:12 fr-sqr:0 fr-sqr:4 fr-sqr:11 fp-mul:0 fp-mul:12; do
        timeout 60 "$B/cuzk-bench" kernels --no-fp64 --kernel "${kv%:*}" --variant "${kv#*:}" 2>&1 |
            grep -E "^(Fr |Fp )" >>"$L"
    done
done
for turn in new old p01 new old p01; do
    bin=$B/cuzk-bench
    [ $turn = old ] && bin=${OLD_BENCH:-}
    [ $turn = p01 ] && bin=${P01_BENCH:-}
    [ -n "$bin" ] && [ -x "$bin" ] || continue
    echo "== NTT, $turn steps ($bin)" >>"$L"
    timeout 120 "$bin" kernels --ntt --ntt-sizes 24,26,27 --ntt-reps 9 2>&1 |
        grep -vE "^\s*$" | tail -25 >>"$L"
done
nvidia-smi --query-gpu=clocks.sm --format=csv >>"$L" 2>&1
echo "device_fr done $(date +%T)" >>"$L"
