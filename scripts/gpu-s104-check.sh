#!/usr/bin/env bash
# Session 104, call 5 (issue 51): the chunked GPU test after call 4's stale page-count line was fixed (the test
# stopped there, after the mixed-step checks), on Hopper and with sm_90a withheld, then memcheck of it.
# Carry: scripts/slim-carry.sh kernel-lab-llm:chunked
set -uo pipefail
. scripts/device-log.sh "s104-check.txt" 300
run $C/tests/kernel-lab-llm-chunked --nocapture; stamp chunked-test
run env KERNEL_LAB_WITHHOLD=sm_90a $C/tests/kernel-lab-llm-chunked --nocapture; stamp chunked-test-withheld
T=400 run compute-sanitizer --tool memcheck --error-exitcode 9 $C/tests/kernel-lab-llm-chunked; stamp memcheck
grep -E "^exit [1-9]|panicked|ERROR SUMMARY" "$L" | head || true
