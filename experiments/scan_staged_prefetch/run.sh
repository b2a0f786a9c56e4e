#!/usr/bin/env bash
# staged_prefetch.patch applied: HEAD's persistent grid against every grouped aligned call
# staged (FS_STAGED_ALL), with the L2 prefetch FS_STAGED_AHEAD quarters of the grid ahead
# and the staged first nap FS_NAP (ns); one process a mode with the copies, two rounds in
# mirrored order. Any board (the GPU is recorded). About 1.5 minutes with the build.
set -u
r=/tmp/stpf; mkdir -p "$r" "$OUT"
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv >"$r/gpu.txt"; cat "$r/gpu.txt"
s=$(date +%s); (source tools/common.sh && ensure_cuda && CUDABENCH_BUILD_TARGET=cuda_bench build) >"$r/build.log" 2>&1; echo "build rc $? $(( $(date +%s) - s )) s"
f="--benchmark_filter=^(scan/(i32|f32)/floor_scan|ceiling/(i32/scan_tiles|f32/copy_vec16|f32/copy_memcpy))/"
modes="head staged staged_p3 staged_p4 staged_p3_nap2400"
for mode in $modes $(echo $modes | tr ' ' '\n' | tac); do
  unset FS_STAGED_ALL FS_STAGED_AHEAD FS_NAP
  case $mode in
    staged) export FS_STAGED_ALL=1 ;;
    staged_p3) export FS_STAGED_ALL=1 FS_STAGED_AHEAD=3 ;;
    staged_p4) export FS_STAGED_ALL=1 FS_STAGED_AHEAD=4 ;;
    staged_p3_nap2400) export FS_STAGED_ALL=1 FS_STAGED_AHEAD=3 FS_NAP=2400 ;;
  esac
  out="$r/$mode"; [ -f "$out.json" ] && out="$r/${mode}_2"
  timeout 90 ./build/cuda_bench --interleave --sizes=67108864,268435456,1073741824 --max-time=0.3 --precision=0.2 "$f" \
    --benchmark_out="$out.json" >"$out.log" 2>&1; echo "rc $?"
  echo "$mode: $(grep -E 'N:1073741824 ' "$out.log" | awk '{printf "%s %s; ", $1, $2}')"
done
tar czf "$OUT/stpf.tar.gz" -C /tmp stpf
