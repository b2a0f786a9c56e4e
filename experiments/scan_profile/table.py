"""One line per profiled kernel of run.sh's ncu raw CSV (plain or .xz): time, DRAM bytes
and throughput, the L2 hits of the SMs' loads, three warp stall ratios.
python3 table.py h200_GPU-30518ca5_raw.csv.xz"""
import csv
import io
import lzma
import sys

path = sys.argv[1]
text = lzma.open(path, "rt").read() if path.endswith(".xz") else open(path).read()
rows = list(csv.reader(io.StringIO(text)))
idx = {h: i for i, h in enumerate(rows[0])}


def value(r, h):
    return float(r[idx[h]].replace(",", ""))


for r in rows[2:]:
    k = r[idx["Kernel Name"]]
    if "flush" in k:
        continue
    name = ("copy_vec16" if "copy_kernel" in k else
            "floor_scan " + ("f32" if "<float" in k else "i32") if "persistent" in k else "scan_tiles")
    reads = value(r, "lts__t_sectors_srcunit_tex_op_read.sum")
    hits = value(r, "lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum")
    stall = lambda s: value(r, f"smsp__average_warps_issue_stalled_{s}_per_issue_active.ratio")
    print(f"| {name} | {value(r, 'gpu__time_duration.sum') / 1e3:.1f} | "
          f"{value(r, 'dram__bytes_read.sum') / 2**30:.4f} / {value(r, 'dram__bytes_write.sum') / 2**30:.4f} | "
          f"{value(r, 'dram__throughput.avg.pct_of_peak_sustained_elapsed'):.1f}% | {100 * hits / reads:.1f}% | "
          f"{stall('barrier'):.1f} | {stall('long_scoreboard'):.1f} |")
