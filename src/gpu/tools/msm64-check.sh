#!/bin/bash
# The FP64 share of the batch-affine MSM accumulation on the GPU machine
# (cuzk_gpu_msm_opts.fp64_share; after src/gpu/tools/build-dev.sh here,
# carry build-dev). Two calls, each under 10 minutes:
#   msm64-check.sh test    registers and SASS histograms of the accumulation
#                          kernels, test_gpu_msm (every check, then the FP64
#                          shares), memcheck on its quick sizes
#   msm64-check.sh bench   cuzk-bench rows (G1 2^24 and 2^26 plain, shares
#                          0-4 and 0, 3 again; G1 2^26 precomputed, shares
#                          0, 2, 3; G2 2^24 plain and precomputed, shares
#                          0, 1, 4) and Nsight pipe figures of the G1
#                          accumulation at shares 0 and 3 (2^24)
# Fills docs/perf.md's "FP64 share of the batch-affine accumulation" table.
D=build-dev
cd "$(dirname "$0")/../../.."
case "$1" in
test)
  cuobjdump -res-usage $D/libcuzk_gpu.a 2>&1 | grep -A1 "msm_aff_accumulate" > $OUT/regs.txt
  grep -o "msm_aff_accumulate[^ ]*\|REG:[0-9]*\|STACK:[0-9]*" $OUT/regs.txt | paste - - - | head -20
  (cuobjdump -sass $D/libcuzk_gpu.a > /tmp/sass.txt 2>&1; python3 src/gpu/tools/sass_hist.py /tmp/sass.txt > /tmp/sass_hist.txt 2>&1)
  grep -A2 "^== .*msm_aff_accumulate" /tmp/sass_hist.txt | grep -v "^--" | cut -c1-600 > $OUT/sass_acc.txt
  cut -c1-300 $OUT/sass_acc.txt
  echo "== test"; timeout 420 $D/test_gpu_msm > $OUT/test_msm.log 2>&1; echo "test rc=$?" | tee -a $OUT/test_msm.log
  grep -E "fp64|FAIL|failed" $OUT/test_msm.log | tail -12
  echo "== memcheck"; CUZK_TEST_QUICK=1 timeout 150 compute-sanitizer --tool memcheck --error-exitcode 9 $D/test_gpu_msm > $OUT/memcheck_msm.log 2>&1
  echo "memcheck rc=$?" | tee -a $OUT/memcheck_msm.log; tail -2 $OUT/memcheck_msm.log
  ;;
bench)
  B="$D/cuzk-bench kernels"
  timeout 200 $B --msm 24,26 --affine --msm-fp64 0,1,2,3,4,0,3 > $OUT/bench_g1.log 2>&1; echo "rc=$?" >> $OUT/bench_g1.log
  timeout 150 $B --msm 26 --affine --precompute --msm-fp64 0,2,3 > $OUT/bench_g1pre.log 2>&1; echo "rc=$?" >> $OUT/bench_g1pre.log
  timeout 150 $B --msm 24 --g2 --affine --precompute --msm-fp64 0,1,4 > $OUT/bench_g2.log 2>&1; echo "rc=$?" >> $OUT/bench_g2.log
  cat $OUT/bench_g1.log $OUT/bench_g1pre.log $OUT/bench_g2.log | grep -E "^2\^|rc=|fp64" | cut -c1-190
  M=sm__inst_executed_pipe_fp64.avg.pct_of_peak_sustained_active,sm__pipe_fp64_cycles_active.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_fmaheavy.avg.pct_of_peak_sustained_active,sm__pipe_fmaheavy_cycles_active.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_alu.avg.pct_of_peak_sustained_active,sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active,gpu__time_duration.sum
  for sh in 0 3; do
    echo "-- share $sh" >> $OUT/ncu_msm64.txt
    timeout 120 ncu --clock-control none -k regex:msm_aff_accumulate --launch-count 1 \
      --section Occupancy --section WarpStateStats --metrics $M \
      $B --msm 24 --affine --msm-fp64 $sh --msm-reps 1 >> $OUT/ncu_msm64.txt 2>&1
  done
  grep -E "^-- |fp64|fmaheavy|pipe_alu|issue_active|duration|Achieved Occ|Registers Per|No Eligible|Stall" $OUT/ncu_msm64.txt | head -60
  ;;
*)
  echo "usage: msm64-check.sh test|bench" >&2
  exit 2
  ;;
esac
