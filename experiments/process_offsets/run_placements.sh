#!/usr/bin/env bash
# Session 20: does rotating each sample over 8 copies of its case, each allocation in pages of its own, take away the
# per-dataset and per-variant offsets between processes? a = defaults, p = --placements=8, CUDABENCH_PAGE_PER_ALLOCATION=1.
set -u
r=/tmp/s85; mkdir -p "$r" "$OUT"
save() { tar czf "$OUT/s85.tar.gz" -C /tmp s85; }
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv >"$r/gpu.txt"; cat "$r/gpu.txt"
s=$(date +%s); (source tools/common.sh && ensure_cuda && CUDABENCH_BUILD_TARGET=cuda_bench build) >"$r/build.log" 2>&1; echo "build rc $? $(( $(date +%s) - s )) s"
F=(--sizes=10:21 "--benchmark_filter=^(reduce_sum|reduce_max|scan)/(i32|f32)/")
for k in 1 2 3; do
  for v in a p; do
    unset CUDABENCH_PAGE_PER_ALLOCATION; extra=()
    [ $v = p ] && { export CUDABENCH_PAGE_PER_ALLOCATION=1; extra=(--placements=8); }
    s=$(date +%s); timeout 150 ./build/cuda_bench "${F[@]}" "${extra[@]}" --benchmark_out="$r/${v}$k.json" >"$r/${v}$k.log" 2>&1; echo "$v$k rc $? $(( $(date +%s) - s )) s"
    gzip -9 "$r/${v}$k.json"; save
  done
done
