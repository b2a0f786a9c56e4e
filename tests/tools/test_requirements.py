"""tools/requirements.py: the one list of the tools' requirements, and the check
that decides whether python3 can be used as it is or .venv/ is needed."""
import sys

import pytest

import requirements

PYPROJECT = """
[project]
name = "x"
dependencies = ["numpy>=1.21", "pytest"]
[project.optional-dependencies]
test = ["pytest>=7"]
lint = ["check-jsonschema>=0.28"]
"""


@pytest.fixture
def pyproject(tmp_path):
    path = tmp_path / "pyproject.toml"
    path.write_text(PYPROJECT)
    return path


def test_base_then_groups_once_each(pyproject):
    assert requirements.requirements([], pyproject) == ["numpy>=1.21", "pytest"]
    assert requirements.requirements(["test"], pyproject) == ["numpy>=1.21", "pytest", "pytest>=7"]
    assert requirements.requirements(["all", "test"], pyproject)[-1] == "check-jsonschema>=0.28"
    with pytest.raises(ValueError, match="no optional-dependency group docs"):
        requirements.requirements(["docs"], pyproject)


def test_the_projects_own_list_is_understood():
    reqs = requirements.requirements(["all"])
    assert {"matplotlib>=3.5", "numpy>=1.21", "scipy>=1.7", "pytest>=7"} <= set(reqs)
    requirements.missing(reqs)  # every specifier is one the check understands


def test_missing_names_what_and_why():
    assert requirements.missing(["pytest>=1"]) == []  # this interpreter runs pytest
    assert requirements.missing(["pytest>=999"])[0].startswith("pytest>=999 (have ")
    assert requirements.missing(["surely-not-a-package-xyz"]) == ["surely-not-a-package-xyz (not installed)"]
    with pytest.raises(ValueError, match="only 'name' and 'name>=X.Y'"):
        requirements.missing(["numpy<2"])


def test_cli_exit_codes(capsys):
    assert requirements.main(["--check", "test"]) == 0  # pytest runs this: it has the test group
    assert requirements.main(["--list", "test"]) == 0
    assert "pytest>=7" in capsys.readouterr().out.splitlines()
    assert requirements.main(["--check", "nonsense"]) == 2
    assert "no optional-dependency group nonsense" in capsys.readouterr().err


def test_check_fails_for_an_interpreter_without_them(monkeypatch, capsys):
    monkeypatch.setattr(requirements, "missing", lambda reqs: ["numpy>=1.21 (not installed)"])
    assert requirements.main(["--check"]) == 1
    assert capsys.readouterr().err == f"{sys.executable} lacks: numpy>=1.21 (not installed)\n"


def _python_without_scipy():
    """An interpreter on this machine that lacks scipy (Debian's python3 outside the venv), or None."""
    import shutil
    import subprocess
    for candidate in ("/usr/bin/python3", shutil.which("python3", path="/usr/local/bin:/usr/bin:/bin")):
        if candidate and subprocess.run([candidate, "-c", "import scipy"], capture_output=True).returncode != 0:
            return candidate
    return None


@pytest.mark.skipif(_python_without_scipy() is None, reason="every python3 here has scipy: the refusal cannot be seen")
@pytest.mark.parametrize("cli", ["table", "compare", "ab", "plot"])
def test_a_python_without_the_requirements_gets_one_line_and_exit_2(cli):
    import os
    import subprocess
    from pathlib import Path
    python = _python_without_scipy()
    tools = Path(__file__).resolve().parents[2] / "tools"
    r = subprocess.run([python, "-m", f"benchtools.{cli}", "--help"], capture_output=True, text=True,
                       env={"PATH": "/usr/bin:/bin", "HOME": os.environ.get("HOME", "/tmp"), "PYTHONPATH": str(tools)})
    assert r.returncode == 2 and r.stdout == ""
    lines = r.stderr.splitlines()
    assert len(lines) == 1 and "Traceback" not in r.stderr, r.stderr
    assert lines[0].startswith(f"benchtools: {python} lacks the tools' requirements: ")
    assert "scipy>=1.7 (not installed)" in lines[0] and "tools/requirements.lock" in lines[0]
