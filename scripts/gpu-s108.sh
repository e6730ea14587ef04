#!/usr/bin/env bash
# Session 108's device plan (issues 51, 48). Carry: scripts/slim-carry.sh fp8 fp8_weights kernel-lab-llm:kernels
#   CALL=splits: (1) the Llama-3-8B-shaped runner at batch 1 (FP8 weights, w5) with w1_splits' rule against every
#     weight-only launch unsplit (KERNEL_LAB_W1_SPLITS=1), 3 processes alternating: session 107's sweep had fw2
#     unsplit fastest at 10 of 12 few-row shapes on an H100 (the rule 1.00-1.20x slower), and the runner splits its
#     O and down projections (128 tiles) two ways. Predicted: the step 20-50 us faster unsplit (2 launches a layer,
#     0.3-0.8 us each). (2) fw2 at 24 fresh decode shapes of the corpus (n/32 under two blocks an SM) by the rule and
#     forced 1, 2, 4 splits, 3 processes: the data a split model (per-block streaming rate, the fix-up's cost) is
#     fitted to, and checked against.
#   CALL=check (the held-out check of the split model and f27n128 in the few-tile choice) moved to
#     scripts/gpu-s109.sh, which runs it with session 109's runner A/B: its text is in git at 0b47a7c5.
set -uo pipefail
. scripts/device-log.sh s108-${CALL:-splits}.txt 150
if [ "${CALL:-splits}" = splits ]; then
  M=/tmp/llm-syn; mkdir -p $M; cp scripts/llama3-8b-config.json $M/config.json
  J=/tmp/runner; mkdir -p $J
  T=150 run $C/llm --model $M --synthetic-weights --fp8 --prompt-len 128 --max-new 8 --batch 1
  for i in 1 2 3; do
    for v in w5 split1; do
      run env KERNEL_LAB_LLM_REPLAY=100 $([ $v = split1 ] && echo KERNEL_LAB_W1_SPLITS=1) $C/llm --model $M --synthetic-weights --fp8 --prompt-len 2048 --max-new 64 --batch 1 --ignore-eos --json $J/$v-$i.json
    done
    run env KERNEL_LAB_LLM_REPLAY=100 $C/llm --model $M --synthetic-weights --prompt-len 2048 --max-new 64 --batch 1 --ignore-eos --json $J/bf16-$i.json
    stamp "runner round $i"
  done
  python3 scripts/w8-runner-medians.py $J split1 w5 bf16 | tee -a "$L"
  S=16x8192x28672,4x1024x1024,8x1152x768,16x8192x3584,4x8192x8192,8x3072x2048,1x1024x2048,4x1536x2048,8x2048x8192,1x1024x512,4x1536x1024,8x3584x2048,1x2048x1024,4x2560x3072,8x3072x3072,1x2048x4096,4x2304x768,8x4096x2048,1x3072x1024,4x3072x768,8x3584x4096,1x3072x2048,4x3072x4096,8x5120x13824
  D=/tmp/splits; mkdir -p $D
  for i in 1 2 3; do
    for sp in rule 1 2 4; do
      echo "== set splits $sp process $i" | tee -a "$L"
      run env $([ $sp = rule ] || echo KERNEL_LAB_W1_SPLITS=$sp) $C/kernel-lab --family fp8 --steps fw2 --gemm-sizes $S --reps 10 --warmup 2 --seed 1080$i --json "$D/splits-$sp-p$i.json" --out /tmp/r
    done
    stamp "splits process $i"
  done
  python3 scripts/splits-medians.py $D | tee -a "$L"
  tar cJf $OUT/s108-splits.tar.xz -C /tmp runner splits
fi
grep -E "^exit [1-9]|panicked" "$L" | head || true
xz -9 -f "$L"
