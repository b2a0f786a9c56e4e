"""A baseline refresh (tools/run-regression --refresh-baseline, benchtools.refresh): the
session's runs filed in their own folder, the noise file recalibrated from them and
the earlier history that still applies; and the script around it, with a stand-in
cuda_bench, nvidia-smi and cmake (no GPU, no build)."""
import gzip
import json
import os
import shutil
import subprocess
import sys
from datetime import datetime, timezone
from pathlib import Path

import pytest
from conftest import FIXTURES, build_packages_present

from benchtools import compare, noise, refresh
from benchtools.results import load_results

ROOT = Path(__file__).resolve().parents[2]
GPU_SLUG = "nvidia-h200"   # the compare_* fixtures' GPU
BASELINE = f"results/baseline/{GPU_SLUG}.json"
NOISE = f"results/regression/noise_{GPU_SLUG}.json"
HISTORY = "results/regression"


def write_run(path, fixture="compare_same", commit="feed123", date="2026-11-22T10:00:00+00:00", **context):
    """A fixture run with its context changed (git_commit, date and any other key)."""
    doc = json.loads((FIXTURES / f"{fixture}.json").read_text())
    doc["context"].update(git_commit=commit, date=date, **context)
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    Path(path).write_text(json.dumps(doc))
    return str(path)


def session(tmp_path, commit="feed123", day="2026-11-22", **context):
    """This session's measured runs (build/regression/): a baseline and two A/A runs of one build."""
    return [write_run(tmp_path / "build" / f"{name}.json", fixture, commit, f"{day}T10:0{i}:00+00:00", **context)
            for i, (name, fixture) in enumerate((("baseline", "compare_base"), ("aa1", "compare_same"),
                                                 ("aa2", "compare_noise")))]


def refresh_main(runs, capsys):
    rc = refresh.main([*runs, "--baseline", BASELINE, "--noise", NOISE, "--history-dir", HISTORY])
    out = capsys.readouterr()
    return rc, out.out, out.err


@pytest.fixture
def repo(tmp_path, monkeypatch):
    """An empty checkout: paths in noise files are relative to the repository root."""
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_a_refresh_files_its_runs_and_calibrates_the_noise_file_from_them(repo, capsys):
    runs = session(repo)
    rc, out, err = refresh_main(runs, capsys)
    assert rc == 0, err
    folder = f"{HISTORY}/{GPU_SLUG}_20261122"
    for source, name in zip(runs, ("baseline", "aa1", "aa2")):
        assert gzip.decompress(Path(f"{folder}/{name}.json.gz").read_bytes()) == Path(source).read_bytes()
    assert Path(BASELINE).read_bytes() == Path(runs[0]).read_bytes()
    doc = json.loads(Path(NOISE).read_text())
    assert [r["path"] for r in doc["runs"]] == [f"{folder}/{n}.json.gz" for n in ("baseline", "aa1", "aa2")]
    # the same model as bench-compare --calibrate of the committed copies
    expected = noise.calibrate([load_results(f"{folder}/{n}.json.gz") for n in ("baseline", "aa1", "aa2")])
    assert doc == expected.to_json()
    assert all(b["df"] == 2 for b in doc["benchmarks"].values())
    assert f"commit them: git add {BASELINE} {folder} {NOISE}" in out.splitlines()
    assert f"noise file {NOISE}: 3 runs of this session + 0 earlier (1 build)" in out


def test_a_model_of_one_a_a_pair_is_refreshed_with_a_warning(repo, capsys):
    rc, out, err = refresh_main(session(repo)[:2], capsys)
    assert rc == 0, err
    assert f"noise file {NOISE}: 2 runs of this session + 0 earlier (1 build)" in out
    assert ("warning: the noise file rests on 2 runs; shifts between runs that it has not seen will read as "
            "regressions") in out
    assert "record at least 3 (REGRESSION_AA_RUNS=2)" in out


def test_three_runs_refresh_without_the_warning(repo, capsys):
    rc, out, err = refresh_main(session(repo), capsys)
    assert rc == 0, err
    assert "warning" not in out


def test_the_folder_is_named_by_the_utc_date_and_never_reused(repo, capsys):
    runs = session(repo)
    for name in (f"{GPU_SLUG}_20261123", f"{GPU_SLUG}_20261123b"):
        (repo / HISTORY / name).mkdir(parents=True)
        (repo / HISTORY / name / "baseline.json").write_text("earlier session")
    # 23:30 at UTC-5 is the next day in UTC
    runs[0] = write_run(runs[0], "compare_base", "feed123", "2026-11-22T23:30:00-05:00")
    rc, out, err = refresh_main(runs, capsys)
    assert rc == 0, err
    assert f"this session's 3 runs: {HISTORY}/{GPU_SLUG}_20261123c/ (baseline.json.gz, aa1.json.gz, aa2.json.gz)" in out
    assert (repo / HISTORY / f"{GPU_SLUG}_20261123" / "baseline.json").read_text() == "earlier session"


def test_a_run_without_a_date_is_filed_under_today(tmp_path):
    run = load_results(write_run(tmp_path / "a.json", date="not a date"))
    now = datetime(2027, 1, 2, 3, 4, tzinfo=timezone.utc)
    assert refresh.session_folder(tmp_path, run, now) == tmp_path / f"{GPU_SLUG}_20270102"


def earlier_noise_file(repo, runs, calibrated_from):
    """A committed noise file that lists `runs` (paths relative to the root, with the
    identity each had then), its model calibrated from `calibrated_from`."""
    doc = noise.calibrate([load_results(p) for p in calibrated_from]).to_json()
    doc["runs"] = [{"path": p, "git_commit": c, "date": d} for p, c, d in
                   ((p, *(json.loads(Path(p).read_text())["context"][k] for k in ("git_commit", "date")))
                    if Path(p).exists() else (p, "gone", "2026-01-01") for p in runs)]
    (repo / NOISE).parent.mkdir(parents=True, exist_ok=True)
    (repo / NOISE).write_text(json.dumps(doc))


def test_the_history_keeps_earlier_runs_that_still_apply_and_names_those_left_out(repo, capsys):
    old = f"{HISTORY}/{GPU_SLUG}_20261101"
    kept = [write_run(f"{old}/baseline.json", "compare_base", "0ld0ld1"),
            write_run(f"{old}/aa1.json", "compare_same", "0ld0ld1")]
    driver12 = write_run(f"{HISTORY}/driver12.json", "compare_same", "0ld0ld1", cuda_driver_version="12.8")
    hot = write_run(f"{HISTORY}/hot.json", "compare_same", "0ld0ld1", cache_mode="hot")
    replaced = write_run(f"{HISTORY}/replaced.json", "compare_same", "0ld0ld1")
    old_baseline = write_run(BASELINE, "compare_same", "0ld0ld1")   # a history that listed the baseline itself
    gone = f"{HISTORY}/gone.json"
    # --calibrate itself refuses mixed conditions: the refresh must sort the history first
    assert compare.main(["--calibrate", *kept, driver12]) == 2
    assert "driver major version '13' vs '12'" in capsys.readouterr().err
    planted = write_run(f"{HISTORY}/planted.json", "compare_same", "0ld0ld1")   # listed as a clean run ...
    earlier_noise_file(repo, [*kept, driver12, hot, replaced, old_baseline, gone, planted], kept)
    write_run(replaced, "compare_same", "0ld0ld1", date="2026-11-05T00:00:00+00:00")   # ... then changed
    write_run(planted, "compare_same", "0ld0ld1", planted_slowdown="x does 3% more work")

    runs = session(repo, day="2026-11-22")
    rc, out, err = refresh_main(runs, capsys)
    assert rc == 0, err
    doc = json.loads(Path(NOISE).read_text())
    folder = f"{HISTORY}/{GPU_SLUG}_20261122"
    assert [r["path"] for r in doc["runs"]] == [f"{folder}/{n}.json.gz" for n in ("baseline", "aa1", "aa2")] + kept
    assert f"noise file {NOISE}: 3 runs of this session + 2 earlier (2 builds)" in out
    left = {line.split(": ", 2)[1]: line.split(": ", 2)[2] for line in out.splitlines()
            if line.startswith("left out of the history: ")}
    assert left == {
        driver12: "other conditions: driver major version '13' vs '12'",
        hot: "other conditions: cache mode 'cold' vs 'hot'",
        replaced: "not the run the noise file recorded (git_commit, date: 0ld0ld1, 2026-11-22T10:00:00+00:00 "
                  "then; 0ld0ld1, 2026-11-05T00:00:00+00:00 now)",
        BASELINE: "overwritten by this refresh",
        gone: "no longer exists",
        planted: "a planted build",
    }
    # each benchmark pools its spread within the two builds: 2 + 1 degrees of freedom, of two sessions
    assert {b["df"] for b in doc["benchmarks"].values()} == {3}
    assert {b["sessions"] for b in doc["benchmarks"].values()} == {2}


def test_a_run_already_in_the_history_is_not_counted_twice(repo, capsys):
    runs = session(repo)
    assert refresh_main(runs, capsys)[0] == 0
    rc, out, err = refresh_main(runs, capsys)   # the same files filed again
    assert rc == 0, err
    doc = json.loads(Path(NOISE).read_text())
    assert len(doc["runs"]) == 3 and all(r["path"].startswith(f"{HISTORY}/{GPU_SLUG}_20261122b/") for r in doc["runs"])
    assert (f"left out of the history: {HISTORY}/{GPU_SLUG}_20261122/aa1.json.gz: the same run as "
            f"{HISTORY}/{GPU_SLUG}_20261122b/aa1.json.gz") in out


def test_sessions_of_one_source_hash_are_one_build(repo, capsys):
    # A refresh after a tools-only commit: the earlier session's runs are of the same code.
    assert refresh_main(session(repo, commit="aaa1111", day="2026-11-21", source_hash="0123456789abcdef"),
                        capsys)[0] == 0
    rc, out, err = refresh_main(session(repo, commit="bbb2222", source_hash="0123456789abcdef"), capsys)
    assert rc == 0, err
    assert f"noise file {NOISE}: 3 runs of this session + 3 earlier (1 build)" in out
    assert {b["df"] for b in json.loads(Path(NOISE).read_text())["benchmarks"].values()} == {5}


def test_an_unreadable_noise_file_is_replaced_with_a_note(repo, capsys):
    Path(NOISE).parent.mkdir(parents=True)
    Path(NOISE).write_text("{}")
    rc, out, err = refresh_main(session(repo), capsys)
    assert rc == 0, err
    assert f"left out of the history: {NOISE}: its history cannot be read ({NOISE}: not a noise file" in out
    assert len(json.loads(Path(NOISE).read_text())["runs"]) == 3


def test_without_aa_runs_only_the_baseline_is_written(repo, capsys):
    earlier = [write_run(f"{HISTORY}/a{i}.json", commit="0ld0ld1") for i in range(2)]
    earlier_noise_file(repo, earlier, earlier)
    before = Path(NOISE).read_text()
    base = session(repo)[0]
    rc, out, err = refresh_main([base], capsys)
    assert rc == 0, err
    assert Path(BASELINE).read_bytes() == Path(base).read_bytes()
    assert Path(NOISE).read_text() == before
    assert not list((repo / HISTORY).glob(f"{GPU_SLUG}_*"))
    assert out.splitlines() == [
        f"new baseline: {BASELINE} (NVIDIA H200, commit feed123)",
        f"noise file {NOISE} NOT recalibrated (no A/A runs: REGRESSION_AA_RUNS=0); its history predates this baseline",
        f"commit it: git add {BASELINE}"]


def test_a_baseline_that_records_no_commit_is_reported_as_unknown(repo, capsys):
    base = session(repo)[0]
    doc = json.loads(Path(base).read_text())
    del doc["context"]["git_commit"]
    Path(base).write_text(json.dumps(doc))
    rc, out, err = refresh_main([base], capsys)
    assert rc == 0, err
    assert out.splitlines()[0] == (f"new baseline: {BASELINE} (NVIDIA H200, commit unknown: "
                                   f"the run records no git_commit)")


def _errored(path):
    doc = json.loads(Path(path).read_text())
    doc["benchmarks"][0].update(error_occurred=True, error_message="cudaErrorMemoryAllocation")
    Path(path).write_text(json.dumps(doc))


def _truncated(path):
    Path(path).write_text(Path(path).read_text()[:-2000])


def _other_gpu_baseline(path):
    write_run(BASELINE, gpu_name="NVIDIA H100 80GB HBM3")


def _other_gpu_noise(path):
    Path(NOISE).parent.mkdir(parents=True, exist_ok=True)
    Path(NOISE).write_text(json.dumps({**noise.calibrate([load_results(path)] * 2).to_json(),
                                       "gpu_name": "NVIDIA H100 80GB HBM3"}))


@pytest.mark.parametrize("spoil, message", [
    (_errored, "build/aa1.json: 1 benchmark runs reported errors (first: reduce_sum/i32/cub_device_reduce/"),
    (_truncated, "build/aa1.json: truncated (interrupted run?)"),
    (lambda p: write_run(p, cache_mode="hot"), "build/aa1.json: not under the conditions of "),
    (lambda p: write_run(p, planted_slowdown="x does 3% more"), "build/aa1.json: a planted build (x does 3% more)"),
    (lambda p: Path(p).unlink(), "build/aa1.json: cannot read"),
    (_other_gpu_baseline, f"baseline {BASELINE} is of NVIDIA H100 80GB HBM3, this refresh measured NVIDIA H200"),
    (_other_gpu_noise, f"noise file {NOISE} is of NVIDIA H100 80GB HBM3, this refresh measured NVIDIA H200"),
    (lambda p: Path(BASELINE).mkdir(parents=True), f"--baseline {BASELINE}: is a folder"),
])
def test_bad_input_is_one_line_exit_2_and_writes_nothing(repo, capsys, spoil, message):
    runs = session(repo)
    spoil(runs[1])
    before = {p: p.read_bytes() for p in repo.rglob("*") if p.is_file()}
    rc, out, err = refresh_main(runs, capsys)
    assert rc == 2
    assert len(err.splitlines()) == 1 and message in err, err
    assert err.startswith("benchtools.refresh: ") and out == ""
    assert {p: p.read_bytes() for p in repo.rglob("*") if p.is_file()} == before


def test_usage_errors_are_one_line_exit_2(repo, capsys):
    assert refresh.main(["--baseline", BASELINE, "--noise", NOISE]) == 2
    assert len(capsys.readouterr().err.splitlines()) == 1
    assert refresh.main(["a.json"]) == 2
    assert "--baseline" in capsys.readouterr().err


# ---------------------------------------------------------------- tools/run-regression --refresh-baseline

FAKE_CUDA_BENCH = """#!/bin/sh
# Writes the next of the prepared runs to --benchmark_out; exit $FAKE_RC from its $FAKE_FAIL_AT-th call.
# (--help, run-regression asking which options it has: none of the newer ones, not logged.)
[ "$1" = --help ] && exit 0
echo "$@" >> "$FAKE_LOG"
n=$(wc -l < "$FAKE_LOG")
for a in "$@"; do case $a in --benchmark_out=*) cp "$FAKE_RUNS/run$(( (n - 1) % 5 )).json" "${a#--benchmark_out=}";; esac; done
[ "$n" -ge "${FAKE_FAIL_AT:-99}" ] && exit "${FAKE_RC:-1}"
exit 0
"""


@pytest.fixture
def checkout(tmp_path):
    """A copy of tools/ (the script writes into its own checkout's results/), a build
    folder whose cuda_bench writes prepared runs, and nvidia-smi, nvcc and cmake stand-ins."""
    shutil.copytree(ROOT / "tools", tmp_path / "tools", ignore=shutil.ignore_patterns("__pycache__"))
    build = tmp_path / "build"
    build.mkdir()
    (build / "CMakeCache.txt").write_text("")
    (build / "build.ninja").write_text("")
    (build / "cuda_bench").write_text(FAKE_CUDA_BENCH)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "nvidia-smi").write_text("#!/bin/sh\necho 'NVIDIA H200'\n")
    (bin_dir / "nvcc").write_text("#!/bin/sh\n")
    (bin_dir / "cmake").write_text("#!/bin/sh\nexit 0\n")   # the build is up to date
    for f in [*bin_dir.iterdir(), build / "cuda_bench"]:
        f.chmod(0o755)
    for i, (name, fixture) in enumerate((("baseline", "compare_base"), ("aa1", "compare_same"),
                                         ("aa2", "compare_noise"), ("aa3", "compare_base"), ("aa4", "compare_same"))):
        write_run(tmp_path / "runs" / f"run{i}.json", fixture, date=f"2026-11-22T10:0{i}:00+00:00")
    return tmp_path


def run_regression(checkout, *args, **env):
    path = ":".join([str(checkout / "bin"), str(Path(sys.executable).parent), "/usr/bin", "/bin"])
    return subprocess.run([str(checkout / "tools/run-regression"), *args], cwd=checkout, capture_output=True,
                          text=True, timeout=300,
                          env={"HOME": os.environ.get("HOME", "/tmp"), "PATH": path, "BUILD_DIR": "build",
                               "FAKE_LOG": str(checkout / "cuda_bench.log"), "FAKE_RUNS": str(checkout / "runs"),
                               **env})


needs_build_packages = pytest.mark.skipif(not build_packages_present(),
                                          reason="the C++ build's Debian packages are not installed")


@needs_build_packages
def test_refresh_baseline_measures_baseline_and_aa_runs_then_the_gate_uses_their_noise_file(checkout):
    r = run_regression(checkout, "--refresh-baseline")
    assert r.returncode == 0, r.stderr
    calls = (checkout / "cuda_bench.log").read_text().splitlines()
    assert [c.split()[-1] for c in calls] == [f"--benchmark_out=build/regression/{n}.json"
                                              for n in ("baseline", "aa1", "aa2", "aa3", "aa4")]
    assert all(c.split()[:5] == ["--sizes=16777216,268435456", "--benchmark_repetitions=3", "--precision=0.25",
                                 "--max-time=0.25", "--min-samples=8"] for c in calls)
    assert "regression suite, run 5 of 5 (A/A run 4)" in r.stderr
    folder = f"results/regression/{GPU_SLUG}_20261122"
    assert f"commit them: git add {BASELINE}.gz {folder} {NOISE}" in r.stdout
    assert len(json.loads((checkout / NOISE).read_text())["runs"]) == 5

    r = run_regression(checkout)   # the gate: with the noise file just written
    assert "no noise file" not in r.stderr
    assert json.loads((checkout / "build/regression/verdict.json").read_text())["noise"] == NOISE

    (checkout / NOISE).unlink()
    r = run_regression(checkout)
    assert f"no noise file {NOISE}: one fixed threshold" in r.stderr
    assert "make one on this GPU model: tools/run-regression --refresh-baseline   (a new baseline" in r.stderr
    r = run_regression(checkout, REGRESSION_AA_RUNS="0")
    assert "make one on this GPU model: REGRESSION_AA_RUNS=4 tools/run-regression --refresh-baseline" in r.stderr


@needs_build_packages
def test_a_compressed_baseline_is_the_one_refreshed_and_stays_compressed(checkout):
    packed = checkout / f"{BASELINE}.gz"
    packed.parent.mkdir(parents=True)
    packed.write_bytes(gzip.compress((checkout / "runs" / "run1.json").read_bytes()))
    r = run_regression(checkout, "--refresh-baseline")
    assert r.returncode == 0, r.stderr
    assert f"commit them: git add {BASELINE}.gz results/regression/{GPU_SLUG}_20261122 {NOISE}" in r.stdout
    assert gzip.decompress(packed.read_bytes()) == (checkout / "build/regression/baseline.json").read_bytes()
    assert not (checkout / BASELINE).exists()
    r = run_regression(checkout)   # the gate reads the compressed baseline, and the noise file beside it
    verdict = json.loads((checkout / "build/regression/verdict.json").read_text())
    assert (verdict["baseline"]["path"], verdict["noise"]) == (f"{BASELINE}.gz", NOISE), r.stderr


@needs_build_packages
def test_refresh_baseline_without_aa_runs_writes_the_baseline_only(checkout):
    r = run_regression(checkout, "--refresh-baseline", REGRESSION_AA_RUNS="0")
    assert r.returncode == 0, r.stderr
    assert len((checkout / "cuda_bench.log").read_text().splitlines()) == 1
    assert f"commit it: git add {BASELINE}" in r.stdout
    assert not (checkout / NOISE).exists() and not list((checkout / HISTORY).glob(f"{GPU_SLUG}_*"))


@needs_build_packages
def test_refresh_baseline_writes_nothing_when_an_aa_run_has_errors(checkout):
    r = run_regression(checkout, "--refresh-baseline", FAKE_FAIL_AT="2")
    assert r.returncode == 1
    assert "not refreshing results/baseline/nvidia-h200.json.gz: some benchmarks reported errors" in r.stderr
    assert len((checkout / "cuda_bench.log").read_text().splitlines()) == 2   # stopped at the failing run
    assert not (checkout / "results").exists()


@pytest.mark.parametrize("value", ["x", "-1", "2.5", "2 "])
def test_a_bad_aa_run_count_exits_2_before_anything(tmp_path, value):
    r = subprocess.run([str(ROOT / "tools/run-regression"), "--refresh-baseline"], capture_output=True, text=True,
                       env={"PATH": "/usr/bin:/bin", "REGRESSION_AA_RUNS": value}, cwd=tmp_path, timeout=60)
    assert r.returncode == 2
    assert r.stderr.strip().splitlines() == [
        f"==> REGRESSION_AA_RUNS: expected a whole number >= 0 (A/A runs of a refresh), got '{value}'"]


# ---------------------------------------------------------------- tools/run-regression --out: what it may remove

NO_DRIVER = any(os.access(f"{d}/nvidia-smi", os.X_OK) for d in ("/usr/bin", "/bin"))


@pytest.mark.skipif(NO_DRIVER, reason="a GPU driver's nvidia-smi is on the minimal PATH: the no-GPU path cannot "
                                      "be seen here")
@pytest.mark.parametrize("args", [[], ["--baseline", "runs/run0.json"], ["--refresh-baseline"]])
def test_without_a_gpu_every_mode_exits_3_before_building_or_removing(checkout, args):
    """With --baseline it used to skip the GPU check: a full build, its outputs (and the
    folder's plots/) removed, then exit 3."""
    (checkout / "bin/nvidia-smi").unlink()
    write_files = {"build/regression/summary.md": "earlier", "build/regression/candidate.json": "{}",
                   "build/regression/plots/a.png": "chart"}
    for path, text in write_files.items():
        (checkout / path).parent.mkdir(parents=True, exist_ok=True)
        (checkout / path).write_text(text)
    r = run_regression(checkout, *args)
    assert r.returncode == 3, r.stderr
    assert r.stderr.splitlines() == ["==> no CUDA GPU here (no NVIDIA driver (nvidia-smi not found)): the "
                                     "regression suite needs one; nothing was measured"]
    assert all((checkout / path).read_text() == text for path, text in write_files.items())
    assert not (checkout / "cuda_bench.log").exists()


def test_an_out_that_is_a_file_or_under_one_is_exit_2_before_anything(checkout):
    (checkout / "notes.txt").write_text("mine")
    for out in ("notes.txt", "notes.txt/sub"):
        r = run_regression(checkout, "--baseline", "runs/run0.json", "--out", out)
        assert r.returncode == 2, r.stderr
        assert r.stderr.splitlines() == [f"==> --out {checkout}/{out}: {checkout}/notes.txt is not a folder; "
                                         "nothing was built or measured"]
    assert (checkout / "notes.txt").read_text() == "mine" and not (checkout / "cuda_bench.log").exists()


@needs_build_packages
def test_an_out_folder_of_someone_else_s_is_refused_and_one_of_its_own_reused(checkout):
    """--out . used to remove the repository's plots/ (its charts of the run go to DIR/plots)."""
    (checkout / "plots").mkdir()
    (checkout / "plots/chart.png").write_text("committed")
    r = run_regression(checkout, "--baseline", "runs/run0.json", "--out", ".")
    assert r.returncode == 2, r.stderr
    assert r.stderr.splitlines() == [f"==> --out {checkout}/.: a folder run-regression did not make (no "
                                     ".run-regression) that is not empty; give a new or empty folder"]
    assert (checkout / "plots/chart.png").read_text() == "committed"
    assert not (checkout / "cuda_bench.log").exists()
    (checkout / "empty").mkdir()
    for out in ("empty", "new/folder", "empty"):   # an empty one, a new one; then its own again
        r = run_regression(checkout, "--baseline", "runs/run0.json", "--out", out)
        assert r.returncode in (0, 1), r.stderr
        assert (checkout / out / "summary.md").exists() and (checkout / out / ".run-regression").exists()


@needs_build_packages
def test_the_previous_outputs_stay_until_the_suite_has_run(checkout):
    """They used to go before the build: a run that measured nothing left none."""
    r = run_regression(checkout, "--baseline", "runs/run0.json")
    assert r.returncode in (0, 1), r.stderr
    out = checkout / "build/regression"
    before = {p.name: p.read_bytes() for p in (out / "summary.md", out / "verdict.json", out / "medians.json")}
    (checkout / "cuda_bench.log").unlink()
    r = run_regression(checkout, "--baseline", "runs/run0.json", FAKE_FAIL_AT="1", FAKE_RC="3")   # the GPU went
    assert r.returncode == 3 and "nothing was measured" in r.stderr
    assert {name: (out / name).read_bytes() for name in before} == before
    assert (out / "plots").is_dir()


def test_a_gzipped_noise_file_is_written_into_a_folder_made_for_it_as_a_plain_one_is(repo, capsys):
    packed = "results/new_folder/noise.json.gz"
    rc = refresh.main([*session(repo), "--baseline", BASELINE, "--noise", packed, "--history-dir", HISTORY])
    err = capsys.readouterr().err
    assert rc == 0, err
    doc = json.loads(gzip.decompress(Path(packed).read_bytes()))
    assert len(doc["runs"]) == 3
    assert gzip.decompress(Path(packed).read_bytes()) == (json.dumps(doc, indent=1) + "\n").encode()
