#!/usr/bin/env bash
# Session 20: a preroll of flushes right before each benchmark's first samples (CUDABENCH_PREROLL_MS), so sampling
# starts with the memory system busy rather than after the setup's idle gap. a = none, b = 2 ms, c = 10 ms.
set -u
r=/tmp/s84; mkdir -p "$r" "$OUT"
save() { tar czf "$OUT/s84.tar.gz" -C /tmp s84; }
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv >"$r/gpu.txt"; cat "$r/gpu.txt"
s=$(date +%s); (source tools/common.sh && ensure_cuda && CUDABENCH_BUILD_TARGET=cuda_bench build) >"$r/build.log" 2>&1; echo "build rc $? $(( $(date +%s) - s )) s"
F=(--sizes=10:21 "--benchmark_filter=^(reduce_sum|reduce_max|scan)/(i32|f32)/")
for k in 1 2 3; do
  for v in a b c; do
    unset CUDABENCH_PREROLL_MS; [ $v = b ] && export CUDABENCH_PREROLL_MS=2; [ $v = c ] && export CUDABENCH_PREROLL_MS=10
    s=$(date +%s); timeout 150 ./build/cuda_bench "${F[@]}" --benchmark_out="$r/${v}$k.json" >"$r/${v}$k.log" 2>&1; echo "$v$k rc $? $(( $(date +%s) - s )) s"
    grep preroll "$r/${v}$k.log" | head -1
    gzip -9 "$r/${v}$k.json"; save
  done
done
