#!/usr/bin/env bash
# Session 26, after the new look-back: sanitizers over the scan kernels (the code as
# landed), then naps.patch applied and floor_scan under each "FS_NAP,FS_POLL" setting
# (- keeps the default) in its own interleaved cuda_bench process with copy_memcpy,
# two rounds in mirrored order. Writes $OUT/naps.tar.gz.
set -u
r=/tmp/naps; rm -rf "$r"; mkdir -p "$r" "$OUT"
save() { tar czf "$OUT/naps.tar.gz" -C /tmp naps; }
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv >"$r/gpu.txt"; cat "$r/gpu.txt"
s=$(date +%s)
SANITIZER_FILTER='*scan_tiles*:*floor_scan*:FloorScan*' tools/run-sanitizers --log-dir "$r/sanitizers" >"$r/sanitizers.log" 2>&1
echo "sanitizers rc $? $(( $(date +%s) - s )) s"; tail -15 "$r/sanitizers.log"; save
git apply experiments/scan_wait/naps.patch || exit 1
s=$(date +%s); (source tools/common.sh && ensure_cuda && CUDABENCH_BUILD_TARGET=cuda_bench build) >"$r/build.log" 2>&1
echo "build rc $? $(( $(date +%s) - s )) s"
f='--benchmark_filter=^(scan/(i32|f32)/floor_scan/N:[0-9]+/|ceiling/f32/copy_memcpy/)'
read -r -a settings <<<"${SETTINGS:?}"
order=("${settings[@]}"); for ((i=${#settings[@]}-1; i>=0; i--)); do order+=("${settings[$i]}"); done
for st in "${order[@]}"; do
  unset FS_NAP FS_POLL; IFS=, read -r nap poll <<<"$st"
  [ "$nap" = - ] || export FS_NAP=$nap; [ "$poll" = - ] || export FS_POLL=$poll
  out="$r/run_${st//,/_}"; [ -f "$out.json" ] && out="${out}_2"
  timeout 90 ./build/cuda_bench --interleave --sizes=${SIZES:-16777216,67108864,268435456,1073741824} --max-time=0.3 --precision=0.2 "$f" \
    --benchmark_out="$out.json" >"$out.log" 2>&1
  echo "$st rc $?: $(grep -E '^(scan/(i32|f32)/floor_scan|ceiling/f32/copy_memcpy)/N:1073741824' "$out.log" | awk '{printf "%s %s; ", $1, $2}')"
  save
done
git apply -R experiments/scan_wait/naps.patch
