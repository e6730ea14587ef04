#!/usr/bin/env bash
# Session 110's device calls (issues 51, 48), `CALL=N scripts/gpu-s110.sh` (results/2026-12-06-h100-session110 names
# each call's commit). Carry (.carry/, stripped and xz'd): kernel-lab and llm of that commit; tests/kernels and
# tests/chunked (llm's GPU tests), tests/fp8 (bench's FP8 tests) where a call runs them.
#   1: llm's GPU tests (session 109's chunked fix had not run on a GPU); the Llama-3-8B-shaped runner at batch 1, FP8
#      and bf16 with the token ring and the plain loop, 5 processes alternating (predicted on an H100: the ring's
#      wall within 0.3% of its GPU time, bf16 / FP8 wall 1.70-1.71x); the FP8 entry on a fresh draw
#      (scripts/fp8-draw-11001.tsv: `shapes.py gemm --sample 40 --seed 11001` and session 106's three H100 shapes under
#      0.85x), 3 processes (predicted: per tensor >= 1.00x cuBLASLt's default mode, at most 2 under 0.85x). ENTRY=0
#      skips the entry.
#   2: the runner over 64 and 512 steps (a cost paid once a run shrinks 8x a step at 512); every per-tensor few-tile
#      FP8 step at 8 shapes (scripts/fp8-fewtile-s110.tsv: call 1's picks under 0.95x and neighbours).
#   3: bench's FP8 calibration GPU test, `kernel-lab calibrate --dtype fp8` x3 (f27n128's own cost, c88fd1c0), every
#      few-tile step at 16 held-out shapes (scripts/fp8-fewtile-hold-11030.tsv). Predicted: its fixed cost 4.5-5.5 us,
#      its K tile 0.25-0.32; with it, the pick within 5% of the fastest at >= 90% of the H100's timed shapes.
#   4: the runner printing each step's wall time (the first, the median): FP8 ring, bf16 ring, FP8 plain loop.
#      Predicted: the first step ~1.2-1.5 ms longer, the others at the graph's time. On an H200 also every few-tile
#      step at calls 2-3's 24 shapes.
#   5: llm's chunked test with one and two steps queued; the runner with one and two (KERNEL_LAB_LLM_AHEAD_DEPTH,
#      6ccf9039). Predicted, if the queue's depth is the cause: two's wall within 5 us of the GPU time.
#   6: the ring querying the stream every 1,024 spins against every 1,048,576 (KERNEL_LAB_LLM_SPIN_QUERY, d5aac6ba).
#      Predicted, if the queries are the cause: the second's wall within 5 us of the GPU time.
set -uo pipefail
CALL=${CALL:-1}
. scripts/device-log.sh s110-$CALL.txt 150
J=/tmp/s110-$CALL; mkdir -p $J
F8="--fp8"; ON=KERNEL_LAB_LLM_PIPELINE=ring; OFF=KERNEL_LAB_LLM_PIPELINE=0
h200_fewtile() {
  if nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200; then
    cat scripts/fp8-fewtile-s110.tsv scripts/fp8-fewtile-hold-11030.tsv > /tmp/fewtile24.tsv
    fp8_steps $J fewtile-h200 /tmp/fewtile24.tsv $1 $2 1
  fi
}
case $CALL in
1)
  T=120 run $C/tests/kernels --test-threads 1
  T=300 run $C/tests/chunked --test-threads 1
  runner_rounds $J 5 "np|$OFF|$F8" "ring|$ON|$F8" "bf16np|$OFF|" "bf16ring|$ON|"
  python3 scripts/w8-runner-medians.py $J ring np bf16ring | tee -a "$L"
  python3 scripts/w8-runner-medians.py $J np bf16np | tee -a "$L"
  for i in $([ "${ENTRY:-1}" = 1 ] && echo 1 2 3); do
    run $C/kernel-lab --family fp8 --entry --shapes-file scripts/fp8-draw-11001.tsv --reps 6 --warmup 1 --seed 1100$i --json $J/entry-p$i.json --out /tmp/r
    stamp "entry process $i"
  done
  [ "${ENTRY:-1}" = 1 ] && python3 scripts/fp8-entry-medians.py $J/entry-p*.json | tee -a "$L" ;;
2)
  runner_rounds $J 3 "ring64|$ON|$F8" "np64|$OFF|$F8" "bf16ring64|$ON|" "ring512|$ON|$F8 --max-new 512" "np512|$OFF|$F8 --max-new 512" "bf16ring512|$ON|--max-new 512"
  for n in 64 512; do python3 scripts/w8-runner-medians.py $J ring$n np$n bf16ring$n | tee -a "$L"; done
  fp8_steps $J steps scripts/fp8-fewtile-s110.tsv 1102 10 2 ;;
3)
  fp8_calibrations $J
  fp8_steps $J hold scripts/fp8-fewtile-hold-11030.tsv 1103 10 2 ;;
4)
  runner_rounds $J 3 "ring|$ON|$F8" "bf16ring|$ON|" "np|$OFF|$F8"
  grep -E "^decode steps one by one|^prompt" "$L" | tee $J/steps.txt
  h200_fewtile 1104 6 ;;
5)
  T=300 run $C/tests/chunked --test-threads 1
  T=300 run env KERNEL_LAB_LLM_AHEAD_DEPTH=2 $C/tests/chunked --test-threads 1
  runner_rounds $J 3 "d1|KERNEL_LAB_LLM_AHEAD_DEPTH=1|$F8" "bf16d1|KERNEL_LAB_LLM_AHEAD_DEPTH=1|" "d2|KERNEL_LAB_LLM_AHEAD_DEPTH=2|$F8" "bf16d2|KERNEL_LAB_LLM_AHEAD_DEPTH=2|"
  python3 scripts/w8-runner-medians.py $J d2 d1 bf16d1 | tee -a "$L"
  python3 scripts/w8-runner-medians.py $J d2 d1 bf16d2 | tee -a "$L"
  h200_fewtile 1105 4 ;;
6)
  Q=KERNEL_LAB_LLM_SPIN_QUERY
  runner_rounds $J 3 "q1k|$Q=1024|$F8" "q1m|$Q=1048576|$F8" "bf16q1k|$Q=1024|" "bf16q1m|$Q=1048576|"
  python3 scripts/w8-runner-medians.py $J q1m q1k bf16q1k | tee -a "$L"
  python3 scripts/w8-runner-medians.py $J q1m q1k bf16q1m | tee -a "$L" ;;
*) echo "CALL=$CALL: one of 1-6" | tee -a "$L" ;;
esac
tar cJf $OUT/s110-$CALL.tar.xz -C /tmp s110-$CALL
grep -E "^exit [1-9]|panicked" "$L" | head || true
xz -9 -f "$L"
