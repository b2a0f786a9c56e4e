"""The gate's rules beyond one comparison: run conditions, the noise model from A/A
history (calibration, per-benchmark allowed change, floor, classes), throttled
benchmarks; and a replay of the committed H200 A/A runs."""
import dataclasses
import gzip
import json
import math
import statistics
from pathlib import Path

import pytest
from conftest import FIXTURES

from benchtools import compare, noise, replay
from benchtools.results import load_results

REPO = Path(__file__).resolve().parents[2]
BASE = str(FIXTURES / "compare_base.json")
SAME = FIXTURES / "compare_same.json"
KERNEL = "reduce_sum/i32/batched_vec16/N:268435456/block:256/batch:16"
LIBRARY = "reduce_sum/i32/cub_device_reduce/N:268435456"
HOST = "reduce_sum/f32/thrust_reduce/N:268435456"
CONTEXT = json.loads(SAME.read_text())["context"]


def entry(name, us, i, reps, **fields):
    return {"name": name + "/manual_time", "run_name": name + "/manual_time", "run_type": "iteration",
            "repetitions": reps, "repetition_index": i, "threads": 1, "iterations": 100,
            "real_time": us, "cpu_time": us, "time_unit": "us", **fields}


# Declared fields per benchmark, as the harness writes them.
DECLARED = {KERNEL: {"role": "kernel", "host_work": False}, LIBRARY: {"role": "library", "host_work": False},
            HOST: {"role": "library", "host_work": True}}


def write_run(path, medians, commit="c0ffee", reps=10, spread=0.001, context=None, fields=None):
    """A run whose repetitions of each benchmark lie symmetrically around the given median (µs)."""
    offsets = [spread * (k - (reps - 1) / 2) / reps for k in range(reps)]
    benchmarks = [entry(name, us * (1 + o), i, reps, **DECLARED.get(name, {}), **(fields or {}).get(name, {}))
                  for name, us in medians.items() for i, o in enumerate(offsets)]
    doc = {"context": {**CONTEXT, "git_commit": commit, **(context or {})}, "benchmarks": benchmarks}
    Path(path).write_text(json.dumps(doc))
    return str(path)


def history(tmp_path, drift):
    """Three A/A runs of one build: each benchmark's median moves by its own drift."""
    runs = []
    for j, sign in enumerate((-1, 0, 1)):
        runs.append(write_run(tmp_path / f"aa{j}.json",
                              {n: 100.0 * math.exp(sign * d) for n, d in drift.items()}))
    return runs


def verdicts(tmp_path, *argv):
    path = tmp_path / "verdict.json"
    rc = compare.main([str(a) for a in argv] + ["--verdict", str(path)])
    v = json.loads(path.read_text()) if path.exists() else None
    return rc, {b["name"]: b for b in v["benchmarks"]} if v else None, v


# --- run conditions --------------------------------------------------------------------------------

@pytest.mark.parametrize("key, value, label", [
    ("gpu_name", "NVIDIA A100-SXM4-80GB", "GPU 'NVIDIA H200' vs 'NVIDIA A100-SXM4-80GB'"),
    ("cache_mode", "hot", "cache mode 'cold' vs 'hot'"),
    ("suite", "full", "suite 'default' vs 'full'"),
    ("planted_slowdown", "reduce_sum/*/x does 3% more work", "planted build 'none' vs 'reduce_sum/*/x does 3% more"),
    ("cuda_driver_version", "12.8", "driver major version '13' vs '12'"),
    ("cuda_driver_version", 12080, "driver major version '13' vs '12'"),
    ("timing_mode", "graph", "timing mode 'events' vs 'graph'"),
    ("launch_mode", "graph", "launch 'stream' vs 'graph'"),
])
def test_different_run_conditions_exit_2_unless_forced(tmp_path, capsys, key, value, label):
    doc = json.loads(SAME.read_text())
    doc["context"][key] = value
    cand = tmp_path / "cand.json"
    cand.write_text(json.dumps(doc))
    assert compare.main([BASE, str(cand)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert err.startswith(f"bench-compare: different run conditions: {label}") and err.endswith(
        "(--force compares them anyway)")
    assert compare.main([BASE, str(cand), "--force"]) == 0


@pytest.mark.parametrize("key, value", [
    ("cuda_driver_version", "13.2"),      # same major
    ("timing_mode", "events"),            # what a file without timing_mode was timed with
    ("launch_mode", "stream"),            # what a file without launch_mode launched with
    ("planted_slowdown", ""),             # no planted build
])
def test_equivalent_conditions_compare(tmp_path, key, value):
    doc = json.loads(SAME.read_text())
    doc["context"][key] = value
    cand = tmp_path / "cand.json"
    cand.write_text(json.dumps(doc))
    assert compare.main([BASE, str(cand)]) == 0


# --- calibration ------------------------------------------------------------------------------------

def test_calibrate_measures_each_benchmarks_spread_between_runs_of_one_build(tmp_path):
    runs = history(tmp_path, {KERNEL: 0.002, LIBRARY: 0.004, HOST: 0.03})
    # A second build moves everything by 5%: that is a code change, not noise.
    runs.append(write_run(tmp_path / "b0.json", {KERNEL: 105.0, LIBRARY: 105.0, HOST: 105.0}, commit="beef"))
    runs.append(write_run(tmp_path / "b1.json", {KERNEL: 105.0 * math.exp(0.002), LIBRARY: 105.0,
                                                 HOST: 105.0}, commit="beef"))
    out = tmp_path / "noise.json"
    assert compare.main(["--calibrate", *runs, "--out", str(out)]) == 0
    model = noise.load_noise(str(out))
    assert model.conditions["GPU"] == "NVIDIA H200" and len(model.runs) == 5
    k = model.benchmarks[KERNEL]
    assert (k.runs, k.df) == (5, 3)   # 3 runs - 1 + 2 runs - 1
    # Pooled within builds: deviations -d, 0, +d and -d/2, +d/2 in ln units.
    assert k.sd == pytest.approx(math.sqrt((2 * 0.002 ** 2 + 2 * 0.001 ** 2) / 3), rel=1e-3)
    assert model.benchmarks[HOST].sd == pytest.approx(math.sqrt(2 * 0.03 ** 2 / 3), rel=1e-3)
    assert model.benchmarks[HOST].bench_class == noise.BenchClass("library", True, 268435456)
    doc = json.loads(out.read_text())
    assert doc["classes"]["library (host work), N=2^28"]["benchmarks"] == 1


@pytest.mark.parametrize("edit, message", [
    (lambda runs, d: [runs[0], write_run(d / "x.json", {KERNEL: 1.0}, commit="other")],
     "needs at least two runs of one build"),
    (lambda runs, d: runs + [write_run(d / "x.json", {KERNEL: 1.0}, context={"cache_mode": "hot"})],
     "not under the conditions of"),
    (lambda runs, d: runs + [write_run(d / "x.json", {KERNEL: 1.0}, context={"planted_slowdown": "x"})],
     "a planted build (x) is no A/A run"),
])
def test_calibrate_refuses_what_is_not_a_a_history(tmp_path, capsys, edit, message):
    runs = edit(history(tmp_path, {KERNEL: 0.002}), tmp_path)
    assert compare.main(["--calibrate", *runs, "--out", str(tmp_path / "n.json")]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and message in err
    assert not (tmp_path / "n.json").exists()


@pytest.mark.parametrize("content, message", [
    ("{}", "not a noise file"),
    ("\xff", "not a noise file"),
    ('{"format": "cuda_bench noise model 1", "benchmarks": {"a": {"sd": "nan"}}}', "malformed noise file"),
    ('{"format": "cuda_bench noise model 1", "benchmarks": {"a": {"sd": 0.01, "df": 2, "role": "kernel", "n": 1, '
     '"runs": 3, "sessions": -1}}}', "malformed noise file (benchmark a: sessions -1)"),
])
def test_a_bad_noise_file_exits_2(tmp_path, capsys, content, message):
    bad = tmp_path / "noise.json"
    bad.write_text(content)
    assert compare.main([BASE, str(SAME), "--noise", str(bad)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and message in err and str(bad) in err


def test_a_noise_file_of_other_conditions_exits_2(tmp_path, capsys):
    runs = [write_run(tmp_path / f"h{j}.json", {KERNEL: 100.0 + j}, context={"gpu_name": "NVIDIA H100"})
            for j in range(2)]
    compare.main(["--calibrate", *runs, "--out", str(tmp_path / "n.json")])
    assert compare.main([BASE, str(SAME), "--noise", str(tmp_path / "n.json")]) == 2
    assert "GPU 'NVIDIA H200' vs 'NVIDIA H100' (baseline vs noise file" in capsys.readouterr().err


# --- per-benchmark allowed change ---------------------------------------------------------------------

@pytest.fixture
def calibrated(tmp_path):
    """A kernel that drifts 0.1% between runs, a library call 0.4%, a host-timed call 3%."""
    runs = history(tmp_path, {KERNEL: 0.001, LIBRARY: 0.004, HOST: 0.03})
    out = tmp_path / "noise.json"
    assert compare.main(["--calibrate", *runs, "--out", str(out)]) == 0
    return str(out)


def test_a_regression_against_one_session_s_history_says_so(tmp_path, calibrated, capsys):
    # The three A/A runs of `calibrated` are all of 2026-11-22: its allowances know nothing of
    # the drift between sessions, and a verdict of "regressed" says so (stderr and summary).
    base = write_run(tmp_path / "base.json", {KERNEL: 100.0, LIBRARY: 100.0, HOST: 100.0})
    slower = write_run(tmp_path / "slower.json", {KERNEL: 103.0, LIBRARY: 100.0, HOST: 100.0})
    md = tmp_path / "summary.md"
    capsys.readouterr()
    assert compare.main([base, slower, "--noise", calibrated, "--markdown", str(md)]) == 1
    err = capsys.readouterr().err
    assert f"note: the A/A history is one session's (3 runs of 2026-11-22 in `{calibrated}`)" in err
    assert "**Note:** the A/A history is one session's" in md.read_text()
    same = write_run(tmp_path / "same.json", {KERNEL: 100.0, LIBRARY: 100.0, HOST: 100.0})
    assert compare.main([base, same, "--noise", calibrated]) == 0        # nothing regressed: no note
    assert "one session's" not in capsys.readouterr().err
    assert compare.main([base, slower]) == 0                             # no noise file: 3% < the fixed 6%
    assert "one session's" not in capsys.readouterr().err


def note_of_a_regression(tmp_path, capsys, runs, name="noise.json"):
    """bench-compare's stderr for a 3% kernel slowdown against a noise file of these A/A runs."""
    model = tmp_path / name
    assert compare.main(["--calibrate", *runs, "--out", str(model)]) == 0
    base = write_run(tmp_path / "base.json", {KERNEL: 100.0, LIBRARY: 100.0, HOST: 100.0})
    slower = write_run(tmp_path / "slower.json", {KERNEL: 103.0, LIBRARY: 100.0, HOST: 100.0})
    capsys.readouterr()
    assert compare.main([base, slower, "--noise", str(model)]) == 1
    return capsys.readouterr().err


def test_a_history_of_two_sessions_gets_no_session_note(tmp_path, capsys):
    runs = history(tmp_path, {KERNEL: 0.001, LIBRARY: 0.004, HOST: 0.03})
    runs.append(write_run(tmp_path / "aa_next.json", {KERNEL: 100.0, LIBRARY: 100.0, HOST: 100.0}, commit="d00d",
                          context={"date": "2026-11-23T09:00:00+00:00"}))
    runs.append(write_run(tmp_path / "aa_next2.json", {KERNEL: 100.1, LIBRARY: 100.0, HOST: 100.0}, commit="d00d",
                          context={"date": "2026-11-23T09:02:00+00:00"}))
    assert "one session's" not in note_of_a_regression(tmp_path, capsys, runs)


def test_two_sessions_of_one_day_are_two_sessions(tmp_path, capsys):
    # refresh names a second session of the same UTC day <gpu>_<day>b: the folder tells the
    # sessions apart where the date does not (the H200's history of 2026-11-27: two boards).
    first, second = tmp_path / "gpu_20261122", tmp_path / "gpu_20261122b"
    for folder in (first, second):
        folder.mkdir()
    runs = [write_run(folder / f"aa{j}.json", {KERNEL: 100.0 + j / 10, LIBRARY: 100.0, HOST: 100.0},
                      commit=commit, context={"date": f"2026-11-22T{hour}:0{j}:00+00:00"})
            for folder, commit, hour in ((first, "c0ffee", "06"), (second, "d00d", "07")) for j in range(2)]
    assert "one session's" not in note_of_a_regression(tmp_path, capsys, runs)
    # the first folder alone: one session, and the note
    assert "one session's (2 runs of 2026-11-22" in note_of_a_regression(tmp_path, capsys, runs[:2], "one.json")
    # runs of no readable date: no claim about sessions
    undated = [write_run(first / f"undated{j}.json", {KERNEL: 100.0 + j / 10, LIBRARY: 100.0, HOST: 100.0},
                         context={"date": "?"}) for j in range(2)]
    assert "one session's" not in note_of_a_regression(tmp_path, capsys, undated, "undated.json")


def test_a_benchmark_newer_than_the_other_sessions_gets_the_note(tmp_path, capsys):
    # The H100's history of 2026-11-27: 30 of its 294 benchmarks are in the second session's runs
    # only. The file's runs are of two sessions, but those benchmarks' allowances are of one.
    newer = "scan/i32/floor_scan/N:268435456"
    declared = {newer: {"role": "kernel", "host_work": False}}
    old, new = tmp_path / "gpu_20261126", tmp_path / "gpu_20261127"
    for folder in (old, new):
        folder.mkdir()
    runs = [write_run(old / f"aa{j}.json", {KERNEL: 100.0 + j / 10, LIBRARY: 100.0, HOST: 100.0}, commit="c0ffee",
                      context={"date": f"2026-11-26T06:0{j}:00+00:00"}) for j in range(2)]
    runs += [write_run(new / f"aa{j}.json", {KERNEL: 100.0 + j / 10, LIBRARY: 100.0, HOST: 100.0, newer: 50.0},
                       commit="d00d", context={"date": f"2026-11-27T06:0{j}:00+00:00"}, fields=declared)
             for j in range(2)]
    model = tmp_path / "noise.json"
    assert compare.main(["--calibrate", *runs, "--out", str(model)]) == 0
    stored = json.loads(model.read_text())["benchmarks"]
    assert stored[newer]["sessions"] == 1 and stored[KERNEL]["sessions"] == 2
    assert noise.load_noise(str(model)).benchmarks[newer].sessions == 1
    medians = {KERNEL: 100.0, LIBRARY: 100.0, HOST: 100.0, newer: 50.0}
    base = write_run(tmp_path / "base.json", medians, fields=declared)
    for slower, note in ((newer, f"the A/A history of `{newer}` is from one of the 2 sessions of `{model}` only"),
                         (KERNEL, None)):
        cand = write_run(tmp_path / "cand.json", {**medians, slower: medians[slower] * 1.03}, fields=declared)
        capsys.readouterr()
        assert compare.main([base, cand, "--noise", str(model)]) == 1
        err = capsys.readouterr().err
        assert (note in err) if note else ("one session's" not in err)


def test_a_session_is_a_folder_s_runs_close_in_time(tmp_path, capsys):
    # One refresh across midnight UTC is one session; a folder's runs a day apart are two.
    folder = tmp_path / "gpu_20261122"
    folder.mkdir()
    runs = [write_run(folder / f"aa{j}.json", {KERNEL: 100.0 + j / 10, LIBRARY: 100.0, HOST: 100.0},
                      context={"date": when}) for j, when in
            enumerate(("2026-11-22T23:58:00+00:00", "2026-11-22T23:59:30+00:00", "2026-11-23T00:01:00+00:00"))]
    listed = [{"path": r, "date": json.loads(Path(r).read_text())["context"]["date"]} for r in runs]
    assert noise.sessions(listed) == [0, 0, 0]
    assert noise.sessions(listed[:1] + [{**listed[1], "date": "2026-11-23T09:00:00+00:00"}]) == [0, 1]
    assert noise.sessions([{"path": "a/b.json", "date": "0001-01-01T00:00:00+01:00"}]) == [None]  # no overflow
    assert "one session's (3 runs of 2026-11-22 in" in note_of_a_regression(tmp_path, capsys, runs)


def test_a_session_counts_for_a_benchmark_only_where_it_adds_to_its_spread(tmp_path):
    # Session A: one run of build X (no spread of its own); session B: two runs of build Y.
    a, b = tmp_path / "gpu_20261120", tmp_path / "gpu_20261121"
    for folder in (a, b):
        folder.mkdir()
    runs = [write_run(a / "baseline.json", {KERNEL: 100.0}, commit="c0ffee",
                      context={"date": "2026-11-20T06:00:00+00:00"})]
    runs += [write_run(b / f"aa{j}.json", {KERNEL: 100.0 + j / 10}, commit="d00d",
                       context={"date": f"2026-11-21T06:0{j}:00+00:00"}) for j in range(2)]
    model = noise.calibrate([load_results(r) for r in runs])
    assert model.benchmarks[KERNEL].runs == 3 and model.benchmarks[KERNEL].df == 1
    assert model.benchmarks[KERNEL].sessions == 1


def test_the_note_names_three_regressed_benchmarks_and_counts_the_rest(tmp_path, capsys):
    # Five benchmarks that only the second session ran, all slower, and one the history lacks.
    names = [f"scan/i32/floor_scan_fixed/N:268435456/block:{b}/batch:32" for b in (32, 64, 128, 256, 512)]
    declared = {n: {"role": "kernel", "host_work": False} for n in names + ["scan/i32/unseen/N:268435456"]}
    old, new = tmp_path / "gpu_20261126", tmp_path / "gpu_20261127"
    for folder in (old, new):
        folder.mkdir()
    runs = [write_run(old / f"aa{j}.json", {KERNEL: 100.0 + j / 10}, commit="c0ffee",
                      context={"date": f"2026-11-26T06:0{j}:00+00:00"}) for j in range(2)]
    runs += [write_run(new / f"aa{j}.json", {KERNEL: 100.0 + j / 10, **{n: 50.0 for n in names}}, commit="d00d",
                       context={"date": f"2026-11-27T06:0{j}:00+00:00"}, fields=declared) for j in range(2)]
    model = tmp_path / "noise.json"
    assert compare.main(["--calibrate", *runs, "--out", str(model)]) == 0
    base = write_run(tmp_path / "base.json", {KERNEL: 100.0, **{n: 50.0 for n in declared}}, fields=declared)
    cand = write_run(tmp_path / "cand.json", {KERNEL: 100.0, **{n: 60.0 for n in declared}}, fields=declared)
    capsys.readouterr()
    assert compare.main([base, cand, "--noise", str(model)]) == 1
    err = capsys.readouterr().err
    shown = ", ".join(f"`{n}`" for n in sorted(names)[:3])   # in the rows' order
    assert f"the A/A history of {shown} and 2 more is from one of the 2 sessions of `{model}` only" in err
    assert "unseen" not in err.split("note:")[-1]      # regressed, but no history to speak of


def test_runs_of_one_source_hash_are_one_build_whatever_their_commits(tmp_path):
    # A commit that changes only the tools or the docs keeps the source hash: its A/A runs
    # and the earlier commit's pool into one spread, the offset between the sessions in it.
    code = {"source_hash": "0123456789abcdef", "cccl_version": "3.0.1", "cuda_runtime_version": "13.0",
            "min_samples": "8", "placements": "1"}
    runs = [load_results(write_run(tmp_path / f"r{j}.json", {KERNEL: 100.0 + j / 10}, commit=commit, context=code))
            for j, commit in enumerate(("aaa", "bbb", "bbb"))]
    assert noise.calibrate(runs).benchmarks[KERNEL].df == 2                     # one build of three runs
    assert len(replay.aa_pairs(runs)) == 6
    assert [r["source_hash"] for r in noise.calibrate(runs).runs] == ["0123456789abcdef"] * 3
    for j, other in enumerate(({"source_hash": "fedcba9876543210"},    # other code or configuration
                               {"cccl_version": "3.5.0"},              # another CCCL
                               {"cuda_runtime_version": "13.1"},       # another runtime
                               {"min_samples": "16"},                  # another protocol
                               {"placements": "8"})):
        alone = load_results(write_run(tmp_path / f"o{j}.json", {KERNEL: 100.0}, commit="bbb",
                                       context={**code, **other}))
        assert noise.calibrate([*runs, alone]).benchmarks[KERNEL].df == 2, other   # alone in its build
    legacy = [load_results(write_run(tmp_path / f"l{j}.json", {KERNEL: 100.0 + j / 10}, commit=commit))
              for j, commit in enumerate(("aaa", "bbb", "bbb"))]                 # runs from before the hash
    assert noise.calibrate(legacy).benchmarks[KERNEL].df == 1 and len(replay.aa_pairs(legacy)) == 2
    unknown = [load_results(write_run(tmp_path / f"u{j}.json", {KERNEL: 100.0 + j / 10}, commit=commit,
                                      context={**code, "source_hash": "unknown"}))
               for j, commit in enumerate(("aaa", "bbb", "bbb"))]                # no hash: by commit
    assert noise.calibrate(unknown).benchmarks[KERNEL].df == 1


def test_runs_of_one_source_hash_are_called_an_a_a_comparison(tmp_path, capsys):
    # Tools-only commits keep the source hash: what bench-compare flags between such runs is
    # the machine or the run, and it says so (stderr and the summary).
    code = {"source_hash": "0123456789abcdef", "cccl_version": "3.0.1", "cuda_runtime_version": "13.0"}
    medians = {KERNEL: 100.0, LIBRARY: 100.0, HOST: 100.0}
    base = write_run(tmp_path / "base.json", medians, commit="aaa", context=code)
    same = write_run(tmp_path / "same.json", medians, commit="bbb", context=code)
    slower = write_run(tmp_path / "slower.json", {**medians, KERNEL: 110.0}, commit="bbb", context=code)
    md = tmp_path / "summary.md"
    capsys.readouterr()
    assert compare.main([base, same, "--markdown", str(md)]) == 0
    note = ("baseline and candidate were built from the same code and configuration (source_hash "
            "0123456789abcdef) though their commits differ (aaa, bbb)")
    assert f"note: {note}: an A/A comparison" in capsys.readouterr().err
    assert f"**Note:** {note}: an A/A comparison" in md.read_text()
    assert compare.main([base, slower]) == 1
    assert f"{note}: the regression flagged is the machine or the run, not the code" in capsys.readouterr().err
    for other in ({**code, "source_hash": "fedcba9876543210"}, {**code, "cccl_version": "3.5.0"}, {}):
        cand = write_run(tmp_path / "cand.json", medians, commit="bbb", context=other)
        assert compare.main([base, cand]) == 0
        assert "same code" not in capsys.readouterr().err, other
    # A commit and its working tree with changes (tools only): the mark that tells them apart is kept.
    sha = "e2550996a8f093b1c6b83c94b490377ce582c557"
    clean = write_run(tmp_path / "clean.json", medians, commit=sha, context=code)
    dirty = write_run(tmp_path / "dirty.json", medians, commit=sha + "-dirty", context=code)
    assert compare.main([clean, dirty]) == 0
    assert "though their commits differ (e2550996a8f0, e2550996a8f0-dirty): an A/A" in capsys.readouterr().err


def test_a_3_percent_kernel_slowdown_is_caught_while_the_noisy_host_call_is_allowed_more(tmp_path, calibrated):
    base = write_run(tmp_path / "base.json", {KERNEL: 100.0, LIBRARY: 100.0, HOST: 100.0})
    cand = write_run(tmp_path / "cand.json", {KERNEL: 103.0, LIBRARY: 100.2, HOST: 108.0})
    rc, rows, v = verdicts(tmp_path, base, cand, "--noise", calibrated)
    assert rc == 1 and v["status"] == "regression"
    assert rows[KERNEL]["verdict"] == "regressed" and rows[KERNEL]["allowed_from"] == "history"
    assert rows[KERNEL]["allowed_change"] == pytest.approx(0.01)            # the floor: its drift is far below
    assert rows[LIBRARY]["verdict"] == "unchanged"
    # 8% is inside the host call's own drift: sd of ln(median) ~3%, 4 sd of a difference ~ 19%.
    assert rows[HOST]["verdict"] == "unchanged" and rows[HOST]["allowed_change"] > 0.15
    assert rows[KERNEL]["class"] == "kernel, N=2^28" and rows[HOST]["class"] == "library (host work), N=2^28"
    classes = {c["class"]: c for c in v["min_detectable_by_class"]}
    assert classes["kernel, N=2^28"]["median"] < 0.03 < classes["library (host work), N=2^28"]["median"]


def test_without_a_noise_file_the_fixed_threshold_applies(tmp_path):
    base = write_run(tmp_path / "base.json", {KERNEL: 100.0, HOST: 100.0})
    cand = write_run(tmp_path / "cand.json", {KERNEL: 103.0, HOST: 108.0})
    rc, rows, v = verdicts(tmp_path, base, cand)
    assert rc == 1 and rows[HOST]["verdict"] == "regressed" and rows[KERNEL]["verdict"] == "unchanged"
    assert {r["allowed_from"] for r in rows.values()} == {"fixed"} and v["noise"] is None


def test_threshold_overrides_the_noise_file_and_floor_raises_it(tmp_path, calibrated):
    base = write_run(tmp_path / "base.json", {KERNEL: 100.0, HOST: 100.0})
    cand = write_run(tmp_path / "cand.json", {KERNEL: 103.0, HOST: 108.0})
    rc, rows, _ = verdicts(tmp_path, base, cand, "--noise", calibrated, "--threshold", "0.05")
    assert rows[KERNEL]["verdict"] == "unchanged" and rows[HOST]["verdict"] == "regressed"
    rc, rows, _ = verdicts(tmp_path, base, cand, "--noise", calibrated, "--floor", "0.04")
    assert rc == 0 and rows[KERNEL]["allowed_change"] == pytest.approx(0.04)


def test_noisy_repetitions_widen_the_allowed_change(tmp_path, calibrated):
    # Same history, but this candidate's repetitions spread over 20%: its median is less certain.
    base = write_run(tmp_path / "base.json", {KERNEL: 100.0})
    cand = write_run(tmp_path / "cand.json", {KERNEL: 103.0}, spread=0.2)
    rc, rows, _ = verdicts(tmp_path, base, cand, "--noise", calibrated)
    assert rc == 0 and rows[KERNEL]["allowed_change"] > 0.03


def test_a_benchmark_without_history_uses_its_class_then_the_fixed_threshold(tmp_path, calibrated):
    other_kernel = "reduce_sum/i32/warp_shuffle_block/N:268435456/block:256/batch:8"
    DECLARED[other_kernel] = {"role": "kernel", "host_work": False}
    try:
        base = write_run(tmp_path / "base.json", {other_kernel: 100.0, "dot/f32/cpu_threads/N:268435456": 100.0})
        cand = write_run(tmp_path / "cand.json", {other_kernel: 102.0, "dot/f32/cpu_threads/N:268435456": 104.0})
    finally:
        del DECLARED[other_kernel]
    rc, rows, _ = verdicts(tmp_path, base, cand, "--noise", calibrated)
    assert rows[other_kernel]["allowed_from"] == "class" and rows[other_kernel]["verdict"] == "regressed"
    cpu = rows["dot/f32/cpu_threads/N:268435456"]
    assert (cpu["allowed_from"], cpu["allowed_change"], cpu["verdict"]) == ("fixed", 0.06, "unchanged")


# --- throttled ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("side", ["candidate", "baseline"])
def test_a_throttled_benchmark_is_reported_not_regressed(tmp_path, capsys, calibrated, side):
    flags = {KERNEL: {"throttled": True}}
    base = write_run(tmp_path / "base.json", {KERNEL: 100.0, LIBRARY: 100.0},
                     fields=flags if side == "baseline" else None)
    cand = write_run(tmp_path / "cand.json", {KERNEL: 110.0, LIBRARY: 100.0},
                     fields=flags if side == "candidate" else None)
    rc, rows, v = verdicts(tmp_path, base, cand, "--noise", calibrated)
    assert rc == 0 and v["status"] == "pass"
    assert (rows[KERNEL]["verdict"], rows[KERNEL]["throttled"]) == ("throttled", side)
    assert rows[KERNEL]["change"] == pytest.approx(0.10)
    capsys.readouterr()
    compare.main([base, cand, "--noise", calibrated])
    out = capsys.readouterr().out
    assert out.splitlines()[0] == "### GPU regression check: pass (1 throttled, 1 unchanged)"
    assert f"| `{KERNEL}` |" in out and f"throttled ({side}): not judged |" in out


def test_throttled_does_not_hide_another_regression(tmp_path, calibrated):
    base = write_run(tmp_path / "base.json", {KERNEL: 100.0, LIBRARY: 100.0})
    cand = write_run(tmp_path / "cand.json", {KERNEL: 110.0, LIBRARY: 110.0}, fields={KERNEL: {"throttled": True}})
    rc, rows, _ = verdicts(tmp_path, base, cand, "--noise", calibrated)
    assert rc == 1 and rows[LIBRARY]["verdict"] == "regressed" and rows[KERNEL]["verdict"] == "throttled"


# --- replay of the committed H200 A/A runs ------------------------------------------------------------------

AA_RUNS = ["results/regression/baseline_15b4033_nvidia-h200.json.gz", "results/regression/aa1_nvidia-h200.json.gz",
           "results/regression/aa2_nvidia-h200.json.gz",                                      # build 15b4033
           "results/regression/baseline_efa9852_nvidia-h200.json.gz",
           "results/regression/aa3_nvidia-h200.json.gz"]  # build efa9852
NOISE_FILE = "results/regression/noise_nvidia-h200_before_precision.json"  # the model of these runs (precision sampling came after)


def _declared(record):
    """These files predate the per-benchmark roles: what the declarations now say, for the class summary."""
    if record.variant.startswith("thrust_"):
        return "library", True
    if record.variant.startswith("cub_"):
        return "library", False
    return "kernel", False


@pytest.fixture(scope="module")
def aa_runs():
    runs = []
    for path in AA_RUNS:
        run = load_results(REPO / path)
        run.path = path
        run.records = [dataclasses.replace(r, role=_declared(r)[0], host_work=_declared(r)[1]) for r in run.records]
        runs.append(run)
    return runs


def test_the_committed_noise_file_is_the_calibration_of_the_committed_a_a_runs():
    model = noise.load_noise(str(REPO / NOISE_FILE))
    paths = [r["path"] for r in model.runs]
    assert set(AA_RUNS) <= set(paths)          # the history keeps every committed A/A run
    fresh = noise.calibrate([load_results(REPO / p) for p in paths])
    assert {n: round(b.sd, 6) for n, b in fresh.benchmarks.items()} == {n: b.sd for n, b in model.benchmarks.items()}


def test_committed_a_a_pairs_pass_with_the_committed_noise_file(aa_runs):
    result = replay.replay(aa_runs, 0.03, compare.Settings(noise=noise.load_noise(str(REPO / NOISE_FILE))))
    assert len(result.pairs) == 8 and result.comparisons == 8 * 197
    assert result.false_alarms == []


def test_leave_the_pair_out_replay_of_the_first_build(aa_runs):
    # Each of build 15b4033's pairs judged by a model that never saw it (the third run and build efa9852).
    result = replay.replay(aa_runs, 0.03)
    assert [fa for fa in result.false_alarms if fa[0] in AA_RUNS[:3]] == []
    kernels = result.classes[("kernel", False, 1 << 28)]
    assert kernels.caught / kernels.tried >= 0.95              # a 3% kernel slowdown at 2^28: caught
    assert statistics.median(kernels.detectable) < 0.02


def test_a_copy_with_one_kernel_slowed_3_percent_flags_that_benchmark_and_nothing_else(aa_runs):
    base, cand = aa_runs[0], aa_runs[1]
    model = noise.calibrate([aa_runs[2], aa_runs[3], aa_runs[4]])   # the pair left out
    slowed = "reduce_sum/f32/batched_vec16_shfl/N:268435456/block:256/batch:16"
    copy = dataclasses.replace(cand, records=[dataclasses.replace(r, seconds=r.seconds * 1.03) if r.name == slowed
                                              else r for r in cand.records])
    c = compare.compare(base, copy, compare.Settings(noise=model))
    assert [(r.name, r.verdict) for r in c.rows if r.verdict == compare.REGRESSED] == [(slowed, compare.REGRESSED)]
    row = next(r for r in c.rows if r.name == slowed)
    assert row.change == pytest.approx(0.03, abs=0.005) and row.allowed.threshold < 0.02
    assert compare.compare(base, cand, compare.Settings(noise=model)).count(compare.REGRESSED) == 0


# --- roles -----------------------------------------------------------------------------------------------

def test_roles_select_what_is_gated(tmp_path, capsys):
    cpu = "dot/f32/cpu_threads/N:268435456"
    DECLARED[cpu] = {"role": "cpu", "host_work": True}
    try:
        base = write_run(tmp_path / "base.json", {KERNEL: 100.0, cpu: 100.0})
        cand = write_run(tmp_path / "cand.json", {KERNEL: 100.0, cpu: 130.0})
    finally:
        del DECLARED[cpu]
    assert compare.main([base, cand]) == 1                       # every role by default
    rc, rows, v = verdicts(tmp_path, base, cand, "--roles", "kernel,library")
    assert rc == 0 and list(rows) == [KERNEL] and v["not_gated"] == [f"{cpu} (cpu)"]
    capsys.readouterr()
    assert compare.main([base, cand, "--roles", "kernel,gpu"]) == 2
    assert "--roles: expected a comma list of kernel, library, cpu, got 'kernel,gpu'" in capsys.readouterr().err


def test_roles_never_drop_a_benchmark_whose_file_predates_roles(tmp_path):
    # compare_*.json carry no roles: with --roles they are still judged (nothing is known to exclude them).
    rc, rows, v = verdicts(tmp_path, BASE, str(FIXTURES / "compare_slow10.json"), "--roles", "kernel")
    assert rc == 1 and len(rows) == 6 and v["not_gated"] == []


def test_replay_cli_reports_false_alarms_and_detection(tmp_path, capsys):
    drift = {KERNEL: 0.001, LIBRARY: 0.004, HOST: 0.03}
    runs = [write_run(tmp_path / f"aa{j}.json", {n: 100.0 * math.exp(x * d) for n, d in drift.items()})
            for j, x in enumerate((-1.5, -0.5, 0.5, 1.5))]
    assert replay.main(runs) == 0
    out = capsys.readouterr().out
    assert out.startswith("12 A/A comparisons (ordered pairs, each judged with a noise model of the other runs), "
                          "36 benchmark comparisons: 0 false alarms")
    assert "| kernel, N=2^28 | 12 | 12 (100%) |" in out          # 3% of a 0.1%-drift kernel: always caught
    assert "| library (host work), N=2^28 | 12 | 0 (0%) |" in out  # inside a 3%-drift call's noise


def test_replay_cli_needs_two_runs_of_one_build(tmp_path, capsys):
    assert replay.main([BASE]) == 2
    assert capsys.readouterr().err.strip() == ("bench-replay: no two runs of one build (source hash, or git_commit): "
                                              "nothing to replay")


# --- the precision-sampled suite (fixtures: make_gate_fixtures.py) ----------------------------------------

GATE_HISTORY = [str(FIXTURES / f"gate_h{j}.json") for j in (1, 2, 3)]
GATE_BASE = str(FIXTURES / "gate_base.json")
PLANTED = ("reduce_sum/i32/floor_sum/N:16777216", "reduce_sum/i32/floor_sum/N:268435456")
SHIFTED = "reduce_sum/i32/batched_vec16/N:268435456/block:256/batch:16"


@pytest.fixture
def gate_noise(tmp_path):
    path = tmp_path / "noise.json"
    assert compare.main(["--calibrate", *GATE_HISTORY, "--out", str(path)]) == 0
    return str(path)


def gate(tmp_path, candidate, noise_file, *extra):
    return verdicts(tmp_path, GATE_BASE, str(FIXTURES / f"gate_{candidate}.json"), "--noise", noise_file,
                    "--roles", "kernel,library", *extra)


@pytest.mark.parametrize("candidate", ["aa1", "aa2", "aa3"])
def test_sampled_a_a_pairs_flag_nothing(tmp_path, gate_noise, candidate):
    rc, rows, v = gate(tmp_path, candidate, gate_noise)
    assert rc == 0 and v["status"] == "pass"
    assert all(r["verdict"] == compare.UNCHANGED for r in rows.values())
    row = rows[SHIFTED]
    low, high = row["change_interval"]                   # the change's 95% interval, from the repetitions'
    assert low < row["change"] < high and high - low < 0.01


def test_sampled_planted_3_percent_is_flagged_with_nothing_else(tmp_path, gate_noise):
    rc, rows, v = gate(tmp_path, "planted3", gate_noise, "--force")   # a planted build is another condition
    assert rc == 1
    assert sorted(n for n, r in rows.items() if r["verdict"] == compare.REGRESSED) == sorted(PLANTED)
    assert all(r["verdict"] == compare.UNCHANGED for n, r in rows.items() if n not in PLANTED)


def test_a_repetition_that_stopped_on_time_widens_the_allowance_instead_of_flagging(tmp_path, gate_noise):
    # The same +2.5% on the same benchmark: flagged when the repetitions reached their precision,
    # marked imprecise (and not flagged) when they stopped on time with ±2% intervals.
    rc, rows, _ = gate(tmp_path, "precise_shift", gate_noise)
    assert rc == 1 and rows[SHIFTED]["verdict"] == compare.REGRESSED and "imprecise" not in rows[SHIFTED]
    precise_allowed = rows[SHIFTED]["allowed_change"]
    rc, rows, _ = gate(tmp_path, "timecap", gate_noise)
    row = rows[SHIFTED]
    assert rc == 0 and row["verdict"] == compare.UNCHANGED and row["imprecise"] == "candidate"
    assert row["change"] > precise_allowed                   # would have been flagged at the usual allowance
    assert row["allowed_change"] > row["change"] and row["widest_half_width"] > 0.01


def test_the_summary_says_how_the_candidate_was_sampled_and_marks_imprecise_benchmarks(tmp_path, gate_noise, capsys):
    assert compare.main([GATE_BASE, str(FIXTURES / "gate_timecap.json"), "--noise", gate_noise]) == 0
    out = capsys.readouterr().out
    assert "Candidate sampled to ±0.25%, max 0.25 s; 33 repetitions stopped " in out
    assert "by the repetitions' own 95% intervals" in out
    line = next(x for x in out.splitlines() if x.startswith(f"| `{SHIFTED}` |"))
    assert "unchanged (imprecise: candidate stopped before its precision, ±" in line


def test_replay_of_sampled_runs_catches_3_percent_at_2_28(gate_noise):
    runs = [load_results(p) for p in [GATE_BASE] + [str(FIXTURES / f"gate_aa{j}.json") for j in (1, 2, 3)]]
    result = replay.replay(runs, 0.03, compare.Settings(noise=noise.load_noise(gate_noise)))
    assert result.false_alarms == [] and len(result.pairs) == 12
    kernels = result.classes[("kernel", False, 1 << 28)]
    assert kernels.caught == kernels.tried


def _old_format(tmp_path, path):
    """A sampled fixture as the suite before precision sampling wrote it: no intervals."""
    doc = json.loads(Path(path).read_text())
    for key in ("precision_percent", "max_time_seconds", "min_samples", "max_samples", "suite_wall_seconds"):
        doc["context"].pop(key)
    for b in doc["benchmarks"]:
        for key in ("samples", "ci_low", "ci_high", "stop_reason"):
            b.pop(key, None)
    out = tmp_path / f"old_{Path(path).name}"
    out.write_text(json.dumps(doc))
    return str(out)


def test_an_old_format_baseline_or_noise_file_is_refused_in_one_line(tmp_path, capsys, gate_noise):
    old_base = _old_format(tmp_path, GATE_BASE)
    cand = str(FIXTURES / "gate_aa1.json")
    assert compare.main([old_base, cand, "--noise", gate_noise]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert "sampling 'iterations (before precision sampling)' vs '±0.25%, max 0.25 s'" in err
    assert "the baseline predates precision sampling: refresh them on this GPU with " \
           "tools/run-regression --refresh-baseline" in err
    old_noise = tmp_path / "old_noise.json"
    assert compare.main(["--calibrate", *[_old_format(tmp_path, p) for p in GATE_HISTORY],
                         "--out", str(old_noise)]) == 0
    capsys.readouterr()
    assert compare.main([GATE_BASE, cand, "--noise", str(old_noise)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "the noise file predates precision sampling" in err


def test_a_committed_noise_file_from_before_the_key_reads_as_before_sampling():
    model = noise.load_noise(str(REPO / NOISE_FILE))
    assert model.conditions["sampling"] == noise.BEFORE_SAMPLING


def test_another_precision_is_another_condition(tmp_path, capsys):
    doc = json.loads(Path(FIXTURES / "gate_aa1.json").read_text())
    doc["context"]["precision_percent"] = 0.5
    cand = tmp_path / "cand.json"
    cand.write_text(json.dumps(doc))
    assert compare.main([GATE_BASE, str(cand)]) == 2
    assert "sampling '±0.25%, max 0.25 s' vs '±0.5%, max 0.25 s'" in capsys.readouterr().err


def test_a_gzipped_noise_file_is_read(tmp_path, gate_noise):
    packed = tmp_path / "noise.json.gz"
    packed.write_bytes(gzip.compress(Path(gate_noise).read_bytes()))
    assert noise.load_noise(str(packed)).benchmarks == noise.load_noise(gate_noise).benchmarks


def test_a_run_with_intervals_is_sampled_even_when_its_context_does_not_say_so(tmp_path, capsys):
    doc = json.loads(Path(GATE_BASE).read_text())
    for key in ("precision_percent", "max_time_seconds"):
        doc["context"].pop(key)
    cand = tmp_path / "cand.json"
    cand.write_text(json.dumps(doc))
    assert compare.main([_old_format(tmp_path, GATE_BASE), str(cand)]) == 2
    err = capsys.readouterr().err
    assert "sampling 'iterations (before precision sampling)' vs 'sampled (precision not recorded)'" in err
    assert "the baseline predates precision sampling" in err


def test_another_minimum_sampling_time_is_another_condition(tmp_path, capsys):
    """--min-time changes when precision may stop (docs/precision.md): a candidate sampled
    with 5 ms against a baseline without is refused naming both; 0 reads as absent."""
    doc = json.loads(Path(FIXTURES / "gate_aa1.json").read_text())
    doc["context"]["min_time_seconds"] = "0.005"
    cand = tmp_path / "cand.json"
    cand.write_text(json.dumps(doc))
    assert compare.main([GATE_BASE, str(cand)]) == 2
    assert "sampling '±0.25%, max 0.25 s' vs '±0.25%, max 0.25 s, min 0.005 s'" in capsys.readouterr().err
    doc["context"]["min_time_seconds"] = "0"
    cand.write_text(json.dumps(doc))
    assert noise.sampling(doc["context"]) == "±0.25%, max 0.25 s"
