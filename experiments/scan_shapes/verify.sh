#!/usr/bin/env bash
# Session 28: the landed scan (ff297df) on whatever board the call gets. Build, gpu_tests (the
# review's tests from cb8aedd had not run on a GPU), tools/run-floor-check --family scan (carry
# .cccl); on an H100 also tools/run-ab against 5306a4c (before the wide shape) at 2^20-2^30,
# unless SKIP_AB=1. Writes $OUT/verify.tar.gz after each step.
set -u
r=/tmp/verify; rm -rf $r; mkdir -p $r $OUT
save() { tar czf $OUT/verify.tar.gz -C /tmp verify; }
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv | tee $r/gpu.txt
git log --oneline -1 | tee $r/head.txt; git status --short | head -5
s=$(date +%s)
(source tools/common.sh && ensure_cuda && CUDABENCH_BUILD_TARGET=cuda_bench build && cmake --build build -j16 --target gpu_tests) > $r/build.log 2>&1; echo "build rc $? $(( $(date +%s) - s )) s"
s=$(date +%s); ./build/tests/gpu_tests > $r/gpu_tests.log 2>&1; echo "gpu_tests rc $? $(( $(date +%s) - s )) s: $(grep -E '^\[  (PASSED|FAILED)' $r/gpu_tests.log | tr '\n' ' ')"
grep -E "^\[  FAILED|^\[       OK \] FloorScan\.(CallsByN|Last)" $r/gpu_tests.log | head -20; save
s=$(date +%s); tools/run-floor-check $r/fc --family scan > $r/fc.log 2>&1; echo "floor-check rc $? $(( $(date +%s) - s )) s"
grep -E "^\| 2\^(2[4-9]|30) |lowest" $r/fc.log | cut -c1-400 | tail -14; save
if grep -q H100 $r/gpu.txt && [ "${SKIP_AB:-0}" != 1 ]; then
  s=$(date +%s)
  tools/run-ab 5306a4c --rounds 6 --out $r/ab '--benchmark_filter=^(scan/(i32|f32)/floor_scan/N:[0-9]+/|ceiling/f32/copy_memcpy/)' --sizes=20:30 > $r/ab.log 2>&1; echo "run-ab rc $? $(( $(date +%s) - s )) s"
  grep -E "^\| \`scan" $r/ab.log | cut -d'|' -f2,4,5,6,8,9,10; save
fi
