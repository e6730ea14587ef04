#!/usr/bin/env python3
"""The FP8 entry point of two builds at the same shapes (`kernel-lab --family fp8 --entry --json`, one file a
process and build): per shape and scaling, each build's step, its median time over the processes (µs), its ratio
to cuBLASLt's matching mode in the same process (median), and new / old time. usage: fp8-entry-old-new.py DIR
(reads DIR/entry-old-p*.json and DIR/entry-new-p*.json)"""
import collections, glob, json, math, statistics, sys

d = sys.argv[1]
runs = collections.defaultdict(lambda: collections.defaultdict(list))  # build -> (shape, scaling) -> [(step, us, ratio)]
for build in ("old", "new"):
    for path in sorted(glob.glob(f"{d}/entry-{build}-p*.json")):
        by_shape = collections.defaultdict(list)
        for r in json.load(open(path)).get("fp8", []):
            if r["step"] != "cuBLAS" and " vs " in r["kernel"] and not r.get("error") and r.get("time"):
                s = r["shape"]
                by_shape[f'{s["m"]}x{s["n"]}x{s["k"]}'].append(r)
        for shape, rs in by_shape.items():
            base = lambda r: r["kernel"].rsplit(" vs ", 1)[1]
            block = {r["step"] for r in rs if base(r).startswith("block")}
            for r in rs:
                # The block step against the block mode; the per-tensor step against cuBLASLt's default
                # (not fast-accumulation) per-tensor mode, as the target.
                if r["step"] in block and base(r).startswith("block"):
                    scaling = "block"
                elif r["step"] not in block and base(r) == "per-tensor":
                    scaling = "tensor"
                else:
                    continue
                runs[build][(shape, scaling)].append((r["step"], 1e3 * r["time"]["median_ms"], r.get("pct_of_cublas")))
print("shape\tscaling\told step\told us\told/cuBLASLt\tnew step\tnew us\tnew/cuBLASLt\tnew/old time")
logs = collections.defaultdict(list)
for key in sorted(set(runs["old"]) & set(runs["new"]), key=lambda k: (k[1], [int(x) for x in k[0].split("x")])):
    o, n = runs["old"][key], runs["new"][key]
    ou, nu = statistics.median(x[1] for x in o), statistics.median(x[1] for x in n)
    orat = statistics.median(x[2] for x in o if x[2]) if any(x[2] for x in o) else float("nan")
    nrat = statistics.median(x[2] for x in n if x[2]) if any(x[2] for x in n) else float("nan")
    steps = lambda v: "/".join(sorted({x[0] for x in v}))
    print(f"{key[0]}\t{key[1]}\t{steps(o)}\t{ou:.2f}\t{orat:.3f}\t{steps(n)}\t{nu:.2f}\t{nrat:.3f}\t{nu / ou:.3f}")
    if steps(o) != steps(n):
        logs[key[1] + " pick changed"].append(nu / ou)
    logs[key[1] + " all"].append(nu / ou)
for k, v in sorted(logs.items()):
    print(f"# {k}: {len(v)} shapes, new/old time geomean {math.exp(sum(map(math.log, v)) / len(v)):.3f}, range {min(v):.3f}-{max(v):.3f}")
