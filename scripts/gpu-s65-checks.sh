#!/usr/bin/env bash
# Session 65 (issue 50, b4): compute-sanitizer memcheck, racecheck and synccheck on the atomic-dQ test (b4 on
# Hopper); b4's gradients at large shapes against torch's fp32 backward (scripts/gpu-backward-check.sh with
# DQ=atomic); torch SDPA's backward on the default shapes twice more (peer-2, peer-3; call 1 ran peer-1).
# Carry: scripts/backward-carry.sh. Everything lands in $OUT.
set -uo pipefail
. scripts/device-log.sh "s65-checks.txt" 500
for tool in memcheck racecheck synccheck; do
  T=300 run compute-sanitizer --tool $tool --error-exitcode 9 $C/tests/backward --test-threads=1 wgmma_atomic_dq
done
D=/tmp/bwd-dump; rm -rf $D
run $C/kernel-lab backward --shapes 1x32x8x4096x128,2x16x16x2048x64 --dump $D --dq atomic
run python3 scripts/backward-torch-check.py $D --out "$OUT/torch-check-b4.md"
for i in 2 3; do
  run python3 scripts/backward-torch-peer.py --shapes 2x16x16x4096x128,1x16x16x8192x128,1x32x8x8192x128,2x16x16x4096x64 --out "$OUT/peer-$i.md"
done
grep -E "^==|^exit|test result|FAILED|panicked|ERROR SUMMARY|RACECHECK SUMMARY|^\| " "$L" | head -120
