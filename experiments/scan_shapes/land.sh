#!/usr/bin/env bash
# Session 27: the wide shapes as landed (working tree) on the device: build, gpu_tests, then
# tools/run-ab BASE (default HEAD: the commit before them), 6 rounds, floor_scan and
# copy_memcpy at 2^20-2^30. Writes $OUT/land.tar.gz.
set -u
r=/tmp/land; rm -rf $r; mkdir -p $r $OUT
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv | tee $r/gpu.txt
s=$(date +%s)
(source tools/common.sh && ensure_cuda && CUDABENCH_BUILD_TARGET=cuda_bench build && cmake --build build -j16 --target gpu_tests) > $r/build.log 2>&1; echo "build rc $? $(( $(date +%s) - s )) s"
s=$(date +%s); ./build/tests/gpu_tests > $r/gpu_tests.log 2>&1; echo "gpu_tests rc $? $(( $(date +%s) - s )) s: $(grep -E '^\[  (PASSED|FAILED|SKIPPED)' $r/gpu_tests.log | tr '\n' ' ')"
grep -E "^\[  FAILED|^\[       OK \] FloorScan" $r/gpu_tests.log | head -20
tar czf $OUT/land.tar.gz -C /tmp land
s=$(date +%s)
tools/run-ab ${BASE:-HEAD} --rounds 6 --out $r/ab '--benchmark_filter=^(scan/(i32|f32)/floor_scan/N:[0-9]+/|ceiling/f32/copy_memcpy/)' --sizes=20:30 > $r/ab.log 2>&1; echo "run-ab rc $? $(( $(date +%s) - s )) s"
tail -45 $r/ab.log
tar czf $OUT/land.tar.gz -C /tmp land
