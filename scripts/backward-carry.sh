#!/usr/bin/env bash
# The carry for scripts/gpu-backward.sh: the suite binary and the backward GPU test binary (CARRY_TESTS: other test names),
# stripped and xz-compressed into .carry/.
set -euo pipefail
cd "$(dirname "$0")/.."
rm -rf .carry && mkdir -p .carry/tests
cargo build --release -p kernel-lab-bench --bins
cp target/release/kernel-lab .carry/
for t in ${CARRY_TESTS:-backward}; do cp "$(scripts/test-exe.sh kernel-lab-bench $t)" .carry/tests/$t; done
strip .carry/kernel-lab .carry/tests/* 2>/dev/null || true
{ git rev-parse --short=12 HEAD; git status --porcelain | grep -q . && echo dirty; } > .carry/COMMIT || true
xz -9 -T2 .carry/kernel-lab .carry/tests/*
du -sh .carry
