"""bench-table: the numbers behind the charts, as markdown tables (no GPU needed).

  python3 -m benchtools.table results/nvidia-h200_*.json --n 2^30 --filter '^reduce_sum/'
  python3 -m benchtools.table results/nvidia-h200_*.json --times 2^10,2^12,2^14,2^16 --filter vector_add

Default: per family and type, each variant at its best block/batch at one N
(default: the largest N of that family/type): time per call, GB/s, fraction
of the theoretical peak, and speed relative to the library baseline (the
speedup chart's rule: baseline time / variant time). --times: time per call
at several N, where launch latency rules. Bad input: one line, exit code 2.
"""
from __future__ import annotations

import sys
from typing import Dict, List, Sequence, Tuple

from benchtools.plot import (_Parser, _config, _kernels, _n_label, _parse_n, _regex, best_at, choose_baseline,
                             load_all, select)
from benchtools.results import Record, ResultsError, best_per_n


def _groups(records: List[Record]) -> Dict[Tuple[str, str], List[Record]]:
    groups: Dict[Tuple[str, str], List[Record]] = {}
    for r in _kernels(records):
        groups.setdefault((r.family, r.type), []).append(r)
    return groups


def summary_rows(records: List[Record], n: int | None, baseline: str | None) -> Dict[Tuple[str, str], list]:
    """{(family, type): [(variant, record, ratio vs baseline or None)]}, fastest first."""
    out = {}
    for key, rs in sorted(_groups(records).items()):
        at = n if n is not None else max(r.n for r in rs)
        best = {s[2]: r for s, r in best_at(rs, at).items()}
        if not best:
            continue
        base = choose_baseline(list(best), baseline)
        base_s = best[base].seconds if base else None
        rows = [(v, r, base_s / r.seconds if base_s else None) for v, r in best.items()]
        out[key] = sorted(rows, key=lambda row: row[1].seconds)
    return out


def time_rows(records: List[Record], sizes: Sequence[int]) -> Dict[Tuple[str, str], Dict[str, Dict[int, Record]]]:
    """{(family, type): {variant: {N: best record}}} for the requested sizes."""
    out: Dict[Tuple[str, str], Dict[str, Dict[int, Record]]] = {}
    for (family, type_, variant), rs in best_per_n(_kernels(records)).items():
        cells = {r.n: r for r in rs if r.n in sizes}
        if cells:
            out.setdefault((family, type_), {})[variant] = cells
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = _Parser(prog="bench-table", description=__doc__.split("\n\n")[0])
    parser.add_argument("results", nargs="+", help="cuda_bench result JSON file(s)")
    parser.add_argument("--filter", default=None, help="regex on family/type/variant")
    parser.add_argument("--n", default=None, help="the N of the summary (number or 2^k; default: largest)")
    parser.add_argument("--baseline", default=None, help="variant the 'vs' column divides by (default: CUB)")
    parser.add_argument("--times", default=None, help="comma list of N: time per call at each instead")
    try:
        args = parser.parse_args(argv)
        _regex("--filter", args.filter)
        runs, records = load_all(args.results, "bench-table")
        records = select(records, args.filter)
        n = _parse_n(args.n) if args.n else None
        sizes = [_parse_n(s) for s in args.times.split(",")] if args.times else None
        if not records:
            raise ResultsError("no successful cuda_bench benchmarks in the input"
                               + (f" match --filter '{args.filter}'" if args.filter else ""))
    except ResultsError as e:
        print(f"bench-table: {e}", file=sys.stderr)
        return 2
    peak = next((r.peak_bandwidth for r in runs if r.peak_bandwidth), None)
    if sizes:
        rows = time_rows(records, sizes)
        if not rows:
            print(f"bench-table: no benchmark at N = {args.times}", file=sys.stderr)
            return 2
        for (family, type_), variants in sorted(rows.items()):
            print(f"\n#### {family} {type_}: time per call (µs)\n")
            print("| variant | " + " | ".join(_n_label(s) for s in sizes) + " |")
            print("|---|" + "---:|" * len(sizes))
            for variant, cells in sorted(variants.items()):
                print(f"| {variant} | " + " | ".join(f"{cells[s].seconds * 1e6:.2f}" if s in cells else "-"
                                                     for s in sizes) + " |")
        return 0
    found = summary_rows(records, n, args.baseline)
    if not found:
        print(f"bench-table: no benchmark at N = {args.n}", file=sys.stderr)
        return 2
    for (family, type_), rows in found.items():
        print(f"\n#### {family} {type_} at N = {_n_label(rows[0][1].n)}\n")
        print("| variant | block/batch | µs | GB/s | of peak | vs library |")
        print("|---|---|---:|---:|---:|---:|")
        for variant, r, ratio in rows:
            frac = f"{r.bytes_per_second / peak:.1%}" if peak else "-"
            vs = f"{ratio:.2f}" if ratio is not None else "-"
            print(f"| {variant} | {_config(r) or '-'} | {r.seconds * 1e6:.1f} | {r.bytes_per_second / 1e9:.0f} | {frac} | {vs} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
