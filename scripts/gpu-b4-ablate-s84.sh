#!/usr/bin/env bash
# b4's ablations in the bulk-reduce form (timing only: each variant drops pieces of the tile and is wrong): the
# carry's kl-N is b4 built with ABLATE = N (scripts/b4-ablate-builds.sh; 1 no dQ bulk reduce, 2 no dQ stores,
# 4 no fence and named barrier before it, 8 no dQ product, 16 no dSᵀ stores; 7 = the whole dQ tail after the
# product, 15 = dQ gone but the dSᵀ stores, 31 = everything b4 adds to b3's dK/dV kernel but the CTA barrier).
# REPS rounds, each variant once a round (`kernel-lab backward --steps b4`, b4's row against b3's, unchanged).
set -uo pipefail
. scripts/device-log.sh "b4-ablate.txt" 200
SHAPES=${SHAPES:-2x16x16x4096x64,1x32x8x8192x64,2x16x16x4096x128,1x32x8x8192x128}
for r in $(seq 1 ${REPS:-3}); do
  for v in ${VARIANTS:-0 1 2 7 15 31}; do
    echo "== set ablate $v round $r" | tee -a "$L"
    run $C/kl-$v backward --steps b4 --shapes $SHAPES --json "$OUT/v$v-$r.json"
  done
done
grep -E "^==|^exit|^\| " "$L" | head -200
(cd "$OUT" && tar cJf /tmp/b4-ablate.tar.xz . && find . -type f -delete && mv /tmp/b4-ablate.tar.xz .)
