"""Command-line plumbing the tools share: one-line usage errors (exit 2), output
paths checked before any work, option lists, loading grouped by GPU."""
from __future__ import annotations

import argparse
import contextlib
import functools
import json
import math
import os
import re
import sys
import tempfile
from pathlib import Path
from typing import Iterable, List, Sequence, Tuple

from benchtools.results import Results, ResultsError, gzip_bytes, load_results, truncation_warning
from benchtools.shape import Gpu, group_by_gpu, roles_warning


def _nearest_existing(path: Path) -> Path:
    p = path
    while not p.exists() and p != p.parent:
        p = p.parent
    return p


def check_writable(option: str, path: str | None, directory: bool = False) -> None:
    """ResultsError naming the option when `path` (a file, or a folder when
    directory) cannot be written: the check runs before the heavy work and
    creates nothing, so a bad path costs no time and leaves no trace."""
    if not path:
        return
    p = Path(path)
    if p.exists():
        if directory and not p.is_dir():
            raise ResultsError(f"{option} {path}: exists and is not a folder")
        if not directory and p.is_dir():
            raise ResultsError(f"{option} {path}: is a folder, not a file")
        if not os.access(p, os.W_OK | (os.X_OK if directory else 0)):
            raise ResultsError(f"{option} {path}: not writable")
        return
    base = _nearest_existing(p.parent if str(p.parent) else Path("."))
    if not base.is_dir():
        raise ResultsError(f"{option} {path}: cannot be created ({base} is not a folder)")
    if not os.access(base, os.W_OK | os.X_OK):
        raise ResultsError(f"{option} {path}: cannot be created ({base} is not writable)")


@contextlib.contextmanager
def writing(option: str, path) -> None:
    """An OS error inside (a folder that cannot be made, a disk full, a path the
    check could not foresee, as root under /proc) as a ResultsError naming the option."""
    try:
        yield
    except OSError as e:
        raise ResultsError(f"{option} {path}: cannot write: {e.strerror or e}") from None


def write_text(option: str, path: str, text: str, gz: bool = False) -> None:
    """Writes the file (creating its folder), gzip-compressed when gz (results.gzip_bytes:
    the same text, the same bytes); an OS error (disk full) is a ResultsError. A file is
    written beside its path and renamed onto it: one that fails leaves no half-written
    file, and an earlier result there as it was (a device or a link is written through)."""
    target = Path(path)
    with writing(option, path):
        target.parent.mkdir(parents=True, exist_ok=True)
        in_place = target.is_symlink() or (target.exists() and not target.is_file())
        fd, name = (None, str(target)) if in_place else tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.")
        if fd is not None:
            os.close(fd)
        written = Path(name)
        try:
            if gz:
                written.write_bytes(gzip_bytes(text.encode("utf-8")))
            else:
                written.write_text(text, encoding="utf-8")
            if not in_place:
                mask = os.umask(0)
                os.umask(mask)
                os.chmod(written, target.stat().st_mode & 0o777 if target.exists() else 0o666 & ~mask)
                os.replace(written, target)
        except BaseException:
            if not in_place:
                written.unlink(missing_ok=True)
            raise


def same_file(a: str, b: str) -> bool:
    """Whether two paths name one file (the same resolved path, or one file under two names)."""
    pa, pb = Path(a), Path(b)
    if pa.resolve() == pb.resolve():
        return True
    try:
        return pa.exists() and pb.exists() and os.path.samefile(pa, pb)
    except OSError:
        return False


def check_outputs(inputs: Iterable[str], outputs: Sequence[Tuple[str, str | None]]) -> None:
    """ResultsError naming the option when an output (option, path) cannot be written
    (check_writable, each in turn), would overwrite an input, or two outputs would write
    one file (the second would replace the first): a finished result is never lost to a
    typo. `inputs` is read only once every output is known writable (a generator that
    parses them may raise its own error then, after the outputs' ones)."""
    for option, path in outputs:
        check_writable(option, path)
    inputs = list(inputs)
    given = [(option, path) for option, path in outputs if path]
    for option, path in given:
        for source in inputs:
            if same_file(path, source):
                raise ResultsError(f"{option} {path}: is an input file; it would be overwritten "
                                   "(write the output elsewhere)")
    for i, (option, path) in enumerate(given):
        for other, other_path in given[:i]:
            if same_file(path, other_path):
                raise ResultsError(f"{other} and {option} both write {path}: give each its own file")


def run_identity(run: Results) -> tuple:
    """What makes two files one run: the same context (commit, start date, board, ...) and
    every time the same (two runs never agree on all of that; a copy, gzipped or not, does)."""
    return (json.dumps(run.context, sort_keys=True, default=str),
            tuple((r.name, r.seconds, r.repetition, r.aggregate) for r in run.records))


def repeated_run(runs: Sequence[Results]) -> str | None:
    """Where two of `runs` are one run (the same file given twice, or a copy of it), what
    says so; else None."""
    seen = {}
    for run in runs:
        key = run_identity(run)
        if key in seen:
            first = seen[key]
            how = "given twice" if same_file(first, run.path) else f"a copy of {first}"
            return (f"{run.path}: {how} (the same run: git_commit {run.context.get('git_commit')}, "
                    f"date {run.context.get('date')})")
        seen[key] = run.path
    return None


def check_distinct_runs(runs: Sequence[Results], what: str) -> None:
    """ResultsError when two of `runs` are one run: counted twice, a run would pass for
    agreement between runs that never happened (a noise model of zero spread)."""
    repeated = repeated_run(runs)
    if repeated:
        raise ResultsError(f"{repeated}; {what} must be distinct runs")


def check_one_gpu_model(runs: Sequence[Results], labels: Sequence[str], why: str) -> None:
    """ResultsError naming the first of `runs` (labelled as given) of another GPU model
    than the first run's, and `why` one model is needed."""
    first = runs[0]
    for run, label in zip(runs[1:], labels[1:]):
        if run.gpu != first.gpu:
            raise ResultsError(f"{label} is of {run.gpu}, {labels[0]} of {first.gpu}: {why}")


def check_variant(option: str, variant: str, present: Sequence[str], pattern: str | None) -> None:
    """ResultsError when `variant` (given with `option`) is not among the variants present
    in the input, naming those that are."""
    if variant not in present:
        raise ResultsError(f"{option} {variant}: no such variant in the input"
                           + (f" matching --filter '{pattern}'" if pattern else "")
                           + f" (present: {', '.join(present) or 'none'})")


def entry(main):
    """A tool's main(), quiet when its reader goes away (bench-table ... | head): the
    output was wanted only that far, so no traceback, exit 141 as a shell reports a
    writer stopped by SIGPIPE."""
    @functools.wraps(main)
    def run(argv: Sequence[str] | None = None) -> int:
        try:
            code = main(argv)
            sys.stdout.flush()   # what is still buffered (stdout a pipe): its failure is the same
            return code
        except BrokenPipeError:
            # Later writes and the interpreter's final flush go nowhere instead of failing again.
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            return 141
    return run


class Parser(argparse.ArgumentParser):
    def error(self, message):  # one line and exit 2, like every other bad input
        raise ResultsError(message)

    def parse_args(self, args=None, namespace=None):
        """argparse's, and an option given an empty value (--n "$N" with N unset) is bad
        input: taken as not given, it would quietly be the default (the largest N, every
        chart, the current folder for --out)."""
        parsed = super().parse_args(args, namespace)
        for action in self._actions:
            value = getattr(parsed, action.dest, None)
            if action.option_strings and isinstance(value, str) and not value.strip() and value != action.default:
                self.error(f"argument {'/'.join(action.option_strings)}: expected a value, got '{value}'")
        return parsed


def checked(ok, what: str):
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


def comma_list(option: str, text: str, allowed: Sequence[str]) -> List[str]:
    items = [f.strip().lower() for f in text.split(",") if f.strip()]
    if not items or any(f not in allowed for f in items):
        raise ResultsError(f"{option}: expected a comma list of {', '.join(allowed)}, got '{text}'")
    return list(dict.fromkeys(items))


def one_of(option: str, text: str, allowed: Sequence[str]) -> str:
    if text not in allowed:
        raise ResultsError(f"{option}: expected one of {', '.join(allowed)}, got '{text}'")
    return text


def check_regex(option: str, pattern: str | None) -> None:
    try:
        re.compile(pattern or "")
    except (re.error, OverflowError) as e:   # OverflowError: a repeat count such as {99999999999}
        raise ResultsError(f"{option} '{pattern}': not a valid regex ({e})") from None


def load(paths: Sequence[str], tool: str, pattern: str | None) -> Tuple[List[Results], List[Gpu], List[str]]:
    """Every file, grouped by GPU and filtered, and the warnings to print (one line
    each: truncated files, files without roles) once the rest of the input is known
    good, so that bad input still gives exactly one line. Raises ResultsError when
    nothing matches."""
    check_regex("--filter", pattern)
    runs = [load_results(p) for p in paths]
    gpus = group_by_gpu(runs, pattern)
    check_timed_alike(gpus, tool)
    if not any(g.records for g in gpus):
        raise ResultsError("no successful cuda_bench benchmarks in the input"
                           + (f" match --filter '{pattern}'" if pattern else ""))
    warnings = [truncation_warning(tool, run) for run in runs if run.truncated]
    warnings += [w for w in [roles_warning(tool, runs)] if w]
    return runs, [g for g in gpus if g.records], warnings


def check_timed_alike(gpus: Sequence[Gpu], tool: str) -> None:
    """ResultsError when two files of one GPU were timed differently (cache mode, timing
    mode, launch: benchtools.noise.TIMING_CONDITIONS). bench-table, bench-plot and
    bench-ab put one GPU's numbers side by side and divide them (speedups, --versus,
    A/B): a graph replay's device cost per launch over an event-timed call, or a hot
    run over a cold one, is no ratio of the kernels."""
    from benchtools.noise import timing_difference   # scipy, only where files are loaded to compare

    for g in gpus:
        first = g.runs[0]
        for run in g.runs[1:]:
            differ = timing_difference(first.context, run.context)
            if differ:
                label, mine, yours = differ
                raise ResultsError(f"{run.path} has {label} {yours!r}, {first.path} {mine!r}: {tool} would compare "
                                   "times that mean different things (give files of one GPU timed alike)")


def warn(warnings: Sequence[str]) -> None:
    for w in warnings:
        print(w, file=sys.stderr)
