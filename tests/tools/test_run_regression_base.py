"""tools/run-regression --base REV: the baseline measured on this runner, by REV's build, just
before the working tree's suite; and the build folders that follow CUDABENCH_CMAKE_ARGS. In a
temporary git repository whose commits hold a stand-in cuda_bench (it copies a gate fixture),
with nvidia-smi, nvcc and cmake stand-ins (test_run_ab.py's). No GPU, no real build."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import FIXTURES, build_packages_present
from test_run_ab import git, stand_in_repo

from benchtools import compare

ROOT = Path(__file__).resolve().parents[2]
PLANTED = ("reduce_sum/i32/floor_sum/N:16777216", "reduce_sum/i32/floor_sum/N:268435456")
SAMPLING_HELP = ("  --precision=PCT  the interval\n  --max-time=SECONDS  at most\n"
                 "  --min-samples=N  at least\n  --launch=graph|stream  events timing")

FAKE_CUDA_BENCH = """#!{python}
# A stand-in cuda_bench: writes the gate fixture {fixture} to --benchmark_out.
import os, shutil, sys
args = sys.argv[1:]
if "--help" in args:
    print({help!r})
    sys.exit(0)
with open(os.environ["FAKE_LOG"], "a") as log:
    log.write({name!r} + " " + " ".join(args) + "\\n")
shutil.copy({path!r}, next(a.split("=", 1)[1] for a in args if a.startswith("--benchmark_out=")))
sys.exit(1 if '"error_occurred": true' in open({path!r}).read() else 0)   # as cuda_bench: 1 when some errored
"""

needs_build_packages = pytest.mark.skipif(not build_packages_present(),
                                          reason="the C++ build's Debian packages are not installed")


def write_fake(repo, name, fixture, help_text=SAMPLING_HELP):
    """The stand-in cuda_bench of the working tree: it writes gate_<fixture>.json, or the file
    at `fixture` when that is a path."""
    path = fixture if isinstance(fixture, Path) else FIXTURES / f"gate_{fixture}.json"
    fake = repo / "fake_cuda_bench"
    fake.write_text(FAKE_CUDA_BENCH.format(python=sys.executable, name=name, fixture=fixture, help=help_text,
                                           path=str(path)))
    fake.chmod(0o755)


@pytest.fixture(scope="module")
def repo(tmp_path_factory):
    """Commits: old (a cuda_bench without --min-samples), base (its suite is gate_base.json); the
    working tree's stand-in is written by each test. The A/A noise file calibrated from gate_h*."""
    top = tmp_path_factory.mktemp("gate")
    repo = stand_in_repo(top)
    shas = {}
    for name, help_text in (("old", SAMPLING_HELP.replace("--min-samples", "--min-sample-count")),
                            ("base", SAMPLING_HELP)):
        write_fake(repo, name, "base", help_text)
        git(repo, "add", "-A")
        git(repo, "commit", "-q", "-m", name)
        shas[name] = git(repo, "rev-parse", "HEAD")
    noise = top / "noise.json"
    assert compare.main(["--calibrate", *(str(FIXTURES / f"gate_h{j}.json") for j in (1, 2, 3)),
                         "--out", str(noise)]) == 0
    return repo, shas, noise


def run_gate(repo, noise, *args, bin_dir=None, **env):
    bin_dir = bin_dir or repo.parent / "bin"
    log = repo.parent / "cuda_bench.log"
    log.unlink(missing_ok=True)
    r = subprocess.run([str(repo / "tools/run-regression"), *args], cwd=repo, capture_output=True, text=True,
                       timeout=300,
                       env={"HOME": os.environ.get("HOME", "/tmp"), "FAKE_LOG": str(log), "REGRESSION_NOISE": str(noise),
                            "PATH": ":".join([str(bin_dir), str(repo.parent / "bin"), str(Path(sys.executable).parent),
                                              "/usr/bin", "/bin"]),
                            **env})
    calls = log.read_text().splitlines() if log.exists() else []
    return r, calls


def verdicts(repo, out):
    v = json.loads((repo / out / "verdict.json").read_text())
    return v, {b["name"]: b["verdict"] for b in v["benchmarks"]}


@needs_build_packages
def test_the_base_is_measured_here_first_and_an_a_a_run_passes(repo):
    repo, shas, noise = repo
    write_fake(repo, "worktree", "aa1")
    r, calls = run_gate(repo, noise, "--base", "HEAD", "--out", "gate-aa")
    assert r.returncode == 0, r.stderr
    # the base's cuda_bench first, then the working tree's, both with the regression suite's sampling
    assert [c.split()[0] for c in calls] == ["base", "worktree"]
    assert all("--precision=0.25" in c and "--launch=stream" in c and "--benchmark_repetitions=3" in c
               for c in calls)
    assert "gate-aa/base.json" in calls[0] and "gate-aa/candidate.json" in calls[1]
    assert f"==> regression suite of the base, HEAD ({shas['base'][:12]}), on this GPU" in r.stderr
    v, rows = verdicts(repo, "gate-aa")
    assert v["status"] == "pass" and set(rows.values()) == {compare.UNCHANGED}
    assert (repo / "gate-aa/base.json").read_text() == (FIXTURES / "gate_base.json").read_text()


@needs_build_packages
def test_a_planted_candidate_against_a_clean_base_flags_what_was_planted(repo):
    repo, shas, noise = repo
    write_fake(repo, "worktree", "planted3")
    r, calls = run_gate(repo, noise, "--base", shas["base"], "--out", "gate-planted",
                        BUILD_DIR="build-planted", CUDABENCH_CMAKE_ARGS="-DCUDABENCH_PLANTED_SLOWDOWN_PERCENT=3",
                        CUDABENCH_BASE_CMAKE_ARGS="", BENCH_COMPARE_ARGS="--force")
    assert r.returncode == 1, r.stderr
    assert [c.split()[0] for c in calls] == ["base", "worktree"]
    _, rows = verdicts(repo, "gate-planted")
    assert sorted(n for n, v in rows.items() if v == compare.REGRESSED) == sorted(PLANTED)
    assert all(v == compare.UNCHANGED for n, v in rows.items() if n not in PLANTED)
    # the base was built without the planted option, in its own folder
    base_build = repo / "build/ab" / shas["base"] / "build"
    assert (base_build / "cudabench-cmake-args").read_text() == ""
    assert (repo / "build-planted/cudabench-cmake-args").read_text() == "-DCUDABENCH_PLANTED_SLOWDOWN_PERCENT=3"


@needs_build_packages
def test_a_build_folder_configured_otherwise_is_configured_again(repo):
    repo, shas, noise = repo
    write_fake(repo, "worktree", "aa1")
    r, _ = run_gate(repo, noise, "--base", "HEAD", "--out", "gate-1", BUILD_DIR="build-args")
    assert r.returncode == 0, r.stderr
    # The same folder asked for a planted build: configured from scratch, never kept as it was.
    r, _ = run_gate(repo, noise, "--base", "HEAD", "--out", "gate-2", BUILD_DIR="build-args",
                    CUDABENCH_CMAKE_ARGS="-DCUDABENCH_PLANTED_SLOWDOWN_PERCENT=3", CUDABENCH_BASE_CMAKE_ARGS="")
    assert r.returncode == 0, r.stderr
    assert ("==> build-args/ was configured with CUDABENCH_CMAKE_ARGS=''; configuring it again with "
            "'-DCUDABENCH_PLANTED_SLOWDOWN_PERCENT=3'") in r.stderr
    assert f"reusing the build of {shas['base'][:12]}" in r.stderr     # the base's options did not change
    # A base asked for with other options builds in a folder of its own, and the first stays.
    r, _ = run_gate(repo, noise, "--base", "HEAD", "--out", "gate-3", CUDABENCH_CMAKE_ARGS="-DCUDABENCH_CCCL_DIR=x")
    assert r.returncode == 0, r.stderr
    folders = sorted(p.name for p in (repo / "build/ab" / shas["base"]).iterdir() if p.name.startswith("build"))
    assert folders[0] == "build" and len(folders) == 2 and folders[1].startswith("build-")
    assert (repo / "build/ab" / shas["base"] / folders[1] / "cudabench-cmake-args").read_text() == \
        "-DCUDABENCH_CCCL_DIR=x"


@needs_build_packages
def test_a_configure_that_failed_is_done_again_from_scratch(repo):
    repo, _, noise = repo
    write_fake(repo, "worktree", "aa1")
    args = {"BUILD_DIR": "build-failing", "CUDABENCH_CMAKE_ARGS": "-DCUDABENCH_PLANTED_SLOWDOWN_PERCENT=3",
            "CUDABENCH_BASE_CMAKE_ARGS": ""}
    r, _ = run_gate(repo, noise, "--base", "HEAD", "--out", "gate-f", FAKE_CMAKE_FAIL="1", **args)
    assert r.returncode == 1 and "build failed" in r.stderr
    assert not (repo / "build-failing/cudabench-cmake-args").exists()   # a failed folder says nothing
    r, _ = run_gate(repo, noise, "--base", "HEAD", "--out", "gate-f", **args)     # the cause mended
    assert r.returncode == 0, r.stderr
    assert (repo / "build-failing/cudabench-cmake-args").read_text() == args["CUDABENCH_CMAKE_ARGS"]


@needs_build_packages
def test_errors_in_the_base_leave_the_rest_judged(repo, tmp_path):
    repo, shas, noise = repo
    broken = json.loads((FIXTURES / "gate_base.json").read_text())
    name = broken["benchmarks"][0]["run_name"]
    broken["benchmarks"] = [b for b in broken["benchmarks"] if b["run_name"] != name] + [
        {"name": name, "run_name": name, "run_type": "iteration", "error_occurred": True,
         "error_message": "verification failed"}]                      # as cuda_bench writes an error
    (tmp_path / "broken_base.json").write_text(json.dumps(broken))
    git(repo, "checkout", "-q", "-b", "broken-base")
    write_fake(repo, "broken", tmp_path / "broken_base.json")
    git(repo, "commit", "-qam", "a base with one benchmark broken")
    try:
        write_fake(repo, "worktree", "aa1")
        r, calls = run_gate(repo, noise, "--base", "HEAD", "--out", "gate-broken")
        assert [c.split()[0] for c in calls] == ["broken", "worktree"]
        assert "==> warning: the base's suite reported errors (above)" in r.stderr
        assert r.returncode == 0, r.stderr
        _, rows = verdicts(repo, "gate-broken")
        assert set(rows.values()) == {compare.UNCHANGED}                # the rest judged, the mended one too
    finally:
        git(repo, "checkout", "-q", "-f", "master" if "master" in git(repo, "branch") else "main")


@needs_build_packages
def test_several_gpu_models_take_base_with_the_noise_file_named(repo, tmp_path):
    repo, _, noise = repo
    two = tmp_path / "bin-two"
    two.mkdir()
    (two / "nvidia-smi").write_text("#!/bin/sh\necho 'NVIDIA H200'\necho 'NVIDIA H100 80GB HBM3'\n")
    (two / "nvidia-smi").chmod(0o755)
    write_fake(repo, "worktree", "aa1")
    r, calls = run_gate(repo, noise, "--base", "HEAD", "--out", "gate-two", bin_dir=two)
    assert r.returncode == 0, r.stderr
    assert [c.split()[0] for c in calls] == ["base", "worktree"]
    r, calls = run_gate(repo, noise, "--base", "HEAD", bin_dir=two, REGRESSION_NOISE="")
    assert r.returncode == 2 and calls == []
    assert "(with --base: REGRESSION_NOISE=results/regression/noise_<model>.json)" in r.stderr


@needs_build_packages
def test_a_base_from_before_the_gate_s_sampling_is_refused_before_measuring(repo):
    repo, shas, noise = repo
    write_fake(repo, "worktree", "aa1")
    r, calls = run_gate(repo, noise, "--base", shas["old"])
    assert r.returncode == 2 and calls == []
    assert r.stderr.splitlines()[-1] == (
        f"==> --base {shas['old']} ({shas['old'][:12]}): its cuda_bench has no --min-samples, which the regression "
        "suite samples with; --base takes a revision from after the gate's sampling (see docs/gate.md)")


@pytest.mark.parametrize("args, message", [
    (["--base", "no-such-rev"], "==> 'no-such-rev' is not a revision of this repository (git rev-parse; cuda_bench "
                                "options take --name=value); nothing was built or measured"),
    (["--base", "HEAD", "--baseline", "b.json"], "==> --base and --baseline: one baseline, measured here (--base) "
                                                 "or committed (--baseline)"),
    (["--base", "HEAD", "--refresh-baseline"], "==> --base and --refresh-baseline: a refresh measures this "
                                               "revision only"),
    (["--base"], "==> --base needs a value"),
    (["--base", ""], "==> --base needs a value"),
])
def test_bad_base_usage_is_one_line_and_exit_2(repo, args, message):
    repo, _, noise = repo
    r, calls = run_gate(repo, noise, *args)
    assert r.returncode == 2 and calls == []
    assert r.stderr.splitlines() == [message]


@needs_build_packages
def test_a_cuda_bench_with_min_time_samples_as_the_baselines_were_recorded(repo):
    """The committed baselines and A/A histories were sampled before --min-time: a binary
    that has it is given --min-time=0, one from before (the base here) nothing."""
    repo, shas, noise = repo
    write_fake(repo, "worktree", "aa1", SAMPLING_HELP + "\n  --min-time=SECONDS  precision stops sampling only after")
    r, calls = run_gate(repo, noise, "--base", "HEAD", "--out", "gate-min-time")
    assert r.returncode == 0, r.stderr
    assert [c.split()[0] for c in calls] == ["base", "worktree"]
    assert "--min-time" not in calls[0] and "--min-time=0" in calls[1].split()
