"""tools/run-ab: A/B of two commits, in a temporary git repository whose commits each
hold a stand-in cuda_bench (a Python script writing sampled JSON, planted changes and
a drift shared by the two sides of each round), with nvidia-smi, nvcc and cmake
stand-ins (the "build" copies the commit's stand-in). No GPU, no real build."""
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import build_packages_present

from benchtools import run_ab

ROOT = Path(__file__).resolve().parents[2]
PLANTED = "reduce_sum/i32/floor_sum/N:16777216"

FAKE_CUDA_BENCH = """#!{python}
# A stand-in cuda_bench: 300 samples per benchmark and burst, lognormal (1%), times this
# build's planted factor and a drift of 1% per round shared by both sides of the round.
import json, math, os, random, re, sys
NAME = {name!r}
KEEP = {keep!r}
LAUNCH = {launch!r}
MIN_TIME = {min_time!r}
SLOWER = {slower!r}
BENCHMARKS = [("reduce_sum/i32/floor_sum/N:16777216", 26.0), ("reduce_sum/i32/cub_device_reduce/N:16777216", 27.0),
              ("scan/i32/decoupled_lookback/N:16777216/block:256/batch:8", 88.0)]
args = sys.argv[1:]
if "--help" in args:
    print("cuda_bench [options]" + ("\\n  --keep-samples  every sample in the JSON" if KEEP else "")
          + ("\\n  --launch=graph|stream" if LAUNCH else "")
          + ("\\n  --min-time=SECONDS" if MIN_TIME else ""))
    sys.exit(0)
if "--benchmark_list_tests" in args:   # run-ab's check of the options (not logged: no run)
    bad = [a for a in args if a.startswith("--sizes=") and not re.fullmatch(r"--sizes=[0-9:,]+", a)]
    if bad:
        print("cuda_bench: " + bad[0] + ": not a list of sizes", file=sys.stderr)
        sys.exit(2)
    if os.path.exists(os.environ.get("BENCHMARK_OUT", "/nonexistent")):   # as the real one refuses it
        print("cuda_bench: BENCHMARK_OUT: file exists; refusing to overwrite", file=sys.stderr)
        sys.exit(2)
    if os.environ.get("FAKE_LIST_FAIL"):
        sys.exit(1)
    print("\\n".join(name + "/manual_time" for name, _ in BENCHMARKS))
    sys.exit(0)
with open(os.environ["FAKE_LOG"], "a") as log:
    log.write(NAME + " " + " ".join(args) + "\\n")
if os.environ.get("FAKE_NO_GPU"):
    print("cuda_bench: no CUDA device (cudaErrorNoDevice)", file=sys.stderr)
    sys.exit(3)
out = next(a.split("=", 1)[1] for a in args if a.startswith("--benchmark_out="))
drift = 1 + 0.01 * int(re.search(r"r(\\d+)_", os.path.basename(out)).group(1))
rng = random.Random(os.path.basename(out) + "|" + NAME)   # not the temporary folder: the same draws every run
entries = []
for name, us in BENCHMARKS:
    xs = sorted(us * drift * SLOWER.get(name, 1.0) * math.exp(rng.gauss(0, 0.01)) for _ in range(300))
    entries.append({{"name": name + "/manual_time", "run_name": name + "/manual_time", "run_type": "iteration",
                    "repetitions": 1, "repetition_index": 0, "threads": 1, "iterations": 300,
                    "real_time": xs[150], "cpu_time": xs[150], "time_unit": "us", "role": "kernel",
                    "samples": 300, "ci_low": xs[133], "ci_high": xs[167], "stop_reason": "time",
                    "sample_times": xs}})
doc = {{"context": {{"gpu_name": "NVIDIA H200", "gpu_uuid": "GPU-fake", "precision_percent": 0.5,
                    "max_time_seconds": 0.1, "git_commit": NAME}}, "benchmarks": entries}}
open(out, "w").write(json.dumps(doc))
"""

CMAKE = """#!/bin/sh
# configure (-B DIR) makes the build folder (with FAKE_CMAKE_FAIL set it fails half-way, as
# CMake does: a cache, no build.ninja); --build DIR "builds": copies this tree's stand-in
if [ "$1" = --build ]; then cp fake_cuda_bench "$2/cuda_bench"; chmod +x "$2/cuda_bench"; exit 0; fi
while [ $# -gt 0 ]; do
  case $1 in
    -B) mkdir -p "$2"; : > "$2/CMakeCache.txt"
        if [ -n "$FAKE_CMAKE_FAIL" ]; then echo "CMake Error: a stand-in failure" >&2; exit 1; fi
        : > "$2/build.ninja"; shift 2 ;;
    *) shift ;;
  esac
done
"""

needs_build_packages = pytest.mark.skipif(not build_packages_present(),
                                          reason="the C++ build's Debian packages are not installed")


def git(repo, *args):
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True).stdout.strip()


def commit_fake(repo, message, name, keep=True, slower=None, launch=False, min_time=False):
    fake = repo / "fake_cuda_bench"
    fake.write_text(FAKE_CUDA_BENCH.format(python=sys.executable, name=name, keep=keep, slower=slower or {},
                                           launch=launch, min_time=min_time))
    fake.chmod(0o755)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", message)
    return git(repo, "rev-parse", "HEAD")


def stand_in_repo(top):
    """top/repo: an empty git repository holding the project's tools; top/bin: the
    nvidia-smi (an H200), nvcc and cmake stand-ins."""
    repo = top / "repo"
    repo.mkdir()
    shutil.copytree(ROOT / "tools", repo / "tools", ignore=shutil.ignore_patterns("__pycache__"))
    (repo / ".gitignore").write_text("/build*/\n__pycache__/\n")
    git(repo, "init", "-q")
    git(repo, "config", "user.email", "test@example.com")
    git(repo, "config", "user.name", "test")
    bin_dir = top / "bin"
    bin_dir.mkdir()
    (bin_dir / "nvidia-smi").write_text("#!/bin/sh\necho 'NVIDIA H200'\n")
    (bin_dir / "nvcc").write_text("#!/bin/sh\n")
    (bin_dir / "cmake").write_text(CMAKE)
    for f in bin_dir.iterdir():
        f.chmod(0o755)
    return repo


def make_repo(tmp_path_factory, commits):
    """A repository of stand-in builds, one commit per (message, commit_fake keywords)."""
    repo = stand_in_repo(tmp_path_factory.mktemp("ab"))
    shas = {name: commit_fake(repo, name, name, **kw) for name, kw in commits}
    return repo, shas


@pytest.fixture(scope="module")
def repo(tmp_path_factory):
    """Commits: an old build without --keep-samples, v1, v2 (floor_sum 3% slower); the working tree at v2."""
    return make_repo(tmp_path_factory, [("old", {"keep": False}), ("v1", {}),
                                        ("v2", {"slower": {PLANTED: 1.03}})])


def run_ab_script(repo, *args, gpu=True, **env):
    bin_dir = repo.parent / "bin"
    path = [str(bin_dir)] if gpu else []
    path += [str(Path(sys.executable).parent), "/usr/bin", "/bin"]
    if not gpu:   # nvidia-smi gone: the stand-ins for the build stay reachable through a copy
        no_gpu = repo.parent / "bin-no-gpu"
        no_gpu.mkdir(exist_ok=True)
        for tool in ("nvcc", "cmake"):
            shutil.copy(bin_dir / tool, no_gpu / tool)
        path.insert(0, str(no_gpu))
    log = repo.parent / "cuda_bench.log"
    log.unlink(missing_ok=True)
    r = subprocess.run([str(repo / "tools/run-ab"), *args], cwd=repo, capture_output=True, text=True, timeout=300,
                       env={"HOME": os.environ.get("HOME", "/tmp"), "PATH": ":".join(path), "FAKE_LOG": str(log),
                            **env})
    calls = log.read_text().splitlines() if log.exists() else []
    return r, calls


def report(repo, out):
    return {b["name"]: b for b in json.loads((repo / out / "ab.json").read_text())["benchmarks"]}


@needs_build_packages
def test_a_planted_3_percent_is_slower_and_the_rest_no_different_with_rounds_alternating(repo):
    repo, shas = repo
    r, calls = run_ab_script(repo, "HEAD~1", "HEAD", "--rounds", "4", "--benchmark_filter=reduce_sum|scan")
    assert r.returncode == 0, r.stderr
    # A B B A A B B A: BASE is v1, HEAD v2; every burst keeps its samples, the user's options pass through.
    assert [c.split()[0] for c in calls] == ["v1", "v2", "v2", "v1", "v1", "v2", "v2", "v1"]
    assert all("--keep-samples" in c and "--max-time=0.1" in c and "--benchmark_filter=reduce_sum|scan" in c
               for c in calls)
    out = f"build/ab/{shas['v1'][:7]}_vs_{shas['v2'][:7]}"
    rows = report(repo, out)
    planted = rows[PLANTED]
    assert planted["verdict"] == "slower" and planted["ratio_low"] > 1.02 and planted["ratio_high"] < 1.04
    assert planted["rounds_agreeing"] == 4 and planted["samples"] == {"base": 1200, "head": 1200}
    assert {n: b["verdict"] for n, b in rows.items() if n != PLANTED} == {
        "reduce_sum/i32/cub_device_reduce/N:16777216": "no difference at this precision",
        "scan/i32/decoupled_lookback/N:16777216/block:256/batch:8": "no difference at this precision"}
    table = (repo / out / "ab.md").read_text()
    assert table == r.stdout
    assert f"| `{PLANTED}` |" in table and "| slower | 4/4 | 1200/1200 (4/4 capped) |" in table
    assert "bursts in the order A B B A A B B A; wall time" in table
    # the builds are reused: a second A/B of the same commits builds nothing
    r, _ = run_ab_script(repo, "HEAD~1", "HEAD", "--rounds", "2")
    assert r.returncode == 0, r.stderr
    assert f"reusing the build of {shas['v1'][:12]}" in r.stderr and "building into" not in r.stderr


@needs_build_packages
def test_the_working_tree_against_its_own_commit_shows_no_difference(repo):
    repo, shas = repo
    r, calls = run_ab_script(repo, "HEAD", "--rounds", "2")
    assert r.returncode == 0, r.stderr
    assert [c.split()[0] for c in calls] == ["v2", "v2", "v2", "v2"]
    rows = report(repo, f"build/ab/{shas['v2'][:7]}_vs_worktree")
    assert {b["verdict"] for b in rows.values()} == {"no difference at this precision"}
    assert "HEAD (B): the working tree (on " in r.stdout


@pytest.mark.skipif(any(os.access(f"{d}/nvidia-smi", os.X_OK) for d in ("/usr/bin", "/bin")),
                    reason="a GPU driver's nvidia-smi is on the minimal PATH: the no-GPU path cannot be seen here")
def test_no_gpu_is_one_line_and_exit_3_before_building(repo):
    repo, _ = repo
    r, calls = run_ab_script(repo, "HEAD~1", gpu=False)
    assert r.returncode == 3 and calls == []
    assert r.stderr.splitlines() == ["==> no CUDA GPU here (no NVIDIA driver (nvidia-smi not found)): an A/B "
                                     "needs one; nothing was built or measured"]


@needs_build_packages
def test_cuda_bench_finding_no_gpu_is_exit_3(repo):
    repo, _ = repo
    r, calls = run_ab_script(repo, "HEAD~1", "HEAD", FAKE_NO_GPU="1")
    assert r.returncode == 3 and len(calls) == 1
    assert r.stderr.splitlines()[-1] == ("==> no CUDA GPU (cuda_bench BASE exit 3): an A/B needs one; "
                                         "nothing was compared")


@pytest.mark.parametrize("args, message", [
    (["no-such-rev"], "==> 'no-such-rev' is not a revision of this repository (git rev-parse; cuda_bench options "
                      "take --name=value); nothing was built or measured"),
    (["HEAD", "--sizes", "24"], "==> '24' is not a revision of this repository (git rev-parse; cuda_bench options "
                                "take --name=value); nothing was built or measured"),
    (["--rounds", "0", "HEAD"], "==> --rounds: expected a whole number >= 1, got '0'"),
    (["HEAD", "--burst-time=0"], "==> --burst-time: expected seconds > 0, got '0'"),
    (["HEAD", "--benchmark_out=x.json"], "==> run-ab writes the bursts itself: give --out DIR"),
    (["HEAD", "--", "--benchmark_out=x.json"], "==> run-ab writes the bursts itself: give --out DIR"),
    (["HEAD", "--out="], "==> --out: expected a folder, got '' (this one: --out .)"),
    (["HEAD", "--out", ""], "==> --out: expected a folder, got '' (this one: --out .)"),
    (["HEAD", "--device=0,1"], "==> --device=0,1: run-ab compares on one GPU; give --device=N"),
    (["HEAD", "--device=all"], "==> --device=all: run-ab compares on one GPU; give --device=N"),
    (["HEAD", "--list-variants"], "==> --list-variants: lists and measures nothing; run cuda_bench with it"),
    (["HEAD", "HEAD~1", "v9"], "==> expected BASE and optionally HEAD, got 3 revisions (HEAD HEAD~1 v9); "
                               "cuda_bench options take --name=value (tools/run-ab --help)"),
])
def test_bad_revisions_and_usage_are_one_line_and_exit_2(repo, args, message):
    repo, _ = repo
    r, calls = run_ab_script(repo, *args, gpu=False)
    assert r.returncode == 2 and calls == []
    assert r.stderr.splitlines() == [message]


@needs_build_packages
def test_an_earlier_report_stays_until_every_burst_is_measured_then_is_replaced_whole(repo, tmp_path):
    """It used to be removed before measuring: a run that measured nothing (no GPU) left none."""
    repo, shas = repo
    out = tmp_path / "ab"
    r, _ = run_ab_script(repo, shas["v1"], "--rounds", "3", "--out", str(out))
    assert r.returncode == 0, r.stderr
    earlier = {p.name: p.read_bytes() for p in out.iterdir()}
    assert {"ab.md", "ab.json", "r3_base.json", "r3_head.json"} <= set(earlier)
    r, calls = run_ab_script(repo, shas["v1"], "--rounds", "1", "--out", str(out), FAKE_NO_GPU="1")
    assert r.returncode == 3 and len(calls) == 1
    assert {p.name: p.read_bytes() for p in out.iterdir()} == earlier
    r, _ = run_ab_script(repo, shas["v1"], "--rounds", "1", "--out", str(out))
    assert r.returncode == 0, r.stderr
    assert sorted(p.name for p in out.iterdir()) == ["ab.json", "ab.md", "r1_base.json", "r1_head.json"]
    assert json.loads((out / "ab.json").read_text())["bursts"] == [str(out / "r1_base.json"),
                                                                   str(out / "r1_head.json")]


def test_an_empty_out_leaves_the_caller_s_folder_alone(repo, tmp_path):
    """--out= used to mean the caller's folder, and removed an ab.md there."""
    repo, _ = repo
    (tmp_path / "ab.md").write_text("mine")
    r = subprocess.run([str(repo / "tools/run-ab"), "HEAD", "--out="], cwd=tmp_path, capture_output=True, text=True,
                       timeout=60, env={"HOME": os.environ.get("HOME", "/tmp"),
                                        "PATH": f"{repo.parent / 'bin'}:/usr/bin:/bin"})
    assert r.returncode == 2 and (tmp_path / "ab.md").read_text() == "mine"


def test_a_device_this_machine_does_not_have_is_refused_before_building(repo):
    """The stand-in nvidia-smi lists one GPU: --device=1 is refused in one line, exit 2,
    before anything is built (cuda_bench's listing does not query the GPUs)."""
    repo, _ = repo
    for device in ("--device=1", "--device=07", "--device=9223372036854775808"):
        r, calls = run_ab_script(repo, "HEAD", device)
        assert r.returncode == 2 and calls == []
        assert r.stderr.splitlines() == [f"==> {device}: this machine has 1 GPU(s), 0 to 0 (nvidia-smi); "
                                         "nothing was built or measured"]


@needs_build_packages
def test_device_0_or_a_renumbering_cuda_visible_devices_goes_on_to_the_bursts(repo):
    """--device=0 names the one GPU; under CUDA_VISIBLE_DEVICES the ordinals are CUDA's, so
    run-ab leaves --device=1 to the first burst (the stand-in ignores it)."""
    repo, _ = repo
    for device, env in (("--device=0", {}), ("--device=0000000000", {}),
                        ("--device=1", {"CUDA_VISIBLE_DEVICES": "1,0"})):
        r, calls = run_ab_script(repo, "HEAD", "--rounds", "1", device, **env)
        assert r.returncode == 0, r.stderr
        assert len(calls) == 2 and all(device in c for c in calls)


@needs_build_packages
def test_options_head_refuses_stop_the_run_before_base_is_built(repo):
    """HEAD is built first and lists the selection with the options: a bad option costs
    one build, and BASE is neither built nor reused."""
    repo, shas = repo
    r, calls = run_ab_script(repo, shas["v1"], "--sizes=bogus")
    assert r.returncode == 2 and calls == []
    lines = r.stderr.splitlines()
    assert "cuda_bench: --sizes=bogus: not a list of sizes" in lines
    assert lines[-1] == ("==> cuda_bench (HEAD) refused the options (its message is above); BASE was not built, "
                         "nothing was measured")
    assert shas["v1"][:12] not in r.stderr


@needs_build_packages
def test_a_listing_that_fails_otherwise_is_exit_1_and_benchmark_out_in_the_environment_is_left_out(repo, tmp_path):
    repo, shas = repo
    r, calls = run_ab_script(repo, shas["v1"], FAKE_LIST_FAIL="1")
    assert r.returncode == 1 and calls == []
    assert r.stderr.splitlines()[-1] == ("==> cuda_bench (HEAD) failed to list the selection (exit 1); BASE was not "
                                         "built, nothing was measured")
    existing = tmp_path / "earlier.json"
    existing.write_text("{}")
    r, calls = run_ab_script(repo, shas["v1"], "--rounds", "1", "--out", str(tmp_path / "ab"),
                             BENCHMARK_OUT=str(existing))
    assert r.returncode == 0, r.stderr
    assert existing.read_text() == "{}"


@needs_build_packages
def test_a_revision_from_before_precision_sampling_is_refused(repo):
    repo, shas = repo
    r, calls = run_ab_script(repo, shas["old"], "HEAD")
    assert r.returncode == 2 and calls == []
    assert r.stderr.splitlines()[-1] == (
        f"==> BASE {shas['old']} ({shas['old'][:12]}): its cuda_bench has no --keep-samples (it predates "
        f"precision sampling, issue 20); run-ab compares revisions that have it")


# --- the report itself (benchtools.run_ab), on burst files --------------------------------------------------

def burst(path, factor, samples=None, **extra):
    xs = samples or sorted(100.0 * factor * (1 + 0.002 * ((k * 37) % 21 - 10)) for k in range(99))
    entry = {"name": f"{PLANTED}/manual_time", "run_name": f"{PLANTED}/manual_time", "run_type": "iteration",
             "real_time": xs[len(xs) // 2], "time_unit": "us", "ci_low": xs[0], "ci_high": xs[-1],
             "samples": len(xs), "stop_reason": "precision", "sample_times": xs, **extra}
    path.write_text(json.dumps({"context": {"gpu_name": "NVIDIA H200"}, "benchmarks": [entry]}))
    return str(path)


def abba(tmp_path, prefix, factor):
    """Four rounds of bursts in the order A B, B A, A B, B A; factor(round, side) scales
    each burst's samples. The arguments for run_ab.main, in measured order."""
    files = []
    for r in range(1, 5):
        order = ("base", "head") if r % 2 else ("head", "base")
        files += [f"{side}={burst(tmp_path / f'{prefix}{r}_{side}.json', factor(r, side))}" for side in order]
    return files


def ab_row(tmp_path, files, name):
    assert run_ab.main([*files, "--json", str(tmp_path / name)]) == 0
    return json.loads((tmp_path / name).read_text())["benchmarks"][0]


@pytest.mark.parametrize("option", ["--burst-time", "--build-seconds", "--wall-seconds"])
@pytest.mark.parametrize("value", ["inf", "nan", "-1", "1e400"])
def test_the_report_s_seconds_must_be_finite_numbers(tmp_path, capsys, option, value):
    a = burst(tmp_path / "a.json", 1.0)
    b = burst(tmp_path / "b.json", 1.0)
    assert run_ab.main([f"base={a}", f"head={b}", f"{option}={value}"]) == 2
    assert f"expected a number of seconds >= 0, got '{value}'" in capsys.readouterr().err


def test_bursts_without_samples_or_of_two_gpus_are_refused(tmp_path, capsys):
    a = burst(tmp_path / "a.json", 1.0)
    doc = json.loads(Path(a).read_text())
    del doc["benchmarks"][0]["sample_times"]
    (tmp_path / "b.json").write_text(json.dumps(doc))
    assert run_ab.main([f"base={a}", f"head={tmp_path / 'b.json'}"]) == 2
    assert "benchmarks without sample_times: the bursts need cuda_bench --keep-samples" in capsys.readouterr().err
    doc = json.loads(Path(a).read_text())
    doc["context"]["gpu_name"] = "NVIDIA H100 80GB HBM3"
    (tmp_path / "c.json").write_text(json.dumps(doc))
    assert run_ab.main([f"base={a}", f"head={tmp_path / 'c.json'}"]) == 2
    assert "an A/B needs one GPU for every burst" in capsys.readouterr().err
    assert run_ab.main([f"base={a}", f"left={a}"]) == 2
    assert "expected base=FILE or head=FILE, got 'left=" in capsys.readouterr().err


@pytest.mark.parametrize("key, value, message", [
    ("launch_mode", "graph", "launch 'graph', but"),          # a file without launch_mode launched on the stream
    ("timing_mode", "graph", "timing mode 'graph', but"),
    ("cache_mode", "hot", "cache mode 'hot', but"),
])
def test_bursts_timed_differently_are_refused(tmp_path, capsys, key, value, message):
    a = burst(tmp_path / "a.json", 1.0)
    doc = json.loads(Path(a).read_text())
    doc["context"]["cache_mode"] = "cold"
    Path(a).write_text(json.dumps(doc))
    doc["context"][key] = value
    (tmp_path / "b.json").write_text(json.dumps(doc))
    assert run_ab.main([f"base={a}", f"head={tmp_path / 'b.json'}"]) == 2
    err = capsys.readouterr().err
    assert message in err and "both sides must time their calls alike" in err and len(err.strip().splitlines()) == 1


def test_pooling_alternated_bursts_cancels_a_drift_that_separate_runs_would_report(tmp_path, capsys):
    # The session slows by 2% a round; both sides of a round see the same drift.
    files = abba(tmp_path, "r", lambda r, side: 1.0 + 0.02 * (r - 1))
    row = ab_row(tmp_path, files, "ab.json")
    assert row["verdict"] == "no difference at this precision" and row["ratio"] == pytest.approx(1.0)
    # The same bursts read as two runs at different times (all of BASE first): a "difference".
    bases, heads = [f for f in files if f.startswith("base")], [f for f in files if f.startswith("head")]
    assert run_ab.main([*bases[:2], *heads[2:]]) == 0
    assert "| slower |" in capsys.readouterr().out


def test_an_error_in_a_burst_is_listed_and_exit_1(tmp_path, capsys):
    a, b = burst(tmp_path / "a.json", 1.0), burst(tmp_path / "b.json", 1.0)
    doc = json.loads(Path(b).read_text())
    doc["benchmarks"].append({"name": "scan/i32/cub_scan/N:1024/manual_time", "run_name": "scan/i32/cub_scan/N:1024",
                              "error_occurred": True, "error_message": "verification failed"})
    Path(b).write_text(json.dumps(doc))
    assert run_ab.main([f"base={a}", f"head={b}"]) == 1
    assert "- `scan/i32/cub_scan/N:1024: head: verification failed`" in capsys.readouterr().out


def test_rounds_that_disagree_widen_the_interval_to_no_difference(tmp_path, capsys):
    # Each burst is a process, and each process lands its allocations elsewhere: the
    # HEAD bursts run 3% fast in two rounds and 1% slow in the other two (identical
    # code, as the H100 A/B of the launch-floor merge saw). The pooled samples alone
    # pin HEAD's median below BASE's; the rounds' own ratios straddle 1.
    files = abba(tmp_path, "r", lambda r, side: (0.97 if r % 2 else 1.01) if side == "head" else 1.0)
    row = ab_row(tmp_path, files, "ab.json")
    assert row["verdict"] == "no difference at this precision"
    assert row["rounds_interval"][1] < 1 < row["rounds_interval"][2]
    # the pooled interval alone (what the report said before) excludes 1
    pooled = run_ab.stats.ratio_interval(
        run_ab.stats.median_interval([x for f in files if f.startswith("head") for x in
                                      json.loads(Path(f.split("=", 1)[1]).read_text())["benchmarks"][0]["sample_times"]]),
        run_ab.stats.median_interval([x for f in files if f.startswith("base") for x in
                                      json.loads(Path(f.split("=", 1)[1]).read_text())["benchmarks"][0]["sample_times"]]))
    assert pooled[2] < 1, pooled
    # a change every round agrees on keeps its verdict
    row = ab_row(tmp_path, abba(tmp_path, "s", lambda r, side: 0.97 if side == "head" else 1.0), "ab2.json")
    assert row["verdict"] == "faster" and row["ratio_high"] < 1


@pytest.fixture(scope="module")
def launch_repo(tmp_path_factory):
    """Commits: v2 (before --launch: every call on the stream), v3 (has --launch)."""
    return make_repo(tmp_path_factory, [("v2", {}), ("v3", {"launch": True})])


@needs_build_packages
def test_a_side_from_before_launch_makes_the_other_launch_on_the_stream(launch_repo):
    repo, shas = launch_repo
    r, calls = run_ab_script(repo, "HEAD~1", "HEAD", "--rounds", "2", "--benchmark_filter=reduce_sum")
    assert r.returncode == 0, r.stderr
    assert "==> HEAD launches each call on the stream (--launch=stream), as the other side's cuda_bench" in r.stderr
    assert all(("--launch=stream" in c) == c.startswith("v3 ") for c in calls), calls
    # Asking for a launch mode that the older side cannot take is refused before anything runs.
    r, calls = run_ab_script(repo, "HEAD~1", "HEAD", "--launch=graph")
    assert r.returncode == 2 and calls == []
    assert "==> --launch=graph: the other side's cuda_bench predates --launch" in r.stderr
    # Graph timing replays graphs on both sides: nothing is added.
    r, calls = run_ab_script(repo, "HEAD~1", "HEAD", "--rounds", "2", "--timing=graph")
    assert r.returncode == 0, r.stderr
    assert calls and all("--timing=graph" in c and "--launch" not in c for c in calls), calls
    # Two sides that both know --launch get the user's options alone.
    r, calls = run_ab_script(repo, "HEAD", "HEAD", "--rounds", "2")
    assert r.returncode == 0, r.stderr
    assert calls and not any("--launch" in c for c in calls)


@pytest.fixture(scope="module")
def min_time_repo(tmp_path_factory):
    """Commits: v3 (before --min-time: precision may stop sampling at once), v4 (has --min-time)."""
    return make_repo(tmp_path_factory, [("v3", {"launch": True}), ("v4", {"launch": True, "min_time": True})])


@needs_build_packages
def test_a_side_from_before_min_time_makes_the_other_sample_without_it(min_time_repo):
    repo, shas = min_time_repo
    r, calls = run_ab_script(repo, "HEAD~1", "HEAD", "--rounds", "2", "--benchmark_filter=reduce_sum")
    assert r.returncode == 0, r.stderr
    assert "==> HEAD samples with --min-time=0, as the other side's cuda_bench (before --min-time) does" in r.stderr
    assert calls and all(("--min-time=0" in c) == c.startswith("v4 ") for c in calls), calls
    # Asking for a minimum the older side cannot take is refused before anything runs.
    r, calls = run_ab_script(repo, "HEAD~1", "HEAD", "--min-time=0.01")
    assert r.returncode == 2 and calls == []
    assert "==> --min-time=0.01: the other side's cuda_bench predates --min-time" in r.stderr
    # Two sides that both know it get the user's options alone.
    r, calls = run_ab_script(repo, "HEAD", "HEAD", "--rounds", "2")
    assert r.returncode == 0, r.stderr
    assert calls and not any("--min-time" in c for c in calls)
