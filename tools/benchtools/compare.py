"""bench-compare: the regression gate between two cuda_bench runs with repetitions.

  python3 -m benchtools.compare BASELINE.json CANDIDATE.json [--threshold 0.06] [--alpha 0.05]
      [--force] [--markdown PATH] [--verdict PATH] [--medians PATH]

Per benchmark in both files: the median of the repetition times on each side and
a one-sided Mann-Whitney U test over those times. A benchmark regressed when the
candidate is significantly slower (p < alpha) by more than the threshold;
improvements never fail. A benchmark that errors in the candidate fails the gate.
Exit 0: nothing regressed; 1: something regressed or broke; 2: unusable input
(one line on stderr), including benchmarks with too few repetitions to test.
"""
from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

from scipy.stats import mannwhitneyu

from benchtools.results import Results, ResultsError, canonical_name, load_results, parse_name

# Chosen from measured A/A noise on the H200 (README, "Regression gate"): across
# three runs of one build (baseline and two candidates), the largest |change| of
# a median was 4.4%, a thrust call that allocates on every call; every kernel
# stayed within 1.1%. 6% leaves a margin over that and still catches a 10% loss.
DEFAULT_THRESHOLD = 0.06
DEFAULT_ALPHA = 0.05
MIN_REPETITIONS = 3  # per side; with 2 vs 2 the smallest one-sided p is 1/6: no test at all

REGRESSED, IMPROVED, UNCHANGED, ERROR, TOO_FEW = "regressed", "improved", "unchanged", "error", "too few repetitions"
_ORDER = {ERROR: 0, REGRESSED: 1, IMPROVED: 2, UNCHANGED: 3, TOO_FEW: 4}


@dataclass
class Row:
    name: str
    verdict: str
    base_median: Optional[float] = None   # seconds
    cand_median: Optional[float] = None
    change: Optional[float] = None        # cand/base - 1
    p_value: Optional[float] = None       # one-sided, in the direction of the change
    reps: Tuple[int, int] = (0, 0)
    error: str = ""


def repetition_times(run: Results) -> Dict[str, List[float]]:
    """{name: per-repetition seconds}. Aggregates are not samples; a file with only
    aggregates yields its median as one sample (then: too few repetitions)."""
    plain: Dict[str, List[float]] = {}
    medians: Dict[str, float] = {}
    for r in run.records:
        if r.aggregate is None:
            plain.setdefault(r.name, []).append(r.seconds)
        elif r.aggregate == "median":
            medians[r.name] = r.seconds
    for name, s in medians.items():
        plain.setdefault(name, [s])
    return plain


def error_messages(run: Results) -> Dict[str, str]:
    out: Dict[str, str] = {}
    for run_name, message in run.errors:
        out.setdefault(canonical_name(**parse_name(run_name)), message)  # one per benchmark, not per repetition
    return out


def judge(name: str, base: List[float], cand: List[float], threshold: float, alpha: float) -> Row:
    bm, cm = statistics.median(base), statistics.median(cand)
    if bm <= 0:
        raise ResultsError(f"baseline time of {name} is {bm} s: not a measurement")
    row = Row(name, UNCHANGED, bm, cm, cm / bm - 1, reps=(len(base), len(cand)))
    if min(len(base), len(cand)) < MIN_REPETITIONS:
        row.verdict = TOO_FEW
        return row
    # Test the direction the medians moved; "greater" = candidate times larger.
    p = mannwhitneyu(cand, base, alternative="greater" if row.change >= 0 else "less").pvalue
    row.p_value = 1.0 if math.isnan(p) else float(p)  # nan only for degenerate input
    if row.p_value < alpha and abs(row.change) > threshold:
        row.verdict = REGRESSED if row.change > 0 else IMPROVED
    return row


@dataclass
class Comparison:
    baseline: Results
    candidate: Results
    threshold: float
    alpha: float
    rows: List[Row]
    new: List[str]
    missing: List[str]

    @property
    def failed(self) -> bool:
        return any(r.verdict in (REGRESSED, ERROR) for r in self.rows)

    def count(self, verdict: str) -> int:
        return sum(r.verdict == verdict for r in self.rows)

    @property
    def summary(self) -> str:
        counts = ", ".join(f"{self.count(v)} {v}" for v in _ORDER if self.count(v))
        return f"{'FAIL' if self.failed else 'pass'} ({counts})"


def _rank(r: Row) -> tuple:
    # Worst first: errors, the largest regressions, the largest improvements, the rest by name.
    signed = -r.change if r.verdict == REGRESSED else r.change if r.verdict == IMPROVED else 0.0
    return (_ORDER[r.verdict], signed, r.name)


def compare(baseline: Results, candidate: Results, threshold: float, alpha: float) -> Comparison:
    base, cand = repetition_times(baseline), repetition_times(candidate)
    base_err, cand_err = error_messages(baseline), error_messages(candidate)
    base_names = {**base, **base_err}   # dicts: ordered, no duplicates
    rows: List[Row] = []
    new: List[str] = []
    for n in {**cand, **cand_err}:
        if n in cand_err and n in base_names:
            # A kernel that broke is worse than a slow one: this fails the gate.
            rows.append(Row(n, ERROR, statistics.median(base[n]) if n in base else None, error=cand_err[n]))
        elif n in cand and n in base:
            rows.append(judge(n, base[n], cand[n], threshold, alpha))
        elif n in cand_err:
            new.append(f"{n} (error: {cand_err[n]})")
        else:
            new.append(n if n not in base_err else f"{n} (no baseline time: it errored in the baseline)")
    missing = [n for n in base_names if n not in cand and n not in cand_err]
    return Comparison(baseline, candidate, threshold, alpha, sorted(rows, key=_rank), new, missing)


def _time(seconds: Optional[float]) -> str:
    if seconds is None:
        return "–"
    us = seconds * 1e6
    return f"{us / 1000:.3f} ms" if us >= 1000 else f"{us:.2f} µs"


def _verdict_cell(r: Row) -> str:
    if r.verdict == ERROR:
        return f"**error**: {r.error.replace('|', '/')}" if r.error else "**error**"  # a | would split the cell
    if r.verdict == REGRESSED:
        return "**regressed**"
    if r.verdict == TOO_FEW:
        return f"too few repetitions ({r.reps[0]} vs {r.reps[1]}; need {MIN_REPETITIONS} each): not tested"
    return r.verdict


def _who(run: Results) -> str:
    return f"{run.gpu}, commit `{run.context.get('git_commit', 'unknown')}` (`{run.path}`)"


def markdown(c: Comparison) -> str:
    lines = [
        f"### GPU regression check: {c.summary}",
        "",
        f"Baseline: {_who(c.baseline)}  ",
        f"Candidate: {_who(c.candidate)}  ",
        f"Regressed = candidate slower by more than {c.threshold:.1%} with one-sided Mann-Whitney U "
        f"p < {c.alpha:g} over the repetitions; errors in the candidate fail the check; improvements never do.",
        "",
        "| benchmark | baseline median | candidate median | change | p-value | verdict |",
        "|---|---:|---:|---:|---:|---|",
    ]
    for r in c.rows:
        change = "–" if r.change is None else f"{r.change:+.2%}"
        p = "–" if r.p_value is None else f"{r.p_value:.3g}"
        lines.append(f"| `{r.name}` | {_time(r.base_median)} | {_time(r.cand_median)} | {change} | {p} | "
                     f"{_verdict_cell(r)} |")
    for title, names in ((f"New in the candidate (not compared): {len(c.new)}", c.new),
                         (f"Missing from the candidate (in the baseline only): {len(c.missing)}", c.missing)):
        if names:
            lines += ["", title, ""] + [f"- `{n}`" for n in names]
    return "\n".join(lines) + "\n"


def verdict_json(c: Comparison) -> dict:
    def who(run: Results) -> dict:
        return {"path": run.path, "gpu": run.gpu, "commit": run.context.get("git_commit")}

    def row(r: Row) -> dict:
        d = {"name": r.name, "baseline_median_s": r.base_median, "candidate_median_s": r.cand_median,
             "change": r.change, "p_value": r.p_value, "verdict": r.verdict}
        if r.error:
            d["error"] = r.error
        return d

    return {"status": "regression" if c.failed else "pass", "threshold": c.threshold, "alpha": c.alpha,
            "baseline": who(c.baseline), "candidate": who(c.candidate),
            "benchmarks": [row(r) for r in c.rows], "new": c.new, "missing": c.missing}


def medians_json(candidate: Results) -> dict:
    """One median entry per benchmark, in Google Benchmark's format, for
    github-action-benchmark's 'googlecpp' tool (which charts one value per name)."""
    entries = []
    for name, times in repetition_times(candidate).items():
        us = statistics.median(times) * 1e6
        entries.append({"name": name, "run_name": name, "run_type": "iteration", "repetitions": 1,
                        "repetition_index": 0, "threads": 1, "iterations": 1,
                        "real_time": us, "cpu_time": us, "time_unit": "us"})
    return {"context": candidate.context, "benchmarks": entries}


class _UsageError(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one line and exit 2, like every other bad input
        raise _UsageError(message)


def _checked(ok, what: str):
    """An argparse type: a float for which ok() holds (nan never does)."""
    def parse(text: str) -> float:
        try:
            v = float(text)
        except ValueError:
            v = math.nan
        if not ok(v):
            raise argparse.ArgumentTypeError(f"expected {what}, got '{text}'")
        return v
    return parse


def _load(path: str) -> Results:
    run = load_results(path)
    if run.truncated:  # plotting tolerates a cut file; a gate must not pass on half a run
        raise ResultsError(f"{path}: truncated (interrupted run?); a partial run cannot be compared")
    if not run.records and not run.errors:
        raise ResultsError(f"{path}: no cuda_bench benchmarks in it")
    return run


def main(argv: Sequence[str] | None = None) -> int:
    parser = _Parser(prog="bench-compare", description=__doc__.split("\n\n")[0])
    parser.add_argument("baseline", help="cuda_bench result JSON with --benchmark_repetitions")
    parser.add_argument("candidate", help="cuda_bench result JSON with --benchmark_repetitions")
    parser.add_argument("--threshold", default=DEFAULT_THRESHOLD,
                        type=_checked(lambda v: 0 <= v < math.inf, "a fraction >= 0 such as 0.05"),
                        help=f"relative slowdown that counts, as a fraction (default {DEFAULT_THRESHOLD})")
    parser.add_argument("--alpha", default=DEFAULT_ALPHA,
                        type=_checked(lambda v: 0 < v < 1, "a probability between 0 and 1"),
                        help=f"significance level of the one-sided test (default {DEFAULT_ALPHA})")
    parser.add_argument("--force", action="store_true", help="compare runs from different GPU models")
    parser.add_argument("--markdown", metavar="PATH", help="write the table here (default: stdout)")
    parser.add_argument("--verdict", metavar="PATH", help="write the JSON verdict here")
    parser.add_argument("--medians", metavar="PATH",
                        help="write the candidate's medians as Google Benchmark JSON (github-action-benchmark)")
    try:
        args = parser.parse_args(argv)
        baseline, candidate = _load(args.baseline), _load(args.candidate)
        if baseline.gpu != candidate.gpu and not args.force:
            raise ResultsError(f"different GPUs: baseline {baseline.path} is '{baseline.gpu}', candidate "
                               f"{candidate.path} is '{candidate.gpu}' (--force compares them anyway)")
        c = compare(baseline, candidate, args.threshold, args.alpha)
        if not c.rows:
            raise ResultsError(f"no benchmarks in common between {baseline.path} and {candidate.path}")
    except (_UsageError, ResultsError) as e:
        print(f"bench-compare: {e}", file=sys.stderr)
        return 2

    table = markdown(c)
    outputs = [(args.markdown, table), (args.verdict, json.dumps(verdict_json(c), indent=2) + "\n"),
               (args.medians, json.dumps(medians_json(candidate), indent=2) + "\n")]
    for path, text in outputs:
        if path:
            Path(path).parent.mkdir(parents=True, exist_ok=True)
            Path(path).write_text(text)
    if args.markdown:
        print(f"bench-compare: {c.summary}; table in {args.markdown}")
    else:
        print(table, end="")
    if c.failed:
        return 1
    if c.count(TOO_FEW):
        # A gate that could not test a benchmark must not pass it.
        print(f"bench-compare: {c.count(TOO_FEW)} benchmarks have fewer than {MIN_REPETITIONS} repetitions on one "
              f"side and were not tested (run cuda_bench with --benchmark_repetitions=10)", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
