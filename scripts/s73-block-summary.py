#!/usr/bin/env python3
"""Session 73: the block-scaled choice on held-out shapes. Reads the autotuner's log (the rule's pick per shape,
`Block MxNxK: ... the rule's STEP`) and `kernel-lab --family fp8 --json` files (f3 and the picks timed, each
interleaved with cuBLASLt, one file per process); prints per shape the pick's and f3's µs (medians over
processes), the pick × cuBLASLt's block mode (interleaved) and both × its per-tensor fast-accumulation time
(timed alone), and the geometric means for decode (M <= 16) and few-tile shapes.
Usage: s73-block-summary.py RANK_LOG FILE..."""
import json, math, re, statistics, sys
rule = {}
for l in open(sys.argv[1]):
    m = re.match(r'\s+Block (\S+): \S+, autotuned \(tuned now, [0-9.]+× the rule.s (\S+?)\)', l)
    if m: rule[m.group(1)] = m.group(2)
data = {}
for f in sys.argv[2:]:
    seen = set()
    for r in json.load(open(f))['fp8']:
        s = r['shape']; key = f"{s['m']}x{s['n']}x{s['k']}"
        t = r['time'] and r['time']['median_ms'] * 1e3
        if not t: continue
        if r['step'] == 'cuBLAS': data.setdefault((key, r['kernel']), []).append(t)
        elif (key, r['step']) not in seen:
            seen.add((key, r['step'])); data.setdefault((key, r['step']), []).append(t)
            if r['pct_of_cublas'] is not None and r['kernel'].endswith('vs block 1x128/128x128'):
                data.setdefault((key, r['step'], 'blk'), []).append(r['pct_of_cublas'])
med = lambda k: statistics.median(data[k]) if k in data else None
fast = 'cublasLt e4m3 per-tensor fast-accum'
g = lambda v: math.exp(sum(map(math.log, v)) / len(v)) if v else float('nan')
print('| shape | pick | pick µs | f3 µs | Lt fast µs | pick × Lt block | pick × Lt fast | f3 × Lt fast |')
print('|---|---|---|---|---|---|---|---|')
classes = {'decode (M ≤ 16)': [], 'few tiles (M > 16)': []}
for key, p in rule.items():
    tp, t3, tf, pb = med((key, p)), med((key, 'f3')), med((key, fast)), med((key, p, 'blk'))
    classes['decode (M ≤ 16)' if int(key.split('x')[0]) <= 16 else 'few tiles (M > 16)'].append((tf / tp, tf / t3, pb))
    print(f"| {key} | {p} | {tp:.1f} | {t3:.1f} | {tf:.1f} | {'%.2f' % pb if pb else '- (Lt refuses)'} | {tf / tp:.2f} | {tf / t3:.2f} |")
print()
for c, v in classes.items():
    blk = [x[2] for x in v if x[2]]
    print(f"{c}: {len(v)} shapes; pick × Lt fast {g([x[0] for x in v]):.3f} (f3 {g([x[1] for x in v]):.3f}); pick × Lt block {g(blk):.3f} over {len(blk)}, under 0.97 at {sum(b < 0.97 for b in blk)}")
