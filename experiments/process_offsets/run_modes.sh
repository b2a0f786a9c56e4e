#!/usr/bin/env bash
# Session 21: (1) floor_scan's shapes on this board at 2^26-2^30 against the copies, interleaved;
# (2) per-process offsets by mode, 960 benchmarks, 3 rounds alternated: a = defaults (cold, events, one-call graphs),
#     g = --timing=graph (per-launch time from replays of K captured launches), h = --cache=hot (no flush).
set -u
r=/tmp/s87; mkdir -p "$r" "$OUT"
save() { tar czf "$OUT/s87.tar.gz" -C /tmp s87; }
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv >"$r/gpu.txt"; cat "$r/gpu.txt"
s=$(date +%s); (source tools/common.sh && ensure_cuda && CUDABENCH_BUILD_TARGET=cuda_bench build) >"$r/build.log" 2>&1; echo "build rc $? $(( $(date +%s) - s )) s"
s=$(date +%s); timeout 150 ./build/cuda_bench --suite=full --sizes=26:30 --interleave --max-time=0.3 --precision=0.2 \
  "--benchmark_filter=^(scan/(i32|f32)/floor_scan|ceiling/[a-z0-9]+/(copy_memcpy|copy_vec16|scan_tiles))/" \
  --benchmark_out="$r/shapes.json" >"$r/shapes.log" 2>&1; echo "shapes rc $? $(( $(date +%s) - s )) s"; save
F=(--sizes=10:21 "--benchmark_filter=^(reduce_sum|reduce_max|scan)/(i32|f32)/")
for k in 1 2 3; do
  for v in a g h; do
    extra=(); [ $v = g ] && extra=(--timing=graph); [ $v = h ] && extra=(--cache=hot)
    s=$(date +%s); timeout 90 ./build/cuda_bench "${F[@]}" "${extra[@]}" --benchmark_out="$r/${v}$k.json" >"$r/${v}$k.log" 2>&1; echo "$v$k rc $? $(( $(date +%s) - s )) s"
    gzip -9 "$r/${v}$k.json"; save
  done
done
