#!/usr/bin/env bash
# Session 73: the final commit's fp8 GPU tests (every step on ragged shapes, the weight-only routes with fwb, the
# entry point with the block choice, autotune) and the api example. $OUT gets the log.
set -uo pipefail
. scripts/device-log.sh "s73-final.txt" 300
run $C/tests/fp8 --test-threads=1
T=120 run $C/api-example
