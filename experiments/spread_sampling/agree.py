import gzip, json, sys, itertools, statistics as st, glob, collections
# Reads the runs of run.sh and prints the p95 of |ratio - 1| between every pair of processes by N band,
# for A (one burst) and for B (four spread repetitions: their median, mean, or the first alone).
def load(p):
    d = json.load(gzip.open(p))
    reps = collections.defaultdict(list); meta = {}
    for b in d['benchmarks']:
        if b.get('run_type') != 'iteration' or b.get('error_occurred'): continue
        reps[b['run_name']].append(b['real_time']); meta[b['run_name']] = b
    return d['context'], reps, meta
def nof(name):
    return int(name.split('N:')[1].split('/')[0])
def p95(v):
    v = sorted(v); return v[max(0, int(round(0.95 * len(v))) - 1)] if v else float('nan')
root = sys.argv[1]  # the folder run.sh fills: a1..a3.json.gz, b1..b3.json.gz
for mode in 'ab':
    runs = [load(p) for p in sorted(glob.glob(f'{root}/{mode}[0-9].json.gz'))]
    if not runs: continue
    print(mode, 'gpu', runs[0][0]['gpu_uuid'], 'wall', [round(r[0]['suite_wall_seconds'], 1) for r in runs])
    for est in ('median', 'mean', 'first'):
        f = {'median': st.median, 'mean': st.mean, 'first': lambda v: v[0]}[est]
        bands = collections.defaultdict(list)
        for (c1, r1, m1), (c2, r2, m2) in itertools.combinations(runs, 2):
            for n in r1:
                if n not in r2 or m1[n]['host_work'] or m1[n]['role'] not in ('kernel', 'library'): continue
                band = 'below 2^16' if nof(n) < 2**16 else '2^16-2^21'
                bands[band].append(abs(f(r2[n]) / f(r1[n]) - 1))
        print(' ', est, {b: ('%.2f%% (n=%d)' % (100 * p95(v), len(v))) for b, v in sorted(bands.items())})
    if mode == 'b':  # within a process: repetitions minutes apart
        w = collections.defaultdict(list)
        for c, r, m in runs:
            for n, v in r.items():
                if m[n]['host_work'] or m[n]['role'] not in ('kernel', 'library') or len(v) < 2: continue
                med = st.median(v)
                w['below 2^16' if nof(n) < 2**16 else '2^16-2^21'] += [abs(x / med - 1) for x in v]
        print('  within a process, |rep / median of reps - 1| p95:', {b: '%.2f%%' % (100 * p95(v)) for b, v in sorted(w.items())})
