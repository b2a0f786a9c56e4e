"""bench-annotate: declared fields added to an older result file, nothing else changed."""
import json
import re
from pathlib import Path

import pytest
from conftest import FIXTURES

from benchtools import annotate
from benchtools.results import load_results

DECLS = str(FIXTURES / "declarations.json")   # the shape of `cuda_bench --list-variants=json`
ROOF = FIXTURES / "h200_roofline.json"


def old_file(tmp_path, reverse=True):
    """h200_roofline.json as a file written before the role fields, in another order,
    in Google Benchmark's own layout (a compact list, numbers in exponent form)."""
    doc = json.loads(ROOF.read_text())
    for b in doc["benchmarks"]:
        for k in annotate.FIELDS:
            b.pop(k, None)
    if reverse:
        doc["benchmarks"].reverse()
    text = re.sub(r'"load_avg": \[[^\]]*\]', '"load_avg": [0.1,0.1,0.1]', json.dumps(doc, indent=2))
    text = text.replace('"real_time": 255.0,', '"real_time": 2.5500000000000000e+02,')
    assert "2.5500000000000000e+02" in text
    p = tmp_path / "old.json"
    p.write_text(text)
    return p


def test_adds_the_declared_fields_and_puts_benchmarks_in_declaration_order(tmp_path, capsys):
    p = old_file(tmp_path)
    before = p.read_text()
    assert annotate.main([str(p), "--declarations", DECLS]) == 0
    after = p.read_text()
    doc, ref = json.loads(after), json.loads(ROOF.read_text())
    key = lambda b: json.dumps(b, sort_keys=True)  # noqa: E731
    assert sorted(map(key, doc["benchmarks"])) == sorted(map(key, ref["benchmarks"]))   # the fields a new run writes
    order = lambda bs: list(dict.fromkeys(b["declaration"] for b in bs))  # noqa: E731
    assert order(doc["benchmarks"]) == order(ref["benchmarks"])       # declarations in the list's order
    tree = [b["name"] for b in doc["benchmarks"] if b["declaration"] == "reduce_sum/i32/tree"]
    assert tree == [b["name"] for b in reversed(ref["benchmarks"]) if "/i32/tree/" in b["name"]]  # kept within one
    assert doc["context"] == ref["context"]
    # every line of the old text is still there, byte for byte (numbers in their own notation)
    assert sorted(before.replace(",\n", "\n").splitlines()) == sorted(
        line for line in after.replace(",\n", "\n").splitlines()
        if not line.strip().startswith(tuple(f'"{k}"' for k in annotate.FIELDS)))
    assert '"real_time": 2.5500000000000000e+02' in after and '"load_avg": [0.1,0.1,0.1]' in after
    runs = load_results(p)
    assert {r.role for r in runs.records} == {"kernel", "library", "cpu"}
    assert "added fields to" in capsys.readouterr().out


def test_is_idempotent_keeps_existing_fields_and_check_reports(tmp_path, capsys):
    p = old_file(tmp_path, reverse=False)
    assert annotate.main([str(p), "--declarations", DECLS, "--check"]) == 1
    assert "would add" in capsys.readouterr().out
    annotate.main([str(p), "--declarations", DECLS])
    once = p.read_text()
    assert annotate.main([str(p), "--declarations", DECLS]) == 0
    assert p.read_text() == once and "already annotated" in capsys.readouterr().out
    assert annotate.main([str(p), "--declarations", DECLS, "--check"]) == 0
    # a file that carries the fields is not re-sorted by a list in another order
    other = tmp_path / "reversed.json"
    other.write_text(json.dumps(list(reversed(json.loads(open(DECLS).read())))))
    assert annotate.main([str(p), "--declarations", str(other)]) == 0 and p.read_text() == once
    # a field the file has is never overwritten
    doc = json.loads(once)
    doc["benchmarks"][0]["role"] = "library"
    q = tmp_path / "q.json"
    q.write_text(json.dumps(doc, indent=2))
    annotate.main([str(q), "--declarations", DECLS])
    assert json.loads(q.read_text())["benchmarks"][0]["role"] == "library"


def test_benchmarks_the_list_does_not_declare_are_left_and_named(tmp_path, capsys):
    p = old_file(tmp_path, reverse=False)
    decls = [d for d in json.loads(open(DECLS).read()) if d["variant"] != "tree"]
    d = tmp_path / "decls.json"
    d.write_text(json.dumps(decls))
    assert annotate.main([str(p), "--declarations", str(d)]) == 0
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "reduce_sum/i32/tree" in err[0]
    tree = [b for b in json.loads(p.read_text())["benchmarks"] if "/tree/" in b["name"]]
    assert tree and all("role" not in b for b in tree)


@pytest.mark.parametrize("setup, message", [
    (lambda d, p: (d / "decls.json").write_text("{}"), "not a declaration list"),
    (lambda d, p: (d / "decls.json").write_text('[{"declaration": "a/b"}]'), "has no \"declaration\""),
    (lambda d, p: (d / "decls.json").write_text('[{"declaration": "a/b/c", "role": "gpu", "host_work": false}]'),
     "role must be one of kernel, library, cpu"),
    (lambda d, p: (d / "decls.json").write_text('[{"declaration": "a/b/c", "role": "cpu"}]'), "host_work"),
    (lambda d, p: p.write_text(p.read_text()[:2000]), "a truncated file is not rewritten"),
    (lambda d, p: p.write_text('{"rows": []}'), "not Google Benchmark JSON"),
])
def test_bad_input_exits_2_with_one_line_and_changes_nothing(tmp_path, capsys, setup, message):
    p = old_file(tmp_path)
    decls = tmp_path / "decls.json"
    decls.write_text(open(DECLS).read())
    setup(tmp_path, p)
    before = p.read_text()
    assert annotate.main([str(p), "--declarations", str(decls)]) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and len(err.splitlines()) == 1
    assert p.read_text() == before


def test_a_folder_it_cannot_write_is_one_line_naming_the_file(tmp_path, capsys, monkeypatch):
    """As a user who may not write the file's folder (tests run as root, where
    permissions do not bite, so the refusals are simulated)."""
    p = old_file(tmp_path)
    before = p.read_text()

    def refuse(*args, **kwargs):
        raise PermissionError(13, "Permission denied")
    monkeypatch.setattr(annotate.tempfile, "mkstemp", refuse)
    assert annotate.main([str(p), "--declarations", DECLS]) == 2
    err = capsys.readouterr().err
    assert err == f"bench-annotate: {p}: cannot rewrite: Permission denied\n"
    assert p.read_text() == before
    # the folder is checked before any file is rewritten
    second = tmp_path / "second"
    second.mkdir()
    q = old_file(second)
    monkeypatch.setattr(annotate.os, "access", lambda path, mode, **kw: Path(path) != tmp_path)
    assert annotate.main([str(q), str(p), "--declarations", DECLS]) == 2
    assert f"{p}: cannot rewrite: its folder {tmp_path} is not writable" in capsys.readouterr().err
    assert q.read_text() == before
