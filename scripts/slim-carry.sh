#!/usr/bin/env bash
# A smaller carry than prepare-gpu-run.sh's (the full one is ~215 MB, over the device tool's 64 MiB):
# the suite binary, the named test binaries (`scripts/slim-carry.sh gpu fp8`) and the sm_90a PTX, each
# stripped and gzipped into .carry/. On the device, unpack first:
#   cd .carry && gunzip -f *.gz tests/*.gz && chmod +x kernel-lab tests/* && cd ..
set -euo pipefail
cd "$(dirname "$0")/.."
rm -rf .carry && mkdir -p .carry/tests
cargo build --release
cp target/release/kernel-lab .carry/
cp "$(ls -t target/release/build/kernel-lab-*/out/kernels_gpu_sm_90a.ptx | head -1)" .carry/kernels_sm_90a.ptx
for t in "$@"; do
  exe=$(cargo test --release --no-run --test "$t" --message-format=json 2>/dev/null | python3 -c 'import sys, json
for l in sys.stdin:
    m = json.loads(l)
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["profile"]["test"]:
        print(m["executable"])' | tail -1)
  cp "$exe" ".carry/tests/$t"
done
command -v strip >/dev/null && strip .carry/kernel-lab .carry/tests/* 2>/dev/null || true
git rev-parse --short=12 HEAD > .carry/COMMIT
git status --porcelain | grep -q . && echo "dirty" >> .carry/COMMIT || true
gzip -9 .carry/kernel-lab .carry/kernels_sm_90a.ptx
[ -n "$(ls .carry/tests)" ] && gzip -9 .carry/tests/*
du -sh .carry
