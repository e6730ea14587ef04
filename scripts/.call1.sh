#!/usr/bin/env bash
cd .carry; gunzip -f *.gz tests/*.gz; chmod +x kernel-lab tests/*; cd ..
O=/tmp/c1; mkdir -p $O
{ cat .carry/COMMIT; date -u; nvidia-smi --query-gpu=name,driver_version --format=csv; } > $O/gpu.txt
S=$(date +%s)
timeout 240 .carry/tests/gpu --test-threads 1 > $O/tests-gpu.txt 2>&1; echo "gpu tests exit $? t=$(( $(date +%s)-S ))" | tee -a $O/summary.txt
OUT=$O/probe CONFIGS="d9 d12 d9 d12" PROBE_SIZES=1x4096x2048,1x4096x4096,1x4096x8192,1x4096x16384,16x4096x4096,64x4096x4096,1x4096x14336,16x4096x14336 \
  NCU_RUNS="d9:1x4096x4096:hgemm_decode d12:1x4096x4096:hgemm_decode" timeout 400 bash scripts/decode-probe.sh > $O/probe.log 2>&1
echo "probe exit $? t=$(( $(date +%s)-S ))" | tee -a $O/summary.txt
for cfg in d9 d12; do
  KERNEL_LAB_CHAIN=8 timeout 100 .carry/kernel-lab --family gemm --dtype f16 --config $cfg --gemm-sizes 1x4096x4096,16x4096x4096,64x4096x4096 > $O/chain8-$cfg.txt 2>&1
  echo "chain8 $cfg exit $? t=$(( $(date +%s)-S ))" | tee -a $O/summary.txt
done
timeout 100 .carry/kernel-lab --family gemm --dtype bf16 --config d12-bf16 --gemm-sizes 1x4096x4096,16x4096x4096 > $O/bf16-d12.txt 2>&1
echo "bf16 d12 exit $? t=$(( $(date +%s)-S ))" | tee -a $O/summary.txt
cd /tmp && tar czf $OUT/call1.tgz c1
