#!/usr/bin/env bash
cd .carry; gunzip -f *.gz tests/*.gz 2>/dev/null; chmod +x kernel-lab tests/*; cd ..
O=/tmp/c4; mkdir -p $O
{ cat .carry/COMMIT; date -u; nvidia-smi --query-gpu=name,driver_version --format=csv; } > $O/gpu.txt
S=$(date +%s)
timeout 240 .carry/tests/gpu --test-threads 1 > $O/tests-gpu.txt 2>&1; echo "gpu tests exit $? t=$(( $(date +%s)-S ))" | tee -a $O/summary.txt
OUT=$O/probe CONFIGS="d9 d13 d9 d13" PROBE_SIZES=1x4096x64,1x4096x1024,1x4096x4096,1x4096x16384,16x4096x4096,1x4096x14336,16x4096x14336,1x14336x4096,16x14336x4096 \
  NCU_RUNS="d13:1x4096x64:hgemm_decode d13:1x4096x4096:hgemm_decode d9:1x4096x4096:hgemm_decode" timeout 400 bash scripts/decode-probe.sh > $O/probe.log 2>&1
echo "probe exit $? t=$(( $(date +%s)-S ))" | tee -a $O/summary.txt
for cfg in d9 d13; do
  KERNEL_LAB_CHAIN=8 timeout 100 .carry/kernel-lab --family gemm --dtype f16 --config $cfg --gemm-sizes 1x4096x4096,16x4096x4096,1x4096x14336 > $O/chain8-$cfg.txt 2>&1
  echo "chain8 $cfg exit $? t=$(( $(date +%s)-S ))" | tee -a $O/summary.txt
done
timeout 100 .carry/kernel-lab --family gemm --dtype bf16 --config d13-bf16 --gemm-sizes 1x4096x4096,16x4096x4096,1x4096x14336 > $O/bf16-d13.txt 2>&1
echo "bf16 d13 exit $? t=$(( $(date +%s)-S ))" | tee -a $O/summary.txt
timeout 100 .carry/kernel-lab --check --family gemm --dtype f16,bf16 --config d13 --gemm-sizes 1x8x8,7x200x1000,16x4096x4096,17x4096x4096,33x1000x1000,130x264x1024,64x4096x4095 > $O/check-d13.txt 2>&1
echo "check d13 exit $? t=$(( $(date +%s)-S ))" | tee -a $O/summary.txt
cd /tmp && tar czf $OUT/call4.tgz c4
