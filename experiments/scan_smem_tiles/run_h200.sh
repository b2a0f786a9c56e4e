#!/usr/bin/env bash
# Session 22: on an H200 only (stops otherwise): floor_scan with the shared-memory tiles and,
# FS_REGISTERS set, with HEAD's persistent kernel, each in a process with the copies, A B A B.
set -u
r=/tmp/smem2; mkdir -p "$r" "$OUT"
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv >"$r/gpu.txt"; cat "$r/gpu.txt"
grep -q H200 "$r/gpu.txt" || { echo "not an H200: stop"; exit 0; }
s=$(date +%s); (source tools/common.sh && ensure_cuda && CUDABENCH_BUILD_TARGET=cuda_bench build) >"$r/build.log" 2>&1; echo "build rc $? $(( $(date +%s) - s )) s"
f="--benchmark_filter=^(scan/(i32|f32)/floor_scan|ceiling/(i32/scan_tiles|f32/copy_vec16|f32/copy_memcpy))/"
for i in 1 2; do
  for mode in smem registers; do
    if [ $mode = registers ]; then export FS_REGISTERS=1; else unset FS_REGISTERS; fi
    timeout 60 ./build/cuda_bench --interleave --sizes=268435456,1073741824 --max-time=0.3 --precision=0.2 "$f" \
      --benchmark_out="$r/${mode}_$i.json" >"$r/${mode}_$i.log" 2>&1
    echo "$mode $i: $(grep -E 'N:1073741824 ' "$r/${mode}_$i.log" | awk '{printf "%s %s; ", $1, $2}')"
  done
done
tar czf "$OUT/smem2.tar.gz" -C /tmp smem2
