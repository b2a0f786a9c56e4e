#!/usr/bin/env bash
# Session 25: floor_scan's persistent grid with two register tiles a block (pipe_scan_kernel,
# pipe.patch applied; FS_PIPE=1 the current tile stored before the next is scanned, 2 the
# next scanned and its A published first; FS_PIPE_NAP the first nap in ns; FS_PIPE_AHEAD the
# L2 prefetch distance in quarters of the grid, 0 none): the floor_scan GPU tests under each
# order, then one interleaved process per setting with the copies and scan_tiles, two rounds
# in mirrored order. 512 x 32 (floor_scan at 2^26-2^30) runs one block an SM (124-128
# registers), 512 x 16 (floor_scan_fixed) two.
set -u
r=/tmp/pipe; rm -rf "$r"; mkdir -p "$r" "$OUT"
save() { tar czf "$OUT/pipe.tar.gz" -C /tmp pipe; }
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv >"$r/gpu.txt"; cat "$r/gpu.txt"
s=$(date +%s); (source tools/common.sh && ensure_cuda && CUDABENCH_BUILD_TARGET=cuda_bench build && { [ -z "${TEST_MODES-1 2}" ] || cmake --build build -j16 --target gpu_tests; }) >"$r/build.log" 2>&1; echo "build rc $? $(( $(date +%s) - s )) s"
for m in ${TEST_MODES-1 2}; do
  s=$(date +%s); FS_PIPE=$m FS_PIPE_NAP=400 timeout 90 ./build/tests/gpu_tests --gtest_filter='FloorScan*:*floor_scan*' >"$r/tests_$m.log" 2>&1
  echo "tests $m rc $? $(( $(date +%s) - s )) s: $(grep -E '^\[  (PASSED|FAILED) +\]' "$r/tests_$m.log" | tr '\n' ' ')"
done
save
f='--benchmark_filter=^(scan/(i32|f32)/floor_scan/N:[0-9]+/|scan/(i32|f32)/floor_scan_fixed/N:[0-9]+/block:512/batch:16/|ceiling/((i32|f32)/scan_tiles|f32/copy_vec16|f32/copy_memcpy)/)'
settings=(${SETTINGS:-base 1,400,3 1,2400,3 2,400,3 2,1200,3 2,2400,3 2,400,0 2,400,6})
order=("${settings[@]}"); for ((i=${#settings[@]}-1; i>=0; i--)); do order+=("${settings[$i]}"); done
for st in "${order[@]}"; do
  unset FS_PIPE FS_PIPE_NAP FS_PIPE_AHEAD
  if [ "$st" != base ]; then IFS=, read -r FS_PIPE FS_PIPE_NAP FS_PIPE_AHEAD <<<"$st"; export FS_PIPE FS_PIPE_NAP FS_PIPE_AHEAD; fi
  out="$r/run_$st"; [ -f "$out.json" ] && out="${out}_2"
  timeout 90 ./build/cuda_bench --suite=full --interleave --sizes=${SIZES:-67108864,268435456,1073741824} --max-time=0.3 --precision=0.2 "$f" \
    --benchmark_out="$out.json" >"$out.log" 2>&1; rc=$?
  echo "$st rc $rc: $(grep -E '^scan/i32/floor_scan/N:1073741824' "$out.log" | awk '{printf "%s %s; ", $1, $2}')"
  save
done
