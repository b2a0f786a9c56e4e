"""The guards every tool shares (benchtools.cli): an output never overwrites an input or
another output, one run is never counted as two, a misspelled variant is named, and a
reader that goes away (| head) ends the tool quietly."""
import gzip
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import FIXTURES

from benchtools import ab, agree, refresh, replay, report, run_ab, table
from benchtools.results import ResultsError

TOOLS = Path(__file__).resolve().parents[2] / "tools"
AA1, AA2 = FIXTURES / "gate_aa1.json", FIXTURES / "gate_aa2.json"
INTERLEAVED = FIXTURES / "sampled_interleaved.json"


def copy(src: Path, dst: Path) -> Path:
    dst.write_bytes(src.read_bytes())
    return dst


def one_error(capsys, prefix: str) -> str:
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and err.startswith(prefix) and "Traceback" not in err, err
    return err


@pytest.mark.parametrize("tool, argv", [
    ("bench-report", lambda f, d: [f, "--out", f]),
    ("bench-ab", lambda f, d: [f, "--versus", "cub_device_reduce", "--out", f]),
    ("bench-ab", lambda f, d: [f, "--versus", "cub_device_reduce", "--chart", d / "x.png", "--out", d / "x.png"]),
])
def test_an_output_on_an_input_or_another_output_is_refused(tmp_path, capsys, tool, argv):
    f = copy(INTERLEAVED, tmp_path / "run.json")
    before = f.read_bytes()
    main = {"bench-report": report.main, "bench-ab": ab.main}[tool]
    assert main([str(a) for a in argv(f, tmp_path)]) == 2
    err = one_error(capsys, f"{tool}: ")
    assert "is an input file; it would be overwritten" in err or "both write" in err
    assert f.read_bytes() == before and not (tmp_path / "x.png").exists()


def test_agree_refuses_its_output_on_a_run_and_two_gpu_models(tmp_path, capsys):
    a, b = copy(AA1, tmp_path / "a.json"), copy(AA2, tmp_path / "b.json")
    assert agree.main([str(a), str(b), "--out", str(b)]) == 2
    assert f"--out {b}: is an input file" in one_error(capsys, "bench-agree: ")
    doc = json.loads(b.read_text())
    doc["context"]["gpu_name"] = "NVIDIA H100 80GB HBM3"
    b.write_text(json.dumps(doc))
    assert agree.main([str(a), str(b)]) == 2
    err = one_error(capsys, "bench-agree: ")
    assert "of NVIDIA H100 80GB HBM3" in err and "two runs of one GPU model" in err


def test_agree_refuses_a_copy_of_one_run(tmp_path, capsys):
    a = copy(AA1, tmp_path / "a.json")
    b = tmp_path / "b.json.gz"
    b.write_bytes(gzip.compress(a.read_bytes()))
    assert agree.main([str(a), str(b)]) == 2
    assert f"{b}: a copy of {a}" in one_error(capsys, "bench-agree: ")


def _aa2_of_an_h100(tmp_path) -> Path:
    """The second A/A run, relabelled as a run of another GPU model."""
    other = tmp_path / "aa2.json"
    doc = json.loads(AA2.read_text())
    doc["context"]["gpu_name"] = "NVIDIA H100 80GB HBM3"
    other.write_text(json.dumps(doc))
    return other


def test_replay_refuses_one_run_twice_and_two_gpu_models(tmp_path, capsys):
    assert replay.main([str(AA1), str(AA1), str(AA2)]) == 2
    assert "given twice" in one_error(capsys, "bench-replay: ")
    other = _aa2_of_an_h100(tmp_path)
    assert replay.main([str(AA1), str(other)]) == 2
    assert (f"{other} is of NVIDIA H100 80GB HBM3, {AA1} of NVIDIA H200: A/A runs are of one GPU model"
            in one_error(capsys, "bench-replay: "))


def test_agree_refuses_two_gpu_models(tmp_path, capsys):
    other = _aa2_of_an_h100(tmp_path)
    assert agree.main([str(AA1), str(other)]) == 2
    assert (f"{other} is of NVIDIA H100 80GB HBM3, {AA1} of NVIDIA H200: bench-agree compares two runs of one GPU model"
            in one_error(capsys, "bench-agree: "))


def test_refresh_refuses_a_run_counted_twice(tmp_path):
    runs = [str(FIXTURES / "gate_base.json"), str(AA1), str(copy(AA1, tmp_path / "aa2.json"))]
    with pytest.raises(ResultsError, match="a copy of .*gate_aa1.json .*the baseline and the A/A runs must be"):
        refresh.plan(runs, str(tmp_path / "b.json"), str(tmp_path / "n.json"), str(tmp_path / "h"))


def test_run_ab_warns_of_one_burst_given_twice_and_guards_its_outputs(tmp_path, capsys):
    doc = json.loads(INTERLEAVED.read_text())
    a = copy(INTERLEAVED, tmp_path / "a.json")
    doc["context"]["date"] = "2030-01-01T00:00:00+00:00"
    b = tmp_path / "b.json"
    b.write_text(json.dumps(doc))
    assert run_ab.main([f"base={a}", f"head={b}", "--markdown", str(a)]) == 2
    assert f"--markdown {a}: is an input file" in one_error(capsys, "run-ab: ")
    run_ab.main([f"base={a}", f"head={a}"])
    assert f"run-ab: warning: {a}: given twice" in capsys.readouterr().err
    run_ab.main([f"base={a}", f"head={b}"])
    assert "warning" not in capsys.readouterr().err


def test_table_names_a_baseline_that_is_not_in_the_input(capsys):
    assert table.main([str(INTERLEAVED), "--baseline", "nosuch"]) == 2
    err = one_error(capsys, "bench-table: ")
    assert "--baseline nosuch: no such variant in the input" in err and "cub_device_reduce" in err


@pytest.mark.parametrize("module, argv", [
    ("table", [str(FIXTURES / "h200_small.json")]),
    ("compare", [str(FIXTURES / "compare_base.json"), str(FIXTURES / "compare_slow10.json")]),
])
def test_a_reader_that_goes_away_ends_the_tool_quietly(module, argv):
    # The pipe is closed before the tool writes (it takes a second to start): its output, buffered
    # as a pipe's is, fails to flush (PYTHONUNBUFFERED would move the failure into the write).
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    p = subprocess.Popen([sys.executable, "-m", f"benchtools.{module}", *argv], cwd=TOOLS,
                         env={**env, "PYTHONPATH": str(TOOLS)},
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    p.stdout.close()
    err = p.stderr.read().decode()
    assert p.wait(timeout=120) == 141
    assert "Traceback" not in err and "BrokenPipe" not in err and "internal error" not in err, err
