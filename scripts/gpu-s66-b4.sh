#!/usr/bin/env bash
# Session 66 (issue 50, b4 with dQ through shared memory and one bulk reduce-add a warpgroup): the backward
# GPU tests; memcheck and synccheck on the atomic-dQ test; b4 against its register-atomics form
# (kernel-lab-a: the ablation call's kl-0, commit 1ec6893 with ABLATE = 0) in REPS alternating processes;
# b4's gradients at large shapes against torch's fp32 backward; torch SDPA's backward after each of our
# processes (PEER=1: cuDNN and flash; NO_A=1 skips kernel-lab-a; TESTS=0 skips the tests; FIRST: the first
# round's number).
# Carry: scripts/backward-carry.sh, plus .carry/kernel-lab-a.xz.
set -uo pipefail
. scripts/device-log.sh "s66-b4.txt" 400
if [ "${TESTS:-1}" = 1 ]; then
  T=200 run $C/tests/backward --test-threads=1
  if ! grep -q "test result: ok" "$L"; then grep -E "^==|^exit|FAILED|panicked" "$L" | head -40; exit 1; fi
fi
if [ "${SAN:-1}" = 1 ]; then
  for tool in ${SANTOOLS:-memcheck synccheck}; do
    T=300 run compute-sanitizer --tool $tool --error-exitcode 9 $C/tests/backward --test-threads=1 ${SANFILTER:-backward_matches_the_f64_reference}
  done
fi
for i in $(seq ${FIRST:-1} $(( ${FIRST:-1} + ${REPS:-3} - 1 ))); do
  [ "${NO_A:-0}" = 1 ] || run $C/kernel-lab-a backward ${SHAPES:+--shapes $SHAPES} --json "$OUT/a-$i.json"
  run $C/kernel-lab backward ${SHAPES:+--shapes $SHAPES} --json "$OUT/b-$i.json"
  if [ "${PEER:-0}" = 1 ]; then
    run python3 scripts/backward-torch-peer.py --shapes 2x16x16x4096x128,1x16x16x8192x128,1x32x8x8192x128,2x16x16x4096x64 --backends cudnn,flash --out "$OUT/peer-$i.md"
  fi
done
if [ "${CHECK:-1}" = 1 ]; then
  D=/tmp/bwd-dump; rm -rf $D
  run $C/kernel-lab backward --shapes 1x32x8x4096x128,2x16x16x2048x64 --dump $D --dq ${CHECKDQ:-fastest}
  run python3 scripts/backward-torch-check.py $D --out "$OUT/torch-check-b4.md"
fi
grep -E "^==|^exit|test result|FAILED|panicked|ERROR SUMMARY|wgmma" "$L" | head -150
