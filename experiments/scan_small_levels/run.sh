#!/usr/bin/env bash
# Session 28: is the float32 2^14 tie of nvidia-h200/scan.md (floor_scan 6.176 us = CCCL 3.5
# cub_inclusive_scan 6.176, one process) a level of that process? Builds cuda_bench with the
# toolkit's CCCL (build/) and with .cccl (build-cccl/, CCCL 3.5), then 4 processes of each at
# 2^12-2^16, floor_scan and every cub_* scan, interleaved, 3 repetitions (as run-floor-check),
# then one process of floor_scan_fixed's shapes at 2^13-2^15 per type (toolkit build).
# Writes $OUT/small.tar.gz.
set -u
r=/tmp/small; rm -rf $r; mkdir -p $r $OUT
save() { tar czf $OUT/small.tar.gz -C /tmp small; }
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv | tee $r/gpu.txt
s=$(date +%s)
(source tools/common.sh && ensure_cuda && export CUDABENCH_BUILD_TARGET=cuda_bench && build &&
 BUILD_DIR=build-cccl CUDABENCH_CMAKE_ARGS="-DCUDABENCH_CCCL_DIR=$PWD/.cccl" build) > $r/build.log 2>&1
echo "build rc $? $(( $(date +%s) - s )) s"
f='^scan/(f32|i32)/(floor_scan|cub_[a-z_]*)/'
for i in 1 2 3 4; do
  for b in build build-cccl; do
    s=$(date +%s)
    ./$b/cuda_bench --device=0 --sizes=4096,16384,65536 --benchmark_repetitions=3 --interleave \
      --benchmark_filter="$f" --benchmark_out=$r/${b}_$i.json > $r/${b}_$i.log 2>&1
    echo "$b $i rc $? $(( $(date +%s) - s )) s"
  done
done
save
for t in f32 i32; do
  ./build/cuda_bench --device=0 --sizes=8192,16384,32768 --benchmark_repetitions=3 --interleave \
    --benchmark_filter="^scan/$t/(floor_scan|floor_scan_fixed)/" --benchmark_out=$r/fixed_$t.json > $r/fixed_$t.log 2>&1
  echo "fixed $t rc $?"
done
save
