#!/usr/bin/env bash
cd .carry; gunzip -f *.gz tests/*.gz 2>/dev/null; chmod +x kernel-lab tests/* 2>/dev/null; cd ..
O=/tmp/c6; mkdir -p $O
{ cat .carry/COMMIT; date -u; nvidia-smi --query-gpu=name,driver_version --format=csv; } > $O/gpu.txt
S=$(date +%s)
OUT=$O/probe CONFIGS="d9 d13s10 d13s12 d13s14 d9 d13s10 d13s12 d13s14" PROBE_SIZES=1x4096x4096,16x4096x4096,1x4096x14336,16x4096x14336,1x14336x4096,16x14336x4096,8x4096x4096 \
  NCU_RUNS="d13s12:1x4096x4096:hgemm_decode" timeout 500 bash scripts/decode-probe.sh > $O/probe.log 2>&1
echo "probe exit $? t=$(( $(date +%s)-S ))" | tee -a $O/summary.txt
cd /tmp && tar czf $OUT/call6.tgz c6
