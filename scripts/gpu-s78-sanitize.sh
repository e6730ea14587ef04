#!/usr/bin/env bash
# Session 78, issue 49, call 6: compute-sanitizer racecheck and synccheck of ad5's launches (kernel filter) in the
# decode reference test. Carry: scripts/decode-carry.sh.
set -uo pipefail
. scripts/device-log.sh "s78-sanitize.txt" 250
T=250 run compute-sanitizer --tool racecheck --kernel-name kns=attn_decode5 $C/tests/decode --test-threads=1 decode_matches_the_f64_reference_on_every_layout
T=200 run compute-sanitizer --tool synccheck --kernel-name kns=attn_decode5 $C/tests/decode --test-threads=1 decode_matches_the_f64_reference_on_every_layout
grep -E "^exit|test result|ERROR SUMMARY|RACECHECK SUMMARY|hazard" "$L"
