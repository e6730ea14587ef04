#!/usr/bin/env python3
"""Turns the files scripts/gpu-run.sh left in $OUT into results/<dir>/README.md (tables in markdown).

usage: scripts/render-results.py DEVICE_OUT_DIR RESULTS_DIR
Copies suite.json, check.txt, ncu-reduce.csv and the sanitizer summaries, and writes README.md with the
reduce table, the compute-sanitizer verdicts and ncu's shared-memory counters per reduce kernel.
"""
import csv, json, os, re, shutil, sys
from collections import defaultdict

src, dst = sys.argv[1], sys.argv[2]
os.makedirs(dst, exist_ok=True)
for f in ["suite.json", "check.txt", "ncu-reduce.csv", "env.txt", "tests.txt", "bankcheck.md", "ncu-bankcheck.csv", "bench.txt"]:
    if os.path.exists(os.path.join(src, f)):
        shutil.copy(os.path.join(src, f), os.path.join(dst, f))
s = json.load(open(os.path.join(src, "suite.json")))
g = s["gpu"]
out = [f"# Run of {s['date']} on {g['name']}", "",
       f"- GPU: {g['name']}, sm_{g['compute_capability'][0]}{g['compute_capability'][1]}, {g['sms']} SMs, "
       f"L2 {g['l2_bytes'] >> 20} MiB, driver API {g['driver_version']}",
       f"- commit: `{s['commit']}`, seed {s['seed']}, {s['reps']} timed repetitions after {s['warmup']} warm-up (median reported)",
       "- command: `bash scripts/gpu-run.sh` (built by `scripts/prepare-gpu-run.sh`)", ""]
for envf in ["env.txt", "tests.txt"]:
    if os.path.exists(os.path.join(src, envf)):
        env = open(os.path.join(src, envf)).read().split("== tests ==")[0].strip()
        out += ["```", env, "```", ""]
        break
if "selftest" in s:
    out += ["## Self-tests of the device primitives", "", "| kernel | result |", "|---|---|"]
    for r in s["selftest"]:
        out.append(f"| {r['kernel']} | {'ok' if not r['failure'] else ('skipped: ' if r['skipped'] else 'FAILED: ') + r['failure']} |")
    out.append("")
if "reduce" in s:
    out += ["## Reduce (seed 003): sum of N f32", "",
            "GB/s counts 4N bytes for a reduction (each input read once) and 8N for the copy (read + write); "
            "'% copy' is the row's GB/s over the copy's in the same run. rel err: against an f64 sum of the same "
            "uniform [0.5, 1.5) data. exact: the sum of N random integers in [-4, 4] \\ {0} (exact in f32) came out exact.", "",
            "| step | N | median µs | GB/s | % copy | × v0 | rel err | exact | regs | local B | launches | kernel |",
            "|---|---:|---:|---:|---:|---:|---:|:-:|---:|---:|---:|---|"]
    f = lambda v, fmt: "-" if v is None else fmt.format(v)
    for r in s["reduce"]:
        t = r["time"]
        out.append("| " + " | ".join([r["step"], str(r["n"]), f(t and t["median_ms"] * 1e3, "{:.1f}"), f(r["gbps"], "{:.0f}"),
            f(r["pct_of_copy"] and 100 * r["pct_of_copy"], "{:.1f}%"), f(r["speedup_vs_v0"], "{:.2f}"),
            f(r["rel_err"], "{:.1e}"), {True: "yes", False: "NO", None: "-"}[r["exact_int_sum"]],
            f(r["registers"], "{}"), f(r["local_bytes"], "{}"), str(r["launches"]), f"`{r['kernel']}`"]) + " |")
    out.append("")
san = []
p = os.path.join(src, "sanitize.txt")
if os.path.exists(p):
    shutil.copy(p, os.path.join(dst, "sanitize.txt"))
    tool = None
    for l in open(p):
        if l.startswith("#### compute-sanitizer --tool"):
            tool = l.split()[-1]
        elif "SUMMARY" in l and tool:
            san.append(f"| {tool} | {l.strip('= ').strip()} |")
if san:
    out += ["## compute-sanitizer (the `--check` runs of `scripts/gpu-run.sh`)", "",
            "| tool | summary |", "|---|---|"] + san + [""]
p = os.path.join(src, "ncu-reduce.csv")
if os.path.exists(p):
    hdr, agg, order = None, defaultdict(lambda: defaultdict(float)), []
    for r in csv.reader(open(p)):
        if r and r[0] == "ID":
            hdr = r
            continue
        if hdr and len(r) == len(hdr):
            d = dict(zip(hdr, r))
            k = d["Kernel Name"]
            if k not in order:
                order.append(k)
            agg[k][d["Metric Name"]] += float(d["Metric Value"].replace(",", "") or 0)
            agg[k]["launches"] += 1.0 / 6
    m = lambda op, what: f"l1tex__data_{what}_pipe_lsu_mem_shared_op_{op}.sum" if what == "bank_conflicts" else f"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_{op}.sum"
    out += ["## Nsight Compute: shared-memory counters, N = 2^20 (all launches of one `--check` run, summed)", "",
            "`ncu --clock-control none`; the `--check` run reduces the uniform and the integer input, so each kernel's "
            "launch sequence appears twice.", "",
            "| kernel | ld instr | ld wavefronts | ld conflicts | st instr | st wavefronts | st conflicts |",
            "|---|---:|---:|---:|---:|---:|---:|"]
    for k in order:
        a = agg[k]
        out.append(f"| `{k}` | {a['smsp__sass_inst_executed_op_shared_ld.sum']:.0f} | {a[m('ld','wf')]:.0f} | {a[m('ld','bank_conflicts')]:.0f} "
                   f"| {a['smsp__sass_inst_executed_op_shared_st.sum']:.0f} | {a[m('st','wf')]:.0f} | {a[m('st','bank_conflicts')]:.0f} |")
    out.append("")
open(os.path.join(dst, "README.md"), "w").write("\n".join(out))
print(f"wrote {dst}/README.md")
