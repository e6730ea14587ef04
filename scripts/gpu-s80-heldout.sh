#!/usr/bin/env bash
# Session 80, d28 in the entry point (issue 48): the entry against cuBLAS, bf16, before (.carry/old: the
# build of 5c276ec, without d28) and after, 3 processes each alternating, on 30 held-out shapes
# (`shapes.py gemm --tp 4,8` whose pick became d28, drawn with random.seed(8080):
# results/2026-12-02-h200-session80/heldout-tp48-d28.txt) and on the 28 shapes of call 1's sample whose
# pick changed (sample8080-d28-changed.txt); then the Llama-3-8B-shaped runner at batch 1 (synthetic
# weights, 2048-token prompt, 64 steps, the graph replayed 100 times), before and after, 3 processes each.
set -uo pipefail
. scripts/device-log.sh s80-heldout.txt 200
(cd $C/old && xz -d -f *.xz 2>/dev/null; chmod +x * 2>/dev/null)
R=results/2026-12-02-h200-session80
t0=$(date +%s); stamp() { echo "t+$(( $(date +%s) - t0 ))s $*" | tee -a "$L"; }
for set in heldout-tp48-d28 sample8080-d28-changed; do
  S=$(paste -sd, $R/$set.txt)
  for i in 1 2 3; do
    for b in old new; do
      bin=$C/kernel-lab; [ $b = old ] && bin=$C/old/kernel-lab
      echo "== set $set process $i build $b" | tee -a "$L"
      T=150 run $bin --family gemm --dtype bf16 --reps 10 --warmup 2 --gemm-sizes $S --seed 80$i
    done
    stamp "$set $i"
  done
done
if [ -x $C/old/llm ]; then
  M=/tmp/llm-syn; mkdir -p $M; cp scripts/llama3-8b-config.json $M/config.json
  for b in old new; do bin=$C/llm; [ $b = old ] && bin=$C/old/llm; T=150 run $bin --model $M --synthetic-weights --prompt-len 128 --max-new 8 --batch 1; done
  stamp "runner warm"
  for i in 1 2 3; do
    for b in old new; do
      bin=$C/llm; [ $b = old ] && bin=$C/old/llm
      echo "== runner process $i build $b" | tee -a "$L"
      T=120 run env KERNEL_LAB_LLM_REPLAY=100 $bin --model $M --synthetic-weights --prompt-len 2048 --max-new 64 --ignore-eos --batch 1 --json $OUT/llm-$b-$i.json
    done
    stamp "runner $i"
  done
fi
grep -E "^exit [1-9]|panicked" "$L" | head || true
