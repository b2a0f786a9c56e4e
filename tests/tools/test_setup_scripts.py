"""The bash plumbing that needs no GPU and no build: the GPU slug (the same as
the C++ slug() that names results files), run-regression's per-GPU baseline
choice, and run-sanitizers' exits without a GPU or with bad usage."""
import json
import os
import shutil
import subprocess
import sys
from functools import lru_cache
from pathlib import Path

import pytest
from conftest import FIXTURES, build_packages_present

ROOT = Path(__file__).resolve().parents[2]
BASELINES = ROOT / "results" / "baseline"


def run(*command, path_dirs=(), cwd=ROOT):
    """A command with only /usr/bin and /bin (and path_dirs) on PATH: no GPU tools."""
    env = {"HOME": os.environ.get("HOME", "/tmp"),
           "PATH": ":".join([*map(str, path_dirs), "/usr/bin", "/bin"])}
    return subprocess.run(command, capture_output=True, text=True, env=env, cwd=cwd, timeout=60)


REGRESSION = str(ROOT / "tools/run-regression")
SANITIZERS = str(ROOT / "tools/run-sanitizers")


def fake_nvidia_smi(tmp_path, *names):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    smi = bin_dir / "nvidia-smi"
    smi.write_text("#!/bin/sh\n" + "".join(f"echo '{n}'\n" for n in names))
    smi.chmod(0o755)
    return bin_dir


@pytest.mark.parametrize("name, slug", [
    ("NVIDIA H200", "nvidia-h200"),                                    # as tests/harness/test_device_context.cpp
    ("NVIDIA GeForce RTX 4090 (Laptop)", "nvidia-geforce-rtx-4090-laptop"),
    ("***", "unknown-gpu"),
    ("NVIDIA H100 80GB HBM3", "nvidia-h100-80gb-hbm3"),
    ("  Tesla V100-SXM2-16GB  ", "tesla-v100-sxm2-16gb"),
])
def test_gpu_slug_is_the_cpp_slug(name, slug):
    out = run("bash", "-c", 'source tools/common.sh; gpu_slug "$1"', "-", name)
    assert out.returncode == 0, out.stderr
    assert out.stdout == slug + "\n"


def test_a_gpu_model_without_a_baseline_exits_2_with_the_command_before_measuring(tmp_path):
    assert not list(BASELINES.glob("nvidia-a100-sxm4-80gb.json*"))
    out = run(REGRESSION, path_dirs=[fake_nvidia_smi(tmp_path, "NVIDIA A100-SXM4-80GB")],
               cwd=tmp_path)
    assert out.returncode == 2
    assert "results/baseline/nvidia-a100-sxm4-80gb.json.gz does not exist" in out.stderr
    assert ("tools/run-regression --refresh-baseline   (then commit results/baseline/nvidia-a100-sxm4-80gb.json.gz "
            "and the A/A runs and noise file it names)") in out.stderr
    assert "building" not in out.stderr  # chosen before anything is built or measured


def test_each_committed_gpu_model_has_its_baseline_and_noise_file():
    for slug in ("nvidia-h200", "nvidia-h100-80gb-hbm3"):
        assert (BASELINES / f"{slug}.json.gz").exists()   # runs are stored compressed (results/README.md)
        assert (BASELINES.parent / "regression" / f"noise_{slug}.json").exists()


def test_several_gpu_models_need_an_explicit_baseline(tmp_path):
    out = run(REGRESSION,
               path_dirs=[fake_nvidia_smi(tmp_path, "NVIDIA H200", "NVIDIA H100 80GB HBM3", "NVIDIA H200")])
    assert out.returncode == 2
    assert "several GPU models here (NVIDIA H100 80GB HBM3,NVIDIA H200)" in out.stderr


@pytest.mark.skipif(any(os.access(f"{d}/nvidia-smi", os.X_OK) for d in ("/usr/bin", "/bin")),
                    reason="a GPU driver's nvidia-smi is on the minimal PATH: the no-GPU path cannot be seen here")
def test_no_gpu_exits_3_before_building():
    out = run(REGRESSION)  # no nvidia-smi on this PATH
    assert out.returncode == 3
    assert "no CUDA GPU here (no NVIDIA driver (nvidia-smi not found))" in out.stderr
    out = run(SANITIZERS)
    assert out.returncode == 3
    assert "the sanitizers need one; nothing was checked" in out.stderr


@pytest.mark.parametrize("args, message", [
    (["--tools", "memcheck,leakcheck"], "unknown tool 'leakcheck'"),
    (["--log-dir"], "--log-dir needs a value"),
    (["--bogus"], "unknown option '--bogus'"),
])
def test_sanitizer_usage_errors_exit_2(args, message):
    out = run(SANITIZERS, *args)
    assert out.returncode == 2
    assert message in out.stderr


FAKE_CUDA_BENCH = """#!/bin/sh
# Two devices' results, as cuda_bench --device=0,1 writes them, into --results-dir.
for a in "$@"; do case $a in --results-dir=*) dir=${a#--results-dir=};; esac; done
for d in 0 1; do cp "$FIXTURE" "$dir/$STEM$d.json"; done
exit 1
"""


@pytest.mark.skipif(not (shutil.which("cmake") and shutil.which("ninja")), reason="needs cmake and ninja")
def test_run_benchmarks_plots_each_file_its_run_wrote_and_keeps_its_exit_code(tmp_path):
    # A build folder whose "cuda_bench" writes two files; an older file sorts after them by name.
    build = tmp_path / "build"
    (tmp_path / "src").mkdir()
    (tmp_path / "src/CMakeLists.txt").write_text("cmake_minimum_required(VERSION 3.20)\nproject(x NONE)\n")
    subprocess.run(["cmake", "-S", tmp_path / "src", "-B", build, "-G", "Ninja"], check=True, capture_output=True)
    (build / "cuda_bench").write_text(FAKE_CUDA_BENCH)
    (build / "cuda_bench").chmod(0o755)
    results = tmp_path / "results"
    results.mkdir()
    small = json.loads((FIXTURES / "h200_small.json").read_text())  # one family and type: fewer charts
    small["benchmarks"] = [b for b in small["benchmarks"] if b["name"].startswith("reduce_sum/i32/")]
    fixture = tmp_path / "run.json"
    fixture.write_text(json.dumps(small))
    shutil.copy(fixture, results / "zz-older-run.json")
    stem = f"nvidia-h100-test-{os.getpid()}-dev"
    env = {**os.environ, "BUILD_DIR": str(build), "FIXTURE": str(fixture), "STEM": stem}
    try:
        out = subprocess.run([str(ROOT / "tools/run-benchmarks"), "--results-dir=results"], cwd=tmp_path,
                             capture_output=True, text=True, env=env, timeout=300)
        assert out.returncode == 1, out.stderr  # cuda_bench's
        assert f"results: results/{stem}0.json" in out.stderr
        assert f"results: results/{stem}1.json" in out.stderr
        assert "zz-older-run" not in out.stderr
        for d in (0, 1):
            assert any((ROOT / "plots" / f"{stem}{d}").glob("bandwidth_*.png"))
        assert not (ROOT / "plots" / "zz-older-run").exists()
    finally:
        for d in (0, 1):
            shutil.rmtree(ROOT / "plots" / f"{stem}{d}", ignore_errors=True)


@pytest.mark.parametrize("script, first, last", [
    ("run-ab", "A/B of two commits on this GPU", "failed; 2 bad usage or revision; 3 no GPU."),
    ("run-regression", "The GPU regression gate", "recalibrates results/regression/noise_<gpu>.json (benchtools.refresh)."),
    ("run-sanitizers", "compute-sanitizer's memcheck", "are reported as known and do not fail the run."),
    ("run-tests", "Every test: set up, build", "tools/run-tests --help     this text"),
    ("run-benchmarks", "The main job: set up, build", "(build/cuda_bench --help lists cuda_bench's options)"),
    ("regenerate-plots", "Regenerates every committed chart", "tools/regenerate-plots --help   this text"),
    ("run-audit", "The DRAM-byte audit", "1 when ncu is missing or fails."),
    ("run-floor-check", "The launch-floor check", "2 usage or no .cccl/, 3 no GPU."),
    ("lock-requirements", "Refreshes tools/requirements.lock", "only add what the lock lacks (pip-compile's default)"),
    ("cccl-from-wheel", "Lays out PyPI's nvidia-cuda-cccl wheel", "-DCUDABENCH_CCCL_DIR=$PWD/.cccl ..."),
    ("lint", "Lints what no test runs", "the scripts are skipped with a note."),
])
@pytest.mark.parametrize("cwd", ["tools", "."])
def test_help_prints_the_whole_header_from_any_folder(script, first, last, cwd):
    """--help is the script's header comment, whole (common.sh's usage, read up to the
    script's `set -euo pipefail`), called from the project root or from tools/, before
    any setup or build (PATH has no CUDA here: a script that went on would fail or install)."""
    r = run(f"./{script}" if cwd == "tools" else f"tools/{script}", "--help", cwd=ROOT / cwd)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith(first) and r.stdout.rstrip().endswith(last), r.stdout
    assert "set -euo" not in r.stdout and "\n# " not in r.stdout


@pytest.mark.parametrize("script", ["regenerate-plots", "lint"])
def test_scripts_without_arguments_refuse_one_and_change_nothing(script):
    """regenerate-plots and lint take no arguments: one given is refused with exit 2 and a
    line that names it, before anything is drawn or installed (regenerate-plots used to
    ignore it and redraw plots/)."""
    before = subprocess.run(["git", "status", "--porcelain", "plots"], cwd=ROOT, capture_output=True, text=True).stdout
    r = run(f"tools/{script}", "--out=elsewhere")
    assert r.returncode == 2, r.stderr
    assert f"tools/{script} takes no arguments (got '--out=elsewhere')" in r.stderr
    after = subprocess.run(["git", "status", "--porcelain", "plots"], cwd=ROOT, capture_output=True, text=True).stdout
    assert after == before


@pytest.mark.parametrize("args, message", [
    (["--out"], "==> --out needs a value"),
    (["--n"], "==> --n needs a value"),
    (["--n", "12x"], "==> --n: expected a positive number of elements, got '12x'"),
    (["--out=/tmp/x", "--n=abc"], "==> --n: expected a positive number of elements, got 'abc'"),
    (["--n=0"], "==> --n: expected a positive number of elements, got '0'"),
    (["--out="], "==> --out needs a value"),
])
def test_run_audit_bad_usage_is_one_line_and_exit_2(args, message):
    """Checked before anything is set up (no CUDA on PATH here); '--out' last used to
    stop bash on an unbound $2 (exit 1)."""
    r = run("tools/run-audit", *args)
    assert r.returncode == 2, r.stderr
    assert r.stderr.splitlines() == [message]


def test_run_audit_without_a_gpu_is_exit_3_before_anything_else(tmp_path):
    """It used to ask for ncu first (exit 1 'ncu not found' on a machine without a GPU)
    and to build before cuda_bench found no GPU. (A driver that lists no GPU: the same
    on a GPU machine.)"""
    r = run("tools/run-audit", path_dirs=[fake_nvidia_smi(tmp_path)])
    assert r.returncode == 3, r.stderr
    assert r.stderr.splitlines() == ["==> no CUDA GPU here (nvidia-smi: lists no GPU): the audit profiles on one; "
                                     "nothing was built or measured"]


# ---------------------------------------------------------------- run-tests: what it takes

@pytest.mark.parametrize("args, message", [
    (["--bogus"], "==> unknown option '--bogus' (tools/run-tests takes -v, and CTest's -L, -LE, -R, -E, -j, "
                  "--timeout with a value)"),
    (["gpu"], "==> unknown option 'gpu' (tools/run-tests takes -v, and CTest's -L, -LE, -R, -E, -j, --timeout "
              "with a value)"),
    (["-v", "-L"], "==> -L needs a value"),
])
def test_run_tests_refuses_what_it_does_not_document_before_anything(args, message):
    """Unknown options used to go to CTest, which ignored them: exit 0."""
    out = run("tools/run-tests", *args)   # no nvcc on this PATH: nothing set up before the refusal
    assert out.returncode == 2, out.stderr
    assert out.stderr.splitlines() == [message]


CTEST = """#!/bin/sh
# ctest -N (the listing) finds no test; a real run is logged.
for a in "$@"; do [ "$a" = -N ] && { echo "$@" >> "$CTEST_LOG"; printf 'Test project x\\n\\nTotal Tests: 0\\n'; exit 0; }; done
echo run "$@" >> "$CTEST_LOG"
"""


def script_project(tmp_path, script):
    """A project copy holding one script and what its setup reads (skips where python3 is
    not at the lock, which the script would set up from the network)."""
    if not python_at_the_lock():
        pytest.skip("python3 is not at tools/requirements.lock (tools/run-tests sets it up)")
    root = tmp_path / "project"
    (root / "tools").mkdir(parents=True)
    for name in (script, "common.sh", "requirements.py", "requirements.lock", "pyproject.toml"):
        shutil.copy(ROOT / "tools" / name, root / "tools" / name)
    return root


@pytest.mark.skipif(not build_packages_present(), reason="the C++ build's Debian packages are not installed")
def test_run_tests_with_a_selection_that_matches_nothing_fails_before_running(tmp_path):
    """-L gpuu (a typo) used to pass: CTest ran 0 tests, then pytest."""
    root = script_project(tmp_path, "run-tests")
    (root / "build").mkdir()
    for name in ("CMakeCache.txt", "build.ninja", "cudabench-cmake-args"):
        (root / "build" / name).write_text("")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name, text in (("nvcc", "#!/bin/sh\n"), ("cmake", "#!/bin/sh\n"), ("ctest", CTEST)):
        (bin_dir / name).write_text(text)
        (bin_dir / name).chmod(0o755)
    log = tmp_path / "ctest.log"
    env = {"HOME": os.environ.get("HOME", "/tmp"), "PATH": f"{bin_dir}:{PYTHON_DIR}:/usr/bin:/bin",
           "CTEST_LOG": str(log), "BUILD_DIR": "build"}
    r = subprocess.run(["tools/run-tests", "-L", "gpuu", "-j", "2"], cwd=root, capture_output=True, text=True,
                       env=env, timeout=120)
    assert r.returncode == 2, r.stderr
    assert r.stderr.splitlines()[-1] == ("==> no CTest test matches -L gpuu -j 2; nothing was run "
                                         "(ctest --test-dir build -N lists them)")
    assert log.read_text().splitlines() == [f"--test-dir {root}/build -N -L gpuu -j 2"]


# ---------------------------------------------------------------- regenerate-plots: what it removes

PYTHON_DIR = Path(sys.executable).parent   # this interpreter's python3 first on PATH: regenerate-plots uses it


@lru_cache(maxsize=None)
def python_at_the_lock() -> bool:
    """Whether python3 here has tools/requirements.lock's versions: else regenerate-plots would
    make a .venv/ (from the network) in the copy."""
    check = [str(PYTHON_DIR / "python3"), str(ROOT / "tools/requirements.py"), "--check-lock"]
    return (PYTHON_DIR / "python3").exists() and subprocess.run(check, capture_output=True).returncode == 0


def regenerate_plots_project(tmp_path, benchmarks=None):
    """A project copy for tools/regenerate-plots: the script, common.sh and the tools (linked),
    one H200 reference run of one family and type (a few charts: seconds)."""
    root = script_project(tmp_path, "regenerate-plots")
    (root / "tools/benchtools").symlink_to(ROOT / "tools/benchtools")
    run = json.loads((FIXTURES / "h200_small.json").read_text())
    run["benchmarks"] = [b for b in run["benchmarks"] if b["name"].startswith("reduce_sum/i32/")]
    if benchmarks is not None:
        run["benchmarks"] = benchmarks(run["benchmarks"])
    (root / "results/reference").mkdir(parents=True)
    (root / "results/reference/nvidia-h200.json").write_text(json.dumps(run))
    return root


def regenerate_plots(root, tmp_path):
    env = {"HOME": os.environ.get("HOME", "/tmp"), "PATH": f"{PYTHON_DIR}:/usr/bin:/bin",
           "GIT_CEILING_DIRECTORIES": str(tmp_path)}   # a checkout only where the test makes one
    return subprocess.run(["tools/regenerate-plots"], cwd=root, capture_output=True, text=True, env=env, timeout=120)


def write_files(root, files):
    for path, data in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_bytes(data)


def commit_all(root):
    """The project copy as a git checkout of one commit (what regenerate-plots asks git)."""
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"]
    for command in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "project"]):
        subprocess.run(git + command, cwd=root, check=True, capture_output=True)


def test_regenerate_plots_in_a_checkout_removes_only_the_charts_git_tracks(tmp_path):
    """It used to delete every chart under plots/ (two levels deep): a user's own, drawn with
    bench-plot --out plots/..., went silently. Now the tracked charts are its own (stale ones
    go); anything else stays, and is named."""
    root = regenerate_plots_project(tmp_path)
    stale = {"plots/nvidia-h200/speedup_dropped.png": b"a chart the tools no longer draw",
             "plots/nvidia-a100/time_reduce_sum_i32.png": b"a GPU model whose run was removed"}
    write_files(root, stale)
    commit_all(root)
    mine = {"plots/mine/dot.png": b"mine", "plots/mine/dot.svg": b"mine", "plots/dot.pdf": b"mine",
            "plots/nvidia-h200/by-hand.svg": b"mine"}
    write_files(root, mine)

    r = regenerate_plots(root, tmp_path)

    assert r.returncode == 0, r.stderr
    assert not any((root / p).exists() for p in stale) and not (root / "plots/nvidia-a100").exists()
    assert all((root / p).read_bytes() == data for p, data in mine.items())
    assert (root / "plots/nvidia-h200/bandwidth_reduce_sum_i32.png").exists()
    assert [line for line in r.stderr.splitlines() if "did not draw" in line] == [
        "==> plots/: 1 file regenerate-plots did not draw, left as it is",
        "==> plots/mine/: 2 files regenerate-plots did not draw, left as they are",
        "==> plots/nvidia-h200/: 1 file regenerate-plots did not draw, left as it is"]


@pytest.mark.parametrize("how, code, word", [("fail", 1, "failed"), ("term", 143, "interrupted")])
def test_regenerate_plots_interrupted_or_failing_in_a_checkout_puts_the_tracked_charts_back(tmp_path, how, code,
                                                                                               word):
    """It removes the tracked charts before drawing: Ctrl-C (or a failing bench-plot) used to
    leave them removed."""
    root = regenerate_plots_project(tmp_path)
    tracked = {"plots/nvidia-h200/bandwidth_reduce_sum_i32.png": b"committed chart",
               "plots/nvidia-a100/time_reduce_sum_i32.png": b"a GPU model whose run was removed"}
    write_files(root, tracked)
    commit_all(root)
    # python3 as it is, except that the first bench-plot fails or has the script terminated.
    wrapper = tmp_path / "wrapper"
    wrapper.mkdir()
    (wrapper / "python3").write_text(
        "#!/bin/sh\ncase \" $* \" in *\" benchtools.plot \"*)\n"
        f"  [ {how} = term ] && kill -TERM $PPID && exit 0\n  exit 1 ;;\nesac\n"
        f"exec {PYTHON_DIR / 'python3'} \"$@\"\n")
    (wrapper / "python3").chmod(0o755)
    env = {"HOME": os.environ.get("HOME", "/tmp"), "PATH": f"{wrapper}:{PYTHON_DIR}:/usr/bin:/bin",
           "GIT_CEILING_DIRECTORIES": str(tmp_path)}
    r = subprocess.run(["tools/regenerate-plots"], cwd=root, capture_output=True, text=True, env=env, timeout=120)
    assert r.returncode == code, r.stderr
    assert r.stderr.splitlines()[-1] == (f"==> {word}: restored the 2 tracked chart(s) it had removed and not "
                                         "redrawn (git checkout)")
    assert all((root / p).read_bytes() == data for p, data in tracked.items())
    status = subprocess.run(["git", "status", "--porcelain"], cwd=root, capture_output=True, text=True).stdout
    assert status == ""


def test_regenerate_plots_outside_git_removes_the_charts_of_the_folders_it_draws_and_counts_them(tmp_path):
    root = regenerate_plots_project(tmp_path)
    write_files(root, {"plots/nvidia-h200/old.png": b"old", "plots/nvidia-h200/by-hand.svg": b"mine",
                       "plots/mine/dot.png": b"mine"})

    r = regenerate_plots(root, tmp_path)

    assert r.returncode == 0, r.stderr
    assert not (root / "plots/nvidia-h200/old.png").exists() and not (root / "plots/nvidia-h200/by-hand.svg").exists()
    assert (root / "plots/mine/dot.png").read_bytes() == b"mine"
    assert ("==> plots/nvidia-h200/: removing 2 charts before redrawing (no git checkout to tell its charts "
            "from others')") in r.stderr.splitlines()
    assert "==> plots/mine/: 1 file regenerate-plots did not draw, left as it is" in r.stderr.splitlines()


def test_regenerate_plots_refuses_a_gpu_model_without_a_successful_benchmark(tmp_path):
    """Its newest run chosen by bench-newest was drawn, errored benchmarks only or none."""
    root = regenerate_plots_project(tmp_path, lambda benchmarks: [
        {**b, "error_occurred": True, "error_message": "verification failed"} for b in benchmarks])
    write_files(root, {"plots/nvidia-h200/bandwidth_reduce_sum_i32.png": b"the charts of the last good run"})

    r = regenerate_plots(root, tmp_path)

    assert r.returncode == 2, r.stderr
    assert ("bench-newest: no usable run of nvidia-h200: results/reference/nvidia-h200.json has no successful "
            "benchmark (all ") in r.stderr
    assert (root / "plots/nvidia-h200/bandwidth_reduce_sum_i32.png").read_bytes() == b"the charts of the last good run"
