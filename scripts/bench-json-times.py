#!/usr/bin/env python3
"""Bench JSON files (`kernel-lab --json`) to the timing table `kernel-lab rank --f32-times` / `--fp8-times`
and `calibrate --refit` read: `shape step process_file median_us pct_of_cublas kernel`, one row per timed
entry of FAMILY (sgemm, fp8, gemm). Usage: bench-json-times.py FAMILY FILE.json… > times.tsv"""
import json, os, sys

fam, files = sys.argv[1], sys.argv[2:]
print("# shape\tstep\tprocess_file\tmedian_us\tpct_of_cublas\tkernel")
for f in files:
    for r in json.load(open(f)).get(fam, []):
        t = (r.get("time") or {}).get("median_ms")
        if t is None or r.get("error"):
            continue
        s = r["shape"]
        print(f"{s['m']}x{s['n']}x{s['k']}\t{r['step']}\t{os.path.basename(f)}\t{1000 * t:.2f}\t{r.get('pct_of_cublas')}\t{r['kernel']}")
