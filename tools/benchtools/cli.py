"""Command-line plumbing the tools share: one-line usage errors, option lists, loading."""
from __future__ import annotations

import argparse
import re
import sys
from typing import List, Sequence, Tuple

from benchtools.results import Results, ResultsError, load_results
from benchtools.shape import Gpu, group_by_gpu, roles_warning


class Parser(argparse.ArgumentParser):
    """argparse that reports a usage error as ResultsError: one line, exit 2."""

    def error(self, message):
        raise ResultsError(message)


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
    except re.error as e:
        raise ResultsError(f"{option} '{pattern}': not a valid regex ({e})") from None


def load(paths: Sequence[str], tool: str, pattern: str | None) -> Tuple[List[Results], List[Gpu], List[str]]:
    """Every file, grouped by GPU and filtered, and the warnings to print (one line
    each: truncated files, files without roles) once the rest of the input is known
    good, so that bad input still gives exactly one line. Raises ResultsError when
    nothing matches."""
    check_regex("--filter", pattern)
    runs = [load_results(p) for p in paths]
    gpus = group_by_gpu(runs, pattern)
    if not any(g.records for g in gpus):
        raise ResultsError("no successful cuda_bench benchmarks in the input"
                           + (f" match --filter '{pattern}'" if pattern else ""))
    warnings = [f"{tool}: warning: {run.path} is truncated (interrupted run?); "
                f"using its {len(run.records)} complete entries" for run in runs if run.truncated]
    warnings += [w for w in [roles_warning(tool, runs)] if w]
    return runs, [g for g in gpus if g.records], warnings


def warn(warnings: Sequence[str]) -> None:
    for w in warnings:
        print(w, file=sys.stderr)
