"""bench-plot: charts from cuda_bench result JSON, on any machine (no GPU).

  python3 -m benchtools.plot results/nvidia-h200_*.json --out plots/

Writes (PNG, SVG and/or PDF; byte-identical when redrawn from the same JSON):
  bandwidth_<family>_<type>   GB/s against N (log-log), the best hand-written kernel
                              and each library highlighted, the rest faded, in
                              declaration (write-up) order; the GPU's theoretical
                              peak and the measured ceiling that fits the family
  speedup_<family>_<type>     reference time / variant time against N (the
                              family's declared reference, or --baseline)
  time_<family>_<type>        µs per call at the launch-bound sizes (N <= 2^20)
  roofline_families           each family/type's best kernel and its library at
                              their own intensities, under the read and copy
                              roofs and the compute roofs, with % of roof
  heatmap_<family>_<type>_<variant>   GB/s over block x batch at one N (with _n<N> when
                              the GPUs' largest N differ: a file per N)
  gpucompare_<family>_<type>  (files of several GPUs) time on each GPU over the first's
  versus_<family>_<kernel>    (with --versus KERNEL) µs per call of the kernel and of
                              every library path (each CCCL of a bench-merge file),
                              and the kernel's speedup over the fastest path of each
Files of several GPUs are never merged: every chart shows one panel per GPU,
each against its own peak and ceilings. The charts are drawn by --jobs processes
(default: one per CPU); each file is the same whichever process draws it.
Bad input: one line on stderr, exit code 2.
"""
from __future__ import annotations

import multiprocessing
import os
import re
import sys
import threading
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Callable, List, Sequence, Tuple

from benchtools import draw, shape, versus
from benchtools.cli import entry, check_writable, Parser, check_regex, comma_list, load, warn, writing
from benchtools.results import ResultsError

CHARTS = ("bandwidth", "speedup", "time", "roofline", "heatmap", "gpucompare", "versus")


def _roofline_title(points: Sequence[shape.RooflinePoint], n: int | None) -> str:
    if n is not None:
        at = f"N = {shape.n_label(n)}"
    else:
        sizes = sorted({p.record.n for p in points}, reverse=True)
        at = "the largest N of each family (" + ", ".join(shape.n_label(s) for s in sizes) + ")"
    return f"Roofline across families at {at}: each family/type's best hand-written kernel and its library"


def versus_charts(gpus: List[shape.Gpu], kernel: str, libraries: Sequence[str] | None) -> List[versus.VersusChart]:
    """The versus charts of every GPU (the GPU's slug in the file name when there are
    several); ResultsError when the kernel or its library paths are missing."""
    out = []
    for g in gpus:
        for c in versus.versus_charts(g, versus.versus_tables(g, kernel, libraries)):
            if len(gpus) > 1:
                c.stem += f"_{shape.slug(g.label)}"
            out.append(c)
    return out


def render(gpus: List[shape.Gpu], charts: Sequence[str], out_dir: Path, formats: Sequence[str],
           n: int | None = None, baseline: str | None = None, heatmap: str | None = None,
           versus_: Sequence[versus.VersusChart] = (), jobs: int = 1) -> Tuple[List[Path], List[str]]:
    """Draws the chosen chart kinds into out_dir, in `jobs` processes; returns the
    files (in the charts' order) and what the rooflines lacked (roofs, or N for a family)."""
    figures = []   # (stem, figure)
    missing: List[str] = []
    if "versus" in charts:
        figures += [(c.stem, lambda c=c: draw.versus_chart(c)) for c in versus_]
    if "bandwidth" in charts:
        figures += [(c.stem, lambda c=c: draw.line_chart(c)) for c in shape.bandwidth_charts(gpus)]
    if "speedup" in charts:
        figures += [(c.stem, lambda c=c: draw.line_chart(c)) for c in shape.speedup_charts(gpus, baseline)]
    if "time" in charts:
        figures += [(c.stem, lambda c=c: draw.line_chart(c)) for c in shape.time_charts(gpus)]
    if "gpucompare" in charts:
        figures += [(c.stem, lambda c=c: draw.line_chart(c)) for c in shape.gpucompare_charts(gpus)]
    if "roofline" in charts:
        panels = []
        for g in gpus:
            if n is not None:
                missing += [f"N = {shape.n_label(n)} for {f}/{t} on {g.label}"
                            for (f, t), rs in shape.by_chart(shape.kernels(g.records)).items()
                            if not any(r.n == n for r in rs)]
            points = shape.family_roofline(g, n)
            for p in points:
                missing += [m for m in p.roof.missing if m not in missing]
            if points:
                panels.append((shape.panel_label(g), points))
        if panels:
            title = _roofline_title([p for _, pts in panels for p in pts], n)
            figures.append(("roofline_families", lambda t=title, p=panels: draw.roofline(t, p)))
    if "heatmap" in charts:
        targets = {}
        for g in gpus:
            for s, at in shape.heatmap_targets(g.records, heatmap, n):
                targets.setdefault((s, at), []).append((shape.panel_label(g), shape.heatmap_grid(g.records, s, at)))
        sizes = {}   # GPUs whose largest N differ get one heatmap per N: one file each, none overwritten
        for s, at in targets:
            sizes.setdefault(s, []).append(at)
        for ((family, type_, variant), at), panels in targets.items():
            title = f"{family} {type_} {variant}: GB/s by block x batch at N = {shape.n_label(at)}"
            stem = f"heatmap_{family}_{type_}_{variant}" + (f"_n{at}" if len(sizes[(family, type_, variant)]) > 1 else "")
            figures.append((stem, lambda t=title, p=panels: draw.heatmap(t, p)))
    _check_names([stem for stem, _ in figures], out_dir, formats)
    out_dir.mkdir(parents=True, exist_ok=True)
    global _JOB
    _JOB = (figures, out_dir, tuple(formats))
    workers = min(jobs, len(figures))
    try:
        if workers <= 1 or not _can_fork():
            drawn = [_draw(i) for i in range(len(figures))]
        else:   # forked workers see the figures' closures as the parent has them
            with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork")) as pool:
                drawn = list(pool.map(_draw, range(len(figures))))
    finally:
        _JOB = None
    return [p for paths in drawn for p in paths], missing


def _check_names(stems: Sequence[str], out_dir: Path, formats: Sequence[str]) -> None:
    """ResultsError naming the first chart file whose name the file system cannot hold
    (a family or variant of hundreds of characters), before any chart is drawn."""
    base = out_dir
    while not base.exists() and base != base.parent:
        base = base.parent
    try:
        limit = os.pathconf(base, "PC_NAME_MAX")
    except (AttributeError, OSError, ValueError):   # not POSIX, or no limit known: the usual one
        limit = 255
    for name in (f"{stem}.{fmt}" for stem in stems for fmt in formats):
        size = len(os.fsencode(name))
        if 0 < limit < size:
            raise ResultsError(f"--out {out_dir / name}: cannot write: file name too long "
                               f"({size} bytes, at most {limit} here)")


def _can_fork() -> bool:
    """Whether worker processes may be forked here: a fork start method, no other
    thread running (a forked child can inherit a lock another thread held), and
    Python 3.10 or later (3.9's pool could fork from its own manager thread)."""
    return ("fork" in multiprocessing.get_all_start_methods() and threading.active_count() == 1
            and sys.version_info >= (3, 10))


# The figures of the render in progress: (stem, make) pairs, the folder and the
# formats; set before the worker processes fork, so they need nothing pickled.
_JOB: Tuple[List[Tuple[str, Callable]], Path, Tuple[str, ...]] | None = None


def _draw(index: int) -> List[Path]:
    figures, out_dir, formats = _JOB
    stem, make = figures[index]
    fig = make()
    paths = [draw.save(fig, out_dir / f"{stem}.{fmt}", fmt) for fmt in formats]
    draw.close(fig)
    return paths


def default_jobs() -> int:
    """One process per CPU this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:   # not Linux
        return max(1, os.cpu_count() or 1)


@entry
def main(argv: Sequence[str] | None = None) -> int:
    parser = Parser(prog="bench-plot", description=__doc__.split("\n\n")[0])
    parser.add_argument("results", nargs="+", help="cuda_bench result JSON file(s)")
    parser.add_argument("--out", default="plots", help="output folder (default: plots)")
    parser.add_argument("--filter", default=None, help="regex on family/type/variant, e.g. 'reduce_sum/i32'")
    parser.add_argument("--format", default="png,svg", help="comma list of png, svg, pdf (default: png,svg)")
    parser.add_argument("--charts", default=None, help=f"comma list of {', '.join(CHARTS)} (default: all; "
                                                       "gpucompare needs files of two GPUs, versus --versus)")
    parser.add_argument("--n", default=None, help="N for roofline and heatmaps, e.g. 268435456 or 2^28 "
                                                  "(default: the largest N of each family/type or variant)")
    parser.add_argument("--baseline", default=None, help="speedup baseline variant (default: each family's "
                                                         "declared reference)")
    parser.add_argument("--versus", default=None, metavar="KERNEL",
                        help="the versus chart: this kernel variant against every library path of its family/type")
    parser.add_argument("--libraries", default=None, help="with --versus: comma list of the variants to compare "
                                                          "against instead of the declared libraries")
    parser.add_argument("--heatmap", default=None, help="regex on family/type/variant choosing heatmaps (default: "
                                                        "every variant with more than one block/batch at N)")
    parser.add_argument("--jobs", default=None, help="processes drawing the charts (default: one per CPU)")
    try:
        args = parser.parse_args(argv)
        formats = comma_list("--format", args.format, draw.FORMATS)
        charts = comma_list("--charts", args.charts or ",".join(c for c in CHARTS if c != "versus" or args.versus),
                            CHARTS)
        if "versus" in charts and not args.versus:
            raise ResultsError("--charts versus needs --versus KERNEL")
        if args.libraries and not args.versus:
            raise ResultsError("--libraries needs --versus KERNEL")
        n = shape.parse_n(args.n) if args.n is not None else None
        jobs = default_jobs()
        if args.jobs is not None:
            if not re.fullmatch(r"[0-9]+", args.jobs) or int(args.jobs) < 1:
                raise ResultsError(f"--jobs: expected a positive whole number of processes, got '{args.jobs}'")
            jobs = int(args.jobs)
        check_regex("--heatmap", args.heatmap)
        check_writable("--out", args.out, directory=True)
        _, gpus, warnings = load(args.results, "bench-plot", args.filter)
        if args.charts and "gpucompare" in charts and len(gpus) < 2:   # asked for, not the default "all"
            raise ResultsError(f"--charts gpucompare needs files of two or more GPUs; the input holds one"
                               + (" matching --filter" if args.filter else "") + f" ({gpus[0].label})")
        kernels = [r for g in gpus for r in shape.kernels(g.records)]
        if n is not None and not any(r.n == n for r in kernels):
            raise ResultsError(f"--n {args.n}: no benchmark at N = {n} in the input "
                               f"(present: {shape.present_sizes(kernels)})")
        if args.baseline and "speedup" in charts and not any(r.variant == args.baseline for r in kernels):
            raise ResultsError(f"--baseline {args.baseline}: no such variant in the input")
        if args.heatmap and "heatmap" in charts and not any(shape.heatmap_targets(g.records, args.heatmap, n)
                                                             for g in gpus):
            raise ResultsError(f"--heatmap '{args.heatmap}': matches no variant"
                               + (f" at N = {n}" if n is not None else ""))
        libraries = [v.strip() for v in args.libraries.split(",") if v.strip()] if args.libraries else None
        versus_ = versus_charts(gpus, args.versus, libraries) if "versus" in charts else []
    except ResultsError as e:
        print(f"bench-plot: {e}", file=sys.stderr)
        return 2

    try:
        with writing("--out", args.out):
            written, missing = render(gpus, charts, Path(args.out), formats, n, args.baseline, args.heatmap,
                                      versus_, jobs)
    except ResultsError as e:
        print(f"bench-plot: {e}", file=sys.stderr)
        return 2
    if not written:   # e.g. only 0 B/s and mean aggregates: nothing a chart can show
        print(f"bench-plot: nothing to draw: no benchmark in the input has a time and declared bytes for the "
              f"charts {', '.join(charts)}", file=sys.stderr)
        return 2
    warn(warnings)
    if missing:  # once, however many charts lack it
        print(f"bench-plot: warning: roofline drawn without: {'; '.join(missing)}", file=sys.stderr)
    for p in written:
        print(p)
    return 0


if __name__ == "__main__":
    sys.exit(main())
