"""bench-ab: each variant against a chosen one, per N, with the ratio's 95% interval
and a verdict (no GPU needed).

  python3 -m benchtools.ab results/RUN.json --versus cub_device_reduce --filter '^reduce_sum/i32/'
  python3 -m benchtools.ab RUN.json --versus cub_device_reduce --format json --out ab.json --chart ab.png

Per family/type and N, every other variant (each at its best block/batch) against
the chosen one: time ratio variant / chosen (below 1: the variant is faster), its
95% interval from the two medians' intervals (docs/precision.md, "A/B"), and the
verdict: faster, slower, or no difference at this precision. Benchmarks sampled
in one interleave group (cuda_bench --interleave) are said to be so; others were
measured at different times, a weaker comparison. A run with
--benchmark_repetitions=K is read per repetition: each repetition's ratio (both
sampled in the same round) with its interval, combined over the K
(stats.repetitions_interval: weighted in log space, widened to the repetitions'
own t interval). Files without intervals (from before precision sampling) are
refused.
Bad input: one line on stderr, exit code 2.
"""
from __future__ import annotations

import csv
import io
import json
import sys
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

from benchtools import stats
from benchtools.cli import Parser, check_outputs, check_variant, entry, load, one_of, warn, write_text, writing
from benchtools.results import Record, Results, ResultsError, best_per_n, interleaved_together
from benchtools.shape import Chart, Gpu, by_chart, config_text, kernels, n_label

FORMATS = ("markdown", "csv", "json")
INTERLEAVED = "interleaved, same process"
ACROSS_TIME = "across time (sampled separately: weaker)"
# Below this N a benchmark also reads at a level its process gives it, different in the next:
# two processes that sampled floor_sum and cub_device_reduce interleaved for 6 s each read
# them 2.4-4.7% apart at 2^12 and 2^18 (H100, docs/precision.md, "Offsets, re-read"), their
# ratio 0.0% and 1.8% apart; the same kernel under two names up to ~5% apart, either way.
# The fitted offsets of experiments/process_offsets/ (p95 1.0-1.3% at 2^22-2^25, about
# 0.3-0.7% from 2^26) give the size above 2^22.
PROCESS_OFFSET_BELOW = 1 << 26


def process_offset_note(ns: Sequence[int]) -> Optional[str]:
    """What no interval from one process includes, for the N compared; None from 2^26."""
    low = min(ns, default=PROCESS_OFFSET_BELOW)
    if low >= PROCESS_OFFSET_BELOW:
        return None
    above = "about 1% (95th percentile 1.0-1.3% at 2^22-2^25"
    size = ("a few percent below 2^22 (two processes' interleaved ratios 0.0-1.8% apart, the same kernel under "
            "two names up to ~5%), " + above if low < 1 << 22 else above)
    return ("Below 2^26 two things move a ratio that no interval from one process includes: an offset a "
            f"benchmark may keep in every process (one kernel under two names, docs/precision.md), and the level "
            f"each process gives each benchmark, different in the next: {size} on the boards measured; "
            "docs/precision.md, \"Offsets, re-read\", experiments/process_offsets/). A verdict there by less than "
            "that is confirmed by runs in other processes agreeing, and for two commits by tools/run-ab, whose "
            "rounds are separate processes.")


NOT_REACHED = ("† precision not reached: the variant or the chosen one stopped on its time or sample cap "
               "before its interval was within the precision asked for (its interval is wider)")


@dataclass(frozen=True)
class Comparison:
    family: str
    type: str
    n: int
    variant: str
    chosen: str
    ratio: float            # variant median / chosen median
    low: float              # its 95% interval
    high: float
    verdict: str
    interleaved: bool       # both in one interleave group: sampled round-robin in one process
    from_samples: bool      # both intervals recomputed from the raw samples
    variant_config: str
    chosen_config: str
    precision_reached: bool  # both stopped on their precision, not on a time or sample cap

    @property
    def how(self) -> str:
        return INTERLEAVED if self.interleaved else ACROSS_TIME


def reading_step(records: Sequence[Record]) -> float:
    """The timer's reading step as the results show it: the smallest positive distance
    between a median and an end of its interval (CUDA events on Hopper: 32 ns); 0 when
    no interval has one."""
    gaps = [g for r in records if r.ci_low_seconds is not None
            for g in (r.seconds - r.ci_low_seconds, r.ci_high_seconds - r.seconds) if g > r.seconds * 1e-9]
    return min(gaps, default=0.0)


def _interval(r: Record, from_samples: bool, step: float = 0.0) -> Tuple[float, float, float]:
    """(median, low, high) in seconds: from the raw samples when asked (and there are
    enough of them), else the JSON's real_time, ci_low and ci_high; never narrower
    than one reading step (stats.at_least_one_step)."""
    got = stats.median_interval(r.sample_seconds) if from_samples and r.sample_seconds else None
    return stats.at_least_one_step(got or (r.seconds, r.ci_low_seconds, r.ci_high_seconds), step)


def _run_key(r: Record) -> Tuple:
    """A benchmark within one run: repetition indices restart in every file (and build)."""
    return (r.source, r.series, r.n, r.block, r.batch)


def _repetitions(records: Sequence[Record]) -> Dict[Tuple, Dict[int, Record]]:
    """{benchmark of a run: {repetition: its plain run}} for the runs that carry an interval."""
    out: Dict[Tuple, Dict[int, Record]] = {}
    for r in records:
        if r.aggregate is None and r.ci_low_seconds is not None:
            out.setdefault(_run_key(r), {})[r.repetition] = r
    return out


def _ratio(v: Record, c: Record, reps: Dict[Tuple, Dict[int, Record]], step: float
           ) -> Optional[Tuple[Tuple[float, float, float], bool, bool]]:
    """((ratio, low, high), from raw samples, both reached their precision) of v over c:
    per repetition where the two are repetitions' aggregates, else from the two runs;
    None where there is no interval to read (an aggregate with fewer than two
    repetitions of both beside it: its repetitions failed, or one side was not repeated)."""
    if v.aggregate is not None or c.aggregate is not None:
        rv, rc = (reps.get(_run_key(r), {}) for r in (v, c))
        both = sorted(set(rv) & set(rc))
        got = stats.repetitions_interval([stats.ratio_interval(_interval(rv[k], False, step),
                                                               _interval(rc[k], False, step)) for k in both])
        if got is not None:
            reached = all(r.precision_reached is not False for k in both for r in (rv[k], rc[k]))
            return got, False, reached
    if v.ci_low_seconds is None or c.ci_low_seconds is None:
        return None
    both_samples = bool(v.sample_seconds and c.sample_seconds)
    iv, ic = _interval(v, both_samples, step), _interval(c, both_samples, step)
    return (stats.ratio_interval(iv, ic), both_samples,
            v.precision_reached is not False and c.precision_reached is not False)


class Ratios:
    """bench-ab's reading of one benchmark's time over another's, for any pair of these
    records (a run's: its repetitions and the timer's reading step, read once)."""

    def __init__(self, records: Sequence[Record]):
        self.reps = _repetitions(records)
        self.step = reading_step(records)

    def read(self, v: Record, c: Record) -> Optional[Tuple[Tuple[float, float, float], bool, bool]]:
        """_ratio's ((ratio, low, high), from raw samples, both reached their precision), or None."""
        return _ratio(v, c, self.reps, self.step)

    def __call__(self, v: Record, c: Record) -> Optional[Tuple[float, float, float, str]]:
        """(ratio, low, high, verdict) of v's time over c's as compare() reads it (per
        repetition where they are aggregates); None where there is no interval to read."""
        got = self.read(v, c)
        if got is None:
            return None
        (ratio, low, high), _, _ = got
        return ratio, low, high, stats.verdict(low, high)


def compare(records: Sequence[Record], chosen: str) -> Dict[Chart, List[Comparison]]:
    """{(family, type): [Comparison per N, then variant in declaration order]} for the
    family/types where the chosen variant was measured, at the N it was measured at."""
    out: Dict[Chart, List[Comparison]] = {}
    ratios = Ratios(records)
    for chart, rs in by_chart(kernels(records)).items():
        best = best_per_n(rs)
        mine = {r.n: r for s, recs in best.items() if s[2] == chosen for r in recs}
        if not mine:
            continue
        rows = []
        for n, c in sorted(mine.items()):
            for (_, _, variant), recs in best.items():
                v = next((r for r in recs if r.n == n), None)
                if variant == chosen or v is None:
                    continue
                got = ratios.read(v, c)
                if got is None:
                    warn([f"{v.name} against {c.name} at N = {n_label(n)}: no interval to compare them by "
                          f"(fewer than two repetitions of both with an interval); left out"])
                    continue
                (ratio, low, high), from_samples, reached = got
                rows.append(Comparison(chart[0], chart[1], n, variant, chosen, ratio, low, high,
                                       stats.verdict(low, high),
                                       interleaved_together(v, c),
                                       from_samples, config_text(v), config_text(c), reached))
        if rows:
            out[chart] = rows
    return out


def check_intervals(runs: Sequence[Results], records: Sequence[Record]) -> None:
    """ResultsError naming the first file whose selected benchmarks carry no interval."""
    selected = {id(r) for r in records if r.aggregate is None}   # aggregates have none; their repetitions do
    for run in runs:
        if any(id(r) in selected and r.ci_low_seconds is None for r in run.records):
            raise ResultsError(f"{run.path}: benchmarks without confidence intervals (the file predates "
                               f"precision sampling): rerun cuda_bench to measure them")


def precision_percent(gpu: Gpu) -> Optional[float]:
    """The precision the runs asked for (context precision_percent), the widest when they differ."""
    return max((v for v in (run.context_number("precision_percent") for run in gpu.runs) if v), default=None)


# ---------------------------------------------------------------- printing

def _pct(x: float) -> str:
    return f"{100 * (x - 1):+.2f}%"


def markdown(found: Dict[Chart, List[Comparison]], gpu: Gpu) -> str:
    p = precision_percent(gpu)
    lines = []
    for (family, type_), rows in found.items():
        chosen = rows[0].chosen
        lines += [f"\n#### {family} {type_}: each variant against {chosen} ({gpu.label})\n",
                  "| N | variant | time ratio | 95% interval | change | verdict | measured |",
                  "|---:|---|---:|---|---:|---|---|"]
        lines += [f"| {n_label(c.n)} | {c.variant}" + (f" ({c.variant_config})" if c.variant_config else "")
                  + ("" if c.precision_reached else " †") + f" | {c.ratio:.4f} | {c.low:.4f} to {c.high:.4f} | {_pct(c.ratio)} | {c.verdict} | {c.how} |"
                  for c in rows]
        samples = all(c.from_samples for c in rows)
        lines.append(f"\nTime ratio = variant median / {chosen} median (below 1: the variant is faster); the interval "
                     f"combines the two medians' 95% intervals in log space "
                     + ("(recomputed from the raw samples)" if samples else "(from the results' ci_low/ci_high)")
                     + "; a verdict needs the whole interval on one side of 1."
                     + (f" Precision asked for: ±{p:g}% per median." if p else ""))
        if not all(c.precision_reached for c in rows):
            lines.append(f"\n{NOT_REACHED}")
    note = process_offset_note([c.n for rows in found.values() for c in rows])
    if note:
        lines.append(f"\n{note}")
    return "\n".join(lines).lstrip("\n") + "\n"


CSV_HEADER = ["family", "type", "n", "variant", "chosen", "ratio", "low", "high", "verdict", "interleaved",
              "from_samples"]


def to_csv(found: Dict[Chart, List[Comparison]]) -> str:
    buffer = io.StringIO()
    w = csv.writer(buffer, lineterminator="\n")
    w.writerow(CSV_HEADER)
    for rows in found.values():
        w.writerows([c.family, c.type, c.n, c.variant, c.chosen, f"{c.ratio:.9g}", f"{c.low:.9g}", f"{c.high:.9g}",
                     c.verdict, str(c.interleaved).lower(), str(c.from_samples).lower()] for c in rows)
    return buffer.getvalue()


def to_json(found: Dict[Chart, List[Comparison]], gpu: Gpu, paths: Sequence[str]) -> str:
    doc = {"gpu": gpu.label, "files": list(paths), "precision_percent": precision_percent(gpu),
           "comparisons": [{**asdict(c), "measured": c.how} for rows in found.values() for c in rows],
           "process_offset_note": process_offset_note([c.n for rows in found.values() for c in rows])}
    return json.dumps(doc, indent=2) + "\n"


# ---------------------------------------------------------------- the chart's data

@dataclass
class AbPanel:
    title: str
    lines: Dict[str, List[Tuple[int, float, float, float]]]   # variant -> [(N, ratio, low, high)]
    verdicts: Dict[str, List[Tuple[int, str]]]                # variant -> [(N, verdict)]


@dataclass
class AbChart:
    title: str
    chosen: str
    panels: List[AbPanel]
    precision: Optional[float]   # the band's half-width, as a fraction (0.005), or None


def chart_data(found: Dict[Chart, List[Comparison]], gpu: Gpu) -> AbChart:
    """What --chart draws: a panel per family/type, a line per variant of ratio with
    its interval per N, the line at 1 and the band of ±precision around it."""
    panels = []
    chosen = ""
    for (family, type_), rows in found.items():
        chosen = rows[0].chosen
        lines: Dict[str, List[Tuple[int, float, float, float]]] = {}
        verdicts: Dict[str, List[Tuple[int, str]]] = {}
        for c in rows:
            lines.setdefault(c.variant, []).append((c.n, c.ratio, c.low, c.high))
            verdicts.setdefault(c.variant, []).append((c.n, c.verdict))
        panels.append(AbPanel(f"{family} {type_}", lines, verdicts))
    p = precision_percent(gpu)
    return AbChart(f"time / {chosen} time, with 95% intervals ({gpu.label})", chosen, panels,
                   p / 100 if p else None)


@entry
def main(argv: Sequence[str] | None = None) -> int:
    parser = Parser(prog="bench-ab", description=__doc__.split("\n\n")[0])
    parser.add_argument("results", nargs="+", help="cuda_bench result JSON file(s) with intervals")
    parser.add_argument("--versus", required=True, metavar="VARIANT", help="the variant every other is divided by")
    parser.add_argument("--filter", default=None, help="regex on family/type/variant")
    parser.add_argument("--format", default="markdown", help="markdown (default), csv or json")
    parser.add_argument("--out", default=None, help="write the table here instead of to stdout")
    parser.add_argument("--chart", default=None, metavar="PATH.png",
                        help="also draw the ratios with their intervals per N, a line per variant")
    try:
        args = parser.parse_args(argv)
        fmt = one_of("--format", args.format, FORMATS)
        check_outputs(args.results, [("--out", args.out), ("--chart", args.chart)])
        if args.chart and not args.chart.endswith(".png"):
            raise ResultsError(f"--chart {args.chart}: expected a .png path")
        runs, gpus, warnings = load(args.results, "bench-ab", args.filter)
        where = {}
        for run in runs:
            for r in run.records:
                first = where.setdefault(r.name, run.path)
                if first != run.path:
                    raise ResultsError(f"{r.name} is in {first} and in {run.path}: bench-ab divides variants "
                                       "measured in one run (give one file per benchmark; two runs of the same "
                                       "benchmarks: tools/run-ab or bench-compare)")
        if len(gpus) > 1:
            raise ResultsError("the input holds runs of " + " and ".join(g.label for g in gpus)
                               + ": bench-ab compares variants on one GPU")
        gpu = gpus[0]
        check_variant("--versus", args.versus, list(dict.fromkeys(r.variant for r in kernels(gpu.records))),
                      args.filter)
        check_intervals(runs, kernels(gpu.records))
        found = compare(gpu.records, args.versus)
        if not found:
            raise ResultsError(f"--versus {args.versus}: no other variant measured at its N")
    except ResultsError as e:
        print(f"bench-ab: {e}", file=sys.stderr)
        return 2
    warn(warnings)
    text = markdown(found, gpu) if fmt == "markdown" else to_csv(found) if fmt == "csv" else \
        to_json(found, gpu, args.results)
    try:
        if args.out:
            write_text("--out", args.out, text)
        else:
            sys.stdout.write(text)
        if args.chart:
            from benchtools import draw   # matplotlib only when a chart is asked for

            fig = draw.ab_chart(chart_data(found, gpu))
            with writing("--chart", args.chart):
                Path(args.chart).parent.mkdir(parents=True, exist_ok=True)
                draw.save(fig, Path(args.chart), "png")
            draw.close(fig)
    except ResultsError as e:
        print(f"bench-ab: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
