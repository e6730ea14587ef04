cd .carry; gunzip -f *.gz tests/*.gz; chmod +x kernel-lab tests/*; cd ..
O=/tmp/c3; rm -rf $O; mkdir -p $O; C=.carry
{ echo "commit $(cat $C/COMMIT | tr '\n' ' ')"; date -u; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit --format=csv; } > $O/gpu.txt 2>&1
cat $O/gpu.txt
timeout 300 $C/tests/fp8 --test-threads=1 > $O/fp8-tests.txt 2>&1; echo "fp8 tests: $?"; grep -E "test result|FAILED|panicked" $O/fp8-tests.txt | head
timeout 200 $C/kernel-lab --check --family fp8 --steps fp8:f19,fp8:f15 --gemm-sizes 4x8x16,196x200x2064,400x392x400,384x256x128,2048x11008x4096 > $O/check.txt 2>&1; echo "check f19: $?"
for tool in memcheck racecheck synccheck; do
  timeout 200 compute-sanitizer --tool $tool $C/kernel-lab --check --family fp8 --steps fp8:f19 --gemm-sizes 400x392x400,196x200x2064 > $O/san-$tool.txt 2>&1
  echo "sanitizer f19 $tool: exit $?, $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $O/san-$tool.txt | tr '\n' ' ')"
done
gzip $O/san-*.txt
SIX="2048x11008x4096,4096x4096x4096,8192x8192x8192,2048x4096x11008,2048x14336x4096,4096x28672x8192"
timeout 200 $C/kernel-lab ab --family fp8 f15 f19 --gemm-sizes $SIX --json $O/ab-f15-f19.json > $O/ab-f15-f19.txt 2>&1; echo "ab: $?"; cat $O/ab-f15-f19.txt
timeout 420 $C/kernel-lab --family fp8 --steps fp8:f14,fp8:f18,fp8:f15,fp8:f16,fp8:f19 --gemm-sizes $SIX --json $O/fp8.json > $O/fp8-timed.txt 2>&1; echo "timed: $?"; grep -E "^(f14|f18|f15|f16|f19|cuBLAS) " $O/fp8-timed.txt | awk '{print $1, $2, $3, $4, $5, $NF, $(NF-1), $(NF-2)}'
for kk in fp8_gemm_v15 fp8_gemm_v19; do
  timeout 150 ncu --clock-control none -k $kk -c 1 --set full --import-source no -f -o $O/$kk $C/kernel-lab --check --family fp8 --steps fp8:f15,fp8:f19 --gemm-sizes 8192x8192x4096 > $O/ncu-$kk.log 2>&1
  echo "ncu $kk: $?"
  ncu -i $O/$kk.ncu-rep --page details > $O/ncu-$kk.txt 2>&1
  grep -E "Duration|SM Frequency|Compute \(SM\) Throughput|L2 Cache Throughput|Issue Slots Busy|Eligible Warps" $O/ncu-$kk.txt | head -8
  ncu -i $O/$kk.ncu-rep --page raw --csv --metrics sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,sm__cycles_active.avg,sm__cycles_active.max > $O/ncu-raw-$kk.csv 2>&1
  tail -1 $O/ncu-raw-$kk.csv
  rm -f $O/$kk.ncu-rep $O/ncu-$kk.log
done
gzip $O/ncu-*.txt
timeout 200 python3 scripts/fp8-torch-peer.py > $O/torch-fp8.txt 2>&1; echo "torch: $?"; tail -12 $O/torch-fp8.txt
cd /tmp && tar czf $OUT/call3.tgz c3
