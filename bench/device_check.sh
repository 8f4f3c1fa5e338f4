#!/usr/bin/env bash
# One device call of the GPU prover's checks, for a fresh machine: build,
# the MSM and prover suites (each under its own time limit), and the
# full-size porep-32g partition (bench/gpu_full.sh full). Logs go to
# $OUT as they are written, so a call cut short still returns them.
#   OUT=dir bench/device_check.sh [TEST_S] [FULL_S]   (defaults 150 and 330 s)
# (the prover suite runs last, for what is left of the call).
set -u -o pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=${OUT:?set OUT}
T=${1:-150}
F=${2:-330}
B=$ROOT/build-gpu
cd "$ROOT"
{ cmake -S . -B "$B" -DCUZK_CUDA=ON -DCMAKE_BUILD_TYPE=Release >/dev/null &&
  cmake --build "$B" -j16 --target cuzk-cli cuzk-bench test_gpu_msm test_gpu_prove test_gpu_ff64 test_gpu_ntt 2>&1 | grep -E "error|warning|Error" ; } >"$OUT/build.log" 2>&1
echo "build done $(date +%T)" >>"$OUT/build.log"
(cd "$B/src/gpu" && timeout "$T" ./test_gpu_msm >"$OUT/test_gpu_msm.log" 2>&1; echo "exit $?" >>"$OUT/test_gpu_msm.log")
G=/tmp/gfull; mkdir -p $G
OUT=$G SKIP_BUILD=1 SKIP_TESTS=1 RUNS=2 SHARED=1 timeout "$F" bench/gpu_full.sh full \
    >"$OUT/full.log" 2>&1
echo "full exit $?" >>"$OUT/full.log"
(cd "$B/src/gpu" && CUZK_TESTDATA=$ROOT/tests/data timeout "$T" ./test_gpu_prove >"$OUT/test_gpu_prove.log" 2>&1;
 echo "exit $?" >>"$OUT/test_gpu_prove.log")
tar czf "$OUT/gfull.tgz" -C $G . 2>/dev/null
