#!/usr/bin/env bash
cd .carry; gunzip -f *.gz tests/*.gz 2>/dev/null; chmod +x kernel-lab tests/* 2>/dev/null; cd ..
O=/tmp/c13; mkdir -p $O
{ cat .carry/COMMIT; date -u; nvidia-smi --query-gpu=name,driver_version --format=csv; } > $O/gpu.txt
S=$(date +%s)
for i in 1 2 3; do for cfg in d7 h8x4 h6s4; do
  timeout 60 .carry/kernel-lab --family gemm --dtype f16 --config $cfg --gemm-sizes 256x4096x14336 --json $O/g-$cfg-$i.json > $O/g-$cfg-$i.txt 2>&1
  echo "$cfg round $i exit $? $(grep -E '^(d7|h8x4|h6s4) ' $O/g-$cfg-$i.txt | awk '{print $3, $5}') t=$(( $(date +%s)-S ))" | tee -a $O/summary.txt
done; done
timeout 120 ncu --clock-control none --kernel-name regex:"nvjet|cutlass|xmma|gemm|sm90" --launch-skip 0 --launch-count 12 --metrics gpu__time_duration.sum,launch__grid_size,launch__cluster_dim_x,launch__block_size \
  .carry/kernel-lab --family gemm --dtype f16 --config d7 --gemm-sizes 256x4096x14336 --reps 3 --warmup 1 > $O/ncu-names.txt 2>&1
echo "ncu exit $? t=$(( $(date +%s)-S ))" | tee -a $O/summary.txt
grep -E "^\s+[a-z_0-9]+ \(|duration" $O/ncu-names.txt | head -40 | tee -a $O/summary.txt
cd /tmp && tar czf $OUT/call13.tgz c13
