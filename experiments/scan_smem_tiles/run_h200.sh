#!/usr/bin/env bash
# On an H200 only (stops otherwise), smem_tiles.patch applied: floor_scan with HEAD's
# register-tile kernel (FS_REGISTERS set) and with the shared-memory tiles at three
# prefetch distances (FS_AHEAD quarters of the grid: 3, 2, 1), each in a process of its own
# with the copies, two rounds in mirrored order. About 1 minute with the build.
set -u
r=/tmp/smem2; mkdir -p "$r" "$OUT"
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv >"$r/gpu.txt"; cat "$r/gpu.txt"
grep -q H200 "$r/gpu.txt" || { echo "not an H200: stop"; exit 0; }
s=$(date +%s); (source tools/common.sh && ensure_cuda && CUDABENCH_BUILD_TARGET=cuda_bench build) >"$r/build.log" 2>&1; echo "build rc $? $(( $(date +%s) - s )) s"
f="--benchmark_filter=^(scan/(i32|f32)/floor_scan|ceiling/(i32/scan_tiles|f32/copy_vec16|f32/copy_memcpy))/"
for mode in registers smem3 smem2 smem1 smem1 smem2 smem3 registers; do
  unset FS_REGISTERS FS_AHEAD
  case $mode in registers) export FS_REGISTERS=1 ;; smem*) export FS_AHEAD=${mode#smem} ;; esac
  i=1; [ -f "$r/$mode.json" ] && i=2
  out="$r/$mode"; [ $i -eq 2 ] && out="$r/${mode}_2"
  timeout 60 ./build/cuda_bench --interleave --sizes=268435456,1073741824 --max-time=0.3 --precision=0.2 "$f" \
    --benchmark_out="$out.json" >"$out.log" 2>&1
  echo "$mode $i: $(grep -E 'N:1073741824 ' "$out.log" | awk '{printf "%s %s; ", $1, $2}')"
done
tar czf "$OUT/smem2.tar.gz" -C /tmp smem2
