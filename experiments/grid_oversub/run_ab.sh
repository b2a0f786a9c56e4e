#!/usr/bin/env bash
# Session 13 (H100): the launch-floor grid kernel oversubscribed (FLOOR_OVERSUB x the resident grid, blocks
# beyond the first wave scheduled by the hardware, like CUB's even share over 5x its occupancy) and with
# contiguous runs forced (FLOOR_CONTIG_MIN=1), against aa20818, sum/max/min/argmax i32/f32 at 2^24-2^28
# Apply oversub_from_env.patch first (git apply experiments/grid_oversub/oversub_from_env.patch); the env vars only reach HEAD's binary.
set -u
r=/tmp/s31; mkdir -p "$r" "$OUT"
finish() { rm -f "$r"/ab*/*burst* "$r"/ab*/r[0-9]*_*.json 2>/dev/null; tar czf "$OUT/s31.tar.gz" -C /tmp s31; }
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv >"$r/gpu.txt"; cat "$r/gpu.txt"
T0=$(date +%s); left() { echo $(( 585 - ($(date +%s) - T0) )); }
f='^reduce_(sum|max|min|argmax)/(i32|f32)/floor_[a-z]*/'
t=$(date +%s)
tools/run-ab aa20818 --rounds 1 --out "$r/warm" --sizes=4096 --benchmark_filter='^reduce_sum/i32/floor_sum/' >"$r/build.log" 2>&1 ||
  { tail -40 "$r/build.log"; finish; exit 1; }
echo "builds $(( $(date +%s) - t )) s"
for cfg in "2 32" "4 32" "4 1"; do
  set -- $cfg; name=ab_o$1_c$2
  l=$(( $(left) - 10 )); [ $l -gt 60 ] || break
  t=$(date +%s)
  FLOOR_OVERSUB=$1 FLOOR_CONTIG_MIN=$2 timeout $l tools/run-ab aa20818 --rounds 4 --out "$r/$name" --sizes=16777216,67108864,268435456 \
    --benchmark_filter="$f" >"$r/$name.log" 2>&1
  echo "$name rc $? $(( $(date +%s) - t )) s"; grep -cE "no difference" "$r/$name/ab.md"; grep -E "faster|slower" "$r/$name/ab.md" | cut -d"|" -f2,5,6,8 | head -30
done
finish
