"""Reads Nsight Compute's raw-page CSV (`ncu --import R.ncu-rep --csv --page raw`)
into per-kernel rows of DRAM bytes, and groups them into benchmark calls.

The layout (ncu's documented raw page): a header row ("ID", "Process ID", ...,
"Kernel Name", ..., one column per metric), a units row (empty "ID" cell, e.g.
"byte" or "Mbyte"), then one row per profiled kernel in launch order. With
`--nvtx`, columns named like "thread Domain:Push/Pop_Range:PL_Type:..." hold the
NVTX ranges open at the launch. Numbers may carry thousands separators
("1,073,741,824"). Lines ncu writes about itself ("==PROF== ...", "==WARNING==")
are skipped wherever they appear.

cuda_bench --profile-one profiles each benchmark's call inside an NVTX range
named after it (src/harness/profile.hpp: '/' as '.', ':' as '=') and ends every
call's window with the L2 flush kernel, so rows map back to benchmarks by range
name or, when the CSV has no NVTX column, by order (each flush closes a call).
"""
from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Sequence, Tuple

from benchtools.results import ResultsError

READ_METRIC = "dram__bytes_read.sum"
WRITE_METRIC = "dram__bytes_write.sum"
PASSES_METRIC = "profiler__replayer_passes"
FLUSH_KERNEL = "l2_flush_kernel"  # src/harness/timer.cu
# The window cuda_bench --profile-one opens once, before the first benchmark's, holding one flush:
# the profiler's start-up writes land there (src/harness/profile.hpp, kProfilerStartRange). The
# results' context names it (`profile_start_range`).
PROFILER_START_RANGE = "cuda_bench.profiler_start"

_UNITS = {"": 1.0, "byte": 1.0, "b": 1.0,
          "kbyte": 1e3, "mbyte": 1e6, "gbyte": 1e9, "tbyte": 1e12,
          "kb": 1e3, "mb": 1e6, "gb": 1e9, "tb": 1e12,
          "kibyte": 1024.0, "mibyte": 1024.0 ** 2, "gibyte": 1024.0 ** 3,
          "kib": 1024.0, "mib": 1024.0 ** 2, "gib": 1024.0 ** 3}
# A benchmark's NVTX range: family.type.variant.N=<n>[.block=<b>][.batch=<k>]
_RANGE = re.compile(r"([a-z0-9_]+)\.([a-z0-9_]+)\.([a-z0-9_]+)\.N=(\d+)(?:\.block=(\d+))?(?:\.batch=(\d+))?")


@dataclass(frozen=True)
class KernelRow:
    index: int                 # launch order (ncu's ID)
    kernel: str
    bytes_read: float
    bytes_written: float
    benchmark: Optional[str]   # from the NVTX range, canonical name; None without one
    passes: Optional[int]
    start_window: bool = False  # in the profiler start-up window (by its NVTX range)

    @property
    def is_flush(self) -> bool:
        return FLUSH_KERNEL in self.kernel


@dataclass
class Call:
    """The profiled window of one benchmark: its kernels and the closing flush."""
    benchmark: Optional[str]
    kernels: List[KernelRow] = field(default_factory=list)
    flushes: List[KernelRow] = field(default_factory=list)

    @property
    def bytes_read(self) -> float:
        """DRAM reads of the call's kernels; the flush's reads (its own buffer) are not the call's."""
        return sum(k.bytes_read for k in self.kernels)

    @property
    def bytes_written(self) -> float:
        """DRAM writes of the call's kernels plus the flush's: the write-backs of
        the lines the call left dirty in L2."""
        return sum(k.bytes_written for k in self.kernels) + sum(f.bytes_written for f in self.flushes)

    @property
    def flush_bytes_read(self) -> float:
        return sum(f.bytes_read for f in self.flushes)


def range_to_name(text: str) -> Optional[str]:
    """The canonical benchmark name of the (last) cuda_bench NVTX range in a cell."""
    found = _RANGE.findall(text or "")
    if not found:
        return None
    family, type_, variant, n, block, batch = found[-1]
    return "/".join([family, type_, variant, f"N:{n}"] + ([f"block:{block}"] if block else [])
                    + ([f"batch:{batch}"] if batch else []))


def _number(cell: str, unit: str, where: str) -> float:
    text = cell.strip().replace(",", "")
    try:
        value = float(text)
    except ValueError:
        raise ResultsError(f"{where}: '{cell}' is not a number") from None
    scale = _UNITS.get(unit.strip().lower())
    if scale is None:
        raise ResultsError(f"{where}: unknown unit '{unit}'")
    return value * scale


def parse_ncu_csv(text: str, source: str = "ncu CSV") -> List[KernelRow]:
    """Kernel rows in launch order. Raises ResultsError naming what is missing."""
    lines = [line for line in text.splitlines() if not line.startswith("==")]
    try:
        table = list(csv.reader(io.StringIO("\n".join(lines))))
    except csv.Error as e:   # a cell past the csv module's field limit (not ncu's output)
        raise ResultsError(f"{source}: not readable as CSV ({e})") from None
    start = next((i for i, row in enumerate(table) if row and row[0].strip() == "ID"), None)
    if start is None:
        raise ResultsError(f"{source}: no ncu raw-page header (a row starting with \"ID\"); "
                           "expected the output of `ncu --import R.ncu-rep --csv --page raw`")
    header = [h.strip() for h in table[start]]
    col = {h: i for i, h in enumerate(header)}
    for need in ("Kernel Name", READ_METRIC, WRITE_METRIC):
        if need not in col:
            raise ResultsError(f"{source}: no '{need}' column (profile with --metrics {READ_METRIC},{WRITE_METRIC})")
    nvtx_cols = [i for i, h in enumerate(header) if "Push/Pop_Range" in h or "Start/Stop_Range" in h]
    body = [row for row in table[start + 1:] if any(c.strip() for c in row)]
    units = [""] * len(header)
    if body and body[0][0].strip() == "":  # the units row
        units = body[0] + [""] * (len(header) - len(body[0]))
        body = body[1:]
    rows: List[KernelRow] = []
    for number, row in enumerate(body, start=1):
        if len(row) < len(header):
            raise ResultsError(f"{source}: kernel row {number} has {len(row)} cells, the header {len(header)}")
        where = f"{source}: kernel row {number}"
        passes_cell = row[col[PASSES_METRIC]].strip() if PASSES_METRIC in col else ""
        names = [n for n in (range_to_name(row[i]) for i in nvtx_cols) if n]
        try:
            index = int(row[col["ID"]].replace(",", "")) if "ID" in col else number - 1
        except ValueError:
            raise ResultsError(f"{where}: ID '{row[col['ID']]}' is not an integer") from None
        rows.append(KernelRow(
            index=index,
            kernel=row[col["Kernel Name"]].strip(),
            bytes_read=_number(row[col[READ_METRIC]], units[col[READ_METRIC]], f"{where} {READ_METRIC}"),
            bytes_written=_number(row[col[WRITE_METRIC]], units[col[WRITE_METRIC]], f"{where} {WRITE_METRIC}"),
            benchmark=names[-1] if names else None,
            passes=int(float(passes_cell.replace(",", ""))) if passes_cell else None,
            start_window=not names and any(PROFILER_START_RANGE in row[i] for i in nvtx_cols),
        ))
    if not rows:
        raise ResultsError(f"{source}: no kernel rows (did the profiled run reach a benchmark?)")
    return sorted(rows, key=lambda r: r.index)


def split_profiler_start(rows: Sequence[KernelRow], windows: int) -> Tuple[List[KernelRow], List[KernelRow]]:
    """(the profiler start-up window's rows, the others). By its NVTX range where the rows carry
    it; without NVTX columns, the first `windows` windows (each closed by a flush), which the
    results' context says cuda_bench opened (`profile_start_range`: one). Neither: ([], rows)."""
    marked = [r for r in rows if r.start_window]
    if marked:
        return marked, [r for r in rows if not r.start_window]
    if windows <= 0 or any(r.benchmark for r in rows):
        return [], list(rows)
    closed = 0
    for i, r in enumerate(rows):
        closed += r.is_flush
        if closed == windows:
            return list(rows[:i + 1]), list(rows[i + 1:])
    return [], list(rows)


def group_calls(rows: Sequence[KernelRow], profiled: Sequence[str], source: str = "ncu CSV") -> Dict[str, Call]:
    """{benchmark name: Call}. By NVTX range when every row carries one naming a
    benchmark of `profiled` (the results file's successful benchmarks, in run
    order), else by order: each flush closes the call of the next benchmark."""
    calls: Dict[str, Call] = {}
    if all(r.benchmark for r in rows) and {r.benchmark for r in rows} <= set(profiled):
        for r in rows:
            call = calls.setdefault(r.benchmark, Call(r.benchmark))
            (call.flushes if r.is_flush else call.kernels).append(r)
        return calls
    windows: List[Call] = [Call(None)]
    for r in rows:
        (windows[-1].flushes if r.is_flush else windows[-1].kernels).append(r)
        if r.is_flush:
            windows.append(Call(None))
    if not windows[-1].kernels:
        windows.pop()
    if len(windows) != len(profiled):
        raise ResultsError(f"{source}: the kernel rows form {len(windows)} profiled calls (each closed by "
                           f"{FLUSH_KERNEL}) but the results list {len(profiled)} benchmarks; without NVTX "
                           "columns (ncu --nvtx) rows map to benchmarks only by order")
    for name, call in zip(profiled, windows):
        call.benchmark = name
        calls[name] = call
    return calls
