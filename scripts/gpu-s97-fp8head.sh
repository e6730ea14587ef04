#!/usr/bin/env bash
# Session 97 (issue 52), two H200s: the FP8 LM head split over the ranks by vocabulary (the default now)
# against the whole head on rank 0 (KERNEL_LAB_SPLIT_HEAD=0), FP8 TP = 2 at batch 1 and 32, FP8 TP = 1 and
# bf16 TP = 1 / 2 beside; Llama-3-8B shape, synthetic weights, 512-token prompt, 64 steps, the graph replayed
# 100 times; 3 processes, variants interleaved. Then the split head's logits against TP = 1 (FP8 and bf16).
# Carry: .carry/llm (xz) and .carry/COMMIT.
set -uo pipefail
. scripts/tp-setup.sh "tp-s97.txt"
T=200 run $C/llm $R --fp8 --tp 2 --max-new 8
for i in 1 2 3; do
  T=120 run env KERNEL_LAB_LLM_REPLAY=100 $C/llm $R --fp8 --tp 1 --json "$D/fp8-tp1-$i.json"
  T=120 run env KERNEL_LAB_LLM_REPLAY=100 KERNEL_LAB_SPLIT_HEAD=0 $C/llm $R --fp8 --tp 2 --json "$D/fp8-tp2-whole-$i.json"
  T=120 run env KERNEL_LAB_LLM_REPLAY=100 $C/llm $R --fp8 --tp 2 --json "$D/fp8-tp2-split-$i.json"
  T=120 run env KERNEL_LAB_LLM_REPLAY=100 $C/llm $R --tp 1 --json "$D/bf16-tp1-$i.json"
  T=120 run env KERNEL_LAB_LLM_REPLAY=100 $C/llm $R --tp 2 --json "$D/bf16-tp2-$i.json"
  stamp "process $i"
done
R32="${R/--batch 1/--batch 32}"
for i in 1 2 3; do
  T=120 run env KERNEL_LAB_LLM_REPLAY=100 KERNEL_LAB_SPLIT_HEAD=0 $C/llm $R32 --fp8 --tp 2 --json "$D/b32-fp8-tp2-whole-$i.json"
  T=120 run env KERNEL_LAB_LLM_REPLAY=100 $C/llm $R32 --fp8 --tp 2 --json "$D/b32-fp8-tp2-split-$i.json"
  stamp "batch 32 process $i"
done
Q="--model $M --synthetic-weights --prompt-len 200 --max-new 32 --ignore-eos"
for f in fp8 bf16; do
  x=""; [ $f = fp8 ] && x="--fp8"
  for t in 1 2; do T=150 run $C/llm $Q $x --tp $t --logits-out "$D/logits-$f-tp$t.f32" --json "$D/lg-$f-tp$t.json"; done
  run python3 scripts/compare-logits.py "$D/logits-$f-tp1.f32" "$D/logits-$f-tp2.f32" --vocab 128256 --tol 0.2 --tokens "$D/lg-$f-tp1.json" "$D/lg-$f-tp2.json"
  rm -f "$D"/logits-$f-*.f32
done
python3 scripts/tp-table.py "$D" fp8-tp2-whole | tee -a "$L"
cp "$L" "$D/"; (cd "$OUT" && tar cJf tp-s97.tar.xz tp && rm -rf tp)
grep -E "^==|^exit|decode [0-9.]+ ms|replayed|rel|argmax|panicked|error|Error|^t\+" "$L" | grep -v "^== .*llm" | head -120
