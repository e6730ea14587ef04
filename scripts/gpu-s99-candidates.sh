#!/usr/bin/env bash
# Prepared in session 99 (issue 48; that session was lent no GPU, so not yet run):
#   every candidate (--autotune, bf16, one process) on a corpus draw of 128–512-row shapes
#   (`shapes.py gemm --m 128,192,256,384,512 --tp 1,2,4,8 --sample 20 --seed 9901`: the class
#   where the seed-9898 sample's shapes under 0.90x sit), for `kernel-lab rank --tune-cache`
#   and a refit of the 128–512-row constants (h8x4 at 256x3072x8192 predicted 27.9 us, measured
#   33-37). The cache comes back as $OUT/tune-9901.json.
# The rest of session 98's seed-9898 draw (it ran lines 1-100 in bf16): `scripts/gpu-sample.sh` with
# SAMPLE=results/2026-12-04-h200-session98/sample-200-seed9898.tsv.xz SEED=9898 FROM=101 (DTYPE=bf16, then f16).
# Carry: scripts/slim-carry.sh (the suite binary).
set -uo pipefail
. scripts/device-log.sh s99-candidates.txt 600
SHAPES=128x1536x4096,128x32064x3072,128x3840x5120,192x1152x3072,192x2304x3072,192x3072x2048,192x3072x3072,192x4096x1024,256x16384x3072,256x2048x2048,256x2048x512,256x4096x1792,384x3584x2048,384x3584x3584,384x4096x7168,384x768x96,512x1024x3584,512x128256x3072,512x7168x4096,512x768x192
T=500 run $C/kernel-lab --family gemm --dtype bf16 --gemm-sizes $SHAPES,256x3072x8192,512x3072x4096 --autotune --tune-cache $OUT/tune-9901.json
stamp candidates
grep -E "^exit [1-9]|panicked" "$L" | head || true
xz -9 -f "$L"

