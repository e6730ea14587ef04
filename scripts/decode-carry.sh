#!/usr/bin/env bash
# The carry for scripts/gpu-decode.sh: the suite binary, the decode GPU test binary and the rmsnorm and
# softmax examples, stripped and xz-compressed into .carry/.
set -euo pipefail
cd "$(dirname "$0")/.."
rm -rf .carry && mkdir -p .carry/tests
cargo build --release -p kernel-lab-bench -p rmsnorm-example --bins --examples
cp target/release/kernel-lab target/release/examples/{rmsnorm,softmax} .carry/
exe=$(scripts/test-exe.sh kernel-lab-bench decode)
cp "$exe" .carry/tests/decode
strip .carry/kernel-lab .carry/rmsnorm .carry/softmax .carry/tests/* 2>/dev/null || true
{ git rev-parse --short=12 HEAD; git status --porcelain | grep -q . && echo dirty; } > .carry/COMMIT || true
xz -9 -T2 .carry/kernel-lab .carry/rmsnorm .carry/softmax .carry/tests/*
du -sh .carry
