"""bench-table: the numbers behind the charts, as markdown or CSV (no GPU needed).

  python3 -m benchtools.table results/nvidia-h200_*.json --n 2^30 --filter '^reduce_sum/'
  python3 -m benchtools.table results/nvidia-h200_*.json --times 2^10,2^12,2^14,2^16 --filter vector_add
  python3 -m benchtools.table h100.json h200.json --compare-gpus --format csv

Default: per family and type, each variant at its best block/batch at one N
(default: the largest N of that family/type): time per call, GB/s, fraction of
that GPU's theoretical peak, and speed relative to the family's declared
reference (the speedup chart's rule: reference time / variant time). Files of
several GPUs are shown side by side, a column group per GPU, each against its
own peak. --times: time per call at several N, where launch latency rules.
--compare-gpus: per benchmark, each GPU's time over the first GPU's.
--versus KERNEL: per N, the kernel beside every library path of its family and
type (each CCCL version of a bench-merge file apart), and its speedup over the
fastest path of each version, over the fastest of all and over its reference;
each column's lowest speedup with its 95% interval and verdict (bench-ab's reading).
Bad input: one line on stderr, exit code 2.
"""
from __future__ import annotations

import csv
import io
import sys
from typing import Dict, List, Optional, Sequence, Tuple

from benchtools.ab import PROCESS_OFFSET_BELOW, Ratios
from benchtools.cli import Parser, check_variant, entry, load, one_of, warn
from benchtools.merge import split_variant
from benchtools.results import Record, ResultsError, best_per_n, interleaved_together
from benchtools.shape import (NOT_REACHED_MARK, NOT_REACHED_NOTE, Chart, Gpu, best_at, by_chart, choose_baseline,
                              config_text, interval_text, kernels, n_label, parse_n)
from benchtools.versus import versus_tables

FORMATS = ("markdown", "csv")
ORDERS = ("fastest", "declared")


# ---------------------------------------------------------------- rows (numbers only)

def summary_rows(records: List[Record], n: int | None, baseline: str | None,
                 order: str = "fastest") -> Dict[Chart, List[Tuple[str, Record, Optional[float]]]]:
    """One GPU: {(family, type): [(variant, best record at N, reference time / its
    time or None)]}, fastest first (or in declaration order)."""
    out = {}
    for key, rs in by_chart(kernels(records)).items():
        at = n if n is not None else max(r.n for r in rs)
        best = {s[2]: r for s, r in best_at(rs, at).items()}
        if not best:
            continue
        base = choose_baseline(rs, baseline)
        base_s = best[base].seconds if base in best else None
        rows = [(v, r, base_s / r.seconds if base_s else None) for v, r in best.items()]
        out[key] = sorted(rows, key=lambda row: row[1].seconds) if order == "fastest" else rows
    return out


def time_rows(records: List[Record], sizes: Sequence[int]) -> Dict[Chart, Dict[str, Dict[int, Record]]]:
    """One GPU: {(family, type): {variant: {N: best record}}} for the requested sizes,
    in declaration order."""
    out: Dict[Chart, Dict[str, Dict[int, Record]]] = {}
    for (family, type_, variant), rs in best_per_n(kernels(records)).items():
        cells = {r.n: r for r in rs if r.n in sizes}
        if cells:
            out.setdefault((family, type_), {})[variant] = cells
    return out


def compare_rows(gpus: Sequence[Gpu], n: int | None) -> Dict[Chart, Tuple[int, List[Tuple[str, List[Optional[Record]]]]]]:
    """{(family, type): (N, [(variant, [best record on each GPU or None])])} at N
    (default: the largest N the first GPU and at least one other both measured),
    in the first GPU's declaration order."""
    out = {}
    ref, others = gpus[0], gpus[1:]
    theirs = [by_chart(kernels(g.records)) for g in others]
    for key, rs in by_chart(kernels(ref.records)).items():
        common = {r.n for r in rs} & {r.n for t in theirs for r in t.get(key, [])}
        at = n if n is not None else max(common, default=None)
        if at is None or at not in common:
            continue
        mine = {s[2]: r for s, r in best_at(rs, at).items()}
        other = [{s[2]: r for s, r in best_at(t.get(key, []), at).items()} for t in theirs]
        rows = [(v, [r] + [o.get(v) for o in other]) for v, r in mine.items() if any(o.get(v) for o in other)]
        if rows:
            out[key] = (at, rows)
    return out


# ---------------------------------------------------------------- printing

def _us(r: Optional[Record], digits: int = 1) -> str:
    """µs per call, with its interval and the not-reached mark where the file has them."""
    return f"{r.seconds * 1e6:.{digits}f}{interval_text(r)}" if r else "-"


def _interval_csv(r: Record) -> List[str]:
    """us_ci_low, us_ci_high, samples, stop_reason (empty for a file without intervals)."""
    return [_num(r.ci_low_seconds * 1e6 if r.ci_low_seconds else None),
            _num(r.ci_high_seconds * 1e6 if r.ci_high_seconds else None), _num(r.samples), r.stop_reason or ""]


INTERVAL_CSV = ["us_ci_low", "us_ci_high", "samples", "stop_reason"]


def _frac(r: Optional[Record], peak: Optional[float]) -> str:
    return f"{r.bytes_per_second / peak:.1%}" if r and peak else "-"


class _Out:
    """Markdown tables under headings, or one CSV table (the header written once),
    collected in .text so that nothing is printed when nothing was found."""

    def __init__(self, fmt: str):
        self.buffer, self.header_done = io.StringIO(), False
        self.csv = csv.writer(self.buffer, lineterminator="\n") if fmt == "csv" else None

    @property
    def text(self) -> str:
        return self.buffer.getvalue()

    def table(self, heading: str, header: Sequence[str], align: Sequence[str], rows: Sequence[Sequence[str]],
              csv_header: Sequence[str], csv_rows: Sequence[Sequence[object]]) -> None:
        if self.csv:
            if not self.header_done:
                self.csv.writerow(csv_header)
                self.header_done = True
            self.csv.writerows(csv_rows)
            return
        lines = [f"\n#### {heading}\n", "| " + " | ".join(header) + " |",
                 "|" + "|".join("---:" if a == "r" else "---" for a in align) + "|"]
        lines += ["| " + " | ".join(row) + " |" for row in rows]
        cells = [c for row in rows for c in row]
        if any(" ± " in c for c in cells):
            lines += ["", "µs: the median per call ± the half-width of its 95% interval (the wider side)."]
        if any(c.endswith(NOT_REACHED_MARK) for c in cells):
            lines += ["", NOT_REACHED_NOTE]
        self.buffer.write("\n".join(lines) + "\n")

    def note(self, text: str) -> None:
        """A paragraph under the last table (markdown only)."""
        if not self.csv:
            self.buffer.write(f"\n{text}\n")


def _num(x: Optional[float], fmt: str = ".9g") -> str:
    return "" if x is None else format(x, fmt)


def print_summary(gpus: Sequence[Gpu], n: int | None, baseline: str | None, order: str, out: _Out) -> bool:
    per_gpu = [summary_rows(g.records, n, baseline, order) for g in gpus]
    charts = list(dict.fromkeys(k for rows in per_gpu for k in rows))
    for key in charts:
        family, type_ = key
        lists = [rows.get(key, []) for rows in per_gpu]
        variants = list(dict.fromkeys(v for rows in lists for v, _, _ in rows))
        cells = [{v: (r, ratio) for v, r, ratio in rows} for rows in lists]
        base = choose_baseline([r for g in gpus for r in g.records if (r.family, r.type) == key], baseline)
        vs = f"vs {base}" if base else "vs reference"
        at = next(rows[0][1].n for rows in lists if rows)
        several = len(gpus) > 1
        header, align = ["variant"], ["l"]
        for g in gpus:
            tag = f" ({g.label})" if several else ""
            header += [f"block/batch{tag}", f"µs{tag}", f"GB/s{tag}", f"of peak{tag}", f"{vs}{tag}"]
            align += ["l", "r", "r", "r", "r"]
        rows, csv_rows = [], []
        for v in variants:
            row = [v]
            for g, c in zip(gpus, cells):
                r, ratio = c.get(v, (None, None))
                row += [(config_text(r) or "-") if r else "-", _us(r), f"{r.bytes_per_second / 1e9:.0f}" if r else "-",
                        _frac(r, g.peak_bandwidth), f"{ratio:.2f}" if ratio is not None else "-"]
                if r:
                    csv_rows.append([g.label, family, type_, r.n, v, r.role, _num(r.block), _num(r.batch),
                                     _num(r.seconds * 1e6), _num(r.bytes_per_second / 1e9),
                                     _num(r.bytes_per_second / g.peak_bandwidth if g.peak_bandwidth else None),
                                     base or "", _num(ratio), *_interval_csv(r)])
            rows.append(row)
        out.table(f"{family} {type_} at N = {n_label(at)}", header, align, rows,
                  ["gpu", "family", "type", "n", "variant", "role", "block", "batch", "us", "gbps", "of_peak",
                   "baseline", "vs_baseline", *INTERVAL_CSV], csv_rows)
    return bool(charts)


def print_times(gpus: Sequence[Gpu], sizes: Sequence[int], out: _Out) -> bool:
    per_gpu = [time_rows(g.records, sizes) for g in gpus]
    charts = list(dict.fromkeys(k for rows in per_gpu for k in rows))
    several = len(gpus) > 1
    for key in charts:
        family, type_ = key
        variants = list(dict.fromkeys(v for rows in per_gpu for v in rows.get(key, {})))
        columns = [(s, i) for s in sizes for i in range(len(gpus))]
        header = ["variant"] + [n_label(s) + (f" ({gpus[i].label})" if several else "") for s, i in columns]
        rows, csv_rows = [], []
        for v in variants:
            got = [rows_.get(key, {}).get(v, {}) for rows_ in per_gpu]
            rows.append([v] + [_us(got[i].get(s), 2) for s, i in columns])
            csv_rows += [[gpus[i].label, family, type_, v, s, _num(got[i][s].seconds * 1e6), *_interval_csv(got[i][s])]
                         for s, i in columns if s in got[i]]
        out.table(f"{family} {type_}: time per call (µs)", header, ["l"] + ["r"] * len(columns), rows,
                  ["gpu", "family", "type", "variant", "n", "us", *INTERVAL_CSV], csv_rows)
    return bool(charts)


def print_compare(gpus: Sequence[Gpu], n: int | None, out: _Out) -> bool:
    found = compare_rows(gpus, n)
    ref = gpus[0]
    for (family, type_), (at, rows) in found.items():
        header, align = ["variant", f"µs ({ref.label})"], ["l", "r"]
        for g in gpus[1:]:
            header += [f"µs ({g.label})", f"{g.label} / {ref.label} time"]
            align += ["r", "r"]
        table, csv_rows = [], []
        for v, records in rows:
            mine = records[0]
            row = [v, _us(mine)]
            for g, r in zip(gpus[1:], records[1:]):
                ratio = r.seconds / mine.seconds if r else None
                row += [_us(r), f"{ratio:.2f}" if ratio is not None else "-"]
                if r:
                    csv_rows.append([family, type_, at, v, ref.label, _num(mine.seconds * 1e6), g.label,
                                     _num(r.seconds * 1e6), _num(ratio)])
            table.append(row)
        out.table(f"{family} {type_} at N = {n_label(at)}: time per call on each GPU (best block/batch on each)",
                  header, align, table,
                  ["family", "type", "n", "variant", "reference_gpu", "reference_us", "gpu", "us", "time_ratio"],
                  csv_rows)
    return bool(found)


def _x(x: Optional[float]) -> str:
    return f"{x:.3f}" if x is not None else "-"


def _lowest(t, variants: Sequence[str], ratios: Ratios) -> Tuple[str, bool]:
    """The kernel's lowest speedup over the fastest of these paths, the N and (of
    several) the path, with that ratio's 95% interval and verdict where the runs
    carry intervals (bench-ab's reading: per repetition, in one process); and
    whether that verdict is below 2^26, where one process cannot settle it."""
    found = [(row, f) for row in t.rows for f in [row.lowest(variants)] if f]
    if not found:
        return "-", False
    row, (path, x) = min(found, key=lambda rf: rf[1][1])
    what = [t.label(path)] if len(variants) > 1 else []
    got = row.interval(path, ratios)
    if got:
        _, low, high, verdict = got
        # bench-ab's verdict is the path's: its time over the kernel's above 1 is "slower"
        who = {"slower": f"{t.kernel} faster", "faster": f"{t.label(path)} faster"}.get(verdict, verdict)
        what.append(f"95% interval {low:.3f}-{high:.3f}: {who}")
    text = f"{x:.3f} at N = {n_label(row.n)}" + (f" ({'; '.join(what)})" if what else "")
    return text, bool(got) and row.n < PROCESS_OFFSET_BELOW


def _interleaved(t) -> bool:
    """Whether every path and its run's kernel were sampled in one interleave group."""
    pairs = [(r, row.kernel_for(v)) for row in t.rows for v, r in row.paths.items()]
    return bool(pairs) and all(interleaved_together(r, k) for r, k in pairs)


def print_versus(gpus: Sequence[Gpu], kernel: str, libraries: Optional[Sequence[str]], out: _Out) -> bool:
    for g in gpus:
        ratios = Ratios(g.records)
        for t in versus_tables(g, kernel, libraries):
            cols = t.ratio_columns()
            roof = t.ceiling_kind
            # with the kernel measured in each build's run, a path's ratio is over its own run's
            # kernel, so the path it fares worst against need not be the fastest
            which = "closest path" if t.copies else "fastest path"
            header = ["N", f"{kernel} µs"] + [f"{t.label(c)} µs" for c in t.copies] + \
                     [f"{t.label(v)} µs" for v in t.paths] + [f"vs {name}" for name, _ in cols] + \
                     ([which] if len(t.paths) > 1 else []) + ([f"of {roof} ceiling"] if t.ceiling else []) + \
                     ([f"of {roof} at N"] if t.ceiling_at else [])
            rows, csv_rows = [], []
            for row in t.rows:
                k = row.kernel
                cells = [n_label(row.n), _us(k, 2) + (f" ({config_text(k)})" if config_text(k) else "")]
                cells += [_us(row.copy(c), 2) for c in t.copies]
                cells += [_us(row.paths.get(v), 2) for v in t.paths]
                for _, variants in cols:
                    f = row.lowest(variants)
                    cells.append(_x(f[1]) if f else "-")
                if len(t.paths) > 1:
                    f = row.lowest(t.paths)
                    cells.append(t.label(f[0]) if f else "-")
                if t.ceiling:
                    cells.append(f"{k.bytes_per_second / t.ceiling:.3f}")
                if t.ceiling_at:
                    at_n = t.ceiling_at.get(row.n)
                    cells.append(f"{k.bytes_per_second / at_n:.3f}" if at_n else "-")
                rows.append(cells)
                csv_rows += [[g.label, t.family, t.type, row.n, kernel, t.versions[kr.variant], _num(kr.seconds * 1e6),
                              split_variant(v)[0], t.versions[v], _num(r.seconds * 1e6), _num(r.seconds / kr.seconds)]
                             for v, r in row.paths.items() for kr in [row.kernel_for(v)]]
            out.table(f"{t.family} {t.type}: {kernel} against every library path ({g.label})", header,
                      ["l", "r"] + ["r"] * (len(header) - 2), rows,
                      ["gpu", "family", "type", "n", "kernel", "kernel_cccl", "kernel_us", "path", "path_cccl",
                       "path_us", "speedup"], csv_rows)
            aggregates = {r.aggregate for row in t.rows for r in [row.kernel, *row.same_run.values(), *row.paths.values()]}
            how = ("the median of the repetitions" if aggregates == {"median"} else
                   "one run each" if aggregates == {None} else "the median where repeated, else one run")
            found = [_lowest(t, variants, ratios) for _, variants in cols]
            lowest = [f"over {name}: lowest {text}" for (name, _), (text, _) in zip(cols, found)]
            unsettled = (" Below 2^26 each process gives each benchmark a level of its own, a few percent at a "
                         "few µs, that no interval from one process includes (docs/precision.md, \"Offsets, "
                         "re-read\"): a verdict there by less than that is confirmed by runs in other processes."
                         if any(u for _, u in found) else "")
            same_run = (f" Each path is compared with {kernel} as measured in the path's own run "
                        f"({', '.join(t.label(c) for c in t.copies)} for "
                        f"{', '.join('CCCL ' + t.versions[c] for c in t.copies)}: the same process"
                        + (", interleaved" if _interleaved(t) else "") + "), so what differs between processes "
                        f"cancels; {which}: the path {kernel}'s speedup is lowest over." if t.copies else "")
            out.note(f"µs per call: {how}; each at its best block/batch per N. Speedup = path time / {kernel} time "
                     f"(above 1: {kernel} is faster).{same_run} {kernel}'s speedup " + "; ".join(lowest) + "." + unsettled
                     + (f" Of {roof} ceiling: {kernel}'s GB/s over the run's measured {roof} ceiling (best over N, "
                        f"{t.ceiling / 1e9:.0f} GB/s)." if t.ceiling else "")
                     + (f" Of {roof} at N: over that ceiling's GB/s at the same N (- where it was not run there; "
                        f"for bytes counted alike, the ceiling's time over {kernel}'s)." if t.ceiling_at else "")
                     + (f" Board: {g.board}" + (f", run {g.dates}" if g.dates else "") + "." if g.board else ""))
    return True


@entry
def main(argv: Sequence[str] | None = None) -> int:
    parser = Parser(prog="bench-table", description=__doc__.split("\n\n")[0])
    parser.add_argument("results", nargs="+", help="cuda_bench result JSON file(s)")
    parser.add_argument("--filter", default=None, help="regex on family/type/variant")
    parser.add_argument("--n", default=None, help="the N of the summary (number or 2^k; default: largest)")
    parser.add_argument("--baseline", default=None, help="variant the 'vs' column divides by "
                                                         "(default: the family's declared reference)")
    parser.add_argument("--times", default=None, help="comma list of N: time per call at each instead")
    parser.add_argument("--compare-gpus", action="store_true",
                        help="per benchmark, each GPU's time over the first GPU's (files of two or more GPUs)")
    parser.add_argument("--versus", default=None, metavar="KERNEL",
                        help="per N, this kernel variant beside every library path (role 'library') of its "
                             "family/type, each CCCL version apart (bench-merge files), with speedups")
    parser.add_argument("--libraries", default=None, help="with --versus: comma list of the variants to compare "
                                                          "against instead of the declared libraries")
    parser.add_argument("--format", default="markdown", help="markdown (default) or csv")
    parser.add_argument("--order", default="fastest", help="rows fastest first (default) or 'declared' "
                                                           "(write-up order)")
    try:
        args = parser.parse_args(argv)
        fmt = one_of("--format", args.format, FORMATS)
        order = one_of("--order", args.order, ORDERS)
        n = parse_n(args.n) if args.n else None
        sizes = [parse_n(s, "--times") for s in args.times.split(",")] if args.times else None
        if sum(map(bool, (args.compare_gpus, sizes, args.versus))) > 1:
            raise ResultsError("--compare-gpus, --times and --versus: choose one")
        if args.libraries and not args.versus:
            raise ResultsError("--libraries needs --versus KERNEL")
        libraries = [v.strip() for v in args.libraries.split(",") if v.strip()] if args.libraries else None
        _, gpus, warnings = load(args.results, "bench-table", args.filter)
        if args.baseline and not (args.compare_gpus or sizes or args.versus):
            check_variant("--baseline", args.baseline, list(dict.fromkeys(r.variant for g in gpus for r in g.records)),
                          args.filter)
        if args.compare_gpus and len(gpus) < 2:
            raise ResultsError("--compare-gpus: the input holds runs of one GPU only "
                               f"({gpus[0].label}); give files of two GPUs")
    except ResultsError as e:
        print(f"bench-table: {e}", file=sys.stderr)
        return 2
    out = _Out(fmt)
    if args.versus:
        try:
            found = print_versus(gpus, args.versus, libraries, out)
        except ResultsError as e:
            print(f"bench-table: {e}", file=sys.stderr)
            return 2
    elif args.compare_gpus:
        found = print_compare(gpus, n, out)
    elif sizes:
        found = print_times(gpus, sizes, out)
    else:
        found = print_summary(gpus, n, args.baseline, order, out)
    if not found:
        what = args.times if sizes else (args.n or "the largest N common to the GPUs")
        print(f"bench-table: no benchmark at N = {what}", file=sys.stderr)
        return 2
    warn(warnings)
    sys.stdout.write(out.text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
