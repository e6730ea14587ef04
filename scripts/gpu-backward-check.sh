#!/usr/bin/env bash
# Issue 50: the default backward plan's gradients at large shapes against torch's fp32 backward (and torch's
# own bf16 cuDNN/flash gradients as the yardstick): `kernel-lab backward --dump` then
# scripts/backward-torch-check.py. DQ=atomic: the atomic-dQ plan's (b4 on Hopper). Carry: .carry/kernel-lab (xz).
# Everything lands in $OUT.
set -uo pipefail
. scripts/device-log.sh "check.txt" 400
D=/tmp/bwd-dump; rm -rf $D
run $C/kernel-lab backward --shapes ${SHAPES:-1x32x8x4096x128,2x16x16x2048x64} --dump $D ${DQ:+--dq $DQ}
run python3 scripts/backward-torch-check.py $D --out "$OUT/torch-check.md"
grep -E "^==|^exit|^\| [0-9]" "$L" | head -60
