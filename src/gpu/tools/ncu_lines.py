# Stall samples of any kernel by source file and line, from Nsight Compute's
# source page with CUDA lines and SASS together:
#   ncu -i R.ncu-rep --page source --csv --print-source cuda,sass >src.csv
#   python3 src/gpu/tools/ncu_lines.py src.csv [TOP]
# (a -lineinfo build, e.g. bench/build_variant.sh li msm_g1 -lineinfo).
# Each SASS instruction carries its innermost source line; a called function
# (EC_FP_CALL's products) keeps its own lines, so its samples count for the
# callee, not for the call site. Prints, per kernel, the samples by file and
# the TOP lines (default 40) with their stall reasons as shares of the line's
# samples. ncu_phases.py groups the NTT's lines into its phases instead.
import csv, collections, sys

STALLS = ['wait', 'math', 'dispatch', 'long_sb', 'lg', 'barrier', 'short_sb', 'mio', 'no_inst',
          'branch', 'selected']


def read(path):
    """{kernel: {address: (file, line, row)}} from the CSV."""
    kernels = collections.OrderedDict()
    hdr, fname, fn, line = None, None, None, None
    for r in csv.reader(open(path, errors='replace')):
        if not r:
            continue
        if r[0] == 'File Path':
            fname = r[1].split('/')[-1]
        elif r[0] == 'Function Name':
            fn = r[1]
            kernels.setdefault(fn, {})
        elif r[0] == 'Line No':
            hdr = r
        elif r[0]:
            line = int(r[0])
        elif len(r) > 2 and r[2].startswith('0x'):
            kernels[fn][int(r[2], 16)] = (fname, line, dict(zip(hdr[2:], r[2:])))
    return kernels


def main():
    top = int(sys.argv[2]) if len(sys.argv) > 2 else 40
    for fn, ins in read(sys.argv[1]).items():
        by_line = collections.defaultdict(collections.Counter)
        by_file = collections.Counter()
        total = 0
        for f, l, d in ins.values():
            s = int(d.get('Warp Stall Sampling (All Samples)') or 0)
            c = by_line[(f, l)]
            c['samples'] += s
            c['executed'] += int(d.get('Instructions Executed') or 0)
            for st in STALLS:
                c[st] += int(float(d.get('stall_' + st) or 0))
            by_file[f] += s
            total += s
        print('== %s: %d samples' % (fn[:100], total))
        print('  ' + ', '.join('%s %.1f%%' % (f, 100 * s / max(1, total))
                               for f, s in by_file.most_common()))
        print('%-24s %6s %9s  %s' % ('line', 'share', 'M instr', ' '.join('%8s' % x[:8] for x in STALLS)))
        for (f, l), c in sorted(by_line.items(), key=lambda x: -x[1]['samples'])[:top]:
            n = max(1, c['samples'])
            print('%-24s %5.1f%% %9.1f  %s' % ('%s:%s' % (f, l), 100 * c['samples'] / max(1, total),
                                              c['executed'] / 1e6,
                                              ' '.join('%8.1f' % (100 * c[st] / n) for st in STALLS)))


if __name__ == '__main__':
    main()
