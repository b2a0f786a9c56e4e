#!/usr/bin/env bash
# Session 24: floor_scan's persistent grid with each tile's aggregate computed ahead
# (ahead_scan_kernel, FS_AHEAD=mode,quarters,short nap) in the working tree: the
# floor_scan GPU tests under each mode, then one interleaved process per setting with
# the copies, two rounds in mirrored order. About 6 minutes with the build.
set -u
r=/tmp/ahead; mkdir -p "$r" "$OUT"
save() { tar czf "$OUT/ahead.tar.gz" -C /tmp ahead; }
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv >"$r/gpu.txt"; cat "$r/gpu.txt"
s=$(date +%s); (source tools/common.sh && ensure_cuda && CUDABENCH_BUILD_TARGET=cuda_bench build && cmake --build build -j16 --target gpu_tests) >"$r/build.log" 2>&1; echo "build rc $? $(( $(date +%s) - s )) s"
for m in ${TEST_MODES:-1,3,1 2,5,1 3,3,1}; do
  s=$(date +%s); FS_AHEAD=$m timeout 90 ./build/tests/gpu_tests --gtest_filter='FloorScan*:*floor_scan*' >"$r/tests_$m.log" 2>&1
  echo "tests $m rc $? $(( $(date +%s) - s )) s: $(grep -E '^\[  (PASSED|FAILED) +\]' "$r/tests_$m.log" | tr '\n' ' ')"
done
save
f="--benchmark_filter=^(scan/(i32|f32)/floor_scan|ceiling/(i32/scan_tiles|f32/copy_vec16|f32/copy_memcpy))/"
settings=(${SETTINGS:-base 1,3,1 1,3,0 3,3,1 3,3,0 2,4,1 2,5,1 2,6,1})
order=("${settings[@]}"); for ((i=${#settings[@]}-1; i>=0; i--)); do order+=("${settings[$i]}"); done
for st in "${order[@]}"; do
  unset FS_AHEAD; [ "$st" = base ] || export FS_AHEAD=$st
  out="$r/run_$st"; [ -f "$out.json" ] && out="${out}_2"
  timeout 70 ./build/cuda_bench --interleave --sizes=${SIZES:-67108864,268435456,1073741824} --max-time=0.3 --precision=0.2 "$f" \
    --benchmark_out="$out.json" >"$out.log" 2>&1; rc=$?
  echo "$st rc $rc: $(grep -E 'N:1073741824 ' "$out.log" | awk '{printf "%s %s; ", $1, $2}')"
  save
done
