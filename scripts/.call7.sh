#!/usr/bin/env bash
cd .carry; gunzip -f *.gz tests/*.gz 2>/dev/null; chmod +x kernel-lab tests/* 2>/dev/null; cd ..
O=/tmp/c7; mkdir -p $O
{ cat .carry/COMMIT; date -u; nvidia-smi --query-gpu=name,driver_version --format=csv; } > $O/gpu.txt
S=$(date +%s)
timeout 240 .carry/tests/gpu --test-threads 1 every_hgemm pdl_launches > $O/tests-gpu.txt 2>&1; echo "gpu tests exit $? t=$(( $(date +%s)-S ))" | tee -a $O/summary.txt
OUT=$O/probe CONFIGS="d13s12 d14 d13s12 d14 d9" PROBE_SIZES=1x4096x64,1x4096x1024,1x4096x4096,16x4096x4096,8x4096x4096,1x4096x14336,16x4096x14336,1x4096x16384 \
  NCU_RUNS="d14:1x4096x4096:hgemm_decode d14:1x4096x64:hgemm_decode" timeout 500 bash scripts/decode-probe.sh > $O/probe.log 2>&1
echo "probe exit $? t=$(( $(date +%s)-S ))" | tee -a $O/summary.txt
timeout 100 .carry/kernel-lab --family gemm --dtype bf16 --config d14-bf16 --gemm-sizes 1x4096x4096,16x4096x4096,1x4096x14336 > $O/bf16-d14.txt 2>&1
echo "bf16 d14 exit $? t=$(( $(date +%s)-S ))" | tee -a $O/summary.txt
timeout 100 .carry/kernel-lab --check --family gemm --dtype f16 --config d14 --gemm-sizes 1x8x8,7x200x1000,16x4096x4096,17x4096x4096,33x1000x1000,130x264x1024,64x4096x4095 > $O/check-d14.txt 2>&1
echo "check d14 exit $? t=$(( $(date +%s)-S ))" | tee -a $O/summary.txt
cd /tmp && tar czf $OUT/call7.tgz c7
