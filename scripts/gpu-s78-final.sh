#!/usr/bin/env bash
# Session 78, issue 49, call 4: the paged split with ad5's rate (DECODE_PAGED_RATE 0.87 → 0.98: batch 1 at
# 16k–32k keys 32 → 16 splits) — `kernel-lab decode` on session 71's nine shapes and 16k, 3 processes,
# against the build of call 3 (kernel-lab-old: 0336c48, ad5 with the old rate); the decode GPU tests first.
# Carry: scripts/decode-carry.sh plus .carry/kernel-lab-old.xz (0336c48's kernel-lab).
set -uo pipefail
. scripts/device-log.sh "s78-final.txt" 300
J=/tmp/s78f; mkdir -p $J
run $C/tests/decode --test-threads=1
S=1x32x8x2048x128,1x32x8x4096x128,1x32x8x16384x128,1x32x8x32768x128,1x32x8x8192x64,2x32x8x4096x64,16x32x8x4096x64,64x32x8x2048x64,32x32x8x4096x128,16x16x8x8192x256
for i in 1 2 3; do
  for b in kernel-lab kernel-lab-old; do run $C/$b decode --dtype bf16 --shapes $S --json "$J/decode-$b-$i.json"; done
done
tar czf "$OUT/json.tgz" -C $J .
python3 - "$J" <<'PY' | tee -a "$L"
import json, glob, sys, statistics as st
d = {}
for f in sorted(glob.glob(sys.argv[1] + "/decode-kernel-lab*-[0-9].json")):
    b = f.split("decode-")[1].rsplit("-", 1)[0]
    for r in json.load(open(f))["rows"]:
        c = "paged-16" if r["config"].endswith("paged-16") else r["config"]
        d.setdefault((r["shape"], c), {}).setdefault(b, []).append((r["us"], r["splits"], r["config"]))
print("| shape | contiguous planned µs | paged-16 now: step, splits, µs | before: step, splits, µs | now / before | paged / contiguous now | before |")
print("|---|---|---|---|---|---|---|")
for (s, c), v in d.items():
    if c != "paged-16": continue
    cont = st.median(x[0] for x in d[(s, "ad2 planned")]["kernel-lab"])
    conto = st.median(x[0] for x in d[(s, "ad2 planned")]["kernel-lab-old"])
    n, o = v["kernel-lab"], v["kernel-lab-old"]
    nm, om = st.median(x[0] for x in n), st.median(x[0] for x in o)
    print(f"| {s} | {cont:.1f} | {n[0][2].split()[0]}, {n[0][1]}, {nm:.1f} ({', '.join('%.1f' % x[0] for x in sorted(n))}) | {o[0][2].split()[0]}, {o[0][1]}, {om:.1f} | {nm / om:.3f} | {nm / cont:.3f} | {om / conto:.3f} |")
PY
grep -E "^exit [1-9]|test result|panicked" "$L"
