"""bench-audit: DRAM bytes measured by ncu against each benchmark's declared bytes model.

  python3 -m benchtools.audit PROFILE.json NCU_RAW.csv --out results/audit/DIR

PROFILE.json is the results file of `cuda_bench --profile-one` run under ncu
(tools/run-audit does both); NCU_RAW.csv is `ncu --import R.ncu-rep --csv --page
raw --print-units base`. Per benchmark: the DRAM bytes its call read (all its
kernels summed) and wrote (its kernels plus the write-backs of the lines it left
dirty, collected by the L2 flush that closes its profiled window), against its
model: the compulsory bytes ("bytes_read"/"bytes_written": inputs read once,
outputs written once; GB/s is computed from them) plus the traffic its variant
states beyond them ("extra_bytes_read"/"extra_bytes_written": partials, a second
read; absent is none). A direction is within the model when
    compulsory - tol <= measured <= compulsory + stated + tol,
    tol = max(floor, tolerance x the call's compulsory read + written bytes)
(defaults 1 MiB and 1 %; docs/audit.md says where they come from). Outside: a
mismatch. A call ncu cannot see (CPU work, a copy-engine copy) is not measured.
Writes audit.md (per-family tables) and audit.json.
Exit 0: no mismatch; 1: mismatches listed; 2: bad input (one line on stderr).
"""
from __future__ import annotations

import json
import math
import sys
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Dict, List, Optional, Sequence

from benchtools.ncu import PROFILER_START_RANGE, Call, group_calls, parse_ncu_csv, split_profiler_start
from benchtools.cli import Parser, checked, entry, check_writable, write_text
from benchtools.results import Results, ResultsError, benchmark_fields, load_results, read_text

DEFAULT_TOLERANCE = 0.01       # of the call's compulsory traffic (read + written)
DEFAULT_FLOOR = float(1 << 20)  # bytes: twice the largest background a no-write call showed (docs/audit.md)
FIELDS = ("role", "bytes_read", "bytes_written", "extra_bytes_read", "extra_bytes_written", "extra_traffic")

NOT_MEASURED_CPU = "CPU work: host memory traffic, which the GPU's DRAM counters do not see"
NOT_MEASURED_NO_KERNEL = ("no kernel in the profiled call: a copy-engine copy (cudaMemcpyAsync) or host work, "
                          "which ncu's per-kernel counters do not see")


@dataclass
class Direction:
    declared: Optional[float]   # compulsory bytes; None when the file has no split
    measured: float
    extra: float = 0.0          # stated by the variant beyond the compulsory bytes

    @property
    def ratio(self) -> Optional[float]:
        """Measured / compulsory."""
        return self.measured / self.declared if self.declared else None

    @property
    def beyond(self) -> float:
        """Measured bytes past the compulsory ones (negative: fewer)."""
        return self.measured - (self.declared or 0.0)

    def off(self, tol: float) -> bool:
        if self.declared is None:
            return False
        return not (self.declared - tol <= self.measured <= self.declared + self.extra + tol)


@dataclass
class Audited:
    name: str
    family: str
    role: Optional[str]
    kernels: int
    flushes: int
    read: Direction
    written: Direction
    total_declared: float       # compulsory read + written
    tolerance_bytes: float
    floor_bytes: float
    flush_bytes_read: float
    status: str                 # "ok", "mismatch", "not measured", "total only"
    extra_traffic: str = ""     # what the stated extra bytes are
    why_not_measured: str = ""
    reasons: List[str] = field(default_factory=list)   # why it is a mismatch
    notes: List[str] = field(default_factory=list)     # what limits the measurement

    @property
    def measured(self) -> bool:
        return self.status != "not measured"

    @property
    def moved_ratio(self) -> Optional[float]:
        """All bytes moved / the compulsory ones."""
        m = self.read.measured + self.written.measured
        return m / self.total_declared if self.measured and self.total_declared else None

    @property
    def model_ratio(self) -> Optional[float]:
        """All bytes moved / (compulsory + stated)."""
        model = self.total_declared + self.read.extra + self.written.extra
        return (self.read.measured + self.written.measured) / model if self.measured and model else None

    @property
    def moves_more(self) -> bool:
        """Says it moves more than the compulsory bytes, or moved more than the
        floor (the measurement's background) past them."""
        return self.measured and self.status != "total only" and (
            self.read.extra + self.written.extra > 0 or self.read.beyond + self.written.beyond > self.floor_bytes)


def _describe(what: str, d: Direction, tol: float) -> str:
    model = fmt_bytes(d.declared or 0.0) + " compulsory" + (f" + {fmt_bytes(d.extra)} stated" if d.extra else "")
    return (f"{what} {fmt_bytes(d.measured)} against {model} ({_signed(d.beyond)} past the compulsory; "
            f"tolerance {fmt_bytes(tol)})")


def _signed(v: float) -> str:
    return ("+" if v >= 0 else "-") + fmt_bytes(abs(v))


def audit_call(name: str, call: Optional[Call], fields: Dict[str, object], total_declared: float,
               tolerance: float = DEFAULT_TOLERANCE, floor: float = DEFAULT_FLOOR, family: str = "") -> Audited:
    """One benchmark's verdict. `fields`: its JSON annotations (FIELDS); the
    stated extra bytes count as none when absent."""
    split = "bytes_read" in fields and "bytes_written" in fields
    extra = (float(fields.get("extra_bytes_read", 0) or 0), float(fields.get("extra_bytes_written", 0) or 0))
    read = Direction(float(fields["bytes_read"]) if split else None, call.bytes_read if call else 0.0, extra[0])
    written = Direction(float(fields["bytes_written"]) if split else None, call.bytes_written if call else 0.0,
                        extra[1])
    total = read.declared + written.declared if split else total_declared
    role = fields.get("role")
    a = Audited(name, family or name.split("/")[0], str(role) if role is not None else None,
                len(call.kernels) if call else 0, len(call.flushes) if call else 0, read, written, total,
                max(floor, tolerance * total), floor, call.flush_bytes_read if call else 0.0, "ok",
                str(fields.get("extra_traffic", "") or ""))
    if a.role == "cpu" or call is None or not call.kernels:
        a.status = "not measured"
        a.why_not_measured = NOT_MEASURED_CPU if a.role == "cpu" else NOT_MEASURED_NO_KERNEL
        return a
    if not call.flushes:
        a.notes.append("no closing flush profiled: write-backs after the call are missing")
    passes = max((k.passes or 1 for k in call.kernels + call.flushes), default=1)
    if passes > 1:
        a.notes.append(f"ncu replayed a kernel {passes} times: between passes it restores memory, "
                       "so the L2 state the next kernel sees is not the call's")
    tol = a.tolerance_bytes
    if split:
        a.reasons += [_describe(what, d, tol) for what, d in (("reads", read), ("writes", written)) if d.off(tol)]
    else:
        a.status = "total only"
        both = Direction(total_declared, read.measured + written.measured, sum(extra))
        if both.off(tol):
            a.reasons.append(_describe("reads + writes", both, tol))
    if a.reasons:
        a.status = "mismatch"
    return a


def audit(results: Results, calls: Dict[str, Call], tolerance: float = DEFAULT_TOLERANCE,
          floor: float = DEFAULT_FLOOR) -> List[Audited]:
    fields = benchmark_fields(results.path, FIELDS)
    out, seen = [], set()
    for r in results.records:
        if r.name in seen:
            continue
        seen.add(r.name)
        out.append(audit_call(r.name, calls.get(r.name), fields.get(r.name, {}),
                              r.bytes_per_second * r.seconds, tolerance, floor, r.family))
    return out


def profiled_order(results: Results) -> List[str]:
    """The successful benchmarks in run order: the order of their profiled calls."""
    names: List[str] = []
    for r in results.records:
        if r.name not in names:
            names.append(r.name)
    return names


def fmt_bytes(v: Optional[float]) -> str:
    if v is None:
        return "-"
    for unit, scale in (("GiB", 1024.0 ** 3), ("MiB", 1024.0 ** 2), ("KiB", 1024.0)):
        if abs(v) >= scale:
            return f"{v / scale:.3f}".rstrip("0").rstrip(".") + f" {unit}"
    return f"{v:.0f} B"


def _ratio(v: Optional[float]) -> str:
    if v is None:
        return "-"
    return f"{v:.3f}" if v < 100 else f"{v:,.0f}"


def _direction_ratio(a: Audited, d: Direction) -> str:
    """Measured / compulsory where that says something: not for a direction whose
    compulsory bytes are within the tolerance (a 4-byte result)."""
    return _ratio(d.ratio) if a.measured and d.declared and d.declared > a.tolerance_bytes else "-"


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "es" if noun.endswith("h") else "s")


def summary(rows: List[Audited]) -> Dict[str, int]:
    count = {s: sum(r.status == s for r in rows) for s in ("ok", "mismatch", "not measured", "total only")}
    return {"benchmarks": len(rows), **{k.replace(" ", "_"): v for k, v in count.items()},
            "move_more_than_compulsory": sum(r.moves_more for r in rows),
            "move_more_unstated": sum(r.moves_more and not (r.read.extra or r.written.extra) for r in rows)}


def start_window_text(start: Optional[Call]) -> List[str]:
    """The profiler start-up window's line (its flush's write-backs, charged to no benchmark)."""
    if start is None:
        return []
    return [f"Profiler start-up window (`{PROFILER_START_RANGE}`: one flush before the first benchmark's "
            f"window, charged to none): wrote {fmt_bytes(start.bytes_written)}, the write-backs of lines "
            "left dirty before or as the profiler started.", ""]


def to_markdown(rows: List[Audited], results: Results, tolerance: float, floor: float,
                start: Optional[Call] = None) -> str:
    ctx = results.context
    sizes = sorted({r.n for r in results.records})
    s = summary(rows)
    bad = [r for r in rows if r.status == "mismatch"]
    more = sorted((r for r in rows if r.moves_more), key=lambda r: -(r.moved_ratio or 0))
    unmeasured = [r for r in rows if r.status == "not measured"]
    lines = [f"# DRAM-byte audit: {results.gpu}", "",
             f"Commit `{ctx.get('git_commit', '?')}`, CCCL {ctx.get('cccl_version', '?')}, "
             f"N = {', '.join(str(n) for n in sizes)}; {len(rows)} benchmarks, one profiled call each "
             f"(`cuda_bench --profile-one` under ncu, `dram__bytes_read.sum`, `dram__bytes_write.sum`).", "",
             f"**{s['ok']} within their model, {_count(s['mismatch'], 'mismatch')}, {s['not_measured']} not measured"
             + (f", {s['total_only']} checked on the total only" if s["total_only"] else "")
             + f".** {s['move_more_than_compulsory']} move more than the compulsory bytes"
             + f" ({s['move_more_unstated']} without stating why).", "",
             "*Compulsory*: the problem's inputs read once and outputs written once (`Declaration::work`); "
             "GB/s and `bw_util` are computed from them, the same for every variant of a family. *Stated*: "
             "what a variant says it moves beyond them (partials written and read back, a second read of the "
             "input); the most it can move, as L2 may keep part of it on chip. A direction is within the model "
             "when compulsory - tol <= measured <= compulsory + stated + tol, with "
             f"tol = max({fmt_bytes(floor)}, {tolerance:.0%} of the call's compulsory read + written bytes). "
             "Measured writes include the write-backs of the call's dirty L2 lines (the closing flush's writes).",
             ""] + start_window_text(start) + [f"## Mismatches ({len(bad)})", ""]
    lines += [f"- `{r.name}`: " + "; ".join(r.reasons) for r in bad] or ["None."]
    lines += ["", f"## More than the compulsory bytes ({len(more)})", "",
              f"Calls that moved more than {fmt_bytes(floor)} (the floor) past their compulsory bytes, or whose "
              "variant states traffic beyond them; largest first.", "",
              "| benchmark | moved / compulsory | moved / model | read past | written past | stated read "
              "| stated written | stated traffic |",
              "|---|---:|---:|---:|---:|---:|---:|---|"]
    lines += [f"| `{r.name}` | {_ratio(r.moved_ratio)} | {_ratio(r.model_ratio)} | {_signed(r.read.beyond)} | "
              f"{_signed(r.written.beyond)} | {fmt_bytes(r.read.extra)} | {fmt_bytes(r.written.extra)} | "
              f"{r.extra_traffic or 'none stated'} |" for r in more]
    lines += ["", f"## Not measured ({len(unmeasured)})", ""]
    lines += [f"- `{r.name}` ({r.role or '-'}): {r.why_not_measured}" for r in unmeasured] or ["None."]
    lines += ["", "## Per family", "",
              "Ratios are measured / compulsory; a direction's ratio is left out (-) where its compulsory bytes "
              "are within the tolerance (a 4-byte result). *model*: all bytes moved / (compulsory + stated)."]
    for family in sorted({r.family for r in rows}):
        lines += ["", f"### {family}", "",
                  "| benchmark | kernels | read: compulsory | measured | ratio | written: compulsory | measured "
                  "| ratio | stated (read + written) | moved / compulsory | moved / model | status |",
                  "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
        for r in rows:
            if r.family != family:
                continue
            shown = r.name[len(family) + 1:] if r.name.startswith(family + "/") else r.name
            if len(sizes) == 1:
                shown = shown.replace(f"/N:{sizes[0]}", "")
            stated = r.read.extra + r.written.extra
            lines.append(
                f"| `{shown}` | {r.kernels} | {fmt_bytes(r.read.declared)} | "
                f"{fmt_bytes(r.read.measured) if r.measured else '-'} | {_direction_ratio(r, r.read)} | "
                f"{fmt_bytes(r.written.declared)} | {fmt_bytes(r.written.measured) if r.measured else '-'} | "
                f"{_direction_ratio(r, r.written)} | {fmt_bytes(stated) if stated else '-'} | "
                f"{_ratio(r.moved_ratio)} | {_ratio(r.model_ratio)} | {r.status} |")
    notes = [r for r in rows if r.notes]
    if notes:
        lines += ["", "## Notes", ""] + [f"- `{r.name}`: " + "; ".join(r.notes) for r in notes]
    return "\n".join(lines) + "\n"


def to_json(rows: List[Audited], results: Results, tolerance: float, floor: float,
            start: Optional[Call] = None) -> dict:
    keys = ("gpu_name", "git_commit", "cccl_version", "cuda_driver_version", "cuda_runtime_version", "date")
    return {
        "context": {k: results.context[k] for k in keys if k in results.context},
        "source": results.path,
        "tolerance": {"relative": tolerance, "of": "compulsory bytes read + written", "floor_bytes": floor},
        "summary": summary(rows),
        "profiler_start": None if start is None else {"range": PROFILER_START_RANGE, "kernels": len(start.flushes)
                                                      + len(start.kernels), "bytes_written": start.bytes_written},
        "mismatches": [r.name for r in rows if r.status == "mismatch"],
        "not_measured": {r.name: r.why_not_measured for r in rows if r.status == "not measured"},
        "benchmarks": [{**{k: v for k, v in asdict(r).items() if k not in ("read", "written")},
                        "declared_read": r.read.declared, "measured_read": r.read.measured,
                        "extra_read": r.read.extra, "read_ratio": r.read.ratio,
                        "declared_written": r.written.declared, "measured_written": r.written.measured,
                        "extra_written": r.written.extra, "write_ratio": r.written.ratio,
                        "moved_ratio": r.moved_ratio, "model_ratio": r.model_ratio}
                       for r in rows],
    }


@entry
def main(argv: Sequence[str] | None = None) -> int:
    parser = Parser(prog="bench-audit", description=__doc__.split("\n\n")[0])
    parser.add_argument("results", help="results JSON of `cuda_bench --profile-one` run under ncu")
    parser.add_argument("ncu_csv", help="`ncu --import R.ncu-rep --csv --page raw --print-units base` output")
    parser.add_argument("--out", default=None, help="folder for audit.md and audit.json (default: print markdown)")
    parser.add_argument("--tolerance", type=checked(lambda v: 0 <= v < 1, "a fraction in [0, 1) such as 0.01"),
                        default=DEFAULT_TOLERANCE,
                        help="tolerance as a fraction of the call's compulsory read + written bytes "
                             f"(default {DEFAULT_TOLERANCE})")
    parser.add_argument("--floor", "--slack", dest="floor", default=DEFAULT_FLOOR,
                        type=checked(lambda v: 0 <= v < math.inf, "a number of bytes >= 0 such as 1048576"),
                        help=f"the least tolerance, in bytes (default {DEFAULT_FLOOR:.0f})")
    try:
        args = parser.parse_args(argv)
        check_writable("--out", args.out, directory=True)
        results = load_results(args.results)
        if not results.records:
            raise ResultsError(f"{args.results}: no successful benchmark to audit")
        text = read_text(args.ncu_csv, "an ncu CSV")
        start_rows, kernel_rows = split_profiler_start(parse_ncu_csv(text, args.ncu_csv),
                                                       1 if results.context.get("profile_start_range") else 0)
        calls = group_calls(kernel_rows, profiled_order(results), args.ncu_csv)
        start = Call(None, kernels=[r for r in start_rows if not r.is_flush],
                     flushes=[r for r in start_rows if r.is_flush]) if start_rows else None
    except ResultsError as e:
        print(f"bench-audit: {e}", file=sys.stderr)
        return 2
    if results.context.get("profile_one") != "true":   # once the input is known good: bad input gets one line
        print(f"bench-audit: warning: {args.results} is not from a --profile-one run", file=sys.stderr)
    rows = audit(results, calls, args.tolerance, args.floor)
    markdown = to_markdown(rows, results, args.tolerance, args.floor, start)
    if args.out:
        out = Path(args.out)
        try:
            write_text("--out", str(out / "audit.md"), markdown)
            write_text("--out", str(out / "audit.json"),
                       json.dumps(to_json(rows, results, args.tolerance, args.floor, start), indent=1) + "\n")
        except ResultsError as e:
            print(f"bench-audit: {e}", file=sys.stderr)
            return 2
        print(out / "audit.md")
        print(out / "audit.json")
    else:
        print(markdown, end="")
    s = summary(rows)
    print(f"bench-audit: {s['benchmarks']} benchmarks: {s['ok']} ok, {_count(s['mismatch'], 'mismatch')}, "
          f"{s['not_measured']} not measured, {s['total_only']} total only; "
          f"{s['move_more_than_compulsory']} move more than the compulsory bytes", file=sys.stderr)
    return 1 if s["mismatch"] else 0


if __name__ == "__main__":
    sys.exit(main())
