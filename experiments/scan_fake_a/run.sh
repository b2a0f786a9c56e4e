#!/usr/bin/env bash
# Session 25: what floor_scan's look-back costs on its own. fake_a.patch applied:
# FS_FAKE=1 publishes each persistent tile's A (0) at its ticket, so no look-back
# waits on a load (wrong output after each (type, n)'s first, verified, call: timing
# only); FS_NAP=ns replaces the first nap. One interleaved process per setting
# with the copies and scan_tiles, two rounds in mirrored order.
set -u
r=/tmp/fake; rm -rf "$r"; mkdir -p "$r" "$OUT"
save() { tar czf "$OUT/fake.tar.gz" -C /tmp fake; }
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv >"$r/gpu.txt"; cat "$r/gpu.txt"
s=$(date +%s); (source tools/common.sh && ensure_cuda && CUDABENCH_BUILD_TARGET=cuda_bench build) >"$r/build.log" 2>&1; echo "build rc $? $(( $(date +%s) - s )) s"
f='--benchmark_filter=^(scan/(i32|f32)/floor_scan/N:[0-9]+/|ceiling/((i32|f32)/scan_tiles|f32/copy_vec16|f32/copy_memcpy)/)'
settings=(${SETTINGS:-base 0,400 1,- 1,400 1,0})
order=("${settings[@]}"); for ((i=${#settings[@]}-1; i>=0; i--)); do order+=("${settings[$i]}"); done
for st in "${order[@]}"; do
  unset FS_FAKE FS_NAP
  if [ "$st" != base ]; then IFS=, read -r FS_FAKE FS_NAP <<<"$st"; export FS_FAKE; [ "$FS_NAP" = - ] || export FS_NAP; fi
  out="$r/run_$st"; [ -f "$out.json" ] && out="${out}_2"
  timeout 90 ./build/cuda_bench --interleave --sizes=${SIZES:-67108864,268435456,1073741824} --max-time=0.3 --precision=0.2 "$f" \
    --benchmark_out="$out.json" >"$out.log" 2>&1; rc=$?
  echo "$st rc $rc: $(grep -E '^(scan/i32/floor_scan|ceiling/f32/copy_memcpy)/N:1073741824' "$out.log" | awk '{printf "%s %s; ", $1, $2}')"
  save
done
