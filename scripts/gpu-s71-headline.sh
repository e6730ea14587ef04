#!/usr/bin/env bash
# Session 71: what `cargo run --release` prints on an H200 now (the headline and the ladders' main path), for
# the top-level README; the full output and its JSON.
set -uo pipefail
. scripts/device-log.sh "s71-headline.txt" 560
T=560 run $C/kernel-lab --json $OUT/headline.json
grep -A12 "== headline" "$L"
