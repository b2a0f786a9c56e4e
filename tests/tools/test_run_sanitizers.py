"""tools/run-sanitizers end to end, with stand-ins: nvidia-smi, nvcc and cmake (the
"build" writes a gpu_tests that lists and runs its tests as GoogleTest does) and a
compute-sanitizer that runs it and prints its summary. What SANITIZER_FILTER selects,
declaration tests or any other GPU test, and what the run then says."""
import os
import subprocess
import sys
from pathlib import Path

import pytest
from test_run_ab import needs_build_packages, stand_in_repo

ROOT = Path(__file__).resolve().parents[2]

GPU_TESTS = """#!{python}
# A stand-in gpu_tests: two plain tests and two declaration tests, GoogleTest's listing
# and run output for those --gtest_filter selects (':'-separated globs).
import fnmatch, os, sys
TESTS = [("FloorOps", "ChoiceByNAcrossTheTableRows", None), ("FloorOps", "BothSidesOfTheOneWaveEdge", None),
         ("Declarations/EveryDeclaration", "CorrectAtAwkwardSizesForEveryBlockAndBatch/reduce_max_i32_floor_max",
          "reduce_max/i32/floor_max"),
         ("Declarations/EveryDeclaration", "MisalignedPointersAreHandledOrRefusedClearly/reduce_max_i32_floor_max",
          "reduce_max/i32/floor_max")]
args = dict(a.split("=", 1) for a in sys.argv[1:] if "=" in a)
patterns = args.get("--gtest_filter", "*").split(":")
chosen = [t for t in TESTS if any(fnmatch.fnmatchcase(t[0] + "." + t[1], p) for p in patterns)]
if "--gtest_list_tests" in sys.argv:
    suite = None
    for s, name, param in chosen:
        if s != suite:
            print(s + ".")
            suite = s
        print("  " + name + ("  # GetParam() = " + '"' + param + '"' if param else ""))
    sys.exit(0)
print("[==========] Running %d tests" % len(chosen))
for s, name, _ in chosen:
    print("[ RUN      ] %s.%s" % (s, name))
    print("[       OK ] %s.%s (1 ms)" % (s, name))
print("[  PASSED  ] %d tests." % len(chosen))
"""

CMAKE = """#!/bin/sh
# configure (-B DIR) makes the build folder; --build DIR "builds" the stand-in gpu_tests
if [ "$1" = --build ]; then mkdir -p "$2/tests"; cp fake_gpu_tests "$2/tests/gpu_tests"; exit 0; fi
while [ $# -gt 0 ]; do
  case $1 in
    -B) mkdir -p "$2"; : > "$2/CMakeCache.txt"; : > "$2/build.ninja"; shift 2 ;;
    *) shift ;;
  esac
done
"""

SANITIZER = """#!/bin/sh
# compute-sanitizer --tool T --error-exitcode 1 EXE ARGS: runs EXE, reports no error
shift 4
echo "========= COMPUTE-SANITIZER"
"$@"
echo "========= ERROR SUMMARY: 0 errors"
"""


@pytest.fixture(scope="module")
def repo(tmp_path_factory):
    repo = stand_in_repo(tmp_path_factory.mktemp("sanitizers"))
    (repo / "fake_gpu_tests").write_text(GPU_TESTS.format(python=sys.executable))
    bin_dir = repo.parent / "bin"
    (bin_dir / "cmake").write_text(CMAKE)
    (bin_dir / "compute-sanitizer").write_text(SANITIZER)
    for f in [repo / "fake_gpu_tests", *bin_dir.iterdir()]:
        f.chmod(0o755)
    return repo


def run_sanitizers(repo, test_filter, *args, cwd=None, python_dirs=None):
    if python_dirs is None:
        python_dirs = [os.path.dirname(sys.executable)]
    path = [str(repo.parent / "bin"), *python_dirs, "/usr/bin", "/bin"]
    env = {"HOME": os.environ.get("HOME", "/tmp"), "PATH": ":".join(path), "SANITIZER_SHARDS": "1",
           "SANITIZER_FILTER": test_filter}
    return subprocess.run([str(repo / "tools/run-sanitizers"), *(args or ("--tools", "memcheck,synccheck"))],
                          cwd=cwd or repo, capture_output=True, text=True, timeout=300, env=env)


@needs_build_packages
def test_tests_that_take_no_declaration_are_run_and_counted(repo):
    r = run_sanitizers(repo, "FloorOps.ChoiceByNAcrossTheTableRows")
    assert r.returncode == 0, r.stderr
    assert "2 tools x 1 tests" in r.stderr
    assert "no unexplained findings" in r.stderr
    log = (repo / "build/sanitizers/memcheck.0.log").read_text()
    assert "[       OK ] FloorOps.ChoiceByNAcrossTheTableRows" in log


@needs_build_packages
def test_declaration_tests_are_counted_by_declaration(repo):
    r = run_sanitizers(repo, "*EveryDeclaration*floor_max*:FloorOps.BothSidesOfTheOneWaveEdge")
    assert r.returncode == 0, r.stderr
    assert "2 tools x 1 declarations (3 tests:" in r.stderr


@needs_build_packages
def test_a_filter_that_selects_nothing_is_refused_in_one_line(repo):
    r = run_sanitizers(repo, "NoSuchSuite.*")
    assert r.returncode == 2
    assert "SANITIZER_FILTER='NoSuchSuite.*' selects no test" in r.stderr


@needs_build_packages
def test_a_log_dir_keeps_its_other_files_and_only_this_runs_logs_are_read(repo, tmp_path):
    """--log-dir . used to be removed whole (rm -rf): a user's folder and everything in it.
    Now only the script's own <tool>.<shard>.log/.status go, and only this run's logs are
    read (a stale or unrelated .log in the folder is no finding)."""
    mine = tmp_path / "mine"
    (mine / "sub").mkdir(parents=True)
    (mine / "notes.txt").write_text("keep")
    (mine / "sub" / "data.log").write_text("keep")
    (mine / "build.log").write_text("========= ERROR SUMMARY: 3 errors\n")
    (mine / "memcheck.notes.log").write_text("keep")
    (mine / "racecheck.3.log").write_text("========= ERROR SUMMARY: 5 errors\n")  # an earlier run's
    (mine / "racecheck.3.status").write_text("1 1\n")
    r = run_sanitizers(repo, "FloorOps.ChoiceByNAcrossTheTableRows", "--tools=memcheck", "--log-dir=.", cwd=mine)
    assert r.returncode == 0, r.stderr
    assert "1 tools x 1 tests" in r.stderr and "no unexplained findings" in r.stderr
    assert (mine / "notes.txt").read_text() == "keep" and (mine / "sub" / "data.log").read_text() == "keep"
    assert (mine / "build.log").exists() and (mine / "memcheck.notes.log").read_text() == "keep"
    assert not (mine / "racecheck.3.log").exists() and not (mine / "racecheck.3.status").exists()
    assert (mine / "memcheck.0.log").exists() and (mine / "memcheck.0.status").exists()


@needs_build_packages
def test_the_verdict_runs_with_the_python_the_setup_chose(repo):
    """With a python3 on PATH that lacks the tools' packages (numpy), the project's .venv
    is set up and used (ensure_python_packages), not found missing after every tool ran."""
    venv = repo / ".venv"
    if not venv.exists():
        venv.symlink_to(ROOT / ".venv")
    try:
        r = run_sanitizers(repo, "FloorOps.ChoiceByNAcrossTheTableRows", "--tools", "memcheck",
                           python_dirs=[str(repo.parent / "nopython")])
    finally:
        venv.unlink()
    assert r.returncode == 0, r.stderr
    assert "no unexplained findings" in r.stderr


@pytest.mark.parametrize("args, message", [
    (["--tools", ""], "--tools needs a value"),
    (["--tools="], "--tools needs a value"),
    (["--log-dir="], "--log-dir needs a value"),
    (["--tools=memcheck,leakcheck"], "unknown tool 'leakcheck'"),
])
def test_usage_errors_are_refused_up_front(tmp_path, args, message):
    r = subprocess.run([str(ROOT / "tools/run-sanitizers"), *args], capture_output=True, text=True, timeout=60,
                       env={"HOME": os.environ.get("HOME", "/tmp"), "PATH": "/usr/bin:/bin"}, cwd=tmp_path)
    assert r.returncode == 2, r.stderr
    assert len(r.stderr.splitlines()) == 1 and message in r.stderr, r.stderr


HELP = """cuda_bench [options]
  --launch=graph|stream    events timing: graph (default)
  --keep-samples           also write every sample's time
  --benchmark_min_time=T   is refused: use --max-time and --precision
"""


@pytest.mark.parametrize("name, listed", [("--launch", True), ("--keep-samples", True), ("--keep", False),
                                          ("--max-time", False), ("--precision", False)])
def test_bench_has_option_reads_the_option_lines_only(tmp_path, name, listed):
    """tools/common.sh's check of another build's options (run-ab, run-regression --base):
    an option named only in another one's text is not listed."""
    fake = tmp_path / "cuda_bench"
    fake.write_text("#!/bin/sh\ncat <<'END'\n" + HELP + "END\n")
    fake.chmod(0o755)
    script = 'set -euo pipefail; source "$1/tools/common.sh"; bench_has_option "$2" "$3"'
    r = subprocess.run(["bash", "-c", script, "bash", str(ROOT), str(fake), name], capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == (0 if listed else 1), r.stderr
