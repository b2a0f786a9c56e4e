"""Window medians of kept samples (cuda_bench --keep-samples, run_windows.sh / run_min_time.sh):
for each benchmark the p95 of |median of a window / median - 1| for windows of 1 ms to 1 s (sample index
times the mean sample period), and for two benchmarks sampled interleaved the correlation of their window
medians and the spread of their ratio.  python3 windows.py long1.json.gz ... (numpy)"""
import json, gzip, sys, numpy as np
def load(p):
    d = json.load(gzip.open(p)); out = {}
    for b in d['benchmarks']:
        if 'sample_times' not in b: continue
        out[b['name'].split('/iter')[0]] = (np.array(b['sample_times'], float), b)
    return out
for f in sys.argv[1:]:
    D = load(f); print('==', f)
    names = sorted(D)
    for nm in names:
        x, b = D[nm]
        per = b['sampling_seconds'] / len(x)
        print(f"  {nm:45s} n={len(x)} median={np.median(x):.4f} {b['time_unit']} sample period {per*1e6:.1f} us, q05/q95 {np.quantile(x,.05):.3f}/{np.quantile(x,.95):.3f}")
        row = []
        for w_ms in (1, 3, 10, 30, 100, 300, 1000):
            k = max(1, int(w_ms * 1e-3 / per))
            m = len(x) // k
            if m < 4: continue
            wm = np.median(x[:m*k].reshape(m, k), axis=1)
            dev = np.abs(wm / np.median(x) - 1)
            row.append(f"{w_ms}ms:{100*np.quantile(dev,.95):.2f}%({m})")
        print('     window p95 |median_w/median-1|:', ' '.join(row))
    # correlation between the two variants of a group (same N), 30 ms and 100 ms windows
    for n in sorted({nm.split('N:')[1] for nm in names}, key=int):
        pair = [nm for nm in names if nm.endswith('N:' + n)]
        if len(pair) != 2: continue
        (x1, b1), (x2, b2) = D[pair[0]], D[pair[1]]
        per = b1['sampling_seconds'] / len(x1)
        for w_ms in (10, 30, 100, 300):
            k = max(1, int(w_ms * 1e-3 / per)); m = min(len(x1), len(x2)) // k
            if m < 4: continue
            a = np.median(x1[:m*k].reshape(m, k), 1); c = np.median(x2[:m*k].reshape(m, k), 1)
            r = np.corrcoef(a, c)[0, 1]
            ratio = a / c; rd = np.abs(ratio / np.median(ratio) - 1)
            print(f"   N:{n} {w_ms}ms windows: corr {r:+.2f}, ratio p95 dev {100*np.quantile(rd,.95):.2f}% vs each {100*np.quantile(np.abs(a/np.median(a)-1),.95):.2f}%/{100*np.quantile(np.abs(c/np.median(c)-1),.95):.2f}%")
