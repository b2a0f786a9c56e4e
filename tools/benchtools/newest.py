"""bench-newest: the newest run of each GPU model among result files.

  python3 -m benchtools.newest results/*.json
  nvidia-h100-80gb-hbm3 results/nvidia-h100-80gb-hbm3_20261123T101500Z.json
  nvidia-h200 results/nvidia-h200_20261122T001926Z.json

One line per GPU model: its folder name (the GPU name in lower case, runs of other
characters as "-") and the file of its newest run, newest by the run date in the
file's context (names do not sort by date across GPU models). Sorted by GPU.
A file without a successful benchmark (none, or only errored ones) is skipped,
with a line on stderr; a newest run that is truncated is used, with a warning.
Bad input, or a GPU model with no usable file: one line on stderr, exit code 2.
"""
from __future__ import annotations

import sys
from typing import Dict, List, Sequence, Tuple

from benchtools.cli import entry, Parser
from benchtools.results import Results, ResultsError, load_results, truncation_warning
from benchtools.shape import newest_per_gpu, slug


def _unusable(run: Results) -> str:
    """Why a run cannot be drawn from ("" when it can): it has no successful benchmark."""
    if run.records:
        return ""
    if run.errors:
        return f"no successful benchmark (all {len(run.errors)} errored)"
    return "no benchmark"


@entry
def main(argv: Sequence[str] | None = None) -> int:
    parser = Parser(prog="bench-newest", description=__doc__.split("\n\n")[0])
    parser.add_argument("results", nargs="+", help="cuda_bench result JSON file(s)")
    try:
        args = parser.parse_args(argv)
        runs = [load_results(p) for p in args.results]
        why = [_unusable(run) for run in runs]
        skipped: Dict[str, List[Tuple[Results, str]]] = {}
        for run, reason in zip(runs, why):
            if reason:
                skipped.setdefault(slug(run.gpu), []).append((run, reason))
        newest = newest_per_gpu([run for run, reason in zip(runs, why) if not reason])
        lacking = [gpu for gpu in sorted(skipped) if gpu not in newest]
        if lacking:
            raise ResultsError("; ".join(
                f"no usable run of {gpu}: " + ", ".join(f"{run.path} has {reason}" for run, reason in skipped[gpu])
                for gpu in lacking))
    except ResultsError as e:
        print(f"bench-newest: {e}", file=sys.stderr)
        return 2
    for run, reason in zip(runs, why):
        if reason:
            print(f"bench-newest: skipping {run.path}: {reason}", file=sys.stderr)
    for gpu, run in newest.items():
        if run.truncated:
            print(truncation_warning("bench-newest", run), file=sys.stderr)
        print(f"{gpu} {run.path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
