#!/usr/bin/env python3
"""The median over several runs of the `gemm` family (each a `--json` file, gzipped or not): per shape and
element type, the entry point's step, the median / min / max of `% cuBLAS` and, for M ≤ 64, of `% of copy`;
then the geometric mean of the medians and the rows whose median is under 90%. One run's table already
times each row interleaved with cuBLAS; this tells which rows move between runs (the card's power state,
clocks) and which sit below a bar in most of them.

    scripts/sweep-median.py results/…/sweep-*.json.gz
"""
import gzip
import json
import math
import statistics
import sys


def load(path):
    with (gzip.open(path, "rt") if path.endswith(".gz") else open(path)) as f:
        return json.load(f)


def main(paths):
    if not paths:
        sys.exit(__doc__)
    rows = {}  # (table, shape) -> {"steps": set, "pct": [], "copy": []}
    for path in paths:
        d = load(path)
        for table in ("gemm", "gemm_bf16", "gemm_f32"):
            for r in d.get(table, []):
                if r.get("baseline_paired") is None or r.get("pct_of_cublas") is None:
                    continue
                # As `Row::failed` and the table's summary: an error or an error above tolerance is out.
                err = r.get("rel_err")
                if r.get("error") is not None or (err is not None and not err <= r.get("tolerance", 0)):
                    continue
                s = r["shape"]
                key = (table, f'{s["m"]}x{s["n"]}x{s["k"]}')
                e = rows.setdefault(key, {"steps": set(), "pct": [], "copy": []})
                e["steps"].add(r["step"])
                e["pct"].append(r["pct_of_cublas"])
                if r.get("pct_of_copy") is not None:
                    e["copy"].append(r["pct_of_copy"])
    for table in ("gemm", "gemm_bf16", "gemm_f32"):
        keys = [k for k in rows if k[0] == table]
        if not keys:
            continue
        print(f"== {table}: {max(len(rows[k]['pct']) for k in keys)} runs")
        print(f"{'M x N x K':>18} {'step':>14} {'runs':>4} {'median':>8} {'min':>7} {'max':>7} {'copy med':>9} {'copy min':>9}")
        medians = []
        for k in keys:
            e = rows[k]
            med = statistics.median(e["pct"])
            medians.append((k[1], med))
            copy = (f'{100 * statistics.median(e["copy"]):8.1f}% {100 * min(e["copy"]):8.1f}%') if e["copy"] else ""
            print(f"{k[1]:>18} {'/'.join(sorted(e['steps'])):>14} {len(e['pct']):4} {100 * med:7.1f}% {100 * min(e['pct']):6.1f}% {100 * max(e['pct']):6.1f}% {copy}")
        g = math.exp(sum(math.log(m) for _, m in medians) / len(medians))
        low = [f"{s} {100 * m:.1f}%" for s, m in sorted(medians, key=lambda x: x[1]) if m < 0.9]
        print(f"geometric mean of the medians: {100 * g:.1f}% ({len(medians)} shapes); medians under 90%: {', '.join(low) or 'none'}\n")


if __name__ == "__main__":
    main(sys.argv[1:])
