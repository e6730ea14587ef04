#!/usr/bin/env bash
# The carry for scripts/gpu-authoring.sh: the suite binary, the rmsnorm/softmax/bounds_cost examples and
# the GPU test binaries of the bench and of the cuda_std-names example, stripped and xz-compressed.
set -euo pipefail
cd "$(dirname "$0")/.."
rm -rf .carry && mkdir -p .carry/tests
cargo build --release -p kernel-lab-bench -p rmsnorm-example -p cuda-std-names-example --bins --examples
cp target/release/kernel-lab target/release/examples/{rmsnorm,softmax,bounds_cost} .carry/
for spec in "kernel-lab-bench gpu" "cuda-std-names-example gpu"; do
  set -- $spec
  exe=$(scripts/test-exe.sh "$1" "$2")
  cp "$exe" ".carry/tests/$1-$2"
done
strip .carry/kernel-lab .carry/rmsnorm .carry/softmax .carry/bounds_cost .carry/tests/* 2>/dev/null || true
{ git rev-parse --short=12 HEAD; git status --porcelain | grep -q . && echo dirty; } > .carry/COMMIT || true
xz -9 -T2 .carry/kernel-lab .carry/rmsnorm .carry/softmax .carry/bounds_cost .carry/tests/*
du -sh .carry
