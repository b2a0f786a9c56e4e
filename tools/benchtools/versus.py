"""One kernel against every library path, per N: what `bench-table --versus` prints
and `bench-plot --charts versus` draws (shaping only: no printing, no drawing).

Nothing is taken from a name: the kernel is the variant named on the command
line (declared role "kernel", or a file without roles); the library paths are
the variants of its family and type declared role "library" (or those named
with --libraries), each with the CCCL it was built with (its "cccl_version",
which bench-merge writes per benchmark; else its file's); the reference is the
kernel's declared "reference". Each is taken at its best block/batch per N, the
median aggregate where the run had repetitions. A speedup is library time /
kernel time: above 1 the kernel is faster.

Where the kernel was also measured in a library path's own run (a bench-merge
file of two builds, each of which ran the kernel: "floor_sum" and
"floor_sum@cccl3.5.0"), the path's speedup is over that copy, the kernel
measured in the same process (interleaved when the run was): what changes
between processes then cancels (docs/precision.md). Otherwise it is over the
kernel as named.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, List, Optional, Sequence, Tuple

from benchtools.ab import Ratios
from benchtools.merge import split_variant
from benchtools.results import Record, ResultsError, best_per_n
from benchtools.shape import (Emphasis, Gpu, bandwidth_roof_kind, by_chart, kernels, measured_bandwidth_ceiling_at,
                              n_label, panel_label, ranked)

UNKNOWN_VERSION = "?"


def _version_key(version: str) -> Tuple:
    """Numeric order of "3.0.1" < "3.5.0" < "3.10.0"; an unknown version last."""
    parts = version.split(".")
    return (version == UNKNOWN_VERSION, [(0, int(p)) if p.isdigit() else (1, p) for p in parts])


@dataclass
class VersusRow:
    n: int
    kernel: Record
    paths: Dict[str, Record]   # library variant -> its record at this N (the measured ones)
    same_run: Dict[str, Record] = field(default_factory=dict)   # path -> the kernel measured in the path's run

    def kernel_for(self, variant: str) -> Record:
        """The kernel's record a path is compared with: from the path's own run where
        that run measured the kernel, else the kernel as named."""
        return self.same_run.get(variant, self.kernel)

    def speedup(self, variant: str) -> Optional[float]:
        """The path's time over the kernel's (above 1: the kernel is faster)."""
        r = self.paths.get(variant)
        return r.seconds / self.kernel_for(variant).seconds if r else None

    def interval(self, variant: str, ratios: Ratios) -> Optional[Tuple[float, float, float, str]]:
        """The path's time over the kernel's (the same pair as speedup) as bench-ab reads it:
        (ratio, low, high, verdict), None where the runs carry no interval for it."""
        r = self.paths.get(variant)
        return ratios(r, self.kernel_for(variant)) if r else None

    def lowest(self, variants: Sequence[str]) -> Optional[Tuple[str, float]]:
        """The path of these the kernel's speedup is lowest over, with that speedup
        (each path over the kernel of its own run: where every path has the same
        kernel record, the fastest path)."""
        got = [(v, self.speedup(v)) for v in variants if v in self.paths]
        return min(got, key=lambda vs: vs[1]) if got else None

    def copy(self, variant: str) -> Optional[Record]:
        """The kernel's copy `variant` (another build's run) at this N, if a path used it."""
        return next((r for r in self.same_run.values() if r.variant == variant), None)


@dataclass
class Versus:
    """A kernel of one family/type against the library paths beside it, on one GPU."""
    gpu: str
    family: str
    type: str
    kernel: str
    paths: List[str]                 # library variants, in declaration order
    versions: Dict[str, str]         # variant (kernel, its copies and paths) -> its CCCL version, or "?"
    reference: Optional[str]         # the kernel's declared reference, when it is one of the paths
    rows: List[VersusRow] = field(default_factory=list)
    ceiling_kind: str = "read"       # the measured bandwidth ceiling that fits the family: "read" or "copy"
    ceiling_at: Dict[int, float] = field(default_factory=dict)  # its bytes/s at each N it ran at, if in the run
    copies: List[str] = field(default_factory=list)   # the kernel as measured in the other builds' runs

    @property
    def ceiling(self) -> Optional[float]:
        """That ceiling's best bytes/s over N (None when the run has none)."""
        return max(self.ceiling_at.values()) if self.ceiling_at else None

    def by_version(self) -> Dict[str, List[str]]:
        """{CCCL version: its paths}, versions in numeric order."""
        out: Dict[str, List[str]] = {}
        for v in sorted(self.paths, key=lambda v: _version_key(self.versions[v])):
            out.setdefault(self.versions[v], []).append(v)
        return out

    def ratio_columns(self, every_path: bool = True) -> List[Tuple[str, List[str]]]:
        """What the kernel's speedup is taken over, as (name, paths: over the fastest of
        them): per CCCL version its fastest path (named after the path where the version
        has one); with every_path and several versions, the fastest of all; the
        reference where its version has other paths (else it is already a column)."""
        groups = self.by_version()
        cols = [(f"fastest CCCL {version} path" if len(vs) > 1 else self.label(vs[0]), vs)
                for version, vs in groups.items()]
        if every_path and len(groups) > 1:
            cols.append(("fastest path", list(self.paths)))
        if self.reference and len(groups[self.versions[self.reference]]) > 1:
            cols.append((f"{self.label(self.reference)} (reference)", [self.reference]))
        return cols

    def label(self, variant: str) -> str:
        """"cub_device_reduce (CCCL 3.5.0)" for a path (bench-merge's @-suffix read back); the kernel as named."""
        if variant == self.kernel:
            return variant
        return f"{split_variant(variant)[0]} (CCCL {self.versions[variant]})"


def _kernel_role_problem(kernel: str, records: List[Record]) -> Optional[str]:
    roles = {r.role for r in records} - {"kernel", "unknown"}
    return f"--versus {kernel}: declared role {'/'.join(sorted(roles))}, not 'kernel'" if roles else None


def versus_tables(gpu: Gpu, kernel: str, libraries: Optional[Sequence[str]] = None) -> List[Versus]:
    """Per family/type of the GPU's records that has the kernel beside at least one
    library path: the kernel and each path at every N the kernel was measured at.
    ResultsError (one line) when the kernel is absent, is declared something else
    than a kernel, or has no library path beside it."""
    charts = by_chart(kernels(gpu.records))
    if not any(r.variant == kernel for rs in charts.values() for r in rs):
        present = sorted({r.variant for rs in charts.values() for r in rs if r.role in ("kernel", "unknown")})
        raise ResultsError(f"--versus {kernel}: no such variant on {gpu.label} (kernels: {', '.join(present) or 'none'})")
    out: List[Versus] = []
    for (family, type_), rs in charts.items():
        mine = [r for r in rs if r.variant == kernel]
        if not mine:
            continue
        problem = _kernel_role_problem(kernel, mine)
        if problem:
            raise ResultsError(f"{problem} ({family}/{type_} on {gpu.label})")
        variants = list(dict.fromkeys(r.variant for r in rs))
        if libraries:
            paths = [v for v in variants if v in libraries and v != kernel]
        else:
            paths = list(dict.fromkeys(r.variant for r in rs if r.role == "library"))
        if not paths:
            continue
        best = {s[2]: {r.n: r for r in series} for s, series in best_per_n(rs).items()}
        base = split_variant(kernel)[0]
        copies = [v for v in variants if v != kernel and v not in paths and split_variant(v)[0] == base
                  and all(r.role in ("kernel", "unknown") for r in rs if r.variant == v)]
        versions = {v: next((r.cccl_version for r in rs if r.variant == v and r.cccl_version), UNKNOWN_VERSION)
                    for v in [kernel] + copies + paths}
        # the kernel of each version's run (the kernel itself for its own version)
        by_version = {versions[v]: v for v in reversed(copies)}
        by_version[versions[kernel]] = kernel
        ref = next((r.reference for r in mine if r.reference), None)
        ref_variant = ref.split("/")[2] if ref and ref.split("/")[:2] == [family, type_] else None
        kind = bandwidth_roof_kind(family)
        table = Versus(gpu.label, family, type_, kernel, paths, versions, ref_variant if ref_variant in paths else None,
                       ceiling_kind=kind, ceiling_at=measured_bandwidth_ceiling_at(gpu.all_records, kind),
                       copies=copies)
        for n, k in sorted(best[kernel].items()):
            measured = {v: best[v][n] for v in paths if n in best.get(v, {})}
            same_run = {v: best[c][n] for v in measured for c in [by_version.get(versions[v])]
                        if c and c != kernel and n in best.get(c, {})}
            table.rows.append(VersusRow(n, k, measured, same_run))
        out.append(table)
    if not out:
        what = ", ".join(libraries) if libraries else "declared role 'library'"
        raise ResultsError(f"--versus {kernel}: no library path ({what}) beside it on {gpu.label}"
                           + ("" if libraries else "; name them with --libraries"))
    return out


# ---------------------------------------------------------------- the chart's data

@dataclass
class VersusPanel:
    """One family/type: time per call of the kernel and each path, and the kernel's
    speedup over the fastest path of each CCCL (and over its reference)."""
    title: str
    times: Dict[str, List[Tuple[int, float]]]      # label -> [(N, µs)]
    speedups: Dict[str, List[Tuple[int, float]]]   # label -> [(N, path time / kernel time)]
    emphasis: Dict[str, Emphasis]                  # of the time lines: the kernel "best", the paths "library"
    # label -> [(N, low, high)]: each speedup's 95% interval, where the runs carry intervals
    speedup_intervals: Dict[str, List[Tuple[int, float, float]]] = field(default_factory=dict)


@dataclass
class VersusChart:
    stem: str
    title: str
    kernel: str
    panels: List[VersusPanel]


def speedup_lines(t: Versus) -> Dict[str, List[Tuple[int, float]]]:
    """The kernel's speedup over each ratio column but the fastest of all (drawn, it
    would only retrace the lowest of the per-version lines)."""
    lines: Dict[str, List[Tuple[int, float]]] = {}
    for name, variants in t.ratio_columns(every_path=False):
        pts = [(row.n, f[1]) for row in t.rows for f in [row.lowest(variants)] if f]
        if pts:
            lines[f"over {name}"] = pts
    return lines


def speedup_intervals(t: Versus, ratios: Ratios) -> Dict[str, List[Tuple[int, float, float]]]:
    """Each speedup line's 95% interval per N, as bench-ab reads the path the kernel's
    speedup is lowest over against the kernel of that path's run (per repetition);
    the N without one (runs without intervals) left out."""
    out: Dict[str, List[Tuple[int, float, float]]] = {}
    for name, variants in t.ratio_columns(every_path=False):
        pts = [(row.n, got[1], got[2]) for row in t.rows for f in [row.lowest(variants)] if f
               for got in [row.interval(f[0], ratios)] if got]
        if pts:
            out[f"over {name}"] = pts
    return out


def versus_charts(gpu: Gpu, tables: Sequence[Versus]) -> List[VersusChart]:
    """One chart per family on one GPU, a column per type."""
    families: Dict[Tuple[str, str], List[Versus]] = {}
    for t in tables:
        families.setdefault((t.family, t.kernel), []).append(t)
    out = []
    ratios = Ratios(gpu.records)
    for (family, kernel), ts in families.items():
        panels = []
        for t in ts:
            times = {t.label(kernel): [(row.n, row.kernel.seconds * 1e6) for row in t.rows]}
            for c in t.copies:   # the kernel in another build's run: drawn beside the kernel as named
                pts = [(row.n, r.seconds * 1e6) for row in t.rows for r in [row.copy(c)] if r]
                if pts:
                    times[t.label(c)] = pts
            for v in t.paths:
                pts = [(row.n, row.paths[v].seconds * 1e6) for row in t.rows if v in row.paths]
                if pts:
                    times[t.label(v)] = pts
            kernel_labels = {t.label(kernel)} | {t.label(c) for c in t.copies}
            kinds = {label: "best" if label in kernel_labels else "library" for label in times}
            reference = t.label(t.reference) if t.reference else None
            panels.append(VersusPanel(f"{family} {t.type}", times, speedup_lines(t), ranked(kinds, reference),
                                      speedup_intervals(t, ratios)))
        sizes = sorted({row.n for t in ts for row in t.rows})
        title = (f"{family}: {kernel} against every library path, N = {n_label(sizes[0])} to {n_label(sizes[-1])}"
                 f"\n{panel_label(gpu)}")
        out.append(VersusChart(f"versus_{family}_{kernel}", title, kernel, panels))
    return out
