"""What the charts and tables show, shaped from cuda_bench results (no drawing here).

Everything a chart draws is computed here as plain data, so the tests check the
numbers and draw.py only turns them into pictures:
  - runs are grouped by GPU (name, and device UUID when the context has one):
    results of different GPUs are never merged, each keeps its own peaks and ceilings;
  - variants keep the order in which they first appear in the input (the
    registry's declaration order: the write-ups' ladder order), never alphabetical;
  - roles (kernel, library, cpu) and each family's reference come from the
    benchmarks' declared JSON fields; a file without them gives role "unknown".
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Dict, Iterable, List, Optional, Sequence, Tuple

from benchtools.results import (CEILING_FAMILY, Record, Results, ResultsError, best_per_n, pow2_label,
                                representative)

Series = Tuple[str, str, str]          # (family, type, variant)
Chart = Tuple[str, str]                # (family, type)
Point = Tuple[int, float, Record]      # (N, value, the best record at N)

LAUNCH_BOUND_MAX_N = 1 << 20           # the time-per-call chart's sizes: N <= 2^20
ANNOTATE_HINT = "python3 -m benchtools.annotate FILE --declarations DECLS.json"

# Measured bandwidth roofs (ceiling/f32/<variant>): "read" for kernels that read
# their inputs and write a scalar, "copy" for those that also write an array.
BANDWIDTH_CEILINGS = {"read": ("read_vec16",), "copy": ("copy_vec16", "copy_memcpy")}
# The result JSON states bytes per call, not read and written apart, so the roof of
# a family whose output is an array (it writes as much as it reads) is listed here.
ARRAY_OUTPUT_FAMILIES = {"vector_add", "scan"}


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


# ---------------------------------------------------------------- input: selection, GPUs

def select(records: List[Record], pattern: str | None) -> List[Record]:
    """Records whose "family/type/variant" matches the regex (search)."""
    if not pattern:
        return records
    rx = re.compile(pattern)
    return [r for r in records if rx.search("/".join(r.series))]


def kernels(records: Iterable[Record]) -> List[Record]:
    """What speedup, time, roofline and heat-map charts are about: everything but the ceilings."""
    return [r for r in records if r.family != CEILING_FAMILY]


def is_compute_ceiling(r: Record) -> bool:
    return r.family == CEILING_FAMILY and (r.type, r.variant) in _COMPUTE_CEILINGS


def gpu_key(run: Results) -> Tuple[str, str]:
    """Which GPU a run measured: its name, and its UUID when the context has one."""
    return run.gpu, str(run.context.get("gpu_uuid") or "")


def slug(gpu_name: str) -> str:
    """A GPU name as a file or folder name: "NVIDIA H200" -> "nvidia-h200"."""
    return re.sub(r"[^a-z0-9]+", "-", gpu_name.lower()).strip("-") or "unknown-gpu"


def run_date(run: Results) -> datetime:
    """When the run started (its context "date"); the earliest time when unreadable."""
    return parse_date(run.context.get("date"))


def parse_date(value: object) -> datetime:
    """A context "date" (ISO 8601, as Google Benchmark writes it) as an aware datetime in UTC;
    the earliest time (year 1) when absent or unreadable."""
    earliest = datetime.min.replace(tzinfo=timezone.utc)
    text = str(value or "")
    try:
        when = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return earliest
    try:
        return (when if when.tzinfo else when.replace(tzinfo=timezone.utc)).astimezone(timezone.utc)
    except OverflowError:   # year 1 with an offset east of UTC: before the earliest time
        return earliest


@dataclass
class Gpu:
    """The runs of one GPU and their records (filtered), with that GPU's own peaks."""
    key: Tuple[str, str]
    label: str
    runs: List[Results]
    records: List[Record]
    all_records: List[Record]   # unfiltered: the ceilings stay available for the roofs

    @property
    def peak_bandwidth(self) -> Optional[float]:
        return max((p for p in (r.peak_bandwidth for r in self.runs) if p), default=None)

    def context_number(self, key: str) -> Optional[float]:
        return max((v for v in (r.context_number(key) for r in self.runs) if v), default=None)

    @property
    def board(self) -> str:
        """The board as its runs' contexts name it: 'GPU-… (driver …)', '' where they name none."""
        uuid = self.key[1]
        drivers = sorted({str(d) for d in (r.context.get("gpu_driver_version") for r in self.runs) if d})
        driver = f" (driver {', '.join(drivers)})" if drivers else ""
        return f"{uuid}{driver}" if uuid else ""

    @property
    def dates(self) -> str:
        days = sorted({r.date for r in self.runs if r.date})
        return days[0] if len(days) == 1 else (f"{days[0]} to {days[-1]}" if days else "")


def group_by_gpu(runs: Sequence[Results], pattern: str | None = None) -> List[Gpu]:
    """One Gpu per distinct (name, UUID), in the order the input first names them.
    Runs of one GPU are merged (repetitions of one benchmark across files count as
    repetitions); runs of different GPUs never are."""
    groups: Dict[Tuple[str, str], List[Results]] = {}
    for run in runs:
        groups.setdefault(gpu_key(run), []).append(run)
    names = [name for name, _ in groups]
    out = []
    for (name, uuid), members in groups.items():
        label = name
        if names.count(name) > 1:   # two devices of one model: tell them apart
            label = f"{name} ({uuid[:12]})" if uuid else f"{name} (no UUID)"
        every = [r for run in members for r in run.records]
        out.append(Gpu((name, uuid), label, members, select(every, pattern), every))
    return out


def newest_per_gpu(runs: Sequence[Results]) -> Dict[str, Results]:
    """{slug of the GPU name: its newest run}, newest by the run date in the context
    (file names do not sort by date across GPU models)."""
    newest: Dict[str, Results] = {}
    for run in runs:
        key = slug(run.gpu)
        if key not in newest or run_date(run) > run_date(newest[key]):
            newest[key] = run
    return dict(sorted(newest.items()))


def lacking_roles(runs: Sequence[Results]) -> List[str]:
    """Paths of the runs with benchmarks that declare no role (files older than the
    role fields): the tools draw those neutrally and say how to annotate them."""
    return [run.path for run in runs if any(r.role == "unknown" for r in run.records)]


def roles_warning(tool: str, runs: Sequence[Results]) -> Optional[str]:
    paths = lacking_roles(runs)
    if not paths:
        return None
    return (f"{tool}: warning: {', '.join(paths)}: benchmarks without declared roles are drawn as role "
            f"'unknown' (add them with: {ANNOTATE_HINT})")


# ---------------------------------------------------------------- order, roles, styles

def order(records: Iterable[Record]) -> Dict[Series, int]:
    """Each series' position by first appearance (the declaration order of the run)."""
    out: Dict[Series, int] = {}
    for r in records:
        out.setdefault(r.series, len(out))
    return out


def by_chart(records: Iterable[Record]) -> Dict[Chart, List[Record]]:
    """{(family, type): its records}, charts and their records in input order."""
    out: Dict[Chart, List[Record]] = {}
    for r in records:
        out.setdefault((r.family, r.type), []).append(r)
    return out


def reference_variant(records: Iterable[Record]) -> Optional[str]:
    """The variant a family/type's records declare as its reference (the
    "reference" field), when that reference is in the same family and type."""
    for r in records:
        if r.reference:
            family, type_, variant = r.reference.split("/")
            if (family, type_) == (r.family, r.type):
                return variant
    return None


def choose_baseline(records: List[Record], override: str | None = None) -> Optional[str]:
    """The variant a family/type's speedups divide by: --baseline if given (None when
    this family/type lacks it), else its declared reference if it was measured, else None."""
    present = {r.variant for r in records}
    if override:
        return override if override in present else None
    ref = reference_variant(records)
    return ref if ref in present else None


@dataclass(frozen=True)
class Emphasis:
    """How a variant is drawn: "best" (the fastest hand-written kernel), "library",
    "cpu", "kernel" (the rest of the ladder, faded) or "unknown" (no declared role)."""
    kind: str
    rank: int      # position among the variants of its kind, in declaration order
    count: int     # how many variants share the kind


def emphasis(records: List[Record]) -> Dict[str, Emphasis]:
    """{variant: Emphasis} for one family/type, in declaration order. The best kernel is
    the one with the highest bandwidth at the largest N any kernel was measured at."""
    best = best_per_n(records)
    kernel_series = [s for s, rs in best.items() if rs[0].role == "kernel"]
    top = None
    if kernel_series:
        at = max(best[s][-1].n for s in kernel_series)
        top = max((s for s in kernel_series if best[s][-1].n == at), key=lambda s: best[s][-1].bytes_per_second)[2]
    kinds = {s[2]: "best" if s[2] == top else rs[0].role for s, rs in best.items()}
    return ranked(kinds, reference_variant(records))


def ranked(kinds: Dict[str, str], first: str | None = None) -> Dict[str, Emphasis]:
    """{variant: kind} (declaration order) -> {variant: Emphasis} with each variant's
    rank among those of its kind (it picks the variant's color in that kind's palette);
    `first` (the family's reference) takes rank 0, so it looks the same in every family."""
    seen: Dict[str, int] = {}
    ranks = {}
    for v in sorted(kinds, key=lambda v: v != first):   # stable: declaration order otherwise
        kind = kinds[v]
        ranks[v] = seen.get(kind, 0)
        seen[kind] = ranks[v] + 1
    return {v: Emphasis(kind, ranks[v], seen[kind]) for v, kind in kinds.items()}


# ---------------------------------------------------------------- per-N series

def bandwidth_series(records: List[Record]) -> Dict[Chart, Dict[str, List[Point]]]:
    """{(family, type): {variant: [(N, GB/s, best record), ...]}} in declaration order:
    what the bandwidth chart draws (each variant at its best block/batch per N)."""
    charts: Dict[Chart, Dict[str, List[Point]]] = {}
    for (family, type_, variant), rs in best_per_n(records).items():
        charts.setdefault((family, type_), {})[variant] = [(r.n, r.bytes_per_second / 1e9, r) for r in rs]
    return charts


def time_series(records: List[Record], max_n: int = LAUNCH_BOUND_MAX_N) -> Dict[Chart, Dict[str, List[Point]]]:
    """{(family, type): {variant: [(N, µs per call, best record)]}} for N <= max_n:
    the launch-bound sizes, where time per call says more than bandwidth."""
    charts: Dict[Chart, Dict[str, List[Point]]] = {}
    for (family, type_, variant), rs in best_per_n(kernels(records)).items():
        points = [(r.n, r.seconds * 1e6, r) for r in rs if r.n <= max_n]
        if points:
            charts.setdefault((family, type_), {})[variant] = points
    return charts


def speedup_series(records: List[Record], baseline: str | None = None) -> Dict[Chart, Dict[str, List[Point]]]:
    """{(family, type): {variant: [(N, baseline seconds / variant seconds, best record)]}}
    at each N where both were measured, each at its best block/batch. The baseline
    itself is left out (it is the line at 1); families without one are left out."""
    charts: Dict[Chart, Dict[str, List[Point]]] = {}
    groups = by_chart(kernels(records))
    for key, series in bandwidth_series(kernels(records)).items():
        base = choose_baseline(groups[key], baseline)
        if base not in series:   # None, or a baseline with only aggregates other than the median
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


def best_at(records: List[Record], n: int) -> Dict[Series, Record]:
    """Each variant's best block/batch (highest bytes/s, i.e. fastest) at N, in declaration order."""
    return {s: r for s, rs in best_per_n(records).items() for r in rs if r.n == n}


# ---------------------------------------------------------------- roofs

def bandwidth_roof_kind(family: str) -> str:
    """"copy" for a family whose output is an array (reads and writes), else "read"."""
    return "copy" if family in ARRAY_OUTPUT_FAMILIES else "read"


def _ceilings(records: Iterable[Record], variants: Sequence[str], type_: str | None = None) -> List[Record]:
    """The representative records of the ceiling benchmarks `variants` (of `type_`, or of any type)."""
    return [r for r in representative(records) if r.family == CEILING_FAMILY and r.variant in variants
            and (type_ is None or r.type == type_)]


def _best_ceiling(records: Iterable[Record], variants: Sequence[str], type_: str | None, rate: str) -> Optional[float]:
    values = [getattr(r, rate) for r in _ceilings(records, variants, type_)]
    return max(values) if values and max(values) > 0 else None


def measured_bandwidth_ceiling(records: Iterable[Record], kind: str = "read") -> Optional[float]:
    """Best bytes/s over N of the measured "read" or "copy" ceiling (copy: the better
    of the copy kernel and cudaMemcpy)."""
    at = measured_bandwidth_ceiling_at(records, kind)
    return max(at.values()) if at else None


def measured_bandwidth_ceiling_at(records: Iterable[Record], kind: str = "read") -> Dict[int, float]:
    """{N: best bytes/s of the measured "read" or "copy" ceiling at that N}, for the N
    the ceiling was run at (a kernel's share of the roof at its own size)."""
    out: Dict[int, float] = {}
    for r in _ceilings(records, BANDWIDTH_CEILINGS[kind]):
        if r.bytes_per_second > 0:
            out[r.n] = max(out.get(r.n, 0.0), r.bytes_per_second)
    return out


@dataclass(frozen=True)
class Roofs:
    """The roofs one family/type runs under on one GPU: measured (this GPU's ceiling
    benchmarks) and theoretical (its context). Bytes/s and op/s; None when missing."""
    bandwidth: Optional[float]
    compute: Optional[float]
    peak_bandwidth: Optional[float]
    peak_compute: Optional[float]
    bandwidth_label: str
    compute_label: str
    missing: Tuple[str, ...] = ()

    @property
    def ridge(self) -> Optional[float]:
        """Measured ridge point (op/byte): where the compute roof meets the bandwidth roof."""
        return self.compute / self.bandwidth if self.compute and self.bandwidth else None

    @property
    def peak_ridge(self) -> Optional[float]:
        return self.peak_compute / self.peak_bandwidth if self.peak_compute and self.peak_bandwidth else None


def roofs(gpu: Gpu, family: str, type_: str) -> Roofs:
    """The roofs a family/type's kernels are drawn under on one GPU: the bandwidth
    ceiling that fits the family (read or copy) and the compute roof of its type."""
    kind = bandwidth_roof_kind(family)
    roof = COMPUTE_ROOFS.get(type_)
    bandwidth = measured_bandwidth_ceiling(gpu.all_records, kind)
    compute = _best_ceiling(gpu.all_records, (roof.ceiling[1],), roof.ceiling[0], "ops_per_second") if roof else None
    peak_ops = gpu.context_number(roof.peak_key) if roof else None
    missing = []
    if bandwidth is None:
        missing.append(f"measured bandwidth (ceiling/*/{'|'.join(BANDWIDTH_CEILINGS[kind])})")
    if roof is None:
        missing.append(f"compute roofs for type {type_} (no mapping)")
    else:
        if compute is None:
            missing.append(f"measured compute (ceiling/{'/'.join(roof.ceiling)})")
        if peak_ops is None:
            missing.append(f"theoretical compute ({roof.peak_key})")
    if gpu.peak_bandwidth is None:
        missing.append("theoretical bandwidth (gpu_peak_bandwidth_gbps)")
    return Roofs(bandwidth, compute, gpu.peak_bandwidth, peak_ops, f"{kind} ceiling",
                 roof.label if roof else f"{type_} compute", tuple(missing))


def roof_fraction(roof: Roofs, intensity: float, ops_per_second: float) -> Optional[float]:
    """ops_per_second over the attainable min(bandwidth x intensity, compute) of the
    measured roof (the theoretical one when nothing was measured); None without a roof."""
    bw, ops = (roof.bandwidth, roof.compute) if roof.bandwidth or roof.compute else (roof.peak_bandwidth, roof.peak_compute)
    attainable = min(bw * intensity if bw else float("inf"), ops or float("inf"))
    return ops_per_second / attainable if attainable != float("inf") else None


@dataclass(frozen=True)
class RooflinePoint:
    family: str
    type: str
    variant: str
    kind: str                  # "kernel" (the family/type's best), "library" (its reference), or
                               # "unknown" (the fastest of a family/type that declares no roles)
    intensity: float           # declared op / declared byte
    ops_per_second: float
    record: Record
    roof: Roofs
    fraction: Optional[float]  # of the roof that fits it, at its intensity


def family_roofline(gpu: Gpu, n: int | None = None) -> List[RooflinePoint]:
    """Across families, on one GPU: each family/type's best hand-written kernel and its
    reference (the best library when it declares none; the fastest variant, drawn
    neutrally, when the file declares no roles) at N (default: the family/type's
    largest N), each at its own intensity and under its own roof. Declaration order."""
    points: List[RooflinePoint] = []
    for (family, type_), rs in by_chart(kernels(gpu.records)).items():
        at = n if n is not None else max(r.n for r in rs)
        best = {s[2]: r for s, r in best_at(rs, at).items() if r.arithmetic_intensity}
        roof = roofs(gpu, family, type_)
        kernels_ = [r for r in best.values() if r.role == "kernel"]
        ref = choose_baseline(rs)
        library = best.get(ref) if ref else None
        if library is None:
            libraries = [r for r in best.values() if r.role == "library"]
            library = max(libraries, key=lambda r: r.bytes_per_second) if libraries else None
        unknown = [r for r in best.values() if r.role == "unknown"]
        chosen = ([("kernel", max(kernels_, key=lambda r: r.bytes_per_second))] if kernels_ else []) + \
                 ([("library", library)] if library else []) + \
                 ([("unknown", max(unknown, key=lambda r: r.bytes_per_second))] if unknown and not kernels_ else [])
        for kind, r in chosen:
            x = r.arithmetic_intensity
            points.append(RooflinePoint(family, type_, r.variant, kind, x, r.ops_per_second, r, roof,
                                        roof_fraction(roof, x, r.ops_per_second)))
    return points


# ---------------------------------------------------------------- heat maps

def heatmap_grid(records: List[Record], series: Series, n: int):
    """(blocks, batches, GB/s matrix [block row][batch column], best (row, col))
    for one (family, type, variant) at N; unmeasured cells are NaN; a missing
    axis is the single value None. None when the variant has nothing at N."""
    import numpy as np

    cells = {(r.block, r.batch): r.bytes_per_second / 1e9
             for r in representative(records) if r.series == tuple(series) and r.n == n}
    if not cells:
        return None
    order_ = lambda v: (v is not None, v or 0)  # noqa: E731 (None, i.e. no axis, first)
    blocks = sorted({b for b, _ in cells}, key=order_)
    batches = sorted({k for _, k in cells}, key=order_)
    matrix = np.full((len(blocks), len(batches)), np.nan)
    for (b, k), gbps in cells.items():
        matrix[blocks.index(b), batches.index(k)] = gbps
    best = np.unravel_index(np.nanargmax(matrix), matrix.shape)
    return blocks, batches, matrix, (int(best[0]), int(best[1]))


def heatmap_targets(records: List[Record], pattern: str | None = None,
                    n: int | None = None) -> List[Tuple[Series, int]]:
    """[((family, type, variant), N)] to draw heatmaps for, in declaration order:
    variants matching the regex, or by default those with more than one block/batch
    combination at N. N is the given one, else the variant's largest."""
    rx = re.compile(pattern) if pattern else None
    configs: Dict[Series, Dict[int, set]] = {}
    for r in kernels(records):
        configs.setdefault(r.series, {}).setdefault(r.n, set()).add((r.block, r.batch))
    targets = []
    for s, by_n in configs.items():
        at = n if n is not None else max(by_n)
        if at not in by_n:
            continue
        if (rx.search("/".join(s)) if rx else len(by_n[at]) > 1):
            targets.append((s, at))
    return targets


# ---------------------------------------------------------------- GPU against GPU

@dataclass(frozen=True)
class GpuRatio:
    """One benchmark (variant at its best block/batch per GPU) at one N on two GPUs."""
    variant: str
    n: int
    reference: Record   # on the reference GPU (the first one)
    other: Record

    @property
    def ratio(self) -> float:
        """Other GPU's time over the reference GPU's time (< 1: the other is faster)."""
        return self.other.seconds / self.reference.seconds


def gpu_ratio_series(reference: Gpu, other: Gpu) -> Dict[Chart, Dict[str, List[GpuRatio]]]:
    """{(family, type): {variant: [GpuRatio per N measured on both]}}, in the
    reference GPU's declaration order."""
    theirs = {(s, r.n): r for s, rs in best_per_n(kernels(other.records)).items() for r in rs}
    charts: Dict[Chart, Dict[str, List[GpuRatio]]] = {}
    for s, rs in best_per_n(kernels(reference.records)).items():
        ratios = [GpuRatio(s[2], r.n, r, theirs[(s, r.n)]) for r in rs if (s, r.n) in theirs]
        if ratios:
            charts.setdefault(s[:2], {})[s[2]] = ratios
    return charts


# ---------------------------------------------------------------- text shared by charts and tables

def n_label(n: int) -> str:
    return pow2_label(n, thousands=True)


def config_text(r: Record) -> str:
    parts = [f"block {r.block}"] * (r.block is not None) + [f"batch {r.batch}"] * (r.batch is not None)
    return ", ".join(parts)


NOT_REACHED_MARK = "†"
NOT_REACHED_NOTE = (f"{NOT_REACHED_MARK} precision not reached: sampling stopped on its time or sample cap "
                    "before the median's 95% interval was within the precision asked for.")


def interval_text(r: Record) -> str:
    """" ± 0.12%" (the half-width of the median's 95% interval, its wider side) and
    " †" when the sampling stopped before its precision; "" for a file without intervals."""
    hw = r.relative_half_width
    return (f" ± {100 * hw:.2f}%" if hw is not None else "") + \
        (f" {NOT_REACHED_MARK}" if r.precision_reached is False else "")


def parse_n(text: str, option: str = "--n") -> int:
    """N as a number or 2^k."""
    m = re.fullmatch(r"\s*(?:2\^(\d+)|(\d+))\s*", text)
    if not m or (m.group(2) is not None and int(m.group(2)) == 0):
        raise ResultsError(f"{option}: expected a positive integer or 2^k, got '{text}'")
    return 1 << int(m.group(1)) if m.group(1) else int(m.group(2))


def present_sizes(records: Iterable[Record]) -> str:
    return ", ".join(n_label(v) for v in sorted({r.n for r in records})) or "none"


# ---------------------------------------------------------------- whole charts, per GPU panel

@dataclass(frozen=True)
class HLine:
    value: float
    label: str
    kind: str   # "peak" (theoretical), "ceiling" (measured roof) or "unity" (ratio 1)


@dataclass
class Panel:
    """One GPU's part of a chart: its lines {variant: [(N, y)]}, reference lines, and
    optionally bars [(variant, y)] at one N (the ladder at its largest size)."""
    label: str
    lines: Dict[str, List[Tuple[int, float]]]
    hlines: List[HLine] = field(default_factory=list)
    bars: List[Tuple[str, float, int]] = field(default_factory=list)   # (variant, y, at N)
    bar_label: str = ""
    bar_roof: Optional[HLine] = None   # the line the bars are a fraction of
    # Where the file has them: each point's 95% interval in y's unit, and the N of the
    # points whose sampling stopped before its precision (drawn hollow).
    intervals: Dict[str, List[Tuple[int, float, float]]] = field(default_factory=dict)   # (N, low, high)
    capped: Dict[str, List[int]] = field(default_factory=dict)


def with_intervals(panel: Panel, series: Dict[str, List[Point]], value) -> Panel:
    """The panel with its points' intervals: value(record, seconds) is the y a time
    gives (µs, or GB/s = declared bytes / time, so a time's high end is the GB/s low end)."""
    for v, pts in series.items():
        band = [(n, *sorted((value(r, r.ci_low_seconds), value(r, r.ci_high_seconds))))
                for n, _, r in pts if r.ci_low_seconds is not None]
        if band:
            panel.intervals[v] = band
        capped = [n for n, _, r in pts if r.precision_reached is False]
        if capped:
            panel.capped[v] = capped
    return panel


def _gbps(r: Record, seconds: float) -> float:
    return r.bytes_per_second * r.seconds / seconds / 1e9   # declared bytes per call / time


def _us(r: Record, seconds: float) -> float:
    return seconds * 1e6


@dataclass
class LineChart:
    """A chart of lines against N, one panel per GPU (side by side, never merged)."""
    stem: str
    title: str
    ylabel: str
    panels: List[Panel]
    emphasis: Dict[str, Emphasis]
    logy: bool = True
    xlabel: str = "N (elements)"
    unit: str = ""
    # Roles whose lines do not set the y range (the CPU reference, 1000x slower than
    # a launch, would squash the GPU lines); drawn where they fit, with a note.
    clip_kinds: Tuple[str, ...] = ()


def panel_label(gpu: Gpu) -> str:
    return gpu.label + (f", run {gpu.dates}" if gpu.dates else "")


def _charts_in_order(gpus: Sequence[Gpu], records_of) -> List[Chart]:
    seen: Dict[Chart, None] = {}
    for g in gpus:
        for r in records_of(g):
            seen.setdefault((r.family, r.type), None)
    return list(seen)


def _emphasis_for(gpus: Sequence[Gpu], chart: Chart) -> Dict[str, Emphasis]:
    """Roles and the best kernel from the first GPU that measured the chart (one style
    per variant across the panels); variants only a later GPU measured come after."""
    kinds: Dict[str, str] = {}
    for g in gpus:
        rs = [r for r in g.records if (r.family, r.type) == chart]
        if not rs:
            continue
        first = not kinds
        for v, e in emphasis(rs).items():
            kinds.setdefault(v, e.kind if first or e.kind != "best" else "kernel")
    return ranked(kinds, reference_variant(r for g in gpus for r in g.records if (r.family, r.type) == chart))


def _several_configs(records: Iterable[Record]) -> bool:
    """True when some variant was measured at more than one block/batch at one N."""
    seen: Dict[tuple, set] = {}
    for r in records:
        seen.setdefault((r.series, r.n), set()).add((r.block, r.batch))
    return any(len(c) > 1 for c in seen.values())


def _best_note(gpus: Sequence[Gpu]) -> str:
    return ", each variant at its best block/batch per N" if any(_several_configs(g.records) for g in gpus) else ""


def bandwidth_charts(gpus: Sequence[Gpu]) -> List[LineChart]:
    """GB/s against N per family/type, each GPU against its own theoretical peak and
    the measured ceiling that fits the family; the ceiling family's own chart shows
    the bandwidth ceilings themselves."""
    out = []
    note = _best_note(gpus)
    for family, type_ in _charts_in_order(gpus, lambda g: [r for r in g.records if not is_compute_ceiling(r)]):
        panels = []
        for g in gpus:
            rs = [r for r in g.records if (r.family, r.type) == (family, type_) and not is_compute_ceiling(r)]
            # 0 B/s (no bytes declared) has no place on the log axis; no series at all when the
            # only entries are aggregates other than the median
            series = {v: kept for v, pts in bandwidth_series(rs).get((family, type_), {}).items()
                      if (kept := [p for p in pts if p[1] > 0])}
            if not series:
                continue
            hlines, roof, what = [], None, ""
            if g.peak_bandwidth:
                hlines.append(HLine(g.peak_bandwidth / 1e9, f"theoretical peak {g.peak_bandwidth / 1e9:.0f} GB/s", "peak"))
            if family != CEILING_FAMILY:
                kind = bandwidth_roof_kind(family)
                ceiling = measured_bandwidth_ceiling(g.all_records, kind)
                if ceiling:
                    what = "read" if kind == "read" else "copy (read + write)"
                    roof = HLine(ceiling / 1e9, f"measured {what} ceiling {ceiling / 1e9:.0f} GB/s", "ceiling")
                    hlines.append(roof)
            panel = with_intervals(Panel(panel_label(g), {v: [(n, y) for n, y, _ in pts] for v, pts in series.items()},
                                         hlines), series, _gbps)
            if family != CEILING_FAMILY:   # the ladder at the family's largest N
                at = max(n for pts in series.values() for n, _, _ in pts)
                panel.bars = [(v, y, n) for v, pts in series.items() for n, y, _ in pts if n == at]
                panel.bar_label = f"GB/s at N = {n_label(at)}" + (f" (% of the measured {what} ceiling)" if roof else "")
                panel.bar_roof = roof
            else:                          # each ceiling at its best N
                panel.bars = [(v, *max((y, n) for n, y, _ in pts)) for v, pts in series.items()]
                panel.bar_label = "best GB/s over N (% of the theoretical peak)"
                panel.bar_roof = hlines[0] if hlines else None
            panels.append(panel)
        if not panels:
            continue
        if family == CEILING_FAMILY:
            title = f"{family} {type_}: measured bandwidth ceilings vs N"
            emph = ranked({v: "distinct" for p in panels for v in p.lines})
        else:
            title = f"{family} {type_}: bandwidth vs N{note}"
            emph = _emphasis_for(gpus, (family, type_))
        out.append(LineChart(f"bandwidth_{family}_{type_}", title, "GB/s (declared bytes / measured time)",
                             panels, emph))
    return out


def speedup_charts(gpus: Sequence[Gpu], baseline: str | None = None) -> List[LineChart]:
    """Baseline time / variant time against N (the baseline: --baseline, else the
    family's declared reference), one panel per GPU, a line at 1."""
    out = []
    note = _best_note(gpus)
    for chart in _charts_in_order(gpus, lambda g: kernels(g.records)):
        panels, base = [], None
        for g in gpus:
            series = speedup_series(g.records, baseline).get(chart)
            if not series:
                continue
            base = choose_baseline([r for r in kernels(g.records) if (r.family, r.type) == chart], baseline)
            lines = {v: [(n, x) for n, x, _ in pts] for v, pts in series.items()}
            panels.append(Panel(panel_label(g), lines, [HLine(1.0, f"{base} (= 1)", "unity")]))
        if panels:
            family, type_ = chart
            out.append(LineChart(f"speedup_{family}_{type_}", f"{family} {type_}: speedup over {base}{note}",
                                 f"speedup: {base} time / variant time", panels, _emphasis_for(gpus, chart),
                                 unit="x", clip_kinds=("cpu",)))
    return out


def time_charts(gpus: Sequence[Gpu], max_n: int = LAUNCH_BOUND_MAX_N) -> List[LineChart]:
    """Time per call (µs) at the launch-bound sizes N <= max_n."""
    out = []
    for chart in _charts_in_order(gpus, lambda g: kernels(g.records)):
        panels = []
        for g in gpus:
            series = time_series(g.records, max_n).get(chart)
            if series:
                panels.append(with_intervals(Panel(panel_label(g), {v: [(n, t) for n, t, _ in pts]
                                                                    for v, pts in series.items()}), series, _us))
        if panels:
            family, type_ = chart
            out.append(LineChart(f"time_{family}_{type_}",
                                 f"{family} {type_}: time per call at launch-bound sizes (N <= {n_label(max_n)})",
                                 "µs per call (GPU time)", panels, _emphasis_for(gpus, chart), unit=" µs",
                                 clip_kinds=("cpu",)))
    return out


def gpucompare_charts(gpus: Sequence[Gpu]) -> List[LineChart]:
    """Per family/type: each other GPU's time over the first GPU's, per variant and N
    (each variant at its best block/batch on each GPU); nothing with one GPU."""
    if len(gpus) < 2:
        return []
    ref = gpus[0]
    per_other = [(g, gpu_ratio_series(ref, g)) for g in gpus[1:]]
    out = []
    for chart in _charts_in_order([ref], lambda g: kernels(g.records)):
        panels = [Panel(f"{g.label} / {ref.label}", {v: [(x.n, x.ratio) for x in xs] for v, xs in ratios[chart].items()},
                        [HLine(1.0, "same time", "unity")])
                  for g, ratios in per_other if chart in ratios]
        if panels:
            family, type_ = chart
            out.append(LineChart(f"gpucompare_{family}_{type_}",
                                 f"{family} {type_}: time per call relative to {ref.label} (below 1: faster than on {ref.label})",
                                 f"time / time on {ref.label}", panels, _emphasis_for(gpus, chart)))
    return out
