#!/usr/bin/env bash
# Session 68 (issue 50): the backward tests (TESTS=1, the carry's tests/backward); kl-<v> builds for v in
# VARIANTS timed against each other in ROUNDS alternating processes on BSHAPES (`kernel-lab backward`, json
# each); NCU=1: ncu details of b1 and torch's FA2 backward kernel at 1×16×16×4096×128.
# Everything lands in $OUT/s68.tar.gz (the device returns at most 8 files). Carry: .carry with kl-*.xz.
set -uo pipefail
. scripts/device-log.sh "s68.txt" 400
t0=$(date +%s); stamp() { echo "t+$(( $(date +%s) - t0 ))s $*" | tee -a "$L"; }
pack() { rm -f "$OUT"/*.ncu-rep; (cd "$OUT" && tar czf /tmp/s68.tar.gz . && rm -rf ./* && mv /tmp/s68.tar.gz .); }
trap pack EXIT
if [ "${TESTS:-0}" = 1 ]; then
  T=200 run $C/tests/backward --test-threads=1; stamp tests
fi
for i in $(seq 1 ${ROUNDS:-3}); do
  for v in ${VARIANTS:-head}; do
    run $C/kl-$v backward --shapes ${BSHAPES:-1x16x16x4096x128} --json "$OUT/$v-$i.json"
  done
  stamp "round $i"
done
if [ "${NCU:-0}" = 1 ]; then
  S="--section SpeedOfLight --section MemoryWorkloadAnalysis --section MemoryWorkloadAnalysis_Tables --section WarpStateStats --section SchedulerStats --section InstructionStats --section LaunchStats --section Occupancy --section ComputeWorkloadAnalysis"
  T=200 run ncu --clock-control none -k regex:attn_bwd_b1_d128 -c 1 $S -o "$OUT/ncu-b1" $C/kl-${NCUV:-head} backward --shapes 1x16x16x4096x128
  T=200 run ncu --clock-control none -k regex:flash_bwd_dq_dk_dv -c 1 $S -o "$OUT/ncu-fa2" python3 scripts/backward-torch-peer.py --shapes 1x16x16x4096x128 --backends flash --reps 3
  for r in b1 fa2; do
    ncu -i "$OUT/ncu-$r.ncu-rep" --page details --print-details all > "$OUT/ncu-$r.txt" 2>&1
  done
  stamp ncu
fi
grep -E "^==|^exit|^t\+|test result|FAILED|panicked| b1 | b4 " "$L" | head -150
