#!/usr/bin/env bash
# Session 26: the landed scan against the toolkit CCCL's scans in one interleaved process
# (run-floor-check's toolkit half, with scan_tiles): every even N 2^10-2^30, 3 repetitions.
# Writes $OUT/versus.tar.gz.
set -u
r=/tmp/versus; rm -rf "$r"; mkdir -p "$r" "$OUT"
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv | tee "$r/gpu.txt"
s=$(date +%s); (source tools/common.sh && ensure_cuda && CUDABENCH_BUILD_TARGET=cuda_bench build) >"$r/build.log" 2>&1
echo "build rc $? $(( $(date +%s) - s )) s"
s=$(date +%s)
timeout 300 ./build/cuda_bench --device=0 --sizes=1024,4096,16384,65536,262144,1048576,4194304,16777216,67108864,268435456,1073741824 \
  --benchmark_repetitions=3 --interleave \
  '--benchmark_filter=^scan/[a-z0-9]+/(floor_scan|cub_[a-z_]*|thrust_[a-z_]*)/|^ceiling/f32/(read_vec16|copy_memcpy)/|^ceiling/i32/scan_tiles/' \
  --benchmark_out="$r/scan_toolkit.json" >"$r/run.log" 2>&1
echo "run rc $? $(( $(date +%s) - s )) s"
PYTHONPATH=tools python3 -m benchtools.table "$r/scan_toolkit.json" --versus floor_scan >"$r/scan_toolkit.md" 2>&1 || true
grep -E "^\| 2\^(24|26|28|30) " "$r/scan_toolkit.md"
tar czf "$OUT/versus.tar.gz" -C /tmp versus
