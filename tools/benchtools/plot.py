"""bench-plot: charts from cuda_bench result JSON, on any machine (no GPU).

  python3 -m benchtools.plot results/nvidia-h200_*.json --out plots/

Writes, per family and element type, bandwidth_<family>_<type>.{png,svg}:
GB/s against N (log2 axis), one line per variant at its best block/batch for
each N, library baselines dashed, the theoretical peak as a horizontal line.
Bad input: one line on stderr, exit code 2.
"""
from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path
from typing import Dict, List, Sequence, Tuple

from benchtools.results import Record, Results, ResultsError, best_per_n, load_results


def _matplotlib():
    import matplotlib

    matplotlib.use("Agg")  # files only, no display
    import matplotlib.pyplot as plt

    return plt


def variant_colors(variants: Sequence[str]) -> Dict[str, tuple]:
    """A fixed color per variant name, the same in every chart of a run."""
    plt = _matplotlib()
    palette = list(plt.get_cmap("tab20").colors) + list(plt.get_cmap("tab20b").colors)
    return {v: palette[i % len(palette)] for i, v in enumerate(sorted(set(variants)))}


def select(records: List[Record], pattern: str | None) -> List[Record]:
    """Records whose "family/type/variant" matches the regex (search)."""
    if not pattern:
        return records
    rx = re.compile(pattern)
    return [r for r in records if rx.search("/".join(r.series))]


def bandwidth_series(records: List[Record]) -> Dict[Tuple[str, str], Dict[str, List[Tuple[int, float, Record]]]]:
    """{(family, type): {variant: [(N, GB/s, best record), ...]}}: what the
    bandwidth chart draws."""
    charts: Dict[Tuple[str, str], Dict[str, List[Tuple[int, float, Record]]]] = {}
    for (family, type_, variant), rs in best_per_n(records).items():
        charts.setdefault((family, type_), {})[variant] = [(r.n, r.bytes_per_second / 1e9, r) for r in rs]
    return charts


def _title(kind: str, family: str, type_: str, runs: List[Results]) -> str:
    gpus = sorted({r.gpu for r in runs})
    dates = sorted({r.date for r in runs if r.date})
    when = dates[0] if len(dates) == 1 else (f"{dates[0]} to {dates[-1]}" if dates else "")
    return f"{family} {type_}: {kind}\n{', '.join(gpus)}" + (f", run {when}" if when else "")


def plot_bandwidth(runs: List[Results], records: List[Record], out_dir: Path, formats: Sequence[str]) -> List[Path]:
    plt = _matplotlib()
    charts = bandwidth_series(records)
    colors = variant_colors([v for series in charts.values() for v in series])
    peaks = sorted({p for p in (r.peak_bandwidth for r in runs) if p})
    written: List[Path] = []
    for (family, type_), series in sorted(charts.items()):
        fig, ax = plt.subplots(figsize=(10, 6), dpi=120)
        for variant, points in sorted(series.items()):
            xs = [n for n, _, _ in points]
            ys = [gbps for _, gbps, _ in points]
            library = points[0][2].is_library
            ax.plot(xs, ys, label=variant + (" (library)" if library else ""), color=colors[variant],
                    linestyle="--" if library else "-", linewidth=2.4 if library else 1.6,
                    marker="s" if library else "o", markersize=3.5)
        for peak in peaks:
            ax.axhline(peak / 1e9, color="black", linestyle=":", linewidth=1.2)
            ax.annotate(f"theoretical peak {peak / 1e9:.0f} GB/s", xy=(0.01, peak / 1e9), xycoords=("axes fraction", "data"),
                        xytext=(0, 3), textcoords="offset points", fontsize=8)
        ax.set_xscale("log", base=2)
        ax.set_xlabel("N (elements)")
        ax.set_ylabel("GB/s (bytes model / measured time)")
        ax.set_title(_title("bandwidth vs N, best block/batch per N", family, type_, runs), fontsize=11)
        ax.grid(True, which="major", alpha=0.3)
        ax.set_ylim(0, max([p / 1e9 for p in peaks] + [max(y for pts in series.values() for _, y, _ in pts)]) * 1.1)
        ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0)
        fig.tight_layout()
        for fmt in formats:
            path = out_dir / f"bandwidth_{family}_{type_}.{fmt}"
            fig.savefig(path)
            written.append(path)
        plt.close(fig)
    return written


def load_all(paths: Sequence[str]) -> Tuple[List[Results], List[Record]]:
    runs = [load_results(p) for p in paths]
    records = [r for run in runs for r in run.records]
    return runs, records


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="bench-plot", description=__doc__.split("\n\n")[0])
    parser.add_argument("results", nargs="+", help="cuda_bench result JSON file(s)")
    parser.add_argument("--out", default="plots", help="output folder (default: plots)")
    parser.add_argument("--filter", default=None, help="regex on family/type/variant, e.g. 'reduce_sum/i32'")
    parser.add_argument("--format", default="png,svg", help="comma list of png, svg (default: png,svg)")
    args = parser.parse_args(argv)

    formats = [f.strip().lower() for f in args.format.split(",") if f.strip()]
    bad = [f for f in formats if f not in ("png", "svg")]
    if bad or not formats:
        print(f"bench-plot: --format: expected png and/or svg, got '{args.format}'", file=sys.stderr)
        return 2
    try:
        runs, records = load_all(args.results)
        if args.filter:
            try:
                records = select(records, args.filter)
            except re.error as e:
                raise ResultsError(f"--filter '{args.filter}': not a valid regex ({e})") from None
    except ResultsError as e:
        print(f"bench-plot: {e}", file=sys.stderr)
        return 2
    for run in runs:
        if run.truncated:
            print(f"bench-plot: warning: {run.path} is truncated (interrupted run?); "
                  f"plotting its {len(run.records)} complete entries", file=sys.stderr)
    if not records:
        print("bench-plot: no successful cuda_bench benchmarks in the input"
              + (f" match --filter '{args.filter}'" if args.filter else ""), file=sys.stderr)
        return 2
    out_dir = Path(args.out)
    out_dir.mkdir(parents=True, exist_ok=True)
    written = plot_bandwidth(runs, records, out_dir, formats)
    for p in written:
        print(p)
    return 0


if __name__ == "__main__":
    sys.exit(main())
