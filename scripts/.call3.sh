#!/usr/bin/env bash
cd .carry; gunzip -f *.gz tests/*.gz 2>/dev/null; chmod +x kernel-lab tests/*; cd ..
O=/tmp/c3; mkdir -p $O
{ cat .carry/COMMIT; date -u; nvidia-smi --query-gpu=name,driver_version --format=csv; } > $O/gpu.txt
S=$(date +%s)
for run in d9:1x4096x64:hgemm_decode d9:1x4096x64:nvjet d9:1x4096x4096:hgemm_decode d9:1x4096x4096:nvjet d2:1x4096x64:hgemm_decode; do
  IFS=: read -r cfg size kre <<< "$run"
  n=$cfg-$size-$kre
  timeout 200 ncu --clock-control none -k regex:"$kre" -c 1 --set full --warp-sampling-interval 0 --import-source no -f -o "$O/$n" \
    .carry/kernel-lab --family gemm --dtype f16 --config $cfg --gemm-sizes $size --check > "$O/ncu-$n.log" 2>&1
  echo "ncu $n: exit $? t=$(( $(date +%s)-S ))" | tee -a $O/summary.txt
  ncu -i "$O/$n.ncu-rep" --page details > "$O/details-$n.txt" 2>&1
  ncu -i "$O/$n.ncu-rep" --page source --csv --print-source sass > "$O/sass-$n.csv" 2>&1
  ncu -i "$O/$n.ncu-rep" --page raw --csv > "$O/raw-$n.csv" 2>&1
  rm -f "$O/$n.ncu-rep"
done
cd /tmp && tar czf $OUT/call3.tgz c3
