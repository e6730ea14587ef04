#!/usr/bin/env bash
# Session 71 (issue 49), call 5: the paged decode split by plan_split's CTA-cost model with a paged CTA at 0.87 of a
# contiguous one's rate (kernel-lab) against session 53's slot-filling rule (kernel-lab-old, 45517ae); call 6: the
# paged key loop reading each tile's table entry one tile ahead (kernel-lab) against fad8f99 (kernel-lab-old); call 7: the same
# as its own entry, ad2p, for paged caches only:
# `kernel-lab decode` (its "ad2 paged-16" rows beside the contiguous "ad2 planned"), ROUNDS processes each,
# alternating; the decode GPU tests first.
set -uo pipefail
. scripts/device-log.sh "s71-paged.txt" 300
J=/tmp/s71p; mkdir -p $J
run $C/tests/decode --test-threads=1
S=${DECODE_SHAPES:-1x32x8x2048x128,1x32x8x4096x128,1x32x8x32768x128,1x32x8x8192x64,2x32x8x4096x64,16x32x8x4096x64,64x32x8x2048x64,32x32x8x4096x128,16x16x8x8192x256}
for i in $(seq 1 ${ROUNDS:-3}); do
  for b in kernel-lab kernel-lab-old; do run $C/$b decode --dtype bf16 --shapes $S --json "$J/decode-$b-$i.json"; done
  tar czf "$OUT/json.tgz" -C $J .
done
python3 - "$J" <<'PY' | tee -a "$L"
import json, glob, sys, statistics as st
d = {}
for f in sorted(glob.glob(sys.argv[1] + "/decode-*.json")):
    b = f.split("decode-")[1].rsplit("-", 1)[0]
    for r in json.load(open(f))["rows"]:
        d.setdefault((r["shape"], r["config"]), {}).setdefault(b, []).append((r["us"], r["splits"]))
print("| shape | contiguous planned µs | paged-16 new: splits, µs | old: splits, µs | new / old | new paged / contiguous |")
print("|---|---|---|---|---|---|")
for (s, c), v in d.items():
    if c != "ad2 paged-16": continue
    cont = st.median(x[0] for x in d[(s, "ad2 planned")]["kernel-lab"])
    n, o = v["kernel-lab"], v["kernel-lab-old"]
    nm, om = st.median(x[0] for x in n), st.median(x[0] for x in o)
    print(f"| {s} | {cont:.1f} | {n[0][1]}, {nm:.1f} ({', '.join('%.1f' % x[0] for x in sorted(n))}) | {o[0][1]}, {om:.1f} | {nm / om:.3f} | {nm / cont:.3f} |")
print()
print("| shape | config | new µs | old µs | new / old |"); print("|---|---|---|---|---|")
for (s, c), v in d.items():
    nm, om = st.median(x[0] for x in v["kernel-lab"]), st.median(x[0] for x in v["kernel-lab-old"])
    print(f"| {s} | {c} | {nm:.1f} | {om:.1f} | {nm / om:.3f} |")
PY
grep -E "^exit [1-9]|test result|panicked" "$L"
