"""bench-sanitizers: the verdict of compute-sanitizer logs (tools/run-sanitizers).

  python3 -m benchtools.sanitizers --known tools/sanitizer-known.txt build/sanitizers/*.log

Each log is one compute-sanitizer run of the GPU test binary, named
<tool>.<shard>.log (with <tool>.<shard>.status beside it: "exit-code seconds").
Prints one row per tool (findings, known findings, failed tests, slowest shard),
the known findings' reasons, and every unexplained finding's first lines.
A finding is "known" when it matches an entry of the known file (third-party
code, each with its reason); known findings do not fail the run.
Exit code: 0 clean (known findings allowed), 1 a finding, a failed test or an
unfinished log, 2 bad input.
"""
from __future__ import annotations

import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

from benchtools.cli import entry, Parser
from benchtools.results import ResultsError

TOOLS = ("memcheck", "racecheck", "synccheck", "initcheck")
# memcheck, synccheck, initcheck: "ERROR SUMMARY: 3 errors"; racecheck:
# "RACECHECK SUMMARY: 2 hazards displayed (1 errors, 1 warnings)" (a warning is a finding too).
_SUMMARY = re.compile(r"^========= (?:ERROR SUMMARY: (\d+) error|RACECHECK SUMMARY: (\d+) hazard)")
_FAILED = re.compile(r"^\[  FAILED  \] ([^ ,0-9][^ ,]*)")


@dataclass(frozen=True)
class Known:
    tool: str
    patterns: tuple[re.Pattern, ...]
    reason: str

    def matches(self, tool: str, block: list[str]) -> bool:
        return tool == self.tool and all(any(p.search(line) for line in block) for p in self.patterns)


def read_known(path: Path) -> list[Known]:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise ResultsError(f"{path}: cannot read the known findings ({e})") from None
    known = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        fields = line.split("\t")
        if len(fields) < 3 or fields[0] not in TOOLS or not fields[-1].strip():
            raise ResultsError(f"{path}:{number}: expected tool<TAB>regex[<TAB>regex...]<TAB>reason with a tool of "
                             f"{', '.join(TOOLS)}")
        if any(not p.strip() for p in fields[1:-1]):
            # an empty regex matches every line, so it would explain every finding of the tool
            raise ResultsError(f"{path}:{number}: empty regex (two tabs in a row?): it would match every finding")
        try:
            patterns = tuple(re.compile(p) for p in fields[1:-1])
        except re.error as e:
            raise ResultsError(f"{path}:{number}: bad regex ({e})") from None
        known.append(Known(fields[0], patterns, fields[-1].strip()))
    return known


def error_blocks(lines: Sequence[str]) -> list[list[str]]:
    """A block: "========= <error>" and the indented "=========     ..." lines after it."""
    blocks: list[list[str]] = []
    current: list[str] | None = None
    for line in lines:
        if line.startswith("========= ") and not line.startswith("=========  "):
            head = line[len("========= "):]
            if head.startswith(("COMPUTE-SANITIZER", "ERROR SUMMARY", "LEAK SUMMARY", "RACECHECK SUMMARY")) \
                    or not head.strip():
                current = None
                continue
            current = [line]
            blocks.append(current)
        elif line.startswith("=========  ") and current is not None:
            current.append(line)
        else:
            current = None
    return blocks


def describe(block: list[str]) -> str:
    """The error line, where it was, and the first frame in this project's code (namespace bench)."""
    lines = [line.strip("= ").strip() for line in block]
    ours = next((line for line in lines[1:] if "bench::" in line), None)
    return " | ".join(lines[:3] + ([ours] if ours and ours not in lines[:3] else []))


@dataclass
class ToolRow:
    tool: str
    findings: int = 0
    known: int = 0
    failed_tests: set[str] = field(default_factory=set)
    slowest_s: int = 0
    problems: list[str] = field(default_factory=list)
    reasons: set[str] = field(default_factory=set)


def summarize(logs: Sequence[Path], known: Sequence[Known]) -> dict[str, ToolRow]:
    rows: dict[str, ToolRow] = {}
    for log in logs:
        tool = log.name.split(".")[0]
        if tool not in TOOLS:
            raise ResultsError(f"{log}: a log's name starts with its tool ({', '.join(TOOLS)}), e.g. memcheck.0.log")
        try:
            lines = log.read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError as e:
            raise ResultsError(f"{log}: cannot read ({e})") from None
        row = rows.setdefault(tool, ToolRow(tool))
        status = log.with_suffix(".status")
        rc, secs = 0, 0
        if status.exists():
            try:
                parts = status.read_text(encoding="utf-8", errors="replace").split()
            except OSError as e:
                raise ResultsError(f"{status}: cannot read ({e.strerror or e})") from None
            if len(parts) == 2 and all(p.lstrip("-").isdigit() for p in parts):
                rc, secs = int(parts[0]), int(parts[1])
        row.slowest_s = max(row.slowest_s, secs)
        blocks = error_blocks(lines)
        explained = 0
        for block in blocks:
            hit = next((k for k in known if k.matches(tool, block)), None)
            if hit:
                explained += 1
                row.reasons.add(hit.reason)
            else:
                row.problems.append(f"{log.name}: " + describe(block))
        row.known += explained
        row.findings += len(blocks) - explained
        failed = {m.group(1) for line in lines if (m := _FAILED.match(line))}
        row.failed_tests |= failed
        counts = [int(m.group(1) or m.group(2)) for line in lines if (m := _SUMMARY.match(line))]
        if not counts:
            row.problems.append(f"{log.name}: no summary line: the run did not finish (exit {rc})")
        elif counts[-1] > len(blocks):
            row.findings += counts[-1] - len(blocks)
            row.problems.append(f"{log.name}: {counts[-1]} errors counted, {len(blocks)} reported")
        elif rc != 0 and not blocks and not failed:
            row.problems.append(f"{log.name}: exit {rc} without a finding or a failed test")
    return rows


@entry
def main(argv: Sequence[str] | None = None) -> int:
    parser = Parser(prog="bench-sanitizers", description=__doc__.split("\n\n")[0])
    parser.add_argument("logs", nargs="+", help="compute-sanitizer logs named <tool>.<shard>.log")
    parser.add_argument("--known", default=None, help="known findings file (tools/sanitizer-known.txt)")
    try:
        args = parser.parse_args(argv)
        known = read_known(Path(args.known)) if args.known else []
        rows = summarize([Path(p) for p in args.logs], known)
    except ResultsError as e:
        print(f"bench-sanitizers: {e}", file=sys.stderr)
        return 2
    print(f"{'tool':<10} {'findings':>9} {'known':>7} {'failed tests':>13} {'slowest shard':>14}")
    bad = False
    for tool in TOOLS:
        row = rows.get(tool)
        if row is None:
            continue
        print(f"{tool:<10} {row.findings:>9} {row.known:>7} {len(row.failed_tests):>13} "
              f"{row.slowest_s // 60:>11}m{row.slowest_s % 60:02d}s")
        bad |= bool(row.findings or row.failed_tests or row.problems)
    for tool in TOOLS:
        row = rows.get(tool)
        if row is None:
            continue
        for reason in sorted(row.reasons):
            print(f"known {tool} finding (not failing): {reason}")
        for test in sorted(row.failed_tests):
            print(f"{tool}: failed test {test}", file=sys.stderr)
        for problem in row.problems[:20]:
            print(f"{tool}: {problem}", file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
