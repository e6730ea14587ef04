#!/usr/bin/env bash
# Session 74: `cargo run --release`'s headline and ladders (one process, an empty JIT cache on a fresh machine),
# as the top-level README shows it; the api example (every library entry on its own stream, checked against f64).
# $OUT gets the log (gzipped), the headline block and json.tgz.
set -uo pipefail
. scripts/device-log.sh "s74-headline.txt" 300
J=/tmp/s74h; mkdir -p $J
T=420 run $C/kernel-lab --json $J/headline.json
grep -A9 "== headline" "$L" | tail -9 > "$OUT/headline.txt"
T=120 run $C/api-example
tar czf "$OUT/json.tgz" -C $J .
gzip -9 "$L"
