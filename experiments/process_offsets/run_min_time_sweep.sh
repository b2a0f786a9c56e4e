#!/usr/bin/env bash
# Session 21: how long must hot-mode sampling run before precision may stop it? 960 benchmarks, hot, 3 rounds
# alternated: --min-time = 0.003 (a), 0.005 (b), 0.01 (c, the default).
set -u
r=/tmp/s93; mkdir -p "$r" "$OUT"
save() { tar czf "$OUT/s93.tar.gz" -C /tmp s93; }
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv >"$r/gpu.txt"; cat "$r/gpu.txt"
s=$(date +%s); (source tools/common.sh && ensure_cuda && CUDABENCH_BUILD_TARGET=cuda_bench build) >"$r/build.log" 2>&1; echo "build rc $? $(( $(date +%s) - s )) s"
F=(--sizes=10:21 "--benchmark_filter=^(reduce_sum|reduce_max|scan)/(i32|f32)/" --cache=hot)
for k in 1 2 3; do
  for v in a b c; do
    case $v in a) t=0.003;; b) t=0.005;; c) t=0.01;; esac
    s=$(date +%s); timeout 60 ./build/cuda_bench "${F[@]}" --min-time=$t --benchmark_out="$r/${v}$k.json" >"$r/${v}$k.log" 2>&1; echo "$v$k rc $? $(( $(date +%s) - s )) s"
    gzip -9 "$r/${v}$k.json"; save
  done
done
