#!/usr/bin/env python3
"""Session 73: FP8 step times from `kernel-lab --family fp8 --json` files (one per process), medians over processes.
Prints a markdown table: per shape cuBLASLt's three modes (µs, timed alone), each step's time (µs; the row timed
interleaved with the step's own mode) and its ratio to that mode (interleaved, median over processes), and the
geometric means of the ratios per step. Usage: s73-fp8-table.py STEP[,STEP...] FILE..."""
import json, math, statistics, sys
steps = sys.argv[1].split(',')
runs = [json.load(open(f))['fp8'] for f in sys.argv[2:]]
base_names = {'fast': 'cublasLt e4m3 per-tensor fast-accum', 'pt': 'cublasLt e4m3 per-tensor', 'block': 'cublasLt e4m3 block 1x128/128x128'}
shapes = []
data = {}
for rows in runs:
    seen = set()
    for r in rows:
        s = r['shape']; key = f"{s['m']}x{s['n']}x{s['k']}"
        if key not in shapes: shapes.append(key)
        t = r['time'] and r['time']['median_ms'] * 1e3
        if r['step'] == 'cuBLAS':
            for b, name in base_names.items():
                if r['kernel'] == name and t: data.setdefault((key, b), []).append(t)
        elif r['step'] in steps and (key, r['step']) not in seen and t and r['pct_of_cublas']:
            seen.add((key, r['step']))  # the first row: against the step's own mode
            data.setdefault((key, r['step']), []).append(t)
            data.setdefault((key, r['step'], 'pct'), []).append(r['pct_of_cublas'])
med = lambda k: statistics.median(data[k]) if k in data else None
print('| shape | Lt fast | Lt per tensor | Lt block | ' + ' | '.join(f'{s} µs (× own mode)' for s in steps) + ' | fastest |')
print('|---|---|---|---|' + '---|' * len(steps) + '---|')
logs = {s: [] for s in steps}; fast = {s: [] for s in steps}
for key in shapes:
    cells = [f"{med((key, b)):.1f}" if med((key, b)) else '-' for b in ('fast', 'pt', 'block')]
    best = None
    for s in steps:
        t, p = med((key, s)), med((key, s, 'pct'))
        if t is None: cells.append('-'); continue
        cells.append(f'{t:.1f} ({p:.2f})')
        logs[s].append(math.log(p))
        if med((key, 'fast')): fast[s].append(math.log(med((key, 'fast')) / t))
        if best is None or t < best[1]: best = (s, t)
    print(f'| {key} | ' + ' | '.join(cells) + f' | {best[0] if best else "-"} |')
print()
for s in steps:
    if logs[s]:
        print(f'{s}: {len(logs[s])} shapes, geomean × own mode {math.exp(sum(logs[s]) / len(logs[s])):.3f}, × Lt fast-accum (times) {math.exp(sum(fast[s]) / len(fast[s])):.3f}')
