#!/usr/bin/env bash
# Session 104, calls 5 and 7 (issue 51): the chunked GPU test on Hopper and with sm_90a withheld, then memcheck of
# it — call 5 after call 4's stale page-count line was fixed (as `gpu-s104-check.sh`, log s104-check.txt), call 7
# on the final build (Model::mixed's split by chunk::plan and next_in_order, a mixed step in chunks of 7 with two
# newcomers). LOG names the log (default s104-final.txt).
# Carry: scripts/slim-carry.sh kernel-lab-llm:chunked
set -uo pipefail
. scripts/device-log.sh "${LOG:-s104-final.txt}" 300
run $C/tests/kernel-lab-llm-chunked --nocapture; stamp chunked-test
run env KERNEL_LAB_WITHHOLD=sm_90a $C/tests/kernel-lab-llm-chunked --nocapture; stamp chunked-test-withheld
T=400 run compute-sanitizer --tool memcheck --error-exitcode 9 $C/tests/kernel-lab-llm-chunked; stamp memcheck
grep -E "^exit [1-9]|panicked|ERROR SUMMARY" "$L" | head || true
