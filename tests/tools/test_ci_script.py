"""`.ci/run` takes no arguments: --help prints what it does, anything else is refused at
once (it used to start the whole CI run, package installs and build included)."""
import subprocess
from pathlib import Path

CI = Path(__file__).resolve().parents[2] / ".ci" / "run"


def run(*args):
    return subprocess.run(["bash", str(CI), *args], capture_output=True, text=True, timeout=60)


def test_help_says_what_it_runs_and_runs_nothing():
    r = run("--help")
    assert r.returncode == 0 and r.stdout.startswith("CI on a CPU-only machine"), r.stdout + r.stderr
    assert "building" not in r.stderr


def test_an_argument_is_refused_before_anything_runs():
    r = run("--bogus")
    assert r.returncode == 2
    assert r.stderr.strip().splitlines() == ["==> .ci/run takes no arguments (got '--bogus')"]
