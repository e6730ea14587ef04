#!/usr/bin/env bash
# Issue 52's TP = 2 figure: the GEMM API's strided-operand test and the all-reduce tests, then the Llama-3-8B
# shape decoded at batch 1 (512-token prompt, 64 steps) and batch 32 (128-token prompts, 32 steps): --tp 1 and
# --tp 2 interleaved, 3 processes each (batch 32 also with the LM head whole, KERNEL_LAB_SPLIT_HEAD=0), and a
# profile of each TP = 2 step. Everything in $OUT/tp-final.tar.gz. Carry: scripts/slim-carry.sh allreduce gpu.
set -uo pipefail
. scripts/nccl-path.sh
. scripts/device-log.sh "tp-final.txt" 300
M=/tmp/llm-check/llama3-8b; D="$OUT/tp"; mkdir -p "$D"
T=200 run $C/tests/gpu the_gemm_api_takes_strided --test-threads=1
T=120 run $C/tests/allreduce --test-threads=1
T=200 run python3 scripts/llm-hf-check.py --make-only --models llama3-8b
for i in 1 2 3; do
  run $C/llm --model $M --prompt-len 512 --max-new 64 --batch 1 --tp 1 --json "$D/b1-tp1-$i.json"
  run $C/llm --model $M --prompt-len 512 --max-new 64 --batch 1 --tp 2 --json "$D/b1-tp2-$i.json"
  run $C/llm --model $M --prompt-len 128 --max-new 32 --batch 32 --tp 1 --json "$D/b32-tp1-$i.json"
  run $C/llm --model $M --prompt-len 128 --max-new 32 --batch 32 --tp 2 --json "$D/b32-tp2-$i.json"
  KERNEL_LAB_SPLIT_HEAD=0 run $C/llm --model $M --prompt-len 128 --max-new 32 --batch 32 --tp 2 --json "$D/b32-tp2-wholehead-$i.json"
done
run $C/llm --model $M --prompt-len 512 --max-new 16 --batch 1 --tp 2 --profile --json "$D/prof-b1-tp2.json"
run $C/llm --model $M --prompt-len 128 --max-new 8 --batch 32 --tp 2 --profile --json "$D/prof-b32-tp2.json"
cp "$L" "$D/"; (cd "$OUT" && tar czf tp-final.tar.gz tp && rm -rf tp)
grep -E "^==|^exit|decode|test result|panicked|error|Error|SKIPPED|^\| (all-reduce|gemm)" "$L" | head -120
