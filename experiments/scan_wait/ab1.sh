#!/usr/bin/env bash
# Session 26: the landed look-back on the device: build, gpu_tests, tools/run-ab against 548f884
# (6 rounds, floor_scan and copy_memcpy at 2^20-2^30). Writes $OUT/ab1.tar.gz.
set -u
r=/tmp/ab1; rm -rf $r; mkdir -p $r $OUT
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv | tee $r/gpu.txt
s=$(date +%s)
(source tools/common.sh && ensure_cuda && CUDABENCH_BUILD_TARGET=cuda_bench build && cmake --build build -j16 --target gpu_tests) > $r/build.log 2>&1; echo "build rc $? $(( $(date +%s) - s )) s"
s=$(date +%s); ./build/tests/gpu_tests > $r/gpu_tests.log 2>&1; echo "gpu_tests rc $? $(( $(date +%s) - s )) s: $(grep -E '^\[  (PASSED|FAILED|SKIPPED)' $r/gpu_tests.log | tr '\n' ' ')"
s=$(date +%s)
tools/run-ab 548f884 --rounds 6 --out $r/ab '--benchmark_filter=^(scan/(i32|f32)/floor_scan/N:[0-9]+/|ceiling/f32/copy_memcpy/)' --sizes=20:30 > $r/ab.log 2>&1; echo "run-ab rc $? $(( $(date +%s) - s )) s"
tail -40 $r/ab.log
tar czf $OUT/ab1.tar.gz -C /tmp ab1
