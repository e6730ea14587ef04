#!/usr/bin/env bash
# Session 87, issue 50: step b4 at D = 64 with the warpgroup's K and V rows held as register A fragments (Sᵀ and dPᵀ
# read only Q and dO from shared memory). Carry: .carry/kernel-lab and .carry/tests/backward (new), .carry/old/kernel-lab
# (b4 as it was). PARTS: T the backward GPU tests, memcheck / racecheck / synccheck on b4's test, b4's gradients against
# torch's fp32 at large D = 64 shapes; A both builds' b4 (against b3 in the same process), 3 rounds alternating, each
# followed by torch's peer (cuDNN, flash); F (issue 48) every f32 step at the
# f32 entry's lowest shapes of session 86's sample. Everything packed into one $OUT/s87-b4.tar.xz.
set -uo pipefail
. scripts/device-log.sh "s87-b4.txt" 300
PARTS=${PARTS:-TA}
SH=${SHAPES:-2x16x16x4096x64,1x32x8x8192x64,4x16x16x2048x64,2x16x16x4096x128}
if [[ $PARTS == *T* ]]; then
  run $C/tests/backward --test-threads=1
  for tool in memcheck synccheck racecheck; do
    T=400 run compute-sanitizer --tool $tool --error-exitcode 9 $C/tests/backward --test-threads=1 atomic_dq_backward_matches_the_reference
  done
  run $C/kernel-lab backward --steps b4 --shapes 2x16x16x4096x64,1x32x8x2048x64 --dump /tmp/s87-dump
  run python3 scripts/backward-torch-check.py /tmp/s87-dump --out "$OUT/torch-check.md"
  rm -rf /tmp/s87-dump
  stamp tests
fi
if [[ $PARTS == *A* ]]; then
  for i in 1 2 3; do
    for b in old new; do
      bin=$C/kernel-lab; [ $b != new ] && bin=$C/$b/kernel-lab
      echo "== set b4 process $i build $b" | tee -a "$L"
      run $bin backward --steps b4 --shapes $SH --json "$OUT/b4-$b-$i.json"
    done
    run python3 scripts/backward-torch-peer.py --shapes $SH --backends cudnn,flash --out "$OUT/peer-$i.md"
    stamp "round $i"
  done
fi
if [[ $PARTS == *F* ]]; then
  # Issue 48: every f32 step that could take them at the f32 entry's shapes under 0.85x cuBLAS in session 86's sample
  # (and a few neighbours), 3 processes — which step the choice should have given them.
  FS=${FSHAPES:-32x1024x512,32x2048x1024,4x30522x1024,128x768x384,1024x15261x1024,16x128256x2048,256x11008x4096,256x13824x5120,2048x3584x4096,64x1024x512,128x2048x1024,512x3584x4096}
  for i in 1 2 3; do
    echo "== set f32 candidates process $i" | tee -a "$L"
    T=200 run $C/kernel-lab --family sgemm --steps ${FSTEPS:-v11,v15,v19,v20,v21,v22,v23,v24,v31,v33,v34} --gemm-sizes $FS --reps 10 --warmup 2 --seed 87$i --json "$OUT/f32-cand-$i.json" --out /tmp/r
  done
  stamp "f32 candidates"
fi
grep -E "^==|^exit|test result|FAILED|panicked|ERROR SUMMARY|RACECHECK SUMMARY|^\| |^t\+" "$L" | head -150
(cd "$OUT" && tar cJf /tmp/s87-b4.tar.xz . && find . -type f -delete && mv /tmp/s87-b4.tar.xz .)
