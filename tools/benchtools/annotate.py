"""bench-annotate: adds the declared fields to result files older than them.

  ./build/cuda_bench --list-variants=json > decls.json
  python3 -m benchtools.annotate results/nvidia-h200_*.json --declarations decls.json

Newer files carry, per benchmark, "declaration", "role", "host_work" and
"reference" (the family's reference declaration); the tools read roles from
them, never from names. For a file written before those fields existed this
adds the missing ones from the driver's declaration list (a JSON array of
{declaration, family, type, variant, role, host_work, reference, ...}) and puts
the benchmarks in the list's order (the declaration order newer runs are written
in, which the charts follow). A file whose benchmarks already carry the fields is
left untouched (not re-sorted). Nothing else changes: every other byte of each benchmark's text, every
number included, stays as it was, which the tool checks before it writes.
A field the file already has is kept. Benchmarks the list does not declare are
left as they are and named in a warning.
Bad input: one line on stderr, exit code 2.
"""
from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Dict, List, Sequence, Tuple

from benchtools.cli import entry, Parser
from benchtools.results import GZIP_MAGIC, ROLES, ResultsError, gzip_bytes, parse_json, parse_name, read_text

FIELDS = ("declaration", "role", "host_work", "reference")


def load_declarations(path: str) -> Dict[str, dict]:
    """{"family/type/variant": its fields to add}, in the list's order."""
    try:
        doc = parse_json(read_text(path, "a declaration list"))
    except json.JSONDecodeError as e:
        raise ResultsError(f"{path}: not valid JSON ({e.msg} at line {e.lineno})") from None
    if not isinstance(doc, list) or not doc:
        raise ResultsError(f"{path}: not a declaration list (expected the JSON array of "
                           "`cuda_bench --list-variants=json`)")
    out: Dict[str, dict] = {}
    for i, d in enumerate(doc):
        decl = d.get("declaration") if isinstance(d, dict) else None
        if not isinstance(decl, str) or decl.count("/") != 2:
            raise ResultsError(f"{path}: entry {i} has no \"declaration\": \"family/type/variant\"")
        if d.get("role") not in ROLES:
            raise ResultsError(f"{path}: {decl}: role must be one of {', '.join(ROLES)}, got {d.get('role')!r}")
        if not isinstance(d.get("host_work"), bool):
            raise ResultsError(f"{path}: {decl}: host_work must be true or false")
        ref = d.get("reference")
        if ref is not None and (not isinstance(ref, str) or ref.count("/") != 2):
            raise ResultsError(f"{path}: {decl}: reference must be \"family/type/variant\" or absent")
        out[decl] = {"declaration": decl, "role": d["role"], "host_work": d["host_work"],
                     **({"reference": ref} if ref else {})}
    return out


def _objects(text: str, path: str) -> Tuple[int, List[Tuple[int, int]], int]:
    """Spans (start, end) of the objects in the "benchmarks" array, and where the
    array's content starts and ends."""
    decoder = json.JSONDecoder()
    key = text.find('"benchmarks"')
    open_ = text.find("[", key)
    if key < 0 or open_ < 0:
        raise ResultsError(f"{path}: not Google Benchmark JSON (no 'benchmarks')")
    spans, pos = [], open_ + 1
    while True:
        while pos < len(text) and text[pos] in " \t\r\n,":
            pos += 1
        if pos >= len(text) or text[pos] == "]":
            break
        try:
            _, end = decoder.raw_decode(text, pos)
        except json.JSONDecodeError:
            raise ResultsError(f"{path}: a benchmark entry is not valid JSON (truncated file?)") from None
        spans.append((pos, end))
        pos = end
    return open_ + 1, spans, pos


def _with_fields(obj_text: str, fields: Dict[str, object]) -> str:
    """The object's text with `fields` appended in its own layout."""
    if not fields:
        return obj_text
    body = obj_text[1:].lstrip(" \t")
    indent = obj_text[1:len(obj_text) - len(body)]
    lead = body[: len(body) - len(body.lstrip())]          # the newline + indentation before each key
    close_at = obj_text.rstrip().rfind("}")
    inner = obj_text[:close_at].rstrip()
    tail = obj_text[len(inner):]
    sep = (indent + lead) if lead else " "
    added = "".join(f",{sep}{json.dumps(k)}: {json.dumps(v)}" for k, v in fields.items())
    return inner + added + tail


def annotate_text(text: str, decls: Dict[str, dict], path: str = "input") -> Tuple[str, List[str], int]:
    """(new text, declarations not in the list, benchmarks given fields)."""
    try:
        doc = parse_json(text)
    except json.JSONDecodeError as e:
        raise ResultsError(f"{path}: not valid JSON ({e.msg} at line {e.lineno}); "
                           "a truncated file is not rewritten") from None
    if not isinstance(doc, dict) or not isinstance(doc.get("benchmarks"), list) or "context" not in doc:
        raise ResultsError(f"{path}: not Google Benchmark JSON (no 'context' and 'benchmarks')")
    start, spans, end = _objects(text, path)
    if len(spans) != len(doc["benchmarks"]):
        raise ResultsError(f"{path}: could not find every benchmark entry in the text")
    index = {d: i for i, d in enumerate(decls)}
    unknown: List[str] = []
    pieces, changed = [], 0
    for (a, b), obj in zip(spans, doc["benchmarks"]):
        parsed = parse_name(str(obj.get("run_name") or obj.get("name") or "")) if isinstance(obj, dict) else None
        decl = "/".join((parsed["family"], parsed["type"], parsed["variant"])) if parsed else None
        fields = {}
        if decl in decls:
            fields = {k: v for k, v in decls[decl].items() if k not in obj}
            changed += bool(fields)
        elif decl and decl not in unknown:
            unknown.append(decl)
        rank = index.get(decl, len(index))
        pieces.append((rank, len(pieces), _with_fields(text[a:b], fields)))
    if not changed:   # already carries the fields: left as it is, whatever order the list has
        return text, unknown, 0
    pieces.sort()   # declaration order; stable within one declaration (sizes, repetitions)
    seps = [text[spans[i][1]:spans[i + 1][0]] for i in range(len(spans) - 1)]
    sep = seps[0] if seps else ""
    if any(s != sep for s in seps):
        sep = ",\n"
    new = text[:start] + text[start:spans[0][0]] + sep.join(p for _, _, p in pieces) + text[spans[-1][1]:] \
        if spans else text
    _check_unchanged(doc, json.loads(new), path)
    return new, unknown, changed


def _check_unchanged(old: dict, new: dict, path: str) -> None:
    """The rewrite only added FIELDS and reordered benchmarks; anything else is a bug."""
    strip = lambda b: json.dumps({k: v for k, v in b.items() if k not in FIELDS}, sort_keys=True)  # noqa: E731
    before = sorted(json.dumps(b, sort_keys=True) if not isinstance(b, dict) else strip(b) for b in old["benchmarks"])
    after = sorted(json.dumps(b, sort_keys=True) if not isinstance(b, dict) else strip(b) for b in new["benchmarks"])
    rest = lambda d: json.dumps({k: v for k, v in d.items() if k != "benchmarks"}, sort_keys=True)  # noqa: E731
    if before != after or rest(old) != rest(new):
        raise ResultsError(f"{path}: internal error: the rewrite would change more than the added fields; "
                           "file left as it was")


def _write_in_place(path: str, text: str) -> None:
    """Writes a temporary file beside it and renames it over it (its folder must be
    writable); an OS error is a ResultsError naming the file, which is left as it was."""
    target = Path(path)
    try:
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.")
        try:
            with os.fdopen(fd, "wb") as f:   # a .json.gz stays gzip (the same text, the same bytes)
                data = text.encode("utf-8")
                f.write(gzip_bytes(data) if target.read_bytes()[:2] == GZIP_MAGIC else data)
            os.chmod(tmp, target.stat().st_mode & 0o777)
            os.replace(tmp, target)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
    except OSError as e:
        raise ResultsError(f"{path}: cannot rewrite: {e.strerror or e}") from None


@entry
def main(argv: Sequence[str] | None = None) -> int:
    parser = Parser(prog="bench-annotate", description=__doc__.split("\n\n")[0])
    parser.add_argument("results", nargs="+", help="cuda_bench result JSON file(s), rewritten in place")
    parser.add_argument("--declarations", required=True,
                        help="the output of `cuda_bench --list-variants=json`")
    parser.add_argument("--check", action="store_true",
                        help="change nothing; exit 1 when a file would change")
    try:
        args = parser.parse_args(argv)
        decls = load_declarations(args.declarations)
        plans = []
        for path in args.results:
            text = read_text(path)
            new, unknown, changed = annotate_text(text, decls, path)
            folder = Path(path).parent
            if not args.check and new != text and not os.access(folder, os.W_OK | os.X_OK):
                # checked before any file is rewritten, so that a batch is all or nothing
                raise ResultsError(f"{path}: cannot rewrite: its folder {folder} is not writable")
            plans.append((path, text, new, unknown, changed))
    except ResultsError as e:
        print(f"bench-annotate: {e}", file=sys.stderr)
        return 2
    stale = False
    for path, old, new, unknown, changed in plans:
        if unknown:
            print(f"bench-annotate: warning: {path}: not in {args.declarations}, left without roles: "
                  f"{', '.join(unknown)}", file=sys.stderr)
        if new == old:
            print(f"{path}: already annotated")
            continue
        stale = True
        if not args.check:
            try:
                _write_in_place(path, new)
            except ResultsError as e:
                print(f"bench-annotate: {e}", file=sys.stderr)
                return 2
        print(f"{path}: {'would add' if args.check else 'added'} fields to {changed} benchmarks"
              + ("" if args.check else ", benchmarks in declaration order"))
    return 1 if args.check and stale else 0


if __name__ == "__main__":
    sys.exit(main())
