"""bench-compare over fixture JSON (made by fixtures/make_compare_fixtures.py):
verdicts, the numbers behind them, the files it writes, its exit codes."""
import gzip
import json
import statistics

import pytest
from conftest import FIXTURES

from benchtools import compare
from benchtools.results import load_results

BASE = str(FIXTURES / "compare_base.json")
SLOW = "reduce_sum/i32/batched_vec16/N:268435456/block:256/batch:16"
FAST = "reduce_sum/i32/sequential_addressing/N:268435456/block:256"
NOISY = "reduce_sum/f32/thrust_reduce/N:268435456"


def fixture(name):
    return str(FIXTURES / f"compare_{name}.json")


def run(capsys, *argv):
    rc = compare.main([str(a) for a in argv])
    return rc, capsys.readouterr()


def verdict_file(tmp_path, *argv):
    path = tmp_path / "verdict.json"
    rc = compare.main([str(a) for a in argv] + ["--verdict", str(path)])
    return rc, json.loads(path.read_text())


def times(path, name):
    """The plain repetition times (µs) of one benchmark, read straight from the JSON."""
    doc = json.loads(open(path).read())
    return [b["real_time"] for b in doc["benchmarks"]
            if b["run_name"] == name + "/manual_time" and b["run_type"] == "iteration"]


def test_the_default_threshold_leaves_room_for_the_fixtures():
    # slow10/fast10 must exceed it, the noisy 2% slowdown is judged by its p-value.
    assert 0.0 < compare.DEFAULT_THRESHOLD < 0.10


@pytest.mark.parametrize("candidate", [BASE, fixture("same")])
def test_identical_and_a_a_runs_pass(tmp_path, candidate):
    rc, v = verdict_file(tmp_path, BASE, candidate)
    assert rc == 0 and v["status"] == "pass"
    assert {b["verdict"] for b in v["benchmarks"]} == {"unchanged"}
    assert len(v["benchmarks"]) == 6 and v["new"] == [] and v["missing"] == []


def test_identical_inputs_have_zero_change_and_no_significance(tmp_path):
    _, v = verdict_file(tmp_path, BASE, BASE)
    assert all(b["change"] == 0 and b["p_value"] > 0.5 for b in v["benchmarks"])   # all ranks tied


def test_significant_10_percent_slowdown_fails_and_flags_only_that_benchmark(tmp_path):
    rc, v = verdict_file(tmp_path, BASE, fixture("slow10"))
    assert rc == 1 and v["status"] == "regression"
    flagged = [b for b in v["benchmarks"] if b["verdict"] != "unchanged"]
    assert [b["name"] for b in flagged] == [SLOW]
    b = flagged[0]
    assert b["baseline_median_s"] == pytest.approx(statistics.median(times(BASE, SLOW)) * 1e-6)
    assert b["candidate_median_s"] == pytest.approx(statistics.median(times(fixture("slow10"), SLOW)) * 1e-6)
    assert b["change"] == pytest.approx(0.10, rel=1e-4)
    assert b["p_value"] == pytest.approx(1 / 252)   # 5 vs 5, every candidate time larger: the exact minimum
    assert v["benchmarks"][0]["name"] == SLOW        # regressions first


def test_10_percent_speedup_passes_as_improved(tmp_path):
    rc, v = verdict_file(tmp_path, BASE, fixture("fast10"))
    assert rc == 0 and v["status"] == "pass"
    b = v["benchmarks"][0]
    assert (b["name"], b["verdict"]) == (FAST, "improved")
    assert b["change"] == pytest.approx(-0.10, rel=1e-4)
    assert b["p_value"] == pytest.approx(1 / 252)
    assert [x["verdict"] for x in v["benchmarks"][1:]] == ["unchanged"] * 5


@pytest.mark.parametrize("threshold", [[], ["--threshold", "0"]])
def test_slowdown_inside_the_noise_is_not_significant(tmp_path, threshold):
    # Even with no threshold at all, a 2% shift within 2% noise is not significant.
    rc, v = verdict_file(tmp_path, BASE, fixture("noise"), *threshold)
    assert rc == 0
    b = next(b for b in v["benchmarks"] if b["name"] == NOISY)
    assert b["verdict"] == "unchanged"
    assert 0.01 < b["change"] < 0.03 and b["p_value"] >= 0.05


def test_threshold_and_alpha_options_decide(tmp_path):
    assert verdict_file(tmp_path, BASE, fixture("slow10"), "--threshold", "0.11")[0] == 0   # 10% < 11%
    assert verdict_file(tmp_path, BASE, fixture("slow10"), "--alpha", "0.001")[0] == 0      # p = 0.004


def test_markdown_table_orders_regressions_first_and_names_both_runs(tmp_path, capsys):
    rc, out = run(capsys, BASE, fixture("slow10"))
    assert rc == 1
    lines = out.out.splitlines()
    assert lines[0] == "### GPU regression check: FAIL (1 regressed, 5 unchanged)"
    assert "NVIDIA H200, commit `1111111`" in out.out and "commit `3333333`" in out.out
    rows = [l for l in lines if l.startswith("| `")]
    assert len(rows) == 6
    assert rows[0].startswith(f"| `{SLOW}` | 255.41 µs | 280.95 µs | +10.00% | 6.00% | 0.00397 | **regressed** |")

    md = tmp_path / "summary.md"
    rc, out = run(capsys, BASE, fixture("fast10"), "--markdown", md)
    assert rc == 0 and out.out.strip() == f"bench-compare: pass (1 improved, 5 unchanged); table in {md}"
    assert f"| `{FAST}` | 1.221 ms | 1.099 ms | -10.00% | 6.00% |" in md.read_text()


def test_new_and_missing_benchmarks_are_listed_not_fatal(tmp_path, capsys):
    doc = json.loads(open(fixture("same")).read())
    for b in doc["benchmarks"]:   # rename one benchmark: new in the candidate, missing from it
        b["name"] = b["name"].replace("cub_device_reduce/N:16777216", "cub_device_reduce/N:33554432")
        b["run_name"] = b["run_name"].replace("cub_device_reduce/N:16777216", "cub_device_reduce/N:33554432")
    cand = tmp_path / "cand.json"
    cand.write_text(json.dumps(doc))
    rc, v = verdict_file(tmp_path, BASE, cand)
    assert rc == 0 and len(v["benchmarks"]) == 5
    assert v["new"] == ["reduce_sum/i32/cub_device_reduce/N:33554432"]
    assert v["missing"] == ["reduce_sum/i32/cub_device_reduce/N:16777216"]
    rc, out = run(capsys, BASE, cand)
    assert "New in the candidate (not compared): 1" in out.out
    assert "- `reduce_sum/i32/cub_device_reduce/N:16777216`" in out.out


def test_an_error_in_the_candidate_fails_the_gate(tmp_path, capsys):
    doc = json.loads(open(fixture("same")).read())
    rest = [b for b in doc["benchmarks"] if not b["run_name"].startswith(NOISY)]
    broken = [{"name": NOISY + "/manual_time", "run_name": NOISY + "/manual_time", "run_type": "iteration",
               "repetitions": 5, "repetition_index": i, "threads": 1, "iterations": 0, "real_time": 0,
               "cpu_time": 0, "time_unit": "us", "error_occurred": True,
               "error_message": "verification failed: expected 1, got 2"} for i in range(5)]
    doc["benchmarks"] = rest + broken
    cand = tmp_path / "cand.json"
    cand.write_text(json.dumps(doc))
    rc, v = verdict_file(tmp_path, BASE, cand)
    assert rc == 1 and v["status"] == "regression"
    first = v["benchmarks"][0]   # errors come first, once per benchmark
    assert (first["name"], first["verdict"], first["candidate_median_s"]) == (NOISY, "error", None)
    assert first["error"] == "verification failed: expected 1, got 2"
    assert [b["verdict"] for b in v["benchmarks"]].count("error") == 1
    _, out = run(capsys, BASE, cand)
    assert "**error**: verification failed: expected 1, got 2" in out.out


def test_too_few_repetitions_are_reported_and_make_the_input_unusable(tmp_path, capsys):
    doc = json.loads(open(fixture("slow10")).read())
    doc["benchmarks"] = [b for b in doc["benchmarks"] if b.get("repetition_index", 0) < 2 or b["run_type"] != "iteration"]
    cand = tmp_path / "cand.json"
    cand.write_text(json.dumps(doc))
    rc, v = verdict_file(tmp_path, BASE, cand)
    assert rc == 2   # never a pass: the gate could not test them
    assert v["status"] == "not tested"   # the file says what the exit code says
    assert {b["verdict"] for b in v["benchmarks"]} == {"too few repetitions"}
    assert all(b["p_value"] is None for b in v["benchmarks"])
    capsys.readouterr()  # drop the first call's output
    rc, out = run(capsys, BASE, cand)
    assert rc == 2
    assert "too few repetitions (5 vs 2; need 3 each): not tested" in out.out
    assert "### GPU regression check: NOT TESTED (6 too few repetitions)" in out.out
    assert "fewer than 3 repetitions" in out.err and len(out.err.strip().splitlines()) == 1


def test_medians_file_is_google_benchmark_json_that_loads_back(tmp_path):
    path = tmp_path / "medians.json"
    assert compare.main([BASE, fixture("slow10"), "--medians", str(path)]) == 1
    doc = json.loads(path.read_text())
    assert doc["context"]["git_commit"] == "3333333"
    e = next(e for e in doc["benchmarks"] if e["name"] == SLOW)
    median_us = statistics.median(times(fixture("slow10"), SLOW))
    assert e == {"name": SLOW, "run_name": SLOW, "run_type": "iteration", "repetitions": 1, "repetition_index": 0,
                 "threads": 1, "iterations": 1, "real_time": pytest.approx(median_us),
                 "cpu_time": pytest.approx(median_us), "time_unit": "us"}
    res = load_results(path)
    assert not res.truncated and res.errors == [] and len(res.records) == 6
    r = next(r for r in res.records if r.name == SLOW)
    assert r.seconds == pytest.approx(median_us * 1e-6)
    assert r.aggregate is None and (r.block, r.batch) == (256, 16)


def test_different_gpu_needs_force(tmp_path, capsys):
    doc = json.loads(open(fixture("same")).read())
    doc["context"]["gpu_name"] = "NVIDIA A100-SXM4-80GB"
    cand = tmp_path / "a100.json"
    cand.write_text(json.dumps(doc))
    rc, out = run(capsys, BASE, cand)
    assert rc == 2
    err = out.err.strip()
    assert len(err.splitlines()) == 1
    assert "different run conditions: GPU 'NVIDIA H200' vs 'NVIDIA A100-SXM4-80GB'" in err
    assert str(cand) in err and "--force" in err
    assert run(capsys, BASE, cand, "--force")[0] == 0


def _truncated(d):
    text = open(fixture("same")).read()
    (d / "x.json").write_text(text[: len(text) // 2])


@pytest.mark.parametrize("setup, args, message", [
    (lambda d: (d / "x.json").write_text("garbage"), [BASE, "{d}/x.json"], "{d}/x.json: not valid JSON"),
    (_truncated, ["{d}/x.json", BASE], "{d}/x.json: truncated"),
    (lambda d: (d / "x.json").write_text('{"context": {"host_name": "h"}, "benchmarks": []}'), [BASE, "{d}/x.json"],
     "{d}/x.json: not a cuda_bench results file"),
    (lambda d: (d / "x.json").write_text('{"results": [{"name": "t", "ms": 3}]}'), ["{d}/x.json", BASE],
     "{d}/x.json: not Google Benchmark JSON"),
    (lambda d: (d / "x.json").write_text(json.dumps({"context": {"gpu_name": "NVIDIA H200"}, "benchmarks": [
        {"name": "BM_memcpy/8", "run_type": "iteration", "real_time": 1.0, "time_unit": "ns"}]})),
     [BASE, "{d}/x.json"], "{d}/x.json: no cuda_bench benchmarks"),
    (lambda d: None, [BASE, "{d}/missing.json"], "cannot read"),
    (lambda d: None, [BASE, str(FIXTURES / "h200_small.json"), "--force"], "no benchmarks in common"),
    (lambda d: None, [BASE, BASE, "--threshold", "-0.1"], "--threshold: expected a fraction in [0, 1)"),
    (lambda d: None, [BASE, BASE, "--threshold", "five"], "--threshold: expected a fraction in [0, 1)"),
    (lambda d: None, [BASE, BASE, "--threshold", "6"], "--threshold: expected a fraction in [0, 1) such as 0.05 for 5%"),
    (lambda d: None, [BASE, BASE, "--alpha", "1.5"], "--alpha: expected a probability"),
    (lambda d: None, [BASE], "expected BASELINE and CANDIDATE (or --calibrate RUN ...), got 1 files"),
    (lambda d: None, [], "the following arguments are required: RUN"),
])
def test_unusable_input_exits_2_with_one_line(tmp_path, capsys, setup, args, message):
    setup(tmp_path)
    rc, out = run(capsys, *[a.format(d=tmp_path) for a in args])
    assert rc == 2
    err = out.err.strip()
    assert len(err.splitlines()) == 1 and err.startswith("bench-compare: ")
    assert message.format(d=tmp_path) in err
    assert out.out == ""


def _with_uuid(tmp_path, source, name, uuid):
    doc = json.loads(open(source).read())
    doc["context"]["gpu_uuid"] = uuid
    path = tmp_path / name
    path.write_text(json.dumps(doc))
    return path


def test_different_boards_of_one_model_are_compared_with_a_note(tmp_path, capsys):
    base = _with_uuid(tmp_path, BASE, "base.json", "GPU-8c9c3a53-0000")
    cand = _with_uuid(tmp_path, fixture("same"), "cand.json", "GPU-7412ac29-0000")
    md = tmp_path / "summary.md"
    rc, (out, err) = run(capsys, base, cand, "--markdown", md)
    assert rc == 0
    assert "different boards of this GPU model" in err and "GPU-8c9c3a53" in err and "GPU-7412ac29" in err
    assert "**Note:** different boards" in md.read_text()


def test_the_board_note_counts_the_regressed_calls_that_time_host_work(tmp_path, capsys):
    # thrust_reduce declared host work on both sides and 30% slower in the candidate, on
    # another board: the verdict stands (exit 1), and the note says how many of the
    # regressed time host work, which another machine's host and driver move.
    def marked(name, uuid, slower):
        doc = json.loads(open(BASE).read())
        doc["context"]["gpu_uuid"] = uuid
        for bench in doc["benchmarks"]:
            host = "/thrust_reduce/" in bench["name"]
            bench["host_work"] = host
            if host and slower and bench.get("run_type") == "iteration":
                bench["real_time"] *= 1.3
                bench["cpu_time"] *= 1.3
        path = tmp_path / name
        path.write_text(json.dumps(doc))
        return path
    base = marked("base.json", "GPU-8c9c3a53-0000", False)
    cand = marked("cand.json", "GPU-7412ac29-0000", True)
    md = tmp_path / "summary.md"
    rc, (out, err) = run(capsys, base, cand, "--markdown", md)
    assert rc == 1
    regressed = [r for r in json.loads(open(BASE).read())["benchmarks"]
                 if "/thrust_reduce/" in r["name"] and r.get("run_type") == "iteration"]
    runs = len({r["run_name"] for r in regressed})
    assert f"{runs} of the {runs} regressed time host work inside the call" in err
    assert f"{runs} of the {runs} regressed time host work" in md.read_text()
    same = marked("same.json", "GPU-8c9c3a53-0000", True)   # the same board: no note at all
    rc, (out, err) = run(capsys, base, same)
    assert rc == 1 and "regressed time host work" not in out + err and "different boards" not in out + err


def test_the_same_board_gets_no_board_note(tmp_path, capsys):
    base = _with_uuid(tmp_path, BASE, "base.json", "GPU-8c9c3a53-0000")
    cand = _with_uuid(tmp_path, fixture("same"), "cand.json", "GPU-8c9c3a53-0000")
    rc, (out, err) = run(capsys, base, cand)
    assert rc == 0 and "different boards" not in out + err


def test_the_same_run_on_both_sides_is_compared_with_a_warning(tmp_path, capsys):
    copy = tmp_path / "copy.json"
    copy.write_bytes(open(BASE, "rb").read())
    rc, v = verdict_file(tmp_path, BASE, copy)
    assert rc == 0 and {b["change"] for b in v["benchmarks"]} == {0}
    assert f"warning: {copy}: a copy of {BASE} (the same run" in capsys.readouterr().err


@pytest.mark.parametrize("runs", [["AA1", "AA1"], ["AA1", "COPY"], ["AA1", "AA2", "GZ"]])
def test_calibrate_refuses_one_run_counted_twice(tmp_path, capsys, runs):
    # Counted twice, a run agrees with itself: sd 0, and the gate then fails good builds.
    aa1, aa2 = fixture("same"), fixture("noise")
    data = open(aa1, "rb").read()
    (tmp_path / "copy.json").write_bytes(data)
    (tmp_path / "aa1.json.gz").write_bytes(gzip.compress(data))
    paths = {"AA1": aa1, "AA2": aa2, "COPY": str(tmp_path / "copy.json"), "GZ": str(tmp_path / "aa1.json.gz")}
    out = tmp_path / "noise.json"
    assert compare.main(["--calibrate", *[paths[r] for r in runs], "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert ("given twice" if runs == ["AA1", "AA1"] else f"a copy of {aa1}") in err
    assert "A/A runs must be distinct runs" in err and len(err.strip().splitlines()) == 1
    assert not out.exists()


@pytest.mark.parametrize("outputs, message", [
    (lambda d, cand: ["--markdown", cand], "--markdown {cand}: is an input file"),
    (lambda d, cand: ["--verdict", BASE], "--verdict {base}: is an input file"),
    (lambda d, cand: ["--medians", cand], "--medians {cand}: is an input file"),
    (lambda d, cand: ["--markdown", d / "m.md", "--verdict", d / "m.md"], "--markdown and --verdict both write"),
])
def test_an_output_never_overwrites_an_input_or_another_output(tmp_path, capsys, outputs, message):
    cand = tmp_path / "cand.json"
    cand.write_bytes(open(fixture("slow10"), "rb").read())
    before = cand.read_bytes(), open(BASE, "rb").read()
    assert compare.main([BASE, str(cand), *map(str, outputs(tmp_path, cand))]) == 2
    err = capsys.readouterr().err
    assert message.format(cand=cand, base=BASE) in err and len(err.strip().splitlines()) == 1
    assert (cand.read_bytes(), open(BASE, "rb").read()) == before and not (tmp_path / "m.md").exists()


def test_calibrate_out_never_overwrites_a_run(tmp_path, capsys):
    aa = tmp_path / "aa1.json"
    aa.write_bytes(open(fixture("same"), "rb").read())
    assert compare.main(["--calibrate", str(aa), fixture("noise"), "--out", str(aa)]) == 2
    assert f"--out {aa}: is an input file" in capsys.readouterr().err
    assert aa.read_bytes() == open(fixture("same"), "rb").read()
