#!/usr/bin/env bash
# The scan sweep for a new board (issue 21; written for the H200), one device call: builds cuda_bench with
# naps_from_env.patch (the look-back's naps read from FS_NAPS at the first call;
# the defaults are the committed constants), then
#   1. floor_scan_fixed, every compiled block x items pair, with floor_scan, CUB's
#      scans and the copy ceilings, interleaved, at 2^22, 2^24, 2^26, 2^28, 2^30 (--max-time=1);
#   2. floor_scan (shape by n) under each nap setting in NAPS, with copy_memcpy
#      in the same process, at 2^22 ... 2^30.
# Writes $OUT/sweep.tar.gz (JSON and logs).
set -u
out=${OUT:-/tmp/out}; r=/tmp/scan_naps; mkdir -p "$r" "$out"
git apply experiments/scan_naps/naps_from_env.patch || exit 1
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm,clocks.max.mem --format=csv >"$r/gpu.txt"
start=$(date +%s)
{ cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release && ninja -C build cuda_bench; } >"$r/build.log" 2>&1 ||
  { tail -40 "$r/build.log"; tar czf "$out/sweep.tar.gz" -C /tmp scan_naps; exit 1; }
echo "build $(( $(date +%s) - start )) s" | tee -a "$r/times.txt"
B=./build/cuda_bench
sweep='^scan/(i32|f32)/(floor_scan(_fixed)?|cub_[a-z_]*)/|^ceiling/(f32/(copy_memcpy|copy_vec16)|i32/scan_tiles)/'
t=$(date +%s)
timeout 240 $B --suite=full --interleave --max-time=1 --sizes=4194304,16777216,67108864,268435456,1073741824 \
  --benchmark_filter="$sweep" --benchmark_out="$r/sweep.json" >"$r/sweep.log" 2>&1
echo "sweep rc $? $(( $(date +%s) - t )) s" | tee -a "$r/times.txt"
naps_filter='^scan/(i32|f32)/floor_scan/|^ceiling/f32/copy_memcpy/'
i=0
for naps in ${NAPS:-400,2400,100,1024 400,1200,100,1024 400,600,100,1024 400,3600,100,1024 400,4800,100,1024 800,2400,100,1024 200,2400,100,1024 400,2400,100,4096 400,2400,100,1024}; do
  t=$(date +%s)
  FS_NAPS=$naps timeout 60 $B --suite=full --interleave --sizes=4194304,16777216,67108864,268435456,1073741824 \
    --benchmark_filter="$naps_filter" --benchmark_out="$r/naps_$i.json" >"$r/naps_$i.log" 2>&1
  echo "naps $i $naps rc $? $(( $(date +%s) - t )) s" | tee -a "$r/times.txt"
  i=$((i + 1))
done
tar czf "$out/sweep.tar.gz" -C /tmp scan_naps
