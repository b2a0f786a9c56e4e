"""One JSON and the floor table from the two builds of one H200 session.

  python3 merge_and_table.py   (in this folder; writes floor_vs_cub_nvidia-h200.json and table.md)

One binary cannot hold two CCCL versions, so the toolkit build (CCCL 3.0.1) and the
-DCUDABENCH_CCCL_DIR build (CCCL 3.5.0) ran one after the other on one board. The
merged file keeps every benchmark of the 3.0 build as it is and adds the 3.5
build's library benchmarks with "cub35_" in place of "cub_" in the variant (name,
run_name, declaration) and a per-benchmark "cccl_version"; the 3.5 build's
floor_sum rows (the same kernel, no CUB in it) are left out. Refuses files of
different boards.
"""
import json
import re
import statistics
import sys

A, B = "floor_cub30_nvidia-h200.json", "floor_cub35_nvidia-h200.json"
a, b = json.load(open(A)), json.load(open(B))
if a["context"]["gpu_uuid"] != b["context"]["gpu_uuid"]:
    sys.exit("different boards: not merged")
merged = {"context": dict(a["context"]), "benchmarks": []}
merged["context"]["merged_from"] = [{"path": A, "cccl_version": a["context"]["cccl_version"], "date": a["context"]["date"]},
                                    {"path": B, "cccl_version": b["context"]["cccl_version"], "date": b["context"]["date"]}]
for x in a["benchmarks"]:
    merged["benchmarks"].append(dict(x, cccl_version=a["context"]["cccl_version"]))
for x in b["benchmarks"]:
    if x.get("role") != "library":
        continue
    y = dict(x, cccl_version=b["context"]["cccl_version"])
    for key in ("name", "run_name", "declaration"):
        y[key] = y[key].replace("/cub_", "/cub35_", 1)
    merged["benchmarks"].append(y)
json.dump(merged, open("floor_vs_cub_nvidia-h200.json", "w"), indent=1)

# Median of the repetitions per (type, variant, N), µs.
med = {}
for x in merged["benchmarks"]:
    if x.get("run_type") != "iteration" or x.get("error_occurred"):
        continue
    _, t, v = x["declaration"].split("/")
    n = int(re.search(r"N:(\d+)", x["name"]).group(1))
    med.setdefault((t, v, n), []).append(x["real_time"])
med = {k: statistics.median(v) for k, v in med.items()}
cub = ["cub_device_reduce", "cub35_device_reduce", "cub35_reduce_nondeterministic", "cub35_reduce_nondeterministic_allocating"]
out = ["Median of 3 repetitions, µs per call, cold L2, one H200 (" + a["context"]["gpu_uuid"] + "), 2026-11-22.",
       "ratio = fastest CUB path (3.0 or 3.5, any) / floor_sum; vs 3.0 = CUB 3.0 Sum / floor_sum (> 1: floor_sum faster).", ""]
for t in ("i32", "f32"):
    out += [f"### {t}", "", "| N | floor_sum | CUB 3.0 Sum | CUB 3.5 Sum | CUB 3.5 not_guaranteed | … allocating | fastest CUB / floor | CUB 3.0 / floor |",
            "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for e in range(10, 31, 2):
        n = 1 << e
        f = med[(t, "floor_sum", n)]
        c = [med.get((t, v, n)) for v in cub]
        fastest = min(x for x in c if x is not None)
        out.append(f"| 2^{e} | {f:.2f} | " + " | ".join(f"{x:.2f}" for x in c) + f" | {fastest / f:.3f} | {c[0] / f:.3f} |")
    out.append("")
open("table.md", "w").write("\n".join(out) + "\n")
print("\n".join(out))
