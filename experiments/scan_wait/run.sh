#!/usr/bin/env bash
# Session 26: floor_scan's look-back settings (wait.patch applied), each in its own
# interleaved cuda_bench process with scan_tiles and copy_memcpy, two rounds in
# mirrored order; first trace.cu under TRACE settings. A setting is
# "FS_NAP,FS_POLL,FS_SENTINEL,FS_LASTNAP,FS_GDIRECT,FS_ONELOOP" (- keeps the default).
# Writes $OUT/wait.tar.gz (saved after each process).
set -u
r=/tmp/wait; rm -rf "$r"; mkdir -p "$r" "$OUT"
save() { tar czf "$OUT/wait.tar.gz" -C /tmp wait; }
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv >"$r/gpu.txt"; cat "$r/gpu.txt"
apply() {  # a setting into the environment
  unset FS_NAP FS_POLL FS_SENTINEL FS_LASTNAP FS_GDIRECT FS_ONELOOP
  local v=() k i; IFS=, read -r -a v <<<"$1"; k=(FS_NAP FS_POLL FS_SENTINEL FS_LASTNAP FS_GDIRECT FS_ONELOOP)
  for i in 0 1 2 3 4 5; do [ "${v[$i]:--}" = - ] || export "${k[$i]}=${v[$i]}"; done
}
(source tools/common.sh && ensure_cuda && CUDABENCH_BUILD_TARGET=cuda_bench build) >"$r/build.log" 2>&1 &
build=$!
nvcc -std=c++17 -O3 -arch=sm_90 --expt-relaxed-constexpr --extended-lambda -DFS_TRACE -I src \
  experiments/scan_wait/trace.cu -o "$r/trace" || exit 1
for st in ${TRACE:-}; do
  apply "$st"; d="$r/trace_${st//,/_}"; mkdir -p "$d"
  timeout 120 "$r/trace" "$d" >"$d/trace.log" 2>&1
  python3 experiments/scan_wait/analyze.py "$d"/trace_28.bin "$d"/trace_30.bin >"$d/analysis.txt" 2>&1
  echo "trace $st: $(grep -h 'wrong\|untraced' "$d/trace.log" | tr '\n' ' ')"
  grep -E '^==|wait:|need:|latest' "$d/analysis.txt"; rm -f "$d"/*.bin
done
rm -f "$r/trace"; save
s=$(date +%s); wait $build; echo "build rc $? $(( $(date +%s) - s )) s after the traces"
f='--benchmark_filter=^(scan/(i32|f32)/floor_scan/N:[0-9]+/|ceiling/(i32/scan_tiles|f32/copy_memcpy)/)'
read -r -a settings <<<"${SETTINGS:?}"
order=("${settings[@]}"); for ((i=${#settings[@]}-1; i>=0; i--)); do order+=("${settings[$i]}"); done
for st in "${order[@]}"; do
  apply "$st"
  out="$r/run_${st//,/_}"; [ -f "$out.json" ] && out="${out}_2"
  s=$(date +%s)
  timeout 90 ./build/cuda_bench --interleave --sizes=${SIZES:-268435456,1073741824} --max-time=0.3 --precision=0.2 "$f" \
    --benchmark_out="$out.json" >"$out.log" 2>&1; rc=$?
  echo "$st rc $rc $(( $(date +%s) - s )) s: $(grep -E '^(scan/(i32|f32)/floor_scan|ceiling/(f32/copy_memcpy|i32/scan_tiles))/N:1073741824' "$out.log" | awk '{printf "%s %s; ", $1, $2}')"
  save
done
