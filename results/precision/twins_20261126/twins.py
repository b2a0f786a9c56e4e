"""One kernel under two names in one process: each auto benchmark's time against its
fixed twin's (the same compiled kernel, the shape the auto choice takes at that N), per
process and mode. Run from this folder: python3 twins.py (prints twins.md's tables)."""
import collections
import glob
import gzip
import json

# The auto choice at each N (floor_scan::choose; floor_sum's auto table over 16-byte vectors).
TWIN = {('scan', 4096): '256/16', ('scan', 16384): '128/16', ('scan', 65536): '128/16', ('scan', 262144): '256/32',
        ('reduce_sum', 4096): '256/4', ('reduce_sum', 16384): '512/8', ('reduce_sum', 65536): '256/1',
        ('reduce_sum', 262144): '256/1'}
AUTO = {'scan': 'floor_scan', 'reduce_sum': 'floor_sum'}
MODES = [('p1', 'graph launch (default), 1 placement'), ('p8', 'graph launch, 8 placements'),
         ('p16paged', 'graph launch, 16 placements, each allocation in its own 2 MiB pages'),
         ('stream', '--launch=stream'), ('graphtiming', '--timing=graph')]


def load(path):
    d = json.load(gzip.open(path))
    out = {}
    for x in d['benchmarks']:
        if x.get('error_occurred') or x.get('run_type') != 'iteration':
            continue
        parts = x['name'].split('/')
        n = int(next(q for q in parts if q.startswith('N:'))[2:])
        shape = '/'.join(q.split(':')[1] for q in parts if q.startswith(('block:', 'batch:')))
        out[(parts[0], n, parts[2] + ('/' + shape if shape else ''))] = x['real_time']
    return d['context']['gpu_uuid'], out


def main():
    print('| mode | board | ' + ' | '.join(f'{f} 2^{n.bit_length() - 1} ({s})' for (f, n), s in sorted(TWIN.items())) + ' |')
    print('|---|---|' + '---:|' * len(TWIN))
    for mode, what in MODES:
        runs = [load(p) for p in sorted(glob.glob(f'{mode}_r*.json.gz'))]
        cells = []
        for (fam, n), shape in sorted(TWIN.items()):
            auto, twin = (fam, n, AUTO[fam]), (fam, n, AUTO[fam] + '_fixed/' + shape)
            ratios = [r[twin] / r[auto] for _, r in runs if auto in r and twin in r]
            cells.append(' '.join(f'{x:.3f}' for x in ratios) or 'n/a')
        boards = sorted({u[:12] + '…' for u, _ in runs})
        print(f'| {what} | {", ".join(boards)} | ' + ' | '.join(cells) + ' |')


if __name__ == '__main__':
    main()
