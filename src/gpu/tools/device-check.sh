#!/bin/bash
# One call on the GPU machine (after src/gpu/tools/build-dev.sh here; carry
# build-dev): SASS histogram, GPU test, memcheck, calibration, benchmark sweep, ncu.
D=build-dev
cd "$(dirname "$0")/../../.."
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu --format=csv -lms 1000 > $OUT/clocks.csv 2>&1 &
SMI=$!
(cuobjdump -sass $D/libcuzk_gpu.a > /tmp/sass.txt 2>&1; python3 src/gpu/tools/sass_hist.py /tmp/sass.txt FfFrTILi2EELi0ELi1ELi0E FfFpTILi0EELi0ELi1ELi0E > $OUT/sass.txt 2>&1)
grep -A2 "^== .*\(throughput\|probe\)" $OUT/sass.txt | grep -v "^--" | cut -c1-220 | head -120 > $OUT/sass_summary.txt
echo "== test"; $D/test_gpu_ff > $OUT/test.log 2>&1; echo "test rc=$?" | tee -a $OUT/test.log; tail -3 $OUT/test.log
echo "== memcheck"; CUZK_TEST_QUICK=1 timeout 150 compute-sanitizer --tool memcheck --error-exitcode 9 $D/test_gpu_ff > $OUT/memcheck.log 2>&1; echo "memcheck rc=$?" | tee -a $OUT/memcheck.log; tail -2 $OUT/memcheck.log
echo "== bench"; timeout 150 $D/cuzk-bench kernels --calibrate --sweep --iters 512 > $OUT/bench.log 2>&1; echo "sweep rc=$?" >> $OUT/bench.log
timeout 60 $D/cuzk-bench kernels >> $OUT/bench.log 2>&1; echo "default rc=$?" >> $OUT/bench.log
grep -v "^$" $OUT/bench.log | cut -c1-140 | tail -75
echo "== ncu"
for kk in fr-mul fp-mul; do
  timeout 60 ncu --clock-control none -k regex:ff_throughput --launch-skip 2 --launch-count 1 --section SpeedOfLight --section ComputeWorkloadAnalysis --section WarpStateStats --section Occupancy --section SchedulerStats --metrics sm__inst_executed_pipe_fmaheavy.avg.pct_of_peak_sustained_active,sm__pipe_fmaheavy_cycles_active.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_alu.avg.pct_of_peak_sustained_active,sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,smsp__cycles_active.avg $D/cuzk-bench kernels --kernel $kk --reps 1 --iters 64 --waves 1 >> $OUT/ncu.txt 2>&1
done
grep -E "fmaheavy|pipe_alu|issue_active|Issue Slots|Achieved Occ|No Eligible|Cycles Per Issued|Executed Ipc|inst_executed.sum|cycles_active.avg" $OUT/ncu.txt | head -40
kill $SMI 2>/dev/null
