#!/usr/bin/env bash
# Session 20: does spreading each small benchmark's samples over the run (K repetitions, randomly
# interleaved by Google Benchmark, each 1/K of the time) make processes agree better than one 30 ms burst?
# A = defaults; B = --benchmark_repetitions=4 --benchmark_enable_random_interleaving=true --max-time=0.0075.
set -u
r=/tmp/s79; mkdir -p "$r" "$OUT"
save() { tar czf "$OUT/s79.tar.gz" -C /tmp s79; }
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv >"$r/gpu.txt"; cat "$r/gpu.txt"
s=$(date +%s); (source tools/common.sh && ensure_cuda && CUDABENCH_BUILD_TARGET=cuda_bench build) >"$r/build.log" 2>&1; echo "build rc $? $(( $(date +%s) - s )) s"
F=(--sizes=10:21 "--benchmark_filter=^(reduce_sum|reduce_max|scan)/(i32|f32)/")
for k in 1 2 3; do
  for v in a b; do
    extra=(); [ $v = b ] && extra=(--benchmark_repetitions=4 --benchmark_enable_random_interleaving=true --max-time=0.0075)
    s=$(date +%s); timeout 150 ./build/cuda_bench "${F[@]}" "${extra[@]}" --benchmark_out="$r/${v}$k.json" >"$r/${v}$k.log" 2>&1; echo "$v$k rc $? $(( $(date +%s) - s )) s"
    gzip -9 "$r/${v}$k.json"; save
  done
done
