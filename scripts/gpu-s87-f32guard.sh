#!/usr/bin/env bash
# Session 87, issue 48: the f32 cost model's K-step guard (v33 / v34 left out past 8 rows with K off 128) at 14 shapes with
# K off 128 and 9–128 rows (12×30318×9191, where the unguarded model's v34 ran at 0.38×, and random ones): the cascade's
# build (.carry/old) against the committed model (.carry), 3 processes each, alternating.
set -uo pipefail
. scripts/device-log.sh "s87-f32guard.txt" 200
T=200 gemm_old_new "f32-guard" 88 f32 --shapes-file results/2026-12-02-h200-session87/f32-check-guard.tsv
grep -E "^==|^exit [^0]|^t\+|^summary" "$L" | head -20
(cd "$OUT" && tar cJf /tmp/s87-f32guard.tar.xz . && find . -type f -delete && mv /tmp/s87-f32guard.tar.xz .)
