#!/usr/bin/env bash
# Session 93, issue 49: the prefill GPU tests on the final build (a28 the library's kernel at D = 256, a29 at 96; the
# named-step test now counting every head dim), memcheck and racecheck on a28's and a29's launches as the library makes
# them, and the attention tests. Carry: scripts/prefill-carry.sh.
set -uo pipefail
. scripts/device-log.sh "s93-verify.txt" 300
stamp start
[ "${TESTS:-1}" = 1 ] && T=300 run $C/tests/prefill --test-threads=1
stamp tests
for tool in memcheck racecheck; do
  T=200 run compute-sanitizer --tool $tool --kernel-name 'regex=attn_a(29|31)' --error-exitcode 9 $C/tests/prefill --test-threads=1 prefill_matches_the_f64
done
stamp sanitizers
[ "${TESTS:-1}" = 1 ] && T=300 run $C/tests/attention --test-threads=1
stamp done
grep -E "^==|^exit|^t\+|test result|FAILED|panicked|ERROR SUMMARY|RACECHECK SUMMARY" "$L" | head -60
