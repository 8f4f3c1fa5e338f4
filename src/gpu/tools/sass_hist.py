# Opcode histogram of each kernel in cuobjdump -sass output, for the whole
# function and for its innermost timed loop (the largest backward branch).
import re, sys, collections
text = open(sys.argv[1]).read()
for part in text.split('Function : ')[1:]:
    name = part.split('\n')[0].strip()
    ins = []
    for m in re.finditer(r'/\*([0-9a-f]{4,})\*/\s+([^;]*);', part):
        addr = int(m.group(1), 16)
        txt = m.group(2).strip()
        toks = txt.split()
        if not toks: continue
        if toks[0].startswith('@'): toks = toks[1:]
        ins.append((addr, toks[0], txt))
    loops = []
    for addr, op, txt in ins:
        if op.startswith('BRA'):
            t = re.search(r'0x([0-9a-f]+)', txt)
            if t and int(t.group(1), 16) < addr:
                loops.append((addr - int(t.group(1), 16), int(t.group(1), 16), addr))
    def hist(sel):
        c = collections.Counter(op for _, op, _ in sel)
        imad = sum(v for k, v in c.items() if k.startswith('IMAD'))
        return len(sel), imad, c
    n, imad, c = hist(ins)
    print('==', name, 'total', n, 'IMAD-family', imad)
    if loops:
        _, lo, hi = max(loops)
        n2, imad2, c2 = hist([x for x in ins if lo <= x[0] <= hi])
        print('   loop', n2, 'instructions, IMAD-family', imad2)
        print('   ', ', '.join('%s %d' % kv for kv in c2.most_common(25)))
    else:
        print('   ', ', '.join('%s %d' % kv for kv in c.most_common(25)))

# The loop body of the Fp and Fr mul kernels (ILP 1, variant 0), for reading.
for part in text.split('Function : ')[1:]:
    name = part.split('\n')[0].strip()
    if not any(k in name for k in sys.argv[2:]):
        continue
    print('\n==== SASS', name)
    for m in re.finditer(r'/\*([0-9a-f]{4,})\*/\s+([^;]*);', part):
        print(m.group(1), m.group(2).strip())
