#!/usr/bin/env bash
# Session 84, one device call for two prepared experiments: b4's ablations (issue 50; scripts/gpu-b4-ablate-s84.sh,
# VARIANTS 0 1 2 7 31, 3 rounds) then d7's / d11's forced split counts (issue 48; scripts/gpu-d7-splits.sh). Carry:
# .carry/kl-N (scripts/b4-ablate-builds.sh) and .carry/kernel-lab.
set -uo pipefail
VARIANTS="0 1 2 7 31" bash scripts/gpu-b4-ablate-s84.sh
bash scripts/gpu-d7-splits.sh
