cd .carry; gunzip -f *.gz tests/*.gz; chmod +x kernel-lab tests/*; cd ..
O=/tmp/c2; rm -rf $O; mkdir -p $O; C=.carry
{ echo "commit $(cat $C/COMMIT | tr '\n' ' ')"; date -u; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit --format=csv; } > $O/gpu.txt 2>&1
cat $O/gpu.txt
timeout 300 $C/tests/fp8 --test-threads=1 > $O/fp8-tests.txt 2>&1; echo "fp8 tests: $?"; grep -E "test result|FAILED|panicked" $O/fp8-tests.txt | head
for tool in memcheck racecheck synccheck; do
  timeout 200 compute-sanitizer --tool $tool $C/kernel-lab --check --family fp8 --steps fp8:f18 --gemm-sizes 400x392x400,193x200x2064 > $O/san-$tool.txt 2>&1
  echo "sanitizer f18 $tool: exit $?, $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $O/san-$tool.txt | tr '\n' ' ')"
done
gzip $O/san-*.txt
SIX="2048x11008x4096,4096x4096x4096,8192x8192x8192,2048x4096x11008,2048x14336x4096,4096x28672x8192"
timeout 200 $C/kernel-lab ab --family fp8 f17 f18 --gemm-sizes $SIX --json $O/ab-f17-f18.json > $O/ab-f17-f18.txt 2>&1; echo "ab: $?"; cat $O/ab-f17-f18.txt
timeout 200 $C/kernel-lab ab --family fp8 f14 f18 --gemm-sizes $SIX --json $O/ab-f14-f18.json > $O/ab-f14-f18.txt 2>&1; echo "ab: $?"; cat $O/ab-f14-f18.txt
for kk in fp8_gemm_v14 fp8_gemm_v17 fp8_gemm_v18; do
  timeout 150 ncu --clock-control none -k $kk -c 1 --set full --import-source no -f -o $O/$kk $C/kernel-lab --check --family fp8 --steps fp8:f14,fp8:f17,fp8:f18 --gemm-sizes 2048x11008x4096 > $O/ncu-$kk.log 2>&1
  echo "ncu $kk: $?"
  ncu -i $O/$kk.ncu-rep --page details > $O/ncu-$kk.txt 2>&1
  grep -E "^  [a-z_0-9]+ \(|Duration|SM Frequency|Compute \(SM\) Throughput|Memory Throughput|L2 Cache Throughput|Issue Slots Busy|Eligible Warps|No Eligible|Shared Memory|Registers Per|Warp Cycles Per Issued" $O/ncu-$kk.txt | head -24
  ncu -i $O/$kk.ncu-rep --page raw --csv --metrics sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_uniform.avg,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,smsp__average_warp_latency_issue_stalled_barrier,sm__cycles_active.avg,sm__cycles_active.max > $O/ncu-raw-$kk.csv 2>&1
  rm -f $O/$kk.ncu-rep $O/ncu-$kk.log
done
gzip $O/ncu-*.txt
cd /tmp && tar czf $OUT/call2.tgz c2
