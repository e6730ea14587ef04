#!/usr/bin/env bash
# Prepared in session 83 for the next device session (issue 48): d7's and d11's K split at shallow K. Session 83's
# calibration samples had d7 at 17.0 µs on 64×5632×512 (44 tiles, 3 splits) where 64×16896×512 (132 tiles, no split)
# took 9.4. This times both steps at SPLITS forced split counts (KERNEL_LAB_TMA_SPLITS, the sweep knob) and at the
# rule's own (no knob) on shapes whose tiles leave SMs idle, shallow to deep K, 3 rounds (`--config STEP`, bf16,
# cuBLAS beside each). Predicted: 1 split fastest at K 512 (by ~1.6–1.8×), even at K 2048, the rule's split
# ahead at K ≥ 4096. Output packed into one archive.
set -uo pipefail
. scripts/device-log.sh "d7-splits.txt" 200
S=${SHAPES:-64x5632x512,64x5632x2048,64x5632x4096,64x2176x512,64x2176x2048,64x2176x8192,128x3072x768,256x3072x1024,192x4096x2048,128x1024x4096}
for r in 1 2 3; do
  for st in d7 d11; do
    echo "== set $st rule round $r" | tee -a "$L"
    run $C/kernel-lab --family gemm --config $st-bf16 --dtype bf16 --reps 20 --warmup 3 --gemm-sizes $S --seed 84$r
    for n in ${SPLITS:-1 2 4 8}; do
      echo "== set $st splits $n round $r" | tee -a "$L"
      run env KERNEL_LAB_TMA_SPLITS=$n $C/kernel-lab --family gemm --config $st-bf16 --dtype bf16 --reps 20 --warmup 3 --gemm-sizes $S --seed 84$r
    done
  done
  stamp "round $r"
done
grep -E "^==|^exit|^t\+" "$L" | head -80
(cd "$OUT" && tar cJf /tmp/d7-splits.tar.xz . && find . -type f -delete && mv /tmp/d7-splits.tar.xz .)
