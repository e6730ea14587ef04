#!/usr/bin/env bash
# One device call after a refactor (issue 13's check run): every test binary, `kernel-lab --check`
# (every family, odd sizes), compute-sanitizer memcheck/racecheck/synccheck through `--sanitize`, and a
# timed run of the best steps of each ladder (STEPS, SIZES). Everything lands in $OUT.
set -uo pipefail
OUT=${OUT:-/tmp/kernel-lab-out}; mkdir -p "$OUT"
C=.carry
{ echo "commit $(cat $C/COMMIT | tr '\n' ' ')"; date -u; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu,power.draw --format=csv; } 2>&1 | tee "$OUT/check.txt"
status=0
echo "== tests ==" | tee -a "$OUT/check.txt"
for t in $C/tests/*; do
  echo "-- $(basename $t)" >> "$OUT/check.txt"
  timeout 300 "$t" --test-threads=1 >> "$OUT/check.txt" 2>&1 || { status=1; echo "FAILED: $t" | tee -a "$OUT/check.txt"; }
done
grep -E "test result|FAILED|SKIPPED|panicked" "$OUT/check.txt"
echo "== --check ==" | tee -a "$OUT/check.txt"
timeout 300 $C/kernel-lab --check --out "$OUT/check-report" > "$OUT/check-suite.txt" 2>&1; echo "kernel-lab --check: exit $?" | tee -a "$OUT/check.txt"
grep -E "FAILED|ERROR|error" "$OUT/check-suite.txt" | head -20
if [ "${SANITIZE:-1}" = 1 ]; then
  timeout 400 $C/kernel-lab --sanitize --gemm-sizes ${SAN_SIZES:-1000,300x520x192} --sizes 1000,4097 --out "$OUT/sanitize" > "$OUT/sanitize.md" 2>&1; echo "kernel-lab --sanitize: exit $?" | tee -a "$OUT/check.txt"
  grep -E "^\| (memcheck|racecheck|synccheck)|FAILED|error" "$OUT/sanitize.md" | head -20
  tar czf "$OUT/sanitize.tgz" -C "$OUT" sanitize && rm -rf "$OUT/sanitize"
fi
rm -rf "$OUT/check-report"
[ "${TIMED:-1}" = 1 ] || exit $status
echo "== timed: ${STEPS:-best steps} ==" | tee -a "$OUT/check.txt"
timeout 400 $C/kernel-lab --family reduce,sgemm,hgemm --steps "${STEPS:-reduce:v6,reduce:v7,sgemm:v11,hgemm:v10,h6}" --gemm-sizes ${SIZES:-4096,8192} \
  --sizes 2^24,2^28 --json "$OUT/timed.json" --out "$OUT/timed-report" > "$OUT/timed.txt" 2>&1; echo "timed: exit $?" | tee -a "$OUT/check.txt"
cat "$OUT/timed.txt"
rm -rf "$OUT/timed-report"
exit $status
