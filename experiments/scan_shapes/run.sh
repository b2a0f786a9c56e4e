#!/usr/bin/env bash
# Session 27: floor_scan's persistent grid at tile shapes past the 64-register cap
# (shapes.patch applied in the working tree: FS_SHAPE="block,items" picks the shape of
# the chosen calls of 2^25 or more, Items + 32 registers a thread). One interleaved
# cuda_bench process a setting with copy_memcpy, two rounds in mirrored order.
# Writes $OUT/shapes.tar.gz.
set -u
r=/tmp/shapes; rm -rf "$r"; mkdir -p "$r" "$OUT"
save() { tar czf "$OUT/shapes.tar.gz" -C /tmp shapes; }
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv >"$r/gpu.txt"; cat "$r/gpu.txt"
s=$(date +%s); (source tools/common.sh && ensure_cuda && CUDABENCH_BUILD_TARGET=cuda_bench build) >"$r/build.log" 2>&1
echo "build rc $? $(( $(date +%s) - s )) s"
f='--benchmark_filter=^(scan/(i32|f32)/floor_scan/N:[0-9]+/|ceiling/f32/copy_memcpy/)'
read -r -a settings <<<"${SETTINGS:-- 384,48 256,48 320,64 256,64 256,96 128,96}"
order=("${settings[@]}"); for ((i=${#settings[@]}-1; i>=0; i--)); do order+=("${settings[$i]}"); done
for st in "${order[@]}"; do
  unset FS_SHAPE; [ "$st" = - ] || export FS_SHAPE=$st
  out="$r/run_${st//,/x}"; [ -f "$out.json" ] && out="${out}_2"
  s=$(date +%s)
  timeout 100 ./build/cuda_bench --interleave --sizes=${SIZES:-67108864,268435456,1073741824} --max-time=0.3 --precision=0.2 "$f" \
    --benchmark_out="$out.json" >"$out.log" 2>&1
  echo "$st rc $? $(( $(date +%s) - s )) s: $(grep -E '^(scan/(i32|f32)/floor_scan|ceiling/f32/copy_memcpy)/N:1073741824' "$out.log" | awk '{printf "%s %s; ", $1, $2}')"
  save
done
