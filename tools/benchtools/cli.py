"""Command-line plumbing the tools share: one-line usage errors (exit 2), output paths checked before any work."""
from __future__ import annotations

import argparse
import math
import os
from pathlib import Path

from benchtools.results import ResultsError


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


def write_text(option: str, path: str, text: str) -> None:
    """Writes the file (creating its folder); an OS error (disk full) is a ResultsError."""
    try:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        Path(path).write_text(text)
    except OSError as e:
        raise ResultsError(f"{option} {path}: cannot write: {e.strerror or e}") from None


class Parser(argparse.ArgumentParser):
    def error(self, message):  # one line and exit 2, like every other bad input
        raise ResultsError(message)


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
