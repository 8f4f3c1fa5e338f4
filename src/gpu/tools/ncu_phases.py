# Stall samples of the NTT pass kernels by phase, from Nsight Compute's
# source page with CUDA lines and SASS together:
#   ncu -i R.ncu-rep --page source --csv --print-source cuda,sass >src.csv
#   python3 src/gpu/tools/ncu_phases.py src.csv [src/gpu/ntt.cuh]
# (a -lineinfo build, e.g. bench/build_variant.sh li ntt -lineinfo).
# Each SASS instruction carries its innermost source line. A line inside one
# of ntt.cuh's phase functions starts (or continues) that phase; lines of
# other files (ff.cuh's products) and of helpers count for the phase whose
# code they sit in, walking the kernel in address order. Prints, per
# kernel, each phase's share of the samples, the share of those on ff.cuh
# lines (the products, and the elements' loads and stores) and the stall
# reasons as shares of the phase (docs/perf.md, "Where the passes' samples
# fall by phase"), then each phase's executed instructions by opcode.
import collections, re, sys

from ncu_lines import read  # the CSV's rows by kernel and address

PHASES = ['ntt_load_phase', 'ntt_pre_phase', 'ntt_regs_set', 'ntt_stages', 'ntt_stage_last',
          'ntt_round_compute', 'ntt_round_write', 'ntt_store_phase']
STALLS = ['wait', 'math', 'dispatch', 'long_sb', 'lg', 'barrier', 'short_sb', 'mio', 'no_inst',
          'selected', 'not_selected']


def phase_ranges(header):
    """[(first line, last line, name)] of the phase functions in ntt.cuh."""
    lines = open(header).read().split('\n')
    starts = []  # (line of 'template' or the signature, name or None)
    for i, l in enumerate(lines, 1):
        m = re.match(r'(?:FF_INLINE|static __device__)[^(]*\b(\w+)\(', l)
        if m:
            first = i - 1 if i > 1 and lines[i - 2].startswith('template') else i
            starts.append((first, m.group(1)))
    out = []
    for k, (first, name) in enumerate(starts):
        if name in PHASES:
            last = starts[k + 1][0] - 1 if k + 1 < len(starts) else len(lines)
            out.append((first, last, name.replace('ntt_', '')))
    return out


def main():
    path = sys.argv[1]
    header = sys.argv[2] if len(sys.argv) > 2 else 'src/gpu/ntt.cuh'
    ranges = phase_ranges(header)
    kernels = read(path)  # name -> {addr: (file, line, row)}
    for fn, ins in kernels.items():
        agg = collections.defaultdict(collections.Counter)
        ops = collections.defaultdict(collections.Counter)  # phase -> opcode -> executed
        cur, total = 'prologue', 0
        for addr in sorted(ins):
            f, l, d = ins[addr]
            if f == header.split('/')[-1]:
                for a, b, name in ranges:
                    if a <= l <= b:
                        cur = name
            s = int(d.get('Warp Stall Sampling (All Samples)') or 0)
            src = d.get('Source', '').split()
            if src:
                ops[cur][src[1] if src[0].startswith('@') and len(src) > 1 else src[0]] += \
                    int(d.get('Instructions Executed') or 0)
            c = agg[cur]
            c['samples'] += s
            total += s
            if f == 'ff.cuh':
                c['ff'] += s
            for st in STALLS:
                c[st] += int(float(d.get('stall_' + st) or 0))
        print('== %s: %d samples' % (fn[:90], total))
        print('%-14s %6s %6s  %s' % ('phase', 'share', 'ff.cuh', ' '.join('%8s' % x[:8] for x in STALLS)))
        for name, c in sorted(agg.items(), key=lambda x: -x[1]['samples']):
            n = max(1, c['samples'])
            print('%-14s %5.1f%% %5.1f%%  %s' % (name, 100 * c['samples'] / max(1, total),
                                               100 * c['ff'] / n,
                                               ' '.join('%8.1f' % (100 * c[st] / n) for st in STALLS)))
        for name, o in sorted(ops.items(), key=lambda x: -sum(x[1].values())):
            n = max(1, sum(o.values()))
            print('  %-14s %9.1f M warp instructions: %s' % (
                name, n / 1e6, ', '.join('%s %.1f%%' % (k, 100 * v / n) for k, v in o.most_common(8))))


if __name__ == '__main__':
    main()
