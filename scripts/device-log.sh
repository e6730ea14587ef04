# Sourced by the gpu-*.sh scripts of issues 48, 49 and 51: `. scripts/device-log.sh NAME [SECONDS]` unpacks the carry
# (.carry/, xz-compressed binaries), starts the log $OUT/NAME with the carry's commit and the GPU's state, and
# defines `run CMD…`: the command logged with its exit code, under `timeout ${T:-SECONDS}` (default 300).
OUT=${OUT:-/tmp/kernel-lab-out}; mkdir -p "$OUT"
C=.carry
(cd $C && xz -d -f *.xz */*.xz 2>/dev/null; chmod +x * */* 2>/dev/null)
L="$OUT/$1"
RUN_T=${2:-300}
{ echo "commit $(tr '\n' ' ' < $C/COMMIT)"; date -u; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv; } 2>&1 | tee "$L"
run() { echo "== $*" | tee -a "$L"; timeout ${T:-$RUN_T} "$@" >> "$L" 2>&1; echo "exit $?" | tee -a "$L"; }
# `stamp TEXT`: the seconds since the log began, logged.
t0=$(date +%s); stamp() { echo "t+$(( $(date +%s) - t0 ))s $*" | tee -a "$L"; }
# `gemm_old_new NAME SEED DTYPE ARGS…`: the gemm family's entry on ARGS (--gemm-sizes … or --shapes-file …)
# by .carry/old/kernel-lab and .carry/kernel-lab, 3 processes each alternating (seeds SEED1..SEED3), each
# run's output under a "== set NAME process I build B" line (what scripts/entry-medians.py's callers split on).
gemm_old_new() {
  local name=$1 seed=$2 dtype=$3; shift 3
  for i in 1 2 3; do
    for b in old new; do
      local bin=$C/kernel-lab; [ $b = old ] && bin=$C/old/kernel-lab
      echo "== set $name process $i build $b" | tee -a "$L"
      T=${T:-150} run $bin --family gemm --dtype $dtype --reps 10 --warmup 2 "$@" --seed $seed$i
    done
    stamp "$name process $i"
  done
}
# `runner_old_new BATCH`: the Llama-3-8B-shaped runner (synthetic weights, 2048-token prompt, 64 steps, the
# graph replayed 100 times) by .carry/old/llm and .carry/llm, one warm-up each, then 3 processes each
# alternating, their JSON to $OUT/llm-BUILD-I.json.
runner_old_new() {
  local M=/tmp/llm-syn; mkdir -p $M; cp scripts/llama3-8b-config.json $M/config.json
  for b in old new; do local bin=$C/llm; [ $b = old ] && bin=$C/old/llm; T=150 run $bin --model $M --synthetic-weights --prompt-len 128 --max-new 8 --batch $1; done
  stamp "runner warm"
  for i in 1 2 3; do
    for b in old new; do
      local bin=$C/llm; [ $b = old ] && bin=$C/old/llm
      echo "== runner process $i build $b" | tee -a "$L"
      T=120 run env KERNEL_LAB_LLM_REPLAY=100 $bin --model $M --synthetic-weights --prompt-len 2048 --max-new 64 --ignore-eos --batch $1 --json $OUT/llm-$b-$i.json
    done
    stamp "runner $i"
  done
}
# `runner_rounds DIR N VARIANT…`: the Llama-3-8B-shaped runner (synthetic weights, 2048-token prompt, 64 steps unless
# a variant says otherwise, the graph replayed 100 times) after one warm-up, N processes of each VARIANT alternating.
# A VARIANT is `NAME|ENV=VALUE …|ARGS` (ARGS: `--fp8`, `--max-new 512`, …); its JSON goes to DIR/NAME-I.json.
runner_rounds() {
  local dir=$1 n=$2; shift 2
  local M=/tmp/llm-syn; mkdir -p $M; cp scripts/llama3-8b-config.json $M/config.json
  T=150 run $C/llm --model $M --synthetic-weights --fp8 --prompt-len 128 --max-new 8 --batch 1
  for i in $(seq 1 $n); do
    for v in "$@"; do
      local name env args; IFS='|' read -r name env args <<< "$v"
      # shellcheck disable=SC2086 # ENV and ARGS are word lists
      run env KERNEL_LAB_LLM_REPLAY=100 $env $C/llm --model $M --synthetic-weights --prompt-len 2048 --max-new 64 --batch 1 --ignore-eos $args --json $dir/$name-$i.json
    done
    stamp "runner round $i"
  done
}
# `fp8_steps DIR NAME SHAPES SEED REPS WARMUP`: every per-tensor few-tile FP8 step the choice weighs at the shapes of
# SHAPES, 3 processes (seeds SEED1..SEED3), each's JSON to DIR/NAME-pI.json.
fp8_steps() {
  for i in 1 2 3; do
    T=200 run $C/kernel-lab --family fp8 --steps f14,f21x2,f21x3,f21x4,f21x6,f22,f25,f27n128,f27n192 --shapes-file $3 \
        --reps $5 --warmup $6 --seed $4$i --json $1/$2-p$i.json --out /tmp/r
    stamp "$2 process $i"
  done
}
# `fp8_calibrations DIR`: bench's FP8 calibration GPU test, then `kernel-lab calibrate --dtype fp8` 3 times, each's costs
# and timings to DIR/fp8-cost-GPU-pI.tsv and DIR/fp8-samples-GPU-pI.tsv (GPU: h100, h200), no cached calibration before
# or after (the plans that follow use the shipped costs).
fp8_calibrations() {
  local g; g=$(nvidia-smi --query-gpu=name --format=csv,noheader | grep -o "H[0-9]*" | head -1 | tr A-Z a-z)
  rm -rf ~/.cache/kernel-lab
  T=300 run $C/tests/fp8 the_fp8_calibration --nocapture --test-threads 1
  for i in 1 2 3; do
    T=150 run $C/kernel-lab calibrate --dtype fp8 --out $1/fp8-cost-$g-p$i.tsv --samples $1/fp8-samples-$g-p$i.tsv
  done
  rm -rf ~/.cache/kernel-lab
}
