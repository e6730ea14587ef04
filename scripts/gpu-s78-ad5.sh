#!/usr/bin/env bash
# Session 78, issue 49: decode step ad5 (a warp's page-table entries read once, one a lane, beside the length)
# for paged caches where a split walks fewer than 2048 keys, against the build before it (kernel-lab-old:
# 649534d's binary, whose decode code is HEAD~'s): `kernel-lab decode` (its "… paged-16" row beside the
# contiguous "ad2 planned"), 3 processes each, alternating; the decode GPU tests and memcheck of ad5 first.
# Carry: scripts/decode-carry.sh plus .carry/kernel-lab-old.xz.
set -uo pipefail
. scripts/device-log.sh "s78-ad5.txt" 300
J=/tmp/s78d; mkdir -p $J
run $C/tests/decode --test-threads=1
T=400 run compute-sanitizer --tool memcheck --kernel-name kns=attn_decode5 $C/tests/decode --test-threads=1 decode_matches_the_f64_reference_on_every_layout
S=${DECODE_SHAPES:-1x32x8x2048x128,1x32x8x4096x128,1x32x8x32768x128,1x32x8x8192x64,2x32x8x4096x64,16x32x8x4096x64,64x32x8x2048x64,32x32x8x4096x128,16x16x8x8192x256}
for i in 1 2 3; do
  for b in kernel-lab kernel-lab-old; do run $C/$b decode --dtype bf16 --shapes $S --json "$J/decode-$b-$i.json"; done
done
run $C/kernel-lab decode --dtype f16 --shapes 1x32x8x4096x128,2x32x8x4096x64 --json "$J/decode-f16.json"
tar czf "$OUT/json.tgz" -C $J .
python3 - "$J" <<'PY' | tee -a "$L"
import json, glob, sys, statistics as st
d = {}
for f in sorted(glob.glob(sys.argv[1] + "/decode-kernel-lab*-[0-9].json")):
    b = f.split("decode-")[1].rsplit("-", 1)[0]
    for r in json.load(open(f))["rows"]:
        c = "paged-16" if r["config"].endswith("paged-16") else r["config"]
        d.setdefault((r["shape"], c), {}).setdefault(b, []).append((r["us"], r["splits"], r["config"]))
print("| shape | contiguous planned µs | paged-16 new: step, splits, µs | old: step, splits, µs | new / old | new paged / contiguous | old paged / contiguous |")
print("|---|---|---|---|---|---|---|")
for (s, c), v in d.items():
    if c != "paged-16": continue
    cont = st.median(x[0] for x in d[(s, "ad2 planned")]["kernel-lab"])
    conto = st.median(x[0] for x in d[(s, "ad2 planned")]["kernel-lab-old"])
    n, o = v["kernel-lab"], v["kernel-lab-old"]
    nm, om = st.median(x[0] for x in n), st.median(x[0] for x in o)
    print(f"| {s} | {cont:.1f} | {n[0][2].split()[0]}, {n[0][1]}, {nm:.1f} ({', '.join('%.1f' % x[0] for x in sorted(n))}) | {o[0][2].split()[0]}, {o[0][1]}, {om:.1f} | {nm / om:.3f} | {nm / cont:.3f} | {om / conto:.3f} |")
print()
print("| shape | config | new µs | old µs | new / old |"); print("|---|---|---|---|---|")
for (s, c), v in d.items():
    nm, om = st.median(x[0] for x in v["kernel-lab"]), st.median(x[0] for x in v["kernel-lab-old"])
    print(f"| {s} | {c} | {nm:.1f} | {om:.1f} | {nm / om:.3f} |")
PY
grep -E "^exit [1-9]|test result|panicked|ERROR SUMMARY" "$L"
