#!/usr/bin/env bash
# Session 105 (issue 48, README), call 3: what `cargo run --release` prints (the headline and the ladders'
# main paths, one process) on this build, for the README's headline block; then the GEMM entry against
# cuBLAS in f16 on the whole of session 98's seed-9898 sample (3 processes; bf16 ran in sessions 104-105).
# Carry: scripts/slim-carry.sh
set -uo pipefail
. scripts/device-log.sh s105-headline.txt 300
T=300 run $C/kernel-lab
stamp headline
xz -9 -f "$L"
DTYPE=f16 SAMPLE=results/2026-12-04-h200-session98/sample-200-seed9898.tsv.xz SEED=9898 bash scripts/gpu-sample.sh
