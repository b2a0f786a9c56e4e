"""The report of tools/run-ab: two builds' alternated bursts, pooled per side, compared.

  python3 -m benchtools.run_ab base=r1_base.json head=r1_head.json head=r2_head.json base=r2_base.json ...
      [--base-label TEXT] [--head-label TEXT] [--burst-time S] [--build-seconds S] [--wall-seconds S]
      [--markdown PATH] [--json PATH]

The files come in the order they were measured, each named by its side. Per
benchmark, each side's raw samples (cuda_bench --keep-samples) are pooled over
its bursts; the ratio HEAD/BASE of the two pooled medians gets the 95% interval
bench-ab uses (order-statistic interval of each median, combined in log space:
benchtools.stats), widened to cover the rounds' own interval (the t interval of
the K rounds' log ratios: each burst is a process, and what differs between
processes is seen only there), and a verdict: faster, slower, or no difference
at this precision. Pooling is fair because the bursts alternate (ABBA...): drift during
the session reaches both sides alike (docs/gate.md, "A/B of two commits").
Each round's own ratio is kept too: rounds that disagree with the pooled verdict
say the session drifted more than the interval admits.
Exit 0; 1 when a benchmark reported an error in some burst (listed);
2 on unusable input (one line on stderr).
"""
from __future__ import annotations

import json
import math
import sys
import traceback
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Sequence, Tuple

from benchtools import stats
from benchtools.cli import Parser, entry, check_outputs, repeated_run, checked, write_text
from benchtools.noise import timing_difference
from benchtools.results import Results, ResultsError, canonical_name, load_results, parse_name

SIDES = ("base", "head")
TOO_FEW = "too few samples"


@dataclass
class Burst:
    side: str
    run: Results

    @property
    def samples(self) -> Dict[str, List[float]]:
        """{benchmark: its raw samples (seconds)} over this burst's plain runs (all repetitions)."""
        out: Dict[str, List[float]] = {}
        for r in self.run.records:
            if r.aggregate is None and r.sample_seconds:
                out.setdefault(r.name, []).extend(r.sample_seconds)
        return out

    @property
    def capped(self) -> Dict[str, int]:
        """{benchmark: runs that stopped on a cap before their precision}."""
        out: Dict[str, int] = {}
        for r in self.run.records:
            if r.aggregate is None and r.stop_reason not in (None, "precision"):
                out[r.name] = out.get(r.name, 0) + 1
        return out


@dataclass
class Row:
    name: str
    verdict: str
    base: Optional[Tuple[float, float, float]] = None   # pooled (median, low, high), seconds
    head: Optional[Tuple[float, float, float]] = None
    ratio: Optional[Tuple[float, float, float]] = None  # HEAD/BASE (ratio, low, high)
    samples: Tuple[int, int] = (0, 0)
    round_ratios: List[float] = field(default_factory=list)
    rounds: Optional[Tuple[float, float, float]] = None  # the rounds' own interval (stats.rounds_interval)
    capped: Tuple[int, int] = (0, 0)                    # bursts' runs that stopped before their precision

    @property
    def rounds_agreeing(self) -> int:
        """Rounds whose own ratio lies on the pooled ratio's side of 1 (all when no difference)."""
        if self.ratio is None or self.verdict not in stats.VERDICTS[:2]:
            return len(self.round_ratios)
        slower = self.ratio[0] > 1
        return sum((r > 1) == slower for r in self.round_ratios)


@dataclass
class Report:
    bursts: List[Burst]
    rows: List[Row]
    errors: Dict[str, str]          # benchmark -> "side: message"
    one_side: List[str]             # measured by one side only


def _check_bursts(bursts: Sequence[Burst]) -> None:
    rounds = [sum(b.side == s for b in bursts) for s in SIDES]
    if min(rounds) == 0:
        raise ResultsError("expected bursts of both sides (base=FILE and head=FILE)")
    first = bursts[0].run
    for b in bursts[1:]:
        for key in ("gpu_name", "gpu_uuid"):
            if b.run.context.get(key) != first.context.get(key):
                raise ResultsError(f"{b.run.path}: {key} {b.run.context.get(key)!r}, but {first.path} has "
                                   f"{first.context.get(key)!r}: an A/B needs one GPU for every burst")
    for b in bursts[1:]:
        differ = timing_difference(b.run.context, first.context)
        if differ:
            label, mine, theirs = differ
            hint = (" (tools/run-ab passes --launch=stream to a build that has --launch when the other "
                    "predates it)" if label == "launch" else "")
            raise ResultsError(f"{b.run.path}: {label} {mine!r}, but {first.path} has {theirs!r}: both sides "
                               f"must time their calls alike{hint}")
    for b in bursts:
        if any(r.aggregate is None and not r.sample_seconds for r in b.run.records):
            raise ResultsError(f"{b.run.path}: benchmarks without sample_times: the bursts need cuda_bench "
                               f"--keep-samples (a build from before precision sampling has no such option)")


def analyse(bursts: Sequence[Burst]) -> Report:
    _check_bursts(bursts)
    pooled = {s: {} for s in SIDES}            # side -> name -> samples
    by_round = {s: [] for s in SIDES}          # side -> [per burst {name: samples}]
    capped = {s: {} for s in SIDES}
    errors: Dict[str, str] = {}
    for b in bursts:
        samples = b.samples
        by_round[b.side].append(samples)
        for name, xs in samples.items():
            pooled[b.side].setdefault(name, []).extend(xs)
        for name, k in b.capped.items():
            capped[b.side][name] = capped[b.side].get(name, 0) + k
        for run_name, message in b.run.errors:
            errors.setdefault(canonical_name(**parse_name(run_name)), f"{b.side}: {message}")
    names = [n for n in {**pooled["base"], **pooled["head"]} if n not in errors]
    rows, one_side = [], []
    for name in names:
        if name not in pooled["base"] or name not in pooled["head"]:
            one_side.append(f"{name} ({'base' if name in pooled['base'] else 'head'} only)")
            continue
        xb, xh = pooled["base"][name], pooled["head"][name]
        row = Row(name, TOO_FEW, samples=(len(xb), len(xh)),
                  capped=(capped["base"].get(name, 0), capped["head"].get(name, 0)))
        row.base, row.head = stats.median_interval(xb), stats.median_interval(xh)
        # Round i: the i-th burst of each side.
        for rb, rh in zip(by_round["base"], by_round["head"]):
            if rb.get(name) and rh.get(name):
                row.round_ratios.append(stats.median(rh[name]) / stats.median(rb[name]))
        if row.base is not None and row.head is not None:
            step = stats.reading_step(xb + xh)   # pooled readings in steps: no side narrower than one
            row.base, row.head = stats.at_least_one_step(row.base, step), stats.at_least_one_step(row.head, step)
            row.ratio = stats.ratio_interval(row.head, row.base)
            # Each burst is a process of its own: what differs between processes
            # (allocation placement) is in the spread of the rounds' ratios, not in
            # the pooled samples' interval. The interval covers both.
            row.rounds = stats.rounds_interval(row.round_ratios)
            if row.rounds is not None:
                row.ratio = (row.ratio[0], min(row.ratio[1], row.rounds[1]), max(row.ratio[2], row.rounds[2]))
            row.verdict = stats.verdict(row.ratio[1], row.ratio[2])
        rows.append(row)
    order = {v: i for i, v in enumerate((stats.VERDICTS[1], stats.VERDICTS[0], stats.VERDICTS[2], TOO_FEW))}
    rows.sort(key=lambda r: (order[r.verdict], -abs((r.ratio[0] if r.ratio else 1) - 1), r.name))
    return Report(list(bursts), rows, errors, one_side)


def _time(seconds: Optional[float]) -> str:
    if seconds is None:
        return "–"
    us = seconds * 1e6
    return f"{us / 1000:.3f} ms" if us >= 1000 else f"{us:.2f} µs"


def _sequence(bursts: Sequence[Burst]) -> str:
    return " ".join("A" if b.side == "base" else "B" for b in bursts)


def markdown(rep: Report, labels: Dict[str, str], burst_time: Optional[float], build_s: Optional[float],
             wall_s: Optional[float]) -> str:
    first = rep.bursts[0].run
    rounds = min(sum(b.side == s for b in rep.bursts) for s in SIDES)
    counts = ", ".join(f"{sum(r.verdict == v for r in rep.rows)} {v}"
                       for v in (*stats.VERDICTS, TOO_FEW) if any(r.verdict == v for r in rep.rows))
    timing = []
    if wall_s is not None:
        timing.append(f"wall time {wall_s:.0f} s" + (f" (builds {build_s:.0f} s)" if build_s is not None else ""))
    if burst_time is not None:
        timing.append(f"bursts of --max-time={burst_time:g} s")
    lines = [
        f"### A/B of two commits: HEAD against BASE ({counts})",
        "",
        f"BASE (A): {labels['base']}  ",
        f"HEAD (B): {labels['head']}  ",
        f"{first.gpu}" + (f" ({str(first.context['gpu_uuid'])[:12]}…)" if first.context.get("gpu_uuid") else "")
        + f"; {rounds} rounds, bursts in the order {_sequence(rep.bursts)}" + "".join(f"; {t}" for t in timing),
        "",
        "Ratio = HEAD median / BASE median of each side's samples pooled over its bursts (below 1: HEAD is "
        "faster); 95% interval from the two medians' order-statistic intervals combined in log space, "
        "widened to the rounds' own t interval where that is wider (each burst is a process: what differs "
        "between processes shows only between rounds); verdict from the interval (docs/gate.md, \"A/B of "
        "two commits\"). Rounds agreeing: rounds whose own ratio is on the same side of 1 as the pooled one.",
        "",
        "| benchmark | BASE median | HEAD median | HEAD/BASE | 95% interval | change | verdict | rounds agreeing "
        "| samples (A/B) |",
        "|---|---:|---:|---:|---|---:|---|---:|---:|",
    ]
    for r in rep.rows:
        if r.ratio is None:
            ratio = interval = change = "–"
        else:
            ratio, interval, change = (f"{r.ratio[0]:.4f}", f"{r.ratio[1]:.4f} to {r.ratio[2]:.4f}",
                                       f"{r.ratio[0] - 1:+.2%}")
        capped = f" ({r.capped[0]}/{r.capped[1]} capped)" if any(r.capped) else ""
        lines.append(f"| `{r.name}` | {_time(r.base[0] if r.base else None)} | "
                     f"{_time(r.head[0] if r.head else None)} | {ratio} | {interval} | {change} | {r.verdict} | "
                     f"{r.rounds_agreeing}/{len(r.round_ratios)} | {r.samples[0]}/{r.samples[1]}{capped} |")
    for title, items in ((f"Errors (not compared): {len(rep.errors)}",
                          [f"{n}: {m}" for n, m in rep.errors.items()]),
                         (f"Measured by one side only: {len(rep.one_side)}", rep.one_side)):
        if items:
            lines += ["", title, ""] + [f"- `{x}`" for x in items]
    return "\n".join(lines) + "\n"


def report_json(rep: Report, labels: Dict[str, str], burst_time: Optional[float], build_s: Optional[float],
                wall_s: Optional[float]) -> dict:
    def triple(t):
        return None if t is None else {"median_s": t[0], "low_s": t[1], "high_s": t[2]}

    return {
        "base": labels["base"], "head": labels["head"], "gpu": rep.bursts[0].run.gpu,
        "gpu_uuid": rep.bursts[0].run.context.get("gpu_uuid"),
        "order": [b.side for b in rep.bursts], "bursts": [b.run.path for b in rep.bursts],
        "burst_max_time_s": burst_time, "build_seconds": build_s, "wall_seconds": wall_s,
        "method": "pooled samples per side; order-statistic interval of each median; log-space ratio, widened to "
                  "the rounds' t interval (stats.py)",
        "benchmarks": [{"name": r.name, "verdict": r.verdict, "base": triple(r.base), "head": triple(r.head),
                        "ratio": None if r.ratio is None else r.ratio[0],
                        "ratio_low": None if r.ratio is None else r.ratio[1],
                        "ratio_high": None if r.ratio is None else r.ratio[2],
                        "samples": {"base": r.samples[0], "head": r.samples[1]},
                        "round_ratios": r.round_ratios, "rounds_agreeing": r.rounds_agreeing,
                        "rounds_interval": None if r.rounds is None else list(r.rounds),
                        "capped_runs": {"base": r.capped[0], "head": r.capped[1]}} for r in rep.rows],
        "errors": rep.errors, "one_side": rep.one_side,
    }


def _burst(text: str) -> Tuple[str, str]:
    side, sep, path = text.partition("=")
    if not sep or side not in SIDES or not path:
        raise ResultsError(f"expected base=FILE or head=FILE, got '{text}'")
    return side, path


@entry
def main(argv: Sequence[str] | None = None) -> int:
    parser = Parser(prog="benchtools.run_ab", description=__doc__.split("\n\n")[0])
    parser.add_argument("bursts", nargs="+", metavar="SIDE=FILE",
                        help="the bursts in the order measured: base=FILE or head=FILE")
    parser.add_argument("--base-label", default="BASE", help="what BASE is (revision, build)")
    parser.add_argument("--head-label", default="HEAD", help="what HEAD is")
    number = checked(lambda v: 0 <= v < math.inf, "a number of seconds >= 0")
    parser.add_argument("--burst-time", type=number, help="the bursts' --max-time, for the report")
    parser.add_argument("--build-seconds", type=number, help="time spent building, for the report")
    parser.add_argument("--wall-seconds", type=number, help="the whole A/B's wall time, for the report")
    parser.add_argument("--markdown", metavar="PATH", help="also write the table here")
    parser.add_argument("--json", metavar="PATH", help="write the report as JSON here")
    try:
        args = parser.parse_args(argv)
        outputs = [(option, getattr(args, option[2:])) for option in ("--markdown", "--json")]
        # The bursts are parsed once the outputs are known writable: a bad path is named first.
        check_outputs((path for _, path in map(_burst, args.bursts)), outputs)
        given = list(map(_burst, args.bursts))
        bursts = []
        for side, path in given:
            run = load_results(path)
            if run.truncated:
                raise ResultsError(f"{path}: truncated (interrupted burst?)")
            bursts.append(Burst(side, run))
        repeated = repeated_run([b.run for b in bursts])
        if repeated:
            print(f"run-ab: warning: {repeated}: a burst counted twice (no difference is then no finding)",
                  file=sys.stderr)
        rep = analyse(bursts)
        labels = {"base": args.base_label, "head": args.head_label}
        extra = (args.burst_time, args.build_seconds, args.wall_seconds)
        table = markdown(rep, labels, *extra)
        if args.markdown:
            write_text("--markdown", args.markdown, table)
        if args.json:
            write_text("--json", args.json, json.dumps(report_json(rep, labels, *extra), indent=1) + "\n")
    except ResultsError as e:
        print(f"run-ab: {e}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # the reader went away (| head): entry() ends quietly
        raise
    except Exception:  # a bug, not a verdict
        traceback.print_exc()
        print("run-ab: internal error (above); no report", file=sys.stderr)
        return 2
    print(table, end="")
    return 1 if rep.errors else 0


if __name__ == "__main__":
    sys.exit(main())
