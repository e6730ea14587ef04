#!/usr/bin/env bash
# A smaller carry than prepare-gpu-run.sh's (the full one is ~215 MB, over the device tool's 64 MiB,
# which also counts the ~49 MB of tracked files): the suite binary, the named test binaries
# (`scripts/slim-carry.sh gpu fp8`; `kernel-lab-llm:kernels` for another package's test) and the API example, each stripped and xz-compressed into .carry/
# (with the `llm` runner; a 44 MB binary: 2.7 MB, against 7.7 MB gzipped). On the device, unpack first:
#   cd .carry && xz -d -f *.xz && { ls tests/*.xz >/dev/null 2>&1 && xz -d -f tests/*.xz; chmod +x kernel-lab tests/* 2>/dev/null; cd ..; }
set -euo pipefail
cd "$(dirname "$0")/.."
rm -rf .carry && mkdir -p .carry/tests
cargo build --release
cp target/release/kernel-lab .carry/
cp target/release/api-example target/release/llm .carry/
# A name `PACKAGE:TEST` takes the test from that package (`kernel-lab-llm:kernels` lands as tests/kernel-lab-llm-kernels).
for t in "$@"; do
  case "$t" in
    *:*) exe=$(scripts/test-exe.sh "${t%%:*}" "${t#*:}"); cp "$exe" ".carry/tests/${t%%:*}-${t#*:}" ;;
    *) exe=$(scripts/test-exe.sh "" "$t"); cp "$exe" ".carry/tests/$t" ;;
  esac
done
command -v strip >/dev/null && strip .carry/kernel-lab .carry/api-example .carry/llm .carry/tests/* 2>/dev/null || true
git rev-parse --short=12 HEAD > .carry/COMMIT
git status --porcelain | grep -q . && echo "dirty" >> .carry/COMMIT || true
xz -9 -T2 .carry/kernel-lab .carry/api-example .carry/llm
[ -n "$(ls .carry/tests)" ] && xz -9 -T2 .carry/tests/*
du -sh .carry
