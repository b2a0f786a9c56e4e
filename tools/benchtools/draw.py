"""Drawing: matplotlib figures from shape.py's data, and byte-stable files from them.

Every function takes shaped data (numbers already computed and tested in shape.py)
and returns a Figure; save() writes it so that the same input gives the same
bytes (no dates, no random SVG ids, no version strings in the metadata).
"""
from __future__ import annotations

import io
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

from benchtools.shape import Emphasis, LineChart, RooflinePoint, n_label
from benchtools.versus import VersusChart

FORMATS = ("png", "svg", "pdf")
DPI = 120
# Nothing that changes from one run to the next: no date, no tool version.
_METADATA = {
    "png": {"Software": None},
    "svg": {"Date": None, "Creator": None},
    "pdf": {"CreationDate": None, "ModDate": None, "Creator": None, "Producer": None},
}
_RC = {"svg.hashsalt": "cuda_bench", "svg.fonttype": "path", "pdf.compression": 6,
       "font.size": 9, "axes.titlesize": 10}

BEST_COLOR = "#d62728"                                     # the best hand-written kernel
# A library path's colour by its rank; past the palette the marker changes too, so no two
# library lines of a chart look alike (a versus chart has up to 7: three paths a CCCL).
LIBRARY_COLORS = ("#111111", "#e6550d", "#3182bd", "#31a354", "#756bb1", "#17becf", "#bcbd22", "#e377c2")
LIBRARY_MARKERS = ("s", "^", "v", "P", "X")
CPU_COLOR = "#8c564b"
UNKNOWN_COLOR = "#7a7a7a"                                  # no declared role: neutral
DISTINCT = ("#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#bcbd22")
SUFFIX = {"best": " (best hand-written)", "library": " (library)", "cpu": " (CPU)"}
NOT_REACHED_LABEL = "hollow: precision not reached (time or sample cap)"
VERSUS_BARS_LABEL = "bars: 95% interval, one process"


def pyplot():
    import matplotlib

    matplotlib.use("Agg")  # files only, no display
    import matplotlib.pyplot as plt

    return plt


def save(fig, path: Path, fmt: str) -> Path:
    """Writes one figure; the same figure gives the same bytes every time."""
    import matplotlib

    with matplotlib.rc_context(_RC):
        if fmt != "png":
            fig.savefig(path, format=fmt, bbox_inches="tight", metadata=_METADATA[fmt], dpi=DPI)
            return path
        rendered = io.BytesIO()
        fig.savefig(rendered, format=fmt, bbox_inches="tight", metadata=_METADATA[fmt], dpi=DPI)
    # PNGs are committed (plots/): a 256-colour palette keeps a line chart's look at a
    # third of the bytes (Pillow's median cut is deterministic, as the lock pins Pillow).
    from PIL import Image

    rendered.seek(0)
    with Image.open(rendered) as image:
        image.convert("RGB").quantize(256, method=Image.Quantize.MEDIANCUT).save(path, format="PNG", optimize=True)
    return path


def close(fig) -> None:
    pyplot().close(fig)


# ---------------------------------------------------------------- styles

def _faded(rank: int, count: int):
    import matplotlib

    cmap = matplotlib.colormaps["viridis"]
    return cmap(0.05 + 0.8 * (rank / max(count - 1, 1)))


def line_style(e: Emphasis) -> dict:
    """The line a variant gets from its role: the best kernel and every library
    stand out, the rest of the ladder is faded (in ladder order along viridis)."""
    if e.kind == "best":
        if e.rank > 0:   # the same kernel measured again (a versus chart's copy from another build's run)
            return dict(color=BEST_COLOR, linewidth=1.8, linestyle=":", marker="D", markersize=3.5, zorder=6,
                        alpha=0.9)
        return dict(color=BEST_COLOR, linewidth=2.8, linestyle="-", marker="o", markersize=4, zorder=6, alpha=1.0)
    if e.kind == "library":
        wrap = e.rank // len(LIBRARY_COLORS)
        return dict(color=LIBRARY_COLORS[e.rank % len(LIBRARY_COLORS)], linewidth=2.2, linestyle="--",
                    marker=LIBRARY_MARKERS[wrap % len(LIBRARY_MARKERS)], markersize=3.5, zorder=5, alpha=1.0)
    if e.kind == "cpu":
        return dict(color=CPU_COLOR, linewidth=2.0, linestyle=":", marker="^", markersize=4, zorder=4, alpha=1.0)
    if e.kind == "distinct":
        return dict(color=DISTINCT[e.rank % len(DISTINCT)], linewidth=2.0, linestyle="-", marker="o", markersize=3.5,
                    zorder=4, alpha=1.0)
    if e.kind == "kernel":
        return dict(color=_faded(e.rank, e.count), linewidth=1.1, linestyle="-", marker="o", markersize=2,
                    zorder=2, alpha=0.55)
    return dict(color=UNKNOWN_COLOR, linewidth=1.2, linestyle="-", marker="o", markersize=2.5, zorder=3, alpha=0.8)


def _pow2_label(v: float) -> str:
    n = int(round(v))
    return f"$2^{{{n.bit_length() - 1}}}$" if n >= 1 and n & (n - 1) == 0 else f"{v:g}"


def _log2_x(ax, ns: Sequence[int]) -> None:
    from matplotlib.ticker import FixedLocator, FuncFormatter, NullLocator

    ax.set_xscale("log", base=2)
    lo, hi = min(ns), max(ns)
    exps = list(range(lo.bit_length() - 1, hi.bit_length()))
    step = 1 if len(exps) <= 12 else 2
    ax.xaxis.set_major_locator(FixedLocator([1 << e for e in exps[::step]]))
    ax.xaxis.set_minor_locator(NullLocator())
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: _pow2_label(v)))


def _log_y(ax, ratio: bool, span: float = 100.0) -> None:
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    ax.set_yscale("log")
    subs = (1.0, 2.0, 5.0) if span > 12 else (1.0, 1.5, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0)  # a narrow range needs ticks
    ax.yaxis.set_major_locator(LogLocator(base=10, subs=subs))
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: (f"{v:g}x" if ratio else f"{v:g}")))
    ax.yaxis.set_minor_formatter(NullFormatter())


# ---------------------------------------------------------------- lines against N

def line_chart(chart: LineChart):
    """One row of panels per GPU (never merged), variants in declaration order. With
    bars (the bandwidth chart), each GPU's row is the lines against N on log-log axes
    and, beside them, the ladder at the largest N on a linear axis, every variant
    named: the legend then lists only the highlighted lines."""
    plt = pyplot()
    k = len(chart.panels)
    with_bars = any(p.bars for p in chart.panels)
    if with_bars:
        nbars = max(len(p.bars) for p in chart.panels)
        height = max(5.4, min(6.4, 0.2 * nbars + 2.4))
        fig, axes = plt.subplots(k, 2, figsize=(14.5, height * k), dpi=DPI, squeeze=False, sharex="col", sharey="col",
                                 gridspec_kw={"width_ratios": [1.3, 1]})
        line_axes = [row[0] for row in axes]
    else:
        fig, axes = plt.subplots(1, k, figsize=(9.5 if k == 1 else 5.2 * k + 2.5, 5.6), dpi=DPI, sharey=True,
                                 squeeze=False)
        line_axes = list(axes[0])
    ratio = any(h.kind == "unity" for p in chart.panels for h in p.hlines)
    clipped = {v for v, e in chart.emphasis.items() if e.kind in chart.clip_kinds}
    ys = [y for p in chart.panels for v, pts in p.lines.items() if v not in clipped for _, y in pts] + \
         [h.value for p in chart.panels for h in p.hlines]
    ys = ys or [y for p in chart.panels for pts in p.lines.values() for _, y in pts]
    for i, (ax, panel) in enumerate(zip(line_axes, chart.panels)):
        _draw_lines(ax, panel, chart)
        if with_bars:
            _ladder_bars(axes[i][1], panel, chart.emphasis)
            top = max([y for p in chart.panels for _, y, _ in p.bars] + [h.value for p in chart.panels for h in p.hlines])
            axes[i][1].set_xlim(0, top * 1.25)   # one scale for every GPU's bars
        if k > 1:
            ax.set_title(panel.label, fontsize=9)
        if with_bars or i == 0:
            ax.set_ylabel(chart.ylabel)
    ax0 = line_axes[0]
    if chart.logy:
        _log_y(ax0, ratio, max(ys) / min(ys))
        lo, hi = min(ys) / 1.6, max(ys) * 1.8
    else:
        lo, hi = 0, max(ys) * 1.1
    ax0.set_ylim(lo, hi)
    for ax, panel in zip(line_axes, chart.panels):
        notes = [f"{legend_label(v, chart.emphasis[v])}: {_span([y for _, y in pts])}{chart.unit}, "
                 "drawn where it fits the scale"
                 for v, pts in panel.lines.items() if v in clipped and any(not lo <= y <= hi for _, y in pts)]
        if notes:
            ax.annotate("\n".join(notes), xy=(0.01, 0.01), xycoords="axes fraction", fontsize=7, color=CPU_COLOR,
                        va="bottom", bbox=dict(facecolor="white", edgecolor="none", alpha=0.85, pad=1))
    title = chart.title + ("" if k > 1 else f"\n{chart.panels[0].label}")
    fig.suptitle(title, fontsize=10)
    if with_bars:
        handles, labels = _merged_legend(line_axes)
        faded = [v for v, e in chart.emphasis.items() if e.kind == "kernel"]
        few = len(faded) <= 3   # a few are named in the legend too; many only in the bars
        keep = [(h, l) for h, l, e in zip(handles, labels, _legend_kinds(labels, chart)) if few or e != "kernel"]
        if faded and not few:
            from matplotlib.lines import Line2D
            keep.append((Line2D([], [], **line_style(chart.emphasis[faded[len(faded) // 2]])),
                         f"{len(faded)} other kernels (faded, in write-up order; named in the bars)"))
        ax0.legend([h for h, _ in keep], [l for _, l in keep], fontsize=7.5, loc="lower right", framealpha=0.9)
    else:
        _legend_outside(fig, line_axes[-1], *_merged_legend(line_axes))
    fig.tight_layout(rect=(0, 0, 1, 1 - (0.1 if k == 1 else 0.25) / fig.get_figheight()))
    return fig


def _span(values: Sequence[float]) -> str:
    lo, hi = f"{min(values):.3g}", f"{max(values):.3g}"
    return lo if lo == hi else f"{lo} to {hi}"


def _legend_kinds(labels: Sequence[str], chart: LineChart) -> List[str]:
    by_label = {v + SUFFIX.get(e.kind, ""): e.kind for v, e in chart.emphasis.items()}
    return [by_label.get(label, "reference") for label in labels]


def _draw_lines(ax, panel, chart: LineChart) -> None:
    for variant, e in chart.emphasis.items():
        pts = panel.lines.get(variant)
        if pts:
            style = line_style(e)
            ax.plot([n for n, _ in pts], [y for _, y in pts], label=variant + SUFFIX.get(e.kind, ""), **style)
            band = panel.intervals.get(variant)
            if band:   # the medians' 95% intervals, as bars (a band would vanish at a lone N)
                ys = dict(pts)
                ax.errorbar([n for n, _, _ in band], [ys[n] for n, _, _ in band],
                            # The line's rate (the file's counter) and the interval's (bytes over ci_high,
                            # ci_low) can differ in their last digits: never a negative bar.
                            yerr=[[max(0.0, ys[n] - lo) for n, lo, _ in band], [max(0.0, hi - ys[n]) for n, _, hi in band]],
                            fmt="none",
                            ecolor=style["color"], elinewidth=1.0, capsize=2.5, alpha=style["alpha"],
                            zorder=style["zorder"], label="_interval")
            capped = set(panel.capped.get(variant, ()))
            if capped:  # precision not reached: a hollow marker over the point
                ax.plot([n for n, _ in pts if n in capped], [y for n, y in pts if n in capped], linestyle="",
                        marker="o", markersize=7, markerfacecolor="white", markeredgecolor=style["color"],
                        markeredgewidth=1.4, zorder=style["zorder"] + 0.5, label=NOT_REACHED_LABEL)
    for h in panel.hlines:
        if h.kind == "unity":
            ax.axhline(h.value, color="black", linewidth=1.2, zorder=1, label=h.label)
            continue
        peak = h.kind == "peak"
        ax.axhline(h.value, color="black" if peak else "dimgray", linestyle=":" if peak else "-.",
                   linewidth=1.1, zorder=1)
        ax.annotate(h.label, xy=(0.01, h.value), xycoords=("axes fraction", "data"),
                    xytext=(0, 2 if peak else -2), textcoords="offset points", va="bottom" if peak else "top",
                    fontsize=7.5, color="black" if peak else "dimgray")
    _log2_x(ax, [n for pts in panel.lines.values() for n, _ in pts])
    ax.set_xlabel(chart.xlabel)
    ax.tick_params(axis="x", which="both", labelbottom=True)
    ax.grid(True, which="major", alpha=0.3)


def _ladder_bars(ax, panel, emphasis: Dict[str, Emphasis]) -> None:
    """Every variant's value at one N (or its best N), in declaration order, on a
    linear axis, each labelled with its value and its fraction of the panel's roof."""
    values = {v: (y, n) for v, y, n in panel.bars}
    at_one_n = len({n for _, n in values.values()}) == 1
    order = [v for v in emphasis if v in values]
    roof = panel.bar_roof.value if panel.bar_roof else None
    for i, v in enumerate(order):
        e = emphasis[v]
        y, n = values[v]
        ax.barh(i, y, height=0.72, color=line_style(e)["color"], alpha=1.0 if e.kind != "kernel" else 0.75,
                edgecolor="black" if e.kind in ("best", "library", "cpu") else "none", linewidth=0.8,
                hatch="//" if e.kind == "library" else None)
        text = f"{y:.0f}" + (f" ({100 * y / roof:.0f}%)" if roof else "") + ("" if at_one_n else f" at {n_label(n)}")
        ax.annotate(text, xy=(y, i), xytext=(3, 0), textcoords="offset points", va="center", fontsize=7, zorder=5,
                    bbox=dict(facecolor="white", edgecolor="none", pad=0.4, alpha=0.85))
    ax.set_yticks(range(len(order)), [legend_label(v, emphasis[v]) for v in order], fontsize=7.5)
    for label, v in zip(ax.get_yticklabels(), order):
        kind = emphasis[v].kind
        if kind in ("best", "library", "cpu"):
            label.set_fontweight("bold")
        if kind == "best":
            label.set_color(BEST_COLOR)
    ax.set_ylim(len(order) - 0.5, -0.5)
    ax.tick_params(axis="x", which="both", labelbottom=True)
    for h in panel.hlines:
        if h.kind in ("peak", "ceiling"):
            ax.axvline(h.value, color="black" if h.kind == "peak" else "dimgray",
                       linestyle=":" if h.kind == "peak" else "-.", linewidth=1.1, zorder=1)
    ax.set_xlabel(panel.bar_label)
    ax.grid(True, axis="x", alpha=0.3)


def _legend_outside(fig, ax, handles, labels) -> None:
    ax.legend(handles, labels, fontsize=8, loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0,
              frameon=False)


def _merged_legend(axes) -> Tuple[list, list]:
    """Every panel's entries once (a variant one GPU lacks still gets its entry)."""
    handles, labels = [], []
    for ax in axes:
        for h, label in zip(*ax.get_legend_handles_labels()):
            if label not in labels:
                handles.append(h)
                labels.append(label)
    return handles, labels


# ---------------------------------------------------------------- roofline across families

_TYPE_MARKERS = {"i32": "o", "f32": "s", "f16": "^", "bf16": "v"}
_ROOF_COLORS = {"read": "#1b7837", "copy": "#762a83"}


def _family_colors(points: Sequence[RooflinePoint]) -> Dict[str, str]:
    families = list(dict.fromkeys(p.family for p in points))
    return {f: DISTINCT[i % len(DISTINCT)] for i, f in enumerate(families)}


def roofline(title: str, panels: Sequence[Tuple[str, Sequence[RooflinePoint]]]):
    """Per GPU (a row each): the roofline with every family/type's best kernel (filled)
    and its library reference (hollow) at their own intensities, under the measured
    read and copy bandwidth roofs and the compute roofs, with a zoom on the points;
    beside it, each point as a fraction of the roof that fits it."""
    from matplotlib.lines import Line2D

    plt = pyplot()
    rows = len(panels)
    nbars = max(len({(p.family, p.type) for p in pts}) for _, pts in panels)
    height = max(6.0, 0.36 * nbars + 1.8)
    fig, axes = plt.subplots(rows, 2, figsize=(15.5, height * rows), dpi=DPI, squeeze=False,
                             gridspec_kw={"width_ratios": [1.45, 1]})
    colors = _family_colors([p for _, pts in panels for p in pts])
    for (label, points), (ax, bars) in zip(panels, axes):
        roofs = _roofs_of(points)
        xs = [p.intensity for p in points]
        top = max([v for _, m, t in roofs["compute"] for v in (m, t) if v] + [max(p.ops_per_second for p in points)])
        ridge = max((m / bw for _, m, _ in roofs["compute"] for _, bw in roofs["bandwidth"] if m and bw), default=1)
        lo_x, hi_x = min(xs) / 4, max(max(xs) * 4, ridge * 40)
        _draw_roofs(ax, roofs, lo_x, hi_x, top, labels=True)
        _draw_points(ax, points, colors)
        ax.set_xlim(lo_x, hi_x)
        ax.set_ylim(min(p.ops_per_second for p in points) / 4, top * 2.5)
        _log_log_axes(ax)
        ax.set_xlabel("arithmetic intensity (declared op / declared byte)")
        ax.set_ylabel("performance (declared op / measured time)")
        ax.set_title(label, fontsize=9)
        ax.grid(True, which="major", alpha=0.3)
        # The memory-bound corner, where every point is: zoomed, below the diagonal.
        zoom = ax.inset_axes([0.50, 0.05, 0.47, 0.42])
        zx = (min(xs) / 1.25, max(xs) * 1.25)
        ys = [p.ops_per_second for p in points]
        _draw_roofs(zoom, roofs, *zx, top, labels=False)
        _draw_points(zoom, points, colors)
        zoom.set_xlim(*zx)
        zoom.set_ylim(min(ys) / 1.25, max(ys) * 1.25)
        _log_log_axes(zoom, fontsize=7)
        zoom.grid(True, which="major", alpha=0.3)
        ax.indicate_inset_zoom(zoom, edgecolor="gray")
        roof_handles, roof_labels = ax.get_legend_handles_labels()
        fam = [Line2D([], [], linestyle="", marker="o", color=c, markersize=7, label=f) for f, c in colors.items()]
        types = [Line2D([], [], linestyle="", marker=_TYPE_MARKERS.get(t, "D"), color="gray", markersize=6, label=t)
                 for t in dict.fromkeys(p.type for p in points)]
        kinds = [Line2D([], [], linestyle="", marker="o", markerfacecolor="gray", markeredgecolor="gray",
                        label="filled: best hand-written kernel"),
                 Line2D([], [], linestyle="", marker="o", markerfacecolor="white", markeredgecolor="gray",
                        label="hollow: library (the reference)")]
        if any(p.kind == "unknown" for p in points):
            kinds.append(Line2D([], [], linestyle="", marker="o", color=UNKNOWN_COLOR,
                                label="gray: fastest variant, roles not declared"))
        handles = roof_handles + fam + types + kinds
        ax.legend(handles, [h.get_label() for h in handles], fontsize=7, loc="upper left", ncol=2, framealpha=0.9)
        _roof_bars(bars, points, colors)
    fig.suptitle(title, fontsize=10)
    fig.tight_layout(rect=(0, 0, 1, 1 - 0.25 / fig.get_figheight()))
    return fig


def _roofs_of(points: Sequence[RooflinePoint]) -> dict:
    """The distinct roofs under the points: bandwidth [(name, bytes/s)], compute
    [(name, measured, theoretical)], and the theoretical bandwidth."""
    bandwidth, compute = {}, {}
    peak = None
    for p in points:
        bandwidth.setdefault(p.roof.bandwidth_label, p.roof.bandwidth)
        compute.setdefault(p.roof.compute_label, (p.roof.compute, p.roof.peak_compute))
        peak = peak or p.roof.peak_bandwidth
    return {"bandwidth": [(k, v) for k, v in bandwidth.items() if v],
            "compute": [(k, m, t) for k, (m, t) in compute.items()], "peak": peak}


def _draw_roofs(ax, roofs: dict, lo_x: float, hi_x: float, top: float, labels: bool) -> None:
    import numpy as np

    grid = np.geomspace(lo_x, hi_x, 256)
    for name, bw in roofs["bandwidth"]:
        ax.plot(grid, np.minimum(bw * grid, top), color=_ROOF_COLORS.get(name.split()[0], "black"), linewidth=1.8,
                label=f"measured {name}: {bw / 1e9:.0f} GB/s")
    if roofs["peak"]:
        ax.plot(grid, np.minimum(roofs["peak"] * grid, top), color="gray", linestyle="--", linewidth=1.2,
                label=f"theoretical bandwidth: {roofs['peak'] / 1e9:.0f} GB/s")
    fastest = max((bw for _, bw in roofs["bandwidth"]), default=roofs["peak"])
    for name, measured, theoretical in roofs["compute"]:
        for value, style, color in ((measured, "-", "black"), (theoretical, "--", "gray")):
            if value:
                ax.plot([value / fastest if fastest else lo_x, hi_x], [value, value], color=color, linestyle=style,
                        linewidth=1.3 if style == "-" else 1.0)
        if labels and (measured or theoretical):
            text = f"{name} {(measured or theoretical) / 1e12:.1f} Top/s" + \
                (f" (theoretical {theoretical / 1e12:.1f})" if measured and theoretical else "")
            ax.annotate(text, xy=(hi_x, measured or theoretical), xytext=(-4, -3),
                        textcoords="offset points", ha="right", va="top", fontsize=7)


def _draw_points(ax, points: Sequence[RooflinePoint], colors: Dict[str, str]) -> None:
    for p in points:
        face = {"kernel": colors[p.family], "library": "white"}.get(p.kind, UNKNOWN_COLOR)
        ax.scatter([p.intensity], [p.ops_per_second], s=46, marker=_TYPE_MARKERS.get(p.type, "D"),
                   facecolors=face, edgecolors=colors[p.family] if p.kind != "unknown" else UNKNOWN_COLOR,
                   linewidths=1.4, zorder=4)


def _log_log_axes(ax, fontsize: float | None = None) -> None:
    from matplotlib.ticker import EngFormatter, FuncFormatter, NullFormatter

    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.yaxis.set_major_formatter(EngFormatter(unit="op/s"))
    ax.yaxis.set_minor_formatter(NullFormatter())
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    ax.xaxis.set_minor_formatter(NullFormatter())
    if fontsize:
        ax.tick_params(labelsize=fontsize)


def _roof_bars(ax, points: Sequence[RooflinePoint], colors: Dict[str, str]) -> None:
    """Each family/type's kernel and library as % of the roof that fits them."""
    charts = list(dict.fromkeys((p.family, p.type) for p in points))
    by = {(p.family, p.type, p.kind): p for p in points}
    h = 0.38
    for i, chart in enumerate(charts):
        for j, kind in enumerate(("kernel", "library")):
            p = by.get((*chart, kind)) or (by.get((*chart, "unknown")) if kind == "kernel" else None)
            if p is None or p.fraction is None:
                continue
            y = i + (j - 0.5) * h
            c = colors[p.family] if p.kind != "unknown" else UNKNOWN_COLOR
            ax.barh(y, 100 * p.fraction, height=h * 0.92, color=c if kind == "kernel" else "white", edgecolor=c,
                    linewidth=1.2, hatch=None if kind == "kernel" else "////")
            ax.annotate(f"{100 * p.fraction:.0f}% {p.variant}", xy=(100 * p.fraction, y), xytext=(3, 0),
                        textcoords="offset points", va="center", fontsize=6.5,
                        bbox=dict(facecolor="white", edgecolor="none", pad=0.3, alpha=0.8))
    ax.set_yticks(range(len(charts)), [f"{f} {t}" for f, t in charts], fontsize=7.5)
    ax.invert_yaxis()
    ax.axvline(100, color="black", linewidth=1)
    ax.set_xlim(0, 160)
    ax.set_xticks([0, 25, 50, 75, 100])
    ax.set_xlabel("% of the measured roof that fits it (read or copy ceiling x intensity)")
    ax.grid(True, axis="x", alpha=0.3)


# ---------------------------------------------------------------- heat maps

def heatmap(title: str, panels: Sequence[Tuple[str, tuple]]):
    """GB/s over block x batch, one panel per GPU, the best cell outlined."""
    import numpy as np
    from matplotlib.patches import Rectangle

    plt = pyplot()
    blocks0, batches0 = panels[0][1][0], panels[0][1][1]
    w = max(7.0, 1.0 * len(batches0) + 4)
    fig, axes = plt.subplots(1, len(panels), figsize=(w * len(panels), max(4.0, 0.7 * len(blocks0) + 2.5)),
                             dpi=DPI, squeeze=False)
    for ax, (label, (blocks, batches, matrix, (bi, bj))) in zip(axes[0], panels):
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
        ax.add_patch(Rectangle((bj - 0.5, bi - 0.5), 1, 1, fill=False, edgecolor="red", linewidth=3, clip_on=False))
        ax.set_xticks(range(len(batches)), [str(k) if k is not None else "(no batch axis)" for k in batches])
        ax.set_yticks(range(len(blocks)), [str(b) if b is not None else "(no block axis)" for b in blocks])
        ax.set_xlabel("batch (items per thread)")
        ax.set_ylabel("block (threads)")
        fig.colorbar(image, ax=ax, label="GB/s")
        ax.set_title(f"{title}\n{label}", fontsize=10)
    fig.tight_layout()
    return fig


# ---------------------------------------------------------------- a kernel against the library paths

def versus_chart(chart: VersusChart):
    """A column per family/type: above, µs per call against N (log-log), the kernel
    (highlighted) and every library path; below, the kernel's speedup over the
    fastest path of each CCCL (linear, a line at 1: above it the kernel is faster)."""
    plt = pyplot()
    k = len(chart.panels)
    fig, axes = plt.subplots(2, k, figsize=(5.6 * k + 3.2, 8.4), dpi=DPI, squeeze=False, sharex="col",
                             gridspec_kw={"height_ratios": [1.6, 1]})
    # a speedup line's colour by its label over the whole chart: the merged legend names each colour once
    speedup_labels = list(dict.fromkeys(label for panel in chart.panels for label in panel.speedups))
    for i, panel in enumerate(chart.panels):
        top, bottom = axes[0][i], axes[1][i]
        for label, pts in panel.times.items():
            top.plot([n for n, _ in pts], [y for _, y in pts], label=label, **line_style(panel.emphasis[label]))
        ys = [y for pts in panel.times.values() for _, y in pts]
        _log_y(top, False, max(ys) / min(ys))
        top.set_ylim(min(ys) / 1.4, max(ys) * 1.4)
        top.set_title(panel.title, fontsize=10)
        top.set_ylabel("µs per call (GPU time)")
        top.grid(True, which="major", alpha=0.3)
        for label, pts in panel.speedups.items():
            style = line_style(Emphasis("distinct", speedup_labels.index(label), len(speedup_labels)))
            bottom.plot([n for n, _ in pts], [y for _, y in pts], label=label, **style)
            bars = panel.speedup_intervals.get(label, [])
            if bars:   # from low to high: the interval's centre (per repetition) need not be the medians' ratio
                ns, lows, highs = zip(*bars)
                bottom.errorbar(ns, [(lo + hi) / 2 for lo, hi in zip(lows, highs)],
                                yerr=[(hi - lo) / 2 for lo, hi in zip(lows, highs)], fmt="none",
                                ecolor=style["color"], elinewidth=1.0, capsize=3, zorder=style["zorder"])
        bottom.axhline(1.0, color="black", linewidth=1.2, zorder=1)
        ratios = [y for pts in panel.speedups.values() for _, y in pts] + [1.0] + \
                 [e for bars in panel.speedup_intervals.values() for _, low, high in bars for e in (low, high)]
        bottom.set_ylim(min(ratios) - 0.05, max(ratios) + 0.05)
        bottom.yaxis.set_major_formatter(_times_formatter())
        bottom.set_ylabel(f"speedup: path time / {chart.kernel} time")
        bottom.grid(True, which="major", alpha=0.3)
        _log2_x(bottom, [n for pts in panel.times.values() for n, _ in pts])
        bottom.set_xlabel("N (elements)")
        top.tick_params(axis="x", which="both", labelbottom=True)
    if any(panel.speedup_intervals for panel in chart.panels):   # named once, last, in none of the lines' colours
        axes[1][-1].plot([], [], color="dimgray", marker="|", markersize=9, linestyle="", label=VERSUS_BARS_LABEL)
    _legend_outside(fig, axes[0][-1], *_merged_legend(axes[0]))
    _legend_outside(fig, axes[1][-1], *_merged_legend(axes[1]))
    fig.suptitle(chart.title, fontsize=10)
    fig.tight_layout(rect=(0, 0, 1, 1 - 0.2 / fig.get_figheight()))
    return fig


def ab_chart(chart):
    """bench-ab --chart: a panel per family/type, variant / chosen time against N with
    each ratio's 95% interval as a bar, the line at 1 and the band of ±precision
    (differences inside it are below what the run asked to resolve)."""
    plt = pyplot()
    k = len(chart.panels)
    fig, axes = plt.subplots(1, k, figsize=(5.6 * k + 3.2, 5.2), dpi=DPI, squeeze=False, sharey=True)
    for ax, panel in zip(axes[0], chart.panels):
        for j, (variant, pts) in enumerate(panel.lines.items()):
            ns, ys = [p[0] for p in pts], [p[1] for p in pts]
            ax.errorbar(ns, ys, yerr=[[y - p[2] for y, p in zip(ys, pts)], [p[3] - y for y, p in zip(ys, pts)]],
                        label=variant, capsize=3, **line_style(Emphasis("distinct", j, len(panel.lines))))
        ax.axhline(1.0, color="black", linewidth=1.2, zorder=1)
        if chart.precision:
            ax.axhspan(1 - chart.precision, 1 + chart.precision, color="gray", alpha=0.2, zorder=0, linewidth=0,
                       label=f"±{100 * chart.precision:g}% (the precision asked for)")
        _log2_x(ax, [p[0] for pts in panel.lines.values() for p in pts])
        ax.yaxis.set_major_formatter(_times_formatter())
        ax.set_title(panel.title, fontsize=10)
        ax.set_xlabel("N (elements)")
        ax.grid(True, which="major", alpha=0.3)
    axes[0][0].set_ylabel(f"time / {chart.chosen} time (below 1: faster)")
    _legend_outside(fig, axes[0][-1], *_merged_legend(axes[0]))
    fig.suptitle(chart.title, fontsize=10)
    fig.tight_layout(rect=(0, 0, 1, 1 - 0.2 / fig.get_figheight()))
    return fig


def _times_formatter():
    from matplotlib.ticker import FuncFormatter

    return FuncFormatter(lambda v, _: f"{v:g}x")


def legend_label(variant: str, e: Optional[Emphasis]) -> str:
    return variant + (SUFFIX.get(e.kind, "") if e else "")


__all__ = ["FORMATS", "save", "close", "line_chart", "roofline", "heatmap", "versus_chart", "ab_chart", "line_style",
           "legend_label", "pyplot"]
