"""Command-line plumbing shared by bench-audit, bench-autotune and bench-report."""
from __future__ import annotations

import argparse

from benchtools.results import ResultsError


class Parser(argparse.ArgumentParser):
    """argparse whose usage errors are ResultsError: one line on stderr and exit
    code 2, like every other bad input."""

    def error(self, message):
        raise ResultsError(message)
