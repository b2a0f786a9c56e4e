#!/usr/bin/env bash
# Session 22: where floor_scan's time goes at 2^28 against its own data path (scan_tiles) and
# copy_vec16: one profiled call each under Nsight Compute (cuda_bench --profile-one, as
# tools/run-audit), DRAM bytes and throughput, the L2's hits for the SMs' loads, warp stalls;
# then the three timed in one interleaved process with copy_memcpy.
set -u
r=/tmp/prof; mkdir -p "$r" "$OUT"
save() { tar czf "$OUT/prof.tar.gz" -C /tmp prof; }
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv >"$r/gpu.txt"; cat "$r/gpu.txt"
s=$(date +%s); (source tools/common.sh && ensure_cuda && CUDABENCH_BUILD_TARGET=cuda_bench build) >"$r/build.log" 2>&1; echo "build rc $? $(( $(date +%s) - s )) s"
filter='^(scan/(i32|f32)/floor_scan|ceiling/(i32/scan_tiles|f32/copy_vec16|f32/copy_memcpy))/'
m=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed
m=$m,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum,lts__t_sectors_srcunit_tex_op_write.sum
m=$m,lts__t_sectors.sum,lts__t_sectors_lookup_hit.sum,sm__warps_active.avg.pct_of_peak_sustained_active
s=$(date +%s); timeout 240 ncu --nvtx --profile-from-start off --cache-control none --clock-control none --replay-mode kernel \
  --metrics "$m" --section WarpStateStats --section MemoryWorkloadAnalysis --export "$r/profile" --force-overwrite \
  ./build/cuda_bench --profile-one --sizes=268435456 --results-dir="$r" "--benchmark_filter=$filter" >"$r/ncu.log" 2>&1
echo "ncu rc $? $(( $(date +%s) - s )) s"
ncu --import "$r/profile.ncu-rep" --csv --page raw --print-units base >"$r/raw.csv" 2>"$r/import.log"; save
s=$(date +%s); timeout 120 ./build/cuda_bench --interleave --sizes=268435456,1073741824 --max-time=0.3 --precision=0.2 \
  "--benchmark_filter=$filter" --benchmark_out="$r/timed.json" >"$r/timed.log" 2>&1; echo "timed rc $? $(( $(date +%s) - s )) s"; save
grep -E "N:(268435456|1073741824) " "$r/timed.log" | awk '{print $1, $2, $3}'
