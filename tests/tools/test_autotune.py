"""bench-autotune over fixture JSON: best and curated configuration per N, the loss,
the files it writes (byte-identical when regenerated), and its exit codes."""
import json

import pytest
from conftest import FIXTURES

from benchtools import autotune
from benchtools.results import load_results

SWEEP = str(FIXTURES / "h200_small.json")


@pytest.fixture
def curated(tmp_path):
    """A default-suite file that ran tree at block 256 and batched at block 256, batch 8."""
    doc = json.loads((FIXTURES / "h200_small.json").read_text())
    doc["context"]["suite"] = "default"
    keep = ("reduce_sum/i32/tree/N:1048576/block:256/", "reduce_sum/i32/batched/N:1048576/block:256/batch:8/",
            "reduce_sum/i32/cub_device_reduce/N:1048576/")
    doc["benchmarks"] = [b for b in doc["benchmarks"] if b["run_name"].startswith(keep)]
    path = tmp_path / "default.json"
    path.write_text(json.dumps(doc))
    return str(path)


def _by(rows):
    return {(r.series[2], r.n): r for r in rows}


def test_best_and_curated_per_n(curated):
    rows = _by(autotune.tune(load_results(SWEEP).records,
                             autotune.curated_configs(load_results(curated).records)))
    assert set(rows) == {("tree", 1 << 20), ("tree", 1 << 30), ("batched", 1 << 20), ("batched", 1 << 30)}
    tree_small = rows[("tree", 1 << 20)]
    assert tree_small.best.block == 512 and tree_small.curated.block == 256
    assert tree_small.loss == pytest.approx(10.0 / 8.0 - 1)
    assert rows[("tree", 1 << 30)].loss == pytest.approx(0.0)     # the curated block is the best there
    assert rows[("batched", 1 << 30)].best.batch == 16
    assert rows[("batched", 1 << 30)].loss == pytest.approx(1100 / 1000 - 1)
    assert rows[("batched", 1 << 20)].configs == 2


def test_without_curated_only_the_best():
    rows = autotune.tune(load_results(SWEEP).records)
    assert rows and all(r.curated is None and r.loss is None for r in rows)
    assert "| tree | 2^20 | 2 | block 512 | 8.0 |" in autotune.to_markdown(rows, "GPU", ["x"])


def test_cli_writes_report_json_and_chart_deterministically(tmp_path, curated):
    out = tmp_path / "a"
    assert autotune.main([SWEEP, "--curated", curated, "--out", str(out)]) == 0
    md = (out / "autotune.md").read_text()
    assert "| reduce_sum/i32/tree | 2^20 | block 512 | block 256 | 25.0% |" in md
    doc = json.loads((out / "autotune.json").read_text())
    assert {(e["variant"], e["n"]) for e in doc["entries"]} == {("tree", 1 << 20), ("tree", 1 << 30),
                                                               ("batched", 1 << 20), ("batched", 1 << 30)}
    first = {p.name: p.read_bytes() for p in out.iterdir()}
    assert {"autotune_loss.png", "autotune_loss.svg"} <= set(first)
    assert autotune.main([SWEEP, "--curated", curated, "--out", str(out)]) == 0
    assert {p.name: p.read_bytes() for p in out.iterdir()} == first   # regenerating changes nothing


@pytest.mark.parametrize("args, message", [
    ([str(FIXTURES / "h200_repetitions.json")], "more than one block/batch"),
    ([SWEEP, "--curated", str(FIXTURES / "audit_profile.json")], "none of its configurations"),
    ([SWEEP, "--format", "gif"], "--format"),
    ([str(FIXTURES / "missing.json")], "cannot read"),
    ([SWEEP, str(FIXTURES / "h100_roofline.json")],
     "h100_roofline.json is of NVIDIA H100 80GB HBM3, " + SWEEP + " of NVIDIA H200: bench-autotune would mix"),
    ([SWEEP, "--curated", str(FIXTURES / "h100_vector_sum.json")],   # an H100's defaults against an H200's sweep
     "--curated " + str(FIXTURES / "h100_vector_sum.json") + " is of NVIDIA H100 80GB HBM3"),
])
def test_cli_bad_input_exits_2(capsys, args, message):
    assert autotune.main(args) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and len(err.splitlines()) == 1


def test_a_truncated_sweep_is_used_with_the_warning_every_tool_gives(tmp_path, capsys):
    text = (FIXTURES / "h200_small.json").read_text()
    cut = tmp_path / "cut.json"
    cut.write_text(text[:int(len(text) * 0.9)])
    assert autotune.main([str(cut)]) == 0
    out, err = capsys.readouterr()
    kept = len(load_results(cut).records)
    assert err == (f"bench-autotune: warning: {cut} is truncated (interrupted run?); "
                   f"using its {kept} complete entries\n")
    assert "| tree |" in out
