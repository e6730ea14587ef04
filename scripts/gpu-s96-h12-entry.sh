#!/usr/bin/env bash
# Session 96, step h12 (issue 48), call 2: the GEMM entry before h12 (.carry/old/kernel-lab, 6dedff1) and with it
# (.carry/kernel-lab) on every shape whose pick h12 changes — the 22 of the corpus (`shapes.py gemm --tp 1,2,4,8
# --m 1…8192`) and 21 of 2,778 off-corpus shapes (`offcorpus-shapes.py --n 3000 --seed 96`) — bf16, 3 processes
# alternating. SHAPES=h12-changed-shapes-2.txt (call 3): the shapes the final rule changes (h12 giving way to the transposed
# tiles where their rounds cost less, at N ≥ 512; a 10% margin at ≤ 512 rows); h12-changed-shapes-3.txt (call 4):
# every shape whose pick the final build changes (d22 also at odd tile-row counts where its clusters take no more rounds).
set -uo pipefail
. scripts/device-log.sh s96-h12-entry-${SHAPES:-1}.txt 300
S=$(paste -sd, results/2026-12-04-h200-session96/${SHAPES:-h12-changed-shapes.txt})
T=150 gemm_old_new h12 962 bf16 --gemm-sizes $S
grep -E "^exit [1-9]|panicked" "$L" | head || true
xz -9 -f "$L"
