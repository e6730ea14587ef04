#!/usr/bin/env bash
# Issue 52, comm step v4 (the fused all-reduce + RMSNorm with LL lines) against v3 in the TP = 2 step: the
# all-reduce tests and the runner's kernel tests (v3 and v4 against the unfused pair, bit for bit), then the
# Llama-3-8B shape at batch 1: TP = 1, TP = 2 with v4 (the default), v3 (KERNEL_LAB_FUSED_NORM=v3) and unfused
# (=0), interleaved, 3 processes each; batch 32 v4 against v3, 2 each; a profile. $OUT/tp-ll.tar.gz.
# Carry: scripts/slim-carry.sh allreduce kernel-lab-llm:kernels.
set -uo pipefail
. scripts/nccl-path.sh
. scripts/device-log.sh "tp-ll.txt" 300
M=/tmp/llm-check/llama3-8b; D="$OUT/ll"; mkdir -p "$D"
T=120 run $C/tests/allreduce --test-threads=1
T=120 run $C/tests/kernel-lab-llm-kernels --test-threads=1
T=200 run python3 scripts/llm-hf-check.py --llm $C/llm --llm-args "--tp 2" --models tiny-llama,tiny-qwen2 --out "$D/hf-check-tp-tiny.md"
grep -qE "test result: FAILED|panicked" "$L" && { cp "$L" "$D/"; (cd "$OUT" && tar czf tp-ll.tar.gz ll); grep -E "^==|^exit|test result|panicked|error" "$L" | head -40; exit 1; }
T=200 run python3 scripts/llm-hf-check.py --make-only --models llama3-8b
for i in 1 2 3; do
  run $C/llm --model $M --prompt-len 512 --max-new 64 --batch 1 --tp 1 --json "$D/b1-tp1-$i.json"
  for v in v4 v3 0; do
    KERNEL_LAB_FUSED_NORM=$v run $C/llm --model $M --prompt-len 512 --max-new 64 --batch 1 --tp 2 --json "$D/b1-tp2-$v-$i.json"
  done
done
for i in 1 2; do
  for v in v4 v3; do
    KERNEL_LAB_FUSED_NORM=$v run $C/llm --model $M --prompt-len 128 --max-new 32 --batch 32 --tp 2 --json "$D/b32-tp2-$v-$i.json"
  done
done
run $C/llm --model $M --prompt-len 512 --max-new 16 --batch 1 --tp 2 --profile --json "$D/prof-b1-tp2-v4.json"
cp "$L" "$D/"; (cd "$OUT" && tar czf tp-ll.tar.gz ll && rm -rf ll)
grep -E "^==|^exit|decode|test result|panicked|error|Error|^\| (all-reduce|model)" "$L" | grep -v "^== .carry/llm" | head -80
