# Sourced by the session-95 TP scripts (`. scripts/tp-setup.sh LOG`): NCCL's library path and NVLink multicast
# off, the log $OUT/LOG (scripts/device-log.sh), the synthetic Llama-3-8B checkpoint directory $M, the JSON
# directory $D, and the runner's arguments $R (batch ${B:-1}, 512-token prompt, 64 steps, eos ignored).
. scripts/nccl-path.sh
. scripts/device-log.sh "$1" 300
M=/tmp/llm-syn; mkdir -p $M; cp scripts/llama3-8b-config.json $M/config.json
D="$OUT/tp"; mkdir -p "$D"
R="--model $M --synthetic-weights --prompt-len 512 --max-new 64 --ignore-eos --batch ${B:-1}"
