#!/usr/bin/env bash
# Ran at commit 8676d09 (its d2s6/d2s10 steps and KERNEL_LAB_AR_RELEASE were removed by 442cd90: check that commit out to rerun).
# Session 95 (issue 52), TP = 2 batch-1 decode of the Llama-3-8B shape (synthetic weights, 512-token prompt,
# 64 steps, the graph replayed 100 times): TP = 1; TP = 2 with the fused all-reduce releasing the next grid
# after its barrier (the old order, KERNEL_LAB_AR_RELEASE=barrier) and right after its wait (the new default);
# TP = 2 with every all-reduce left out (KERNEL_LAB_LLM_ABLATE=comm: what communication costs); and the
# projections after an all-reduce (QKV 1x3072x4096, gate/up 1x14336x4096) on d2's deeper rings (6, 10 stages), and
# d2's grids at two blocks an SM (KERNEL_LAB_DECODE_BLOCKS_PER_SM=2: more weight stages before the wait). The deep
# rings' --check first.
# 3 processes, the variants interleaved. Then the all-reduce tests. Carry: scripts/slim-carry.sh allreduce.
set -uo pipefail
. scripts/tp-setup.sh "tp-s95.txt"
for s in d2s6-bf16 d2s10-bf16; do T=200 run $C/kernel-lab --family gemm --config $s --dtype bf16 --check --gemm-sizes 1x3072x4096,1x14336x4096,3x4096x7168,16x1000x4104; done
T=200 run $C/llm $R --tp 2 --max-new 8
deep() { echo "1x3072x4096=d2s$1-bf16;1x14336x4096=d2s$1-bf16"; }
for i in 1 2 3; do
  T=120 run env KERNEL_LAB_LLM_REPLAY=100 $C/llm $R --tp 1 --json "$D/tp1-$i.json"
  T=120 run env KERNEL_LAB_LLM_REPLAY=100 KERNEL_LAB_AR_RELEASE=barrier $C/llm $R --tp 2 --json "$D/tp2-barrier-$i.json"
  T=120 run env KERNEL_LAB_LLM_REPLAY=100 $C/llm $R --tp 2 --json "$D/tp2-early-$i.json"
  T=120 run env KERNEL_LAB_LLM_REPLAY=100 KERNEL_LAB_LLM_ABLATE=comm $C/llm $R --tp 2 --json "$D/tp2-nocomm-$i.json"
  T=120 run env KERNEL_LAB_LLM_REPLAY=100 KERNEL_LAB_LLM_GEMM_STEP="$(deep 6)" $C/llm $R --tp 2 --json "$D/tp2-s6-$i.json"
  T=120 run env KERNEL_LAB_LLM_REPLAY=100 KERNEL_LAB_LLM_GEMM_STEP="$(deep 10)" $C/llm $R --tp 2 --json "$D/tp2-s10-$i.json"
  T=120 run env KERNEL_LAB_LLM_REPLAY=100 KERNEL_LAB_DECODE_BLOCKS_PER_SM=2 $C/llm $R --tp 2 --json "$D/tp2-bpsm2-$i.json"
  stamp "process $i"
done
T=120 run $C/llm $R --tp 2 --max-new 16 --profile --json "$D/prof-tp2.json"
# FP8 weights split over the two GPUs (new): its tokens and step beside the one-GPU FP8 runner's.
for i in 1 2; do
  T=150 run env KERNEL_LAB_LLM_REPLAY=100 $C/llm $R --fp8 --tp 1 --json "$D/fp8-tp1-$i.json"
  T=150 run env KERNEL_LAB_LLM_REPLAY=100 $C/llm $R --fp8 --tp 2 --json "$D/fp8-tp2-$i.json"
done
# Logits of a 200-token prompt, TP = 2 against TP = 1: bf16 (the split's own bf16 noise) and FP8.
Q="--model $M --synthetic-weights --prompt-len 200 --max-new 32 --ignore-eos"
for f in bf16 fp8; do
  x=""; [ $f = fp8 ] && x="--fp8"
  for t in 1 2; do T=150 run $C/llm $Q $x --tp $t --logits-out "$D/logits-$f-tp$t.f32" --json "$D/lg-$f-tp$t.json"; done
  run python3 scripts/compare-logits.py "$D/logits-$f-tp1.f32" "$D/logits-$f-tp2.f32" --vocab 128256 --tol 0.2 --tokens "$D/lg-$f-tp1.json" "$D/lg-$f-tp2.json"
  sed -n '/compare-logits/,/^exit/p' "$L" | tail -12
  rm -f "$D"/logits-$f-*.f32
done
T=120 run $C/tests/allreduce --test-threads=1
python3 scripts/tp-table.py "$D" tp2-barrier | tee -a "$L"
cp "$L" "$D/"; (cd "$OUT" && tar czf tp-s95.tar.gz tp && rm -rf tp)
grep -E "^==|^exit|decode [0-9.]+ ms|replayed|test result|panicked|error|Error|^t\+" "$L" | grep -v "^== .*llm" | head -150
