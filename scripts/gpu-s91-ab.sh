#!/usr/bin/env bash
# Session 91 (issue 50): a b5 change A/B'd — .carry/old/kernel-lab (the form before) and .carry/kernel-lab,
# `kernel-lab backward --steps b5` (b5 interleaved with b1 in each process), 3 processes each alternating;
# first the backward GPU tests on the new build (memcheck of b5's test), then (NCU=1) ncu of the new b5 and
# of torch's FlashAttention-2 backward kernel at 1x16x16x4096x128 (NCU_SHAPE).
set -uo pipefail
. scripts/device-log.sh "s91-ab.txt" 300
[ "${TESTS:-1}" = 1 ] && run $C/tests/backward --test-threads=1
[ "${SANITIZE:-1}" = 1 ] && T=300 run compute-sanitizer --tool memcheck --error-exitcode 9 $C/tests/backward --test-threads=1 fa2_warps
stamp "tests"
for i in $(seq 1 ${REPS:-3}); do
  for b in old new; do
    bin=$C/kernel-lab; [ $b = old ] && bin=$C/old/kernel-lab
    echo "== ab process $i build $b" | tee -a "$L"
    run $bin backward --steps ${STEPS:-b5} ${SHAPES:+--shapes $SHAPES} --json "$OUT/ab-$b-$i.json"
  done
  stamp "process $i"
done
if [ "${NCU:-1}" = 1 ]; then
  S=${NCU_SHAPE:-1x16x16x4096x128}
  SECS="--section SpeedOfLight --section InstructionStats --section MemoryWorkloadAnalysis_Tables --section WarpStateStats --section SchedulerStats --section ComputeWorkloadAnalysis --section LaunchStats --section Occupancy"
  T=300 run ncu --clock-control none -k regex:'attn_bwd_b5_d' -c 1 $SECS -o "$OUT/ncu-b5" $C/kernel-lab backward --steps b5 --shapes $S
  T=300 run ncu --clock-control none -k regex:'flash_bwd_dq_dk_dv' -c 1 $SECS -o "$OUT/ncu-fa2" python3 scripts/backward-torch-peer.py --backends flash --shapes $S --reps 1
  for r in b5 fa2; do T=60 run ncu -i "$OUT/ncu-$r.ncu-rep" --page details > "$OUT/ncu-$r.txt" 2>&1; done
fi
grep -E "^==|^exit|test result|FAILED|panicked|ERROR SUMMARY|^\| .*b5|SKIPPED|t\+" "$L" | head -150
