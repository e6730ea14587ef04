#!/usr/bin/env bash
# Needs a carry built by hand: .carry/llm from 3447d7c (the split FP8 head; reverted by 1c798e1), .carry/a/llm from 4aaefe4,
# .carry/old/llm from 8676d09, .carry/new/llm from 6b10103 (each `cargo build --release -p kernel-lab-llm`, stripped, xz).
# Session 95, two H200s: (1) the FP8 LM head split over the two GPUs against the whole head on rank 0
# (KERNEL_LAB_SPLIT_HEAD=0), FP8 TP = 2 batch 1 and TP = 1 beside; (2) which half of call 2's v3 change cost
# time: .carry/old/llm (8676d09), .carry/a/llm (4aaefe4: the epoch before the PDL wait, the one-block end),
# .carry/new/llm (6b10103: also the loads before the barrier), bf16 TP = 2. Llama-3-8B shape, synthetic
# weights, 512-token prompt, 64 steps, graph replayed 100 times; 3 processes, interleaved.
set -uo pipefail
. scripts/tp-setup.sh "tp-s95d.txt"
for b in . a old new; do T=200 run $C/$b/llm $R --tp 2 --max-new 8; done
for i in 1 2 3; do
  T=120 run env KERNEL_LAB_LLM_REPLAY=100 $C/llm $R --fp8 --tp 1 --json "$D/fp8-tp1-$i.json"
  T=120 run env KERNEL_LAB_LLM_REPLAY=100 KERNEL_LAB_SPLIT_HEAD=0 $C/llm $R --fp8 --tp 2 --json "$D/fp8-tp2-whole-$i.json"
  T=120 run env KERNEL_LAB_LLM_REPLAY=100 $C/llm $R --fp8 --tp 2 --json "$D/fp8-tp2-split-$i.json"
  for b in old a new; do T=120 run env KERNEL_LAB_LLM_REPLAY=100 $C/$b/llm $R --tp 2 --json "$D/v3-$b-$i.json"; done
  stamp "process $i"
done
python3 scripts/tp-table.py "$D" | tee -a "$L"
cp "$L" "$D/"; (cd "$OUT" && tar cJf tp-s95d.tar.xz tp && rm -rf tp)
