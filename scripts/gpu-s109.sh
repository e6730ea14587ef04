#!/usr/bin/env bash
# Session 109's device call (issues 51, 48), run at 0b8d5389 on an H200 (results/2026-12-06-h200-session109; the copy
# form was removed after it, so KERNEL_LAB_LLM_PIPELINE=copy now runs the default). Carry (.carry/, stripped and xz'd): kernel-lab and llm built from this
# commit, tests/chunked (llm's GPU test of chunked prefill and of `Model::decode_steps`) and tests/kernels (the runner's
# kernels: the argmax posting tokens into mapped host memory); .carry/old/: kernel-lab and
# llm built from 2c322811 (session 107's choices: w1_splits' old rule, f27n128 unchosen).
#   (0) llm's kernel test; its chunked test (decode_steps' run-ahead against the plain loop, stop and take-back, with
#       the tokens from the argmax's ring and copied).
#   (1) The Llama-3-8B-shaped runner at batch 1 (synthetic weights, 2048-token prompt, 64 steps, the graph replayed
#       100 times), 3 processes of each alternating: old (FP8), np (FP8, this build, KERNEL_LAB_LLM_PIPELINE=0: the
#       plain loop), copy (FP8, run ahead, each step's tokens copied to pinned memory: session 71's form), new (FP8, run
#       ahead, the tokens read from the ring the argmax writes in mapped host memory: no copy on the stream), bf16np,
#       bf16 (the ring). Predicted: np / old GPU 0.994x on an H100 (the
#       split model leaves every projection unsplit there, as KERNEL_LAB_W1_SPLITS=1 measured in session 108; on an
#       H200 it unsplits only O: ~0.997x); new's wall within 0.3% of its GPU time (np's 38-52 us a step over it),
#       bf16 / FP8 wall >= 1.70x on an H100. (Session 71 measured the same run-ahead 1.009x slower on an H200 whose host
#       share was 24 us: the copy between two graphs cost more than the wait it removed. Here again, on this card.)
#   (2) session 108's CALL=check entry half: the FP8 `--entry` at the 22 few-tile shapes whose pick changed to
#       f27n128 and 12 decode shapes whose split changed, old against new, 3 processes alternating. Predicted:
#       the few-tile picks 1.05-1.15x faster, the decode shapes 1.05-1.15x where the old rule split 2 ways. ENTRY=0
#       skips (2).
set -uo pipefail
. scripts/device-log.sh s109.txt 150
(cd $C/old && xz -d -f *.xz; chmod +x *)
T=120 run $C/tests/kernels --test-threads 1
T=300 run $C/tests/chunked --test-threads 1
M=/tmp/llm-syn; mkdir -p $M; cp scripts/llama3-8b-config.json $M/config.json
J=/tmp/s109; mkdir -p $J
for b in old new; do bin=$C/llm; [ $b = old ] && bin=$C/old/llm; T=150 run $bin --model $M --synthetic-weights --fp8 --prompt-len 128 --max-new 8 --batch 1; done
R="--model $M --synthetic-weights --prompt-len 2048 --max-new 64 --batch 1 --ignore-eos"
for i in 1 2 3; do
  run env KERNEL_LAB_LLM_REPLAY=100 $C/old/llm $R --fp8 --json $J/old-$i.json
  run env KERNEL_LAB_LLM_REPLAY=100 KERNEL_LAB_LLM_PIPELINE=0 $C/llm $R --fp8 --json $J/np-$i.json
  run env KERNEL_LAB_LLM_REPLAY=100 KERNEL_LAB_LLM_PIPELINE=copy $C/llm $R --fp8 --json $J/copy-$i.json
  run env KERNEL_LAB_LLM_REPLAY=100 KERNEL_LAB_LLM_PIPELINE=ring $C/llm $R --fp8 --json $J/new-$i.json
  run env KERNEL_LAB_LLM_REPLAY=100 KERNEL_LAB_LLM_PIPELINE=0 $C/llm $R --json $J/bf16np-$i.json
  run env KERNEL_LAB_LLM_REPLAY=100 KERNEL_LAB_LLM_PIPELINE=ring $C/llm $R --json $J/bf16-$i.json
  stamp "runner round $i"
  tar cJf $OUT/s109.tar.xz -C /tmp s109
done
python3 scripts/w8-runner-medians.py $J np old bf16np | tee -a "$L"
python3 scripts/w8-runner-medians.py $J new np bf16 | tee -a "$L"
python3 scripts/w8-runner-medians.py $J copy np bf16np | tee -a "$L"
F=128x11008x4096,128x12288x4096,128x14336x3584,128x14336x4096,256x5120x2560,256x5120x8192,256x6144x4096,256x8192x3584,256x8192x8192,256x8192x14336,512x3072x3072,512x3072x4096,512x3072x8192,512x4096x2048,512x4096x4096,512x4096x7168,512x4096x14336,1024x1536x2048,1024x2048x1024,1024x2048x4096,2048x768x1536,2048x768x3072
D=16x1024x2048,16x3072x4096,16x4096x4096,1x3072x3072,1x3584x4096,2x2048x4096,2x3584x2048,2x4096x4096,4x3584x2048,8x2560x3072,8x4096x14336,8x4096x7168
for i in $([ "${ENTRY:-1}" = 1 ] && echo 1 2 3); do
  for b in old new; do
    bin=$C/kernel-lab; [ $b = old ] && bin=$C/old/kernel-lab
    echo "== set entry process $i build $b" | tee -a "$L"
    run $bin --family fp8 --entry --gemm-sizes $F,$D --reps ${REPS:-6} --warmup ${WARM:-1} --seed 1098$i --json $J/entry-$b-p$i.json --out /tmp/r
  done
  stamp "entry process $i"
  tar cJf $OUT/s109.tar.xz -C /tmp s109
done
grep -E "^exit [1-9]|panicked" "$L" | head || true
xz -9 -f "$L"
