"""bench-newest: the newest run of each GPU model among result files.

  python3 -m benchtools.newest results/*.json
  nvidia-h100-80gb-hbm3 results/nvidia-h100-80gb-hbm3_20261123T101500Z.json
  nvidia-h200 results/nvidia-h200_20261122T001926Z.json

One line per GPU model: its folder name (the GPU name in lower case, runs of other
characters as "-") and the file of its newest run, newest by the run date in the
file's context (names do not sort by date across GPU models). Sorted by GPU.
Bad input: one line on stderr, exit code 2.
"""
from __future__ import annotations

import sys
from typing import Sequence

from benchtools.cli import Parser
from benchtools.results import ResultsError, load_results
from benchtools.shape import newest_per_gpu


def main(argv: Sequence[str] | None = None) -> int:
    parser = Parser(prog="bench-newest", description=__doc__.split("\n\n")[0])
    parser.add_argument("results", nargs="+", help="cuda_bench result JSON file(s)")
    try:
        args = parser.parse_args(argv)
        newest = newest_per_gpu([load_results(p) for p in args.results])
    except ResultsError as e:
        print(f"bench-newest: {e}", file=sys.stderr)
        return 2
    for slug, run in newest.items():
        print(f"{slug} {run.path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
