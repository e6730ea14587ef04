#!/usr/bin/env bash
# Session 72 (issue 48): where the FP8 kernels' fixed cost goes (f14 ≈ 6.1 µs + 0.56 µs a K tile of one CTA, call 1).
# `ncu --clock-control none` with the launch, occupancy, speed-of-light, scheduler and warp-state sections of f14
# and cuBLASLt's kernel at 128x1024x1024 (two launches each); then the event-timed floor: f1, f12, f14 at one tile
# with 1 and 8 K tiles, and HGEMM h6 / h5 at one tile with 1 and 16 K tiles (same bytes a stage), one process.
set -uo pipefail
. scripts/device-log.sh "s72-floor.txt" 300
S=LaunchStats,Occupancy,SpeedOfLight,SchedulerStats,WarpStateStats,MemoryWorkloadAnalysis
T=200 run ncu --clock-control none --section ${S//,/ --section } -k 'regex:fp8_gemm_v14|nvjet' --launch-skip 4 --launch-count 4 \
  $C/kernel-lab --family fp8 --steps fp8:f14 --gemm-sizes 128x1024x1024 --reps 5 --warmup 2
T=200 run $C/kernel-lab --family fp8 --steps fp8:f1,fp8:f12,fp8:f14,fp8:f21x2 --gemm-sizes 128x256x128,128x256x1024,128x256x4096
T=200 run $C/kernel-lab --family hgemm --steps hgemm:h5,hgemm:h6 --gemm-sizes 128x256x64,128x256x1024,128x256x4096
