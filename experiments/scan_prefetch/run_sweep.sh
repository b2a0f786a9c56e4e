#!/usr/bin/env bash
# experiments/scan_prefetch: floor_scan processes under FS_PREFETCH="mode,factor" (mode 1: during the look-back, 2: at the
# ticket; factor x grid tiles ahead) and FS_LONGNAP (ns), two rounds in mirrored order. Needs prefetch_sweep.patch applied.
set -u
r=/tmp/scan_prefetch; mkdir -p "$r" "$OUT"
T0=$(date +%s); left() { echo $(( 575 - ($(date +%s) - T0) )); }
save() { tar czf "$OUT/scan_prefetch.tar.gz" -C /tmp scan_prefetch; }
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv >"$r/gpu.txt"; cat "$r/gpu.txt"
t=$(date +%s); (source tools/common.sh && ensure_cuda && CUDABENCH_BUILD_TARGET=cuda_bench build) >"$r/build.log" 2>&1
echo "build rc $? $(( $(date +%s) - t )) s"; save
settings=("off|" "1,0.25|1600" "1,0.5|1600" "1,0.75|1600" "1,0.5|800" "1,0.5|1200" "1,0.5|2400" "1,0.25|1200" "1,0.5|1600|ns")
i=0
for round in 1 2; do
  order=("${settings[@]}"); [ $round = 2 ] && order=($(printf '%s\n' "${settings[@]}" | tac))
  for s in "${order[@]}"; do
    [ "$(left)" -lt 30 ] && break 2
    IFS="|" read -r pf ln ns <<<"$s"; i=$((i+1))
    t=$(date +%s)
    env ${ln:+FS_LONGNAP=$ln} ${ns:+FS_NOSTAGE=1} $( [ "$pf" != off ] && echo FS_PREFETCH=$pf ) timeout 60 ./build/cuda_bench \
      --sizes=16777216,33554432,268435456,1073741824 \
      --benchmark_filter='^(scan/i32/floor_scan|ceiling/f32/copy_memcpy)/' \
      --benchmark_out="$r/run_${i}.json" >"$r/run_${i}.log" 2>&1
    echo "$i round=$round pf=$pf nap=${ln:-2400}${ns:+ns} rc=$? $(( $(date +%s) - t )) s" | tee -a "$r/runs.txt"
  done
done
save
python3 - "$r" <<'PY' | tee "$r/summary.txt"
import json, sys, re, collections
r = sys.argv[1]
rows = collections.defaultdict(list)
for line in open(f"{r}/runs.txt"):
    f = dict(kv.split("=") for kv in line.split()[1:5] if "=" in kv)
    i = line.split()[0]
    try: d = json.load(open(f"{r}/run_{i}.json"))
    except Exception as e: print("skip", i, e); continue
    for b in d["benchmarks"]:
        if b.get("run_type") == "aggregate": continue
        rows[(b["name"], f["pf"], f["nap"])].append(b["real_time"])
for k in sorted(rows): print(k[0], "pf", k[1], "nap", k[2], " ".join(f"{v:.1f}" for v in rows[k]))
PY
save
