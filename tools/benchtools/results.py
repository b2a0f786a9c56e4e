"""The one reader of cuda_bench result files (Google Benchmark JSON + our context).

Every tool goes through load_results(); nothing else parses the JSON.

Contract (written by bench/main.cpp and src/harness/):
  context: gpu_name, gpu_peak_bandwidth_gbps, gpu_sm_count, gpu_l2_bytes, ...,
           gpu_peak_fp32_flops, gpu_peak_fp16_flops, gpu_peak_int32_ops (theoretical,
           strings holding numbers), gpu_peak_compute_formula,
           cuda_*_version, cccl_version, git_commit, source_hash, cache_mode, suite, date
  benchmarks[]: run_name "family/type/variant/N:<n>[/block:<b>][/batch:<k>]/manual_time",
           real_time + time_unit, bytes_per_second, items_per_second,
           ops_per_second, bw_util; error_occurred/error_message on failure;
           run_type "aggregate" + aggregate_name with --benchmark_repetitions;
           role, host_work, reference, throttled (declared per benchmark, may be absent);
           cccl_version per benchmark where bench-merge joined builds of several CCCLs
           (else the context's), and then a variant "<variant>@cccl<version>" for the
           copy of a declaration that an earlier file of the merge also has (docs/merge.md).
  A time must come with its unit and be a finite number > 0, a rate or peak finite
  and >= 0 (peaks > 0): anything else is a broken file (ResultsError), not data.
  Precision sampling (absent from files that predate it; then intervals are unknown):
           real_time is the median of "samples" timed calls; "ci_low"/"ci_high" (time unit)
           its 95% distribution-free interval (benchtools.stats), ci_low <= real_time <= ci_high;
           "stop_reason": "precision" (interval within +-P of the median), "time" or "samples"
           (a cap hit first: precision not reached); optional "sample_times" (--keep-samples)
           and "interleave_group" "family/type/N:n" (--interleave); context precision_percent,
           max_time_seconds, min_time_seconds (absent before 2026-11-27: 0), min_samples,
           max_samples, interleave, suite_wall_seconds.
  The "ceiling" family holds the run's measured hardware ceilings (no block/batch):
           ceiling/f32/{read,write,copy}_vec16, ceiling/f32/copy_memcpy (bytes/s),
           ceiling/f32/fma, ceiling/f16/hfma2 (FLOP/s), ceiling/i32/add (op/s).
"""
from __future__ import annotations

import gzip
import json
import math
import re
import zlib
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Dict, Iterable, List, Optional, Set, Tuple

_UNIT_SECONDS = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}
_TOKEN = re.compile(r"^[a-z0-9_]+$")
# A variant may carry bench-merge's "@<tag>" (e.g. cub_device_reduce@cccl3.5.0): another build's copy.
_VARIANT = re.compile(r"^[a-z0-9_]+(?:@[a-z0-9][a-z0-9_.]*)?$")
_DIGITS = re.compile(r"^[0-9]+$")
# Suffixes Google Benchmark appends to a run name; they are not our axes.
_GB_SUFFIX = re.compile(r"^(manual_time|real_time|process_time|min_time:.*|min_warmup_time:.*|"
                        r"repeats:.*|iterations:.*|threads:.*)$")
CEILING_FAMILY = "ceiling"
ROLES = ("kernel", "library", "cpu")  # declared per benchmark; "unknown" when a file predates them
STOP_REASONS = ("precision", "time", "samples")


class ResultsError(Exception):
    """Unusable input: the message names the file and what is wrong with it."""


@dataclass(frozen=True)
class Record:
    family: str
    type: str
    variant: str
    n: int
    block: Optional[int]
    batch: Optional[int]
    seconds: float            # per call (mean over iterations, or the aggregate's value)
    bytes_per_second: float
    items_per_second: float
    ops_per_second: float
    bw_util: float
    aggregate: Optional[str]  # None for a plain run, else "median", "mean", ...
    repetition: int = 0
    # From the benchmark's own JSON fields (the declaration's), never from its name:
    role: str = "unknown"             # "kernel" | "library" | "cpu" | "unknown" (file predates roles)
    host_work: Optional[bool] = None  # works on the host inside the timed region
    reference: Optional[str] = None   # "family/type/variant" of the family's reference
    cccl_version: Optional[str] = None  # the CCCL the benchmark was built with (its own field, else the context's)
    # Precision sampling (None in files that predate it); seconds like `seconds`, the median:
    ci_low_seconds: Optional[float] = None    # 95% interval of the median
    ci_high_seconds: Optional[float] = None
    samples: Optional[int] = None             # timed calls
    stop_reason: Optional[str] = None         # one of STOP_REASONS
    interleave_group: Optional[str] = None    # "family/type/N:n": sampled round-robin with its group
    source: str = ""   # the file it was read from, with its CCCL where a merged file holds several
    sample_seconds: Optional[Tuple[float, ...]] = None   # the raw samples (--keep-samples)

    @property
    def relative_half_width(self) -> Optional[float]:
        """The interval's wider side over the median (0.004 = +-0.4%); None when unknown."""
        if self.ci_low_seconds is None or self.ci_high_seconds is None:
            return None
        return max(self.seconds - self.ci_low_seconds, self.ci_high_seconds - self.seconds) / self.seconds

    @property
    def precision_reached(self) -> Optional[bool]:
        """False when sampling stopped on a cap before the interval reached the precision
        asked for; None when the file predates precision sampling."""
        return None if self.stop_reason is None else self.stop_reason == "precision"

    @property
    def is_library(self) -> bool:
        return self.role == "library"

    @property
    def series(self) -> Tuple[str, str, str]:
        return (self.family, self.type, self.variant)

    @property
    def arithmetic_intensity(self) -> Optional[float]:
        """Declared ops per declared byte (both from the variant's work model, so
        the ratio of the two rates); None when either is not declared."""
        if self.ops_per_second > 0 and self.bytes_per_second > 0:
            return self.ops_per_second / self.bytes_per_second
        return None

    @property
    def name(self) -> str:
        """Identifies the benchmark across runs: repetitions and aggregates share it."""
        return canonical_name(self.family, self.type, self.variant, self.n, self.block, self.batch)


@dataclass
class Results:
    path: str
    context: Dict[str, object]
    records: List[Record] = field(default_factory=list)
    errors: List[Tuple[str, str]] = field(default_factory=list)   # (run name, message)
    truncated: bool = False
    throttled: Set[str] = field(default_factory=set)   # canonical names whose JSON says "throttled": true

    @property
    def gpu(self) -> str:
        return str(self.context.get("gpu_name", "unknown GPU"))

    @property
    def date(self) -> str:
        return str(self.context.get("date", ""))[:10]

    @property
    def peak_bandwidth(self) -> Optional[float]:
        """Theoretical peak in bytes/s, from the context."""
        try:
            return float(self.context["gpu_peak_bandwidth_gbps"]) * 1e9
        except (KeyError, TypeError, ValueError):
            return None

    def context_number(self, key: str) -> Optional[float]:
        """A context value written as a number string (e.g. gpu_peak_fp32_flops);
        None when absent or not a positive number."""
        try:
            value = float(self.context[key])
        except (KeyError, TypeError, ValueError):
            return None
        return value if value > 0 else None


def pow2_label(n: int, thousands: bool = False) -> str:
    """How every table and chart names an N: "2^k" for a power of two, else the number
    ("1000", or "1,000" with thousands=True)."""
    if n > 0 and n & (n - 1) == 0:
        return f"2^{n.bit_length() - 1}"
    return f"{n:,}" if thousands else str(n)


def declared_fields(b: dict) -> dict:
    """The Record fields a benchmark object declares about itself ("role",
    "host_work", "reference"); absent or malformed ones keep their defaults."""
    out: dict = {}
    if b.get("role") in ROLES:
        out["role"] = b["role"]
    if isinstance(b.get("host_work"), bool):
        out["host_work"] = b["host_work"]
    if isinstance(b.get("reference"), str) and b["reference"].count("/") == 2:
        out["reference"] = b["reference"]
    if isinstance(b.get("cccl_version"), str) and b["cccl_version"]:
        out["cccl_version"] = b["cccl_version"]
    return out


def parse_name(name: str) -> Optional[dict]:
    """Splits "family/type/variant/N:..[/block:..][/batch:..]" (GB suffixes ignored).
    Returns None when the name does not follow the scheme."""
    parts = name.split("/")
    if len(parts) < 4 or not (_TOKEN.match(parts[0]) and _TOKEN.match(parts[1]) and _VARIANT.match(parts[2])):
        return None
    out = {"family": parts[0], "type": parts[1], "variant": parts[2], "n": None, "block": None, "batch": None}
    for token in parts[3:]:
        if _GB_SUFFIX.match(token):
            continue
        key, sep, value = token.partition(":")
        # ASCII digits only ("²".isdigit() is true, int("²") fails); 0 is no size, block or batch
        if not sep or key not in ("N", "block", "batch") or not _DIGITS.match(value) or int(value) == 0:
            return None
        out["n" if key == "N" else key] = int(value)
    return out if out["n"] else None


def canonical_name(family: str, type: str, variant: str, n: int,
                   block: Optional[int] = None, batch: Optional[int] = None) -> str:
    """"family/type/variant/N:<n>[/block:<b>][/batch:<k>]": the inverse of parse_name,
    without Google Benchmark's suffixes, so one benchmark has one name in every tool."""
    return "/".join([family, type, variant, f"N:{n}"]
                    + ([f"block:{block}"] if block is not None else [])
                    + ([f"batch:{batch}"] if batch is not None else []))


def parse_json(text: str):
    """json.loads, with nesting too deep for the parser (a RecursionError) a JSONDecodeError
    like any other malformed JSON, so that every reader's message for those covers it."""
    try:
        return json.loads(text)
    except RecursionError:
        raise json.JSONDecodeError("nested too deeply", text, 0) from None


def _cut_off(text: str, e: json.JSONDecodeError) -> bool:
    """Whether the JSON error is where a file cut off mid-write fails: at its end, on its
    last line (the writer puts each field on a line of its own), and not a complete
    document followed by more ("Extra data": two runs in one file, or stray text)."""
    end = text.rstrip(" \t\r\n\0")   # a crash can leave a zero-filled tail
    # (at 0 nothing parsed: a byte-order mark, nesting too deep; a cut there left nothing to use)
    return e.msg != "Extra data" and 0 < e.pos and e.pos > end.rfind("\n")


def _salvage(text: str) -> Tuple[dict, list]:
    """Context and complete benchmark entries from a file cut off mid-write."""
    decoder = json.JSONDecoder()
    context: dict = {}
    m = re.search(r'"context"\s*:\s*', text)
    if m:
        try:
            context, _ = decoder.raw_decode(text, m.end())
        except (json.JSONDecodeError, RecursionError):
            context = {}
    entries: list = []
    m = re.search(r'"benchmarks"\s*:\s*\[', text)
    if m:
        pos = m.end()
        while True:
            while pos < len(text) and text[pos] in " \t\r\n,":
                pos += 1
            try:
                obj, pos = decoder.raw_decode(text, pos)
            except (json.JSONDecodeError, RecursionError):
                break
            entries.append(obj)  # validated with the rest: a non-object entry is an error either way
    return context, entries


def _number(value, what: str, positive: bool, text: bool = False) -> float:
    """A finite number (> 0 when positive, else >= 0); ValueError naming `what` otherwise.
    NaN, Infinity, a zero time or a negative rate is a broken measurement, never a data point.
    A measurement is a JSON number, as Google Benchmark writes it; text only where the
    writer puts numbers in strings (text: the context's peaks)."""
    if isinstance(value, bool) or (isinstance(value, str) and not text):
        raise ValueError(f"{what} is {value!r}, not a number")
    try:
        v = float(value)
    except OverflowError:   # an integer beyond any float
        raise ValueError(f"{what} is {str(value)[:20]}... ({len(str(value))} digits): not a measurement") from None
    except (TypeError, ValueError):
        raise ValueError(f"{what} is {value!r}, not a number") from None
    if not math.isfinite(v) or v < 0 or (positive and v == 0):
        raise ValueError(f"{what} is {value!r}: not a measurement")
    return v


# A time below a picosecond is no call's (a 5e-324 ns time would reach the tools as 0 s).
_SHORTEST = 1e-12


def _index(value) -> int:
    """repetition_index: an integer >= 0 (ValueError naming it otherwise)."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"repetition_index is {value!r}, not an integer >= 0")
    return value


# Counters a record carries besides its time; absent means "not declared" (0).
_RATES = ("bytes_per_second", "items_per_second", "ops_per_second", "bw_util")
# Context keys holding theoretical peaks (numbers written as strings); the *_formula keys are text.
_PEAK_KEY = re.compile(r"^gpu_peak_(?!.*_formula$)")


def sampling_fields(b: dict, real_time: float, unit: float) -> dict:
    """The Record fields of precision sampling from a plain (non-aggregate) benchmark
    object, validated; {} when it has none. ValueError naming the field otherwise."""
    out: dict = {}
    if "ci_low" in b or "ci_high" in b:
        for key in ("ci_low", "ci_high"):
            if key not in b:
                raise ValueError(f"{key} is missing (the interval needs ci_low and ci_high)")
        low = _number(b["ci_low"], "ci_low", positive=True)
        high = _number(b["ci_high"], "ci_high", positive=True)
        slack = 1e-9 * real_time   # the JSON's printed digits, not a wider interval
        if not low <= real_time + slack:
            raise ValueError(f"ci_low is {b['ci_low']!r}, above real_time {real_time!r}")
        if not high >= real_time - slack:
            raise ValueError(f"ci_high is {b['ci_high']!r}, below real_time {real_time!r}")
        out["ci_low_seconds"], out["ci_high_seconds"] = low * unit, high * unit
    if "samples" in b:
        n = b["samples"]
        if isinstance(n, bool) or not isinstance(n, int) or n < 1:
            raise ValueError(f"samples is {n!r}, not a positive integer")
        out["samples"] = n
    if "stop_reason" in b:
        if b["stop_reason"] not in STOP_REASONS:
            raise ValueError(f"stop_reason is {b['stop_reason']!r}, not one of {', '.join(STOP_REASONS)}")
        out["stop_reason"] = b["stop_reason"]
    if "interleave_group" in b:
        if not isinstance(b["interleave_group"], str) or not b["interleave_group"]:
            raise ValueError(f"interleave_group is {b['interleave_group']!r}, not a name")
        out["interleave_group"] = b["interleave_group"]
    if "sample_times" in b:
        times = b["sample_times"]
        if not isinstance(times, list) or not times:
            raise ValueError("sample_times is not a non-empty list")
        out["sample_seconds"] = tuple(_number(t, f"sample_times[{i}]", positive=True) * unit
                                      for i, t in enumerate(times))
    return out


def _check_context(path: str, context: dict) -> None:
    for key, value in context.items():
        if _PEAK_KEY.match(key):
            try:
                _number(value, f"context {key}", positive=True, text=True)
            except ValueError as e:
                raise ResultsError(f"{path}: {e}") from None


GZIP_MAGIC = b"\x1f\x8b"


def gzip_bytes(data: bytes) -> bytes:
    """data as every tool writes a .gz (read back by read_bytes): level 9 and mtime 0,
    so the same data always gives the same bytes (a rerun leaves a committed file as it was)."""
    return gzip.compress(data, 9, mtime=0)


def read_bytes(path: str | Path) -> bytes:
    """A file's bytes, gunzipped when it is gzip data (by its first bytes, not its
    name): results/ stores runs as .json.gz and every tool reads them as .json.
    A cut-off .gz yields what it holds up to the cut, as a cut-off .json does."""
    try:
        data = Path(path).read_bytes()
    except OSError as e:
        raise ResultsError(f"{path}: cannot read: {e.strerror or e}") from None
    if not data.startswith(GZIP_MAGIC):
        return data
    out = zlib.decompressobj(16 + zlib.MAX_WBITS)
    try:
        text = out.decompress(data)
    except zlib.error as e:
        raise ResultsError(f"{path}: gzip data is corrupt ({e})") from None
    if not out.eof and not text:
        raise ResultsError(f"{path}: gzip data ends before any content")
    return text


def read_text(path: str | Path, what: str = "a results file") -> str:
    """read_bytes as UTF-8 text; ResultsError naming the file and the first bad byte."""
    data = read_bytes(path)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ResultsError(f"{path}: not UTF-8 text (byte 0x{data[e.start]:02x} at offset {e.start}): "
                           f"not {what}") from None


_read_text = read_text  # the name the loader and older callers use


def load_results(path: str | Path) -> Results:
    """Reads one result file. Raises ResultsError (one line naming the file and what
    is wrong) when it is not UTF-8 JSON, not Google Benchmark JSON, not from
    cuda_bench, or holds a broken measurement: a time or peak that is NaN, infinite,
    zero or negative, or a time without its unit. A file truncated by an interrupted
    run yields its complete entries, with .truncated set."""
    path = str(path)
    text = _read_text(path)
    truncated = False
    try:
        doc = parse_json(text)
    except json.JSONDecodeError as e:
        context, entries = _salvage(text) if _cut_off(text, e) else ({}, [])
        if not context or not entries:
            raise ResultsError(f"{path}: not valid JSON ({e.msg} at line {e.lineno})") from None
        doc, truncated = {"context": context, "benchmarks": entries}, True
    if not isinstance(doc, dict) or "benchmarks" not in doc or "context" not in doc:
        raise ResultsError(f"{path}: not Google Benchmark JSON (no 'context' and 'benchmarks')")
    context = doc["context"]
    if not isinstance(context, dict) or "gpu_name" not in context:
        raise ResultsError(f"{path}: not a cuda_bench results file (its context names no gpu_name)")
    if not isinstance(context["gpu_name"], str) or not context["gpu_name"].strip():
        raise ResultsError(f"{path}: context gpu_name is {context['gpu_name']!r}, not a GPU name")
    if not isinstance(doc["benchmarks"], list):
        raise ResultsError(f"{path}: 'benchmarks' is {type(doc['benchmarks']).__name__}, not a list")
    _check_context(path, context)
    context_cccl = str(context["cccl_version"]) if context.get("cccl_version") else None

    results = Results(path=path, context=context, truncated=truncated)
    for index, b in enumerate(doc["benchmarks"]):
        if not isinstance(b, dict):
            raise ResultsError(f"{path}: benchmarks[{index}] is {type(b).__name__}, not an object")
        name = str(b.get("run_name") or b.get("name") or "")
        parsed = parse_name(name)
        if parsed is None:
            continue
        if b.get("error_occurred"):
            results.errors.append((name, str(b.get("error_message", ""))))
            continue
        aggregate = b.get("aggregate_name") if b.get("run_type") == "aggregate" else None
        if aggregate in ("stddev", "cv"):
            continue  # not a time
        try:
            if b.get("run_type") == "aggregate" and not (isinstance(aggregate, str) and aggregate):
                raise ValueError(f"aggregate_name is {aggregate!r}: an aggregate names its statistic")
            if "time_unit" not in b:
                raise ValueError("time_unit is missing (the unit of real_time)")
            if not isinstance(b["time_unit"], str) or b["time_unit"] not in _UNIT_SECONDS:
                raise ValueError(f"time_unit is {b['time_unit']!r}, not one of {', '.join(_UNIT_SECONDS)}")
            if "real_time" not in b:
                raise ValueError("real_time is missing")
            real_time = _number(b["real_time"], "real_time", positive=True)
            seconds = real_time * _UNIT_SECONDS[b["time_unit"]]
            if seconds < _SHORTEST:
                raise ValueError(f"real_time is {b['real_time']!r} {b['time_unit']}: shorter than any call")
            rates = {k: _number(b.get(k, 0.0), k, positive=False) for k in _RATES}
            sampled = sampling_fields(b, real_time, _UNIT_SECONDS[b["time_unit"]]) if aggregate is None else {}
            declared = {"cccl_version": context_cccl, **declared_fields(b)}
            results.records.append(Record(
                seconds=seconds,
                **rates,
                aggregate=aggregate,
                repetition=_index(b.get("repetition_index", 0)),
                source=f"{path}@{declared['cccl_version'] or ''}",
                **parsed, **declared, **sampled,
            ))
        except (TypeError, ValueError) as e:
            raise ResultsError(f"{path}: benchmark '{name}': {e}") from None
        if b.get("throttled") is True:
            results.throttled.add(canonical_name(**parsed))
    return results


def truncation_warning(prog: str, run: Results) -> str:
    """The line every tool that uses a truncated file prints for it."""
    return (f"{prog}: warning: {run.path} is truncated (interrupted run?); "
            f"using its {len(run.records)} complete entries")


def interleaved_together(a: Record, b: Record) -> bool:
    """Whether the two were sampled round-robin in one interleave group of one run
    (a group's name repeats in every run: the source tells the runs apart, and the
    builds of a bench-merge file)."""
    return a.interleave_group is not None and a.interleave_group == b.interleave_group and a.source == b.source


def representative(records: Iterable[Record]) -> List[Record]:
    """One record per benchmark: the median aggregate when repetitions were run,
    otherwise the single plain run, or the median of several plain runs (upper
    median for an even count) when no aggregate was written."""
    by_key: Dict[tuple, List[Record]] = {}
    for r in records:
        by_key.setdefault((r.series, r.n, r.block, r.batch), []).append(r)
    out = []
    for group in by_key.values():
        medians = [r for r in group if r.aggregate == "median"]
        if medians:
            # an aggregate has no sampling fields of its own; the median of repetitions that
            # were all sampled in one interleave group was sampled in it too
            groups = {r.interleave_group for r in group if r.aggregate is None}
            shared = groups.pop() if len(groups) == 1 else None
            out.append(replace(medians[0], interleave_group=shared) if shared and
                       medians[0].interleave_group is None else medians[0])
            continue
        plain = [r for r in group if r.aggregate is None]
        if not plain:
            continue
        if len(plain) == 1:
            out.append(plain[0])
        else:
            plain.sort(key=lambda r: r.seconds)
            out.append(plain[len(plain) // 2])
    return out


def best_per_n(records: Iterable[Record]) -> Dict[Tuple[str, str, str], List[Record]]:
    """For each (family, type, variant): at each N, the block/batch with the
    highest bandwidth. Lists sorted by N."""
    best: Dict[Tuple[Tuple[str, str, str], int], Record] = {}
    for r in representative(records):
        key = (r.series, r.n)
        if key not in best or r.bytes_per_second > best[key].bytes_per_second:
            best[key] = r
    series: Dict[Tuple[str, str, str], List[Record]] = {}
    for (s, _), r in best.items():
        series.setdefault(s, []).append(r)
    for rs in series.values():
        rs.sort(key=lambda r: r.n)
    return series


def benchmark_fields(path: str | Path, keys: Iterable[str]) -> Dict[str, Dict[str, object]]:
    """Per-benchmark fields beyond the counters Record holds (the annotations of
    the JSON contract, e.g. "role", or the declared "bytes_read"/"bytes_written"),
    keyed by canonical name: {name: {key: value}} for the keys asked for, from
    the first entry of each benchmark that carries any. For a file that
    load_results accepted (a truncated one included)."""
    wanted = list(keys)
    text = read_text(path)
    try:
        entries = parse_json(text).get("benchmarks", [])
    except json.JSONDecodeError:
        entries = _salvage(text)[1]
    out: Dict[str, Dict[str, object]] = {}
    for b in entries:
        parsed = parse_name(str(b.get("run_name") or b.get("name") or "")) if isinstance(b, dict) else None
        fields = {k: b[k] for k in wanted if parsed and k in b}
        if fields:
            out.setdefault(canonical_name(**parsed), fields)
    return out
