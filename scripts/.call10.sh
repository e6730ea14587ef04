#!/usr/bin/env bash
cd .carry; gunzip -f *.gz tests/*.gz 2>/dev/null; chmod +x kernel-lab tests/* 2>/dev/null; cd ..
O=/tmp/c10; mkdir -p $O
{ cat .carry/COMMIT; date -u; nvidia-smi --query-gpu=name,driver_version --format=csv; } > $O/gpu.txt
S=$(date +%s)
OUT=$O/probe CONFIGS="d15 d15" PROBE_SIZES=1x4096x4096,2x4096x4096,4x4096x4096,8x4096x4096,12x4096x4096,16x4096x4096,1x4096x64,16x4096x64,1x4096x1024,16x4096x1024 \
  NCU_RUNS="d15:16x4096x64:hgemm_decode" timeout 500 bash scripts/decode-probe.sh > $O/probe.log 2>&1
echo "probe exit $? t=$(( $(date +%s)-S ))" | tee -a $O/summary.txt
cd /tmp && tar czf $OUT/call10.tgz c10
