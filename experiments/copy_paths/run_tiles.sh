#!/usr/bin/env bash
# Session 20 (with copy_paths.patch applied): a persistent copy in the scan's 64 KiB tiles, with and without an L2
# prefetch ahead (CUDABENCH_COPYT=blocks an SM,ahead in quarters of the grid), against copy_memcpy, scan_tiles, floor_scan.
set -u
r=/tmp/s83; mkdir -p "$r" "$OUT"
save() { tar czf "$OUT/s83.tar.gz" -C /tmp s83; }
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv >"$r/gpu.txt"; cat "$r/gpu.txt"
s=$(date +%s); (source tools/common.sh && ensure_cuda && CUDABENCH_BUILD_TARGET=cuda_bench build) >"$r/build.log" 2>&1; echo "build rc $? $(( $(date +%s) - s )) s"
for cfg in none 2,0 2,1 2,2 2,3 2,4 1,0 1,3 3,0 3,3 4,0 4,3; do
  s=$(date +%s)
  if [ $cfg = none ]; then unset CUDABENCH_COPYT; else export CUDABENCH_COPYT=$cfg; fi
  timeout 120 ./build/cuda_bench --sizes=268435456,1073741824 --interleave --max-time=0.3 \
    "--benchmark_filter=^(ceiling/f32/copy_(vec16|memcpy)|ceiling/i32/scan_tiles|scan/i32/floor_scan/)" --benchmark_out="$r/t_$cfg.json" >"$r/t_$cfg.log" 2>&1
  echo "$cfg rc $? $(( $(date +%s) - s )) s"; grep -E "N:1073741824 " "$r/t_$cfg.log" | awk '{print "  "$1, $2, $3, $4, $5}'
  save
done
