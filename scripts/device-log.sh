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
