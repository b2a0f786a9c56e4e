#!/usr/bin/env bash
# Session 22: the working tree (persistent_scan_kernel asks for its next ticket as its
# stores go out) against HEAD by tools/run-ab, after the GPU tests of the working tree.
set -u
r=/tmp/ticket; mkdir -p "$r" "$OUT"
save() { tar czf "$OUT/ticket.tar.gz" -C /tmp ticket; }
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv >"$r/gpu.txt"; cat "$r/gpu.txt"
s=$(date +%s); (source tools/common.sh && ensure_cuda && CUDABENCH_BUILD_TARGET=cuda_bench build && cmake --build build -j16 --target gpu_tests) >"$r/build0.log" 2>&1; echo "build rc $? $(( $(date +%s) - s )) s"
s=$(date +%s); timeout 150 ./build/tests/gpu_tests >"$r/gpu_tests.log" 2>&1; echo "gpu_tests rc $? $(( $(date +%s) - s )) s"; grep -E "PASSED|FAILED|SKIPPED\] [0-9]" "$r/gpu_tests.log" | head -5; save
s=$(date +%s); timeout 300 tools/run-ab HEAD --rounds ${ROUNDS:-4} --sizes=24:30 --out="$r/ab" "--benchmark_filter=^scan/(i32|f32)/floor_scan/" >"$r/ab.log" 2>&1; echo "ab rc $? $(( $(date +%s) - s )) s"; save
tail -25 "$r/ab.log"
