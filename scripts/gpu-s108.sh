#!/usr/bin/env bash
# Session 108's device plan (issues 51, 48). Carry: scripts/slim-carry.sh fp8 fp8_weights kernel-lab-llm:kernels
#   CALL=splits: (1) the Llama-3-8B-shaped runner at batch 1 (FP8 weights, w5) with w1_splits' rule against every
#     weight-only launch unsplit (KERNEL_LAB_W1_SPLITS=1), 3 processes alternating: session 107's sweep had fw2
#     unsplit fastest at 10 of 12 few-row shapes on an H100 (the rule 1.00-1.20x slower), and the runner splits its
#     O and down projections (128 tiles) two ways. Predicted: the step 20-50 us faster unsplit (2 launches a layer,
#     0.3-0.8 us each). (2) fw2 at 24 fresh decode shapes of the corpus (n/32 under two blocks an SM) by the rule and
#     forced 1, 2, 4 splits, 3 processes: the data a split model (per-block streaming rate, the fix-up's cost) is
#     fitted to, and checked against.
#   CALL=check: the build with w1_splits' model (a block's stream, the DRAM's, the split's fix-up) and f27n128 in
#     the few-tile choice (.carry/) against session 107's (.carry/old/), 3 processes alternating: the runner at batch
#     1 (FP8, w5) and bf16; the FP8 entry (`--entry`) at the 22 shapes of a fresh 548-shape corpus sample (seed 10808)
#     whose per-tensor pick changed (f21x2 / f22 / f27n192 -> f27n128); and at 12 of its 45 decode shapes whose split
#     changed, none of them in the fit. Predicted: the runner 0.994x (as KERNEL_LAB_W1_SPLITS=1 measured), the
#     few-tile picks 1.05-1.15x faster, the decode shapes 1.05-1.15x faster where the rule split 2 ways.
#     Carry: target/release/{kernel-lab,llm} and session 107's, stripped and xz'd into .carry/ and .carry/old/.
#     Not run in session 108 (its device budget ran out on refused starts): the next session's first call. Build the
#     new pair from HEAD and the old from 2c322811 (`git worktree add /tmp/old 2c322811 && cd /tmp/old && cargo build
#     --release`; its defaults are session 107's: the rule's splits, f27n128 unchosen), strip, xz, then
#     `CALL=check bash scripts/gpu-s108.sh` (~4 min at REPS=10; REPS=6 WARM=1 ~3 min).
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
if [ "${CALL:-splits}" = check ]; then
  (cd $C/old && xz -d -f *.xz; chmod +x *)
  M=/tmp/llm-syn; mkdir -p $M; cp scripts/llama3-8b-config.json $M/config.json
  J=/tmp/check; mkdir -p $J
  for b in old new; do bin=$C/llm; [ $b = old ] && bin=$C/old/llm; T=150 run $bin --model $M --synthetic-weights --fp8 --prompt-len 128 --max-new 8 --batch 1; done
  for i in 1 2 3; do
    for b in old new; do
      bin=$C/llm; [ $b = old ] && bin=$C/old/llm
      run env KERNEL_LAB_LLM_REPLAY=100 $bin --model $M --synthetic-weights --fp8 --prompt-len 2048 --max-new 64 --batch 1 --ignore-eos --json $J/$b-$i.json
    done
    run env KERNEL_LAB_LLM_REPLAY=100 $C/llm --model $M --synthetic-weights --prompt-len 2048 --max-new 64 --batch 1 --ignore-eos --json $J/bf16-$i.json
    stamp "runner round $i"
  done
  python3 scripts/w8-runner-medians.py $J new old bf16 | tee -a "$L"
  tar cJf $OUT/s108-check.tar.xz -C /tmp check
  F=128x11008x4096,128x12288x4096,128x14336x3584,128x14336x4096,256x5120x2560,256x5120x8192,256x6144x4096,256x8192x3584,256x8192x8192,256x8192x14336,512x3072x3072,512x3072x4096,512x3072x8192,512x4096x2048,512x4096x4096,512x4096x7168,512x4096x14336,1024x1536x2048,1024x2048x1024,1024x2048x4096,2048x768x1536,2048x768x3072
  D=16x1024x2048,16x3072x4096,16x4096x4096,1x3072x3072,1x3584x4096,2x2048x4096,2x3584x2048,2x4096x4096,4x3584x2048,8x2560x3072,8x4096x14336,8x4096x7168
  for i in 1 2 3; do
    for b in old new; do
      bin=$C/kernel-lab; [ $b = old ] && bin=$C/old/kernel-lab
      echo "== set entry process $i build $b" | tee -a "$L"
      run $bin --family fp8 --entry --gemm-sizes $F,$D --reps ${REPS:-10} --warmup ${WARM:-2} --seed 1088$i --json $J/entry-$b-p$i.json --out /tmp/r
    done
    stamp "entry process $i"
    tar cJf $OUT/s108-check.tar.xz -C /tmp check
  done
  tar cJf $OUT/s108-check.tar.xz -C /tmp check
fi
grep -E "^exit [1-9]|panicked" "$L" | head || true
xz -9 -f "$L"
