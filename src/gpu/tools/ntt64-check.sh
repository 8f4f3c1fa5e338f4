#!/bin/bash
# The NTT's FP64 shares on the GPU machine (after src/gpu/tools/build-dev.sh
# here; carry build-dev). Fills docs/perf.md's "GPU NTT", "FP64 share"
# outcome table. Three calls (each well inside the 10-minute limit):
#   ntt64-check.sh        SASS size and opcode histogram of the pass kernels,
#                         test_gpu_ntt (every share), memcheck and racecheck
#                         on its quick run (which has every share up to 2^12);
#   ntt64-check.sh bench  `cuzk-bench kernels --ntt` under each share 0..4
#                         and 0 again (SM clocks logged);
#   ntt64-check.sh ncu    Nsight pipe figures of the three forward passes at
#                         2^24 for shares 0, 2 and 4.
D=build-dev
cd "$(dirname "$0")/../../.."
M=sm__inst_executed_pipe_fp64.avg.pct_of_peak_sustained_active,sm__pipe_fp64_cycles_active.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_fmaheavy.avg.pct_of_peak_sustained_active,sm__pipe_fmaheavy_cycles_active.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_alu.avg.pct_of_peak_sustained_active,sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,gpu__time_duration.sum
if [ "$1" = ncu ]; then
  for s in 0 2 4; do
    echo "-- share $s" >> $OUT/ncu_ntt64.txt
    # launches: forward warm-up (3), then the timed forward (3)
    CUZK_NTT_FP64=$s timeout 150 ncu --clock-control none -k regex:ntt_pass_kernel --launch-skip 3 --launch-count 3 \
      --section Occupancy --section WarpStateStats --section LaunchStats --metrics $M \
      $D/cuzk-bench kernels --ntt --ntt-sizes 24 --ntt-reps 1 >> $OUT/ncu_ntt64.txt 2>&1
  done
  grep -E "^-- |ntt_pass_kernel|fp64|fmaheavy|pipe_alu|issue_active|inst_executed.sum|duration|Registers Per|Achieved Occ|No Eligible|Stall" $OUT/ncu_ntt64.txt | cut -c1-160 | head -150
  exit 0
fi
if [ "$1" = bench ]; then
  nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu --format=csv -lms 1000 > $OUT/clocks.csv 2>&1 &
  SMI=$!
  for s in 0 1 2 3 4 0; do
    CUZK_NTT_FP64=$s timeout 90 $D/cuzk-bench kernels --ntt --ntt-sizes 24,26,27 --ntt-reps 9 > $OUT/bench_ntt64_$s.log 2>&1
    echo "share $s rc=$?" >> $OUT/bench_ntt64_$s.log
    grep -E "^2[0-9] |rc=" $OUT/bench_ntt64_$s.log | cut -c1-140
  done
  kill $SMI 2>/dev/null
  exit 0
fi
(cuobjdump -sass $D/libcuzk_gpu.a > /tmp/sass.txt 2>&1; python3 src/gpu/tools/sass_hist.py /tmp/sass.txt > /tmp/sass_hist.txt 2>&1)
grep -A2 "^== .*ntt_pass_kernel" /tmp/sass_hist.txt | grep -v "^--" | cut -c1-400 > $OUT/sass_ntt64.txt
cut -c1-200 $OUT/sass_ntt64.txt | head -90
(cuobjdump -res-usage $D/libcuzk_gpu.a 2>&1 | grep -A1 ntt_pass_kernel) > $OUT/res_ntt64.txt
echo "== test"; timeout 300 $D/test_gpu_ntt > $OUT/test_ntt.log 2>&1; echo "test rc=$?" | tee -a $OUT/test_ntt.log
grep -c "FP64 [1-4]/4: ok" $OUT/test_ntt.log; grep -E "MISMATCH|failed" $OUT/test_ntt.log | head -5; tail -1 $OUT/test_ntt.log
for tool in memcheck racecheck; do
  CUZK_TEST_QUICK=1 timeout 130 compute-sanitizer --tool $tool --error-exitcode 9 $D/test_gpu_ntt > $OUT/${tool}_ntt.log 2>&1
  echo "$tool rc=$?" | tee -a $OUT/${tool}_ntt.log; tail -2 $OUT/${tool}_ntt.log
done
