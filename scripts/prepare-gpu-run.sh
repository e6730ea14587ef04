#!/usr/bin/env bash
# Builds everything the GPU machine needs (it has no Rust) into .carry/: the suite binary and the test
# binaries (PTX is embedded in each). Then call the device tool with carry [".carry"] and the command
#   bash scripts/gpu-run.sh
set -euo pipefail
cd "$(dirname "$0")/.."
rm -rf .carry && mkdir -p .carry/tests
cargo build --release
cp target/release/kernel-lab .carry/
cargo build --release --example rmsnorm && cp target/release/examples/rmsnorm .carry/example-rmsnorm
# The sm_90a PTX, so gpu-run.sh can assemble it there and grep the SASS for HGMMA/UTMALDG (issue 6).
cp "$(ls -t target/release/build/kernel-lab-*/out/kernels_gpu_sm_90a.ptx | head -1)" .carry/kernels_sm_90a.ptx
cargo test --release --no-run --message-format=json 2>/dev/null \
  | python3 -c 'import sys, json
for l in sys.stdin:
    m = json.loads(l)
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["profile"]["test"]:
        print(m["executable"])' \
  | while read -r exe; do cp "$exe" ".carry/tests/$(basename "$exe" | sed 's/-[0-9a-f]*$//')"; done
cargo bench --no-run --message-format=json 2>/dev/null \
  | python3 -c 'import sys, json
for l in sys.stdin:
    m = json.loads(l)
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["target"]["kind"] == ["bench"]:
        print(m["executable"])' | while read -r exe; do cp "$exe" ".carry/bench-$(basename "$exe" | sed 's/-[0-9a-f]*$//')"; done
# Symbols are not needed there; stripping keeps the carry (with the tracked tree) under the device
# tool's 64 MiB.
command -v strip >/dev/null && find .carry -type f -perm -u+x -exec strip {} + 2>/dev/null || true
git rev-parse --short=12 HEAD > .carry/COMMIT
git status --porcelain | grep -q . && echo "dirty" >> .carry/COMMIT || true
du -sh .carry; ls .carry .carry/tests
