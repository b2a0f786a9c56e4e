"""Replays A/A runs through the gate to measure its false alarms and its sensitivity.

  python3 -m benchtools.replay RUN.json RUN.json ... [--slowdown 0.03] [--noise NOISE.json]

Every ordered pair of runs of one build (noise.build_key) is an A/A comparison. For
each, the noise model is calibrated from the other runs only (leave the pair
out: the thresholds never saw the runs they judge), or with --noise taken from
that file (give it runs it was not calibrated from), and then:
  false alarms  benchmarks the gate calls regressed (there is nothing to find)
  detection     each benchmark in turn slowed by --slowdown in a copy of the
                candidate's repetitions: caught or not
  detectable    each benchmark's slowdown caught with 95% probability
Prints the counts per class (role, host work, N). Exit 0; 2 on unusable input.
"""
from __future__ import annotations

import statistics
import sys
from dataclasses import dataclass, field
from typing import Dict, List, Sequence, Tuple

from benchtools import noise
from benchtools.cli import Parser, entry, check_distinct_runs, check_one_gpu_model, checked
from benchtools.compare import REGRESSED, TOO_FEW, Settings, compare, judge, load_complete
from benchtools.noise import BenchClass, build_key
from benchtools.results import Results, ResultsError


@dataclass
class ClassTally:
    bench_class: BenchClass
    tried: int = 0
    caught: int = 0
    detectable: List[float] = field(default_factory=list)


@dataclass
class Replay:
    pairs: List[Tuple[str, str]] = field(default_factory=list)
    comparisons: int = 0                                   # benchmark comparisons over all pairs
    false_alarms: List[Tuple[str, str, str, float, float]] = field(default_factory=list)  # base, cand, name, change, allowed
    classes: Dict[tuple, ClassTally] = field(default_factory=dict)
    protocol: str = "each judged with a noise model of the other runs"


def aa_pairs(runs: Sequence[Results]) -> List[Tuple[Results, Results]]:
    """Every ordered (baseline, candidate) pair of runs of one build."""
    return [(a, b) for a in runs for b in runs
            if a is not b and build_key(a) == build_key(b)]


def replay(runs: Sequence[Results], slowdown: float, settings: Settings | None = None) -> Replay:
    """settings.noise None: each pair judged by a model of the other runs (leave the pair
    out); else every pair by that model (runs the model has not seen, or in-sample)."""
    settings = settings or Settings()
    out = Replay()
    if settings.noise is not None:
        out.protocol = f"each judged with the noise file {settings.noise.path or '(given)'}"
    pairs = aa_pairs(runs)
    if not pairs:
        raise ResultsError("no two runs of one build (source hash, or git_commit): nothing to replay")
    for base, cand in pairs:
        model = settings.noise
        if model is None:
            try:
                model = noise.calibrate([r for r in runs if r is not base and r is not cand])
            except ResultsError:
                model = None   # no build with two runs left: the fixed threshold (as bench-compare without --noise)
        s = Settings(settings.alpha, settings.floor, settings.fixed, settings.force_fixed, model)
        c = compare(base, cand, s)
        priors = model.class_priors() if model else {}
        out.pairs.append((base.path, cand.path))
        base_r, cand_r = noise.repetitions(base), noise.repetitions(cand)
        for row in c.rows:
            if row.verdict == TOO_FEW or row.allowed is None:
                continue
            out.comparisons += 1
            if row.verdict == REGRESSED:
                out.false_alarms.append((base.path, cand.path, row.name, row.change, row.allowed.threshold))
            slowed = cand_r[row.name].scaled(1 + slowdown)   # a copy: the run itself is untouched
            sigma, source = model.sigma(row.name, row.bench_class, priors) if model else (None, "fixed")
            allowed = noise.allowance(sigma, source, base_r[row.name], slowed, s.floor, s.fixed)
            tally = out.classes.setdefault(row.bench_class.key(), ClassTally(row.bench_class))
            tally.tried += 1
            tally.caught += judge(row.name, base_r[row.name], slowed, allowed, s.alpha).verdict == REGRESSED
            tally.detectable.append(row.allowed.detectable)
    return out


def report(r: Replay, slowdown: float) -> str:
    lines = [f"{len(r.pairs)} A/A comparisons (ordered pairs, {r.protocol}), "
             f"{r.comparisons} benchmark comparisons: {len(r.false_alarms)} false alarms"]
    lines += [f"  false alarm: {name}: {change:+.2%} > allowed {allowed:.2%} ({b} -> {c})"
              for b, c, name, change, allowed in r.false_alarms]
    lines += ["", f"| class | comparisons | caught at +{slowdown:.1%} | detectable (95%), median | worst |",
              "|---|---:|---:|---:|---:|"]
    for t in sorted(r.classes.values(), key=lambda t: t.bench_class.key()):
        lines.append(f"| {t.bench_class.label} | {t.tried} | {t.caught} ({t.caught / t.tried:.0%}) | "
                     f"{statistics.median(t.detectable):.2%} | {max(t.detectable):.2%} |")
    return "\n".join(lines) + "\n"


@entry
def main(argv: Sequence[str] | None = None) -> int:
    parser = Parser(prog="bench-replay", description=__doc__.split("\n\n")[0])
    parser.add_argument("runs", nargs="+", metavar="RUN", help="A/A runs (several per build)")
    parser.add_argument("--noise", metavar="PATH", help="judge every pair with this noise file instead")
    parser.add_argument("--slowdown", default=0.03, type=checked(lambda v: 0 < v < 10, "a fraction such as 0.03"),
                        help="slowdown planted in each benchmark in turn (default 0.03)")
    try:
        args = parser.parse_args(argv)
        runs = [load_complete(p) for p in args.runs]
        for run in runs:   # before replay(), which takes a model it cannot calibrate for the fixed threshold
            noise.require_measured(run)
        check_distinct_runs(runs, "A/A runs")
        check_one_gpu_model(runs, args.runs, "A/A runs are of one GPU model")
        result = replay(runs, args.slowdown, Settings(noise=noise.load_noise(args.noise) if args.noise else None))
    except ResultsError as e:
        print(f"bench-replay: {e}", file=sys.stderr)
        return 2
    print(report(result, args.slowdown), end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
