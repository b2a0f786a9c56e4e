#!/usr/bin/env bash
# Run on the device: bash experiments/process_offsets/run_windows.sh (after the shapes part the script stops: exit 0).
# Session 21: the board's state in time. (1) two small benchmarks interleaved, every sample kept, 6 s each, at 2^12 and
# 2^18, two processes: how a window's median moves with the window's length, and whether the two move together;
# (2) hot mode, 3 processes, 2 s each at 2^12, every sample kept; (3) floor_scan's shapes at 2^26-2^30 with the copies.
set -u
r=/tmp/s89; mkdir -p "$r" "$OUT"
save() { tar czf "$OUT/s89.tar.gz" -C /tmp s89; }
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv >"$r/gpu.txt"; cat "$r/gpu.txt"
s=$(date +%s); (source tools/common.sh && ensure_cuda && CUDABENCH_BUILD_TARGET=cuda_bench build) >"$r/build.log" 2>&1; echo "build rc $? $(( $(date +%s) - s )) s"
L=(--interleave --keep-samples --min-samples=5000000 --max-samples=5000000 "--benchmark_filter=^reduce_sum/i32/(floor_sum|cub_device_reduce)/")
for k in 1 2; do
  s=$(date +%s); timeout 100 ./build/cuda_bench "${L[@]}" --max-time=6 --sizes=4096,262144 --benchmark_out="$r/long$k.json" >"$r/long$k.log" 2>&1; echo "long$k rc $? $(( $(date +%s) - s )) s"
  gzip -9 "$r/long$k.json"; save
done
for k in 1 2 3; do
  s=$(date +%s); timeout 60 ./build/cuda_bench "${L[@]}" --cache=hot --max-time=2 --sizes=4096 --benchmark_out="$r/hot$k.json" >"$r/hot$k.log" 2>&1; echo "hot$k rc $? $(( $(date +%s) - s )) s"
  gzip -9 "$r/hot$k.json"; save
done
s=$(date +%s); timeout 100 ./build/cuda_bench "${L[@]}" --timing=graph --max-time=6 --sizes=4096,262144 --benchmark_out="$r/graph1.json" >"$r/graph1.log" 2>&1; echo "graph1 rc $? $(( $(date +%s) - s )) s"
gzip -9 "$r/graph1.json"; save
exit 0
s=$(date +%s); timeout 150 ./build/cuda_bench --suite=full --sizes=26:30 --interleave --max-time=0.3 --precision=0.2 \
  "--benchmark_filter=^(scan/(i32|f32)/floor_scan(_fixed)?|ceiling/[a-z0-9]+/(copy_memcpy|copy_vec16|scan_tiles))/" \
  --benchmark_out="$r/shapes.json" >"$r/shapes.log" 2>&1; echo "shapes rc $? $(( $(date +%s) - s )) s"; gzip -9 "$r/shapes.json"; save
