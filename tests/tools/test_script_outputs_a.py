"""What tools/run-audit and tools/cccl-from-wheel write and remove: only their own files,
and only once the new ones are complete (stand-ins for nvidia-smi, nvcc, cmake, ncu and
bench-audit; a tiny fake wheel; no GPU, no network)."""
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from test_run_ab import needs_build_packages, stand_in_repo

ROOT = Path(__file__).resolve().parents[2]

CUDA_BENCH = """#!/bin/sh
# cuda_bench --profile-one ... --results-dir=DIR: one results file, named as cuda_bench names it
for a in "$@"; do case $a in --results-dir=*) dir=${a#--results-dir=};; esac; done
echo '{"run": "new"}' > "$dir/nvidia-h200_20270101T000000Z.json"
"""

NCU = """#!/bin/sh
# ncu: --import prints the raw page; a profiling run writes its report and runs the program
if [ "$1" = --import ]; then echo '"ID","dram__bytes_read.sum"'; exit 0; fi
while [ $# -gt 0 ]; do
  case $1 in --export) : > "$2.ncu-rep"; shift 2 ;; */cuda_bench) exec "$@" ;; *) shift ;; esac
done
"""

AUDIT = """import os, pathlib, sys
# bench-audit stand-in: RESULTS NCU_RAW --out DIR; FAKE_AUDIT_FAIL=1 refuses the input
if os.environ.get("FAKE_AUDIT_FAIL"):
    print("bench-audit: " + sys.argv[1] + ": not a results file", file=sys.stderr)
    sys.exit(2)
out = pathlib.Path(sys.argv[4])
(out / "audit.md").write_text("new audit\\n")
(out / "audit.json").write_text('{"audit": "new"}\\n')
print(out / "audit.md")
print(out / "audit.json")
"""


@pytest.fixture
def audit_repo(tmp_path):
    repo = stand_in_repo(tmp_path)
    (repo / "fake_cuda_bench").write_text(CUDA_BENCH)
    (repo / "fake_cuda_bench").chmod(0o755)
    (repo / "tools/benchtools/audit.py").write_text(AUDIT)
    ncu = tmp_path / "bin" / "ncu"
    ncu.write_text(NCU)
    ncu.chmod(0o755)
    return repo


def run_audit(repo, *args, cwd, **env):
    path = [str(repo.parent / "bin"), os.path.dirname(sys.executable), "/usr/bin", "/bin"]
    return subprocess.run([str(repo / "tools/run-audit"), *args], cwd=cwd, capture_output=True, text=True,
                          timeout=120, env={"HOME": os.environ.get("HOME", "/tmp"), "PATH": ":".join(path), **env})


def previous_audit(folder):
    folder.mkdir(parents=True)
    (folder / "audit.json").write_text("old")
    (folder / "audit.md").write_text("old")
    (folder / "ncu_raw.csv").write_text("old")
    (folder / "nvidia-h200_20260101T000000Z.json").write_text("old")
    (folder / "mine.json").write_text("keep")  # not the audit's
    (folder / "notes.txt").write_text("keep")


@needs_build_packages
def test_run_audit_writes_into_the_callers_out_and_replaces_only_its_own_files(audit_repo, tmp_path):
    """A relative --out was resolved from the project root, and `rm -f OUT/*.json` removed
    every JSON there before profiling."""
    work = tmp_path / "work"
    previous_audit(work / "audits")
    r = run_audit(audit_repo, "--out=audits", "--n=1024", cwd=work)
    assert r.returncode == 0, r.stderr
    out = work / "audits"
    assert sorted(p.name for p in out.iterdir()) == [
        "audit.json", "audit.md", "mine.json", "ncu_raw.csv", "notes.txt", "nvidia-h200_20270101T000000Z.json"]
    assert (out / "mine.json").read_text() == "keep" and (out / "notes.txt").read_text() == "keep"
    assert (out / "audit.json").read_text() == '{"audit": "new"}\n'
    assert r.stdout.splitlines() == [f"{out}/audit.md", f"{out}/audit.json"]
    assert not (audit_repo / "audits").exists()


@needs_build_packages
def test_run_audit_keeps_the_previous_audit_when_the_new_one_fails(audit_repo, tmp_path):
    out = tmp_path / "audits"
    previous_audit(out)
    r = run_audit(audit_repo, "--out", str(out), cwd=tmp_path, FAKE_AUDIT_FAIL="1")
    assert r.returncode == 2, r.stderr
    assert "is left as it was" in r.stderr
    assert sorted(p.name for p in out.iterdir()) == [
        "audit.json", "audit.md", "mine.json", "ncu_raw.csv", "notes.txt", "nvidia-h200_20260101T000000Z.json"]
    assert all((out / n).read_text() == "old" for n in ("audit.json", "audit.md", "ncu_raw.csv"))


# ---------------------------------------------------------------- cccl-from-wheel

WHEEL_ROOT = "nvidia/cu13"


def fake_wheel(path, version="13.3.4.3.1"):
    """The layout of nvidia-cuda-cccl's wheel, a few files of it."""
    with zipfile.ZipFile(path, "w") as z:
        z.writestr(f"{WHEEL_ROOT}/include/cccl/cub/cub.cuh", "// cub\n")
        z.writestr(f"{WHEEL_ROOT}/include/cccl/cuda/std/__cccl/version.h", f"#define CCCL_VERSION 3003000 // {version}\n")
        z.writestr(f"{WHEEL_ROOT}/cccl/lib/cmake/cccl/cccl-config.cmake", "# cccl\n")
        z.writestr(f"{WHEEL_ROOT}/cccl/LICENSE", "license\n")
    return path


def cccl_from_wheel(*args, cwd):
    return subprocess.run([str(ROOT / "tools/cccl-from-wheel"), *args], cwd=cwd, capture_output=True, text=True,
                          timeout=60, env={"HOME": os.environ.get("HOME", "/tmp"),
                                           "PATH": ":".join([os.path.dirname(sys.executable), "/usr/bin", "/bin"])})


def test_cccl_from_wheel_a_bad_wheel_is_one_line_and_dest_stays(tmp_path):
    """DEST used to be removed before the wheel was opened (then a zipfile traceback)."""
    (tmp_path / "bad.whl").write_text("x")
    dest = tmp_path / "prefix"
    (dest / "include/cub").mkdir(parents=True)
    (dest / "lib/cmake/cccl").mkdir(parents=True)
    (dest / "lib/cmake/cccl/cccl-config.cmake").write_text("old")
    r = cccl_from_wheel("bad.whl", "prefix", cwd=tmp_path)
    assert r.returncode == 2, r.stderr
    assert len(r.stderr.splitlines()) == 1 and "not a readable wheel" in r.stderr and "Traceback" not in r.stderr
    assert (dest / "lib/cmake/cccl/cccl-config.cmake").read_text() == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.whl", "prefix"]  # no work folder left


def test_cccl_from_wheel_refuses_a_dest_that_is_not_a_cccl_prefix(tmp_path):
    fake_wheel(tmp_path / "nvidia_cuda_cccl-13.3.4.3.1-py3-none-any.whl")
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "f").write_text("keep")
    r = cccl_from_wheel("nvidia_cuda_cccl-13.3.4.3.1-py3-none-any.whl", "victim", cwd=tmp_path)
    assert r.returncode == 2, r.stderr
    assert "is not a CCCL prefix" in r.stderr
    assert [p.name for p in victim.iterdir()] == ["f"]


def test_cccl_from_wheel_lays_out_a_wheel_from_the_callers_folder_and_replaces_its_prefix(tmp_path):
    wheel = fake_wheel(tmp_path / "nvidia_cuda_cccl-13.3.4.3.1-py3-none-any.whl")
    for _ in range(2):  # the second run replaces the first one's prefix
        r = cccl_from_wheel(wheel.name, "prefix", cwd=tmp_path)
        assert r.returncode == 0, r.stderr
    dest = tmp_path / "prefix"
    assert (dest / "include/cub/cub.cuh").exists() and (dest / "lib/cmake/cccl/cccl-config.cmake").exists()
    assert "CCCL_VERSION 3003000" in r.stdout
    assert sorted(p.name for p in tmp_path.iterdir()) == [wheel.name, "prefix"]


@pytest.mark.parametrize("args, message", [
    (["--bogus"], "==> unknown option '--bogus'"),
    (["x.whl", "dest", "extra"], "==> tools/cccl-from-wheel takes a wheel or version and a DEST (got 'extra' too)"),
    (["13.3;rm"], "==> '13.3;rm' is neither a .whl nor a version (e.g. 13.3.*)"),
])
def test_cccl_from_wheel_bad_usage_is_exit_2(tmp_path, args, message):
    r = cccl_from_wheel(*args, cwd=tmp_path)
    assert r.returncode == 2, r.stderr
    assert r.stderr.splitlines()[0] == message
    assert list(tmp_path.iterdir()) == []
