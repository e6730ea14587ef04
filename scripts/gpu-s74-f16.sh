#!/usr/bin/env bash
# Session 74 (issue 51): w5/w1 on f16 activations with the weights widened by `cvt.rn.f16x2.e4m3x2` and multiplied by
# 2^e (b, this build) against the shifts and masks and 2^(bias + e) (a: the build of 0e276f9, carried as
# .carry/kernel-lab-a). The FP8-weights GPU tests of b, then `kernel-lab w8 --dtype f16`, b and a alternating × ROUNDS.
set -uo pipefail
. scripts/device-log.sh "s74-f16.txt" 300
J=/tmp/s74c; mkdir -p $J
[ -x $C/tests/fp8_weights ] && run $C/tests/fp8_weights --test-threads=1
for i in $(seq 1 ${ROUNDS:-3}); do
  T=200 run $C/kernel-lab w8 --dtype f16 --json $J/b-$i.json
  T=200 run $C/kernel-lab-a w8 --dtype f16 --json $J/a-$i.json
done
tar czf "$OUT/json.tgz" -C $J .
python3 - "$J" <<'PY' | tee -a "$L"
import json, glob, sys, statistics as st
rows = {}
for v in ("a", "b"):
    for f in sorted(glob.glob(f"{sys.argv[1]}/{v}-*.json")):
        for x in json.load(open(f))["rows"]:
            rows.setdefault(x["shape"], {}).setdefault(v, []).append(x)
print("| MxNxK | w5 f16, shifts (a) µs | w5 f16, cvt (b) µs | a / b | % of copy (b) | 16-bit / w5 (b) |"); print("|---|---|---|---|---|---|")
for s, e in rows.items():
    m = lambda v, k: st.median(x[k] for x in e[v])
    print(f"| {s} | {m('a', 'fp8_us'):.1f} | {m('b', 'fp8_us'):.1f} | {m('a', 'fp8_us') / m('b', 'fp8_us'):.3f} | {100 * m('b', 'fp8_gbps') / m('b', 'copy_gbps'):.0f}% | {m('b', 'speedup'):.2f} |")
PY
