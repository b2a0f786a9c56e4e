"""How much of the disagreement between processes is an offset each process gives a whole
variant, or a whole dataset (type and N), and what is left without them.

    python3 decompose.py runs.csv.xz preroll abc
    python3 decompose.py runs.csv.xz placements ap
    python3 decompose.py runs.csv.xz placements ap shuffled   # the null: ratios shuffled within each band
    python3 decompose.py runs21.csv.xz flush_rotate af       # the twenty-first session's runs (README)
    python3 decompose.py h11_h100_GPU-37d1158c/rep.csv - graph,graphgate,stream,streamgate
        # the eighth session's runs (experiments/gated_batches/gated_batches.tar.xz): no experiment
        # column ("-"), modes comma-separated

For every pair of processes of a mode: log(ratio) of each device-timed kernel or library
benchmark, fitted by a per-variant offset (one per variant and N band), a per-dataset
offset (one per type and N), or both (alternating medians); the p95 of |ratio - 1| raw and
with each fit taken out, by N band.
"""
import collections
import csv
import io
import itertools
import lzma
import math
import random
import statistics as st
import sys


def p95(v):
    v = sorted(v)
    return v[int(round(0.95 * len(v))) - 1] if v else float("nan")


def n_of(name):
    return int(name.split("N:")[1].split("/")[0])


def band(n):
    return "below 2^16" if n < 2**16 else "2^16-2^21"


def fit(rows, use_variant, use_dataset):
    a, b = collections.defaultdict(float), collections.defaultdict(float)
    for _ in range(10):
        if use_variant:
            g = collections.defaultdict(list)
            for v, d, _, y in rows:
                g[v].append(y - b[d])
            a = collections.defaultdict(float, {k: st.median(z) for k, z in g.items()})
        if use_dataset:
            g = collections.defaultdict(list)
            for v, d, _, y in rows:
                g[d].append(y - a[v])
            b = collections.defaultdict(float, {k: st.median(z) for k, z in g.items()})
    return [(bd, abs(math.exp(y - a[v] - b[d]) - 1)) for v, d, bd, y in rows]


def main(path, experiment, modes, shuffled=""):
    runs = collections.defaultdict(dict)  # (mode, process) -> {name: median}
    with (io.TextIOWrapper(lzma.open(path)) if path.endswith(".xz") else open(path)) as f:
        for r in csv.DictReader(f):
            if "median_us" not in r:  # runs21.csv.xz: one row a benchmark, a column "experiment:<mode><process>" each
                if r["host_work"] == "0" and r["role"] in ("kernel", "library"):
                    for col, v in r.items():
                        if col.startswith(experiment + ":") and v:
                            mode, process = col.split(":")[1][:-1], col[-1]
                            runs[mode, process][r["benchmark"]] = float(v)
                continue
            if r.get("experiment", experiment) != experiment or r["host_work"] != "0" \
                    or r.get("role", "kernel") not in ("kernel", "library") or r.get("error", "0") != "0":
                continue
            runs[r["mode"], r["process"]][r.get("benchmark") or r["name"]] = float(r["median_us"])
    modes = modes.split(",") if "," in modes else list(modes)
    fits = (("raw", (0, 0)), ("less variant", (1, 0)), ("less dataset", (0, 1)), ("less both", (1, 1)))
    for mode in modes:
        res = collections.defaultdict(list)
        procs = sorted(p for m, p in runs if m == mode)
        for p1, p2 in itertools.combinations(procs, 2):
            r1, r2 = runs[mode, p1], runs[mode, p2]
            rows = [(x.split("/N:")[0] + "|" + band(n_of(x)), (x.split("/")[1], n_of(x)), band(n_of(x)),
                     math.log(r2[x] / t)) for x, t in r1.items() if x in r2]
            if shuffled:  # no structure left: what the fits take out of noise alone
                rng = random.Random(1)
                for bd in ("below 2^16", "2^16-2^21"):
                    ys = [y for _, _, b, y in rows if b == bd]
                    rng.shuffle(ys)
                    it = iter(ys)
                    rows = [(v, d, b, next(it) if b == bd else y) for v, d, b, y in rows]
            for name, (uv, ud) in fits:
                for bd, e in fit(rows, uv, ud):
                    res[bd, name].append(e)
        for bd in ("below 2^16", "2^16-2^21"):
            print(mode, bd, " | ".join(f"{k} {100 * p95(res[bd, k]):.2f}%" for k, _ in fits))


if __name__ == "__main__":
    main(*sys.argv[1:5])
