#!/usr/bin/env bash
# Session 21: with --min-time (default 0.01 s): (1) hot mode, 960 benchmarks, 3 rounds alternated, z = --min-time=0,
# m = the default; (2) two default suites back to back (cold, the defaults), the agreement pair.
set -u
r=/tmp/s92; mkdir -p "$r" "$OUT"
save() { tar czf "$OUT/s92.tar.gz" -C /tmp s92; }
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv >"$r/gpu.txt"; cat "$r/gpu.txt"
s=$(date +%s); (source tools/common.sh && ensure_cuda && CUDABENCH_BUILD_TARGET=cuda_bench build) >"$r/build.log" 2>&1; echo "build rc $? $(( $(date +%s) - s )) s"
F=(--sizes=10:21 "--benchmark_filter=^(reduce_sum|reduce_max|scan)/(i32|f32)/" --cache=hot)
for k in 1 2 3; do
  for v in z m; do
    extra=(); [ $v = z ] && extra=(--min-time=0)
    s=$(date +%s); timeout 60 ./build/cuda_bench "${F[@]}" "${extra[@]}" --benchmark_out="$r/${v}$k.json" >"$r/${v}$k.log" 2>&1; echo "$v$k rc $? $(( $(date +%s) - s )) s"
    gzip -9 "$r/${v}$k.json"; save
  done
done
for k in 1 2; do
  s=$(date +%s); timeout 150 ./build/cuda_bench --benchmark_out="$r/run$k.json" >"$r/run$k.log" 2>&1; echo "run$k rc $? $(( $(date +%s) - s )) s"
  gzip -9 "$r/run$k.json"; save
done
