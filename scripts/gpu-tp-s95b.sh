#!/usr/bin/env bash
# Ran at commit 6b10103 against 8676d09's runner (the steps and knobs it names were removed by 442cd90).
# Session 95 (issue 52), call 2: the fused all-reduce's shorter critical path (epoch read before the PDL wait,
# the first row's partial, residual and weight loaded before the barrier, one block without the count) against
# call 1's build (.carry/old/llm), TP = 2 batch-1 decode of the Llama-3-8B shape (synthetic weights, 512-token
# prompt, 64 steps, the graph replayed 100 times), 3 processes interleaved with TP = 1; and the gate/up
# projection alone on d2's deeper rings (6, 10 stages; QKV stays on its chosen step) with the all-reduce
# releasing the next grid right after its wait (default) and after its barrier. Batch 32 old/new, 2 processes.
# Then the all-reduce tests and the runner's kernel tests. Carry: scripts/slim-carry.sh allreduce kernel-lab-llm:kernels
# plus .carry/old/llm.xz.
set -uo pipefail
. scripts/tp-setup.sh "tp-s95b.txt"
T=200 run $C/llm $R --tp 2 --max-new 8
T=200 run $C/old/llm $R --tp 2 --max-new 8
G="1x14336x4096"
for i in 1 2 3; do
  T=120 run env KERNEL_LAB_LLM_REPLAY=100 $C/llm $R --tp 1 --json "$D/tp1-$i.json"
  T=120 run env KERNEL_LAB_LLM_REPLAY=100 $C/old/llm $R --tp 2 --json "$D/tp2-old-$i.json"
  T=120 run env KERNEL_LAB_LLM_REPLAY=100 $C/llm $R --tp 2 --json "$D/tp2-new-$i.json"
  T=120 run env KERNEL_LAB_LLM_REPLAY=100 KERNEL_LAB_AR_RELEASE=barrier $C/llm $R --tp 2 --json "$D/tp2-new-barrier-$i.json"
  T=120 run env KERNEL_LAB_LLM_REPLAY=100 KERNEL_LAB_LLM_GEMM_STEP="$G=d2s6-bf16" $C/llm $R --tp 2 --json "$D/tp2-gu6-$i.json"
  T=120 run env KERNEL_LAB_LLM_REPLAY=100 KERNEL_LAB_LLM_GEMM_STEP="$G=d2s10-bf16" $C/llm $R --tp 2 --json "$D/tp2-gu10-$i.json"
  T=120 run env KERNEL_LAB_LLM_REPLAY=100 KERNEL_LAB_LLM_GEMM_STEP="$G=d2s10-bf16" KERNEL_LAB_AR_RELEASE=barrier $C/llm $R --tp 2 --json "$D/tp2-gu10-barrier-$i.json"
  stamp "process $i"
done
B32="--model $M --synthetic-weights --prompt-len 128 --max-new 32 --ignore-eos --batch 32"
for i in 1 2; do
  T=120 run env KERNEL_LAB_LLM_REPLAY=50 $C/old/llm $B32 --tp 2 --json "$D/b32-tp2-old-$i.json"
  T=120 run env KERNEL_LAB_LLM_REPLAY=50 $C/llm $B32 --tp 2 --json "$D/b32-tp2-new-$i.json"
done
T=120 run $C/tests/allreduce --test-threads=1
T=200 run $C/tests/kernel-lab-llm-kernels --test-threads=1
python3 scripts/tp-table.py "$D" tp2-old | tee -a "$L"
cp "$L" "$D/"; (cd "$OUT" && tar czf tp-s95b.tar.gz tp && rm -rf tp)
grep -E "test result|panicked|error|Error" "$L" | head -20
