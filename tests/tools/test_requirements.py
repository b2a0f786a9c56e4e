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
