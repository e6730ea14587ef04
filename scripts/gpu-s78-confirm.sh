#!/usr/bin/env bash
# Session 78, issue 49, call 5: the final paged split (a lone paged CTA's rate by the step its split runs: ad5
# 0.98, ad2p 0.87) on the shapes whose paged plan changed this session — `kernel-lab decode`, 3 processes; the
# decode GPU tests first. Carry: scripts/decode-carry.sh.
set -uo pipefail
. scripts/device-log.sh "s78-confirm.txt" 200
J=/tmp/s78c; mkdir -p $J
run $C/tests/decode --test-threads=1
S=1x32x8x16384x128,1x32x8x32768x128,16x32x8x4096x64,1x32x8x4096x128,2x32x8x4096x64
for i in 1 2 3; do run $C/kernel-lab decode --dtype bf16 --shapes $S --json "$J/decode-$i.json"; done
tar czf "$OUT/json.tgz" -C $J .
python3 - "$J" <<'PY' | tee -a "$L"
import json, glob, sys, statistics as st
d = {}
for f in sorted(glob.glob(sys.argv[1] + "/decode-*.json")):
    for r in json.load(open(f))["rows"]:
        c = "paged-16" if r["config"].endswith("paged-16") else r["config"]
        d.setdefault((r["shape"], c), []).append((r["us"], r["splits"], r["config"]))
print("| shape | contiguous planned: splits, µs | paged-16: step, splits, µs | paged / contiguous |"); print("|---|---|---|---|")
for (s, c), v in d.items():
    if c != "paged-16": continue
    cv = d[(s, "ad2 planned")]
    cm, pm = st.median(x[0] for x in cv), st.median(x[0] for x in v)
    print(f"| {s} | {cv[0][1]}, {cm:.1f} | {v[0][2].split()[0]}, {v[0][1]}, {pm:.1f} ({', '.join('%.1f' % x[0] for x in v)}) | {pm / cm:.3f} |")
PY
grep -E "^exit [1-9]|test result|panicked" "$L"
