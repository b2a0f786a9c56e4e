#!/usr/bin/env bash
# Session 21: floor_scan with 1024-thread tiles (1024 x 32: 128 KiB a tile, half the look-backs of 512 x 32) on an H200.
# Apply first: git apply experiments/scan_big_tiles/big_tiles.patch
set -u
r=/tmp/big_tiles; mkdir -p "$r" "$OUT"
save() { tar czf "$OUT/big_tiles.tar.gz" -C /tmp big_tiles; }
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv >"$r/gpu.txt"; cat "$r/gpu.txt"
grep -q H200 "$r/gpu.txt" || { echo "not an H200: stop"; save; exit 0; }
s=$(date +%s); (source tools/common.sh && ensure_cuda && CUDABENCH_BUILD_TARGET=cuda_bench build) >"$r/build.log" 2>&1; echo "build rc $? $(( $(date +%s) - s )) s"
s=$(date +%s); timeout 200 ./build/cuda_bench --suite=full --sizes=24:30 --interleave --max-time=0.3 --precision=0.2 \
  "--benchmark_filter=^(scan/(i32|f32)/floor_scan_fixed/N:[0-9]+/block:(512|1024)/batch:32|ceiling/f32/copy_memcpy/)" \
  --benchmark_out="$r/big.json" >"$r/big.log" 2>&1; echo "big rc $? $(( $(date +%s) - s )) s"; gzip -9 "$r/big.json"; save
grep -E "ERROR|N:1073741824" "$r/big.log" | head -20
