#!/usr/bin/env bash
# Session 83, issue 50: step b4's dQ staging. Builds in the carry (as call 1 ran them, from f7a54de: each
# accepts `backward --steps`): .carry/kernel-lab (new: two dQ buffers at D = 64, the one buffer's wait after the
# tile's products at D = 128 — that half reverted in 84453a7, so a build of HEAD has the wait before the
# barrier there), .carry/old/kernel-lab (f7a54de with bwd_h4_dq_bufs 1 at every D: b4 as it was),
# .carry/diag/kernel-lab (new with no wait at D = 128 — racy, timing only: the ceiling of moving that wait). PARTS: T the backward GPU tests, the sanitizers on the default plan's (b4's) test and b4's gradients against torch's at two large shapes,
# A the three builds' b4 (against b3 in the same process) over 3 rounds, each round followed by torch's peer;
# C the GEMM cost model's calibration (issue 48: `kernel-lab calibrate`, its constants and samples). The logs and
# outputs are packed into one $OUT/s83.tar.xz at the end (the device returns at most 8 files).
set -uo pipefail
. scripts/device-log.sh "s83-backward.txt" 300
PARTS=${PARTS:-TA}
SH=${SHAPES:-2x16x16x4096x64,1x32x8x8192x64,2x16x16x4096x128,1x32x8x8192x128}
if [[ $PARTS == *T* ]]; then
  run $C/tests/backward --test-threads=1
  for tool in memcheck synccheck racecheck; do
    T=400 run compute-sanitizer --tool $tool --error-exitcode 9 $C/tests/backward --test-threads=1 backward_matches_the_f64_reference
  done
  # At a large shape, the default plan's (b4) gradients against torch's fp32 backward.
  run $C/kernel-lab backward --steps b4 --shapes 2x16x16x4096x64,1x8x8x2048x128 --dump /tmp/s83-dump
  run python3 scripts/backward-torch-check.py /tmp/s83-dump --out "$OUT/torch-check.md"
  rm -rf /tmp/s83-dump
  stamp tests
fi
if [[ $PARTS == *A* ]]; then
  for i in 1 2 3; do
    for b in old new diag; do
      bin=$C/kernel-lab; [ $b != new ] && bin=$C/$b/kernel-lab
      echo "== set b4 process $i build $b" | tee -a "$L"
      run $bin backward --steps b4 --shapes $SH --json "$OUT/b4-$b-$i.json"
    done
    run python3 scripts/backward-torch-peer.py --shapes $SH --backends cudnn,flash --out "$OUT/peer-$i.md"
    stamp "round $i"
  done
fi
if [[ $PARTS == *C* ]]; then
  T=200 run $C/kernel-lab calibrate --out "$OUT/cost-s83.tsv" --samples "$OUT/cal-samples-s83.tsv"
  stamp calibrate
fi
grep -E "^==|^exit|test result|FAILED|panicked|ERROR SUMMARY|RACECHECK SUMMARY|^\| |^t\+" "$L" | head -150
(cd "$OUT" && tar cJf /tmp/s83.tar.xz . && find . -type f -delete && mv /tmp/s83.tar.xz .)
