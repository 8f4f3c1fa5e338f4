# Summary table of Nsight Compute text reports (bench/device_ncu.sh): one
# row per profiled launch with its duration, the busy share of the
# fmaheavy, ALU and FP64 pipes and of the issue slots, eligible and active
# warps per scheduler, the main stalls (cycles per issued instruction),
# warp instructions in all and per pipe, and registers per thread.
#   python3 src/gpu/tools/ncu_sum.py OUT/ncu_*.txt
import re, sys, glob
keys = [('gpu__time_duration.sum','ms'),('sm__pipe_fmaheavy_cycles_active.avg.pct_of_peak_sustained_active','fmaH%'),
 ('sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_active','alu%'),('sm__pipe_fp64_cycles_active.avg.pct_of_peak_sustained_active','fp64%'),
 ('smsp__issue_active.avg.pct_of_peak_sustained_active','issue%'),('Eligible Warps Per Scheduler','elig'),('Active Warps Per Scheduler','act'),
 ('Stall Wait','wait'),('Stall Math Pipe Throttle','thrl'),('Stall Long Scoreboard','lsb'),('Stall Dispatch Stall','disp'),('Stall Not Selected','nsel'),('Stall Barrier','bar'),('Stall Short Scoreboard','ssb'),('Stall MIO Throttle','mio'),
 ('Warp Cycles Per Issued Instruction','cpi'),
 ('smsp__inst_executed.sum','inst'),('smsp__inst_executed_pipe_fmaheavy.sum','i_fmaH'),('smsp__inst_executed_pipe_alu.sum','i_alu'),('smsp__inst_executed_pipe_fp64.sum','i_fp64'),('smsp__inst_executed_pipe_lsu.sum','i_lsu'),('Registers Per Thread','regs')]
for f in sys.argv[1:]:
    t = open(f).read()
    parts = re.split(r'\n  (\S.*?\(\d+, 1, 1\)x\(\d+, 1, 1\))', t)
    print('##', f)
    print(' '.join('%7s'%k[1] for k in keys), ' kernel')
    for i in range(1, len(parts), 2):
        name, body = parts[i], parts[i+1]
        vals = []
        for k, short in keys:
            m = re.search(r'^\s+' + re.escape(k) + r'\s+(\S+)?\s+([\d,\.]+)\s*$', body, re.M)
            v = m.group(2).replace(',','') if m else '-'
            if short.startswith('i_') or short=='inst':
                try: v = '%.3g' % float(v)
                except: pass
            vals.append(v)
        print(' '.join('%7s'%v for v in vals), ' ', re.sub(r'\(NttPass.*','',name)[:60])
