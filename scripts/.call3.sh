set -u
cd .carry && gunzip -f *.gz tests/*.gz; chmod +x kernel-lab tests/* && cd ..
O=/tmp/c3; mkdir -p $O; C=.carry
cat $C/COMMIT > $O/gpu.txt; date -u >> $O/gpu.txt; nvidia-smi --query-gpu=name,driver_version --format=csv >> $O/gpu.txt
S=$(date +%s)
timeout 200 $C/tests/gpu --test-threads=1 every_sgemm_step the_f32_entry > $O/tests.txt 2>&1; echo "gpu tests exit $?" | tee -a $O/summary.txt
grep -E "^test |test result|SKIPPED|panicked" $O/tests.txt | tee -a $O/summary.txt
timeout 120 $C/kernel-lab --check --family gemm --dtype f32 > $O/check.txt 2>&1; echo "check gemm f32 exit $?" | tee -a $O/summary.txt
timeout 120 $C/kernel-lab --check --family gemm --dtype f32 --gemm-sizes 1x300x200,5x1000x777,17x64x4096,33x4097x130,70x130x1030,127x1031x1024,1000x1000x1000,768x768x768 >> $O/check.txt 2>&1; echo "check gemm f32 odd exit $?" | tee -a $O/summary.txt
timeout 150 compute-sanitizer --tool memcheck $C/kernel-lab --check --family gemm --dtype f32 --gemm-sizes 33x4097x130,70x130x1030,512x512x512,1000x1000x1000 > $O/san-memcheck.txt 2>&1
echo "memcheck exit $? $(grep -E 'ERROR SUMMARY' $O/san-memcheck.txt)" | tee -a $O/summary.txt
timeout 150 $C/kernel-lab ab --family sgemm v21 v24 --gemm-sizes 1000x1000x1000,1024x1024x1024,127x8192x1024,768x768x768,1536x1536x1536,256x4096x4096,512x4096x4096,48x4096x4096 > $O/ab-v21-v24.txt 2>&1
timeout 100 $C/kernel-lab ab --family sgemm v22 v23 --gemm-sizes 17x4096x4096,32x14336x4096,300x300x200 > $O/ab-v22-v23.txt 2>&1
echo "t=$(( $(date +%s)-S ))" >> $O/summary.txt
timeout 150 $C/kernel-lab --family gemm --dtype f32 --json $O/sweep.json --out /tmp/rep > $O/sweep.txt 2>&1; echo "sweep f32 exit $?" >> $O/summary.txt
timeout 150 $C/kernel-lab --family gemm --dtype f32 --gemm-sizes 3000x3000x3000,2000x2000x2000,1536x1536x1536,4095x4095x4095,768x768x768,127x8192x1024,384x384x384,2048x1024x1024 --json $O/extra.json --out /tmp/rep2 > $O/extra.txt 2>&1; echo "extra f32 exit $?" >> $O/summary.txt
echo "t=$(( $(date +%s)-S ))" >> $O/summary.txt
cat $O/summary.txt; cat $O/ab-*.txt | grep -E "x[0-9]+x"; grep -E "^(v|cuBLAS)" $O/sweep.txt $O/extra.txt | awk '{print $1,$2,$5}' | paste - - | awk '{print $2,$4,$6}'
cd /tmp && tar czf $OUT/call3.tgz c3
