#!/usr/bin/env bash
# The carry for scripts/gpu-llm.sh: the `llm` runner, stripped and xz-compressed into .carry/.
set -euo pipefail
cd "$(dirname "$0")/.."
rm -rf .carry && mkdir -p .carry
cargo build --release -p kernel-lab-llm --bins
cp target/release/llm .carry/
strip .carry/llm 2>/dev/null || true
{ git rev-parse --short=12 HEAD; git status --porcelain | grep -q . && echo dirty; } > .carry/COMMIT || true
xz -9 -T2 .carry/llm
du -sh .carry
