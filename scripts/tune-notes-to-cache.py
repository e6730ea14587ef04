#!/usr/bin/env python3
"""Rebuilds an autotune cache (what `kernel-lab rank --tune-cache` reads) from a run's log, for runs whose
cache file did not come back from the device: every `note: STEP MxNxK: autotuned (...): LABEL µs (rule R);
LABEL µs; ...` line the gemm family prints under `--autotune` becomes one entry with its timed candidates
(those under "not timed" are left out, as the autotuner left them).

usage: python3 scripts/tune-notes-to-cache.py LOG[.xz] OUT.json [GPU]

GPU (default "NVIDIA H200", the name `rank` picks the shipped model by) fills the key's first field; the
element type (its second-to-last: `rank` skips all but f16 and bf16) comes from the step's label (`-bf16`,
else f16); the build fields in between are placeholders (`rank` reads the GPU's name, the type and the shape)."""
import json, lzma, re, sys

if len(sys.argv) < 3:
    sys.exit(__doc__)
src, out = sys.argv[1], sys.argv[2]
gpu = sys.argv[3] if len(sys.argv) > 3 else "NVIDIA H200"
text = (lzma.open(src, "rt", encoding="utf-8") if src.endswith(".xz") else open(src, encoding="utf-8")).read()
prefix = f"{gpu}|sms=132|sm_90|driver=0|ptx=from-log|host=from-log|knobs="
entries = {}
for m in re.finditer(r"^note: (\S+) (\d+x\d+x\d+): autotuned \([^)]*\): (.*)$", text, re.M):
    step, shape, rest = m.groups()
    timed, rule = [], None
    for part in rest.split("; not timed")[0].split("; "):
        t = re.match(r"(\S+) ([\d.]+)(?: µs)?(?: \(rule (\S+)\))?", part.strip())
        if not t:
            continue
        timed.append({"label": t.group(1), "median_us": float(t.group(2)), "rel_err": 0.0, "samples": 0})
        rule = t.group(3) or rule
    dtype = "bf16" if step.endswith("-bf16") else "f16"
    entries[f"{prefix}|{dtype}|{shape}"] = {"step": step, "rule": rule or step, "timed": timed, "pruned": [], "unix_ms": 0}
json.dump({"version": 1, "entries": entries}, open(out, "w", encoding="utf-8"), indent=1)
print(f"{len(entries)} shapes -> {out}")
