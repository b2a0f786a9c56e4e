"""The gate's noise model: how far each benchmark's median moves between identical runs.

Within-run repetitions understate between-run drift (a run shares its clocks,
temperature and memory placement across its repetitions), so the gate's allowed
change comes from A/A history: runs of one build under one set of conditions.

  statistic   m = ln(median of a run's repetition times), per benchmark
  spread      s_b: the pooled standard deviation of m within each build (runs of
              one code, build_key: one source hash, CCCL and CUDA runtime, or for
              runs from before the hash one git_commit), over all builds of the
              history; df_b = runs - builds
  class prior s_0: per class (role, host work, N), the median of the members'
              s_b^2 corrected for its chi-square bias (a median, so one noisy
              member does not widen its whole class)
  moderated   sigma_b^2 = (df_b s_b^2 + PRIOR_DF s_0^2) / (df_b + PRIOR_DF): a
              benchmark with little history leans on its class (empirical Bayes)
  comparison  sd = sqrt(2 sigma_b^2 + se_base^2 + se_cand^2), se: what each run
              adds beyond its history: for precision-sampled runs the part of its
              repetitions' 95% intervals wider than the precision asked for (one
              that stopped on time widens it), for older runs the standard error
              of the median of its repetitions (robust: MAD)
  threshold   allowed = max(FLOOR, MULTIPLIER * sd) in log units
  detectable  the slowdown caught 95% of the time: allowed + 1.645 sd

A benchmark with no history of its own and none of its class gets the fixed
threshold (bench-compare --threshold, default 6%).
"""
from __future__ import annotations

import json
import math
import statistics
from dataclasses import dataclass
from datetime import timedelta
from pathlib import PurePosixPath
from typing import Dict, Iterable, List, Optional, Sequence, Tuple

from scipy.stats import chi2

from benchtools.results import Record, Results, ResultsError, parse_json, pow2_label as n_label, read_bytes
from benchtools.shape import parse_date
from benchtools.stats import Z95, log_half_widths

FORMAT = "cuda_bench noise model 1"
FLOOR = 0.01          # below 1% the gate claims nothing: kernels at 2^28 moved up to ~1% between A/A runs
MULTIPLIER = 4.0      # allowed drift in units of the comparison's sd (normal: 3e-5 one-sided per benchmark)
PRIOR_DF = 4          # weight of the class prior, in runs' worth of degrees of freedom
POWER_Z = 1.645       # "detectable": caught with 95% probability
MAD_TO_SD = 1.4826    # MAD of a normal sample -> its standard deviation
MEDIAN_SE = 1.2533    # se(median) = 1.2533 sd / sqrt(n) for a normal sample


@dataclass(frozen=True)
class BenchClass:
    """Benchmarks expected to drift alike: what runs (role), whether host work is timed, and N."""
    role: str
    host_work: Optional[bool]
    n: int

    @property
    def label(self) -> str:
        work = " (host work)" if self.host_work else ""
        return f"{self.role}{work}, N={n_label(self.n)}"

    def key(self) -> tuple:
        return (self.role, bool(self.host_work), self.n)


def bench_class(record: Record) -> BenchClass:
    return BenchClass(record.role, record.host_work, record.n)


# Context facts that must match for two runs' times to be comparable: (label, getter).
def driver_major(context: dict) -> Optional[str]:
    """"13.0" -> "13"; 13000 (CUDA's integer form) -> "13"."""
    v = context.get("cuda_driver_version")
    if v is None:
        return None
    text = str(v).strip()
    if text.isdigit() and int(text) >= 1000:
        return str(int(text) // 1000)
    return text.split(".")[0]


BEFORE_SAMPLING = "iterations (before precision sampling)"


def sampling(context: dict) -> str:
    """"±0.5%, max 0.5 s" from the context's precision_percent and max_time_seconds, and
    ", min 0.005 s" from min_time_seconds where it is above 0 (absent before --min-time:
    precision could stop sampling at once, as with 0); BEFORE_SAMPLING for runs (and noise
    files) that predate precision sampling."""
    p = context.get("precision_percent")
    if p is None:
        return BEFORE_SAMPLING
    t = context.get("max_time_seconds")
    m = context.get("min_time_seconds")
    text = f"±{_number_text(p)}%" + (f", max {_number_text(t)} s" if t is not None else "")
    return text + (f", min {_number_text(m)} s" if m is not None and _positive(m) else "")


def _positive(v) -> bool:
    try:
        return float(v) > 0
    except (TypeError, ValueError):
        return True  # not a number: shown as it is


def _number_text(v) -> str:
    try:
        return f"{float(v):g}"
    except (TypeError, ValueError):
        return str(v)


def launch_mode(context: dict) -> str:
    if (context.get("timing_mode") or "events") != "events":
        return "graph replays"
    return context.get("launch_mode") or "stream"


def samples_per_gate(context: dict) -> str:
    """How many event-timed samples waited behind one gate kernel: absent before the
    gate existed, when none did ("0")."""
    return str(context.get("samples_per_gate") or "0")


CONDITIONS = (
    ("GPU", lambda c: c.get("gpu_name")),
    ("cache mode", lambda c: c.get("cache_mode")),
    ("suite", lambda c: c.get("suite")),
    # Absent before planted builds were recorded: such a run is no planted build.
    ("planted build", lambda c: c.get("planted_slowdown") or "none"),
    ("driver major version", driver_major),
    # Absent before timing modes existed: those runs were timed by events.
    ("timing mode", lambda c: c.get("timing_mode") or "events"),
    # How events timing launched each call: absent before --launch existed, when every
    # call went to the stream; graph timing replays graphs whatever it says.
    ("launch", launch_mode),
    # Precision sampling changes what a repetition's time is (a median of timed calls to
    # ±P%, not a mean of Google Benchmark's iterations), so its drift too.
    ("sampling", sampling),
)


# The conditions that say how a number was timed (the rest say where and what):
# two runs that differ in one of them time different things.
TIMING_CONDITIONS = ("cache mode", "timing mode", "launch")


def conditions(context: dict) -> Dict[str, Optional[str]]:
    return {label: (None if get(context) is None else str(get(context))) for label, get in CONDITIONS}


def timing_difference(a: dict, b: dict) -> Optional[Tuple[str, Optional[str], Optional[str]]]:
    """The first of TIMING_CONDITIONS in which two contexts differ, as (label, a's, b's); None when
    they time alike (bench-merge and run-ab refuse to join what differs)."""
    ca, cb = conditions(a), conditions(b)
    return next(((label, ca[label], cb[label]) for label in TIMING_CONDITIONS if ca[label] != cb[label]), None)


SAMPLED_UNRECORDED = "sampled (precision not recorded)"


def run_conditions(run: Results) -> Dict[str, Optional[str]]:
    """conditions() of a run's context; a run whose benchmarks carry intervals is a
    sampled run even where its context does not say to what precision."""
    out = conditions(run.context)
    if out["sampling"] == BEFORE_SAMPLING and any(r.ci_low_seconds is not None for r in run.records):
        out["sampling"] = SAMPLED_UNRECORDED
    return out


def condition_differences(a: Dict[str, Optional[str]], b: Dict[str, Optional[str]]) -> List[str]:
    return [f"{k} '{a.get(k)}' vs '{b.get(k)}'" for k in a if a.get(k) != b.get(k)]


@dataclass(frozen=True)
class Repetitions:
    """One benchmark's repetitions in one run: each one's time (seconds; the median of its
    timed calls in a precision-sampled run) and, where the run has them, each one's 95%
    interval, stop reason, and the precision the run asked for (a log half-width)."""
    times: Tuple[float, ...]
    intervals: Optional[Tuple[Tuple[float, float], ...]] = None   # None: a run before precision sampling
    stop_reasons: Tuple[str, ...] = ()
    precision: float = 0.0

    @property
    def median(self) -> float:
        return statistics.median(self.times)

    def scaled(self, factor: float) -> "Repetitions":
        """The same repetitions, every time and interval times factor (a planted slowdown)."""
        return Repetitions(tuple(t * factor for t in self.times),
                           None if self.intervals is None else tuple((lo * factor, hi * factor)
                                                                     for lo, hi in self.intervals),
                           self.stop_reasons, self.precision)

    def _half_widths(self) -> List[float]:
        """Each repetition's interval in log units, its wider side."""
        return [max(log_half_widths(t, lo, hi)) for t, (lo, hi) in zip(self.times, self.intervals or ())]

    @property
    def half_width(self) -> Optional[float]:
        """The widest repetition's interval (log units); None without intervals."""
        return max(self._half_widths()) if self.intervals is not None else None

    @property
    def imprecise(self) -> bool:
        """Some repetition stopped on a cap (time or samples) before reaching the precision asked for."""
        return any(r != "precision" for r in self.stop_reasons)

    def _median_se(self, half_widths: Sequence[float]) -> float:
        """se of the ln median of k repetitions whose intervals (each +-1.96 sd) have these half-widths."""
        k = len(half_widths)
        rms = math.sqrt(sum(h * h for h in half_widths) / k) / Z95
        return rms * (MEDIAN_SE if k >= 3 else 1.0) / math.sqrt(k)

    def se(self) -> float:
        """Standard error of ln(median of the repetitions): from their own intervals in a
        precision-sampled run, else from their spread (MAD: robust to one slow repetition)."""
        return median_se(self.times) if self.intervals is None else self._median_se(self._half_widths())

    def extra_se(self) -> float:
        """What this run adds to the comparison's sd beyond the A/A history. Sampled runs: for
        each repetition that stopped on a cap (time or samples), the part of its interval beyond
        the precision asked for, since the A/A runs' drift already holds the sampling error of
        runs that reached it; so a repetition that stopped on time with a wide interval widens
        the allowed change instead of raising an alarm. Runs before precision sampling: the
        se of their spread, as ever."""
        if self.intervals is None:
            return median_se(self.times)
        # A repetition that stopped on precision reached what the history's runs reached
        # (±P, or one timer step where that is wider): nothing to add.
        excess = [0.0 if stop == "precision" else math.sqrt(max(0.0, h * h - self.precision ** 2))
                  for h, stop in zip(self._half_widths(), self.stop_reasons)]
        return self._median_se(excess)


def repetitions(run: Results) -> Dict[str, Repetitions]:
    """{name: its repetitions}. Aggregates are not samples; a file with only aggregates
    yields its median as one repetition (then: too few repetitions). Intervals are kept
    when every repetition has one."""
    plain: Dict[str, List[Record]] = {}
    medians: Dict[str, Record] = {}
    for r in run.records:
        if r.aggregate is None:
            plain.setdefault(r.name, []).append(r)
        elif r.aggregate == "median":
            medians[r.name] = r
    for name, r in medians.items():
        plain.setdefault(name, [r])
    percent = run.context_number("precision_percent")
    precision = math.log1p(percent / 100) if percent else 0.0
    out = {}
    for name, rs in plain.items():
        sampled = all(r.ci_low_seconds is not None and r.ci_high_seconds is not None for r in rs)
        out[name] = Repetitions(tuple(r.seconds for r in rs),
                                tuple((r.ci_low_seconds, r.ci_high_seconds) for r in rs) if sampled else None,
                                tuple(r.stop_reason or "precision" for r in rs) if sampled else (),
                                precision if sampled else 0.0)
    return out


def repetition_times(run: Results) -> Dict[str, List[float]]:
    """{name: per-repetition seconds} (see repetitions())."""
    return {name: list(reps.times) for name, reps in repetitions(run).items()}


def classes(run: Results) -> Dict[str, BenchClass]:
    return {r.name: bench_class(r) for r in run.records}


def median_se(times: Sequence[float]) -> float:
    """Standard error of the median of ln(times), from the median absolute deviation
    (robust: one slow repetition does not widen it); 0 for fewer than 3 samples."""
    if len(times) < 3:
        return 0.0
    logs = [math.log(t) for t in times]
    mid = statistics.median(logs)
    mad = statistics.median(abs(x - mid) for x in logs)
    return MEDIAN_SE * MAD_TO_SD * mad / math.sqrt(len(logs))


# How a run sampled, beyond its conditions (CONDITIONS), from its context: runs that differ
# here are not pooled, even of one code (a tools-only commit may change run-regression's
# protocol).
PROTOCOL = ("min_samples", "min_time_seconds", "max_samples", "placements", "samples_per_gate", "l2_flush_bytes",
            "interleave")


def code_key(run: Results) -> Optional[Tuple[str, str, str]]:
    """The code a run's binary came from, when it says: its source hash (the sources and
    build configuration, cmake/GitCommit.cmake) with the CCCL and CUDA runtime it ran;
    None for a run from before the hash (or without one)."""
    c = run.context
    source = str(c.get("source_hash") or "")
    if not source or source == "unknown":
        return None
    return (source, str(c.get("cccl_version")), str(c.get("cuda_runtime_version")))


def build_key(run: Results) -> Tuple[str, ...]:
    """Which build a run is of, for pooling its A/A spread: its code (code_key) and how it
    sampled (PROTOCOL), so runs of commits that changed only the tools or the docs are one
    build; a run without a code key by its git_commit."""
    code = code_key(run)
    if code is None:
        return ("commit", str(run.context.get("git_commit", "unknown")))
    return ("source", *code, *(str(run.context.get(k)) for k in PROTOCOL))


# Runs of one refresh follow each other within minutes; a later session in the same folder
# (the older runs kept at results/regression/ itself) starts hours or days later.
SESSION_GAP = timedelta(hours=1)


def sessions(runs: Sequence[dict]) -> List[Optional[int]]:
    """The session of each A/A run of a noise file's "runs" list ({"path", "date", ...}), as
    a number: runs of one folder whose dates follow each other within SESSION_GAP are one
    session, across midnight too (refresh keeps each session's runs in a folder of their
    own); None for a run of no readable date."""
    earliest = parse_date(None)
    keys = [(str(PurePosixPath(str(run.get("path", ""))).parent), parse_date(run.get("date"))) for run in runs]
    out: List[Optional[int]] = [None] * len(runs)
    label, last = -1, None
    for i in sorted(range(len(runs)), key=keys.__getitem__):
        folder, when = keys[i]
        if when == earliest:
            continue
        if last is None or folder != last[0] or when - last[1] > SESSION_GAP:
            label += 1
        out[i], last = label, (folder, when)
    return out


@dataclass
class BenchNoise:
    bench_class: BenchClass
    runs: int
    df: int
    sd: float            # s_b, ln units; meaningless when df == 0
    sessions: Optional[int] = None   # how many sessions its df come from (sessions()); None: a file before the key


def _chi2_median_ratio(df: int) -> float:
    """E.g. 0.455 for df = 1: the median of s^2 / sigma^2 for a normal sample."""
    return chi2.ppf(0.5, df) / df


@dataclass
class NoiseModel:
    gpu: str
    conditions: Dict[str, Optional[str]]
    runs: List[dict]                    # {"path", "git_commit", "date"[, "source_hash"]} of each A/A run
    benchmarks: Dict[str, BenchNoise]
    path: str = ""

    def class_priors(self) -> Dict[tuple, Tuple[BenchClass, float, int]]:
        """{class key: (class, s_0, members with history)}."""
        members: Dict[tuple, List[BenchNoise]] = {}
        for b in self.benchmarks.values():
            if b.df > 0:
                members.setdefault(b.bench_class.key(), []).append(b)
        out = {}
        for key, bs in members.items():
            corrected = statistics.median(b.sd ** 2 / _chi2_median_ratio(b.df) for b in bs)
            out[key] = (bs[0].bench_class, math.sqrt(corrected), len(bs))
        return out

    def sigma(self, name: str, cls: BenchClass, priors=None) -> Tuple[Optional[float], str]:
        """Between-run sd of ln(median) for one benchmark, and where it came from:
        "history" (its own, moderated by its class), "class" (no history of its own:
        its class's, `cls` being its class in the runs compared), or (None, "none")."""
        priors = self.class_priors() if priors is None else priors
        own = self.benchmarks.get(name)
        # Its class as calibrated (a history that predates roles has its own classes).
        prior = priors.get((own.bench_class if own is not None and own.df > 0 else cls).key())
        if own is not None and own.df > 0:
            if prior is None:
                return own.sd, "history"
            s0 = prior[1]
            return math.sqrt((own.df * own.sd ** 2 + PRIOR_DF * s0 ** 2) / (own.df + PRIOR_DF)), "history"
        if prior is not None:
            return prior[1], "class"
        return None, "none"

    def to_json(self) -> dict:
        priors = self.class_priors()
        return {
            "format": FORMAT,
            "gpu_name": self.gpu,
            "conditions": self.conditions,
            "statistic": "ln(median of each run's repetition times); sd pooled within builds (build_key)",
            "runs": self.runs,
            "classes": {c.label: {"sd": round(s0, 6), "benchmarks": k} for c, s0, k in
                        sorted(priors.values(), key=lambda p: (p[0].role, bool(p[0].host_work), p[0].n))},
            "benchmarks": {name: {"role": b.bench_class.role, "host_work": b.bench_class.host_work,
                                  "n": b.bench_class.n, "runs": b.runs, "df": b.df, "sd": round(b.sd, 6),
                                  **({} if b.sessions is None else {"sessions": b.sessions})}
                           for name, b in sorted(self.benchmarks.items())},
        }


def require_measured(run: Results) -> None:
    """ResultsError when the run has no successful benchmark: as an A/A run it would count
    as a run of its build (passing for the two a model needs) and add nothing to the spread."""
    if not run.records:
        raise ResultsError(f"{run.path}: no successful benchmark"
                           + (f" (all {len(run.errors)} errored)" if run.errors else "") + "; no A/A run")


def calibrate(runs: Sequence[Results]) -> NoiseModel:
    """The noise model of A/A runs: all under one set of conditions (else ResultsError),
    none a planted build; runs of one build_key form a build."""
    if not runs:
        raise ResultsError("--calibrate needs A/A runs")
    first = run_conditions(runs[0])
    for run in runs:
        if run.truncated:
            raise ResultsError(f"{run.path}: truncated (interrupted run?); a partial run is no A/A history")
        require_measured(run)
        if run.context.get("planted_slowdown"):
            raise ResultsError(f"{run.path}: a planted build ({run.context['planted_slowdown']}) is no A/A run")
        diff = condition_differences(first, run_conditions(run))
        if diff:
            raise ResultsError(f"{run.path}: not under the conditions of {runs[0].path}: {'; '.join(diff)}")
    builds: Dict[Tuple[str, ...], List[Results]] = {}
    for run in runs:
        builds.setdefault(build_key(run), []).append(run)
    if all(len(b) < 2 for b in builds.values()):
        raise ResultsError("--calibrate needs at least two runs of one build (source hash, or git_commit): "
                           "the spread between identical runs is what it measures")

    medians = [{n: math.log(statistics.median(t)) for n, t in repetition_times(run).items()} for run in runs]
    cls: Dict[str, BenchClass] = {}
    for run in runs:
        for name, c in classes(run).items():
            cls.setdefault(name, c)
    index = {id(run): i for i, run in enumerate(runs)}
    listed = [{"path": r.path, "git_commit": r.context.get("git_commit"), "date": r.context.get("date"),
               **({"source_hash": r.context["source_hash"]} if r.context.get("source_hash") else {})} for r in runs]
    session = sessions(listed)
    benchmarks: Dict[str, BenchNoise] = {}
    for name, c in cls.items():
        ss, df, seen = 0.0, 0, 0
        spread = set()   # the sessions its df come from: runs of a build with two or more of its medians
        for group in builds.values():
            members = [index[id(run)] for run in group if name in medians[index[id(run)]]]
            xs = [medians[i][name] for i in members]
            seen += len(xs)
            if len(xs) > 1:
                mean = sum(xs) / len(xs)
                ss += sum((x - mean) ** 2 for x in xs)
                df += len(xs) - 1
                spread.update(session[i] for i in members if session[i] is not None)
        benchmarks[name] = BenchNoise(c, seen, df, math.sqrt(ss / df) if df else 0.0, len(spread))
    return NoiseModel(runs[0].gpu, first, listed, benchmarks)


def load_noise(path: str) -> NoiseModel:
    """Reads a noise file written by bench-compare --calibrate (ResultsError when unusable)."""
    try:
        doc = parse_json(read_bytes(path).decode("utf-8"))   # .json or .json.gz
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ResultsError(f"{path}: not a noise file (not UTF-8 JSON: {e})") from None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise ResultsError(f"{path}: not a noise file (written by bench-compare --calibrate; format '{FORMAT}')")
    try:
        benchmarks = {}
        for name, b in doc["benchmarks"].items():
            sd, df = float(b["sd"]), int(b["df"])
            if not math.isfinite(sd) or sd < 0 or df < 0:
                raise ValueError(f"benchmark {name}: sd {b['sd']!r}, df {b['df']!r}")
            host = b.get("host_work")
            spread_sessions = None if b.get("sessions") is None else int(b["sessions"])
            if spread_sessions is not None and spread_sessions < 0:
                raise ValueError(f"benchmark {name}: sessions {b['sessions']!r}")
            benchmarks[name] = BenchNoise(BenchClass(str(b["role"]), host if isinstance(host, bool) else None,
                                                     int(b["n"])), int(b["runs"]), df, sd, spread_sessions)
        conds = {label: None for label, _ in CONDITIONS}
        conds.update(sampling=BEFORE_SAMPLING)   # a file that predates the key: calibrated from such runs
        conds.update(dict(doc["conditions"]))
        if "launch" not in doc["conditions"]:    # calibrated before --launch: every call went to the stream
            conds["launch"] = launch_mode({"timing_mode": conds.get("timing mode")})
        return NoiseModel(str(doc["gpu_name"]), conds, list(doc["runs"]), benchmarks, path)
    except (KeyError, TypeError, ValueError, AttributeError) as e:
        raise ResultsError(f"{path}: malformed noise file ({e})") from None


@dataclass
class Allowance:
    """What one comparison may move by: its threshold and the slowdown it would catch."""
    threshold: float            # relative change (cand/base - 1) above which it counts
    detectable: float           # relative slowdown caught with 95% probability
    source: str                 # "history", "class" or "fixed"
    sd: Optional[float] = None  # of ln(cand/base); None for a fixed threshold


def allowance(sigma: Optional[float], source: str, base: Repetitions, cand: Repetitions,
              floor: float, fixed: float) -> Allowance:
    """sigma: the between-run sd from the history (None: use the fixed threshold)."""
    if sigma is None:
        return Allowance(fixed, fixed, "fixed")
    sd = math.sqrt(2 * sigma ** 2 + base.extra_se() ** 2 + cand.extra_se() ** 2)
    t = max(math.log1p(floor), MULTIPLIER * sd)
    return Allowance(math.expm1(t), math.expm1(t + POWER_Z * sd), source, sd)


def summarize(items: Iterable[Tuple[BenchClass, Allowance]]) -> List[Tuple[str, int, float, float, str]]:
    """Per class: (label, benchmarks, median detectable slowdown, worst, sources)."""
    by: Dict[tuple, Tuple[BenchClass, List[Allowance]]] = {}
    for c, a in items:
        by.setdefault(c.key(), (c, []))[1].append(a)
    rows = []
    for c, allowances in sorted(by.values(), key=lambda v: (v[0].role, bool(v[0].host_work), v[0].n)):
        d = [a.detectable for a in allowances]
        sources = sorted({a.source for a in allowances})
        rows.append((c.label, len(d), statistics.median(d), max(d), "/".join(sources)))
    return rows
