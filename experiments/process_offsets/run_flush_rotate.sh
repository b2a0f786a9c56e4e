#!/usr/bin/env bash
# Session 21: does a flush that reads a different window of a bigger buffer every call (CUDABENCH_FLUSH_ROTATE=1)
# take away the offsets two processes keep? a = defaults, f = rotating flush; 960 benchmarks, 3 rounds alternated.
set -u
r=/tmp/s90; mkdir -p "$r" "$OUT"
save() { tar czf "$OUT/s90.tar.gz" -C /tmp s90; }
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv >"$r/gpu.txt"; cat "$r/gpu.txt"
s=$(date +%s); (source tools/common.sh && ensure_cuda && CUDABENCH_BUILD_TARGET=cuda_bench build) >"$r/build.log" 2>&1; echo "build rc $? $(( $(date +%s) - s )) s"
F=(--sizes=10:21 "--benchmark_filter=^(reduce_sum|reduce_max|scan)/(i32|f32)/")
for k in 1 2 3; do
  for v in a f; do
    unset CUDABENCH_FLUSH_ROTATE; [ $v = f ] && export CUDABENCH_FLUSH_ROTATE=1
    s=$(date +%s); timeout 90 ./build/cuda_bench "${F[@]}" --benchmark_out="$r/${v}$k.json" >"$r/${v}$k.log" 2>&1; echo "$v$k rc $? $(( $(date +%s) - s )) s"
    gzip -9 "$r/${v}$k.json"; save
  done
done
