"""bench-audit: DRAM bytes measured by ncu against each benchmark's declared bytes model.

  python3 -m benchtools.audit PROFILE.json NCU_RAW.csv --out results/audit/DIR

PROFILE.json is the results file of `cuda_bench --profile-one` run under ncu
(tools/run-audit does both); NCU_RAW.csv is `ncu --import R.ncu-rep --csv --page
raw --print-units base`. Per benchmark: the DRAM bytes its call read (all its
kernels summed) and wrote (its kernels plus the write-backs of the lines it left
dirty, collected by the L2 flush that closes its profiled window), beside the
declared bytes ("bytes_read"/"bytes_written" of the JSON; without them, the total
bytes_per_second x time). Writes audit.md and audit.json; a direction whose
measured bytes differ from the declared ones by more than the tolerance (default
5%) and more than the slack (default 64 KiB, for the code, constants and
sector-sized writes of tiny outputs) is a mismatch. A call with no kernel (host
work, copy-engine copies) is listed as not audited.
Exit 0: no mismatch; 1: mismatches listed; 2: bad input (one line on stderr).
"""
from __future__ import annotations

import json
import sys
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Dict, List, Optional, Sequence

from benchtools.ncu import Call, group_calls, parse_ncu_csv
from benchtools.cli import Parser
from benchtools.results import Results, ResultsError, benchmark_fields, load_results

DEFAULT_TOLERANCE = 0.05
DEFAULT_SLACK = 64 * 1024


@dataclass
class Direction:
    declared: Optional[float]
    measured: float

    @property
    def ratio(self) -> Optional[float]:
        return self.measured / self.declared if self.declared else None

    def off(self, tolerance: float, slack: float) -> bool:
        return self.declared is not None and abs(self.measured - self.declared) > max(tolerance * self.declared, slack)


@dataclass
class Audited:
    name: str
    role: Optional[str]
    kernels: int
    flushes: int
    read: Direction
    written: Direction
    total_declared: float
    flush_bytes_read: float
    status: str                 # "ok", "mismatch", "no kernel", "total only"
    reasons: List[str] = field(default_factory=list)   # why it is a mismatch
    notes: List[str] = field(default_factory=list)     # what limits the measurement


def _describe(what: str, d: Direction) -> str:
    diff = d.measured - (d.declared or 0.0)
    return (f"{what} {fmt_bytes(d.measured)} against {fmt_bytes(d.declared or 0.0)} declared "
            f"({'+' if diff >= 0 else '-'}{fmt_bytes(abs(diff))})")


def audit_call(name: str, call: Optional[Call], fields: Dict[str, object], total_declared: float,
               tolerance: float, slack: float) -> Audited:
    """One benchmark's verdict. `fields`: its JSON annotations (role, bytes_read, bytes_written)."""
    split = "bytes_read" in fields and "bytes_written" in fields
    read = Direction(float(fields["bytes_read"]) if split else None, call.bytes_read if call else 0.0)
    written = Direction(float(fields["bytes_written"]) if split else None, call.bytes_written if call else 0.0)
    role = fields.get("role")
    a = Audited(name, str(role) if role is not None else None, len(call.kernels) if call else 0,
                len(call.flushes) if call else 0, read, written,
                read.declared + written.declared if split else total_declared,
                call.flush_bytes_read if call else 0.0, "ok")
    if call is None or not call.kernels:
        a.status = "no kernel"
        a.notes.append("no kernel in the profiled call (host work or a copy-engine copy): not audited")
        return a
    if not call.flushes:
        a.notes.append("no closing flush profiled: write-backs after the call are missing")
    passes = max((k.passes or 1 for k in call.kernels + call.flushes), default=1)
    if passes > 1:
        a.notes.append(f"ncu replayed a kernel {passes} times: between passes it restores memory, "
                       "so the L2 state the next kernel sees is not the call's")
    if split:
        a.reasons += [_describe(what, d) for what, d in (("reads", read), ("writes", written)) if d.off(tolerance, slack)]
    else:
        a.status = "total only"
        both = Direction(total_declared, read.measured + written.measured)
        if both.off(tolerance, slack):
            a.reasons.append(_describe("reads + writes", both))
    if a.reasons:
        a.status = "mismatch"
    return a


def audit(results: Results, calls: Dict[str, Call], tolerance: float = DEFAULT_TOLERANCE,
          slack: float = DEFAULT_SLACK) -> List[Audited]:
    fields = benchmark_fields(results.path, ("role", "bytes_read", "bytes_written"))
    out, seen = [], set()
    for r in results.records:
        if r.name in seen:
            continue
        seen.add(r.name)
        out.append(audit_call(r.name, calls.get(r.name), fields.get(r.name, {}),
                              r.bytes_per_second * r.seconds, tolerance, slack))
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


def to_markdown(rows: List[Audited], results: Results, tolerance: float, slack: float) -> str:
    ctx = results.context
    sizes = sorted({r.n for r in results.records})
    bad = [r for r in rows if r.status == "mismatch"]
    lines = [f"# DRAM-byte audit: {results.gpu}", "",
             f"Commit `{ctx.get('git_commit', '?')}`, CCCL {ctx.get('cccl_version', '?')}, "
             f"N = {', '.join(str(n) for n in sizes)}; {len(rows)} benchmarks, one profiled call each "
             f"(`cuda_bench --profile-one` under ncu, `dram__bytes_read.sum`, `dram__bytes_write.sum`).",
             "",
             f"Tolerance: a direction is a mismatch when |measured - declared| > max({tolerance:.0%} of declared, "
             f"{fmt_bytes(slack)}). Measured writes include the write-backs of the call's dirty L2 lines "
             "(the closing flush's writes); the flush's own reads are left out.", "",
             f"## Mismatches ({len(bad)})", ""]
    lines += [f"- `{r.name}`: " + "; ".join(r.reasons) for r in bad] or ["None."]
    lines += ["", "## Every benchmark", "",
              "| benchmark | role | kernels | declared read | measured read | read ratio | declared written "
              "| measured written | write ratio | status |",
              "|---|---|---:|---:|---:|---:|---:|---:|---:|---|"]
    for r in rows:
        audited = r.status != "no kernel"
        lines.append(f"| `{r.name}` | {r.role or '-'} | {r.kernels} | {fmt_bytes(r.read.declared)} | "
                     f"{fmt_bytes(r.read.measured)} | {_ratio(r.read.ratio if audited else None)} | "
                     f"{fmt_bytes(r.written.declared)} | {fmt_bytes(r.written.measured)} | "
                     f"{_ratio(r.written.ratio if audited else None)} | {r.status} |")
    notes = [r for r in rows if r.notes]
    if notes:
        lines += ["", "## Notes", ""] + [f"- `{r.name}`: " + "; ".join(r.notes) for r in notes]
    return "\n".join(lines) + "\n"


def to_json(rows: List[Audited], results: Results, tolerance: float, slack: float) -> dict:
    keys = ("gpu_name", "git_commit", "cccl_version", "cuda_driver_version", "cuda_runtime_version", "date")
    return {
        "context": {k: results.context[k] for k in keys if k in results.context},
        "source": results.path,
        "tolerance": {"relative": tolerance, "slack_bytes": slack},
        "mismatches": [r.name for r in rows if r.status == "mismatch"],
        "benchmarks": [{**{k: v for k, v in asdict(r).items() if k not in ("read", "written")},
                        "declared_read": r.read.declared, "measured_read": r.read.measured,
                        "read_ratio": r.read.ratio, "declared_written": r.written.declared,
                        "measured_written": r.written.measured, "write_ratio": r.written.ratio}
                       for r in rows],
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = Parser(prog="bench-audit", description=__doc__.split("\n\n")[0])
    parser.add_argument("results", help="results JSON of `cuda_bench --profile-one` run under ncu")
    parser.add_argument("ncu_csv", help="`ncu --import R.ncu-rep --csv --page raw --print-units base` output")
    parser.add_argument("--out", default=None, help="folder for audit.md and audit.json (default: print markdown)")
    parser.add_argument("--tolerance", type=float, default=DEFAULT_TOLERANCE,
                        help=f"relative tolerance per direction (default {DEFAULT_TOLERANCE})")
    parser.add_argument("--slack", type=float, default=DEFAULT_SLACK,
                        help=f"absolute slack in bytes per direction (default {DEFAULT_SLACK})")
    try:
        args = parser.parse_args(argv)
        if not (0 <= args.tolerance < 1) or args.slack < 0:
            raise ResultsError("--tolerance must be in [0, 1) and --slack non-negative")
        results = load_results(args.results)
        if results.context.get("profile_one") != "true":
            print(f"bench-audit: warning: {args.results} is not from a --profile-one run", file=sys.stderr)
        if not results.records:
            raise ResultsError(f"{args.results}: no successful benchmark to audit")
        try:
            text = Path(args.ncu_csv).read_text()
        except OSError as e:
            raise ResultsError(f"{args.ncu_csv}: cannot read: {e.strerror or e}") from None
        calls = group_calls(parse_ncu_csv(text, args.ncu_csv), profiled_order(results), args.ncu_csv)
    except ResultsError as e:
        print(f"bench-audit: {e}", file=sys.stderr)
        return 2
    rows = audit(results, calls, args.tolerance, args.slack)
    markdown = to_markdown(rows, results, args.tolerance, args.slack)
    if args.out:
        out = Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        (out / "audit.md").write_text(markdown)
        (out / "audit.json").write_text(json.dumps(to_json(rows, results, args.tolerance, args.slack), indent=1) + "\n")
        print(out / "audit.md")
        print(out / "audit.json")
    else:
        print(markdown, end="")
    bad = [r.name for r in rows if r.status == "mismatch"]
    if bad:
        print(f"bench-audit: {len(bad)} mismatches past the tolerance", file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
