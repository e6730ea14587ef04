#!/usr/bin/env bash
# The runner's batch-1 decode (Llama-3-8B shape, 2048-token prompt), bf16 and --fp8, under four launch
# policies, rotated, 3 processes each: PDL with the decode GEMMs' L2 prefetch off (KERNEL_LAB_PDL_PREFETCH=
# nothing), of their first loads (first: the default), of whole splits where the weights fit the L2 (fit),
# and plain launches without prefetch (KERNEL_LAB_PDL=0, nothing). Carry: scripts/slim-carry.sh.
set -uo pipefail
. scripts/device-log.sh pdl-prefetch.txt 300
J=/tmp/pdl-json; mkdir -p $J
M=/tmp/llm-check/llama3-8b
T=120 run python3 scripts/llm-hf-check.py --make-only --models llama3-8b
for i in 1 2 3; do
  for fmt in bf16 fp8; do
    a=(); [ $fmt = fp8 ] && a=(--fp8)
    for cfg in pdl:nothing pdl:first pdl:fit plain:nothing; do
      pdl=1; [ ${cfg%%:*} = plain ] && pdl=0
      T=60 run env KERNEL_LAB_PDL=$pdl KERNEL_LAB_PDL_PREFETCH=${cfg#*:} $C/llm --model $M --prompt-len 2048 --max-new 64 --batch 1 "${a[@]}" \
        --json $J/$fmt-${cfg/:/-}-$i.json
    done
  done
done
tar czf "$OUT/json.tar.gz" -C $J .
python3 - "$J" <<'PY' | tee -a "$L"
import json, glob, os, statistics, sys
rows = {}
for f in glob.glob(sys.argv[1] + "/*.json"):
    fmt, pdl, pf, i = os.path.basename(f)[:-5].split("-")
    rows.setdefault((fmt, pdl, pf), []).append(json.load(open(f))["decode_ms_per_step"])
print("| weights | launches | prefetch | ms per step (median of 3) | the 3 |")
print("|---|---|---|---|---|")
for k in sorted(rows):
    v = sorted(rows[k]); print(f"| {k[0]} | {k[1]} | {k[2]} | {statistics.median(v):.3f} | {', '.join(f'{x:.3f}' for x in v)} |")
PY
