"""bench-plot: charts from cuda_bench result JSON, on any machine (no GPU).

  python3 -m benchtools.plot results/nvidia-h200_*.json --out plots/

Writes, per family and element type (PNG and/or SVG):
  bandwidth_<family>_<type>   GB/s against N, each variant at its best block/batch,
                              library baselines dashed, theoretical peak and measured
                              read ceiling as horizontal lines
  speedup_<family>_<type>     baseline time / variant time against N (>1: faster than
                              the library); only where the baseline was measured
  roofline_<family>_<type>    op/s against op/byte at one N, measured and theoretical
                              roofs, their ridge points
  heatmap_<family>_<type>_<variant>   GB/s over block x batch at one N
Bad input: one line on stderr, exit code 2.
"""
from __future__ import annotations

import argparse
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

from benchtools.cli import check_writable
from benchtools.results import CEILING_FAMILY, Record, Results, ResultsError, best_per_n, load_runs, representative

CHARTS = ("bandwidth", "speedup", "roofline", "heatmap")
# Default speedup baselines, in order of preference, per family/type.
BASELINES = ("cub_device_reduce", "cub_device_transform")
READ_CEILING = "read_vec16"  # ceiling/<any type>/read_vec16: the measured bandwidth roof


@dataclass(frozen=True)
class ComputeRoof:
    ceiling: Tuple[str, str]  # (type, variant) of the ceiling benchmark
    peak_key: str             # context key of the theoretical peak
    label: str


# Element type -> the compute roof its kernels run under (bf16 shares the half2 pipe).
COMPUTE_ROOFS = {
    "f32": ComputeRoof(("f32", "fma"), "gpu_peak_fp32_flops", "FP32 FMA"),
    "f16": ComputeRoof(("f16", "hfma2"), "gpu_peak_fp16_flops", "FP16 half2 FMA"),
    "bf16": ComputeRoof(("f16", "hfma2"), "gpu_peak_fp16_flops", "FP16 half2 FMA"),
    "i32": ComputeRoof(("i32", "add"), "gpu_peak_int32_ops", "INT32 add"),
}
_COMPUTE_CEILINGS = {roof.ceiling for roof in COMPUTE_ROOFS.values()}


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, like every other bad input
        raise ResultsError(message)


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


def _by_chart(records: List[Record]) -> Dict[Tuple[str, str], List[Record]]:
    out: Dict[Tuple[str, str], List[Record]] = {}
    for r in records:
        out.setdefault((r.family, r.type), []).append(r)
    return out


def _is_compute_ceiling(r: Record) -> bool:
    return r.family == CEILING_FAMILY and (r.type, r.variant) in _COMPUTE_CEILINGS


def _kernels(records: List[Record]) -> List[Record]:
    """What speedup, roofline and heatmap charts are about: everything but the ceilings."""
    return [r for r in records if r.family != CEILING_FAMILY]


def bandwidth_series(records: List[Record]) -> Dict[Tuple[str, str], Dict[str, List[Tuple[int, float, Record]]]]:
    """{(family, type): {variant: [(N, GB/s, best record), ...]}}: what the
    bandwidth chart draws."""
    charts: Dict[Tuple[str, str], Dict[str, List[Tuple[int, float, Record]]]] = {}
    for (family, type_, variant), rs in best_per_n(records).items():
        charts.setdefault((family, type_), {})[variant] = [(r.n, r.bytes_per_second / 1e9, r) for r in rs]
    return charts


def choose_baseline(variants: Sequence[str], override: str | None = None) -> Optional[str]:
    """The variant a family/type's speedups are relative to: --baseline if given
    (None when that family/type lacks it), else cub_device_reduce, else
    cub_device_transform, else its only cub_* variant."""
    present = set(variants)
    if override:
        return override if override in present else None
    for name in BASELINES:
        if name in present:
            return name
    cub = sorted(v for v in present if v.startswith("cub_"))
    return cub[0] if len(cub) == 1 else None


def speedup_series(records: List[Record], baseline: str | None = None
                   ) -> Dict[Tuple[str, str], Dict[str, List[Tuple[int, float, Record]]]]:
    """{(family, type): {variant: [(N, baseline seconds / variant seconds, best record)]}}
    at each N where both were measured, each at its best block/batch. The baseline
    itself is left out (it is the line at 1); families without one are left out."""
    charts: Dict[Tuple[str, str], Dict[str, List[Tuple[int, float, Record]]]] = {}
    for key, series in bandwidth_series(_kernels(records)).items():
        base = choose_baseline(list(series), baseline)
        if base is None:
            continue
        base_time = {n: r.seconds for n, _, r in series[base]}
        chart = {}
        for variant, points in series.items():
            ratios = [(n, base_time[n] / r.seconds, r) for n, _, r in points if variant != base and n in base_time]
            if ratios:
                chart[variant] = ratios
        if chart:
            charts[key] = chart
    return charts


def best_at(records: List[Record], n: int) -> Dict[Tuple[str, str, str], Record]:
    """Each variant's best block/batch (highest bytes/s, i.e. fastest) at N."""
    return {s: r for s, rs in best_per_n(records).items() for r in rs if r.n == n}


def roofline_points(records: List[Record], n: int | None = None) -> List[Tuple[str, float, float, Record]]:
    """[(variant, op/byte, op/s, best record)] for one family/type at N (default:
    its largest N), sorted by variant; records declaring no ops or bytes are left out."""
    records = _kernels(records)
    if not records:
        return []
    if n is None:
        n = max(r.n for r in records)
    points = [(s[2], r.arithmetic_intensity, r.ops_per_second, r)
              for s, r in best_at(records, n).items() if r.arithmetic_intensity]
    return sorted(points, key=lambda p: p[0])


@dataclass(frozen=True)
class Roofs:
    """Roofline ceilings for one element type: measured (this input's ceiling
    benchmarks) and theoretical (context). Bytes/s and op/s; None when missing."""
    bandwidth: Optional[float]
    compute: Optional[float]
    peak_bandwidth: Optional[float]
    peak_compute: Optional[float]
    compute_label: str
    missing: Tuple[str, ...] = ()

    @property
    def ridge(self) -> Optional[float]:
        """Measured ridge point (op/byte): where the compute roof meets the bandwidth roof."""
        return self.compute / self.bandwidth if self.compute and self.bandwidth else None

    @property
    def peak_ridge(self) -> Optional[float]:
        return self.peak_compute / self.peak_bandwidth if self.peak_compute and self.peak_bandwidth else None


def roof_fraction(roof: Roofs, intensity: float, ops_per_second: float) -> Optional[float]:
    """ops_per_second over the attainable min(bandwidth x intensity, compute) of the
    measured roof (the theoretical one when nothing was measured); None without a roof."""
    bw, ops = (roof.bandwidth, roof.compute) if roof.bandwidth or roof.compute else (roof.peak_bandwidth, roof.peak_compute)
    attainable = min(bw * intensity if bw else float("inf"), ops or float("inf"))
    return ops_per_second / attainable if attainable != float("inf") else None


def _best_ceiling(records: List[Record], variant: str, type_: str | None, rate: str) -> Optional[float]:
    values = [getattr(r, rate) for r in representative(records) if r.family == CEILING_FAMILY
              and r.variant == variant and (type_ is None or r.type == type_)]
    return max(values) if values and max(values) > 0 else None


def measured_read_ceiling(records: List[Record]) -> Optional[float]:
    """Best bytes/s over N of ceiling/*/read_vec16."""
    return _best_ceiling(records, READ_CEILING, None, "bytes_per_second")


def roofs(runs: List[Results], records: List[Record], type_: str) -> Roofs:
    """The roofs a `type_` kernel is drawn under; `records` should be the whole
    input (ceilings are kept even when --filter leaves them out)."""
    roof = COMPUTE_ROOFS.get(type_)
    bandwidth = measured_read_ceiling(records)
    compute = _best_ceiling(records, roof.ceiling[1], roof.ceiling[0], "ops_per_second") if roof else None
    peak_bws = [p for p in (run.peak_bandwidth for run in runs) if p]
    peak_ops = [p for p in (run.context_number(roof.peak_key) for run in runs) if p] if roof else []
    missing = []
    if bandwidth is None:
        missing.append(f"measured bandwidth (ceiling/*/{READ_CEILING})")
    if roof is None:
        missing.append(f"compute roofs for type {type_} (no mapping)")
    else:
        if compute is None:
            missing.append(f"measured compute (ceiling/{'/'.join(roof.ceiling)})")
        if not peak_ops:
            missing.append(f"theoretical compute ({roof.peak_key})")
    if not peak_bws:
        missing.append("theoretical bandwidth (gpu_peak_bandwidth_gbps)")
    return Roofs(bandwidth, compute, max(peak_bws, default=None), max(peak_ops, default=None),
                 roof.label if roof else f"{type_} compute", tuple(missing))


def heatmap_grid(records: List[Record], series: Tuple[str, str, str], n: int):
    """(blocks, batches, GB/s matrix [block row][batch column], best (row, col))
    for one (family, type, variant) at N; unmeasured cells are NaN; a missing
    axis is the single value None. None when the variant has nothing at N."""
    import numpy as np

    cells = {(r.block, r.batch): r.bytes_per_second / 1e9
             for r in representative(records) if r.series == tuple(series) and r.n == n}
    if not cells:
        return None
    order = lambda v: (v is not None, v or 0)  # noqa: E731 (None, i.e. no axis, first)
    blocks = sorted({b for b, _ in cells}, key=order)
    batches = sorted({k for _, k in cells}, key=order)
    matrix = np.full((len(blocks), len(batches)), np.nan)
    for (b, k), gbps in cells.items():
        matrix[blocks.index(b), batches.index(k)] = gbps
    best = np.unravel_index(np.nanargmax(matrix), matrix.shape)
    return blocks, batches, matrix, (int(best[0]), int(best[1]))


def heatmap_targets(records: List[Record], pattern: str | None = None,
                    n: int | None = None) -> List[Tuple[Tuple[str, str, str], int]]:
    """[((family, type, variant), N)] to draw heatmaps for: variants matching the
    regex, or by default those with more than one block/batch combination at N.
    N is the given one, else the variant's largest."""
    rx = re.compile(pattern) if pattern else None
    configs: Dict[Tuple[str, str, str], Dict[int, set]] = {}
    for r in _kernels(records):
        configs.setdefault(r.series, {}).setdefault(r.n, set()).add((r.block, r.batch))
    targets = []
    for s, by_n in sorted(configs.items()):
        at = n if n is not None else max(by_n)
        if at not in by_n:
            continue
        if (rx.search("/".join(s)) if rx else len(by_n[at]) > 1):
            targets.append((s, at))
    return targets


def _n_label(n: int) -> str:
    return f"2^{n.bit_length() - 1}" if n & (n - 1) == 0 else f"{n:,}"


def _config(r: Record) -> str:
    parts = [f"block {r.block}"] * (r.block is not None) + [f"batch {r.batch}"] * (r.batch is not None)
    return ", ".join(parts)


def _title(kind: str, family: str, type_: str, runs: List[Results]) -> str:
    gpus = sorted({r.gpu for r in runs})
    dates = sorted({r.date for r in runs if r.date})
    when = dates[0] if len(dates) == 1 else (f"{dates[0]} to {dates[-1]}" if dates else "")
    return f"{family} {type_}: {kind}\n{', '.join(gpus)}" + (f", run {when}" if when else "")


def _save(plt, fig, out_dir: Path, stem: str, formats: Sequence[str]) -> List[Path]:
    fig.tight_layout()
    paths = []
    for fmt in formats:
        paths.append(out_dir / f"{stem}.{fmt}")
        fig.savefig(paths[-1], bbox_inches="tight")  # keeps the outside legend whole
    plt.close(fig)
    return paths


def _legend_outside(ax):
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0)


def _line_style(library: bool) -> dict:
    return dict(linestyle="--" if library else "-", linewidth=2.4 if library else 1.6,
                marker="s" if library else "o", markersize=3.5)


def plot_bandwidth(runs: List[Results], records: List[Record], out_dir: Path, formats: Sequence[str],
                   colors: Dict[str, tuple] | None = None, read_ceiling: float | None = None) -> List[Path]:
    plt = _matplotlib()
    # A compute ceiling's bytes are incidental: it has no place on a GB/s chart.
    charts = bandwidth_series([r for r in records if not _is_compute_ceiling(r)])
    colors = colors or variant_colors([v for series in charts.values() for v in series])
    peaks = sorted({p for p in (r.peak_bandwidth for r in runs) if p})
    written: List[Path] = []
    for (family, type_), series in sorted(charts.items()):
        fig, ax = plt.subplots(figsize=(10, 6), dpi=120)
        for variant, points in sorted(series.items()):
            library = points[0][2].is_library
            ax.plot([n for n, _, _ in points], [gbps for _, gbps, _ in points],
                    label=variant + (" (library)" if library else ""), color=colors[variant], **_line_style(library))
        for peak in peaks:
            ax.axhline(peak / 1e9, color="black", linestyle=":", linewidth=1.2)
            ax.annotate(f"theoretical peak {peak / 1e9:.0f} GB/s", xy=(0.01, peak / 1e9), xycoords=("axes fraction", "data"),
                        xytext=(0, 3), textcoords="offset points", fontsize=8)
        if read_ceiling:
            # Below its line, the peak's label above its own: apart however close the two are.
            ax.axhline(read_ceiling / 1e9, color="dimgray", linestyle="-.", linewidth=1.2)
            ax.annotate(f"measured read ceiling {read_ceiling / 1e9:.0f} GB/s", xy=(0.01, read_ceiling / 1e9),
                        xycoords=("axes fraction", "data"), xytext=(0, -3), textcoords="offset points",
                        va="top", fontsize=8, color="dimgray")
        ax.set_xscale("log", base=2)
        ax.set_xlabel("N (elements)")
        ax.set_ylabel("GB/s (bytes model / measured time)")
        ax.set_title(_title("bandwidth vs N, best block/batch per N", family, type_, runs), fontsize=11)
        ax.grid(True, which="major", alpha=0.3)
        top = [p / 1e9 for p in peaks] + [read_ceiling / 1e9 if read_ceiling else 0]
        ax.set_ylim(0, max(top + [max(y for pts in series.values() for _, y, _ in pts)]) * 1.1)
        _legend_outside(ax)
        written += _save(plt, fig, out_dir, f"bandwidth_{family}_{type_}", formats)
    return written


def plot_speedup(runs: List[Results], records: List[Record], out_dir: Path, formats: Sequence[str],
                 colors: Dict[str, tuple], baseline: str | None = None) -> List[Path]:
    plt = _matplotlib()
    written: List[Path] = []
    for (family, type_), series in sorted(speedup_series(records, baseline).items()):
        base = choose_baseline([r.variant for r in records if (r.family, r.type) == (family, type_)], baseline)
        fig, ax = plt.subplots(figsize=(10, 6), dpi=120)
        ax.axhline(1.0, color="black", linewidth=1.2, label=f"{base} (= 1)")
        for variant, points in sorted(series.items()):
            library = points[0][2].is_library
            ax.plot([n for n, _, _ in points], [x for _, x, _ in points],
                    label=variant + (" (library)" if library else ""), color=colors[variant], **_line_style(library))
        ax.set_xscale("log", base=2)
        ax.set_xlabel("N (elements)")
        ax.set_ylabel(f"speedup: {base} time / variant time")
        ax.set_title(_title(f"speedup vs {base}, best block/batch per N", family, type_, runs), fontsize=11)
        ax.grid(True, which="major", alpha=0.3)
        ax.set_ylim(0, max([1.0] + [x for pts in series.values() for _, x, _ in pts]) * 1.1)
        _legend_outside(ax)
        written += _save(plt, fig, out_dir, f"speedup_{family}_{type_}", formats)
    return written


def plot_roofline(runs: List[Results], records: List[Record], all_records: List[Record], out_dir: Path,
                  formats: Sequence[str], colors: Dict[str, tuple], n: int | None = None
                  ) -> Tuple[List[Path], List[str]]:
    """Returns the files and what was missing (roofs, or --n for a family/type)."""
    import numpy as np
    from matplotlib.ticker import EngFormatter, FuncFormatter, NullFormatter

    plt = _matplotlib()
    written: List[Path] = []
    missing: List[str] = []
    for (family, type_), rs in sorted(_by_chart(_kernels(records)).items()):
        if n is not None and not any(r.n == n for r in rs):
            missing.append(f"N = {_n_label(n)} for {family}/{type_}")
            continue
        at = n if n is not None else max(r.n for r in rs)
        points = roofline_points(rs, at)
        if not points:
            continue
        roof = roofs(runs, all_records, type_)
        missing += [m for m in roof.missing if m not in missing]
        ridges = [x for x in (roof.ridge, roof.peak_ridge) if x]
        xs = [p[1] for p in points] + ridges
        grid = np.geomspace(min(xs) / 8, max(xs) * 8, 256)

        # Top: the roofline. Bottom: each point as a fraction of its roof, legible even
        # where points at one intensity coincide (every reduction is 0.25 op/byte).
        fig, (ax, bars) = plt.subplots(2, 1, figsize=(10, 6.5 + 0.22 * len(points)), dpi=120,
                                       gridspec_kw={"height_ratios": [5, 1 + 0.22 * len(points)]})
        for bw, ops, style, which in ((roof.bandwidth, roof.compute, "-", "measured"),
                                      (roof.peak_bandwidth, roof.peak_compute, "--", "theoretical")):
            color = "black" if which == "measured" else "gray"
            if bw or ops:  # the roof is the lower of the two; a missing one does not bound it
                parts = ([f"{bw / 1e9:.0f} GB/s"] if bw else []) + ([f"{roof.compute_label} {ops / 1e12:.1f} Top/s"] if ops else [])
                ax.plot(grid, np.minimum(bw * grid if bw else np.inf, ops or np.inf), color=color, linestyle=style,
                        linewidth=1.8, label=f"{which} roof: {', '.join(parts)}")
            if bw and ops:
                ax.plot([ops / bw], [ops], "D", color=color, markersize=8, markerfacecolor=color if which == "measured" else "white",
                        label=f"{which} ridge {ops / bw:.1f} op/byte")
        for variant, x, y, r in points:
            config = _config(r)
            ax.scatter([x], [y], s=44, color=colors[variant], edgecolors="black", linewidths=0.6, zorder=3,
                       marker="s" if r.is_library else "o",
                       label=f"{variant}" + (f" ({config})" if config else "") + f": {x:.3g} op/byte, {y / 1e9:.0f} Gop/s")
        ys = [p[2] for p in points] + [v for v in (roof.compute, roof.peak_compute) if v]
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlim(grid[0], grid[-1])
        ax.set_ylim(min(ys) / 3, max(ys) * 3)
        ax.yaxis.set_major_formatter(EngFormatter(unit="op/s"))
        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
        ax.xaxis.set_minor_formatter(NullFormatter())  # minor labels crowd a narrow range
        ax.set_xlabel("arithmetic intensity (declared op / declared byte)")
        ax.set_ylabel("performance (declared op / measured time)")
        ax.set_title(_title(f"roofline at N = {_n_label(at)}, best block/batch", family, type_, runs), fontsize=11)
        ax.grid(True, which="major", alpha=0.3)
        _legend_outside(ax)

        which = "measured" if roof.bandwidth or roof.compute else "theoretical"
        fractions = [(v, f, colors[v]) for v, x, y, _ in points if (f := roof_fraction(roof, x, y)) is not None]
        if fractions:
            fractions.sort(key=lambda t: t[1])
            bars.barh(range(len(fractions)), [100 * f for _, f, _ in fractions], color=[c for _, _, c in fractions],
                      edgecolor="black", linewidth=0.5)
            for i, (_, f, _) in enumerate(fractions):
                bars.annotate(f"{100 * f:.0f}%", xy=(100 * f, i), xytext=(3, 0), textcoords="offset points",
                              va="center", fontsize=8, zorder=3,   # readable where it crosses the 100% line
                              bbox=dict(facecolor="white", edgecolor="none", pad=0.5))
            bars.set_yticks(range(len(fractions)), [v for v, _, _ in fractions], fontsize=8)
            bars.axvline(100, color="black", linewidth=1, zorder=1)
            bars.set_xlim(0, max(110, 100 * max(f for _, f, _ in fractions) + 12))
            bars.set_xlabel(f"% of the {which} roof at the variant's intensity")
            bars.grid(True, axis="x", alpha=0.3)
        else:
            bars.set_axis_off()
        written += _save(plt, fig, out_dir, f"roofline_{family}_{type_}", formats)
    return written, missing


def plot_heatmaps(runs: List[Results], records: List[Record], out_dir: Path, formats: Sequence[str],
                  targets: List[Tuple[Tuple[str, str, str], int]]) -> List[Path]:
    import numpy as np
    from matplotlib.patches import Rectangle

    plt = _matplotlib()
    written: List[Path] = []
    for (family, type_, variant), n in targets:
        blocks, batches, matrix, (bi, bj) = heatmap_grid(records, (family, type_, variant), n)
        fig, ax = plt.subplots(figsize=(max(7.0, 1.0 * len(batches) + 4), max(4.0, 0.7 * len(blocks) + 2.5)), dpi=120)
        cmap = plt.get_cmap("viridis").with_extremes(bad="lightgray")  # gray: unmeasured cells
        image = ax.imshow(np.ma.masked_invalid(matrix), cmap=cmap, aspect="auto")
        lo, hi = np.nanmin(matrix), np.nanmax(matrix)
        for i in range(len(blocks)):
            for j in range(len(batches)):
                v = matrix[i, j]
                if np.isnan(v):
                    ax.text(j, i, "not measured", ha="center", va="center", fontsize=8, color="dimgray")
                    continue
                best = (i, j) == (bi, bj)
                dark = hi > lo and (v - lo) / (hi - lo) < 0.6  # viridis is dark at the low end
                ax.text(j, i, f"{v:.0f}" + ("\nbest" if best else ""), ha="center", va="center",
                        fontsize=9, fontweight="bold" if best else "normal", color="white" if dark else "black")
        ax.add_patch(Rectangle((bj - 0.5, bi - 0.5), 1, 1, fill=False, edgecolor="red", linewidth=3,
                               clip_on=False))
        ax.set_xticks(range(len(batches)), [str(k) if k is not None else "(no batch axis)" for k in batches])
        ax.set_yticks(range(len(blocks)), [str(b) if b is not None else "(no block axis)" for b in blocks])
        ax.set_xlabel("batch (items per thread)")
        ax.set_ylabel("block (threads)")
        fig.colorbar(image, ax=ax, label="GB/s")
        ax.set_title(_title(f"{variant}, GB/s by block x batch at N = {_n_label(n)}", family, type_, runs),
                     fontsize=11)
        written += _save(plt, fig, out_dir, f"heatmap_{family}_{type_}_{variant}", formats)
    return written


def load_all(paths: Sequence[str], prog: str = "bench-plot") -> Tuple[List[Results], List[Record]]:
    runs = load_runs(paths, prog)   # warns on truncated files
    records = [r for run in runs for r in run.records]
    return runs, records


def _parse_n(text: str) -> int:
    """N as a number or 2^k."""
    m = re.fullmatch(r"\s*(?:2\^(\d+)|(\d+))\s*", text)
    if not m or (m.group(2) is not None and int(m.group(2)) == 0):
        raise ResultsError(f"--n: expected a positive integer or 2^k, got '{text}'")
    return 1 << int(m.group(1)) if m.group(1) else int(m.group(2))


def _comma_list(option: str, text: str, allowed: Sequence[str]) -> List[str]:
    items = [f.strip().lower() for f in text.split(",") if f.strip()]
    if not items or any(f not in allowed for f in items):
        raise ResultsError(f"{option}: expected a comma list of {', '.join(allowed)}, got '{text}'")
    return items


def _regex(option: str, pattern: str | None) -> None:
    try:
        re.compile(pattern or "")
    except re.error as e:
        raise ResultsError(f"{option} '{pattern}': not a valid regex ({e})") from None


def main(argv: Sequence[str] | None = None) -> int:
    parser = _Parser(prog="bench-plot", description=__doc__.split("\n\n")[0])
    parser.add_argument("results", nargs="+", help="cuda_bench result JSON file(s)")
    parser.add_argument("--out", default="plots", help="output folder (default: plots)")
    parser.add_argument("--filter", default=None, help="regex on family/type/variant, e.g. 'reduce_sum/i32'")
    parser.add_argument("--format", default="png,svg", help="comma list of png, svg (default: png,svg)")
    parser.add_argument("--charts", default=",".join(CHARTS), help=f"comma list of {', '.join(CHARTS)} (default: all)")
    parser.add_argument("--n", default=None, help="N for roofline and heatmaps, e.g. 268435456 or 2^28 "
                                                  "(default: the largest N of each family/type or variant)")
    parser.add_argument("--baseline", default=None, help="speedup baseline variant (default: cub_device_reduce, "
                                                         "else cub_device_transform, else the only cub_* variant)")
    parser.add_argument("--heatmap", default=None, help="regex on family/type/variant choosing heatmaps (default: "
                                                        "every variant with more than one block/batch at N)")
    try:
        args = parser.parse_args(argv)
        formats = _comma_list("--format", args.format, ("png", "svg"))
        charts = _comma_list("--charts", args.charts, CHARTS)
        n = _parse_n(args.n) if args.n is not None else None
        _regex("--filter", args.filter)
        _regex("--heatmap", args.heatmap)
        check_writable("--out", args.out, directory=True)
        runs, all_records = load_all(args.results)
        records = select(all_records, args.filter)
        if not records:
            raise ResultsError("no successful cuda_bench benchmarks in the input"
                               + (f" match --filter '{args.filter}'" if args.filter else ""))
        kernels = _kernels(records)
        if n is not None and not any(r.n == n for r in kernels):
            present = ", ".join(_n_label(v) for v in sorted({r.n for r in kernels})) or "none"
            raise ResultsError(f"--n {args.n}: no benchmark at N = {n} in the input (present: {present})")
        if args.baseline and "speedup" in charts and not any(r.variant == args.baseline for r in kernels):
            raise ResultsError(f"--baseline {args.baseline}: no such variant in the input")
        targets = heatmap_targets(records, args.heatmap, n) if "heatmap" in charts else []
        if args.heatmap and "heatmap" in charts and not targets:
            raise ResultsError(f"--heatmap '{args.heatmap}': matches no variant"
                               + (f" at N = {n}" if n is not None else ""))
    except ResultsError as e:
        print(f"bench-plot: {e}", file=sys.stderr)
        return 2

    out_dir = Path(args.out)
    out_dir.mkdir(parents=True, exist_ok=True)
    colors = variant_colors([r.variant for r in records])  # one palette for every chart
    written: List[Path] = []
    if "bandwidth" in charts:
        written += plot_bandwidth(runs, records, out_dir, formats, colors, measured_read_ceiling(all_records))
    if "speedup" in charts:
        written += plot_speedup(runs, records, out_dir, formats, colors, args.baseline)
    if "roofline" in charts:
        files, missing = plot_roofline(runs, records, all_records, out_dir, formats, colors, n)
        written += files
        if missing:  # once, however many charts lack it
            print(f"bench-plot: warning: roofline drawn without: {'; '.join(missing)}", file=sys.stderr)
    if "heatmap" in charts:
        written += plot_heatmaps(runs, records, out_dir, formats, targets)
    for p in written:
        print(p)
    return 0


if __name__ == "__main__":
    sys.exit(main())
