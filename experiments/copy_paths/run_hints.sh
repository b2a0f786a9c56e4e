#!/usr/bin/env bash
# Session 20 (with copy_paths.patch applied): copy kernel cache hints and grids (CUDABENCH_COPYX=load,store,blocks an SM) against copy_memcpy.
set -u
r=/tmp/s81; mkdir -p "$r" "$OUT"
save() { tar czf "$OUT/s81.tar.gz" -C /tmp s81; }
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv >"$r/gpu.txt"; cat "$r/gpu.txt"
s=$(date +%s); (source tools/common.sh && ensure_cuda && CUDABENCH_BUILD_TARGET=cuda_bench build) >"$r/build.log" 2>&1; echo "build rc $? $(( $(date +%s) - s )) s"
for cfg in none 0,0,8 0,0,4 0,0,16 1,1,8 1,0,8 0,1,8 2,2,8 3,1,8 4,1,8 1,3,8 0,4,8 4,0,8 1,1,4 2,0,8; do
  s=$(date +%s)
  if [ $cfg = none ]; then unset CUDABENCH_COPYX; else export CUDABENCH_COPYX=$cfg; fi
  timeout 120 ./build/cuda_bench --sizes=268435456,1073741824 --interleave --max-time=0.3 \
    "--benchmark_filter=^ceiling/f32/copy_(vec16|memcpy)" --benchmark_out="$r/x_$cfg.json" >"$r/x_$cfg.log" 2>&1
  echo "$cfg rc $? $(( $(date +%s) - s )) s"; grep -E "copy_" "$r/x_$cfg.log" | awk '{print "  "$1, $2, $3, $4, $5}'
  save
done
