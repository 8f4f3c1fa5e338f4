#!/bin/bash
# One call on the GPU machine for the FP64 field multiplication (after
# src/gpu/tools/build-dev.sh here; carry build-dev): the SASS histogram of
# the FP64 and mixed throughput loops, test_gpu_ff64, memcheck, the
# cuzk-bench --fp64 table, and Nsight pipe figures for the FP64 (variant 5),
# mixed 1+1 (variant 6) and mixed 1+1 with double column sums (variant 10;
# Fr: the same as 6) kernels. Fills docs/perf.md's "FP64 field
# multiplication" outcome table.
D=build-dev
cd "$(dirname "$0")/../../.."
(cuobjdump -sass $D/libcuzk_gpu.a > /tmp/sass.txt 2>&1; python3 src/gpu/tools/sass_hist.py /tmp/sass.txt > /tmp/sass_hist.txt 2>&1)
# throughput kernels of the library's fields: Fr FfFrTILi2E, Fp FfFpTILi0E; ILP, variant
grep -A2 "^== .*throughput.*\(FfFrTILi2EELi[01]\|FfFpTILi0EELi[01]\)ELi[0-9]ELi\([05-9]\|10\)E" /tmp/sass_hist.txt \
  | grep -v "^--" | cut -c1-400 > $OUT/sass_fp64.txt
cat $OUT/sass_fp64.txt | cut -c1-220 | head -60
echo "== test"; $D/test_gpu_ff64 > $OUT/test_ff64.log 2>&1; echo "test rc=$?" | tee -a $OUT/test_ff64.log; tail -3 $OUT/test_ff64.log
echo "== memcheck"; CUZK_TEST_QUICK=1 timeout 150 compute-sanitizer --tool memcheck --error-exitcode 9 $D/test_gpu_ff64 > $OUT/memcheck_ff64.log 2>&1; echo "memcheck rc=$?" | tee -a $OUT/memcheck_ff64.log; tail -2 $OUT/memcheck_ff64.log
echo "== bench"; timeout 200 $D/cuzk-bench kernels --fp64 > $OUT/bench_fp64.log 2>&1; echo "rc=$?" >> $OUT/bench_fp64.log
cut -c1-150 $OUT/bench_fp64.log
echo "== ncu"
M=sm__inst_executed_pipe_fp64.avg.pct_of_peak_sustained_active,sm__pipe_fp64_cycles_active.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_fmaheavy.avg.pct_of_peak_sustained_active,sm__pipe_fmaheavy_cycles_active.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_alu.avg.pct_of_peak_sustained_active,sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active
for kk in fr-mul fp-mul; do
  for v in 5 6 10; do
    echo "-- $kk variant $v" >> $OUT/ncu_fp64.txt
    timeout 60 ncu --clock-control none -k regex:ff_throughput --launch-skip 2 --launch-count 1 \
      --section Occupancy --section WarpStateStats --metrics $M \
      $D/cuzk-bench kernels --kernel $kk --variant $v --no-fp64 --no-ntt --reps 1 --iters 64 --waves 1 >> $OUT/ncu_fp64.txt 2>&1
  done
done
grep -E "^-- |fp64|fmaheavy|pipe_alu|issue_active|Achieved Occ|No Eligible" $OUT/ncu_fp64.txt | head -60
