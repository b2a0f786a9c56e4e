"""bench-merge: results files of one GPU board into one Google Benchmark JSON (no GPU needed).

  python3 -m benchtools.merge cccl30.json cccl35.json --out merged.json

One binary holds one CCCL, so a comparison of CCCL versions is two runs, one per
build, on the same board; this joins them so that one file (and its chart) holds
both. The files must name one board (the same context gpu_uuid) and one way of
timing (cache mode, timing mode, launch: benchtools.noise.TIMING_CONDITIONS); otherwise it refuses
(exit 2, one line).

Every benchmark gets (or keeps) a "cccl_version" field: its file's context's.
A declaration that an earlier file also has (cub_device_reduce in both builds)
is renamed in the later file: its variant becomes "<variant>@cccl<version>"
(cub_device_reduce@cccl3.5.0) in name, run_name and declaration, and so does
every "reference" of that file that names it. The first file's names never
change, so put the toolkit's build first. Where the version does not tell the
copies apart (two runs of one build) it refuses. The merged context is the
first file's, with "cccl_version" listing every version ("3.0.1 + 3.5.0") and
"merged_from" naming each source file, its CCCL, date, commit and renames.
"""
from __future__ import annotations

import json
import re
import sys
from typing import Dict, List, Optional, Sequence, Tuple

from benchtools.cli import entry, Parser, check_outputs, write_text
from benchtools.noise import timing_difference
from benchtools.results import ResultsError, load_results, parse_name, read_text

TAG = "@cccl"
_VERSION = re.compile(r"^[0-9a-z][0-9a-z_.]*$")


def split_variant(variant: str) -> Tuple[str, Optional[str]]:
    """"cub_device_reduce@cccl3.5.0" -> ("cub_device_reduce", "3.5.0"); a plain variant -> (variant, None)."""
    base, sep, tag = variant.partition(TAG)
    return (base, tag) if sep else (variant, None)


def _read(path: str) -> dict:
    run = load_results(path)   # one line naming what is wrong with a file that is not a results file
    if run.truncated:
        raise ResultsError(f"{path}: truncated (interrupted run?): merge complete files only")
    return json.loads(read_text(path))


def _check_one_board(docs: Sequence[Tuple[str, dict]]) -> None:
    first_path, first = docs[0]
    for path, doc in docs:
        if not doc["context"].get("gpu_uuid"):
            raise ResultsError(f"{path}: its context names no gpu_uuid, so nothing shows which board it measured "
                               "(bench-merge joins files of one board)")
    for path, doc in docs[1:]:
        ours, theirs = first["context"], doc["context"]
        if theirs["gpu_uuid"] != ours["gpu_uuid"]:
            raise ResultsError(f"{path} measured board {theirs['gpu_uuid']}, {first_path} board {ours['gpu_uuid']}: "
                               "bench-merge joins files of one board")
        differ = timing_difference(ours, theirs)
        if differ:
            label, mine, yours = differ
            raise ResultsError(f"{path} has {label} {yours!r}, {first_path} {mine!r}: "
                               "merging them would compare times that mean different things")


def _declaration(parsed: dict) -> str:
    return f"{parsed['family']}/{parsed['type']}/{parsed['variant']}"


def _renames(path: str, benchmarks: List[dict], taken: Dict[str, Tuple[str, str]]) -> Dict[str, str]:
    """{declaration: renamed declaration} for this file's declarations that an earlier
    file has (taken: declaration -> (the file that has it, its CCCL version))."""
    out: Dict[str, str] = {}
    for b in benchmarks:
        parsed = parse_name(str(b.get("run_name") or b.get("name") or ""))
        decl = _declaration(parsed) if parsed else None
        if decl is None or decl not in taken or decl in out:
            continue
        version = str(b.get("cccl_version") or "").lower()
        renamed = f"{decl}{TAG}{version}"
        earlier, earlier_version = taken[decl]
        if (version == earlier_version.lower() or split_variant(parsed["variant"])[1] is not None
                or not _VERSION.match(version) or renamed in taken):
            why = f"its CCCL version ({version})" if version else "no CCCL version"
            raise ResultsError(f"{path}: {decl} is also in {earlier}, and {why} does not tell the copies apart "
                               "(merge runs of different builds)")
        out[decl] = renamed
    return out


def _renamed(b: dict, renames: Dict[str, str]) -> dict:
    parsed = parse_name(str(b.get("run_name") or b.get("name") or ""))
    old = _declaration(parsed) if parsed else None
    if old in renames:
        variant = renames[old].split("/")[2]
        for key in ("name", "run_name"):
            parts = str(b.get(key, "")).split("/")
            if parts[:3] == old.split("/"):
                b[key] = "/".join(parts[:2] + [variant] + parts[3:])
        if b.get("declaration") == old:
            b["declaration"] = renames[old]
    if b.get("reference") in renames:   # this build's reference, under its new name
        b["reference"] = renames[b["reference"]]
    return b


def merge(docs: Sequence[Tuple[str, dict]]) -> dict:
    """The merged document of [(path, Google Benchmark JSON)] of one board, in order."""
    _check_one_board(docs)
    taken: Dict[str, Tuple[str, str]] = {}   # declaration -> (the file it first came from, its CCCL version)
    benchmarks: List[dict] = []
    sources: List[dict] = []
    versions: List[str] = []
    family_offset = 0
    for path, doc in docs:
        context = doc["context"]
        entries = []
        for b in doc["benchmarks"]:
            b = dict(b)
            if context.get("cccl_version") and "cccl_version" not in b and not context.get("merged_from"):
                b["cccl_version"] = str(context["cccl_version"])
            entries.append(b)
        renames = _renames(path, entries, taken)
        entries = [_renamed(b, renames) for b in entries]
        indices = [b["family_index"] for b in entries if isinstance(b.get("family_index"), int)]
        for b in entries:   # family indices stay unique across the files, as in one run
            if isinstance(b.get("family_index"), int):
                b["family_index"] += family_offset
        family_offset += max(indices, default=-1) + 1
        for b in entries:
            parsed = parse_name(str(b.get("run_name") or b.get("name") or ""))
            if parsed:
                taken.setdefault(_declaration(parsed), (path, str(b.get("cccl_version") or "")))
        benchmarks += entries
        # a merged file given again keeps its sources; a rename belongs to the source of its CCCL version
        for source in context.get("merged_from") or [{"path": path, "cccl_version": context.get("cccl_version"),
                                                      "date": context.get("date"),
                                                      "git_commit": context.get("git_commit"),
                                                      "executable": context.get("executable")}]:
            mine = {a: b for a, b in renames.items() if split_variant(b.split("/")[2])[1] ==
                    str(source.get("cccl_version") or "").lower()}
            sources.append({**source, "renamed": {**source.get("renamed", {}), **mine}})
        versions += [v for v in dict.fromkeys(str(b["cccl_version"]) for b in entries if b.get("cccl_version"))
                     if v not in versions]
    context = dict(docs[0][1]["context"])
    context["cccl_version"] = " + ".join(versions) if versions else context.get("cccl_version", "")
    context["merged_from"] = sources
    return {"context": context, "benchmarks": benchmarks}


@entry
def main(argv: Sequence[str] | None = None) -> int:
    parser = Parser(prog="bench-merge", description=__doc__.split("\n\n")[0])
    parser.add_argument("results", nargs="+", help="cuda_bench result JSON files of one board (the toolkit's build first)")
    parser.add_argument("--out", required=True, help="the merged JSON file to write (gzip when the name ends in .gz); "
                                                    "not one of the inputs")
    try:
        args = parser.parse_args(argv)
        check_outputs(args.results, [("--out", args.out)])
        merged = merge([(str(p), _read(str(p))) for p in args.results])
        # gzip when the name ends in .gz, as the committed results are (the same input, the same bytes)
        write_text("--out", args.out, json.dumps(merged, indent=2) + "\n", gz=args.out.endswith(".gz"))
    except ResultsError as e:
        print(f"bench-merge: {e}", file=sys.stderr)
        return 2
    for source in merged["context"]["merged_from"]:
        renamed = ", ".join(f"{a} -> {b.split('/')[2]}" for a, b in source["renamed"].items())
        print(f"{source['path']}: CCCL {source.get('cccl_version') or '?'}" + (f"; renamed {renamed}" if renamed else ""))
    print(f"{args.out}: {len(merged['benchmarks'])} benchmarks")
    return 0


if __name__ == "__main__":
    sys.exit(main())
