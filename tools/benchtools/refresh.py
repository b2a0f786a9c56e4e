"""Files a baseline refresh: this session's runs, and the A/A history recalibrated.

  python3 -m benchtools.refresh BASELINE_RUN.json [AA_RUN.json ...] --baseline results/baseline/<gpu>.json
      --noise results/regression/noise_<gpu>.json [--history-dir results/regression]

What `tools/run-regression --refresh-baseline` calls once it has measured the
regression suite 1 + K times (REGRESSION_AA_RUNS = K). The first run becomes the
baseline (--baseline). With A/A runs (K >= 1), all of them are also kept in a new
folder <history-dir>/<gpu slug>_<UTC date of the baseline run>[b, c, ...]/ as
baseline.json.gz, aa1.json.gz, ..., and the noise file (--noise) is recalibrated
(bench-compare --calibrate) from them plus every run the old noise file lists
that is still there unchanged and was measured under the same conditions; each
run left out is named with the reason. A new GPU model's first baseline thus
comes with the A/A history its gate needs: with the fixed 6% threshold alone,
host-timed calls drift past it between identical runs. Nothing is written
unless everything can be. Prints what was written and what to commit.
Exit 0; 2 on unusable input (one line on stderr).
"""
from __future__ import annotations

import json
import sys
import traceback
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from string import ascii_lowercase
from typing import Dict, List, Optional, Sequence

from benchtools import noise
from benchtools.cli import Parser, entry, check_distinct_runs, check_writable, write_text
from benchtools.compare import load_complete
from benchtools.results import GZIP_MAGIC, Results, ResultsError, gzip_bytes, load_results
from benchtools.shape import run_date, slug


# The session's runs are committed compressed, as every run in results/ (results.py reads both).
SESSION_SUFFIX = ".json.gz"


def session_folder(history_dir: Path, run: Results, now: Optional[datetime] = None) -> Path:
    """<gpu slug>_<YYYYMMDD, UTC, of the run's start>, with b, c, ... appended when
    that name is taken: a refresh never writes into an earlier session's folder."""
    when = run_date(run)
    if when.year == 1:  # no readable date in the run: today's
        when = now or datetime.now(timezone.utc)
    stem = f"{slug(run.gpu)}_{when.astimezone(timezone.utc):%Y%m%d}"
    for suffix in ("", *ascii_lowercase[1:]):
        folder = history_dir / (stem + suffix)
        if not folder.exists():
            return folder
    raise ResultsError(f"{history_dir}: {stem} to {stem}z all exist; move some away")


@dataclass
class History:
    """The earlier runs a recalibration keeps, and those it leaves out (path: reason)."""
    kept: List[Results] = field(default_factory=list)
    left_out: Dict[str, str] = field(default_factory=dict)


def _identity(context: dict) -> tuple:
    return context.get("git_commit"), context.get("date")


def earlier_runs(noise_path: str, session: Sequence[Results], replaced: Sequence[str] = ()) -> History:
    """The runs the noise file at noise_path lists, each kept only if it still exists,
    is the run the file recorded (same git_commit and date), is complete, no planted
    build, not one of this session's runs, and was measured under the session's
    conditions. Paths in `replaced` (files this refresh overwrites) are left out.
    A missing noise file is an empty history; an unreadable one is left out whole,
    with its reason."""
    out = History()
    conditions = noise.run_conditions(session[0])
    session_runs = {_identity(run.context): run.path for run in session}
    if not Path(noise_path).exists():
        return out
    try:
        old = noise.load_noise(noise_path)
    except ResultsError as e:
        out.left_out[noise_path] = f"its history cannot be read ({e}); the earlier noise file stays in git"
        return out
    replaced_files = {Path(p).resolve() for p in replaced}
    seen = set()
    for entry in old.runs:
        path = str(entry.get("path", "")) if isinstance(entry, dict) else ""
        resolved = Path(path).resolve()
        if not path or resolved in seen:
            continue
        seen.add(resolved)
        if resolved in replaced_files:
            out.left_out[path] = "overwritten by this refresh"
            continue
        if not Path(path).is_file():
            out.left_out[path] = "no longer exists"
            continue
        try:
            run = load_results(path)
        except ResultsError as e:
            out.left_out[path] = str(e).removeprefix(f"{path}: ")
            continue
        recorded, now = _identity(entry), _identity(run.context)
        if recorded != now:
            out.left_out[path] = (f"not the run the noise file recorded (git_commit, date: "
                                  f"{recorded[0]}, {recorded[1]} then; {now[0]}, {now[1]} now)")
        elif now in session_runs:
            out.left_out[path] = f"the same run as {session_runs[now]}"
        elif run.truncated:
            out.left_out[path] = "truncated"
        elif run.context.get("planted_slowdown"):
            out.left_out[path] = "a planted build"
        elif differences := noise.condition_differences(conditions, noise.run_conditions(run)):
            out.left_out[path] = "other conditions: " + "; ".join(differences)
        else:
            out.kept.append(run)
    return out


def _check_session(runs: Sequence[Results]) -> None:
    """This session's runs: complete, error-free, one set of conditions (GPU included),
    and with A/A runs no planted build."""
    first = noise.run_conditions(runs[0])
    check_distinct_runs(runs, "the baseline and the A/A runs")
    for run in runs:
        if run.errors:
            raise ResultsError(f"{run.path}: {len(run.errors)} benchmark runs reported errors "
                               f"(first: {run.errors[0][0]}); not a baseline or A/A run")
        if len(runs) > 1 and run.context.get("planted_slowdown"):
            raise ResultsError(f"{run.path}: a planted build ({run.context['planted_slowdown']}) is no A/A run")
        differences = noise.condition_differences(first, noise.run_conditions(run))
        if differences:
            raise ResultsError(f"{run.path}: not under the conditions of {runs[0].path}: {'; '.join(differences)}")


def _check_same_gpu(path: str, what: str, gpu: str, read) -> None:
    """An existing file of another GPU model means the wrong file was named: refuse, keep it."""
    if not Path(path).exists():
        return
    try:
        theirs = read(path)
    except ResultsError:
        return   # unreadable: replaced (a baseline) or left out with a note (a noise file)
    if theirs != gpu:
        raise ResultsError(f"{what} {path} is of {theirs}, this refresh measured {gpu}: "
                           f"name this GPU's file (run-regression --baseline)")


@dataclass
class Refresh:
    """What a refresh writes: copies (source -> destination) and the noise file."""
    baseline: str
    copies: List[tuple]
    noise_path: str
    model: Optional[noise.NoiseModel]
    folder: Optional[Path]
    session: List[Results]
    history: History


def plan(runs: Sequence[str], baseline: str, noise_path: str, history_dir: str,
         now: Optional[datetime] = None) -> Refresh:
    """Checks everything and calibrates; writes nothing (ResultsError when unusable)."""
    for option, path, directory in (("--baseline", baseline, False), ("--noise", noise_path, False),
                                    ("--history-dir", history_dir, True)):
        check_writable(option, path, directory)
    session = [load_complete(p) for p in runs]
    _check_session(session)
    gpu = session[0].gpu
    _check_same_gpu(baseline, "baseline", gpu, lambda p: load_results(p).gpu)
    _check_same_gpu(noise_path, "noise file", gpu, lambda p: noise.load_noise(p).gpu)
    copies = [(session[0].path, baseline)]
    if len(session) == 1:   # REGRESSION_AA_RUNS=0: the baseline alone, as before A/A runs were recorded
        return Refresh(baseline, copies, noise_path, None, None, session, History())
    folder = session_folder(Path(history_dir), session[0], now)
    names = [f"baseline{SESSION_SUFFIX}"] + [f"aa{i}{SESSION_SUFFIX}" for i in range(1, len(session))]
    for run, name in zip(session, names):
        copies.append((run.path, str(folder / name)))
        run.path = str(folder / name)   # the noise file lists the committed copies
    history = earlier_runs(noise_path, session, replaced=[baseline])
    model = noise.calibrate([*session, *history.kept])
    return Refresh(baseline, copies, noise_path, model, folder, session, history)


def _copy(source: str, destination: str) -> None:
    """A byte copy; compressed on the way when the destination is a .gz (a committed
    baseline kept as .json.gz) and the source is not."""
    try:
        Path(destination).parent.mkdir(parents=True, exist_ok=True)
        data = Path(source).read_bytes()
        if destination.endswith(".gz") and data[:2] != GZIP_MAGIC:
            data = gzip_bytes(data)   # the same run gives the same bytes
        Path(destination).write_bytes(data)
    except OSError as e:
        raise ResultsError(f"{destination}: cannot write: {e.strerror or e}") from None


# Fewer runs than this make a noise model that misses run-to-run shifts (docs/gate.md).
MIN_RUNS = 3


def execute(r: Refresh) -> List[str]:
    """Writes the plan; returns the report lines (what was written, left out, to commit)."""
    for source, destination in r.copies[1:]:   # the session's folder first, the baseline last
        _copy(source, destination)
    if r.model is not None:
        text = json.dumps(r.model.to_json(), indent=1) + "\n"
        write_text("--noise", r.noise_path, text, gz=r.noise_path.endswith(".gz"))
    _copy(*r.copies[0])
    commit = r.session[0].context.get("git_commit") or "unknown: the run records no git_commit"
    lines = [f"new baseline: {r.baseline} ({r.session[0].gpu}, commit {commit})"]
    if r.model is None:
        if Path(r.noise_path).exists():
            lines.append(f"noise file {r.noise_path} NOT recalibrated (no A/A runs: REGRESSION_AA_RUNS=0); "
                         f"its history predates this baseline")
        lines.append(f"commit it: git add {r.baseline}")
        return lines
    earlier = len(r.history.kept)
    builds = len({noise.build_key(run) for run in [*r.session, *r.history.kept]})
    with_history = sum(b.df > 0 for b in r.model.benchmarks.values())
    lines.append(f"this session's {len(r.session)} runs: {r.folder}/ ({', '.join(Path(d).name for _, d in r.copies[1:])})")
    lines.append(f"noise file {r.noise_path}: {len(r.session)} runs of this session + {earlier} earlier "
                 f"({builds} build{'s' * (builds != 1)}), {with_history} benchmarks with history")
    lines += [f"left out of the history: {path}: {why}" for path, why in r.history.left_out.items()]
    runs = len(r.session) + earlier
    if runs < MIN_RUNS:
        lines.append(f"warning: the noise file rests on {runs} runs; shifts between runs that it has not seen will "
                     f"read as regressions (on an H100, a model of one A/A pair flagged 31 of 230 benchmarks, all at "
                     f"2^24, in the next A/A run): record at least {MIN_RUNS} (REGRESSION_AA_RUNS={MIN_RUNS - 1})")
    lines.append(f"commit them: git add {r.baseline} {r.folder} {r.noise_path}")
    return lines


@entry
def main(argv: Sequence[str] | None = None) -> int:
    parser = Parser(prog="benchtools.refresh", description=__doc__.split("\n\n")[0])
    parser.add_argument("runs", nargs="+", metavar="RUN",
                        help="this session's runs of the regression suite: the new baseline, then the A/A runs")
    parser.add_argument("--baseline", required=True, metavar="PATH", help="the baseline file to (over)write")
    parser.add_argument("--noise", required=True, metavar="PATH", help="the noise file to recalibrate")
    parser.add_argument("--history-dir", default="results/regression", metavar="DIR",
                        help="where this session's folder of runs goes (default results/regression)")
    try:
        args = parser.parse_args(argv)
        lines = execute(plan(args.runs, args.baseline, args.noise, args.history_dir))
    except ResultsError as e:
        print(f"benchtools.refresh: {e}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # the reader went away (| head): entry() ends quietly
        raise
    except Exception:  # a bug: exit 1 would read as "benchmarks failed"
        traceback.print_exc()
        print("benchtools.refresh: internal error (above)", file=sys.stderr)
        return 2
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
