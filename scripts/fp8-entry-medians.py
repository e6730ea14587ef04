#!/usr/bin/env python3
"""Per-shape medians of the FP8 entry point (`kernel-lab --family fp8 --entry ... --json F`) against cuBLASLt over
several processes' JSON: for each scaling and baseline, the geometric mean of the per-shape medians, the share at or
above 0.90x, those under 0.85x, the lowest. A row's scaling is read from its baselines: the step timed against the
block mode is the block step, the one timed against the fast-accumulation mode the per-tensor step.
usage: fp8-entry-medians.py RUN1.json RUN2.json ..."""
import collections, json, math, statistics, sys

ratios = collections.defaultdict(list)  # (scaling, baseline, shape) -> [ratio]
files = collections.defaultdict(set)    # (scaling, baseline, shape) -> the processes (files) that timed it
steps = {}
name = lambda r: r["kernel"].split(" ")[0]
base = lambda r: r["kernel"].rsplit(" vs ", 1)[1]
for path in sys.argv[1:]:
    rows = json.load(open(path)).get("fp8", [])
    by_shape = collections.defaultdict(list)
    for r in rows:
        s = r["shape"]
        by_shape[f'{s["m"]}x{s["n"]}x{s["k"]}'].append(r)
    for shape, rs in by_shape.items():
        # Every step row names its baseline, timed or not (cuBLASLt's block mode declines some shapes: the block
        # step then has no ratio against it, but it still was the step timed against the block mode).
        named = [r for r in rs if r["step"] != "cuBLAS" and " vs " in r["kernel"]]
        block_names = {name(r) for r in named if base(r).startswith("block")}
        tensor_names = {name(r) for r in named if base(r) == "per-tensor fast-accum"}
        # As the Rust side's `Row::failed`: no error, and within its tolerance.
        ours = [r for r in named if r.get("pct_of_cublas") and not r.get("error") and not (r.get("rel_err") is not None and r["rel_err"] > r["tolerance"])]
        for r in ours:
            scaling = "block" if name(r) in block_names else "per-tensor" if name(r) in tensor_names else None
            if scaling is None:
                continue
            ratios[(scaling, base(r), shape)].append(r["pct_of_cublas"])
            files[(scaling, base(r), shape)].add(path)
            steps[(scaling, shape)] = r["step"]
groups = collections.defaultdict(dict)
for (scaling, bl, shape), v in ratios.items():
    # A shape drawn twice has two rows a process: the median of all, the processes counted once.
    groups[(scaling, bl)][shape] = (statistics.median(v), len(files[(scaling, bl, shape)]))
for (scaling, bl), by in sorted(groups.items()):
    med = {s: x for s, (x, _) in by.items()}
    runs = collections.Counter(n for _, n in by.values())
    geo = math.exp(sum(math.log(x) for x in med.values()) / len(med))
    ok = sum(x >= 0.90 for x in med.values())
    low = sorted((x, s) for s, x in med.items() if x < 0.85)
    lowest = min((x, s) for s, x in med.items())
    print(f"{scaling} steps vs cuBLASLt {bl}: {len(med)} shapes (processes per shape: {dict(runs)}), geometric mean {geo:.3f}x, "
          f"{ok}/{len(med)} ({100*ok/len(med):.1f}%) at or above 0.90x, {len(low)} under 0.85x; lowest {steps[(scaling, lowest[1])]} {lowest[1]} {lowest[0]:.3f}")
    for x, s in low:
        print(f"    {steps[(scaling, s)]:<6} {s:<20} {x:.3f}")
