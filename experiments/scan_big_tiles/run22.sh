#!/usr/bin/env bash
# Session 22: the GPU tests of the committed tree (756aece: timer label, sampling refactor),
# then big_tiles.patch applied and floor_scan 512 x 32 against 1024 x 32 (run.sh's run) on
# whatever board came (run.sh stops on a board that is not an H200; this one records it).
set -u
r=/tmp/big_tiles; mkdir -p "$r" "$OUT"
save() { tar czf "$OUT/big_tiles.tar.gz" -C /tmp big_tiles; }
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv >"$r/gpu.txt"; cat "$r/gpu.txt"
s=$(date +%s); (source tools/common.sh && ensure_cuda && CUDABENCH_BUILD_TARGET=cuda_bench build && cmake --build build -j16 --target gpu_tests) >"$r/build0.log" 2>&1; echo "build rc $? $(( $(date +%s) - s )) s"
s=$(date +%s); timeout 150 ./build/tests/gpu_tests >"$r/gpu_tests.log" 2>&1; echo "gpu_tests rc $? $(( $(date +%s) - s )) s"; tail -3 "$r/gpu_tests.log"; save
git apply experiments/scan_big_tiles/big_tiles.patch || { echo "patch failed"; exit 1; }
s=$(date +%s); cmake --build build -j16 --target cuda_bench >"$r/build.log" 2>&1; echo "build rc $? $(( $(date +%s) - s )) s"
s=$(date +%s); timeout 200 ./build/cuda_bench --suite=full --sizes=24:30 --interleave --max-time=0.3 --precision=0.2 \
  "--benchmark_filter=^(scan/(i32|f32)/floor_scan_fixed/N:[0-9]+/block:(512|1024)/batch:32|ceiling/f32/copy_memcpy/)" \
  --benchmark_out="$r/big.json" >"$r/big.log" 2>&1; echo "big rc $? $(( $(date +%s) - s )) s"; gzip -9 "$r/big.json"; save
grep -E "ERROR|N:1073741824" "$r/big.log" | head -20
