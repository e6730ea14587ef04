#!/usr/bin/env bash
# Session 84, issue 50: b4's SASS (D = 64, bf16) with and without its dQ stores to shared memory (.carry/v0.cubin: the
# attention module as built; .carry/v2.cubin: ABLATE = 2 of commit 8082670), for the wgmma waits ptxas emitted around
# them (`WARPGROUP.DEPBAR`, `WARPGROUP.ARRIVE`, the HGMMAs); then FIRST=3 chunks of the FP8 sample (scripts/gpu-s84-sample.sh).
set -uo pipefail
OUT=${OUT:-/tmp/kernel-lab-out}; mkdir -p "$OUT"
(cd .carry && xz -d -f *.xz 2>/dev/null)
D=$(command -v cuobjdump || ls /usr/local/cuda*/bin/cuobjdump 2>/dev/null | head -1)
for v in v0 v2; do
  $D -sass -fun attn_bwd_b4_d64_bf16 .carry/$v.cubin > "$OUT/b4-d64-$v.sass" 2>&1 || $D -sass .carry/$v.cubin 2>&1 | awk '/Function : attn_bwd_b4_d64_bf16$/{p=1;next} /Function :/{p=0} p' > "$OUT/b4-d64-$v.sass"
  echo "$v: $(wc -l < "$OUT/b4-d64-$v.sass") lines; $(grep -c HGMMA "$OUT/b4-d64-$v.sass") HGMMA; DEPBAR: $(grep -o 'WARPGROUP.DEPBAR[^;]*' "$OUT/b4-d64-$v.sass" | sort | uniq -c | tr '\n' ' ')"
done
xz -9 "$OUT"/*.sass
FIRST=3 DEADLINE=${DEADLINE:-380} FAMILY=fp8 bash scripts/gpu-s84-sample.sh
