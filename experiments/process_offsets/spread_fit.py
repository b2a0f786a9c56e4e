"""Refits the spread-sampling runs (../spread_sampling/runs.csv.xz): the per-variant and per-dataset
offsets of decompose.py, between processes for each of B's four repetitions (each shuffled over the run
by Google Benchmark's random interleaving) and within a process between repetitions. In run order a
variant's benchmarks run back to back; shuffled, they do not.  python3 spread_fit.py"""
import sys, csv, lzma, io, collections, itertools, math, random
sys.path.insert(0, '.')
from decompose import fit, p95, band, n_of
R = collections.defaultdict(dict)  # (mode, process, rep) -> name -> median
for r in csv.DictReader(io.TextIOWrapper(lzma.open('../spread_sampling/runs.csv.xz'))):
    if 'thrust' in r['benchmark']: continue
    R[r['mode'], r['process'], int(r['repetition'])][r['benchmark']] = float(r['median_us'])
fits = (("raw", (0, 0)), ("less variant", (1, 0)), ("less dataset", (0, 1)), ("less both", (1, 1)))
def rows_of(r1, r2, shuffle=False):
    rows = [(x.split("/N:")[0] + "|" + band(n_of(x)), (x.split("/")[1], n_of(x)), band(n_of(x)), math.log(r2[x] / t)) for x, t in r1.items() if x in r2]
    if shuffle:
        rng = random.Random(1)
        for bd in ("below 2^16", "2^16-2^21"):
            ys = [y for _, _, b, y in rows if b == bd]; rng.shuffle(ys); it = iter(ys)
            rows = [(v, d, b, next(it) if b == bd else y) for v, d, b, y in rows]
    return rows
def report(label, pairs, shuffle=False):
    res = collections.defaultdict(list)
    for r1, r2 in pairs:
        rows = rows_of(r1, r2, shuffle)
        for name, (uv, ud) in fits:
            for bd, e in fit(rows, uv, ud): res[bd, name].append(e)
    for bd in ("below 2^16", "2^16-2^21"):
        print(f"{label:44s} {bd:10s}", " | ".join(f"{k} {100*p95(res[bd,k]):.2f}%" for k, _ in fits))
procs = ['1', '2', '3']
report("A between processes (run order)", [(R['a', p, 0], R['a', q, 0]) for p, q in itertools.combinations(procs, 2)])
for rep in range(4):
    report(f"B rep {rep} between processes (shuffled order)", [(R['b', p, rep], R['b', q, rep]) for p, q in itertools.combinations(procs, 2)])
report("B rep i vs j within a process", [(R['b', p, i], R['b', p, j]) for p in procs for i, j in itertools.combinations(range(4), 2)])
report("B rep i vs j within a process, shuffled null", [(R['b', p, i], R['b', p, j]) for p in procs for i, j in itertools.combinations(range(4), 2)], True)
report("B rep 0 between processes, shuffled null", [(R['b', p, 0], R['b', q, 0]) for p, q in itertools.combinations(procs, 2)], True)
