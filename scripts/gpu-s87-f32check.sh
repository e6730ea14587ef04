#!/usr/bin/env bash
# Session 87, issue 48: the f32 entry point before (.carry/old/kernel-lab: session 61's cascade) and after (.carry/kernel-lab:
# the cost model) at shapes whose pick changes and no fit saw — 24 of a fresh corpus sample (seed 8888), 16 of session 83's
# (seed 8383), 14 random shapes off the corpus (odd sizes) — 3 processes each build, alternating. Output packed into one archive.
set -uo pipefail
. scripts/device-log.sh "s87-f32check.txt" 200
R=results/2026-12-02-h200-session87
for f in s8888 s8383 srand; do
  T=200 gemm_old_new "f32-$f" 87 f32 --shapes-file $R/f32-check-$f.tsv
done
grep -E "^==|^exit [^0]|^t\+" "$L" | head -40
(cd "$OUT" && tar cJf /tmp/s87-f32check.tar.xz . && find . -type f -delete && mv /tmp/s87-f32check.tar.xz .)
