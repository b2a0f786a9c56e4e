#!/usr/bin/env bash
# Session 22: the persistent grid's tiles in shared memory (smem_scan_kernel, 3 blocks of
# 512 an SM) in the working tree: the whole gpu_tests, then tools/run-ab against HEAD,
# then the copy roof in one interleaved process.
set -u
r=/tmp/smem; mkdir -p "$r" "$OUT"
save() { tar czf "$OUT/smem.tar.gz" -C /tmp smem; }
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv >"$r/gpu.txt"; cat "$r/gpu.txt"
s=$(date +%s); (source tools/common.sh && ensure_cuda && CUDABENCH_BUILD_TARGET=cuda_bench build && cmake --build build -j16 --target gpu_tests) >"$r/build0.log" 2>&1; echo "build rc $? $(( $(date +%s) - s )) s"
s=$(date +%s); timeout 150 ./build/tests/gpu_tests >"$r/gpu_tests.log" 2>&1; rc=$?; echo "gpu_tests rc $rc $(( $(date +%s) - s )) s"; grep -E "^\[  (PASSED|FAILED) +\]" "$r/gpu_tests.log" | head -8; save
[ $rc -eq 0 ] || exit 0
s=$(date +%s); timeout 100 ./build/cuda_bench --interleave --sizes=268435456,1073741824 --max-time=0.3 --precision=0.2 \
  "--benchmark_filter=^(scan/(i32|f32)/floor_scan|ceiling/(i32/scan_tiles|f32/copy_vec16|f32/copy_memcpy))/" --benchmark_out="$r/roof.json" >"$r/roof.log" 2>&1; echo "roof rc $? $(( $(date +%s) - s )) s"
grep -E "N:1073741824 " "$r/roof.log" | awk '{print $1, $2}'; save
s=$(date +%s); timeout 260 tools/run-ab HEAD --rounds ${ROUNDS:-4} --sizes=24:30 --out="$r/ab" "--benchmark_filter=^scan/(i32|f32)/floor_scan/" >"$r/ab.log" 2>&1; echo "ab rc $? $(( $(date +%s) - s )) s"; save
grep -E "^\| .scan" "$r/ab.log" | awk -F'|' '{print $2, $5, $6, $8}'
