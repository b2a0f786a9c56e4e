#!/usr/bin/env bash
# Session 27, second step: one wide shape for every type (256 x 96, before_warp added with the
# prefix) on the device: build, gpu_tests, tools/run-ab BASE (default HEAD) 6 rounds at
# 2^24-2^30, then tools/run-floor-check --family scan (carry .cccl). Writes $OUT/land2.tar.gz.
set -u
r=/tmp/land2; rm -rf $r; mkdir -p $r $OUT
save() { tar czf $OUT/land2.tar.gz -C /tmp land2; }
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv | tee $r/gpu.txt
s=$(date +%s)
(source tools/common.sh && ensure_cuda && CUDABENCH_BUILD_TARGET=cuda_bench build && cmake --build build -j16 --target gpu_tests) > $r/build.log 2>&1; echo "build rc $? $(( $(date +%s) - s )) s"
s=$(date +%s); ./build/tests/gpu_tests > $r/gpu_tests.log 2>&1; echo "gpu_tests rc $? $(( $(date +%s) - s )) s: $(grep -E '^\[  (PASSED|FAILED)' $r/gpu_tests.log | tr '\n' ' ')"
grep -E "^\[  FAILED|^\[       OK \] FloorScan" $r/gpu_tests.log | head -20; save
s=$(date +%s)
tools/run-ab ${BASE:-HEAD} --rounds 6 --out $r/ab '--benchmark_filter=^(scan/(i32|f32)/floor_scan/N:[0-9]+/|ceiling/f32/copy_memcpy/)' --sizes=24:30 > $r/ab.log 2>&1; echo "run-ab rc $? $(( $(date +%s) - s )) s"
grep -E "^\| \`scan" $r/ab.log | cut -d'|' -f2,4,5,6,8,9,10; save
s=$(date +%s); tools/run-floor-check $r/fc --family scan > $r/fc.log 2>&1; echo "floor-check rc $? $(( $(date +%s) - s )) s"
grep -E "^\| 2\^(2[4-9]|30) |lowest" $r/fc.log | cut -c1-400 | tail -14; save
