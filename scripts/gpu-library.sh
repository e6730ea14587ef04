#!/usr/bin/env bash
# On the GPU machine, over .carry/ from `scripts/slim-carry.sh gpu attention fp8`: what issue 47 measures.
#  1. the first result with an empty driver JIT cache: `kernel-lab --family reduce --check`, each output
#     line stamped with the seconds since the start (three runs, the cache emptied before each);
#  2. the API example (its own context and stream, GEMM f16/bf16/f32 and attention, checked);
#  3. the GPU test binaries given (TESTS, default: all carried);
#  4. `kernel-lab` as `cargo run --release` runs it (the headline, then the ladders' main paths), timed,
#     its lines stamped (RUNS=N times, default 1; COLD=1: the first with an empty JIT cache).
#  5. torch SDPA (cuDNN, flash) at the headline's attention shapes (scripts/attention-torch-peer.py).
# Outputs land in $OUT; set PARTS to a subset of "12345".
set -uo pipefail
OUT=${OUT:-/tmp/kernel-lab-out}; mkdir -p "$OUT"
C=.carry
( cd $C && xz -d -f *.xz 2>/dev/null; ls tests/*.xz >/dev/null 2>&1 && xz -d -f tests/*.xz; chmod +x kernel-lab api-example tests/* 2>/dev/null ) || true
PARTS=${PARTS:-12345}
stamp() { python3 -u -c 'import sys, time
t0 = float(sys.argv[1])
for line in sys.stdin:
    sys.stdout.write("[%6.2f s] %s" % (time.time() - t0, line))' "$1"; }
{ echo "commit $(tr '\n' ' ' < $C/COMMIT)"; date -u; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv; } 2>&1 | tee "$OUT/run.txt"
if [[ $PARTS == *1* ]]; then
  echo "== 1. first result with an empty JIT cache ==" | tee -a "$OUT/run.txt"
  for i in 1 2 3; do
    rm -rf ~/.nv/ComputeCache
    t0=$(date +%s.%N)
    $C/kernel-lab --family reduce --check 2>&1 | stamp "$t0" > "$OUT/first-$i.txt"
    first=$(grep -m1 -E '^\[ *[0-9.]+ s\] (v[0-9]|cuBLAS|copy)' "$OUT/first-$i.txt" | sed 's/\].*//; s/\[//')
    total=$(tail -1 "$OUT/first-$i.txt" | sed 's/\].*//; s/\[//')
    echo "run $i: first result row at ${first}, last line at ${total}" | tee -a "$OUT/run.txt"
  done
  # With the cache warm, for comparison.
  t0=$(date +%s.%N); $C/kernel-lab --family reduce --check 2>&1 | stamp "$t0" > "$OUT/first-warm.txt"
  echo "warm cache: first result row at $(grep -m1 -E '^\[ *[0-9.]+ s\] (v[0-9]|cuBLAS|copy)' "$OUT/first-warm.txt" | sed 's/\].*//; s/\[//')" | tee -a "$OUT/run.txt"
  # The JIT of every module once, cold, as a program that uses them all pays it (the notes on stderr).
  rm -rf ~/.nv/ComputeCache
  $C/kernel-lab --check --family gemm --gemm-sizes 64x4096x4096 --dtype f16 2>&1 | grep -E "^note: the driver JIT" | tee -a "$OUT/run.txt"
fi
if [[ $PARTS == *2* ]]; then
  echo "== 2. the API example ==" | tee -a "$OUT/run.txt"
  $C/api-example 2>&1 | tee -a "$OUT/run.txt"; echo "api-example: exit ${PIPESTATUS[0]}" | tee -a "$OUT/run.txt"
fi
if [[ $PARTS == *3* ]]; then
  echo "== 3. GPU tests ==" | tee -a "$OUT/run.txt"
  for t in ${TESTS:-$(ls $C/tests)}; do
    "$C/tests/$t" --test-threads=1 > "$OUT/test-$t.txt" 2>&1; echo "test $t: exit $?" | tee -a "$OUT/run.txt"
    grep -E "test result|FAILED|panicked|SKIPPED" "$OUT/test-$t.txt" | head -20 | tee -a "$OUT/run.txt"
  done
fi
if [[ $PARTS == *4* ]]; then
  for i in $(seq 1 ${RUNS:-1}); do
    # COLD=1: the first run starts with an empty driver JIT cache, as on a fresh machine.
    [ "${COLD:-0}" = 1 ] && [ "$i" = 1 ] && rm -rf ~/.nv/ComputeCache
    echo "== 4. kernel-lab (the default run) #$i$([ "${COLD:-0}" = 1 ] && [ "$i" = 1 ] && echo ', empty JIT cache') ==" | tee -a "$OUT/run.txt"
    t0=$(date +%s.%N)
    $C/kernel-lab --out "$OUT/report-$i" > >(stamp "$t0" > "$OUT/default-$i.txt") 2> >(stamp "$t0" > "$OUT/default-$i.err")
    code=$?; sleep 1
    echo "exit $code after $(python3 -c "import time; print('%.0f' % (time.time() - $t0))") s" | tee -a "$OUT/run.txt"
    sed -n '/== headline/,/^\[ *[0-9.]* s\] $/p' "$OUT/default-$i.txt" | tee -a "$OUT/run.txt"
    rm -rf "$OUT/report-$i"
  done
fi
if [[ $PARTS == *5* ]]; then
  # The attention headline's peer the Rust side cannot call: torch SDPA (cuDNN and flash backends) at the
  # headline's shapes, bf16, sustained timing as the suite's.
  echo "== 5. torch SDPA at the headline's attention shapes ==" | tee -a "$OUT/run.txt"
  python3 scripts/attention-torch-peer.py --shapes 8x32x512x64,1x16x8192x64,1x32x2048x128 --dtype bf16 --backends cudnn,flash \
    --dist uniform --sustain-ms 300 --out "$OUT/attention-peer.md" 2>&1 | tail -20 | tee -a "$OUT/run.txt"
fi
ls -la "$OUT"
