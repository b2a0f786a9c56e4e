#!/usr/bin/env bash
# Session 25: floor_scan's look-back groups of 32, 16 and 8 tiles (fan.patch applied:
# kFan from src/kernels/scan/fs_fan.h). A tile waits on the A of the tiles before it in
# its group and of the whole group before: up to 63 at 32, 31 at 16, 15 at 8. Each fan
# built in turn (its cuda_bench kept as build/cb_<fan>), the floor_scan GPU tests under
# 16 and 8, then one interleaved process per fan with the copies, two rounds in mirrored
# order.
set -u
r=/tmp/fan; rm -rf "$r"; mkdir -p "$r" "$OUT"
save() { tar czf "$OUT/fan.tar.gz" -C /tmp fan; }
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv >"$r/gpu.txt"; cat "$r/gpu.txt"
fans=(${FANS:-32 16 8})
for fan in "${fans[@]}"; do
  sed -i "s/^#define FS_FAN .*/#define FS_FAN $fan/" src/kernels/scan/fs_fan.h
  s=$(date +%s)
  if [ -d build ]; then cmake --build build -j16 --target cuda_bench gpu_tests >"$r/build_$fan.log" 2>&1
  else (source tools/common.sh && ensure_cuda && CUDABENCH_BUILD_TARGET=cuda_bench build && cmake --build build -j16 --target gpu_tests) >"$r/build_$fan.log" 2>&1; fi
  echo "build $fan rc $? $(( $(date +%s) - s )) s"; cp build/cuda_bench "build/cb_$fan"
  if [ "$fan" != 32 ]; then
    s=$(date +%s); timeout 90 ./build/tests/gpu_tests --gtest_filter='FloorScan*:*floor_scan*' >"$r/tests_$fan.log" 2>&1
    echo "tests $fan rc $? $(( $(date +%s) - s )) s: $(grep -E '^\[  (PASSED|FAILED) +\]' "$r/tests_$fan.log" | tr '\n' ' ')"
  fi
done
save
f='--benchmark_filter=^(scan/(i32|f32)/floor_scan/N:[0-9]+/|ceiling/((i32|f32)/scan_tiles|f32/copy_vec16|f32/copy_memcpy)/)'
order=("${fans[@]}"); for ((i=${#fans[@]}-1; i>=0; i--)); do order+=("${fans[$i]}"); done
for fan in "${order[@]}"; do
  out="$r/run_$fan"; [ -f "$out.json" ] && out="${out}_2"
  timeout 90 "./build/cb_$fan" --interleave --sizes=${SIZES:-33554432,67108864,268435456,1073741824} --max-time=0.3 --precision=0.2 "$f" \
    --benchmark_out="$out.json" >"$out.log" 2>&1; rc=$?
  echo "$fan rc $rc: $(grep -E '^(scan/(i32|f32)/floor_scan|ceiling/f32/copy_memcpy)/N:1073741824' "$out.log" | awk '{printf "%s %s; ", $1, $2}')"
  save
done
