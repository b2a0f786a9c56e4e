#!/usr/bin/env bash
# Session 20 (with copy_paths.patch applied): a TMA bulk-copy ceiling (copy_bulk) against copy_vec16 and copy_memcpy, shapes from CUDABENCH_BULK.
set -u
r=/tmp/s80; mkdir -p "$r" "$OUT"
save() { tar czf "$OUT/s80.tar.gz" -C /tmp s80; }
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv >"$r/gpu.txt"; cat "$r/gpu.txt"
s=$(date +%s); (source tools/common.sh && ensure_cuda && CUDABENCH_BUILD_TARGET=cuda_bench build) >"$r/build.log" 2>&1; echo "build rc $? $(( $(date +%s) - s )) s"
for cfg in 16,4,3 32,3,2 8,8,2 16,6,2 32,6,1 64,3,1 4,8,4 16,2,4 32,2,3; do
  s=$(date +%s)
  CUDABENCH_BULK=$cfg timeout 120 ./build/cuda_bench --sizes=67108864,268435456,1073741824 --interleave --max-time=0.3 \
    "--benchmark_filter=^(ceiling/f32/copy_|ceiling/i32/scan_tiles|scan/i32/floor_scan/)" --benchmark_out="$r/b_$cfg.json" >"$r/b_$cfg.log" 2>&1
  echo "$cfg rc $? $(( $(date +%s) - s )) s"; grep -E "copy_|scan" "$r/b_$cfg.log" | awk '{print "  "$1, $2, $3, $4, $5}'
  save
done
