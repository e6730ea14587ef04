#!/usr/bin/env bash
cd .carry; gunzip -f *.gz tests/*.gz 2>/dev/null; chmod +x kernel-lab tests/*; cd ..
O=/tmp/c2; mkdir -p $O
{ cat .carry/COMMIT; date -u; nvidia-smi --query-gpu=name,driver_version --format=csv; } > $O/gpu.txt
S=$(date +%s)
OUT=$O/probe CONFIGS="d9 d2 d4 d9 d2" PROBE_SIZES=1x4096x64,1x4096x256,1x4096x1024,1x4096x4096,1x2048x64,1x1024x64 \
  NCU_RUNS="d9:1x4096x64:hgemm_decode d2:1x4096x64:hgemm_decode d9:1x4096x64:nvjet|gemv|cutlass|xmma|splitK" timeout 400 bash scripts/decode-probe.sh > $O/probe.log 2>&1
echo "probe exit $? t=$(( $(date +%s)-S ))" | tee -a $O/summary.txt
cd /tmp && tar czf $OUT/call2.tgz c2
