"""bench-compare: the regression gate between two cuda_bench runs with repetitions.

  python3 -m benchtools.compare BASELINE.json CANDIDATE.json [--noise NOISE.json]
      [--floor 0.01] [--threshold F] [--alpha 0.05] [--force]
      [--markdown PATH] [--verdict PATH] [--medians PATH]
  python3 -m benchtools.compare --calibrate A_A_RUN.json ... --out NOISE.json

Per benchmark in both files: the median of the repetition times on each side, and
whether the change is significant: for precision-sampled runs from the repetitions'
own 95% intervals, for runs from before precision sampling by a one-sided
Mann-Whitney U test over the repetitions. A benchmark regressed when the
candidate is significantly slower (p < alpha) by more than its allowed change:
from the noise file (its between-run drift in A/A runs, widened by imprecise
repetitions; docs/gate.md), never below the floor; without a noise file, or for
a benchmark without history, the fixed threshold. Improvements never fail; an
error in the candidate fails; a benchmark throttled on either side is reported
as throttled, not regressed; one that stopped on time is marked imprecise.
Exit 0: nothing regressed; 1: something regressed or broke; 2: unusable input
(one line on stderr): a broken file, different run conditions (--force), or
benchmarks with too few repetitions to test.
"""
from __future__ import annotations

import json
import math
import sys
import traceback
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Sequence, Tuple

from scipy.stats import mannwhitneyu, norm

from benchtools import noise
from benchtools.cli import Parser, check_distinct_runs, check_outputs, checked, entry, repeated_run, write_text
from benchtools.noise import Allowance, BenchClass, NoiseModel, Repetitions, repetitions
from benchtools.results import ROLES, Results, ResultsError, canonical_name, load_results, parse_name
from benchtools.shape import parse_date
from benchtools.stats import Z95

# Without A/A history: the old single threshold, from the A/A noise measured on the
# H200 before per-benchmark thresholds (largest |change| 4.4%, a thrust call).
DEFAULT_THRESHOLD = 0.06
DEFAULT_ALPHA = 0.05
MIN_REPETITIONS = 3  # per side: the regression suite's; a median of 3 outlasts one disturbed repetition

REGRESSED, IMPROVED, UNCHANGED, ERROR, THROTTLED, TOO_FEW = (
    "regressed", "improved", "unchanged", "error", "throttled", "too few repetitions")
_ORDER = {ERROR: 0, REGRESSED: 1, THROTTLED: 2, IMPROVED: 3, UNCHANGED: 4, TOO_FEW: 5}


@dataclass
class Row:
    name: str
    verdict: str
    bench_class: Optional[BenchClass] = None
    base_median: Optional[float] = None   # seconds
    cand_median: Optional[float] = None
    change: Optional[float] = None        # cand/base - 1
    p_value: Optional[float] = None       # one-sided, in the direction of the change
    reps: Tuple[int, int] = (0, 0)
    allowed: Optional[Allowance] = None
    error: str = ""
    throttled: str = ""                   # "baseline", "candidate" or "both"
    change_interval: Optional[Tuple[float, float]] = None   # 95%, from the repetitions' intervals
    imprecise: str = ""                   # side(s) with a repetition that stopped before its precision
    half_width: Optional[float] = None    # the widest repetition interval of either side (relative)


def error_messages(run: Results) -> Dict[str, str]:
    out: Dict[str, str] = {}
    for run_name, message in run.errors:
        out.setdefault(canonical_name(**parse_name(run_name)), message)  # one per benchmark, not per repetition
    return out


def _side(base: bool, cand: bool) -> str:
    return "both" if base and cand else "baseline" if base else "candidate" if cand else ""


def judge(name: str, base: Repetitions, cand: Repetitions, allowed: Allowance, alpha: float) -> Row:
    bm, cm = base.median, cand.median
    row = Row(name, UNCHANGED, None, bm, cm, cm / bm - 1, reps=(len(base.times), len(cand.times)), allowed=allowed,
              imprecise=_side(base.imprecise, cand.imprecise))
    if min(row.reps) < MIN_REPETITIONS:
        row.verdict = TOO_FEW
        return row
    if base.intervals is not None and cand.intervals is not None:
        # Precision-sampled runs: each side's ln(median) with its standard error from the
        # repetitions' own intervals; the change's 95% interval and a z test.
        d, se = math.log(cm / bm), math.hypot(base.se(), cand.se())
        row.change_interval = (math.expm1(d - Z95 * se), math.expm1(d + Z95 * se))
        row.half_width = math.expm1(max(base.half_width, cand.half_width))
        row.p_value = float(norm.sf(abs(d) / se)) if se > 0 else (0.0 if d else 1.0)
    else:
        # Runs from before precision sampling: the repetitions are the samples.
        # Test the direction the medians moved; "greater" = candidate times larger.
        p = mannwhitneyu(cand.times, base.times, alternative="greater" if row.change >= 0 else "less").pvalue
        row.p_value = 1.0 if math.isnan(p) else float(p)  # nan only for degenerate input
    # Symmetric in log space: x% slower counts like the speed-up that undoes it.
    limit = math.log1p(allowed.threshold)
    if row.p_value < alpha and abs(math.log(cm / bm)) > limit:
        row.verdict = REGRESSED if row.change > 0 else IMPROVED
    return row


@dataclass
class Settings:
    alpha: float = DEFAULT_ALPHA
    floor: float = noise.FLOOR
    fixed: float = DEFAULT_THRESHOLD    # for benchmarks without history (or all, when forced)
    force_fixed: bool = False           # --threshold given: one threshold for every benchmark
    noise: Optional[NoiseModel] = None
    roles: Optional[Tuple[str, ...]] = None   # gate only these declared roles (None: all)


@dataclass
class Comparison:
    baseline: Results
    candidate: Results
    settings: Settings
    rows: List[Row]
    new: List[str]
    missing: List[str]
    not_gated: List[str] = field(default_factory=list)   # role not in --roles

    @property
    def failed(self) -> bool:
        return any(r.verdict in (REGRESSED, ERROR) for r in self.rows)

    def count(self, verdict: str) -> int:
        return sum(r.verdict == verdict for r in self.rows)

    @property
    def status(self) -> str:
        """The verdict's word, as the exit code has it: regression (1), not tested (2: a
        benchmark with too few repetitions, none failed), pass (0)."""
        if self.failed:
            return "regression"
        return "not tested" if self.count(TOO_FEW) else "pass"

    @property
    def summary(self) -> str:
        counts = ", ".join(f"{self.count(v)} {v}" for v in _ORDER if self.count(v))
        word = {"regression": "FAIL", "not tested": "NOT TESTED", "pass": "pass"}[self.status]
        return f"{word} ({counts})"

    def detectable_by_class(self):
        return noise.summarize((r.bench_class, r.allowed) for r in self.rows
                               if r.allowed is not None and r.verdict != TOO_FEW)


def _rank(r: Row) -> tuple:
    # Worst first: errors, the largest regressions, throttled, the largest improvements, the rest by name.
    signed = -r.change if r.verdict in (REGRESSED, THROTTLED) and r.change is not None else \
        r.change if r.verdict == IMPROVED else 0.0
    return (_ORDER[r.verdict], signed, r.name)


def _class_of(name: str, *sources: Dict[str, BenchClass]) -> BenchClass:
    for s in sources:
        if name in s:
            return s[name]
    return BenchClass("unknown", None, parse_name(name)["n"])


def _throttled_side(name: str, baseline: Results, candidate: Results) -> str:
    return _side(name in baseline.throttled, name in candidate.throttled)


def compare(baseline: Results, candidate: Results, settings: Settings | None = None) -> Comparison:
    settings = settings or Settings()
    base, cand = repetitions(baseline), repetitions(candidate)
    base_err, cand_err = error_messages(baseline), error_messages(candidate)
    history = settings.noise
    history_classes = {n: b.bench_class for n, b in history.benchmarks.items()} if history else {}
    run_classes = (noise.classes(candidate), noise.classes(baseline), history_classes)
    priors = history.class_priors() if history else {}
    base_names = {**base, **base_err}   # dicts: ordered, no duplicates
    rows: List[Row] = []
    new: List[str] = []
    not_gated: List[str] = []
    for n in {**cand, **cand_err}:
        cls = _class_of(n, *run_classes)
        if settings.roles is not None and cls.role != "unknown" and cls.role not in settings.roles:
            not_gated.append(f"{n} ({cls.role})")
            continue
        if n in cand_err and n in base_names:
            # A kernel that broke is worse than a slow one: this fails the gate.
            rows.append(Row(n, ERROR, cls, base[n].median if n in base else None, error=cand_err[n]))
        elif n in cand and n in base:
            sigma, source = (None, "fixed")
            if history is not None and not settings.force_fixed:
                sigma, source = history.sigma(n, cls, priors)
            allowed = noise.allowance(sigma, source, base[n], cand[n], settings.floor, settings.fixed)
            row = judge(n, base[n], cand[n], allowed, settings.alpha)
            row.bench_class = cls
            row.throttled = _throttled_side(n, baseline, candidate)
            if row.throttled and row.verdict != TOO_FEW:
                row.verdict = THROTTLED   # its time says nothing about the code: clocks were down
            rows.append(row)
        elif n in cand_err:
            new.append(f"{n} (error: {cand_err[n]})")
        else:
            new.append(n if n not in base_err else f"{n} (no baseline time: it errored in the baseline)")
    missing = [n for n in base_names if n not in cand and n not in cand_err]
    return Comparison(baseline, candidate, settings, sorted(rows, key=_rank), new, missing, not_gated)


def _time(seconds: Optional[float]) -> str:
    if seconds is None:
        return "–"
    us = seconds * 1e6
    return f"{us / 1000:.3f} ms" if us >= 1000 else f"{us:.2f} µs"


def _verdict_cell(r: Row) -> str:
    if r.verdict == ERROR:
        return f"**error**: {r.error.replace('|', '/')}" if r.error else "**error**"  # a | would split the cell
    if r.verdict == THROTTLED:
        return f"throttled ({r.throttled}): not judged"
    if r.verdict == TOO_FEW:
        return f"too few repetitions ({r.reps[0]} vs {r.reps[1]}; need {MIN_REPETITIONS} each): not tested"
    cell = "**regressed**" if r.verdict == REGRESSED else r.verdict
    if r.imprecise:
        width = f", ±{r.half_width:.2%}" if r.half_width is not None else ""
        cell += f" (imprecise: {r.imprecise} stopped before its precision{width}; allowance widened)"
    return cell


def _change_cell(r: Row) -> str:
    if r.change is None:
        return "–"
    if r.change_interval is None:
        return f"{r.change:+.2%}"
    return f"{r.change:+.2%} [{r.change_interval[0]:+.2%}, {r.change_interval[1]:+.2%}]"


def _who(run: Results) -> str:
    return f"{run.gpu}, commit `{run.context.get('git_commit', 'unknown')}` (`{run.path}`)"


def sampling_summary(run: Results) -> Optional[str]:
    """How a precision-sampled run went: the precision asked for, how its repetitions
    stopped, its wall time; None for a run from before precision sampling."""
    reasons = [r.stop_reason for r in run.records if r.aggregate is None and r.stop_reason]
    if not reasons:
        return None
    counts = ", ".join(f"{reasons.count(k)} on {k}" for k in ("precision", "time", "samples") if k in reasons)
    wall = run.context_number("suite_wall_seconds")
    return (f"sampled to {noise.sampling(run.context)}; {len(reasons)} repetitions stopped {counts}"
            + (f"; suite {wall:.1f} s" if wall else ""))


def board_note(c: Comparison) -> Optional[str]:
    """A note when the runs name different boards (gpu_uuid) of one GPU model: allowed
    (a fleet's runners differ), but board-to-board differences are not run-to-run noise.
    It counts the regressed rows that time host work: another machine's host and driver
    move those (an H100 runner read thrust_reduce 25% slower at 2^24, 2026-11-27)."""
    a, b = c.baseline.context.get("gpu_uuid"), c.candidate.context.get("gpu_uuid")
    if not a or not b or a == b:
        return None
    note = (f"different boards of this GPU model (baseline {str(a)[:12]}…, candidate {str(b)[:12]}…): a board's own "
            f"speed is not in the A/A noise, so a change flagged here may be the board; re-run the baseline on "
            f"this runner (--refresh-baseline) before trusting a small regression")
    regressed = [r for r in c.rows if r.verdict == REGRESSED]
    host = sum(1 for r in regressed if r.bench_class is not None and r.bench_class.host_work)
    if host:
        note += (f"; {host} of the {len(regressed)} regressed time host work inside the call (allocation, "
                 f"synchronisation), which the machine's host and driver change as much as its GPU")
    return note


def history_note(c: Comparison) -> Optional[str]:
    """A note when something regressed whose allowance rests on one session's A/A runs: it
    holds that session's run-to-run drift, not the drift between sessions (and boards),
    which on the first H200 history was the larger (docs/gate.md, "Replay of the committed
    H200 runs"). Sessions as noise.sessions tells them (a folder's runs close in time).
    Either the noise file's runs are all of one session, or some regressed benchmarks'
    spread comes from one of its sessions only (the noise file's per-benchmark "sessions").
    No claim when a run of the file has no readable date."""
    model = c.settings.noise
    if model is None or c.settings.force_fixed or not c.count(REGRESSED):
        return None
    labels = noise.sessions(model.runs)
    if None in labels:
        return None
    advice = ("drift between sessions is not in it, so a small regression flagged here may be this session's; run "
              "the candidate again, or add another session's A/A runs (tools/run-regression --refresh-baseline "
              "keeps the earlier ones)")
    if len(set(labels)) == 1:
        day = min(parse_date(run.get("date")) for run in model.runs).date()
        return f"the A/A history is one session's ({len(model.runs)} runs of {day} in `{model.path}`): {advice}"
    thin = [r.name for r in c.rows if r.verdict == REGRESSED
            and r.name in model.benchmarks and model.benchmarks[r.name].sessions == 1]
    if not thin:
        return None
    named = ", ".join(f"`{n}`" for n in thin[:3]) + (f" and {len(thin) - 3} more" if len(thin) > 3 else "")
    return (f"the A/A history of {named} is from one of the {len(set(labels))} sessions of `{model.path}` only: "
            f"{advice}")


def short_commit(commit) -> str:
    """A commit as the notes print it: 12 hex digits, and the build's "-dirty" (a working
    tree with changes, git describe's mark) kept, so that two builds of one commit read apart."""
    text = str(commit)
    dirty = text.endswith("-dirty")
    return text[:12] + ("-dirty" if dirty and len(text) > 18 else "")


def code_note(c: Comparison) -> Optional[str]:
    """A note when the baseline and the candidate were built from the same code and build
    configuration (one noise.code_key: source_hash, CCCL and CUDA runtime): an A/A
    comparison, whatever the commits say, so whatever it flags is the machine or the run,
    not the code."""
    code = noise.code_key(c.baseline)
    if code is None or code != noise.code_key(c.candidate):
        return None
    a, b = c.baseline.context, c.candidate.context
    note = f"baseline and candidate were built from the same code and configuration (source_hash {code[0]})"
    if a.get("git_commit") != b.get("git_commit"):
        note += f" though their commits differ ({short_commit(a.get('git_commit'))}, {short_commit(b.get('git_commit'))})"
    regressed = c.count(REGRESSED)
    if not regressed:
        return note + ": an A/A comparison"
    flagged = "the regression flagged is" if regressed == 1 else f"the {regressed} regressions flagged are"
    return note + f": {flagged} the machine or the run, not the code"


def notes(c: Comparison) -> List[str]:
    """What the verdict's reader should know about how far to trust it: the summary and stderr both."""
    return [n for n in (code_note(c), board_note(c), history_note(c)) if n]


def _rule(c: Comparison) -> str:
    s = c.settings
    if s.force_fixed:
        allowed = f"by more than {s.fixed:.1%} (--threshold, every benchmark)"
    elif s.noise is None:
        allowed = (f"by more than {s.fixed:.1%} (fixed: no noise file; `--noise` gives each benchmark "
                   f"its own allowed change)")
    else:
        allowed = (f"by more than its allowed change: {noise.MULTIPLIER:g} × the sd of the change expected "
                   f"from A/A history (`{s.noise.path}`, {len(s.noise.runs)} runs) and both runs' "
                   f"repetitions, at least {s.floor:.1%}; {s.fixed:.1%} where there is no history")
    sampled = any(r.change_interval is not None for r in c.rows)
    test = (f"significant at one-sided p < {s.alpha:g} by the repetitions' own 95% intervals (the change's "
            f"interval is shown)" if sampled else
            f"with one-sided Mann-Whitney U p < {s.alpha:g} over the repetitions")
    return (f"Regressed = candidate slower {allowed}, and {test}; errors in the candidate fail the check; "
            f"improvements never do; a benchmark throttled in either run is reported, not judged; one "
            f"that stopped on time is marked imprecise, its allowance widened by its interval.")


def markdown(c: Comparison) -> str:
    lines = [
        f"### GPU regression check: {c.summary}",
        "",
        f"Baseline: {_who(c.baseline)}  ",
        f"Candidate: {_who(c.candidate)}  ",
        *([f"Candidate {summary}  "] if (summary := sampling_summary(c.candidate)) else []),
        *[f"**Note:** {note}  " for note in notes(c)],
        _rule(c),
        "",
        "| benchmark | baseline median | candidate median | change | allowed | p-value | verdict |",
        "|---|---:|---:|---:|---:|---:|---|",
    ]
    for r in c.rows:
        change = _change_cell(r)
        allowed = "–" if r.allowed is None else f"{r.allowed.threshold:.2%}"
        p = "–" if r.p_value is None else f"{r.p_value:.3g}"
        lines.append(f"| `{r.name}` | {_time(r.base_median)} | {_time(r.cand_median)} | {change} | {allowed} | {p} | "
                     f"{_verdict_cell(r)} |")
    classes = c.detectable_by_class()
    if classes:
        lines += ["", "Minimum detectable slowdown per class (caught with 95% probability; fixed: the "
                      "threshold itself):", "",
                  "| class | benchmarks | median | worst | allowed change from |", "|---|---:|---:|---:|---|"]
        lines += [f"| {label} | {k} | {med:.1%} | {worst:.1%} | {src} |" for label, k, med, worst, src in classes]
    for title, names in ((f"New in the candidate (not compared): {len(c.new)}", c.new),
                         (f"Missing from the candidate (in the baseline only): {len(c.missing)}", c.missing),
                         (f"Not gated (role not in --roles {','.join(c.settings.roles or ())}): {len(c.not_gated)}",
                          c.not_gated)):
        if names:
            lines += ["", title, ""] + [f"- `{n}`" for n in names]
    return "\n".join(lines) + "\n"


def verdict_json(c: Comparison) -> dict:
    def who(run: Results) -> dict:
        return {"path": run.path, "gpu": run.gpu, "commit": run.context.get("git_commit")}

    def row(r: Row) -> dict:
        d = {"name": r.name, "class": r.bench_class.label if r.bench_class else None,
             "baseline_median_s": r.base_median, "candidate_median_s": r.cand_median,
             "change": r.change, "p_value": r.p_value, "verdict": r.verdict}
        if r.allowed is not None:
            d.update(allowed_change=r.allowed.threshold, min_detectable=r.allowed.detectable,
                     allowed_from=r.allowed.source)
        if r.error:
            d["error"] = r.error
        if r.throttled:
            d["throttled"] = r.throttled
        if r.change_interval is not None:
            d.update(change_interval=list(r.change_interval), widest_half_width=r.half_width)
        if r.imprecise:
            d["imprecise"] = r.imprecise
        return d

    s = c.settings
    return {"status": c.status, "alpha": s.alpha, "floor": s.floor,
            "fixed_threshold": s.fixed, "noise": s.noise.path if s.noise else None,
            "baseline": who(c.baseline), "candidate": who(c.candidate),
            "candidate_sampling": sampling_summary(c.candidate),
            "min_detectable_by_class": [{"class": label, "benchmarks": k, "median": med, "worst": worst,
                                         "allowed_from": src}
                                        for label, k, med, worst, src in c.detectable_by_class()],
            "roles": list(s.roles) if s.roles is not None else None,
            "benchmarks": [row(r) for r in c.rows], "new": c.new, "missing": c.missing, "not_gated": c.not_gated}


def medians_json(candidate: Results) -> dict:
    """One median entry per benchmark, in Google Benchmark's format, for
    github-action-benchmark's 'googlecpp' tool (which charts one value per name)."""
    entries = []
    for name, reps in repetitions(candidate).items():
        us = reps.median * 1e6
        entries.append({"name": name, "run_name": name, "run_type": "iteration", "repetitions": 1,
                        "repetition_index": 0, "threads": 1, "iterations": 1,
                        "real_time": us, "cpu_time": us, "time_unit": "us"})
    return {"context": candidate.context, "benchmarks": entries}


def _roles(text: Optional[str]) -> Optional[Tuple[str, ...]]:
    if text is None:
        return None
    roles = tuple(r.strip() for r in text.split(",") if r.strip())
    if not roles or any(r not in ROLES for r in roles):
        raise ResultsError(f"--roles: expected a comma list of {', '.join(ROLES)}, got '{text}'")
    return roles


def load_complete(path: str) -> Results:
    run = load_results(path)
    if run.truncated:  # plotting tolerates a cut file; a gate must not pass on half a run
        raise ResultsError(f"{path}: truncated (interrupted run?); a partial run cannot be compared")
    if not run.records and not run.errors:
        raise ResultsError(f"{path}: no cuda_bench benchmarks in it")
    return run


def check_conditions(baseline: Results, candidate: Results, history: Optional[NoiseModel]) -> List[str]:
    """What differs between the runs' conditions, and between them and the noise file's."""
    base = noise.run_conditions(baseline)
    cand = noise.run_conditions(candidate)
    reasons = [f"{d} (baseline {baseline.path} vs candidate {candidate.path})"
               for d in noise.condition_differences(base, cand)]
    if history is not None:
        reasons += [f"{d} (baseline vs noise file {history.path})"
                    for d in noise.condition_differences(base, history.conditions)]
    parties = [("baseline", base), ("candidate", cand)] + ([("noise file", history.conditions)] if history else [])
    older = [what for what, c in parties if c.get("sampling") == noise.BEFORE_SAMPLING]
    if 0 < len(older) < len(parties):
        # The decision rule needs the repetitions' intervals, and a noise file of the same sampling.
        reasons.append(f"the {' and '.join(older)} predate{'s' * (len(older) == 1)} precision sampling: "
                       f"refresh them on this GPU with tools/run-regression --refresh-baseline")
    return reasons


def _calibrate(args) -> int:
    runs = [load_complete(p) for p in args.runs]
    check_distinct_runs(runs, "A/A runs")
    model = noise.calibrate(runs)
    text = json.dumps(model.to_json(), indent=1) + "\n"
    if args.out:
        write_text("--out", args.out, text)
        with_history = sum(b.df > 0 for b in model.benchmarks.values())
        print(f"bench-compare: noise model of {len(runs)} A/A runs ({with_history} benchmarks with history) "
              f"in {args.out}")
    else:
        print(text, end="")
    return 0


def _gate(args) -> int:
    if len(args.runs) != 2:
        raise ResultsError(f"expected BASELINE and CANDIDATE (or --calibrate RUN ...), got {len(args.runs)} files")
    settings = Settings(alpha=args.alpha, floor=args.floor,
                        fixed=DEFAULT_THRESHOLD if args.threshold is None else args.threshold,
                        force_fixed=args.threshold is not None,
                        noise=noise.load_noise(args.noise) if args.noise else None,
                        roles=_roles(args.roles))
    baseline, candidate = load_complete(args.runs[0]), load_complete(args.runs[1])
    repeated = repeated_run([baseline, candidate])
    if repeated:   # a check of the gate itself (zero change): allowed, but never by accident
        print(f"bench-compare: warning: {repeated}: the baseline and the candidate are one run", file=sys.stderr)
    reasons = check_conditions(baseline, candidate, settings.noise)
    if reasons and not args.force:
        raise ResultsError(f"different run conditions: {'; '.join(reasons)} (--force compares them anyway)")
    c = compare(baseline, candidate, settings)
    if not c.rows:
        raise ResultsError(f"no benchmarks in common between {baseline.path} and {candidate.path}")

    table = markdown(c)
    for option, path, text in (("--markdown", args.markdown, table),
                               ("--verdict", args.verdict, json.dumps(verdict_json(c), indent=2) + "\n"),
                               ("--medians", args.medians, json.dumps(medians_json(candidate), indent=2) + "\n")):
        if path:
            write_text(option, path, text)
    if args.markdown:
        print(f"bench-compare: {c.summary}; table in {args.markdown}")
    else:
        print(table, end="")
    if c.status == "not tested":
        # A gate that could not test a benchmark must not pass it; exit 2 says so in one line.
        print(f"bench-compare: {c.count(TOO_FEW)} benchmarks have fewer than {MIN_REPETITIONS} repetitions on one "
              f"side and were not tested (run the regression suite: tools/run-regression)", file=sys.stderr)
        return 2
    for note in notes(c):   # beside a verdict only (the markdown carries them too)
        print(f"bench-compare: note: {note}", file=sys.stderr)
    return 1 if c.failed else 0


@entry
def main(argv: Sequence[str] | None = None) -> int:
    parser = Parser(prog="bench-compare", description=__doc__.split("\n\n")[0])
    parser.add_argument("runs", nargs="+", metavar="RUN",
                        help="BASELINE.json CANDIDATE.json (cuda_bench with --benchmark_repetitions), "
                             "or with --calibrate: the A/A runs")
    parser.add_argument("--calibrate", action="store_true",
                        help="write the noise model of the given A/A runs (to --out, default stdout)")
    parser.add_argument("--out", metavar="PATH", help="with --calibrate: the noise file to write")
    parser.add_argument("--noise", metavar="PATH", help="noise file from --calibrate: per-benchmark allowed change")
    parser.add_argument("--floor", default=noise.FLOOR,
                        type=checked(lambda v: 0 <= v < 1, "a fraction in [0, 1) such as 0.01"),
                        help=f"smallest allowed change with a noise file (default {noise.FLOOR})")
    parser.add_argument("--threshold", default=None,
                        type=checked(lambda v: 0 <= v < 1, "a fraction in [0, 1) such as 0.05 for 5%"),
                        help=f"one allowed change for every benchmark, overriding the noise file "
                             f"(default: {DEFAULT_THRESHOLD} where there is no history)")
    parser.add_argument("--roles", metavar="LIST",
                        help="gate only benchmarks of these declared roles (comma list of kernel, library, cpu; "
                             "default: all); the rest are listed as not gated")
    parser.add_argument("--alpha", default=DEFAULT_ALPHA,
                        type=checked(lambda v: 0 < v < 1, "a probability between 0 and 1"),
                        help=f"significance level of the one-sided test (default {DEFAULT_ALPHA})")
    parser.add_argument("--force", action="store_true",
                        help="compare runs whose conditions differ (GPU, cache mode, suite, planted build, "
                             "driver major version, timing mode); broken numbers are refused regardless")
    parser.add_argument("--markdown", metavar="PATH", help="write the table here (default: stdout)")
    parser.add_argument("--verdict", metavar="PATH", help="write the JSON verdict here")
    parser.add_argument("--medians", metavar="PATH",
                        help="write the candidate's medians as Google Benchmark JSON (github-action-benchmark)")
    try:
        args = parser.parse_args(argv)
        # Output paths first: a typo must not cost a comparison, nor leave half the outputs.
        outputs = [(option, getattr(args, option[2:])) for option in ("--out", "--markdown", "--verdict", "--medians")]
        check_outputs(args.runs + ([args.noise] if args.noise else []), outputs)
        if args.out and not args.calibrate:
            raise ResultsError("--out is the noise file of --calibrate (the table goes to --markdown)")
        return _calibrate(args) if args.calibrate else _gate(args)
    except ResultsError as e:
        print(f"bench-compare: {e}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # the reader went away (| head): entry() ends quietly
        raise
    except Exception:  # a bug, not a verdict: exit 1 would read as "regressed"
        traceback.print_exc()
        print("bench-compare: internal error (above); no verdict", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
