#!/usr/bin/env bash
# One device call for the FP64 shares (issue 16; docs/device-runs.md): a
# fresh build into build-gpu/ (unless SKIP_BUILD=1), the FP64 field and
# NTT suites, then the NTT under each share and the batch-affine MSM under
# each share. Logs go to $OUT as they are written (a call cut short keeps
# them). Env: OUT (required), SKIP_BUILD, T (seconds per suite, 150).
set -u -o pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=${OUT:?set OUT}
T=${T:-150}
B=$ROOT/build-gpu
cd "$ROOT"
if [ "${SKIP_BUILD:-0}" != 1 ]; then
    { cmake -S . -B "$B" -DCUZK_CUDA=ON -DCMAKE_BUILD_TYPE=Release >/dev/null &&
      cmake --build "$B" -j16 2>&1 | grep -E "error|warning|Error"; } >"$OUT/build.log" 2>&1
    echo "build done $(date +%T)" >>"$OUT/build.log"
fi
G=$B/src/gpu
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv >"$OUT/gpu.txt" 2>&1
(cd "$G" && timeout "$T" ./test_gpu_ff64 >"$OUT/test_gpu_ff64.log" 2>&1; echo "exit $?" >>"$OUT/test_gpu_ff64.log")
(cd "$G" && CUZK_TEST_QUICK=1 timeout "$T" ./test_gpu_ntt >"$OUT/test_gpu_ntt.log" 2>&1; echo "exit $?" >>"$OUT/test_gpu_ntt.log")
for s in 0 1 2 3 4 0; do
    CUZK_NTT_FP64=$s timeout 90 "$B/cuzk-bench" kernels --ntt --ntt-sizes 24,26,27 --ntt-reps 9 \
        >"$OUT/ntt_fp64_$s.log" 2>&1
    echo "exit $?" >>"$OUT/ntt_fp64_$s.log"
done
timeout 200 "$B/cuzk-bench" kernels --msm 24,26 --affine --msm-fp64 0,1,2,3,4,0 \
    >"$OUT/msm_fp64_g1.log" 2>&1
echo "exit $?" >>"$OUT/msm_fp64_g1.log"
timeout 120 "$B/cuzk-bench" kernels --msm 24 --g2 --affine --msm-fp64 0,1,4 \
    >"$OUT/msm_fp64_g2.log" 2>&1
echo "exit $?" >>"$OUT/msm_fp64_g2.log"
echo "all done $(date +%T)" >>"$OUT/build.log"
