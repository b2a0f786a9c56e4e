#!/usr/bin/env bash
# Session 26: trace.cu under each look-back setting (wait.patch applied), analyze.py on each.
# SETTINGS: "FS_NAP,FS_POLL,FS_SENTINEL" (- keeps the default). Writes $OUT/trace.tar.gz.
set -u
r=/tmp/trace; rm -rf "$r"; mkdir -p "$r" "$OUT"
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv >"$r/gpu.txt"; cat "$r/gpu.txt"
nvcc -std=c++17 -O3 -arch=sm_90 --expt-relaxed-constexpr --extended-lambda -DFS_TRACE -I src \
  experiments/scan_wait/trace.cu -o "$r/trace" || exit 1
for st in ${SETTINGS:--,-,0 400,100,0 400,100,1 800,100,1 -,-,1}; do
  unset FS_NAP FS_POLL FS_SENTINEL
  IFS=, read -r nap poll sen <<<"$st"
  [ "$nap" = - ] || export FS_NAP=$nap; [ "$poll" = - ] || export FS_POLL=$poll; export FS_SENTINEL=$sen
  d="$r/s_${st//,/_}"; mkdir -p "$d"
  echo "== setting $st"
  timeout 120 "$r/trace" "$d" | tee "$d/trace.log"
  python3 experiments/scan_wait/analyze.py "$d"/trace_28.bin "$d"/trace_30.bin | tee "$d/analysis.txt"
done
rm -f "$r/trace"; tar czf "$OUT/trace.tar.gz" -C /tmp trace
