"""bench-published: a write-up's published figures beside ours on the same GPU model (no GPU needed).

  python3 -m benchtools.published results/nvidia-h100*_*.json
  python3 -m benchtools.published results/nvidia-h100*_*.json results/sweeps/nvidia-h100*_*.json --format csv

Reads a published-figures file (default: the repository's
results/published/vector_sum_writeup_h100.json, the "Making vector sum really fast"
write-up's H100 bandwidths) and our result files, and prints one row per published
figure: the write-up's kernel, our variant, N, the published GB/s, our time and GB/s
at that N, and ours / published. Ours is taken at the block/batch the write-up used
when our files hold it, otherwise at our best block/batch, and the row says which.
Our files must come from one GPU, of the published GPU model unless --any-gpu. Bad
input: one line, exit code 2.
"""
from __future__ import annotations

import argparse
import csv
import json
import math
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

from benchtools.cli import entry
from benchtools.results import (Record, Results, ResultsError, load_results, parse_json, parse_name, pow2_label,
                                read_text, representative)

# The repository's copy, found from this package (tools/benchtools) so that the tool runs
# from any folder; an explicit --published is relative to the caller's folder as usual.
DEFAULT_IN_REPOSITORY = "results/published/vector_sum_writeup_h100.json"
DEFAULT_PUBLISHED = str(Path(__file__).resolve().parents[2] / DEFAULT_IN_REPOSITORY)


class PublishedError(Exception):
    """Unusable published-figures file or unusable combination of inputs."""


@dataclass(frozen=True)
class Figure:
    kernel: str                  # the write-up's name, e.g. "kernel_3"
    published_in: str            # where it was published, a key of "published_in"
    series: Tuple[str, str, str] # our (family, type, variant)
    block: Optional[int]         # the write-up's launch configuration, None when it has none
    batch: Optional[int]
    gbps: float
    percent_of_peak: Optional[float]


@dataclass
class Published:
    path: str
    title: str
    author: str
    url: str
    gpu: str                     # as published, e.g. "H100"
    gpu_match: str               # matched as a word in our context's gpu_name
    n: int
    peak_gbps: Optional[float]   # the peak the published percentages are of
    figures: List[Figure]


def _need(obj: dict, key: str, kind, where: str):
    value = obj.get(key) if isinstance(obj, dict) else None
    if not isinstance(value, kind) or isinstance(value, bool):
        raise PublishedError(f"{where}: '{key}' missing or not {getattr(kind, '__name__', 'valid')}")
    return value


def _optional_int(obj: dict, key: str, where: str) -> Optional[int]:
    value = obj.get(key)
    if value is not None and (not isinstance(value, int) or isinstance(value, bool) or value <= 0):
        raise PublishedError(f"{where}: '{key}' must be a positive integer or null")
    return value


def _finite(value) -> Optional[float]:
    """An optional number of the file (percent of peak, assumed peak): None unless finite and > 0."""
    ok = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value) and value > 0
    return float(value) if ok else None


def load_published(path: str) -> Published:
    """Reads and checks a published-figures file; PublishedError names what is wrong."""
    try:
        doc = parse_json(read_text(path, "a published-figures file"))
    except json.JSONDecodeError as e:
        raise PublishedError(f"{path}: not valid JSON ({e.msg} at line {e.lineno})") from None
    if not isinstance(doc, dict) or doc.get("label") != "published":
        raise PublishedError(f"{path}: not a published-figures file (no \"label\": \"published\")")
    source = _need(doc, "source", dict, path)
    conditions = _need(doc, "conditions", dict, path)
    n = _need(conditions, "n", int, f"{path}: conditions")
    if n <= 0:
        raise PublishedError(f"{path}: conditions: 'n' must be positive")
    peak = conditions.get("peak_gbps_assumed")
    figures = []
    for i, k in enumerate(_need(doc, "kernels", list, path)):
        where = f"{path}: kernels[{i}]"
        kernel = _need(k, "kernel", str, where)
        ours = _need(k, "ours", str, where).split("/")
        if len(ours) != 3 or not all(ours):
            raise PublishedError(f"{where}: 'ours' must be family/type/variant")
        block, batch = _optional_int(k, "block", where), _optional_int(k, "batch", where)
        for j, f in enumerate(_need(k, "figures", list, where)):
            fwhere = f"{where}.figures[{j}]"
            gbps = _need(f, "gbps", (int, float), fwhere)
            if isinstance(gbps, bool) or not math.isfinite(gbps) or gbps <= 0:   # JSON NaN/Infinity parse
                raise PublishedError(f"{fwhere}: 'gbps' must be positive, got {gbps!r}")
            pct = f.get("percent_of_peak")
            figures.append(Figure(kernel, _need(f, "in", str, fwhere), tuple(ours), block, batch,
                                  float(gbps), _finite(pct)))
    if not figures:
        raise PublishedError(f"{path}: no published figures")
    return Published(path=path, title=_need(source, "title", str, f"{path}: source"),
                     author=str(source.get("author", "")), url=str(source.get("url", "")),
                     gpu=_need(doc, "gpu", str, path), gpu_match=_need(doc, "gpu_match", str, path),
                     n=n, peak_gbps=_finite(peak), figures=figures)


def gpu_matches(gpu_name: str, model: str) -> bool:
    """"NVIDIA H100 80GB HBM3" is an H100; "NVIDIA H1000" or "NVIDIA H200" is not."""
    return re.search(rf"(?<![A-Za-z0-9]){re.escape(model)}(?![A-Za-z0-9])", gpu_name, re.IGNORECASE) is not None


def check_gpus(runs: Sequence[Results], published: Published, any_gpu: bool) -> str:
    """Our GPU: the files must share one; it must be the published model unless any_gpu."""
    gpus = sorted({run.gpu for run in runs})
    if len(gpus) > 1:
        raise PublishedError(f"our files come from several GPUs ({', '.join(gpus)}): give one GPU's files")
    if not any_gpu and not gpu_matches(gpus[0], published.gpu_match):
        raise PublishedError(f"{runs[0].path} was measured on {gpus[0]}, the published figures on an "
                             f"{published.gpu}; pass --any-gpu to compare anyway")
    return gpus[0]


@dataclass
class Row:
    figure: Figure
    ours: Optional[Record]
    how: str                     # how ours was chosen, or why there is none

    @property
    def ratio(self) -> Optional[float]:
        return self.ours.bytes_per_second / 1e9 / self.figure.gbps if self.ours else None


def _config(block: Optional[int], batch: Optional[int]) -> str:
    return ", ".join([f"block {block}"] * (block is not None) + [f"batch {batch}"] * (batch is not None))


def choose(candidates: List[Record], figure: Figure) -> Tuple[Optional[Record], str]:
    """Ours at the write-up's block/batch when measured, else our best (highest GB/s)."""
    if not candidates:
        return None, ""
    wanted = _config(figure.block, figure.batch)
    same = [r for r in candidates if (r.block, r.batch) == (figure.block, figure.batch)]
    if same:
        return same[0], f"{wanted or 'no block/batch'} (the write-up's)"
    best = max(candidates, key=lambda r: r.bytes_per_second)
    return best, (f"best of {len(candidates)}: {_config(best.block, best.batch) or 'no block/batch'}"
                  f" (write-up: {wanted or 'none'})")


def compare(records: Sequence[Record], errors: Sequence[Tuple[str, str]], published: Published,
            published_in: Optional[str] = None) -> List[Row]:
    """One row per published figure (of one publication when published_in is given)."""
    at_n: Dict[Tuple[str, str, str], List[Record]] = {}
    for r in representative(records):
        if r.n == published.n:
            at_n.setdefault(r.series, []).append(r)
    failed = set()
    for name, _ in errors:
        p = parse_name(name)
        if p and p["n"] == published.n:
            failed.add((p["family"], p["type"], p["variant"]))
    rows = []
    for f in published.figures:
        if published_in and f.published_in != published_in:
            continue
        ours, how = choose(at_n.get(f.series, []), f)
        if ours is None:
            how = "failed in our run" if f.series in failed else "not in our files"
        rows.append(Row(f, ours, how))
    return rows


HEADER = ["write-up kernel", "published in", "our variant", "N", "published GB/s", "published % of peak",
          "ours µs", "ours GB/s", "ours at", "ours / published", "published GPU", "our GPU"]


def table(rows: Sequence[Row], published: Published, our_gpu: str, n_label=pow2_label) -> List[List[str]]:
    """The cells of HEADER's columns, one list per row ("" where there is no value)."""
    out = []
    for row in rows:
        f, r = row.figure, row.ours
        out.append([f.kernel, f.published_in, "/".join(f.series), n_label(published.n), f"{f.gbps:g}",
                    f"{f.percent_of_peak:g}" if f.percent_of_peak is not None else "",
                    f"{r.seconds * 1e6:.1f}" if r else "", f"{r.bytes_per_second / 1e9:.1f}" if r else "",
                    row.how, f"{row.ratio:.3f}" if r else "", published.gpu, our_gpu])
    return out


def print_markdown(cells: List[List[str]], published: Published, files: Sequence[str]) -> None:
    peak = f" of {published.peak_gbps:g} GB/s" if published.peak_gbps else ""
    print(f'Published: "{published.title}"' + (f" ({published.author}, {published.url})" if published.author else "")
          + f", on an {published.gpu}; percentages{peak} as published.")
    print(f"Ours: {', '.join(files)}; time per call (median where repeated), GB/s of our declared bytes.\n")
    print("| " + " | ".join(HEADER) + " |")
    print("|" + "|".join("---:" if h in ("N", "published GB/s", "published % of peak", "ours µs", "ours GB/s",
                                          "ours / published") else "---" for h in HEADER) + "|")
    for line in cells:
        print("| " + " | ".join(c or "-" for c in line) + " |")


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, like every other bad input
        raise PublishedError(message)


@entry
def main(argv: Sequence[str] | None = None) -> int:
    parser = _Parser(prog="bench-published", description=__doc__.split("\n\n")[0])
    parser.add_argument("results", nargs="+", help="our cuda_bench result JSON file(s), from one GPU")
    parser.add_argument("--published", default=DEFAULT_PUBLISHED,
                        help=f"published-figures JSON (default: the repository's {DEFAULT_IN_REPOSITORY})")
    parser.add_argument("--published-in", default=None, help="only the figures of this publication (e.g. blog, repo)")
    parser.add_argument("--format", choices=("markdown", "csv"), default="markdown")
    parser.add_argument("--any-gpu", action="store_true", help="compare with files from another GPU model")
    try:
        args = parser.parse_args(argv)
        published = load_published(args.published)
        if args.published_in and args.published_in not in {f.published_in for f in published.figures}:
            raise PublishedError(f"--published-in: no figures published in '{args.published_in}' "
                                 f"(there are: {', '.join(sorted({f.published_in for f in published.figures}))})")
        runs = [load_results(p) for p in args.results]
        our_gpu = check_gpus(runs, published, args.any_gpu)
        rows = compare([r for run in runs for r in run.records], [e for run in runs for e in run.errors],
                       published, args.published_in)
        if not any(row.ours for row in rows):
            raise PublishedError(f"no benchmark of the published kernels at N = {pow2_label(published.n)} in "
                                 f"the input ({', '.join(sorted({'/'.join(row.figure.series) for row in rows}))})")
    except (ResultsError, PublishedError) as e:
        print(f"bench-published: {e}", file=sys.stderr)
        return 2
    for run in runs:
        if run.truncated:
            print(f"bench-published: warning: {run.path} is truncated; using its complete entries", file=sys.stderr)
    if args.format == "csv":
        cells = table(rows, published, our_gpu, n_label=str)
        writer = csv.writer(sys.stdout, lineterminator="\n")
        writer.writerow(HEADER)
        writer.writerows(cells)
    else:
        print_markdown(table(rows, published, our_gpu), published, args.results)
    return 0


if __name__ == "__main__":
    sys.exit(main())
