#!/usr/bin/env bash
# Session 77, issue 49: a27 (a26 with its consumer warpgroups taking turns) and the FMA-pipe exponentials
# against a26 in the same process (`kernel-lab prefill --kernel X --base-kernel a26`), 3 processes a
# variant, at D = 64 (bf16; a27 f16 at one shape) and a27 at D = 128; torch SDPA (cuDNN, flash) at the
# same D = 64 shapes sustained after each round; the GPU tests of every named step first; ncu of a27 last.
# Carry: scripts/prefill-carry.sh.
set -uo pipefail
. scripts/device-log.sh "s77-a27.txt" 300
S64=${S64:-2x32x8x4096x64,1x32x8x8192x64,4x28x4x2048x64}
T=300 run $C/tests/prefill --test-threads=1 every_named prefill_matches_the_f64
for i in 1 2 3; do
  for k in attn_a27_d64_bf16 attn_x27p1_d64_bf16 attn_x27pp1_d64_bf16 attn_x27pp2_d64_bf16; do
    run $C/kernel-lab prefill --shapes $S64 --kernel $k --base-kernel attn_a26_d64_bf16 --json "$OUT/$k-$i.json"
  done
  run $C/kernel-lab prefill --shapes 1x32x8x4096x128,1x32x8x8192x128 --kernel attn_x27_d128_bf16 --base-kernel attn_a26_d128_bf16 --json "$OUT/x27-d128-$i.json"
  run $C/kernel-lab prefill --dtype f16 --shapes 2x32x8x4096x64 --kernel attn_a27_d64_f16 --base-kernel attn_a26_d64_f16 --json "$OUT/a27-f16-$i.json"
  run python3 scripts/prefill-torch-peer.py --shapes $S64 --backends cudnn,flash --sustain-ms 1000 --out "$OUT/peer-$i.md"
done
SEC="--section SpeedOfLight --section ComputeWorkloadAnalysis --section WarpStateStats --section InstructionStats --section SchedulerStats"
T=200 run ncu --clock-control none -k regex:attn_a27_d64 -c 1 $SEC -o "$OUT/ncu-a27" $C/kernel-lab prefill --shapes 2x32x8x4096x64 --kernel attn_a27_d64_bf16 --timing burst
T=100 run ncu -i "$OUT/ncu-a27.ncu-rep" --page details --print-details all
rm -f "$OUT/ncu-a27.ncu-rep"
(cd "$OUT" && tar cJf s77-a27-reports.tar.xz *.json *.md 2>/dev/null && rm -f *.json *.md)
grep -E "^==|^exit|test result|FAILED|panicked|^\| " "$L" | grep -v "^| shape\|^|---" | head -150
