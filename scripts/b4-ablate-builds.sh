#!/usr/bin/env bash
# Builds b4's timing-only ablation binaries (the step's temporary ABLATE switch; see its doc): for each value in
# VARIANTS (default "0 1 2 7 15 31") a kernel-lab binary with `const ABLATE: u32 = N`, into .carry/kl-N
# (stripped, xz-compressed), for scripts/gpu-b4-ablate-s84.sh. Restores the source afterwards. The switch itself is
# commit 8082670 (reverted in 74e3938): run this in a worktree with it cherry-picked.
set -euo pipefail
cd "$(dirname "$0")/.."
F=kernels-gpu/src/attention/steps/v27_backward_wgmma_atomic.rs
cp $F /tmp/v27.orig
trap 'cp /tmp/v27.orig $F' EXIT
mkdir -p .carry
for v in ${VARIANTS:-0 1 2 7 15 31}; do
  sed -i "s/^const ABLATE: u32 = [0-9]*;/const ABLATE: u32 = $v;/" $F
  grep -q "^const ABLATE: u32 = $v;" $F
  cargo build --release -p kernel-lab-bench --bin kernel-lab
  cp target/release/kernel-lab .carry/kl-$v && strip .carry/kl-$v && xz -9 -T2 -f .carry/kl-$v
done
git rev-parse --short=12 HEAD > .carry/COMMIT
du -sh .carry
