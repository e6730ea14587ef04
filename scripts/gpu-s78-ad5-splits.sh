#!/usr/bin/env bash
# Session 78, issue 49, call 3: ad5 up to 2048-key splits (32 tiles a warp) and the paged split with ad5:
# `kernel-lab decode --splits 8,16,32` (the paged cache at each forced split beside the contiguous one), 3
# processes; the build before (kernel-lab-old: ad2p from 2048 keys on) at the two shapes whose planned paged
# step changes; the decode GPU tests first. Carry: scripts/decode-carry.sh plus .carry/kernel-lab-old.xz.
set -uo pipefail
. scripts/device-log.sh "s78-ad5-splits.txt" 300
J=/tmp/s78s; mkdir -p $J
run $C/tests/decode --test-threads=1
S=1x32x8x32768x128,1x32x8x16384x128,1x32x8x8192x64,2x32x8x4096x64,16x32x8x4096x64
for i in 1 2 3; do
  run $C/kernel-lab decode --dtype bf16 --shapes $S --splits 8,16,32 --json "$J/splits-$i.json"
  run $C/kernel-lab-old decode --dtype bf16 --shapes 16x32x8x4096x64,1x32x8x16384x128 --json "$J/old-$i.json"
  run $C/kernel-lab decode --dtype bf16 --shapes 16x32x8x4096x64,1x32x8x16384x128 --json "$J/new-$i.json"
done
tar czf "$OUT/json.tgz" -C $J .
python3 - "$J" <<'PY' | tee -a "$L"
import json, glob, sys, statistics as st
d = {}
for f in sorted(glob.glob(sys.argv[1] + "/*.json")):
    b = f.rsplit("/", 1)[1].rsplit("-", 1)[0]
    for r in json.load(open(f))["rows"]:
        d.setdefault((r["shape"], r["config"], b), []).append((r["us"], r["splits"]))
print("| shape | config | build | splits | µs (median of 3) | runs |"); print("|---|---|---|---|---|---|")
for (s, c, b), v in sorted(d.items()):
    print(f"| {s} | {c} | {b} | {v[0][1]} | {st.median(x[0] for x in v):.1f} | {', '.join('%.1f' % x[0] for x in v)} |")
PY
grep -E "^exit [1-9]|test result|panicked" "$L"
