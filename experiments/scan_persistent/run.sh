#!/usr/bin/env bash
# floor_scan's grouped calls on a persistent grid (CUDABENCH_SCAN_PERSISTENT=1) against one tile a block
# (unset), at 2^28 and 2^30, with scan_tiles and copy_memcpy, processes alternated A B B A. Run from the
# repository root with the patch applied (git apply experiments/scan_persistent/persistent.patch) on a GPU
# machine; writes $OUT/s55.tar.gz. About 60 s on an H200, the build included.
set -u
r=/tmp/s55; mkdir -p "$r" "$OUT"
T0=$(date +%s); left() { echo $(( 180 - ($(date +%s) - T0) )); }
save() { tar czf "$OUT/s55.tar.gz" -C /tmp s55; }
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv >"$r/gpu.txt"; cat "$r/gpu.txt"
t=$(date +%s); (source tools/common.sh && ensure_cuda && CUDABENCH_BUILD_TARGET=cuda_bench build) >"$r/build.log" 2>&1; echo "build rc $? $(( $(date +%s) - t )) s"; save
f='^(scan/i32/floor_scan|ceiling/(i32/scan_tiles|f32/copy_memcpy))/'
i=0
for mode in 0 1 1 0 0 1 1 0; do
  [ "$(left)" -gt 12 ] || break
  CUDABENCH_SCAN_PERSISTENT=$mode timeout $(( $(left) - 3 )) ./build/cuda_bench --sizes=268435456,1073741824 \
    --benchmark_filter="$f" --benchmark_out="$r/p${mode}_$i.json" >"$r/p${mode}_$i.log" 2>&1
  echo "p$mode $i rc $?"; grep -E "^(scan|ceiling)" "$r/p${mode}_$i.log" | cut -c1-110
  i=$((i + 1)); save
done
save
