#!/usr/bin/env bash
# Session 21: --min-time (precision claimed only after 10 ms of sampling). (1) the timer's GPU tests; (2) hot mode,
# 960 benchmarks, 3 rounds alternated: z = --min-time=0 (as before), m = the default; (3) the default suite with
# --min-time=0 and with the default, same board; (4) one process, floor_sum and cub at 2^18 interleaved for 25 s each,
# every sample kept: the board's state over a minute within one process.
set -u
r=/tmp/s91; mkdir -p "$r" "$OUT"
save() { tar czf "$OUT/s91.tar.gz" -C /tmp s91; }
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv >"$r/gpu.txt"; cat "$r/gpu.txt"
s=$(date +%s); (source tools/common.sh && ensure_cuda && CUDABENCH_BUILD_TARGET=cuda_bench build) >"$r/build.log" 2>&1; echo "build rc $? $(( $(date +%s) - s )) s"
s=$(date +%s); cmake --build build -j16 --target gpu_tests >"$r/build_tests.log" 2>&1; echo "gpu_tests build rc $? $(( $(date +%s) - s )) s"
s=$(date +%s); timeout 120 ./build/tests/gpu_tests --gtest_filter='Timer.*:Sampling*:*Interleave*' >"$r/gpu_tests.log" 2>&1; echo "gpu_tests rc $? $(( $(date +%s) - s )) s"; tail -3 "$r/gpu_tests.log"; save
F=(--sizes=10:21 "--benchmark_filter=^(reduce_sum|reduce_max|scan)/(i32|f32)/" --cache=hot)
for k in 1 2 3; do
  for v in z m; do
    extra=(); [ $v = z ] && extra=(--min-time=0)
    s=$(date +%s); timeout 60 ./build/cuda_bench "${F[@]}" "${extra[@]}" --benchmark_out="$r/${v}$k.json" >"$r/${v}$k.log" 2>&1; echo "$v$k rc $? $(( $(date +%s) - s )) s"
    gzip -9 "$r/${v}$k.json"; save
  done
done
for v in z m; do
  extra=(); [ $v = z ] && extra=(--min-time=0)
  s=$(date +%s); timeout 150 ./build/cuda_bench "${extra[@]}" --benchmark_out="$r/suite_$v.json" >"$r/suite_$v.log" 2>&1; echo "suite_$v rc $? $(( $(date +%s) - s )) s"
  gzip -9 "$r/suite_$v.json"; save
done
s=$(date +%s); timeout 80 ./build/cuda_bench --interleave --keep-samples --min-samples=5000000 --max-samples=5000000 --max-time=25 --sizes=262144 \
  "--benchmark_filter=^reduce_sum/i32/(floor_sum|cub_device_reduce)/" --benchmark_out="$r/minute.json" >"$r/minute.log" 2>&1; echo "minute rc $? $(( $(date +%s) - s )) s"
gzip -9 "$r/minute.json"; save
